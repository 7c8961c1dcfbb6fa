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

/// A sound placed on the trip's timeline: `file` played from `offset` seconds into it for `duration`
/// seconds (nil: to its end), starting `start` seconds into the trip, at linear `gain`. `ducksMusic`: the
/// music ducks under it (a place's voice). Clips' and a presenter's sound are such sounds too.
public struct TimedSound: Equatable, Sendable {
    public var file: URL
    public var start: Double
    public var offset: Double
    public var duration: Double?
    public var gain: Double
    public var ducksMusic: Bool

    public init(file: URL, start: Double, offset: Double = 0, duration: Double? = nil, gain: Double = 1,
                ducksMusic: Bool = false) {
        self.file = file
        self.start = start
        self.offset = offset
        self.duration = duration
        self.gain = gain
        self.ducksMusic = ducksMusic
    }
}

/// How far and how fast the music goes down under a sound that ducks it: `gain` decibels (0: not at all),
/// reached over the `attack` seconds before the sound starts, kept to its end, and left over the `release`
/// seconds after it, linearly in decibels.
public struct Ducking: Equatable, Sendable {
    public var gain: Double
    public var attack: Double
    public var release: Double

    public init(gain: Double = -12, attack: Double = 0.25, release: Double = 0.5) {
        self.gain = gain
        self.attack = attack
        self.release = release
    }
}

/// The sound of a video: music for the whole of it (optional) and sounds at given times over it.
public struct SoundMix: Equatable, Sendable {
    public var music: AudioSpec?
    public var sounds: [TimedSound]
    public var ducking: Ducking

    public init(music: AudioSpec? = nil, sounds: [TimedSound] = [], ducking: Ducking = Ducking()) {
        self.music = music
        self.sounds = sounds
        self.ducking = ducking
    }

    public var isEmpty: Bool { music == nil && sounds.isEmpty }
    /// Every file the mix reads.
    public var files: [URL] { (music.map { [$0.file] } ?? []) + sounds.map(\.file) }
}

/// Turns a `SoundMix` into the audio stream of a video (or of a stretch of it, `render --from --to`),
/// at 48000 Hz stereo:
/// - the music: decoded from its `offset`, scaled by its `volume`, faded out over the video's last
///   `fadeOut` seconds (the last 50 ms silent), followed by silence or the file again when shorter;
///   under each sound that ducks it, lowered by `ducking.gain` dB (linearly in dB over `attack` before
///   the sound and `release` after it);
/// - each timed sound: decoded from its `offset`, scaled by its gain, placed at its start (rounded to
///   the nearest sample), cut after its duration;
/// - summed, then through a soft limiter: samples within +-0.8 (-1.9 dBFS) pass unchanged, louder ones
///   bend smoothly (tanh) towards +-1 and never reach it, so a sum of loud sources does not clip.
/// The mix is computed from the trip's first sample whatever stretch is encoded (samples before `start`
/// are mixed and dropped), so a stretch's sound is the same samples as the whole video's there.
///
///     let track = try AudioTrack(mix: mix, codec: .aac, duration: 12.5, globalHeader: muxer.needsGlobalHeader)
///     try track.addStream(to: muxer)          // with the video stream, before the header
///     try muxer.writeHeader()
///     for n in frames { ...write video frame n...; try track.write(upTo: Double(n + 1) / fps, to: muxer) }
///     try track.finish(to: muxer)             // before muxer.finish()
///
/// Exactly `sampleCount` samples are encoded (the codec adds its priming, which the container tells
/// decoders to drop).
public final class AudioTrack {
    public static let sampleRate = 48000
    public static let channelCount = 2
    /// The last 50 ms are silent when there is a fade-out.
    public static let silentTail = 0.05
    /// The limiter's knee: samples within it pass unchanged.
    public static let limiterKnee: Float = 0.8
    /// Samples produced per step (100 ms).
    private static let chunk = 4800

    public let mix: SoundMix
    /// The music, if any.
    public var spec: AudioSpec? { mix.music }
    public let codec: AudioCodec
    /// The whole video's duration (the fade-out ends there).
    public let duration: Double
    /// Samples per channel the track has in all: from `start` to `end`, rounded to samples.
    public let sampleCount: Int64
    /// Samples per channel encoded so far.
    public private(set) var samplesWritten: Int64 = 0
    /// The stream index in the muxer (after `addStream`).
    public private(set) var streamIndex: Int?
    /// How many times the music file was started again (loop).
    public var loopCount: Int { music?.loopCount ?? 0 }

    private let encoder: AudioEncoder
    private let name: String
    private let music: SoundSource?
    private let cues: [(source: SoundSource, span: Range<Int64>, gain: Float)]
    /// Where the music ducks, in samples of the video, and the attack and release in samples.
    private let ducks: [Range<Int64>]
    private let attack: Int64, release: Int64
    private let tripSamples: Int64
    private let fadeSamples: Int64
    private let silentSamples: Int64
    /// The video's sample where the track starts, and the next sample mixed.
    private let firstSample: Int64
    private var mixed: Int64 = 0
    private var finished = false

    /// The whole video's sound from a music file alone.
    public convenience init(spec: AudioSpec, codec: AudioCodec, duration: Double, globalHeader: Bool) throws {
        try self.init(mix: SoundMix(music: spec), codec: codec, duration: duration, globalHeader: globalHeader)
    }

    /// Opens and checks every file and opens the encoder: every problem with a file shows here, before any
    /// video is rendered. `duration`: the whole video's, in seconds; `start` and `end`: the stretch of it
    /// this track holds (default: all of it). `globalHeader`: `muxer.needsGlobalHeader`.
    /// Throws `AudioTrackError`.
    public init(mix: SoundMix, codec: AudioCodec, duration: Double, start: Double = 0, end: Double? = nil,
                globalHeader: Bool) throws {
        self.mix = mix
        self.codec = codec
        self.duration = duration
        let first = mix.music?.file ?? mix.sounds.first?.file
        let name = first.map(SoundSource.displayName) ?? "(none)"
        self.name = name
        func fail(_ reason: String) -> AudioTrackError { AudioTrackError(file: name, reason: reason) }
        guard duration.isFinite, duration > 0, duration < 1e7 else {
            throw fail("the video's duration \(duration) s is not a positive number")
        }
        let end = end ?? duration
        guard start.isFinite, end.isFinite, start >= 0, end > start, end <= duration + 1e-9 else {
            throw fail("the stretch \(start) s to \(end) s is not within the video's \(duration) s")
        }
        let rate = Double(Self.sampleRate)
        func samples(_ seconds: Double) -> Int64 { Int64((seconds * rate).rounded()) }
        tripSamples = max(1, samples(duration))
        firstSample = min(samples(start), tripSamples - 1)
        sampleCount = max(1, min(tripSamples, samples(end)) - firstSample)
        let fadeOut = mix.music?.fadeOut ?? 0
        fadeSamples = min(tripSamples, samples(fadeOut))
        silentSamples = min(fadeSamples, samples(Self.silentTail))

        if let spec = mix.music {
            guard spec.volume.isFinite, spec.volume >= 0 else { throw fail("volume must be 0 or more, not \(spec.volume)") }
            guard spec.fadeOut.isFinite, spec.fadeOut >= 0 else {
                throw fail("fadeOut must be 0 or more, not \(spec.fadeOut)")
            }
            music = try SoundSource(file: spec.file, offset: spec.offset, loop: spec.loop)
        } else {
            music = nil
        }
        var cues: [(source: SoundSource, span: Range<Int64>, gain: Float)] = []
        var ducks: [Range<Int64>] = []
        for sound in mix.sounds {
            let file = SoundSource.displayName(sound.file)
            guard sound.start.isFinite, sound.start >= 0, sound.gain.isFinite, sound.gain >= 0,
                  sound.duration.map({ $0.isFinite && $0 > 0 }) ?? true else {
                throw AudioTrackError(file: file, reason: "its start \(sound.start) s, gain \(sound.gain) or duration "
                                      + "\(sound.duration.map { "\($0) s" } ?? "(to its end)") is out of range")
            }
            let source = try SoundSource(file: sound.file, offset: sound.offset, loop: false)
            let begin = samples(sound.start)
            let length = sound.duration.map(samples) ?? source.remainingSamples.map { Int64($0) } ?? (Int64.max / 4)
            let span = begin..<(begin + max(0, length))
            cues.append((source, span, Float(sound.gain)))
            if sound.ducksMusic, !span.isEmpty { ducks.append(span) }
        }
        self.cues = cues
        self.ducks = ducks
        guard mix.ducking.gain.isFinite, mix.ducking.gain <= 0, mix.ducking.attack.isFinite, mix.ducking.attack >= 0,
              mix.ducking.release.isFinite, mix.ducking.release >= 0 else {
            throw fail("the ducking (\(mix.ducking.gain) dB, \(mix.ducking.attack) s, \(mix.ducking.release) s) is out of range")
        }
        attack = samples(mix.ducking.attack)
        release = samples(mix.ducking.release)
        do {
            encoder = try AudioEncoder(name: codec.encoderName, sampleRate: Self.sampleRate,
                                       channels: Self.channelCount, bitRate: codec.bitRate,
                                       globalHeader: globalHeader)
        } catch let error as FFmpegError {
            throw fail("cannot open the \(codec.encoderName) encoder: \(error.message)")
        }
    }

    /// Adds the audio stream to `muxer` (before its header is written) and remembers its index.
    public func addStream(to muxer: Muxer) throws {
        guard streamIndex == nil else { return }
        streamIndex = try muxer.addStream(codecContext: encoder.context, name: encoder.codecName,
                                          timeBase: encoder.timeBase)
    }

    /// Encodes and writes the audio up to `seconds` of the track (clamped to its length): call it after each
    /// video frame with that frame's end time, so the muxer gets audio and video in step.
    public func write(upTo seconds: Double, to muxer: Muxer) throws {
        guard let streamIndex else {
            throw AudioTrackError(file: name, reason: "no stream in the muxer (call addStream first)")
        }
        guard !finished else { throw AudioTrackError(file: name, reason: "the audio track is finished") }
        guard seconds.isFinite else { return }
        // What comes before the stretch is mixed (the sources move on) and dropped.
        while mixed < firstSample {
            _ = try produce(Int(min(Int64(Self.chunk), firstSample - mixed)))
        }
        let end = min(sampleCount, max(0, Int64((seconds * Double(Self.sampleRate)).rounded())))
        while samplesWritten < end {
            let count = Int(min(Int64(Self.chunk), end - samplesWritten))
            let samples = try produce(count)
            try encoder.encode(samples) { try muxer.write($0, stream: streamIndex, timeBase: encoder.timeBase) }
            samplesWritten += Int64(count)
        }
    }

    /// Writes the rest up to the track's end exactly and flushes the encoder. Calling it again does nothing.
    public func finish(to muxer: Muxer) throws {
        guard !finished else { return }
        try write(upTo: duration + 1, to: muxer)
        guard let streamIndex else { return }
        finished = true
        try encoder.flush { try muxer.write($0, stream: streamIndex, timeBase: encoder.timeBase) }
    }

    /// The next `count` samples of the mix, from the video's sample `mixed`.
    private func produce(_ count: Int) throws -> [[Float]] {
        let start = mixed
        mixed += Int64(count)
        var out: [[Float]]
        if let music {
            out = try music.read(count)
            let gains = (0..<count).map { musicGain(at: start + Int64($0)) }
            for c in 0..<out.count { for i in 0..<count { out[c][i] *= gains[i] } }
        } else {
            out = [[Float]](repeating: [Float](repeating: 0, count: count), count: Self.channelCount)
        }
        let range = start..<(start + Int64(count))
        for cue in cues where cue.span.overlaps(range) {
            let from = max(range.lowerBound, cue.span.lowerBound), to = min(range.upperBound, cue.span.upperBound)
            let samples = try cue.source.read(Int(to - from))
            let at = Int(from - start)
            for c in 0..<out.count {
                for i in 0..<samples[c].count { out[c][at + i] += samples[c][i] * cue.gain }
            }
        }
        let knee = Self.limiterKnee, room = 1 - knee
        for c in 0..<out.count {
            for i in 0..<count where abs(out[c][i]) > knee {
                let x = out[c][i]
                let bent = knee + room * Float(tanh(Double((abs(x) - knee) / room)))
                out[c][i] = x < 0 ? -bent : bent
            }
        }
        return out
    }

    /// The music's gain at sample `position` of the video: volume, fade-out, ducking.
    private func musicGain(at position: Int64) -> Float {
        var gain = Float(mix.music?.volume ?? 1)
        let remaining = tripSamples - position  // samples to the end, this one included
        if remaining <= silentSamples {
            return 0
        } else if remaining <= fadeSamples, fadeSamples > silentSamples {
            gain *= Float(Double(remaining - silentSamples) / Double(fadeSamples - silentSamples))
        }
        let depth = duckDepth(at: position)
        if depth > 0 { gain *= Float(pow(10, mix.ducking.gain * depth / 20)) }
        return gain
    }

    /// How far the music is ducked at `position`: 1 under a sound that ducks it, 0 far from any, linear in
    /// between over the attack (before the sound) and the release (after it).
    func duckDepth(at position: Int64) -> Double {
        var depth = 0.0
        for span in ducks {
            if span.contains(position) { return 1 }
            if position < span.lowerBound, attack > 0, position >= span.lowerBound - attack {
                depth = max(depth, Double(position - (span.lowerBound - attack)) / Double(attack))
            } else if position >= span.upperBound, release > 0, position < span.upperBound + release {
                depth = max(depth, Double(span.upperBound + release - position) / Double(release))
            }
        }
        return depth
    }
}

/// One file of a mix, decoded at 48000 Hz stereo from an offset, handed out in order: `read(n)` gives
/// exactly n samples, followed by silence (or the file again, `loop`) once it ends.
private final class SoundSource {
    let reader: AudioReader
    let name: String
    let loop: Bool
    private(set) var loopCount = 0
    /// Samples read at init (to know there are any), handed out first.
    private var carry: [[Float]]
    private var ended = false
    private var samplesThisPass: Int64 = 0

    /// The file as messages name it (relative paths stay relative).
    static func displayName(_ file: URL) -> String { file.isFileURL ? file.relativePath : file.absoluteString }

    init(file: URL, offset: Double, loop: Bool) throws {
        let name = Self.displayName(file)
        self.name = name
        self.loop = loop
        func fail(_ reason: String) -> AudioTrackError { AudioTrackError(file: name, reason: reason) }
        guard offset.isFinite, offset >= 0 else { throw fail("offset must be 0 or more, not \(offset)") }
        let path = file.path
        if file.isFileURL {
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
            reader = try AudioReader(path: file.isFileURL ? path : file.absoluteString,
                                     sampleRate: AudioTrack.sampleRate, channels: AudioTrack.channelCount)
            if offset > 0 { try reader.seek(to: offset) }
            carry = try reader.read(4800)
        } catch let error as FFmpegError {
            throw fail(Self.reason(error))
        }
        if carry[0].isEmpty {
            if offset > 0 {
                let length = reader.info.duration.map { String(format: " (it lasts %.2f s)", $0) } ?? ""
                throw fail(String(format: "the offset %.2f s is past the end of the audio", offset) + length)
            }
            throw fail("it holds no audio samples")
        }
        self.offset = offset
    }

    private let offset: Double

    /// Samples from the offset to the file's end, as the file states its length (nil: unknown).
    var remainingSamples: Int? {
        reader.info.duration.map { Int((max(0, $0 - offset) * Double(AudioTrack.sampleRate)).rounded()) }
    }

    /// An FFmpeg error as a reason about the file.
    static func reason(_ error: FFmpegError) -> String { AudioTrackError.reason(error) }

    /// The next `count` samples (from the offset, repeated or followed by silence).
    func read(_ count: Int) throws -> [[Float]] {
        var out = [[Float]](repeating: [Float](repeating: 0, count: count), count: AudioTrack.channelCount)
        var filled = 0
        while filled < count && !ended {
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
                if loop && samplesThisPass > 0 {
                    do {
                        try reader.seek(to: 0)
                    } catch let error as FFmpegError {
                        throw AudioTrackError(file: name, reason: Self.reason(error))
                    }
                    samplesThisPass = 0
                    loopCount += 1
                } else {
                    ended = true
                }
                continue
            }
            for c in 0..<AudioTrack.channelCount {
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
}

extension AudioTrackError {
    /// An FFmpeg error met reading a sound file, as a reason about the file (what to use instead).
    public static func reason(_ error: FFmpegError) -> String {
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
}
