import Cairo
import Foundation
import MapTripScene
@testable import MapTripRender
import Testing
@testable import MapTripTiles

@Suite("Tile base map")
struct TileBaseMapTests {
    static let uniform = RGB(180, 120, 60)

    /// Every pixel of the frame rows and columns the world covers must be the tile set's single
    /// colour: a seam (antialiased edge against the background, a gap, a double-painted edge)
    /// shows as a darker or lighter line.
    @Test("no seams between tiles: a uniform tile set draws a uniform frame",
          arguments: [
              (13.7, 27.3, 2.37, 1.0),   // fractional offsets, scaled down
              (13.7, 27.3, 2.1, 1.0),    // inside the cross-fade: two levels
              (-71.13, -33.4, 1.63, 2.0), // pixel ratio 2
              (126.97, 37.56, 4.8, 1.0),  // over-zoom beyond maxZoom 3
              (179.95, -12.2, 3.33, 1.0), // across the antimeridian
              (0.0, 0.0, 3.0, 1.0),       // integer zoom: 1:1
          ])
    func noSeams(lon: Double, lat: Double, zoom: Double, scale: Double) throws {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(UniformBaseMap(Self.uniform), to: dir.appendingPathComponent("u"), zooms: 0...3)
            let map = TileBaseMap(source: try FolderSource(directory: dir.appendingPathComponent("u")))
            let v = TileTest.viewport(lon: lon, lat: lat, zoom: zoom, width: 640, height: 360, scale: scale)
            try map.prepare(for: [v])
            let frame = try TileTest.render(map, v)
            var bad: [String] = []
            for y in 0..<v.height {
                for x in 0..<v.width where !TileTest.rgb(frame, x, y).near(Self.uniform) {
                    if bad.count < 5 { bad.append("(\(x),\(y)) \(TileTest.rgb(frame, x, y))") }
                }
            }
            #expect(bad.isEmpty, "off-colour pixels: \(bad)")
            #expect(map.warnings.isEmpty)
        }
    }

    @Test("tiles land where the geography is: quadrant colours at known places, across the antimeridian")
    func placement() throws {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(QuadrantBaseMap(), to: dir.appendingPathComponent("q"), zooms: 0...4)
            let map = TileBaseMap(source: try FolderSource(directory: dir.appendingPathComponent("q")))
            let views = [TileTest.viewport(lon: 0, lat: 0, zoom: 3.4, width: 400, height: 300),
                         TileTest.viewport(lon: 180, lat: 0, zoom: 2.9, width: 400, height: 300, scale: 2)]
            try map.prepare(for: views)
            for v in views {
                let frame = try TileTest.render(map, v)
                // The frame centre is a quadrant corner: sample 20 px off it each way.
                let cx = v.width / 2, cy = v.height / 2
                let east = v.camera.center.lon == 0 ? QuadrantBaseMap.ne : QuadrantBaseMap.nw
                let west = v.camera.center.lon == 0 ? QuadrantBaseMap.nw : QuadrantBaseMap.ne
                #expect(TileTest.rgb(frame, cx + 20, cy - 20) == east)
                #expect(TileTest.rgb(frame, cx - 20, cy - 20) == west)
                let se = v.camera.center.lon == 0 ? QuadrantBaseMap.se : QuadrantBaseMap.sw
                #expect(TileTest.rgb(frame, cx + 20, cy + 20) == se)
                // Compared with drawing the map directly, the boundaries sit within a pixel.
                let direct = try TileTest.render(QuadrantBaseMap(), v)
                var mismatches = 0
                for y in stride(from: 0, to: v.height, by: 3) {
                    for x in stride(from: 0, to: v.width, by: 3) where TileTest.rgb(frame, x, y) != TileTest.rgb(direct, x, y) {
                        if abs(x - cx) > 1 && abs(y - cy) > 1 { mismatches += 1 }
                    }
                }
                #expect(mismatches == 0)
            }
        }
    }

    @Test("tile zoom selection: at or above the camera, 512-px tiles one lower, pixel ratio 2 one deeper, clamped")
    func zoomSelection() throws {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(UniformBaseMap(Self.uniform), to: dir.appendingPathComponent("a"), zooms: 0...5)
            try TileTest.pyramid(UniformBaseMap(Self.uniform), to: dir.appendingPathComponent("b"), zooms: 0...4, tileSize: 512)
            let m256 = TileBaseMap(source: try FolderSource(directory: dir.appendingPathComponent("a")))
            let m512 = TileBaseMap(source: try FolderSource(directory: dir.appendingPathComponent("b")))
            #expect(m512.source.tileSize == 512)
            func zooms(_ m: TileBaseMap, _ z: Double, _ scale: Double = 1) -> [Int] {
                m.layers(for: TileTest.viewport(lon: 0, lat: 0, zoom: z, scale: scale)).map(\.zoom)
            }
            #expect(zooms(m256, 3) == [3])
            #expect(zooms(m256, 3.6) == [4])
            #expect(zooms(m256, 3, 2) == [4])
            #expect(zooms(m512, 3) == [2])
            #expect(zooms(m512, 3, 2) == [3])
            #expect(zooms(m256, 7.5) == [5])   // over-zoom: the deepest level, no fade
            #expect(zooms(m256, 5.1) == [5])
            // Just past an integer: the coarser level underneath, the finer fading in.
            let fade = m256.layers(for: TileTest.viewport(lon: 0, lat: 0, zoom: 3.1))
            #expect(fade.map(\.zoom) == [3, 4])
            #expect(fade[0].alpha == 1 && fade[1].alpha > 0.2 && fade[1].alpha < 0.8)
        }
    }

    @Test("crossing a zoom level is continuous: no popping")
    func noPopping() throws {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(ZoomShadeBaseMap(), to: dir.appendingPathComponent("s"), zooms: 0...4)
            let source = try FolderSource(directory: dir.appendingPathComponent("s"))
            let zooms = stride(from: 1.5, through: 3.5, by: 0.01).map { $0 }
            func centreLevels(_ map: TileBaseMap) throws -> [Int] {
                let views = zooms.map { TileTest.viewport(lon: 5, lat: 5, zoom: $0, width: 64, height: 64) }
                try map.prepare(for: views)
                return try views.map { TileTest.rgb(try TileTest.render(map, $0), 32, 32).r }
            }
            let faded = try centreLevels(TileBaseMap(source: source))
            let steps = zip(faded, faded.dropFirst()).map { abs($0 - $1) }
            #expect(steps.max()! <= 6, "largest frame-to-frame change \(steps.max()!)")
            // Exact levels where they should be.
            let at = { (z: Double) in faded[zooms.firstIndex { abs($0 - z) < 1e-9 }!] }
            #expect(at(2.0) == ZoomShadeBaseMap.shade(2).r)
            #expect(at(2.5) == ZoomShadeBaseMap.shade(3).r)
            #expect(at(3.0) == ZoomShadeBaseMap.shade(3).r)
            // Without the fade, the level switch is a jump of a whole shade step.
            let hard = TileBaseMap(source: source)
            hard.crossFade = 0
            let jumps = try centreLevels(hard)
            #expect(zip(jumps, jumps.dropFirst()).map { abs($0 - $1) }.max()! >= 40)
        }
    }

    @Test("over-zoom beyond maxZoom scales the deepest tiles and asks for nothing deeper")
    func overZoom() throws {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(QuadrantBaseMap(), to: dir.appendingPathComponent("q"), zooms: 0...2)
            let counting = CountingSource(try FolderSource(directory: dir.appendingPathComponent("q")))
            let map = TileBaseMap(source: counting)
            let views = stride(from: 2.0, through: 9.0, by: 0.25).map {
                TileTest.viewport(lon: 10, lat: 10, zoom: $0, width: 320, height: 200, scale: 2)
            }
            try map.prepare(for: views)
            for v in views { _ = try TileTest.render(map, v) }
            #expect(!counting.requested.isEmpty)
            #expect(counting.requested.allSatisfy { $0.z <= 2 })
            #expect(counting.batches == 1)  // everything in prepare, nothing frame by frame
            let f = try TileTest.render(map, views.last!)
            #expect(TileTest.rgb(f, 160, 100) == QuadrantBaseMap.ne)
            #expect(map.warnings.isEmpty)
        }
    }

    @Test("missing and broken tiles: grey placeholders, one warning for the run")
    func placeholders() throws {
        try TileTest.withTempDir { dir in
            let q = dir.appendingPathComponent("q")
            try TileTest.pyramid(QuadrantBaseMap(), to: q, zooms: 0...2)
            try FileManager.default.removeItem(at: q.appendingPathComponent("2/1/1.png"))
            try FileManager.default.removeItem(at: q.appendingPathComponent("2/2/2.png"))
            try Data("<html>503 Service Unavailable</html>".utf8).write(to: q.appendingPathComponent("2/3/3.png"))

            let map = TileBaseMap(source: try FolderSource(directory: q))
            map.fallbackLevels = 0
            // The whole world at zoom 2 is exactly 1024 x 1024: one tile per 256 px.
            let v = TileTest.viewport(lon: 0, lat: 0, zoom: 2, width: 1024, height: 1024)
            try map.prepare(for: [v, v, v])
            for _ in 0..<3 { _ = try TileTest.render(map, v) }
            let f = try TileTest.render(map, v)
            let grey = TileTest.rgb(f, 256 + 128 + 10, 256 + 128 + 10)
            #expect(grey.r == grey.g && grey.r > 190 && grey.r < 240, "placeholder \(grey)")
            #expect(TileTest.rgb(f, 768 + 100, 768 + 100).near(grey, 3))       // the undecodable one too
            // The subtle grid: a line at the tile's edge a few levels darker than the fill.
            let line = TileTest.rgb(f, 256 + 100, 256)
            #expect(line.r < grey.r && grey.r - line.r < 30)
            #expect(TileTest.rgb(f, 100, 100) == QuadrantBaseMap.nw)        // a good tile
            #expect(map.warnings.count == 1)
            let w = try #require(map.warnings.first)
            #expect(w.contains("3 map tiles") && w.contains("placeholders"), "\(w)")
            #expect(map.failures.count == 3)
        }
    }

    @Test("a failed tile is drawn from its parent's quarter when the parent is at hand")
    func parentFallback() throws {
        try TileTest.withTempDir { dir in
            let q = dir.appendingPathComponent("q")
            try TileTest.pyramid(QuadrantBaseMap(), to: q, zooms: 0...2)
            try FileManager.default.removeItem(at: q.appendingPathComponent("2/1/1.png"))
            let map = TileBaseMap(source: try FolderSource(directory: q))
            let v = TileTest.viewport(lon: 0, lat: 0, zoom: 2, width: 1024, height: 1024)
            try map.prepare(for: [v])
            let f = try TileTest.render(map, v)
            #expect(TileTest.rgb(f, 256 + 128, 256 + 128) == QuadrantBaseMap.nw)
            #expect(TileTest.rgb(f, 256 + 2, 256 + 2) == QuadrantBaseMap.nw)
            #expect(map.warnings.count == 1)  // still reported
        }
    }

    @Test("strict: a failed tile stops prepare and draw with a clear error")
    func strict() throws {
        try TileTest.withTempDir { dir in
            let q = dir.appendingPathComponent("q")
            try TileTest.pyramid(QuadrantBaseMap(), to: q, zooms: 0...2)
            try FileManager.default.removeItem(at: q.appendingPathComponent("2/1/1.png"))
            let v = TileTest.viewport(lon: 0, lat: 0, zoom: 2, width: 1024, height: 1024)
            let map = TileBaseMap(source: try FolderSource(directory: q), strict: true)
            do {
                try map.prepare(for: [v])
                Issue.record("prepare did not throw")
            } catch let e as TileError {
                guard case .tilesFailed(let count, _) = e else { Issue.record("\(e)"); return }
                #expect(count == 1)
                #expect(e.description.contains("2/1/1"))
            }
            let unprepared = TileBaseMap(source: try FolderSource(directory: q), strict: true)
            #expect(throws: TileError.self) { _ = try TileTest.render(unprepared, v) }
            // A frame that does not show the missing tile is fine.
            let elsewhere = TileTest.viewport(lon: 120, lat: -40, zoom: 2, width: 200, height: 200)
            _ = try TileTest.render(TileBaseMap(source: try FolderSource(directory: q), strict: true), elsewhere)
        }
    }

    @Test("attribution: the scene's, else the source's, else a warning")
    func attribution() throws {
        try TileTest.withTempDir { dir in
            let file = dir.appendingPathComponent("a.mbtiles")
            try TileTest.pyramid(UniformBaseMap(Self.uniform), to: file, zooms: 0...1, attribution: "From metadata")
            let fromFile = try TileBaseMap.make(source: MapSource(tiles: "a.mbtiles"), sceneDirectory: dir)
            #expect(fromFile.attribution == "From metadata" && fromFile.attributionWarning == nil)
            let scene = try TileBaseMap.make(source: MapSource(tiles: "a.mbtiles", attribution: "© Scene"), sceneDirectory: dir)
            #expect(scene.attribution == "© Scene")
            let bare = UniformBaseMap(Self.uniform)
            try TileTest.pyramid(bare, to: dir.appendingPathComponent("f"), zooms: 0...1)
            let none = try TileBaseMap.make(source: MapSource(tiles: "f", attribution: "  "), sceneDirectory: dir)
            #expect(none.attribution == nil)
            #expect(none.attributionWarning == "Map tiles without attribution: set map.attribution")
        }
    }

    @Test("a URL template end to end: one parallel batch, 404s and garbage counted once", .enabled(if: HTTPTestServer.pythonAvailable))
    func httpEndToEnd() throws {
        try withTileServer { server in
            let base = "http://127.0.0.1:\(server.port)"
            let views = (0..<10).map { TileTest.viewport(lon: 2 + Double($0) * 0.01, lat: 48, zoom: 5.5, width: 300, height: 200) }
            let good = try TileBaseMap.make(source: MapSource(tiles: base + "/ok/{z}/{x}/{y}.png", attribution: "Test"),
                                            http: HTTPTileOptions(retries: 0), sceneDirectory: URL(fileURLWithPath: "/"))
            try good.prepare(for: views)
            let afterPrepare = try server.log().requests.filter { $0.path.hasPrefix("/ok/") }.count
            #expect(afterPrepare == Set(views.flatMap { good.neededTiles(for: $0) }).count)
            for v in views { _ = try TileTest.render(good, v) }
            #expect(try server.log().requests.filter { $0.path.hasPrefix("/ok/") }.count == afterPrepare)
            #expect(good.warnings.isEmpty)

            for route in ["404", "garbage"] {
                let bad = try TileBaseMap.make(source: MapSource(tiles: base + "/\(route)/{z}/{x}/{y}.png", attribution: "Test"),
                                               http: HTTPTileOptions(retries: 0), sceneDirectory: URL(fileURLWithPath: "/"))
                try bad.prepare(for: views)
                for v in views { _ = try TileTest.render(bad, v) }
                #expect(bad.warnings.count == 1, "\(bad.warnings)")
                #expect(bad.failures.count == Set(views.flatMap { bad.neededTiles(for: $0) }).count)
            }
        }
    }
}
