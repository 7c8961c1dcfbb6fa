import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTracks
import TestSupport

/// A place's leg that follows a recording (`"track"`): read through `TrackFileCheck`, its points and
/// times carried by the scene, its problems reported where the scene names it.
@Suite("Track legs in scenes")
struct TrackLegSceneTests {
    /// Writes `scene` and the named files into a fresh folder and checks the scene as `validate` does.
    static func check(_ scene: String, files: [String: String]) throws -> SceneReport {
        try TemporaryFolder.with("track-legs") { dir in
            for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
            let url = dir.appendingPathComponent("trip.json")
            try scene.write(to: url, atomically: true, encoding: .utf8)
            return SceneLoader.check(contentsOf: url, tracks: TrackFileCheck())
        }
    }

    static let walk = TrackFixture.walk(seed: 59, count: 240, start: LonLat(lon: 24.94, lat: 60.17))

    @Test func aPlaceWithOnlyATrackSitsAtItsLastPoint() throws {
        let report = try Self.check("""
            { "places": [ { "name": "Start", "lat": 60.17, "lon": 24.94 },
                          { "track": "ride.gpx", "pace": "recorded" } ] }
            """, files: ["ride.gpx": Self.walk.gpx])
        #expect(report.errors.isEmpty, "\(report.errors)")
        let place = try #require(report.scene?.places.last)
        let leg = try #require(place.track)
        #expect(leg.file == "ride.gpx")
        #expect(leg.pace == .recorded)
        // Both segments, joined in order, as written.
        #expect(leg.geometry.points == Self.walk.points)
        #expect(leg.geometry.times == Self.walk.times)
        #expect(place.position == Self.walk.points.last)
        #expect(place.name == "Place 2")
    }

    @Test func aTrackAndAPositionMayDisagree() throws {
        let report = try Self.check("""
            { "places": [ { "name": "Start", "lat": 60.17, "lon": 24.94 },
                          { "name": "Porvoo", "lat": 60.39, "lon": 25.66, "track": "ride.gpx" } ] }
            """, files: ["ride.gpx": Self.walk.gpx])
        #expect(report.errors.isEmpty, "\(report.errors)")
        let place = try #require(report.scene?.places.last)
        #expect(place.position == LonLat(lon: 25.66, lat: 60.39))
        #expect(place.track?.pace == .distance)
        #expect(place.track?.geometry.points.count == Self.walk.points.count)
    }

    @Test func aMissingTrackIsAnErrorAtItsPath() throws {
        let scene = """
            { "places": [ { "lat": 60.17, "lon": 24.94 },
                          { "track": "gone.gpx" } ] }
            """
        let report = try Self.check(scene, files: [:])
        let error = try #require(report.errors.first)
        #expect(report.errors.count == 1)
        #expect(error.path == "places[1].track")
        #expect(error.message == "track file 'gone.gpx' not found")
        let at = try #require(position(of: "\"gone.gpx\"", in: scene))
        #expect((error.line, error.column) == (at.line, at.column))
    }

    @Test func anUnreadableTrackNamesItsOwnLine() throws {
        // The XML breaks on the line of the 5th point.
        var lines = Self.walk.gpx.components(separatedBy: "\n")
        let broken = try #require(lines.indices.filter { lines[$0].hasPrefix("<trkpt") }.dropFirst(4).first)
        lines[broken] = lines[broken].replacingOccurrences(of: "</trkpt>", with: "</trkseg>")
        let report = try Self.check("""
            { "places": [ { "lat": 60.17, "lon": 24.94 }, { "track": "bad.gpx" } ] }
            """, files: ["bad.gpx": lines.joined(separator: "\n")])
        let error = try #require(report.errors.first)
        #expect(error.path == "places[1].track")
        // The track file as the scene names it, and the line (from 1) the break is on.
        #expect(error.message.hasPrefix("track bad.gpx:\(broken + 1):"), "\(error.message)")
        #expect(report.scene == nil)
    }

    @Test func recordedPaceNeedsTimes() throws {
        let untimed = TrackFixture.walk(seed: 7, count: 50, start: LonLat(lon: 24.94, lat: 60.17), timed: false)
        let scene = """
            { "places": [ { "lat": 60.17, "lon": 24.94 }, { "track": "ride.gpx", "pace": "recorded" } ] }
            """
        let report = try Self.check(scene, files: ["ride.gpx": untimed.gpx])
        let error = try #require(report.errors.first)
        #expect(report.errors.count == 1)
        #expect(error.path == "places[1].pace")
        #expect(error.message.contains("needs times"), "\(error.message)")
        // By distance, the same track is fine.
        let byDistance = try Self.check(scene.replacingOccurrences(of: "recorded", with: "distance"),
                                        files: ["ride.gpx": untimed.gpx])
        #expect(byDistance.errors.isEmpty, "\(byDistance.errors)")
        #expect(byDistance.scene?.places[1].track?.geometry.times == nil)
    }

    @Test func theFirstPlaceHasNoLegToFollow() throws {
        let report = try Self.check("""
            { "places": [ { "track": "ride.gpx" }, { "lat": 60.17, "lon": 24.94 } ] }
            """, files: ["ride.gpx": Self.walk.gpx])
        #expect(report.errors.map(\.path) == ["places[0].track"])
    }

    @Test func withoutAReaderATrackIsAnError() throws {
        let error = try #require(decodeErrors("""
            { "places": [ { "lat": 60.17, "lon": 24.94 }, { "track": "ride.gpx" } ] }
            """).first)
        // Not on disk: the file is looked for beside trip.json (here, the working folder).
        #expect(error.path == "places[1].track")
    }
}
