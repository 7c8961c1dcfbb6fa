import Foundation
import FuzzSupport
import MapTripTracks

/// The XML track readers over any bytes: the first byte picks the root the rest is read as (GPX,
/// TCX, KML, or as it is), so mutations reach every reader's elements; a ZIP (KMZ) as it is.
@_cdecl("FuzzTrackXML_main")
func fuzzTrackXMLMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let data = Fuzz.data(bytes, count)
        guard let first = data.first else { return 0 }
        let roots = ["<gpx>", "<TrainingCenterDatabase>", "<kml>", ""]
        let body = Data(roots[Int(first) % roots.count].utf8) + data.dropFirst()
        _ = try? TrackFile.read(body, name: "fuzz.xml")
        _ = try? TrackFile.read(data, name: "fuzz.kmz")
        return 0
    }
}
