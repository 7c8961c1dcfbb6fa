import FFmpeg
import YUV
import Foundation
import MapTripSupport

/// What the user asked of the encoder: quality, speed, keyframes, pixel format. Every field is
/// optional: nil takes the codec's default. A field the codec has no use for is an error
/// (`CodecProfile.settings`), never silently ignored.
public struct EncodingOptions: Equatable, Sendable {
    /// Constant rate factor (quality; lower is better). x264/x265 0...51, VP9/AV1 0...63.
    public var crf: Double?
    /// Target average bit rate in bits per second (instead of crf).
    public var bitrate: Int?
    /// The encoder's speed: x264/x265 preset names, VP9/AV1 speed numbers; `replaykit` for H.264.
    public var preset: String?
    /// Keyframe interval in frames.
    public var gop: Int?
    /// FFmpeg pixel format name, one the codec takes.
    public var pixelFormat: String?
    /// Encoder threads (nil: the codec chooses, usually one per core and more). Batches running
    /// several jobs side by side may want fewer.
    public var threads: Int?

    public init(crf: Double? = nil, bitrate: Int? = nil, preset: String? = nil, gop: Int? = nil,
                pixelFormat: String? = nil, threads: Int? = nil) {
        self.crf = crf
        self.bitrate = bitrate
        self.preset = preset
        self.gop = gop
        self.pixelFormat = pixelFormat
        self.threads = threads
    }
}

/// One codec's setup: the FFmpeg encoder, which options apply, their ranges and defaults (chosen for
/// good quality at a sensible size), and the pixel formats it takes with and without alpha.
public struct CodecProfile: Sendable {
    public let codec: VideoCodec
    /// FFmpeg encoder name.
    public let encoder: String
    /// The crf range, nil when the codec has no crf.
    public let crfRange: ClosedRange<Double>?
    public let defaultCRF: Double?
    /// Preset names (or speed numbers) in order, fastest first where that applies; empty: no presets.
    public let presets: [String]
    public let defaultPreset: String?
    public let takesBitrate: Bool
    public let takesGOP: Bool
    /// Pixel formats for opaque pictures, the default first.
    public let pixelFormats: [String]
    /// The pixel format carrying alpha, nil when the codec cannot.
    public let alphaPixelFormat: String?
    /// One line for the help: what the options mean for this codec.
    public let help: String

    /// x264's presets, fastest first.
    public static let x264Presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                                     "slower", "veryslow", "placebo"]

    /// The original iOS demo's capture settings (ReplayKit through AVAssetWriter): H.264 High profile,
    /// CABAC, an average bit rate of width x height x 11.4 bits per second, a keyframe every 30 frames,
    /// no B-frames.
    public static let replayKitPreset = "replaykit"
    public static let replayKitBitsPerPixel = 11.4
    public static let replayKitGOP = 30

    /// Every preset some codec takes, in codec order, each once: what `--preset` may be before the
    /// codec is known (which codec takes it is checked by `settings`).
    public static var allPresets: [String] { unique(VideoCodec.allCases.flatMap { profile(for: $0).presets }) }

    /// Every pixel format some codec takes, with or without alpha, in codec order, each once.
    public static var allPixelFormats: [String] {
        unique(VideoCodec.allCases.flatMap { c in
            let p = profile(for: c)
            return p.pixelFormats + (p.alphaPixelFormat.map { [$0] } ?? [])
        })
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    public static func profile(for codec: VideoCodec) -> CodecProfile {
        switch codec {
        case .h264:
            CodecProfile(codec: .h264, encoder: "libx264", crfRange: 0...51, defaultCRF: 20,
                         presets: x264Presets + [replayKitPreset], defaultPreset: "veryfast",
                         takesBitrate: true, takesGOP: true, pixelFormats: ["yuv420p", "yuv444p"],
                         alphaPixelFormat: nil,
                         help: "H.264 (libx264): --crf 0-51 (default 20; 0 is lossless, in 4:4:4), --bitrate, "
                             + "--preset ultrafast...veryslow (default veryfast) or replaykit, --gop, --pix-fmt yuv420p|yuv444p")
        case .hevc:
            CodecProfile(codec: .hevc, encoder: "libx265", crfRange: 0...51, defaultCRF: 24,
                         presets: Array(x264Presets.dropLast()), defaultPreset: "veryfast",
                         takesBitrate: true, takesGOP: true, pixelFormats: ["yuv420p", "yuv444p"],
                         alphaPixelFormat: nil,
                         help: "HEVC (libx265, tagged hvc1): --crf 0-51 (default 24), --bitrate, "
                             + "--preset ultrafast...veryslow (default veryfast), --gop, --pix-fmt yuv420p|yuv444p")
        case .vp9:
            CodecProfile(codec: .vp9, encoder: "libvpx-vp9", crfRange: 0...63, defaultCRF: 32,
                         presets: (0...8).map(String.init), defaultPreset: "5",
                         takesBitrate: true, takesGOP: true, pixelFormats: ["yuv420p", "yuv444p"],
                         alphaPixelFormat: "yuva420p",
                         help: "VP9 (libvpx-vp9): --crf 0-63 (default 32), --bitrate, --preset 0-8 "
                             + "(speed, default 5), --gop, --pix-fmt yuv420p|yuv444p; alpha as yuva420p")
        case .av1:
            CodecProfile(codec: .av1, encoder: "libsvtav1", crfRange: 1...63, defaultCRF: 35,
                         presets: (0...13).map(String.init), defaultPreset: "10",
                         takesBitrate: true, takesGOP: true, pixelFormats: ["yuv420p"],
                         alphaPixelFormat: nil,
                         help: "AV1 (libsvtav1): --crf 1-63 (default 35), --bitrate, --preset 0-13 "
                             + "(speed, default 10), --gop")
        case .prores:
            CodecProfile(codec: .prores, encoder: "prores_ks", crfRange: nil, defaultCRF: nil,
                         presets: [], defaultPreset: nil, takesBitrate: false, takesGOP: false,
                         pixelFormats: ["yuv444p10le", "yuv422p10le"], alphaPixelFormat: "yuva444p10le",
                         help: "ProRes (prores_ks): 4444 (yuv444p10le, default; yuva444p10le with alpha) "
                             + "or 422 HQ with --pix-fmt yuv422p10le; intra-only, no rate options")
        case .gif:
            CodecProfile(codec: .gif, encoder: "gif", crfRange: nil, defaultCRF: nil, presets: [],
                         defaultPreset: nil, takesBitrate: false, takesGOP: false, pixelFormats: ["pal8"],
                         alphaPixelFormat: "pal8",
                         help: "GIF: a palette made for the clip; --fps (default 15) and --width (default at "
                             + "most 720); binary alpha")
        case .png:
            CodecProfile(codec: .png, encoder: "png", crfRange: nil, defaultCRF: nil, presets: [],
                         defaultPreset: nil, takesBitrate: false, takesGOP: false, pixelFormats: ["rgb24"],
                         alphaPixelFormat: "rgba",
                         help: "PNG sequence: lossless RGB (RGBA when transparent), one file per frame")
        }
    }

    /// The encoder settings for a picture size and frame rate, or an `OutputError` naming the option
    /// that does not apply or is out of range.
    public func settings(options: EncodingOptions, width: Int, height: Int, fps: Int,
                         transparent: Bool) throws -> (VideoEncoderSettings, PixelPath) {
        let name = codec.rawValue
        if options.crf != nil && crfRange == nil {
            throw OutputError.optionDoesNotApply("--crf", codec: name, help: help)
        }
        if options.bitrate != nil && !takesBitrate {
            throw OutputError.optionDoesNotApply("--bitrate", codec: name, help: help)
        }
        if options.preset != nil && presets.isEmpty {
            throw OutputError.optionDoesNotApply("--preset", codec: name, help: help)
        }
        if options.gop != nil && !takesGOP {
            throw OutputError.optionDoesNotApply("--gop", codec: name, help: help)
        }
        if options.crf != nil && options.bitrate != nil {
            throw OutputError.invalidOption("--crf and --bitrate are two ways to set the quality; give one")
        }
        if let crf = options.crf, let range = crfRange, !range.contains(crf) {
            throw OutputError.invalidOption(
                "--crf \(Self.format(crf)) is outside \(Self.format(range.lowerBound))-\(Self.format(range.upperBound)) for \(name)")
        }
        if let preset = options.preset, !presets.contains(preset) {
            let guess = EditDistance.nearest(to: preset, among: presets).map { " (did you mean '\($0)'?)" } ?? ""
            throw OutputError.invalidOption("unknown --preset '\(preset)' for \(name)\(guess); use one of "
                                            + presets.joined(separator: ", "))
        }
        if let bitrate = options.bitrate, bitrate < 1000 {
            throw OutputError.invalidOption("--bitrate \(bitrate) is too low; give bits per second, e.g. 8M or 2500k")
        }
        if let gop = options.gop, gop < 1 {
            throw OutputError.invalidOption("--gop must be at least 1 frame")
        }
        if transparent && alphaPixelFormat == nil {
            throw OutputError.noAlpha(codec: name)
        }
        let replayKit = options.preset == Self.replayKitPreset
        if replayKit && (options.crf != nil || options.bitrate != nil || options.gop != nil) {
            throw OutputError.invalidOption(
                "--preset replaykit sets the bit rate and keyframes itself; drop --crf, --bitrate and --gop")
        }

        // The pixel format: the one asked for (it must be one this codec takes), else the default.
        var pixelFormat = transparent ? alphaPixelFormat! : pixelFormats[0]
        let lossless = codec == .h264 && options.crf == 0
        if lossless { pixelFormat = "yuv444p" }  // lossless H.264 is High 4:4:4 Predictive
        if let asked = options.pixelFormat {
            let allowed = transparent ? [alphaPixelFormat!] : pixelFormats
            guard allowed.contains(asked) else {
                throw OutputError.invalidOption(
                    "--pix-fmt \(asked) is not one \(name)\(transparent ? " with alpha" : "") takes; use "
                    + allowed.joined(separator: " or "))
            }
            if lossless && asked != "yuv444p" {
                throw OutputError.invalidOption("lossless H.264 (--crf 0) is written in yuv444p; drop --pix-fmt")
            }
            pixelFormat = asked
        }
        guard let format = PixelFormat(name: pixelFormat) else {
            throw OutputError.invalidOption("this FFmpeg has no pixel format \(pixelFormat)")
        }

        var s = VideoEncoderSettings(codecName: encoder, width: width, height: height,
                                     frameRate: Rational(Int32(clamping: fps), 1), pixelFormat: format,
                                     preset: nil, crf: nil, profile: nil,
                                     colorTags: .limited(YUVMatrix.forFrame(width: width, height: height)))
        s.gopSeconds = Double(options.gop ?? 2 * fps) / Double(fps)
        if let threads = options.threads {
            guard (1...64).contains(threads) else {
                throw OutputError.invalidOption("--threads \(threads) is outside 1-64")
            }
            s.threads = threads
        }
        s.bitRate = options.bitrate
        let crf = options.bitrate == nil ? (options.crf ?? defaultCRF) : nil
        switch codec {
        case .h264:
            s.preset = replayKit ? "veryfast" : (options.preset ?? defaultPreset)
            s.profile = pixelFormat == "yuv444p" ? "high444" : "high"
            if replayKit {
                let rate = Int((Double(width * height) * Self.replayKitBitsPerPixel).rounded())
                s.bitRate = rate
                s.gopSeconds = Double(Self.replayKitGOP) / Double(fps)
                s.options["bf"] = "0"
                s.options["coder"] = "cabac"
                s.options["x264-params"] = "scenecut=0"
                // An average rate that holds even over still stretches, as a hardware encoder does.
                s.options["maxrate"] = String(rate)
                s.options["bufsize"] = String(rate)
                s.options["nal-hrd"] = "cbr"
            } else {
                s.crf = crf
            }
        case .hevc:
            s.preset = options.preset ?? defaultPreset
            s.crf = crf
            var params = ["log-level=error"]
            if let gop = options.gop { params.append("keyint=\(gop)") }
            s.options["x265-params"] = params.joined(separator: ":")
        case .vp9:
            s.options["deadline"] = "good"
            s.options["cpu-used"] = options.preset ?? defaultPreset!
            s.options["row-mt"] = "1"
            if let crf {
                s.crf = crf
                if s.bitRate == nil { s.bitRate = 0 }  // crf alone: constant quality
            }
        case .av1:
            s.preset = options.preset ?? defaultPreset
            s.crf = crf
            setenv("SVT_LOG", "1", 0)  // SVT-AV1 prints its banner unless told errors only
        case .prores:
            s.profile = pixelFormat == "yuv422p10le" ? "3" : "4"  // 3: 422 HQ, 4: 4444
            s.options["vendor"] = "apl0"
            if transparent { s.options["alpha_bits"] = "16" }
        case .gif:
            s.colorTags = .unspecified
        case .png:
            s.colorTags = .unspecified
        }
        let path: PixelPath
        switch pixelFormat {
        case "yuv420p": path = .i420
        case "yuv444p": path = .i444
        case "yuva420p": path = .yuva420
        default: path = .swscale(format)
        }
        return (s, path)
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : String(x)
    }
}
