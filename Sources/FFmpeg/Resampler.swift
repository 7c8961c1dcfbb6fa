import CFFmpeg

/// An audio sample format (AVSampleFormat), named as FFmpeg names it (`fltp`, `flt`, `s16`, ...).
/// Planar formats keep one buffer per channel; packed ones interleave the channels in one buffer.
public struct SampleFormat: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }
    init(_ format: AVSampleFormat) { self.rawValue = format.rawValue }

    /// nil when FFmpeg does not know the name.
    public init?(name: String) {
        let format = av_get_sample_fmt(name)
        if format == AV_SAMPLE_FMT_NONE { return nil }
        self.rawValue = format.rawValue
    }

    var av: AVSampleFormat { AVSampleFormat(rawValue: rawValue) }

    public var name: String {
        guard let name = av_get_sample_fmt_name(av) else { return "none" }
        return String(cString: name)
    }

    public var description: String { name }

    /// One buffer per channel.
    public var isPlanar: Bool { av_sample_fmt_is_planar(av) != 0 }

    /// Bytes of one sample of one channel (0 for `unknown`).
    public var bytesPerSample: Int { Int(av_get_bytes_per_sample(av)) }

    /// AV_SAMPLE_FMT_NONE.
    public static let unknown = SampleFormat(AV_SAMPLE_FMT_NONE)
    /// 32-bit float, planar: what the readers hand out and the encoders take.
    public static let fltp = SampleFormat(AV_SAMPLE_FMT_FLTP)
    /// 32-bit float, interleaved (libopus).
    public static let flt = SampleFormat(AV_SAMPLE_FMT_FLT)
    public static let s16 = SampleFormat(AV_SAMPLE_FMT_S16)
    public static let s16p = SampleFormat(AV_SAMPLE_FMT_S16P)
    public static let s32 = SampleFormat(AV_SAMPLE_FMT_S32)
    public static let s32p = SampleFormat(AV_SAMPLE_FMT_S32P)
    public static let dbl = SampleFormat(AV_SAMPLE_FMT_DBL)
    public static let dblp = SampleFormat(AV_SAMPLE_FMT_DBLP)
    public static let u8 = SampleFormat(AV_SAMPLE_FMT_U8)
}

/// Calls `body` with FFmpeg's default layout for `channels` (mono, stereo, 2.1, quad, 5.0, 5.1, ...; an
/// unordered layout beyond what FFmpeg names).
func withDefaultChannelLayout<T>(channels: Int, _ body: (UnsafePointer<AVChannelLayout>) throws -> T) rethrows -> T {
    var layout = AVChannelLayout()
    av_channel_layout_default(&layout, Int32(clamping: channels))
    defer { av_channel_layout_uninit(&layout) }
    return try body(&layout)
}

/// Audio buffers on Frame (the picture ones are in Frame.swift).
extension Frame {
    /// An audio frame of `samples` samples per channel with buffers allocated (av_frame_get_buffer), in
    /// FFmpeg's default layout for `channels`.
    public convenience init(samples: Int, format: SampleFormat, channels: Int, sampleRate: Int) throws {
        try self.init()
        try withDefaultChannelLayout(channels: channels) { layout in
            try allocateAudioBuffers(samples: samples, format: format, layout: layout, sampleRate: sampleRate)
        }
    }

    /// Drops the current buffers, then allocates new ones for `samples` audio samples per channel.
    public func allocateAudioBuffers(samples: Int, format: SampleFormat, layout: UnsafePointer<AVChannelLayout>,
                                     sampleRate: Int) throws {
        let what = "av_frame_get_buffer \(samples) samples \(format.name) \(layout.pointee.nb_channels) channels"
        guard samples > 0, samples <= Int(Int32.max), format != .unknown, layout.pointee.nb_channels > 0,
              sampleRate > 0, sampleRate <= Int(Int32.max) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what)
        }
        av_frame_unref(pointer)
        pointer.pointee.nb_samples = Int32(samples)
        pointer.pointee.format = format.rawValue
        pointer.pointee.sample_rate = Int32(sampleRate)
        try FFmpegError.check(av_channel_layout_copy(&pointer.pointee.ch_layout, layout), "av_channel_layout_copy")
        try FFmpegError.check(av_frame_get_buffer(pointer, 0), what)
    }

    /// Audio: samples per channel.
    public var sampleCount: Int {
        get { Int(pointer.pointee.nb_samples) }
        set { pointer.pointee.nb_samples = Int32(clamping: newValue) }
    }

    /// Audio: samples per second.
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }

    /// Audio: number of channels (from the channel layout).
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }

    /// Audio: the sample format.
    public var sampleFormat: SampleFormat { SampleFormat(rawValue: pointer.pointee.format) }

    /// Audio: the data of channel `index` (planar) or of all channels (packed, index 0); nil outside the frame.
    public func audioData(channel index: Int) -> UnsafeMutablePointer<UInt8>? {
        let planes = sampleFormat.isPlanar ? channelCount : 1
        guard index >= 0, index < planes, let extended = pointer.pointee.extended_data else { return nil }
        return extended[index]
    }

    /// Audio in planar float (`fltp`): copies the samples out, one array per channel.
    public func floatChannels() throws -> [[Float]] {
        guard sampleFormat == .fltp else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "Frame.floatChannels",
                              message: "frame is \(sampleFormat.name), not fltp")
        }
        let count = sampleCount
        return (0..<channelCount).map { c in
            guard count > 0, let data = audioData(channel: c) else { return [] }
            return data.withMemoryRebound(to: Float.self, capacity: count) {
                Array(UnsafeBufferPointer(start: $0, count: count))
            }
        }
    }
}

/// Owns a SwrContext (libswresample): converts audio between sample rates, channel layouts and sample
/// formats. Frames in, frames out. Resampling holds a few samples back (filter delay); `flush()` hands
/// them out at the end. The output is time-aligned with the input: output sample n is input time
/// n / outputSampleRate.
///
/// Mono to more channels copies the one channel to every output channel at full level (libswresample
/// would put it on the centre speaker, or at -3 dB on left and right).
public final class Resampler {
    public let inputSampleRate: Int
    public let inputFormat: SampleFormat
    public let inputChannelCount: Int
    public let outputSampleRate: Int
    public let outputFormat: SampleFormat
    public let outputChannelCount: Int
    private let context: OpaquePointer
    private var outputLayout = AVChannelLayout()

    /// A converter for frames in `inputLayout` (e.g. a decoded frame's `ch_layout`) to FFmpeg's default
    /// layout for `outputChannels`.
    public init(inputLayout: UnsafePointer<AVChannelLayout>, inputFormat: SampleFormat, inputSampleRate: Int,
                outputChannels: Int, outputFormat: SampleFormat, outputSampleRate: Int) throws {
        let inChannels = Int(inputLayout.pointee.nb_channels)
        let what = "swr_alloc_set_opts2 \(inChannels) ch \(inputFormat.name) \(inputSampleRate) Hz -> "
            + "\(outputChannels) ch \(outputFormat.name) \(outputSampleRate) Hz"
        guard inChannels > 0, inChannels <= 64, outputChannels > 0, outputChannels <= 64,
              inputSampleRate > 0, inputSampleRate <= 1_000_000, outputSampleRate > 0, outputSampleRate <= 1_000_000,
              inputFormat != .unknown, outputFormat != .unknown else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what, message: "invalid audio format")
        }
        self.inputSampleRate = inputSampleRate
        self.inputFormat = inputFormat
        self.inputChannelCount = inChannels
        self.outputSampleRate = outputSampleRate
        self.outputFormat = outputFormat
        self.outputChannelCount = outputChannels
        av_channel_layout_default(&outputLayout, Int32(outputChannels))

        // A layout without channel meanings (some WAV files): libswresample wants to know which is which.
        var inLayout = AVChannelLayout()
        defer { av_channel_layout_uninit(&inLayout) }
        if inputLayout.pointee.order == AV_CHANNEL_ORDER_UNSPEC || av_channel_layout_check(inputLayout) == 0 {
            av_channel_layout_default(&inLayout, Int32(inChannels))
        } else {
            let status = av_channel_layout_copy(&inLayout, inputLayout)
            if status < 0 {
                av_channel_layout_uninit(&outputLayout)
                throw FFmpegError(code: status, operation: "av_channel_layout_copy")
            }
        }

        var swr: OpaquePointer? = nil
        let status = swr_alloc_set_opts2(&swr, &outputLayout, outputFormat.av, Int32(outputSampleRate),
                                         &inLayout, inputFormat.av, Int32(inputSampleRate), 0, nil)
        guard status >= 0, let swr else {
            av_channel_layout_uninit(&outputLayout)
            throw FFmpegError(code: status < 0 ? status : FFmpegError.outOfMemory, operation: what)
        }
        context = swr
        do {
            if inChannels == 1 && outputChannels > 1 {
                let matrix = [Double](repeating: 1, count: outputChannels)
                try FFmpegError.check(swr_set_matrix(swr, matrix, 1), "swr_set_matrix mono -> \(outputChannels) ch")
            }
            try FFmpegError.check(swr_init(swr), "swr_init " + what.dropFirst("swr_alloc_set_opts2 ".count))
        } catch {
            var c: OpaquePointer? = swr
            swr_free(&c)
            av_channel_layout_uninit(&outputLayout)
            throw error
        }
    }

    /// A converter between FFmpeg's default layouts for the channel counts.
    public convenience init(inputChannels: Int, inputFormat: SampleFormat, inputSampleRate: Int,
                            outputChannels: Int, outputFormat: SampleFormat, outputSampleRate: Int) throws {
        guard inputChannels > 0 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "Resampler",
                              message: "\(inputChannels) input channels")
        }
        var layout = AVChannelLayout()  // a default layout owns no memory: nothing to uninit
        av_channel_layout_default(&layout, Int32(clamping: inputChannels))
        try self.init(inputLayout: &layout, inputFormat: inputFormat, inputSampleRate: inputSampleRate,
                      outputChannels: outputChannels, outputFormat: outputFormat, outputSampleRate: outputSampleRate)
    }

    deinit {
        var c: OpaquePointer? = context
        swr_free(&c)
        av_channel_layout_uninit(&outputLayout)
    }

    /// Input samples held back so far, in output samples (rounded up).
    public var delay: Int { Int(swr_get_delay(context, Int64(outputSampleRate))) }

    /// Converts `frame` (its format, rate and channel count must be the input's) and returns the samples
    /// ready so far as a new frame in the output format (possibly with 0 samples). The output frame has no pts.
    public func convert(_ frame: Frame) throws -> Frame {
        let what = "swr_convert"
        guard frame.sampleFormat == inputFormat, frame.sampleRate == inputSampleRate,
              frame.channelCount == inputChannelCount else {
            throw FFmpegError(
                code: FFmpegError.invalidArgument, operation: what,
                message: "frame is \(frame.channelCount) ch \(frame.sampleFormat.name) \(frame.sampleRate) Hz, "
                    + "resampler expects \(inputChannelCount) ch \(inputFormat.name) \(inputSampleRate) Hz")
        }
        guard frame.sampleCount > 0, let input = frame.pointer.pointee.extended_data else { return try Frame() }
        let constInput = UnsafeMutableRawPointer(input).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        return try run(input: constInput, count: frame.sampleCount, flushing: false)
    }

    /// Hands out the samples still held back (end of input). The resampler can be used again afterwards.
    public func flush() throws -> Frame {
        try run(input: nil, count: 0, flushing: true)
    }

    private func run(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int, flushing: Bool) throws -> Frame {
        let output = try Frame()
        if !flushing && (input == nil || count == 0) { return output }  // nil input would mean flush
        let capacity = Int(swr_get_out_samples(context, Int32(clamping: count)))
        guard capacity > 0 else {
            // Nothing can come out: still hand the input over so it is buffered.
            if let input {
                try FFmpegError.check(swr_convert(context, nil, 0, input, Int32(count)), "swr_convert")
            }
            return output
        }
        try output.allocateAudioBuffers(samples: capacity, format: outputFormat, layout: &outputLayout,
                                        sampleRate: outputSampleRate)
        let converted = try FFmpegError.check(
            swr_convert(context, output.pointer.pointee.extended_data, Int32(capacity),
                        flushing ? nil : input, flushing ? 0 : Int32(count)),
            "swr_convert")
        output.sampleCount = Int(converted)
        return output
    }
}
