import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripRender
import Testing

/// The embedded map on the globe and in LAEA Europe, against an independent rasterisation: each
/// pixel's position found by hand (the orthographic inverse written out here, or PROJ's through the
/// view) and looked up in a Web Mercator render of the same land (the path maptrip has always drawn).
@Suite("Globe and projections on the embedded map")
struct GlobeRenderTests {
    static let mercatorZoom = 3.5
    let style: MapStyle = {
        var s = MapStyle.standard
        s.atmosphere = Color(red: 0, green: 0, blue: 0, alpha: 0)  // no glow: the disc's edge is sharp
        return s
    }()

    /// Land and lakes only (no borders over the colours).
    func map() throws -> ShapefileBaseMap {
        try ShapefileBaseMap(assets: assets, style: style,
                             layers: MapLayer.standard(style).filter { $0.name == "land" || $0.name == "lakes" })
    }

    /// The whole Web Mercator world at `mercatorZoom`: the reference land.
    func reference() throws -> (ImageSurface, Viewport) {
        let size = Int(WebMercator.worldSize(zoom: Self.mercatorZoom).rounded())
        let v = Viewport(camera: Camera(center: LonLat(lon: 0, lat: 0), zoom: Self.mercatorZoom), width: size, height: size)
        let s = try ImageSurface(width: size, height: size)
        let m = try map()
        try s.withContext { try m.draw(v, in: $0) }
        return (s, v)
    }

    func isLand(_ s: ImageSurface, _ x: Int, _ y: Int) -> Bool {
        let p = s.pixel(x: x, y: y)
        func d(_ c: Color) -> Int {
            abs(Int(p.r) - Int(c.red * 255)) + abs(Int(p.g) - Int(c.green * 255)) + abs(Int(p.b) - Int(c.blue * 255))
        }
        return d(style.land) < d(style.water)
    }

    func referenceLand(_ ref: (ImageSurface, Viewport), _ p: LonLat) -> Bool? {
        guard abs(p.lat) < 84 else { return nil }
        let q = ref.1.pixel(p)!
        return isLand(ref.0, Int(q.x), Int(q.y))
    }

    struct Score: CustomStringConvertible {
        var landBoth = 0, landEither = 0, seaBoth = 0, seaEither = 0
        var landIoU: Double { Double(landBoth) / Double(max(landEither, 1)) }
        var seaIoU: Double { Double(seaBoth) / Double(max(seaEither, 1)) }
        var description: String { String(format: "land IoU %.4f, sea IoU %.4f", landIoU, seaIoU) }
        mutating func add(_ a: Bool, _ b: Bool) {
            if a && b { landBoth += 1 }
            if a || b { landEither += 1 }
            if !a && !b { seaBoth += 1 }
            if !a || !b { seaEither += 1 }
        }
    }

    @Test(arguments: [0.0, 30.0])
    func globeAtRestMatchesAnIndependentOrthographicRasterisation(bearing: Double) throws {
        let ref = try reference()
        let width = 960, height = 600
        let zoom = 2.9
        let center = LonLat(lon: 10, lat: 25)
        let v = Viewport(camera: Camera(center: center, zoom: zoom, bearing: bearing), width: width, height: height,
                         projection: .globe)
        let s = try ImageSurface(width: width, height: height)
        let m = try map()
        try s.withContext { try m.draw(v, in: $0) }
        dump(s, "globe-bearing-\(Int(bearing))")

        // The zoom rule: the disc's radius is 256 x 2^z / 2π.
        let radius = 256 * pow(2, zoom) / (2 * .pi)
        let cx = Double(width) / 2, cy = Double(height) / 2
        let phi0 = center.lat * .pi / 180, lam0 = center.lon * .pi / 180, b = bearing * .pi / 180
        var score = Score()
        var outside = 0, outsideWrong = 0
        let space = style.space
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) + 0.5 - cx, fy = Double(y) + 0.5 - cy
                let d = hypot(fx, fy)
                if d > radius + 1.5 {
                    outside += 1
                    let p = s.pixel(x: x, y: y)
                    if abs(Int(p.r) - Int(space.red * 255 + 0.5)) > 2 || abs(Int(p.g) - Int(space.green * 255 + 0.5)) > 2
                        || abs(Int(p.b) - Int(space.blue * 255 + 0.5)) > 2 { outsideWrong += 1 }
                    continue
                }
                guard d < radius - 1.5 else { continue }
                // Undo the bearing, then the orthographic inverse (Snyder, Map Projections 1987, p. 150).
                let ex = cos(b) * fx - sin(b) * fy, ny = -(sin(b) * fx + cos(b) * fy)
                let u = ex / radius, w = ny / radius
                let rho = hypot(u, w), c = asin(min(1, rho))
                let lat = rho == 0 ? phi0 : asin(cos(c) * sin(phi0) + w * sin(c) * cos(phi0) / rho)
                let lon = lam0 + atan2(u * sin(c), rho * cos(phi0) * cos(c) - w * sin(phi0) * sin(c))
                guard let truth = referenceLand(ref, LonLat(lon: WebMercator.wrapLongitude(lon * 180 / .pi),
                                                            lat: lat * 180 / .pi)) else { continue }
                score.add(isLand(s, x, y), truth)
            }
        }
        #expect(score.landIoU >= 0.97 && score.seaIoU >= 0.97, "\(score)")
        #expect(outside > 0 && outsideWrong == 0, "\(outsideWrong) of \(outside) pixels outside the disc are not space")

        // The disc's edge along the row through the centre: where the sea (or land) ends.
        let row = height / 2
        var left = 0, right = width - 1
        func onEarth(_ x: Int) -> Bool {
            let p = s.pixel(x: x, y: row)
            return abs(Int(p.r) - Int(space.red * 255 + 0.5)) + abs(Int(p.g) - Int(space.green * 255 + 0.5))
                + abs(Int(p.b) - Int(space.blue * 255 + 0.5)) > 60
        }
        while left < width / 2, !onEarth(left) { left += 1 }
        while right > width / 2, !onEarth(right) { right -= 1 }
        let measured = Double(right - left + 1) / 2
        #expect(abs(measured - radius) / radius < 0.01, "disc radius \(measured), zoom rule \(radius)")
    }

    @Test func laeaEuropeMatchesTheLandThroughPROJ() throws {
        let ref = try reference()
        let width = 960, height = 600
        let plane = try ProjPlane("EPSG:3035")
        let v = Viewport(camera: Camera(center: LonLat(lon: 12, lat: 52), zoom: 3.6), width: width, height: height,
                         projection: .plane(plane))
        let s = try ImageSurface(width: width, height: height)
        let m = try map()
        try s.withContext { try m.draw(v, in: $0) }
        dump(s, "laea-europe")
        var score = Score()
        for y in stride(from: 0, to: height, by: 2) {
            for x in stride(from: 0, to: width, by: 2) {
                guard let p = v.location(atPixel: Double(x) + 0.5, Double(y) + 0.5),
                      let truth = referenceLand(ref, p) else { continue }
                score.add(isLand(s, x, y), truth)
            }
        }
        #expect(score.landIoU >= 0.97 && score.seaIoU >= 0.97, "\(score)")
    }
}

/// Pins on the globe fade out as the Earth turns them towards the limb, instead of popping off at
/// the horizon.
@Suite struct GlobePinTests {
    final class Blank: BaseMap {
        func draw(_ viewport: Viewport, in context: Context) throws {}
        var attribution: String? { nil }
        var attributionWarning: String? { nil }
        var warnings: [String] { [] }
    }

    @Test func pinsFadeTowardsTheLimb() throws {
        // On the equator, at 0, 60, 87 and 95 degrees from the camera: facing it, turning away, almost
        // at the limb, and beyond it.
        let lons = [0.0, 60, 87, 95]
        let places = lons.enumerated().map { Place(name: "P\($0.offset)", position: LonLat(lon: $0.element, lat: 0)) }
        var sc = scene(places, width: 640, height: 360)
        sc.projection = .globe
        let r = try FrameRenderer(scene: sc, baseMap: Blank(), overlays: [PlacesOverlay()])
        let camera = Camera(center: LonLat(lon: 0, lat: 0), zoom: 0.9)
        try r.render(FrameValues(camera: camera, reached: places.count, current: 0, titleOpacity: 0))
        dump(r.surface, "globe-pins-limb")
        let v = r.viewport(camera)
        // The most opaque pixel of each pin's body (above its tip).
        func opacity(_ k: Int) -> Int {
            guard let tip = v.pixel(places[k].position) else { return 0 }
            let u = r.layout.unit
            var best = 0
            for y in Int(tip.y - 30 * u)..<Int(tip.y - 8 * u) {
                for x in Int(tip.x - 6 * u)...Int(tip.x + 6 * u) { best = max(best, Int(r.surface.pixel(x: x, y: y).a)) }
            }
            return best
        }
        let a = lons.indices.map(opacity)
        #expect(a[0] == 255 && a[1] == 255, "\(a)")
        #expect(a[2] > 20 && a[2] < 200, "\(a)")
        #expect(a[3] == 0, "\(a)")
        #expect(v.facing(places[0].position) == 1 && v.facing(places[3].position) == 0)
        #expect(v.facing(places[2].position) > 0 && v.facing(places[2].position) < 1)
    }
}
