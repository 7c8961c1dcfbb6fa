import Foundation
import FFmpeg
import YUV

/// The encoder end of the pipeline: BGRA frames (Cairo ARGB32) in, a video file out.
///
/// Writes to a hidden temporary file beside the target (`.trip.mp4.maptrip-<pid>-<random>.tmp`) and
/// renames it onto the target only in `finish()`: an existing output is untouched until the new one is
/// complete, and a failed, cancelled or abandoned recording leaves no file behind.
///
/// Frames are converted with libyuv (BT.601, limited range) into one reusable yuv420p frame and encoded
/// with libx264 by default; the stream is tagged to match (smpte170m / tv / bt709 / bt709).
/// Not thread-safe: use it from one thread (or one isolation domain) at a time.
public final class VideoOutput {
    /// How to encode. `preset`, `crf` and `profile` are codec options: set them to nil for a codec
    /// that has no such option.
    public struct Settings: Equatable, Sendable {
        /// FFmpeg encoder name.
        public var codec: String
        public var preset: String?
        public var crf: Double?
        public var profile: String?
        /// FFmpeg muxer name ("mp4").
        public var container: String

        public init(codec: String = "libx264", preset: String? = "veryfast", crf: Double? = 20,
                    profile: String? = "high", container: String = "mp4") {
            self.codec = codec
            self.preset = preset
            self.crf = crf
            self.profile = profile
            self.container = container
        }
    }

    /// Where the finished video goes.
    public let url: URL
    /// Where it is written until `finish()`.
    public let temporaryURL: URL
    public let width: Int
    public let height: Int
    public let fps: Int
    public let settings: Settings
    /// Frames sent so far (written and repeated).
    public private(set) var framesWritten = 0

    private var writer: VideoWriter?
    private let frame: Frame
    private var hasPicture = false
    private var done = false

    /// Opens the encoder and creates the temporary file (and the target's directory if missing).
    /// Throws FFmpegError.
    public init(url: URL, width: Int, height: Int, fps: Int, settings: Settings = Settings()) throws {
        let what = "VideoOutput \(url.path) \(width)x\(height)@\(fps)"
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "width and height must be positive and even (4:2:0 video)")
        }
        guard fps > 0, fps <= 1000 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: what,
                              message: "frame rate must be 1...1000")
        }
        self.url = url
        self.width = width
        self.height = height
        self.fps = fps
        self.settings = settings
        let directory = url.deletingLastPathComponent()
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        temporaryURL = directory.appendingPathComponent(
            ".\(url.lastPathComponent).maptrip-\(ProcessInfo.processInfo.processIdentifier)-\(random).tmp")
        frame = try Frame(width: width, height: height, pixelFormat: .yuv420p)
        frame.colorTags = .bt601Limited

        try Self.createDirectory(directory)
        do {
            writer = try VideoWriter(path: temporaryURL.path, format: settings.container,
                                     settings: Self.encoderSettings(width: width, height: height, fps: fps,
                                                                    settings: settings))
        } catch {
            Self.remove(temporaryURL)
            throw error
        }
    }

    deinit {
        if !done { cancel() }
    }

    /// The encoder settings a VideoOutput uses: I420 from libyuv, tagged BT.601 limited range.
    public static func encoderSettings(width: Int, height: Int, fps: Int, settings: Settings) -> VideoEncoderSettings {
        VideoEncoderSettings(
            codecName: settings.codec, width: width, height: height, frameRate: Rational(Int32(clamping: fps), 1),
            pixelFormat: .yuv420p, preset: settings.preset, crf: settings.crf, profile: settings.profile,
            colorTags: .bt601Limited)
    }

    /// Converts one BGRA picture (`height` rows of `stride` bytes, at least `width * 4` each) and encodes
    /// it as the next frame.
    public func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        let writer = try openWriter("write")
        // The encoder may still reference the previous picture's buffers: get our own before writing.
        try frame.makeWritable()
        guard let y = frame.data(plane: 0), let u = frame.data(plane: 1), let v = frame.data(plane: 2) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "VideoOutput.write",
                              message: "frame has no planes")
        }
        try YUV.argbToI420(src: bgra, srcStride: stride,
                           y: y, yStride: frame.linesize(plane: 0),
                           u: u, uStride: frame.linesize(plane: 1),
                           v: v, vStride: frame.linesize(plane: 2),
                           width: width, height: height)
        hasPicture = true
        try writer.send(frame: frame, pts: Int64(framesWritten))
        framesWritten += 1
    }

    /// Encodes the last picture again as the next frame (a still stretch: no conversion, no copy).
    public func repeatLast() throws {
        let writer = try openWriter("repeatLast")
        guard hasPicture else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "VideoOutput.repeatLast",
                              message: "no frame written yet")
        }
        try writer.send(frame: frame, pts: Int64(framesWritten))
        framesWritten += 1
    }

    /// Flushes the encoder, completes the file and renames it onto `url` (replacing an existing file).
    /// On failure the temporary file is removed and the target is left as it was.
    public func finish() throws {
        let writer = try openWriter("finish")
        done = true
        self.writer = nil
        do {
            try writer.finish()
            if rename(temporaryURL.path, url.path) != 0 {
                let code = errno
                throw FFmpegError(code: -code, operation: "rename \(temporaryURL.path) -> \(url.path)",
                                  message: String(cString: strerror(code)))
            }
        } catch {
            Self.remove(temporaryURL)
            throw error
        }
    }

    /// Abandons the recording: closes and removes the temporary file. The target is not touched.
    public func cancel() {
        done = true
        writer = nil
        Self.remove(temporaryURL)
    }

    private func openWriter(_ operation: String) throws -> VideoWriter {
        guard !done, let writer else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "VideoOutput.\(operation)",
                              message: "the output is already finished or cancelled")
        }
        return writer
    }

    private static func createDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            let posix = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)
                .flatMap { $0.domain == NSPOSIXErrorDomain ? Int32($0.code) : nil } ?? EIO
            throw FFmpegError(code: -posix, operation: "create directory \(directory.path)",
                              message: String(cString: strerror(posix)))
        }
    }

    private static func remove(_ url: URL) {
        unlink(url.path)
    }
}
