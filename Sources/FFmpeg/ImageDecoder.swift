import Foundation
import CFFmpeg

/// Decodes a still image (PNG, JPEG, WebP: map tiles) with libavcodec into BGRA.
public enum ImageDecoder {
    public enum Format: String, Sendable {
        case png, jpeg, webp

        /// The libavcodec decoder.
        var decoderName: String {
            switch self {
            case .png: return "png"
            case .jpeg: return "mjpeg"
            case .webp: return "webp"
            }
        }
    }

    /// The format the magic bytes say, or nil.
    public static func format(of data: Data) -> Format? {
        let head = [UInt8](data.prefix(12))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.count >= 12, head[0..<4] == [0x52, 0x49, 0x46, 0x46], head[8..<12] == [0x57, 0x45, 0x42, 0x50] {
            return .webp
        }
        return nil
    }

    /// The default limit on width x height: 64 Mpixel (256 MB of BGRA), far above any map tile.
    public static let defaultMaxPixels = 1 << 26

    /// Decodes PNG, JPEG or WebP bytes. Alpha (PNG, WebP) is kept straight (not premultiplied); opaque
    /// formats come out with alpha 255. Throws FFmpegError for anything else, for damaged data and for
    /// pictures larger than `maxPixels`. `strict`: damage the decoder would conceal (a JPEG cut short,
    /// whose missing rows it fills with grey) is an error, as for the pictures a scene names; map
    /// tiles are decoded leniently. Safe to call from several threads at once.
    public static func decode(_ data: Data, maxPixels: Int = defaultMaxPixels, strict: Bool = false) throws -> BGRAImage {
        guard let format = format(of: data) else {
            let head = data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            throw FFmpegError(code: FFmpegError.invalidData, operation: "ImageDecoder.decode \(data.count) bytes",
                              message: "not a PNG, JPEG or WebP image (starts with \(head.isEmpty ? "nothing" : head))")
        }
        let what = "ImageDecoder.decode \(format.rawValue) \(data.count) bytes"
        let decoder = try Decoder(name: format.decoderName, threads: 1) { context in
            context.pointee.max_pixels = Int64(max(1, maxPixels))
            if strict { context.pointee.err_recognition |= AV_EF_EXPLODE }
        }
        let packet = try data.withUnsafeBytes { try Packet(copying: $0) }
        let frame = try Frame()
        // One packet is the whole image; then drain.
        try decoder.send(packet)
        try decoder.send(nil)
        switch try decoder.receive(into: frame) {
        case .frame:
            break
        case .needsInput, .endOfStream:
            throw FFmpegError(code: FFmpegError.invalidData, operation: what, message: "no picture decoded")
        }
        guard frame.width > 0, frame.height > 0, frame.data(plane: 0) != nil else {
            throw FFmpegError(code: FFmpegError.invalidData, operation: what, message: "empty picture")
        }
        guard frame.width * frame.height <= maxPixels else {
            throw FFmpegError(code: FFmpegError.invalidData, operation: what,
                              message: "\(frame.width)x\(frame.height) is larger than \(maxPixels) pixels")
        }
        return try Scaler().bgraImage(from: frame)
    }
}
