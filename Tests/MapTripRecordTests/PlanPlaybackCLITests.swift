import Foundation
import Testing

/// `maptrip plan --json` on a playback with `skipIdle`: its stretches and cuts against the values the
/// GPX's own times give, worked out here from the points written (not from the clock's code).
@Suite("maptrip plan: playback stretches")
struct PlanPlaybackCLITests {
    /// A fix written to the GPX: seconds after the start, and metres north of the start.
    struct Fix {
        var seconds: Double
        var north: Double
    }

    /// A walk north at 5 m/s (a fix every 10 s), with three pauses made by fixes far apart in time and a
    /// few metres apart in space: 200 s (shorter than skipIdle, kept), 1,800 s and 900 s (cut).
    static let fixes: [Fix] = {
        var fixes: [Fix] = []
        var t = 0.0, y = 0.0
        func walk(_ steps: Int) {
            for _ in 0..<steps {
                t += 10
                y += 50
                fixes.append(Fix(seconds: t, north: y))
            }
        }
        func pause(_ seconds: Double) {
            t += seconds
            y += 20  // 20 m in minutes: well under the 0.5 m/s a step moves at
            fixes.append(Fix(seconds: t, north: y))
        }
        fixes.append(Fix(seconds: 0, north: 0))
        walk(60)
        pause(200)
        walk(40)
        pause(1800)
        walk(30)
        pause(900)
        walk(12)
        return fixes
    }()

    static let start = Date(timeIntervalSince1970: 1_714_554_000)  // 2024-05-01T09:00:00Z
    static let latitude = 60.17, longitude = 24.94
    /// Metres per degree of latitude (the mean; the walk goes due north).
    static let metresPerDegree = 111_195.0

    static var gpx: String {
        let iso = ISO8601DateFormatter()
        let points = fixes.map { f in
            "<trkpt lat=\"\(latitude + f.north / metresPerDegree)\" lon=\"\(longitude)\">"
                + "<time>\(iso.string(from: start.addingTimeInterval(f.seconds)))</time></trkpt>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="maptrip tests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>walk</name><trkseg>
            \(points.joined(separator: "\n"))
            </trkseg></trk>
            </gpx>
            """
    }

    @Test func stretchesAndCutsAreTheIdleGapsOfTheRecording() throws {
        let speed = 60.0, fps = 10.0, skipIdle = 300.0
        // The idle stretches: runs of steps slower than 0.5 m/s (the clock's still speed), longer than skipIdle.
        var cuts: [(Double, Double)] = []
        var movedUntil = Self.fixes[0].seconds
        for (a, b) in zip(Self.fixes, Self.fixes.dropFirst()) where (b.north - a.north) / (b.seconds - a.seconds) >= 0.5 {
            if a.seconds - movedUntil > skipIdle { cuts.append((movedUntil, a.seconds)) }
            movedUntil = b.seconds
        }
        #expect(cuts.count == 2)
        let end = try #require(Self.fixes.last).seconds
        var bounds: [(Double, Double)] = []
        var from = 0.0
        for cut in cuts {
            bounds.append((from, cut.0))
            from = cut.1
        }
        bounds.append((from, end))
        // Each stretch's frames: the summed video seconds of the stretches to its end, on the frame grid.
        var frames: [(Int, Int)] = []
        var seconds = 0.0, frame = 0
        for (a, b) in bounds {
            seconds += (b - a) / speed
            let next = Int((seconds * fps).rounded())
            frames.append((frame, next))
            frame = next
        }
        let iso = ISO8601DateFormatter()
        func text(_ t: Double) -> String { iso.string(from: Self.start.addingTimeInterval(t)) }

        try Trip.withDirectory("plan-playback") { dir in
            try Self.gpx.write(to: dir.appendingPathComponent("walk.gpx"), atomically: true, encoding: .utf8)
            try """
                { "video": { "width": 640, "height": 360, "fps": 10 },
                  "tracks": [ { "file": "walk.gpx", "name": "Walk" } ],
                  "playback": { "speed": 60, "skipIdle": 300 } }
                """.write(to: dir.appendingPathComponent("scene.json"), atomically: true, encoding: .utf8)
            let result = try CLIProcess.run(["plan", "scene.json", "--json"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            let plan = try CLITests.object(result.stdout)
            let playback = try #require(plan["playback"] as? [String: Any])
            #expect(CLITests.number(playback["frames"]) == Double(frame + 1))
            let track = try #require((playback["tracks"] as? [[String: Any]])?.first)
            #expect(CLITests.number(track["points"]) == Double(Self.fixes.count))
            #expect(CLITests.number(track["seconds"]) == end)

            let planCuts = try #require(playback["cuts"] as? [[String: Any]])
            #expect(planCuts.count == cuts.count)
            for (c, e) in zip(planCuts, cuts) {
                #expect(c["from"] as? String == text(e.0) && c["to"] as? String == text(e.1), "\(c)")
                #expect(CLITests.number(c["seconds"]) == e.1 - e.0, "\(c)")
            }
            let stretches = try #require(playback["stretches"] as? [[String: Any]])
            #expect(stretches.count == bounds.count)
            for (s, (b, f)) in zip(stretches, zip(bounds, frames)) {
                #expect(s["from"] as? String == text(b.0) && s["to"] as? String == text(b.1), "\(s)")
                #expect(CLITests.number(s["startFrame"]) == Double(f.0) && CLITests.number(s["endFrame"]) == Double(f.1), "\(s)")
                #expect(CLITests.number(s["start"]) == Double(f.0) / fps && CLITests.number(s["end"]) == Double(f.1) / fps, "\(s)")
            }
        }
    }
}
