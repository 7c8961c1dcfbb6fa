import Foundation
import FuzzSupport
import MapTripTiles

/// The decoder for tiles and photos over any bytes: PNG through Cairo and libpng, JPEG and WebP
/// through libavcodec, with the size limit read from the header first.
@_cdecl("FuzzImage_main")
func fuzzImageMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        let data = Fuzz.data(bytes, count)
        // A lower limit than a render's keeps each run quick; the check is the same.
        if let surface = try? StandardTileDecoder(maxPixels: 1_048_576).decode(data) {
            precondition(surface.width > 0 && surface.height > 0)
        }
        return 0
    }
}
