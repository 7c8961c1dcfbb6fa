import CFFmpeg

/// What a video file says about its (best) video stream.
public struct VideoStreamInfo: Equatable, Sendable {
    public var codecName: String
    /// e.g. "High", "Main"; nil when the codec has no profiles or it is unknown.
    public var profileName: String?
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat
    public var pixelFormatName: String { pixelFormat.name }
    /// The stream's average frame rate (falls back to r_frame_rate).
    public var frameRate: Rational
    /// Stream duration in seconds (falls back to the container's); nil when unknown.
    public var duration: Double?
    /// The container's duration in seconds; nil when unknown.
    public var containerDuration: Double?
    /// The frame count the container states (MP4: number of samples); nil when it does not say.
    public var frameCount: Int?
    public var timeBase: Rational
    public var colorTags: ColorTags
    /// The container format name, e.g. "mov,mp4,m4a,3gp,3g2,mj2".
    public var formatName: String
    /// Degrees the picture is turned clockwise for display, in [0, 360) (the display matrix, a phone's
    /// rotation tag; 0 without one).
    public var rotation: Double = 0
    /// The display matrix mirrors the picture.
    public var mirrored = false
    /// The stream's first timestamp in seconds (0 when unknown): a frame's time in the clip is its pts
    /// less this.
    public var startTime: Double = 0
    /// The file has a sound stream too.
    public var hasAudio = false
}

/// Owns an input AVFormatContext and a decoder for its best video stream: demux and decode a video file.
public final class VideoReader {
    public let path: String
    public let info: VideoStreamInfo
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let streamIndex: Int32
    private let decoder: Decoder
    private let packet: Packet
    private let scaler = Scaler()
    private var inputEnded = false
    private var ended = false

    /// `decoder`: an FFmpeg decoder name to use instead of the default for the stream's codec
    /// (`libvpx-vp9` decodes VP9's alpha channel, which FFmpeg's own vp9 decoder ignores).
    /// `threads`: the decoder's threads (0: the codec chooses; 1: decoded on the caller's thread).
    public init(path: String, decoder decoderName: String? = nil, threads: Int = 0) throws {
        self.path = path
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        try FFmpegError.check(avformat_open_input(&context, path, nil, nil), "avformat_open_input \(path)")
        guard let opened = context else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avformat_open_input \(path)")
        }
        self.context = opened
        do {
            try FFmpegError.check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info \(path)")
            let index = av_find_best_stream(opened, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            try FFmpegError.check(index, "av_find_best_stream video \(path)")
            guard let stream = opened.pointee.streams[Int(index)] else {
                throw FFmpegError(code: FFmpegError.streamNotFound, operation: "av_find_best_stream video \(path)")
            }
            streamIndex = index
            let parameters = stream.pointee.codecpar!
            if let decoderName {
                decoder = try Decoder(name: decoderName, threads: threads) { context in
                    try FFmpegError.check(avcodec_parameters_to_context(context, parameters),
                                          "avcodec_parameters_to_context")
                }
            } else {
                decoder = try Decoder(parameters: parameters, threads: threads)
            }
            packet = try Packet()

            let p = parameters.pointee
            let timeBase = Rational(stream.pointee.time_base)
            var frameRate = Rational(stream.pointee.avg_frame_rate)
            if !frameRate.isValid { frameRate = Rational(stream.pointee.r_frame_rate) }
            let containerDuration = StatedDuration.container(opened)
            let streamDuration = StatedDuration.stream(stream)
            var streamInfo = VideoStreamInfo(
                codecName: avcodec_get_name(p.codec_id).map { String(cString: $0) } ?? "unknown",
                profileName: avcodec_profile_name(p.codec_id, p.profile).map { String(cString: $0) },
                width: Int(p.width), height: Int(p.height),
                pixelFormat: PixelFormat(rawValue: p.format),
                frameRate: frameRate,
                duration: streamDuration ?? containerDuration,
                containerDuration: containerDuration,
                frameCount: stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil,
                timeBase: timeBase,
                colorTags: ColorTags(parameters: parameters),
                formatName: String(cString: opened.pointee.iformat.pointee.name))
            var clockwise = 0.0, mirrored: Int32 = 0
            if maptrip_stream_display_rotation(stream, &clockwise, &mirrored) != 0 {
                streamInfo.rotation = clockwise
                streamInfo.mirrored = mirrored != 0
            }
            let start = stream.pointee.start_time
            if start != maptrip_av_nopts_value() { streamInfo.startTime = Double(start) * timeBase.doubleValue }
            streamInfo.hasAudio = av_find_best_stream(opened, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0) >= 0
            info = streamInfo
        } catch {
            avformat_close_input(&self.context)
            throw error
        }
    }

    deinit { avformat_close_input(&context) }

    /// The next decoded frame (a new Frame, in the stream's pixel format), or nil at the end.
    public func nextFrame() throws -> Frame? {
        let frame = try Frame()
        while !ended {
            switch try decoder.receive(into: frame) {
            case .frame:
                return frame
            case .endOfStream:
                ended = true
            case .needsInput:
                try feed()
            }
        }
        return nil
    }

    /// The next decoded frame converted to BGRA (with the stream's colour tags), or nil at the end.
    public func nextImage() throws -> BGRAImage? {
        guard let frame = try nextFrame() else { return nil }
        return try scaler.bgraImage(from: frame)
    }

    /// The time of a decoded frame in the clip, in seconds from its first frame (nil without a timestamp).
    public func seconds(of frame: Frame) -> Double? {
        guard let pts = frame.bestEffortTimestamp ?? frame.pts else { return nil }
        return Double(pts) * info.timeBase.doubleValue - info.startTime
    }

    /// Moves to the last key frame at or before `seconds` into the clip (from its first frame): the
    /// frames that follow are decoded from there. Only the part of the file from that key frame on is
    /// read, however long the file is.
    public func seek(to seconds: Double) throws {
        guard let context else { return }
        let base = info.timeBase.doubleValue
        let target = base > 0 ? Int64(((max(0, seconds) + info.startTime) / base).rounded(.down)) : 0
        try FFmpegError.check(av_seek_frame(context, streamIndex, target, AVSEEK_FLAG_BACKWARD),
                              "av_seek_frame \(path) to \(seconds) s")
        avcodec_flush_buffers(decoder.context)
        decoder.restart()
        inputEnded = false
        ended = false
    }

    /// Decodes the rest of the file and returns how many frames it held.
    public func countFrames() throws -> Int {
        var count = 0
        while try nextFrame() != nil { count += 1 }
        return count
    }

    /// Reads packets until one of the video stream is sent to the decoder (or the input ends).
    private func feed() throws {
        guard !inputEnded, let context else {
            try decoder.send(nil)
            return
        }
        inputEnded = try decoder.feed(from: context, packet: packet, stream: Int32(streamIndex), path: path)
    }
}
