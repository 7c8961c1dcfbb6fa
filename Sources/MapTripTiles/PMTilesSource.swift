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
///
/// Over HTTP every range after the header is asked for with If-Match and the header's ETag, as the
/// PMTiles specification asks. An archive replaced on the server mid-render (a 412, or another ETag)
/// is read anew once, header and directories, and its tiles taken from the new one; a second change
/// is an error for every tile after it, rather than tiles of different versions side by side.
public final class PMTilesSource: TileSource, @unchecked Sendable {
    public let reader: ByteRangeReading
    /// The archive as read: its header, its version (its ETag over HTTP), and how many times it was
    /// read anew (0 or 1).
    private struct Archive {
        var header: PMTiles.Header
        var version: String?
        var generation: Int
    }
    private var archive: Archive
    public var header: PMTiles.Header { lock.withLock { archive.header } }
    public let info: TileSetInfo
    /// The archive's JSON metadata (name, attribution, vector_layers, ...); empty when it has none.
    public let metadata: [String: Any]
    /// Largest tile, directory or metadata accepted, compressed or not (a decompression bomb or a
    /// lying length is refused).
    public let maxBytes: Int

    private let lock = NSLock()
    /// Directories by the archive's generation and their offset.
    private var directories: [DirectoryKey: [PMTiles.Entry]] = [:]
    private var directoryOrder: [DirectoryKey] = []
    private struct DirectoryKey: Hashable { var generation: Int, offset: UInt64 }
    private static let maxCachedDirectories = 256
    /// Held while the archive is read anew (one thread does it; the others wait and take its result).
    private let reopening = NSLock()
    /// Why no tile is read any more: the archive changed again after it was read anew.
    private var gaveUp: TileError?

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
        let opened: Opened
        do {
            opened = try Self.open(reader, fresh: false, maxBytes: maxBytes)
        } catch is ResourceChanged {
            // Replaced while its header and root were read: once more, from the server.
            do { opened = try Self.open(reader, fresh: true, maxBytes: maxBytes) } catch let changed as ResourceChanged {
                throw bad("\(changed) while its header and directory were read, and again when they were read anew: "
                          + "render again once it stays the same")
            }
        }
        let header = opened.header, meta = opened.metadata
        archive = Archive(header: header, version: opened.version, generation: 0)
        metadata = meta
        let format = opened.format
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
        keep(opened.root, DirectoryKey(generation: 0, offset: header.rootDirectoryOffset))
    }

    /// An archive's header, metadata and root directory, read and checked.
    private struct Opened {
        var header: PMTiles.Header
        /// Its tiles' format (one maptrip reads).
        var format: TileFormat
        var version: String?
        var metadata: [String: Any]
        var root: [PMTiles.Entry]
    }

    /// Reads the archive's header (of the version there now; `fresh`: asked of the server, not the
    /// cache), then its metadata and root directory of that version. Throws `ResourceChanged` when
    /// it is replaced meanwhile.
    private static func open(_ reader: ByteRangeReading, fresh: Bool, maxBytes: Int) throws -> Opened {
        let label = reader.label
        func bad(_ reason: String) -> TileError { .badPMTiles(label, reason: reason) }
        let headBytes: Data, version: String?
        do {
            let length = reader.size.map { min($0, UInt64(PMTiles.headerLength)) } ?? UInt64(PMTiles.headerLength)
            (headBytes, version) = try reader.read(offset: 0, length: Int(length), version: nil, fresh: fresh)
        } catch {
            throw bad("cannot read its header (\(error))")
        }
        let header: PMTiles.Header
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
            let raw = try readSection(reader, header.metadataOffset, header.metadataLength, maxBytes, "metadata", bad, version: version)
            let json = try decompress(raw, header.internalCompression, maxBytes, "metadata", bad)
            guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw bad("its metadata is not a JSON object")
            }
            meta = object
        }
        // The root directory, read now so a damaged one fails here, with the file's name.
        let root = try readDirectory(reader, header, header.rootDirectoryOffset, header.rootDirectoryLength, leaf: false,
                                     version: version, maxBytes: maxBytes)
        return Opened(header: header, format: format, version: version, metadata: meta, root: root)
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
            let error = TileError.badPMTiles(file, reason: reason)
            // The archive changed again: not this tile's fault, but the end of reading it (the maps stop).
            if lock.withLock({ gaveUp }) == error { return .failure(error) }
            return .failure(TileError.fetchFailed(key, error.description))
        } catch let e as TileError {
            return .failure(e)
        } catch {
            return .failure(TileError.fetchFailed(key, "\(error)"))
        }
    }

    /// The bytes of one tile (its tile compression undone); nil when the archive has none there.
    public func tile(_ key: TileKey) throws -> Data? {
        let now = try lock.withLock {
            if let gaveUp { throw gaveUp }
            return archive
        }
        do {
            return try tile(key, in: now)
        } catch let changed as ResourceChanged {
            let anew = try reopen(after: now, changed)
            do { return try tile(key, in: anew) } catch let again as ResourceChanged { throw giveUp(again) }
        }
    }

    /// Reads the archive anew after it changed under `old`: once (a second change gives up), by one
    /// thread (the others take what it read).
    private func reopen(after old: Archive, _ changed: ResourceChanged) throws -> Archive {
        reopening.lock()
        defer { reopening.unlock() }
        let now = try lock.withLock {
            if let gaveUp { throw gaveUp }
            return archive
        }
        if now.generation > old.generation { return now }
        guard now.generation == 0 else { throw giveUp(changed) }
        let opened: Opened
        do { opened = try Self.open(reader, fresh: true, maxBytes: maxBytes) } catch let again as ResourceChanged {
            throw giveUp(again)
        }
        guard opened.header.tileType.format == info.format else {
            throw giveUp(ResourceChanged(from: changed.from, to: opened.version), "into an archive of \(opened.header.tileType) tiles")
        }
        let anew = Archive(header: opened.header, version: opened.version, generation: now.generation + 1)
        lock.withLock { archive = anew }
        keep(opened.root, DirectoryKey(generation: anew.generation, offset: anew.header.rootDirectoryOffset))
        return anew
    }

    /// Stops reading tiles: the archive changed again (every later tile gets this error).
    private func giveUp(_ changed: ResourceChanged, _ how: String = "again after maptrip read it anew") -> TileError {
        let error = TileError.badPMTiles(label, reason: "\(changed), \(how): its tiles would mix versions of the archive; "
                                         + "render again once it stays the same")
        lock.withLock { if gaveUp == nil { gaveUp = error } }
        return lock.withLock { gaveUp! }
    }

    private func tile(_ key: TileKey, in archive: Archive) throws -> Data? {
        let header = archive.header
        guard let id = PMTiles.tileID(key) else { return nil }
        var offset = header.rootDirectoryOffset, length = header.rootDirectoryLength
        var leaf = false
        for _ in 0...PMTiles.maxDirectoryDepth {
            let entries = try directory(at: offset, length: length, leaf: leaf, in: archive)
            guard let entry = PMTiles.find(id, in: entries) else { return nil }
            if entry.runLength > 0 {
                let (start, overflow) = header.tileDataOffset.addingReportingOverflow(entry.offset)
                guard !overflow, entry.offset < header.tileDataLength || header.tileDataLength == 0 else {
                    throw TileError.fetchFailed(key, "\(label): the tile's offset \(entry.offset) is past the tile data "
                                                + "(\(header.tileDataLength) bytes): the directory is damaged")
                }
                let raw: Data
                do {
                    raw = try Self.readSection(reader, start, entry.length, maxBytes, "tile \(key)", {
                        TileError.badPMTiles(self.label, reason: $0)
                    }, version: archive.version)
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

    /// A directory of an archive, from the cache or read and decoded.
    private func directory(at offset: UInt64, length: UInt64, leaf: Bool, in archive: Archive) throws -> [PMTiles.Entry] {
        let key = DirectoryKey(generation: archive.generation, offset: offset)
        if let d = lock.withLock({ directories[key] }) { return d }
        let entries = try Self.readDirectory(reader, archive.header, offset, length, leaf: leaf, version: archive.version,
                                             maxBytes: maxBytes)
        keep(entries, key)
        return entries
    }

    /// A directory of the archive as read now.
    func directory(at offset: UInt64, length: UInt64, leaf: Bool) throws -> [PMTiles.Entry] {
        try directory(at: offset, length: length, leaf: leaf, in: lock.withLock { archive })
    }

    private func keep(_ entries: [PMTiles.Entry], _ key: DirectoryKey) {
        lock.lock()
        if directories[key] == nil {
            directories[key] = entries
            directoryOrder.append(key)
            if directoryOrder.count > Self.maxCachedDirectories {
                directories[directoryOrder.removeFirst()] = nil
            }
        }
        lock.unlock()
    }

    /// A directory read and decoded.
    private static func readDirectory(_ reader: ByteRangeReading, _ header: PMTiles.Header, _ offset: UInt64, _ length: UInt64,
                                      leaf: Bool, version: String?, maxBytes: Int) throws -> [PMTiles.Entry] {
        let what = leaf ? "a leaf directory" : "the root directory"
        let bad: (String) -> TileError = { TileError.badPMTiles(reader.label, reason: $0) }
        if leaf, header.leafDirectoriesLength > 0 {
            let end = offset &+ length
            if offset < header.leafDirectoriesOffset || end > header.leafDirectoriesOffset &+ header.leafDirectoriesLength {
                throw bad("\(what) at \(offset) lies outside the leaf directory section")
            }
        }
        let raw = try readSection(reader, offset, length, maxBytes, what, bad, version: version)
        let bytes = try decompress(raw, header.internalCompression, maxBytes, what, bad)
        do { return try PMTiles.decodeDirectory(bytes) } catch { throw bad("\(what): \(error)") }
    }

    /// Bytes of the archive, of its version `version` (a change is thrown as it is: `ResourceChanged`).
    static func readSection(_ reader: ByteRangeReading, _ offset: UInt64, _ length: UInt64, _ maxBytes: Int,
                            _ what: String, _ bad: (String) -> TileError, version: String?) throws -> Data {
        guard length <= UInt64(maxBytes) else {
            throw bad("\(what) is \(length) bytes long, more than the \(maxBytes) maptrip reads at once")
        }
        do {
            return try reader.read(offset: offset, length: Int(length), version: version, fresh: false).data
        } catch let changed as ResourceChanged {
            throw changed
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
