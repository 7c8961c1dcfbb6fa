import Foundation
import FuzzSupport
import MapTripTracks

/// The GeoJSON reader over any bytes (its own JSON reader with positions, then the GeoJSON types and
/// the times beside positions).
@_cdecl("FuzzGeoJSON_main")
func fuzzGeoJSONMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        _ = try? TrackFile.read(Fuzz.data(bytes, count), name: "fuzz.geojson")
        return 0
    }
}
