import Foundation
import Testing
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTracks
import TestSupport

/// Scene-level `tracks` and `playback`: read through `TrackFileCheck`, their problems reported at their
/// JSON paths (a track file's own with its file and line).
@Suite("Playback in scenes")
struct PlaybackSceneTests {
    static let anna = TrackFixture.walk(seed: 61, count: 200, start: LonLat(lon: 24.94, lat: 60.17))
    static let ben = TrackFixture.walk(seed: 62, count: 150, start: LonLat(lon: 24.95, lat: 60.18))
    static let benStart = TrackFixture.start.addingTimeInterval(86_400 * 2 + 600)

    static func check(_ scene: String, files: [String: String]? = nil) throws -> SceneReport {
        try TrackLegSceneTests.check(scene, files: files ?? ["anna.gpx": anna.gpx, "ben.gpx": ben.gpx(start: benStart)])
    }

    @Test func tracksAndPlaybackAreRead() throws {
        let report = try Self.check("""
            { "tracks": [ { "file": "anna.gpx", "name": "Anna", "color": "#112233", "vehicle": "bike" },
                          { "file": "ben.gpx" } ],
              "playback": { "speed": 120, "skipIdle": 300, "clock": "HH:mm:ss", "start": "together" } }
            """)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let scene = try #require(report.scene)
        #expect(scene.places.isEmpty)
        #expect(scene.isPlayback)
        #expect(scene.tracks.count == 2)
        let anna = scene.tracks[0], ben = scene.tracks[1]
        #expect(anna.name == "Anna")
        #expect(anna.color == Color(hex: "#112233"))
        #expect(anna.vehicle == .icon(.bike))
        #expect(anna.geometry.points == Self.anna.points)
        #expect(anna.geometry.times == Self.anna.times)
        #expect(anna.geometry.start == TrackFixture.start)
        // Defaults: the file's name, the palette's next colour, no vehicle (a dot).
        #expect(ben.name == "ben")
        #expect(ben.color == PlaybackTrack.palette[1])
        #expect(ben.vehicle == .none)
        #expect(ben.geometry.start == Self.benStart)
        #expect(scene.playback == Playback(speed: 120, skipIdle: 300, clock: .seconds, start: .together))
    }

    @Test func placesAlongAPlaybackArePinnedStops() throws {
        let report = try Self.check("""
            { "tracks": [ { "file": "anna.gpx" } ], "places": [ { "name": "Cafe", "lat": 60.171, "lon": 24.941 } ] }
            """)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.scene?.places.map(\.name) == ["Cafe"])
        #expect(report.scene?.playback == Playback())
    }

    /// A GPX with `wpt` beside its `trk`, the waypoints written before the track as GPX 1.1 orders them.
    static func withWaypoints(_ gpx: String, _ waypoints: [(name: String?, at: LonLat)]) -> String {
        let wpts = waypoints.map { w in
            "<wpt lat=\"\(w.at.lat)\" lon=\"\(w.at.lon)\">" + (w.name.map { "<name>\($0)</name>" } ?? "") + "</wpt>"
        }
        return gpx.replacingOccurrences(of: "<trk>", with: wpts.joined(separator: "\n") + "\n<trk>")
    }

    @Test func aTracksWaypointsAreItsStopsWhenTheSceneListsNoPlaces() throws {
        let cafe = LonLat(lon: 24.9412, lat: 60.1713), unnamed = LonLat(lon: 24.9433, lat: 60.1702)
        let files = ["anna.gpx": Self.withWaypoints(Self.anna.gpx, [("Cafe", cafe), (nil, unnamed)]),
                     "ben.gpx": Self.withWaypoints(Self.ben.gpx(start: Self.benStart), [("Harbour", LonLat(lon: 24.96, lat: 60.185))])]
        let report = try Self.check("""
            { "tracks": [ { "file": "anna.gpx", "name": "Anna" }, { "file": "ben.gpx" } ] }
            """, files: files)
        #expect(report.errors.isEmpty, "\(report.errors)")
        let scene = try #require(report.scene)
        // In track order; one without a name takes its track's name and its number in the file.
        #expect(scene.places.map(\.name) == ["Cafe", "Anna 2", "Harbour"])
        #expect(scene.places.map(\.position) == [cafe, unnamed, LonLat(lon: 24.96, lat: 60.185)])
        #expect(scene.tracks[0].geometry.waypoints == [TrackWaypoint(name: "Cafe", position: cafe), TrackWaypoint(name: nil, position: unnamed)])
        // The line is the trk's alone: the waypoints are no points of it.
        #expect(scene.tracks[0].geometry.points == Self.anna.points)
        // Places the scene lists are its stops instead.
        let listed = try Self.check("""
            { "tracks": [ { "file": "anna.gpx" } ], "places": [ { "name": "Kiosk", "lat": 60.172, "lon": 24.942 } ] }
            """, files: files)
        #expect(listed.scene?.places.map(\.name) == ["Kiosk"])
    }

    @Test func aFileOfWaypointsOnlyIsAnErrorWhereALineIsNeeded() throws {
        let only = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="maptrip tests" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="60.17" lon="24.94"><name>A</name></wpt>
            <wpt lat="60.18" lon="24.95"/>
            </gpx>
            """
        for scene in [#"{ "tracks": [ { "file": "stops.gpx" } ] }"#,
                      #"{ "places": [ { "name": "Helsinki", "lat": 60.17, "lon": 24.94 }, { "name": "B", "lat": 60.18, "lon": 24.95, "track": "stops.gpx" } ] }"#] {
            let report = try Self.check(scene, files: ["stops.gpx": only])
            #expect(report.errors.count == 1, "\(report.errors)")
            let error = try #require(report.errors.first)
            #expect(error.message == "track stops.gpx: the file has 2 waypoints but no track points, and a track needs a line to follow", "\(error)")
            #expect(error.hint?.contains("\"places\"") == true)
        }
    }

    @Test func aClipOrPhotoOnAPlaybacksPlaceWarnsThatItIsNotShown() throws {
        let report = try Self.check("""
            { "tracks": [ { "file": "anna.gpx" } ],
              "places": [ { "name": "Cafe", "lat": 60.171, "lon": 24.941, "clip": "cafe.mp4" } ] }
            """, files: ["anna.gpx": Self.anna.gpx, "cafe.mp4": "(a video, unread: no video check is given here)"])
        let warning = report.warnings.first { $0.path == "places[0].clip" }
        #expect(warning?.message == "clip is not shown: a playback of tracks has no place cards", "\(report.warnings) \(report.errors)")
        #expect(warning?.line == 2)
        // The same place in a trip of places: a card, no warning.
        let places = try Self.check("""
            { "places": [ { "name": "Cafe", "lat": 60.171, "lon": 24.941, "clip": "cafe.mp4" } ] }
            """, files: ["cafe.mp4": "(a video, unread: no video check is given here)"])
        #expect(!places.warnings.contains { $0.path == "places[0].clip" }, "\(places.warnings)")
    }

    @Test func aTrackWithoutTimesIsAnErrorAtItsFile() throws {
        let untimed = TrackFixture.walk(seed: 63, count: 50, start: LonLat(lon: 24.94, lat: 60.17), timed: false)
        let scene = """
            { "tracks": [ { "file": "anna.gpx" }, { "file": "plain.gpx" } ] }
            """
        let report = try Self.check(scene, files: ["anna.gpx": Self.anna.gpx, "plain.gpx": untimed.gpx])
        #expect(report.errors.count == 1)
        let error = try #require(report.errors.first)
        #expect(error.path == "tracks[1].file")
        #expect(error.message.contains("playback needs times"), "\(error.message)")
        let at = try #require(position(of: "\"plain.gpx\"", in: scene))
        #expect((error.line, error.column) == (at.line, at.column))
    }

    @Test func aBrokenTrackNamesItsOwnLine() throws {
        var lines = Self.anna.gpx.components(separatedBy: "\n")
        let broken = try #require(lines.indices.filter { lines[$0].hasPrefix("<trkpt") }.dropFirst(6).first)
        lines[broken] = lines[broken].replacingOccurrences(of: "</trkpt>", with: "</trkseg>")
        let report = try Self.check("""
            { "tracks": [ { "file": "bad.gpx", "name": "Anna" } ] }
            """, files: ["bad.gpx": lines.joined(separator: "\n")])
        let error = try #require(report.errors.first)
        #expect(error.path == "tracks[0].file")
        #expect(error.message.hasPrefix("track bad.gpx:\(broken + 1):"), "\(error.message)")
        #expect(report.scene == nil)
    }

    @Test func badPlaybackValuesAreErrorsAtTheirPaths() throws {
        let cases: [(String, String, String)] = [
            (#"{ "tracks": [ { "file": "anna.gpx" } ], "playback": { "speed": 0 } }"#, "playback.speed", "speed"),
            (#"{ "tracks": [ { "file": "anna.gpx" } ], "playback": { "clock": "hh" } }"#, "playback.clock", "clock"),
            (#"{ "tracks": [ { "file": "anna.gpx" } ], "playback": { "start": "now" } }"#, "playback.start", "start"),
            (#"{ "tracks": [ { "file": "anna.gpx" } ], "playback": { "skipIdle": -5 } }"#, "playback.skipIdle", "skipIdle"),
            (#"{ "tracks": [ { "file": "anna.gpx" } ], "playback": { "timeZone": "Europe/Helsingfors" } }"#, "playback.timeZone", "Helsingfors"),
            (#"{ "tracks": [ { "name": "Anna" } ] }"#, "tracks[0]", "file"),
            (#"{ "tracks": [] }"#, "tracks", "tracks"),
            (#"{ "tracks": [ { "file": "gone.gpx" } ] }"#, "tracks[0].file", "gone.gpx"),
            (##"{ "tracks": [ { "file": "anna.gpx", "colour": "#fff" } ] }"##, "tracks[0].colour", "colour"),
        ]
        for (scene, path, word) in cases {
            let report = try Self.check(scene)
            #expect(report.errors.count == 1, "\(scene): \(report.errors)")
            let error = try #require(report.errors.first)
            #expect(error.path == path, "\(scene): \(error)")
            #expect(error.message.contains(word), "\(scene): \(error)")
            #expect(error.hint != nil, "\(scene): \(error)")
        }
    }

    @Test func aSceneNeedsPlacesOrTracks() throws {
        let report = try Self.check(#"{ "title": "x" }"#)
        #expect(report.errors.map(\.message) == ["missing required key 'places'"])
        #expect(report.errors.first?.hint?.contains("tracks") == true)
    }

    @Test func aTimeZoneIsAnIANANameOrAnOffset() throws {
        for (zone, expected) in [("Europe/Helsinki", ClockZone.named("Europe/Helsinki")), ("+02:00", .offset(7200)), ("UTC", .offset(0))] {
            let report = try Self.check(#"{ "tracks": [ { "file": "anna.gpx" } ], "playback": { "timeZone": "\#(zone)" } }"#)
            #expect(report.errors.isEmpty, "\(zone): \(report.errors)")
            #expect(report.scene?.playback.timeZone == expected)
        }
    }

    /// `gpx`'s UTC times ("...Z") written on a clock `seconds` east of UTC, as a file stating its offset.
    static func onLocalTime(_ gpx: String, _ seconds: Int) throws -> String {
        let utc = ISO8601DateFormatter(), local = ISO8601DateFormatter()
        local.timeZone = try #require(TimeZone(secondsFromGMT: seconds))
        let regex = try NSRegularExpression(pattern: "<time>([^<]+Z)</time>")
        let out = NSMutableString(string: gpx)
        for m in regex.matches(in: gpx, range: NSRange(gpx.startIndex..., in: gpx)).reversed() {
            let date = try #require(utc.date(from: out.substring(with: m.range(at: 1))))
            out.replaceCharacters(in: m.range(at: 1), with: local.string(from: date))
        }
        return out as String
    }

    /// Files on different clocks and no `playback.timeZone`: one warning at `tracks` naming each file's
    /// offset and the one the clock reads in (the followed track's); the scene's zone set: none.
    @Test func tracksOnDifferentClocksWarnWhichTheClockShows() throws {
        let files = ["anna.gpx": try Self.onLocalTime(Self.anna.gpx, 7200),
                     "ben.gpx": try Self.onLocalTime(Self.ben.gpx(start: Self.benStart), 19_800)]
        #expect(files["anna.gpx"]?.contains("+02:00</time>") == true)
        let tracks = #""tracks": [ { "file": "anna.gpx", "name": "Anna" }, { "file": "ben.gpx", "name": "Ben" } ]"#
        let followed = try Self.check(#"{ \#(tracks), "camera": { "follow": "Ben" } }"#, files: files)
        #expect(followed.errors.isEmpty, "\(followed.errors)")
        #expect(followed.scene?.tracks.map(\.geometry.utcOffset) == [7200, 19_800])
        #expect(followed.warnings.map(\.path) == ["tracks"])
        #expect(followed.warnings.first?.message == "the tracks' files state different time zones ('anna.gpx' UTC+2, "
            + "'ben.gpx' UTC+5:30): the clock reads in UTC+5:30, as 'ben.gpx' does")
        let first = try Self.check("{ \(tracks) }", files: files)
        #expect(first.warnings.map(\.message).contains { $0.hasSuffix("the clock reads in UTC+2, as 'anna.gpx' does") },
                "\(first.warnings)")
        let set = try Self.check(#"{ \#(tracks), "playback": { "timeZone": "Europe/Helsinki" } }"#, files: files)
        #expect(set.errors.isEmpty && set.warnings.isEmpty, "\(set.errors) \(set.warnings)")
        #expect(set.scene?.playback.clockZone(tracks: set.scene?.tracks ?? [], follow: 1) == ClockZone("Europe/Helsinki"))
    }
}
