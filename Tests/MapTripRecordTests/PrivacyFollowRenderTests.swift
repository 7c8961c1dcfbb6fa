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
    /// Whether any pixel within `r` of `p` is of the route's red (#e4572e; a thin line softened by the
    /// codec: red over green and blue by 50; the map's land and sea are not).
    static func near(_ image: BGRAImage, _ p: (x: Double, y: Double), r: Int = 2) -> Bool {
        for dy in -r...r {
            for dx in -r...r {
                let x = Int(p.x) + dx, y = Int(p.y) + dy
                guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
                let px = image.pixel(x: x, y: y)
                if Int(px.r) - Int(px.g) > 50 && Int(px.r) - Int(px.b) > 50 { return true }
            }
        }
        return false
    }

    /// A loop that starts and ends at home, round a second zone where the centre of the whole route
    /// falls: the intro flies in from and the outro out to the route's visible pieces; no frame of the
    /// video (intro, playback, outro) centres inside either zone; the route inside home is not drawn.
    @Test func theIntroAndOutroFrameOnlyTheVisibleRoute() throws {
        try Trip.withDirectory("privacy-intro") { dir in
            let lake = LonLat(lon: 24.90, lat: 60.17), loop = 400.0
            let round = PrivacyZone(center: lake, radius: loop)
            // Anticlockwise from the loop's south point, a fix every 3 degrees, 4 to 6 seconds apart.
            var random = SplitMix64(seed: 5905)
            var points: [LonLat] = [], times: [Double] = []
            for k in 0...120 {
                points.append(round.rim(at: -Double.pi / 2 + Double(k) * 3 * .pi / 180))
                times.append(k == 0 ? 0 : times[k - 1] + 4 + Double(random.next() % 3))
            }
            let walk = TrackFixture(points: points, times: times)
            let home = PrivacyZone(center: points[0], radius: 120), middle = PrivacyZone(center: lake, radius: 150)
            try walk.gpx(start: TrackFixture.start).write(to: dir.appendingPathComponent("loop.gpx"), atomically: true, encoding: .utf8)
            let zones = [home, middle].map { #"{ "lat": \#($0.center.lat), "lon": \#($0.center.lon), "radius": \#($0.radius) }"# }
            let json = """
                { "video": { "width": 640, "height": 360, "fps": 10 }, "outro": 3,
                  "tracks": [ { "file": "loop.gpx", "name": "loop", "color": "\(PlaybackRenderTests.colors[0])" } ],
                  "playback": { "speed": 60 }, "camera": { "follow": "loop", "zoom": 16, "intro": 3 },
                  "privacy": [ \(zones.joined(separator: ", ")) ] }
                """
            let (scene, t, frames) = try PlaybackRenderTests.render(json: json, name: "loop", in: dir)
            #expect(frames.count == t.frameCount)
            let clock = try #require(t.playback)
            #expect(t.frameCount > clock.frameCount + 20)
            // The whole route's own framing centres in the middle zone: what the flights must not show.
            let world = points.map(WebMercator.project)
            let x = world.map(\.x), y = world.map(\.y)
            let whole = WebMercator.unproject(WorldPoint(x: (x.min()! + x.max()!) / 2, y: (y.min()! + y.max()!) / 2))
            #expect(middle.contains(whole))
            for n in 0..<t.frameCount {
                let c = t.values(at: n).camera.center
                for (name, z) in [("home", home), ("middle", middle)] {
                    #expect(Geodesy.distanceKm(c, z.center) * 1000 > z.radius - 0.5,
                            "frame \(n): camera \(Geodesy.distanceKm(c, z.center) * 1000) m from \(name)'s centre")
                }
            }
            // The last frame, zoomed out over the route: every visible fix drawn in the mover's colour, none
            // of those well inside home.
            let last = t.frameCount - 1
            Trip.dump(frames[last], "privacy-intro-last")
            let viewport = Viewport(camera: t.values(at: last).camera, width: 640, height: 360, scale: scene.video.scale,
                                    projection: .webMercator)
            #expect(PlaybackRenderTests.colors[0] == "#e4572e")
            var shown = 0, visible = 0
            for p in points {
                let q = try #require(viewport.pixel(p))
                #expect(q.x > 0 && q.x < 640 && q.y > 0 && q.y < 360, "\(p) at \(q): outside the frame")
                let depth = home.radius - Geodesy.distanceKm(p, home.center) * 1000
                if depth > 30 {
                    #expect(!Self.near(frames[last], q), "hidden fix \(p): \(Trip.describe(frames[last], q))")
                } else if depth < -30 {
                    visible += 1
                    if Self.near(frames[last], q) { shown += 1 }
                }
            }
            #expect(visible > 90 && Double(shown) >= 0.9 * Double(visible), "\(shown) of \(visible) visible fixes drawn")
        }
    }
}
