import Foundation
@testable import MapTripSupport
@testable import MapTripGeometry
import MapTripSupport
import Testing

/// Levels of detail kept on disk between renders: read back exactly, never served for another
/// version of the source, and never failing a render when the disk does.
@Suite struct GeometryCacheTests {
    final class Counter: @unchecked Sendable { var loads = 0 }

    /// Two rings and a line's worth of parts: a geometry with several parts.
    static func source() -> IndexedGeometry {
        let (ax, ay) = wigglyRing(cx: 0.3, cy: 0.4, r: 0.1, n: 8_000)
        let (bx, by) = wigglyRing(cx: 0.7, cy: 0.6, r: 0.05, n: 3_000)
        return IndexedGeometry(xs: ax + bx, ys: ay + by, partStarts: [0, ax.count], isPolygon: true)
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("maptrip-geometry-\(UUID().uuidString)")
    }

    static func same(_ a: IndexedGeometry, _ b: IndexedGeometry) -> Bool {
        a.qx == b.qx && a.qy == b.qy && a.originX == b.originX && a.originY == b.originY && a.step == b.step
            && a.isPolygon == b.isPolygon && a.parts.map { [$0.start, $0.end] } == b.parts.map { [$0.start, $0.end] }
            && a.box.minX == b.box.minX && a.box.maxY == b.box.maxY && a.chunkBoxes.count == b.chunkBoxes.count
    }

    @Test func levelsReadBackAreThoseBuiltAndTheSourceIsNotLoadedAgain() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = GeometryCache(directory: dir)
        let counter = Counter()
        let first = DetailLevels(store: cache.store(path: "/data/land.shp", recipe: "r1", identity: "v1")) {
            counter.loads += 1
            return Self.source()
        }
        let built = try [3, 6].map { try first.geometry(zoom: Double($0), scale: 1) }
        #expect(counter.loads == 1)
        // Another render: the same levels, read from disk, and the source never loaded.
        let second = DetailLevels(store: cache.store(path: "/data/land.shp", recipe: "r1", identity: "v1")) {
            counter.loads += 1
            return Self.source()
        }
        for (level, g) in zip([3, 6], built) {
            #expect(Self.same(try second.geometry(zoom: Double(level), scale: 1), g))
        }
        #expect(counter.loads == 1)
        // A level not kept is built from the full geometry, which was kept too.
        let nine = try second.geometry(zoom: 9, scale: 1)
        #expect(counter.loads == 1)
        #expect(Self.same(nine, try DetailLevels(Self.source()).geometry(zoom: 9, scale: 1)))
        #expect(Self.same(try second.full(), Self.source()))
    }

    @Test func anotherVersionOfTheSourceOrRecipeIsAMiss() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = GeometryCache(directory: dir)
        cache.store(path: "/a.shp", recipe: "r1", identity: "v1").save(Self.source(), level: 4)
        #expect(cache.store(path: "/a.shp", recipe: "r1", identity: "v1").geometry(level: 4) != nil)
        #expect(cache.store(path: "/a.shp", recipe: "r1", identity: "v2").geometry(level: 4) == nil)
        #expect(cache.store(path: "/a.shp", recipe: "r2", identity: "v1").geometry(level: 4) == nil)
        #expect(cache.store(path: "/b.shp", recipe: "r1", identity: "v1").geometry(level: 4) == nil)
        #expect(cache.store(path: "/a.shp", recipe: "r1", identity: "v1").geometry(level: 5) == nil)
        // The source's files as the file system sees them: a file rewritten is another identity.
        let file = dir.appendingPathComponent("x.shp").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        let before = CacheKeys.identity(of: [file, file + ".missing"])
        try Data([1, 2, 3, 4]).write(to: URL(fileURLWithPath: file))
        #expect(CacheKeys.identity(of: [file, file + ".missing"]) != before)
    }

    @Test func aNewRecipeReplacesTheSourcesOldLevels() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = GeometryCache(directory: dir)
        cache.store(path: "/a.shp", recipe: "r1", identity: "v").save(Self.source(), level: 4)
        cache.store(path: "/a.shp", recipe: "r1", identity: "v").save(Self.source(), level: nil)
        cache.store(path: "/b.shp", recipe: "r1", identity: "v").save(Self.source(), level: 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 3)
        // A newer maptrip's levels of /a.shp: its older ones go, /b.shp's stay.
        cache.store(path: "/a.shp", recipe: "r2", identity: "v").save(Self.source(), level: 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 2)
        #expect(cache.store(path: "/a.shp", recipe: "r1", identity: "v").geometry(level: 4) == nil)
        #expect(cache.store(path: "/a.shp", recipe: "r2", identity: "v").geometry(level: 5) != nil)
        #expect(cache.store(path: "/b.shp", recipe: "r1", identity: "v").geometry(level: 4) != nil)
    }

    @Test func filesUnusedForLongOrBeyondTheBoundGoWhenOneIsWritten() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        func file(_ path: String) throws -> URL {
            let name = try fm.contentsOfDirectory(atPath: dir.path).first {
                $0.hasPrefix(String(CacheKeys.fnv1a(Array(path.utf8)), radix: 16) + "-")
            }
            return dir.appendingPathComponent(try #require(name))
        }
        func age(_ path: String, days: Double) throws {
            try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -days * 86_400)], ofItemAtPath: try file(path).path)
        }
        // Four sources' levels, as other checkouts or older assets folders would leave them.
        let unbounded = GeometryCache(directory: dir, bounds: CacheBounds(maxAge: 30 * 86_400, maxBytes: .max))
        for (path, days) in [("/a.shp", 40.0), ("/b.shp", 3), ("/c.shp", 2), ("/d.shp", 1)] {
            unbounded.store(path: path, recipe: "r", identity: "v").save(Self.source(), level: 4)
            try age(path, days: days)
        }
        let size = try #require(try fm.attributesOfItem(atPath: try file("/b.shp").path)[.size] as? NSNumber).intValue
        // Another one written, the folder bound to three and a half files: /a.shp's, unused for 40
        // days, goes; then the least recently used, /b.shp's, to bring four files down to three.
        let bounded = GeometryCache(directory: dir, bounds: CacheBounds(maxAge: 30 * 86_400, maxBytes: size * 7 / 2))
        bounded.store(path: "/e.shp", recipe: "r", identity: "v").save(Self.source(), level: 4)
        let left = Set(["/c.shp", "/d.shp", "/e.shp"].map { String(CacheKeys.fnv1a(Array($0.utf8)), radix: 16) })
        #expect(Set(try fm.contentsOfDirectory(atPath: dir.path).map { String($0.prefix { $0 != "-" }) }) == left)
        // Reading a file back marks it used: read now, /c.shp's is the newest, and /d.shp's goes next.
        #expect(bounded.store(path: "/c.shp", recipe: "r", identity: "v").geometry(level: 4) != nil)
        let used = try #require(try fm.attributesOfItem(atPath: try file("/c.shp").path)[.modificationDate] as? Date)
        #expect(abs(used.timeIntervalSinceNow) < 600)
        bounded.store(path: "/f.shp", recipe: "r", identity: "v").save(Self.source(), level: 4)
        #expect(bounded.store(path: "/d.shp", recipe: "r", identity: "v").geometry(level: 4) == nil)
        #expect(bounded.store(path: "/c.shp", recipe: "r", identity: "v").geometry(level: 4) != nil)
        #expect(bounded.store(path: "/e.shp", recipe: "r", identity: "v").geometry(level: 4) != nil)
    }

    @Test func aDamagedFileIsAMissAndIsWrittenAgain() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = GeometryCache(directory: dir).store(path: "/land.shp", recipe: "r", identity: "v")
        let counter = Counter()
        func levels() -> DetailLevels {
            DetailLevels(store: store) {
                counter.loads += 1
                return Self.source()
            }
        }
        let expected = try levels().geometry(zoom: 5, scale: 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix("-L5.mtgeo") }
        let url = dir.appendingPathComponent(try #require(files.first))
        let good = try Data(contentsOf: url)
        var damaged: [Data] = [good.prefix(good.count / 2), Data(), Data(good.prefix(12))]
        var flipped = good
        flipped[good.count / 2] ^= 0x40  // a vertex changed: the checksum tells
        damaged.append(flipped)
        for bad in damaged {
            try bad.write(to: url)
            counter.loads = 0
            // The full geometry's file is removed too, so a miss must load the source.
            for f in try FileManager.default.contentsOfDirectory(atPath: dir.path) where f.hasSuffix("-full.mtgeo") {
                try FileManager.default.removeItem(at: dir.appendingPathComponent(f))
            }
            #expect(store.geometry(level: 5) == nil)
            #expect(Self.same(try levels().geometry(zoom: 5, scale: 1), expected))
            #expect(counter.loads == 1)
            // Written again whole.
            #expect(try Data(contentsOf: url) == good)
        }
    }

    @Test func aCacheThatCannotBeWrittenDoesNotFailTheLevels() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A file where the folder should be: nothing can be written under it.
        try Data("not a folder".utf8).write(to: dir)
        let levels = DetailLevels(store: GeometryCache(directory: dir.appendingPathComponent("geometry"))
            .store(path: "/land.shp", recipe: "r", identity: "v")) { Self.source() }
        #expect(Self.same(try levels.geometry(zoom: 5, scale: 1), try DetailLevels(Self.source()).geometry(zoom: 5, scale: 1)))
    }

    @Test func theDefaultFolderFollowsXDG() {
        #expect(CacheDirectories.default("geometry", environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"])?.path
                == "/c/maptrip/geometry")
        #expect(CacheDirectories.default("tiles", environment: ["HOME": "/h"])?.path == "/h/.cache/maptrip/tiles")
        #expect(CacheDirectories.default("tiles", environment: ["XDG_CACHE_HOME": "relative"]) == nil)
    }
}
