import Foundation
import MapTripGeometry
import SQLite

/// Tiles from an MBTiles file (SQLite; https://github.com/mapbox/mbtiles-spec): a `tiles` table
/// (or view) of zoom_level, tile_column, tile_row (TMS: counted from the bottom), tile_data, and a
/// `metadata` table of name/value pairs, of which `name`, `format`, `bounds`, `minzoom`, `maxzoom`
/// and `attribution` are honoured. Opened read-only. Raster (png, jpg, webp) or vector (format pbf:
/// Mapbox Vector Tiles, gzipped or not, as stored; `VectorTiles.decode` inflates them), whose TileJSON
/// `json` row's `vector_layers` land in `info.vectorLayers`.
public final class MBTilesSource: TileSource {
    public let file: URL
    public let info: TileSetInfo
    /// The whole metadata table.
    public let metadata: [String: String]

    private let database: Database
    private let select: Statement

    /// `minZoom` / `maxZoom` narrow the file's zooms. `tileSize` is used only when no tile can be
    /// measured (the spec has no tile size; one tile's header tells).
    public init(file: URL, minZoom: Int? = nil, maxZoom: Int? = nil, tileSize: Int = 256) throws {
        self.file = file.standardizedFileURL
        let path = self.file.path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            throw TileError.badMBTiles(path, reason: "no such file")
        }
        do {
            database = try Database(path: path, mode: .readOnly)
            guard try database.tableExists("tiles") else {
                throw TileError.badMBTiles(path, reason: "not an MBTiles file (no tiles table; make one with "
                                           + "`maptrip tiles` or another MBTiles writer)")
            }
            // PRAGMA table_info works on views too (some writers deduplicate tiles behind a view).
            var columns = Set<String>()
            let columnInfo = try database.prepare("PRAGMA table_info(tiles)")
            while try columnInfo.step() { if let name = columnInfo.text(1) { columns.insert(name.lowercased()) } }
            let missing = ["zoom_level", "tile_column", "tile_row", "tile_data"].filter { !columns.contains($0) }
            guard missing.isEmpty else {
                throw TileError.badMBTiles(path, reason: "its tiles table has no \(missing.joined(separator: ", ")) column"
                                           + "\(missing.count == 1 ? "" : "s") (an MBTiles tiles table has zoom_level, tile_column, "
                                           + "tile_row and tile_data: make one with `maptrip tiles` or another MBTiles writer)")
            }
            var meta: [String: String] = [:]
            if try database.tableExists("metadata") {
                let s = try database.prepare("SELECT name, value FROM metadata")
                while try s.step() {
                    if let k = s.text(0), let v = s.text(1) { meta[k.lowercased()] = v }
                }
            }
            metadata = meta

            var lo = meta["minzoom"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            var hi = meta["maxzoom"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            if lo == nil || hi == nil {
                let s = try database.prepare("SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles")
                if try s.step(), !s.isNull(0) {
                    lo = lo ?? s.int(0)
                    hi = hi ?? s.int(1)
                }
            }
            guard let storedLo = lo, let storedHi = hi else {
                throw TileError.badMBTiles(path, reason: "it holds no tiles")
            }
            let zLo = max(storedLo, minZoom ?? 0, 0)
            let zHi = min(storedHi, maxZoom ?? TileMath.maxZoom, TileMath.maxZoom)
            guard zLo <= zHi else {
                throw TileError.badMBTiles(path, reason: "its zooms do not overlap the requested \(minZoom ?? 0)...\(maxZoom ?? TileMath.maxZoom)")
            }

            let first = try database.prepare("SELECT tile_data FROM tiles LIMIT 1")
            let sample = try first.step() ? first.blob(0) : nil
            let stated = meta["format"].flatMap(TileFormat.init(name:))
            let format = stated ?? sample.flatMap(TileFormat.init(sniffing:))
            let vector = format == .pbf || (stated == nil && sample.map(VectorTiles.looksLikeVectorTile) == true)
            var setInfo = TileSetInfo(minZoom: zLo, maxZoom: zHi,
                               tileSize: vector ? VectorTiles.tileSize
                                   : sample.flatMap(ImageHeader.size(of:)).map { max($0.width, $0.height) } ?? tileSize,
                               attribution: meta["attribution"].flatMap {
                                   $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0
                               },
                               format: vector ? .pbf : format, bounds: meta["bounds"].flatMap(GeoBounds.init(parsing:)),
                               name: meta["name"])
            setInfo.center = meta["center"].flatMap(TileSetCenter.init(parsing:))
            setInfo.vectorLayers = meta["json"].map(VectorLayerInfo.list(fromJSON:)) ?? []
            info = setInfo
            select = try database.prepare(
                "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?")
        } catch let e as SQLiteError {
            // The primary result code (the low byte of an extended one).
            switch e.code & 0xFF {
            case 26:  // SQLITE_NOTADB
                throw TileError.badMBTiles(path, reason: "not an SQLite database (\(e.message)); an .mbtiles file is "
                                           + "an SQLite database of tiles: check that the download finished")
            case 5, 6:  // SQLITE_BUSY, SQLITE_LOCKED
                throw TileError.badMBTiles(path, reason: "another program holds it locked, still writing it "
                                           + "(SQLite: \(e.message), after 2 s of waiting); let that program finish, then run again")
            case 11:  // SQLITE_CORRUPT
                throw TileError.badMBTiles(path, reason: "the database is damaged (\(e.message)); download it again")
            default:
                throw TileError.badMBTiles(path, reason: e.description)
            }
        }
    }

    public var label: String { file.path }

    public func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        var out: [TileKey: Result<Data, Error>] = [:]
        for key in keys where out[key] == nil {
            if let refusal = refusal(key, place: file.path) {
                out[key] = .failure(refusal)
                continue
            }
            do {
                try select.reset()
                try select.bind(key.z, at: 1)
                try select.bind(key.x, at: 2)
                try select.bind(TileMath.tmsRow(key.y, zoom: key.z), at: 3)
                if try select.step(), let data = select.blob(0) {
                    out[key] = .success(data)
                } else {
                    out[key] = .failure(TileError.missing(key))
                }
            } catch {
                out[key] = .failure(TileError.fetchFailed(key, "\(error)"))
            }
        }
        return out
    }
}
