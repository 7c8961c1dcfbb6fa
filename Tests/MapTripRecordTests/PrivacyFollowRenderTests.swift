import Foundation
import Testing
import FFmpeg
import MapTripGeometry
import MapTripRecord
import MapTripScene
import MapTripTime
import TestSupport

/// A chase camera over a recording that passes through a privacy zone, rendered as `maptrip render`
/// renders it and decoded: no frame centres on the zone (the camera holds on its edge and glides round
/// it), the mover is not drawn inside it, and `plan --json` lists nothing inside it.
@Suite("Privacy zones under a follow camera")
struct PrivacyFollowRenderTests {
    @Test func theCameraHoldsOnTheZonesEdgeAndThePlanListsNothingInside() throws {
        try Trip.withDirectory("privacy-follow") { dir in
            let walk = TrackFixture.walk(seed: 5903, count: 160, start: LonLat(lon: 24.90, lat: 60.17), stepKm: 0.04,
                                         turn: 5, heading: 80)
            // Home: a zone on the walk's middle, 300 m round.
            let home = walk.points[80], radius = 300.0
            let zone = PrivacyZone(center: home, radius: radius)
            try walk.gpx(start: TrackFixture.start).write(to: dir.appendingPathComponent("anna.gpx"), atomically: true, encoding: .utf8)
            let json = """
                { "video": { "width": 640, "height": 360, "fps": 10 },
                  "tracks": [ { "file": "anna.gpx", "name": "anna", "color": "\(PlaybackRenderTests.colors[0])" } ],
                  "playback": { "speed": 120 }, "readouts": [ "speed", "distance", "elapsed" ],
                  "camera": { "follow": "anna", "zoom": 16, "intro": 0 },
                  "privacy": [ { "lat": \(home.lat), "lon": \(home.lon), "radius": \(radius) } ] }
                """
            let (scene, t, frames) = try PlaybackRenderTests.render(json: json, name: "home", in: dir)
            #expect(frames.count == t.frameCount)
            let clock = try #require(t.playback)
            let color = try #require(Color(hex: PlaybackRenderTests.colors[0]))
            let inside = (0..<clock.frameCount).filter { zone.contains(t.values(at: $0).movers[0].position) }
            #expect(inside.count > 5, "\(inside.count) frames inside the zone")
            let centre = (Double(scene.video.width) / 2, Double(scene.video.height) / 2)
            var before: LonLat?
            var steps: [Double] = []
            for n in 0..<clock.frameCount {
                let values = t.values(at: n)
                let c = values.camera.center
                // No frame centres inside the zone.
                #expect(Geodesy.distanceKm(c, home) * 1000 > radius - 0.5, "frame \(n): camera \(Geodesy.distanceKm(c, home) * 1000) m from home")
                if let before { steps.append(Geodesy.distanceKm(before, c) * 1000) }
                before = c
                if inside.contains(n) {
                    // The mover is not drawn, and home lies a zone's radius from the frame's centre.
                    #expect(!Trip.looks(frames[n], centre, like: color, tolerance: 40), "frame \(n): \(Trip.describe(frames[n], centre))")
                    #expect(values.readouts?.hidden == true)
                } else {
                    #expect(c == values.movers[0].position, "frame \(n)")
                    #expect(values.readouts?.hidden == false)
                }
            }
            // Smooth: no step of the camera longer than the mover's longest or the glide round the edge's.
            let moverSteps = (1..<clock.frameCount).map {
                Geodesy.distanceKm(t.values(at: $0 - 1).movers[0].position, t.values(at: $0).movers[0].position) * 1000
            }
            let glide = 1.5 * Double.pi * radius / Double(FrameGrid.frames(seconds: FollowCamera.privacyGlide, fps: 10))
            #expect(steps.max()! <= max(moverSteps.max()!, glide) + 1, "largest camera step \(steps.max()!) m")
            // The frame after the mover comes out: on it again, at the frame's centre.
            let out1 = try #require(inside.last) + 1
            Trip.dump(frames[out1], "privacy-follow-\(out1)")
            #expect(Trip.looks(frames[out1], centre, like: color, tolerance: 40), "frame \(out1): \(Trip.describe(frames[out1], centre))")

            // plan --json: every camera outside the zone, no readout values inside it.
            let plan = Plan(scene: scene).json(includeFrames: true)
            let root = try #require(try JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [String: Any])
            let cameras = try #require(root["cameras"] as? [[String: Any]])
            for c in cameras {
                let p = LonLat(lon: try #require(c["lon"] as? Double), lat: try #require(c["lat"] as? Double))
                #expect(Geodesy.distanceKm(p, home) * 1000 > radius - 1, "\(c)")
            }
            let samples = try #require((root["readouts"] as? [String: Any])?["samples"] as? [[String: Any]])
            for s in samples {
                let n = try #require(s["frame"] as? Int)
                let hidden = inside.contains(n)
                #expect((s["km"] == nil) == hidden && (s["kmh"] == nil) == hidden, "\(s)")
                #expect((s["hidden"] as? Bool ?? false) == hidden)
            }
            #expect(samples.contains { $0["hidden"] as? Bool == true })
        }
    }
}
