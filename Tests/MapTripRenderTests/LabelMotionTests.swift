import Foundation
@testable import MapTripGeometry
import MapTripScene
@testable import MapTripTime
import Testing
import TestSupport
@testable import MapTripRender

/// Labels in motion (issue #56): a label that must change sides fades across rather than jumping,
/// and moves with its pin; a frame's labels are a function of its number alone.
@Suite("Labels in motion")
struct LabelMotionTests {
    /// The tour of capitals (see `RouteClearLabelsTests`) at 30 fps: its labels change sides as routes
    /// arrive and pins crowd.
    static let tour: Scene = {
        var scene = RouteClearLabelsTests.tour
        scene.video = Video(width: 960, height: 540, fps: 30)
        return scene
    }()

    /// Korea's five stops (Scenes/korea.json) at zoom 8: the camera flies past pins near the frame's
    /// edges, and labels move to stay inside it.
    static let korea: Scene = {
        let stops: [(String, Double, Double, Double)] = [
            ("Seoul 서울", 126.978, 37.5665, 8), ("Jeonju 전주", 127.148, 35.8242, 8), ("Gyeongju 경주", 129.2247, 35.8562, 8),
            ("Busan 부산", 129.0756, 35.1796, 9), ("Jeju 제주", 126.5312, 33.4996, 8),
        ]
        let places = stops.map { Place(name: $0.0, position: LonLat(lon: $0.1, lat: $0.2), dwell: 3, zoom: $0.3) }
        return Scene(video: Video(width: 960, height: 540, fps: 30), places: places)
    }()

    /// Each frame's labels: name, box, opacity, and the place's pin on the frame.
    static func labels(_ scene: Scene, numbered: Bool) throws -> [[(name: String, box: Box, alpha: Double, pin: (x: Double, y: Double))]] {
        let timeline = Timeline(scene: scene)
        let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap())
        renderer.planBaseMap(timeline)
        let places = try #require(renderer.overlays.compactMap { $0 as? PlacesOverlay }.first)
        return try (0..<timeline.frameCount).map { n in
            let frame = renderer.context(timeline.values(at: n), frame: numbered ? n : nil)
            return try places.labels(frame).map { label in
                let place = try #require(scene.places.first { $0.name == label.name })
                let pin = try #require(frame.viewport.pixel(place.position))
                return (label.name, label.box, label.alpha, (pin.x, pin.y))
            }
        }
    }

    /// The labels that jump between two frames where each shows once at full opacity: along either
    /// axis, moving by 2 px or more both on the frame and against its pin; and how many frames fade a
    /// label across.
    static func jumps(_ frames: [[(name: String, box: Box, alpha: Double, pin: (x: Double, y: Double))]]) -> (jumps: [String], fades: Int) {
        var jumps: [String] = [], fades = 0
        for n in frames.indices.dropFirst() {
            let named = Dictionary(grouping: frames[n], by: \.name), before = Dictionary(grouping: frames[n - 1], by: \.name)
            for (name, now) in named {
                if now.count > 1 {
                    fades += 1
                    continue
                }
                guard let was = before[name], was.count == 1, was[0].alpha == 1, now[0].alpha == 1 else { continue }
                let a = was[0], b = now[0]
                // Along each axis a label moves with its pin, or less (held inside the frame's edge).
                let dx = b.box.minX - a.box.minX, dy = b.box.minY - a.box.minY
                let pinX = b.pin.x - a.pin.x, pinY = b.pin.y - a.pin.y
                func follows(_ d: Double, _ pin: Double) -> Bool { d >= min(0, pin) - 2 && d <= max(0, pin) + 2 }
                if !follows(dx, pinX) || !follows(dy, pinY) {
                    jumps.append("\(name) at frame \(n): \(a.box) -> \(b.box)")
                }
            }
        }
        return (jumps, fades)
    }

    @Test func aLabelChangingSidesFadesAcross() throws {
        var jumpsAlone = 0
        for (name, scene) in [("tour", Self.tour), ("korea", Self.korea)] {
            let placedAlone = Self.jumps(try Self.labels(scene, numbered: false))
            let numbered = try Self.labels(scene, numbered: true)
            let smoothed = Self.jumps(numbered)
            print("\(name): labels jumping 2 px or more: \(placedAlone.jumps.count) placed frame by frame, \(smoothed.jumps.count) fading across (\(smoothed.fades) label-frames fading)")
            jumpsAlone += placedAlone.jumps.count
            #expect(smoothed.jumps.isEmpty, "\(name): \(smoothed.jumps.prefix(5))")
            #expect(smoothed.fades > 0)
            // Fading across: the two boxes' opacities add up to one.
            for frame in numbered {
                for (label, shown) in Dictionary(grouping: frame, by: \.name) where shown.count > 1 {
                    #expect(shown.count == 2 && abs(shown.map(\.alpha).reduce(0, +) - 1) < 1e-9, "\(name): \(label)")
                }
            }
        }
        #expect(jumpsAlone > 0, "labels placed frame by frame jump")
    }

    @Test func aFrameDrawsAloneAsInTheRender() throws {
        // The same frames asked for backwards, one by one on a fresh renderer, and forwards.
        let scene = Self.tour
        let timeline = Timeline(scene: scene)
        let forwards = try Self.labels(scene, numbered: true)
        var rng = SplitMix64(seed: 0x1ABE_1500)
        for _ in 0..<12 {
            let n = Int(rng.unit() * Double(timeline.frameCount - 1))
            let renderer = try FrameRenderer(scene: scene, baseMap: TransparentBaseMap())
            renderer.planBaseMap(timeline)
            let places = try #require(renderer.overlays.compactMap { $0 as? PlacesOverlay }.first)
            let alone = try places.labels(renderer.context(timeline.values(at: n), frame: n))
            #expect(alone.map(\.name) == forwards[n].map(\.name), "frame \(n)")
            #expect(zip(alone, forwards[n]).allSatisfy { $0.box == $1.box && $0.alpha == $1.alpha }, "frame \(n)")
        }
    }

    @Test func aPinAndItsLabelRoundAlike() {
        // Offsets from the anchor in half pixels: the pin's and the label's pictures step together.
        var rng = SplitMix64(seed: 0x5_1DE5)
        for _ in 0..<200 {
            let r = LabelPlacer.Request(anchorX: rng.unit() * 900, anchorY: rng.unit() * 500, width: rng.unit() * 120 + 10,
                                        height: rng.unit() * 30 + 8, gap: rng.unit() * 20, rise: rng.unit() * 40)
            for box in r.candidates() {
                for d in [box.minX - r.anchorX, box.minY - r.anchorY] {
                    #expect(abs(d * 2 - (d * 2).rounded()) < 1e-9)
                }
            }
        }
    }
}
