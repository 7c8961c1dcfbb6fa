import Foundation
import MapTripGeometry

/// A place in a gazetteer: what a name in a scene resolves to.
public struct GazetteerPlace: Equatable, Sendable, Codable {
    /// The place's main name in the gazetteer (the scene's label is kept as written).
    public var name: String
    /// ISO 3166-1 alpha-2 code, e.g. "KR".
    public var country: String
    /// The country's English name, e.g. "South Korea".
    public var countryName: String
    public var population: Int
    public var lat: Double
    public var lon: Double
    /// The region within the country (a state, province or nation) as GeoNames codes it ("MO", "08",
    /// "SCT"); nil when GeoNames gives none.
    public var region: String?
    /// Its name and the abbreviation people write, where the gazetteer knows them ("Ontario", "ON").
    public var regionName: String?
    public var regionAbbreviation: String?

    public init(name: String, country: String, countryName: String, population: Int, lat: Double, lon: Double,
                region: String? = nil, regionName: String? = nil, regionAbbreviation: String? = nil) {
        self.name = name
        self.country = country
        self.countryName = countryName
        self.population = population
        self.lat = lat
        self.lon = lon
        self.region = region
        self.regionName = regionName
        self.regionAbbreviation = regionAbbreviation
    }

    public var position: LonLat { LonLat(lon: lon, lat: lat) }

    /// How a scene names its region in `"region"`: the abbreviation, else GeoNames' code.
    public var regionKey: String? { regionAbbreviation ?? region }

    /// The region for people to read: `Missouri (MO)`, or the key alone where the gazetteer has no
    /// name for it; nil without a region. `quote` writes the key (`"MO"` in a scene's messages).
    public func regionLabel(quote: (String) -> String = { $0 }) -> String? {
        regionKey.map { key in regionName.map { "\($0) (\(quote(key)))" } ?? quote(key) }
    }

    /// Whether `text` names the place's region: its name, abbreviation or GeoNames code, whatever the
    /// case and accents ("quebec" is Québec's "Quebec", "on" Ontario).
    public func isIn(region text: String) -> Bool {
        let wanted = text.trimmingCharacters(in: .whitespaces)
        return [region, regionName, regionAbbreviation].contains { form in
            form.map { $0.compare(wanted, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame } ?? false
        }
    }
}

/// Finds places by name, offline. Core asks it at resolve time; the implementation (a gazetteer over
/// SQLite) lives outside Core, so Core stays free of C.
public protocol PlaceResolver: Sendable {
    /// Every place called `name` (any of its names, in any script; case- and accent-insensitive),
    /// in `country` when given (ISO alpha-2 code or the country's name), most populous first.
    func matches(for name: String, country: String?) throws -> [GazetteerPlace]
    /// The nearest spellings to `name` (for "did you mean"), best first.
    func suggestions(for name: String, country: String?, limit: Int) throws -> [String]
}
