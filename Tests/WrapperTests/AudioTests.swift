import Foundation
import Testing
import FFmpeg
import TestBasics

private func temporaryDirectory() throws -> URL { try TemporaryFolder.make("audio-tests") }

/// A sine of `frequency` Hz, `seconds` long, starting at phase 0.
private func sine(_ frequency: Double, seconds: Double, rate: Int, amplitude: Float = 0.5) -> [Float] {
    let count = Int((seconds * Double(rate)).rounded())
    return (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// Samples whose value encodes their index exactly in 16 bits: sample i is ((i mod 20000) - 10000) / 32768.
private func counter(_ count: Int, negate: Bool = false) -> [Float] {
    (0..<count).map { Float((($0 % 20000) - 10000) * (negate ? -1 : 1)) / 32768 }
}

private func rms(_ samples: ArraySlice<Float>) -> Double {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
}

/// Frequency from the upward zero crossings in `samples` (with a little hysteresis against noise).
private func frequency(_ samples: ArraySlice<Float>, rate: Int) -> Double {
    var crossings: [Double] = []
    var armed = false
    var previous: (index: Int, value: Float)?
    for (i, v) in zip(samples.indices, samples) {
        if v < -0.01 { armed = true }
        if armed, v >= 0, let previous, previous.value < 0 {
            // Interpolated crossing position.
            crossings.append(Double(previous.index) + Double(-previous.value / (v - previous.value)))
            armed = false
        }
        previous = (i, v)
    }
    guard crossings.count >= 2 else { return 0 }
    return Double(crossings.count - 1) * Double(rate) / (crossings.last! - crossings.first!)
}

/// A rising tone (200 Hz + 40 Hz per second): any shift in time shows as a large difference.
private func chirp(count: Int, rate: Int) -> [Float] {
    (0..<count).map { i in
        let t = Double(i) / Double(rate)
        return 0.5 * Float(sin(2 * Double.pi * (200 * t + 40 * t * t)))
    }
}

private func hasEncoder(_ name: String) -> Bool {
    (try? AudioEncoder(name: name, sampleRate: 48000, channels: 2)) != nil
}

/// A planar float frame holding `channels`.
private func frame(_ channels: [[Float]], rate: Int) throws -> Frame {
    let f = try Frame(samples: channels[0].count, format: .fltp, channels: channels.count, sampleRate: rate)
    for (c, samples) in channels.enumerated() {
        let plane = try #require(f.audioData(channel: c))
        plane.withMemoryRebound(to: Float.self, capacity: samples.count) { dst in
            samples.withUnsafeBufferPointer { dst.update(from: $0.baseAddress!, count: samples.count) }
        }
    }
    return f
}

@Suite("FFmpeg: audio (Resampler, AudioReader, AudioEncoder, AudioFileWriter)")
struct AudioTests {
    @Test func sampleFormatNames() {
        #expect(SampleFormat.fltp.name == "fltp" && SampleFormat.fltp.isPlanar && SampleFormat.fltp.bytesPerSample == 4)
        #expect(SampleFormat.flt.name == "flt" && !SampleFormat.flt.isPlanar)
        #expect(SampleFormat(name: "s16") == .s16)
        #expect(SampleFormat(name: "no-such-format") == nil)
    }

    @Test func wavRoundTripIsExact() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("counter.wav").path
        let left = counter(50_000), right = counter(50_000, negate: true)
        // In uneven pieces, to exercise the fifo.
        let writer = try AudioFileWriter(path: path, sampleRate: 44100, channels: 2)
        #expect(writer.encoder.sampleFormat == .s16)
        var start = 0
        for size in [1, 999, 7000, 30_000, 12_000] {
            try writer.write([Array(left[start..<start + size]), Array(right[start..<start + size])])
            start += size
        }
        try writer.finish()
        try writer.finish()  // again: nothing happens
        #expect(writer.encoder.samplesSent == 50_000)

        let reader = try AudioReader(path: path)
        #expect(reader.info.codecName == "pcm_s16le")
        #expect(reader.info.sampleRate == 44100 && reader.info.channelCount == 2)
        #expect(reader.sampleRate == 44100 && reader.channelCount == 2)
        #expect(abs((reader.info.duration ?? 0) - 50_000.0 / 44100) < 0.001, "\(String(describing: reader.info.duration))")
        let decoded = try reader.readAll()
        #expect(decoded.count == 2)
        #expect(decoded[0] == left)
        #expect(decoded[1] == right)
        #expect(reader.isAtEnd)
        #expect(try reader.read(100)[0].isEmpty)
    }

    /// Seeks land on the exact sample, forwards, backwards, to 0 and past the end, in WAV and in FLAC
    /// (whose demuxer seeks to a frame start, so samples have to be dropped).
    @Test(arguments: [("wav", "pcm_s16le"), ("flac", "flac")])
    func seekIsSampleExact(container: String, codec: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("counter.\(container)").path
        let count = 44100 * 6
        let left = counter(count), right = counter(count, negate: true)
        try AudioFileWriter.write([left, right], sampleRate: 44100, to: path, format: container, codec: codec)

        let reader = try AudioReader(path: path)
        #expect(reader.info.codecName == codec)
        for seconds in [1.2345, 4.5, 0.7, 0, 0.3, 5.99] {
            try reader.seek(to: seconds)
            let first = Int((seconds * 44100).rounded())
            #expect(reader.position == Int64(first))
            let got = try reader.read(500)
            let n = min(500, count - first)
            #expect(got[0] == Array(left[first..<first + n]), "left after seek to \(seconds) s")
            #expect(got[1] == Array(right[first..<first + n]), "right after seek to \(seconds) s")
        }
        try reader.seek(to: 7)
        #expect(try reader.read(100)[0].isEmpty)
        #expect(throws: FFmpegError.self) { try reader.seek(to: -1) }
        #expect(throws: FFmpegError.self) { try reader.seek(to: .nan) }
    }

    /// A compressed file: position 0 is the source's first sample (the encoder delay the container declares
    /// is dropped), and a seek gives the very samples that reading from the start gives there (MP4 and MP3
    /// seek the demuxer and drop the warm-up; WebM, whose millisecond timestamps cannot place a sample,
    /// decodes from the start).
    private func checkSeeks(container: String, codec: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("chirp.\(container)").path
        let count = 48000 * 4 + 77
        let chirp = chirp(count: count, rate: 48000)
        try AudioFileWriter.write([chirp, chirp], sampleRate: 48000, to: path, format: container, codec: codec)

        let reader = try AudioReader(path: path)
        let all = try reader.readAll()[0]
        #expect(all.count >= count && all.count <= count + 1024, "\(all.count) of \(count)")
        let middle = 4800..<(count - 4800)
        let error = rms(ArraySlice(middle.map { all[$0] - chirp[$0] }))
        #expect(error < 0.05, "\(codec) in \(container): RMS difference from the source \(error) (shifted?)")
        for seconds in [2.0, 0.3, 3.1234, 0, 1.5] {
            try reader.seek(to: seconds)
            let got = try reader.read(3000)[0]
            let first = Int((seconds * 48000).rounded())
            let largest = zip(got, all[first...]).map { abs($0 - $1) }.max() ?? 1
            #expect(got.count == 3000 && largest < 1e-4, "\(codec) in \(container) after seek to \(seconds) s: \(largest)")
        }
    }

    @Test(arguments: [("mp4", "aac"), ("webm", "libopus"), ("ogg", "libopus"), ("flac", "flac")])
    func compressedSeeksMatchReadingFromTheStart(container: String, codec: String) throws {
        try checkSeeks(container: container, codec: codec)
    }

    /// MP3 (the usual music file: encoder delay in a LAME header) and Vorbis, where FFmpeg has the encoders.
    @Test(.enabled(if: hasEncoder("libmp3lame") && hasEncoder("libvorbis")),
          arguments: [("mp3", "libmp3lame"), ("ogg", "libvorbis")])
    func mp3AndVorbisSeeksMatchReadingFromTheStart(container: String, codec: String) throws {
        try checkSeeks(container: container, codec: codec)
    }

    /// 44100 -> 48000 Hz keeps frequency, level and timing (output sample n is input time n / 48000).
    @Test func resamplerKeepsPitchLevelAndTiming() throws {
        let input = sine(1000, seconds: 1, rate: 44100)
        let resampler = try Resampler(inputChannels: 1, inputFormat: .fltp, inputSampleRate: 44100,
                                      outputChannels: 1, outputFormat: .fltp, outputSampleRate: 48000)
        var output: [Float] = []
        var start = 0
        while start < input.count {
            let size = min(1000, input.count - start)
            output += try resampler.convert(frame([Array(input[start..<start + size])], rate: 44100)).floatChannels()[0]
            start += size
        }
        output += try resampler.flush().floatChannels()[0]
        #expect(abs(output.count - 48000) <= 1, "\(output.count) samples")
        #expect(abs(frequency(output[4800..<43200], rate: 48000) - 1000) < 1)
        #expect(abs(rms(output[4800..<43200]) - 0.5 / 2.0.squareRoot()) < 0.005)
        let ideal = sine(1000, seconds: 1, rate: 48000)
        let error = (4800..<43200).map { abs(output[$0] - ideal[$0]) }.max() ?? 1
        #expect(error < 0.01, "largest difference from the ideal 48 kHz sine: \(error)")
    }

    @Test func resamplerConvertsFormatsAndCopiesMonoToBothChannels() throws {
        let input = sine(440, seconds: 0.1, rate: 48000, amplitude: 0.25)
        let resampler = try Resampler(inputChannels: 1, inputFormat: .fltp, inputSampleRate: 48000,
                                      outputChannels: 2, outputFormat: .fltp, outputSampleRate: 48000)
        let out = try resampler.convert(frame([input], rate: 48000)).floatChannels()
        #expect(out[0].count == input.count)
        #expect(out[0] == input && out[1] == input)  // full level, not -3 dB

        let toS16 = try Resampler(inputChannels: 2, inputFormat: .fltp, inputSampleRate: 48000,
                                  outputChannels: 2, outputFormat: .s16, outputSampleRate: 48000)
        let packed = try toS16.convert(frame([[0.5, -0.25], [-1, 0]], rate: 48000))
        #expect(packed.sampleFormat == .s16 && packed.sampleCount == 2 && packed.channelCount == 2)
        let values = try #require(packed.audioData(channel: 0)).withMemoryRebound(to: Int16.self, capacity: 4) {
            Array(UnsafeBufferPointer(start: $0, count: 4))
        }
        #expect(values == [16384, -32768, -8192, 0])  // interleaved L R L R
        #expect(throws: FFmpegError.self) { _ = try toS16.convert(frame([[0.5]], rate: 48000)) }
    }

    @Test func readerResamplesAndUpmixes() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("mono.wav").path
        try AudioFileWriter.write([sine(440, seconds: 2, rate: 22050)], sampleRate: 22050, to: path)
        let reader = try AudioReader(path: path, sampleRate: 48000, channels: 2)
        #expect(reader.info.sampleRate == 22050 && reader.info.channelCount == 1)
        let samples = try reader.readAll()
        #expect(samples.count == 2)
        #expect(abs(samples[0].count - 96000) <= 2, "\(samples[0].count)")
        #expect(samples[0] == samples[1])
        #expect(abs(frequency(samples[0][4800..<91200], rate: 48000) - 440) < 0.5)
        #expect(abs(rms(samples[0][4800..<91200]) - 0.5 / 2.0.squareRoot()) < 0.005)
    }

    /// AAC in MP4 and Opus in WebM through AudioEncoder + Muxer, decoded back: pitch, level and length.
    @Test(arguments: [("mp4", "aac"), ("webm", "libopus")])
    func encoderRoundTrip(container: String, codec: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("tone.\(container)").path
        let count = 48000 * 2 + 123
        let tone = Array(sine(440, seconds: 3, rate: 48000)[0..<count])
        let writer = try AudioFileWriter(path: path, sampleRate: 48000, channels: 2, format: container, codec: codec)
        let encoder = writer.encoder
        #expect(encoder.timeBase == Rational(1, 48000))
        if codec == "aac" {
            #expect(encoder.sampleFormat == .fltp && encoder.frameSize == 1024 && encoder.initialPadding == 1024)
        } else {
            #expect(encoder.sampleFormat == .flt && encoder.frameSize == 960 && encoder.initialPadding == 312)
        }
        var start = 0
        while start < count {
            let size = min(1601, count - start)  // a video frame's worth at 29.97 fps, about
            try writer.write([Array(tone[start..<start + size]), Array(tone[start..<start + size])])
            start += size
        }
        try writer.finish()
        #expect(encoder.samplesReceived == Int64(count))
        #expect(throws: FFmpegError.self) { try encoder.encode([[0], [0]]) { _ in } }

        let reader = try AudioReader(path: path)
        #expect(reader.info.codecName == (codec == "aac" ? "aac" : "opus"))
        #expect(reader.info.sampleRate == 48000 && reader.info.channelCount == 2)
        let decoded = try reader.readAll()
        // Priming is dropped by the decoder; AAC may keep the padding of its last frame.
        #expect(decoded[0].count >= count - 1 && decoded[0].count <= count + 1024, "\(decoded[0].count) of \(count)")
        let middle = 4800..<(count - 4800)
        #expect(abs(frequency(decoded[0][middle], rate: 48000) - 440) < 0.5)
        #expect(abs(frequency(decoded[1][middle], rate: 48000) - 440) < 0.5)
        #expect(abs(rms(decoded[0][middle]) - 0.5 / 2.0.squareRoot()) < 0.02)
        // In time: the decoded sine lines up with the one encoded (priming removed, not shifted).
        let error = rms(ArraySlice(middle.map { decoded[0][$0] - tone[$0] }))
        #expect(error < 0.05, "RMS difference from the source \(error)")
    }

    @Test func encoderRejectsWhatItCannotDo() throws {
        let notFound = #expect(throws: FFmpegError.self) {
            try AudioEncoder(name: "no-such-codec", sampleRate: 48000, channels: 2)
        }
        #expect(notFound?.code == FFmpegError.encoderNotFound)
        let video = #expect(throws: FFmpegError.self) { try AudioEncoder(name: "mpeg4", sampleRate: 48000, channels: 2) }
        #expect(video?.message.contains("not an audio encoder") == true, "\(String(describing: video))")
        let rate = #expect(throws: FFmpegError.self) { try AudioEncoder(name: "libopus", sampleRate: 44100, channels: 2) }
        #expect(rate?.message.contains("48000") == true, "\(String(describing: rate))")
        #expect(throws: FFmpegError.self) { try AudioEncoder(name: "aac", sampleRate: 48000, channels: 0) }
        let option = #expect(throws: FFmpegError.self) {
            try AudioEncoder(name: "aac", sampleRate: 48000, channels: 2, options: ["no_such_option": "1"])
        }
        #expect(option?.code == FFmpegError.optionNotFound)

        let encoder = try AudioEncoder(name: "aac", sampleRate: 48000, channels: 2)
        #expect(throws: FFmpegError.self) { try encoder.encode([[0, 0]]) { _ in } }  // one channel of two
        #expect(throws: FFmpegError.self) { try encoder.encode([[0, 0], [0]]) { _ in } }  // uneven
        var packets: [(pts: Int64, duration: Int64)] = []
        try encoder.encode([[Float](repeating: 0.1, count: 5000), [Float](repeating: 0.1, count: 5000)]) {
            packets.append(($0.pts ?? .min, $0.duration))
        }
        #expect(encoder.bufferedSamples == 5000 - 4 * 1024)
        try encoder.flush { packets.append(($0.pts ?? .min, $0.duration)) }
        #expect(packets.first?.pts == -1024)  // priming
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1.pts == $0.pts + $0.duration })
        #expect(packets.reduce(0) { $0 + $1.duration } - 1024 >= 5000)
    }

    @Test func readerErrorsSayWhatIsWrong() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.mp3").path
        let noFile = #expect(throws: FFmpegError.self) { try AudioReader(path: missing) }
        #expect(noFile?.description.contains("missing.mp3") == true)
        #expect(noFile?.message == "No such file or directory", "\(String(describing: noFile))")

        let garbage = dir.appendingPathComponent("garbage.mp3")
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: garbage)
        let unreadable = #expect(throws: FFmpegError.self) { try AudioReader(path: garbage.path) }
        #expect(unreadable?.operation.hasPrefix("avformat_open_input") == true, "\(String(describing: unreadable))")

        let image = dir.appendingPathComponent("picture.png")
        try ImageEncoder.png(BGRAImage(width: 16, height: 16)).write(to: image)
        let noAudio = #expect(throws: FFmpegError.self) { try AudioReader(path: image.path) }
        #expect(noAudio?.code == FFmpegError.streamNotFound)
        #expect(noAudio?.message == "no audio stream")
    }
}
