import Foundation
import FuzzSupport
import MapTripGeometry
import MapTripTiles

/// The MBTiles reader over any bytes as a database file: opened, its metadata read, a tile at its
/// shallowest zoom fetched and decoded, as a render does.
@_cdecl("FuzzMBTiles_main")
func fuzzMBTilesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let url = Fuzz.file("tiles.mbtiles", Fuzz.data(bytes, count))
        if let source = try? MBTilesSource(file: url) {
            let keys = [TileKey(z: source.minZoom, x: 0, y: 0), TileKey(z: source.maxZoom, x: 0, y: 0)]
            for (_, result) in source.tiles(for: keys) {
                if case .success(let data) = result {
                    _ = try? StandardTileDecoder(maxPixels: 1_048_576).decode(data)
                }
            }
        }
        return 0
    }
}
