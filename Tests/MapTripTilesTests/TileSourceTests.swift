import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import SQLite
import Testing
@testable import MapTripRender
@testable import MapTripTiles

@Suite("Tile sources")
struct TileSourceTests {
    // MARK: Folder and MBTiles round trips

    @Test("FolderSource reads a pyramid written by TilePyramidWriter")
    func folderRoundTrip() throws {
        try TileTest.withTempDir { dir in
            let out = dir.appendingPathComponent("pyramid")
            let summary = try TileTest.pyramid(QuadrantBaseMap(), to: out, zooms: 0...2, attribution: "Quadrant credit")
            #expect(summary.tiles == 1 + 4 + 16)
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("2/3/1.png").path))
            let source = try FolderSource(directory: out)
            #expect(source.minZoom == 0 && source.maxZoom == 2)
            #expect(source.fileExtension == "png" && source.format == .png && source.tileSize == 256)
            #expect(source.attribution == "Quadrant credit")
            #expect(!source.isTMS)
            let keys = [TileKey(z: 1, x: 0, y: 0), TileKey(z: 1, x: 1, y: 0), TileKey(z: 2, x: 0, y: 3), TileKey(z: 2, x: 3, y: 2)]
            let tiles = source.tiles(for: keys)
            let expected = [QuadrantBaseMap.nw, QuadrantBaseMap.ne, QuadrantBaseMap.sw, QuadrantBaseMap.se]
            for (key, color) in zip(keys, expected) {
                let s = try StandardTileDecoder().decode(try #require(try tiles[key]?.get()))
                #expect(s.width == 256 && s.height == 256)
                #expect(TileTest.rgb(s, 128, 128) == color, "\(key)")
                // Corners too: the tile edges are the quadrant's.
                #expect(TileTest.rgb(s, 0, 0) == color && TileTest.rgb(s, 255, 255) == color, "\(key)")
            }
            // Missing and out-of-range keys fail, each with a reason.
            let bad = source.tiles(for: [TileKey(z: 3, x: 0, y: 0), TileKey(z: 2, x: 9, y: 0)])
            #expect(bad.count == 2)
            #expect(bad.values.allSatisfy { (try? $0.get()) == nil })
        }
    }

    @Test("FolderSource honours TMS folders and narrows zooms")
    func folderTMS() throws {
        try TileTest.withTempDir { dir in
            let xyz = dir.appendingPathComponent("xyz")
            try TileTest.pyramid(QuadrantBaseMap(), to: xyz, zooms: 1...2)
            // Re-lay it out as TMS (rows flipped) with a gdal2tiles-style marker file.
            let tms = dir.appendingPathComponent("tms")
            for z in 1...2 {
                for x in 0..<(1 << z) {
                    let d = tms.appendingPathComponent("\(z)/\(x)")
                    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
                    for y in 0..<(1 << z) {
                        try FileManager.default.copyItem(at: xyz.appendingPathComponent("\(z)/\(x)/\(y).png"),
                                                         to: d.appendingPathComponent("\(TileMath.tmsRow(y, zoom: z)).png"))
                    }
                }
            }
            try Data("<TileMap/>".utf8).write(to: tms.appendingPathComponent("tilemapresource.xml"))
            let source = try FolderSource(directory: tms, maxZoom: 1)
            #expect(source.isTMS && source.minZoom == 1 && source.maxZoom == 1)
            let data = try #require(try source.tiles(for: [TileKey(z: 1, x: 0, y: 0)])[TileKey(z: 1, x: 0, y: 0)]?.get())
            #expect(TileTest.rgb(try StandardTileDecoder().decode(data), 10, 10) == QuadrantBaseMap.nw)
        }
    }

    @Test("FolderSource errors say what was expected")
    func folderErrors() throws {
        try TileTest.withTempDir { dir in
            #expect(throws: TileError.self) { try FolderSource(directory: dir.appendingPathComponent("nope")) }
            let e = try #require(#expect(throws: TileError.self) { try FolderSource(directory: dir) })
            #expect(e.description.contains("no {z}/{x}/{y} tiles"))
        }
    }

    @Test("MBTilesSource reads a pyramid written by TilePyramidWriter (TMS rows, metadata)")
    func mbtilesRoundTrip() throws {
        try TileTest.withTempDir { dir in
            let file = dir.appendingPathComponent("world.mbtiles")
            let bounds = GeoBounds(west: -180, south: -85, east: 180, north: 85)
            try TileTest.pyramid(QuadrantBaseMap(), to: file, zooms: 0...3, bounds: bounds, attribution: "© Quadrants")
            // No temporary file left behind.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "world.mbtiles" }
            #expect(leftovers.isEmpty)
            let source = try MBTilesSource(file: file)
            #expect(source.minZoom == 0 && source.maxZoom == 3)
            #expect(source.attribution == "© Quadrants")
            #expect(source.format == .png && source.tileSize == 256 && source.info.name == "test")
            let b = try #require(source.bounds)
            #expect(b.west == -180 && b.south == -85 && b.east == 180 && b.north == 85)
            // Rows are stored TMS: check against the geography, not against the writer.
            let keys = [TileKey(z: 1, x: 0, y: 0), TileKey(z: 1, x: 1, y: 1), TileKey(z: 3, x: 6, y: 1), TileKey(z: 3, x: 1, y: 6)]
            let expected = [QuadrantBaseMap.nw, QuadrantBaseMap.se, QuadrantBaseMap.ne, QuadrantBaseMap.sw]
            let tiles = source.tiles(for: keys)
            for (key, color) in zip(keys, expected) {
                let s = try StandardTileDecoder().decode(try #require(try tiles[key]?.get()))
                #expect(TileTest.rgb(s, 128, 128) == color, "\(key)")
            }
            // The raw table really holds TMS rows.
            let db = try Database(path: file.path, mode: .readOnly)
            let q = try db.prepare("SELECT COUNT(*) FROM tiles WHERE zoom_level = 3 AND tile_column = 6 AND tile_row = ?")
            try q.bind(TileMath.tmsRow(1, zoom: 3), at: 1)
            #expect(try q.step() && q.int(0) == 1)
            let all = try db.prepare("SELECT COUNT(*) FROM tiles")
            #expect(try all.step() && all.int(0) == 1 + 4 + 16 + 64)
        }
    }

    @Test("MBTiles metadata is honoured: zooms, bounds, attribution, format")
    func mbtilesMetadata() throws {
        try TileTest.withTempDir { dir in
            let file = dir.appendingPathComponent("hand.mbtiles")
            let db = try Database(path: file.path, mode: .readWriteCreate)
            try db.exec("""
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                """)
            let meta = try db.prepare("INSERT INTO metadata VALUES (?, ?)")
            for (k, v) in [("name", "hand"), ("format", "png"), ("minzoom", "1"), ("maxzoom", "2"),
                           ("bounds", "0,0,90,60"), ("attribution", "Hand-made tiles")] {
                try meta.run(.text(k), .text(v))
            }
            let png = try TileTest.solidPNG(RGB(10, 200, 100))
            let ins = try db.prepare("INSERT INTO tiles VALUES (?, ?, ?, ?)")
            try db.transaction {
                for z in 0...3 {
                    for x in 0..<(1 << z) {
                        for y in 0..<(1 << z) { try ins.run(.integer(Int64(z)), .integer(Int64(x)), .integer(Int64(y)), .blob(png)) }
                    }
                }
            }
            let source = try MBTilesSource(file: file)
            #expect(source.minZoom == 1 && source.maxZoom == 2)  // the metadata, not the table's 0...3
            #expect(source.attribution == "Hand-made tiles" && source.info.name == "hand")
            #expect(source.bounds == GeoBounds(west: 0, south: 0, east: 90, north: 60))
            #expect(source.covers(TileKey(z: 2, x: 2, y: 1)))      // north-east of 0,0
            #expect(!source.covers(TileKey(z: 2, x: 0, y: 0)))     // the far north-west
            #expect(!source.covers(TileKey(z: 3, x: 4, y: 3)))     // beyond maxzoom

            let counting = CountingSource(source)
            let map = TileBaseMap(source: counting)
            let v = TileTest.viewport(lon: 45, lat: 30, zoom: 3.5, width: 256, height: 256)
            try map.prepare(for: [v, TileTest.viewport(lon: 0, lat: 0, zoom: 1, width: 512, height: 512)])
            #expect(counting.requested.allSatisfy { $0.z >= 1 && $0.z <= 2 && source.covers($0) })
            #expect(map.warnings.isEmpty)
            #expect(map.attribution == "Hand-made tiles" && map.attributionWarning == nil)
            let f = try TileTest.render(map, v)
            #expect(TileTest.rgb(f, 128, 128) == RGB(10, 200, 100))
            // Outside the bounds: the neutral background, not a failure.
            let world = try TileTest.render(map, TileTest.viewport(lon: 0, lat: 0, zoom: 1, width: 512, height: 512))
            #expect(TileTest.rgb(world, 100, 100) != RGB(10, 200, 100))
            #expect(TileTest.rgb(world, 300, 200) == RGB(10, 200, 100))
            #expect(map.warnings.isEmpty)
        }
    }

    @Test("MBTiles errors: not a database, no tiles table, vector tiles")
    func mbtilesErrors() throws {
        try TileTest.withTempDir { dir in
            let junk = dir.appendingPathComponent("junk.mbtiles")
            try Data("this is not sqlite, just text that goes on for a while".utf8).write(to: junk)
            #expect(throws: TileError.self) { try MBTilesSource(file: junk) }
            let empty = dir.appendingPathComponent("empty.mbtiles")
            try Database(path: empty.path, mode: .readWriteCreate).exec("CREATE TABLE other (a)")
            let noTiles = try #require(#expect(throws: TileError.self) { try MBTilesSource(file: empty) })
            #expect(noTiles.description.contains("no tiles table"))
            // Another program holding the database locked: said so, with what to do.
            let locked = dir.appendingPathComponent("locked.mbtiles")
            let writer = try Database(path: locked.path, mode: .readWriteCreate)
            try writer.exec("CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
            try writer.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO tiles VALUES (0, 0, 0, x'00')")
            let busy = try #require(#expect(throws: TileError.self) { try MBTilesSource(file: locked) })
            #expect(busy.description.contains("another program holds it locked"), "\(busy)")
            #expect(busy.description.contains("let that program finish"), "\(busy)")
            try writer.exec("COMMIT")
            let vector = dir.appendingPathComponent("vector.mbtiles")
            let db = try Database(path: vector.path, mode: .readWriteCreate)
            try db.exec("""
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                INSERT INTO metadata VALUES ('format', 'pbf');
                INSERT INTO tiles VALUES (0, 0, 0, x'1f8b0800');
                """)
            // A vector set opens (for the vector map), and a raster map refuses it as before.
            let vectorSource = try MBTilesSource(file: vector)
            #expect(vectorSource.info.isVector && vectorSource.info.tileSize == 512)
            let vectorTiles = try #require(#expect(throws: TileError.self) { try TileSources.requireRaster(vectorSource) })
            #expect(vectorTiles.description.contains("it holds vector tiles (format pbf), which cannot be drawn"))
        }
    }

    // MARK: URL templates

    @Test("URL template placeholders: {z}{x}{y}, {-y}, {s} by x+y, {r}, @2x")
    func urlTemplate() throws {
        let f = FakeFetcher()
        let s = try URLTemplateSource(template: "https://{s}.tile.example.org/{z}/{x}/{y}.png", fetcher: f)
        #expect(s.url(for: TileKey(z: 10, x: 873, y: 396))?.absoluteString == "https://a.tile.example.org/10/873/396.png")
        #expect(s.url(for: TileKey(z: 10, x: 874, y: 396))?.absoluteString == "https://b.tile.example.org/10/874/396.png")
        #expect(s.url(for: TileKey(z: 1, x: 0, y: 0))?.host == "a.tile.example.org")
        #expect(s.url(for: TileKey(z: 1, x: 1, y: 0))?.host == "b.tile.example.org")
        #expect(s.url(for: TileKey(z: 2, x: 1, y: 1))?.host == "c.tile.example.org")
        #expect(s.url(for: TileKey(z: 2, x: 2, y: 1))?.host == "a.tile.example.org")
        #expect(s.tileSize == 256 && s.format == .png && s.minZoom == 0 && s.maxZoom == URLTemplateSource.defaultMaxZoom)

        let tms = try URLTemplateSource(template: "http://h/{z}/{x}/{-y}.jpg", fetcher: f)
        #expect(tms.url(for: TileKey(z: 3, x: 1, y: 0))?.absoluteString == "http://h/3/1/7.jpg")
        #expect(tms.format == .jpeg)

        let r1 = try URLTemplateSource(template: "https://h/{z}/{x}/{y}{r}.png", highDensity: true, fetcher: f)
        #expect(r1.url(for: TileKey(z: 1, x: 1, y: 1))?.absoluteString == "https://h/1/1/1@2x.png")
        #expect(r1.tileSize == 512)
        let r0 = try URLTemplateSource(template: "https://h/{z}/{x}/{y}{r}.png", highDensity: false, fetcher: f)
        #expect(r0.url(for: TileKey(z: 1, x: 1, y: 1))?.absoluteString == "https://h/1/1/1.png")
        #expect(r0.tileSize == 256)
        let literal = try URLTemplateSource(template: "https://h/{z}/{x}/{y}@2x.png?key=abc", fetcher: f)
        #expect(literal.tileSize == 512 && literal.format == .png)
    }

    @Test("URL template mistakes are explained")
    func urlTemplateErrors() throws {
        let f = FakeFetcher()
        func reason(_ t: String, subdomains: [String] = ["a"]) -> String {
            do {
                _ = try URLTemplateSource(template: t, subdomains: subdomains, fetcher: f)
                return "accepted"
            } catch { return "\(error)" }
        }
        #expect(reason("https://h/{z}/{x}.png").contains("needs {z}, {x} and {y}"))
        #expect(reason("https://h/{z}/{x}/{y}.png?k={apikey}").contains("unknown placeholder {apikey}"))
        #expect(reason("https://{s}.h/{z}/{x}/{y}.png", subdomains: []).contains("{s} needs map.subdomains"))
        // Vector tiles are a source now (for the vector map); a raster map still refuses them.
        let vector = try URLTemplateSource(template: "https://h/{z}/{x}/{y}.pbf", fetcher: f)
        #expect(vector.info.isVector)
        #expect(throws: TileError.badTemplate("https://h/{z}/{x}/{y}.pbf", reason: "vector tiles (pbf/mvt) cannot be drawn: use a raster (PNG, JPEG, WebP) tile URL")) {
            try TileSources.requireRaster(vector)
        }
        #expect(reason("https://h/{z}/{x}/{y}.png") == "accepted")
    }

    @Test("URL template fetches through the client, failures carry the HTTP status")
    func urlTemplateFetch() throws {
        let f = FakeFetcher()
        let png = try TileTest.solidPNG(RGB(1, 2, 3), size: 8)
        f.responses["https://h/1/0/0.png"] = .success(png)
        let s = try URLTemplateSource(template: "https://h/{z}/{x}/{y}.png", maxZoom: 5, fetcher: f)
        let r = s.tiles(for: [TileKey(z: 1, x: 0, y: 0), TileKey(z: 1, x: 1, y: 0), TileKey(z: 6, x: 0, y: 0)])
        #expect(try r[TileKey(z: 1, x: 0, y: 0)]?.get() == png)
        #expect("\(r[TileKey(z: 1, x: 1, y: 0)]!)".contains("404"))
        #expect((try? r[TileKey(z: 6, x: 0, y: 0)]?.get()) == nil)
        // Beyond maxZoom nothing goes on the wire.
        #expect(f.requested.count == 2 && !f.requested.contains { $0.path.hasPrefix("/6/") })
    }

    // MARK: Choosing the source

    @Test("map.tiles picks the source: URL, folder (relative to the scene), .mbtiles; otherwise a clear error")
    func factory() throws {
        try TileTest.withTempDir { dir in
            let scene = dir.appendingPathComponent("trip", isDirectory: true)
            try FileManager.default.createDirectory(at: scene, withIntermediateDirectories: true)
            try TileTest.pyramid(UniformBaseMap(RGB(90, 90, 90)), to: scene.appendingPathComponent("tiles"), zooms: 0...1)
            try TileTest.pyramid(UniformBaseMap(RGB(90, 90, 90)), to: scene.appendingPathComponent("t.mbtiles"), zooms: 0...1)

            let folder = try TileSources.make(MapSource(tiles: "tiles"), sceneDirectory: scene)
            #expect(folder is FolderSource)
            let template = try TileSources.make(MapSource(tiles: "tiles/{z}/{x}/{y}.png"), sceneDirectory: scene)
            #expect((template as? FolderSource)?.fileExtension == "png")
            let mb = try TileSources.make(MapSource(tiles: "./t.mbtiles", maxZoom: 0), sceneDirectory: scene)
            #expect(mb is MBTilesSource && mb.maxZoom == 0)
            let abs = try TileSources.make(MapSource(tiles: scene.appendingPathComponent("tiles").path),
                                                 sceneDirectory: URL(fileURLWithPath: "/"))
            #expect(abs is FolderSource)
            let web = try TileSources.make(MapSource(tiles: "https://tile.openstreetmap.org/{z}/{x}/{y}.png"),
                                                 sceneDirectory: scene, fetcher: FakeFetcher())
            #expect(web is URLTemplateSource)

            func error(_ tiles: String) -> String {
                do {
                    _ = try TileSources.make(MapSource(tiles: tiles), sceneDirectory: scene, fetcher: FakeFetcher())
                    return "accepted"
                } catch { return "\(error)" }
            }
            let missing = error("nowhere")
            #expect(missing.contains("no such folder or file") && missing.contains(scene.appendingPathComponent("nowhere").path))
            #expect(missing.contains("Expected an http(s):// URL template"))
            #expect(error("gone.mbtiles").contains("no such MBTiles file"))
            #expect(error("ftp://host/{z}/{x}/{y}.png").contains("not supported"))
            #expect(error("").contains("empty"))
            try Data("x".utf8).write(to: scene.appendingPathComponent("notes.txt"))
            #expect(error("notes.txt").contains("is a file but neither an MBTiles file (an SQLite database) nor a PMTiles archive"))
        }
    }

    // MARK: Image headers and decoding

    static let jpeg32x16 = Data(base64Encoded: "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgEBAQEBAUFBQUFBQYGBgYGBgYGBgYGBgYHBwcICAgHBwcGBgcHCAgICAkJCQgICAgJCQoKCgwMCwsODg4RERT/xABMAAEBAAAAAAAAAAAAAAAAAAAABQEBAQAAAAAAAAAAAAAAAAAAAAYQAQAAAAAAAAAAAAAAAAAAAAARAQAAAAAAAAAAAAAAAAAAAAD/wAARCAAQACADASIAAhEAAxEA/9oADAMBAAIRAxEAPwCCAu06AA//2Q==")!
    static let webpLossless32x16 = Data(base64Encoded: "UklGRh4AAABXRUJQVlA4TBEAAAAvH8ADAAdQs8p0uf+BiOh/AAA=")!
    static let webpLossy32x16 = Data(base64Encoded: "UklGRkQAAABXRUJQVlA4IDgAAADwAgCdASogABAAPpE6l0eloyIhMAgAsBIJQA7AACBsAAD+6Wkf//G8eiHvK28//1qZGPkf5wAAAA==")!

    @Test("tile sizes and formats from headers; PNG, JPEG and WebP decode to surfaces")
    func decoding() throws {
        let png = try TileTest.solidPNG(RGB(51, 102, 204), size: 48)
        #expect(TileFormat(sniffing: png) == .png)
        #expect(ImageHeader.size(of: png)! == (48, 48))
        #expect(TileFormat(sniffing: Self.jpeg32x16) == .jpeg)
        #expect(ImageHeader.size(of: Self.jpeg32x16)! == (32, 16))
        #expect(TileFormat(sniffing: Self.webpLossless32x16) == .webp)
        #expect(ImageHeader.size(of: Self.webpLossless32x16)! == (32, 16))
        #expect(ImageHeader.size(of: Self.webpLossy32x16)! == (32, 16))

        let d = StandardTileDecoder()
        for (data, w, h) in [(png, 48, 48), (Self.jpeg32x16, 32, 16), (Self.webpLossless32x16, 32, 16), (Self.webpLossy32x16, 32, 16)] {
            let s = try d.decode(data)
            #expect(s.width == w && s.height == h)
            #expect(TileTest.rgb(s, w / 2, h / 2).near(RGB(51, 102, 204), 6), "\(TileTest.rgb(s, w / 2, h / 2))")
        }
        do {
            _ = try d.decode(Data("<html>Rate limited</html>".utf8))
            Issue.record("decoded HTML")
        } catch {
            #expect("\(error)".contains("Rate limited"))
        }
        #expect(throws: (any Error).self) { try d.decode(png.prefix(40)) }
        #expect(throws: (any Error).self) { try d.decode(Data()) }
    }

    @Test("the decoded-tile cache evicts the least recently used, bounded in bytes")
    func lru() throws {
        let one = try ImageSurface(width: 64, height: 64).byteCount
        let cache = SurfaceCache(limit: one * 4)
        let keys = (0..<4).map { TileKey(z: 3, x: $0, y: 0) }
        for k in keys { cache.put(k, try ImageSurface(width: 64, height: 64)) }
        #expect(cache.count == 4 && cache.totalBytes == one * 4)
        _ = cache.get(keys[0])  // now the most recent
        cache.put(TileKey(z: 3, x: 7, y: 7), try ImageSurface(width: 64, height: 64))
        #expect(cache.totalBytes <= one * 4)
        #expect(cache.get(keys[0]) != nil)
        #expect(cache.get(keys[1]) == nil)
        #expect(cache.get(TileKey(z: 3, x: 7, y: 7)) != nil)
    }
}
