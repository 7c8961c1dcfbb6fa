import CExif
import Foundation

/// A libexif failure; the message is libexif's own (the first error it logged) where it has one.
public struct ExifError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    /// The picture has no EXIF block at all (not a broken one): a picture without metadata.
    public let absent: Bool
    public var description: String { "exif: \(message)" }

    public init(message: String, absent: Bool = false) {
        self.message = message
        self.absent = absent
    }
}

/// The EXIF data of one picture (a JPEG's APP1 segment, or raw EXIF starting "Exif\0\0"), parsed by
/// libexif as the file has it: no mandatory entries filled in (libexif would add them with today's date).
public final class ExifRecord {
    let pointer: UnsafeMutablePointer<ExifData>

    /// Parses the EXIF in a picture's bytes; throws when there is none, or libexif refuses it.
    public init(data: Data) throws(ExifError) {
        let message = UnsafeMutablePointer<maptrip_exif_message>.allocate(capacity: 1)
        message.initialize(to: maptrip_exif_message())
        defer { message.deallocate() }
        guard let log = maptrip_exif_log_new(message), let loader = exif_loader_new() else {
            throw ExifError(message: "cannot start libexif (out of memory)")
        }
        defer { exif_log_unref(log); exif_loader_unref(loader) }
        exif_loader_log(loader, log)
        data.withUnsafeBytes { bytes in
            guard var base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var left = bytes.count
            // The loader takes the bytes in pieces and says when it has the EXIF block (0: done).
            while left > 0 {
                let piece = min(left, 65_536)
                if exif_loader_write(loader, UnsafeMutablePointer(mutating: base), UInt32(piece)) == 0 { break }
                base += piece
                left -= piece
            }
        }
        var buffer: UnsafePointer<UInt8>?
        var size: UInt32 = 0
        exif_loader_get_buf(loader, &buffer, &size)
        guard let buffer, size > 0 else {
            let said = Self.text(message)
            throw ExifError(message: said ?? "no EXIF data in the picture", absent: said == nil)
        }
        guard let parsed = exif_data_new() else { throw ExifError(message: "cannot start libexif (out of memory)") }
        exif_data_log(parsed, log)
        exif_data_unset_option(parsed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_load_data(parsed, buffer, UInt32(size))
        exif_data_log(parsed, nil)  // the log writes into `message`, gone after this
        // libexif skips what it cannot read and says so: refused only when nothing was readable.
        problem = Self.text(message)
        guard maptrip_exif_entry_count(parsed) > 0 else {
            exif_data_unref(parsed)
            throw ExifError(message: problem ?? "the EXIF data holds no entries")
        }
        pointer = parsed
    }

    /// What libexif said it skipped as corrupt, when it read the rest (its first message).
    public let problem: String?

    /// Reads and parses a picture file's EXIF.
    public convenience init(contentsOf url: URL) throws(ExifError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ExifError(message: "cannot read \(url.lastPathComponent): \(error.localizedDescription)")
        }
        try self.init(data: data)
    }

    deinit { exif_data_unref(pointer) }

    private static func text(_ message: UnsafeMutablePointer<maptrip_exif_message>) -> String? {
        let said = withUnsafeBytes(of: &message.pointee.text) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }.trimmingCharacters(in: .whitespacesAndNewlines)
        return said.isEmpty ? nil : said
    }

    // MARK: Values

    /// DateTimeOriginal as the file writes it ("2024:06:08 10:03:09", the camera's wall clock; nil: absent).
    public var dateTimeOriginal: String? { ascii(EXIF_IFD_EXIF, 0x9003) }

    /// OffsetTimeOriginal as the file writes it ("+03:00", the wall clock's offset from UTC; nil: absent).
    public var offsetTimeOriginal: String? { ascii(EXIF_IFD_EXIF, 0x9011) }

    /// Model as the file writes it (the camera's model name, such as "ILCE-7M3"; nil: absent).
    public var model: String? { ascii(EXIF_IFD_0, 0x0110) }

    /// GPSLatitude and GPSLongitude in degrees, negative south and west by their refs (nil: absent,
    /// or not three rationals with a ref).
    public var position: (lat: Double, lon: Double)? {
        guard let lat = degrees(value: 0x0002, ref: 0x0001, negative: "S"),
              let lon = degrees(value: 0x0004, ref: 0x0003, negative: "W") else { return nil }
        return (lat, lon)
    }

    /// Orientation (1...8: how the picture is turned and mirrored; nil: absent).
    public var orientation: Int? {
        guard let entry = maptrip_exif_entry(pointer, EXIF_IFD_0, 0x0112), entry.pointee.format == EXIF_FORMAT_SHORT,
              entry.pointee.components >= 1, let data = entry.pointee.data, entry.pointee.size >= 2 else { return nil }
        return Int(exif_get_short(data, exif_data_get_byte_order(pointer)))
    }

    private func ascii(_ ifd: ExifIfd, _ tag: UInt32) -> String? {
        guard let entry = maptrip_exif_entry(pointer, ifd, tag), entry.pointee.format == EXIF_FORMAT_ASCII,
              let data = entry.pointee.data else { return nil }
        let bytes = UnsafeBufferPointer(start: data, count: Int(entry.pointee.size))
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    private func degrees(value: UInt32, ref: UInt32, negative: String) -> Double? {
        guard let side = ascii(EXIF_IFD_GPS, ref)?.trimmingCharacters(in: .whitespaces).uppercased(), !side.isEmpty,
              let entry = maptrip_exif_entry(pointer, EXIF_IFD_GPS, value), entry.pointee.format == EXIF_FORMAT_RATIONAL,
              entry.pointee.components >= 1, let data = entry.pointee.data else { return nil }
        let order = exif_data_get_byte_order(pointer)
        let count = min(Int(entry.pointee.components), 3, Int(entry.pointee.size) / 8)
        var total = 0.0
        for i in 0..<count {
            let r = exif_get_rational(data + 8 * i, order)
            guard r.denominator != 0 else { return nil }
            total += Double(r.numerator) / Double(r.denominator) / pow(60, Double(i))
        }
        guard count > 0, total.isFinite else { return nil }
        return side == negative ? -total : total
    }
}
