import Foundation
import MapTripGeometry
import MapTripSupport

/// What a tile set says of itself, whatever holds it (an MBTiles file's metadata table, a folder's
/// metadata.json and first tile, a URL template and the scene's `map` section).
public struct TileSetInfo: Equatable, Sendable {
    /// The shallowest zoom the set has.
    public var minZoom: Int
    /// The deepest zoom the set has; deeper views scale these tiles up (over-zoom).
    public var maxZoom: Int
    /// Pixels across one tile (256, or 512 for high-density tiles).
    public var tileSize: Int
    /// The credit the set itself states, if any.
    public var attribution: String?
    /// The image format the set states or shows, if known.
    public var format: TileFormat?
    /// The area the set covers (MBTiles `bounds`); tiles outside it are not asked for. nil: everywhere.
    public var bounds: GeoBounds?
    /// The set's own name, if it states one.
    public var name: String?
    /// Where the set suggests a map starts (MBTiles `center`, the PMTiles header), if it says.
    public var center: TileSetCenter? = nil
    /// For vector tiles: the layers the set says its tiles hold (TileJSON `vector_layers`, from an
    /// MBTiles `json` metadata row or PMTiles metadata); empty when it does not say.
    public var vectorLayers: [VectorLayerInfo] = []

    /// Whether the tiles are Mapbox Vector Tiles (decode them with `VectorTiles.decode`).
    public var isVector: Bool { format == .pbf }

    /// A set of tiles made by maptrip itself (a style's tiles drawn for reprojection): everywhere, at
    /// every zoom from 0 to `maxZoom`.
    public static func drawn(maxZoom: Int, tileSize: Int) -> TileSetInfo {
        TileSetInfo(minZoom: 0, maxZoom: maxZoom, tileSize: tileSize, format: .png)
    }
}

/// A tile set's suggested view.
public struct TileSetCenter: Equatable, Sendable {
    public var longitude: Double
    public var latitude: Double
    public var zoom: Int
}

extension TileSetCenter {
    /// Parses `lon,lat,zoom` (MBTiles `center`).
    public init?(parsing text: String) {
        let p = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard p.count == 3, let lon = p[0], let lat = p[1], let z = p[2], lon.isFinite, lat.isFinite,
              (-180...180).contains(lon), (-90...90).contains(lat), z >= 0, z <= 30 else { return nil }
        self.init(longitude: lon, latitude: lat, zoom: Int(z))
    }
}

/// One entry of TileJSON's `vector_layers`: a layer the tiles hold, its fields and zooms.
public struct VectorLayerInfo: Equatable, Sendable {
    public var id: String
    /// Field name -> type as stated ("String", "Number", "Boolean").
    public var fields: [String: String]
    public var minZoom: Int?
    public var maxZoom: Int?
    public var description: String?

    /// The entries of a parsed `vector_layers` array; malformed entries are left out.
    public static func list(from value: Any?) -> [VectorLayerInfo] {
        guard let array = value as? [Any] else { return [] }
        return array.compactMap { item in
            guard let o = item as? [String: Any], let id = o["id"] as? String else { return nil }
            var fields: [String: String] = [:]
            for (k, v) in (o["fields"] as? [String: Any]) ?? [:] { fields[k] = (v as? String) ?? "\(v)" }
            func zoom(_ v: Any?) -> Int? {
                if let n = v as? NSNumber, n.doubleValue.isFinite, abs(n.doubleValue) < 1e6 { return n.intValue }
                return nil
            }
            return VectorLayerInfo(id: id, fields: fields, minZoom: zoom(o["minzoom"]), maxZoom: zoom(o["maxzoom"]),
                                   description: o["description"] as? String)
        }
    }

    /// The entries of a TileJSON document's text (MBTiles' `json` metadata row).
    public static func list(fromJSON text: String) -> [VectorLayerInfo] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [] }
        return list(from: object["vector_layers"])
    }
}

/// Where tiles (raster or vector) come from: a URL template over HTTP, a folder of `z/x/y` files, or an MBTiles
/// file. All answer a batch of keys at once so a remote source can fetch them in parallel. Sources
/// only supply data: the map's layers draw it.
public protocol TileSource: AnyObject {
    /// What the set says of itself: zooms, tile size, credit, format, bounds.
    var info: TileSetInfo { get }
    /// A name for messages: the template, folder or file.
    var label: String { get }
    /// The encoded bytes of each tile (valid keys: 0 <= x, y < 2^z); every key gets an entry.
    func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>]
    /// Where a tile comes from, for messages (its URL), when there is more to say than the label.
    func location(of key: TileKey) -> String?
}

extension TileSource {
    public func location(of key: TileKey) -> String? { nil }

    public var minZoom: Int { info.minZoom }
    public var maxZoom: Int { info.maxZoom }
    public var tileSize: Int { info.tileSize }
    public var attribution: String? { info.attribution }
    public var format: TileFormat? { info.format }
    public var bounds: GeoBounds? { info.bounds }

    /// Whether a tile is worth asking for: inside the zoom range and overlapping the bounds.
    public func covers(_ key: TileKey) -> Bool {
        guard key.isValid, key.z >= minZoom, key.z <= maxZoom else { return false }
        guard let b = bounds else { return true }
        return b.intersects(world: TileMath.worldBounds(of: key))
    }

    /// Why `key` cannot be asked of this source (not a tile, or outside its zooms), `place` naming the
    /// source in the message; nil when it can.
    func refusal(_ key: TileKey, place: String?) -> TileError? {
        guard !key.isValid || key.z < minZoom || key.z > maxZoom else { return nil }
        return TileError.outOfRange(key, "outside zooms \(minZoom)...\(maxZoom)" + (place.map { " of \($0)" } ?? ""))
    }
}

/// Something that fetches URLs in bulk (the HTTP client; a fake in tests).
public protocol TileFetching: AnyObject {
    func fetch(_ urls: [URL]) -> [URL: Result<Data, Error>]
}

/// Adapts `HTTPTileClient` (parallel, cached, retrying) to `TileFetching`.
public final class HTTPTileFetcher: TileFetching {
    public let client: HTTPTileClient

    public init(client: HTTPTileClient) { self.client = client }

    public func fetch(_ urls: [URL]) -> [URL: Result<Data, any Error>] {
        let results: [URL: Result<Data, HTTPTileError>] = client.fetch(urls)
        return results.mapValues { $0.mapError { $0 as any Error } }
    }
}

/// Raster tile image formats.
public enum TileFormat: String, Sendable, Equatable, CaseIterable {
    case png
    case jpeg = "jpg"
    case webp
    /// Mapbox vector tiles: not drawable here.
    case pbf

    /// From an MBTiles `format` value or a file extension ("png", "jpg", "jpeg", "webp", "pbf", "mvt").
    public init?(name: String) {
        switch name.lowercased().trimmingCharacters(in: .whitespaces) {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        case "pbf", "mvt": self = .pbf
        default: return nil
        }
    }

    /// From the first bytes of a tile.
    public init?(sniffing data: Data) {
        let h = [UInt8](data.prefix(12))
        if h.starts(with: [0x89, 0x50, 0x4E, 0x47]) { self = .png }
        else if h.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if h.count >= 12, h[0..<4] == [0x52, 0x49, 0x46, 0x46], h[8..<12] == [0x57, 0x45, 0x42, 0x50] { self = .webp }
        else if h.starts(with: [0x1F, 0x8B]) || h.first == 0x1A { self = .pbf }  // gzip'd or bare protobuf layer
        else { return nil }
    }

    /// The file extensions a tile folder may use for this format.
    public var fileExtensions: [String] {
        switch self {
        case .png: return ["png"]
        case .jpeg: return ["jpg", "jpeg"]
        case .webp: return ["webp"]
        case .pbf: return ["pbf", "mvt"]
        }
    }

    public var isRaster: Bool { self != .pbf }
}

/// Tile map failures, each saying what was expected.
public enum TileError: Error, CustomStringConvertible, Equatable, Sendable, DiagnosticConvertible {
    /// `map.tiles` names nothing usable.
    case unrecognizedSource(String, reason: String)
    /// A URL template that cannot work.
    case badTemplate(String, reason: String)
    /// A tile folder that is empty or unreadable.
    case badFolder(String, reason: String)
    /// An MBTiles file that is not one.
    case badMBTiles(String, reason: String)
    /// A PMTiles archive that cannot be read (bad header or directory, unsupported compression).
    case badPMTiles(String, reason: String)
    /// This tile does not exist in the source.
    case missing(TileKey)
    /// The key is outside the source's zooms or the grid.
    case outOfRange(TileKey, String)
    /// Fetching failed (HTTP status, timeout, I/O, SQL), with the underlying message.
    case fetchFailed(TileKey, String)
    /// Not asked for: a strict render had already met a failed tile.
    case notTried(TileKey)
    /// The bytes are not an image we can decode.
    case undecodable(TileKey, String)
    /// The bytes are not a vector tile (bad gzip, bad protobuf, an MVT breaking its specification).
    case badVectorTile(TileKey, String)
    /// `strict`: tiles failed, so the render stops.
    case tilesFailed(count: Int, examples: [String])
    /// A tile pyramid request that cannot be rendered.
    case badPyramid(String)

    /// A failure of one tile that ends reading the source (a PMTiles archive that changed on its
    /// server again after it was read anew): the render stops rather than go on with the tiles left.
    public var endsSource: Bool {
        if case .badPMTiles = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unrecognizedSource(let s, let reason):
            return "map.tiles \"\(s)\": \(reason). Expected an http(s):// URL template such as "
                + "https://tile.openstreetmap.org/{z}/{x}/{y}.png, a folder of {z}/{x}/{y}.png|jpg|webp|pbf|mvt tiles, "
                + "an .mbtiles file or a PMTiles archive (a file, or an http(s):// URL of one)"
        case .badTemplate(let t, let reason): return "map.tiles URL template \"\(t)\": \(reason)"
        case .badFolder(let p, let reason): return "tile folder \(p): \(reason)"
        case .badMBTiles(let p, let reason): return "MBTiles \(p): \(reason)"
        case .badPMTiles(let p, let reason): return "PMTiles \(p): \(reason)"
        case .missing(let k): return "tile \(k): not in the source"
        case .outOfRange(let k, let why): return "tile \(k): \(why)"
        case .fetchFailed(let k, let message): return "tile \(k): \(message)"
        case .notTried(let k): return "tile \(k): not fetched (an earlier tile failed)"
        case .undecodable(let k, let message): return "tile \(k): not a decodable image (\(message))"
        case .badVectorTile(let k, let message): return "tile \(k): \(message)"
        case .tilesFailed(let count, let examples):
            return "\(count) map tile\(count == 1 ? "" : "s") could not be loaded (strict mode): "
                + examples.joined(separator: "; ") + (count > examples.count ? "; and \(count - examples.count) more" : "")
                + " (open a tile's URL in a browser to see what the server sends, or render without --strict "
                + "to draw stand-ins for missing tiles)"
        case .badPyramid(let message): return "tile pyramid: \(message)"
        }
    }
}

/// Pixel size read from an image header, without decoding (PNG IHDR, JPEG SOFn, WebP VP8/VP8L/VP8X).
enum ImageHeader {
    static func size(of data: Data) -> (width: Int, height: Int)? {
        let b = [UInt8](data.prefix(64 * 1024))
        guard let format = TileFormat(sniffing: data) else { return nil }
        func be16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func le16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func le24(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 }
        switch format {
        case .png:
            guard b.count >= 24 else { return nil }
            let w = Int(b[16]) << 24 | Int(b[17]) << 16 | be16(18)
            let h = Int(b[20]) << 24 | Int(b[21]) << 16 | be16(22)
            return w > 0 && h > 0 ? (w, h) : nil
        case .jpeg:
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                let length = be16(i + 2)
                if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                    let h = be16(i + 5), w = be16(i + 7)
                    return w > 0 && h > 0 ? (w, h) : nil
                }
                i += 2 + length
            }
            return nil
        case .webp:
            guard b.count >= 30 else { return nil }
            let chunk = String(decoding: b[12..<16], as: UTF8.self)
            switch chunk {
            case "VP8 ": return (le16(26) & 0x3FFF, le16(28) & 0x3FFF)
            case "VP8L":
                let bits = UInt32(b[21]) | UInt32(b[22]) << 8 | UInt32(b[23]) << 16 | UInt32(b[24]) << 24
                return (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
            case "VP8X": return (le24(24) + 1, le24(27) + 1)
            default: return nil
            }
        case .pbf:
            return nil
        }
    }
}
