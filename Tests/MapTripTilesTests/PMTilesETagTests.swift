import Cairo
import Foundation
import MapTripGeometry
import Testing
import TestSupport
import Zlib
@testable import MapTripRender
@testable import MapTripTiles

/// PMTiles over HTTP kept to one version of the archive, as the PMTiles specification asks: ranges
/// after the header sent with If-Match and its ETag; an archive replaced on the server mid-render
/// (the test server swaps the files after so many requests) read anew once, its tiles then the new
/// archive's; replaced again, an error for every tile after, never a mix.
@Suite("PMTiles over HTTP: one version of the archive (ETag, If-Match)")
struct PMTilesETagTests {
    /// The Helsinki archive as shipped (a), the same tiles laid out otherwise (b: leaf directories,
    /// uncompressed tiles: every offset differs), and b with other metadata (c).
    static func withArchives<T>(_ body: (HTTPTestServer, URL, [TileKey: Data]) throws -> T) throws -> T {
        try HTTPTestServer.withTemporaryDirectory { dir in
            let files = dir.appendingPathComponent("files")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: VectorData.pmtiles, to: files.appendingPathComponent("a.pmtiles"))
            let local = try PMTilesSource(file: VectorData.pmtiles)
            var tiles: [TileKey: Data] = [:]
            for key in try VectorData.keys(VectorData.mbtiles) { tiles[key] = try #require(try local.tile(key)) }
            // (Gzipped anew: an empty tile is not an empty entry.)
            let pairs = try tiles.map { ($0.key, try Zlib.deflate($0.value, level: 1)) }
            try PMTilesWriter.archive(pairs, leafSize: 4).write(to: files.appendingPathComponent("b.pmtiles"))
            try PMTilesWriter.archive(pairs, leafSize: 4, metadata: #"{"name":"changed again"}"#)
                .write(to: files.appendingPathComponent("c.pmtiles"))
            let server = try HTTPTestServer(files: files)
            defer { server.stop() }
            return try body(server, dir, tiles)
        }
    }

    static func client(_ dir: URL? = nil) -> HTTPTileClient {
        HTTPTileClient(options: HTTPTileOptions(cacheDirectory: dir?.appendingPathComponent("cache"), maxParallel: 1, retries: 0))
    }

    @Test("Replaced mid-render: a 412 to If-Match, the archive read anew once, every tile the new one's")
    func replacedOnce() throws {
        try Self.withArchives { server, _, tiles in
            let path = "/swap/5/a.pmtiles,b.pmtiles"
            let source = try PMTilesSource(url: server.url(path), client: Self.client())
            let keys = tiles.keys.sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
            let got = source.tiles(for: keys)
            for key in keys { #expect(try got[key]?.get() == tiles[key], "\(key)") }
            // Read anew: b's header (leaf directories) now.
            #expect(source.header.leafDirectoriesLength > 0)
            let log = try server.log().requests(to: path)
            let refused = log.filter { $0.status == 412 }
            #expect(refused.count == 1, "\(log.map { "\($0.status ?? 0) \($0.ifMatch ?? "-")" })")
            // The header asked for as it is (no If-Match), the rest with the header's ETag: a's, then b's.
            let versions = log.map(\.ifMatch)
            #expect(versions.first == .some(nil))
            let etags = Set(versions.compactMap { $0 })
            #expect(etags.count == 2, "\(etags)")
            #expect(log.filter { $0.ifMatch == nil }.count == 2)  // a's header, then b's
        }
    }

    @Test("A server that ignores If-Match: the changed ETag is seen, the archive read anew")
    func changedETagWithout412() throws {
        try Self.withArchives { server, _, tiles in
            let path = "/swapnomatch/5/a.pmtiles,b.pmtiles"
            let source = try PMTilesSource(url: server.url(path), client: Self.client())
            let got = source.tiles(for: Array(tiles.keys))
            for (key, data) in tiles { #expect(try got[key]?.get() == data, "\(key)") }
            let log = try server.log().requests(to: path)
            #expect(!log.contains { $0.status == 412 })
            #expect(log.filter { $0.ifMatch == nil }.count == 2)
        }
    }

    @Test("Replaced again after it was read anew: every later tile an error saying so, no tile of a mix")
    func replacedTwice() throws {
        try Self.withArchives { server, _, tiles in
            let source = try PMTilesSource(url: server.url("/swap/5/a.pmtiles,b.pmtiles,c.pmtiles"), client: Self.client())
            let keys = tiles.keys.sorted { ($0.z, $0.x, $0.y) < ($1.z, $1.x, $1.y) }
            let got = source.tiles(for: keys)
            var failed = 0
            for key in keys {
                switch got[key] {
                case .success(let data)?:
                    #expect(data == tiles[key], "\(key)")
                case .failure(let e)?:
                    failed += 1
                    #expect("\(e)".contains("changed on the server") && "\(e)".contains("again after maptrip read it anew")
                            && "\(e)".contains("render again once it stays the same"), "\(e)")
                case nil:
                    Issue.record("\(key): no answer")
                }
            }
            #expect(failed > 0 && failed < keys.count, "\(failed) of \(keys.count) failed")
            // And from then on, without asking the server.
            let before = try server.log().requests.count
            #expect(throws: TileError.self) { try source.tile(keys[0]) }
            #expect(try server.log().requests.count == before)
        }
    }

    @Test("A styled frame over HTTP, the archive replaced after its first requests: the same as from the file")
    func styledFrame() throws {
        try Self.withArchives { server, dir, _ in
            let http = HTTPTileOptions(cacheDirectory: dir.appendingPathComponent("cache"), retries: 0)
            let view = VectorProofTests.views[1].viewport
            let local = try VectorProofTests.frame(try TileTest.styledMap(tiles: VectorData.pmtiles, style: "light", in: dir), view)
            let path = "/swap/4/a.pmtiles,b.pmtiles"
            let map = try TileTest.styledMap(tiles: server.url(path), style: "light", in: dir, http: http)
            let remote = try VectorProofTests.frame(map, view)
            #expect(map.warnings.isEmpty, "\(map.warnings)")
            #expect(try TileTest.pixels(remote) == TileTest.pixels(local))
            #expect(try server.log().requests(to: path).contains { $0.status == 412 })
        }
    }

    @Test("Replaced twice under a styled map and a raster map: preparing the frames stops with the error")
    func replacedTwiceStopsTheMaps() throws {
        try Self.withArchives { server, dir, _ in
            // One request at a time: the server's swaps fall between the same requests every run.
            let http = HTTPTileOptions(maxParallel: 1, retries: 0)
            let map = try TileTest.styledMap(tiles: server.url("/swap/5/a.pmtiles,b.pmtiles,c.pmtiles"), style: "light", in: dir,
                                             http: http)
            let e = try #require(#expect(throws: TileError.self) { try map.prepare(for: [VectorProofTests.views[1].viewport]) })
            #expect("\(e)".contains("changed on the server") && "\(e)".contains("again after maptrip read it anew"), "\(e)")
            // A raster map of PNG tiles in a PMTiles archive, replaced twice the same way.
            let red = try ImageSurface(width: 256, height: 256)
            try red.withContext { cr in
                cr.setSource(red: 1, green: 0, blue: 0)
                cr.paint()
            }
            let png = try red.pngData()
            let tiles = (0...2).flatMap { z in (0..<(1 << z)).flatMap { x in (0..<(1 << z)).map { y in (TileKey(z: z, x: x, y: y), png) } } }
            let files = dir.appendingPathComponent("files")
            for (name, leaves, meta) in [("a", nil, "{}"), ("b", 3, "{}"), ("c", 3, #"{"name":"c"}"#)] as [(String, Int?, String)] {
                try PMTilesWriter.archive(tiles, leafSize: leaves, tileType: 2, tileCompression: 1, metadata: meta)
                    .write(to: files.appendingPathComponent("r\(name).pmtiles"))
            }
            let source = try PMTilesSource(url: server.url("/swap/4/ra.pmtiles,rb.pmtiles,rc.pmtiles"),
                                           client: HTTPTileClient(options: http))
            let raster = TileBaseMap(source: source)
            let view = Viewport(camera: Camera(center: LonLat(lon: 0, lat: 0), zoom: 2), width: 1024, height: 1024)
            let r = try #require(#expect(throws: TileError.self) { try raster.prepare(for: [view]) })
            #expect("\(r)".contains("again after maptrip read it anew"), "\(r)")
        }
    }
}
