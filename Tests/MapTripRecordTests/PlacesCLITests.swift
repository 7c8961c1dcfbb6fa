import Foundation
import Testing

/// `maptrip places search` run as a subprocess, on the gazetteer in the repository's Assets folder.
@Suite("maptrip places CLI")
struct PlacesCLITests {
    /// Runs `maptrip places search ARGS --assets <repository Assets>` in a scratch folder.
    private func search(_ arguments: [String]) throws -> CLIResult {
        try Trip.withDirectory("places") { dir in
            try CLIProcess.run(["places", "search"] + arguments + ["--assets", Trip.assets.path], in: dir)
        }
    }

    @Test func listsPlacesMostPopulousFirst() throws {
        let result = try search(["Paris", "--limit", "3"])
        #expect(result.reason == .exit && result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result)")
        // name, region (GeoNames' code where it has no name here), code, country, population, lat, lon;
        // columns aligned.
        let fields = lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(fields.first == ["Paris", "11", "FR", "France", "2,138,551", "48.85341", "2.34880"], "\(lines)")
        #expect(fields.last?.prefix(4) == ["Paris", "Texas", "(TX)", "US"], "\(lines)")
        #expect(lines.last?.contains("United States") == true && lines.last?.hasSuffix("33.66094  -95.55551") == true,
                "\(lines)")
        #expect(Set(lines.map { $0.count }).count == 1, "aligned columns: \(lines)")
    }

    @Test func anyScriptAccentsAndCase() throws {
        for (text, expected) in [("서울", "Seoul"), ("SÃO PAULO", "São Paulo"), ("zurich", "Zürich"), ("東京", "Tokyo")] {
            let result = try search([text, "--limit", "1"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix(expected + " "), "\(text): \(result)")
        }
    }

    @Test func countryByCodeOrName() throws {
        for country in ["us", "USA", "united states"] {
            let result = try search(["Paris", "--country", country, "--limit", "1"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("Paris  Texas (TX)  US  United States"), "\(country): \(result)")
        }
        let france = try search(["paris", "--country", "france", "--json", "--limit", "1"])
        #expect(france.stdout.contains("\"country\":\"FR\""), "\(france)")
    }

    @Test func jsonIsAnArrayOfPlaces() throws {
        let result = try search(["Paris", "--json", "--limit", "3"])
        #expect(result.reason == .exit && result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.split(separator: "\n").count == 1, "one line: \(result)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 3)
        let first = try #require(array.first)
        #expect(Set(first.keys) == ["name", "country", "countryName", "region", "population", "lat", "lon"])
        #expect(first["region"] as? String == "11")
        let texas = try #require(array.last)
        #expect(texas["regionName"] as? String == "Texas" && texas["regionAbbreviation"] as? String == "TX", "\(texas)")
        #expect(first["name"] as? String == "Paris")
        #expect(first["country"] as? String == "FR")
        #expect(first["countryName"] as? String == "France")
        #expect(first["population"] as? Int == 2_138_551)
        #expect((first["lat"] as? Double).map { abs($0 - 48.85341) < 1e-9 } == true)
        #expect((first["lon"] as? Double).map { abs($0 - 2.3488) < 1e-9 } == true)
        let populations = array.compactMap { $0["population"] as? Int }
        #expect(populations == populations.sorted(by: >))
    }

    @Test func regionNarrowsTheList() throws {
        let result = try search(["Springfield", "--region", "illinois"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 && lines[0].hasPrefix("Springfield  Illinois (IL)  US  United States"), "\(result)")
        // All of them, each with its state.
        let all = try search(["Springfield", "--country", "US", "--limit", "4"])
        #expect(all.stdout.split(separator: "\n").map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
                == ["Missouri", "Massachusetts", "Illinois", "Oregon"], "\(all)")
        let nowhere = try search(["Springfield", "--region", "Texas"])
        #expect(nowhere.status == 1, "\(nowhere)")
        #expect(nowhere.stderr.hasPrefix("maptrip: error: no place called 'Springfield' in region 'Texas'"), "\(nowhere)")
    }

    @Test func noMatchExitsOneWithSuggestions() throws {
        let result = try search(["Pariss"])
        #expect(result.reason == .exit && result.status == 1, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderrLines.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("maptrip: error: no place called 'Pariss' (did you mean 'Paris'"), "\(result)")

        let busan = try search(["Bussan", "--country", "KR"])
        #expect(busan.status == 1)
        #expect(busan.stderrLines.count == 1, "\(busan)")
        #expect(busan.stderr.hasPrefix("maptrip: error: no place called 'Bussan' in South Korea (KR) (did you mean 'Busan'"),
                "\(busan)")
    }

    @Test func badCountryOrLimitIsAnError() throws {
        let country = try search(["Paris", "--country", "Frnace"])
        #expect(country.status == 1, "\(country)")
        #expect(country.stderr == "maptrip: error: no country called 'Frnace' (did you mean 'France'?)\n", "\(country)")

        let limit = try search(["Paris", "--limit", "0"])
        #expect(limit.status != 0, "\(limit)")
        #expect(limit.stderr.contains("--limit must be at least 1"), "\(limit)")
    }

    @Test func aMissingGazetteerSaysHowToBuildIt() throws {
        try Trip.withDirectory("places-assets") { dir in
            // An Assets folder with the base map's marker file but no gazetteer.
            let marker = dir.appendingPathComponent("Assets/basemap/110m/ne_110m_admin_0_countries.shp")
            try FileManager.default.createDirectory(at: marker.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try Data().write(to: marker)
            let result = try CLIProcess.run(["places", "search", "Paris", "--assets", "Assets"], in: dir)
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.hasPrefix("maptrip: error: no gazetteer at "), "\(result)")
            #expect(result.stderr.contains("tools/build-gazetteer.py"), "\(result)")
        }
    }
}
