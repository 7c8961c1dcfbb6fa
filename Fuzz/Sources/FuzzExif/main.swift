import Exif
import Foundation
import FuzzSupport

/// libexif through the Exif wrapper over any bytes (a photo's EXIF for `photos`): the loader's JPEG
/// marker walk, the IFDs, and every value the scene reads.
@_cdecl("FuzzExif_main")
func fuzzExifMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Fuzz.run(argc, argv) { bytes, count in
        if let record = try? ExifRecord(data: Fuzz.data(bytes, count)) {
            _ = (record.dateTimeOriginal, record.offsetTimeOriginal, record.position, record.orientation, record.problem)
        }
        return 0
    }
}
