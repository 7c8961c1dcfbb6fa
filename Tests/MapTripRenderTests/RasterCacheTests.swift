import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
@testable import MapTripRender
import Proj
import Testing
import RasterKernels
import TestBasics

/// The raster cache (flights composited from rasters of the map) against the map drawn from its
/// vectors, frame by frame.
@Suite struct RasterCacheTests {
    let width = 640, height = 360

    /// A flight: `count` cameras from `from` to `to`, each shown once (moving).
    func flight(_ from: Camera, _ to: Camera, count: Int) -> [Camera] {
        (0..<count).map { i in
            let t = Double(i) / Double(count - 1)
            return Camera(center: LonLat(lon: from.center.lon + (to.center.lon - from.center.lon) * t,
                                         lat: from.center.lat + (to.center.lat - from.center.lat) * t),
                          zoom: from.zoom + (to.zoom - from.zoom) * t)
        }
    }

    /// Draws every camera with a caching map (planned over `cameras`) and with a vector-only map;
    /// returns the SSIM of each pair and the cache's statistics.
    func compare(_ cameras: [Camera], forceCache: Bool = true, projection: Projection = .webMercator, name: String)
        throws -> (ssim: [Double], stats: RasterCacheStatistics?, identical: Int) {
        let cached = try ShapefileBaseMap(assets: assets)
        let direct = try ShapefileBaseMap(assets: assets, caching: MapCaching(cachesRasters: false))
        if forceCache { cached.caching.rasterBreakEven = .infinity }
        let viewports = cameras.map { Viewport(camera: $0, width: width, height: height, projection: projection) }
        try cached.prepare(for: viewports)
        try direct.prepare(for: viewports)
        cached.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
        let a = try ImageSurface(width: width, height: height), b = try ImageSurface(width: width, height: height)
        let similarity = try Similarity(width: width, height: height)
        var scores: [Double] = []
        var identical = 0
        for (i, v) in viewports.enumerated() {
            try a.withContext { try cached.draw(v, in: $0) }
            try b.withContext { try direct.draw(v, in: $0) }
            a.flush()
            b.flush()
            if i == viewports.count / 2 { dump(a, name + "-cached"); dump(b, name + "-vectors") }
            scores.append(try similarity.ssim(a.data, strideX: a.stride, b.data, strideY: b.stride))
            if memcmp(a.data, b.data, a.stride * height) == 0 { identical += 1 }
        }
        return (scores, cached.rasterCacheStatistics, identical)
    }

    @Test(arguments: [(3.6, 3.95), (4.3, 4.9), (6.6, 7.4), (9.1, 9.6)])
    func cachedFramesMatchTheVectorsAtSeveralZooms(zooms: (Double, Double)) throws {
        let cameras = flight(Camera(center: LonLat(lon: 126, lat: 36), zoom: zooms.0),
                             Camera(center: LonLat(lon: 128, lat: 35), zoom: zooms.1), count: 12)
        let (ssim, stats, _) = try compare(cameras, name: "raster-z\(zooms.0)")
        let s = try #require(stats)
        #expect(s.framesComposited == cameras.count)
        #expect(s.tilesDrawn > 0)
        #expect(ssim.min()! >= 0.99, "SSIM \(ssim.min()!) at zooms \(zooms)")
    }

    @Test(arguments: [false, true])
    func dashedBordersStayPutOnTheMapAsTheCameraPans(cached: Bool) throws {
        // A pan over Africa's long borders, (60, 36) pixels a frame: each frame's pixels are the
        // previous one's, moved. Dashes counted from where the frame's edge cut each border (as they
        // were) crawled along it as the camera moved, and differed from the cache's tiles.
        let zoom = 5.1, world = WebMercator.tileSize * pow(2, zoom), step = (x: 60, y: 36)
        let start = WebMercator.project(LonLat(lon: 14, lat: 6))
        let cameras = (0..<6).map { k in
            Camera(center: WebMercator.unproject(WorldPoint(x: start.x + Double(k * step.x) / world,
                                                            y: start.y + Double(k * step.y) / world)), zoom: zoom)
        }
        let map = try ShapefileBaseMap(assets: assets, caching: MapCaching(cachesRasters: cached))
        if cached { map.caching.rasterBreakEven = .infinity }
        let viewports = cameras.map { Viewport(camera: $0, width: width, height: height) }
        try map.prepare(for: viewports)
        map.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
        let surfaces = try viewports.map { v in
            let s = try ImageSurface(width: width, height: height)
            try s.withContext { try map.draw(v, in: $0) }
            s.flush()
            return s
        }
        if cached { #expect(map.rasterCacheStatistics?.framesComposited == cameras.count) }
        var differing = 0, compared = 0
        for k in 1..<surfaces.count {
            let p = surfaces[k - 1].data, q = surfaces[k].data, stride = surfaces[0].stride
            for y in 8..<(height - 8 - step.y) {
                for x in 8..<(width - 8 - step.x) {
                    compared += 1
                    let i = (y + step.y) * stride + (x + step.x) * 4, j = y * stride + x * 4
                    if (0..<3).contains(where: { abs(Int(p[i + $0]) - Int(q[j + $0])) > 24 }) { differing += 1 }
                }
            }
        }
        dump(surfaces[0], "pan-\(cached)")
        #expect(differing <= compared / 100_000, "\(differing) of \(compared) pixels moved otherwise")
    }

    /// A turning camera (a heading-up chase, a banking flight): its frames composited from the same
    /// north-up tiles, turned, match the map drawn turned from the vectors, with no seam between
    /// tiles (a seam of half-covered pixels would cost SSIM along every tile edge).
    @Test(arguments: [(6.6, 7.4), (9.1, 9.6)])
    func turnedFramesMatchTheVectors(zooms: (Double, Double)) throws {
        let cameras = flight(Camera(center: LonLat(lon: 126, lat: 36), zoom: zooms.0),
                             Camera(center: LonLat(lon: 128, lat: 35), zoom: zooms.1), count: 12)
            .enumerated().map { i, c in Camera(center: c.center, zoom: c.zoom, bearing: -40 + Double(i) * 17.3) }
        let (ssim, stats, _) = try compare(cameras, name: "raster-turned-z\(zooms.0)")
        let s = try #require(stats)
        #expect(s.framesComposited == cameras.count)
        #expect(ssim.min()! >= 0.98, "SSIM \(ssim.min()!) at zooms \(zooms)")
    }

    /// The turned-tile kernel against Cairo's drawing of the same tile through the same turn
    /// (pixman's bilinear filter, the outline not antialiased): the same pixels covered but for the
    /// outline's edge, the same colours within rounding; and four tiles laid edge to edge leave no
    /// pixel of their union uncovered.
    @Test(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"), arguments: [(30.0, 1.3), (-117.0, 0.71), (5.0, 2.2)])
    func theTurnedKernelMatchesCairo(turn: (degrees: Double, scale: Double)) throws {
        let tileSize = 24, side = tileSize + 2
        var random = SplitMix64(seed: UInt64(turn.degrees.magnitude * 100))
        let tile = try ImageSurface(width: side, height: side)
        for y in 0..<side {
            for x in 0..<side {
                let p = tile.data + y * tile.stride + x * 4
                for c in 0..<3 { p[c] = UInt8(random.next() % 256) }
                p[3] = 255
            }
        }
        tile.markDirty()
        let r = turn.degrees * .pi / 180, s = turn.scale
        // Level pixel (u, v) to frame: turned, scaled, the level's origin at frame (40, 30).
        let t = PixelTransform(a: s * cos(r), b: -s * sin(r), c: s * sin(r), d: s * cos(r), offsetX: 40, offsetY: 30, scale: s)
        let back = t.inverted
        let inverse = [back.a, back.b, back.offsetX, back.c, back.d, back.offsetY]
        let size = 96
        func paint(kernel: Bool, squares: [(Double, Double)]) throws -> ImageSurface {
            let frame = try ImageSurface(width: size, height: size)
            try frame.withContext { cr in
                cr.setOperator(.source)
                for (u0, v0) in squares {
                    let (u1, v1) = (u0 + Double(tileSize), v0 + Double(tileSize))
                    if kernel {
                        frame.flush()
                        #expect(Kernels.resampleTurned(tile.pixels, into: frame.pixels, firstRow: 0, rows: 0..<size,
                                                       inverse: inverse, u0: u0, v0: v0, u1: u1, v1: v1))
                        frame.markDirty()
                    } else {
                        let outline = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)].map { (x: t.x($0.0, $0.1), y: t.y($0.0, $0.1)) }
                        cr.paintImage(tile, a: t.a, b: t.b, c: t.c, d: t.d, x0: t.x(u0 - 1, v0 - 1), y0: t.y(u0 - 1, v0 - 1),
                                      clip: outline)
                    }
                }
            }
            frame.flush()
            return frame
        }
        let ours = try paint(kernel: true, squares: [(0, 0)]), cairos = try paint(kernel: false, squares: [(0, 0)])
        var both = 0, onlyOne = 0, worst = 0
        for y in 0..<size {
            for x in 0..<size {
                let p = ours.data + y * ours.stride + x * 4, q = cairos.data + y * cairos.stride + x * 4
                switch (p[3] == 255, q[3] == 255) {
                case (true, true):
                    both += 1
                    for c in 0..<3 { worst = max(worst, abs(Int(p[c]) - Int(q[c]))) }
                case (false, false): break
                default: onlyOne += 1
                }
            }
        }
        let area = Double(tileSize * tileSize) * s * s
        #expect(abs(Double(both) - area) < 4 * Double(tileSize) * s, "\(both) pixels covered for an area of \(area)")
        #expect(onlyOne <= Int(4 * Double(tileSize) * s / 4), "\(onlyOne) pixels covered by one drawing only")
        #expect(worst <= 3, "a channel differs by \(worst)")  // rounding apart, on noise (the harshest content)
        // Four squares edge to edge: every pixel whose centre is well inside their union is covered.
        let four = try paint(kernel: true, squares: [(0, 0), (24, 0), (0, 24), (24, 24)])
        var holes = 0
        for y in 0..<size {
            for x in 0..<size {
                let u = inverse[0] * (Double(x) + 0.5) + inverse[1] * (Double(y) + 0.5) + inverse[2]
                let v = inverse[3] * (Double(x) + 0.5) + inverse[4] * (Double(y) + 0.5) + inverse[5]
                if u >= 0, u < 48, v >= 0, v < 48, (four.data + y * four.stride + x * 4)[3] != 255 { holes += 1 }
            }
        }
        #expect(holes == 0, "\(holes) pixels inside four tiles left unpainted")
    }

    /// A layer that starts at a level's own zoom (a style's paths from zoom 14, a follow camera held
    /// at maptrip zoom 15): frames at that zoom show it as the level's tiles do, and are composited;
    /// frames below it, inside the same level, are not.
    @Test func framesAtALayersFirstZoomAreSteady() throws {
        let cache = RasterCache(limitBytes: 64 << 20)
        let k = cache.level(worldSize: 256 * 32768)
        let top = cache.zoom(level: k, scale: 1)
        #expect(abs(top - 15) < 1e-12)
        let paths = [MapLayer(name: "path", source: "openmaptiles", minZoom: 15, maxZoom: 99, symbolizer: .fill(.transparent))]
        #expect(!cache.isSteady(level: k, scale: 1, layers: paths))
        #expect(cache.isSteady(level: k, scale: 1, layers: paths, frameZoom: 15))
        #expect(!cache.isSteady(level: k, scale: 1, layers: paths, frameZoom: 14.95))
        #expect(cache.isSteady(level: k, scale: 1, layers: [MapLayer(name: "roads", source: "openmaptiles", minZoom: 12,
                                                                     maxZoom: 99, symbolizer: .fill(.transparent))]))
    }

    @Test func aFlightAcrossALevelBoundaryAndTheAntimeridianMatchesTheVectors() throws {
        // Zoom 4.25 is a level boundary (quarter zooms); the flight crosses 180 degrees east.
        let cameras = flight(Camera(center: LonLat(lon: 176, lat: -38), zoom: 4.2),
                             Camera(center: LonLat(lon: -176, lat: -40), zoom: 4.3), count: 16)
        let (ssim, stats, _) = try compare(cameras, name: "raster-antimeridian")
        let s = try #require(stats)
        #expect(s.framesComposited == cameras.count)
        #expect(ssim.min()! >= 0.99, "SSIM \(ssim.min()!)")
    }

    @Test(.enabled(if: Kernels.isAvailable, "the kernel needs AVX2"))
    func tilesCompositedByTheKernelMatchPixmans() throws {
        // The same flight (across a level boundary and the antimeridian, so edge tiles and two levels
        // show) composited by maptrip's kernel and by pixman: every pixel within a few levels; a tile
        // out of place, a band's rows shifted or a clip off by a pixel gives differences of a hundred.
        let cameras = flight(Camera(center: LonLat(lon: 176, lat: -38), zoom: 4.2),
                             Camera(center: LonLat(lon: -176, lat: -40), zoom: 4.3), count: 10)
        let viewports = cameras.map { Viewport(camera: $0, width: width, height: height) }
        let maps = try [true, false].map { own -> ShapefileBaseMap in
            let map = try ShapefileBaseMap(assets: assets)
            map.caching.rasterBreakEven = .infinity
            map.caching.compositesWithOwnKernel = own
            try map.prepare(for: viewports)
            map.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
            return map
        }
        let a = try ImageSurface(width: width, height: height), b = try ImageSurface(width: width, height: height)
        var worst = 0, total = 0
        for v in viewports {
            try a.withContext { try maps[0].draw(v, in: $0) }
            try b.withContext { try maps[1].draw(v, in: $0) }
            a.flush()
            b.flush()
            for row in 0..<height {
                for i in 0..<(width * 4) {
                    let d = abs(Int(a.data[row * a.stride + i]) - Int(b.data[row * b.stride + i]))
                    worst = max(worst, d)
                    total += d
                }
            }
        }
        #expect(maps[0].rasterCacheStatistics?.framesComposited == cameras.count)
        #expect(worst <= 6, "largest difference \(worst)")
        let mean = Double(total) / Double(viewports.count * width * height * 4)
        #expect(mean < 0.1, "mean difference \(mean)")
    }

    @Test func aHeldCameraIsDrawnFromTheVectorsExactly() throws {
        let rest = Camera(center: LonLat(lon: 10, lat: 50), zoom: 5)
        let cameras = flight(Camera(center: LonLat(lon: 2, lat: 48), zoom: 4.6), rest, count: 8) + [rest, rest]
        let (_, stats, identical) = try compare(cameras, name: "raster-rest")
        // The 7 moving frames are composited; the held camera (three frames in a row) is drawn exactly,
        // from the vectors once and copied for the frames after (a pin arriving, a card fading).
        #expect(stats?.framesComposited == 7)
        #expect(identical >= 3)
        #expect(stats?.stillsDrawn == 1)
        #expect(stats?.framesFromStill == 2)
    }

    @Test func aHeldCameraOnTheGlobeIsCopiedExactly() throws {
        let rest = Camera(center: LonLat(lon: 30, lat: 30), zoom: 2.5)
        let cameras = flight(Camera(center: LonLat(lon: 0, lat: 20), zoom: 2), rest, count: 3) + [rest, rest]
        let (_, stats, identical) = try compare(cameras, projection: .globe, name: "raster-globe-rest")
        #expect(identical == cameras.count)
        #expect(stats?.stillsDrawn == 1)
        #expect(stats?.framesFromStill == 2)
    }

    @Test func worldViewsAreDrawnFromTheVectors() throws {
        let cameras = flight(Camera(center: LonLat(lon: 0, lat: 20), zoom: 1.2), Camera(center: LonLat(lon: 10, lat: 25), zoom: 1.9),
                             count: 6)
        let (_, stats, identical) = try compare(cameras, name: "raster-world")
        #expect((stats?.framesComposited ?? 0) == 0)
        #expect(identical == cameras.count)
    }

    @Test func theGlobeBypassesTheCache() throws {
        let cameras = flight(Camera(center: LonLat(lon: 0, lat: 20), zoom: 2), Camera(center: LonLat(lon: 30, lat: 30), zoom: 2.5),
                             count: 4)
        let (_, stats, identical) = try compare(cameras, projection: .globe, name: "raster-globe")
        #expect((stats?.framesComposited ?? 0) == 0)
        #expect(identical == cameras.count)
    }

    @Test func framesNotWorthCachingAreDrawnFromTheVectors() throws {
        // A fast zoom: every frame shows tiles no other frame shows, so none is composited.
        let cameras = flight(Camera(center: LonLat(lon: 0, lat: 45), zoom: 4), Camera(center: LonLat(lon: 0, lat: 45), zoom: 9),
                             count: 6)
        let (_, stats, identical) = try compare(cameras, forceCache: false, name: "raster-fast-zoom")
        #expect((stats?.framesComposited ?? 0) == 0)
        #expect(identical == cameras.count)
    }

    @Test func theTileShownAgainSoonestIsKept() throws {
        // Frames A, B, C, A over places far apart (no tile shared), in a cache with room for about
        // two frames' tiles: at C, tiles must go. Knowing the trip, the cache lets B's go (never shown
        // again) and keeps A's for the last frame; least recently used, it would let A's go and draw
        // them again.
        let places = [LonLat(lon: 10, lat: 45), LonLat(lon: 60, lat: 45), LonLat(lon: 110, lat: 45)]
        let vs = places.map { Viewport(camera: Camera(center: $0, zoom: 5.1), width: width, height: height) }
        let frames = [vs[0], vs[1], vs[2], vs[0]]
        func tilesDrawn(scheduled: Bool) throws -> (drawn: Int, perFrame: [Int]) {
            let probe = RasterCache(limitBytes: 1)
            let ids = frames.map { v in probe.levels(for: v).flatMap { probe.tileIDs(level: $0.level, for: v) } }
            let bytes = ids[0].count * 258 * 258 * 4
            let cache = RasterCache(limitBytes: bytes * 2 + bytes / 2)
            if scheduled { cache.schedule(ids) }
            let surface = try ImageSurface(width: width, height: height)
            var perFrame: [Int] = []
            for (i, v) in frames.enumerated() {
                let before = cache.tilesDrawn
                try surface.withContext { cr in
                    try cache.composite(v, position: scheduled ? i : nil, outside: Color(red: 0, green: 0, blue: 1),
                                        in: cr) { tile, _, _, _ in
                        try tile.withContext { $0.setSource(Color(red: 1, green: 0, blue: 0)); $0.paint() }
                    }
                }
                perFrame.append(cache.tilesDrawn - before)
            }
            #expect(Set(ids[0]).isDisjoint(with: ids[1]) && Set(ids[1]).isDisjoint(with: ids[2]))
            #expect(ids.allSatisfy { $0.count == ids[0].count })
            return (cache.tilesDrawn, perFrame)
        }
        let planned = try tilesDrawn(scheduled: true), recent = try tilesDrawn(scheduled: false)
        #expect(planned.perFrame.last == 0, "\(planned.perFrame)")
        #expect(recent.perFrame.last! > 0, "\(recent.perFrame)")
        #expect(planned.drawn < recent.drawn)
    }

    @Test func theCacheStaysWithinItsBoundOverALongTrip() throws {
        // Ten slow legs around the world at zoom 4-6: far more tiles than the bound holds.
        var cameras: [Camera] = []
        let stops = [(0.0, 50.0, 5.0), (40, 40, 4.5), (80, 25, 5.5), (120, 30, 5), (160, -30, 6), (-150, 20, 4.4),
                     (-100, 40, 5), (-60, -10, 4.8), (-20, 10, 5.2), (20, -20, 4.6), (60, 0, 5)]
        for (a, b) in zip(stops, stops.dropFirst()) {
            let leg = flight(Camera(center: LonLat(lon: a.0, lat: a.1), zoom: a.2),
                             Camera(center: LonLat(lon: b.0, lat: b.1), zoom: b.2), count: 30)
            // A rest at every other stop: its picture of the map is held within the same bound.
            cameras += cameras.count % 2 == 0 ? Array(leg) + [leg.last!, leg.last!] : Array(leg.dropLast())
        }
        // The bound of one frame's tiles (not raised to hold the whole trip's): tiles must go.
        let map = try ShapefileBaseMap(assets: assets, caching: MapCaching(tileMemoryCap: 0))
        let viewports = cameras.map { Viewport(camera: $0, width: width, height: height) }
        try map.prepare(for: viewports)
        map.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
        let surface = try ImageSurface(width: width, height: height)
        // Late in the trip, tiles are drawn over the surfaces of evicted ones: those frames are the
        // same, byte for byte, as a fresh cache draws them.
        let fresh = try ShapefileBaseMap(assets: assets, caching: MapCaching(tileMemoryCap: 0))
        try fresh.prepare(for: viewports)
        fresh.plan(frames: cameras, format: FrameFormat(width: width, height: height, fps: 30, scale: 1))
        let other = try ImageSurface(width: width, height: height)
        var checked = 0
        for (i, v) in viewports.enumerated() {
            try surface.withContext { try map.draw(v, in: $0) }
            if i > viewports.count * 3 / 4 && i % 7 == 0 && cameras[i] != cameras[i - 1] {
                try other.withContext { try fresh.draw(v, in: $0) }
                surface.flush()
                other.flush()
                #expect(memcmp(surface.data, other.data, surface.stride * height) == 0, "frame \(i)")
                checked += 1
            }
        }
        #expect(checked >= 5)
        let s = try #require(map.rasterCacheStatistics)
        #expect(s.framesComposited > cameras.count / 2)
        // More tiles were drawn than fit at once (some were evicted), yet the bound held.
        #expect(s.tilesDrawn * 258 * 258 * 4 > s.limitBytes)
        #expect(s.stillsDrawn >= 4 && s.framesFromStill >= 2 * s.stillsDrawn)
        #expect(s.peakBytes <= s.limitBytes)
    }
}

/// The embedded map's projection, built from a PROJ pipeline string (no database), against the
/// operation PROJ picks for EPSG:4326 to EPSG:3857.
@Suite struct WebMercatorPipelineTests {
    @Test func pipelineEqualsPROJsOwnChoice() throws {
        let context = try ProjContext()
        let pipeline = try Transformation(pipeline: ShapefileDatasource.toWebMercator, context: context)
        let chosen = try Transformation(from: "EPSG:4326", to: "EPSG:3857", context: context)
        for lon in stride(from: -180.0, through: 180, by: 7.5) {
            for lat in stride(from: -85.0, through: 85, by: 5) {
                let a = try pipeline.forward(x: lon, y: lat), b = try chosen.forward(x: lon, y: lat)
                #expect(abs(a.x - b.x) < 1e-6 && abs(a.y - b.y) < 1e-6, "\(lon), \(lat): \(a) vs \(b)")
            }
        }
    }

    @Test func aBadPipelineIsPROJsError() throws {
        #expect(throws: ProjError.self) {
            _ = try Transformation(pipeline: "+proj=pipeline +step +proj=nosuchthing", context: try ProjContext())
        }
    }
}
