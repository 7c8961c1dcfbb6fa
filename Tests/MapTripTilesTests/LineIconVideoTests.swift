import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripSupport
import MapTripTime
import Testing
import TestSupport
@testable import MapTripRender
@testable import MapTripTiles

/// Through the product: scenes over the Helsinki tiles with a style of their own, rendered to MP4 and
/// decoded: the test sprite's blue icons along the streets; a sprite URL nothing answers at.
@Suite("Icons along lines and sprite URLs, rendered to MP4")
struct LineIconVideoTests {
    static let centre = LonLat(lon: 24.9465, lat: 60.1690)

    /// A one-place scene at street zoom over the tiles, drawn with `style.json`.
    static let scene = """
        { "video": { "width": 640, "height": 360, "fps": 6 }, "opening": false,
          "map": { "tiles": "\(VectorData.pmtiles.path)", "style": "style.json",
                   "attribution": "© OpenStreetMap contributors" },
          "places": [ { "name": "A", "lat": \(centre.lat), "lon": \(centre.lon), "zoom": 17, "dwell": 1 } ] }
        """

    /// Renders `scene` with `style` (written beside it, the test sprite in sprites/) to MP4: the
    /// summary, the middle frame of the first stay, its viewport, and the seconds the render took.
    static func render(scene json: String = scene, style: String, in dir: URL) throws -> (RecordSummary, BGRAImage, Viewport, Double) {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sprites"), withIntermediateDirectories: true)
        try StyleIconTests.writeSprite("test", in: dir.appendingPathComponent("sprites"))
        try Data(style.utf8).write(to: dir.appendingPathComponent("style.json"))
        let file = dir.appendingPathComponent("scene.json"), out = dir.appendingPathComponent("out.mp4")
        try Data(json.utf8).write(to: file)
        LibraryLogging.configure(verbose: false)
        let clock = ContinuousClock(), start = clock.now
        let summary = try RenderJob(scene: file, output: out, environment: RenderEnvironment(
            assets: VectorData.root.appendingPathComponent("Assets"), cacheDirectory: dir.appendingPathComponent("cache"))).run()
        let elapsed = clock.now - start
        let scene = try SceneLoader.loadForRender(contentsOf: file)
        let timeline = Timeline(scene: scene)
        let n = (timeline.slots[0].arriveFrame + timeline.slots[0].endFrame) / 2
        let viewport = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap()).viewport(timeline.values(at: n).camera)
        let reader = try VideoReader(path: out.path)
        var frames: [BGRAImage] = []
        while let image = try reader.nextImage() { frames.append(image) }
        try #require(frames.count == timeline.frameCount)
        return (summary, frames[n], viewport,
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The blue pixels of a decoded frame (the test sprite's "wide" icon, through the encoder's
    /// chroma), and how many of them are not where `near` (a pixel's centre) expects them.
    static func bluePixels(_ frame: BGRAImage, near: (Double, Double) -> Bool) -> (blue: Int, stray: Int) {
        var blue = 0, stray = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let p = frame.pixel(x: x, y: y)
                guard p.b > 170, p.r < 90, p.g < 90 else { continue }
                blue += 1
                if !near(Double(x) + 0.5, Double(y) + 0.5) { stray += 1 }
            }
        }
        return (blue, stray)
    }

    @Test("The decoded frame's blue shields lie on the streets")
    func shieldsOnTheStreets() throws {
        try TemporaryFolder.with("line-icons-video") { dir in
            let (summary, frame, viewport, _) = try Self.render(style: LineIconTests.style(spacing: 120, text: false), in: dir)
            #expect(summary.warnings.isEmpty, "\(summary.warnings)")
            let streets = try StyledLabelTests.decoded("transportation_name", in: viewport).flatMap(\.parts)
                .map { LinePath(xs: $0.map(\.x), ys: $0.map(\.y)) }
            // Every blue pixel within an upright 24 x 12 icon's reach of a street (its centre on it,
            // and the encoder's chroma): at most 14 px.
            let (blue, stray) = Self.bluePixels(frame) { x, y in streets.contains { $0.distance(from: x, y) <= 14 } }
            print("line icons video: \(blue) blue pixels, \(stray) over 14 px from a street")
            #expect(blue > 10 * 200, "\(blue) blue pixels")
            #expect(stray == 0)
        }
    }

    @Test("A sprite URL that never answers: the render finishes with one warning, the labels drawn")
    func spriteNobodyAnswers() throws {
        let silent = try SpriteOfflineTests.SilentPort()
        try TemporaryFolder.with("sprite-video") { dir in
            let url = "http://127.0.0.1:\(silent.port)/sprites/test"
            let (summary, frame, _, seconds) = try Self.render(style: StyleIconTests.style(sprite: url), in: dir)
            print("render with a sprite URL nothing answers at: \(String(format: "%.1f", seconds)) s; warnings: \(summary.warnings)")
            let sprite = summary.warnings.filter { $0.contains("cannot fetch sprite URL \(url).json") }
            #expect(sprite.count == 1, "\(summary.warnings)")
            // The points of interest's names: black text on the white background.
            var ink = 0
            for y in 0..<frame.height {
                for x in 0..<frame.width {
                    let p = frame.pixel(x: x, y: y)
                    if p.r < 60 && p.g < 60 && p.b < 60 { ink += 1 }
                }
            }
            #expect(ink > 300, "\(ink) text pixels")
        }
    }
}
