import Foundation
import CFFmpeg

/// Encodes a BGRA picture as a still image with libavcodec (PNG; for tests, snapshots and debugging).
public enum ImageEncoder {
    /// PNG bytes (RGBA, 8 bits per channel) of `image`, whose alpha is taken as straight.
    public static func png(_ image: BGRAImage) throws -> Data {
        let source = try image.makeFrame()
        let rgba = try Frame(width: image.width, height: image.height, pixelFormat: .rgba)
        try Scaler().scale(source, into: rgba)
        let settings = VideoEncoderSettings(
            codecName: "png", width: image.width, height: image.height, frameRate: Rational(1, 1),
            pixelFormat: .rgba, preset: nil, crf: nil, profile: nil, threads: 1, colorTags: .unspecified)
        let encoder = try Encoder(video: settings)
        var data = Data()
        rgba.pts = 0
        try encoder.encode(rgba) { packet in
            if let bytes = packet.data { data.append(bytes, count: packet.size) }
        }
        try encoder.encode(nil) { packet in
            if let bytes = packet.data { data.append(bytes, count: packet.size) }
        }
        return data
    }
}
