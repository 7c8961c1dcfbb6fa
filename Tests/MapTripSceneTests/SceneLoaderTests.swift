import Foundation
import Testing
@testable import MapTripSupport
@testable import MapTripGeometry
@testable import MapTripScene
import TestSupport

@Suite("Scene loader")
struct SceneLoaderTests {
    static let full = """
    { "title": "Korea in five stops", "dwell": 3, "flight": 1.5,
      "video": { "width": 1920, "height": 1080, "fps": 30, "scale": 1 },
      "map": { "tiles": "https://tiles.example.org/{z}/{x}/{y}.png", "attribution": "(c) Example", "tileSize": 256,
               "minZoom": 0, "maxZoom": 19, "subdomains": ["a","b"], "contact": "me@example.org" },
      "places": [ { "name": "Seoul", "lat": 37.5665, "lon": 126.9780 },
                  { "name": "Busan", "lat": 35.1796, "lon": 129.0756, "dwell": 5, "zoom": 9, "flight": 2 } ] }
    """

    @Test func decodesAFullScene() throws {
        let scene = try SceneLoader.decode(Data(Self.full.utf8), file: "trip.json")
        #expect(scene.title == "Korea in five stops")
        #expect(scene.dwell == 3)
        #expect(scene.flight == 1.5)
        #expect(scene.video == Video(width: 1920, height: 1080, fps: 30, scale: 1))
        #expect(scene.map == MapSource(tiles: "https://tiles.example.org/{z}/{x}/{y}.png", attribution: "(c) Example",
                                       tileSize: 256, minZoom: 0, maxZoom: 19, subdomains: ["a", "b"],
                                       contact: "me@example.org"))
        #expect(scene.places == [
            // No zoom: one that frames Seoul and its neighbour Busan (2.2 times the distance across).
            Place(name: "Seoul", position: LonLat(lon: 126.978, lat: 37.5665), dwell: 3,
                  zoom: AutoCamera.zoom(spanKm: 2.2 * Geodesy.distanceKm(scene.places[0].position, scene.places[1].position),
                                        latitude: 37.5665, video: scene.video), flight: nil),
            Place(name: "Busan", position: LonLat(lon: 129.0756, lat: 35.1796), dwell: 5, zoom: 9, flight: 2),
        ])
    }

    @Test func fillsInDefaults() throws {
        let scene = try SceneLoader.decode(Data(#"{"places": [{"lat": 1, "lon": 2}, {"lat": -3, "lon": -4}]}"#.utf8),
                                           file: "t.json")
        let span = 2.2 * Geodesy.distanceKm(LonLat(lon: 2, lat: 1), LonLat(lon: -4, lat: -3))
        // A flight without a set time takes its time from the distance; openings and closings are on.
        var second = Place(name: "Place 2", position: LonLat(lon: -4, lat: -3),
                           zoom: AutoCamera.zoom(spanKm: span, latitude: -3, video: Video()),
                           flight: AutoCamera.flight(distanceKm: Geodesy.distanceKm(LonLat(lon: 2, lat: 1), LonLat(lon: -4, lat: -3)),
                                                     dwell: Scene.defaultDwell))
        second.autoFlight = true
        var expected = Scene(places: [
            Place(name: "Place 1", position: LonLat(lon: 2, lat: 1),
                  zoom: AutoCamera.zoom(spanKm: span, latitude: 1, video: Video())),
            second,
        ])
        expected.opening = true
        expected.closing = true
        #expect(scene == expected)
        #expect(scene.title == nil)
        #expect(scene.dwell == Scene.defaultDwell)
        #expect(scene.flight == Scene.defaultFlight)
        #expect(scene.video == Video(width: 1920, height: 1080, fps: 30, scale: 1))
        #expect(scene.map == nil)
        #expect(abs(scene.places[0].zoom - 6.58) < 0.01)
        #expect(scene.places[0].flight == nil)
    }

    @Test func placesInheritTheSceneDwellAndPartialSectionsKeepDefaults() throws {
        let json = #"""
        {"dwell": 4.5, "video": {"fps": 25}, "map": {"tiles": "tiles/"},
         "places": [{"lat": 90, "lon": -180, "name": "Pole"}, {"lat": -90, "lon": 180, "dwell": 1}]}
        """#
        let scene = try SceneLoader.decode(Data(json.utf8), file: "t.json")
        #expect(scene.places.map(\.dwell) == [4.5, 1])
        #expect(scene.video == Video(width: 1920, height: 1080, fps: 25, scale: 1))
        #expect(scene.map == MapSource(tiles: "tiles/"))
        #expect(scene.map?.subdomains == ["a", "b", "c"])
        #expect(scene.places[0].name == "Pole")
    }

    @Test func wholeNumbersWrittenAsDecimalsAreIntegers() throws {
        let scene = try SceneLoader.decode(
            Data(#"{"video": {"width": 1280.0, "height": 7.2e2, "fps": 2.4e1}, "places": [{"lat": 0, "lon": 0}]}"#.utf8),
            file: "t.json")
        #expect(scene.video == Video(width: 1280, height: 720, fps: 24))
    }

    @Test func acceptsAByteOrderMark() throws {
        let data = Data([0xEF, 0xBB, 0xBF] + Array(#"{"places": [{"lat": 0, "lon": 0}]}"#.utf8))
        #expect(try SceneLoader.decode(data, file: "t.json").places.count == 1)
    }

    // MARK: Validation

    struct Case: Sendable, CustomTestStringConvertible {
        var json: String
        var path: String
        /// The text the error must point at (its first occurrence, or the `occurrence`-th).
        var at: String
        var occurrence = 1
        var message: String
        var hint: String?

        var testDescription: String { "\(path): \(message)" }
    }

    static let place = #"{"lat": 1, "lon": 2}"#

    static let cases: [Case] = [
        // Document and places.
        Case(json: "[1, 2]", path: "", at: "[", message: "a scene must be a JSON object, found an array"),
        Case(json: #""trip""#, path: "", at: "\"", message: "a scene must be a JSON object, found a string"),
        Case(json: #"{"title": "x"}"#, path: "", at: "{", message: "missing required key 'places'"),
        Case(json: #"{"places": {}}"#, path: "places", at: "{}", message: "expected an array, found an object"),
        Case(json: #"{"places": []}"#, path: "places", at: "[]", message: "places must list at least one place"),
        Case(json: #"{"places": [3]}"#, path: "places[0]", at: "3", message: "expected an object, found a number"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2}, {"lon": 1}]}"#, path: "places[1]", at: #"{"lon""#,
             message: "lon is given without lat"),
        Case(json: #"{"places": [{"lat": 1}]}"#, path: "places[0]", at: #"{"lat""#,
             message: "lat is given without lon"),
        Case(json: #"{"places": [{"dwell": 1}]}"#, path: "places[0]", at: #"{"dwell""#,
             message: "a place needs lat and lon, or a name to look up"),
        // Places.
        Case(json: #"{"places": [{"lat": "37.5", "lon": 2}]}"#, path: "places[0].lat", at: #""37.5""#,
             message: "expected a number, found a string", hint: "write the number without quotes"),
        Case(json: #"{"places": [{"lat": 1, "lon": [2]}]}"#, path: "places[0].lon", at: "[2]",
             message: "expected a number, found an array"),
        Case(json: #"{"places": [{"lat": true, "lon": 2}]}"#, path: "places[0].lat", at: "true",
             message: "expected a number, found a boolean"),
        Case(json: #"{"places": [{"lat": 95, "lon": 2}]}"#, path: "places[0].lat", at: "95",
             message: "latitude 95 is outside [-90, 90]"),
        Case(json: #"{"places": [{"lat": -90.5, "lon": 2}]}"#, path: "places[0].lat", at: "-90.5",
             message: "latitude -90.5 is outside [-90, 90]"),
        Case(json: #"{"places": [{"lat": 126.97, "lon": 37.56}]}"#, path: "places[0].lat", at: "126.97",
             message: "latitude 126.97 is outside [-90, 90]", hint: "are lat and lon swapped?"),
        Case(json: #"{"places": [{"lat": 1, "lon": 190}]}"#, path: "places[0].lon", at: "190",
             message: "longitude 190 is outside [-180, 180]"),
        Case(json: #"{"places": [{"lat": 1, "lon": -180.01}]}"#, path: "places[0].lon", at: "-180.01",
             message: "longitude -180.01 is outside [-180, 180]"),
        Case(json: #"{"places": [{"name": "", "lat": 1, "lon": 2}]}"#, path: "places[0].name", at: #""""#,
             message: "name must not be empty"),
        Case(json: #"{"places": [{"name": "  ", "lat": 1, "lon": 2}]}"#, path: "places[0].name", at: #""  ""#,
             message: "name must not be empty"),
        Case(json: #"{"places": [{"name": 7, "lat": 1, "lon": 2}]}"#, path: "places[0].name", at: "7",
             message: "expected a string, found a number"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": 0}]}"#, path: "places[0].dwell", at: "0}",
             message: "dwell must be greater than 0 seconds, found 0"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": -2}]}"#, path: "places[0].dwell", at: "-2",
             message: "dwell must be greater than 0 seconds, found -2"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": null}]}"#, path: "places[0].dwell", at: "null",
             message: "expected a number, found null", hint: "remove the key to use the default"),
        // A time with its unit: the number of seconds to write instead. Not where the key counts no time.
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": "1.5 sec"}]}"#, path: "places[0].dwell",
             at: #""1.5 sec""#, message: "expected a number, found a string",
             hint: "write 1.5, a number of seconds without quotes or unit"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2}], "dwell": "250ms"}"#, path: "dwell", at: #""250ms""#,
             message: "expected a number, found a string", hint: "write 0.25, a number of seconds without quotes or unit"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2}], "outro": "2 Minutes"}"#, path: "outro", at: #""2 Minutes""#,
             message: "expected a number, found a string", hint: "write 120, a number of seconds without quotes or unit"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "flight": "2s"}]}"#, path: "places[0].flight", at: #""2s""#,
             message: "unknown flight '2s'", hint: #"write 2, a number of seconds without quotes or unit, or "auto""#),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "flight": "fast"}]}"#, path: "places[0].flight", at: #""fast""#,
             message: "unknown flight 'fast'", hint: #"give a number of seconds or "auto""#),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "zoom": 23}]}"#, path: "places[0].zoom", at: "23",
             message: "zoom 23 is outside [0, 22]"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "zoom": -1}]}"#, path: "places[0].zoom", at: "-1",
             message: "zoom -1 is outside [0, 22]"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "flight": -0.5}]}"#, path: "places[0].flight", at: "-0.5",
             message: "flight must be 0 seconds or more, found -0.5"),
        // Scene values.
        Case(json: #"{"dwell": 0, "places": [\#(place)]}"#, path: "dwell", at: "0", message: "dwell must be greater than 0"),
        Case(json: #"{"dwell": "3", "places": [\#(place)]}"#, path: "dwell", at: #""3""#,
             message: "expected a number, found a string"),
        Case(json: #"{"flight": -1, "places": [\#(place)]}"#, path: "flight", at: "-1",
             message: "flight must be 0 seconds or more, found -1"),
        Case(json: #"{"title": 5, "places": [\#(place)]}"#, path: "title", at: "5",
             message: "expected a string, found a number"),
        Case(json: #"{"title": "", "places": [\#(place)]}"#, path: "title", at: #""""#, message: "title must not be empty"),
        // Video.
        Case(json: #"{"video": [], "places": [\#(place)]}"#, path: "video", at: "[]",
             message: "expected an object, found an array"),
        Case(json: #"{"video": {"width": 1921}, "places": [\#(place)]}"#, path: "video.width", at: "1921",
             message: "width 1921 is odd; H.264 with 4:2:0 chroma needs even frame sizes", hint: "use 1920 or 1922"),
        Case(json: #"{"video": {"height": 1079}, "places": [\#(place)]}"#, path: "video.height", at: "1079",
             message: "height 1079 is odd"),
        Case(json: #"{"video": {"width": 8}, "places": [\#(place)]}"#, path: "video.width", at: "8",
             message: "width 8 is outside [16, 8192]"),
        Case(json: #"{"video": {"height": 8194}, "places": [\#(place)]}"#, path: "video.height", at: "8194",
             message: "height 8194 is outside [16, 8192]"),
        Case(json: #"{"video": {"width": 1920.5}, "places": [\#(place)]}"#, path: "video.width", at: "1920.5",
             message: "expected an integer, found 1920.5"),
        Case(json: #"{"video": {"width": "1920"}, "places": [\#(place)]}"#, path: "video.width", at: #""1920""#,
             message: "expected an integer, found a string"),
        Case(json: #"{"video": {"fps": 30.5}, "places": [\#(place)]}"#, path: "video.fps", at: "30.5",
             message: "expected an integer, found 30.5"),
        Case(json: #"{"video": {"fps": 0}, "places": [\#(place)]}"#, path: "video.fps", at: "0",
             message: "fps 0 is outside [1, 240]"),
        Case(json: #"{"video": {"fps": 241}, "places": [\#(place)]}"#, path: "video.fps", at: "241",
             message: "fps 241 is outside [1, 240]"),
        Case(json: #"{"video": {"scale": 0}, "places": [\#(place)]}"#, path: "video.scale", at: "0",
             message: "scale 0 is outside [0.1, 8]"),
        Case(json: #"{"video": {"scale": 5e-324}, "places": [\#(place)]}"#, path: "video.scale", at: "5e-324",
             message: "scale 5e-324 is outside [0.1, 8]"),
        Case(json: #"{"video": {"scale": 8.5}, "places": [\#(place)]}"#, path: "video.scale", at: "8.5",
             message: "scale 8.5 is outside [0.1, 8]"),
        // Totals.
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": 50000}, {"lat": 1, "lon": 2, "dwell": 40000}]}"#,
             path: "places", at: "[", message: "the places' dwells add up to 25:00:00, over the 24-hour limit"),
        // Found by the fuzzer: a sum past Int crashed the clock that says it.
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": 4.7e116}]}"#,
             path: "places", at: "[", message: "the places' dwells add up to 4.7e+116 s, over the 24-hour limit"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "dwell": 1e308}, {"lat": 1, "lon": 2, "dwell": 1e308}]}"#,
             path: "places", at: "[", message: "the places' dwells add up to more than 1.8e308 s, over the 24-hour limit"),
        Case(json: #"{"video": {"fps": 240}, "places": [{"lat": 1, "lon": 2, "dwell": 43200}]}"#,
             path: "video.fps", at: "240", message: "the video would have 10368000 frames, over the limit of 10000000"),
        Case(json: #"{"video": {"fps": 30}, "places": [{"lat": 1, "lon": 2, "dwell": 0.001}]}"#,
             path: "places", at: "[", message: "the video would be shorter than one frame"),
        // Map.
        Case(json: #"{"map": "osm", "places": [\#(place)]}"#, path: "map", at: #""osm""#,
             message: "expected an object, found a string"),
        Case(json: #"{"map": {"projection": 3857}, "places": [\#(place)]}"#, path: "map.projection", at: "3857",
             message: "expected a string, found a number"),
        Case(json: #"{"map": {"graticule": 0}, "places": [\#(place)]}"#, path: "map.graticule", at: "0",
             message: "graticule"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "bearing": "north"}]}"#, path: "places[0].bearing", at: "\"north\"",
             message: "expected a number"),
        Case(json: #"{"map": {"tiles": ""}, "places": [\#(place)]}"#, path: "map.tiles", at: #""""#,
             message: "tiles must not be empty"),
        Case(json: #"{"map": {"tiles": 1}, "places": [\#(place)]}"#, path: "map.tiles", at: "1",
             message: "expected a string, found a number"),
        Case(json: #"{"map": {"tiles": "t", "tileSize": 300}, "places": [\#(place)]}"#, path: "map.tileSize",
             at: "300", message: "tileSize must be 256 or 512, found 300"),
        Case(json: #"{"map": {"tiles": "t", "tileSize": 256.5}, "places": [\#(place)]}"#, path: "map.tileSize",
             at: "256.5", message: "expected an integer, found 256.5"),
        Case(json: #"{"map": {"tiles": "t", "minZoom": 25}, "places": [\#(place)]}"#, path: "map.minZoom", at: "25",
             message: "minZoom 25 is outside [0, 24]"),
        Case(json: #"{"map": {"tiles": "t", "maxZoom": -1}, "places": [\#(place)]}"#, path: "map.maxZoom", at: "-1",
             message: "maxZoom -1 is outside [0, 24]"),
        Case(json: #"{"map": {"tiles": "t", "maxZoom": 2.5}, "places": [\#(place)]}"#, path: "map.maxZoom", at: "2.5",
             message: "expected an integer, found 2.5"),
        Case(json: #"{"map": {"tiles": "t", "minZoom": 10, "maxZoom": 5}, "places": [\#(place)]}"#,
             path: "map.minZoom", at: "10", message: "minZoom 10 is greater than maxZoom 5"),
        Case(json: #"{"map": {"tiles": "t", "subdomains": []}, "places": [\#(place)]}"#, path: "map.subdomains",
             at: "[]", message: "subdomains must not be empty"),
        Case(json: #"{"map": {"tiles": "t", "subdomains": "abc"}, "places": [\#(place)]}"#, path: "map.subdomains",
             at: #""abc""#, message: "expected an array of strings, found a string"),
        Case(json: #"{"map": {"tiles": "t", "subdomains": ["a", 1]}, "places": [\#(place)]}"#,
             path: "map.subdomains[1]", at: "1]", message: "expected a string, found a number"),
        Case(json: #"{"map": {"tiles": "t", "subdomains": ["a", ""]}, "places": [\#(place)]}"#,
             path: "map.subdomains[1]", at: #""""#, message: "a subdomain must not be empty"),
        Case(json: #"{"map": {"tiles": "t", "attribution": 5}, "places": [\#(place)]}"#, path: "map.attribution",
             at: "5", message: "expected a string, found a number"),
        Case(json: #"{"map": {"tiles": "t", "contact": false}, "places": [\#(place)]}"#, path: "map.contact",
             at: "false", message: "expected a string, found a boolean"),
        // Unknown keys point at the key.
        Case(json: #"{"dwel": 3, "places": [\#(place)]}"#, path: "dwel", at: #""dwel""#,
             message: "unknown key 'dwel'", hint: "did you mean 'dwell'?"),
        Case(json: #"{"Title": "x", "places": [\#(place)]}"#, path: "Title", at: #""Title""#,
             message: "unknown key 'Title'", hint: "did you mean 'title'?"),
        Case(json: #"{"fps": 30, "places": [\#(place)]}"#, path: "fps", at: #""fps""#,
             message: "unknown key 'fps'", hint: "'fps' belongs in video"),
        Case(json: #"{"places": [{"lat": 1, "lng": 2}]}"#, path: "places[0].lng", at: #""lng""#,
             message: "unknown key 'lng'", hint: "did you mean 'lon'?"),
        Case(json: #"{"places": [{"lat": 1, "lon": 2, "zom": 4}]}"#, path: "places[0].zom", at: #""zom""#,
             message: "unknown key 'zom'", hint: "did you mean 'zoom'?"),
        Case(json: #"{"video": {"fsp": 30}, "places": [\#(place)]}"#, path: "video.fsp", at: #""fsp""#,
             message: "unknown key 'fsp'", hint: "did you mean 'fps'?"),
        Case(json: #"{"map": {"tile": "t"}, "places": [\#(place)]}"#, path: "map.tile", at: #""tile""#,
             message: "unknown key 'tile'", hint: "did you mean 'tiles'?"),
        Case(json: #"{"map": {"tiles": "t", "maxzoom": 3}, "places": [\#(place)]}"#, path: "map.maxzoom",
             at: #""maxzoom""#, message: "unknown key 'maxzoom'", hint: "did you mean 'maxZoom'?"),
        Case(json: #"{"soundtrack": "x.mp3", "places": [\#(place)]}"#, path: "soundtrack", at: #""soundtrack""#,
             message: "unknown key 'soundtrack'",
             hint: "did you mean 'audio'?"),
        Case(json: #"{"colour": "red", "places": [\#(place)]}"#, path: "colour", at: #""colour""#,
             message: "unknown key 'colour'",
             hint: "allowed keys here: title, dwell, flight, video, map, background, audio, voices, style, route, vehicle, end, outro, distance, opening, closing, places, tracks, playback, backgroundTracks, privacy, units, camera, presenter, readouts, scaleBar, northArrow, watermark, photos"),
        // JSON errors come through with the scene's file name.
        Case(json: "{\"places\": [\(place)],}", path: "", at: ",}", message: "trailing comma before '}'"),
    ]

    @Test(arguments: cases)
    func rejects(_ c: Case) throws {
        let error = try #require(decodeError(c.json, file: "bad.json"))
        let expected = try #require(position(of: c.at, in: c.json, occurrence: c.occurrence))
        #expect(error.file == "bad.json")
        #expect(error.path == c.path)
        #expect(error.line == expected.line)
        #expect(error.column == expected.column, "\(error)")
        #expect(error.message.contains(c.message), "\(error.message)")
        if let hint = c.hint { #expect(error.hint == hint) }
    }

    @Test func aTimeWithAnUnknownUnitOrWhereNoTimeBelongsHasNoSecondsHint() throws {
        for json in [#"{"places": [{"lat": 1, "lon": 2, "dwell": "3 parsecs"}]}"#,
                     #"{"places": [{"lat": 1, "lon": 2, "dwell": "s"}]}"#,
                     #"{"places": [{"lat": "3s", "lon": 2}]}"#] {
            let error = try #require(decodeError(json, file: "bad.json"))
            #expect(error.message == "expected a number, found a string", "\(json)")
            #expect(error.hint == nil, "\(json): \(error)")
        }
    }

    @Test func errorsPointAcrossLines() throws {
        let json = """
        {
          "title": "Trip",
          "places": [
            { "name": "Seoul", "lat": 37.5665, "lon": 126.978 },
            { "name": "Nowhere", "lat": 95, "lon": 129 }
          ]
        }
        """
        let error = try #require(decodeError(json))
        #expect((error.line, error.column) == (5, 33))
        #expect(error.path == "places[1].lat")
        #expect(error.description == "trip.json:5:33: places[1].lat: latitude 95 is outside [-90, 90]")
    }

    /// A graticule step bounds the lines drawn (a step of 1e-9 degrees asked for billions of lines):
    /// finer than a tenth of a degree is refused where it is written.
    @Test(arguments: [1e-9, 0.0001, 0.05, 0.0999])
    func aGraticuleFinerThanATenthOfADegreeIsRefused(step: Double) throws {
        let json = """
        {
          "map": { "graticule": \(step) },
          "places": [ { "lat": 37.5, "lon": 127 } ]
        }
        """
        let error = try #require(decodeError(json))
        #expect((error.line, error.column, error.path) == (2, 25, "map.graticule"))
        #expect(error.message.contains("is outside [0.1, 90]"), "\(error)")
        #expect(error.hint?.contains("0.1 is the finest") == true)
    }

    /// A message quotes at most an excerpt of what the scene says: a million-character key or value
    /// gives a line of a few hundred characters that still says where and what.
    @Test(arguments: ["key", "name", "vehicle"])
    func longInputIsQuotedAsAnExcerpt(_ where_: String) throws {
        let long = String(repeating: "k", count: 1_000_000)
        let json = switch where_ {
        case "key": #"{"places": [{"lat": 1, "lon": 2, "\#(long)": 3}]}"#
        case "name": #"{"places": [{"lat": 1, "lon": 2, "name": "\#(long)", "zoom": "\#(long)"}]}"#
        default: #"{"places": [{"lat": 1, "lon": 2, "vehicle": 5, "caption": 7, "\#(long)\#(long)": 1}]}"#
        }
        let errors = decodeErrors(json)
        #expect(!errors.isEmpty)
        for error in errors {
            #expect(error.description.count < 2_500, "\(error.description.prefix(300))")
            #expect(error.line == 1 && error.column > 0)
            #expect(error.path.hasPrefix("places[0]."))
        }
        if where_ == "key" {
            let error = try #require(errors.first)
            #expect(error.message.hasPrefix("unknown key 'kkkk"))
            #expect(error.message.contains("characters]"), "\(error.message)")
        }
    }

    @Test func missingKeyPointsAtTheEnclosingObject() throws {
        let json = """
        {"places": [
            {"lat": 1, "lon": 2},
            {"name": "B",
             "latitude": 3, "lon": 4}
        ]}
        """
        // The unknown key is the one problem: its hint explains the missing one.
        let errors = decodeErrors(json)
        #expect(errors.count == 1, "\(errors)")
        let unknown = try #require(errors.first)
        #expect((unknown.line, unknown.column) == (4, 6))
        #expect(unknown.hint == "did you mean 'lat'?")
        let missing = try #require(decodeError(json.replacingOccurrences(of: "\"latitude\": 3, ", with: "")))
        #expect((missing.line, missing.column) == (3, 5))
        #expect(missing.path == "places[1]")
        #expect(missing.message == "lon is given without lat")
        #expect(missing.hint == "give both, or neither to look 'B' up")
    }

    @Test func suggestions() {
        #expect(SceneLoader.suggestion(for: "dwel", among: SceneLoader.placeKeys) == "dwell")
        #expect(SceneLoader.suggestion(for: "flihgt", among: SceneLoader.placeKeys) == "flight")
        #expect(SceneLoader.suggestion(for: "latitude", among: SceneLoader.placeKeys) == "lat")
        #expect(SceneLoader.suggestion(for: "Longitude", among: SceneLoader.placeKeys) == "lon")
        #expect(SceneLoader.suggestion(for: "colour", among: SceneLoader.placeKeys) == nil)
        #expect(SceneLoader.suggestion(for: "x", among: SceneLoader.videoKeys) == nil)
        #expect(EditDistance.between("fps", "fsp") == 1)
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.between("", "abc") == 3)
        #expect(EditDistance.between("kitten", "sitting", atMost: 2) == nil)
        #expect(EditDistance.between("kitten", "sitting", atMost: 3) == 3)
        #expect(EditDistance.between("ab", "abcdef", atMost: 3) == nil)
        // A swap counts once where it is not the cheapest path's only one.
        #expect(EditDistance.between("paris", "pairs") == 1)
        #expect(EditDistance.between("ca", "abc") == 3)
    }

    @Test func loadsFromAFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("trip.json")
        try Data(Self.full.utf8).write(to: url)
        #expect(try SceneLoader.load(contentsOf: url).places.count == 2)

        try Data("{\"places\": 1}".utf8).write(to: url)
        let typeError = #expect(throws: SceneErrors.self) { try SceneLoader.load(contentsOf: url) }?.first
        #expect(typeError?.file == url.path)
        #expect(typeError?.line == 1)
    }

    /// A 1 GB scene was read whole into 2.1 GB: a file over the cap is refused before it is read
    /// (a sparse file: its size is all there is to it), one under it is read.
    @Test func aSceneOverTheSizeCapIsRefusedUnread() throws {
        try TemporaryFolder.with("scene-cap") { dir in
            let url = dir.appendingPathComponent("huge.json")
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data("{\"places\": []}".utf8)))
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(SceneLoader.maxSceneBytes) + 1)
            try handle.close()
            let error = try #require(SceneLoader.check(contentsOf: url).errors.first)
            #expect(error.description == "\(url.path): the scene is 32 MB, over the 32 MB a scene file may be (a scene lists places and settings; is this the right file?)")
            let fits = dir.appendingPathComponent("fits.json")
            try Data(Self.full.utf8).write(to: fits)
            #expect(try SceneLoader.load(contentsOf: fits).places.count == 2)
        }
    }

    @Test func unreadableFiles() throws {
        let missing = URL(fileURLWithPath: "no-such-dir/trip.json")
        let error = try #require(#expect(throws: SceneErrors.self) { try SceneLoader.load(contentsOf: missing) }?.first)
        #expect(error.file == "no-such-dir/trip.json")
        #expect((error.line, error.column) == (0, 0))
        #expect(error.message.contains("no such file"))
        #expect(error.description == "no-such-dir/trip.json: cannot read the scene: no such file (check the name; a relative "
                + "path starts in the folder maptrip runs in)")
        #expect(error.localizedDescription == error.description)

        let directory = FileManager.default.temporaryDirectory
        let dirError = try #require(#expect(throws: SceneErrors.self) { try SceneLoader.load(contentsOf: directory) }?.first)
        #expect(dirError.message.contains("directory"))
    }

    /// With a path policy (batch renders), sound, tiles and pictures a scene names must be inside its
    /// folder or an allowed one; each one outside is an error at its own position. Without one, anything.
    @Test func pathPolicyConfinesEveryFileASceneNames() throws {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("maptrip-paths-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: root) }
        let folder = root.appendingPathComponent("scene"), other = root.appendingPathComponent("other")
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        try fm.createDirectory(at: other, withIntermediateDirectories: true)
        let text = """
            {
              "audio": "../other/music.mp3",
              "map": { "tiles": "file://\(other.path)/tiles", "attribution": "t" },
              "places": [ { "lat": 1, "lon": 2 }, { "lat": 3, "lon": 4, "photo": "sub/../../other/p.jpg" } ]
            }
            """
        let url = folder.appendingPathComponent("trip.json")
        try Data(text.utf8).write(to: url)
        let report = SceneLoader.check(contentsOf: url, paths: PathPolicy())
        #expect(report.errors.map(\.path) == ["audio", "map.tiles", "places[1].photo"], "\(report.errors)")
        #expect(report.errors.map(\.line) == [2, 3, 4])
        #expect(report.errors[0].message == "sound file '../other/music.mp3' is outside the scene's folder")
        // Allowing the other folder admits all three (the photo then fails only for not existing).
        let allowed = SceneLoader.check(contentsOf: url, paths: PathPolicy(allowed: [other]))
        #expect(allowed.errors.map(\.message) == ["photo 'sub/../../other/p.jpg' not found"], "\(allowed.errors)")
        #expect(SceneLoader.check(contentsOf: url).errors.map(\.path) == ["places[1].photo"])
        // Inside, by any spelling.
        let policy = PathPolicy()
        #expect(policy.permits("a/../b.jpg", sceneFolder: folder))
        #expect(policy.permits(folder.appendingPathComponent("x.png").path, sceneFolder: folder))
        #expect(!policy.permits("../scene-other/x.png", sceneFolder: folder))
    }
}
