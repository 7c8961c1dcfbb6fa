import CFFmpeg

/// Owns an audio encoder (AVCodecContext opened with avcodec_open2) and the buffering it needs: planar
/// float samples in, any count at a time; packets out. The samples wait in an AVAudioFifo until a whole
/// codec frame (`frameSize`) is there, are converted to the codec's sample format if it is not `fltp`
/// (libopus takes interleaved `flt`), and get pts in `timeBase` (1/sampleRate) counting samples sent.
///
/// Encoders with priming (AAC: 1024 samples; Opus: 312) put their first packet at a negative pts
/// (`-initialPadding`); muxers turn that into an edit list (MP4) or a codec delay (WebM), so decoders drop
/// the priming again.
public final class AudioEncoder {
    public let context: UnsafeMutablePointer<AVCodecContext>
    public let codecName: String
    public let sampleRate: Int
    public let channelCount: Int
    /// The format the codec is given (`fltp` for aac, `flt` for libopus, `s16` for pcm_s16le, ...).
    public let sampleFormat: SampleFormat
    /// 1/sampleRate: packets come out in this time base.
    public let timeBase: Rational
    /// Samples per channel in each frame sent to the codec (the codec's frame size; 1024 for codecs that
    /// take any size, such as PCM).
    public let frameSize: Int
    /// Samples per channel given to `encode` so far.
    public private(set) var samplesReceived: Int64 = 0
    /// Samples per channel sent to the codec so far (the pts of the next frame).
    public private(set) var samplesSent: Int64 = 0
    private let fifo: OpaquePointer
    private let converter: Resampler?
    private let packet: Packet
    private let acceptsShortLastFrame: Bool
    private var scratch: UnsafeMutableBufferPointer<Float>
    private var scratchPlanes: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private var flushed = false

    /// Opens the audio encoder named `name` (`aac`, `libopus`, `flac`, `pcm_s16le`, ...) for `channels`
    /// channels (FFmpeg's default layout) at `sampleRate`. `bitRate` in bits per second (nil: the codec's
    /// default). `options` are codec options (unused ones throw). `globalHeader`: put the codec's setup in
    /// the stream header (`Muxer.needsGlobalHeader` says whether the container wants that).
    public init(name: String, sampleRate: Int, channels: Int, bitRate: Int? = nil,
                options: [String: String] = [:], globalHeader: Bool = false) throws {
        let codec = try Encoder.find(name, AVMEDIA_TYPE_AUDIO, role: "an audio encoder")
        let what = "avcodec_open2 \(name) \(channels) ch \(sampleRate) Hz"
        guard channels > 0, channels <= 64 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "invalid channel count \(channels)")
        }
        guard sampleRate > 0, sampleRate <= 1_000_000 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "invalid sample rate \(sampleRate)")
        }
        if let rates = codec.pointee.supported_samplerates {
            var supported: [Int] = []
            var i = 0
            while rates[i] != 0 { supported.append(Int(rates[i])); i += 1 }
            guard supported.isEmpty || supported.contains(sampleRate) else {
                throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                                  message: "\(name) does not take \(sampleRate) Hz (it takes "
                                      + supported.map(String.init).joined(separator: ", ") + " Hz)")
            }
        }
        // The codec's own choice among formats we can give: planar float first, then what converts losslessly.
        var formats: [SampleFormat] = []
        if let list = codec.pointee.sample_fmts {
            var i = 0
            while list[i] != AV_SAMPLE_FMT_NONE { formats.append(SampleFormat(list[i])); i += 1 }
        }
        let preferred: [SampleFormat] = [.fltp, .flt, .dblp, .dbl, .s32p, .s32, .s16p, .s16, .u8]
        guard let format = formats.isEmpty ? .fltp : preferred.first(where: formats.contains) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "\(name) takes none of the sample formats we can give ("
                                  + formats.map(\.name).joined(separator: ", ") + ")")
        }

        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avcodec_alloc_context3 \(name)")
        }
        self.context = context
        self.codecName = name
        self.sampleRate = sampleRate
        self.channelCount = channels
        self.sampleFormat = format
        self.timeBase = Rational(1, Int32(sampleRate))
        scratch = .allocate(capacity: 0)
        scratchPlanes = .allocate(capacity: channels)
        let fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, Int32(channels), 4096)
        let packet = try? Packet()
        guard let fifo, let packet else {
            if let fifo { av_audio_fifo_free(fifo) }
            scratch.deallocate()
            scratchPlanes.deallocate()
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "av_audio_fifo_alloc")
        }
        self.fifo = fifo
        self.packet = packet

        do {
            context.pointee.sample_fmt = format.av
            context.pointee.sample_rate = Int32(sampleRate)
            av_channel_layout_uninit(&context.pointee.ch_layout)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
            context.pointee.time_base = timeBase.av
            if let bitRate { context.pointee.bit_rate = Int64(bitRate) }
            if globalHeader {
                context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_GLOBAL_HEADER))
            }
            let dictionary = try OptionDictionary(options, for: what)
            try FFmpegError.check(avcodec_open2(context, codec, &dictionary.pointer), what)
            try dictionary.throwIfUnused(what)

            let capabilities = codec.pointee.capabilities
            let variable = capabilities & Int32(AV_CODEC_CAP_VARIABLE_FRAME_SIZE) != 0
            acceptsShortLastFrame = variable || capabilities & Int32(AV_CODEC_CAP_SMALL_LAST_FRAME) != 0
            frameSize = context.pointee.frame_size > 0 && !variable ? Int(context.pointee.frame_size) : 1024
            converter = format == .fltp ? nil
                : try Resampler(inputChannels: channels, inputFormat: .fltp, inputSampleRate: sampleRate,
                                outputChannels: channels, outputFormat: format, outputSampleRate: sampleRate)
        } catch {
            av_audio_fifo_free(fifo)
            scratch.deallocate()
            scratchPlanes.deallocate()
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
            throw error
        }
    }

    deinit {
        av_audio_fifo_free(fifo)
        scratch.deallocate()
        scratchPlanes.deallocate()
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Samples the encoder adds before the signal (priming; AAC 1024, Opus 312): the first packet's pts is
    /// minus this.
    public var initialPadding: Int { Int(context.pointee.initial_padding) }

    /// Samples per channel buffered, waiting for a whole frame.
    public var bufferedSamples: Int { Int(av_audio_fifo_size(fifo)) }

    /// Takes `samples` (one array per channel, all the same length, any length; values nominally in -1...1)
    /// and hands every packet that becomes ready to `handler`, in `timeBase`. The packet is only valid
    /// during the call; the handler may take its data (the muxer does).
    public func encode(_ samples: [[Float]], _ handler: (Packet) throws -> Void) throws {
        let what = "AudioEncoder.encode \(codecName)"
        guard !flushed else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what, message: "the encoder is flushed")
        }
        guard samples.count == channelCount else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "\(samples.count) channels given, the encoder has \(channelCount)")
        }
        let count = samples[0].count
        guard samples.allSatisfy({ $0.count == count }) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "channels of different lengths: " + samples.map { "\($0.count)" }
                                  .joined(separator: ", "))
        }
        guard count > 0 else { return }
        if scratch.count < count * channelCount {
            scratch.deallocate()
            scratch = .allocate(capacity: count * channelCount)
        }
        for c in 0..<channelCount {
            let plane = scratch.baseAddress! + c * count
            samples[c].withUnsafeBufferPointer { plane.update(from: $0.baseAddress!, count: count) }
            scratchPlanes[c] = UnsafeMutableRawPointer(plane)
        }
        let written = av_audio_fifo_write(fifo, scratchPlanes, Int32(count))
        try FFmpegError.check(written, "av_audio_fifo_write \(count) samples")
        samplesReceived += Int64(count)
        while bufferedSamples >= frameSize {
            try sendFrame(samples: frameSize, handler)
        }
    }

    /// Encodes what is buffered (a short last frame, or one padded with silence for codecs that need whole
    /// frames), drains the codec and hands out the last packets. No samples may follow; calling it again
    /// does nothing.
    public func flush(_ handler: (Packet) throws -> Void) throws {
        guard !flushed else { return }
        flushed = true
        let rest = bufferedSamples
        if rest > 0 { try sendFrame(samples: rest, handler) }
        try send(nil, handler)
    }

    /// Takes `samples` from the fifo into a frame (padded with silence to `frameSize` if the codec needs
    /// whole frames), converts and sends it.
    private func sendFrame(samples: Int, _ handler: (Packet) throws -> Void) throws {
        let size = samples < frameSize && !acceptsShortLastFrame ? frameSize : samples
        let frame = try Frame(samples: size, format: .fltp, channels: channelCount, sampleRate: sampleRate)
        if size > samples {
            try FFmpegError.check(av_samples_set_silence(frame.pointer.pointee.extended_data, 0, Int32(size),
                                                         Int32(channelCount), AV_SAMPLE_FMT_FLTP),
                                  "av_samples_set_silence")
        }
        let read = av_audio_fifo_read(fifo, UnsafeMutableRawPointer(frame.pointer.pointee.extended_data)
                                        .assumingMemoryBound(to: UnsafeMutableRawPointer?.self), Int32(samples))
        try FFmpegError.check(read, "av_audio_fifo_read \(samples) samples")
        var toSend = frame
        if let converter {
            toSend = try converter.convert(frame)
            guard toSend.sampleCount == size else {
                throw FFmpegError(code: FFmpegError.invalidArgument, operation: "AudioEncoder \(codecName)",
                                  message: "sample format conversion gave \(toSend.sampleCount) of \(size) samples")
            }
        }
        toSend.pts = samplesSent
        samplesSent += Int64(size)
        try send(toSend, handler)
    }

    private func send(_ frame: Frame?, _ handler: (Packet) throws -> Void) throws {
        try Encoder.send(frame, to: context, name: codecName, packet: packet, defaultDuration: Int64(frameSize),
                         handler)
    }
}

/// Writes float samples to an audio file (WAV with 16-bit PCM unless told otherwise): an `AudioEncoder`
/// feeding a `Muxer`. For tests and fixtures.
///
///     let writer = try AudioFileWriter(path: "tone.wav", sampleRate: 44100, channels: 2)
///     try writer.write([left, right])
///     try writer.finish()
public final class AudioFileWriter {
    public let path: String
    public let encoder: AudioEncoder
    private let muxer: Muxer
    private let stream: Int
    private var finished = false

    /// Opens the encoder (`codec`: `pcm_s16le`, `pcm_f32le`, `flac`, `aac`, `libopus`, ...), creates the file
    /// (`format`: a muxer name such as `wav`, `flac`, `mp4`, `webm`) and writes the header.
    public init(path: String, sampleRate: Int, channels: Int, format: String = "wav",
                codec: String = "pcm_s16le", bitRate: Int? = nil) throws {
        self.path = path
        muxer = try Muxer(path: path, format: format)
        encoder = try AudioEncoder(name: codec, sampleRate: sampleRate, channels: channels, bitRate: bitRate,
                                   globalHeader: muxer.needsGlobalHeader)
        stream = try muxer.addStream(codecContext: encoder.context, name: encoder.codecName,
                                     timeBase: encoder.timeBase)
        try muxer.writeHeader()
    }

    /// Appends samples: one array per channel, all the same length.
    public func write(_ samples: [[Float]]) throws {
        guard !finished else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "AudioFileWriter.write \(path)",
                              message: "the writer is finished")
        }
        try encoder.encode(samples) { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
    }

    /// Flushes the encoder, writes the trailer and closes the file. Calling it again does nothing.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        try encoder.flush { try muxer.write($0, stream: stream, timeBase: encoder.timeBase) }
        try muxer.finish()
    }

    /// Writes `samples` (one array per channel) to a new file at `path` in one go.
    public static func write(_ samples: [[Float]], sampleRate: Int, to path: String, format: String = "wav",
                             codec: String = "pcm_s16le") throws {
        let writer = try AudioFileWriter(path: path, sampleRate: sampleRate, channels: samples.count,
                                         format: format, codec: codec)
        try writer.write(samples)
        try writer.finish()
    }
}
