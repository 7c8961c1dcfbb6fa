import Foundation
import MapTripSupport
@testable import MapTripRender
import Testing

/// Drawn tiles kept on disk between renders: read back byte for byte, never served to another map
/// (recipe) or from a damaged file, the folder kept within bounds, and a disk that cannot be written
/// never failing anything.
@Suite struct DrawnTileCacheTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-drawn-tiles-\(UUID().uuidString)")
    }

    /// A tile's worth of bytes, different for every seed.
    static func tile(_ seed: Int, count: Int = 100 * 100 + 2 * 50 * 50) -> [UInt8] {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    func read(_ store: DrawnTileStore, _ name: String, width: Int = 100, height: Int = 100, count: Int? = nil) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count ?? Self.tile(0).count)
        let ok = out.withUnsafeMutableBytes { store.read(name, width: width, height: height, into: $0) }
        return ok ? out : nil
    }

    /// Whether the store gives the tile `name` back as tile `seed`'s bytes (a Bool: a failure would
    /// print every byte).
    func holds(_ store: DrawnTileStore, _ name: String, seed: Int) -> Bool { read(store, name) == Self.tile(seed) }

    func write(_ store: DrawnTileStore, _ name: String, _ bytes: [UInt8], width: Int = 100, height: Int = 100) {
        bytes.withUnsafeBytes { store.write(name, width: width, height: height, from: $0) }
    }

    @Test func aTileReadBackIsTheBytesWritten() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DrawnTileCache(directory: dir)
        let store = cache.store(recipe: "map A")
        #expect(read(store, "512-1-0.i420-2") == nil)
        write(store, "512-1-0.i420-2", Self.tile(1))
        write(store, "512-0-0.i420-2", Self.tile(2))
        #expect(store.tilesWritten == 2)
        // Another render of the same map: the same bytes back.
        let again = cache.store(recipe: "map A")
        #expect(holds(again, "512-1-0.i420-2", seed: 1))
        #expect(holds(again, "512-0-0.i420-2", seed: 2))
        #expect(again.tilesRead == 2)
        // Not another tile, nor this one asked at another size.
        #expect(read(again, "512-1-1.i420-2") == nil)
        #expect(read(again, "512-1-0.i420-2", width: 99) == nil)
        #expect(read(again, "512-1-0.i420-2", count: Self.tile(0).count - 1) == nil)
        // Another map (another style, another build of maptrip) has a folder of its own.
        let other = cache.store(recipe: "map B")
        #expect(other.folder != again.folder)
        #expect(read(other, "512-1-0.i420-2") == nil)
    }

    /// A tile kept in fewer bytes than its pixels take (a flat tile as its three samples) reads back
    /// as those bytes, into the start of a tile's room; a reader wanting the whole tile's bytes
    /// finds none, and a room too small for the record is a miss.
    @Test func aTileKeptInFewerBytesReadsBackAsThem() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DrawnTileCache(directory: dir)
        write(cache.store(recipe: "map A"), "512-3-1.i420-2", [16, 128, 200])
        write(cache.store(recipe: "map A"), "512-2-1.i420-2", Self.tile(5))
        let again = cache.store(recipe: "map A")
        var room = [UInt8](repeating: 0, count: Self.tile(0).count)
        let count = room.withUnsafeMutableBytes { again.read("512-3-1.i420-2", width: 100, height: 100, upTo: $0) }
        #expect(count == 3 && Array(room[..<3]) == [16, 128, 200])
        #expect(read(again, "512-3-1.i420-2") == nil)
        var small = [UInt8](repeating: 0, count: 2)
        #expect(small.withUnsafeMutableBytes { again.read("512-3-1.i420-2", width: 100, height: 100, upTo: $0) } == nil)
        // A whole tile reads back whole either way.
        let whole = room.withUnsafeMutableBytes { again.read("512-2-1.i420-2", width: 100, height: 100, upTo: $0) }
        #expect(whole == room.count && room == Self.tile(5))
    }

    @Test func aRenderReadsBackTheTilesItWroteItself() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A tile the memory bound let go of, wanted again later in the same render.
        let store = DrawnTileCache(directory: dir).store(recipe: "map")
        write(store, "t", Self.tile(1))
        write(store, "u", Self.tile(2))
        #expect(holds(store, "t", seed: 1))
        #expect(holds(store, "u", seed: 2))
        // All in one pack.
        let packs = try FileManager.default.contentsOfDirectory(atPath: store.folder.path).filter { $0.hasSuffix(".pack") }
        #expect(packs.count == 1)
    }

    @Test func rendersAtOnceEachWriteTheirOwnPackAndALaterOneReadsBoth() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DrawnTileCache(directory: dir)
        let first = cache.store(recipe: "map"), second = cache.store(recipe: "map")
        // Interleaved, and the same tile drawn by both.
        write(first, "a", Self.tile(1))
        write(second, "b", Self.tile(2))
        write(first, "c", Self.tile(3))
        write(second, "c", Self.tile(3))
        #expect(first.packPath != second.packPath)
        let later = cache.store(recipe: "map")
        #expect(holds(later, "a", seed: 1))
        #expect(holds(later, "b", seed: 2))
        #expect(holds(later, "c", seed: 3))
        withExtendedLifetime((first, second)) {}
    }

    @Test func aDamagedTileIsAMissAndIsWrittenAgain() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DrawnTileCache(directory: dir)
        let writer = cache.store(recipe: "map")
        write(writer, "s", Self.tile(6))
        write(writer, "t", Self.tile(7))
        let url = URL(fileURLWithPath: try #require(writer.packPath))
        let good = try Data(contentsOf: url)
        // Where tile t's record starts: after s's (header, name, payload, checksum).
        let t = TilePack.headerSize + 1 + Self.tile(0).count + 8
        var flippedPixel = good
        flippedPixel[t + TilePack.headerSize + 1 + 5000] ^= 0x10
        var flippedSize = good
        flippedSize[t + 8] ^= 1
        var flippedName = good
        flippedName[t + TilePack.headerSize] ^= 1
        var zeroed = good
        zeroed.replaceSubrange((t + 40)..<(t + 40 + 4096), with: Data(count: 4096))
        var flippedSum = good
        flippedSum[good.count - 3] ^= 0x80
        // Cut short (a render killed as it wrote), or changed: t is a miss, s (whole before it) is read.
        for damaged in [good.prefix(t + 100), good.prefix(t), good.dropLast(), flippedPixel, flippedSize, flippedName,
                        zeroed, flippedSum] {
            try damaged.write(to: url)
            let reader = cache.store(recipe: "map")
            #expect(read(reader, "t") == nil)
            #expect(holds(reader, "s", seed: 6))
        }
        // Bytes after the last whole record (a record begun and not finished) are no harm.
        try (good + [0x4d, 0x54]).write(to: url)
        #expect(holds(cache.store(recipe: "map"), "t", seed: 7))
        // Emptied: nothing read. Drawn and written again (in a new pack): read from there.
        try Data().write(to: url)
        let again = cache.store(recipe: "map")
        #expect(read(again, "t") == nil)
        write(again, "t", Self.tile(7))
        try flippedPixel.write(to: url)
        let last = cache.store(recipe: "map")
        #expect(holds(last, "t", seed: 7))
        #expect(holds(last, "s", seed: 6))
    }

    @Test func aPackEndsWithAnIndexThatALaterRenderReadsItsTilesBy() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DrawnTileCache(directory: dir)
        let names = ["512-0-0.i420-2", "512-1-0.i420-2", "ünïcödé-3"]
        let writer = cache.store(recipe: "map")
        for (seed, name) in names.enumerated() { write(writer, name, Self.tile(seed)) }
        let path = try #require(writer.packPath)
        // The render ends: its pack ends with the index of its three records; a tile it writes after
        // goes into a pack of its own.
        writer.finish()
        #expect(writer.packPath == nil)
        write(writer, "later", Self.tile(5))
        #expect(try #require(writer.packPath) != path)
        #expect(holds(writer, names[1], seed: 1))
        let url = URL(fileURLWithPath: path)
        let good = try Data(contentsOf: url)
        let record = TilePack.headerSize + names[0].utf8.count + Self.tile(0).count + 8
        let records = names.reduce(0) { $0 + TilePack.headerSize + $1.utf8.count + Self.tile(0).count + 8 }
        #expect(good.count > records + TilePack.trailerSize)
        #expect(Array(good.suffix(8)) == TilePack.trailerMagic)
        #expect(Array(good[records..<(records + 8)]) == TilePack.indexMagic)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let listed = try #require(TilePack.indexed(fd, size: good.count))
        #expect(listed.map(\.0) == names)
        #expect(listed.map(\.1.payload) == TilePack.records(fd).map(\.1.payload))
        // Read by the index: the second record's magic broken (reading record by record would stop
        // before it), every tile still found (each checked by its checksum, over the header the index
        // gives and the payload); its payload broken, that one a miss.
        var brokenMagic = good
        brokenMagic[record] ^= 0xff
        try brokenMagic.write(to: url)
        let byIndex = cache.store(recipe: "map")
        for (seed, name) in names.enumerated() { #expect(holds(byIndex, name, seed: seed)) }
        var brokenPayload = brokenMagic
        brokenPayload[record + TilePack.headerSize + names[1].utf8.count + 100] ^= 1
        try brokenPayload.write(to: url)
        let checked = cache.store(recipe: "map")
        #expect(holds(checked, names[0], seed: 0))
        #expect(read(checked, names[1]) == nil)
        #expect(holds(checked, names[2], seed: 2))
        // The index damaged (or cut off): read record by record, every tile found.
        for damaged in [good.prefix(records + 40), { var d = good; d[records + 20] ^= 1; return d }(),
                        { var d = good; d[d.count - 20] ^= 1; return d }()] {
            try damaged.write(to: url)
            let scanned = cache.store(recipe: "map")
            for (seed, name) in names.enumerated() { #expect(holds(scanned, name, seed: seed)) }
        }
        // Asked to bring tiles into memory ahead (some kept here, some not): they read back the same.
        try good.write(to: url)
        let ahead = cache.store(recipe: "map")
        ahead.willNeed(names + ["512-9-9.i420-2"])
        // What it asks for: each tile kept here, in the order asked, its whole record in the pack that
        // holds it ("later" in the second pack), within the limit.
        let size = TilePack.headerSize + Self.tile(0).count + 8
        let asked = ahead.ranges(of: [names[2], "512-9-9.i420-2", names[0], "later"], limit: .max)
        #expect(asked.map(\.offset) == [2 * size + names[0].utf8.count + names[1].utf8.count, 0, 0])
        #expect(asked.map(\.count) == [size + names[2].utf8.count, size + names[0].utf8.count, size + "later".utf8.count])
        #expect(asked[2].fd != asked[0].fd)
        #expect(ahead.ranges(of: names, limit: 2 * size + 40).count == 2)
        for (seed, name) in names.enumerated() { #expect(holds(ahead, name, seed: seed)) }
        #expect(holds(ahead, "later", seed: 5))
        withExtendedLifetime(writer) {}
    }

    @Test func aFolderOfAnotherRecipeIsNeitherReadNorWritten() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = DrawnTileCache(directory: dir)
        let store = cache.store(recipe: "map")
        write(store, "t", Self.tile(3))
        // Another recipe whose name hashes to the same folder (forced here): its recipe file differs.
        try Data("another map".utf8).write(to: store.folder.appendingPathComponent(DrawnTileStore.recipeName))
        let clash = cache.store(recipe: "map")
        #expect(read(clash, "t") == nil)
        write(clash, "u", Self.tile(4))
        #expect(clash.packPath == nil)
        #expect(clash.tilesWritten == 0)
    }

    @Test func anUnwritableFolderIsSkippedSilently() throws {
        // A file where the folder should be: nothing can be made there.
        let file = Self.temporaryDirectory()
        try Data([1]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let store = DrawnTileCache(directory: file).store(recipe: "map")
        write(store, "t", Self.tile(1))
        #expect(store.tilesWritten == 0)
        #expect(read(store, "t") == nil)
    }

    @Test func packsUnusedForLongOrBeyondTheBoundGoWhenARenderThatWroteEnds() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        // A pack of one tile named with two letters.
        let size = TilePack.headerSize + 2 + Self.tile(0).count + 8
        let unbounded = DrawnTileCache(directory: dir, bounds: CacheBounds(maxAge: 30 * 86_400, maxBytes: .max))
        var packs: [String: String] = [:]
        func age(_ name: String, days: Double) throws {
            try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -days * 86_400)], ofItemAtPath: packs[name]!)
        }
        func exists(_ name: String) -> Bool { fm.fileExists(atPath: packs[name]!) }
        // Map A drawn by three renders (a pack each), of several ages; map B by one.
        var folderA: URL?
        do {
            var stores: [DrawnTileStore] = []
            for (n, days) in [40.0, 5, 3].enumerated() {
                let a = unbounded.store(recipe: "A")
                write(a, "a\(n)", Self.tile(n))
                let pack: String = try #require(a.packPath)
                packs["a\(n)"] = pack
                try age("a\(n)", days: days)
                stores.append(a)
                folderA = a.folder
            }
            let b = unbounded.store(recipe: "B")
            write(b, "b0", Self.tile(9))
            let pack: String = try #require(b.packPath)
            packs["b0"] = pack
            try age("b0", days: 4)
            // Let go here, not at their last use above.
            withExtendedLifetime((stores, b)) {}
        }
        // Nothing over the bounds yet but the 40-day-old pack: the stores let go (they wrote), it goes.
        #expect(!exists("a0"))
        #expect(exists("a1"))
        // A render of map C, the folder bound to three and a half packs: of a1, a2, b0 and c0, the
        // least recently used (a1, 5 days) goes; a store that only read prunes nothing.
        let bounded = DrawnTileCache(directory: dir, bounds: CacheBounds(maxAge: 30 * 86_400, maxBytes: size * 7 / 2 + 64))
        do { write(bounded.store(recipe: "C"), "c0", Self.tile(5)) }
        #expect(!exists("a1"))
        #expect(exists("a2"))
        #expect(exists("b0"))
        // Reading a tile back marks its pack used: b0 (4 days) read now outlives a2 (3 days), which goes
        // next; map A is left with no pack, and its folder goes.
        do { #expect(holds(bounded.store(recipe: "B"), "b0", seed: 9)) }
        do { write(bounded.store(recipe: "C"), "c1", Self.tile(6)) }
        #expect(!fm.fileExists(atPath: try #require(folderA).path))
        #expect(holds(bounded.store(recipe: "B"), "b0", seed: 9))
        #expect(holds(bounded.store(recipe: "C"), "c0", seed: 5))
        #expect(holds(bounded.store(recipe: "C"), "c1", seed: 6))
    }

    @Test func theChecksumSeesEveryByteAndTheHeader() {
        let bytes = Self.tile(11, count: 1000)
        let header = TilePack.header(name: "t", width: 10, height: 10, count: bytes.count)
        let sum = bytes.withUnsafeBytes { TilePack.checksum(header: header, payload: $0) }
        for i in [0, 7, 8, 31, 32, 500, 991, 999] {
            var changed = bytes
            changed[i] ^= 1
            #expect(changed.withUnsafeBytes { TilePack.checksum(header: header, payload: $0) } != sum, "byte \(i)")
        }
        for other in [TilePack.header(name: "t", width: 10, height: 11, count: bytes.count),
                      TilePack.header(name: "u", width: 10, height: 10, count: bytes.count)] {
            #expect(bytes.withUnsafeBytes { TilePack.checksum(header: other, payload: $0) } != sum)
        }
    }
}
