import FFmpeg
import Foundation
import Testing
import TestSupport
import TileServerFixture

/// The table of bad inputs and faults (#10): each row is a kind of bad input, the command that meets
/// it, and the exact exit status and message maptrip gives. `docs/errors.md` is made from these rows
/// (run with MAPTRIP_WRITE_DOCS=1 to write it), and every row runs as a test: the status, the one-line
/// message, no output left behind, an existing output unchanged byte for byte.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var group: String
    /// What is wrong, as the table says it.
    var what: String
    /// Files written into an empty folder before the command runs (name: bytes).
    var files: [String: [UInt8]]
    /// `maptrip` and its arguments, run in that folder.
    var arguments: [String]
    var status: Int32 = 1
    /// The whole of standard error.
    var message: String
    /// The output the command would write (checked absent, or unchanged when it existed before).
    var output: String? = "out.mp4"
    /// A fault arranged around the command.
    var fault: Fault = .none

    enum Fault: Sendable {
        case none
        /// Run as an unprivileged user (`nobody`, through setpriv, when the tests run as root), with
        /// these modes set on files ("." is the folder).
        case unprivileged([String: Int])
        /// The folder is a tmpfs of this many KB (needs root to mount; skipped otherwise).
        case diskFull(kilobytes: Int)
        /// This sub-folder is removed once the render's temporary file is in it.
        case folderRemovedMidRender(String)
        /// This SQLite database is held in an exclusive transaction by another process while the
        /// command runs (Python's sqlite3, as a program writing the file would).
        case lockedDatabase(String)
        /// Special files made beside the files: name to "fifo" (a FIFO no one writes to) or to the
        /// path a symbolic link points at (`/dev/zero`).
        case special([String: String])
        /// Files the row's tile server serves under /files/, /swap/ and /cycle/ (name: bytes).
        case served([String: [UInt8]])
    }

    var testDescription: String { "\(group): \(what)" }

    /// Rows that meet a tile server: `<server>` in files, arguments and message stands for the test
    /// tile server's address (Tests/TileServerFixture), started for the row.
    var needsServer: Bool { files.values.contains { String(decoding: $0, as: UTF8.self).contains("<server>") } }
    /// Whether the row's fault is a full disk (a tmpfs mounted for it).
    var needsTmpfs: Bool { if case .diskFull = fault { true } else { false } }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The bytes of an SQLite database made by `sql` (with the sqlite3 module of Python's standard library).
    static func sqlite(_ sql: String) -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-\(UUID().uuidString).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.close()", path, sql]
        try? p.run()
        p.waitUntilExit()
        return (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
    }
    static let place = #"{ "lat": 37.5665, "lon": 126.978 }"#
    static func scene(_ places: String = place, _ extra: String = "") -> [UInt8] {
        text("{\(extra) \"places\": [ \(places) ] }")
    }
    /// A row whose scene draws on `map.mbtiles`, a file of these bytes.
    static func mbtiles(_ what: String, _ file: [UInt8], message: String, fault: Fault = .none) -> ErrorCase {
        ErrorCase(group: "Map: tiles and projection", what: what,
                  files: ["scene.json": scene(place, #" "map": { "tiles": "map.mbtiles" },"#), "map.mbtiles": file],
                  arguments: render(), message: message, fault: fault)
    }
    static func render(_ scene: String = "scene.json", _ more: String...) -> [String] {
        ["render", scene, "-o", "out.mp4"] + more
    }

    static let all: [ErrorCase] = scenes + baseMapData + tiles + vectorTiles + tileServers + media + clips + audio + voices + outputsAndOptions + outputFaults + tracks
        + camera + readouts + looks + furniture + photos

    /// The scale bar, north arrow and watermark (`scaleBar`, `northArrow`, `watermark`).
    static let furniture: [ErrorCase] = [
        ErrorCase(group: "Map furniture", what: "A watermark that is not there",
                  files: ["scene.json": scene(place, #" "watermark": { "file": "logo.png" },"#)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:26: watermark.file: watermark 'logo.png' not found (paths are relative to the scene's folder (.))"#),
        ErrorCase(group: "Map furniture", what: "A watermark named .svg that is not SVG",
                  files: ["scene.json": scene(place, #" "watermark": "logo.svg","#), "logo.svg": text("not an svg\n")], arguments: render(),
                  message: #"maptrip: error: scene.json:1:16: watermark: watermark 'logo.svg' cannot be used: rsvg: cannot parse SVG: XML parse error: Error domain 1 code 4 on line 1 column 1 of data: Start tag expected, '<' not found (fix the SVG, or use a PNG, JPEG or WebP image)"#),
        ErrorCase(group: "Map furniture", what: "A north arrow that is neither a switch, \"auto\" nor an object",
                  files: ["scene.json": scene(place, #" "northArrow": "yes","#)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:17: northArrow: unknown northArrow 'yes' (use true, false or "auto", or an object)"#),
        ErrorCase(group: "Map furniture", what: "A scale bar given as a number",
                  files: ["scene.json": scene(place, #" "scaleBar": 1,"#)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:15: scaleBar: expected true, false or an object, found a number (a scale bar is true, or { "corner": "bottom-left", "units": "metric" })"#),
        ErrorCase(group: "Map furniture", what: "A scale bar in units maptrip does not know",
                  files: ["scene.json": scene(place, #" "scaleBar": { "units": "nautical" },"#)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:26: scaleBar.units: unknown units 'nautical' (use "metric" (m, km) or "imperial" (ft, mi))"#),
    ]

    /// A recording with a time at each of its two points.
    static let timedRide = gpx(#"<trk><trkseg><trkpt lat="37.6" lon="127"><time>2024-01-01T00:00:00Z</time></trkpt>"#
                               + #"<trkpt lat="37.7" lon="127.1"><time>2024-01-01T01:00:00Z</time></trkpt></trkseg></trk>"#)

    /// The directed camera (`camera`: follow, keyframes; docs/tracks.md).
    static let camera: [ErrorCase] = [
        ErrorCase(group: "The camera", what: "Following a mover no track is named",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx", "name": "Anna" } ], "camera": { "follow": "Ana" } }"#),
                          "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:79: camera.follow: no track is named 'Ana' (did you mean 'Anna'?)"#),
        ErrorCase(group: "The camera", what: "Following a mover in a scene without tracks",
                  files: ["scene.json": scene(place, #" "camera": { "follow": "Anna" },"#)],
                  arguments: render(), message: #"maptrip: error: scene.json:1:25: camera.follow: follow needs a playback, and the scene has no tracks (add "tracks": [ { "file": "ride.gpx", "name": "Anna" } ])"#),
        ErrorCase(group: "The camera", what: "Keyframes out of time order",
                  files: ["scene.json": scene(place, #" "camera": { "keyframes": [ { "t": 2, "lon": 127, "lat": 37, "zoom": 5 }, { "t": 1 } ] },"#)],
                  arguments: render(), message: #"maptrip: error: scene.json:1:83: camera.keyframes[1].t: keyframes must be in time order: t 1 is not after the keyframe before's 2 (sort the keyframes by t)"#),
        ErrorCase(group: "The camera", what: "A keyframe beyond the trip's end",
                  files: ["scene.json": scene(place, #" "camera": { "keyframes": [ { "t": 0, "lon": 127, "lat": 37, "zoom": 5 }, { "t": 4 } ] },"#)],
                  arguments: render(), message: #"maptrip: error: scene.json:1:83: camera.keyframes[1].t: t 4 is beyond the trip's end: its last frame is at 2.967 s (move the keyframe, or lengthen the trip with longer dwells or an outro)"#),
    ]

    /// A playback's readouts (`readouts`, `units`; README "Readouts").
    static let readouts: [ErrorCase] = [
        ErrorCase(group: "Readouts", what: "Readouts in a scene without tracks",
                  files: ["scene.json": scene(place, #" "readouts": [ "speed" ],"#)],
                  arguments: render(), message: #"maptrip: error: scene.json:1:15: readouts: readouts measure a recorded track, and the scene has no tracks and no track legs (add "tracks": [ { "file": "ride.gpx" } ] or "track" on a place, or remove "readouts")"#),
        ErrorCase(group: "Readouts", what: "Readouts of a mover no track is named",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx", "name": "Ben" } ], "readouts": { "mover": "Anna", "items": [ "speed" ] } }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:79: readouts.mover: no track is named 'Anna' (the tracks are named 'Ben')"#),
        ErrorCase(group: "Readouts", what: "A playback offset past the recording's end",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx" } ], "playback": { "offset": 3600 } }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:65: playback.offset: offset 3600 skips the whole recording: it lasts 3600 s (give fewer seconds than that)"#),
        ErrorCase(group: "Readouts", what: "A clock in a time zone that does not exist",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx" } ], "playback": { "timeZone": "Europe/Helsingfors" } }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:67: playback.timeZone: unknown time zone 'Europe/Helsingfors' (use a zone of the IANA database such as "Europe/Helsinki", or an offset from UTC such as "+02:00")"#),
        ErrorCase(group: "Readouts", what: "A readout maptrip does not know",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx" } ], "readouts": [ "speed", "hr" ] }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:64: readouts[1]: unknown readout 'hr' (use "speed", "altitude", "distance", "elapsed", "heartRate", "cadence", "power" or "profile")"#),
        ErrorCase(group: "Readouts", what: "Units that are neither metric nor imperial",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx" } ], "readouts": [ "speed" ], "units": "nautical" }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:75: units: unknown units 'nautical' (use "metric" or "imperial")"#),
    ]

    /// A FIT file of MapTripTracksTests' fixtures (python-fitparse's test files).
    static func fitFixture(_ name: String) -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../MapTripTracksTests/Fixtures/fit/" + name)
        return (try? Data(contentsOf: url.standardizedFileURL)).map { [UInt8]($0) } ?? []
    }
    static func gpx(_ body: String) -> [UInt8] {
        text("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\">\n" + body + "\n</gpx>\n")
    }
    static let trackHint = " (maptrip reads GPX, TCX, FIT, KML, KMZ and GeoJSON)"

    static func looksScene(_ extra: String) -> [UInt8] { text(#"{ "tracks": [ { "file": "ride.gpx" } ], "# + extra + " }") }

    /// Route colours, background tracks and privacy zones (README: Route colours, background tracks and privacy zones).
    static let looks: [ErrorCase] = [
        ErrorCase(group: "Route looks", what: "A privacy zone of radius 0",
                  files: ["scene.json": looksScene(#""privacy": [ { "lat": 37.6, "lon": 127, "radius": 0 } ]"#), "ride.gpx": timedRide],
                  arguments: render(), message: "maptrip: error: scene.json:1:91: privacy[0].radius: radius must be greater than 0 and at most 100000, found 0 (metres, such as 500)"),
        ErrorCase(group: "Route looks", what: "An empty palette name",
                  files: ["scene.json": looksScene(#""route": { "colorBy": "speed", "palette": "" }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:83: route.palette: unknown palette '' (use "viridis", "magma" or "redBlue")"#),
        ErrorCase(group: "Route looks", what: "A background track that is not there",
                  files: ["scene.json": looksScene(#""backgroundTracks": [ "last-year.gpx" ]"#), "ride.gpx": timedRide],
                  arguments: render(), message: "maptrip: error: scene.json:1:63: backgroundTracks[0]: track file 'last-year.gpx' not found (give a GPX, TCX, FIT, KML, KMZ or GeoJSON file, relative to the scene's folder)"),
        ErrorCase(group: "Route looks", what: "A route coloured by elevation over a track without heights",
                  files: ["scene.json": looksScene(#""route": { "colorBy": "elevation" }"#), "ride.gpx": timedRide],
                  arguments: render(), message: #"maptrip: error: scene.json:1:25: tracks[0].file: track 'ride.gpx' has no altitudes, and the route is coloured by elevation (use a recording with altitudes, or another "colorBy")"#),
        ErrorCase(group: "Route looks", what: "A colour range with its ends swapped",
                  files: ["scene.json": looksScene(#""route": { "colorBy": "speed", "range": [40, 0] }"#), "ride.gpx": timedRide],
                  arguments: render(), message: "maptrip: error: scene.json:1:81: route.range: range must be two numbers, the lower first, such as [0, 40] (the values at the palette's ends, in the scene's units)"),
    ]

    /// Photos along a playback's track (`photos`: a folder of JPEGs placed by their EXIF).
    static let photos: [ErrorCase] = [
        ErrorCase(group: "Photos along a track", what: "A photos folder that is not there",
                  files: ["scene.json": looksScene(#""photos": "holiday/""#), "ride.gpx": timedRide], arguments: render(),
                  message: "maptrip: error: scene.json:1:51: photos: photos folder 'holiday/' not found (give a folder of JPEG photos, relative to the scene's folder)"),
        ErrorCase(group: "Photos along a track", what: "A photos folder without a JPEG",
                  files: ["scene.json": looksScene(#""photos": "holiday/""#), "ride.gpx": timedRide, "holiday/notes.txt": text("notes\n")],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:51: photos: photos folder 'holiday/' holds no JPEG photo (.jpg, .jpeg) (put the trip's photos there, or name the folder that has them)"),
        ErrorCase(group: "Photos along a track", what: "A photo whose EXIF libexif refuses (libexif's message)",
                  files: ["scene.json": looksScene(#""photos": { "folder": "holiday/" }"#), "ride.gpx": timedRide,
                          // An APP1 block whose TIFF byte order is "XX".
                          "holiday/a.jpg": [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10] + Array("Exif".utf8) + [0, 0] + Array("XX".utf8)
                              + [0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0xFF, 0xD9]],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:63: photos.folder: photo 'holiday/a.jpg': its EXIF cannot be read (Unknown encoding.) (save it again from a photo editor with its metadata, or move it out of the folder)"),
        ErrorCase(group: "Photos along a track", what: "Photos in a scene without tracks",
                  files: ["scene.json": scene(place, #" "photos": "holiday/","#)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:13: photos: photos are placed along a recording, and the scene has no tracks (add "tracks": [ { "file": "ride.gpx" } ], or remove "photos")"#),
    ]

    /// Recorded tracks, as `maptrip track` reads them (docs/tracks.md).
    static let tracks: [ErrorCase] = [
        ErrorCase(group: "Recorded tracks", what: "A place's track that is not there",
                  files: ["scene.json": scene(place + #", { "track": "ride.gpx" }"#)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:62: places[1].track: track file 'ride.gpx' not found (give a GPX, TCX, FIT, KML, KMZ or GeoJSON file, relative to the scene's folder)"#),
        ErrorCase(group: "Recorded tracks", what: "A place's track that does not read (its own line named)",
                  files: ["scene.json": scene(place + #", { "track": "ride.gpx" }"#),
                          "ride.gpx": text("<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">")], arguments: render(),
                  message: #"maptrip: error: scene.json:1:62: places[1].track: track ride.gpx:3:24: the XML is not well-formed: the document ends before its elements are closed (the file may be cut short or not XML at all; export it again)"#),
        ErrorCase(group: "Recorded tracks", what: "A place's track at recorded pace without times",
                  files: ["scene.json": scene(place + #", { "track": "ride.gpx", "pace": "recorded" }"#),
                          "ride.gpx": gpx("<trk><trkseg><trkpt lat=\"37.6\" lon=\"127\"/><trkpt lat=\"37.7\" lon=\"127.1\"/></trkseg></trk>")],
                  arguments: render(), message: #"maptrip: error: scene.json:1:82: places[1].pace: pace "recorded" needs times, and track 'ride.gpx' has a point without one (use "pace": "distance", or a recording with a time at every point)"#),
        ErrorCase(group: "Recorded tracks", what: "A track on the first place (no leg arrives there)",
                  files: ["scene.json": scene(#"{ "track": "ride.gpx" }, "# + place),
                          "ride.gpx": gpx("<trk><trkseg><trkpt lat=\"37.6\" lon=\"127\"/></trkseg></trk>")],
                  arguments: render(), message: #"maptrip: error: scene.json:1:26: places[0].track: the first place has no leg arriving to follow a track (put "track" on the place the recording leads to; the first place is where it starts)"#),
        ErrorCase(group: "Recorded tracks", what: "A played-back track without times",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx" } ] }"#),
                          "ride.gpx": gpx("<trk><trkseg><trkpt lat=\"37.6\" lon=\"127\"/><trkpt lat=\"37.7\" lon=\"127.1\"/></trkseg></trk>")],
                  arguments: render(), message: #"maptrip: error: scene.json:1:25: tracks[0].file: track 'ride.gpx' has a point without a time, and playback needs times (use a recording with a time at every point, or follow it as a place's leg ("places": [..., { "track": "ride.gpx" }]))"#),
        ErrorCase(group: "Recorded tracks", what: "A played-back track file of waypoints only (no line to follow)",
                  files: ["scene.json": text(#"{ "tracks": [ { "file": "ride.gpx" } ] }"#),
                          "ride.gpx": gpx("<wpt lat=\"37.6\" lon=\"127\"><name>Cafe</name></wpt>")],
                  arguments: render(), message: #"maptrip: error: scene.json:1:25: tracks[0].file: track ride.gpx: the file has 1 waypoint but no track points, and a track needs a line to follow (export the recording with its trk or rte, or list the waypoints as "places" of the scene)"#),
        ErrorCase(group: "Recorded tracks", what: "A track file that is not there", files: [:], arguments: ["track", "ride.gpx"],
                  message: "maptrip: error: ride.gpx: no such file (check the file's name and folder)", output: nil),
        ErrorCase(group: "Recorded tracks", what: "A CSV file named .gpx (formats are recognised by content)", files: ["ride.gpx": text("lat,lon\n1,2\n")],
                  arguments: ["track", "ride.gpx"],
                  message: #"maptrip: error: ride.gpx: not a track file: its first bytes "lat,lon.1,2." are those of no GPX, TCX, FIT, KML, KMZ or GeoJSON file"# + trackHint,
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A GPX file cut short (XML not well-formed)",
                  files: ["ride.gpx": text("<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">")], arguments: ["track", "ride.gpx"],
                  message: "maptrip: error: ride.gpx:3:24: the XML is not well-formed: the document ends before its elements are closed (the file may be cut short or not XML at all; export it again)",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A GPX trkpt without lon", files: ["ride.gpx": gpx("<trk><trkseg><trkpt lat=\"1\"/></trkseg></trk>")],
                  arguments: ["track", "ride.gpx"],
                  message: "maptrip: error: ride.gpx:3:28: <trkpt> has no lon attribute (every trkpt needs lat and lon attributes in degrees)",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A GPX time that is not ISO 8601",
                  files: ["ride.gpx": gpx("<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>01/05/2024 09:30</time></trkpt></trkseg></trk>")],
                  arguments: ["track", "ride.gpx"],
                  message: #"maptrip: error: ride.gpx:3:42: time "01/05/2024 09:30" is not an ISO 8601 date and time (write it as 2024-05-01T09:30:00Z)"#,
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A GPX file with no points", files: ["ride.gpx": gpx("<trk><name>empty</name></trk>")],
                  arguments: ["track", "ride.gpx"],
                  message: "maptrip: error: ride.gpx: no track points: the file has no trkpt, rtept or wpt with a position (export the recording again as a track)",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "KML coordinates that are not lon,lat",
                  files: ["flight.kml": text("<kml><Placemark><LineString>\n<coordinates>1,2 3;4</coordinates></LineString></Placemark></kml>")],
                  arguments: ["track", "flight.kml"],
                  message: #"maptrip: error: flight.kml:2:13: coordinates "3;4" is not longitude,latitude[,altitude] (KML writes each position as lon,lat or lon,lat,alt, positions separated by spaces)"#,
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A KMZ that is a damaged ZIP", files: ["flight.kmz": [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 7, count: 40)],
                  arguments: ["track", "flight.kmz"],
                  message: "maptrip: error: flight.kmz: a damaged ZIP file (libzip: not a zip archive) (a KMZ is a ZIP archive with a .kml inside: export it again)",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "GeoJSON with a trailing comma", files: ["walk.geojson": text("{\"type\": \"LineString\",\n \"coordinates\": [[1, 2],]}")],
                  arguments: ["track", "walk.geojson"],
                  message: "maptrip: error: walk.geojson:2:25: expected a JSON value, found ']'", output: nil),
        ErrorCase(group: "Recorded tracks", what: "A GeoJSON position that is not [lon, lat]",
                  files: ["walk.geojson": text("{\"type\": \"Feature\", \"geometry\": {\"type\": \"LineString\",\n\"coordinates\": [[1, 2], {\"lon\": 1}]}}")],
                  arguments: ["track", "walk.geojson"],
                  message: "maptrip: error: walk.geojson:2:25: geometry.coordinates[1]: a position is [longitude, latitude] or [longitude, latitude, altitude], found an object",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A FIT file whose CRC does not match (python-fitparse's activity-filecrc.fit)",
                  files: ["ride.fit": fitFixture("activity-filecrc.fit")], arguments: ["track", "ride.fit"],
                  message: "maptrip: error: ride.fit: record 0: the file's CRC is 0xB1D5, but its bytes give 0xA1D5: the file is damaged (copy it from the device again)",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A FIT file cut short (activity-unexpected-eof.fit)",
                  files: ["ride.fit": fitFixture("activity-unexpected-eof.fit")], arguments: ["track", "ride.fit"],
                  message: "maptrip: error: ride.fit: record 31: the data ends inside a data message of 17 bytes (17 bytes needed, 16 left) (the file was cut short: copy it from the device again)",
                  output: nil),
        ErrorCase(group: "Recorded tracks", what: "A FIT data message whose type was never defined (strava-android-app-201.10-b1218918.fit)",
                  files: ["ride.fit": fitFixture("strava-android-app-201.10-b1218918.fit")], arguments: ["track", "ride.fit"],
                  message: "maptrip: error: ride.fit: record 502: a data message of local type 11, which no definition message before it defines (the file is damaged or its writer broke the FIT protocol)",
                  output: nil),
    ]

    /// A scene on one tile (zoom 0) from the test tile server's `route`.
    static func served(_ route: String) -> [String: [UInt8]] {
        ["scene.json": text(#"{ "video": { "width": 320, "height": 180 }, "map": { "tiles": "<server>/\#(route)/{z}/{x}/{y}.png", "#
                            + #""attribution": "Test" }, "places": [ { "lat": 0, "lon": 0, "zoom": 0 } ] }"#)]
    }
    static let strictRender = render("scene.json", "--strict", "--tile-timeout", "1")
    static let tileHint = " (open a tile's URL in a browser to see what the server sends, or render without --strict to draw stand-ins for missing tiles)"

    /// Tiles over HTTP, with --strict (without it, a failed tile is drawn as a stand-in and the render
    /// goes on with one warning). Each request is bounded by --tile-timeout and retried twice when the
    /// fault may pass (a reset, a timeout, a 5xx).
    static let tileServers: [ErrorCase] = [
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "An HTML error page served with 200", files: served("html"),
                  arguments: strictRender,
                  message: #"maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: not a decodable image (not an image: 145 bytes starting "<!DOCTYPE html> <html><head><title>503 Service Unavailable</") (<server>/html/0/0/0.png)"# + tileHint),
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "A JSON error served with 200 (the wrong content type)", files: served("json"),
                  arguments: strictRender,
                  message: #"maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: not a decodable image (not an image: 36 bytes starting "{"error": "an API key is required"} ") (<server>/json/0/0/0.png)"# + tileHint),
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "Corrupt bytes served as image/png", files: served("garbage"),
                  arguments: strictRender,
                  message: #"maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: not a decodable image (not an image: 21 bytes starting "this is not an image ") (<server>/garbage/0/0/0.png)"# + tileHint),
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "A server that resets the connection", files: served("reset"),
                  arguments: strictRender,
                  message: "maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: network error: Recv failure: Connection reset by peer (<server>/reset/0/0/0.png)" + tileHint),
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "A server that trickles bytes forever (bounded by --tile-timeout)", files: served("trickle"),
                  arguments: strictRender,
                  message: "maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: timed out (<server>/trickle/0/0/0.png)" + tileHint),
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "A redirect to another scheme (ftp://)", files: served("ftpredirect"),
                  arguments: strictRender,
                  message: #"maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: network error: redirected to a URL that is not http or https (Protocol "ftp" not supported or disabled in libcurl) (<server>/ftpredirect/0/0/0.png)"# + tileHint),
        ErrorCase(group: "Tiles over HTTP (--strict)", what: "A server error (HTTP 500), after two retries", files: served("500"),
                  arguments: strictRender,
                  message: "maptrip: error: 1 map tile could not be loaded (strict mode): tile 0/0/0: HTTP 500 Internal Server Error (<server>/500/0/0/0.png)" + tileHint),
    ]

    static let tiles: [ErrorCase] = [
        mbtiles("An .mbtiles file that is not SQLite", text(String(repeating: "not a database ", count: 20)),
                message: "maptrip: error: MBTiles <folder>/map.mbtiles: not an SQLite database (file is not a database); an .mbtiles file is an SQLite database of tiles: check that the download finished"),
        mbtiles("An .mbtiles file without a tiles table (a broken schema)", sqlite("CREATE TABLE metadata (name TEXT, value TEXT)"),
                message: "maptrip: error: MBTiles <folder>/map.mbtiles: not an MBTiles file (no tiles table; make one with `maptrip tiles` or another MBTiles writer)"),
        mbtiles("An .mbtiles file whose tiles table has other columns", sqlite("CREATE TABLE tiles (z INTEGER, x INTEGER, y INTEGER, data BLOB)"),
                message: "maptrip: error: MBTiles <folder>/map.mbtiles: its tiles table has no zoom_level, tile_column, tile_row, tile_data columns (an MBTiles tiles table has zoom_level, tile_column, tile_row and tile_data: make one with `maptrip tiles` or another MBTiles writer)"),
        mbtiles("An .mbtiles file another program holds locked (writing it)", sqlite("CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)"),
                message: "maptrip: error: MBTiles <folder>/map.mbtiles: another program holds it locked, still writing it (SQLite: database is locked, after 2 s of waiting); let that program finish, then run again", fault: .lockedDatabase("map.mbtiles")),
        ErrorCase(group: "Map: tiles and projection", what: "A tiles folder that is not there",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "no-such-folder" },"#)], arguments: render(),
                  message: "maptrip: error: map.tiles \"no-such-folder\": no such folder or file (looked for <folder>/no-such-folder). Expected an http(s):// URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png, a folder of {z}/{x}/{y}.png|jpg|webp|pbf|mvt tiles, an .mbtiles file or a PMTiles archive (a file, or an http(s):// URL of one)"),
        ErrorCase(group: "Map: tiles and projection", what: "A tile URL of another scheme (ftp://)",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "ftp://example.com/{z}/{x}/{y}.png" },"#)], arguments: render(),
                  message: "maptrip: error: map.tiles \"ftp://example.com/{z}/{x}/{y}.png\": the scheme ftp:// is not supported. Expected an http(s):// URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png, a folder of {z}/{x}/{y}.png|jpg|webp|pbf|mvt tiles, an .mbtiles file or a PMTiles archive (a file, or an http(s):// URL of one)"),
        ErrorCase(group: "Map: tiles and projection", what: "A tile URL template without {y}",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "https://example.com/{z}/{x}.png" },"#)], arguments: render(),
                  message: "maptrip: error: map.tiles URL template \"https://example.com/{z}/{x}.png\": it needs {z}, {x} and {y} (or {-y} for TMS rows)"),
        ErrorCase(group: "Map: tiles and projection", what: "A map.style file that is not there (vector tiles)",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "city.pmtiles", "style": "street.json" },"#),
                          "city.pmtiles": helsinki],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:46: map.style: style file 'street.json' not found (give a MapLibre GL style JSON file (relative to the scene's folder) or a theme: light, dark, atlas, relief, satellite)"),
        ErrorCase(group: "Map: tiles and projection", what: "A style property given an expression of the wrong type",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "city.pmtiles", "style": "street.json" },"#),
                          "city.pmtiles": helsinki,
                          "street.json": text(#"{"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [{"id": "roads", "type": "line", "source": "osm", "source-layer": "transportation", "paint": {"line-width": ["concat", "a", "b"]}}]}"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:46: map.style: style street.json:1:174: layers[0].paint.line-width: Expected number but found string instead."),
        ErrorCase(group: "Map: tiles and projection", what: "A PMTiles archive over HTTP that keeps changing on its server",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "<server>/cycle/1/a.pmtiles,b.pmtiles" },"#)],
                  arguments: render(),
                  message: #"maptrip: error: map.tiles "<server>/cycle/1/a.pmtiles,b.pmtiles": a URL without {z}/{x}/{y} is read as a PMTiles archive, and this one cannot be: it changed on the server (ETag "614c8b84" became another) while its header and directory were read, and again when they were read anew: render again once it stays the same. Expected an http(s):// URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png, a folder of {z}/{x}/{y}.png|jpg|webp|pbf|mvt tiles, an .mbtiles file or a PMTiles archive (a file, or an http(s):// URL of one)"#,
                  fault: .served(["a.pmtiles": helsinki, "b.pmtiles": helsinki + [0]])),
        ErrorCase(group: "Map: tiles and projection", what: "A projection PROJ does not know",
                  files: ["scene.json": scene(place, #" "map": { "projection": "EPSG:999999" },"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:26: map.projection: PROJ does not know 'EPSG:999999': crs not found (use \"globe\", an EPSG or ESRI code such as \"EPSG:3035\", or a PROJ string such as \"+proj=robin\")"),
    ]

    /// A one-second MP4 of pictures only (H.264, no sound), made with maptrip's own encoder.
    static let silentVideo: [UInt8] = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-silent-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? Data(#"{ "video": { "width": 64, "height": 64, "fps": 5 }, "places": [ { "lat": 0, "lon": 0, "dwell": 1 } ] }"#.utf8)
            .write(to: dir.appendingPathComponent("s.json"))
        _ = try? CLIProcess.run(["render", "s.json", "-o", "s.mp4", "-q"], in: dir)
        return (try? Data(contentsOf: dir.appendingPathComponent("s.mp4"))).map { [UInt8]($0) } ?? []
    }()

    static let audio: [ErrorCase] = [
        ErrorCase(group: "Sound the scene names", what: "An MP3 that is only its ID3 header",
                  files: ["scene.json": scene(place, #" "audio": "music.mp3","#), "music.mp3": text("ID3") + Array(repeating: 0, count: 100)],
                  arguments: render(),
                  message: "maptrip: error: cannot use audio file '<folder>/music.mp3': not a media file FFmpeg can read (Invalid argument; use an MP3, AAC, FLAC, WAV or Opus file, or run with --verbose to see FFmpeg's account)"),
        ErrorCase(group: "Sound the scene names", what: "A file with no sound in it (a silent video named .mp3)",
                  files: ["scene.json": scene(place, #" "audio": "music.mp3","#), "music.mp3": silentVideo],
                  arguments: render(),
                  message: "maptrip: error: cannot use audio file '<folder>/music.mp3': it holds no sound, only pictures or data (use an MP3, AAC, FLAC, WAV or Opus file)"),
        ErrorCase(group: "Sound the scene names", what: "The sound track is /dev/zero (refused without opening it)",
                  files: ["scene.json": scene(place, #" "audio": "music.mp3","#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:12: audio: sound file 'music.mp3' is a special file (a FIFO, a socket or a device), not a regular file (name a regular file)",
                  fault: .special(["music.mp3": "/dev/zero"])),
        ErrorCase(group: "Sound the scene names", what: "--audio naming a FIFO (it would block until written to)",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--audio", "music.wav"),
                  message: "maptrip: error: --audio music.wav is a special file (a FIFO, a socket or a device), not a regular file (give an MP3, AAC, FLAC, WAV or Opus file)",
                  fault: .special(["music.wav": "fifo"])),
        ErrorCase(group: "Sound the scene names", what: "A sound file that is not there",
                  files: ["scene.json": scene(place, #" "audio": "music.mp3","#)], arguments: render(),
                  message: "maptrip: error: cannot use audio file '<folder>/music.mp3': no such file (a scene's audio path is relative to the scene's folder)"),
    ]

    /// A WAV of `seconds` of a quiet 1000 Hz tone, 48 kHz stereo (a voice), made with maptrip's own writer.
    static func voiceWAV(seconds: Double) -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-voice-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let tone = Tones.sine(1000, seconds: seconds, amplitude: 0.2)
        try? AudioFileWriter.write([tone, tone], sampleRate: 48000, to: path)
        return (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
    }

    static let voicePlace = #"{ "lat": 37.5665, "lon": 126.978, "dwell": 2, "voice": "hello.m4a" }"#
    static let voices: [ErrorCase] = [
        ErrorCase(group: "Voices and trims", what: "A voice that is a video with no sound",
                  files: ["scene.json": scene(voicePlace), "hello.m4a": silentVideo], arguments: render(),
                  message: #"maptrip: error: scene.json:1:70: places[0].voice: voice 'hello.m4a' cannot be played: it holds no sound, only pictures or data (use an MP3, AAC, FLAC, WAV or Opus file)"#),
        ErrorCase(group: "Voices and trims", what: "A voice file that is only an ID3 header",
                  files: ["scene.json": scene(voicePlace), "hello.m4a": text("ID3") + Array(repeating: 0, count: 100)],
                  arguments: render(), message: #"maptrip: error: scene.json:1:70: places[0].voice: voice 'hello.m4a' cannot be played: not a media file FFmpeg can read (Invalid data found when processing input; use an MP3, AAC, FLAC, WAV or Opus file, or run with --verbose to see FFmpeg's account)"#),
        ErrorCase(group: "Voices and trims", what: "A voice file that is not there",
                  files: ["scene.json": scene(voicePlace)], arguments: render(), message: #"maptrip: error: scene.json:1:70: places[0].voice: voice 'hello.m4a' not found (give a sound file (M4A, MP3, WAV, FLAC, Opus...) relative to the scene's folder)"#),
        ErrorCase(group: "Voices and trims", what: "A voice longer than its place's rest",
                  files: ["scene.json": scene(voicePlace), "hello.m4a": voiceWAV(seconds: 2.5)], arguments: render(),
                  message: #"maptrip: error: scene.json:1:70: places[0].voice: voice 'hello.m4a' lasts 2.50 s, longer than Place 1's rest of 2.00 s (it would be cut) (give Place 1 a dwell of at least 2.5, or set "voices": { "extendRests": true })"#),
        ErrorCase(group: "Voices and trims", what: "--to before --from",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--from", "0:02", "--to", "0:01"),
                  message: #"maptrip: error: --to 0:01 is not after --from 0:02 (on the frame grid): the stretch would be empty (see 'maptrip render --help')"#),
        ErrorCase(group: "Voices and trims", what: "--to beyond the trip's end",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--from", "0:01", "--to", "0:09"),
                  message: #"maptrip: error: --to 0:09 is beyond the trip's end: it lasts 0:03.0 (see maptrip plan)"#),
        ErrorCase(group: "Voices and trims", what: "A --from that is not a time",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--from", "four"),
                  message: #"maptrip: error: --from four: write a time as maptrip plan prints it, such as 0:04, 0:04.5 or 12.5 (see 'maptrip render --help')"#),
        ErrorCase(group: "Voices and trims", what: "--from with --frames",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--from", "0:01", "--frames", "0:10"),
                  message: #"maptrip: error: give --from/--to (a stretch as its own file, with sound) or --frames (a part for maptrip concat), not both (see 'maptrip render --help')"#),
    ]

    /// The first bytes of a PNG of this size: signature and header (all a decoder reads before it
    /// allocates the picture), then an end chunk.
    static func pngHeader(width: Int, height: Int) -> [UInt8] {
        func be(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }
        func crc(_ bytes: [UInt8]) -> [UInt8] {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 == 1 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
            }
            return be(Int(c ^ 0xFFFF_FFFF))
        }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count) + text(type) + body + crc(text(type) + body) }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
            + chunk("IEND", [])
    }
    /// The bytes of a file written by a Python script (`sys.argv[1]` is its path; `sys.argv[2]` the
    /// repository's Assets folder), for inputs easier made there than by hand.
    static func python(_ script: String) -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", script, path, Trip.assets.path]
        try? p.run()
        p.waitUntilExit()
        return (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
    }

    /// A short, small render of central Helsinki drawn from `tiles` (credited, so that the only
    /// messages are the row's own), with `style` when given.
    static func helsinkiScene(tiles: String, style: String? = nil) -> [UInt8] {
        let styleKey = style.map { #", "style": "\#($0)""# } ?? ""
        return text(#"{ "video": { "width": 320, "height": 180, "fps": 10 }, "dwell": 0.5, "map": { "tiles": "\#(tiles)"\#(styleKey), "#
                    + #""attribution": "© OpenStreetMap contributors" }, "places": [ { "lat": 60.17, "lon": 24.945, "zoom": 15 } ] }"#)
    }

    /// The Helsinki MBTiles with every tile's data replaced (`setting`: an SQL assignment to `tile_data`).
    static func helsinkiTiles(setting: String) -> [UInt8] {
        python("""
            import shutil, sqlite3, sys
            shutil.copy(sys.argv[2] + "/tiles/helsinki.mbtiles", sys.argv[1])
            db = sqlite3.connect(sys.argv[1])
            db.execute("UPDATE tiles SET \(setting)")
            db.commit(); db.close()
            """)
    }

    /// Vector tiles and MapLibre styles that are wrong: a tile that cannot be read is left empty
    /// with a warning; an archive or a style the map cannot be drawn from is an error.
    static let vectorTiles: [ErrorCase] = [
        ErrorCase(group: "Map: tiles and projection", what: "Vector tiles in an .mbtiles file cut short inside their gzip streams (drawn empty)",
                  files: ["scene.json": helsinkiScene(tiles: "map.mbtiles"),
                          "map.mbtiles": helsinkiTiles(setting: "tile_data = substr(tile_data, 1, 40)")],
                  arguments: render(), status: 0,
                  message: "maptrip: warning: 3 vector tiles from <folder>/map.mbtiles could not be read and were left empty (e.g. tile 13/4663/2371: <folder>/map.mbtiles: a gzipped vector tile does not inflate (zlib: inflate: the stream is cut short (truncated after 40 bytes)); tile 14/9326/4742: <folder>/map.mbtiles: a gzipped vector tile does not inflate (zlib: inflate: the stream is cut short (truncated after 40 bytes)); tile 14/9327/4742: <folder>/map.mbtiles: a gzipped vector tile does not inflate (zlib: inflate: the stream is cut short (truncated after 40 bytes)))"),
        ErrorCase(group: "Map: tiles and projection", what: "Vector tiles in an .mbtiles file that are not protobuf (drawn empty)",
                  files: ["scene.json": helsinkiScene(tiles: "map.mbtiles"),
                          "map.mbtiles": helsinkiTiles(setting: "tile_data = x'1a0f0a057761746572ffffffffffffffff01'")],
                  arguments: render(), status: 0,
                  message: "maptrip: warning: 3 vector tiles from <folder>/map.mbtiles could not be read and were left empty (e.g. tile 13/4663/2371: <folder>/map.mbtiles: not a valid vector tile: the protobuf cannot be read (malformed protobuf); tile 14/9326/4742: <folder>/map.mbtiles: not a valid vector tile: the protobuf cannot be read (malformed protobuf); tile 14/9327/4742: <folder>/map.mbtiles: not a valid vector tile: the protobuf cannot be read (malformed protobuf))"),
        ErrorCase(group: "Map: tiles and projection", what: "A PMTiles file whose header is not a PMTiles header past its magic",
                  files: ["scene.json": helsinkiScene(tiles: "city.pmtiles"), "city.pmtiles": text("PMTiles") + [3] + [UInt8](repeating: 0xFF, count: 119)],
                  arguments: render(),
                  message: "maptrip: error: PMTiles <folder>/city.pmtiles: internal compression 255 is not one the format defines (0-4)"),
        ErrorCase(group: "Map: tiles and projection", what: "A style layer of a type maptrip does not draw (hillshade: skipped)",
                  files: ["scene.json": helsinkiScene(tiles: "city.pmtiles", style: "street.json"), "city.pmtiles": helsinki,
                          "street.json": text(##"{"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [{"id": "sea", "type": "background", "paint": {"background-color": "#8ac"}}, {"id": "hills", "type": "hillshade", "source": "osm"}, {"id": "roads", "type": "line", "source": "osm", "source-layer": "transportation"}]}"##)],
                  arguments: render(), status: 0,
                  message: #"maptrip: warning: scene.json:1:113: map.style: style street.json:1:167: layers[1].type: maptrip does not draw hillshade layers: layer "hills" is skipped"#),
        ErrorCase(group: "Map: tiles and projection", what: "A text-font family that is not installed (one warning per family; drawn in fontconfig's nearest)",
                  files: ["scene.json": helsinkiScene(tiles: "city.pmtiles", style: "street.json"), "city.pmtiles": helsinki,
                          "street.json": text(#"{"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [{"id": "towns", "type": "symbol", "source": "osm", "source-layer": "place", "layout": {"text-field": "{name}", "text-font": ["Open Sans Bold"]}}, {"id": "streets", "type": "symbol", "source": "osm", "source-layer": "transportation_name", "layout": {"text-field": "{name}", "text-font": ["Open Sans Regular"]}}]}"#)],
                  arguments: render(), status: 0,
                  message: "maptrip: warning: scene.json:1:113: map.style: style street.json:1:191: layers[0].layout.text-font: font family 'Open Sans' is not installed: its labels are drawn in 'Noto Sans' (install the font, or name an installed family (`fc-list : family` lists them))"),
        ErrorCase(group: "Map: tiles and projection", what: "A style of 10,000 layers (drawn, in bounded memory, slowly where they draw: one warning)",
                  files: ["scene.json": helsinkiScene(tiles: "city.pmtiles", style: "street.json"), "city.pmtiles": helsinki,
                          "street.json": text(#"{"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": ["#
                              + (0..<10_000).map { #"{"id": "roads\#($0)", "type": "line", "source": "osm", "source-layer": "transportation", "minzoom": 20}"# }.joined(separator: ", ")
                              + "]}")],
                  arguments: render(), status: 0,
                  message: "maptrip: warning: scene.json:1:113: map.style: style street.json:1:66: layers: 10000 layers, where a map style has a few hundred: every layer is matched against its tiles' features for every frame drawn, so drawing slows in proportion (merge layers that differ only in their filter into one, with a match or case expression)"),
        ErrorCase(group: "Map: tiles and projection", what: "A style layer naming a source the style does not have",
                  files: ["scene.json": helsinkiScene(tiles: "city.pmtiles", style: "street.json"), "city.pmtiles": helsinki,
                          "street.json": text(#"{"version": 8, "sources": {"osm": {"type": "vector"}}, "layers": [{"id": "roads", "type": "line", "source": "openmaptiles", "source-layer": "transportation"}]}"#)],
                  arguments: render(),
                  message: #"maptrip: error: scene.json:1:113: map.style: style street.json:1:109: layers[0].source: no source named "openmaptiles" (sources: osm)"#),
        ErrorCase(group: "Map: tiles and projection", what: "A vector tile of a million points (drawn, bounded: the decoder's limit is 16 million per tile)",
                  files: ["scene.json": helsinkiScene(tiles: "map.mbtiles"),
                          "map.mbtiles": python("""
                              import math, sqlite3, sys
                              def varint(v):
                                  b = bytearray()
                                  while v >= 0x80:
                                      b.append((v & 0x7F) | 0x80); v >>= 7
                                  b.append(v); return bytes(b)
                              def field(n, data): return varint(n << 3 | 2) + varint(len(data)) + data
                              def zigzag(v): return (v << 1) ^ (v >> 31)
                              n = 1000000
                              points = [(2048 + round(2000 * math.cos(2 * math.pi * i / n)), 2048 + round(2000 * math.sin(2 * math.pi * i / n))) for i in range(n)]
                              geometry = [1 | 1 << 3, zigzag(points[0][0]), zigzag(points[0][1]), 2 | (n - 1) << 3]
                              for (x0, y0), (x1, y1) in zip(points, points[1:]): geometry += [zigzag(x1 - x0), zigzag(y1 - y0)]
                              geometry.append(7 | 1 << 3)
                              feature = varint(3 << 3) + varint(3) + field(4, b"".join(varint(g) for g in geometry))
                              layer = varint(15 << 3) + varint(2) + field(1, b"water") + field(2, feature) + varint(5 << 3) + varint(4096)
                              db = sqlite3.connect(sys.argv[1])
                              db.executescript("CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);"
                                               "INSERT INTO metadata VALUES ('format', 'pbf'), ('minzoom', '0'), ('maxzoom', '0'), ('name', 'a million points');")
                              db.execute("INSERT INTO tiles VALUES (0, 0, 0, ?)", (field(3, layer),)); db.commit(); db.close()
                              """)],
                  arguments: render(), status: 0, message: ""),
    ]

    /// Central Helsinki's vector tiles (Assets/tiles), a PMTiles archive.
    static let helsinki: [UInt8] = (try? Data(contentsOf: Trip.assets.appendingPathComponent("tiles/helsinki.pmtiles"))).map { [UInt8]($0) } ?? []

    static let photo = #"{ "lat": 37.5665, "lon": 126.978, "photo": "photo.png" }"#
    static let photoJPEG = #"{ "lat": 37.5665, "lon": 126.978, "photo": "photo.jpg" }"#
    /// An example photo, whole.
    static let examplePhoto: [UInt8] = (try? Data(contentsOf: Trip.assets.deletingLastPathComponent()
        .appendingPathComponent("Scenes/photos/busan.jpg"))).map { [UInt8]($0) } ?? []
    /// The first third of an example photo.
    static let cutJPEG: [UInt8] = {
        let url = Trip.assets.deletingLastPathComponent().appendingPathComponent("Scenes/photos/busan.jpg")
        let bytes = (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
        return Array(bytes.prefix(bytes.count / 3))
    }()

    static let clipPlace = #"{ "lat": 37.5665, "lon": 126.978, "clip": "clip.mp4" }"#
    /// A clip of the project's own encoding (`TestClips`), its bytes; `rotation`: its display matrix.
    static func clipBytes(rotation: Double? = nil) -> [UInt8] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-clip-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        try? TestClips.write(url, width: 32, height: 32, fps: 10, frames: 4, rotation: rotation)
        return (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
    }
    /// A WAV file of a tenth of a second of silence (8 kHz, 16-bit mono).
    static let silentWAV: [UInt8] = {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let samples = [UInt8](repeating: 0, count: 1600)
        return text("RIFF") + le(36 + samples.count, 4) + text("WAVEfmt ") + le(16, 4) + le(1, 2) + le(1, 2) + le(8000, 4)
            + le(16000, 4) + le(2, 2) + le(16, 2) + text("data") + le(samples.count, 4) + samples
    }()

    static let clips: [ErrorCase] = [
        ErrorCase(group: "Videos the scene names", what: "A clip that is not there",
                  files: ["scene.json": scene(clipPlace)], arguments: render(),
                  message: "maptrip: error: scene.json:1:57: places[0].clip: clip 'clip.mp4' not found (give a video file libavformat reads, such as MP4, MOV, WebM or MKV, relative to the scene's folder)"),
        ErrorCase(group: "Videos the scene names", what: "A clip whose header is gone (the last two thirds of an MP4)",
                  files: ["scene.json": scene(clipPlace), "clip.mp4": { let b = clipBytes(); return Array(b.suffix(b.count * 2 / 3)) }()],
                  arguments: render(), message: "maptrip: error: scene.json:1:57: places[0].clip: clip 'clip.mp4' cannot be read as a video (Invalid data found when processing input) (it may be damaged or cut short: play it, or convert it again)"),
        ErrorCase(group: "Videos the scene names", what: "A clip with no video stream (a WAV file)",
                  files: ["scene.json": scene(clipPlace), "clip.mp4": silentWAV], arguments: render(), message: "maptrip: error: scene.json:1:57: places[0].clip: clip 'clip.mp4' has no video stream (give a file with pictures; this one may be sound only)"),
        ErrorCase(group: "Videos the scene names", what: "A clip that is a picture",
                  files: ["scene.json": scene(clipPlace), "clip.mp4": pngHeader(width: 64, height: 64)], arguments: render(), message: #"maptrip: error: scene.json:1:57: places[0].clip: clip 'clip.mp4' is a PNG picture, not a video (show a still picture with "photo")"#),
        ErrorCase(group: "Videos the scene names", what: "A clip whose rotation tag turns it 45 degrees",
                  files: ["scene.json": scene(clipPlace), "clip.mp4": clipBytes(rotation: 45)], arguments: render(), message: "maptrip: error: scene.json:1:57: places[0].clip: clip 'clip.mp4' has a rotation tag turning the picture 45 degrees; only quarter turns (90, 180, 270) are played (turn it with ffmpeg -i IN -vf transpose=1 OUT.mp4, or remove the tag)"),
        ErrorCase(group: "Videos the scene names", what: "A clip beside a photo on the same place",
                  files: ["scene.json": scene(#"{ "lat": 37.5665, "lon": 126.978, "clip": "clip.mp4", "photo": "photo.png" }"#),
                          "clip.mp4": clipBytes(), "photo.png": examplePhoto], arguments: render(), message: #"maptrip: error: scene.json:1:57: places[0].clip: a place's card shows a photo or a clip, not both (remove "photo", or remove "clip")"#),
        ErrorCase(group: "Videos the scene names", what: "A clip started past its end",
                  files: ["scene.json": scene(#"{ "lat": 37.5665, "lon": 126.978, "clip": "clip.mp4", "from": 3 }"#),
                          "clip.mp4": clipBytes()], arguments: render(), message: "maptrip: error: scene.json:1:77: places[0].from: from 3 s is past the clip's end (it lasts 0.400 s) (start the clip earlier)"),
        ErrorCase(group: "Videos the scene names", what: "A clip's sound asked for where it has none",
                  files: ["scene.json": scene(#"{ "lat": 37.5665, "lon": 126.978, "clip": "clip.mp4", "muted": false }"#),
                          "clip.mp4": clipBytes()], arguments: render(), message: #"maptrip: error: scene.json:1:78: places[0].muted: clip 'clip.mp4' has no sound to play (give a clip with a sound track, or remove "muted": false)"#),
        ErrorCase(group: "Videos the scene names", what: "A presenter's volume where its video has no sound",
                  files: ["scene.json": scene(place, #" "presenter": { "file": "me.mp4", "volume": 0.8 },"#), "me.mp4": clipBytes()],
                  arguments: render(), message: #"maptrip: error: scene.json:1:46: presenter.volume: presenter video 'me.mp4' has no sound to play (give a video with a sound track, or remove "volume")"#),
        ErrorCase(group: "Videos the scene names", what: "A presenter shown at a place the scene does not have",
                  files: ["scene.json": scene(place, #" "presenter": { "file": "me.mp4", "places": ["Busan"] },"#), "me.mp4": clipBytes()],
                  arguments: render(), message: "maptrip: error: scene.json:1:47: presenter.places[0]: no place is named 'Busan' (the places are named 'Place 1')"),
        ErrorCase(group: "Videos the scene names", what: "A presenter video that is sound only",
                  files: ["scene.json": scene(place, #" "presenter": { "file": "me.wav" },"#), "me.wav": silentWAV],
                  arguments: render(), message: "maptrip: error: scene.json:1:26: presenter.file: presenter video 'me.wav' has no video stream (give a file with pictures; this one may be sound only)"),
    ]

    static let media: [ErrorCase] = [
        ErrorCase(group: "Images the scene names", what: "A 30,000 x 30,000 PNG (refused before it is decoded into 3.6 GB)",
                  files: ["scene.json": scene(photo), "photo.png": pngHeader(width: 30_000, height: 30_000)], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' cannot be decoded: a 30000x30000 PNG is larger than 64 megapixels (scale it down)"),
        ErrorCase(group: "Images the scene names", what: "A PNG cut short after its signature",
                  files: ["scene.json": scene(photo), "photo.png": Array(pngHeader(width: 64, height: 64).prefix(12))], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' cannot be decoded: the PNG is damaged or cut short (open it in an image editor and save it again, or use another picture)"),
        ErrorCase(group: "Images the scene names", what: "A JPEG cut short (its first third: decoded at load, not drawn half grey)",
                  files: ["scene.json": scene(photoJPEG), "photo.jpg": cutJPEG], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.jpg' cannot be decoded: the JPEG is damaged or cut short (Invalid data found when processing input) (open it in an image editor and save it again, or use another picture)"),
        ErrorCase(group: "Images the scene names", what: "An 8,000 x 8,000 PNG header with no picture data",
                  files: ["scene.json": scene(photo), "photo.png": pngHeader(width: 8_000, height: 8_000)], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' cannot be decoded: the PNG is damaged or cut short (open it in an image editor and save it again, or use another picture)"),
        ErrorCase(group: "Images the scene names", what: "A FIFO where the photo should be (it would block until written to)",
                  files: ["scene.json": scene(photo)], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' is a special file (a FIFO, a socket or a device), not a regular file (name a PNG, JPEG or WebP file)",
                  fault: .special(["photo.png": "fifo"])),
        ErrorCase(group: "Images the scene names", what: "A vehicle that is neither built in nor a file",
                  files: ["scene.json": scene(place, #" "vehicle": "rocket","#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:14: vehicle: vehicle image 'rocket' not found (a vehicle is one of plane, car, train, ship, bike, walk, none, or a PNG, JPEG or WebP file beside the scene)"),
        ErrorCase(group: "Images the scene names", what: "A text file named .png",
                  files: ["scene.json": scene(photo), "photo.png": text("<html>Not found</html>")], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' is not a PNG, JPEG or WebP image (convert it to PNG, JPEG or WebP)"),
        ErrorCase(group: "Images the scene names", what: "A GIF named .png (a format maptrip does not read)",
                  files: ["scene.json": scene(photo), "photo.png": text("GIF89a") + [1, 0, 1, 0, 0, 0, 0, 0x3B]], arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' is not a PNG, JPEG or WebP image (convert it to PNG, JPEG or WebP)"),
        ErrorCase(group: "Images the scene names", what: "A photo that is not there", files: ["scene.json": scene(photo)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:58: places[0].photo: photo 'photo.png' not found (paths are relative to the scene's folder (.))"),
    ]

    /// An Assets folder with a copy of the embedded map's 10m land layer (the first a zoom-5 frame loads),
    /// with `edit` applied to its files (name: bytes; nil removes the file), in `assets/basemap/10m`.
    static func land(_ edit: (inout [String: [UInt8]?]) -> Void) -> [String: [UInt8]] {
        let folder = Trip.assets.appendingPathComponent("basemap/10m")
        var files: [String: [UInt8]?] = [:]
        for ext in ["shp", "shx", "prj"] {
            let name = "ne_10m_land.\(ext)"
            files[name] = (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) }
        }
        edit(&files)
        var out: [String: [UInt8]] = ["scene.json": scene(#"{ "lat": 37.5665, "lon": 126.978, "zoom": 5 }"#)]
        // The file by which maptrip knows an Assets folder.
        let marker = "basemap/110m/ne_110m_admin_0_countries.shp"
        out["assets/" + marker] = (try? Data(contentsOf: Trip.assets.appendingPathComponent(marker))).map { [UInt8]($0) }
        for (name, bytes) in files { if let bytes { out["assets/basemap/10m/" + name] = bytes } }
        return out
    }
    static let landFile = "<folder>/assets/basemap/10m/ne_10m_land.shp"
    static let withAssets = render("scene.json", "--assets", "assets")

    static let baseMapData: [ErrorCase] = [
        ErrorCase(group: "Base-map data (--assets)", what: "A .shp cut short (its first 1,000 bytes)",
                  files: land { $0["ne_10m_land.shp"] = Array(($0["ne_10m_land.shp"]!!).prefix(1000)) }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): cannot read shape 0 of 11: Error in fread() reading object of size 4327260 at offset 100 from .shp file (the file is truncated or damaged, or not the one its .shx was made with: restore both from the same copy)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A .shp cut inside its header (50 bytes)",
                  files: land { $0["ne_10m_land.shp"] = Array(($0["ne_10m_land.shp"]!!).prefix(50)) }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): not a readable shapefile: .shp file is unreadable, or corrupt. (a .shp needs the .shx made with it beside it: restore both from the same copy)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A .shx that is not one",
                  files: land { $0["ne_10m_land.shx"] = text("garbage") }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): not a readable shapefile: .shx file is unreadable, or corrupt. (a .shp needs the .shx made with it beside it: restore both from the same copy)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A .shx that disagrees with its .shp (another layer's)",
                  files: land {
                      $0["ne_10m_land.shx"] = (try? Data(contentsOf: Trip.assets.appendingPathComponent("basemap/10m/ne_10m_lakes.shx")))
                          .map { [UInt8]($0) }
                  }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): cannot read shape 0 of 1355: Corrupted .shp file : shape 0, nPoints=270426, nParts=98, nEntitySize=680. (the file is truncated or damaged, or not the one its .shx was made with: restore both from the same copy)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A .prj that says the layer is projected (Web Mercator)",
                  files: land { $0["ne_10m_land.prj"] = text(#"PROJCS["WGS_84_Pseudo_Mercator",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator"],UNIT["Meter",1.0]]"#) },
                  arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): its .prj describes a projected coordinate system \"WGS_84_Pseudo_Mercator\", but the base map's layers are longitude/latitude degrees (WGS 84): reproject the layer, e.g. ogr2ogr -t_srs EPSG:4326 out.shp in.shp"),
        ErrorCase(group: "Base-map data (--assets)", what: "A .prj that is not a coordinate system",
                  files: land { $0["ne_10m_land.prj"] = text("hello") }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): its .prj is not a coordinate system in WKT (remove it, or restore it from the same copy as the .shp)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A vertex in metres, not degrees (x = 3,500,000)",
                  files: land { files in
                      // The first point of the first record: after the record header, type, box and counts.
                      var shp = files["ne_10m_land.shp"]!!
                      let parts = Int(shp[144]) | Int(shp[145]) << 8 | Int(shp[146]) << 16 | Int(shp[147]) << 24
                      let at = 152 + 4 * parts
                      withUnsafeBytes(of: (3_500_000.0).bitPattern.littleEndian) { shp.replaceSubrange(at..<at + 8, with: $0) }
                      files["ne_10m_land.shp"] = shp
                  },
                  arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): shape 0 has a vertex at (3500000.0, -71.49902603997366), which is not longitude/latitude in degrees (the base map's layers are WGS 84 degrees: reproject the layer, e.g. ogr2ogr -t_srs EPSG:4326 out.shp in.shp)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A .shx claiming 2^31 records",
                  files: land { files in
                      var shx = files["ne_10m_land.shx"]!!
                      shx.replaceSubrange(24..<28, with: [0x7F, 0xFF, 0xFF, 0xFF])  // file length, in 16-bit words
                      files["ne_10m_land.shx"] = shx
                  }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): not a readable shapefile: Record count in .shp header is 536870899, which seems unreasonable.  Assuming header is corrupt. (a .shp needs the .shx made with it beside it: restore both from the same copy)"),
        ErrorCase(group: "Base-map data (--assets)", what: "A layer's .shp missing",
                  files: land { $0["ne_10m_land.shp"] = nil }, arguments: withAssets,
                  message: "maptrip: error: shapefile \(landFile): no such file (a base map folder needs every layer's .shp and .shx: restore the folder, or pass another)"),
    ]

    static let scenes: [ErrorCase] = [
        ErrorCase(group: "Scenes", what: "A trailing comma", files: ["scene.json": scene(place + ",")],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:49: places: trailing comma before ']' (JSON does not allow a ',' after the last element)"),
        ErrorCase(group: "Scenes", what: "A missing comma between members",
                  files: ["scene.json": text(#"{ "places": [ { "lat": 1 "lon": 2 } ] }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:26: places[0]: expected ',' or '}' after object member, found '\"' (add a ',' between members)"),
        ErrorCase(group: "Scenes", what: "The file ends inside an array",
                  files: ["scene.json": text(#"{ "places": [ { "lat": 1, "lon": 2 }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:37: places: expected ',' or ']' after array element, found end of file (the array opened at line 1, column 13 is not closed)"),
        ErrorCase(group: "Scenes", what: "An empty file", files: ["scene.json": []], arguments: render(),
                  message: "maptrip: error: scene.json:1:1: the file is empty (a scene file is a JSON object such as { \"places\": [ ... ] })"),
        ErrorCase(group: "Scenes", what: "A JSON array instead of an object", files: ["scene.json": text("[1, 2]")],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:1: a scene must be a JSON object, found an array (put the list under \"places\": { \"places\": [ ... ] })"),
        ErrorCase(group: "Scenes", what: "A string where a number belongs",
                  files: ["scene.json": scene(#"{ "lat": "north", "lon": 2 }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:24: places[0].lat: expected a number, found a string"),
        ErrorCase(group: "Scenes", what: "A time written with its unit",
                  files: ["scene.json": scene(#"{ "lat": 1, "lon": 2, "dwell": "3s" }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:46: places[0].dwell: expected a number, found a string (write 3, a number of seconds without quotes or unit)"),
        ErrorCase(group: "Scenes", what: "NaN", files: ["scene.json": scene(#"{ "lat": NaN, "lon": 2 }"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:24: places[0].lat: NaN is not a JSON number (JSON numbers must be finite)"),
        ErrorCase(group: "Scenes", what: "-Infinity", files: ["scene.json": scene(#"{ "lat": 1, "lon": -Infinity }"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:34: places[0].lon: -Infinity is not a JSON number (JSON numbers must be finite)"),
        ErrorCase(group: "Scenes", what: "A number too large for a double",
                  files: ["scene.json": scene(#"{ "lat": 1e400, "lon": 2 }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:24: places[0].lat: number 1e400 is too large"),
        ErrorCase(group: "Scenes", what: "A latitude out of range",
                  files: ["scene.json": scene(#"{ "lat": 91, "lon": 2 }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:24: places[0].lat: latitude 91 is outside [-90, 90] (are lat and lon swapped?)"),
        ErrorCase(group: "Scenes", what: "A misspelt key",
                  files: ["scene.json": scene(#"{ "lat": 1, "lon": 2, "zom": 3 }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:37: places[0].zom: unknown key 'zom' (did you mean 'zoom'?)"),
        ErrorCase(group: "Scenes", what: "A negative dwell", files: ["scene.json": scene(place, #" "dwell": -1,"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:12: dwell: dwell must be greater than 0 seconds, found -1"),
        ErrorCase(group: "Scenes", what: "A graticule finer than a tenth of a degree (billions of lines)",
                  files: ["scene.json": scene(place, #" "map": { "graticule": 1e-9 },"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:25: map.graticule: graticule 1e-9 is outside [0.1, 90] (degrees between lines: 10 draws one every 10 degrees; 0.1 is the finest)"),
        ErrorCase(group: "Scenes", what: "UTF-32 text (with its byte order mark)",
                  files: ["scene.json": [0xFF, 0xFE, 0, 0] + Array(#"{ "places": [ { "lat": 37.5665, "lon": 126.978 } ] }"#.unicodeScalars)
                      .flatMap { s in withUnsafeBytes(of: s.value.littleEndian, Array.init) }],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:1: the file is UTF-32 encoded, not UTF-8 (save it as UTF-8)"),
        ErrorCase(group: "Scenes", what: "A key a million characters long (quoted as an excerpt, not a 2 MB line)",
                  files: ["scene.json": scene(#"{ "lat": 37.5665, "lon": 126.978, ""# + String(repeating: "k", count: 1_000_000) + #"": 1 }"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:49: places[0]." + String(repeating: "k", count: 65) + "…[999923 characters]…"
                      + String(repeating: "k", count: 12) + ": unknown key '" + String(repeating: "k", count: 30) + "…[999965 characters]…"
                      + String(repeating: "k", count: 5) + "' (allowed keys here: name, lat, lon, country, region, dwell, zoom, span, flight, curve, route, vehicle, caption, photo, clip, from, muted, volume, bearing, track, voice, pace)"),
        ErrorCase(group: "Scenes", what: "A pixel ratio of 5e-324 (a view 10^323 frames wide: a crash before)",
                  files: ["scene.json": scene(place, #" "video": { "scale": 5e-324 },"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:23: video.scale: scale 5e-324 is outside [0.1, 8] (scale is the pixel ratio: 2 renders the view of 1920x1080 at 3840x2160)"),
        ErrorCase(group: "Scenes", what: "A geocentric CRS as the projection (x, y, z: no map)",
                  files: ["scene.json": scene(place, #" "map": { "projection": "+proj=cart" },"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:26: map.projection: '+proj=cart' is a geocentric coordinate system (x, y, z in metres from the Earth's centre), not a map projection (use \"globe\", an EPSG code of a projected CRS such as \"EPSG:3035\", or a PROJ map projection such as \"+proj=robin\")"),
        ErrorCase(group: "Scenes", what: "A place on the side of the Earth an orthographic view does not show",
                  files: ["scene.json": scene(place, #" "map": { "projection": "+proj=ortho +lon_0=-60" },"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:66: places[0]: 'Place 1' (37.5665, 126.9780) is on the side of the Earth +proj=ortho +lon_0=-60 does not show (centre the projection nearer the trip (+lon_0, +lat_0), or use \"globe\", which turns to face each place)"),
        ErrorCase(group: "Scenes", what: "The scene is a FIFO (refused without opening it: it would block)",
                  files: [:], arguments: render(),
                  message: "maptrip: error: scene.json: cannot read the scene: it is a special file (a FIFO, a socket or a device), not a regular file (save the scene to a .json file and pass that)",
                  fault: .special(["scene.json": "fifo"])),
        ErrorCase(group: "Scenes", what: "An MBTiles file that is a FIFO",
                  files: ["scene.json": scene(place, #" "map": { "tiles": "map.mbtiles", "attribution": "x" },"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:21: map.tiles: MBTiles file 'map.mbtiles' is a special file (a FIFO, a socket or a device), not a regular file (name a regular file)",
                  fault: .special(["map.mbtiles": "fifo"])),
        ErrorCase(group: "Scenes", what: "No places", files: ["scene.json": text(#"{ "places": [] }"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:13: places: places must list at least one place (add { \"lat\": ..., \"lon\": ... })"),
        ErrorCase(group: "Scenes", what: "A place name the gazetteer does not know",
                  files: ["scene.json": scene(#"{ "name": "Atlantis Xyzzy" }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:25: places[0].name: no place called 'Atlantis Xyzzy' in the gazetteer (give \"lat\" and \"lon\" instead, or check the spelling)"),
        ErrorCase(group: "Scenes", what: "A name of several places, narrowed to a region none of them is in",
                  files: ["scene.json": scene(#"{ "name": "Springfield", "region": "Texas" }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:50: places[0].region: no place called 'Springfield' in region 'Texas' ('Springfield' is in Illinois (\"IL\"), Massachusetts (\"MA\"), Missouri (\"MO\"), New York (\"NY\"), Ohio (\"OH\"), Oregon (\"OR\"), Pennsylvania (\"PA\"), Tennessee (\"TN\") or Virginia (\"VA\"))"),
        ErrorCase(group: "Scenes", what: "Nesting 600 levels deep",
                  files: ["scene.json": text(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:513: [0][0][0]…(508 more)…[0]: nesting is too deep (more than 512 levels) (a scene is a few levels deep; look for brackets opened and never closed)"),
        ErrorCase(group: "Scenes", what: "100,000 places (83 hours of dwell)",
                  files: ["scene.json": text("{ \"places\": [" + Array(repeating: place, count: 100_000).joined(separator: ",") + "] }")],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:13: places: the places' dwells add up to 83:20:00, over the 24-hour limit"),
        ErrorCase(group: "Scenes", what: "Bytes that are not UTF-8 (Latin-1 text)",
                  files: ["scene.json": text(#"{ "title": "Caf"#) + [0xE9] + text(#"", "places": [ { "lat": 1, "lon": 2 } ] }"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:16: the file is not valid UTF-8 text (byte 0xE9) (a scene file is a UTF-8 JSON text file)"),
        ErrorCase(group: "Scenes", what: "A UTF-8 byte order mark, then a mistake (the mark is skipped, not counted as a column)",
                  files: ["scene.json": [0xEF, 0xBB, 0xBF] + text(#"{ "places": [ { "lat": 1, "lon": 2, } ] }"#)],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:35: places[0]: trailing comma before '}' (JSON does not allow a ',' after the last member)"),
        ErrorCase(group: "Scenes", what: "UTF-16 text (with its byte order mark)",
                  files: ["scene.json": [0xFF, 0xFE] + Array(#"{"places": []}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })],
                  arguments: render(),
                  message: "maptrip: error: scene.json:1:1: the file is UTF-16 encoded, not UTF-8 (save it as UTF-8)"),
        ErrorCase(group: "Scenes", what: "A tiny number (a dwell of 1e-300 s)",
                  files: ["scene.json": scene(#"{ "lat": 1, "lon": 2, "dwell": 1e-300 }"#)], arguments: render(),
                  message: "maptrip: error: scene.json:1:13: places: the video would be shorter than one frame (lengthen the dwells)"),
        ErrorCase(group: "Scenes", what: "The scene is a folder", files: ["scene.json/x": []], arguments: render(),
                  message: "maptrip: error: scene.json: cannot read the scene: it is a directory (pass the scene's .json file)"),
        ErrorCase(group: "Scenes", what: "The scene unreadable (permissions)", files: ["scene.json": scene()], arguments: render(),
                  message: "maptrip: error: scene.json: cannot read the scene: permission denied (let this user read the file)",
                  fault: .unprivileged(["scene.json": 0o000])),
        ErrorCase(group: "Scenes", what: "The scene does not exist", files: [:], arguments: render("nope.json"),
                  message: "maptrip: error: nope.json: cannot read the scene: no such file (check the name; a relative path starts in the folder maptrip runs in)"),
    ]

    /// A scene of a few seconds at 640x360: time to interrupt it, a video too big for a small disk.
    static let longer = text(#"{ "video": { "width": 640, "height": 360 }, "flight": 0.5, "places": [ "#
                             + #"{ "lat": 37.5, "lon": 127, "zoom": 6, "dwell": 3 }, { "lat": 35.1, "lon": 129, "zoom": 6, "dwell": 3 } ] }"#)

    static let outputFaults: [ErrorCase] = [
        ErrorCase(group: "Output faults", what: "An output folder this user may not write in",
                  files: ["scene.json": scene()], arguments: render(), message: "maptrip: error: cannot write <folder>/out.mp4: Permission denied (this user may not write in <folder>: write the video elsewhere with -o)",
                  fault: .unprivileged([".": 0o555])),
        ErrorCase(group: "Output faults", what: "An output folder that this user may not make",
                  files: ["scene.json": scene()], arguments: ["render", "scene.json", "-o", "new/out.mp4"], message: "maptrip: error: cannot create the output's folder <folder>/new: Permission denied (this user may not make folders in <folder>: write elsewhere with -o)",
                  output: nil, fault: .unprivileged([".": 0o555])),
        ErrorCase(group: "Output faults", what: "A full disk (a 64 KB tmpfs)",
                  files: ["scene.json": longer], arguments: render(), message: "maptrip: error: cannot write <folder>/out.mp4: No space left on device (free some space, or write the video elsewhere with -o)",
                  fault: .diskFull(kilobytes: 64)),
        ErrorCase(group: "Output faults", what: "A full disk, writing a PNG sequence into new folders",
                  files: ["scene.json": longer], arguments: ["render", "scene.json", "-o", "frames/a/%04d.png"], message: "maptrip: error: cannot write <folder>/frames/a: No space left on device (free some space, or write the video elsewhere with -o)",
                  output: nil, fault: .diskFull(kilobytes: 64)),
        ErrorCase(group: "Output faults", what: "The output's folder removed during the render",
                  files: ["scene.json": longer, "sub/notes.txt": text("notes")], arguments: ["render", "scene.json", "-o", "sub/out.mp4"],
                  message: "maptrip: error: cannot write <folder>/sub/out.mp4: its folder <folder>/sub was removed during the render",
                  output: nil, fault: .folderRemovedMidRender("sub")),
    ]

    static let outputsAndOptions: [ErrorCase] = [
        ErrorCase(group: "Outputs and options", what: "An output format maptrip does not write",
                  files: ["scene.json": scene()], arguments: ["render", "scene.json", "-o", "out.xyz"],
                  message: "maptrip: error: output out.xyz: maptrip does not write .xyz files; it writes .mp4 (H.264, HEVC), .webm (VP9, AV1), .mov (ProRes 4444, H.264), .gif and PNG sequences (name_%05d.png)",
                  output: "out.xyz"),
        ErrorCase(group: "Outputs and options", what: "The output is the scene file itself",
                  files: ["scene.json": scene()], arguments: ["render", "scene.json", "-o", "scene.json"],
                  message: "maptrip: error: output scene.json is the scene file; it would be overwritten (name the video, e.g. scene.mp4)",
                  output: nil),
        ErrorCase(group: "Outputs and options", what: "An output whose folder is a file",
                  files: ["scene.json": scene()], arguments: ["render", "scene.json", "-o", "scene.json/out.mp4"],
                  message: "maptrip: error: cannot create the output's folder scene.json: a file is in the way (choose an output path whose folders are folders)",
                  output: nil),
        ErrorCase(group: "Outputs and options", what: "A batch asked for PNG sequences (a folder of files per scene)",
                  files: ["scenes/a.json": scene()], arguments: ["batch", "scenes", "--format", "png", "-o", "clips"],
                  message: "maptrip: error: a batch writes one clip per scene, and a PNG sequence is a folder of files: pick mp4, webm, mov or gif, or render a scene's frames with maptrip render S.json -o S_%05d.png",
                  output: "clips"),
        ErrorCase(group: "Outputs and options", what: "A --frames range that ends before it starts",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--frames", "5:2"),
                  message: "maptrip: error: --frames 5:2: the end must be after the start (START:END renders frames START to END-1)"),
        ErrorCase(group: "Outputs and options", what: "A preset no codec takes (found by the argument parser)",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--preset", "ludicrous"),
                  message: "maptrip: error: The value 'ludicrous' is invalid for '--preset <preset>'. Please provide one of the following: ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo, replaykit, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 (see 'maptrip render --help')"),
        ErrorCase(group: "Outputs and options", what: "A preset of another codec (VP9's speeds for H.264)",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--preset", "5"),
                  message: "maptrip: error: unknown --preset '5' for h264; use one of ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo, replaykit"),
        ErrorCase(group: "Outputs and options", what: "An unknown container (found by the argument parser)",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--format", "avi"),
                  message: "maptrip: error: The value 'avi' is invalid for '--format <format>'. Please provide one of the following: mp4, webm, mov, gif, png, flv, mpegts, hls (see 'maptrip render --help')"),
        ErrorCase(group: "Outputs and options", what: "An --assets folder that does not exist", files: ["scene.json": scene()],
                  arguments: render("scene.json", "--assets", "no-such-assets"),
                  message: "maptrip: error: cannot find maptrip's Assets folder (looked in no-such-assets); pass --assets DIR or set MAPTRIP_ASSETS"),
        ErrorCase(group: "Outputs and options", what: "An odd --width (the scene's rule for its own width)",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--width", "17"),
                  message: "maptrip: error: --width 17 is odd; H.264 with 4:2:0 chroma needs even frame sizes (use 16 or 18)"),
        ErrorCase(group: "Outputs and options", what: "A live stream's address that is not one",
                  files: ["scene.json": scene()], arguments: ["render", "scene.json", "--live", "udp://[::1"],
                  message: "maptrip: error: cannot write udp://[::1: Input/output error (check the stream's address, such as udp://127.0.0.1:1234, srt://host:port or rtmp://host/app/key, and that the receiver is reachable)",
                  output: nil),
        ErrorCase(group: "Outputs and options", what: "Tiles written to an empty name (the folder it runs in, before)",
                  files: [:], arguments: ["tiles", ""],
                  message: "maptrip: error: the output is empty: name a folder (tiles/) or a file ending in .mbtiles (see 'maptrip tiles --help')",
                  output: nil),
        ErrorCase(group: "Outputs and options", what: "Tiles written to a file that is not .mbtiles (a raw Cocoa error, before)",
                  files: ["scene.json": scene()], arguments: ["tiles", "scene.json"],
                  message: "maptrip: error: cannot write scene.json: it is a file, not a folder (name a new folder for the tiles, or a file ending in .mbtiles)",
                  output: nil),
        ErrorCase(group: "Outputs and options", what: "A time that is not a number (found by the argument parser: the same form and exit 1)",
                  files: ["scene.json": scene()], arguments: render("scene.json", "--poster-at", "nan"),
                  message: "maptrip: error: The value 'nan' is invalid for '--poster-at <time>' (see 'maptrip render --help')"),
        ErrorCase(group: "Outputs and options", what: "An option out of its range", files: ["scene.json": scene()],
                  arguments: render("scene.json", "--tile-timeout", "0"),
                  message: "maptrip: error: --tile-timeout must be more than 0 and at most 3600 seconds, not 0.0 (see 'maptrip render --help')"),
        ErrorCase(group: "Outputs and options", what: "An unknown option", files: ["scene.json": scene()],
                  arguments: render("scene.json", "--colour", "red"),
                  message: "maptrip: error: Unknown option '--colour' (see 'maptrip render --help')"),
        ErrorCase(group: "Outputs and options", what: "An unknown theme for schema", files: [:],
                  arguments: ["schema", "--theme", "neon"],
                  message: "maptrip: error: The value 'neon' is invalid for '--theme <theme>'. Please provide one of 'light', 'dark', 'atlas', 'relief' or 'satellite'. (see 'maptrip schema --help')", output: nil),
    ]

    /// `docs/errors.md`, made from the rows.
    static func document() -> String {
        var out = """
            # Bad inputs and faults

            What maptrip does with each kind of bad input or fault it has been tried with: the command, its
            exit status and its whole message (on standard error, one line). Every row is a test
            (`Tests/MapTripRecordTests/ErrorTableTests.swift`, which this file is made from): it checks
            the status and the message, that no output is left behind, and that an output which existed
            before is unchanged, byte for byte (a row that exits 0, a warning, checks that the output is
            written). Write it again with
            `MAPTRIP_WRITE_DOCS=1 swift test --filter ErrorTable`. In messages, `<folder>` stands for the
            folder the command ran in and `<server>` for the test tile server (`http://127.0.0.1:PORT`).

            """
        var groups: [String] = []
        for c in all where !groups.contains(c.group) { groups.append(c.group) }
        var n = 0
        for group in groups {
            out += "\n## \(group)\n\n| # | Bad input | Command | Exit | Message |\n|---|---|---|---|---|\n"
            for c in all where c.group == group {
                n += 1
                func cell(_ s: String) -> String {
                    s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
                }
                out += "| \(n) | \(cell(c.what)) | `maptrip \(cell(c.arguments.joined(separator: " ")))` | \(c.status) | "
                    + (c.message.isEmpty ? "(none) |\n" : "`\(cell(c.message))` |\n")
            }
        }
        return out + "\n" + measured
    }

    /// What the other checks of #10 found, as measured (not made by the tests: the figures of runs).
    static let measured = """
        ## Signals

        `SignalTests` sends 56 signals (SIGINT, SIGTERM, SIGHUP and SIGKILL, shuffled) to `maptrip render`
        at random moments, half of them anywhere in the run (start-up, tile fetching from a slow server,
        drawing, finishing) and half while frames are written. After each: the output is the earlier file
        byte for byte, or (when the render had finished) a whole new video; a caught signal exits 128 + n
        with `maptrip: interrupted by ...` and leaves no temporary file; the next run removes what SIGKILL
        left. `maptrip tiles` does the same for its MBTiles file.

        A call that blocks never sees the flag a signal sets (a write to a pipe no one reads, a stuck
        network peer): a process still running 5 s after the first signal, or at a second one, removes
        its temporary files and exits 128 + n at once. `ClosedStreamsTests` runs every subcommand with
        standard output and standard error a full pipe and sends Ctrl-C after a second: each ends (a
        batch blocked on its status line after 5 s), leaving no temporary file. maptrip unblocks SIGINT,
        SIGTERM and SIGHUP at start, whatever mask its parent left (a test runner's did).

        ## Fuzzing

        `bash .ci/fuzz SECONDS [HARNESS...]` builds the libFuzzer harnesses in `Fuzz/` with
        AddressSanitizer and runs each for SECONDS over its corpus in `Fuzz/Corpus/` (seeds made by
        `Fuzz/make-seeds.py`, and every input that ever crashed: a regression test replayed first);
        `.ci/run` runs each for 15 s. Long runs on this machine (AMD EPYC, 2 cores, shared with other
        work, so the rates are low), each for an hour or 10 million executions:

        | harness | what it reads | executions | time | crashes found | coverage (edges) | corpus |
        |---|---|---|---|---|---|---|
        | scene | any bytes as a scene file; a scene that loads is also timed and sampled | 2,312,509 then 3,383,894 | 7 min (to its crash), then 1 h | 1 (fixed), then 0 | 2,549 | 1,237 |
        | shapefile | any bytes as a .shx and a .shp, projected and generalised | 379,742 then 737,578 | 11 min (to its crash), then 1 h | 1 (fixed), then 0 | 530 | 126 |
        | image | any bytes as a tile or photo (PNG, JPEG, WebP) | 142,123 then 9,352,742 | 2 min (stopped by a timeout under load), then 1 h | 1 (fixed; found in a first 15 s run), then 0 | 435 | 108 |
        | mbtiles | any bytes as an MBTiles database, a tile read and decoded | 1,989,713 | 1 h | 0 | 777 | 148 |
        | expression | any bytes as JSON, parsed as eight properties' values, a filter and an untyped expression, each evaluated on four features at seven zooms | 617,499 | 30 s (a first run, not yet an hour) | 0 | 5,873 | 1,029 |

        The harnesses are scene, shapefile, image, mbtiles, vectortile (any bytes as a vector tile,
        gzipped or not, decoded with its geometry and properties), pmtiles (any bytes as a PMTiles
        archive: header, directories, a tile), expression, fit, trackxml, geojson and exif; `.ci/run`
        runs every one of them, and no long run of those without a row is recorded here.

        The rates are those of a machine whose two cores were shared with the sanitizer runs: the
        shapefile and MBTiles harnesses write their input to a file and open it through shapelib or
        SQLite for every execution, and stayed well under 10 million in their hour. shapelib, SQLite,
        libpng and libavcodec are Debian's builds, not instrumented: the fuzzers steer by maptrip's code
        around them, and would still catch a crash inside them.

        What they found, each fixed and kept in the corpus as `crash-*`:
        - image: a PNG header claiming 2^32 - 1 pixels on a side overflowed the size check (`w * h`)
          before it could refuse the picture;
        - scene: dwells adding up past `Int` (4.7e116 s) crashed the clock that says the total is over
          24 hours;
        - shapefile: coordinates near `Double`'s limits overflowed the fixed-point quantisation of the
          geometry; such a layer is now refused as not being degrees, and the quantisation clamps.

        ## Sanitizers and leaks

        `bash .ci/sanitize` runs the test suite (and the `maptrip` binary the tests drive) under
        AddressSanitizer with LeakSanitizer, and under ThreadSanitizer; valgrind's memcheck over a render
        and a tile pyramid; and 200 short renders in one `maptrip batch` process. Suppressed as not
        maptrip's: objects Swift's lazy globals make once, Fontconfig's caches, XCTest's runner, and a
        buffer Foundation keeps when it reads an empty file, a few buffers libx265 keeps after its
        encoder is closed, a side table of Foundation's `Process` (`Fuzz/lsan.supp`).

        | check | result |
        |---|---|
        | AddressSanitizer + LeakSanitizer, the whole suite (478 tests, the CLI binary built with it too) | all pass (after the fixes below) |
        | ThreadSanitizer, the whole suite (478 tests, the CLI binary built with it too; 38 minutes) | no race reported; 475 pass, and 3 failed on time alone, each passing when run again under ThreadSanitizer on a quieter machine: a live stream paced by the clock (the sanitizer's slowdown), the signal test's count of signals landing while frames are written, and this document's test (the document was edited during the run) |
        | ThreadSanitizer again, after the base map's files were loaded on two threads: the shapefile, render, batch and raster-cache suites and the three above (49 tests) | all pass, no race reported |
        | valgrind memcheck: `maptrip render` (320x180, 2 places) | 0 errors |
        | valgrind memcheck: `maptrip tiles world.mbtiles --max-zoom 2` | 0 errors |
        | AddressSanitizer and ThreadSanitizer again, 2026-11-27, after the kernels and bands of the performance log's twenty-sixth round (AVX-512 plane kernel, gradients, fills and strokes in two bands, the globe clipped on two threads): the kernel, fill, stroke, gradient, compositing, projection and recorder suites (83 tests) | all pass, no race reported |
        | valgrind memcheck on Swift 6.3 builds (2026-11-27) | does not run: valgrind 3.19 (Debian 12's) reads neither the DWARF 5 debug information the toolchain writes ("possibly corrupted debuginfo", before the program starts) nor, with it stripped, an AVX2 encoding clang 21 emits in the filler (`vmovq xmm, xmm`, VEX 0F D6): the rows above were taken before; the sanitizer runs cover the C kernels |
        | 200 short renders in one `maptrip batch --jobs 1` process | 92.9 MB resident after 20 clips, 94.0 MB after 200 (+1.3%) |

        What AddressSanitizer found: `malloc_trim` (maptrip gives the memory of loading a map back to the
        system) crashed under a sanitizer, whose allocator replaces glibc's: it is now skipped there.

        ## Not errors

        - A UTF-8 byte order mark before a scene is skipped (RFC 8259 lets a parser ignore it); the
          columns of an error count from the first character after it (row 18).
        - A base-map layer's `.dbf` (its attribute table) is never read: maptrip draws the shapes of the
          `.shp` through its `.shx`, so a missing or damaged `.dbf` changes nothing (the embedded map
          ships none).
        - A SIGTERM that lands after the video has been renamed into place leaves the new video there
          and exits 143.
        - A style's sprite URL that cannot be fetched (offline, a server that refuses or never answers)
          is one warning, "the style's icons (icon-image) are not drawn: cannot fetch sprite URL
          <url>.json: <reason>; its labels are", after at most 4 seconds of waiting; the labels are
          drawn. A sprite fetched before is taken from the tile cache.

        """

}

@Suite("bad inputs and faults (docs/errors.md)") struct ErrorTableTests {
    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/errors.md").standardizedFileURL

    @Test(arguments: ErrorCase.all.filter { !$0.needsTmpfs }, [false, true])
    func eachRowFailsAsDocumentedAndLosesNothing(_ c: ErrorCase, existingOutput: Bool) throws {
        try Self.check(c, existingOutput: existingOutput)
    }

    /// The rows of a full disk: a tmpfs of a few KB mounted on the test's folder, which needs root
    /// (the suite reports them skipped, not passed, where it cannot mount one).
    @Test(.enabled(if: ErrorTableTests.canMountTmpfs, "a full disk is a tmpfs mounted for the test: needs root"),
          arguments: ErrorCase.all.filter(\.needsTmpfs), [false, true])
    func eachFullDiskRowFailsAsDocumentedAndLosesNothing(_ c: ErrorCase, existingOutput: Bool) throws {
        try Self.check(c, existingOutput: existingOutput)
    }

    /// Whether this process may mount a tmpfs (tried once, on a folder of its own).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-tmpfs-probe-\(getpid())")
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: dir) }
        guard mount(tmpfs: dir, kilobytes: 64) else { return false }
        _ = umount(dir.path)
        return true
    }()

    static func check(_ c: ErrorCase, existingOutput: Bool) throws {
        if existingOutput && c.output == nil { return }
        if case .served(let files) = c.fault {
            try HTTPTestServer.withTemporaryDirectory { folder in
                for (name, bytes) in files { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
                let server = try HTTPTestServer(files: folder)
                defer { server.stop() }
                try Self.run(c, existingOutput: existingOutput, server: "http://127.0.0.1:\(server.port)")
            }
        } else if c.needsServer {
            try HTTPTestServer.with { server in try Self.run(c, existingOutput: existingOutput, server: "http://127.0.0.1:\(server.port)") }
        } else {
            try Self.run(c, existingOutput: existingOutput, server: nil)
        }
    }

    static func run(_ c: ErrorCase, existingOutput: Bool, server: String?) throws {
        try Trip.withDirectory("errors") { dir in
            var prefix: [String] = []
            switch c.fault {
            case .diskFull(let kilobytes):
                try #require(Self.mount(tmpfs: dir, kilobytes: kilobytes), "mounting a tmpfs of \(kilobytes) KB failed")
            case .unprivileged where getuid() == 0:
                prefix = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
                guard FileManager.default.isExecutableFile(atPath: prefix[0]),
                      (try? CLIProcess.run(["--version"], in: dir, prefix: prefix).status) == 0 else {
                    print("skipped \(c.what): cannot run maptrip as nobody through setpriv here")
                    return
                }
            default:
                break
            }
            defer { if case .diskFull = c.fault { _ = umount(dir.path) } }
            for (name, bytes) in c.files {
                let url = dir.appendingPathComponent(name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                var data = Data(bytes)
                if let server { data = Data(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "<server>", with: server).utf8) }
                try data.write(to: url)
            }
            if case .special(let names) = c.fault {
                for (name, target) in names {
                    let path = dir.appendingPathComponent(name).path
                    if target == "fifo" { #expect(mkfifo(path, 0o644) == 0) }
                    else { try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target) }
                }
            }
            var before = Trip.contents(dir)
            if existingOutput, let output = c.output {
                try Trip.previousOutput.write(to: dir.appendingPathComponent(output))
            }
            if case .unprivileged(let modes) = c.fault {
                for (name, mode) in modes { chmod(dir.appendingPathComponent(name).path, mode_t(mode)) }
            }
            defer { chmod(dir.path, 0o755) }
            let result: CLIResult
            if case .folderRemovedMidRender(let sub) = c.fault {
                let process = try CLIProcess(c.arguments, in: dir)
                try process.start()
                let folder = dir.appendingPathComponent(sub)
                let deadline = Date().addingTimeInterval(60)
                while process.process.isRunning, Trip.temporaryFiles(folder).isEmpty, Date() < deadline { usleep(5_000) }
                try FileManager.default.removeItem(at: folder)
                result = try process.wait()
                before.removeAll { $0 == sub }
            } else if case .lockedDatabase(let name) = c.fault {
                let holder = try DatabaseLock(dir.appendingPathComponent(name))
                result = try CLIProcess.run(c.arguments, in: dir, prefix: prefix)
                holder.release()
            } else {
                result = try CLIProcess.run(c.arguments, in: dir, prefix: prefix)
            }
            #expect(result.reason == .exit && result.status == c.status, "\(result)")
            // (A render that succeeds says what it wrote on standard output.)
            #expect(c.status == 0 || result.stdout.isEmpty, "\(result)")
            // Paths inside the test's folder are written <folder> in the table.
            var stderr = result.stderr.replacingOccurrences(of: dir.standardizedFileURL.path, with: "<folder>")
            if let server { stderr = stderr.replacingOccurrences(of: server, with: "<server>") }
            #expect(stderr == (c.message.isEmpty ? "" : c.message + "\n"), "\(result)\nexpected: \(c.message)")
            if c.status == 0, let output = c.output {
                // A warning: the output is written all the same (replacing one that was there).
                #expect(Trip.contents(dir) == (before + [output]).sorted())
                #expect(try Data(contentsOf: dir.appendingPathComponent(output)) != Trip.previousOutput)
            } else if existingOutput, let output = c.output {
                #expect(try Data(contentsOf: dir.appendingPathComponent(output)) == Trip.previousOutput)
                #expect(Trip.contents(dir) == (before + [output]).sorted())
            } else {
                #expect(Trip.contents(dir) == before, "left behind: \(Set(Trip.contents(dir)).subtracting(before))")
            }
        }
    }

    /// Another process holding an SQLite database in an exclusive transaction until `release()`
    /// (it rolls back: the file and the folder are as they were).
    final class DatabaseLock {
        let process = Process()
        let input = Pipe()
        init(_ database: URL) throws {
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute("BEGIN EXCLUSIVE")
                c.execute("INSERT INTO tiles VALUES (0, 0, 0, x'00')")
                print("locked", flush=True)
                sys.stdin.read()
                c.execute("ROLLBACK")
                """, database.path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let said = output.fileHandleForReading.readData(ofLength: 7)
            guard String(decoding: said, as: UTF8.self).hasPrefix("locked") else {
                throw CocoaError(.fileLocking)
            }
        }
        func release() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// Mounts a tmpfs of `kilobytes` on `folder` (false when this process may not).
    static func mount(tmpfs folder: URL, kilobytes: Int) -> Bool {
        Glibc.mount("tmpfs", folder.path, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0
    }

    /// Two renders of one scene to one output at once: both finish cleanly, each writing its own
    /// temporary file and renaming it; the output is one whole video (the last to finish), never a mix.
    @Test func twoRendersToTheSameOutputAtOnce() throws {
        try Trip.withDirectory("errors") { dir in
            try TripScene.korea.write(to: dir)
            let a = try CLIProcess(["render", "scene.json", "-o", "same.mp4"], in: dir)
            let b = try CLIProcess(["render", "scene.json", "-o", "same.mp4", "--preset", "ultrafast"], in: dir)
            try a.start()
            try b.start()
            let ra = try a.wait(), rb = try b.wait()
            #expect(ra.reason == .exit && ra.status == 0, "\(ra)")
            #expect(rb.reason == .exit && rb.status == 0, "\(rb)")
            #expect(Trip.contents(dir) == ["same.mp4", "scene.json"])
            let video = try Trip.decode(dir.appendingPathComponent("same.mp4"))
            let expected = try Trip.decode(try Self.single(dir)).frames.count
            #expect(video.frames.count == expected && expected > 0)
        }
    }

    /// The same scene rendered alone, for its frame count.
    static func single(_ dir: URL) throws -> URL {
        let result = try CLIProcess.run(["render", "scene.json", "-o", "alone.mp4", "--preset", "ultrafast"], in: dir)
        #expect(result.status == 0, "\(result)")
        return dir.appendingPathComponent("alone.mp4")
    }

    @Test func theDocumentIsMadeFromTheTable() throws {
        let made = ErrorCase.document()
        if ProcessInfo.processInfo.environment["MAPTRIP_WRITE_DOCS"] == "1" {
            try FileManager.default.createDirectory(at: Self.documentURL.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data(made.utf8).write(to: Self.documentURL)
        }
        let onDisk = try String(contentsOf: Self.documentURL, encoding: .utf8)
        #expect(onDisk == made, "docs/errors.md is not the table's: run MAPTRIP_WRITE_DOCS=1 swift test --filter ErrorTable")
    }
}
