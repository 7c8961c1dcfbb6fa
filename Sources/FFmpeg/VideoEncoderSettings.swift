/// How to open a video encoder. The defaults are H.264 (libx264, veryfast, CRF 20, High profile, yuv420p)
/// tagged as BT.601 limited range, which is what libyuv's ARGBToI420 produces.
///
/// `preset`, `crf` and `profile` are passed as codec options: set them to nil for a codec that lacks them
/// (options the codec does not use make `Encoder.init` throw rather than being silently ignored).
public struct VideoEncoderSettings: Equatable, Sendable {
    /// An FFmpeg encoder name: `libx264`, later `libx265`, `libvpx-vp9`, `prores_ks`, `gif`, ...
    public var codecName: String
    public var width: Int
    public var height: Int
    /// Frames per second; the encoder's time base is its inverse (one tick per frame).
    public var frameRate: Rational
    public var pixelFormat: PixelFormat
    public var preset: String?
    /// Constant rate factor (libx264: 0...51, lower is better; ~18-23 is typical).
    public var crf: Double?
    public var profile: String?
    /// Target bit rate in bits/s (nil: rate control by crf).
    public var bitRate: Int?
    /// Keyframe interval in seconds.
    public var gopSeconds: Double
    /// Encoder threads; 0 lets the codec choose.
    public var threads: Int
    public var colorTags: ColorTags
    /// Further codec options (AVOptions, e.g. `["tune": "animation", "x264-params": "..."]`).
    public var options: [String: String]

    public init(codecName: String = "libx264", width: Int, height: Int, frameRate: Rational,
                pixelFormat: PixelFormat = .yuv420p, preset: String? = "veryfast", crf: Double? = 20,
                profile: String? = "high", bitRate: Int? = nil, gopSeconds: Double = 2, threads: Int = 0,
                colorTags: ColorTags = .bt601Limited, options: [String: String] = [:]) {
        self.codecName = codecName
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.pixelFormat = pixelFormat
        self.preset = preset
        self.crf = crf
        self.profile = profile
        self.bitRate = bitRate
        self.gopSeconds = gopSeconds
        self.threads = threads
        self.colorTags = colorTags
        self.options = options
    }

    public init(codecName: String = "libx264", width: Int, height: Int, fps: Int) {
        self.init(codecName: codecName, width: width, height: height, frameRate: Rational(Int32(clamping: fps), 1))
    }

    /// Everything passed to avcodec_open2 as options.
    var allOptions: [String: String] {
        var all = options
        if let preset { all["preset"] = preset }
        if let crf { all["crf"] = crf == crf.rounded() && abs(crf) < 1e9 ? String(Int(crf)) : String(crf) }
        if let profile { all["profile"] = profile }
        return all
    }
}
