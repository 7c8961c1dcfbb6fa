import Exif
import Foundation
import TestBasics
import Testing

/// libexif reading EXIF that the tests write by hand (`ExifWriter`): the values come back as written.
@Suite struct ExifTests {
    /// Random times, offsets, positions in every hemisphere and orientations, in both byte orders.
    @Test func valuesComeBackAsWritten() throws {
        var random = SplitMix64(seed: 59)
        for i in 0..<40 {
            let y = 1990 + Int(random.next() % 40), mo = 1 + Int(random.next() % 12), d = 1 + Int(random.next() % 28)
            let h = Int(random.next() % 24), mi = Int(random.next() % 60), s = Int(random.next() % 60)
            let text = String(format: "%04d:%02d:%02d %02d:%02d:%02d", y, mo, d, h, mi, s)
            let offsetMinutes = (Int(random.next() % 49) - 24) * 30
            let offset = String(format: "%@%02d:%02d", offsetMinutes < 0 ? "-" : "+", abs(offsetMinutes) / 60, abs(offsetMinutes) % 60)
            let lat = random.unit() * 170 - 85, lon = random.unit() * 358 - 179
            let orientation = 1 + Int(random.next() % 8)
            let model = i % 4 == 0 ? nil : ["ILCE-7M3", "Canon EOS R6", "Pixel 8"][i % 3]
            let fields = ExifWriter.Fields(dateTimeOriginal: text, offsetTimeOriginal: i % 3 == 0 ? nil : offset,
                                           latitude: lat, longitude: lon, orientation: orientation, model: model,
                                           littleEndian: i % 2 == 0)
            let record = try ExifRecord(data: Data(ExifWriter.inserting(fields, into: ExifWriter.emptyJPEG)))
            #expect(record.dateTimeOriginal == text)
            #expect(record.offsetTimeOriginal == (i % 3 == 0 ? nil : offset))
            let position = try #require(record.position)
            #expect(abs(position.lat - lat) < 1e-6 && abs(position.lon - lon) < 1e-6, "\(i): \(position) against \(lat), \(lon)")
            #expect(record.orientation == orientation)
            #expect(record.model == model)
        }
    }

    @Test func absentEntriesAreNil() throws {
        let onlyTime = ExifWriter.Fields(dateTimeOriginal: "2024:06:01 12:00:00")
        let record = try ExifRecord(data: Data(ExifWriter.inserting(onlyTime, into: ExifWriter.emptyJPEG)))
        #expect(record.dateTimeOriginal == "2024:06:01 12:00:00" && record.offsetTimeOriginal == nil)
        #expect(record.position == nil)
        #expect(record.orientation == nil && record.model == nil)  // not made up by libexif

        let onlyPlace = ExifWriter.Fields(latitude: -33.5, longitude: -70.25, orientation: 6)
        let other = try ExifRecord(data: Data(ExifWriter.inserting(onlyPlace, into: ExifWriter.emptyJPEG)))
        #expect(other.dateTimeOriginal == nil)  // not today's date
        #expect(other.position?.lat == -33.5 && other.position?.lon == -70.25)
        #expect(other.orientation == 6)
    }

    @Test func aPictureWithoutExifIsAnError() throws {
        #expect(throws: ExifError(message: "no EXIF data in the picture", absent: true)) { try ExifRecord(data: Data(ExifWriter.emptyJPEG)) }
        #expect(throws: ExifError.self) { try ExifRecord(data: Data("not a picture".utf8)) }
    }

    /// A TIFF block whose byte order is neither "II" nor "MM": libexif refuses it and says why; one whose
    /// IFD0 lies beyond the block: nothing readable.
    @Test func corruptExifGivesLibexifsMessage() throws {
        func jpeg(_ exif: [UInt8]) -> Data {
            let length = exif.count + 2
            return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + exif + [0xFF, 0xD9])
        }
        let good = ExifWriter.exif(ExifWriter.Fields(dateTimeOriginal: "2024:06:01 12:00:00"))
        var order = good
        order[6..<8] = [0x58, 0x58]  // "XX"
        #expect(throws: ExifError(message: "Unknown encoding.")) { try ExifRecord(data: jpeg(order)) }
        var far = good
        far[10..<14] = [0x7f, 0xff, 0xff, 0xff]
        #expect(throws: ExifError(message: "the EXIF data holds no entries")) { try ExifRecord(data: jpeg(far)) }
        #expect(try ExifRecord(data: jpeg(good)).problem == nil)
    }
}
