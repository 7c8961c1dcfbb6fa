import Foundation
import FFmpeg
import MapTripSupport

/// The sound of a video: a file (anything libavformat reads), where in it to start, how loud, how to end.
public struct AudioSpec: Equatable, Sendable {
    /// The audio (or video) file whose best audio stream is used.
    public var file: URL
    /// Linear gain: 1 leaves the level as it is, 0.5 halves the amplitude.
    public var volume: Double = 1
    /// Seconds into the file where the video's sound starts.
    public var offset: Double = 0
    /// Seconds of linear fade-out at the end of the video, the last 50 ms of which are silent. 0: none.
    public var fadeOut: Double = 1.5
    /// When the file ends before the video: start it again from its beginning (true) or be silent (false).
    public var loop: Bool = false

    public init(file: URL, volume: Double = 1, offset: Double = 0, fadeOut: Double = 1.5, loop: Bool = false) {
        self.file = file
        self.volume = volume
        self.offset = offset
        self.fadeOut = fadeOut
        self.loop = loop
    }
}

/// The audio codec of an output: AAC for MP4 and MOV, Opus for WebM.
public enum AudioCodec: String, Sendable, CaseIterable {
    case aac, opus

    /// The FFmpeg encoder: FFmpeg's native `aac`, or `libopus`.
    public var encoderName: String {
        switch self {
        case .aac: return "aac"
        case .opus: return "libopus"
        }
    }

    /// Bits per second for stereo.
    public var bitRate: Int {
        switch self {
        case .aac: return 192_000
        case .opus: return 128_000
        }
    }

    /// The codec for a container (muxer name): `mp4`, `mov`, `ipod` take AAC; `webm` and `matroska` Opus.
    /// nil for containers without sound (image sequences, GIF).
    public init?(containerFormat: String) {
        switch containerFormat {
        case "mp4", "mov", "ipod", "ismv": self = .aac
        case "webm", "matroska": self = .opus
        default: return nil
        }
    }
}

/// Why an audio track cannot be made, in one line naming the file: `cannot use audio file 'x.mp3': no such file`.
public struct AudioTrackError: LocalizedError, Equatable, Sendable, CustomStringConvertible, DiagnosticConvertible {
    /// The file as the spec gave it (relative paths stay relative).
    public let file: String
    public let reason: String

    public var errorDescription: String? { "cannot use audio file '\(file)': \(reason)" }
    public var description: String { errorDescription! }
}

/// Turns an `AudioSpec` into the audio stream of a video: decodes the file from `offset`, converts it to
/// 48000 Hz stereo, applies `volume` and the fade-out, cuts it to the video's duration (followed by silence
/// or the file again when it is shorter), and encodes it (AAC or Opus) into a `Muxer`.
///
///     let track = try AudioTrack(spec: spec, codec: .aac, duration: 12.5, globalHeader: muxer.needsGlobalHeader)
///     try track.addStream(to: muxer)          // with the video stream, before the header
///     try muxer.writeHeader()
///     for n in frames { ...write video frame n...; try track.write(upTo: Double(n + 1) / fps, to: muxer) }
///     try track.finish(to: muxer)             // before muxer.finish()
///
/// Exactly `sampleCount` = round(duration x 48000) samples are encoded (the codec adds its priming, which
/// the container tells decoders to drop).
public final class AudioTrack {
    public static let sampleRate = 48000
    public static let channelCount = 2
    /// The last 50 ms are silent when there is a fade-out.
    public static let silentTail = 0.05
    /// Samples produced per step (100 ms).
    private static let chunk = 4800

    public let spec: AudioSpec
    public let codec: AudioCodec
    public let duration: Double
    /// Samples per channel the track has in all: round(duration x 48000).
    public let sampleCount: Int64
    /// Samples per channel encoded so far.
    public private(set) var samplesWritten: Int64 = 0
    /// The stream index in the muxer (after `addStream`).
    public private(set) var streamIndex: Int?
    /// How many times the file was started again (loop).
    public private(set) var loopCount = 0

    private let reader: AudioReader
    private let encoder: AudioEncoder
    private let name: String
    private let fadeSamples: Int64
    private let silentSamples: Int64
    /// Samples read at init (to know there are any), handed out first.
    private var carry: [[Float]]
    private var sourceEnded = false
    private var samplesThisPass: Int64 = 0
    private var finished = false

    /// Opens and checks the file and opens the encoder: every problem with the file shows here, before any
    /// video is rendered. `duration`: the video's, in seconds. `globalHeader`: `muxer.needsGlobalHeader`.
    /// Throws `AudioTrackError`.
    public init(spec: AudioSpec, codec: AudioCodec, duration: Double, globalHeader: Bool) throws {
        self.spec = spec
        self.codec = codec
        self.duration = duration
        let name = spec.file.isFileURL ? spec.file.relativePath : spec.file.absoluteString
        self.name = name
        func fail(_ reason: String) -> AudioTrackError { AudioTrackError(file: name, reason: reason) }

        guard spec.volume.isFinite, spec.volume >= 0 else { throw fail("volume must be 0 or more, not \(spec.volume)") }
        guard spec.offset.isFinite, spec.offset >= 0 else { throw fail("offset must be 0 or more, not \(spec.offset)") }
        guard spec.fadeOut.isFinite, spec.fadeOut >= 0 else {
            throw fail("fadeOut must be 0 or more, not \(spec.fadeOut)")
        }
        guard duration.isFinite, duration > 0, duration < 1e7 else {
            throw fail("the video's duration \(duration) s is not a positive number")
        }
        let rate = Double(Self.sampleRate)
        sampleCount = max(1, Int64((duration * rate).rounded()))
        fadeSamples = min(sampleCount, Int64((spec.fadeOut * rate).rounded()))
        silentSamples = min(fadeSamples, Int64((Self.silentTail * rate).rounded()))

        let path = spec.file.path
        if spec.file.isFileURL {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw fail("no such file (a scene's audio path is relative to the scene's folder)")
            }
            guard !isDirectory.boolValue else { throw fail("it is a folder (name the sound file in it)") }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw fail("permission denied (let this user read the file)")
            }
        }
        do {
            reader = try AudioReader(path: spec.file.isFileURL ? path : spec.file.absoluteString,
                                     sampleRate: Self.sampleRate, channels: Self.channelCount)
            if spec.offset > 0 { try reader.seek(to: spec.offset) }
            carry = try reader.read(Self.chunk)
        } catch let error as FFmpegError {
            throw fail(Self.reason(error))
        }
        if carry[0].isEmpty {
            if spec.offset > 0 {
                let length = reader.info.duration.map { String(format: " (it lasts %.2f s)", $0) } ?? ""
                throw fail(String(format: "the offset %.2f s is past the end of the audio", spec.offset) + length)
            }
            throw fail("it holds no audio samples")
        }
        do {
            encoder = try AudioEncoder(name: codec.encoderName, sampleRate: Self.sampleRate,
                                       channels: Self.channelCount, bitRate: codec.bitRate,
                                       globalHeader: globalHeader)
        } catch let error as FFmpegError {
            throw fail("cannot open the \(codec.encoderName) encoder: \(error.message)")
        }
    }

    /// An FFmpeg error as a reason about the file.
    private static func reason(_ error: FFmpegError) -> String {
        if error.code == FFmpegError.streamNotFound {
            return "it holds no sound, only pictures or data (use an MP3, AAC, FLAC, WAV or Opus file)"
        }
        if error.code == FFmpegError.decoderNotFound {
            return "no decoder for its audio (\(error.message); use an MP3, AAC, FLAC, WAV or Opus file)"
        }
        if error.code == FFmpegError.invalidData || error.operation.hasPrefix("avformat_open_input")
            || error.operation.hasPrefix("avformat_find_stream_info") {
            return "not a media file FFmpeg can read (\(error.message); use an MP3, AAC, FLAC, WAV or Opus file, "
                + "or run with --verbose to see FFmpeg's account)"
        }
        return error.message
    }

    /// Adds the audio stream to `muxer` (before its header is written) and remembers its index.
    public func addStream(to muxer: Muxer) throws {
        guard streamIndex == nil else { return }
        streamIndex = try muxer.addStream(codecContext: encoder.context, name: encoder.codecName,
                                          timeBase: encoder.timeBase)
    }

    /// Encodes and writes the audio up to `seconds` (clamped to the duration): call it after each video frame
    /// with that frame's end time, so the muxer gets audio and video in step.
    public func write(upTo seconds: Double, to muxer: Muxer) throws {
        guard let streamIndex else {
            throw AudioTrackError(file: name, reason: "no stream in the muxer (call addStream first)")
        }
        guard !finished else { throw AudioTrackError(file: name, reason: "the audio track is finished") }
        guard seconds.isFinite else { return }
        let end = min(sampleCount, max(0, Int64((seconds * Double(Self.sampleRate)).rounded())))
        while samplesWritten < end {
            let count = Int(min(Int64(Self.chunk), end - samplesWritten))
            var samples = try produce(count)
            applyGain(&samples, from: samplesWritten)
            try encoder.encode(samples) { try muxer.write($0, stream: streamIndex, timeBase: encoder.timeBase) }
            samplesWritten += Int64(count)
        }
    }

    /// Writes the rest up to `duration` exactly and flushes the encoder. Calling it again does nothing.
    public func finish(to muxer: Muxer) throws {
        guard !finished else { return }
        try write(upTo: duration + 1, to: muxer)
        guard let streamIndex else { return }
        finished = true
        try encoder.flush { try muxer.write($0, stream: streamIndex, timeBase: encoder.timeBase) }
    }

    /// The next `count` samples of the source (from `offset`, repeated or followed by silence).
    private func produce(_ count: Int) throws -> [[Float]] {
        var out = [[Float]](repeating: [Float](repeating: 0, count: count), count: Self.channelCount)
        var filled = 0
        while filled < count && !sourceEnded {
            let chunk: [[Float]]
            if !carry[0].isEmpty {
                let n = min(count - filled, carry[0].count)
                chunk = carry.map { Array($0[0..<n]) }
                for c in 0..<carry.count { carry[c].removeFirst(n) }
            } else {
                do {
                    chunk = try reader.read(count - filled)
                } catch let error as FFmpegError {
                    throw AudioTrackError(file: name, reason: Self.reason(error))
                }
            }
            let n = chunk[0].count
            if n == 0 {
                // The file ended. Loop: from its start again (unless a whole pass gave nothing).
                if spec.loop && samplesThisPass > 0 {
                    do {
                        try reader.seek(to: 0)
                    } catch let error as FFmpegError {
                        throw AudioTrackError(file: name, reason: Self.reason(error))
                    }
                    samplesThisPass = 0
                    loopCount += 1
                } else {
                    sourceEnded = true
                }
                continue
            }
            for c in 0..<Self.channelCount {
                out[c].withUnsafeMutableBufferPointer { dst in
                    chunk[c].withUnsafeBufferPointer { src in
                        (dst.baseAddress! + filled).update(from: src.baseAddress!, count: n)
                    }
                }
            }
            filled += n
            samplesThisPass += Int64(n)
        }
        return out
    }

    /// Volume and fade-out for samples starting at track position `start`; clips to -1...1.
    private func applyGain(_ samples: inout [[Float]], from start: Int64) {
        let volume = Float(spec.volume)
        let ramp = fadeSamples - silentSamples
        for c in 0..<samples.count {
            samples[c].withUnsafeMutableBufferPointer { buffer in
                for i in 0..<buffer.count {
                    let remaining = sampleCount - (start + Int64(i))  // samples to the end, this one included
                    var gain = volume
                    if remaining <= silentSamples {
                        gain = 0
                    } else if remaining <= fadeSamples, ramp > 0 {
                        gain *= Float(Double(remaining - silentSamples) / Double(ramp))
                    }
                    buffer[i] = min(1, max(-1, buffer[i] * gain))
                }
            }
        }
    }
}
