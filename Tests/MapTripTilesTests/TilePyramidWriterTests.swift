import Cairo
import Foundation
import MapTripGeometry
import MapTripOutput
import MapTripRender
import Testing
@testable import MapTripRecord
import MapTripTiles

@Suite("Tile pyramid writer")
struct TilePyramidWriterTests {
    @Test("each tile is the viewport centred on the tile at its zoom (256) or one deeper (512)")
    func viewports() throws {
        let w256 = try TilePyramidWriter(baseMap: UniformBaseMap(RGB(0, 0, 0)), options: TilePyramidOptions(minZoom: 0, maxZoom: 3))
        let v = w256.viewport(for: TileKey(z: 3, x: 5, y: 2))
        #expect(v.width == 256 && v.height == 256 && v.camera.zoom == 3 && v.scale == 1)
        let b = v.worldBounds, t = TileMath.worldBounds(of: TileKey(z: 3, x: 5, y: 2))
        #expect(abs(b.minX - t.minX) < 1e-12 && abs(b.maxX - t.maxX) < 1e-12)
        #expect(abs(b.minY - t.minY) < 1e-12 && abs(b.maxY - t.maxY) < 1e-12)
        let w512 = try TilePyramidWriter(baseMap: UniformBaseMap(RGB(0, 0, 0)),
                                         options: TilePyramidOptions(minZoom: 0, maxZoom: 3, tileSize: 512))
        let v5 = w512.viewport(for: TileKey(z: 3, x: 5, y: 2))
        #expect(v5.width == 512 && v5.camera.zoom == 4)
        let b5 = v5.worldBounds
        #expect(abs(b5.minX - t.minX) < 1e-12 && abs(b5.maxY - t.maxY) < 1e-12)
        #expect(w256.tileCount == 1 + 4 + 16 + 64)
    }

    @Test("bounds limit the tiles; a box across the antimeridian wraps")
    func bounds() throws {
        let korea = try TilePyramidWriter(baseMap: UniformBaseMap(RGB(0, 0, 0)), options: TilePyramidOptions(
            minZoom: 5, maxZoom: 6, bounds: GeoBounds(parsing: "124.5,33,131,38.9")!))
        #expect(korea.tiles.allSatisfy { k in
            let tb = TileMath.bounds(of: k)
            return tb.east > 124.5 && tb.west < 131 && tb.north > 33 && tb.south < 38.9
        })
        #expect(korea.tiles.contains(TileKey(z: 6, x: 54, y: 24)))
        let fiji = try TilePyramidWriter(baseMap: UniformBaseMap(RGB(0, 0, 0)), options: TilePyramidOptions(
            minZoom: 4, maxZoom: 4, bounds: GeoBounds(west: 176, south: -20, east: -178, north: -15)))
        #expect(Set(fiji.tiles.map(\.x)) == [15, 0])
    }

    @Test("bad requests are refused up front")
    func refusals() {
        let map = UniformBaseMap(RGB(0, 0, 0))
        #expect(throws: TileError.self) { try TilePyramidWriter(baseMap: map, options: TilePyramidOptions(minZoom: 3, maxZoom: 2)) }
        #expect(throws: TileError.self) { try TilePyramidWriter(baseMap: map, options: TilePyramidOptions(tileSize: 300)) }
        #expect(throws: TileError.self) { try TilePyramidWriter(baseMap: map, options: TilePyramidOptions(minZoom: 0, maxZoom: 14)) }
    }

    @Test("the base map is prepared once with every tile's viewport; metadata.json records the pyramid")
    func folderOutput() throws {
        try TileTest.withTempDir { dir in
            let map = QuadrantBaseMap()
            let writer = try TilePyramidWriter(baseMap: map, options: TilePyramidOptions(minZoom: 1, maxZoom: 2, name: "quads"))
            var progress: [Int] = []
            let summary = try writer.write(to: .folder(dir.appendingPathComponent("out"))) { done, _ in progress.append(done) }
            #expect(map.prepared.count == 20 && summary.tiles == 20 && progress == Array(1...20))
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out/metadata.json"))) as? [String: String]
            #expect(json?["name"] == "quads" && json?["minzoom"] == "1" && json?["maxzoom"] == "2")
            #expect(json?["attribution"] == "Quadrants" && json?["format"] == "png" && json?["scheme"] == "xyz")
            // The same tile through folder and MBTiles is the same PNG.
            try writer.write(to: .mbtiles(dir.appendingPathComponent("out.mbtiles")))
            let key = TileKey(z: 2, x: 1, y: 2)
            let a = try FolderSource(directory: dir.appendingPathComponent("out")).tiles(for: [key])[key]!.get()
            let b = try MBTilesSource(file: dir.appendingPathComponent("out.mbtiles")).tiles(for: [key])[key]!.get()
            #expect(a == b)
        }
    }

    @Test("an MBTiles output replaces the old file only on success")
    func atomicMBTiles() throws {
        try TileTest.withTempDir { dir in
            let file = dir.appendingPathComponent("out.mbtiles")
            try TileTest.pyramid(UniformBaseMap(RGB(1, 2, 3)), to: file, zooms: 0...1)
            let before = try Data(contentsOf: file)
            final class Failing: BaseMap {
                var n = 0
                func draw(_ viewport: Viewport, in cr: Context) throws {
                    n += 1
                    if n > 3 { throw TileError.badPyramid("render failed on purpose") }
                }
            }
            let writer = try TilePyramidWriter(baseMap: Failing(), options: TilePyramidOptions(minZoom: 0, maxZoom: 2))
            #expect(throws: TileError.self) { try writer.write(to: .mbtiles(file)) }
            #expect(try Data(contentsOf: file) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mbtiles"])
        }
    }

    @Test("an MBTiles output that cannot be moved into place says so, and leaves nothing behind")
    func mbtilesRenameFails() throws {
        try TileTest.withTempDir { dir in
            // The target is a folder with a file in it: the finished file cannot be renamed onto it.
            let file = dir.appendingPathComponent("out.mbtiles")
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            try Data([1]).write(to: file.appendingPathComponent("keep"))
            let writer = try TilePyramidWriter(baseMap: UniformBaseMap(RGB(1, 2, 3)), options: TilePyramidOptions(minZoom: 0, maxZoom: 1))
            let error = #expect(throws: OutputError.self) { try writer.write(to: .mbtiles(file)) }
            #expect(error?.description.hasPrefix("cannot write \(file.path): ") == true, "\(String(describing: error))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.mbtiles"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: file.path) == ["keep"])
        }
    }

    @Test("a 512-px pyramid round-trips through TileBaseMap")
    func pyramid512() throws {
        try TileTest.withTempDir { dir in
            try TileTest.pyramid(QuadrantBaseMap(), to: dir.appendingPathComponent("big"), zooms: 0...2, tileSize: 512)
            let source = try FolderSource(directory: dir.appendingPathComponent("big"))
            #expect(source.tileSize == 512)
            let map = TileBaseMap(source: source)
            let v = TileTest.viewport(lon: 0, lat: 0, zoom: 2.5, width: 200, height: 200)
            #expect(map.layers(for: v).map(\.zoom) == [2])
            let f = try TileTest.render(map, v)
            #expect(TileTest.rgb(f, 120, 80) == QuadrantBaseMap.ne && TileTest.rgb(f, 80, 120) == QuadrantBaseMap.sw)
        }
    }
}
