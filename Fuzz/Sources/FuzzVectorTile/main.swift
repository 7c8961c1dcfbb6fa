import Foundation
import FuzzSupport
import MapTripTiles
import VectorTile

/// The vector tile decoder over any bytes, as a render meets a tile: inflated when gzipped, then the
/// protobuf and the MVT geometry, properties and rings (decoded, or refused with an error).
@_cdecl("FuzzVectorTile_main")
func fuzzVectorTileMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let data = Fuzz.data(bytes, count)
        if let tile = try? VectorTiles.decode(data, limits: VectorTileData.Limits(maxBytes: 1 << 20, maxPoints: 1 << 18)) {
            var n = 0
            for layer in tile.layers {
                for f in layer.features { n += f.geometry.count + f.polygons.count + f.properties.count }
            }
            _ = n
        }
        return 0
    }
}
