import Foundation

/// EXIF written by hand for the tests (TIFF IFDs as the EXIF 2.32 standard lays them out), independent
/// of libexif, which reads them back: what a camera or phone puts in a JPEG's APP1 segment.
public enum ExifWriter {
    public struct Fields: Sendable {
        public var dateTimeOriginal: String?
        public var offsetTimeOriginal: String?
        public var latitude: Double?
        public var longitude: Double?
        public var orientation: Int?
        /// Model (IFD0): the camera's model name.
        public var model: String?
        /// Intel byte order ("II"); false: Motorola ("MM").
        public var littleEndian: Bool

        public init(dateTimeOriginal: String? = nil, offsetTimeOriginal: String? = nil, latitude: Double? = nil,
                    longitude: Double? = nil, orientation: Int? = nil, model: String? = nil, littleEndian: Bool = false) {
            self.dateTimeOriginal = dateTimeOriginal
            self.offsetTimeOriginal = offsetTimeOriginal
            self.latitude = latitude
            self.longitude = longitude
            self.orientation = orientation
            self.model = model
            self.littleEndian = littleEndian
        }
    }

    private struct Entry {
        var tag: UInt16, type: UInt16, count: UInt32, bytes: [UInt8]
    }

    /// "Exif\0\0" and the TIFF structure: IFD0 (Orientation, pointers), the Exif IFD, the GPS IFD.
    public static func exif(_ f: Fields) -> [UInt8] {
        let le = f.littleEndian
        func u16(_ v: UInt16) -> [UInt8] { le ? [UInt8(v & 0xff), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xff)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
            return le ? b.reversed() : b
        }
        func ascii(_ tag: UInt16, _ s: String) -> Entry {
            let b = Array(s.utf8) + [0]
            return Entry(tag: tag, type: 2, count: UInt32(b.count), bytes: b)
        }
        func dms(_ tag: UInt16, _ degrees: Double) -> Entry {
            let a = abs(degrees), d = a.rounded(.down), m = ((a - d) * 60).rounded(.down)
            let s = ((a - d) * 60 - m) * 60
            let parts: [(UInt32, UInt32)] = [(UInt32(d), 1), (UInt32(m), 1), (UInt32((s * 10_000).rounded()), 10_000)]
            return Entry(tag: tag, type: 5, count: 3, bytes: parts.flatMap { u32($0.0) + u32($0.1) })
        }
        var exifIFD: [Entry] = [], gpsIFD: [Entry] = []
        if let t = f.dateTimeOriginal { exifIFD.append(ascii(0x9003, t)) }
        if let o = f.offsetTimeOriginal { exifIFD.append(ascii(0x9011, o)) }
        if let lat = f.latitude {
            gpsIFD += [ascii(0x0001, lat < 0 ? "S" : "N"), dms(0x0002, lat)]
        }
        if let lon = f.longitude {
            gpsIFD += [ascii(0x0003, lon < 0 ? "W" : "E"), dms(0x0004, lon)]
        }
        func size(_ entries: [Entry]) -> Int {
            2 + 12 * entries.count + 4 + entries.reduce(0) { $0 + ($1.bytes.count > 4 ? $1.bytes.count : 0) }
        }
        // IFD0 holds the orientation and a pointer to each non-empty IFD after it.
        var ifd0: [Entry] = []
        if let o = f.orientation { ifd0.append(Entry(tag: 0x0112, type: 3, count: 1, bytes: u16(UInt16(o)))) }
        if let m = f.model { ifd0.append(ascii(0x0110, m)) }
        let pointerCount = (exifIFD.isEmpty ? 0 : 1) + (gpsIFD.isEmpty ? 0 : 1)
        let ifd0Size = size(ifd0) + 12 * pointerCount
        var next = 8 + ifd0Size
        if !exifIFD.isEmpty {
            ifd0.append(Entry(tag: 0x8769, type: 4, count: 1, bytes: u32(UInt32(next))))
            next += size(exifIFD)
        }
        if !gpsIFD.isEmpty { ifd0.append(Entry(tag: 0x8825, type: 4, count: 1, bytes: u32(UInt32(next)))) }

        var tiff: [UInt8] = (le ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
        for ifd in [ifd0, exifIFD, gpsIFD] where !ifd.isEmpty {
            let start = tiff.count
            var data: [UInt8] = []
            let dataStart = start + 2 + 12 * ifd.count + 4
            tiff += u16(UInt16(ifd.count))
            for e in ifd.sorted(by: { $0.tag < $1.tag }) {
                tiff += u16(e.tag) + u16(e.type) + u32(e.count)
                if e.bytes.count <= 4 {
                    tiff += e.bytes + [UInt8](repeating: 0, count: 4 - e.bytes.count)
                } else {
                    tiff += u32(UInt32(dataStart + data.count))
                    data += e.bytes
                }
            }
            tiff += u32(0) + data
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// `jpeg` (starting with SOI, FF D8) with an APP1 segment holding `f` right after its SOI.
    public static func inserting(_ f: Fields, into jpeg: [UInt8]) -> [UInt8] {
        let body = exif(f)
        let length = body.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + body
        return Array(jpeg.prefix(2)) + app1 + Array(jpeg.dropFirst(2))
    }

    /// The smallest byte string a JPEG reader walks: SOI, then EOI (no picture).
    public static let emptyJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
}
