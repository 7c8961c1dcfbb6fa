import Foundation
@testable import MapTripCore
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

    @Test func aDamagedTileIsAMissAndIsWrittenAgain() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = DrawnTileCache(directory: dir).store(recipe: "map")
        write(store, "t", Self.tile(7))
        let url = store.folder.appendingPathComponent("t")
        let good = try Data(contentsOf: url)
        var flippedPixel = good
        flippedPixel[TileFile.headerSize + 5000] ^= 0x10
        var flippedSize = good
        flippedSize[8] ^= 1
        var zeroed = good
        zeroed.replaceSubrange(TileFile.headerSize..<(TileFile.headerSize + 4096), with: Data(count: 4096))
        for damaged in [good.prefix(good.count / 2), Data(), good.dropLast(), flippedPixel, flippedSize, zeroed, good + [0]] {
            try damaged.write(to: url)
            #expect(read(store, "t") == nil)
        }
        write(store, "t", Self.tile(7))
        #expect(holds(store, "t", seed: 7))
        #expect(try Data(contentsOf: url) == good)
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
        #expect(!FileManager.default.fileExists(atPath: clash.folder.appendingPathComponent("u").path))
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

    @Test func tilesUnusedForLongOrBeyondTheBoundGoWhenARenderThatWroteEnds() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        let size = TileFile.headerSize + Self.tile(0).count + 8
        let unbounded = DrawnTileCache(directory: dir, bounds: CacheBounds(maxAge: 30 * 86_400, maxBytes: .max))
        var folders: [String: URL] = [:]
        func age(_ recipe: String, _ name: String, days: Double) throws {
            try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -days * 86_400)],
                                 ofItemAtPath: folders[recipe]!.appendingPathComponent(name).path)
        }
        // Two maps' tiles, of several ages; and a temporary file a render killed while writing left.
        do {
            let a = unbounded.store(recipe: "A"), b = unbounded.store(recipe: "B")
            folders = ["A": a.folder, "B": b.folder]
            for (n, days) in [40.0, 5, 3].enumerated() {
                write(a, "a\(n)", Self.tile(n))
                try age("A", "a\(n)", days: days)
            }
            write(b, "b0", Self.tile(9))
            try age("B", "b0", days: 4)
            try Data([0]).write(to: b.folder.appendingPathComponent(".b1.123.1"))
            try age("B", ".b1.123.1", days: 2)
            // Let go here, not at their last use above.
            withExtendedLifetime((a, b)) {}
        }
        // Nothing over the bounds yet but the 40-day-old tile: the stores let go (they wrote), it goes.
        #expect(!fm.fileExists(atPath: folders["A"]!.appendingPathComponent("a0").path))
        #expect(fm.fileExists(atPath: folders["A"]!.appendingPathComponent("a1").path))
        #expect(!fm.fileExists(atPath: folders["B"]!.appendingPathComponent(".b1.123.1").path))
        // A render of map C, the folder bound to three and a half tiles: of a1, a2, b0 and c0, the
        // least recently used (a1, 5 days) goes; a store that only read prunes nothing.
        let bounded = DrawnTileCache(directory: dir, bounds: CacheBounds(maxAge: 30 * 86_400, maxBytes: size * 7 / 2 + 64))
        do { write(bounded.store(recipe: "C"), "c0", Self.tile(5)) }
        #expect(!fm.fileExists(atPath: folders["A"]!.appendingPathComponent("a1").path))
        for (recipe, name) in [("A", "a2"), ("B", "b0")] {
            #expect(fm.fileExists(atPath: folders[recipe]!.appendingPathComponent(name).path))
        }
        // Reading a tile back marks it used: b0 (4 days) read now outlives a2 (3 days), which goes next; map A is left
        // with no tile, and its folder goes.
        do { #expect(holds(bounded.store(recipe: "B"), "b0", seed: 9)) }
        do { write(bounded.store(recipe: "C"), "c1", Self.tile(6)) }
        #expect(!fm.fileExists(atPath: folders["A"]!.path))
        #expect(holds(bounded.store(recipe: "B"), "b0", seed: 9))
        #expect(holds(bounded.store(recipe: "C"), "c0", seed: 5))
        #expect(holds(bounded.store(recipe: "C"), "c1", seed: 6))
    }

    @Test func theChecksumSeesEveryByteAndTheHeader() {
        let bytes = Self.tile(11, count: 1000)
        let header = TileFile.header(width: 10, height: 10, count: bytes.count)
        let sum = bytes.withUnsafeBytes { TileFile.checksum(header: header, payload: $0) }
        for i in [0, 7, 8, 31, 32, 500, 991, 999] {
            var changed = bytes
            changed[i] ^= 1
            #expect(changed.withUnsafeBytes { TileFile.checksum(header: header, payload: $0) } != sum, "byte \(i)")
        }
        let other = TileFile.header(width: 10, height: 11, count: bytes.count)
        #expect(bytes.withUnsafeBytes { TileFile.checksum(header: other, payload: $0) } != sum)
    }
}
