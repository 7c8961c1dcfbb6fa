import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry
@testable import MapTripScene
@testable import MapTripSupport
@testable import MapTripTime

/// The opening and closing shots, arrivals and automatic flight times (issue 56), as values of the
/// timeline of the example scenes and of seeded random ones.
@Suite("Opening and closing")
struct OpeningClosingTests {
    static func example(_ name: String, _ edit: (inout [String: Any]) -> Void = { _ in }) throws -> Scene {
        let url = CinematicsTests.packageRoot.appendingPathComponent("Scenes/\(name).json")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        edit(&object)
        return try SceneLoader.decode(try JSONSerialization.data(withJSONObject: object), file: "\(name).json")
    }

    static func pixel(_ t: Timeline, _ p: LonLat, at n: Int) -> (x: Double, y: Double)? {
        let f = t.format!
        return Viewport(camera: t.camera(at: n), width: f.width, height: f.height, scale: f.scale, projection: t.projection)
            .pixel(p)
    }

    @Test func scenesOpenAndCloseByDefaultAndSaySo() throws {
        let world = try Self.example("world")
        #expect(world.opening && world.closing)
        let off = try Self.example("world") { $0["opening"] = false; $0["closing"] = false }
        #expect(!off.opening && !off.closing)
        #expect(Timeline(scene: off).opening == nil)
        // Made in code, a scene keeps its plain start and end (the tests of those build on it).
        #expect(!Scene(places: [Place(name: "x", position: LonLat(lon: 0, lat: 0))]).opening)
    }

    @Test func theOpeningZoomsInOntoTheFirstDwellsCameraExactly() throws {
        let t = Timeline(scene: try Self.example("world"))
        let opening = try #require(t.opening)
        let rest = t.slots[0].camera
        #expect(opening.moveFrames == 63)  // 2.4 s at 30 fps, at most 0.7 of the 3 s slot
        #expect(abs(t.camera(at: 0).zoom - (rest.zoom - Opening.zoomOut)) < 1e-12)
        #expect(t.camera(at: 0).center == rest.center)
        // Zooming in every frame, never past the rest, and on it exactly from the move's end.
        for n in 1..<opening.moveFrames {
            #expect(t.camera(at: n).zoom > t.camera(at: n - 1).zoom)
            #expect(t.camera(at: n).zoom < rest.zoom)
        }
        for n in opening.moveFrames..<t.slots[0].endFrame { #expect(t.camera(at: n) == rest) }
        // Gentle: no frame of it moves the map more than a tenth of the flights' bound.
        let fastest = (0..<opening.moveFrames).map { t.screenSpeed(at: $0) }.max()!
        #expect(fastest > 0 && fastest < ScreenSpeed.bound(t.format!) / 4, "\(fastest) px a frame")

        // The title fades in: not at full opacity on frame 0, full by 0.6 s.
        #expect(t.titleOpacity(at: 0) > 0 && t.titleOpacity(at: 0) < 0.1)
        #expect(t.titleOpacity(at: 18) == 1)
        // The first pin drops in after the title starts.
        #expect(t.values(at: 0).pins[0].drop == 0)
        #expect(t.values(at: 12).pins[0].drop > 0 && t.values(at: 12).pins[0].drop < 1)
        #expect(t.values(at: 30).pins[0].drop == 1)

        // Without an opening, frame 0 is the resting camera with everything shown, as before.
        let plain = Timeline(scene: try Self.example("world") { $0["opening"] = false })
        #expect(plain.camera(at: 0) == rest)
        #expect(plain.titleOpacity(at: 0) == 1)
        #expect(plain.values(at: 0).pins[0].drop == 1)
    }

    @Test func theOpeningFadesTheFirstCaptionAndTheCounterIn() throws {
        let t = Timeline(scene: try Self.example("pacific"))
        let first = t.values(at: 0)
        #expect(first.opacity(of: .caption(0)) == 0)
        #expect(first.readoutOpacity == 0)
        let later = t.values(at: 40)
        #expect(later.opacity(of: .caption(0)) == 1)
        #expect(later.readoutOpacity == 1)
    }

    @Test func theClosingFramesTheWholeTripAboveTheEndCard() throws {
        let scene = try Self.example("pacific")
        let t = Timeline(scene: scene)
        let closing = try #require(t.closing)
        let last = t.slots[t.slots.count - 1]
        // The closing is the outro: 2 s after the last place's slot.
        #expect(closing.start == last.endFrame)
        #expect(t.frameCount - closing.start == 60)
        // The camera leaves the last place at the closing's start, no earlier.
        #expect(t.camera(at: closing.start - 1) == last.camera)
        #expect(t.camera(at: closing.start) == last.camera)
        #expect(t.camera(at: closing.start + 1) != last.camera)

        let f = t.format!
        let safe = SafeArea.box(width: Double(f.width), height: Double(f.height))
        let aboveCard = SafeArea.endCardTop * Double(f.height)
        let end = t.frameCount - 1
        var points = scene.places.map(\.position)
        for line in t.routes.compactMap({ $0 }) { points += line.points }
        for p in points {
            let q = try #require(Self.pixel(t, p, at: end))
            #expect(q.x >= safe.minX && q.x <= safe.maxX && q.y >= safe.minY && q.y <= aboveCard, "\(p) at \(q)")
        }
        // It fills the area: the trip spans most of the area's width or height.
        let xs = points.map { Self.pixel(t, $0, at: end)!.x }, ys = points.map { Self.pixel(t, $0, at: end)!.y }
        let area = Closing.area(format: f, endCard: true)
        #expect(max((xs.max()! - xs.min()!) / (area.maxX - area.minX), (ys.max()! - ys.min()!) / (area.maxY - area.minY)) > 0.9)
        // Held still from the pull-out's end.
        #expect(t.camera(at: closing.start + closing.moveFrames) == t.camera(at: end))

        // The caption and the counter are gone before the end card arrives.
        let before = t.values(at: closing.start - 1)
        #expect(before.opacity(of: .end) == 0)
        #expect(before.opacity(of: .caption(2)) < 0.1)
        #expect(before.readoutOpacity < 0.1)
        let during = t.values(at: closing.start + 1)
        #expect(during.opacity(of: .end) > 0)
        #expect(during.opacity(of: .caption(2)) == 0 && during.readoutOpacity == 0)

        // Without a closing, the camera stays on the last place to the end.
        let plain = Timeline(scene: try Self.example("pacific") { $0["closing"] = false })
        #expect(plain.camera(at: end) == last.camera)
    }

    @Test func aTripLastsItsDwellsPlusItsOutroWhateverItsShots() throws {
        var rng = SplitMix64(seed: 56)
        for k in 0..<12 {
            let count = Int.random(in: 1...6, using: &rng)
            var places: [[String: Any]] = []
            for _ in 0..<count {
                places.append(["lat": Double.random(in: -60...60, using: &rng), "lon": Double.random(in: -180..<180, using: &rng),
                               "dwell": Double.random(in: 0.5...6, using: &rng)])
            }
            var object: [String: Any] = ["places": places, "title": "T", "distance": true, "vehicle": "plane",
                                         "video": ["width": 640, "height": 360, "fps": [24, 25, 30][k % 3]]]
            if k % 2 == 0 { object["outro"] = Double.random(in: 0...3, using: &rng) }
            if k % 3 == 0 { object["end"] = ["title": "E"] }
            let data = try JSONSerialization.data(withJSONObject: object)
            let on = try SceneLoader.decode(data, file: "r\(k).json")
            var off = on
            off.opening = false
            off.closing = false
            let dwells = on.places.map(\.dwell) + [on.outro]
            let expected = FrameGrid(dwells: dwells, fps: on.video.fps).frameCount
            #expect(Timeline(scene: on).frameCount == expected)
            #expect(Timeline(scene: off).frameCount == expected)
            // Every frame's values are made, the last one on the closing's view when there is one.
            let t = Timeline(scene: on)
            for n in Swift.stride(from: 0, to: t.frameCount, by: 7) { _ = t.values(at: n) }
            if let closing = t.closing { #expect(closing.start >= t.slots[t.slots.count - 1].arriveFrame) }
        }
    }

    @Test func automaticFlightsKeepTheMapsSpeedWithinItsBound() throws {
        // world.json sets no flight time: each leg's time comes from its distance, lengthened within its
        // slot to keep the map under 60 px a frame at 1080p30.
        let t = Timeline(scene: try Self.example("world"))
        let bound = ScreenSpeed.bound(t.format!)
        #expect(bound == 60)
        let speeds = (0..<(t.frameCount - 1)).map { t.screenSpeed(at: $0) }
        let fastest = speeds.max()!
        print("world.json: fastest frame moves the map \(String(format: "%.1f", fastest)) px (bound \(bound))")
        #expect(fastest <= bound)
        // Every automatic flight takes at least the time its distance gives it, at most 0.85 of its slot.
        for slot in t.slots.dropFirst() {
            #expect(slot.flightFrames >= FrameGrid.frames(seconds: slot.place.flight!, fps: 30))
            #expect(slot.flightFrames <= FrameGrid.frames(seconds: 0.85 * slot.place.dwell, fps: 30))
        }

        // The old default, 1.5 s for every flight, whip-pans past the bound.
        let fixed = Timeline(scene: try Self.example("world") { $0["flight"] = 1.5 })
        let fixedFastest = (0..<(fixed.frameCount - 1)).map { fixed.screenSpeed(at: $0) }.max()!
        print("world.json with 1.5 s flights: \(String(format: "%.1f", fixedFastest)) px")
        #expect(fixedFastest > bound)
        #expect(fixed.slots[5].flightFrames == 45)
    }

    @Test func aFlightTheDistanceTimesTooShortIsLengthenedWithinItsSlot() throws {
        // A 100 km hop that dives from zoom 4 to zoom 10: its distance gives it 1.5 s, in which the
        // frame's corners would race; a 6 s slot lets it slow to the bound, a 2 s one only to 1.7 s.
        func timeline(dwell: Double) throws -> Timeline {
            let text = #"{"video": {"width": 1920, "height": 1080, "fps": 30}, "places": ["#
                + #"{"lat": 48, "lon": 2, "zoom": 4}, {"lat": 48.5, "lon": 3, "zoom": 10, "dwell": \#(dwell)}]}"#
            return Timeline(scene: try SceneLoader.decode(Data(text.utf8), file: "hop.json"))
        }
        let roomy = try timeline(dwell: 6)
        let formula = FrameGrid.frames(seconds: roomy.slots[1].place.flight!, fps: 30)
        #expect(formula == 45)
        #expect(roomy.slots[1].flightFrames > formula)
        let fastest = (0..<(roomy.frameCount - 1)).map { roomy.screenSpeed(at: $0) }.max()!
        print("hop: \(fastest) px, flight \(roomy.slots[1].flightFrames) frames"); #expect(fastest <= 60 && fastest > 50)
        let tight = try timeline(dwell: 2)
        #expect(tight.slots[1].flightFrames == 51)
        #expect((0..<(tight.frameCount - 1)).map { tight.screenSpeed(at: $0) }.max()! > 60)
    }

    @Test func theVehicleEasesIntoThePin() throws {
        let t = Timeline(scene: try Self.example("pacific"))
        let slot = t.slots[1]
        #expect(t.values(at: slot.arriveFrame - 1).vehicle?.opacity == 1)
        var opacities: [Double] = []
        for n in slot.arriveFrame..<(slot.arriveFrame + 12) {
            guard let v = t.values(at: n).vehicle else { break }
            #expect(v.progress == 1)
            opacities.append(v.opacity)
        }
        #expect(opacities.count == 9)  // 0.3 s at 30 fps
        #expect(zip(opacities, opacities.dropFirst()).allSatisfy { $0 > $1 })
        #expect(opacities.last! > 0 && opacities.first! < 1)
    }
}
