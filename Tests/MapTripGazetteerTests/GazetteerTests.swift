import Foundation
import MapTripScene
import MapTripGazetteer
import Testing

/// The repository's Assets folder, found from this file.
let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Assets").standardizedFileURL

/// One gazetteer for the whole suite (it is safe to share between threads).
let gazetteer: Gazetteer = {
    do {
        return try Gazetteer(assets: assets)
    } catch {
        preconditionFailure("cannot open the gazetteer in \(assets.path): \(error)")
    }
}()

/// The places called `name`, as "Name/CC".
func found(_ name: String, country: String? = nil) throws -> [String] {
    try gazetteer.matches(for: name, country: country).map { "\($0.name)/\($0.country)" }
}

@Suite("Gazetteer: names in every script")
struct ScriptTests {
    @Test(arguments: [
        ("서울", "Seoul", "KR"),           // Hangul
        ("東京", "Tokyo", "JP"),           // Han
        ("ソウル", "Seoul", "KR"),          // Katakana
        ("Москва", "Moscow", "RU"),        // Cyrillic
        ("القاهرة", "Cairo", "EG"),        // Arabic
        ("Αθήνα", "Athens", "GR"),         // Greek, with its accent
        ("मुंबई", "Mumbai", "IN"),          // Devanagari
        ("ירושלים", "Jerusalem", "IL"),     // Hebrew
        ("กรุงเทพมหานคร", "Bangkok", "TH"),  // Thai
        ("부산", "Busan", "KR"),
        ("北京", "Beijing", "CN"),
        ("Київ", "Kyiv", "UA"),            // Ukrainian: ї loses its diaeresis like any accent
        ("თბილისი", "Tbilisi", "GE"),       // Georgian (uppercase Mtavruli folds back to it)
        ("Երևան", "Yerevan", "AM"),         // Armenian (և is a ligature: NFKD makes it եւ)
    ])
    func nameInItsOwnScript(name: String, expected: String, country: String) throws {
        let places = try gazetteer.matches(for: name, country: nil)
        let first = try #require(places.first, "no place called \(name)")
        #expect(first.name == expected && first.country == country, "\(name): \(places)")
    }

    @Test func devanagariTwoWords() throws {
        // "नई दिल्ली" (New Delhi) is also among the names of Delhi, the larger.
        #expect(try found("नई दिल्ली") == ["Delhi/IN", "New Delhi/IN"])
        #expect(try found("दिल्ली").first == "Delhi/IN")
    }

    @Test func aPlaceCarriesItsCountryAndPosition() throws {
        let seoul = try #require(try gazetteer.matches(for: "서울", country: nil).first)
        #expect(seoul.countryName == "South Korea")
        #expect(seoul.population > 9_000_000)
        #expect(abs(seoul.lat - 37.566) < 0.01 && abs(seoul.lon - 126.978) < 0.01, "\(seoul)")
        // Tokyo's kanji have no case and no accents: the key is the name itself.
        #expect(NameKey.normalize("東京") == "東京")
        #expect(NameKey.normalize("서울") == "서울")
    }

    @Test func greekWithoutAccentsAndInCapitals() throws {
        #expect(try found("ΑΘΗΝΑ").first == "Athens/GR")
        #expect(try found("αθηνα").first == "Athens/GR")
    }
}

@Suite("Gazetteer: case, accents and punctuation")
struct SpellingTests {
    @Test(arguments: ["São Paulo", "sao paulo", "SÃO PAULO", "Sao Paulo", "  sao   PAULO ", "São-Paulo", "sao_paulo"])
    func saoPaulo(_ spelling: String) throws {
        #expect(try found(spelling).first == "São Paulo/BR", "\(spelling)")
    }

    @Test(arguments: ["Zürich", "zurich", "ZURICH", "Zuerich", "Zu\u{308}rich"])
    func zurich(_ spelling: String) throws {
        #expect(try found(spelling) == ["Zürich/CH"], "\(spelling)")
    }

    @Test func lettersWithoutDecompositionAndApostrophes() throws {
        #expect(try found("Łódź").first == "Łódź/PL")
        #expect(try found("lodz").first == "Łódź/PL")
        #expect(try found("N’Djamena").first == "N'Djamena/TD")
        #expect(try found("ndjamena").first == "N'Djamena/TD")
        #expect(try found("İSTANBUL").first == "Istanbul/TR")
    }

    @Test func nothingForTextWithoutLettersOrUnknownNames() throws {
        #expect(try found("").isEmpty)
        #expect(try found(" -- ").isEmpty)
        #expect(try found("Qwxyzzy").isEmpty)
        #expect(try gazetteer.search("!!", country: nil, limit: 5).isEmpty)
    }
}

@Suite("Gazetteer: countries and ranking")
struct CountryTests {
    @Test func parisIsRankedByPopulation() throws {
        let paris = try gazetteer.matches(for: "Paris", country: nil)
        #expect(paris.map(\.country).first == "FR")
        #expect(paris.contains { $0.country == "US" && $0.lat > 33 && $0.lat < 34 }, "Paris, Texas: \(paris)")
        #expect(paris.map(\.population) == paris.map(\.population).sorted(by: >))
    }

    @Test(arguments: ["FR", "fr", "FRA", "France", "france", "FRANCE", "Fránce"])
    func parisInFrance(_ country: String) throws {
        #expect(try found("Paris", country: country) == ["Paris/FR"], "\(country)")
    }

    @Test(arguments: ["US", "us", "USA", "United States", "united states of america"])
    func parisInTheUnitedStates(_ country: String) throws {
        let places = try gazetteer.matches(for: "Paris", country: country)
        #expect(places.count == 1, "\(places)")
        #expect(places.first?.name == "Paris" && places.first?.country == "US")
        #expect(places.first.map { abs($0.lat - 33.66) < 0.01 && abs($0.lon + 95.56) < 0.01 } == true,
                "Paris, Texas: \(places)")
    }

    @Test func aCountryWithNoSuchPlaceGivesNothing() throws {
        #expect(try found("Paris", country: "KR").isEmpty)
        #expect(try found("서울", country: "JP").isEmpty)
        #expect(try found("서울", country: "South Korea") == ["Seoul/KR"])
    }

    @Test func anUnknownCountryIsAnErrorWithSuggestions() throws {
        #expect(throws: GazetteerError.unknownCountry("Frnace", suggestions: ["France"])) {
            try gazetteer.matches(for: "Paris", country: "Frnace")
        }
        let error = #expect(throws: GazetteerError.self) { try gazetteer.search("Paris", country: "Atlantis", limit: 3) }
        #expect(error?.description.hasPrefix("no country called 'Atlantis'") == true, "\(String(describing: error))")
    }

    @Test func countryLookups() throws {
        #expect(gazetteer.country("kor")?.code == "KR")
        #expect(gazetteer.country("South Korea")?.iso3 == "KOR")
        #expect(gazetteer.country("uk")?.name == "United Kingdom")
        #expect(gazetteer.country("Côte d’Ivoire")?.code == "CI")
        #expect(gazetteer.country("Narnia") == nil)
        #expect(gazetteer.countries.count == 252)
        #expect(gazetteer.credit == "GeoNames, geonames.org")
    }

    @Test func sameNameInManyPlacesMostPopulousFirst() throws {
        let springfields = try gazetteer.matches(for: "springfield", country: "US")
        #expect(springfields.count >= 5)
        #expect(springfields.map(\.population) == springfields.map(\.population).sorted(by: >))
        #expect(springfields.prefix(4).allSatisfy { $0.name == "Springfield" }, "\(springfields)")
    }

    @Test func placesCarryTheirRegion() throws {
        // GeoNames' admin1 code, with the name and abbreviation people use where the gazetteer has them.
        let springfields = try gazetteer.matches(for: "Springfield", country: "US")
        let illinois = springfields.filter { $0.isIn(region: "IL") }
        #expect(illinois.count == 1, "\(springfields)")
        let only = try #require(illinois.first)
        #expect((only.region, only.regionName, only.regionAbbreviation) == ("IL", "Illinois", "IL"))
        #expect(illinois.first.map { abs($0.lat - 39.80172) < 1e-4 } == true)
        #expect(Set(springfields.compactMap(\.regionName)).isSuperset(of: ["Missouri", "Massachusetts", "Ohio", "Oregon"]))

        let london = try #require(try gazetteer.matches(for: "London", country: "CA").first)
        #expect((london.region, london.regionName, london.regionAbbreviation) == ("08", "Ontario", "ON"))
        #expect(london.isIn(region: "ontario") && london.isIn(region: "ON") && london.isIn(region: "08"))
        #expect(!london.isIn(region: "QC"))
        let montreal = try #require(try gazetteer.matches(for: "Montréal", country: "CA").first)
        #expect(montreal.isIn(region: "Québec") && montreal.isIn(region: "quebec") && montreal.isIn(region: "QC"))
        let perths = try gazetteer.matches(for: "Perth", country: nil)
        #expect(perths.first { $0.isIn(region: "WA") }?.country == "AU", "\(perths)")
        #expect(perths.first { $0.isIn(region: "Scotland") }?.regionAbbreviation == "SCT", "\(perths)")
        // Elsewhere only the code: Paris is in Île-de-France, "11".
        let paris = try #require(try gazetteer.matches(for: "Paris", country: "FR").first)
        #expect((paris.region, paris.regionName, paris.regionKey) == ("11", nil, "11"))
    }
}

@Suite("Gazetteer: search and suggestions")
struct SearchTests {
    @Test func searchListsExactMatchesThenPrefixes() throws {
        let results = try gazetteer.search("paris", country: nil, limit: 10)
        #expect(results.prefix(3).map { "\($0.name)/\($0.country)" } == ["Paris/FR", "Parys/ZA", "Paris/US"])
        let rest = results.dropFirst(3)
        #expect(!rest.isEmpty)
        // The rest have a name that starts with "paris" ("Parisot"...), most populous first.
        #expect(rest.map(\.population) == rest.map(\.population).sorted(by: >))
        #expect(results.count == Set(results.map { "\($0.name)\($0.lat)\($0.lon)" }).count, "no place twice")
    }

    @Test func searchByPrefixInAnyScript() throws {
        #expect(try gazetteer.search("seo", country: "KR", limit: 1).first?.name == "Seoul")
        #expect(try gazetteer.search("서", country: nil, limit: 1).first?.name == "Seoul")
        // "San" is a place (exact match, first), then names starting with "san", most populous first.
        let exact = try gazetteer.matches(for: "san", country: nil)
        let six = try gazetteer.search("san", country: nil, limit: exact.count + 5)
        #expect(Array(six.prefix(exact.count)) == exact)
        let prefixed = six.dropFirst(exact.count)
        #expect(prefixed.count == 5)
        #expect(prefixed.map(\.population) == prefixed.map(\.population).sorted(by: >))
        #expect(prefixed.first?.name == "Shanghai", "its names include Sanghai: \(prefixed)")
    }

    @Test func searchHonoursTheLimitAndTheCountry() throws {
        #expect(try gazetteer.search("paris", country: nil, limit: 2).count == 2)
        #expect(try gazetteer.search("paris", country: nil, limit: 0).isEmpty)
        let texas = try gazetteer.search("paris", country: "us", limit: 10)
        #expect(texas.first?.name == "Paris" && texas.allSatisfy { $0.country == "US" }, "\(texas)")
    }

    @Test func suggestionsForMisspellings() throws {
        #expect(try gazetteer.suggestions(for: "Pariss", country: nil, limit: 3).first == "Paris")
        #expect(try gazetteer.suggestions(for: "Bussan", country: nil, limit: 3).first == "Busan")
        #expect(try gazetteer.suggestions(for: "Sooul", country: "KR", limit: 3).first == "Seoul")
        #expect(try gazetteer.suggestions(for: "Zurrich", country: nil, limit: 3).first == "Zürich")
        // Two letters swapped count as one edit: within the bound of one a four-letter name gets.
        #expect(try gazetteer.suggestions(for: "Olso", country: nil, limit: 3).first == "Oslo")
        #expect(try gazetteer.suggestions(for: "Rmoe", country: nil, limit: 3).first == "Rome")
        // Every script: one syllable wrong in Korean, one letter in Russian.
        #expect(try gazetteer.suggestions(for: "부샨", country: nil, limit: 3).first == "Busan")
        #expect(try gazetteer.suggestions(for: "Моссква", country: nil, limit: 3).first == "Moscow")
    }

    @Test func suggestionsAreRankedAndLimited() throws {
        let s = try gazetteer.suggestions(for: "Pariss", country: nil, limit: 5)
        #expect(s.count == 5 && Set(s).count == 5, "\(s)")
        let one = try gazetteer.suggestions(for: "Pariss", country: nil, limit: 1)
        #expect(one == ["Paris"])
        // In the United States, Paris (Texas) is still the nearest.
        #expect(try gazetteer.suggestions(for: "Pariss", country: "US", limit: 1) == ["Paris"])
        // Nothing near: no suggestion rather than a far one.
        #expect(try gazetteer.suggestions(for: "Qxqxqxqxqx", country: nil, limit: 3).isEmpty)
        #expect(try gazetteer.suggestions(for: "", country: nil, limit: 3).isEmpty)
    }

    @Test func suggestionsAreNamesThatResolve() throws {
        for s in try gazetteer.suggestions(for: "Tokio", country: nil, limit: 5) {
            #expect(try !gazetteer.matches(for: s, country: nil).isEmpty, "\(s)")
        }
    }

    @Test func noPlaceMessage() {
        let france = gazetteer.country("FR")
        #expect(GazetteerError.noPlace("Pariss", country: nil, suggestions: ["Paris"]).description
                == "no place called 'Pariss' (did you mean 'Paris'?)")
        #expect(GazetteerError.noPlace("X", country: france, suggestions: ["A", "B", "C"]).description
                == "no place called 'X' in France (FR) (did you mean 'A', 'B' or 'C'?)")
        #expect(GazetteerError.noPlace("X", country: nil, suggestions: []).description == "no place called 'X'")
    }
}

@Suite("Gazetteer: opening")
struct OpeningTests {
    // Speed (open + lookup, suggestions) is measured by maptrip-bench --places, not asserted here.
    @Test func openingAndOneLookupFindSeoul() throws {
        let g = try Gazetteer(assets: assets)
        #expect(try g.matches(for: "Seoul", country: nil).first?.country == "KR")
    }

    @Test func aMissingFileSaysWhatToDo() {
        let folder = URL(fileURLWithPath: "/nonexistent-maptrip-assets")
        #expect(throws: GazetteerError.missing(path: "/nonexistent-maptrip-assets/gazetteer.sqlite")) {
            try Gazetteer(assets: folder)
        }
    }

    @Test func aFileThatIsNotAGazetteerIsRefused() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-not-gazetteer-\(UUID()).sqlite")
        try Data("not a database at all, just some text that is long enough to be a header".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let error = #expect(throws: GazetteerError.self) { try Gazetteer(file: url) }
        guard case .unreadable(let path, _)? = error else {
            Issue.record("expected .unreadable, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
    }

    @Test func lookupsFromManyThreadsAgree() async throws {
        let names = ["서울", "東京", "Paris", "Москва", "sao paulo", "Zürich", "القاهرة", "Αθήνα"]
        let expected = try names.map { try gazetteer.matches(for: $0, country: nil).first?.name }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<32 {
                group.addTask {
                    let i = round % names.count
                    return try gazetteer.matches(for: names[i], country: nil).first?.name == expected[i]
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }
}
