import Cairo
import Foundation
import MapTripSupport
import MapTripGeometry
import MapTripOutput
import MapTripRender
import MapTripTiles
import SQLite

/// What tile pyramid to render.
public struct TilePyramidOptions: Sendable, Equatable {
    public var minZoom: Int
    public var maxZoom: Int
    /// The area to cover; the whole world by default. West above east crosses the antimeridian.
    public var bounds: GeoBounds
    /// 256, or 512 (each tile then shows what four 256-px tiles of the next zoom show, as
    /// `TileMath.tileZoom` expects of 512-px tiles).
    public var tileSize: Int
    /// The MBTiles / metadata.json `name`.
    public var name: String
    /// The credit to record; nil: the base map's own.
    public var attribution: String?
    public var description: String?

    /// Refuse pyramids bigger than this (a whole-world zoom 12 is already 16.7 million tiles).
    public static let maxTiles = 2_000_000

    public init(minZoom: Int = 0, maxZoom: Int = 5, bounds: GeoBounds = .world, tileSize: Int = 256,
                name: String = "maptrip", attribution: String? = nil, description: String? = nil) {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.tileSize = tileSize
        self.name = name
        self.attribution = attribution
        self.description = description
    }
}

/// Where a pyramid goes: a folder of `{z}/{x}/{y}.png` or one `.mbtiles` file.
public enum TilePyramidOutput: Equatable, Sendable {
    case folder(URL)
    case mbtiles(URL)

    /// `.mbtiles` by extension, else a folder.
    public init(path: URL) {
        self = path.pathExtension.lowercased() == "mbtiles" ? .mbtiles(path) : .folder(path)
    }

    public var url: URL {
        switch self {
        case .folder(let u), .mbtiles(let u): return u
        }
    }
}

/// What a pyramid render did.
public struct TilePyramidSummary: Sendable, Equatable {
    public var tiles: Int
    public var bytes: Int
    public var zooms: ClosedRange<Int>
    public var output: TilePyramidOutput
    /// The base map's warnings, once.
    public var warnings: [String]
}

/// Renders a tile pyramid from any `BaseMap` (the embedded shapefile map, typically) into a tile
/// folder or an MBTiles file, which `TileBaseMap` (or any web map) can then show.
///
/// Tile (z, x, y) with 256-px tiles is the viewport 256 x 256 centred on the tile's centre at camera
/// zoom z, pixel ratio 1: its edges fall exactly on the tile's edges (the world is 256 * 2^z pixels
/// wide). A 512-px tile covers the same ground with twice the pixels: a 512 x 512 viewport at camera
/// zoom z + 1, which is what `TileMath.tileZoom` assumes when it draws 512-px tiles one zoom lower.
public final class TilePyramidWriter {
    public let baseMap: BaseMap
    public let options: TilePyramidOptions

    public init(baseMap: BaseMap, options: TilePyramidOptions) throws {
        guard options.minZoom >= 0, options.maxZoom <= 24, options.minZoom <= options.maxZoom else {
            throw TileError.badPyramid("zooms \(options.minZoom)...\(options.maxZoom): need 0 <= min-zoom <= max-zoom <= 24")
        }
        guard options.tileSize == 256 || options.tileSize == 512 else {
            throw TileError.badPyramid("tile size \(options.tileSize): use 256 or 512")
        }
        self.baseMap = baseMap
        self.options = options
        let total = tileCount
        guard total <= TilePyramidOptions.maxTiles else {
            throw TileError.badPyramid("\(total) tiles for zooms \(options.minZoom)...\(options.maxZoom) over \(options.bounds): "
                                       + "more than \(TilePyramidOptions.maxTiles); narrow --bounds or lower --max-zoom")
        }
    }

    /// The tile ranges, one per zoom.
    public var ranges: [TileRange] {
        (options.minZoom...options.maxZoom).map { TileMath.tileRange(bounds: options.bounds, zoom: $0) }
    }

    public var tileCount: Int { ranges.reduce(0) { $0 + $1.count } }

    /// Every tile, zoom by zoom, row by row (wrapped into the grid).
    public var tiles: [TileKey] { ranges.flatMap { $0.keys } }

    /// The viewport that renders one tile.
    public func viewport(for key: TileKey) -> Viewport {
        let size = options.tileSize
        let zoom = Double(key.z) + log2(Double(size) / WebMercator.tileSize)
        return Viewport(camera: Camera(center: TileMath.center(of: key), zoom: zoom), width: size, height: size, scale: 1)
    }

    /// Renders one tile to PNG bytes.
    public func renderTile(_ key: TileKey) throws -> Data {
        let surface = try ImageSurface(width: options.tileSize, height: options.tileSize)
        try surface.withContext { cr in try baseMap.draw(viewport(for: key), in: cr) }
        return try surface.pngData()
    }

    /// Renders every tile into `output`. A folder is filled in place (tiles overwritten, with a
    /// `metadata.json`), and once every tile is written the tiles of an earlier run this one did not
    /// make (deeper zooms, other bounds) are removed, so the folder holds this pyramid alone; an
    /// MBTiles file is written under a temporary name and renamed over the
    /// destination only when complete. `progress(done, total)` is called after each tile; throwing
    /// from it stops the run (an MBTiles output is then left as it was).
    @discardableResult
    public func write(to output: TilePyramidOutput, progress: ((Int, Int) throws -> Void)? = nil) throws -> TilePyramidSummary {
        let keys = tiles
        try baseMap.prepare(for: keys.map(viewport(for:)))
        var bytes = 0
        switch output {
        case .folder(let dir):
            if case let kind = FileKind(path: dir.path), kind != .missing, kind != .directory {
                throw OutputError.notWritable(dir.relativePath, reason: "it is a file, not a folder (name a new folder "
                                              + "for the tiles, or a file ending in .mbtiles)")
            }
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            for (i, key) in keys.enumerated() {
                let png = try renderTile(key)
                let folder = dir.appendingPathComponent("\(key.z)/\(key.x)", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try png.write(to: folder.appendingPathComponent("\(key.y).png"), options: .atomic)
                bytes += png.count
                try progress?(i + 1, keys.count)
            }
            Self.removeTiles(in: dir, except: Set(keys))
            let json = try JSONSerialization.data(withJSONObject: metadata(), options: [.prettyPrinted, .sortedKeys])
            try json.write(to: dir.appendingPathComponent("metadata.json"), options: .atomic)
        case .mbtiles(let file):
            bytes = try writeMBTiles(keys, to: file, progress: progress)
        }
        return TilePyramidSummary(tiles: keys.count, bytes: bytes, zooms: options.minZoom...options.maxZoom,
                                  output: output, warnings: baseMap.warnings)
    }

    /// Removes the `{z}/{x}/{y}.png` tiles under `dir` that are not in `kept`, and the `{z}` and
    /// `{z}/{x}` folders left empty. Only names of that shape are touched (numbers, `.png`): anything
    /// else in the folder stays.
    static func removeTiles(in dir: URL, except kept: Set<TileKey>) {
        let fm = FileManager.default
        func numbers(_ url: URL) -> [(Int, URL)] {
            ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).compactMap { name in
                Int(name).map { ($0, url.appendingPathComponent(name)) }.flatMap { String($0.0) == name ? $0 : nil }
            }
        }
        for (z, zURL) in numbers(dir) {
            for (x, xURL) in numbers(zURL) {
                for name in (try? fm.contentsOfDirectory(atPath: xURL.path)) ?? [] where name.hasSuffix(".png") {
                    guard let y = Int(name.dropLast(4)), "\(y).png" == name else { continue }
                    if !kept.contains(TileKey(z: z, x: x, y: y)) { try? fm.removeItem(at: xURL.appendingPathComponent(name)) }
                }
                if (try? fm.contentsOfDirectory(atPath: xURL.path))?.isEmpty == true { try? fm.removeItem(at: xURL) }
            }
            if (try? fm.contentsOfDirectory(atPath: zURL.path))?.isEmpty == true { try? fm.removeItem(at: zURL) }
        }
    }

    /// The metadata recorded with the tiles (MBTiles 1.3 names; `scheme` and `tilesize` only in metadata.json).
    func metadata(forMBTiles: Bool = false) -> [String: String] {
        let b = options.bounds
        var centerLon = (b.west + b.east) / 2
        if b.crossesAntimeridian { centerLon = WebMercator.wrapLongitude(centerLon + 180) }
        var m: [String: String] = [
            "name": options.name,
            "format": "png",
            "type": "baselayer",
            "version": "1.0",
            "minzoom": String(options.minZoom),
            "maxzoom": String(options.maxZoom),
            "bounds": b.description,
            "center": String(format: "%.6f,%.6f,%d", centerLon, (b.south + b.north) / 2, options.minZoom),
            "description": options.description ?? "Rendered by maptrip \(MapTripVersion.string)",
        ]
        if let a = options.attribution ?? baseMap.attribution, !a.isEmpty { m["attribution"] = a }
        if !forMBTiles {
            m["scheme"] = "xyz"
            m["tilesize"] = String(options.tileSize)
        }
        return m
    }

    private func writeMBTiles(_ keys: [TileKey], to file: URL, progress: ((Int, Int) throws -> Void)?) throws -> Int {
        let fm = FileManager.default
        let dir = file.deletingLastPathComponent()
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        // Named as every maptrip output's temporary file (stale ones of a killed run are removed), and
        // renamed over the destination in one step: an existing file is never missing, even for an instant.
        let temp = TemporaryFiles.name(beside: file)
        var bytes = 0
        do {
            try fillMBTiles(at: temp, keys, bytes: &bytes, progress: progress)  // the connection is closed on return
            try TemporaryFiles.commit(temp, onto: file, output: .tiles)
        } catch {
            try? fm.removeItem(at: temp)
            throw error
        }
        return bytes
    }

    private func fillMBTiles(at path: URL, _ keys: [TileKey], bytes: inout Int, progress: ((Int, Int) throws -> Void)?) throws {
        let db = try Database(path: path.path, mode: .readWriteCreate)
        try db.exec("""
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA application_id = 0x4d504258;
            CREATE TABLE metadata (name TEXT, value TEXT);
            CREATE UNIQUE INDEX name ON metadata (name);
            CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
            CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
            """)
        try db.transaction {
            let insert = try db.prepare("INSERT INTO metadata (name, value) VALUES (?, ?)")
            for (name, value) in metadata(forMBTiles: true).sorted(by: { $0.key < $1.key }) {
                try insert.run(.text(name), .text(value))
            }
        }
        let insert = try db.prepare(
            "INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
        var done = 0
        // One transaction per few hundred tiles: fast, and memory stays flat.
        for chunkStart in stride(from: 0, to: keys.count, by: 256) {
            let chunk = keys[chunkStart..<min(chunkStart + 256, keys.count)]
            try db.transaction {
                for key in chunk {
                    let png = try renderTile(key)
                    try insert.run(.integer(Int64(key.z)), .integer(Int64(key.x)),
                                   .integer(Int64(TileMath.tmsRow(key.y, zoom: key.z))), .blob(png))
                    bytes += png.count
                    done += 1
                    try progress?(done, keys.count)
                }
            }
        }
    }
}
