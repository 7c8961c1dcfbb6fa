import Foundation
import FuzzSupport
import MapTripGeometry
import MapTripTiles

/// The PMTiles reader over any bytes as an archive file: header, metadata, root and leaf directories
/// read, and a few tiles fetched (and decoded as vector tiles) as a render does.
@_cdecl("FuzzPMTiles_main")
func fuzzPMTilesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let data = Fuzz.data(bytes, count)
        _ = try? PMTiles.decodeDirectory(data)
        let url = Fuzz.file("tiles.pmtiles", data)
        if let source = try? PMTilesSource(file: url, maxBytes: 1 << 20) {
            let z = source.maxZoom
            let keys = [TileKey(z: source.minZoom, x: 0, y: 0), TileKey(z: z, x: (1 << z) / 2, y: (1 << z) / 2)]
            if let set = try? VectorTileSet(source: source) {
                _ = set.tiles(for: keys)
            } else {
                _ = source.tiles(for: keys)
            }
        }
        return 0
    }
}
