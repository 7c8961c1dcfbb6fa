import Foundation
import Testing
import TestSupport
@testable import MapTripSupport
@testable import MapTripGeometry
@testable import MapTripScene

/// The resolve phase: places by name through a `PlaceResolver` (a small in-memory one here; the
/// gazetteer has its own tests).
@Suite("Places by name")
struct PlacesByNameTests {
    struct Resolver: PlaceResolver {
        static let places = [
            GazetteerPlace(name: "Busan", country: "KR", countryName: "South Korea", population: 3_678_555,
                           lat: 35.10168, lon: 129.03004),
            GazetteerPlace(name: "Paris", country: "FR", countryName: "France", population: 2_138_551,
                           lat: 48.85341, lon: 2.3488, region: "11"),
            GazetteerPlace(name: "Paris", country: "US", countryName: "United States", population: 24_171,
                           lat: 33.66094, lon: -95.55551),
            GazetteerPlace(name: "Springfield", country: "US", countryName: "United States", population: 170_188,
                           lat: 37.21533, lon: -93.29824, region: "MO", regionName: "Missouri", regionAbbreviation: "MO"),
            GazetteerPlace(name: "Springfield", country: "US", countryName: "United States", population: 154_341,
                           lat: 42.10148, lon: -72.58981, region: "MA", regionName: "Massachusetts",
                           regionAbbreviation: "MA"),
            GazetteerPlace(name: "Riverside", country: "US", countryName: "United States", population: 330_063,
                           lat: 33.95335, lon: -117.39616),
            GazetteerPlace(name: "Riverside", country: "US", countryName: "United States", population: 300_000,
                           lat: 39.0, lon: -84.0),
            GazetteerPlace(name: "London", country: "CA", countryName: "Canada", population: 346_765,
                           lat: 42.98339, lon: -81.23304, region: "08", regionName: "Ontario", regionAbbreviation: "ON"),
            GazetteerPlace(name: "Montréal", country: "CA", countryName: "Canada", population: 1_600_000,
                           lat: 45.50884, lon: -73.58781, region: "10", regionName: "Quebec", regionAbbreviation: "QC"),
        ]
        static let aliases = ["부산": "Busan", "busan": "Busan", "paris": "Paris", "springfield": "Springfield",
                              "montreal": "Montréal"]

        func matches(for name: String, country: String?) throws -> [GazetteerPlace] {
            let key = Self.aliases[name] ?? Self.aliases[name.lowercased()] ?? name
            return Self.places.filter {
                $0.name == key && (country == nil || $0.country == country!.uppercased()
                                   || $0.countryName.lowercased() == country!.lowercased())
            }
        }

        func suggestions(for name: String, country: String?, limit: Int) throws -> [String] {
            Array(Set(Self.places.map(\.name)).filter { EditDistance.between($0.lowercased(), name.lowercased(), atMost: 2) != nil }
                .sorted().prefix(limit))
        }
    }

    static let resolver: SceneLoader.ResolverSource = { Resolver() }

    func decode(_ json: String) throws -> Scene {
        try SceneLoader.decode(Data(json.utf8), file: "trip.json", resolver: Self.resolver)
    }

    func errors(_ json: String) -> [SceneError] {
        SceneLoader.check(Data(json.utf8), file: "trip.json", resolver: Self.resolver).errors
    }

    @Test func aNameResolvesAndTheLabelStaysAsWritten() throws {
        let scene = try decode(#"{"places": [{"name": "부산"}, {"name": "Paris", "country": "FR", "zoom": 9}]}"#)
        #expect(scene.places[0].name == "부산")
        #expect(scene.places[0].position == LonLat(lon: 129.03004, lat: 35.10168))
        #expect(scene.places[1].name == "Paris")
        #expect(scene.places[1].position == LonLat(lon: 2.3488, lat: 48.85341))
        #expect(scene.places[1].zoom == 9)
    }

    @Test func explicitCoordinatesWin() throws {
        let scene = try decode(#"{"places": [{"name": "Busan", "lat": 10, "lon": 20}]}"#)
        #expect(scene.places[0].position == LonLat(lon: 20, lat: 10))
        // And need no gazetteer at all.
        let offline = try SceneLoader.decode(Data(#"{"places": [{"name": "Busan", "lat": 10, "lon": 20}]}"#.utf8),
                                             file: "t.json")
        #expect(offline.places[0].position == LonLat(lon: 20, lat: 10))
    }

    @Test func theMostPopulousWinsOnlyWhenItClearlyDominates() throws {
        // Paris, France has 88 times the people of Paris, Texas: it is meant.
        let paris = try decode(#"{"places": [{"name": "paris"}]}"#)
        #expect(paris.places[0].position.lat == 48.85341)
        // Two Springfields of a similar size: the scene must say which.
        let json = #"{"places": [{"lat": 1, "lon": 2}, {"name": "Springfield"}]}"#
        let found = errors(json)
        #expect(found.count == 1)
        let e = try #require(found.first)
        #expect((e.line, e.column, e.path) == (1, 44, "places[1].name"))
        #expect(e.message == "'Springfield' could be 2 places: Springfield, Missouri, United States "
                + "(\"country\": \"US\", \"region\": \"MO\"), population 170188, 37.2153, -93.2982; Springfield, "
                + "Massachusetts, United States (\"country\": \"US\", \"region\": \"MA\"), population 154341, 42.1015, -72.5898",
                "\(e)")
        #expect(e.hint == "add \"region\": \"MO\" (or another's) to the place, or give \"lat\" and \"lon\"")
        // Of one region (or none known), only coordinates tell them apart.
        let riverside = try #require(errors(#"{"places": [{"name": "Riverside"}]}"#).first)
        #expect(riverside.message.hasPrefix("'Riverside' could be 2 places: Riverside, United States (\"country\": \"US\"), "),
                "\(riverside)")
        #expect(riverside.hint == "give \"lat\" and \"lon\" to choose one")
        // Of different countries, the hint names the country key to add.
        let mixed = errors(#"{"places": [{"name": "Paris", "country": "XX"}]}"#)
        #expect(mixed.first?.message == "no place called 'Paris' in XX in the gazetteer")
    }

    @Test func aRegionChoosesAmongPlacesOfOneName() throws {
        // By abbreviation, name or GeoNames' code, whatever the case and accents.
        for (region, lat) in [("MA", 42.10148), ("massachusetts", 42.10148), ("Missouri", 37.21533), ("mo", 37.21533)] {
            let scene = try decode(#"{"places": [{"name": "Springfield", "region": "\#(region)"}]}"#)
            #expect(scene.places[0].position.lat == lat, "\(region)")
        }
        #expect(try decode(#"{"places": [{"name": "Paris", "region": "11"}]}"#).places[0].position.lat == 48.85341)
        #expect(try decode(#"{"places": [{"name": "montreal", "region": "Québec"}]}"#).places[0].position.lat == 45.50884)
        #expect(try decode(#"{"places": [{"name": "London", "country": "CA", "region": "on"}]}"#).places[0].name == "London")

        // A region the name is not in: the error is at "region" and says where the name is.
        let json = #"{"places": [{"lat": 1, "lon": 2}, {"name": "Springfield", "region": "Texas"}]}"#
        let e = try #require(errors(json).first)
        #expect((e.line, e.column, e.path) == (1, 69, "places[1].region"), "\(e)")
        #expect(e.message == "no place called 'Springfield' in region 'Texas'")
        #expect(e.hint == "'Springfield' is in Massachusetts (\"MA\") or Missouri (\"MO\")")
        // Where no place of the name has a region known by name, its code is what to write.
        let paris = try #require(errors(#"{"places": [{"name": "Paris", "country": "FR", "region": "12"}]}"#).first)
        #expect(paris.message == "no place called 'Paris' in FR in region '12'")
        #expect(paris.hint == "'Paris' in FR is in \"11\"")

        // What people call it instead, and the key out of place.
        let state = try #require(errors(#"{"places": [{"name": "Springfield", "state": "MO"}]}"#).first)
        #expect(state.message == "unknown key 'state'" && state.hint == "did you mean 'region'?", "\(state)")
        let top = errors(#"{"region": "MO", "places": [{"lat": 1, "lon": 2}]}"#)
        #expect(top.map(\.description) == ["trip.json:1:2: region: unknown key 'region' ('region' belongs in a place in \"places\")"],
                "\(top)")
    }

    @Test func countryOrRegionBesideCoordinatesIsAWarning() throws {
        let json = #"{"places": [{"name": "Springfield", "lat": 1, "lon": 2, "country": "US", "region": "IL"}, {"lat": 3, "lon": 4}]}"#
        let report = SceneLoader.check(Data(json.utf8), file: "trip.json", resolver: Self.resolver)
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.warnings.map(\.path) == ["places[0].country", "places[0].region"], "\(report.warnings)")
        #expect(report.warnings.first?.message == "country is ignored: it narrows a lookup by name, and this place gives lat and lon")
        #expect(report.warnings.last?.hint == "remove \"region\", or remove \"lat\" and \"lon\" to look the name up")
        // The coordinates win, as always.
        #expect(try decode(json).places[0].position == LonLat(lon: 2, lat: 1))
    }

    @Test func noMatchSuggestsTheNearestSpellings() throws {
        let e = try #require(errors(#"{"places": [{"name": "Bussan"}]}"#).first)
        #expect(e.message == "no place called 'Bussan' in the gazetteer")
        #expect(e.hint == "did you mean 'Busan'?")
    }

    @Test func everyUnresolvedNameIsReportedWithTheOtherErrors() throws {
        let json = #"{"dwel": 1, "places": [{"name": "Nowhere"}, {"name": "Busan", "zoom": 40}, {"name": "Elsewhere"}]}"#
        let found = errors(json)
        #expect(found.map(\.path) == ["dwel", "places[0].name", "places[1].zoom", "places[2].name"], "\(found)")
    }

    @Test func withoutAGazetteerANameIsAClearError() throws {
        let report = SceneLoader.check(Data(#"{"places": [{"name": "Busan"}, {"name": "Paris"}]}"#.utf8), file: "t.json")
        #expect(report.errors.count == 1, "one error, not one per place")
        #expect(report.errors.first?.message == "places by name need the gazetteer, which is not available here")
        struct Broken: Error, CustomStringConvertible { var description: String { "no such file" } }
        let failing = SceneLoader.check(Data(#"{"places": [{"name": "Busan"}]}"#.utf8), file: "t.json",
                                        resolver: { throw Broken() })
        #expect(failing.errors.first?.message == "cannot open the gazetteer to look places up: no such file")
    }
}
