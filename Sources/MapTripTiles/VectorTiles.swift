import Foundation
import MapTripGeometry
import VectorTile
import Zlib

/// Vector tile bytes made into `VectorTileData`: gzip (or zlib) undone when the bytes start with
/// its magic number, then the Mapbox Vector Tile decoded. Both steps are bounded.
public enum VectorTiles {
    /// The pixel size a vector tile is drawn at, at its own zoom (MapLibre's convention: 512).
    public static let tileSize = 512
    /// Most bytes a tile may inflate to.
    public static let maxInflatedBytes = 64 << 20

    /// The protobuf bytes of a tile: inflated when gzipped (or zlib-wrapped), else as they are.
    public static func protobuf(_ data: Data, maxBytes: Int = maxInflatedBytes) throws -> Data {
        guard isCompressed(data) else { return data }
        do {
            return try Zlib.inflate(data, maxOutput: maxBytes)
        } catch {
            throw VectorTileError(message: "a gzipped vector tile does not inflate (\(error))")
        }
    }

    /// Decodes a tile's bytes (gzipped or not): `VectorTileError` when they are not a vector tile.
    public static func decode(_ data: Data, limits: VectorTileData.Limits = VectorTileData.Limits()) throws -> VectorTileData {
        let bytes = try protobuf(data, maxBytes: limits.maxBytes)
        if TileFormat(sniffing: bytes).map({ $0.isRaster }) == true {
            throw VectorTileError(message: "an image (\(TileFormat(sniffing: bytes)!.rawValue)), not a vector tile")
        }
        if let preview = StandardTileDecoder.textPreview(bytes) {
            throw VectorTileError(message: "not a vector tile: \(bytes.count) bytes starting \"\(preview)\"")
        }
        do {
            return try VectorTileData(data: bytes, limits: limits)
        } catch let e as MVTError {
            throw VectorTileError(message: e.description)
        }
    }

    /// gzip (1F 8B) or a zlib header (78 01/5E/9C/DA).
    static func isCompressed(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let a = data[data.startIndex], b = data[data.startIndex + 1]
        if a == 0x1F && b == 0x8B { return true }
        return a == 0x78 && (UInt16(a) << 8 | UInt16(b)) % 31 == 0
    }

    /// Whether bytes look like a vector tile: gzipped, or a protobuf starting with a layer (field 3).
    static func looksLikeVectorTile(_ data: Data) -> Bool {
        isCompressed(data) || data.first == 0x1A
    }
}

/// A tile's bytes that are not a vector tile (bad gzip, bad protobuf, an MVT breaking its spec, an image).
public struct VectorTileError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public var description: String { message }
}

/// One decoded vector tile as a view needs it: the tile asked for (`key`) and the source tile that
/// covers it (`sourceKey`: the same key within the source's zooms, its ancestor at the source's max
/// zoom beyond them: over-zoom).
public struct VectorTileView: Sendable {
    public let key: TileKey
    public let sourceKey: TileKey
    public let tile: VectorTileData

    /// Where `key` lies in the source tile, in units of the source tile (0...1 across): its top-left
    /// corner and its size (1 when `key == sourceKey`, 1/2^dz when over-zoomed by dz levels).
    public var region: (x: Double, y: Double, size: Double) {
        let dz = key.z - sourceKey.z
        guard dz > 0 else { return (0, 0, 1) }
        let n = Double(1 << dz)
        return (Double(key.x - sourceKey.x << dz) / n, Double(key.y - sourceKey.y << dz) / n, 1 / n)
    }

    /// A point of a layer of extent `extent` in the asked tile's units (0...1 across `key`, y down;
    /// points outside the tile fall outside 0...1).
    public func position(_ p: TilePoint, extent: Int) -> (x: Double, y: Double) {
        let r = region
        let e = Double(extent)
        return ((Double(p.x) / e - r.x) / r.size, (Double(p.y) / e - r.y) / r.size)
    }
}

/// A vector tile set: a source (`TileSources.make`) whose tiles are decoded once and kept (the most
/// recently used `capacity` tiles, failures included, so a bad tile is reported once), with over-zoom
/// past the source's max zoom. Safe to use from several threads.
public final class VectorTileSet: @unchecked Sendable {
    public let source: TileSource
    public let limits: VectorTileData.Limits
    public let capacity: Int

    private let lock = NSLock()
    private var cache: [TileKey: Result<VectorTileData, Error>] = [:]
    private var order: [TileKey] = []
    private var decodes = 0
    private var decodedKeys: Set<TileKey> = []

    /// `source` must hold vector tiles (`info.isVector`, or an unknown format: tiles are checked as
    /// they are decoded).
    public init(source: TileSource, capacity: Int = 256, limits: VectorTileData.Limits = VectorTileData.Limits()) throws {
        if let format = source.info.format, format.isRaster {
            throw TileError.unrecognizedSource(source.label, reason: "it holds \(format.rawValue) images, not vector tiles")
        }
        self.source = source
        self.capacity = max(1, capacity)
        self.limits = limits
    }

    public var info: TileSetInfo { source.info }

    /// Tiles decoded so far (each source tile once while it stays cached).
    public var decodeCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return decodes
    }

    /// The distinct source tiles decoded so far: `decodeCount` above it means tiles were decoded
    /// again after the cache let them go.
    public var distinctDecoded: Int {
        lock.lock()
        defer { lock.unlock() }
        return decodedKeys.count
    }

    /// The source tile that covers `key`: itself within the source's zooms, its ancestor at the
    /// source's max zoom deeper; nil above the min zoom or off the grid.
    public func sourceKey(for key: TileKey) -> TileKey? {
        guard key.isValid, key.z >= info.minZoom else { return nil }
        guard key.z > info.maxZoom else { return key }
        let dz = key.z - info.maxZoom
        return TileKey(z: info.maxZoom, x: key.x >> dz, y: key.y >> dz)
    }

    /// The decoded tiles covering `keys` (every key gets an entry: `TileError.missing` where the set
    /// has no tile, `TileError.badVectorTile` where the bytes are not a vector tile).
    public func tiles(for keys: [TileKey]) -> [TileKey: Result<VectorTileView, Error>] {
        var out: [TileKey: Result<VectorTileView, Error>] = [:]
        var wanted: [TileKey: [TileKey]] = [:]
        lock.lock()
        for key in keys where out[key] == nil {
            guard let s = sourceKey(for: key) else {
                out[key] = .failure(TileError.outOfRange(key, "outside zooms \(info.minZoom)... of \(source.label)"))
                continue
            }
            if let hit = cache[s] {
                out[key] = hit.map { VectorTileView(key: key, sourceKey: s, tile: $0) }
                touch(s)
            } else {
                wanted[s, default: []].append(key)
            }
        }
        lock.unlock()
        guard !wanted.isEmpty else { return out }
        let fetched = source.tiles(for: wanted.keys.sorted())
        var decoded: [TileKey: Result<VectorTileData, Error>] = [:]
        for (s, result) in fetched {
            decoded[s] = result.flatMap { data in
                Result { try VectorTiles.decode(data, limits: limits) }.mapError { error in
                    TileError.badVectorTile(s, "\(source.label): \(error)") as Error
                }
            }
        }
        lock.lock()
        for (s, result) in decoded {
            if cache[s] == nil {
                decodes += 1
                decodedKeys.insert(s)
            }
            cache[s] = result
            touch(s)
        }
        while order.count > capacity { cache[order.removeFirst()] = nil }
        lock.unlock()
        for (s, keys) in wanted {
            let result = decoded[s] ?? .failure(TileError.fetchFailed(s, "no answer from \(source.label)"))
            for key in keys { out[key] = result.map { VectorTileView(key: key, sourceKey: s, tile: $0) } }
        }
        return out
    }

    /// Marks `key` most recently used (the lock is held).
    private func touch(_ key: TileKey) {
        if let i = order.lastIndex(of: key) { order.remove(at: i) }
        order.append(key)
    }
}
