import Foundation
import MapTripSupport

/// Where a source's levels of detail are kept between renders (see `GeometryCache`). `level` nil is
/// the full geometry.
public protocol LevelStore: Sendable {
    /// The geometry kept for this level, or nil (none kept, or not for this source as it is now).
    func geometry(level: Int?) -> IndexedGeometry?
    /// Keeps a geometry built for this level. Never fails a render: a store that cannot write
    /// (a read-only or full disk) keeps nothing.
    func save(_ geometry: IndexedGeometry, level: Int?)
}

/// maptrip's folder for something it keeps between runs: `$XDG_CACHE_HOME/maptrip/<name>`, else
/// `$HOME/.cache/maptrip/<name>`; nil when neither is usable. Pass `ProcessInfo.processInfo.environment`.
public enum CacheDirectories {
    public static func `default`(_ name: String, environment: [String: String]) -> URL? {
        var root: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            root = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            root = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        } else {
            return nil
        }
        root.appendPathComponent("maptrip", isDirectory: true)
        return root.appendingPathComponent(name, isDirectory: true)
    }
}

/// The levels of detail of the map's files, projected and generalised, kept on disk so that the next
/// render (the next clip of a batch, the next preview) reads them back in a few milliseconds instead
/// of reading, projecting and simplifying the shapefiles again (about 200 ms of CPU for the embedded
/// map's 1:10m land, lakes and borders).
///
/// One file per source and level, named by the source's path and the recipe that built it, holding
/// the source's identity (its files' sizes, modification times and inodes): a file changed since is a
/// miss, and its levels are built and written again over the old ones; levels of the same source made
/// by another recipe are removed when a level is written. Files are written whole to a
/// temporary name and renamed, so renders on other threads or machines sharing the folder read either
/// the old file or the new one; a file that does not read back exactly (truncated, damaged, another
/// version's) is a miss too.
///
/// The folder is kept within `bounds` (`CacheBounds`) when a file is written: files not used (read or
/// written) for 30 days go, then the least recently used ones until the folder holds at most 512 MB
/// (the embedded map's levels take about 10 MB; what goes is mostly sources at paths no longer
/// rendered: a moved or deleted assets folder, another checkout's). A file read back is marked used by
/// its modification time, at most once a day.
public struct GeometryCache: Sendable {
    public let directory: URL
    public var bounds: CacheBounds

    public init(directory: URL, bounds: CacheBounds = CacheBounds(maxAge: 30 * 86_400, maxBytes: 512 << 20)) {
        self.directory = directory
        self.bounds = bounds
    }

    /// The store for one source. `path` names it; `recipe` says how its geometry is made (projection,
    /// simplification: change it when they change); `identity` says which version of the source it is.
    public func store(path: String, recipe: String, identity: String) -> any LevelStore {
        Store(cache: self, source: String(CacheKeys.fnv1a(Array(path.utf8)), radix: 16),
              recipe: String(CacheKeys.fnv1a(Array(recipe.utf8)), radix: 16),
              key: recipe + "\u{0}" + path + "\u{0}" + identity)
    }

    /// Removes what must go for the folder to be within `bounds`; never `keeping` (the file just
    /// written). Files another render is writing (temporary names) are new, and stay.
    func prune(keeping: URL, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let files = names.filter { $0 != keeping.lastPathComponent }.compactMap { name -> CacheBounds.Entry? in
            let path = directory.appendingPathComponent(name).path
            return CacheBounds.status(path).map { CacheBounds.Entry(path: path, used: $0.modified, bytes: $0.bytes) }
        }
        bounds.prune(files, others: CacheBounds.status(keeping.path)?.bytes ?? 0, now: now) {
            (try? FileManager.default.removeItem(atPath: $0)) != nil
        }
    }

    private struct Store: LevelStore {
        let cache: GeometryCache
        /// The file names' parts: the source's path and the recipe, hashed.
        let source: String, recipe: String
        let key: String
        var directory: URL { cache.directory }

        func file(_ level: Int?) -> URL {
            directory.appendingPathComponent("\(source)-\(recipe)-\(level.map { "L\($0)" } ?? "full").mtgeo")
        }

        func geometry(level: Int?) -> IndexedGeometry? {
            let url = file(level)
            guard let data = try? Data(contentsOf: url), let geometry = GeometryFile.decode(data, key: key) else { return nil }
            // Used: marked so, so that pruning keeps it.
            if let modified = CacheBounds.status(url.path)?.modified { CacheBounds.markUsed(url.path, modified: modified) }
            return geometry
        }

        func save(_ geometry: IndexedGeometry, level: Int?) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                // .atomic: written to a temporary file in the folder, then renamed over the old one.
                try GeometryFile.encode(geometry, key: key).write(to: file(level), options: .atomic)
                // The same source's levels made by another recipe (an older maptrip's) go: the cache
                // holds one set per source.
                let fm = FileManager.default
                for name in try fm.contentsOfDirectory(atPath: directory.path)
                where name.hasPrefix(source + "-") && !name.hasPrefix(source + "-" + recipe + "-") && name.hasSuffix(".mtgeo") {
                    try? fm.removeItem(at: directory.appendingPathComponent(name))
                }
                cache.prune(keeping: file(level))
            } catch {
                // Only an optimisation: the render goes on with the geometry it built.
            }
        }
    }
}

/// The file format of `GeometryCache`, little-endian:
/// magic "MTGEO" + format (3 bytes), key length (UInt32) and key (UTF-8), polygon flag (UInt8), origin
/// x and y and step (Float64), part count and vertex count (Int64), part starts (Int64 each), x then
/// y in fixed point (Int32 each), FNV-1a of everything before it (UInt64).
enum GeometryFile {
    static let magic: [UInt8] = Array("MTGEO".utf8) + [0, 0, 1]

    static func encode(_ g: IndexedGeometry, key: String) -> Data {
        var out = [UInt8]()
        let keyBytes = Array(key.utf8)
        out.reserveCapacity(64 + keyBytes.count + g.parts.count * 8 + g.vertexCount * 8)
        out += magic
        append(UInt32(keyBytes.count), to: &out)
        out += keyBytes
        out.append(g.isPolygon ? 1 : 0)
        append(g.originX.bitPattern, to: &out)
        append(g.originY.bitPattern, to: &out)
        append(g.step.bitPattern, to: &out)
        append(UInt64(g.parts.count), to: &out)
        append(UInt64(g.vertexCount), to: &out)
        for p in g.parts { append(UInt64(p.start), to: &out) }
        #if _endian(little)
        g.qx.withUnsafeBytes { out.append(contentsOf: $0) }
        g.qy.withUnsafeBytes { out.append(contentsOf: $0) }
        #else
        for v in g.qx { append(UInt32(bitPattern: v), to: &out) }
        for v in g.qy { append(UInt32(bitPattern: v), to: &out) }
        #endif
        append(CacheKeys.fnv1a(out), to: &out)
        return Data(out)
    }

    static func decode(_ data: Data, key: String) -> IndexedGeometry? {
        data.withUnsafeBytes { raw -> IndexedGeometry? in
            var r = Reader(bytes: raw)
            guard raw.count >= magic.count + 8, Array(raw.prefix(magic.count)) == magic else { return nil }
            r.offset = magic.count
            let keyBytes = Array(key.utf8)
            guard let keyLength = r.read(UInt32.self), Int(keyLength) == keyBytes.count,
                  let stored = r.take(Int(keyLength)), stored.elementsEqual(keyBytes),
                  let polygon = r.take(1), let ox = r.read(UInt64.self), let oy = r.read(UInt64.self),
                  let step = r.read(UInt64.self), let partCount = r.read(UInt64.self),
                  let vertexCount = r.read(UInt64.self),
                  partCount <= vertexCount, vertexCount < UInt64(Int32.max),
                  r.remaining == Int(partCount) * 8 + Int(vertexCount) * 8 + 8 else { return nil }
            let n = Int(vertexCount)
            var starts = [Int](repeating: 0, count: Int(partCount))
            for k in starts.indices {
                let s = Int(r.read(UInt64.self)!)
                // Parts in order, within the vertices: nothing drawn from a file can index outside.
                guard s <= n, k == 0 || s > starts[k - 1] else { return nil }
                starts[k] = s
            }
            let qx = r.int32s(n), qy = r.int32s(n)
            let body = UnsafeRawBufferPointer(rebasing: raw[0..<r.offset])
            guard r.read(UInt64.self) == CacheKeys.fnv1a(body) else { return nil }
            return IndexedGeometry(qx: qx, qy: qy, originX: Double(bitPattern: ox), originY: Double(bitPattern: oy),
                                   step: Double(bitPattern: step), partStarts: starts, isPolygon: polygon[0] == 1)
        }
    }

    private static func append<T: FixedWidthInteger>(_ v: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        var remaining: Int { bytes.count - offset }

        mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard remaining >= MemoryLayout<T>.size else { return nil }
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard remaining >= count else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        /// `count` Int32s (the caller checked they are there).
        mutating func int32s(_ count: Int) -> [Int32] {
            let base = offset
            offset += count * 4
            return [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
                #if _endian(little)
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[base..<offset]))
                #else
                for i in 0..<count {
                    buffer[i] = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: base + i * 4, as: Int32.self))
                }
                #endif
                initialized = count
            }
        }
    }
}
