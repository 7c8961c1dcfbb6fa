import ArgumentParser
import MapTripOutput

/// The output options `render` and `batch` share: container, codec, quality, speed, keyframes, pixel
/// format, rate and size. Checked here for spelling; `OutputPlan` checks them against the codec.
struct EncodingFlags: ParsableArguments {
    @Option(help: "Container: mp4, webm, mov, gif, png, ts (mpegts), flv, hls (default: by the output's extension).")
    var format: String?

    @Option(help: "Codec within the format: h264, hevc (mp4, mov); vp9, av1 (webm); prores, h264 (mov).")
    var codec: String?

    @Option(help: "Quality: constant rate factor (H.264/HEVC 0-51, 0 lossless; VP9/AV1 0-63).")
    var crf: Double?

    @Option(help: "Average bit rate instead of --crf, e.g. 8M, 2500k.")
    var bitrate: String?

    @Option(help: "Encoder speed: x264/x265 ultrafast...veryslow, VP9 0-8, AV1 0-13; replaykit: the original demo's H.264 settings.")
    var preset: String?

    @Option(help: "Keyframe interval in frames (default: 2 seconds).")
    var gop: Int?

    @Option(name: .customLong("pix-fmt"), help: "Pixel format, e.g. yuv444p (H.264, HEVC, VP9), yuv422p10le (ProRes 422 HQ).")
    var pixFmt: String?

    @Option(help: "Frames per second of the output (default: the scene's; GIF 15).")
    var fps: Int?

    @Option(help: "Width of the output in pixels, same view (default: the scene's; GIF at most 720).")
    var width: Int?

    func validate() throws {
        if let format, ContainerFormat.named(format) == nil {
            throw ValidationError(OutputError.unknownFormat(format).description)
        }
        if let codec, VideoCodec.named(codec) == nil {
            throw ValidationError(OutputError.unknownCodec(codec).description)
        }
        if let bitrate, Self.parseBitrate(bitrate) == nil {
            throw ValidationError("--bitrate '\(bitrate)' is not a rate; write e.g. 8M, 2500k or 800000")
        }
    }

    var containerFormat: ContainerFormat? { format.flatMap(ContainerFormat.named) }
    var videoCodec: VideoCodec? { codec.flatMap(VideoCodec.named) }

    func options(threads: Int? = nil) -> EncodingOptions {
        EncodingOptions(crf: crf, bitrate: bitrate.flatMap(Self.parseBitrate), preset: preset, gop: gop,
                        pixelFormat: pixFmt, threads: threads)
    }

    /// `8M`, `2500k`, `800000` in bits per second.
    static func parseBitrate(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let multiplier: Double = t.hasSuffix("m") ? 1e6 : t.hasSuffix("k") ? 1e3 : 1
        let digits = multiplier == 1 ? t : String(t.dropLast())
        guard let value = Double(digits), value > 0, value.isFinite else { return nil }
        return Int(value * multiplier)
    }
}
