import FFmpeg
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender
import Testing
import TestSupport

/// Issue 59's ride in small: a loop round central Helsinki ridden twice, followed heading-up (zoom 16) over the
/// vector tiles, rendered as `maptrip render` renders it. The raster cache is given room for every tile
/// the trip shows (`FastPaths.keptTiles`): each tile is drawn once, however often the loop comes back
/// to it; with one frame's room, as before, the second lap draws its tiles again. Both renders encode
/// the same pictures.
@Suite(.tags(.slow)) struct RideTilesTests {
    /// Two laps of a circle of `radius` metres round the cathedral, a fix every 10 seconds at 5 m/s.
    static func loop(radius: Double = 600, laps: Int = 2) -> TrackFixture {
        let centre = LonLat(lon: 24.9384, lat: 60.1699)
        let perLap = Int((2 * .pi * radius / 50).rounded())
        let points = (0...(laps * perLap)).map { i -> LonLat in
            let a = 2 * Double.pi * Double(i) / Double(perLap)
            return LonLat(lon: centre.lon + radius * sin(a) / (111_195 * cos(centre.lat * .pi / 180)),
                          lat: centre.lat + radius * cos(a) / 111_195)
        }
        return TrackFixture(points: points, times: points.indices.map { Double($0) * 10 })
    }

    @Test func aRideRoundALoopDrawsEachTileOnce() throws {
        try Trip.withDirectory("ride-tiles") { dir in
            let scene = try StyledPlanarTests.chase(Self.loop(), named: "loop", zoom: 16, width: 640, height: 360, speed: 150,
                                                    in: dir)
            LibraryLogging.configure(verbose: false)
            func render(_ name: String, keptTiles: Bool) throws -> (frames: [[UInt8]], tiles: RasterCacheStatistics) {
                var environment = RenderEnvironment(assets: Trip.assets)
                environment.fastPaths.keptTiles = keptTiles
                let out = dir.appendingPathComponent(name + ".mp4")
                let summary = try RenderJob(scene: scene, output: OutputRequest(path: out.path, options: EncodingOptions(crf: 18)),
                                            environment: environment).run()
                return (try TurnedPlanarRenderTests.planes(out), try #require(summary.rasterCache))
            }
            let kept = try render("kept", keptTiles: true), bounded = try render("bounded", keptTiles: false)
            print("ride tiles: kept \(kept.tiles); one frame's room \(bounded.tiles)")
            #expect(kept.frames.count == bounded.frames.count && kept.frames.count >= 80, "\(kept.frames.count) frames")
            // Every moving frame composited from the tiles, each tile drawn once, within the raised bound.
            #expect(kept.tiles.framesComposited >= kept.frames.count - 2, "\(kept.tiles)")
            #expect(kept.tiles.tilesDrawn > 10 && kept.tiles.tilesDrawnAgain == 0, "\(kept.tiles)")
            #expect(kept.tiles.peakBytes <= kept.tiles.limitBytes)
            // One frame's room: the second lap draws the first lap's tiles again.
            #expect(bounded.tiles.tilesDrawnAgain > 0 && bounded.tiles.tilesDrawn > kept.tiles.tilesDrawn, "\(bounded.tiles)")
            #expect(bounded.tiles.limitBytes < kept.tiles.limitBytes)
            // The same pictures, encoded the same (x264 is deterministic).
            let same = zip(kept.frames, bounded.frames).filter { $0 == $1 }.count
            #expect(same == kept.frames.count, "\(same) of \(kept.frames.count) frames the same")
        }
    }
}
