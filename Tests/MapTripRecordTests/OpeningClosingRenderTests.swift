import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import Testing

/// The opening, the closing and arrivals (issue 56) as a viewer sees them: scene files rendered to
/// MP4 through `RenderJob` (what `maptrip render` does), decoded, their pixels read.
@Suite("Opening and closing render")
struct OpeningClosingRenderTests {
    /// Tokyo to Honolulu by plane, a title, an end card over a 2 s outro, at 480x270, 24 fps.
    static func json(vehicle: String, opening: Bool = true) -> String {
        """
        {"title": "Across the Pacific", "vehicle": "\(vehicle)", "opening": \(opening),
         "video": {"width": 480, "height": 270, "fps": 24},
         "end": {"title": "Aloha"}, "outro": 2,
         "places": [
           {"name": "Tokyo", "lat": 35.6762, "lon": 139.6503, "dwell": 2.5},
           {"name": "Honolulu", "lat": 21.3069, "lon": -157.8583, "dwell": 4}
         ]}
        """
    }

    /// Renders scene text to MP4 in `dir`; the decoded frames and the scene as the render loaded it.
    static func render(_ text: String, _ name: String, in dir: URL) throws -> (frames: [BGRAImage], scene: Scene) {
        LibraryLogging.configure(verbose: false)
        let sceneURL = dir.appendingPathComponent("\(name).json")
        try Data(text.utf8).write(to: sceneURL)
        let out = dir.appendingPathComponent("\(name).mp4")
        _ = try RenderJob(scene: sceneURL, output: out, environment: RecorderTests.environment()).run()
        return (try Trip.decode(out).frames, try SceneLoader.load(contentsOf: sceneURL))
    }

    /// Pixels of the title card's panel (dark: the sum of r, g and b under 400; the map under it is light, over 550) in the box `x`, `y`.
    static func dark(_ image: BGRAImage, x: ClosedRange<Int>, y: ClosedRange<Int>) -> Int {
        var n = 0
        for py in y { for px in x { let p = image.pixel(x: px, y: py); if Int(p.r) + Int(p.g) + Int(p.b) < 400 { n += 1 } } }
        return n
    }

    @Test func theFirstFrameIsNotTheTitleAtFullOpacityAndTheLastHoldsTheWholeTrip() throws {
        try Trip.withDirectory("opening-render") { dir in
            let (frames, scene) = try Self.render(Self.json(vehicle: "plane"), "trip", in: dir)
            let t = Timeline(scene: scene)
            #expect(frames.count == t.frameCount)
            #expect(frames.count == 24 * (25 + 40 + 20) / 10)  // dwells plus outro, no frame more
            let layout = FrameLayout(width: 480, height: 270)

            // The title card's panel above its text (the card's top padding, in the opening's large
            // card and in the small one alike).
            let y = Int(layout.titleTop) + 1...Int(layout.titleTop) + 4
            let left = 200...280
            let full = Self.dark(frames[24], x: left, y: y)
            let first = Self.dark(frames[0], x: left, y: y)
            Trip.dump(frames[0], "opening-first")
            Trip.dump(frames[24], "opening-full")
            #expect(t.titleOpacity(at: 24) == 1)
            #expect(full > (left.count * y.count) / 2, "full title: \(full) dark pixels")
            #expect(first == 0, "frame 0: \(first) dark pixels")
            // Without an opening, frame 0 is the card at full opacity.
            let (plain, _) = try Self.render(Self.json(vehicle: "plane", opening: false), "plain", in: dir)
            #expect(Self.dark(plain[0], x: left, y: y) > (left.count * y.count) / 2)

            // The last frame: both pins, inside the title-safe area above the end card.
            let last = frames[frames.count - 1]
            Trip.dump(last, "closing-last")
            let f = t.format!
            let v = Viewport(camera: t.camera(at: frames.count - 1), width: f.width, height: f.height, scale: f.scale,
                             projection: t.projection)
            for place in scene.places {
                let tip = try #require(v.pixel(place.position))
                #expect(tip.x > layout.safe.minX && tip.x < layout.safe.maxX, "\(place.name) at \(tip)")
                #expect(tip.y - layout.size(44) > layout.safe.minY && tip.y < SafeArea.endCardTop * layout.height,
                        "\(place.name) at \(tip)")
                let body = Trip.pinBody(above: tip, unit: layout.unit)
                #expect(Trip.redPixels(last, x: body.x, y: body.y) >= 4, "\(place.name)'s pin at \(tip)")
            }
            // ... which the camera resting on Honolulu did not show: Tokyo is far off its frame.
            let rest = Viewport(camera: t.slots[1].camera, width: f.width, height: f.height, scale: f.scale)
            let tokyo = try #require(rest.pixel(scene.places[0].position))
            #expect(tokyo.x < 0 || tokyo.x > 480)
        }
    }

    @Test func theVehicleFadesIntoThePinOverSeveralFrames() throws {
        try Trip.withDirectory("arrival-render") { dir in
            let (plane, scene) = try Self.render(Self.json(vehicle: "plane"), "plane", in: dir)
            let (none, _) = try Self.render(Self.json(vehicle: "none"), "none", in: dir)
            #expect(plane.count == none.count)
            let t = Timeline(scene: scene)
            let arrive = t.slots[1].arriveFrame
            let f = t.format!
            let tip = try #require(Viewport(camera: t.slots[1].camera, width: f.width, height: f.height, scale: f.scale)
                .pixel(scene.places[1].position))
            // The vehicle's pixels: where the render with a plane differs from the one without.
            func vehicle(_ n: Int) -> Int {
                var count = 0
                for y in (Int(tip.y) - 12)...(Int(tip.y) + 12) {
                    for x in (Int(tip.x) - 12)...(Int(tip.x) + 12) {
                        let a = plane[n].pixel(x: x, y: y), b = none[n].pixel(x: x, y: y)
                        let d = abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b))
                        if d > 60 { count += 1 }
                    }
                }
                return count
            }
            let counts = (arrive - 1...(arrive + 10)).map(vehicle)
            for k in [0, 3, 7] { Trip.dump(plane[arrive - 1 + k], "arrival-\(k)") }
            // Before arrival the plane is there; it fades over frames, not in one; then it is gone.
            #expect(counts[0] > 20, "\(counts)")
            let fading = counts[1...].prefix { $0 > 0 }
            #expect(fading.count >= 3, "\(counts)")
            #expect(counts[1] > counts[5], "\(counts)")
            #expect(counts[9...].allSatisfy { $0 == 0 }, "\(counts)")
        }
    }
}
