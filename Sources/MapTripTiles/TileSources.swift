import Foundation
import MapTripSupport
import MapTripScene

/// The tile source a scene's `map` names, recognised from its `tiles` value: tiles only supply
/// data here; they are drawn by the map's layers (`TileBaseMap`, in MapTripRender).
public enum TileSources {
    /// The tile source `map.tiles` names, raster or vector (`info.isVector`), recognised by content:
    /// an `http(s)://` URL template with `{z}/{x}/{y}` (fetched with an `HTTPTileClient` made from
    /// `http`, or `fetcher`), an `http(s)://` URL without placeholders (a PMTiles archive, read with
    /// range requests), a folder of `{z}/{x}/{y}` tiles (.png, .jpg, .webp, .pbf, .mvt), an SQLite
    /// file (MBTiles, whatever its name; a missing `.mbtiles` says so) or a file starting with the
    /// PMTiles magic number (whatever its name). Relative paths (and `~/`) are resolved against `sceneDirectory`, the folder of
    /// the scene file. `highDensity`: replace `{r}` in a template with "@2x" (512-px tiles); pass true
    /// for pixel ratios of 2 and more.
    public static func make(_ map: MapSource, http: HTTPTileOptions = HTTPTileOptions(), sceneDirectory: URL,
                            highDensity: Bool = false, fetcher: TileFetching? = nil) throws -> TileSource {
        let tiles = map.tiles.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !tiles.isEmpty else { throw TileError.unrecognizedSource(map.tiles, reason: "it is empty") }
        guard map.tileSize >= 16, map.tileSize <= 4096 else {
            throw TileError.unrecognizedSource(map.tiles, reason: "map.tileSize \(map.tileSize) is not a tile size (256 or 512)")
        }
        if let lo = map.minZoom, let hi = map.maxZoom, lo > hi {
            throw TileError.unrecognizedSource(map.tiles, reason: "map.minZoom \(lo) is above map.maxZoom \(hi)")
        }
        // Tiles on disk (a folder, a template's folder, an .mbtiles file), else over HTTP(S).
        guard let local = try localTiles(map.tiles, sceneDirectory: sceneDirectory) else {
            if !tiles.contains("{") {
                // No placeholders: one file, a PMTiles archive read by ranges.
                guard let url = URL(string: tiles), url.host != nil else {
                    throw TileError.unrecognizedSource(map.tiles, reason: "not a valid URL")
                }
                let client: HTTPTileClient
                if let http = fetcher as? HTTPTileFetcher {
                    client = http.client
                } else {
                    var options = http
                    if let contact = map.contact, options.userAgent == HTTPTileClient.userAgent(contact: nil) {
                        options.userAgent = HTTPTileClient.userAgent(contact: contact)
                    }
                    client = HTTPTileClient(options: options)
                }
                do {
                    return try PMTilesSource(url: url, client: client, minZoom: map.minZoom, maxZoom: map.maxZoom)
                } catch TileError.badPMTiles(_, let reason) {
                    throw TileError.unrecognizedSource(map.tiles, reason: "a URL without {z}/{x}/{y} is read as a PMTiles "
                                                       + "archive, and this one cannot be: \(reason)")
                }
            }
            let client: TileFetching
            if let fetcher {
                client = fetcher
            } else {
                var options = http
                // A scene's contact goes into the User-Agent unless the caller already set one.
                if let contact = map.contact, options.userAgent == HTTPTileClient.userAgent(contact: nil) {
                    options.userAgent = HTTPTileClient.userAgent(contact: contact)
                }
                client = HTTPTileFetcher(client: HTTPTileClient(options: options))
            }
            return try URLTemplateSource(template: tiles, subdomains: map.subdomains, tileSize: map.tileSize,
                                         minZoom: map.minZoom, maxZoom: map.maxZoom, attribution: nil,
                                         highDensity: highDensity, fetcher: client)
        }
        let url = local.url, fileExtension = local.fileExtension, tms = local.tms
        let fm = FileManager.default
        var isDir: ObjCBool = false
        let exists = fm.fileExists(atPath: url.path, isDirectory: &isDir)
        if url.pathExtension.lowercased() == "mbtiles" && !(exists && isDir.boolValue) {
            guard exists else {
                throw TileError.unrecognizedSource(map.tiles, reason: "no such MBTiles file (looked for \(url.path))")
            }
            // SQLite would block opening a FIFO, and read a device as a database.
            if let reason = FileKind(path: url.path).notAFile {
                throw TileError.unrecognizedSource(map.tiles, reason: "\(url.path) is \(reason)")
            }
            // By content first: a PMTiles archive misnamed .mbtiles is still read.
            if let reader = try? FileRangeReader(path: url.path), let head = try? reader.read(offset: 0, length: 7),
               PMTiles.hasMagic(head) {
                return try PMTilesSource(file: url, minZoom: map.minZoom, maxZoom: map.maxZoom)
            }
            return try MBTilesSource(file: url, minZoom: map.minZoom, maxZoom: map.maxZoom, tileSize: map.tileSize)
        }
        guard exists else {
            throw TileError.unrecognizedSource(map.tiles, reason: "no such folder or file (looked for \(url.path))")
        }
        guard isDir.boolValue else {
            // A file: told apart by its first bytes.
            if let reason = FileKind(path: url.path).notAFile {
                throw TileError.unrecognizedSource(map.tiles, reason: "\(url.path) is \(reason)")
            }
            let head: Data
            do {
                let reader = try FileRangeReader(path: url.path)
                head = try reader.read(offset: 0, length: Int(min(reader.size ?? 0, 16)))
            } catch {
                throw TileError.unrecognizedSource(map.tiles, reason: "cannot read \(url.path) (\(error))")
            }
            if PMTiles.hasMagic(head) {
                return try PMTilesSource(file: url, minZoom: map.minZoom, maxZoom: map.maxZoom)
            }
            if head.starts(with: Array("SQLite format 3\0".utf8)) {
                return try MBTilesSource(file: url, minZoom: map.minZoom, maxZoom: map.maxZoom, tileSize: map.tileSize)
            }
            throw TileError.unrecognizedSource(map.tiles, reason: "\(url.path) is a file but neither an MBTiles file "
                                               + "(an SQLite database) nor a PMTiles archive (by its first bytes)")
        }
        return try FolderSource(directory: url, minZoom: map.minZoom, maxZoom: map.maxZoom,
                                fileExtension: fileExtension, tms: tms, tileSize: map.tileSize)
    }

    /// Where local tiles `tiles` (a `map.tiles` value) are: the folder (a `{z}/{x}/{y}` template's,
    /// with the tiles' extension and whether rows count from the south) or the `.mbtiles` file;
    /// nil for tiles over HTTP(S). Relative paths (and `~/`) are resolved against `sceneDirectory`.
    public static func localTiles(_ tiles: String, sceneDirectory: URL) throws
        -> (url: URL, fileExtension: String?, tms: Bool?)? {
        var pathText = tiles.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = pathText.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return nil }
        if lower.hasPrefix("file://") {
            guard let u = URL(string: pathText), u.isFileURL else {
                throw TileError.unrecognizedSource(tiles, reason: "not a valid file:// URL")
            }
            pathText = u.path
        } else if let r = lower.range(of: "://") {
            throw TileError.unrecognizedSource(tiles, reason: "the scheme \(lower[..<r.lowerBound]):// is not supported")
        }
        // A local template "dir/{z}/{x}/{y}.png" names the folder and the extension.
        var fileExtension: String?
        var tms: Bool?
        if let r = pathText.range(of: "{z}") {
            let suffix = pathText[r.lowerBound...]
            guard suffix.hasPrefix("{z}/{x}/{y}") || suffix.hasPrefix("{z}/{x}/{-y}") else {
                throw TileError.unrecognizedSource(tiles, reason: "a local tile template must end in {z}/{x}/{y}.png (or .jpg, .webp)")
            }
            tms = suffix.hasPrefix("{z}/{x}/{-y}")
            let ext = (String(suffix) as NSString).pathExtension
            fileExtension = ext.isEmpty ? nil : ext
            pathText = String(pathText[..<r.lowerBound])
            if pathText.isEmpty { pathText = "." }
        }
        return (resolve(pathText, against: sceneDirectory), fileExtension, tms)
    }

    /// Throws the error a raster map gives for a vector tile set (until vector tiles are drawn).
    public static func requireRaster(_ source: TileSource) throws {
        guard source.info.isVector else { return }
        switch source {
        case let s as MBTilesSource:
            throw TileError.badMBTiles(s.file.path, reason: "it holds vector tiles (format pbf), which cannot be drawn: use a raster MBTiles (png, jpg, webp)")
        case let s as FolderSource:
            throw TileError.badFolder(s.directory.path, reason: "it holds vector tiles (pbf/mvt), which cannot be drawn: use raster tiles")
        case let s as URLTemplateSource:
            throw TileError.badTemplate(s.template, reason: "vector tiles (pbf/mvt) cannot be drawn: use a raster (PNG, JPEG, WebP) tile URL")
        default:
            throw TileError.unrecognizedSource(source.label, reason: "it holds vector tiles, which cannot be drawn as raster tiles")
        }
    }

    /// `~/...` from $HOME, absolute as is, anything else relative to `base`.
    static func resolve(_ path: String, against base: URL) -> URL {
        if path == "~" || path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            return URL(fileURLWithPath: home + path.dropFirst(), isDirectory: false).standardizedFileURL
        }
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        return base.absoluteURL.appendingPathComponent(path).standardizedFileURL  // absolute: a relative base loses its ".." else
    }
}
