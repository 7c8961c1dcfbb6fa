import FFmpeg
import Foundation

/// Still pictures (posters, previews) from Cairo's premultiplied BGRA: JPEG (libavcodec's mjpeg at a
/// high quality, full-range BT.601 as JPEG files are) or PNG (RGB, or RGBA with straight alpha).
public enum StillImage {
    public enum Format: String, Sendable {
        case jpeg
        case png

        /// The format a file name asks for (.jpg, .jpeg, .png), nil for anything else.
        public init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "jpg", "jpeg": self = .jpeg
            case "png": self = .png
            default: return nil
            }
        }
    }

    /// The encoded file's bytes. `transparent`: keep alpha (PNG only; JPEG has none).
    public static func encode(bgra: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int,
                              format: Format, transparent: Bool = false) throws -> Data {
        let pixelFormat: PixelFormat
        switch format {
        case .jpeg: pixelFormat = PixelFormat(name: "yuvj420p")!
        case .png: pixelFormat = transparent ? .rgba : .rgb24
        }
        let converter = try PixelConverter(path: .swscale(pixelFormat), width: width, height: height,
                                           straightAlpha: transparent)
        let frame = try converter.convert(bgra: bgra, stride: stride)
        var settings = VideoEncoderSettings(
            codecName: format == .jpeg ? "mjpeg" : "png", width: width, height: height, frameRate: Rational(1, 1),
            pixelFormat: pixelFormat, preset: nil, crf: nil, profile: nil, threads: 1, colorTags: .unspecified)
        if format == .jpeg {
            settings.options = ["qmin": "1", "qmax": "2"]  // about 95% quality
            frame.colorTags = .unspecified
        }
        let encoder = try Encoder(video: settings)
        var data = Data()
        frame.pts = 0
        let collect: (Packet) throws -> Void = { packet in
            if let bytes = packet.data { data.append(bytes, count: packet.size) }
        }
        try encoder.encode(frame, collect)
        try encoder.encode(nil, collect)
        return data
    }
}
