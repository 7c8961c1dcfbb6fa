import CFFmpeg

/// FFmpeg's global log level (av_log_set_level); FFmpeg logs to stderr.
public enum FFmpegLog {
    public static let quiet: Int32 = AV_LOG_QUIET
    public static let error: Int32 = AV_LOG_ERROR
    public static let warning: Int32 = AV_LOG_WARNING
    public static let info: Int32 = AV_LOG_INFO
    public static let verbose: Int32 = AV_LOG_VERBOSE
    public static let debug: Int32 = AV_LOG_DEBUG

    /// Process-wide: set it once, early (e.g. from the command line's --verbose / --quiet).
    public static var level: Int32 {
        get { av_log_get_level() }
        set { av_log_set_level(newValue) }
    }
}
