import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
@testable import MapTripRender
import Testing
import TestSupport
@testable import MapTripTiles

/// Tiles of a synthetic land mask, reprojected onto the globe, a PROJ plane and a turned Mercator
/// frame, must show the land where the mask puts it.
@Suite("Tiles reprojected onto other projections")
struct ReprojectionTests {
    static let land = RGB(70, 170, 70), sea = RGB(30, 70, 190), polar = RGB(250, 250, 250)
    static let space = RGB(5, 7, 13)

    /// The land: boxes and great-circle discs, one across the antimeridian.
    static func isLand(lon: Double, lat: Double) -> Bool {
        let lon = WebMercator.wrapLongitude(lon)
        if lat > 30, lat < 60, lon > -30, lon < 40 { return true }
        if lat > -40, lat < 10, lon > 60, lon < 120 { return true }
        if lat > -20, lat < 20, lon > 170 || lon < -170 { return true }
        for (clon, clat, radius) in [(20.0, 0.0, 15.0), (-60.0, -10.0, 25.0), (-100.0, 45.0, 12.0)] {
            let d = Geodesy.distanceKm(LonLat(lon: lon, lat: lat), LonLat(lon: clon, lat: clat)) / Geodesy.earthRadiusKm * 180 / .pi
            if d < radius { return true }
        }
        return false
    }

    /// Paints a Web Mercator viewport straight from the mask (what the tile pyramid is made of).
    final class MaskBaseMap: BaseMap {
        func draw(_ viewport: Viewport, in cr: Context) throws {
            let s = cr.surface
            s.flush()
            let c = viewport.centerWorld, size = viewport.worldSize
            for py in 0..<viewport.height {
                let wy = c.y + (Double(py) + 0.5 - Double(viewport.height) / 2) / size
                for px in 0..<viewport.width {
                    let wx = c.x + (Double(px) + 0.5 - Double(viewport.width) / 2) / size
                    let p = WebMercator.unproject(WorldPoint(x: wx, y: wy))
                    let color = ReprojectionTests.isLand(lon: p.lon, lat: p.lat) ? ReprojectionTests.land : ReprojectionTests.sea
                    let q = s.data + py * s.stride + px * 4
                    q[0] = UInt8(color.b); q[1] = UInt8(color.g); q[2] = UInt8(color.r); q[3] = 255
                }
            }
            s.markDirty()
        }
    }

    enum Kind: Equatable { case land, sea, polar, other }

    static func classify(_ c: RGB) -> Kind {
        func d(_ o: RGB) -> Int { abs(c.r - o.r) + abs(c.g - o.g) + abs(c.b - o.b) }
        let best = [(Kind.land, d(land)), (.sea, d(sea)), (.polar, d(polar))].min { $0.1 < $1.1 }!
        return best.1 <= 150 ? best.0 : .other
    }

    /// The mask's class at a position (polar beyond the tiles' ±85.05 degrees).
    static func reference(_ p: LonLat?) -> Kind {
        guard let p else { return .other }
        if abs(p.lat) > WebMercator.maxLatitude { return .polar }
        return isLand(lon: p.lon, lat: p.lat) ? .land : .sea
    }

    /// Intersection over union of one class between the frame and the reference.
    static func iou(_ frame: ImageSurface, _ reference: [Kind], _ kind: Kind) -> Double {
        var inter = 0, union = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let a = classify(TileTest.rgb(frame, x, y)) == kind, b = reference[y * frame.width + x] == kind
                if a && b { inter += 1 }
                if a || b { union += 1 }
            }
        }
        return union == 0 ? 1 : Double(inter) / Double(union)
    }

    /// A tile map of the mask (zooms 0...3) in a temporary folder.
    static func withMaskTiles<T>(_ body: (TileBaseMap, CountingSource) throws -> T) throws -> T {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(MaskBaseMap(), to: dir.appendingPathComponent("mask"), zooms: 0...3)
            let source = CountingSource(try FolderSource(directory: dir.appendingPathComponent("mask")))
            let map = TileBaseMap(source: source)
            map.polar = polar.color
            return try body(map, source)
        }
    }

    @Test("a globe at rest: land and sea where an independent orthographic rasterisation puts them, the disc's radius, space outside")
    func globe() throws {
        try Self.withMaskTiles { map, source in
            let v = Viewport(camera: Camera(center: LonLat(lon: 10, lat: 20), zoom: 2), width: 960, height: 540,
                             projection: .globe)
            try map.prepare(for: [v])
            let batches = source.batches
            // Without the atmosphere, the disc's edge is clean.
            map.atmosphere = Color(red: 0, green: 0, blue: 0, alpha: 0)
            let frame = try TileTest.render(map, v)
            #expect(source.batches == batches, "prepare fetched every tile the frame needs")
            #expect(map.warnings.isEmpty)

            // The inverse orthographic projection, by hand.
            let r = 256 * 4 / (2 * Double.pi)
            let phi0 = 20 * Double.pi / 180, lambda0 = 10 * Double.pi / 180
            var reference: [Kind] = []
            for py in 0..<v.height {
                for px in 0..<v.width {
                    let x = (Double(px) + 0.5 - 480) / r, y = -(Double(py) + 0.5 - 270) / r
                    let rho = (x * x + y * y).squareRoot()
                    if rho > 1 { reference.append(.other); continue }
                    let c = asin(rho)
                    let lat = rho == 0 ? phi0 : asin(cos(c) * sin(phi0) + y * sin(c) * cos(phi0) / rho)
                    let lon = lambda0 + atan2(x * sin(c), rho * cos(c) * cos(phi0) - y * sin(c) * sin(phi0))
                    reference.append(Self.reference(LonLat(lon: lon * 180 / .pi, lat: lat * 180 / .pi)))
                }
            }
            let landIoU = Self.iou(frame, reference, .land), seaIoU = Self.iou(frame, reference, .sea)
            #expect(landIoU >= 0.97, "land IoU \(landIoU)")
            #expect(seaIoU >= 0.97, "sea IoU \(seaIoU)")

            // The disc's radius along the horizontal centre line.
            var right = 0, left = 0
            for x in 480..<960 where !TileTest.rgb(frame, x, 270).near(Self.space, 8) { right = x }
            for x in stride(from: 479, through: 0, by: -1) where !TileTest.rgb(frame, x, 270).near(Self.space, 8) { left = x }
            let measured = (Double(right + 1) - Double(left)) / 2
            #expect(abs(measured - r) / r < 0.01, "radius \(measured) vs \(r)")

            // With the atmosphere: outside the disc only space and the atmosphere's glow over it.
            map.atmosphere = Color(red: 0.561, green: 0.765, blue: 1)
            let lit = try TileTest.render(map, v)
            let a = RGB(143, 195, 255)
            var bad: [String] = []
            for py in 0..<v.height {
                for px in 0..<v.width {
                    let dx = Double(px) + 0.5 - 480, dy = Double(py) + 0.5 - 270
                    guard (dx * dx + dy * dy).squareRoot() > r + 1.5 else { continue }
                    let c = TileTest.rgb(lit, px, py)
                    // On the segment from space to the atmosphere colour.
                    let t = Double(c.b - Self.space.b) / Double(a.b - Self.space.b)
                    let e = RGB(Int((Double(Self.space.r) + t * Double(a.r - Self.space.r)).rounded()),
                                Int((Double(Self.space.g) + t * Double(a.g - Self.space.g)).rounded()), c.b)
                    if !c.near(e, 4), bad.count < 5 { bad.append("(\(px),\(py)) \(c)") }
                }
            }
            #expect(bad.isEmpty, "off the disc: \(bad)")
        }
    }

    /// The frame against the mask seen through the viewport's own inverse.
    static func checkAgainstMask(_ v: Viewport, _ map: TileBaseMap, save: String? = nil) throws -> (land: Double, sea: Double) {
        try map.prepare(for: [v])
        let frame = try TileTest.render(map, v)
        if let save { try frame.writePNG(to: save) }
        var reference: [Kind] = []
        for py in 0..<v.height {
            for px in 0..<v.width {
                reference.append(Self.reference(v.location(atPixel: Double(px) + 0.5, Double(py) + 0.5)))
            }
        }
        return (Self.iou(frame, reference, .land), Self.iou(frame, reference, .sea))
    }

    @Test("LAEA Europe (EPSG:3035): land and sea where the projection puts them")
    func laea() throws {
        try Self.withMaskTiles { map, _ in
            let v = Viewport(camera: Camera(center: LonLat(lon: 10, lat: 52), zoom: 2.6), width: 960, height: 540,
                             projection: .plane(try ProjPlane("EPSG:3035")))
            let r = try Self.checkAgainstMask(v, map)
            #expect(r.land >= 0.97 && r.sea >= 0.97, "\(r)")
            #expect(map.warnings.isEmpty)
        }
    }

    @Test("a turned Web Mercator frame (bearing 30): the tiles turn with it, polar colour beyond 85 degrees")
    func rotatedMercator() throws {
        try Self.withMaskTiles { map, _ in
            let v = Viewport(camera: Camera(center: LonLat(lon: 175, lat: 55), zoom: 1.7, bearing: 30), width: 960, height: 540)
            #expect(TileBaseMap.needsReprojection(v))
            let r = try Self.checkAgainstMask(v, map)
            #expect(r.land >= 0.97 && r.sea >= 0.97, "\(r)")
        }
    }

    /// The fill walks each level's texels in runs inside one tile and hands the pixels at tile edges
    /// to the general path: a uniform tile set must come out uniform, with no line where a run ends.
    @Test("no seams where the fill crosses tile edges: a uniform tile set reprojects to a uniform frame",
          arguments: [
              (10.0, 20.0, 2.6, 30.0, false),   // turned Mercator, one level
              (-120.0, -35.0, 2.1, 200.0, false), // inside the cross-fade: two levels
              (179.9, 10.0, 3.0, 75.0, false),  // across the antimeridian
              (10.0, 20.0, 3.4, 0.0, true),     // a globe filling the frame
              (150.0, -30.0, 3.9, 45.0, true),  // a turned globe, two levels
          ])
    func noSeams(lon: Double, lat: Double, zoom: Double, bearing: Double, globe: Bool) throws {
        try TileTest.withTempDir { dir in
            let colour = RGB(180, 120, 60)
            try TileTest.pyramid(UniformBaseMap(colour), to: dir.appendingPathComponent("u"), zooms: 0...4)
            let map = TileBaseMap(source: try FolderSource(directory: dir.appendingPathComponent("u")))
            map.atmosphere = Color(red: 0, green: 0, blue: 0, alpha: 0)
            let v = Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: zoom, bearing: bearing),
                             width: 640, height: 360, projection: globe ? .globe : .webMercator)
            #expect(TileBaseMap.needsReprojection(v))
            let halfDiagonal: Double = (320.0 * 320.0 + 180.0 * 180.0).squareRoot()
            if globe { #expect(v.globeRadius > halfDiagonal + 2, "the disc covers the frame") }
            try map.prepare(for: [v])
            let frame = try TileTest.render(map, v)
            var bad: [String] = []
            for y in 0..<v.height {
                for x in 0..<v.width where !TileTest.rgb(frame, x, y).near(colour) {
                    if bad.count < 5 { bad.append("(\(x),\(y)) \(TileTest.rgb(frame, x, y))") }
                }
            }
            #expect(bad.isEmpty, "off-colour pixels: \(bad)")
            #expect(map.warnings.isEmpty)
        }
    }

    /// Beyond ±85.05 degrees the frame is the polar colour; the edge between is antialiased: pixels
    /// along it are mixes of the two colours (as many as the edge is long), and only along it.
    @Test("the tiles' polar edge is antialiased", arguments: [(10.0, 83.0, 2.0, 30.0, false), (40.0, 70.0, 2.6, 0.0, true)])
    func polarEdge(lon: Double, lat: Double, zoom: Double, bearing: Double, globe: Bool) throws {
        try TileTest.withTempDir { dir in
            let colour = RGB(180, 120, 60), white = RGB(250, 250, 250)
            try TileTest.pyramid(UniformBaseMap(colour), to: dir.appendingPathComponent("u"), zooms: 0...3)
            let map = TileBaseMap(source: try FolderSource(directory: dir.appendingPathComponent("u")))
            map.polar = white.color
            map.atmosphere = Color(red: 0, green: 0, blue: 0, alpha: 0)
            let v = Viewport(camera: Camera(center: LonLat(lon: lon, lat: lat), zoom: zoom, bearing: bearing),
                             width: 320, height: 200, projection: globe ? .globe : .webMercator)
            try map.prepare(for: [v])
            let frame = try TileTest.render(map, v)
            let edge = 85.0511
            // Which side of the edge each pixel's centre is on (nil: off the Earth or near the limb).
            let side: [[Bool?]] = (0..<v.height).map { y in
                (0..<v.width).map { x in
                    let px = Double(x) + 0.5, py = Double(y) + 0.5
                    if globe, hypot(px - 160, py - 100) > v.globeRadius - 2 { return nil }
                    return v.location(atPixel: px, py).map { $0.lat > edge }
                }
            }
            var boundary = 0, mixed = 0
            for y in 0..<v.height {
                for x in 0..<v.width {
                    guard let beyond = side[y][x] else { continue }
                    if !beyond, [(x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1)].contains(where: { q in
                        q.0 >= 0 && q.1 >= 0 && q.0 < v.width && q.1 < v.height && side[q.1][q.0] == true
                    }) { boundary += 1 }
                    let c = TileTest.rgb(frame, x, y)
                    if c.near(colour) || c.near(white) { continue }
                    mixed += 1
                    for (a, lo, hi) in [(c.r, colour.r, white.r), (c.g, colour.g, white.g), (c.b, colour.b, white.b)] {
                        #expect(a + 2 >= min(lo, hi) && a <= max(lo, hi) + 2, "(\(x),\(y)) \(c) is no mix")
                    }
                    let p = try #require(v.location(atPixel: Double(x) + 0.5, Double(y) + 0.5))
                    #expect(abs(p.lat - edge) < 1.5, "(\(x),\(y)) mixed at \(p.lat) degrees")
                }
            }
            #expect(boundary > 60, "pixels along the edge: \(boundary)")
            #expect(Double(mixed) > 0.5 * Double(boundary) && Double(mixed) < 3 * Double(boundary),
                    "\(mixed) mixed pixels along \(boundary)")
        }
    }

    @Test("a still view is reprojected twice, then copied back the same")
    func stillFrame() throws {
        try Self.withMaskTiles { map, _ in
            let v = Viewport(camera: Camera(center: LonLat(lon: -40, lat: -30), zoom: 2.3, bearing: 12), width: 320, height: 200,
                             projection: .globe)
            try map.prepare(for: [v])
            // The first frame of a view is only remembered, the second kept, the rest copied back.
            let a = try TileTest.render(map, v)
            let cached = map.lastReprojected
            #expect(cached?.kept == false)
            let b = try TileTest.render(map, v)
            #expect(map.lastReprojected === cached && cached?.kept == true)
            let c = try TileTest.render(map, v)
            #expect(map.reprojectedFrames == 2)
            #expect(try a.pngData() == b.pngData())
            #expect(try a.pngData() == c.pngData())
            // Another view is reprojected, and nothing of the kept frame shows.
            let moved = Viewport(camera: Camera(center: LonLat(lon: -38, lat: -30), zoom: 2.3, bearing: 12), width: 320,
                                 height: 200, projection: .globe)
            try map.prepare(for: [moved])
            let d = try TileTest.render(map, moved)
            #expect(map.reprojectedFrames == 3)
            #expect(try a.pngData() != d.pngData())
            _ = try TileTest.render(map, v)
            #expect(map.reprojectedFrames == 4)
        }
    }

    @Test("the plain Web Mercator frame is not reprojected")
    func plainMercator() {
        let v = TileTest.viewport(lon: 10, lat: 20, zoom: 2.5)
        #expect(!TileBaseMap.needsReprojection(v))
        #expect(TileBaseMap.needsReprojection(Viewport(camera: v.camera, width: 512, height: 512, projection: .globe)))
    }

    @Test("a walk's run length is the number of steps its texel stays in a range, counted one by one")
    func runLength() {
        var generator = SplitMix64(seed: 0x7E_E1)
        for _ in 0..<3_000 {
            let lo = Int.random(in: -600...600, using: &generator), hi = lo + Int.random(in: 0...300, using: &generator)
            let p = Int.random(in: ((lo - 4) << 16)...((hi + 4) << 16), using: &generator)
            let dp = Int.random(in: 0..<4, using: &generator) == 0 ? 0
                : Int.random(in: 1024...(3 << 16), using: &generator) * (Bool.random(using: &generator) ? 1 : -1)
            var k = 0
            while k < 1_000_000, (p + k * dp) >> 16 >= lo, (p + k * dp) >> 16 <= hi { k += 1 }
            let counted = k == 1_000_000 ? Int.max : k
            #expect(LevelWalk.steps(p, dp, lo: lo, hi: hi) == counted, "p \(p) dp \(dp) lo \(lo) hi \(hi)")
        }
    }
}
