import Foundation
import FuzzSupport
import MapTripTracks

/// The FIT decoder over any bytes: headers, chained files, definitions, data and compressed-timestamp
/// messages, the CRCs, then the data checks on what it decoded.
@_cdecl("FuzzFIT_main")
func fuzzFITMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        _ = try? TrackFile.read(Fuzz.data(bytes, count), name: "fuzz.fit")
        return 0
    }
}
