import CFFmpeg

/// The one error type of the FFmpeg wrapper: an AVERROR code, FFmpeg's text for it (av_strerror) and what
/// was being done, e.g. `avcodec_open2 libx264: Invalid argument`.
public struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The (negative) AVERROR code.
    public let code: Int32
    /// FFmpeg's message for `code` (av_strerror), or a more precise one given by the wrapper.
    public let message: String
    /// What was being done: the C function and its subject, e.g. `avio_open /out/trip.mp4`.
    public let operation: String

    public init(code: Int32, operation: String, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.message = message ?? FFmpegError.string(for: code)
    }

    /// `operation: message`
    public var description: String { "\(operation): \(message)" }

    /// FFmpeg's text for an AVERROR code.
    public static func string(for code: Int32) -> String {
        let size = Int(maptrip_av_error_max_string_size())
        var buffer = [CChar](repeating: 0, count: size)
        if av_strerror(code, &buffer, size) < 0 {
            return "Error number \(code) occurred"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // Codes worth comparing against.
    public static let eof = maptrip_averror_eof()
    public static let again = maptrip_averror_eagain()
    public static let invalidArgument = maptrip_averror_einval()
    public static let outOfMemory = maptrip_averror_enomem()
    public static let invalidData = maptrip_averror_invaliddata()
    public static let encoderNotFound = maptrip_averror_encoder_not_found()
    public static let decoderNotFound = maptrip_averror_decoder_not_found()
    public static let muxerNotFound = maptrip_averror_muxer_not_found()
    public static let optionNotFound = maptrip_averror_option_not_found()
    public static let streamNotFound = maptrip_averror_stream_not_found()

    /// Throws when `status` is negative; returns it otherwise (many calls return a count on success).
    @discardableResult
    public static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
        if status < 0 { throw FFmpegError(code: status, operation: operation()) }
        return status
    }
}
