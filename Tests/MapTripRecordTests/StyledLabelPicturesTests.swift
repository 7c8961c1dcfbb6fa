import FFmpeg
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import Testing
import TestSupport

/// The styled map's labels drawn once each as pictures (their text and halo, at a half-pixel phase)
/// and their tiles' candidates kept by zoom step: a walk over the Helsinki vector tiles, its flights
/// zooming, rendered whole and its frames drawn alone by preview. The caches must be a function of
/// the frame: a frame drawn alone (fresh caches) is the same frame the whole recording drew, to the
/// byte; and the MP4's decoded frames are preview's within the codec's loss.
@Suite(.tags(.slow)) struct StyledLabelPicturesTests {
    /// Three places of Scenes/helsinki.json at 640x360, 10 fps: two 2-second flights that zoom out and in.
    /// Or (`chase`) a heading-up chase at street zoom through the centre: its street names' glyphs
    /// turning with the map every frame (`GlyphPictures`' steps of a degree).
    static func scene(in dir: URL, chase: Bool = false) throws -> URL {
        if chase {
            let walk = TrackFixture.walk(seed: 5905, count: 24, start: LonLat(lon: 24.944, lat: 60.1685), stepKm: 0.025,
                                         turn: 20, heading: 80)
            return try StyledPlanarTests.chase(walk, named: "turning", zoom: 17, width: 640, height: 360, speed: 30, in: dir)
        }
        let tiles = Trip.assets.appendingPathComponent("tiles/helsinki.pmtiles").path
        let json = """
        {"title": "A walk in Helsinki", "vehicle": "walk", "dwell": 3, "flight": 2, "route": {"path": "straight", "width": 5},
         "video": {"width": 640, "height": 360, "fps": 10},
         "map": {"tiles": \(Trip.quoted(tiles)), "attribution": "© OpenStreetMap contributors"},
         "places": [{"name": "Central Station", "lat": 60.1712, "lon": 24.9414, "zoom": 16.5},
                    {"name": "Senate Square", "lat": 60.1693, "lon": 24.9517, "zoom": 17},
                    {"name": "Stockmann", "lat": 60.1685, "lon": 24.9414, "zoom": 15.5}]}
        """
        let url = dir.appendingPathComponent("scene.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// Frames to check: seeded picks among the flights' frames (the camera moving: labels placed over
    /// a composited picture), and the walk's first and last (at rest).
    static func frames(_ url: URL) throws -> [Int] {
        let timeline = Timeline(scene: try SceneLoader.loadForRender(contentsOf: url))
        let count = timeline.frameCount
        let moving = (1..<count).filter { timeline.values(at: $0).camera != timeline.values(at: $0 - 1).camera }
        #expect(moving.count >= 30, "\(moving.count) moving frames of \(count)")
        var rng = SplitMix64(seed: 5801)
        var picked: Set<Int> = [0, count - 1]
        while picked.count < 8, !moving.isEmpty { picked.insert(moving[Int(rng.next() % UInt64(moving.count))]) }
        return picked.sorted()
    }

    static func preview(_ scene: URL, frame n: Int, fps: Double, in dir: URL) throws -> BGRAImage {
        let png = dir.appendingPathComponent("preview-\(n).png")
        _ = try PreviewJob(scene: scene, subject: .time(Double(n) / fps), output: png,
                           environment: RenderEnvironment(assets: Trip.assets)).run()
        return try ImageDecoder.decode(Data(contentsOf: png))
    }

    @Test(arguments: [false, true])
    func aFrameDrawnAloneIsTheFrameOfTheWholeRecording(chase: Bool) throws {
        try Trip.withDirectory("styled-label-pictures") { dir in
            let url = try Self.scene(in: dir, chase: chase)
            let scene = try SceneLoader.loadForRender(contentsOf: url)
            let wanted = try Self.frames(url)
            let grabbed = try FrameGrabber.record(scene, directory: dir, wanted: Set(wanted))
            #expect(grabbed.frames.count == wanted.count, "\(grabbed.frames.keys.sorted()) of \(wanted)")
            for n in wanted {
                let alone = try Self.preview(url, frame: n, fps: 10, in: dir)
                let frame = try #require(grabbed.frames[n])
                #expect(Preview.differences(alone, frame, stride: grabbed.stride, width: 640, height: 360) == 0, "frame \(n)")
            }
        }
    }

    @Test(arguments: [false, true])
    func theWalksMP4IsPreviewsFrames(chase: Bool) throws {
        try Trip.withDirectory("styled-label-pictures-mp4") { dir in
            let url = try Self.scene(in: dir, chase: chase)
            let out = dir.appendingPathComponent("walk.mp4")
            let request = OutputRequest(path: out.path, options: EncodingOptions(crf: 1, pixelFormat: "yuv420p"))
            _ = try RenderJob(scene: url, output: request, environment: RenderEnvironment(assets: Trip.assets)).run()
            let decoded = try Trip.decode(out).frames
            var worst = Double.infinity
            for n in try Self.frames(url) {
                let expected = try Self.preview(url, frame: n, fps: 10, in: dir)
                let psnr = ConcatTests.psnr(decoded[n], expected)
                worst = min(worst, psnr)
                // Measured: 38.8 dB at the worst of these frames (4:2:0's chroma on the map's edges; the
                // conformance matrix holds 4:2:0 outputs to 35).
                #expect(psnr >= 37, "frame \(n): PSNR \(psnr) dB against preview")
                print("styled label pictures\(chase ? " (chase)" : ""): frame \(n), PSNR \(psnr) dB against preview")
            }
            print("styled label pictures\(chase ? " (chase)" : ""): worst PSNR against preview \(worst) dB")
        }
    }
}
