import CFFmpeg

/// Owns an input AVFormatContext and reads the compressed packets of its best video stream, without
/// decoding: the demuxing half of a remux (`Muxer.addStream(copying:)` is the other half).
public final class PacketReader {
    public let path: String
    /// The opened file (closed when the reader goes).
    private let input: InputFile
    private var context: UnsafeMutablePointer<AVFormatContext> { input.context }
    private let stream: UnsafeMutablePointer<AVStream>
    /// The video stream's index in the file.
    public let streamIndex: Int

    /// Opens `path` and finds its best video stream (throws `streamNotFound` when it has none).
    public init(path: String) throws {
        self.path = path
        input = try InputFile(path: path)
        let index = av_find_best_stream(input.context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        try FFmpegError.check(index, "av_find_best_stream video \(path)")
        guard let stream = input.context.pointee.streams[Int(index)] else {
            throw FFmpegError(code: FFmpegError.streamNotFound, operation: "av_find_best_stream video \(path)")
        }
        self.stream = stream
        streamIndex = Int(index)
    }

    /// The video stream's codec parameters (for `Muxer.addStream(copying:)`).
    public var parameters: UnsafePointer<AVCodecParameters> { UnsafePointer(stream.pointee.codecpar) }
    /// The time base the packets' timestamps are in.
    public var timeBase: Rational { Rational(stream.pointee.time_base) }
    /// The average frame rate (else the base rate).
    public var frameRate: Rational {
        let average = Rational(stream.pointee.avg_frame_rate)
        return average.isValid ? average : Rational(stream.pointee.r_frame_rate)
    }
    public var codecName: String {
        avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
    }
    public var width: Int { Int(parameters.pointee.width) }
    public var height: Int { Int(parameters.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(rawValue: parameters.pointee.format) }
    /// The codec's global header (H.264 avcC: the SPS and PPS), empty when there is none.
    public var extradata: [UInt8] {
        let p = parameters.pointee
        guard let data = p.extradata, p.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
    }
    /// How many streams of other kinds (sound, subtitles, data) the file holds beside the video.
    public var otherStreamCount: Int { max(0, Int(context.pointee.nb_streams) - 1) }
    /// The container's tags (`title`, `comment`, ...).
    public var metadata: [String: String] { MediaInfo.dictionary(context.pointee.metadata) }

    /// Reads the next packet of the video stream into `packet` (its timestamps in `timeBase`); false
    /// at the end of the file. The packet must be unreferenced (or handed to a muxer) before the next call.
    public func read(into packet: Packet) throws -> Bool {
        while true {
            let status = av_read_frame(context, packet.pointer)
            if status == FFmpegError.eof { return false }
            try FFmpegError.check(status, "av_read_frame \(path)")
            if packet.streamIndex == streamIndex { return true }
            packet.unref()
        }
    }
}
