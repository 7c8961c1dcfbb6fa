import Cairo
import FFmpeg
import Foundation
import MapTripSupport

/// Turns a tile's encoded bytes into a Cairo surface (premultiplied ARGB32).
public protocol TileDecoding {
    func decode(_ data: Data) throws -> ImageSurface
}

/// PNG through Cairo's own loader (libpng: every PNG colour type, straight to premultiplied
/// ARGB32); JPEG and WebP through libavcodec (`FFmpeg.ImageDecoder`), premultiplied on the way in.
public struct StandardTileDecoder: TileDecoding {
    /// Pictures with more pixels are refused before anything is decoded (a 30,000 x 30,000 PNG would
    /// take 3.6 GB).
    public var maxPixels: Int
    /// Damage a decoder would conceal is an error (the scene's pictures); tiles are decoded leniently.
    public var strict: Bool

    public init(maxPixels: Int = ImageDecoder.defaultMaxPixels, strict: Bool = false) {
        self.maxPixels = maxPixels
        self.strict = strict
    }

    public func decode(_ data: Data) throws -> ImageSurface {
        switch TileFormat(sniffing: data) {
        case .png?:
            // libpng (through Cairo) has no limit of its own: the header's size is checked first.
            // (A header may claim 2^32 - 1 on each side: the product can overflow.)
            if let (w, h) = ImageHeader.size(of: data), w.multipliedReportingOverflow(by: h).overflow || w * h > maxPixels {
                throw TileDecodeError(message: "a \(w)x\(h) PNG is larger than \(maxPixels / 1_048_576) megapixels "
                                      + "(scale it down)")
            }
            return try ImageSurface(pngData: data)
        case .pbf?:
            throw TileDecodeError(message: "a vector tile (pbf), not a raster image")
        case nil:
            if let text = Self.textPreview(data) {
                throw TileDecodeError(message: "not an image: \(data.count) bytes starting \"\(text)\"")
            }
            fallthrough
        default:
            var image = try ImageDecoder.decode(data, maxPixels: maxPixels, strict: strict)
            image.premultiplyAlpha()
            let (w, h, stride) = (image.width, image.height, image.stride)
            return try image.pixels.withUnsafeBytes { try ImageSurface(width: w, height: h, bgra: $0, stride: stride) }
        }
    }

    /// A short printable prefix when the bytes look like text (an HTML error page, a JSON error).
    static func textPreview(_ data: Data) -> String? {
        let head = data.prefix(60)
        guard !head.isEmpty, head.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) }) else { return nil }
        return String(decoding: head, as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
    }
}

public struct TileDecodeError: Error, CustomStringConvertible, Sendable, DiagnosticConvertible {
    public let message: String
    public var description: String { message }
}
