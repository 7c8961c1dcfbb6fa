import Foundation
import Testing
import TestSupport
import FFmpeg
@testable import MapTripOutput

/// The mixer: music ducked under timed sounds by the documented amount, sounds placed to the sample,
/// the limiter, a stretch equal to the whole's same samples. Music is a 220 Hz tone and the voices
/// 1000 Hz tones, measured apart in the decoded AAC (windows of whole periods of both).
@Suite("MapTripOutput: SoundMix")
struct SoundMixTests {
    static let rate = 48000

    /// A 48 kHz stereo WAV of a tone.
    static func tone(_ dir: URL, _ name: String, _ frequency: Double, seconds: Double, amplitude: Float) throws -> URL {
        let url = dir.appendingPathComponent(name)
        let tone = Tones.sine(frequency, seconds: seconds, amplitude: amplitude)
        try AudioFileWriter.write([tone, tone], sampleRate: rate, to: url.path)
        return url
    }

    /// 6 s of music (220 Hz at 0.35) and a 1 s voice (1000 Hz at 0.3) from 2 s that ducks it.
    static func musicAndVoice(_ dir: URL, fadeOut: Double) throws -> SoundMix {
        let music = try tone(dir, "music.wav", 220, seconds: 6, amplitude: 0.35)
        let voice = try tone(dir, "voice.wav", 1000, seconds: 1, amplitude: 0.3)
        return SoundMix(music: AudioSpec(file: music, fadeOut: fadeOut),
                        sounds: [TimedSound(file: voice, start: 2, ducksMusic: true)])
    }

    /// Encodes the mix (AAC in MP4) as a recording at 30 fps would, and decodes its left channel.
    static func render(_ mix: SoundMix, duration: Double, start: Double = 0, end: Double? = nil,
                       in dir: URL) throws -> [Float] {
        let path = dir.appendingPathComponent("mix-\(UUID().uuidString).mp4").path
        let muxer = try Muxer(path: path, format: "mp4")
        let track = try AudioTrack(mix: mix, codec: .aac, duration: duration, start: start, end: end,
                                   globalHeader: muxer.needsGlobalHeader)
        try track.addStream(to: muxer)
        try muxer.writeHeader()
        let frames = Int((((end ?? duration) - start) * 30).rounded(.up))
        for n in 0..<frames { try track.write(upTo: Double(n + 1) / 30, to: muxer) }
        try track.finish(to: muxer)
        try muxer.finish()
        #expect(track.samplesWritten == Int64((((end ?? duration) - start) * Double(rate)).rounded()))
        return try AudioReader(path: path).readAll()[0]
    }

    /// Music at -9 dBFS, a voice from 2.0 s to 3.0 s: the music is 12 dB down under the voice (within
    /// 0.1 dB: the two tones are apart and AAC at 192 kb/s keeps a steady tone's level to 0.02 dB), back
    /// to its level 0.5 s after it, going down over the 0.25 s before; the voice's energy is there from
    /// its first 20 ms and not in the 230 ms before.
    @Test func theMusicDucksUnderAVoiceByTheDocumentedAmount() throws {
        let dir = try TemporaryFolder.make("soundmix")
        defer { try? FileManager.default.removeItem(at: dir) }
        let mix = try Self.musicAndVoice(dir, fadeOut: 0)
        let out = try Self.render(mix, duration: 5, in: dir)
        let around = Tones.level(out, 220, 0.5, 1.5), after = Tones.level(out, 220, 3.55, 4.5)
        let under = Tones.level(out, 220, 2.05, 2.95)
        #expect(abs(around - 20 * log10(0.35)) < 0.1, "music around the voice at \(around) dB")
        #expect(abs(after - around) < 0.1, "music after the release at \(after) dB, \(around) dB before")
        #expect(abs(under - around - Ducking().gain) < 0.1, "music under the voice \(under - around) dB from its level")
        // Halfway through the attack (1.875 s, measured over 1.8 to 1.95 s): about half the dB.
        let attack = Tones.level(out, 220, 1.8, 1.95) - around
        #expect(attack < -3 && attack > -9, "music \(attack) dB in the attack")
        // The voice: at its level from its start, nothing before it.
        let voiceLevel = Tones.amplitude(out, 1000, 2.0, 2.02)
        #expect(abs(voiceLevel - 0.3) < 0.02, "voice amplitude \(voiceLevel) in its first 20 ms")
        #expect(Tones.amplitude(out, 1000, 1.75, 1.98) < 0.003, "voice energy before it starts")
        #expect(Tones.amplitude(out, 1000, 3.05, 4) < 0.003, "voice energy after it ends")
        // Deterministic: the same mix encodes to the same samples.
        #expect(try Self.render(mix, duration: 5, in: dir) == out)
    }

    /// Without music the voices are the sound; the ducking's gain is configurable; a sound that does not
    /// duck (a clip's) leaves the music alone.
    @Test func voicesWithoutMusicAndSoundsThatDoNotDuck() throws {
        let dir = try TemporaryFolder.make("soundmix")
        defer { try? FileManager.default.removeItem(at: dir) }
        let voice = try Self.tone(dir, "voice.wav", 1000, seconds: 0.5, amplitude: 0.3)
        let alone = try Self.render(SoundMix(sounds: [TimedSound(file: voice, start: 1, gain: 0.5, ducksMusic: true)]),
                                    duration: 2, in: dir)
        #expect(abs(Tones.amplitude(alone, 1000, 1.05, 1.45) - 0.15) < 0.01)
        #expect(Tones.amplitude(alone, 1000, 0.2, 0.95) < 0.002)

        let music = try Self.tone(dir, "music.wav", 220, seconds: 3, amplitude: 0.35)
        let clip = TimedSound(file: voice, start: 1, ducksMusic: false)
        let plain = try Self.render(SoundMix(music: AudioSpec(file: music, fadeOut: 0), sounds: [clip]), duration: 2, in: dir)
        #expect(abs(Tones.level(plain, 220, 1.05, 1.45) - Tones.level(plain, 220, 0.2, 0.9)) < 0.1)
        let six = SoundMix(music: AudioSpec(file: music, fadeOut: 0), sounds: [TimedSound(file: voice, start: 1, ducksMusic: true)],
                           ducking: Ducking(gain: -6, attack: 0.1, release: 0.1))
        let ducked = try Self.render(six, duration: 2, in: dir)
        let drop = Tones.level(ducked, 220, 1.05, 1.45) - Tones.level(ducked, 220, 0.2, 0.85)
        #expect(abs(drop + 6) < 0.1, "\(drop) dB")
    }

    /// Three loud tones summed would reach 1.5: the limiter keeps every sample below 1 and leaves a
    /// quiet stretch as it is.
    @Test func theLimiterKeepsALoudSumFromClipping() throws {
        let dir = try TemporaryFolder.make("soundmix")
        defer { try? FileManager.default.removeItem(at: dir) }
        let music = try Self.tone(dir, "music.wav", 220, seconds: 3, amplitude: 0.5)
        let a = try Self.tone(dir, "a.wav", 1000, seconds: 1, amplitude: 0.5)
        let b = try Self.tone(dir, "b.wav", 1500, seconds: 1, amplitude: 0.5)
        let mix = SoundMix(music: AudioSpec(file: music, fadeOut: 0),
                           sounds: [TimedSound(file: a, start: 1), TimedSound(file: b, start: 1)])
        let out = try Self.render(mix, duration: 2.5, in: dir)
        let loud = out[Self.rate + 2000..<2 * Self.rate - 2000]
        let peak = loud.map { abs($0) }.max() ?? 0
        #expect(peak < 1 && peak > 0.8, "peak \(peak)")
        #expect(abs(Tones.amplitude(out, 220, 0.2, 0.9) - 0.5) < 0.01, "the music alone is untouched")
    }

    /// A stretch (1.5 s to 3.5 s of a 5 s video, across a voice's start and its ducking) decodes to the
    /// whole video's samples there: within -35 dB of them where the sound is steady and -25 dB around
    /// the voice's onset (AAC codes each file's frames from its own start; the mixed samples are equal).
    @Test func aStretchIsTheSameSamplesAsTheWhole() throws {
        let dir = try TemporaryFolder.make("soundmix")
        defer { try? FileManager.default.removeItem(at: dir) }
        let mix = try Self.musicAndVoice(dir, fadeOut: 1)
        let whole = try Self.render(mix, duration: 5, in: dir)
        let part = try Self.render(mix, duration: 5, start: 1.5, end: 3.5, in: dir)
        #expect(part.count >= 2 * Self.rate)
        let offset = Self.rate * 3 / 2
        func window(_ a: Double, _ b: Double) -> Double {
            let i = Int(a * Double(Self.rate)), j = Int(b * Double(Self.rate))
            return Tones.difference(whole[offset + i..<offset + j], part[i..<j])
        }
        let all = window(0, 2), steady = window(1.1, 1.9), onset = window(0.2, 0.9)
        #expect(all < -25, "the stretch differs from the whole by \(all) dB")
        #expect(steady < -35, "steady: \(steady) dB")
        #expect(onset < -25, "around the onset: \(onset) dB")
        // Not the whole's samples 37 samples (0.77 ms) off.
        let shifted = Tones.difference(whole[offset + 37 + 4800..<offset + 37 + 91200], part[4800..<91200])
        #expect(shifted > -10, "37 samples off: \(shifted) dB")
    }
}
