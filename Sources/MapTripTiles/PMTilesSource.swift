import Foundation
import MapTripGeometry
import MapTripSupport
import Zlib

/// Tiles from a PMTiles v3 archive (raster or vector), a local file read with pread or an http(s)
/// URL read with range requests through `HTTPTileClient` (whose disk cache keeps the ranges): the
/// header, then the root directory, leaf directories and tiles as asked, never the whole file.
/// Directories are kept once read (a few hundred at most). Tiles come back as stored but for the
/// archive's tile compression, which is undone (gzip; brotli and zstd are refused with a clear
/// error). Safe to use from several threads.
public final class PMTilesSource: TileSource, @unchecked Sendable {
    public let reader: ByteRangeReading
    public let header: PMTiles.Header
    public let info: TileSetInfo
    /// The archive's JSON metadata (name, attribution, vector_layers, ...); empty when it has none.
    public let metadata: [String: Any]
    /// Largest tile, directory or metadata accepted, compressed or not (a decompression bomb or a
    /// lying length is refused).
    public let maxBytes: Int

    private let lock = NSLock()
    private var directories: [UInt64: [PMTiles.Entry]] = [:]
    private var directoryOrder: [UInt64] = []
    private static let maxCachedDirectories = 256

    /// A local file. `minZoom` / `maxZoom` narrow the archive's zooms.
    public convenience init(file: URL, minZoom: Int? = nil, maxZoom: Int? = nil, maxBytes: Int = 16 << 20) throws {
        let path = file.standardizedFileURL.path
        let reader: FileRangeReader
        do { reader = try FileRangeReader(path: path) } catch {
            throw TileError.badPMTiles(path, reason: "\(error)")
        }
        try self.init(reader: reader, minZoom: minZoom, maxZoom: maxZoom, maxBytes: maxBytes)
    }

    /// An archive over HTTP(S), read with range requests.
    public convenience init(url: URL, client: HTTPTileClient, minZoom: Int? = nil, maxZoom: Int? = nil,
                            maxBytes: Int = 16 << 20) throws {
        try self.init(reader: HTTPRangeReader(url: url, client: client), minZoom: minZoom, maxZoom: maxZoom,
                      maxBytes: maxBytes)
    }

    public init(reader: ByteRangeReading, minZoom: Int? = nil, maxZoom: Int? = nil, maxBytes: Int = 16 << 20) throws {
        self.reader = reader
        self.maxBytes = maxBytes
        let label = reader.label
        func bad(_ reason: String) -> TileError { .badPMTiles(label, reason: reason) }
        let headBytes: Data
        do {
            if let size = reader.size, size < UInt64(PMTiles.headerLength) {
                headBytes = try reader.read(offset: 0, length: Int(size))
            } else {
                headBytes = try reader.read(offset: 0, length: PMTiles.headerLength)
            }
        } catch {
            throw bad("cannot read its header (\(error))")
        }
        do { header = try PMTiles.Header(headBytes) } catch { throw bad("\(error)") }
        if let size = reader.size {
            for (name, offset, length) in [("root directory", header.rootDirectoryOffset, header.rootDirectoryLength),
                                           ("metadata", header.metadataOffset, header.metadataLength),
                                           ("leaf directories", header.leafDirectoriesOffset, header.leafDirectoriesLength),
                                           ("tile data", header.tileDataOffset, header.tileDataLength)] {
                let (end, overflow) = offset.addingReportingOverflow(length)
                if overflow || end > size {
                    throw bad("its \(name) (bytes \(offset) to \(offset &+ length)) runs past the end of the file "
                              + "(\(size) bytes): the file is cut short or damaged")
                }
            }
        }
        switch header.internalCompression {
        case .none, .gzip: break
        default: throw bad("its directories are compressed with \(header.internalCompression), which maptrip cannot read "
                           + "(gzip or none; convert it with `pmtiles convert`)")
        }
        switch header.tileCompression {
        case .none, .gzip, .unknown: break
        default: throw bad("its tiles are compressed with \(header.tileCompression), which maptrip cannot read "
                           + "(gzip or none)")
        }
        guard let format = header.tileType.format else {
            throw bad("it holds \(header.tileType) tiles; maptrip reads MVT vector tiles and PNG, JPEG and WebP images")
        }
        // Metadata (optional in practice: an empty section is allowed).
        var meta: [String: Any] = [:]
        if header.metadataLength > 0 {
            let raw = try Self.readSection(reader, header.metadataOffset, header.metadataLength, maxBytes, "metadata", bad)
            let json = try Self.decompress(raw, header.internalCompression, maxBytes, "metadata", bad)
            guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw bad("its metadata is not a JSON object")
            }
            meta = object
        }
        metadata = meta
        let lo = max(header.minZoom, minZoom ?? 0)
        let hi = min(header.maxZoom, maxZoom ?? TileMath.maxZoom, TileMath.maxZoom)
        guard lo <= hi else {
            throw bad("its zooms \(header.minZoom)...\(header.maxZoom) do not overlap the requested "
                      + "\(minZoom ?? 0)...\(maxZoom ?? TileMath.maxZoom)")
        }
        var setInfo = TileSetInfo(minZoom: lo, maxZoom: hi, tileSize: format == .pbf ? 512 : 256,
                                  attribution: (meta["attribution"] as? String).flatMap { $0.isEmpty ? nil : $0 },
                                  format: format, bounds: header.bounds, name: meta["name"] as? String)
        setInfo.center = TileSetCenter(longitude: header.centerLongitude, latitude: header.centerLatitude,
                                       zoom: header.centerZoom)
        setInfo.vectorLayers = VectorLayerInfo.list(from: meta["vector_layers"])
        if setInfo.vectorLayers.isEmpty, let json = meta["json"] as? String {
            // Converted from MBTiles: the TileJSON text of its `json` row.
            setInfo.vectorLayers = VectorLayerInfo.list(fromJSON: json)
        }
        info = setInfo
        // The root directory, read now so a damaged one fails here, with the file's name.
        _ = try directory(at: header.rootDirectoryOffset, length: header.rootDirectoryLength, leaf: false)
    }

    public var label: String { reader.label }

    /// Over HTTP the tiles are fetched in parallel (at most the client's `maxParallel` at once).
    public func tiles(for keys: [TileKey]) -> [TileKey: Result<Data, Error>] {
        var seen = Set<TileKey>()
        let unique = keys.filter { seen.insert($0).inserted }
        let parallel = (reader as? HTTPRangeReader).map { min($0.client.options.maxParallel, unique.count) } ?? 1
        guard parallel > 1 else {
            return Dictionary(uniqueKeysWithValues: unique.map { ($0, result($0)) })
        }
        let work = ParallelResults(count: unique.count)
        DispatchQueue.concurrentPerform(iterations: parallel) { _ in
            while let i = work.take() { work.put(i, result(unique[i])) }
        }
        return Dictionary(uniqueKeysWithValues: zip(unique, work.results))
    }

    /// One tile's answer, its errors named with the key.
    private func result(_ key: TileKey) -> Result<Data, Error> {
        if let refusal = refusal(key, place: label) { return .failure(refusal) }
        do {
            if let data = try tile(key) { return .success(data) }
            return .failure(TileError.missing(key))
        } catch TileError.badPMTiles(let file, let reason) {
            return .failure(TileError.fetchFailed(key, TileError.badPMTiles(file, reason: reason).description))
        } catch let e as TileError {
            return .failure(e)
        } catch {
            return .failure(TileError.fetchFailed(key, "\(error)"))
        }
    }

    /// The bytes of one tile (its tile compression undone); nil when the archive has none there.
    public func tile(_ key: TileKey) throws -> Data? {
        guard let id = PMTiles.tileID(key) else { return nil }
        var offset = header.rootDirectoryOffset, length = header.rootDirectoryLength
        var leaf = false
        for _ in 0...PMTiles.maxDirectoryDepth {
            let entries = try directory(at: offset, length: length, leaf: leaf)
            guard let entry = PMTiles.find(id, in: entries) else { return nil }
            if entry.runLength > 0 {
                let (start, overflow) = header.tileDataOffset.addingReportingOverflow(entry.offset)
                guard !overflow, entry.offset < header.tileDataLength || header.tileDataLength == 0 else {
                    throw TileError.fetchFailed(key, "\(label): the tile's offset \(entry.offset) is past the tile data "
                                                + "(\(header.tileDataLength) bytes): the directory is damaged")
                }
                let raw: Data
                do {
                    raw = try Self.readSection(reader, start, entry.length, maxBytes, "tile \(key)") {
                        TileError.badPMTiles(self.label, reason: $0)
                    }
                } catch let e as TileError {
                    throw TileError.fetchFailed(key, e.description)
                }
                guard header.tileCompression == .gzip || (header.tileCompression == .unknown && Zlib.isGzip(raw)) else {
                    return raw
                }
                do {
                    return try Zlib.inflate(raw, maxOutput: maxBytes)
                } catch {
                    throw TileError.fetchFailed(key, "\(label): the tile does not inflate (\(error))")
                }
            }
            // A leaf directory.
            let (o, overflow) = header.leafDirectoriesOffset.addingReportingOverflow(entry.offset)
            guard !overflow else { throw TileError.badPMTiles(label, reason: "a leaf directory's offset overflows") }
            offset = o
            length = entry.length
            leaf = true
        }
        throw TileError.badPMTiles(label, reason: "its directories nest deeper than \(PMTiles.maxDirectoryDepth) levels")
    }

    /// A directory, from the cache or read and decoded.
    func directory(at offset: UInt64, length: UInt64, leaf: Bool) throws -> [PMTiles.Entry] {
        lock.lock()
        if let d = directories[offset] {
            lock.unlock()
            return d
        }
        lock.unlock()
        let what = leaf ? "a leaf directory" : "the root directory"
        let bad: (String) -> TileError = { TileError.badPMTiles(self.label, reason: $0) }
        if leaf, header.leafDirectoriesLength > 0 {
            let end = offset &+ length
            if offset < header.leafDirectoriesOffset || end > header.leafDirectoriesOffset &+ header.leafDirectoriesLength {
                throw bad("\(what) at \(offset) lies outside the leaf directory section")
            }
        }
        let raw = try Self.readSection(reader, offset, length, maxBytes, what, bad)
        let bytes = try Self.decompress(raw, header.internalCompression, maxBytes, what, bad)
        let entries: [PMTiles.Entry]
        do { entries = try PMTiles.decodeDirectory(bytes) } catch { throw bad("\(what): \(error)") }
        lock.lock()
        if directories[offset] == nil {
            directories[offset] = entries
            directoryOrder.append(offset)
            if directoryOrder.count > Self.maxCachedDirectories {
                directories[directoryOrder.removeFirst()] = nil
            }
        }
        lock.unlock()
        return entries
    }

    static func readSection(_ reader: ByteRangeReading, _ offset: UInt64, _ length: UInt64, _ maxBytes: Int,
                            _ what: String, _ bad: (String) -> TileError) throws -> Data {
        guard length <= UInt64(maxBytes) else {
            throw bad("\(what) is \(length) bytes long, more than the \(maxBytes) maptrip reads at once")
        }
        do {
            return try reader.read(offset: offset, length: Int(length))
        } catch {
            throw bad("cannot read \(what) (\(error))")
        }
    }

    static func decompress(_ data: Data, _ compression: PMTiles.Compression, _ maxBytes: Int, _ what: String,
                           _ bad: (String) -> TileError) throws -> Data {
        switch compression {
        case .none: return data
        case .unknown where !Zlib.isGzip(data): return data
        default:
            do { return try Zlib.inflate(data, maxOutput: maxBytes) } catch {
                throw bad("\(what) does not inflate (\(error))")
            }
        }
    }
}

/// Indexes handed out to worker threads and their results, behind one lock.
private final class ParallelResults: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var slots: [Result<Data, Error>?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < slots.count else { return nil }
        next += 1
        return next - 1
    }

    func put(_ i: Int, _ r: Result<Data, Error>) {
        lock.lock()
        slots[i] = r
        lock.unlock()
    }

    var results: [Result<Data, Error>] {
        lock.lock()
        defer { lock.unlock() }
        return slots.map { $0 ?? .failure(TileError.fetchFailed(TileKey(z: 0, x: 0, y: 0), "not fetched")) }
    }
}
