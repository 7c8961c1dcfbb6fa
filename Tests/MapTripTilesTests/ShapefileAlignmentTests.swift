import Cairo
import Foundation
import MapTripGeometry
@testable import MapTripRender
import Testing
@testable import MapTripTiles

/// Tiles rendered from the embedded shapefile map, drawn back through TileBaseMap, must line up
/// with the shapefile map drawn directly: same projection, same pixel grid.
@Suite("Tiles align with the shapefile map")
struct ShapefileAlignmentTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Assets").standardizedFileURL
    static var haveAssets: Bool {
        FileManager.default.fileExists(atPath: assets.appendingPathComponent("basemap/110m/ne_110m_admin_0_countries.shp").path)
    }

    /// Mean absolute difference per channel (0...255), and the share of pixels where one frame
    /// shows water (or coastline: blue clearly above red) and the other does not. Strokes differ a
    /// little between tiles and a direct drawing (dash phase restarts per tile; scaled tiles scale
    /// their line widths), so alignment is judged by where the water is.
    static func compare(_ a: ImageSurface, _ b: ImageSurface) -> (mean: Double, waterMismatch: Double) {
        var sum = 0, mismatch = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = TileTest.rgb(a, x, y), q = TileTest.rgb(b, x, y)
                sum += abs(p.r - q.r) + abs(p.g - q.g) + abs(p.b - q.b)
                if (p.b > p.r + 30) != (q.b > q.r + 30) { mismatch += 1 }
            }
        }
        let n = Double(a.width * a.height)
        return (Double(sum) / n / 3, Double(mismatch) / n)
    }

    @Test("a pyramid of the shapefile map, drawn as tiles, matches the map drawn directly",
          .enabled(if: haveAssets))
    func alignment() throws {
        try TileTest.withTempDir { dir in
            let shapes = try ShapefileBaseMap(assets: Self.assets)
            try TileTest.pyramid(shapes, to: dir.appendingPathComponent("ne.mbtiles"), zooms: 0...3)
            let tiles = TileBaseMap(source: try MBTilesSource(file: dir.appendingPathComponent("ne.mbtiles")))
            #expect(tiles.attribution == "Natural Earth")
            // Integer zoom, tile corners on whole pixels: tiles are drawn 1:1.
            let exact = TileTest.viewport(lon: 0, lat: WebMercator.unproject(WorldPoint(x: 0.5, y: 2.0 / 8)).lat, zoom: 3,
                                          width: 512, height: 256)
            // Fractional zoom and offset: scaled down with the GOOD filter.
            let scaled = TileTest.viewport(lon: 9.4, lat: 47.1, zoom: 2.6, width: 480, height: 270)
            try tiles.prepare(for: [exact, scaled])
            #expect(tiles.warnings.isEmpty)
            let e = Self.compare(try TileTest.render(tiles, exact), try TileTest.render(shapes, exact))
            #expect(e.mean < 0.5 && e.waterMismatch < 0.002, "1:1: \(e)")
            let s = Self.compare(try TileTest.render(tiles, scaled), try TileTest.render(shapes, scaled))
            #expect(s.mean < 3 && s.waterMismatch < 0.01, "scaled: \(s)")
            // A half-tile misplacement would be caught: shift the camera by 4 frame pixels and compare.
            var moved = scaled.camera
            moved.center.lon += 4 / scaled.worldSize * 360
            let shifted = Viewport(camera: moved, width: scaled.width, height: scaled.height, scale: scaled.scale)
            let off = Self.compare(try TileTest.render(tiles, shifted), try TileTest.render(shapes, scaled))
            #expect(off.waterMismatch > 2 * s.waterMismatch)
        }
    }
}
