import Foundation
import MapTripSupport
import MapTripScene
import SQLite

/// A country as the gazetteer knows it.
public struct GazetteerCountry: Equatable, Hashable, Sendable, Codable {
    /// ISO 3166-1 alpha-2, e.g. "KR".
    public var code: String
    /// ISO 3166-1 alpha-3, e.g. "KOR".
    public var iso3: String
    /// The English name, e.g. "South Korea".
    public var name: String
}

/// What can go wrong opening or asking the gazetteer.
public enum GazetteerError: Error, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    /// There is no gazetteer file at the path.
    case missing(path: String)
    /// The file is there but is not a gazetteer this version reads.
    case unreadable(path: String, reason: String)
    /// A country filter that names no country; nearest country names first.
    case unknownCountry(String, suggestions: [String])
    /// No place has the name (in the country, when given); nearest spellings first.
    case noPlace(String, country: GazetteerCountry?, suggestions: [String])

    public var description: String {
        switch self {
        case .missing(let path):
            return "no gazetteer at \(path) (build it with tools/build-gazetteer.py)"
        case .unreadable(let path, let reason):
            return "\(path) is not a maptrip gazetteer: \(reason) (rebuild it with tools/build-gazetteer.py)"
        case .unknownCountry(let text, let suggestions):
            return "no country called '\(text)'" + Self.didYouMean(suggestions)
                + (suggestions.isEmpty ? " (give an ISO code such as FR, or a name such as France)" : "")
        case .noPlace(let name, let country, let suggestions):
            var line = "no place called '\(name)'"
            if let country { line += " in \(country.name) (\(country.code))" }
            return line + Self.didYouMean(suggestions)
        }
    }

    /// ` (did you mean 'A', 'B' or 'C'?)`, or nothing when there are no suggestions.
    static func didYouMean(_ suggestions: [String]) -> String {
        guard !suggestions.isEmpty else { return "" }
        return " (did you mean \(Wording.alternatives(suggestions.map { "'\($0)'" }))?)"
    }
}

/// Places by name, offline: GeoNames' 34,000 places of more than 15,000 people, under every name
/// GeoNames lists for them (any script), in `Assets/gazetteer.sqlite` (built by
/// `tools/build-gazetteer.py`). Names are compared by `NameKey`: case, accents and punctuation do not
/// matter. Opening reads only the lists of countries and named regions (a few hundred rows); every
/// lookup is a search of the index of names. Safe to share between threads (one lookup at a time).
public final class Gazetteer: PlaceResolver, @unchecked Sendable {
    /// The gazetteer's file name in the Assets folder.
    public static let fileName = "gazetteer.sqlite"
    /// The schema this code reads (`meta.schema` in the file).
    public static let schemaVersion = "2"

    /// The file opened.
    public let url: URL
    /// Every country, by ISO alpha-2 code.
    public let countries: [GazetteerCountry]
    /// The data's credit line, as its licence (CC BY 4.0) asks: "GeoNames, geonames.org".
    public let credit: String

    private let countriesByCode: [String: GazetteerCountry]
    /// Normalized alpha-2, alpha-3, name and aliases -> alpha-2.
    private let countryKeys: [String: String]
    /// The regions known by name: "country region" (alpha-2, GeoNames admin1 code) -> name, abbreviation.
    private let regions: [String: (name: String, abbreviation: String)]
    /// Guards the connection and its statements, which are not for concurrent use.
    private let lock = NSLock()
    private let database: Database
    private let exactStatement: Statement
    private let prefixStatement: Statement
    private let keyRangeStatement: Statement

    /// Opens `Assets/gazetteer.sqlite` in the Assets folder, read-only.
    public convenience init(assets: URL) throws {
        try self.init(file: assets.appendingPathComponent(Self.fileName))
    }

    /// Opens a gazetteer file, read-only.
    public init(file: URL) throws {
        url = file
        guard FileManager.default.fileExists(atPath: file.path) else { throw GazetteerError.missing(path: file.path) }
        do {
            database = try Database(path: file.path, mode: .readOnly)
            guard try database.tableExists("meta"), try database.tableExists("names") else {
                throw GazetteerError.unreadable(path: file.path, reason: "no meta or names table")
            }
            var meta: [String: String] = [:]
            let m = try database.prepare("SELECT key, value FROM meta")
            while try m.step() { meta[m.text(0) ?? ""] = m.text(1) ?? "" }
            guard meta["schema"] == Self.schemaVersion else {
                throw GazetteerError.unreadable(
                    path: file.path, reason: "schema \(meta["schema"] ?? "none"), expected \(Self.schemaVersion)")
            }
            credit = meta["credit"] ?? "GeoNames, geonames.org"

            var countries: [GazetteerCountry] = []
            let c = try database.prepare("SELECT code, iso3, name FROM countries ORDER BY code")
            while try c.step() {
                countries.append(GazetteerCountry(code: c.text(0) ?? "", iso3: c.text(1) ?? "", name: c.text(2) ?? ""))
            }
            self.countries = countries
            countriesByCode = Dictionary(countries.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
            var keys: [String: String] = [:]
            let k = try database.prepare("SELECT key, code FROM country_names")
            while try k.step() { keys[k.text(0) ?? ""] = k.text(1) ?? "" }
            countryKeys = keys
            var regions: [String: (name: String, abbreviation: String)] = [:]
            let r = try database.prepare("SELECT country, code, name, abbreviation FROM regions")
            while try r.step() { regions["\(r.text(0) ?? "") \(r.text(1) ?? "")"] = (r.text(2) ?? "", r.text(3) ?? "") }
            self.regions = regions

            let columns = "p.id, p.name, p.country, p.population, p.lat, p.lon, p.region"
            exactStatement = try database.prepare("""
                SELECT \(columns) FROM names n JOIN places p ON p.id = n.place
                WHERE n.key = ?1 AND (?2 IS NULL OR p.country = ?2)
                ORDER BY p.population DESC, p.id
                """)
            prefixStatement = try database.prepare("""
                SELECT \(columns) FROM places p
                WHERE p.id IN (SELECT place FROM names WHERE key > ?1 AND key < ?2)
                  AND (?3 IS NULL OR p.country = ?3)
                ORDER BY p.population DESC, p.id LIMIT ?4
                """)
            keyRangeStatement = try database.prepare(
                """
                SELECT DISTINCT key FROM names
                WHERE key >= ?1 AND key < ?2 AND length(key) BETWEEN ?3 AND ?4 ORDER BY key
                """)
        } catch let error as GazetteerError {
            throw error
        } catch {
            throw GazetteerError.unreadable(path: file.path, reason: "\(error)")
        }
    }

    // MARK: Countries

    /// The country `text` names: its ISO alpha-2 or alpha-3 code or its English name (a few common
    /// other forms too, such as "USA" or "UK"), in any case, with or without accents.
    public func country(_ text: String) -> GazetteerCountry? {
        countryKeys[NameKey.normalize(text)].flatMap { countriesByCode[$0] }
    }

    /// The country a filter names (nil for no filter); throws `unknownCountry` for one it does not know.
    func countryFilter(_ text: String?) throws -> GazetteerCountry? {
        guard let text else { return nil }
        if let found = country(text) { return found }
        throw GazetteerError.unknownCountry(text, suggestions: countrySuggestions(for: text, limit: 3))
    }

    /// Country names nearest to `text` in spelling.
    func countrySuggestions(for text: String, limit: Int) -> [String] {
        let q = Array(NameKey.normalize(text).unicodeScalars)
        guard !q.isEmpty else { return [] }
        let bound = Self.maxDistance(q.count)
        var best: [String: Int] = [:]  // code -> distance
        for (key, code) in countryKeys {
            guard let d = EditDistance.between(q, Array(key.unicodeScalars), atMost: bound) else { continue }
            best[code] = min(best[code] ?? d, d)
        }
        return best.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(limit)
            .compactMap { countriesByCode[$0.key]?.name }
    }

    // MARK: Places

    /// Every place called `name` (any of its names, in any script; case, accents and punctuation
    /// ignored), in `country` when given (ISO code or name, see `country(_:)`), most populous first.
    /// Throws `GazetteerError.unknownCountry` for a country it does not know.
    public func matches(for name: String, country: String?) throws -> [GazetteerPlace] {
        let filter = try countryFilter(country)
        let key = NameKey.normalize(name)
        guard !key.isEmpty else { return [] }
        return try locked { try exact(key, country: filter?.code).map(\.place) }
    }

    /// Places for a search box: those called `text` (as `matches`) first, then those with a name that
    /// starts with it ("seo" finds Seoul), each group most populous first; at most `limit`.
    public func search(_ text: String, country: String?, limit: Int) throws -> [GazetteerPlace] {
        let filter = try countryFilter(country)
        let key = NameKey.normalize(text)
        guard !key.isEmpty, limit > 0 else { return [] }
        return try locked {
            var rows = Array(try exact(key, country: filter?.code).prefix(limit))
            if rows.count < limit {
                let seen = Set(rows.map(\.id))
                let more = try prefixed(key, country: filter?.code, limit: limit + seen.count)
                rows += more.filter { !seen.contains($0.id) }.prefix(limit - rows.count)
            }
            return rows.map(\.place)
        }
    }

    /// The nearest spellings to `name` among the places' names (in `country` when given), for "did
    /// you mean": names within a few edits (one per three letters, at least one, at most three),
    /// fewest edits first, then the most populous place. Each suggestion is the main name of a place
    /// (so "Moskwa" suggests "Moscow"), and resolves.
    ///
    /// Candidates are the names that start with the same letter and have a length within reach: one
    /// range of the names index (at most a sixteenth of the names, for "s"), never a scan of every
    /// name. A misspelt first letter is therefore not corrected.
    public func suggestions(for name: String, country: String?, limit: Int) throws -> [String] {
        let filter = try countryFilter(country)
        let q = Array(NameKey.normalize(name).unicodeScalars)
        guard let first = q.first, limit > 0 else { return [] }
        let bound = Self.maxDistance(q.count)
        return try locked {
            var near: [(key: String, distance: Int)] = []
            try keys(from: String(first), to: String(first) + Self.last,
                     length: max(1, q.count - bound)...(q.count + bound)) { key in
                if let d = EditDistance.between(q, Array(key.unicodeScalars), atMost: bound) {
                    near.append((key, d))
                }
            }
            var best: [String: (distance: Int, population: Int)] = [:]  // suggestion -> its rank
            for (key, d) in near {
                for row in try exact(key, country: filter?.code) {
                    let name = row.place.name
                    if let old = best[name], (old.distance, -old.population) <= (d, -row.place.population) { continue }
                    best[name] = (d, row.place.population)
                }
            }
            return best.sorted {
                ($0.value.distance, -$0.value.population, $0.key) < ($1.value.distance, -$1.value.population, $1.key)
            }.prefix(limit).map(\.key)
        }
    }

    /// Every place with at least `minPopulation` people, most populous first (ties in GeoNames
    /// order): the towns a map names for context. One scan of the places table (34,000 rows).
    public func towns(minPopulation: Int = 0) throws -> [GazetteerPlace] {
        try locked {
            let s = try database.prepare("""
                SELECT p.id, p.name, p.country, p.population, p.lat, p.lon, p.region FROM places p
                WHERE p.population >= ?1 ORDER BY p.population DESC, p.id
                """)
            try s.bind(.integer(Int64(minPopulation)))
            var rows: [GazetteerPlace] = []
            while try s.step() { rows.append(row(s).place) }
            return rows
        }
    }

    // MARK: Queries (call with the lock held)

    private struct Row {
        var id: Int
        var place: GazetteerPlace
    }

    /// The largest code point: `prefix + last` is above every key that starts with `prefix`.
    private static let last = "\u{10FFFF}"

    /// Edits allowed for a suggestion: one per three letters, at least one, at most three.
    static func maxDistance(_ length: Int) -> Int { max(1, min(3, length / 3)) }

    private func locked<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func row(_ s: Statement) -> Row {
        let code = s.text(2) ?? "", region = s.text(6).flatMap { $0.isEmpty ? nil : $0 }
        let named = region.flatMap { regions["\(code) \($0)"] }
        return Row(id: s.int(0), place: GazetteerPlace(
            name: s.text(1) ?? "", country: code, countryName: countriesByCode[code]?.name ?? code,
            population: s.int(3), lat: s.double(4), lon: s.double(5),
            region: region, regionName: named?.name, regionAbbreviation: named?.abbreviation))
    }

    private func exact(_ key: String, country: String?) throws -> [Row] {
        let s = exactStatement
        try s.reset()
        try s.bind(.text(key), country.map { .text($0) } ?? .null)
        var rows: [Row] = []
        while try s.step() { rows.append(row(s)) }
        return rows
    }

    private func prefixed(_ key: String, country: String?, limit: Int) throws -> [Row] {
        let s = prefixStatement
        try s.reset()
        try s.bind(.text(key), .text(key + Self.last), country.map { .text($0) } ?? .null, .integer(Int64(limit)))
        var rows: [Row] = []
        while try s.step() { rows.append(row(s)) }
        return rows
    }

    /// Calls `body` with each distinct key in [from, to) whose length (in code points) is in `length`.
    private func keys(from: String, to: String, length: ClosedRange<Int>, _ body: (String) throws -> Void) throws {
        let s = keyRangeStatement
        try s.reset()
        try s.bind(.text(from), .text(to), .integer(Int64(length.lowerBound)), .integer(Int64(length.upperBound)))
        var found: [String] = []
        while try s.step() { found.append(s.text(0) ?? "") }
        try s.reset()  // release the read before the body runs its own queries
        for key in found { try body(key) }
    }
}
