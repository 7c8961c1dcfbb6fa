import CFFmpeg

/// Owns a decoder (AVCodecContext opened with avcodec_open2): packets in, frames out.
public final class Decoder {
    public let context: UnsafeMutablePointer<AVCodecContext>
    public let codecName: String
    private var draining = false

    /// A decoder for a demuxed stream's parameters. `threads` 0 lets the codec choose.
    public convenience init(parameters: UnsafePointer<AVCodecParameters>, threads: Int = 0) throws {
        try self.init(codecID: parameters.pointee.codec_id, threads: threads) { context in
            try FFmpegError.check(avcodec_parameters_to_context(context, parameters), "avcodec_parameters_to_context")
        }
    }

    /// A decoder by FFmpeg decoder name (`png`, `mjpeg`, `webp`, `h264`, ...).
    public convenience init(name: String, threads: Int = 1) throws {
        try self.init(name: name, threads: threads, configure: { _ in })
    }

    convenience init(name: String, threads: Int,
                     configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        guard let codec = avcodec_find_decoder_by_name(name) else {
            throw FFmpegError(code: FFmpegError.decoderNotFound, operation: "avcodec_find_decoder_by_name \(name)",
                              message: "no decoder named \"\(name)\" in this FFmpeg build")
        }
        try self.init(codec: codec, threads: threads, configure: configure)
    }

    convenience init(codecID: AVCodecID, threads: Int,
                     configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        guard let codec = avcodec_find_decoder(codecID) else {
            let name = avcodec_get_name(codecID).map { String(cString: $0) } ?? "\(codecID.rawValue)"
            throw FFmpegError(code: FFmpegError.decoderNotFound, operation: "avcodec_find_decoder \(name)")
        }
        try self.init(codec: codec, threads: threads, configure: configure)
    }

    private init(codec: UnsafePointer<AVCodec>, threads: Int,
                 configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        let name = String(cString: codec.pointee.name)
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avcodec_alloc_context3 \(name)")
        }
        self.context = context
        self.codecName = name
        try configure(context)
        context.pointee.thread_count = Int32(clamping: max(0, threads))
        try FFmpegError.check(avcodec_open2(context, codec, nil), "avcodec_open2 \(name)")
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// After a flush (avcodec_flush_buffers, as a seek does): the decoder takes packets again.
    func restart() { draining = false }

    /// Sends a packet; nil starts draining (flush: the remaining frames come out, then end of stream).
    /// Returns false when the decoder wants frames received first (EAGAIN).
    @discardableResult
    public func send(_ packet: Packet?) throws -> Bool {
        if packet == nil {
            if draining { return true }
            draining = true
        }
        let status = avcodec_send_packet(context, packet?.pointer)
        if status == FFmpegError.again { return false }
        try FFmpegError.check(status, "avcodec_send_packet \(codecName)")
        return true
    }

    /// Reads `input`'s packets into `packet` until one of stream `stream` is sent to this decoder
    /// (false), or the input ends (true: the decoder is then drained). A packet the decoder refuses
    /// as invalid data goes to `skipInvalid` and the reading goes on (nil: the error is thrown).
    /// `path` names the input in errors.
    func feed(from input: UnsafeMutablePointer<AVFormatContext>, packet: Packet, stream: Int32, path: String,
              skipInvalid: ((FFmpegError) -> Void)? = nil) throws -> Bool {
        while true {
            let status = av_read_frame(input, packet.pointer)
            if status == FFmpegError.eof {
                try send(nil)
                return true
            }
            try FFmpegError.check(status, "av_read_frame \(path)")
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == stream else { continue }
            do {
                // The decoder said it needs input, so EAGAIN here would be a codec bug.
                if try !send(packet) {
                    throw FFmpegError(code: FFmpegError.again, operation: "avcodec_send_packet \(codecName)")
                }
            } catch let error as FFmpegError where error.code == FFmpegError.invalidData && skipInvalid != nil {
                skipInvalid?(error)
                continue
            }
            return false
        }
    }

    public enum Output { case frame, needsInput, endOfStream }

    /// Receives the next decoded frame into `frame` (which is unreferenced first).
    public func receive(into frame: Frame) throws -> Output {
        let status = avcodec_receive_frame(context, frame.pointer)
        if status == FFmpegError.again { return .needsInput }
        if status == FFmpegError.eof { return .endOfStream }
        try FFmpegError.check(status, "avcodec_receive_frame \(codecName)")
        return .frame
    }
}
