import CFFmpeg

/// Owns an output AVFormatContext: a container file (format named explicitly, e.g. "mp4") with streams
/// added from encoders. Order: init, addStream(s), writeHeader (opens the file), write..., finish.
public final class Muxer {
    public let context: UnsafeMutablePointer<AVFormatContext>
    public let path: String
    public let formatName: String
    private var ioOpened = false
    private var headerWritten = false
    private var finished = false
    private var streamSourceTimeBases: [Rational] = []

    public init(path: String, format: String) throws {
        if path.contains("://") { avformat_network_init() }
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let what = "avformat_alloc_output_context2 \(format) \(path)"
        let status = avformat_alloc_output_context2(&context, nil, format, path)
        guard status >= 0, let context else {
            throw FFmpegError(code: status < 0 ? status : FFmpegError.muxerNotFound, operation: what,
                              message: status < 0 && status != FFmpegError.invalidArgument
                                  ? nil : "no output format named \"\(format)\"")
        }
        self.context = context
        self.path = path
        self.formatName = format
    }

    deinit {
        if ioOpened { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// The container wants codec parameter sets in the header (open the encoder with `globalHeader`).
    public var needsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Adds a stream carrying `encoder`'s output. Returns the stream index.
    @discardableResult
    public func addStream(from encoder: Encoder, codecTag: String? = nil) throws -> Int {
        try addStream(codecContext: encoder.context, name: encoder.codecName, timeBase: encoder.timeBase,
                      frameRate: encoder.settings.frameRate, codecTag: codecTag)
    }

    /// Adds a stream carrying the packets of an opened encoder context (video or audio), whose packets
    /// come in `timeBase`. `codecTag`: a four-character code to write instead of the muxer's default
    /// (e.g. `hvc1` for HEVC in MP4, which Apple's players require). Returns the stream index.
    @discardableResult
    public func addStream(codecContext: UnsafeMutablePointer<AVCodecContext>, name: String, timeBase: Rational,
                          frameRate: Rational? = nil, codecTag: String? = nil) throws -> Int {
        guard !headerWritten else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "avformat_new_stream",
                              message: "streams must be added before the header is written")
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avformat_new_stream")
        }
        try FFmpegError.check(avcodec_parameters_from_context(stream.pointee.codecpar, codecContext),
                              "avcodec_parameters_from_context \(name)")
        if let codecTag {
            let c = Array(codecTag.utf8)
            guard c.count == 4 else {
                throw FFmpegError(code: FFmpegError.invalidArgument, operation: "codec tag \(codecTag)",
                                  message: "a codec tag has four characters")
            }
            stream.pointee.codecpar.pointee.codec_tag =
                UInt32(c[0]) | UInt32(c[1]) << 8 | UInt32(c[2]) << 16 | UInt32(c[3]) << 24
        }
        stream.pointee.time_base = timeBase.av  // a hint: the muxer may choose another
        if let frameRate {
            stream.pointee.avg_frame_rate = frameRate.av
            stream.pointee.r_frame_rate = frameRate.av
        }
        streamSourceTimeBases.append(timeBase)
        return Int(stream.pointee.index)
    }

    /// Adds a stream carrying packets copied from an input stream (a remux, no re-encoding) whose
    /// packets come in `timeBase`. Returns the stream index.
    @discardableResult
    public func addStream(copying parameters: UnsafePointer<AVCodecParameters>, timeBase: Rational,
                          frameRate: Rational? = nil) throws -> Int {
        guard !headerWritten else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "avformat_new_stream",
                              message: "streams must be added before the header is written")
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avformat_new_stream")
        }
        try FFmpegError.check(avcodec_parameters_copy(stream.pointee.codecpar, parameters), "avcodec_parameters_copy")
        stream.pointee.time_base = timeBase.av
        if let frameRate, frameRate.isValid {
            stream.pointee.avg_frame_rate = frameRate.av
            stream.pointee.r_frame_rate = frameRate.av
        }
        streamSourceTimeBases.append(timeBase)
        return Int(stream.pointee.index)
    }

    /// Sets a container metadata entry (`title`, `comment`, `encoder`, ...) before the header is written.
    public func setMetadata(_ key: String, _ value: String) throws {
        try FFmpegError.check(av_dict_set(&context.pointee.metadata, key, value, 0), "av_dict_set \(key)")
    }

    /// The output is a stream that cannot seek back (a pipe, a socket, a network URL): known after
    /// `writeHeader` opened it.
    public var isSeekable: Bool {
        guard let pb = context.pointee.pb else { return false }
        return pb.pointee.seekable & AVIO_SEEKABLE_NORMAL != 0
    }

    /// Tags stream `index` with a display matrix (the rotation tag players honour) turning its picture
    /// `clockwise` degrees; before `writeHeader`.
    public func setDisplayRotation(stream index: Int, clockwise: Double) throws {
        guard index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index] else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "setDisplayRotation stream \(index)")
        }
        try FFmpegError.check(maptrip_stream_set_display_rotation(stream, clockwise), "av_stream_new_side_data displaymatrix")
    }

    /// The stream's time base (final only after `writeHeader`).
    public func timeBase(ofStream index: Int) -> Rational {
        guard index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index]
        else { return Rational(0, 1) }
        return Rational(stream.pointee.time_base)
    }

    /// Opens the file and writes the header. `options` are muxer options, e.g. `["movflags": "+faststart"]`;
    /// unused ones throw.
    public func writeHeader(options: [String: String] = [:]) throws {
        guard !headerWritten else { return }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try FFmpegError.check(avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open \(path)")
            ioOpened = true
        }
        let what = "avformat_write_header \(formatName) \(path)"
        let dictionary = try OptionDictionary(options, for: what)
        try FFmpegError.check(avformat_write_header(context, &dictionary.pointer), what)
        headerWritten = true
        try dictionary.throwIfUnused(what)
    }

    /// Writes a packet whose timestamps are in `timeBase` (the encoder's) to stream `stream`, rescaling them
    /// to the stream's time base (the MP4 muxer picks its own). Takes the packet's data reference.
    public func write(_ packet: Packet, stream: Int, timeBase: Rational) throws {
        let what = "av_interleaved_write_frame \(path)"
        guard headerWritten, !finished, stream >= 0, stream < Int(context.pointee.nb_streams) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: finished ? "already finished" : headerWritten ? "no stream \(stream)"
                                  : "header not written")
        }
        packet.streamIndex = stream
        packet.rescaleTimestamps(from: timeBase, to: self.timeBase(ofStream: stream))
        try FFmpegError.check(av_interleaved_write_frame(context, packet.pointer), what)
    }

    /// Writes the trailer (with +faststart, the MP4 muxer now moves the index to the front) and closes the file.
    public func finish() throws {
        guard !finished else { return }
        guard headerWritten else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "av_write_trailer \(path)",
                              message: "header not written")
        }
        finished = true
        try FFmpegError.check(av_write_trailer(context), "av_write_trailer \(path)")
        if ioOpened {
            ioOpened = false
            try FFmpegError.check(avio_closep(&context.pointee.pb), "avio_closep \(path)")
        }
    }
}
