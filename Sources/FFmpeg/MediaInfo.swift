import CFFmpeg

/// What a media file holds, as libavformat reads it: the container (format, duration, size, bit rate,
/// tags) and every stream in it. Works on any file libavformat can open, not only maptrip's.
///
///     let info = try MediaInfo(path: "trip.mp4")
///     info.formatName                    // "mp4"
///     info.videoStreams[0].codecName     // "h264"
///     info.videoStreams[0].frameCount    // 360
///
/// Numbers the container states are taken as stated; what it leaves out (frame counts in Matroska or
/// GIF, per-stream durations and bit rates in Matroska) is measured by reading every packet once.
/// Nothing is decoded beyond the few frames libavformat probes: `scanVideo(path:)` decodes the video.
public struct MediaInfo: Equatable, Sendable, Codable {
    /// The path as given.
    public var path: String
    /// The container, short: `mp4`, `mov`, `m4a`, `3gp`, `matroska,webm`, `gif`, `wav`, ... For the
    /// QuickTime/MP4 demuxer the file's major brand picks the name (`qt  ` is `mov`, `isom` is `mp4`);
    /// other demuxers are named as FFmpeg names them.
    public var formatName: String
    /// The demuxer's own name, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    public var demuxerName: String
    /// The demuxer's description, e.g. `QuickTime / MOV`; nil when it has none.
    public var formatLongName: String?
    /// Seconds; nil when unknown.
    public var duration: Double?
    /// Overall bit rate in bits/s (FFmpeg's, else the file size over the duration); nil when unknown.
    public var bitRate: Int?
    /// Bytes; nil when the input is not a file of known size.
    public var fileSize: Int?
    /// The container's tags (`title`, `encoder`, `comment`, `major_brand`, ...), keys as the file spells them.
    public var metadata: [String: String]
    /// Video streams in file order (cover art included, marked `isAttachedPicture`).
    public var videoStreams: [VideoStream]
    /// Audio streams in file order.
    public var audioStreams: [AudioStream]
    /// Everything else: subtitles, data, attachments.
    public var otherStreams: [OtherStream]

    /// One video stream.
    public struct VideoStream: Equatable, Sendable, Codable {
        /// The stream's index in the file.
        public var index: Int
        /// FFmpeg's codec name: `h264`, `hevc`, `vp9`, `prores`, `gif`, ...
        public var codecName: String
        /// e.g. `High`, `Main 10`, `Profile 0`, `4444`; nil when the codec has no profiles or it is unknown.
        public var profileName: String?
        /// The four-character code the container stores (`avc1`, `hvc1`, `ap4h`); nil when it stores none
        /// (Matroska, GIF). Unprintable bytes are written `[n]`, as FFmpeg does.
        public var codecTag: String?
        public var width: Int
        public var height: Int
        /// The stream's average frame rate (else its base rate); nil when unknown.
        public var frameRate: Rational?
        /// e.g. `yuv420p`, `yuva444p10le`; nil when unknown (no decoder for the codec).
        public var pixelFormatName: String?
        /// True when the pixel format has an alpha component, or the stream is flagged as carrying alpha
        /// beside its pictures (VP8/VP9 in WebM: the tag `alpha_mode` is 1, the alpha plane travels as
        /// side data while the pixel format reads `yuv420p`).
        public var hasAlpha: Bool
        /// The number of frames: the container's count when it states one, else the packets counted.
        public var frameCount: Int
        /// Seconds: the stream's own duration, else measured from its packets, else the container's.
        public var duration: Double?
        /// Bits/s: the stream's, else its packet bytes over its duration; nil when unknown.
        public var bitRate: Int?
        public var colorTags: ColorTags
        /// Cover art (AV_DISPOSITION_ATTACHED_PIC): one picture, not a video.
        public var isAttachedPicture: Bool
        /// The stream's tags (`language`, `handler_name`, `alpha_mode`, ...).
        public var metadata: [String: String]

        /// The frame rate as a number; nil when unknown.
        public var fps: Double? { frameRate.map(\.doubleValue) }
        /// nil when unknown or not a name this FFmpeg knows.
        public var pixelFormat: PixelFormat? { pixelFormatName.flatMap { PixelFormat(name: $0) } }
    }

    /// One audio stream.
    public struct AudioStream: Equatable, Sendable, Codable {
        /// The stream's index in the file.
        public var index: Int
        /// FFmpeg's codec name: `aac`, `opus`, `mp3`, `pcm_s16le`, ...
        public var codecName: String
        /// e.g. `LC`, `HE-AAC`; nil when the codec has no profiles or it is unknown.
        public var profileName: String?
        /// The four-character code the container stores (`mp4a`); nil when none.
        public var codecTag: String?
        /// Samples per second.
        public var sampleRate: Int
        public var channels: Int
        /// FFmpeg's name for the channel layout (`mono`, `stereo`, `5.1(side)`); nil when the file only
        /// gives a channel count.
        public var channelLayout: String?
        /// e.g. `fltp`, `s16`; nil when unknown.
        public var sampleFormatName: String?
        /// Seconds: the stream's own duration, else measured from its packets, else the container's.
        public var duration: Double?
        /// Bits/s: the stream's, else its packet bytes over its duration; nil when unknown.
        public var bitRate: Int?
        /// The stream's tags.
        public var metadata: [String: String]
    }

    /// A stream that is neither video nor audio.
    public struct OtherStream: Equatable, Sendable, Codable {
        public var index: Int
        /// `subtitle`, `data`, `attachment` or `unknown`.
        public var mediaType: String
        public var codecName: String
        public var metadata: [String: String]
    }

    /// The container tag `key`, matched without regard to case (Matroska writes `ENCODER`, MP4 `encoder`).
    public func tag(_ key: String) -> String? { Self.lookUp(key, in: metadata) }
    /// The `title` tag.
    public var title: String? { tag("title") }
    /// The `encoder` tag (the muxing library, e.g. `Lavf59.27.100`).
    public var encoder: String? { tag("encoder") }
    /// The `comment` tag.
    public var comment: String? { tag("comment") }

    /// Probes `path` (avformat_open_input, avformat_find_stream_info), and reads its packets once when
    /// the container leaves frame counts, durations or bit rates out. Throws `FFmpegError` when the file
    /// is missing, unreadable or not a media file libavformat knows.
    /// A network URL (`udp://`, `http://`...) that sends nothing within `timeout` seconds is an error,
    /// not a wait without end.
    public init(path: String, timeout: Double = 10) throws {
        let input = try InputFile(path: path, timeout: timeout)
        let context = input.context
        let format = context.pointee.iformat.pointee
        self.path = path
        demuxerName = String(cString: format.name)
        formatLongName = format.long_name.map { String(cString: $0) }
        metadata = Self.dictionary(context.pointee.metadata)
        formatName = Self.shortFormatName(demuxer: demuxerName, metadata: metadata)
        let containerDuration = StatedDuration.container(context)
        duration = containerDuration
        let size = context.pointee.pb.map { avio_size($0) } ?? -1
        fileSize = size >= 0 ? Int(size) : nil
        if context.pointee.bit_rate > 0 {
            bitRate = Int(context.pointee.bit_rate)
        } else if let fileSize, let containerDuration, containerDuration > 0 {
            bitRate = Int((Double(fileSize) * 8 / containerDuration).rounded())
        } else {
            bitRate = nil
        }

        let streams = (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
        // Read the packets only when the container leaves something out.
        let needsPackets = streams.contains { stream in
            let p = stream.pointee.codecpar.pointee
            guard p.codec_type == AVMEDIA_TYPE_VIDEO || p.codec_type == AVMEDIA_TYPE_AUDIO else { return false }
            return (p.codec_type == AVMEDIA_TYPE_VIDEO && stream.pointee.nb_frames <= 0)
                || Self.seconds(stream.pointee.duration, stream.pointee.time_base) == nil || p.bit_rate <= 0
        }
        let counts = needsPackets ? try input.countPackets() : [:]

        var video: [VideoStream] = [], audio: [AudioStream] = [], other: [OtherStream] = []
        for stream in streams {
            let s = stream.pointee
            let p = s.codecpar.pointee
            let index = Int(s.index)
            let tags = Self.dictionary(s.metadata)
            let measured = counts[index]
            let duration = Self.seconds(s.duration, s.time_base) ?? measured?.seconds(s.time_base)
                ?? containerDuration
            let bitRate: Int? = p.bit_rate > 0 ? Int(p.bit_rate)
                : measured.flatMap { m in duration.flatMap { $0 > 0 ? Int((Double(m.bytes) * 8 / $0).rounded()) : nil } }
            let codecName = avcodec_get_name(p.codec_id).map { String(cString: $0) } ?? "unknown"
            let profileName = avcodec_profile_name(p.codec_id, p.profile).map { String(cString: $0) }
            switch p.codec_type {
            case AVMEDIA_TYPE_VIDEO:
                var frameRate = Rational(s.avg_frame_rate)
                if !frameRate.isValid { frameRate = Rational(s.r_frame_rate) }
                let pixelFormat = PixelFormat(rawValue: p.format)
                let formatHasAlpha = pixelFormat.hasAlpha
                let alphaMode = Self.lookUp("alpha_mode", in: tags).map { Int($0) == 1 } ?? false
                video.append(VideoStream(
                    index: index, codecName: codecName, profileName: profileName,
                    codecTag: Self.fourCC(p.codec_tag), width: Int(p.width), height: Int(p.height),
                    frameRate: frameRate.isValid ? frameRate : nil,
                    pixelFormatName: pixelFormat == .unknown ? nil : pixelFormat.name,
                    hasAlpha: formatHasAlpha || alphaMode,
                    frameCount: s.nb_frames > 0 ? Int(s.nb_frames) : measured?.packets ?? 0,
                    duration: duration, bitRate: bitRate,
                    colorTags: ColorTags(parameters: s.codecpar),
                    isAttachedPicture: s.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
                    metadata: tags))
            case AVMEDIA_TYPE_AUDIO:
                var layout: String? = nil
                var ch = p.ch_layout
                if ch.order != AV_CHANNEL_ORDER_UNSPEC {
                    var buffer = [CChar](repeating: 0, count: 128)
                    if av_channel_layout_describe(&ch, &buffer, buffer.count) > 0 {
                        layout = Self.string(buffer)
                    }
                }
                let sampleFormat = av_get_sample_fmt_name(AVSampleFormat(rawValue: p.format))
                audio.append(AudioStream(
                    index: index, codecName: codecName, profileName: profileName,
                    codecTag: Self.fourCC(p.codec_tag), sampleRate: Int(p.sample_rate),
                    channels: Int(p.ch_layout.nb_channels), channelLayout: layout,
                    sampleFormatName: sampleFormat.map { String(cString: $0) },
                    duration: duration, bitRate: bitRate, metadata: tags))
            default:
                let type = av_get_media_type_string(p.codec_type).map { String(cString: $0) } ?? "unknown"
                other.append(OtherStream(index: index, mediaType: type, codecName: codecName, metadata: tags))
            }
        }
        videoStreams = video
        audioStreams = audio
        otherStreams = other
    }

    // MARK: Scanning the video

    /// What `scanVideo(path:)` finds in the best video stream: its packets, as stored, and its pictures,
    /// as decoded.
    public struct VideoScan: Equatable, Sendable, Codable {
        /// The stream's index in the file.
        public var streamIndex: Int
        public var codecName: String
        /// Packets of the stream in the file.
        public var packetCount: Int
        /// Indices (0-based, in file order) of the packets flagged as keyframes (AV_PKT_FLAG_KEY).
        public var keyframeIndices: [Int]
        /// Pictures the decoder returned.
        public var decodedFrames: Int
        /// Decoded pictures by type (AVFrame.pict_type): intra, predicted, bidirectional.
        public var iFrames: Int
        public var pFrames: Int
        public var bFrames: Int
        /// Decoded pictures of any other type (S, SI, SP, BI) or of none.
        public var otherFrames: Int
        /// The bytes of all the stream's packets.
        public var byteCount: Int
        /// Seconds: the packets' durations summed (else their timestamps' span plus one frame, else
        /// the frame count over the frame rate); nil when none of those is known.
        public var duration: Double?
        /// `byteCount` in bits over `duration`; nil when the duration is unknown or 0.
        public var bitRate: Double?

        /// The distance between keyframes when it is the same throughout and the first packet is one;
        /// nil otherwise or with fewer than two keyframes.
        public var keyframeInterval: Int? {
            guard keyframeIndices.count >= 2, keyframeIndices[0] == 0 else { return nil }
            let gap = keyframeIndices[1] - keyframeIndices[0]
            for (a, b) in zip(keyframeIndices, keyframeIndices.dropFirst()) where b - a != gap { return nil }
            return gap
        }
    }

    /// Reads every packet of `path`'s best video stream (av_find_best_stream) and decodes it. Throws
    /// `FFmpegError` as `init(path:)` does, with `streamNotFound` when there is no video stream and
    /// `decoderNotFound` when this FFmpeg cannot decode it.
    public static func scanVideo(path: String) throws -> VideoScan {
        let input = try InputFile(path: path)
        let context = input.context
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        if index < 0 {
            throw FFmpegError(code: index, operation: "av_find_best_stream video \(path)",
                              message: index == FFmpegError.streamNotFound ? "no video stream" : nil)
        }
        guard let stream = context.pointee.streams[Int(index)] else {
            throw FFmpegError(code: FFmpegError.streamNotFound, operation: "av_find_best_stream video \(path)",
                              message: "no video stream")
        }
        let decoder = try Decoder(parameters: stream.pointee.codecpar)
        let packet = try Packet()
        let frame = try Frame()
        let timeBase = stream.pointee.time_base

        var scan = VideoScan(streamIndex: Int(index), codecName: decoder.codecName, packetCount: 0,
                             keyframeIndices: [], decodedFrames: 0, iFrames: 0, pFrames: 0, bFrames: 0,
                             otherFrames: 0, byteCount: 0, duration: nil, bitRate: nil)
        var durations: Int64 = 0, allHaveDurations = true
        var firstPTS: Int64?, lastPTS: Int64?

        func receiveFrames() throws {
            while true {
                switch try decoder.receive(into: frame) {
                case .needsInput, .endOfStream: return
                case .frame:
                    scan.decodedFrames += 1
                    switch frame.pointer.pointee.pict_type {
                    case AV_PICTURE_TYPE_I: scan.iFrames += 1
                    case AV_PICTURE_TYPE_P: scan.pFrames += 1
                    case AV_PICTURE_TYPE_B: scan.bFrames += 1
                    default: scan.otherFrames += 1
                    }
                    frame.unref()
                }
            }
        }

        while true {
            let status = av_read_frame(context, packet.pointer)
            if status == FFmpegError.eof { break }
            try FFmpegError.check(status, "av_read_frame \(path)")
            defer { packet.unref() }
            guard packet.pointer.pointee.stream_index == index else { continue }
            if packet.isKeyFrame { scan.keyframeIndices.append(scan.packetCount) }
            scan.packetCount += 1
            scan.byteCount += packet.size
            if packet.duration > 0 { durations += packet.duration } else { allHaveDurations = false }
            if let pts = packet.pts {
                firstPTS = min(firstPTS ?? pts, pts)
                lastPTS = max(lastPTS ?? pts, pts)
            }
            // A decoder that is full (EAGAIN) takes the packet once its ready frames are received; one
            // that neither takes a packet nor gives a frame is stuck.
            while try !decoder.send(packet) {
                let received = scan.decodedFrames
                try receiveFrames()
                if scan.decodedFrames == received {
                    throw FFmpegError(code: FFmpegError.again, operation: "avcodec_send_packet \(decoder.codecName)")
                }
            }
            try receiveFrames()
        }
        try decoder.send(nil)
        try receiveFrames()

        var frameRate = Rational(stream.pointee.avg_frame_rate)
        if !frameRate.isValid { frameRate = Rational(stream.pointee.r_frame_rate) }
        let tb = Rational(timeBase)
        if scan.packetCount > 0 && allHaveDurations && tb.isValid {
            scan.duration = Double(durations) * tb.doubleValue
        } else if let firstPTS, let lastPTS, tb.isValid, frameRate.isValid {
            scan.duration = Double(lastPTS - firstPTS) * tb.doubleValue + 1 / frameRate.doubleValue
        } else if frameRate.isValid, scan.packetCount > 0 {
            scan.duration = Double(scan.packetCount) / frameRate.doubleValue
        }
        if let duration = scan.duration, duration > 0, duration.isFinite {
            scan.bitRate = Double(scan.byteCount) * 8 / duration
        }
        return scan
    }

    // MARK: Helpers

    /// `value` ticks of `timeBase` in seconds; nil for unknown (AV_NOPTS_VALUE, negative) or 0.
    static func seconds(_ value: Int64, _ timeBase: AVRational) -> Double? {
        guard value > 0, timeBase.num > 0, timeBase.den > 0 else { return nil }
        return Double(value) * Double(timeBase.num) / Double(timeBase.den)
    }

    static func lookUp(_ key: String, in tags: [String: String]) -> String? {
        if let value = tags[key] { return value }
        let lower = key.lowercased()
        return tags.first { $0.key.lowercased() == lower }?.value
    }

    /// The entries of an AVDictionary.
    static func dictionary(_ dictionary: OpaquePointer?) -> [String: String] {
        var result: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result[String(cString: next.pointee.key)] = String(cString: next.pointee.value)
            entry = next
        }
        return result
    }

    /// A codec tag's four characters (first byte first); nil for 0. Unprintable bytes read `[n]`.
    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        var text = ""
        for shift in stride(from: 0, to: 32, by: 8) {
            let byte = UInt8(truncatingIfNeeded: tag >> UInt32(shift))
            if (0x20...0x7e).contains(byte) {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "[\(byte)]"
            }
        }
        return text
    }

    /// The QuickTime/MP4 demuxer serves many brands: name the file by its major brand.
    static func shortFormatName(demuxer: String, metadata: [String: String]) -> String {
        guard demuxer == "mov,mp4,m4a,3gp,3g2,mj2" else { return demuxer }
        guard let brand = metadata["major_brand"]?.trimmingSpaces.lowercased(), !brand.isEmpty else { return "mov" }
        switch brand {
        case "qt": return "mov"
        case "m4a", "m4b", "m4p": return "m4a"
        case "mjp2", "mj2s": return "mj2"
        case _ where brand.hasPrefix("3g2"): return "3g2"
        case _ where brand.hasPrefix("3g"): return "3gp"
        default: return "mp4"
        }
    }

    static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Owns an input AVFormatContext, opened and probed (avformat_open_input, avformat_find_stream_info).
final class InputFile {
    let path: String
    let context: UnsafeMutablePointer<AVFormatContext>

    init(path: String, timeout: Double = 10) throws {
        var opened: UnsafeMutablePointer<AVFormatContext>? = nil
        let options = try OptionDictionary(Self.timeoutOptions(path, seconds: timeout), for: "avformat_open_input \(path)")
        let status = avformat_open_input(&opened, path, nil, &options.pointer)
        if status < 0 {
            let network = Self.scheme(path) != nil
            let message: String? =
                if status == FFmpegError.invalidData { "not a media file, or a damaged one (invalid data found when processing input)" }
                else if network && (status == -EIO || status == -ETIMEDOUT) {
                    "nothing received within \(String(format: "%g", timeout)) s (check the address, and that something is sending to it)"
                } else { nil }
            throw FFmpegError(code: status, operation: "avformat_open_input \(path)", message: message)
        }
        guard let opened else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "avformat_open_input \(path)")
        }
        self.path = path
        self.context = opened
        // Fully initialised: from here a throw runs deinit, which closes the input.
        try FFmpegError.check(avformat_find_stream_info(opened, nil), "avformat_find_stream_info \(path)")
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
    }

    /// A network URL's scheme (`udp`, `http`...), nil for a file path (`file:` included).
    static func scheme(_ path: String) -> String? {
        guard let r = path.range(of: "://") else { return nil }
        let scheme = path[..<r.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme != "file", scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" }) else { return nil }
        return scheme
    }

    /// Options that bound each wait of a network input: `timeout` (microseconds) for the socket
    /// protocols that read it so (UDP, TCP, HTTP, SRT), `rw_timeout` for any protocol; not `timeout`
    /// for RTMP, where it means listening for a connection.
    static func timeoutOptions(_ path: String, seconds: Double) -> [String: String] {
        guard let scheme = scheme(path) else { return [:] }
        let micro = String(Int64(max(0.001, seconds) * 1_000_000))
        return scheme.hasPrefix("rtmp") ? ["rw_timeout": micro] : ["timeout": micro, "rw_timeout": micro]
    }

    /// What the packets of one stream add up to.
    struct PacketCount {
        var packets = 0
        var bytes = 0
        var start: Int64?
        var end: Int64?

        /// From the first timestamp to the end of the last packet; nil when unknown or 0.
        func seconds(_ timeBase: AVRational) -> Double? {
            guard let start, let end, end > start else { return nil }
            return MediaInfo.seconds(end - start, timeBase)
        }
    }

    /// Reads every packet from the current position (av_read_frame), counting them per stream index.
    func countPackets() throws -> [Int: PacketCount] {
        let packet = try Packet()
        var counts: [Int: PacketCount] = [:]
        while true {
            let status = av_read_frame(context, packet.pointer)
            if status == FFmpegError.eof { break }
            try FFmpegError.check(status, "av_read_frame \(path)")
            defer { packet.unref() }
            var count = counts[packet.streamIndex] ?? PacketCount()
            count.packets += 1
            count.bytes += packet.size
            if let pts = packet.pts ?? packet.dts {
                count.start = min(count.start ?? pts, pts)
                count.end = max(count.end ?? pts, pts + max(0, packet.duration))
            }
            counts[packet.streamIndex] = count
        }
        return counts
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        while s.first == " " { s.removeFirst() }
        return String(s)
    }
}

// MARK: Codable for the wrapper's value types, as MediaInfo's JSON shows them

/// Encoded as FFmpeg writes rationals, `"30000/1001"`.
extension Rational: Codable {
    public init(from decoder: any Swift.Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int32(parts[0]), let d = Int32(parts[1]) else {
            throw DecodingError.dataCorruptedError(in: container,
                                                   debugDescription: "expected a rational like \"30/1\", found \"\(text)\"")
        }
        self.init(n, d)
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(numerator)/\(denominator)")
    }
}

/// Encoded by FFmpeg's names, `{"space": "smpte170m", "range": "tv", "primaries": "bt709", "transfer":
/// "bt709"}`; a value FFmpeg has no name for is written as its number.
extension ColorTags: Codable {
    private enum CodingKeys: String, CodingKey { case space, range, primaries, transfer }

    public init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func value(_ key: CodingKeys, _ fromName: (String) -> Int32) throws -> Int32 {
            if let number = try? c.decode(Int32.self, forKey: key) { return number }
            let name = try c.decode(String.self, forKey: key)
            let value = fromName(name)
            guard value >= 0 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c,
                                                       debugDescription: "unknown \(key.rawValue) \"\(name)\"")
            }
            return value
        }
        self.init(space: try value(.space) { av_color_space_from_name($0) },
                  range: try value(.range) { av_color_range_from_name($0) },
                  primaries: try value(.primaries) { av_color_primaries_from_name($0) },
                  transfer: try value(.transfer) { av_color_transfer_from_name($0) })
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func put(_ name: UnsafePointer<CChar>?, _ value: Int32, _ key: CodingKeys) throws {
            if let name { try c.encode(String(cString: name), forKey: key) } else { try c.encode(value, forKey: key) }
        }
        try put(av_color_space_name(AVColorSpace(UInt32(bitPattern: space))), space, .space)
        try put(av_color_range_name(AVColorRange(UInt32(bitPattern: range))), range, .range)
        try put(av_color_primaries_name(AVColorPrimaries(UInt32(bitPattern: primaries))), primaries, .primaries)
        try put(av_color_transfer_name(AVColorTransferCharacteristic(UInt32(bitPattern: transfer))), transfer,
                .transfer)
    }
}
