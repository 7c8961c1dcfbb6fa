/// A container maptrip writes, chosen by the output's extension (or `--format`).
public enum ContainerFormat: String, CaseIterable, Sendable {
    case mp4
    case webm
    case mov
    case gif
    /// A numbered image sequence (`out_%05d.png`): a folder of PNG files.
    case png
    /// Live and streaming containers (`--live`, pipes): FLV for RTMP, MPEG-TS for SRT/UDP, HLS for `.m3u8`.
    case flv
    case mpegts
    case hls

    /// The files users ask for by extension, in the order the help lists them.
    public static let fileFormats: [ContainerFormat] = [.mp4, .webm, .mov, .gif, .png]

    /// FFmpeg's muxer name.
    public var muxer: String {
        switch self {
        case .png: "image2"
        default: rawValue
        }
    }

    /// Extensions that choose this format.
    public var extensions: [String] {
        switch self {
        case .mp4: ["mp4", "m4v"]
        case .webm: ["webm"]
        case .mov: ["mov"]
        case .gif: ["gif"]
        case .png: ["png"]
        case .flv: ["flv"]
        case .mpegts: ["ts"]
        case .hls: ["m3u8"]
        }
    }

    /// The codecs this container carries, the default first.
    public var codecs: [VideoCodec] {
        switch self {
        case .mp4: [.h264, .hevc]
        case .webm: [.vp9, .av1]
        case .mov: [.prores, .h264, .hevc]
        case .gif: [.gif]
        case .png: [.png]
        case .flv: [.h264]
        case .mpegts, .hls: [.h264, .hevc]
        }
    }

    public var defaultCodec: VideoCodec { codecs[0] }

    /// The audio codec this container carries, `AudioCodec`'s raw value (nil: no audio).
    public var audioCodecName: String? {
        switch self {
        case .mp4, .mov, .flv, .mpegts, .hls: "aac"
        case .webm: "opus"
        case .gif, .png: nil
        }
    }

    /// The container writes its index after the media and must seek back to do so (MP4, MOV): on a
    /// target that cannot seek it is written fragmented.
    public var needsSeeking: Bool { self == .mp4 || self == .mov }

    /// What the help calls it.
    public var summary: String {
        switch self {
        case .mp4: ".mp4 (H.264 or HEVC)"
        case .webm: ".webm (VP9 or AV1)"
        case .mov: ".mov (ProRes 4444, H.264 or HEVC)"
        case .gif: ".gif"
        case .png: "a PNG sequence (name_%05d.png)"
        case .flv: ".flv (H.264, for RTMP)"
        case .mpegts: ".ts (MPEG-TS)"
        case .hls: ".m3u8 (HLS)"
        }
    }

    /// The format a `--format` value names (`ts` for MPEG-TS too).
    public static func named(_ name: String) -> ContainerFormat? {
        ContainerFormat(rawValue: name.lowercased()) ?? (name.lowercased() == "ts" ? .mpegts : nil)
    }

    /// The format an extension names (case-insensitive), if any.
    public static func forExtension(_ ext: String) -> ContainerFormat? {
        let e = ext.lowercased()
        return allCases.first { $0.extensions.contains(e) }
    }
}

/// A video codec and the FFmpeg encoder behind it.
public enum VideoCodec: String, CaseIterable, Sendable {
    case h264
    case hevc
    case vp9
    case av1
    case prores
    case gif
    case png

    /// Names users may type for it.
    public static func named(_ name: String) -> VideoCodec? {
        switch name.lowercased() {
        case "h264", "avc", "x264", "libx264": .h264
        case "hevc", "h265", "x265", "libx265": .hevc
        case "vp9", "libvpx-vp9": .vp9
        case "av1", "libsvtav1", "svt-av1": .av1
        case "prores", "prores_ks", "prores4444": .prores
        case "gif": .gif
        case "png": .png
        default: nil
        }
    }
}
