/// A video file with one video stream: an `Encoder` feeding a `Muxer`.
///
///     let settings = VideoEncoderSettings(width: 1920, height: 1080, fps: 30)
///     let writer = try VideoWriter(path: "out.mp4", settings: settings)
///     let frame = try Frame(width: 1920, height: 1080, pixelFormat: .yuv420p)
///     for n in 0..<frames {
///         try frame.makeWritable()   // the encoder may still hold the previous picture
///         draw(into: frame)
///         try writer.send(frame: frame, pts: Int64(n))
///     }
///     try writer.finish()
///
/// Nothing is removed on failure: a writer dropped without `finish()` leaves a partial file at `path`
/// (write to a temporary path and rename, as MapTripRecord's VideoOutput does).
public final class VideoWriter {
    public let path: String
    public let settings: VideoEncoderSettings
    public private(set) var framesSent = 0
    public private(set) var packetsWritten = 0
    private let encoder: Encoder
    private let muxer: Muxer
    private let stream: Int
    private var lastPTS: Int64?
    private var finished = false

    /// Muxer options used when none are given: `movflags=+faststart` for MP4 and MOV (index first, so
    /// players can start before the whole file has arrived), nothing otherwise.
    public static func defaultMuxerOptions(format: String) -> [String: String] {
        ["mp4", "mov", "ipod", "ismv"].contains(format) ? ["movflags": "+faststart"] : [:]
    }

    /// Opens the encoder, creates the file and writes the header. `rotation`: a display matrix turning
    /// the picture that many degrees clockwise for display (the tag a phone writes).
    public init(path: String, format: String = "mp4", settings: VideoEncoderSettings,
                muxerOptions: [String: String]? = nil, rotation: Double? = nil) throws {
        self.path = path
        self.settings = settings
        muxer = try Muxer(path: path, format: format)
        encoder = try Encoder(video: settings, globalHeader: muxer.needsGlobalHeader)
        stream = try muxer.addStream(from: encoder)
        if let rotation { try muxer.setDisplayRotation(stream: stream, clockwise: rotation) }
        try muxer.writeHeader(options: muxerOptions ?? Self.defaultMuxerOptions(format: format))
    }

    /// The encoder's time base: pts counts frames (1/fps).
    public var timeBase: Rational { encoder.timeBase }
    /// The stream's time base in the file (the MP4 muxer picks its own, e.g. 1/15360 for 30 fps).
    public var streamTimeBase: Rational { muxer.timeBase(ofStream: stream) }

    /// Encodes `frame` shown at `pts` (in frames; must increase). The same Frame may be sent again with a
    /// later pts to repeat a picture; call `frame.makeWritable()` before writing new pixels into it.
    public func send(frame: Frame, pts: Int64) throws {
        guard !finished else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "VideoWriter.send \(path)",
                              message: "the writer is finished")
        }
        if let lastPTS, pts <= lastPTS {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "VideoWriter.send \(path)",
                              message: "pts \(pts) does not follow the previous pts \(lastPTS)")
        }
        frame.pts = pts
        try encoder.encode(frame) { packet in try write(packet) }
        lastPTS = pts
        framesSent += 1
    }

    /// Flushes the encoder, writes the trailer and closes the file. Calling it again does nothing.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        try encoder.encode(nil) { packet in try write(packet) }
        try muxer.finish()
    }

    private func write(_ packet: Packet) throws {
        try muxer.write(packet, stream: stream, timeBase: encoder.timeBase)
        packetsWritten += 1
    }
}
