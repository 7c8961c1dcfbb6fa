import ArgumentParser
import FFmpeg
import Foundation
import MapTripScene
import MapTripSupport

/// `maptrip info`: what any video (or audio) file holds, as libavformat reads it: container, duration,
/// size, bit rate and one line per stream, or the whole `MediaInfo` as JSON.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe video files: container, duration, size, bit rate, and every stream.",
        discussion: """
            Reads any file FFmpeg can open, not only maptrip's. Frame counts are the container's when \
            it states them (MP4, MOV), else counted from the packets (WebM, MKV, GIF). A file that \
            cannot be read gets one error line; the others are still described, and the exit status is 1.
            """)

    @Argument(help: "The files to describe.")
    var files: [String]

    @Flag(help: "Print one JSON array (an object per readable file) instead of text.")
    var json = false

    @Flag(help: "Show FFmpeg's own log while reading.")
    var verbose = false

    @Option(help: "How long a network URL (udp://, http://...) may send nothing before it is an error, in seconds.")
    var timeout: Double = 10

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be more than 0 and at most 3600 seconds, not \(timeout)")
        }
    }

    func run() throws {
        FFmpegLog.level = verbose ? FFmpegLog.info : FFmpegLog.quiet
        var infos: [MediaInfo] = []
        var failed = false
        for file in files {
            do {
                // A FIFO would block the open until a writer came, /dev/zero never end: not opened.
                if !file.contains("://"), case .special = FileKind(path: file) {
                    throw FileError(path: file, message: "\(FileKind.special.notAFile!) (name a video file)")
                }
                let info = try MediaInfo(path: file, timeout: timeout)
                infos.append(info)
                if !json {
                    if infos.count > 1 { print("") }
                    print(Self.text(info))
                }
            } catch {
                failed = true
                _ = fail(error as? FileError ?? FileError(path: file, error: error))
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]  // one line, as `plan --json`
            do {
                print(String(decoding: try encoder.encode(infos), as: UTF8.self))
            } catch {
                throw fail(error)
            }
        }
        if failed { throw ExitCode.failure }
    }

    /// A file that could not be read: `FILE: what is wrong`.
    struct FileError: Error, CustomStringConvertible, DiagnosticConvertible {
        var path: String
        var message: String
        var description: String { diagnostics[0].description }
        var diagnostics: [Diagnostic] { [Diagnostic(message: message, file: path)] }

        init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        /// FFmpegError's message alone: the path already says which file was being opened.
        init(path: String, error: Error) {
            self.init(path: path, message: (error as? FFmpegError)?.message ?? "\(error)")
        }
    }

    // MARK: Text

    /// The readable block for one file: its path, then indented lines.
    static func text(_ info: MediaInfo) -> String {
        var container = "container: \(info.formatName)"
        container += info.duration.map { ", \(seconds($0))" } ?? ", duration unknown"
        if let size = info.fileSize { container += ", \(bytes(size))" }
        if let rate = info.bitRate { container += ", \(bitRate(rate))" }
        var lines = [info.path, "  " + container]
        // Streams in file order, whatever their kind.
        var streams: [(Int, String)] = []
        streams += info.videoStreams.map { ($0.index, video($0)) }
        streams += info.audioStreams.map { ($0.index, audio($0)) }
        streams += info.otherStreams.map { ($0.index, "\($0.mediaType): \($0.codecName)") }
        lines += streams.sorted { $0.0 < $1.0 }.map { "  " + $0.1 }
        if info.videoStreams.isEmpty && info.audioStreams.isEmpty && info.otherStreams.isEmpty {
            lines.append("  no streams")
        }
        if let title = info.title { lines.append("  title: \(title)") }
        return lines.joined(separator: "\n")
    }

    /// `video: h264 (High) 1920x1080 30 fps yuv420p, 360 frames`
    static func video(_ v: MediaInfo.VideoStream) -> String {
        var line = "video: \(v.codecName)"
        if let profile = v.profileName { line += " (\(profile))" }
        line += " \(v.width)x\(v.height)"
        if let fps = v.fps, !v.isAttachedPicture { line += " \(number(fps)) fps" }
        if let format = v.pixelFormatName { line += " \(format)" }
        if v.hasAlpha { line += ", alpha" }
        if v.isAttachedPicture {
            line += ", cover art"
        } else {
            line += v.frameCount == 1 ? ", 1 frame" : ", \(v.frameCount) frames"
        }
        return line
    }

    /// `audio: aac (LC) 48000 Hz stereo, 12.00 s`
    static func audio(_ a: MediaInfo.AudioStream) -> String {
        var line = "audio: \(a.codecName)"
        if let profile = a.profileName { line += " (\(profile))" }
        line += " \(a.sampleRate) Hz"
        // A plain WAV gives only a count: 1 and 2 channels are mono and stereo, as players take them.
        let layout = a.channelLayout
            ?? (a.channels == 1 ? "mono" : a.channels == 2 ? "stereo" : "\(a.channels) channels")
        line += " \(layout)"
        if let d = a.duration { line += ", \(seconds(d))" }
        return line
    }

    /// `12.00 s`
    static func seconds(_ s: Double) -> String { String(format: "%.2f s", s) }

    /// `30`, `29.97`, `12.5`: at most two decimals, no trailing zeros.
    static func number(_ x: Double) -> String {
        var s = String(format: "%.2f", x)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// `812 B`, `45.2 kB`, `12.3 MB`, `1.25 GB` (powers of 1000).
    static func bytes(_ n: Int) -> String {
        let x = Double(n)
        if n < 1000 { return "\(n) B" }
        if x < 1e6 { return String(format: "%.1f kB", x / 1e3) }
        if x < 1e9 { return String(format: "%.1f MB", x / 1e6) }
        return String(format: "%.2f GB", x / 1e9)
    }

    /// `96 kb/s`, `8.13 Mb/s`.
    static func bitRate(_ bits: Int) -> String {
        let x = Double(bits)
        if x < 1e6 { return String(format: "%.0f kb/s", x / 1e3) }
        return String(format: "%.2f Mb/s", x / 1e6)
    }
}
