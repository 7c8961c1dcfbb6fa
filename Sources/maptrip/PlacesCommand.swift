import ArgumentParser
import Foundation
import MapTripScene
import MapTripGazetteer
import MapTripRecord

/// `maptrip places`: the offline gazetteer (GeoNames places of more than 15,000 people).
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "Look up places by name in the offline gazetteer.",
        discussion: """
            The gazetteer holds GeoNames' places of more than 15,000 people under every name GeoNames \
            lists for them, in any script (서울, 東京, Москва, القاهرة). Case, accents and punctuation do \
            not matter: "sao paulo" finds São Paulo. Data: GeoNames, geonames.org (CC BY 4.0).
            """,
        subcommands: [Search.self])

    /// `maptrip places search TEXT`: places called TEXT, then places with a name starting with it.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "List the places called TEXT, most populous first, then those whose name starts with it.",
            discussion: """
                Prints one place a line: name, region (a state, province or nation: its name where \
                the gazetteer knows it, else GeoNames' code), country code and name, population, \
                latitude and longitude. A scene's place takes the same "country" and "region" to \
                choose among places of one name. When nothing matches, exits 1 with the nearest \
                spellings.
                """)

        @Argument(help: "A place name, in any script and any case, with or without accents.")
        var text: String

        @Option(help: "Only places in this country: an ISO code (FR, fra) or its name (France).")
        var country: String?

        @Option(help: "Only places in this state, province or nation: its name, abbreviation or GeoNames code (Illinois, IL, ON).")
        var region: String?

        @Flag(help: "Print a JSON array (name, country, countryName, region, regionName, regionAbbreviation, population, lat, lon) instead of text.")
        var json = false

        @Option(help: "At most this many places.")
        var limit = 10

        @Option(help: "The folder of maptrip's embedded data (default: found beside the program).")
        var assets: String?

        func validate() throws {
            if limit < 1 { throw ValidationError("--limit must be at least 1") }
        }

        func run() throws {
            do {
                let folder = try AssetLocator.locate(explicit: assets, environment: ProcessInfo.processInfo.environment)
                let gazetteer = try Gazetteer(assets: folder)
                // Narrowed to the region after the search: ask for every place of the names found.
                let found = try gazetteer.search(text, country: country, limit: region == nil ? limit : Int(Int32.max))
                let places = Array(region.map { r in found.filter { $0.isIn(region: r) } }?.prefix(limit) ?? found[...])
                if places.isEmpty, let region, !found.isEmpty {
                    throw ValidationError("no place called '\(text)'\(country.map { " in \($0)" } ?? "") in region '\(region)' (leave --region out to see where they are)")
                }
                if places.isEmpty {
                    throw GazetteerError.noPlace(
                        text, country: country.flatMap(gazetteer.country),
                        suggestions: try gazetteer.suggestions(for: text, country: country, limit: 3))
                }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]  // one line, as `plan --json`
                    print(String(decoding: try encoder.encode(places), as: UTF8.self))
                } else {
                    print(Self.table(places))
                }
            } catch {
                throw fail(error)
            }
        }

        /// One aligned line per place: `Springfield  Missouri (MO)  US  United States  170,188  37.21533  -93.29824`.
        static func table(_ places: [GazetteerPlace]) -> String {
            let rows = places.map { p in
                [p.name, p.regionLabel() ?? "-", p.country, p.countryName, grouped(p.population),
                 String(format: "%.5f", p.lat), String(format: "%.5f", p.lon)]
            }
            let rightAligned: Set<Int> = [4, 5, 6]
            let widths = (0..<7).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                row.enumerated().map { column, cell in
                    let pad = String(repeating: " ", count: widths[column] - cell.count)
                    return rightAligned.contains(column) ? pad + cell : cell + pad
                }.joined(separator: "  ")
            }.joined(separator: "\n")
        }

        /// `2,138,551`.
        static func grouped(_ n: Int) -> String {
            var digits = String(n.magnitude)
            var out = ""
            while digits.count > 3 {
                out = "," + digits.suffix(3) + out
                digits.removeLast(3)
            }
            return (n < 0 ? "-" : "") + digits + out
        }
    }
}
