import Cairo
import FFmpeg
import Foundation
import MapTripSupport
import MapTripGeometry
import MapTripScene
import MapTripTime
import MapTripOutput
import MapTripRecord
import MapTripRender
import Testing

/// Recordings made in-process through RenderJob and Recorder, checked by decoding what they wrote.
@Suite("Recorder")
struct RecorderTests {
    static func environment() -> RenderEnvironment { RenderEnvironment(assets: Trip.assets) }

    /// Renders a scene file through RenderJob (what `maptrip render` does) into `dir/<output>`.
    @discardableResult
    static func render(_ trip: TripScene, in dir: URL, output: String = "out.mp4",
                       cancellation: Cancellation = Cancellation(),
                       progress: ((RenderProgress) -> Void)? = nil) throws -> (url: URL, summary: RecordSummary) {
        LibraryLogging.configure(verbose: false)  // no x264 statistics in the test log
        let sceneURL = try trip.write(to: dir, name: "scene-\(output).json")
        let out = dir.appendingPathComponent(output)
        let job = RenderJob(scene: sceneURL, output: out, environment: environment())
        let summary = try job.run(cancellation: cancellation, progress: progress)
        return (out, summary)
    }

    /// What a frame showing `state` should look like, drawn directly (no encoding).
    static func reference(_ scene: Scene, _ state: FrameValues) throws -> (ImageSurface, Viewport) {
        let renderer = try FrameRenderer(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
        try renderer.render(state)
        return (renderer.surface, renderer.viewport(state.camera))
    }

    // MARK: The file

    @Test func threePlacesMakeAnH264FileWithTheTimelinesFrames() throws {
        try Trip.withDirectory("recorder") { dir in
            let trip = TripScene.korea
            let scene = try trip.scene()
            let timeline = Timeline(scene: scene)
            #expect(timeline.frameCount == Int((24 * 3.5).rounded()))

            let (out, summary) = try Self.render(trip, in: dir)
            #expect(summary.frames == timeline.frameCount)
            #expect(summary.duration == 3.5)
            #expect(summary.warnings.isEmpty)
            #expect(Trip.contents(dir) == ["out.mp4", "scene-out.mp4.json"])

            let reader = try VideoReader(path: out.path)
            let info = reader.info
            #expect(info.codecName == "h264")
            #expect(info.profileName == "High")
            #expect(info.pixelFormatName == "yuv420p")
            #expect(info.width == 320 && info.height == 180)
            #expect(info.frameRate == Rational(24, 1))
            #expect(info.frameCount == 84)
            let duration = try #require(info.duration)
            #expect(abs(duration - 84.0 / 24) <= 1.0 / 48, "duration \(duration)")
            #expect(info.colorTags.spaceName == "smpte170m")
            #expect(info.colorTags.rangeName == "tv")
            #expect(info.colorTags == .bt601Limited)
            #expect(try reader.countFrames() == 84)
            // The render turned transparent huge pages off for the process (see `Heap.avoidHugePages`).
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("THP_enabled:") }) {
                #expect(line.split(separator: "\t").last == "0", "\(line)")
            }
        }
    }

    @Test(arguments: [
        // 3.33 s twice at 30 fps: 199.8 frames on the grid -> 200 (each slot 99.9 -> boundaries 100, 200).
        (dwells: [3.33, 3.33], fps: 30, frames: 200),
        // 2.5 s at 24 fps: exactly 60 per place.
        (dwells: [2.5, 2.5], fps: 24, frames: 120),
        // 0.7 s three times at 25 fps: 2.1 s is 52.5 frames, rounded half up without drift.
        (dwells: [0.7, 0.7, 0.7], fps: 25, frames: 53),
    ])
    func awkwardDwellsGiveTheRoundedFrameCount(dwells: [Double], fps: Int, frames: Int) throws {
        try Trip.withDirectory("recorder") { dir in
            let positions = [(37.5665, 126.978), (35.1796, 129.0756), (33.4996, 126.5312)]
            let trip = TripScene(width: 160, height: 90, fps: fps, flight: 0.5, stops: dwells.enumerated().map { i, d in
                TripScene.Stop(name: "P\(i)", lat: positions[i].0, lon: positions[i].1, dwell: d)
            })
            let scene = try trip.scene()
            #expect(Timeline(scene: scene).frameCount == frames)
            let (out, summary) = try Self.render(trip, in: dir)
            #expect(summary.frames == frames)
            let reader = try VideoReader(path: out.path)
            #expect(reader.info.frameCount == frames)
            #expect(reader.info.frameRate == Rational(Int32(fps), 1))
            let duration = try #require(reader.info.duration)
            #expect(abs(duration - Double(frames) / Double(fps)) <= 0.5 / Double(fps), "duration \(duration)")
            #expect(try reader.countFrames() == frames)
        }
    }

    // MARK: Pixels

    /// Seoul, then Busan, then Chuncheon (which is in view from Seoul at zoom 7, 480x270). No opening:
    /// the first frame is the rest on Seoul, its pin standing (the opening's first frame is
    /// OpeningClosingRenderTests').
    static let pixelTrip = TripScene(width: 480, height: 270, fps: 24, flight: 0.5, opening: false, stops: [
        .init(name: "Seoul", lat: 37.5665, lon: 126.978, dwell: 0.5),
        .init(name: "Busan", lat: 35.1796, lon: 129.0756, dwell: 1),
        .init(name: "Chuncheon", lat: 37.8813, lon: 127.7298, dwell: 1),
    ])

    @Test func firstFrameShowsSeoulWithLandSeaAndItsPin() throws {
        try Trip.withDirectory("recorder") { dir in
            let trip = Self.pixelTrip
            let scene = try trip.scene()
            let (out, _) = try Self.render(trip, in: dir)
            let reader = try VideoReader(path: out.path)
            let frame = try #require(try reader.nextImage())
            Trip.dump(frame, "recorder-first")
            let style = MapStyle.standard

            // Centred on place 0, within a pixel (the resting camera sits on the pixel grid).
            let v = Viewport(camera: Timeline(scene: scene).slots[0].camera, width: 480, height: 270)
            let seoul = v.pixel(scene.places[0].position)!
            #expect(abs(seoul.x - 240) <= 1 && abs(seoul.y - 135) <= 1, "\(seoul)")

            // Land inland (east of Seoul, south of the label) and sea (Yellow Sea, west of the islands).
            let inland = v.pixel(LonLat(lon: 127.5, lat: 37.2))!
            #expect(Trip.looks(frame, inland, like: style.land), "\(Trip.describe(frame, inland))")
            let sea = v.pixel(LonLat(lon: 125.3, lat: 37.0))!
            #expect(Trip.looks(frame, sea, like: style.water), "\(Trip.describe(frame, sea))")

            // The current place's pin stands on Seoul; Chuncheon, in view but not reached, has none.
            let pin = Trip.pinBody(above: seoul, unit: 0.25)
            let red = Trip.redPixels(frame, x: pin.x, y: pin.y)
            // (10 or more: the pin's tip lands within a pixel of the centre, on a half-pixel at most.)
            #expect(red >= 10, "\(red) red pixels above Seoul")
            let chuncheon = v.pixel(scene.places[2].position)!
            #expect((0..<480).contains(Int(chuncheon.x)) && (40..<270).contains(Int(chuncheon.y)))
            let none = Trip.pinBody(above: chuncheon, unit: 0.25)
            #expect(Trip.redPixels(frame, x: none.x, y: none.y) == 0)

            // And the whole frame is what the renderer draws for that state, give or take the codec.
            let (expected, _) = try Self.reference(scene, Timeline(scene: scene).values(at: 0))
            let difference = Trip.meanDifference(frame, expected)
            #expect(difference < 2.5, "mean difference \(difference)")
        }
    }

    @Test func lastFrameIsCentredOnTheLastPlace() throws {
        try Trip.withDirectory("recorder") { dir in
            let trip = Self.pixelTrip
            let scene = try trip.scene()
            let timeline = Timeline(scene: scene)
            let (out, _) = try Self.render(trip, in: dir)
            let decoded = try Trip.decode(out)
            #expect(decoded.frames.count == timeline.frameCount)
            let last = try #require(decoded.frames.last)
            Trip.dump(last, "recorder-last")

            let lastState = timeline.values(at: timeline.frameCount - 1)
            #expect(lastState.camera == timeline.slots[2].camera)
            #expect(lastState.reached == 3 && lastState.current == 2)
            let v = Viewport(camera: timeline.slots[2].camera, width: 480, height: 270)
            let tip = v.pixel(scene.places[2].position)!
            #expect(abs(tip.x - 240) <= 1 && abs(tip.y - 135) <= 1, "\(tip)")
            let pin = Trip.pinBody(above: tip, unit: 0.25)
            #expect(Trip.redPixels(last, x: pin.x, y: pin.y) >= 5)

            // It matches a direct drawing of the camera on Chuncheon, and not one on Seoul.
            let (onLast, _) = try Self.reference(scene, lastState)
            let (onFirst, _) = try Self.reference(scene, FrameValues(camera: scene.places[0].camera, reached: 3,
                                                                    current: 2, titleOpacity: 0))
            let near = Trip.meanDifference(last, onLast), far = Trip.meanDifference(last, onFirst)
            #expect(near < 2.5, "mean difference from the expected frame \(near)")
            #expect(far > 4 * near + 5, "mean difference from a frame on Seoul \(far)")
        }
    }

    // MARK: Determinism

    @Test func sameSceneRecordsTheSamePictures() throws {
        // The clock is virtual: two recordings of one scene hand the encoder exactly the same
        // pictures, frame for frame (hashed as they arrive). The encoded bytes are the same too
        // from one run to the next, but x264's threaded lookahead can decide differently when
        // several encoders share one busy process (as the test runner does), so the bytes are not
        // what this test compares.
        let scene = try TripScene.korea.scene()
        func pictures() throws -> [UInt64] {
            let recorder = try Recorder(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
            let sink = PictureHashes(width: scene.video.width, height: scene.video.height)
            _ = try recorder.record(to: sink)
            return sink.hashes
        }
        let a = try pictures(), b = try pictures()
        #expect(a.count == Timeline(scene: scene).frameCount)
        #expect(a == b)
        #expect(Set(a).count > 10)  // the trip moves: many different pictures
    }

    @Test func picturesConvertedOnTheDrawingThreadAreTheSinksOwnAndStayWhileRepeated() throws {
        // An encoder's output takes its pictures converted on the drawing thread, a few frames ahead
        // (the I420 ones drawn straight into its frames where the map can). They are the same frame
        // for frame however fast the sink takes them; and the frame a still stretch repeats is still
        // that picture when it is repeated (the drawing thread runs ahead into the other frames
        // meanwhile: the slow sink sleeps at every repeat).
        let scene = try TripScene.korea.scene()
        let w = scene.video.width, h = scene.video.height
        // Every flight composited from rasters, whatever it costs: every frame drawn into I420.
        func map() throws -> ShapefileBaseMap {
            let map = try ShapefileBaseMap(assets: Trip.assets)
            map.caching.rasterBreakEven = .infinity
            return map
        }
        let fast = ConvertedAhead(width: w, height: h, slow: false)
        _ = try Recorder(scene: scene, format: scene.i420, baseMap: try map()).record(to: fast)
        let ahead = ConvertedAhead(width: w, height: h)
        let recorder = try Recorder(scene: scene, format: scene.i420, baseMap: try map())
        let summary = try recorder.record(to: ahead)
        // Four and a half drawn pictures' memory: twelve 4:2:0 frames. Every frame was drawn into I420
        // (held pictures and overlays through a band of rows): the drawing surface, whose memory those
        // frames take, was never drawn on.
        #expect(ahead.converters == 12)
        #expect(ahead.bgraWrites == 0)
        let surface = recorder.renderer.surface
        surface.flush()
        #expect(UnsafeBufferPointer(start: surface.data, count: surface.stride * surface.height).allSatisfy { $0 == 0 })
        #expect(ahead.hashes.count == Timeline(scene: scene).frameCount)
        #expect(ahead.hashes == fast.hashes)
        #expect(ahead.changedWhileHeld == 0 && fast.changedWhileHeld == 0)
        #expect(ahead.writes == summary.drawnFrames)
        #expect(summary.drawnFrames > 10 && summary.drawnFrames < summary.frames)
        #expect(Set(ahead.hashes).count > 10)
        // (Against each picture drawn in BGRA and converted: PlanarCompositeTests, pixel by pixel.)
    }

    @Test func largeFramesWaitFewerAtATime() throws {
        // The frames waiting for the encoder take at most 50 MB: at 4K (12.4 MB a 4:2:0 frame) four,
        // not the six a 1080p render keeps. The first two frames, drawn straight into I420 (the drawing
        // surface untouched), each a picture.
        var scene = try TripScene.korea.scene()
        scene.video = Video(width: 3840, height: 2160, fps: scene.video.fps, scale: 2)
        let big = ConvertedAhead(width: 3840, height: 2160, slow: false)
        let summary = try Recorder(scene: scene, format: scene.i420, baseMap: try ShapefileBaseMap(assets: Trip.assets))
            .record(to: big, frames: 0..<2)
        #expect(big.converters == 4)
        #expect(big.converters * 3840 * 2160 * 3 / 2 <= 50 << 20)
        #expect(summary.frames == 2 && big.hashes.count == 2 && big.bgraWrites == 0)
        #expect(big.hashes.allSatisfy { $0 != 0 })
    }

    @Test func levelsReadFromTheGeometryCacheDrawTheSamePictures() throws {
        // The map's levels of detail kept on disk by one render and read back by the next: the same
        // pictures as levels built from the shapefiles.
        try Trip.withDirectory("geometry-cache") { dir in
            let scene = try TripScene.korea.scene()
            let cache = GeometryCache(directory: dir.appendingPathComponent("geometry"))
            func pictures(_ cache: GeometryCache?) throws -> [UInt64] {
                let map = try ShapefileBaseMap(assets: Trip.assets, geometryCache: cache)
                let sink = PictureHashes(width: scene.video.width, height: scene.video.height)
                _ = try Recorder(scene: scene, baseMap: map).record(to: sink)
                return sink.hashes
            }
            let built = try pictures(nil), cold = try pictures(cache)
            let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path)
            #expect(files.contains { $0.hasSuffix("-full.mtgeo") } && files.contains { $0.hasSuffix("-L7.mtgeo") },
                    "\(files)")
            let warm = try pictures(cache)
            #expect(cold == built && warm == built)
            // Nothing written again: the second render read every level it needed.
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directory.path).sorted() == files.sorted())
        }
    }

    @Test func tilesReadFromTheDrawnTileCacheGiveTheEncoderTheSamePictures() throws {
        // Two recordings with the drawn tile cache: the first draws the flights' tiles and keeps them,
        // the second reads them back and writes none; the encoder gets the same pictures from both,
        // frame for frame (hashed as they arrive, as `sameSceneRecordsTheSamePictures` does: x264's
        // own bytes may differ when encoders share a busy process), and the same as without the cache.
        try Trip.withDirectory("drawn-tiles") { dir in
            let scene = try TripScene.korea.scene()
            let tiles = DrawnTileCache(directory: dir.appendingPathComponent("tiles"))
            var read = 0, drawn = 0
            func pictures(_ cache: DrawnTileCache?) throws -> [UInt64] {
                let sink = ConvertedAhead(width: scene.video.width, height: scene.video.height, slow: false)
                let map = try ShapefileBaseMap(assets: Trip.assets, caching: MapCaching(drawnTiles: cache))
                _ = try Recorder(scene: scene, format: scene.i420, baseMap: map).record(to: sink)
                (read, drawn) = (map.rasterCacheStatistics?.tilesRead ?? 0, map.rasterCacheStatistics?.tilesDrawn ?? 0)
                return sink.hashes
            }
            func files() throws -> [String: Date] {
                var out: [String: Date] = [:]
                for folder in try FileManager.default.contentsOfDirectory(at: tiles.directory, includingPropertiesForKeys: nil) {
                    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                        out[name] = CacheBounds.status(folder.appendingPathComponent(name).path)?.modified
                    }
                }
                return out
            }
            let first = try pictures(tiles)
            #expect(read == 0 && drawn >= 4)
            let kept = try files()
            #expect(kept.keys.filter { $0.hasSuffix(".pack") }.count == 1, "\(kept.keys.sorted())")
            // The recording over, its pack ends with the index of its tiles (the trailer's magic last).
            let folder = try #require(FileManager.default.contentsOfDirectory(at: tiles.directory, includingPropertiesForKeys: nil).first)
            let pack = try #require(FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".pack") })
            #expect(try Data(contentsOf: folder.appendingPathComponent(pack)).suffix(8) == Data("MTPACKIX".utf8))
            let second = try pictures(tiles)
            #expect(read >= 4 && drawn == 0)
            #expect(try files() == kept)
            let without = try pictures(nil)
            #expect(first.count == Timeline(scene: scene).frameCount && Set(first).count > 10)
            #expect(second == first && without == first)
        }
    }

    @Test func maptripRenderKeepsDrawnTilesByDefaultAndNotWhenToldNot() throws {
        // `maptrip render` as users run it: the first render draws the map's tiles and keeps them in
        // $XDG_CACHE_HOME/maptrip/drawn-tiles (one pack), the second reads them back (no new pack) and
        // writes the same pictures; --no-drawn-tile-cache keeps none and writes them too.
        try Trip.withDirectory("drawn-tiles-cli") { dir in
            _ = try TripScene.korea.write(to: dir)
            func render(_ out: String, cache: String, _ extra: [String] = []) throws -> [Data] {
                let folder = dir.appendingPathComponent(out)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let result = try ShardTests.run(["render", "scene.json", "-o", out + "/f_%05d.png", "-q"] + extra, in: dir,
                                                environment: ["XDG_CACHE_HOME": dir.appendingPathComponent(cache).path])
                #expect(result.status == 0, "\(result)")
                return try Trip.contents(folder).map { try Data(contentsOf: folder.appendingPathComponent($0)) }
            }
            func packs(_ cache: String) -> [String] {
                let tiles = dir.appendingPathComponent(cache + "/maptrip/drawn-tiles")
                return Trip.contents(tiles).flatMap { map in
                    Trip.contents(tiles.appendingPathComponent(map)).filter { $0.hasSuffix(".pack") }
                }
            }
            let first = try render("a", cache: "cache")
            let kept = packs("cache")
            #expect(kept.count == 1)
            let second = try render("b", cache: "cache")
            #expect(packs("cache") == kept)
            let without = try render("c", cache: "other", ["--no-drawn-tile-cache"])
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("other/maptrip/drawn-tiles").path))
            #expect(first.count == Timeline(scene: try TripScene.korea.scene()).frameCount)
            #expect(second == first && without == first)
        }
    }

    // MARK: Cancellation and failures

    @Test func alreadyCancelledRenderLeavesNothingAndKeepsTheOldOutput() throws {
        try Trip.withDirectory("recorder") { dir in
            let out = dir.appendingPathComponent("out.mp4")
            try Trip.previousOutput.write(to: out)
            let cancellation = Cancellation()
            cancellation.cancel(signal: SIGINT)
            var frames = 0
            let error = #expect(throws: CancelledError.self) {
                try Self.render(.korea, in: dir, cancellation: cancellation) { _ in frames += 1 }
            }
            #expect(error?.signal == SIGINT)
            #expect(frames == 0)
            #expect(Trip.temporaryFiles(dir).isEmpty, "\(Trip.contents(dir))")
            #expect(try Data(contentsOf: out) == Trip.previousOutput)
        }
    }

    @Test func cancellingMidRenderStopsThereAndKeepsTheOldOutput() throws {
        try Trip.withDirectory("recorder") { dir in
            let out = dir.appendingPathComponent("out.mp4")
            try Trip.previousOutput.write(to: out)
            let cancellation = Cancellation()
            var last = 0
            var sawTemporaryFile = false
            let error = #expect(throws: CancelledError.self) {
                try Self.render(.korea, in: dir, cancellation: cancellation) { p in
                    last = p.frame
                    #expect(p.frameCount == 84)
                    if p.frame == 10 {
                        sawTemporaryFile = Trip.temporaryFiles(dir).count == 1
                        cancellation.cancel(signal: SIGTERM)
                    }
                }
            }
            #expect(error?.signal == SIGTERM)
            #expect(error?.description == "interrupted by SIGTERM")
            #expect(last == 10)  // no frame after the one that cancelled
            #expect(sawTemporaryFile)
            #expect(Trip.temporaryFiles(dir).isEmpty, "\(Trip.contents(dir))")
            #expect(Trip.contents(dir) == ["out.mp4", "scene-out.mp4.json"])
            #expect(try Data(contentsOf: out) == Trip.previousOutput)
        }
    }

    /// A base map that paints a flat colour and fails on its `failAt`-th drawing.
    final class FailingMap: BaseMap {
        struct Broken: Error, Equatable { var drawing: Int }
        let failAt: Int
        private(set) var drawings = 0
        init(failAt: Int) { self.failAt = failAt }
        func draw(_ viewport: Viewport, in context: Context) throws {
            drawings += 1
            if drawings == failAt { throw Broken(drawing: drawings) }
            context.setSource(Color(red: 0.2, green: 0.5, blue: 0.8))
            context.paint()
        }
    }

    @Test(arguments: [1, 6])
    func aFailingBaseMapStopsTheRecordingAndLeavesNothing(failAt: Int) throws {
        try Trip.withDirectory("recorder") { dir in
            let out = dir.appendingPathComponent("out.mp4")
            try Trip.previousOutput.write(to: out)
            let scene = try TripScene.korea.scene()
            let map = FailingMap(failAt: failAt)
            let recorder = try Recorder(scene: scene, baseMap: map)
            let output = try MediaOutput(file: out, width: 320, height: 180, fps: 24)
            var progressed = 0
            // What RenderJob does with a recorder and an output.
            let error = #expect(throws: FailingMap.Broken.self) {
                do {
                    _ = try recorder.record(to: output) { progressed = $0.frame }
                    try output.finish()
                } catch {
                    output.cancel()
                    throw error
                }
            }
            #expect(error == FailingMap.Broken(drawing: failAt))
            // Every frame drawn before the failure reached the output, and nothing after it.
            let before = (0..<scene.video.fps * 10).prefix { n in
                Self.drawnFrames(Timeline(scene: scene), through: n) < failAt
            }.count
            #expect(progressed == before, "progress stopped at \(progressed), expected \(before)")
            #expect(map.drawings == failAt)
            #expect(Trip.temporaryFiles(dir).isEmpty, "\(Trip.contents(dir))")
            #expect(try Data(contentsOf: out) == Trip.previousOutput)
        }
    }

    /// How many frames of 0...n draw a new picture (the rest repeat the one before).
    static func drawnFrames(_ timeline: Timeline, through n: Int) -> Int {
        var count = 0
        var last: FrameValues?
        for k in 0...min(n, timeline.frameCount - 1) {
            let state = timeline.values(at: k)
            if state != last { count += 1 }
            last = state
        }
        return count
    }

    // MARK: Still frames

    /// Counts what reaches it, and keeps nothing.
    final class CountingSink: FrameSink {
        var written = 0
        var repeated = 0
        var order: [Bool] = []  // true: a new picture
        func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
            written += 1
            order.append(true)
        }
        func repeatLast() throws {
            repeated += 1
            order.append(false)
        }
    }

    /// A base map that counts its drawings.
    final class CountingMap: BaseMap {
        var drawings = 0
        var prepared: [Viewport] = []
        func prepare(for viewports: [Viewport]) throws { prepared = viewports }
        func draw(_ viewport: Viewport, in context: Context) throws {
            drawings += 1
            context.setSource(Color(red: 0.9, green: 0.9, blue: 0.8))
            context.paint()
        }
    }

    /// A base map that notes the priority it is drawn at, frame after frame.
    final class PriorityMap: BaseMap, @unchecked Sendable {
        var drawnAt: [Int32] = []
        func draw(_ viewport: Viewport, in context: Context) throws {
            drawnAt.append(DrawingThreads.currentNice)
            context.setSource(Color(red: 0.9, green: 0.9, blue: 0.8))
            context.paint()
        }
    }

    /// A sink that notes the priority it is given pictures at (the encoder's side).
    final class PrioritySink: FrameSink {
        var writtenAt: Set<Int32> = []
        func write(bgra: UnsafePointer<UInt8>, stride: Int) throws { writtenAt.insert(DrawingThreads.currentNice) }
        func repeatLast() throws {}
    }

    /// The drawing runs below the encoder's priority (`DrawingThreads`) once the encoder has its first
    /// frame: that one drawn at the caller's priority (nothing else has work yet), every later one at
    /// the drawing threads' nice value; the sink, where the encoder runs, at the caller's.
    @Test func framesAreDrawnBelowTheEncodersPriority() throws {
        let scene = try TripScene.korea.scene()
        let map = PriorityMap()
        let sink = PrioritySink()
        _ = try Recorder(scene: scene, baseMap: map).record(to: sink)
        #expect(map.drawnAt.count > 2)
        #expect(map.drawnAt.first == DrawingThreads.currentNice)
        #expect(Set(map.drawnAt.dropFirst()) == [DrawingThreads.nice])
        #expect(sink.writtenAt == [DrawingThreads.currentNice])
        #expect(DrawingThreads.currentNice < DrawingThreads.nice)
    }

    @Test func stillFramesAreDrawnOnceAndRepeated() throws {
        let scene = try TripScene.korea.scene()
        let timeline = Timeline(scene: scene)
        let map = CountingMap()
        let recorder = try Recorder(scene: scene, baseMap: map)
        let sink = CountingSink()
        let summary = try recorder.record(to: sink)

        // Frames whose values differ from the frame before: 1 rest on Seoul, 12 flight frames, 8
        // frames of Busan's pin popping in (0.35 s at 24 fps) and then a still rest, the same into Jeju.
        var changes: [Bool] = []
        var last: FrameValues?
        for n in 0..<timeline.frameCount {
            let state = timeline.values(at: n)
            changes.append(state != last)
            last = state
        }
        let distinct = changes.filter { $0 }.count
        #expect(distinct == 41)
        #expect(summary.frames == 84)
        #expect(summary.drawnFrames == distinct)
        #expect(summary.drawnFrames < summary.frames)
        #expect(sink.written == distinct && sink.repeated == 84 - distinct)
        #expect(sink.order == changes)  // the repeats are exactly the unchanged frames
        #expect(map.drawings == distinct)
        #expect(map.prepared.count == Set(changes.indices.map { timeline.camera(at: $0) }).count)
    }

    @Test func decodedRepeatsMatchTheFrameTheyRepeat() throws {
        try Trip.withDirectory("recorder") { dir in
            let (out, summary) = try Self.render(.korea, in: dir)
            #expect(summary.drawnFrames == 41)
            let frames = try Trip.decode(out).frames
            #expect(frames.count == 84)
            // Slot 0 rests on Seoul for 24 frames: all the same picture, up to the codec's refinements.
            for n in 1..<24 {
                let d = Trip.meanDifference(frames[n], frames[0])
                #expect(d < 0.5, "frame \(n) differs from frame 0 by \(d) on average")
            }
            // The flight frames move.
            #expect(Trip.meanDifference(frames[30], frames[31]) > 1)
        }
    }
}

/// A sink that keeps a hash (FNV-1a) of every picture it is given, in order.
final class PictureHashes: FrameSink {
    private(set) var hashes: [UInt64] = []
    let width: Int, height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for y in 0..<height {
            for x in 0..<(width * 4) { h = (h ^ UInt64(bgra[y * stride + x])) &* 0x100_0000_01b3 }
        }
        hashes.append(h)
    }

    func repeatLast() throws { hashes.append(hashes.last ?? 0) }
}

/// FNV-1a over a YUV frame's planes, row by row (the padding between rows left out).
func planeHash(_ frame: Frame) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for (plane, w, rows) in [(0, frame.width, frame.height), (1, frame.width / 2, frame.height / 2),
                             (2, frame.width / 2, frame.height / 2)] {
        let data = frame.data(plane: plane)!, stride = frame.linesize(plane: plane)
        for y in 0..<rows {
            for x in 0..<w { h = (h ^ UInt64(data[y * stride + x])) &* 0x100_0000_01b3 }
        }
    }
    return h
}

extension Scene {
    /// The scene's own frames, drawn into I420 pictures where the renderer can (as for an H.264 output).
    var i420: FrameFormat {
        var format = video.format
        format.pixels = .i420
        return format
    }
}

/// Takes I420 frames converted on the drawing thread (what an encoder's output does), slowly, and
/// hashes each as it is written and again each time it is repeated.
final class ConvertedAhead: FrameSink {
    let width: Int, height: Int
    private(set) var hashes: [UInt64] = []
    private(set) var converters = 0
    private(set) var bgraWrites = 0
    private(set) var changedWhileHeld = 0
    private(set) var writes = 0
    private var current: (frame: Frame, hash: UInt64)?
    private let slow: Bool
    init(width: Int, height: Int, slow: Bool = true) {
        self.width = width
        self.height = height
        self.slow = slow
    }
    func makeConverters(budget: Int) throws -> [PixelConverter]? {
        let first = try PixelConverter(path: .i420, width: width, height: height, straightAlpha: false)
        converters = max(2, budget / first.frameBytes)
        return try [first] + (1..<converters).map { _ in
            try PixelConverter(path: .i420, width: width, height: height, straightAlpha: false)
        }
    }
    func write(converted frame: Frame) throws {
        let h = planeHash(frame)
        current = (frame, h)
        writes += 1
        hashes.append(h)
    }
    func repeatLast() throws {
        if slow { usleep(3000) }  // a slow encoder: the drawing thread runs ahead
        guard let current else { return hashes.append(0) }
        let h = planeHash(current.frame)
        if h != current.hash { changedWhileHeld += 1 }
        hashes.append(h)
    }
    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws { bgraWrites += 1 }
}

/// The files a scene names, as its base map and a batch's source hash see them.
@Suite("Files a scene names")
struct SceneFilesTests {
    static func files(tiles: String, in dir: URL) throws -> [String] {
        let json = """
        { "places": [ { "name": "A", "lat": 37.5, "lon": 127, "zoom": 7 } ],
          "map": { "tiles": "\(tiles)", "attribution": "test" } }
        """
        let scene = try SceneLoader.decode(Data(json.utf8), file: "scene.json")
        return RenderJob.files(named: scene, sceneDirectory: dir).map(\.path)
    }

    @Test func localTilesAreTheFolderOrFileTheMapReads() throws {
        let dir = URL(fileURLWithPath: "/work/trips")
        // A template names its folder (the tiles under it), not a path with {z} in it.
        #expect(try Self.files(tiles: "tiles/{z}/{x}/{y}.png", in: dir) == ["/work/trips/tiles"])
        #expect(try Self.files(tiles: "../t/{z}/{x}/{-y}.jpg", in: dir) == ["/work/t"])
        #expect(try Self.files(tiles: "korea.mbtiles", in: dir) == ["/work/trips/korea.mbtiles"])
        // A file:// URL is a local file too, not a remote source.
        #expect(try Self.files(tiles: "file:///data/korea.mbtiles", in: dir) == ["/data/korea.mbtiles"])
        #expect(try Self.files(tiles: "file:///data/tiles/{z}/{x}/{y}.png", in: dir) == ["/data/tiles"])
        #expect(try Self.files(tiles: "https://tiles.example.org/{z}/{x}/{y}.png", in: dir).isEmpty)
    }
}
