import Foundation
import Testing
import TestSupport
@testable import MapTripGeometry

@Suite("Tile maths")
struct TileMathTests {
    @Test("lon/lat to tile at known places")
    func knownTiles() {
        #expect(TileMath.tile(for: LonLat(lon: 0, lat: 0), zoom: 0) == TileKey(z: 0, x: 0, y: 0))
        #expect(TileMath.tile(for: LonLat(lon: 0, lat: 0), zoom: 1) == TileKey(z: 1, x: 1, y: 1))
        #expect(TileMath.tile(for: LonLat(lon: -0.0001, lat: 0.0001), zoom: 1) == TileKey(z: 1, x: 0, y: 0))
        // Seoul City Hall.
        #expect(TileMath.tile(for: LonLat(lon: 126.978, lat: 37.5665), zoom: 10) == TileKey(z: 10, x: 873, y: 396))
        // Sydney: southern hemisphere, rows below the equator (> 2^z / 2).
        #expect(TileMath.tile(for: LonLat(lon: 151.2093, lat: -33.8688), zoom: 10) == TileKey(z: 10, x: 942, y: 614))
        // Either side of the antimeridian: last and first column.
        #expect(TileMath.tile(for: LonLat(lon: 179.9, lat: 0), zoom: 5) == TileKey(z: 5, x: 31, y: 16))
        #expect(TileMath.tile(for: LonLat(lon: -179.9, lat: 0), zoom: 5) == TileKey(z: 5, x: 0, y: 16))
        // 180 is -180: wrapped to the first column; poles clamp to the first and last row.
        #expect(TileMath.tile(for: LonLat(lon: 180, lat: 89.9), zoom: 3) == TileKey(z: 3, x: 0, y: 0))
        #expect(TileMath.tile(for: LonLat(lon: 181, lat: -89.9), zoom: 3) == TileKey(z: 3, x: 0, y: 7))
        #expect(TileMath.tile(for: LonLat(lon: -0.1, lat: -89.9), zoom: 3) == TileKey(z: 3, x: 3, y: 7))
    }

    @Test("tile bounds and centre")
    func bounds() {
        let b = TileMath.bounds(of: TileKey(z: 1, x: 1, y: 0))
        #expect(abs(b.west - 0) < 1e-9 && abs(b.east - 180) < 1e-9)
        #expect(abs(b.south - 0) < 1e-9 && abs(b.north - WebMercator.maxLatitude) < 1e-9)
        let seoul = TileKey(z: 10, x: 873, y: 396)
        let sb = TileMath.bounds(of: seoul)
        #expect(sb.west < 126.978 && 126.978 < sb.east && sb.south < 37.5665 && 37.5665 < sb.north)
        #expect(TileMath.tile(for: TileMath.center(of: seoul), zoom: 10) == seoul)
        let wb = TileMath.worldBounds(of: TileKey(z: 2, x: 3, y: 1))
        #expect(wb.minX == 0.75 && wb.maxX == 1 && wb.minY == 0.25 && wb.maxY == 0.5)
    }

    @Test("XYZ <-> TMS rows")
    func tms() {
        #expect(TileMath.tmsRow(0, zoom: 0) == 0)
        #expect(TileMath.tmsRow(0, zoom: 3) == 7)
        #expect(TileMath.tmsRow(396, zoom: 10) == 627)
        #expect(TileMath.xyzRow(fromTMS: 627, zoom: 10) == 396)
        for z in 0...6 {
            for y in 0..<(1 << z) { #expect(TileMath.xyzRow(fromTMS: TileMath.tmsRow(y, zoom: z), zoom: z) == y) }
        }
    }

    @Test("ancestors and children")
    func family() {
        let k = TileKey(z: 10, x: 873, y: 396)
        #expect(k.parent == TileKey(z: 9, x: 436, y: 198))
        #expect(k.ancestor(levels: 10) == TileKey(z: 0, x: 0, y: 0))
        #expect(k.parent!.children.contains(k))
        #expect(TileKey(z: 0, x: 0, y: 0).parent == nil)
        #expect(!TileKey(z: 2, x: 4, y: 0).isValid && TileKey(z: 2, x: 3, y: 3).isValid)
    }

    @Test("viewport tile range, plain")
    func range() {
        // 512 x 512 frame at zoom 2 centred on 0,0: the world is 1024 px, the frame shows its middle half.
        let v = Viewport(camera: Camera(center: LonLat(lon: 0, lat: 0), zoom: 2), width: 512, height: 512)
        let r = TileMath.tileRange(covering: v, zoom: 2)
        #expect(r.columns == 1...2 && r.rows == 1...2)
        #expect(r.keys.count == 4)
        // At a deeper tile zoom the same frame needs 4x as many tiles.
        #expect(TileMath.tileRange(covering: v, zoom: 3).count == 16)
    }

    @Test("viewport tile range wraps across the antimeridian")
    func antimeridian() {
        let v = Viewport(camera: Camera(center: LonLat(lon: 179.9, lat: 0), zoom: 5), width: 1024, height: 512)
        let r = TileMath.tileRange(covering: v, zoom: 5)
        #expect(r.columns.lowerBound < 31 && r.columns.upperBound > 31)
        let xs = Set(r.keys.map(\.x))
        #expect(xs.contains(31) && xs.contains(0) && xs.contains(1))
        #expect(r.keys.allSatisfy { $0.isValid })
        // The unwrapped column just east of the antimeridian is column 32 = tile 0.
        #expect(r.key(column: 32, row: 16) == TileKey(z: 5, x: 0, y: 16))
        #expect(r.key(column: -1, row: 16) == TileKey(z: 5, x: 31, y: 16))
        // And from the west side.
        let w = Viewport(camera: Camera(center: LonLat(lon: -179.9, lat: 0), zoom: 5), width: 1024, height: 512)
        let rw = TileMath.tileRange(covering: w, zoom: 5)
        #expect(rw.columns.lowerBound < 0)
        #expect(Set(rw.keys.map(\.x)).isSuperset(of: [30, 31, 0, 1]))
    }

    @Test("rows clamp at the poles; a world smaller than the frame lists each tile once")
    func clampRows() {
        let v = Viewport(camera: Camera(center: LonLat(lon: 0, lat: 80), zoom: 1), width: 1920, height: 1080)
        let r = TileMath.tileRange(covering: v, zoom: 1)
        #expect(r.rows == 0...1)
        #expect(r.columns.count > 2)  // the frame shows the world more than once across
        #expect(r.keys.count == 4)
    }

    @Test("tile zoom: at or above the camera zoom")
    func tileZoom() {
        // 256-px tiles at a pixel ratio of 1: ceil, exact integers stay.
        #expect(TileMath.tileZoom(cameraZoom: 10) == 10)
        #expect(TileMath.tileZoom(cameraZoom: 10.0000000001) == 10)
        #expect(TileMath.tileZoom(cameraZoom: 10.2) == 11)
        #expect(TileMath.tileZoom(cameraZoom: 9.99) == 10)
        // A pixel ratio of 2 wants one zoom deeper.
        #expect(TileMath.tileZoom(cameraZoom: 10, scale: 2) == 11)
        #expect(TileMath.tileZoom(cameraZoom: 10.3, scale: 2) == 12)
        // 512-px tiles are one zoom lower; with a pixel ratio of 2 they match the camera zoom.
        #expect(TileMath.tileZoom(cameraZoom: 10, tileSize: 512) == 9)
        #expect(TileMath.tileZoom(cameraZoom: 10.5, tileSize: 512) == 10)
        #expect(TileMath.tileZoom(cameraZoom: 10, scale: 2, tileSize: 512) == 10)
        // Clamped: never beyond maxZoom (over-zoom), never below minZoom.
        #expect(TileMath.tileZoom(cameraZoom: 17.5, maxZoom: 14) == 14)
        #expect(TileMath.tileZoom(cameraZoom: 1, minZoom: 3, maxZoom: 14) == 3)
        #expect(TileMath.tileZoom(cameraZoom: 0.2, tileSize: 512) == 0)
    }

    @Test("geographic bounds parse and give pyramid ranges")
    func geoBounds() {
        let b = GeoBounds(parsing: "124.5, 33, 131, 38.9")
        #expect(b == GeoBounds(west: 124.5, south: 33, east: 131, north: 38.9))
        #expect(b?.description == "124.5,33,131,38.9")
        #expect(GeoBounds(parsing: "1,2,3") == nil)
        #expect(GeoBounds(parsing: "0,50,10,40") == nil)
        #expect(GeoBounds(parsing: "a,b,c,d") == nil)
        #expect(TileMath.tileRange(bounds: .world, zoom: 3).count == 64)
        #expect(TileMath.tileRange(bounds: .world, zoom: 0).keys == [TileKey(z: 0, x: 0, y: 0)])
        // Across the antimeridian: Fiji-ish.
        let fiji = GeoBounds(west: 177, south: -19, east: -178, north: -16)
        let r = TileMath.tileRange(bounds: fiji, zoom: 6)
        #expect(Set(r.keys.map(\.x)) == [63, 0])
        #expect(fiji.intersects(world: TileMath.worldBounds(of: TileKey(z: 6, x: 0, y: 35))))
        #expect(!fiji.intersects(world: TileMath.worldBounds(of: TileKey(z: 6, x: 10, y: 35))))
    }
}
