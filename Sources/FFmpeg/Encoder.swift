import CFFmpeg

/// Owns an encoder (AVCodecContext opened with avcodec_open2): frames in, packets out.
/// Time base: one tick per frame (1/fps); packets come out in that time base.
public final class Encoder {
    public let context: UnsafeMutablePointer<AVCodecContext>
    public let codecName: String
    public let settings: VideoEncoderSettings
    public let timeBase: Rational
    /// One frame in `timeBase` units.
    public let frameDuration: Int64
    private let packet: Packet

    /// Opens a video encoder. `globalHeader`: put the codec's parameter sets in the stream header instead
    /// of every keyframe (`Muxer.needsGlobalHeader` says whether the container wants that, as MP4 does).
    public init(video settings: VideoEncoderSettings, globalHeader: Bool = false) throws {
        let name = settings.codecName
        let codec = try Self.find(name, AVMEDIA_TYPE_VIDEO, role: "a video encoder")
        let size = "\(settings.width)x\(settings.height)"
        guard settings.width > 0, settings.height > 0, settings.width <= 16384, settings.height <= 16384 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "avcodec_open2 \(name)",
                              message: "invalid frame size \(size)")
        }
        guard settings.frameRate.isValid else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "avcodec_open2 \(name)",
                              message: "invalid frame rate \(settings.frameRate)")
        }
        guard settings.pixelFormat != .unknown else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "avcodec_open2 \(name)",
                              message: "no pixel format")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avcodec_alloc_context3 \(name)")
        }
        self.context = context
        self.codecName = name
        self.settings = settings
        self.timeBase = settings.frameRate.inverted
        self.frameDuration = 1
        do {
            packet = try Packet()
        } catch {
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
            throw error
        }

        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = settings.pixelFormat.av
        context.pointee.time_base = timeBase.av
        context.pointee.framerate = settings.frameRate.av
        context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        let gop = (settings.gopSeconds * settings.frameRate.doubleValue).rounded()
        context.pointee.gop_size = gop.isFinite ? Int32(max(1, min(gop, 100_000))) : 1
        context.pointee.thread_count = Int32(clamping: max(0, settings.threads))
        if let bitRate = settings.bitRate { context.pointee.bit_rate = Int64(bitRate) }
        settings.colorTags.apply(to: context)
        if globalHeader {
            context.pointee.flags |= Int32(bitPattern: UInt32(AV_CODEC_FLAG_GLOBAL_HEADER))
        }

        let what = "avcodec_open2 \(name) \(size) \(settings.pixelFormat.name)"
        let options = try OptionDictionary(settings.allOptions, for: what)
        try FFmpegError.check(avcodec_open2(context, codec, &options.pointer), what)
        try options.throwIfUnused(what)
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Sends a frame (nil: flush, no frames may follow) and hands every packet that becomes ready to
    /// `handler`, in the encoder's time base, with its duration set (libx264 leaves it 0; muxers then
    /// make the last frame zero-length). The packet is only valid during the call; the handler may
    /// take its data (the muxer does).
    ///
    /// The encoder may keep a reference to the frame's buffers: call `frame.makeWritable()` before
    /// writing new pixels into a frame that was sent. Re-sending an unchanged frame with a new pts is fine.
    public func encode(_ frame: Frame?, _ handler: (Packet) throws -> Void) throws {
        let what = frame == nil ? "avcodec_send_frame \(codecName) (flush)" : "avcodec_send_frame \(codecName)"
        if let frame {
            guard frame.width == settings.width, frame.height == settings.height,
                  frame.pixelFormat == settings.pixelFormat, frame.data(plane: 0) != nil else {
                throw FFmpegError(
                    code: FFmpegError.invalidArgument, operation: what,
                    message: "frame is \(frame.width)x\(frame.height) \(frame.pixelFormat.name), encoder expects "
                        + "\(settings.width)x\(settings.height) \(settings.pixelFormat.name)")
            }
        }
        try Self.send(frame, to: context, name: codecName, packet: packet, defaultDuration: frameDuration, handler)
    }

    /// The encoder called `name` in this FFmpeg build, which must encode `type` (`role`, "a video
    /// encoder", says it in the error). Shared by the video and audio encoders.
    static func find(_ name: String, _ type: AVMediaType, role: String) throws -> UnsafePointer<AVCodec> {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(code: FFmpegError.encoderNotFound, operation: "avcodec_find_encoder_by_name \(name)",
                              message: "no encoder named \"\(name)\" in this FFmpeg build")
        }
        guard codec.pointee.type == type else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "avcodec_find_encoder_by_name \(name)",
                              message: "\"\(name)\" is not \(role)")
        }
        return codec
    }

    /// avcodec_send_frame (draining and retrying while the encoder is full), then every packet that
    /// became ready to `handler`, its duration set to `defaultDuration` where the codec left it 0.
    /// Shared by the video and audio encoders.
    static func send(_ frame: Frame?, to context: UnsafeMutablePointer<AVCodecContext>, name: String,
                     packet: Packet, defaultDuration: Int64, _ handler: (Packet) throws -> Void) throws {
        let what = frame == nil ? "avcodec_send_frame \(name) (flush)" : "avcodec_send_frame \(name)"
        func drain() throws -> Int {
            var count = 0
            while true {
                let status = avcodec_receive_packet(context, packet.pointer)
                if status == FFmpegError.again || status == FFmpegError.eof { return count }
                try FFmpegError.check(status, "avcodec_receive_packet \(name)")
                defer { packet.unref() }
                if packet.duration <= 0 { packet.duration = defaultDuration }
                count += 1
                try handler(packet)
            }
        }
        while true {
            let status = avcodec_send_frame(context, frame?.pointer)
            if status == FFmpegError.again {
                // Full: drain, then send again. No packet to drain would mean the codec is stuck.
                if try drain() == 0 { throw FFmpegError(code: status, operation: what) }
                continue
            }
            try FFmpegError.check(status, what)
            break
        }
        _ = try drain()
    }
}
