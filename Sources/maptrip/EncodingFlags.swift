import ArgumentParser
import MapTripOutput

/// The output options `render` and `batch` share: container, codec, quality, speed, keyframes, pixel
/// format, rate and size. Typed here (the parser turns away a value no codec takes); `OutputPlan`
/// checks them against the output's codec.
struct EncodingFlags: ParsableArguments {
    @Option(help: "Container (default: by the output's extension; ts is MPEG-TS).")
    var format: ContainerFormat?

    @Option(help: "Codec within the format: h264, hevc (mp4, mov); vp9, av1 (webm); prores, h264 (mov).")
    var codec: VideoCodec?

    @Option(help: "Quality: constant rate factor (H.264/HEVC 0-51, 0 lossless; VP9/AV1 0-63).")
    var crf: Double?

    @Option(help: ArgumentHelp("Average bit rate instead of --crf, e.g. 8M, 2500k.", valueName: "rate"),
            transform: BitRate.parse)
    var bitrate: Int?

    @Option(help: "Encoder speed: x264/x265 ultrafast...veryslow, VP9 0-8, AV1 0-13; replaykit: the original demo's H.264 settings.")
    var preset: EncoderPreset?

    @Option(help: "Keyframe interval in frames (default: 2 seconds).")
    var gop: Int?

    @Option(name: .customLong("pix-fmt"), help: "Pixel format, e.g. yuv444p (H.264, HEVC, VP9), yuv422p10le (ProRes 422 HQ).")
    var pixFmt: PixelFormatName?

    @Option(help: "Frames per second of the output (default: the scene's; GIF 15).")
    var fps: Int?

    @Option(help: "Width of the output in pixels, same view (default: the scene's; GIF at most 720).")
    var width: Int?

    func options(threads: Int? = nil) -> EncodingOptions {
        EncodingOptions(crf: crf, bitrate: bitrate, preset: preset?.name, gop: gop, pixelFormat: pixFmt?.name,
                        threads: threads)
    }
}
