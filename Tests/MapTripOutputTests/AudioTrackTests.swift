import Foundation
import Testing
import TestSupport
import FFmpeg
@testable import MapTripOutput

private func temporaryDirectory() throws -> URL { try TemporaryFolder.make("audiotrack-tests") }

private func sine(_ frequency: Double, seconds: Double, rate: Int, amplitude: Float = 0.5) -> [Float] {
    let count = Int((seconds * Double(rate)).rounded())
    return (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// A stereo WAV at 44100 Hz: `seconds` of 440 Hz, then `seconds` of 880 Hz, amplitude 0.5.
private func writeTwoTones(to url: URL, seconds: Double) throws {
    let tone = sine(440, seconds: seconds, rate: 44100) + sine(880, seconds: seconds, rate: 44100)
    try AudioFileWriter.write([tone, tone], sampleRate: 44100, to: url.path)
}

private let rate = 48000
private func index(_ seconds: Double) -> Int { Int(seconds * Double(rate)) }

private func rms(_ samples: [Float], _ from: Double, _ to: Double) -> Double {
    let slice = samples[index(from)..<min(samples.count, index(to))]
    guard !slice.isEmpty else { return 0 }
    return (slice.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(slice.count)).squareRoot()
}

/// Upward zero crossings (interpolated, in seconds) with a little hysteresis.
private func crossings(_ samples: [Float], _ from: Double, _ to: Double) -> [Double] {
    var result: [Double] = []
    var armed = false
    let range = index(from)..<min(samples.count, index(to))
    for i in range.dropFirst() {
        let a = samples[i - 1], b = samples[i]
        if a < -0.01 { armed = true }
        if armed, a < 0, b >= 0 {
            result.append((Double(i - 1) + Double(-a / (b - a))) / Double(rate))
            armed = false
        }
    }
    return result
}

/// Frequency in Hz between `from` and `to` seconds (0 for silence).
private func frequency(_ samples: [Float], _ from: Double, _ to: Double) -> Double {
    let c = crossings(samples, from, to)
    guard c.count >= 2 else { return 0 }
    return Double(c.count - 1) / (c.last! - c.first!)
}

/// When the tone goes from 440 to 880 Hz (searching between `from` and `to`): the first period shorter
/// than 1/660 s.
private func changeTime(_ samples: [Float], _ from: Double, _ to: Double) -> Double? {
    let c = crossings(samples, from, to)
    for (a, b) in zip(c, c.dropFirst()) where b - a < 1.0 / 660 { return a }
    return nil
}

/// Writes `spec` as an audio-only file (MP4 with AAC or WebM with Opus), calling `write(upTo:)` once per
/// 30 fps video frame as a recording would, and decodes it back (48000 Hz stereo).
private func render(_ spec: AudioSpec, codec: AudioCodec, duration: Double, in dir: URL) throws
    -> (track: AudioTrack, samples: [[Float]], reader: AudioReader) {
    let format = codec == .aac ? "mp4" : "webm"
    let path = dir.appendingPathComponent("out-\(UUID().uuidString).\(format)").path
    let muxer = try Muxer(path: path, format: format)
    let track = try AudioTrack(spec: spec, codec: codec, duration: duration, globalHeader: muxer.needsGlobalHeader)
    try track.addStream(to: muxer)
    try muxer.writeHeader()
    let frames = Int((duration * 30).rounded(.up))
    for n in 0..<frames { try track.write(upTo: Double(n + 1) / 30, to: muxer) }
    try track.finish(to: muxer)
    try muxer.finish()
    let reader = try AudioReader(path: path)
    return (track, try reader.readAll(), reader)
}

@Suite("MapTripOutput: AudioTrack")
struct AudioTrackTests {
    /// Offset, cut, fade-out and the exact length, in both codecs.
    @Test(arguments: [AudioCodec.aac, .opus])
    func offsetFadeAndDuration(codec: AudioCodec) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tones = dir.appendingPathComponent("tones.wav")
        try writeTwoTones(to: tones, seconds: 2)  // 440 Hz until 2 s, then 880 Hz until 4 s
        let spec = AudioSpec(file: tones, offset: 1, fadeOut: 0.5)  // the change comes 1 s into the video
        let duration = 2.5
        let (track, samples, reader) = try render(spec, codec: codec, duration: duration, in: dir)

        #expect(reader.info.codecName == (codec == .aac ? "aac" : "opus"))
        #expect(reader.info.sampleRate == 48000 && reader.info.channelCount == 2)
        #expect(track.sampleCount == 120_000 && track.samplesWritten == 120_000)
        let decoded = Double(samples[0].count) / 48000
        #expect(abs(decoded - duration) <= 1.0 / 30, "decoded \(decoded) s of \(duration) s")
        if let stated = reader.info.duration { #expect(abs(stated - duration) <= 1.0 / 30, "container says \(stated) s") }

        for channel in samples {
            #expect(abs(frequency(channel, 0.1, 0.9) - 440) < 2, "\(frequency(channel, 0.1, 0.9)) Hz before the change")
            #expect(abs(frequency(channel, 1.1, 1.9) - 880) < 2, "\(frequency(channel, 1.1, 1.9)) Hz after the change")
            let change = try #require(changeTime(channel, 0.5, 1.5))
            #expect(abs(change - 1.0) < 0.004, "the tone changes at \(change) s, expected 1.0 s")
            #expect(abs(rms(channel, 0.1, 0.9) - 0.354) < 0.02, "level \(rms(channel, 0.1, 0.9))")
            // Fade: from 2.0 s (full) down to 2.45 s (silent); at 2.25 s the gain is 0.2 / 0.45.
            #expect(abs(rms(channel, 2.23, 2.27) / 0.354 - 0.2 / 0.45) < 0.06, "mid-fade level \(rms(channel, 2.23, 2.27))")
            let tail = rms(channel, duration - 0.05, duration)
            #expect(tail < 0.003, "the last 50 ms have RMS \(tail)")
            #expect(rms(channel, duration - 0.1, duration - 0.05) > 0.003, "the fade ends 50 ms before the end")
        }
    }

    @Test func volumeScalesTheLevel() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tones = dir.appendingPathComponent("tones.wav")
        try writeTwoTones(to: tones, seconds: 2)
        let full = try render(AudioSpec(file: tones), codec: .aac, duration: 2, in: dir).samples
        let half = try render(AudioSpec(file: tones, volume: 0.5), codec: .aac, duration: 2, in: dir).samples
        let quiet = try render(AudioSpec(file: tones, volume: 0.1), codec: .aac, duration: 2, in: dir).samples
        let reference = rms(full[0], 0.1, 0.4)
        #expect(abs(reference - 0.354) < 0.02)
        #expect(abs(rms(half[0], 0.1, 0.4) / reference - 0.5) < 0.02, "\(rms(half[0], 0.1, 0.4))")
        #expect(abs(rms(quiet[1], 0.1, 0.4) / reference - 0.1) < 0.01, "\(rms(quiet[1], 0.1, 0.4))")
    }

    /// A 2 s file started 0.5 s in, in a 4 s video: the rest of the file, then silence; with loop, the file
    /// again from its start (440 Hz at 1.5 s, 880 Hz at 2.5 s).
    @Test(arguments: [false, true])
    func shortFileIsFollowedBySilenceOrRepeated(loop: Bool) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tones = dir.appendingPathComponent("short.wav")
        try writeTwoTones(to: tones, seconds: 1)  // 440 Hz until 1 s, 880 Hz until 2 s
        let spec = AudioSpec(file: tones, offset: 0.5, fadeOut: 0.3, loop: loop)
        let (track, samples, _) = try render(spec, codec: .aac, duration: 4, in: dir)
        #expect(track.samplesWritten == 192_000)
        #expect(abs(Double(samples[0].count) / 48000 - 4) <= 1.0 / 30)
        let channel = samples[0]
        #expect(abs(frequency(channel, 0.05, 0.45) - 440) < 2)
        #expect(abs(frequency(channel, 0.55, 1.45) - 880) < 2)
        #expect(abs((changeTime(channel, 0.2, 0.8) ?? 0) - 0.5) < 0.004)
        if loop {
            #expect(track.loopCount == 2)
            #expect(abs(frequency(channel, 1.55, 2.45) - 440) < 2, "\(frequency(channel, 1.55, 2.45)) Hz")
            #expect(abs(frequency(channel, 2.55, 3.45) - 880) < 2, "\(frequency(channel, 2.55, 3.45)) Hz")
            #expect(abs((changeTime(channel, 2.2, 2.8) ?? 0) - 2.5) < 0.004)
            #expect(abs(rms(channel, 1.6, 2.4) - 0.354) < 0.02)
        } else {
            #expect(track.loopCount == 0)
            #expect(rms(channel, 1.55, 3.9) < 0.002, "after the file: RMS \(rms(channel, 1.55, 3.9))")
        }
        #expect(rms(channel, 3.95, 4) < 0.003)
    }

    /// With a video stream in the same MP4, as a recording makes it: audio written after each video frame;
    /// both streams last the video's duration (within a frame).
    @Test func interleavesWithVideo() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tones = dir.appendingPathComponent("tones.wav")
        try writeTwoTones(to: tones, seconds: 2)
        let path = dir.appendingPathComponent("video.mp4").path
        let muxer = try Muxer(path: path, format: "mp4")
        let settings = VideoEncoderSettings(width: 160, height: 120, fps: 30)
        let video = try Encoder(video: settings, globalHeader: muxer.needsGlobalHeader)
        let videoStream = try muxer.addStream(from: video)
        let track = try AudioTrack(spec: AudioSpec(file: tones, offset: 1.5), codec: .aac, duration: 2,
                                   globalHeader: muxer.needsGlobalHeader)
        try track.addStream(to: muxer)
        try muxer.writeHeader(options: ["movflags": "+faststart"])
        let frame = try Frame(width: 160, height: 120, pixelFormat: .yuv420p)
        for plane in 0..<3 {
            let rows = plane == 0 ? 120 : 60
            memset(try #require(frame.data(plane: plane)), 128, frame.linesize(plane: plane) * rows)
        }
        for n in 0..<60 {
            frame.pts = Int64(n)
            try video.encode(frame) { try muxer.write($0, stream: videoStream, timeBase: video.timeBase) }
            try track.write(upTo: Double(n + 1) / 30, to: muxer)
        }
        try video.encode(nil) { try muxer.write($0, stream: videoStream, timeBase: video.timeBase) }
        try track.finish(to: muxer)
        try muxer.finish()

        let videoReader = try VideoReader(path: path)
        #expect(try videoReader.countFrames() == 60)
        let audioReader = try AudioReader(path: path)
        #expect(audioReader.info.streamIndex == 1)
        let samples = try audioReader.readAll()[0]
        #expect(abs(Double(samples.count) / 48000 - 2) <= 1.0 / 30, "\(samples.count) samples")
        #expect(abs(frequency(samples, 0.1, 0.45) - 440) < 2)
        #expect(abs(frequency(samples, 0.55, 1.45) - 880) < 2)
        #expect(abs((changeTime(samples, 0.2, 0.8) ?? 0) - 0.5) < 0.004)
    }

    @Test func zeroFadeOutCutsAtFullLevel() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tones = dir.appendingPathComponent("tones.wav")
        try writeTwoTones(to: tones, seconds: 2)
        let samples = try render(AudioSpec(file: tones, fadeOut: 0), codec: .opus, duration: 1, in: dir).samples
        #expect(abs(rms(samples[0], 0.9, 0.98) - 0.354) < 0.02)
    }

    @Test func unusableFilesFailAtInitWithAClearMessage() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func failure(_ spec: AudioSpec, duration: Double = 5) -> AudioTrackError? {
            #expect(throws: AudioTrackError.self) {
                try AudioTrack(spec: spec, codec: .aac, duration: duration, globalHeader: true)
            }
        }

        let missing = dir.appendingPathComponent("music.mp3")
        let noFile = failure(AudioSpec(file: missing))
        #expect(noFile?.errorDescription == "cannot use audio file '\(missing.path)': no such file (a scene's audio path is "
                + "relative to the scene's folder)")
        let folder = URL(fileURLWithPath: dir.path, isDirectory: true)
        let relative = failure(AudioSpec(file: URL(fileURLWithPath: "music.mp3", relativeTo: folder)))
        #expect(relative?.localizedDescription == "cannot use audio file 'music.mp3': no such file (a scene's audio path is "
                + "relative to the scene's folder)")

        // Garbage (the same bytes every run, so no run can happen on something that probes as audio) and text.
        let garbage = dir.appendingPathComponent("garbage.mp3")
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: garbage)
        let text = dir.appendingPathComponent("notes.txt")
        try Data("these are not the sounds you are looking for\n".utf8).write(to: text)
        for file in [garbage, text] {
            let error = failure(AudioSpec(file: file))
            let message = error?.errorDescription ?? ""
            #expect(message.hasPrefix("cannot use audio file '\(file.path)': not a media file FFmpeg can read ("),
                    "\(message)")
            #expect(!message.contains("\n"))
        }

        let image = dir.appendingPathComponent("picture.png")
        try ImageEncoder.png(BGRAImage(width: 16, height: 16)).write(to: image)
        #expect(failure(AudioSpec(file: image))?.errorDescription
                == "cannot use audio file '\(image.path)': it holds no sound, only pictures or data (use an MP3, AAC, FLAC, WAV or Opus file)")

        #expect(failure(AudioSpec(file: dir))?.reason == "it is a folder (name the sound file in it)")

        let tones = dir.appendingPathComponent("tones.wav")
        try writeTwoTones(to: tones, seconds: 1)
        let pastEnd = failure(AudioSpec(file: tones, offset: 3))
        #expect(pastEnd?.reason.contains("past the end") == true, "\(String(describing: pastEnd))")
        #expect(failure(AudioSpec(file: tones, volume: -1))?.reason.contains("volume") == true)
        #expect(failure(AudioSpec(file: tones, offset: .nan))?.reason.contains("offset") == true)
        #expect(failure(AudioSpec(file: tones, fadeOut: -2))?.reason.contains("fadeOut") == true)
        #expect(failure(AudioSpec(file: tones), duration: 0) != nil)
    }

    @Test func writeNeedsAStream() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tones = dir.appendingPathComponent("tones.wav")
        try writeTwoTones(to: tones, seconds: 1)
        let muxer = try Muxer(path: dir.appendingPathComponent("x.mp4").path, format: "mp4")
        let track = try AudioTrack(spec: AudioSpec(file: tones), codec: .aac, duration: 1, globalHeader: true)
        #expect(throws: AudioTrackError.self) { try track.write(upTo: 0.5, to: muxer) }
    }

    @Test func codecForContainer() {
        #expect(AudioCodec(containerFormat: "mp4") == .aac)
        #expect(AudioCodec(containerFormat: "mov") == .aac)
        #expect(AudioCodec(containerFormat: "webm") == .opus)
        #expect(AudioCodec(containerFormat: "image2") == nil)
        #expect(AudioCodec.opus.encoderName == "libopus" && AudioCodec.aac.encoderName == "aac")
    }
}
