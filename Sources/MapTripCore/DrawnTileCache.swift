import Foundation

/// Tiles of the embedded map as the raster cache draws them (BGRA, or I420 planes), kept on disk
/// between renders: the next render of a trip, a re-render after a caption changed, the other clips of
/// a batch over the same region read the tiles they share back (a copy from the page cache, some 25
/// microseconds for a 1080p flight's tile) instead of drawing them from the vectors again (about 250:
/// Cairo's scan conversion of the land, lakes and borders, then the conversion to I420).
///
/// One folder per map as drawn (`store(recipe:)`: the recipe names everything a tile's pixels depend
/// on: the program, the drawing libraries, the map's files, its style and layers, the pixel ratio),
/// one file per tile, named by its level's world width, column, row and form. Files are written whole
/// to a temporary name and renamed, so renders sharing the folder (a batch, cluster nodes on one home)
/// read either a whole tile or none; a file that does not read back exactly (its size, header or
/// checksum) is a miss, drawn and written again. A cache that cannot be written is skipped silently:
/// it is only ever an optimisation, and a tile read back is the same bytes as the tile drawn.
///
/// The folder stays within `bounds` (`CacheBounds`): when a render that wrote tiles lets its store
/// go, tiles unused for 30 days go, then the least recently used until the folder holds at most
/// 1 GB (a 1080p world tour's tiles take 57 MB as I420).
public struct DrawnTileCache: Sendable {
    public let directory: URL
    public var bounds: CacheBounds

    public init(directory: URL, bounds: CacheBounds = CacheBounds(maxAge: 30 * 86_400, maxBytes: 1 << 30)) {
        self.directory = directory
        self.bounds = bounds
    }

    /// The store of one map as drawn; `recipe` says everything its tiles' pixels depend on.
    public func store(recipe: String) -> DrawnTileStore { DrawnTileStore(cache: self, recipe: recipe) }

    /// What identifies this program's build for the recipes: the executable's size, modification
    /// time and inode (a new build, or another version installed, draws its own tiles).
    public static let programIdentity: String = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        return exe + " " + GeometryCache.identity(of: [exe])
    }()

    /// Brings the folder within bounds: every map's tiles together (files being written, under
    /// temporary names, stay unless a day old: a render killed while writing one); the folders of
    /// maps left with no tile go.
    public func prune(now: Date = Date()) {
        let fm = FileManager.default
        guard let maps = try? fm.contentsOfDirectory(atPath: directory.path) else { return }
        var entries: [CacheBounds.Entry] = []
        var others = 0
        // Per map's folder, the files in it but its recipe that are left.
        var left: [String: Int] = [:]
        for map in maps {
            let folder = directory.appendingPathComponent(map).path
            guard let names = try? fm.contentsOfDirectory(atPath: folder) else { continue }
            left[folder] = 0
            for name in names {
                let path = folder + "/" + name
                if name != DrawnTileStore.recipeName { left[folder, default: 0] += 1 }
                guard let s = CacheBounds.status(path) else { continue }
                if name == DrawnTileStore.recipeName {
                    others += s.bytes
                } else if name.hasPrefix(".") {
                    if now.timeIntervalSince(s.modified) > 86_400, unlink(path) == 0 { left[folder, default: 0] -= 1 }
                } else {
                    entries.append(CacheBounds.Entry(path: path, used: s.modified, bytes: s.bytes))
                }
            }
        }
        for path in bounds.prune(entries, others: others, now: now, remove: { unlink($0) == 0 }) {
            left[(path as NSString).deletingLastPathComponent, default: 0] -= 1
        }
        for (folder, count) in left where count == 0 {
            unlink(folder + "/" + DrawnTileStore.recipeName)
            rmdir(folder)
        }
    }
}

/// One map's tiles in a `DrawnTileCache`. Safe to use from several threads at once (the raster cache
/// draws two tiles at a time).
public final class DrawnTileStore: @unchecked Sendable {
    public let cache: DrawnTileCache
    public let recipe: String
    /// This map's folder: the recipe's hash, its text in a file inside (another recipe of the same hash
    /// finds it different, and neither reads nor writes there).
    public let folder: URL
    static let recipeName = "recipe"

    private let lock = NSLock()
    private var wrote = false
    private var temporaries = 0
    private var counts = (read: 0, written: 0)

    init(cache: DrawnTileCache, recipe: String) {
        self.cache = cache
        self.recipe = recipe
        folder = cache.directory.appendingPathComponent(String(GeometryCache.fnv1a(Array(recipe.utf8)), radix: 16))
    }

    /// Tiles read back, and written, so far.
    public var tilesRead: Int { lock.withLock { counts.read } }
    public var tilesWritten: Int { lock.withLock { counts.written } }

    /// A render that wrote tiles brings the folder within its bounds as it lets its store go.
    deinit {
        if wrote { cache.prune() }
    }

    /// Reads the tile `name` (`width` x `height` pixels, `bytes.count` bytes) into `bytes`; false on
    /// a miss (then `bytes` may hold anything).
    public func read(_ name: String, width: Int, height: Int, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard isOurs(creating: false), let base = bytes.baseAddress else { return false }
        let path = folder.path + "/" + name
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, Int(st.st_size) == TileFile.headerSize + bytes.count + 8 else { return false }
        var header = [UInt8](repeating: 0, count: TileFile.headerSize)
        var sum: UInt64 = 0
        let whole = header.withUnsafeMutableBytes { TileFile.readFully(fd, $0.baseAddress!, $0.count) }
            && TileFile.readFully(fd, base, bytes.count)
            && withUnsafeMutableBytes(of: &sum) { TileFile.readFully(fd, $0.baseAddress!, 8) }
        guard whole, header == TileFile.header(width: width, height: height, count: bytes.count),
              UInt64(littleEndian: sum) == TileFile.checksum(header: header, payload: UnsafeRawBufferPointer(bytes))
        else { return false }
        // Used: marked so, so that pruning keeps it.
        CacheBounds.markUsed(path, modified: Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec)))
        lock.withLock { counts.read += 1 }
        return true
    }

    /// Keeps the tile `name` (`width` x `height` pixels, `bytes`); nothing when the folder cannot be
    /// written.
    public func write(_ name: String, width: Int, height: Int, from bytes: UnsafeRawBufferPointer) {
        guard isOurs(creating: true), let base = bytes.baseAddress else { return }
        let n = lock.withLock { () -> Int in
            temporaries += 1
            return temporaries
        }
        let temporary = folder.path + "/.\(name).\(getpid()).\(n)"
        let header = TileFile.header(width: width, height: height, count: bytes.count)
        let sum = TileFile.checksum(header: header, payload: bytes).littleEndian
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let whole = header.withUnsafeBytes { TileFile.writeFully(fd, $0.baseAddress!, $0.count) }
            && TileFile.writeFully(fd, base, bytes.count)
            && withUnsafeBytes(of: sum) { TileFile.writeFully(fd, $0.baseAddress!, 8) }
        close(fd)
        guard whole, rename(temporary, folder.path + "/" + name) == 0 else {
            unlink(temporary)
            return
        }
        lock.withLock {
            wrote = true
            counts.written += 1
        }
    }

    /// Whether the folder is this recipe's: its recipe file says so, or (`creating`) the folder and the
    /// file are made now. Looked at once, and again only to make it.
    private func isOurs(creating: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if folderState == .unknown {
            if let stored = try? Data(contentsOf: folder.appendingPathComponent(Self.recipeName)) {
                folderState = stored == Data(recipe.utf8) ? .ours : .foreign
            } else {
                folderState = .missing
            }
        }
        if folderState == .missing && creating {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let made = (try? Data(recipe.utf8).write(to: folder.appendingPathComponent(Self.recipeName), options: .atomic)) != nil
            folderState = made ? .ours : .foreign
        }
        return folderState == .ours
    }

    private enum FolderState { case unknown, missing, ours, foreign }
    private var folderState = FolderState.unknown
}

/// The file of one tile, little-endian: magic "MTTILE" + format (2 bytes), width and height (UInt32),
/// payload bytes (UInt64), the payload (the raster's bytes: I420 planes one after the other, or BGRA
/// rows), and a checksum of all that (UInt64: FNV-1a in four lanes, fast enough to check on every read).
enum TileFile {
    static let magic: [UInt8] = Array("MTTILE".utf8) + [0, 1]
    static let headerSize = 24

    static func header(width: Int, height: Int, count: Int) -> [UInt8] {
        var out = magic
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: width).littleEndian) { out += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: height).littleEndian) { out += $0 }
        withUnsafeBytes(of: UInt64(count).littleEndian) { out += $0 }
        return out
    }

    /// FNV-1a over 32-byte blocks in four independent lanes (8-byte words), the bytes left in the first,
    /// the lanes and the header folded together at the end.
    static func checksum(header: [UInt8], payload: UnsafeRawBufferPointer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x84222325cbf29ce4, 0x9ce4_8422_2325_cbf2,
                                                       0x2325_cbf2_9ce4_8422)
        let blocks = payload.count / 32
        for i in 0..<blocks {
            let o = i * 32
            lanes.0 = (lanes.0 ^ payload.loadUnaligned(fromByteOffset: o, as: UInt64.self)) &* prime
            lanes.1 = (lanes.1 ^ payload.loadUnaligned(fromByteOffset: o + 8, as: UInt64.self)) &* prime
            lanes.2 = (lanes.2 ^ payload.loadUnaligned(fromByteOffset: o + 16, as: UInt64.self)) &* prime
            lanes.3 = (lanes.3 ^ payload.loadUnaligned(fromByteOffset: o + 24, as: UInt64.self)) &* prime
        }
        for b in payload[(blocks * 32)...] { lanes.0 = (lanes.0 ^ UInt64(b)) &* prime }
        var out = header
        for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { withUnsafeBytes(of: lane.littleEndian) { out += $0 } }
        return GeometryCache.fnv1a(out)
    }

    static func readFully(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        fully(count) { Foundation.read(fd, p + $0, count - $0) }
    }

    static func writeFully(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int) -> Bool {
        fully(count) { Foundation.write(fd, p + $0, count - $0) }
    }

    /// Repeats `io` (given the bytes done so far; returning how many more, or -1) until `count` are
    /// done: false if it fails or stops short first.
    private static func fully(_ count: Int, _ io: (Int) -> Int) -> Bool {
        var done = 0
        while done < count {
            let r = io(done)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { return false }
            done += r
        }
        return true
    }
}
