import CFFmpeg

/// Durations as a demuxer states them, in seconds; nil where it states none.
enum StatedDuration {
    /// The container's (`AVFormatContext.duration`, in `AV_TIME_BASE` units).
    static func container(_ context: UnsafeMutablePointer<AVFormatContext>) -> Double? {
        context.pointee.duration > 0 ? Double(context.pointee.duration) / Double(AV_TIME_BASE) : nil
    }

    /// A stream's, in its time base.
    static func stream(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        let timeBase = Rational(stream.pointee.time_base)
        return stream.pointee.duration > 0 && timeBase.isValid ? Double(stream.pointee.duration) * timeBase.doubleValue : nil
    }
}
