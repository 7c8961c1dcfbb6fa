import Foundation
import MapTripSupport
import MapTripGeometry

/// Tiles in a folder laid out `dir/{z}/{x}/{y}.png` (or .jpg, .jpeg, .webp, or vector tiles as .pbf,
/// .mvt: returned as stored, gzipped or not, for `VectorTiles.decode`): what `maptrip tiles`,
/// gdal2tiles, mb-util and most tile tools write. The extension and the zooms present are
/// discovered. An optional `metadata.json` (mb-util's, and ours) gives name, attribution, bounds,
/// minzoom, maxzoom and `"scheme": "tms"`; a `tilemapresource.xml` (gdal2tiles) also means TMS rows.
public final class FolderSource: TileSource {
    public let directory: URL
    public let fileExtension: String
    public let info: TileSetInfo
    /// Rows counted from the bottom (TMS) instead of the top (XYZ).
    public let isTMS: Bool

    /// The zooms present as `{z}` subfolders, ascending.
    public let zoomsPresent: [Int]

    static let rasterExtensions = ["png", "jpg", "jpeg", "webp"]

    /// `minZoom` / `maxZoom` narrow the zooms found (they never widen them: there is nothing beyond).
    /// `fileExtension` fixes the extension instead of discovering it. `tileSize` is used only when
    /// no tile can be read to measure. `tms` forces the row order (nil: from the metadata).
    public init(directory: URL, minZoom: Int? = nil, maxZoom: Int? = nil, fileExtension: String? = nil,
                tms: Bool? = nil, tileSize: Int = 256) throws {
        let fm = FileManager.default
        let dir = directory.standardizedFileURL
        self.directory = dir
        let path = dir.path
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
            throw TileError.badFolder(path, reason: "no such folder")
        }
        let entries: [String]
        do { entries = try fm.contentsOfDirectory(atPath: path) } catch {
            throw TileError.badFolder(path, reason: "cannot list it (\(error.localizedDescription))")
        }
        let zooms = entries.compactMap { e -> Int? in
            guard let z = Int(e), String(z) == e, z >= 0, z <= TileMath.maxZoom else { return nil }
            var d: ObjCBool = false
            return fm.fileExists(atPath: dir.appendingPathComponent(e).path, isDirectory: &d) && d.boolValue ? z : nil
        }.sorted()
        guard !zooms.isEmpty else {
            throw TileError.badFolder(path, reason: "no {z}/{x}/{y} tiles in it (expected numbered zoom folders such as 0/, 1/, ...)")
        }
        zoomsPresent = zooms

        // Optional metadata.
        let meta = Self.readMetadata(dir.appendingPathComponent("metadata.json"))
        let bounds: GeoBounds?
        if let b = meta["bounds"] as? String {
            bounds = GeoBounds(parsing: b)
        } else if let a = (meta["bounds"] as? [Any])?.compactMap(Self.double), a.count == 4 {
            bounds = GeoBounds(parsing: a.map { String($0) }.joined(separator: ","))
        } else {
            bounds = nil
        }
        let scheme = (meta["scheme"] as? String)?.lowercased()
        isTMS = tms ?? (scheme == "tms")
            || (tms == nil && scheme == nil && fm.fileExists(atPath: dir.appendingPathComponent("tilemapresource.xml").path))

        // The extension: given, or the first tile file found.
        var sample: URL?
        if let given = fileExtension?.trimmingCharacters(in: CharacterSet(charactersIn: ".")) {
            self.fileExtension = given
            sample = Self.findTile(in: dir, zooms: zooms, extensions: [given.lowercased()])
        } else {
            sample = Self.findTile(in: dir, zooms: zooms, extensions: Self.rasterExtensions + ["pbf", "mvt"])
            guard let s = sample else {
                throw TileError.badFolder(path, reason: "no .png, .jpg, .jpeg, .webp, .pbf or .mvt tiles under its zoom folders")
            }
            self.fileExtension = s.pathExtension  // as spelled on disk: paths are case-sensitive
        }
        let sampleData = sample.flatMap { FileKind(path: $0.path) == .regular ? try? Data(contentsOf: $0) : nil }
        let named = TileFormat(name: self.fileExtension.lowercased())
        let sniffed = sampleData.flatMap(TileFormat.init(sniffing:))
        // A .pbf/.mvt file is a vector tile whatever its first byte (an uncompressed tile starts with
        // any layer field); an image extension is checked against the bytes.
        let format = named == .pbf ? .pbf : sniffed ?? named ?? (meta["format"] as? String).flatMap(TileFormat.init(name:))
        let measured = format == .pbf ? VectorTiles.tileSize
            : sampleData.flatMap(ImageHeader.size(of:)).map { max($0.width, $0.height) }

        var lo = zooms.first!, hi = zooms.last!
        if let m = meta["minzoom"].flatMap(Self.int) { lo = max(lo, m) }
        if let m = meta["maxzoom"].flatMap(Self.int) { hi = min(hi, m) }
        if let m = minZoom { lo = max(lo, m) }
        if let m = maxZoom { hi = min(hi, m) }
        guard lo <= hi else {
            throw TileError.badFolder(path, reason: "zooms \(zooms.first!)...\(zooms.last!) present, none within the requested \(minZoom ?? 0)...\(maxZoom ?? TileMath.maxZoom)")
        }
        var setInfo = TileSetInfo(minZoom: lo, maxZoom: hi, tileSize: measured ?? tileSize,
                                  attribution: meta["attribution"].flatMap { $0 as? String }.flatMap { $0.isEmpty ? nil : $0 },
                                  format: format, bounds: bounds, name: meta["name"].flatMap { $0 as? String })
        if let c = meta["center"] as? [Any], c.count == 3 {
            setInfo.center = TileSetCenter(parsing: c.compactMap(Self.double).map { String($0) }.joined(separator: ","))
        } else if let c = meta["center"] as? String {
            setInfo.center = TileSetCenter(parsing: c)
        }
        setInfo.vectorLayers = VectorLayerInfo.list(from: meta["vector_layers"])
        if setInfo.vectorLayers.isEmpty, let json = meta["json"] as? String {
            setInfo.vectorLayers = VectorLayerInfo.list(fromJSON: json)
        }
        info = setInfo
    }

    public var label: String { directory.path }

    /// The file a tile lives in.
    public func file(for key: TileKey) -> URL {
        let row = isTMS ? TileMath.tmsRow(key.y, zoom: key.z) : key.y
        return directory.appendingPathComponent(String(key.z), isDirectory: true)
            .appendingPathComponent(String(key.x), isDirectory: true)
            .appendingPathComponent("\(row).\(fileExtension)")
    }

    public func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        var out: [TileKey: Result<Data, Error>] = [:]
        for key in keys where out[key] == nil {
            if let refusal = refusal(key, place: directory.path) {
                out[key] = .failure(refusal)
                continue
            }
            let url = file(for: key)
            switch FileKind(path: url.path) {
            case .regular: break
            case .missing:
                out[key] = .failure(TileError.missing(key))
                continue
            case let kind:
                // Never opened: a FIFO would block the render.
                out[key] = .failure(TileError.fetchFailed(key, "\(url.path) is \(kind.notAFile!)"))
                continue
            }
            do {
                out[key] = .success(try Data(contentsOf: url))
            } catch {
                out[key] = .failure(TileError.fetchFailed(key, "cannot read \(url.path): \(error.localizedDescription)"))
            }
        }
        return out
    }

    private static func findTile(in dir: URL, zooms: [Int], extensions: [String]) -> URL? {
        let fm = FileManager.default
        for z in zooms {
            let zdir = dir.appendingPathComponent(String(z), isDirectory: true)
            guard let xs = try? fm.contentsOfDirectory(atPath: zdir.path) else { continue }
            for x in xs.sorted() where Int(x) != nil {
                let xdir = zdir.appendingPathComponent(x, isDirectory: true)
                guard let files = try? fm.contentsOfDirectory(atPath: xdir.path) else { continue }
                for f in files.sorted() {
                    let u = xdir.appendingPathComponent(f)
                    if extensions.contains(u.pathExtension.lowercased()), Int(u.deletingPathExtension().lastPathComponent) != nil {
                        return u
                    }
                }
            }
        }
        return nil
    }

    private static func readMetadata(_ url: URL) -> [String: Any] {
        guard FileKind(path: url.path) == .regular, let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }

    private static func double(_ value: Any) -> Double? {
        if let n = value as? NSNumber { return n.doubleValue }
        if let d = value as? Double { return d }
        if let s = value as? String { return Double(s.trimmingCharacters(in: .whitespaces)) }
        return nil
    }

    private static func int(_ value: Any) -> Int? {
        if let s = value as? String { return Int(s.trimmingCharacters(in: .whitespaces)) }
        if let d = double(value), d == d.rounded(), abs(d) < 1e9 { return Int(d) }
        if let i = value as? Int { return i }
        if let s = value as? String { return Int(s.trimmingCharacters(in: .whitespaces)) }
        if let d = value as? Double, d == d.rounded() { return Int(d) }
        return nil
    }
}
