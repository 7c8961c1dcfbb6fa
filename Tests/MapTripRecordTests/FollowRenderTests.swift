import Foundation
import Testing
import FFmpeg
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripTime
import TestSupport

/// A chase camera rendered as `maptrip render` renders it, decoded: the followed mover at the centre
/// of every frame, and with heading-up its direction of travel toward the top: the track it has just
/// covered runs down from it, none of it above or beside.
@Suite("Follow camera renders")
struct FollowRenderTests {
    /// Pixels of `color` (within the tolerance) in a box of the frame.
    static func count(_ image: BGRAImage, _ color: Color, x: ClosedRange<Int>, y: ClosedRange<Int>) -> Int {
        var n = 0
        for py in y { for px in x where Trip.looks(image, (Double(px), Double(py)), like: color, tolerance: 40) { n += 1 } }
        return n
    }

    @Test func headingUpPutsTheMoverAtTheCentreWithItsTrackBelowIt() throws {
        try Trip.withDirectory("follow-render") { dir in
            // Eastward, wandering by a few degrees a fix: north up, its track would trail off to the left.
            let walk = TrackFixture.walk(seed: 7101, count: 120, start: LonLat(lon: 24.94, lat: 60.17), stepKm: 0.04,
                                         turn: 3, heading: 90)
            let (scene, t, frames) = try PlaybackRenderTests.render(
                [("anna", walk, TrackFixture.start)], playback: #"{ "speed": 200 }"#,
                camera: #"{ "follow": "anna", "zoom": 15, "headingUp": true, "intro": 0 }"#, in: dir)
            #expect(frames.count == t.frameCount)
            let color = try #require(Color(hex: PlaybackRenderTests.colors[0]))
            let cx = scene.video.width / 2, cy = scene.video.height / 2
            for n in [t.frameCount / 3, t.frameCount / 2, 2 * t.frameCount / 3] {
                let frame = frames[n]
                Trip.dump(frame, "follow-\(n)")
                let values = t.values(at: n)
                #expect(values.camera.center == values.movers[0].position)
                #expect(abs(CameraTrackMath.turn(90, values.camera.bearing)) < 45, "frame \(n): bearing \(values.camera.bearing)")
                // The mover's dot at the centre.
                #expect(Trip.looks(frame, (Double(cx), Double(cy)), like: color, tolerance: 40),
                        "frame \(n): \(Trip.describe(frame, (Double(cx), Double(cy))))")
                // Its recent track straight below it, none above it or to its left.
                let below = Self.count(frame, color, x: (cx - 8)...(cx + 8), y: (cy + 16)...(cy + 70))
                let above = Self.count(frame, color, x: (cx - 8)...(cx + 8), y: (cy - 70)...(cy - 16))
                let left = Self.count(frame, color, x: (cx - 70)...(cx - 16), y: (cy - 8)...(cy + 8))
                #expect(below > 60, "frame \(n): \(below) track pixels below the mover")
                #expect(above == 0, "frame \(n): \(above) track pixels above the mover")
                #expect(left == 0, "frame \(n): \(left) track pixels left of the mover")
            }
        }
    }
}

enum CameraTrackMath {
    /// Signed difference b - a of two bearings, in (-180, 180].
    static func turn(_ a: Double, _ b: Double) -> Double {
        var d = (b - a).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }
}
