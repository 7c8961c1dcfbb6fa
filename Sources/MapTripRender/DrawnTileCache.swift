import Foundation
import MapTripSupport

/// Tiles of the embedded map as the raster cache draws them (BGRA, or I420 planes), kept on disk
/// between renders: the next render of a trip, a re-render after a caption changed, the other clips of
/// a batch over the same region read the tiles they share back (a copy from the page cache, some 25
/// microseconds for a 1080p flight's tile) instead of drawing them from the vectors again (about 250:
/// Cairo's scan conversion of the land, lakes and borders, then the conversion to I420).
///
/// One folder per map as drawn (`store(recipe:)`: the recipe names everything a tile's pixels depend
/// on: the program, the drawing libraries, the map's files, its style and layers, the pixel ratio),
/// in it a pack per render that drew tiles (`DrawnTileStore`), each tile named by its level's world
/// width, column, row and form. Renders sharing the folder (a batch, cluster nodes on one home) each
/// write their own pack and read the others'; a tile that does not read back exactly (its header,
/// size or checksum) is a miss, drawn and written again. A cache that cannot be written is skipped
/// silently: it is only ever an optimisation, and a tile read back is the same bytes as the tile drawn.
///
/// The folder stays within `bounds` (`CacheBounds`): when a render that wrote tiles lets its store
/// go, packs unused for 30 days go, then the least recently used until the folder holds at most
/// 1 GB (a 1080p world tour's tiles take 43 MB as I420, its flat ones kept as their samples).
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
        let exe = Platform.executablePath
        return exe + " " + CacheKeys.identity(of: [exe])
    }()

    /// Brings the folder within bounds: every map's packs together, a pack at a time (one render's
    /// tiles); the folders of maps left with no pack go.
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
                guard let s = CacheBounds.status(path) else { continue }
                if name == DrawnTileStore.recipeName {
                    others += s.bytes
                } else {
                    left[folder, default: 0] += 1
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
///
/// The tiles a render draws go into one pack of its own (`<UUID>.pack`: a tile after another, each a
/// `TilePack` record), appended as they are drawn: a single file, so the first render of a map costs
/// the file system one inode, not one per tile (some 600 for a world tour, which made it slower than
/// drawing without a cache). A reader lists the packs once, at its first read (the newest
/// `maxPacks`), and reads the tiles of each by their records' headers; a pack another render is
/// still writing, or one a killed render left, reads up to its last whole record. Its own pack's
/// tiles are read back too (a tile the memory bound evicted and that is wanted again).
public final class DrawnTileStore: @unchecked Sendable {
    public let cache: DrawnTileCache
    public let recipe: String
    /// This map's folder: the recipe's hash, its text in a file inside (another recipe of the same hash
    /// finds it different, and neither reads nor writes there).
    public let folder: URL
    static let recipeName = "recipe"
    static let packExtension = "pack"
    /// The most packs a store reads from (the most recently used): each is held open while it lives.
    static let maxPacks = 32

    private let lock = NSLock()
    private var wrote = false
    private var counts = (read: 0, written: 0)
    /// Where each tile is: its copies, oldest first, as a pack (a place in `packs`) and a record in it
    /// (nil: the packs not listed yet).
    private var index: [String: [(pack: Int, record: TilePack.Record)]]?
    /// The packs read from and written to: each open file, its path, when it was last modified as
    /// listed, whether it has been marked used.
    private var packs: [(fd: Int32, path: String, modified: Date, marked: Bool)] = []
    /// This render's pack: its place in `packs` and where its next record goes (nil: none yet).
    private var own: (pack: Int, end: Int)?
    private var writable = true

    /// This render's pack, once it has written a tile.
    var packPath: String? { lock.withLock { own.map { packs[$0.pack].path } } }

    init(cache: DrawnTileCache, recipe: String) {
        self.cache = cache
        self.recipe = recipe
        folder = cache.directory.appendingPathComponent(String(CacheKeys.fnv1a(Array(recipe.utf8)), radix: 16))
    }

    /// Tiles read back, and written, so far.
    public var tilesRead: Int { lock.withLock { counts.read } }
    public var tilesWritten: Int { lock.withLock { counts.written } }

    /// A render that wrote tiles brings the folder within its bounds as it lets its store go.
    deinit {
        for p in packs { close(p.fd) }
        if wrote { cache.prune() }
    }

    /// Ends this render's pack with the index of its records (`TilePack.index`): a later render finds
    /// them in two reads instead of two per record (on disk, not in memory, each of those was a wait).
    /// A tile written after this goes into a new pack.
    public func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard let own, let index else { return }
        let records = index.flatMap { name, copies in copies.filter { $0.pack == own.pack }.map { (name, $0.record) } }
        let block = TilePack.index(records.sorted { $0.1.payload < $1.1.payload }, at: own.end)
        _ = block.withUnsafeBytes { TilePack.writeFully(packs[own.pack].fd, $0.baseAddress!, $0.count, at: own.end) }
        self.own = nil
    }

    /// Asks the kernel to bring the tiles `names` that are kept here (their newest copies) into memory
    /// ahead of their reads, in this order, while the render goes on: a map rendered a while ago has
    /// its packs on disk, not in memory, and each tile read there would wait on the disk. At most
    /// `limit` bytes: the first tiles of a trip longer than memory would hold, not all of it.
    public func willNeed(_ names: [String], limit: Int = 256 << 20) {
        for r in ranges(of: names, limit: limit) {
            Platform.willRead(r.fd, offset: Int(r.offset), count: Int(r.count))
        }
    }

    /// Where the tiles `names` kept here are (their newest copies: the pack's file, where the record
    /// starts, its bytes), in this order, up to `limit` bytes in all.
    func ranges(of names: [String], limit: Int) -> [(fd: Int32, offset: Int, count: Int)] {
        guard isOurs(creating: false) else { return [] }
        return lock.withLock { () -> [(fd: Int32, offset: Int, count: Int)] in
            if index == nil { openPacks() }
            var out: [(fd: Int32, offset: Int, count: Int)] = []
            var total = 0
            for name in names {
                guard let copy = index?[name]?.last else { continue }
                let r = copy.record, count = r.header.count + r.count + 8
                total += count
                if total > limit { break }
                out.append((packs[copy.pack].fd, r.payload - r.header.count, count))
            }
            return out
        }
    }

    /// Reads the tile `name` (`width` x `height` pixels, `bytes.count` bytes) into `bytes`; false on
    /// a miss (then `bytes` may hold anything).
    public func read(_ name: String, width: Int, height: Int, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        read(name, width: width, height: height, upTo: bytes) == bytes.count
    }

    /// Reads the tile `name` (`width` x `height` pixels) into the start of `bytes`, whatever the bytes
    /// it was kept in, up to `bytes.count` (a tile may be kept in fewer bytes than its pixels take: a
    /// flat one as its samples): how many it read, or nil on a miss (then `bytes` may hold anything).
    public func read(_ name: String, width: Int, height: Int, upTo bytes: UnsafeMutableRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, isOurs(creating: false) else { return nil }
        let copies = lock.withLock { () -> [(pack: Int, fd: Int32, record: TilePack.Record)] in
            if index == nil { openPacks() }
            return (index?[name] ?? []).map { ($0.pack, packs[$0.pack].fd, $0.record) }
        }
        // The newest copy first; an older one if it does not read back whole.
        for (pack, fd, record) in copies.reversed() where record.width == width && record.height == height && record.count <= bytes.count {
            var sum: UInt64 = 0
            let whole = TilePack.readFully(fd, base, record.count, at: record.payload)
                && withUnsafeMutableBytes(of: &sum) { TilePack.readFully(fd, $0.baseAddress!, 8, at: record.payload + record.count) }
            guard whole, UInt64(littleEndian: sum) == TilePack.checksum(header: record.header,
                                                                        payload: UnsafeRawBufferPointer(rebasing: bytes[..<record.count]))
            else { continue }
            lock.withLock {
                counts.read += 1
                // Used: marked so (once), so that pruning keeps the pack.
                if !packs[pack].marked {
                    packs[pack].marked = true
                    CacheBounds.markUsed(packs[pack].path, modified: packs[pack].modified)
                }
            }
            return record.count
        }
        return nil
    }

    /// Keeps the tile `name` (`width` x `height` pixels, `bytes`) in this render's pack; nothing when
    /// the folder cannot be written.
    public func write(_ name: String, width: Int, height: Int, from bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, isOurs(creating: true) else { return }
        let header = TilePack.header(name: name, width: width, height: height, count: bytes.count)
        let sum = TilePack.checksum(header: header, payload: bytes).littleEndian
        lock.lock()
        defer { lock.unlock() }
        if index == nil { openPacks() }
        if own == nil && writable {
            let path = folder.path + "/" + UUID().uuidString + "." + Self.packExtension
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                packs.append((fd, path, Date(), true))
                own = (packs.count - 1, 0)
            } else {
                writable = false
            }
        }
        guard let (pack, end) = own else { return }
        let fd = packs[pack].fd
        let record = TilePack.Record(header: header, width: width, height: height, payload: end + header.count, count: bytes.count)
        let whole = header.withUnsafeBytes { TilePack.writeFully(fd, $0.baseAddress!, $0.count, at: end) }
            && TilePack.writeFully(fd, base, bytes.count, at: record.payload)
            && withUnsafeBytes(of: sum) { TilePack.writeFully(fd, $0.baseAddress!, 8, at: record.payload + bytes.count) }
        guard whole else {
            // A full disk: the pack ends at its last whole record (what follows is cut off).
            ftruncate(fd, off_t(end))
            writable = false
            own = nil
            return
        }
        own = (pack, record.payload + bytes.count + 8)
        index?[name, default: []].append((pack, record))
        wrote = true
        counts.written += 1
    }

    /// Lists the folder's packs (the newest `maxPacks`) and indexes their tiles: a tile in several
    /// (renders drawing it at once, or drawing it again after it was found damaged) is read from the
    /// newest that reads back whole. Under `lock`.
    private func openPacks() {
        index = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var found: [(path: String, modified: Date)] = []
        for name in names where name.hasSuffix("." + Self.packExtension) {
            let path = folder.path + "/" + name
            if let s = CacheBounds.status(path) { found.append((path, s.modified)) }
        }
        for (path, modified) in found.sorted(by: { $0.modified < $1.modified }).suffix(Self.maxPacks) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            let records = TilePack.records(fd)
            guard !records.isEmpty else {
                close(fd)
                continue
            }
            packs.append((fd, path, modified, false))
            for (name, record) in records { index?[name, default: []].append((packs.count - 1, record)) }
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

/// A pack's format: tiles one after another, each a record, little-endian: magic "MTTILE" + format (2 bytes), width and height (UInt32),
/// payload bytes (UInt64), the name's bytes (UInt32), 4 bytes zero, the name (UTF-8), the payload (the
/// raster's bytes: I420 planes one after the other, or BGRA rows), and a checksum of all that (UInt64:
/// FNV-1a in four lanes, fast enough to check on every read).
enum TilePack {
    static let magic: [UInt8] = Array("MTTILE".utf8) + [0, 2]
    static let headerSize = 32
    /// The longest name a record may have (a header claiming more is not a record).
    static let maxName = 1024

    /// Where a tile is in its pack, and what its header said.
    struct Record {
        var header: [UInt8]
        var width: Int
        var height: Int
        /// Where the payload starts in the pack, and its bytes (the checksum follows).
        var payload: Int
        var count: Int
    }

    static func header(name: String, width: Int, height: Int, count: Int) -> [UInt8] {
        let nameBytes = Array(name.utf8)
        var out = magic
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: width).littleEndian) { out += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: height).littleEndian) { out += $0 }
        withUnsafeBytes(of: UInt64(count).littleEndian) { out += $0 }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: nameBytes.count).littleEndian) { out += $0 }
        out += [0, 0, 0, 0]
        return out + nameBytes
    }

    /// A pack's index, written after its last record by the render that wrote it, as it ends: "MTINDEX"
    /// + format (8 bytes), the records' count (UInt64), then per record where its header starts
    /// (UInt64), its payload's bytes (UInt64), width, height and the name's bytes (UInt32 each), 4 bytes
    /// zero and the name; then the trailer: where the index starts (UInt64), its checksum (FNV-1a,
    /// UInt64) and "MTPACKIX". A reader finds every record in two reads (the trailer, the index)
    /// instead of two per record; a pack without one (a render killed, or still writing) is read
    /// record by record, which stops at the index's magic.
    static let indexMagic: [UInt8] = Array("MTINDEX".utf8) + [1]
    static let trailerMagic: [UInt8] = Array("MTPACKIX".utf8)
    static let trailerSize = 24

    /// The index block and trailer of `records` (by name, in the pack's order), to be written at
    /// `start`, where its records end.
    static func index(_ records: [(String, Record)], at start: Int) -> [UInt8] {
        var out = indexMagic
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        put(UInt64(records.count))
        for (name, r) in records {
            let nameBytes = Array(name.utf8)
            put(UInt64(r.payload - r.header.count))
            put(UInt64(r.count))
            put(UInt32(truncatingIfNeeded: r.width))
            put(UInt32(truncatingIfNeeded: r.height))
            put(UInt32(truncatingIfNeeded: nameBytes.count))
            put(UInt32(0))
            out += nameBytes
        }
        let sum = CacheKeys.fnv1a(out)
        put(UInt64(start))
        put(sum)
        return out + trailerMagic
    }

    /// The little-endian number of `count` bytes at `at` in `bytes` (a header's, an index's fields).
    static func field(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }

    /// The records the pack's index lists (nil: no index, or one that does not check out: the pack is
    /// then read record by record).
    static func indexed(_ fd: Int32, size: Int) -> [(String, Record)]? {
        guard size >= trailerSize + indexMagic.count + 8 else { return nil }
        var trailer = [UInt8](repeating: 0, count: trailerSize)
        guard trailer.withUnsafeMutableBytes({ readFully(fd, $0.baseAddress!, trailerSize, at: size - trailerSize) }),
              Array(trailer[16..<24]) == trailerMagic else { return nil }
        let start = field(trailer, 0, 8), end = size - trailerSize
        guard start >= 0, start <= end - indexMagic.count - 8 else { return nil }
        var block = [UInt8](repeating: 0, count: end - start)
        guard block.withUnsafeMutableBytes({ readFully(fd, $0.baseAddress!, end - start, at: start) }),
              UInt64(truncatingIfNeeded: field(trailer, 8, 8)) == CacheKeys.fnv1a(block),
              Array(block[0..<8]) == indexMagic else { return nil }
        // Every number checked against the pack before any sum of them (a checksum passed by chance
        // must not overflow one).
        let count = field(block, 8, 8)
        guard count >= 0, count <= block.count / 32 else { return nil }
        var out: [(String, Record)] = []
        var at = 16
        for _ in 0..<count {
            guard at + 32 <= block.count else { return nil }
            let offset = field(block, at, 8), bytes = field(block, at + 8, 8)
            let width = field(block, at + 16, 4), height = field(block, at + 20, 4), nameCount = field(block, at + 24, 4)
            at += 32
            guard nameCount <= maxName, at + nameCount <= block.count, bytes >= 0, bytes < start, offset >= 0,
                  offset < start else { return nil }
            let name = String(decoding: block[at..<(at + nameCount)], as: UTF8.self)
            at += nameCount
            let payload = offset + headerSize + nameCount
            guard payload + bytes + 8 <= start else { return nil }
            out.append((name, Record(header: header(name: name, width: width, height: height, count: bytes), width: width,
                                     height: height, payload: payload, count: bytes)))
        }
        return out.count == count ? out : nil
    }

    /// The whole records of the pack open at `fd`, by name: as its index lists them, or else from its
    /// start to the first that is not one (a header of another format, or one whose tile the file
    /// ends before). A tile's checksum is checked when it is read.
    static func records(_ fd: Int32) -> [(String, Record)] {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return [] }
        let size = Int(st.st_size)
        if let listed = indexed(fd, size: size) { return listed }
        var out: [(String, Record)] = []
        var offset = 0
        var fixed = [UInt8](repeating: 0, count: headerSize)
        while offset + headerSize + 8 <= size {
            guard fixed.withUnsafeMutableBytes({ readFully(fd, $0.baseAddress!, headerSize, at: offset) }),
                  Array(fixed[0..<8]) == magic else { break }
            let width = field(fixed, 8, 4), height = field(fixed, 12, 4), count = field(fixed, 16, 8),
                nameCount = field(fixed, 24, 4)
            guard nameCount <= maxName, count >= 0, count < size else { break }
            let payload = offset + headerSize + nameCount
            guard payload + count + 8 <= size else { break }
            var nameBytes = [UInt8](repeating: 0, count: nameCount)
            guard nameCount == 0 || nameBytes.withUnsafeMutableBytes({ readFully(fd, $0.baseAddress!, nameCount, at: offset + headerSize) })
            else { break }
            out.append((String(decoding: nameBytes, as: UTF8.self),
                        Record(header: fixed + nameBytes, width: width, height: height, payload: payload, count: count)))
            offset = payload + count + 8
        }
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
        return CacheKeys.fnv1a(out)
    }

    static func readFully(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ count: Int, at offset: Int) -> Bool {
        fully(count) { pread(fd, p + $0, count - $0, off_t(offset + $0)) }
    }

    static func writeFully(_ fd: Int32, _ p: UnsafeRawPointer, _ count: Int, at offset: Int) -> Bool {
        fully(count) { pwrite(fd, p + $0, count - $0, off_t(offset + $0)) }
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
