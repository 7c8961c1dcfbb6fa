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

/// Readouts on a place trip's track legs as `maptrip plan --json` lists them and as a render draws them:
/// the values of the leg flown, where its vehicle is (computed here from the GPX files' fixes), and the
/// panel on a decoded MP4 frame is the panel drawn with those values.
@Suite("Track leg readout renders")
struct TrackLegReadoutRenderTests {
    static let items = ["speed", "altitude", "distance", "elapsed", "heartRate", "cadence", "profile"]

    static func write(_ rides: TrackLegRides, size: (Int, Int), in dir: URL) throws -> URL {
        for (name, text) in rides.files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let url = dir.appendingPathComponent("trip.json")
        try rides.json(fps: 10, size: size, readouts: items).write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func planListsTheLegsValuesAtEachSampledFrame() throws {
        try Trip.withDirectory("leg-readouts-plan") { dir in
            let rides = TrackLegRides(seed: 6021)
            _ = try Self.write(rides, size: (640, 360), in: dir)
            let result = try CLIProcess.run(["plan", "trip.json", "--json"], in: dir)
            #expect(result.reason == .exit && result.status == 0, "\(result)")
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let readouts = try #require(plan["readouts"] as? [String: Any])
            #expect(readouts["items"] as? [String] == Self.items)
            #expect(readouts["track"] as? String == "first.gpx + second.gpx")
            let samples = try #require(readouts["samples"] as? [[String: Any]])
            // Every second of video from the first track leg's start (1 s), and the last frame (19 s at 10 fps).
            #expect(samples.map { $0["frame"] as? Int } == Array(stride(from: 10, to: 190, by: 10)) + [189])
            func number(_ s: [String: Any], _ key: String) throws -> Double { try #require((s[key] as? NSNumber)?.doubleValue, "\(key)") }
            for s in samples {
                let n = try #require(s["frame"] as? Int)
                let e = try #require(rides.expected(frame: n, fps: 10))
                #expect(abs(try number(s, "elapsed") - e.elapsed) < 1e-5, "frame \(n)")
                #expect(abs(try number(s, "km") - e.km) < 1e-5, "frame \(n): km \(s["km"] ?? "-") against \(e.km)")
                #expect(abs(try number(s, "kmh") - e.kmh) < 1e-3, "frame \(n): km/h \(s["kmh"] ?? "-") against \(e.kmh)")
                #expect(abs(try number(s, "altitude") - e.altitude!) < 1e-5, "frame \(n)")
                #expect(abs(try number(s, "heartRate") - e.heartRate!) < 1e-4, "frame \(n)")
                let text = try #require(s["text"] as? [String: String])
                #expect(text["distance"] == String(format: "%.2f km", e.km), "frame \(n)")
            }
            // Standing at the places and while the camera flies out and in: 0 km/h, not the ride's last speed.
            let speeds = samples.compactMap { ($0["kmh"] as? NSNumber)?.doubleValue }
            #expect(speeds.contains(0) && speeds.contains { $0 > 1 }, "\(speeds)")
            #expect(speeds.last == 0)
            let table = try CLIProcess.run(["plan", "trip.json"], in: dir)
            #expect(table.status == 0 && table.stdout.contains("readouts of first.gpx + second.gpx (metric): speed"), "\(table.stdout)")
        }
    }

    @Test func theDrawnPanelIsThePanelOfTheLegsValues() throws {
        try Trip.withDirectory("leg-readouts-render") { dir in
            // In the Sahara: plain land under the panel (coastlines under it are smeared by the encoder).
            let rides = TrackLegRides(seed: 6022, start: LonLat(lon: 12.5, lat: 24.5))
            let sceneURL = try Self.write(rides, size: (960, 540), in: dir)
            let (frames, timeline, renderer, box) = try ReadoutRenderTests.rendered(sceneURL)
            // Before the first track leg: no panel (the map's picture there differs from a panel's).
            var values = timeline.values(at: 5)
            values.readouts = ReadoutValues(elapsed: 0, km: 0, kmh: 0, altitude: 40, heartRate: 120, cadence: 80)
            try renderer.render(values)
            let area = Int((box.maxX - box.minX) * (box.maxY - box.minY))
            let hidden = ReadoutRenderTests.differing(frames[5], renderer.surface, in: box)
            print("track leg readouts frame 5: \(hidden) of \(area) panel pixels differ from a panel")
            #expect(hidden * 10 > area, "frame 5 shows a panel")
            // Mid first leg (by time), held after it, mid second leg (by distance).
            for n in [40, 100, 150] {
                try ReadoutRenderTests.expectPanel(frames[n], frame: n, try #require(rides.expected(frame: n, fps: 10)),
                                                   values: timeline.values(at: n), renderer: renderer, box: box, name: "leg-readouts")
            }
        }
    }
}
