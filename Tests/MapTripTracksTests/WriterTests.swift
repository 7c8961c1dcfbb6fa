import Foundation
import Testing
import MapTripTracks

/// Files written by independent writers (gpxpy, simplekml, fit-tool, Python's json) from seeded random
/// walks, read back: every position within 1e-6 degrees (FIT: a semicircle), every time to the second,
/// segments, names, waypoints and sensor values as written.
@Suite struct WriterTests {
    static let files = ["gpxpy.gpx", "simplekml.kml", "simplekml.kmz", "fit-tool.fit", "json.geojson"]

    /// The committed files, written with seed 59.
    @Test(arguments: files)
    func readsWhatTheWriterWrote(_ name: String) throws {
        try Self.compare(folder: Fixtures.url("written"), name)
    }

    /// The writers run again with another seed, where python3 has them (pip install gpxpy simplekml
    /// fit-tool): new files, the same agreement.
    @Test(.enabled(if: Fixtures.pythonWithWriters, "needs python3 with gpxpy, simplekml and fit-tool"))
    func readsFreshFilesFromTheWriters() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-tracks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../tools/track-fixtures.py")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script.standardizedFileURL.path, dir.path, "2026"]
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0)
        for name in Self.files { try compareFresh(dir, name) }
    }

    func compareFresh(_ dir: URL, _ name: String) throws { try Self.compare(folder: dir, name) }

    static func compare(folder: URL, _ name: String) throws {
        let all = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("expected.json"))) as? [String: Any])
        let expected = try #require(all[name] as? [String: Any])
        let reading = try TrackFile.read(contentsOf: folder.appendingPathComponent(name))
        #expect(reading.warnings.isEmpty, "\(reading.diagnostics)")
        let track = reading.track
        #expect(track.name == expected["name"] as? String)
        let segments = try #require(expected["segments"] as? [[[String: Any]]])
        #expect(track.segments.map(\.count) == segments.map(\.count), "\(name)")
        let tolerance = name.hasSuffix(".fit") ? 180.0 / 2_147_483_648.0 : 1e-6
        for (got, want) in zip(track.segments, segments) {
            for (p, q) in zip(got, want) {
                let lat = try #require(q["lat"] as? Double), lon = try #require(q["lon"] as? Double)
                #expect(abs(p.latitude - lat) <= tolerance && abs(p.longitude - lon) <= tolerance, "\(name): \(p) against \(q)")
                let time = (q["time"] as? String).map { ISO8601DateFormatter().date(from: $0) }
                #expect(p.time == time ?? nil, "\(name): \(p) against \(q)")
                if let ele = q["ele"] as? Double {
                    // FIT keeps altitude in fifths of a metre.
                    #expect(abs((p.altitude ?? .nan) - ele) <= (name.hasSuffix(".fit") ? 0.2 : 1e-9), "\(name)")
                }
                if name.hasSuffix(".gpx") || name.hasSuffix(".fit") { #expect(p.heartRate == q["hr"] as? Int) }
                if name.hasSuffix(".fit") {
                    #expect(p.cadence == q["cad"] as? Int && p.power == q["power"] as? Int)
                    #expect(abs((p.speed ?? .nan) - ((q["speed"] as? Double) ?? 0)) <= 0.001)
                }
            }
        }
        let waypoints = try #require(expected["waypoints"] as? [[String: Any]])
        #expect(track.waypoints.map(\.name) == waypoints.map { $0["name"] as? String })
        for (w, q) in zip(track.waypoints, waypoints) {
            #expect(abs(w.latitude - ((q["lat"] as? Double) ?? 0)) <= 1e-9 && abs(w.longitude - ((q["lon"] as? Double) ?? 0)) <= 1e-9)
        }
    }
}
