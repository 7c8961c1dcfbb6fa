import Cairo
import FFmpeg
import Foundation
import MapTripGeometry
import MapTripRecord
import MapTripRender
import MapTripScene
import MapTripTime
import Testing
import TestSupport

/// A playback's readouts as `maptrip plan --json` lists them and as a render draws them: the values are
/// the recording's at each frame's recorded time (computed here from the GPX's fixes), and the panel on
/// a decoded MP4 frame is the panel drawn with those values, not with wrong ones.
@Suite("Readout renders")
struct ReadoutRenderTests {
    static let items = ["speed", "altitude", "distance", "elapsed", "heartRate", "cadence", "profile"]

    /// The ride's GPX and a scene playing it back at `speed` with every readout, in `dir`.
    static func write(_ ride: RideFixture, speed: Double, size: (Int, Int), in dir: URL) throws -> URL {
        try ride.gpx().write(to: dir.appendingPathComponent("ride.gpx"), atomically: true, encoding: .utf8)
        let json = """
            { "video": { "width": \(size.0), "height": \(size.1), "fps": 10 },
              "tracks": [ { "file": "ride.gpx", "name": "Ride" } ], "playback": { "speed": \(JSONText.number(speed)) },
              "readouts": [ \(items.map { "\"\($0)\"" }.joined(separator: ", ")) ] }
            """
        let url = dir.appendingPathComponent("ride.json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func planListsTheRecordingsValuesAtEachSampledFrame() throws {
        try Trip.withDirectory("readouts-plan") { dir in
            let ride = RideFixture(seed: 5921, count: 200)
            let speed = 12.0
            _ = try Self.write(ride, speed: speed, size: (640, 360), in: dir)
            let result = try CLIProcess.run(["plan", "ride.json", "--json"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let readouts = try #require(plan["readouts"] as? [String: Any])
            #expect(readouts["items"] as? [String] == Self.items)
            #expect(readouts["track"] as? String == "Ride" && readouts["units"] as? String == "metric")
            let samples = try #require(readouts["samples"] as? [[String: Any]])
            let frames = try #require((plan["playback"] as? [String: Any])?["frames"] as? Int)
            // Every second of video, and the last frame.
            #expect(samples.map { $0["frame"] as? Int } == Array(stride(from: 0, to: frames, by: 10)) + [frames - 1])
            func number(_ s: [String: Any], _ key: String) throws -> Double { try #require((s[key] as? NSNumber)?.doubleValue, "\(key)") }
            for s in samples {
                let n = try #require(s["frame"] as? Int)
                // The playback's last frame shows the last fix.
                let e = ride.expected(at: n == frames - 1 ? ride.duration : Double(n) * speed / 10)
                #expect(abs(try number(s, "elapsed") - e.elapsed) < 1e-5, "frame \(n)")
                #expect(abs(try number(s, "km") - e.km) < 1e-5, "frame \(n): km \(s["km"] ?? "-") against \(e.km)")
                #expect(abs(try number(s, "kmh") - e.kmh) < 1e-3, "frame \(n): km/h \(s["kmh"] ?? "-") against \(e.kmh)")
                #expect(abs(try number(s, "altitude") - e.altitude!) < 1e-5, "frame \(n)")
                #expect(abs(try number(s, "heartRate") - e.heartRate!) < 1e-4, "frame \(n)")
                #expect(abs(try number(s, "cadence") - e.cadence!) < 1e-4, "frame \(n)")
                let text = try #require(s["text"] as? [String: String])
                #expect(text["heartRate"] == "\(Int(e.heartRate!.rounded())) bpm", "frame \(n)")
                #expect(text["distance"] == String(format: "%.2f km", e.km), "frame \(n)")
            }
            // The text plan shows them too.
            let table = try CLIProcess.run(["plan", "ride.json"], in: dir)
            #expect(table.status == 0 && table.stdout.contains("readouts of Ride (metric): speed, altitude, distance"), "\(table.stdout)")
        }
    }

    @Test func planShowsAFITFilesSensorsAsItsWriterWroteThem() throws {
        // fit-tool's file (MapTripTracksTests' fixtures) and the values it was written with.
        let written = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../MapTripTracksTests/Fixtures/written").standardizedFileURL
        let all = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: written.appendingPathComponent("expected.json")))
                               as? [String: Any])
        let fixes = try #require((all["fit-tool.fit"] as? [String: Any])?["segments"] as? [[[String: Any]]]).flatMap { $0 }
        let iso = ISO8601DateFormatter()
        let stamps = try fixes.map { try #require(($0["time"] as? String).flatMap(iso.date(from:))) }
        let walk = TrackFixture(points: try fixes.map { LonLat(lon: try #require($0["lon"] as? Double), lat: try #require($0["lat"] as? Double)) },
                                times: stamps.map { $0.timeIntervalSince(stamps[0]) })
        func channel(_ key: String) -> [Double?] { fixes.map { ($0[key] as? NSNumber)?.doubleValue } }
        let ride = RideFixture(walk: walk, altitudes: channel("ele"), heartRates: channel("hr"), cadences: channel("cad"),
                               powers: channel("power"))
        try Trip.withDirectory("readouts-fit") { dir in
            try FileManager.default.copyItem(at: written.appendingPathComponent("fit-tool.fit"), to: dir.appendingPathComponent("ride.fit"))
            let json = """
                { "video": { "width": 640, "height": 360, "fps": 10 }, "tracks": [ { "file": "ride.fit" } ],
                  "playback": { "speed": 30 }, "readouts": [ "distance", "altitude", "heartRate", "cadence", "power" ] }
                """
            try json.write(to: dir.appendingPathComponent("fit.json"), atomically: true, encoding: .utf8)
            let result = try CLIProcess.run(["plan", "fit.json", "--json"], in: dir)
            #expect(result.status == 0, "\(result)")
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let samples = try #require((plan["readouts"] as? [String: Any])?["samples"] as? [[String: Any]])
            let frames = try #require((plan["playback"] as? [String: Any])?["frames"] as? Int)
            #expect(samples.count > 10)
            func number(_ s: [String: Any], _ key: String) throws -> Double { try #require((s[key] as? NSNumber)?.doubleValue, "\(key)") }
            for s in samples {
                let n = try #require(s["frame"] as? Int)
                let e = ride.expected(at: n == frames - 1 ? ride.duration : Double(n) * 30 / 10)
                // FIT keeps positions in semicircles (1 cm) and altitude in fifths of a metre.
                #expect(abs(try number(s, "km") - e.km) < 1e-4, "frame \(n)")
                #expect(abs(try number(s, "altitude") - e.altitude!) <= 0.2, "frame \(n)")
                #expect(abs(try number(s, "heartRate") - e.heartRate!) < 1e-4, "frame \(n)")
                #expect(abs(try number(s, "cadence") - e.cadence!) < 1e-4, "frame \(n)")
                #expect(abs(try number(s, "power") - e.power!) < 1e-4, "frame \(n)")
            }
        }
    }

    /// The panel's pixels that differ by more than 48 in a channel between a decoded frame and a surface.
    static func differing(_ image: BGRAImage, _ surface: ImageSurface, in box: Box) -> Int {
        surface.flush()
        let data = surface.data, stride = surface.stride
        var count = 0
        for y in Int(box.minY)..<Int(box.maxY) {
            for x in Int(box.minX)..<Int(box.maxX) {
                let p = image.pixel(x: x, y: y), q = data + y * stride + x * 4
                if max(abs(Int(p.b) - Int(q[0])), abs(Int(p.g) - Int(q[1])), abs(Int(p.r) - Int(q[2]))) > 48 { count += 1 }
            }
        }
        return count
    }

    @Test(arguments: [(960, 540), (540, 960)])
    func theDrawnPanelIsThePanelOfTheRecordingsValues(size: (Int, Int)) throws {
        try Trip.withDirectory("readouts-render") { dir in
            let ride = RideFixture(seed: 5922, count: 120)
            let speed = 40.0
            let sceneURL = try Self.write(ride, speed: speed, size: size, in: dir)
            let (frames, timeline, renderer, box) = try Self.rendered(sceneURL)
            #expect(box.minX >= renderer.layout.safe.minX && box.maxX <= renderer.layout.safe.maxX + 1
                    && box.minY >= renderer.layout.safe.minY && box.maxY <= renderer.layout.safe.maxY + 1)
            for n in [timeline.frameCount / 3, 2 * timeline.frameCount / 3] {
                try Self.expectPanel(frames[n], frame: n, ride.expected(at: Double(n) * speed / 10), values: timeline.values(at: n),
                                     renderer: renderer, box: box, name: "readouts-\(size.0)x\(size.1)")
            }
        }
    }

    /// The scene rendered to an MP4 beside it and decoded; its timeline, a renderer of its frames, and
    /// where its readout panel sits.
    static func rendered(_ sceneURL: URL) throws -> (frames: [BGRAImage], timeline: Timeline, renderer: FrameRenderer, box: Box) {
        LibraryLogging.configure(verbose: false)
        let out = sceneURL.deletingPathExtension().appendingPathExtension("mp4")
        _ = try RenderJob(scene: sceneURL, output: out, environment: RenderEnvironment(assets: Trip.assets)).run()
        let frames = try Trip.decode(out).frames
        let scene = try SceneLoader.loadForRender(contentsOf: sceneURL)
        let timeline = Timeline(scene: scene)
        #expect(frames.count == timeline.frameCount)
        let renderer = try FrameRenderer(scene: scene, baseMap: try ShapefileBaseMap(assets: Trip.assets))
        return (frames, timeline, renderer, try #require(renderer.layout.readoutBox(scene.shownReadouts)))
    }

    /// Frame n's decoded panel against the panel drawn with the expected values (within 1 in 200 of its
    /// pixels) and with values a few units wrong each (other digits, a mark elsewhere on the profile).
    static func expectPanel(_ decoded: BGRAImage, frame n: Int, _ e: RideFixture.Expected, values: FrameValues,
                            renderer: FrameRenderer, box: Box, name: String) throws {
        var values = values
        values.readouts = ReadoutValues(elapsed: e.elapsed, km: e.km, kmh: e.kmh, altitude: e.altitude,
                                        heartRate: e.heartRate, cadence: e.cadence)
        try renderer.render(values)
        let right = differing(decoded, renderer.surface, in: box)
        Trip.dump(decoded, "\(name)-\(n)")
        values.readouts = ReadoutValues(elapsed: e.elapsed + 7, km: e.km + 0.31, kmh: e.kmh + 3.3,
                                        altitude: e.altitude.map { $0 + 4 }, heartRate: e.heartRate.map { $0 + 6 },
                                        cadence: e.cadence.map { $0 + 5 })
        try renderer.render(values)
        let wrong = differing(decoded, renderer.surface, in: box)
        let area = Int((box.maxX - box.minX) * (box.maxY - box.minY))
        print("\(name) frame \(n): \(right) of \(area) panel pixels differ from the expected panel, \(wrong) from a wrong one")
        #expect(right * 200 < area, "frame \(n): \(right) of \(area) panel pixels differ from the expected panel")
        #expect(wrong > 8 * max(right, 5), "frame \(n): a wrong panel differs in \(wrong) pixels, the right one \(right)")
    }
}
