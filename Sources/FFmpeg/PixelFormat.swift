import CFFmpeg

/// A pixel format (AVPixelFormat), named as FFmpeg names it (`yuv420p`, `bgra`, ...).
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ format: AVPixelFormat) { self.rawValue = format.rawValue }

    /// nil when FFmpeg does not know the name.
    public init?(name: String) {
        let format = av_get_pix_fmt(name)
        if format == AV_PIX_FMT_NONE { return nil }
        self.rawValue = format.rawValue
    }

    var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    public var name: String {
        guard let name = av_get_pix_fmt_name(av) else { return "none" }
        return String(cString: name)
    }

    public var description: String { name }

    /// Whether its pixels carry alpha (AV_PIX_FMT_FLAG_ALPHA).
    public var hasAlpha: Bool {
        av_pix_fmt_desc_get(av).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
    }

    /// AV_PIX_FMT_NONE (named `unknown` so it cannot be mistaken for `Optional.none`).
    public static let unknown = PixelFormat(AV_PIX_FMT_NONE)
    public static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    public static let yuv422p = PixelFormat(AV_PIX_FMT_YUV422P)
    public static let yuv444p = PixelFormat(AV_PIX_FMT_YUV444P)
    public static let yuva420p = PixelFormat(AV_PIX_FMT_YUVA420P)
    /// B,G,R,A bytes in memory: Cairo's ARGB32 on little-endian machines.
    public static let bgra = PixelFormat(AV_PIX_FMT_BGRA)
    public static let rgba = PixelFormat(AV_PIX_FMT_RGBA)
    public static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
    public static let gray = PixelFormat(AV_PIX_FMT_GRAY8)
    public static let pal8 = PixelFormat(AV_PIX_FMT_PAL8)
}
