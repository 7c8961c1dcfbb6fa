import Foundation
import SwiftProtobuf
import TestBasics
import Testing
@testable import VectorTile

/// Tiles for the tests, written with the generated protobuf types.
enum MVT {
    static func command(_ id: UInt32, _ count: UInt32) -> UInt32 { id | count << 3 }
    static func zigzag(_ n: Int32) -> UInt32 { UInt32(bitPattern: (n << 1) ^ (n >> 31)) }
    /// A MoveTo (1) or LineTo (2) command with its points as zigzagged deltas from the cursor.
    static func draw(_ id: UInt32, _ points: [(Int32, Int32)], from cursor: inout (Int32, Int32)) -> [UInt32] {
        var out = [command(id, UInt32(points.count))]
        for p in points {
            out += [zigzag(p.0 - cursor.0), zigzag(p.1 - cursor.1)]
            cursor = p
        }
        return out
    }
    static func moveTo(_ points: [(Int32, Int32)], from cursor: inout (Int32, Int32)) -> [UInt32] {
        draw(1, points, from: &cursor)
    }
    static func lineTo(_ points: [(Int32, Int32)], from cursor: inout (Int32, Int32)) -> [UInt32] {
        draw(2, points, from: &cursor)
    }
    /// Rings as polygon commands (MoveTo, LineTo, ClosePath each).
    static func rings(_ rings: [[(Int32, Int32)]]) -> [UInt32] {
        var cursor: (Int32, Int32) = (0, 0)
        var out: [UInt32] = []
        for r in rings {
            out += moveTo([r[0]], from: &cursor)
            out += lineTo(Array(r.dropFirst()), from: &cursor)
            out.append(command(7, 1))
        }
        return out
    }

    static func value(_ v: VectorValue) -> VectorTile_Tile.Value {
        var out = VectorTile_Tile.Value()
        switch v {
        case .string(let s): out.stringValue = s
        case .double(let d): out.doubleValue = d
        case .int(let i): out.intValue = i
        case .uint(let u): out.uintValue = u
        case .bool(let b): out.boolValue = b
        }
        return out
    }

    static func feature(_ type: VectorTile_Tile.GeomType, _ geometry: [UInt32], tags: [UInt32] = [], id: UInt64? = nil)
        -> VectorTile_Tile.Feature {
        var f = VectorTile_Tile.Feature()
        f.type = type
        f.geometry = geometry
        f.tags = tags
        if let id { f.id = id }
        return f
    }

    static func layer(_ name: String, _ features: [VectorTile_Tile.Feature], keys: [String] = [], values: [VectorValue] = [],
                      extent: UInt32? = nil, version: UInt32 = 2) -> VectorTile_Tile.Layer {
        var l = VectorTile_Tile.Layer()
        l.name = name
        l.version = version
        l.features = features
        l.keys = keys
        l.values = values.map(value)
        if let extent { l.extent = extent }
        return l
    }

    static func tile(_ layers: [VectorTile_Tile.Layer]) throws -> Data {
        var t = VectorTile_Tile()
        t.layers = layers
        return try t.serializedData(partial: true)
    }
}

@Suite("Vector tiles (MVT 2.1)")
struct VectorTileTests {
    func decodeGeometry(_ commands: [UInt32], _ type: VectorGeometryType) throws -> [[TilePoint]] {
        var budget = 1_000_000
        return try VectorTileData.decodeGeometry(commands, type: type, pointBudget: &budget)
    }

    func points(_ parts: [[TilePoint]]) -> [[[Int32]]] { parts.map { $0.map { [$0.x, $0.y] } } }

    @Test("The specification's geometry examples (4.3.5) decode to its coordinates")
    func specExamples() throws {
        #expect(points(try decodeGeometry([9, 50, 34], .point)) == [[[25, 17]]])
        #expect(points(try decodeGeometry([17, 10, 14, 3, 9], .point)) == [[[5, 7]], [[3, 2]]])
        #expect(points(try decodeGeometry([9, 4, 4, 18, 0, 16, 16, 0], .lineString)) == [[[2, 2], [2, 10], [10, 10]]])
        #expect(points(try decodeGeometry([9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8], .lineString))
            == [[[2, 2], [2, 10], [10, 10]], [[1, 1], [3, 5]]])
        #expect(points(try decodeGeometry([9, 6, 12, 18, 10, 12, 24, 44, 15], .polygon)) == [[[3, 6], [8, 12], [20, 34], [3, 6]]])
        // Multi-polygon: two exteriors, the second with a hole.
        let multi: [UInt32] = [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15, 9, 4, 13, 26, 0,
                               8, 8, 0, 0, 7, 15]
        let decoded = try decodeGeometry(multi, .polygon)
        #expect(points(decoded) == [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
                                    [[11, 11], [20, 11], [20, 20], [11, 20], [11, 11]],
                                    [[13, 13], [13, 17], [17, 17], [17, 13], [13, 13]]])
        let grouped = VectorFeature.classifyRings(decoded)
        #expect(grouped.map(\.count) == [1, 2])
        #expect(VectorFeature.signedArea(decoded[0]) > 0 && VectorFeature.signedArea(decoded[2]) < 0)
    }

    @Test("Layers, features, ids and every value type")
    func fullTile() throws {
        var c: (Int32, Int32) = (0, 0)
        let road = MVT.feature(.linestring, MVT.moveTo([(10, 10)], from: &c) + MVT.lineTo([(100, 10), (100, -20)], from: &c),
                               tags: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4], id: 42)
        let park = MVT.feature(.polygon, MVT.rings([[(0, 0), (50, 0), (50, 50), (0, 50)], [(10, 10), (10, 40), (40, 40), (40, 10)]]),
                               tags: [0, 5])
        c = (0, 0)
        let pin = MVT.feature(.point, MVT.moveTo([(4096, 4096)], from: &c))
        let data = try MVT.tile([
            MVT.layer("transportation", [road, park], keys: ["name", "lanes", "oneway", "speed", "id"],
                      values: [.string("Mannerheimintie"), .int(-4), .bool(true), .double(40.5), .uint(UInt64.max), .string("park")]),
            MVT.layer("poi", [pin], extent: 512, version: 1),
        ])
        let tile = try VectorTileData(data: data)
        #expect(tile.layers.map(\.name) == ["transportation", "poi"])
        let t = try #require(tile.layer(named: "transportation"))
        #expect(t.extent == 4096 && t.version == 2)
        #expect(t.features[0].id == 42 && t.features[1].id == nil)
        #expect(t.features[0].type == .lineString)
        #expect(t.features[0].properties == ["name": .string("Mannerheimintie"), "lanes": .int(-4), "oneway": .bool(true),
                                             "speed": .double(40.5), "id": .uint(UInt64.max)])
        #expect(points(t.features[0].geometry) == [[[10, 10], [100, 10], [100, -20]]])
        #expect(t.features[1].polygons.count == 1 && t.features[1].polygons[0].count == 2)
        #expect(t.features[1].properties["name"]?.string == "park")
        let poi = try #require(tile.layer(named: "poi"))
        #expect(poi.extent == 512 && poi.version == 1)
        #expect(points(poi.features[0].geometry) == [[[4096, 4096]]])
        #expect(VectorValue.double(40).description == "40" && VectorValue.int(3).number == 3)
    }

    @Test("Malformed tiles throw a clear MVTError, never crash")
    func malformed() throws {
        func error(_ data: Data) -> String {
            do {
                _ = try VectorTileData(data: data)
                return "no error"
            } catch let e as MVTError {
                return e.description
            } catch {
                return "other error \(error)"
            }
        }
        func geometryError(_ commands: [UInt32], _ type: VectorTile_Tile.GeomType) throws -> String {
            try error(MVT.tile([MVT.layer("l", [MVT.feature(type, commands)])]))
        }
        var c: (Int32, Int32) = (0, 0)
        let good = try MVT.tile([MVT.layer("roads", [MVT.feature(.linestring, MVT.moveTo([(1, 1)], from: &c) + MVT.lineTo([(5, 5)], from: &c))])])
        #expect(error(good) == "no error")
        #expect(error(good.prefix(good.count - 3)).contains("protobuf cannot be read"))
        #expect(error(Data("<html>quota exceeded</html>".utf8)).hasPrefix("not a valid vector tile"))
        #expect(error(Data([0x1F, 0x8B, 8, 0])).contains("gzipped"))
        #expect(try geometryError([MVT.command(2, 3), 2, 2], .linestring).contains("LineTo before any MoveTo") ||
                geometryError([MVT.command(2, 3), 2, 2], .linestring).contains("needs 6 parameters"))
        #expect(try geometryError([9, 2, 2, MVT.command(2, 5), 2, 2], .linestring).contains("LineTo of 5 points at command 3 needs 10 parameters; 2 are left"))
        #expect(try geometryError([9, 2, 2, MVT.command(2, 1), 2, 2, MVT.command(7, 2)], .polygon).contains("ClosePath with a count of 2"))
        #expect(try geometryError([MVT.command(4, 1), 2, 2], .point).contains("unknown geometry command 4"))
        #expect(try geometryError([MVT.command(1, 0)], .point).contains("MoveTo with a count of 0"))
        #expect(try geometryError([MVT.command(1, 2), 2, 2, 4, 4], .linestring).contains("MoveTo of 2 points"))
        #expect(try geometryError([9, 2, 2, MVT.command(2, 2), 2, 2, 4, 4], .polygon).contains("not closed"))
        #expect(try geometryError([9, 2, 2, MVT.command(2, 1), 2, 2], .point).contains("LineTo in a point feature"))
        #expect(try geometryError([MVT.command(7, 1)], .polygon).contains("ClosePath before any MoveTo"))
        #expect(try geometryError([9, UInt32.max - 1, 0, MVT.command(2, 1), UInt32.max - 1, 0], .linestring).contains("overflows"))
        // Tags.
        let tagged = { (tags: [UInt32]) in try MVT.tile([MVT.layer("pois", [MVT.feature(.point, [9, 2, 2], tags: tags)],
                                                                 keys: ["name"], values: [.string("x")])]) }
        #expect(try error(tagged([0])).contains("1 tags"))
        #expect(try error(tagged([1, 0])) == "not a valid vector tile: layer \"pois\" feature 0: tag key 1 is beyond the layer's 1 keys")
        #expect(try error(tagged([0, 7])).contains("tag value 7 is beyond the layer's 1 values"))
        // Layers.
        var nameless = MVT.layer("x", [])
        nameless.clearName()
        #expect(try error(MVT.tile([nameless])).contains("a layer has no name"))
        #expect(try error(MVT.tile([MVT.layer("v3", [], version: 3)])).contains("version 3"))
        #expect(try error(MVT.tile([MVT.layer("e", [], extent: 0)])).contains("extent 0"))
        var emptyValue = MVT.layer("vals", [])
        emptyValue.values = [VectorTile_Tile.Value()]
        #expect(try error(MVT.tile([emptyValue])).contains("value 0 holds none"))
        // Bounds: too many vertices, too many bytes.
        let many = try MVT.tile([MVT.layer("m", [MVT.feature(.point, [MVT.command(1, 1000)] + Array(repeating: 2, count: 2000))])])
        #expect(throws: MVTError.self) { try VectorTileData(data: many, limits: .init(maxPoints: 999)) }
        #expect(throws: MVTError.self) { try VectorTileData(data: many, limits: .init(maxBytes: 100)) }
        #expect(try VectorTileData(data: many).layers[0].features[0].geometry.count == 1000)
    }

    @Test("Random damage to a tile throws or decodes, never traps (5,000 mutations)")
    func randomDamage() throws {
        var c: (Int32, Int32) = (0, 0)
        let line = MVT.feature(.linestring, MVT.moveTo([(1, 1)], from: &c) + MVT.lineTo([(5, 5), (9, 1)], from: &c), tags: [0, 0], id: 3)
        let poly = MVT.feature(.polygon, MVT.rings([[(0, 0), (50, 0), (50, 50)], [(10, 10), (10, 20), (20, 20)]]), tags: [1, 1])
        let base = [UInt8](try MVT.tile([MVT.layer("a", [line, poly], keys: ["k", "j"], values: [.string("v"), .double(2)])]))
        var rng = SplitMix64(seed: 58)
        var decoded = 0
        for _ in 0..<5_000 {
            var bytes = base
            for _ in 0...(Int(rng.next() % 4)) {
                let i = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: rng.next())
                case 1: bytes.remove(at: i)
                default: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
                }
                if bytes.isEmpty { bytes = [0] }
            }
            if (try? VectorTileData(data: Data(bytes))) != nil { decoded += 1 }
        }
        #expect(decoded > 0 && decoded < 5_000)
    }
}
