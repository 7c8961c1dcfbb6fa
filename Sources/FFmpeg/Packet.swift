import CFFmpeg

/// Owns an AVPacket: one unit of compressed data (an encoded picture, a demuxed chunk).
public final class Packet {
    public let pointer: UnsafeMutablePointer<AVPacket>

    public init() throws {
        guard let packet = av_packet_alloc() else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "av_packet_alloc")
        }
        pointer = packet
    }

    /// A packet holding a copy of `bytes` (plus the zeroed padding decoders expect).
    public convenience init(copying bytes: UnsafeRawBufferPointer) throws {
        try self.init()
        guard bytes.count < Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "av_new_packet \(bytes.count) bytes")
        }
        try FFmpegError.check(av_new_packet(pointer, Int32(bytes.count)), "av_new_packet \(bytes.count) bytes")
        if let base = bytes.baseAddress, bytes.count > 0 {
            pointer.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    public func unref() { av_packet_unref(pointer) }

    public var size: Int { Int(pointer.pointee.size) }
    public var data: UnsafeMutablePointer<UInt8>? { pointer.pointee.data }

    /// The bytes, copied out.
    public var bytes: [UInt8] {
        guard let data = pointer.pointee.data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }

    /// nil for AV_NOPTS_VALUE.
    public var pts: Int64? {
        get { pointer.pointee.pts == maptrip_av_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? maptrip_av_nopts_value() }
    }

    public var dts: Int64? {
        get { pointer.pointee.dts == maptrip_av_nopts_value() ? nil : pointer.pointee.dts }
        set { pointer.pointee.dts = newValue ?? maptrip_av_nopts_value() }
    }

    /// In the packet's time base; 0 when unknown.
    public var duration: Int64 {
        get { pointer.pointee.duration }
        set { pointer.pointee.duration = newValue }
    }

    public var isKeyFrame: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }

    /// Converts pts, dts and duration from one time base to another (av_packet_rescale_ts).
    public func rescaleTimestamps(from source: Rational, to destination: Rational) {
        av_packet_rescale_ts(pointer, source.av, destination.av)
    }
}
