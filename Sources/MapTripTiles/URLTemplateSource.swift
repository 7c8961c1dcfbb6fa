import Foundation
import MapTripGeometry

/// Tiles over HTTP(S) from a URL template, fetched in parallel through `TileFetching`
/// (the cached, retrying `HTTPTileClient`).
///
/// Placeholders: `{z}`, `{x}`, `{y}` (XYZ rows), `{-y}` (TMS rows), `{s}` (one of the subdomains,
/// chosen deterministically by (x + y) mod count so a tile always comes from the same host and the
/// HTTP cache stays warm), `{r}` ("@2x" when high-density tiles are wanted, else nothing). A template
/// containing "@2x" (literally or through `{r}`) delivers 512-px tiles.
public final class URLTemplateSource: TileSource {
    public let template: String
    public let subdomains: [String]
    public let info: TileSetInfo
    /// Whether `{r}` became "@2x".
    public let highDensity: Bool
    private let fetcher: TileFetching

    /// The deepest zoom assumed when the scene gives none (OpenStreetMap's standard layer goes to 19).
    public static let defaultMaxZoom = 19

    public static let placeholders: Set<String> = ["z", "x", "y", "-y", "s", "r"]

    public init(template: String, subdomains: [String] = ["a", "b", "c"], tileSize: Int = 256,
                minZoom: Int? = nil, maxZoom: Int? = nil, attribution: String? = nil,
                highDensity: Bool = false, fetcher: TileFetching) throws {
        self.template = template
        self.subdomains = subdomains
        self.highDensity = highDensity
        self.fetcher = fetcher
        let lower = template.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw TileError.badTemplate(template, reason: "it must start with http:// or https://")
        }
        let names = Self.placeholderNames(in: template)
        for name in names where !Self.placeholders.contains(name) {
            throw TileError.badTemplate(template, reason: "unknown placeholder {\(name)}; known: {z} {x} {y} {-y} {s} {r}"
                                        + " (put keys and other values into the URL itself)")
        }
        guard names.contains("z"), names.contains("x"), names.contains("y") || names.contains("-y") else {
            throw TileError.badTemplate(template, reason: "it needs {z}, {x} and {y} (or {-y} for TMS rows)")
        }
        if names.contains("s") && subdomains.isEmpty {
            throw TileError.badTemplate(template, reason: "{s} needs map.subdomains (e.g. [\"a\", \"b\", \"c\"])")
        }
        let delivers2x = template.contains("@2x") || (names.contains("r") && highDensity)
        let size = delivers2x ? max(tileSize, 512) : tileSize
        guard size >= 16, size <= 4096 else {
            throw TileError.badTemplate(template, reason: "tile size \(size) is not a plausible tile size (256 or 512)")
        }
        let lo = max(0, minZoom ?? 0)
        let hi = min(TileMath.maxZoom, maxZoom ?? Self.defaultMaxZoom)
        guard lo <= hi else {
            throw TileError.badTemplate(template, reason: "minZoom \(lo) is above maxZoom \(hi)")
        }
        // The format from the path's extension, when it has one (query strings are ignored).
        let path = template.split(separator: "?", maxSplits: 1).first.map(String.init) ?? template
        let ext = path.split(separator: ".").last.map(String.init) ?? ""
        let format = TileFormat(name: ext)
        // Vector tiles (.pbf, .mvt) come back as served (gzipped or not; `VectorTiles.decode` inflates).
        info = TileSetInfo(minZoom: lo, maxZoom: hi, tileSize: format == .pbf ? VectorTiles.tileSize : size,
                           attribution: attribution, format: format)
        guard url(for: TileKey(z: hi, x: (1 << hi) - 1, y: (1 << hi) - 1)) != nil else {
            throw TileError.badTemplate(template, reason: "it does not make a valid URL once filled in")
        }
    }

    public var label: String { template }

    public func location(of key: TileKey) -> String? { url(for: key)?.absoluteString }

    /// The URL of a tile.
    public func url(for key: TileKey) -> URL? {
        var s = template
        s = s.replacingOccurrences(of: "{z}", with: String(key.z))
        s = s.replacingOccurrences(of: "{x}", with: String(key.x))
        s = s.replacingOccurrences(of: "{-y}", with: String(TileMath.tmsRow(key.y, zoom: key.z)))
        s = s.replacingOccurrences(of: "{y}", with: String(key.y))
        if !subdomains.isEmpty {
            let i = (key.x + key.y) % subdomains.count
            s = s.replacingOccurrences(of: "{s}", with: subdomains[i])
        }
        s = s.replacingOccurrences(of: "{r}", with: highDensity ? "@2x" : "")
        return URL(string: s)
    }

    public func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        var out: [TileKey: Result<Data, Error>] = [:]
        var byURL: [URL: [TileKey]] = [:]
        var urls: [URL] = []
        for key in keys {
            if let refusal = refusal(key, place: nil) {
                out[key] = .failure(refusal)
                continue
            }
            guard let url = url(for: key) else {
                out[key] = .failure(TileError.fetchFailed(key, "no valid URL"))
                continue
            }
            if byURL[url] == nil { urls.append(url) }
            byURL[url, default: []].append(key)
        }
        let fetched = urls.isEmpty ? [:] : fetcher.fetch(urls)
        for url in urls {
            for key in byURL[url] ?? [] {
                switch fetched[url] {
                case .success(let data)?: out[key] = .success(data)
                case .failure(HTTPTileError.notTried)?: out[key] = .failure(TileError.notTried(key))
                case .failure(let error)?: out[key] = .failure(TileError.fetchFailed(key, "\(error) (\(url.absoluteString))"))
                case nil: out[key] = .failure(TileError.fetchFailed(key, "no answer (\(url.absoluteString))"))
                }
            }
        }
        return out
    }

    /// The `{name}` placeholders in a template.
    static func placeholderNames(in template: String) -> Set<String> {
        var names = Set<String>()
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
