import FFmpeg
import Foundation
import MapTripOutput
import Testing
import TestSupport

/// Voices and trims as `maptrip render` writes them, measured on the MP4's decoded sound: the voice where
/// its place's rest starts (by `plan`), the music ducked under it by the documented -12 dB, and a
/// `--from/--to` stretch equal, frames and sound, to the whole render's same stretch.
@Suite("voices and trims")
struct VoiceRenderTests {
    static let rate = 48000

    /// Seoul, Busan (with a 1.2 s voice of a 1000 Hz tone), Jeju; 30 fps, 0.5 s flights, music a
    /// 220 Hz tone at 0.35 without a fade-out. `extra`: more scene keys.
    static func writeTrip(_ dir: URL, voiceSeconds: Double = 1.2, busanDwell: Double = 2.5, extra: String = "") throws {
        let music = Tones.sine(220, seconds: 10, amplitude: 0.35)
        try AudioFileWriter.write([music, music], sampleRate: rate, to: dir.appendingPathComponent("music.wav").path)
        let voice = Tones.sine(1000, seconds: voiceSeconds, amplitude: 0.3)
        try AudioFileWriter.write([voice, voice], sampleRate: rate, to: dir.appendingPathComponent("busan.wav").path)
        let scene = """
        { "video": {"width": 320, "height": 180, "fps": 30}, "flight": 0.5, "opening": false, "closing": false,
          "audio": {"file": "music.wav", "fadeOut": 0},\(extra)
          "places": [
            {"name": "Seoul", "lat": 37.5665, "lon": 126.978, "zoom": 7, "dwell": 1.5},
            {"name": "Busan", "lat": 35.1796, "lon": 129.0756, "zoom": 7, "dwell": \(busanDwell), "voice": "busan.wav"},
            {"name": "Jeju", "lat": 33.4996, "lon": 126.5312, "zoom": 7, "dwell": 1.5}
          ] }
        """
        try Data(scene.utf8).write(to: dir.appendingPathComponent("scene.json"))
    }

    /// The slots `plan --json` prints: (arrive, end) in seconds.
    static func slots(_ dir: URL) throws -> [(arrive: Double, end: Double)] {
        let plan = try CLIProcess.run(["plan", "scene.json", "--json"], in: dir)
        #expect(plan.status == 0, "\(plan)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let slots = try #require(json["slots"] as? [[String: Any]])
        return slots.map { (($0["arrive"] as? Double) ?? -1, ($0["end"] as? Double) ?? -1) }
    }

    static func sound(_ url: URL) throws -> [Float] {
        try AudioReader(path: url.path, sampleRate: rate, channels: 2).readAll()[0]
    }

    @Test func theVoicePlaysWhereItsPlaceRestsOverDuckedMusic() throws {
        try Trip.withDirectory("voices") { dir in
            try Self.writeTrip(dir)
            let arrive = try Self.slots(dir)[1].arrive
            #expect(arrive == 2.0, "Busan's rest starts at \(arrive) s")
            let result = try CLIProcess.run(["render", "scene.json", "-o", "trip.mp4", "-q"], in: dir)
            #expect(result.status == 0, "\(result)")
            let sound = try Self.sound(dir.appendingPathComponent("trip.mp4"))
            // The voice: at its level in the first 20 ms of the rest, nothing in the 230 ms before.
            let start = Tones.amplitude(sound, 1000, arrive, arrive + 0.02)
            #expect(abs(start - 0.3) < 0.02, "voice amplitude \(start) at the rest's start")
            #expect(Tones.amplitude(sound, 1000, arrive - 0.25, arrive - 0.02) < 0.003, "voice energy before the rest")
            // The music: -12 dB under the voice (2.0 to 3.2 s) against before the attack and after the release.
            let before = Tones.level(sound, 220, 0.5, 1.7), after = Tones.level(sound, 220, 3.75, 4.4)
            let under = Tones.level(sound, 220, 2.05, 3.15)
            #expect(abs(before - 20 * log10(0.35)) < 0.1, "music at \(before) dB")
            #expect(abs(after - before) < 0.1, "music after the voice at \(after) dB")
            #expect(abs(under - before + 12) < 0.15, "music under the voice \(under - before) dB from its level")
        }
    }

    /// A voice longer than its rest: `validate` names the place and the lengths; with
    /// `voices.extendRests` the rest is lengthened to hold it and `plan` shows it.
    @Test func aVoiceLongerThanItsRestIsAnErrorOrLengthensIt() throws {
        try Trip.withDirectory("voices") { dir in
            try Self.writeTrip(dir, voiceSeconds: 2.6, busanDwell: 2)
            let check = try CLIProcess.run(["validate", "scene.json"], in: dir)
            #expect(check.status == 1)
            #expect(check.stdout.contains("scene.json:5:90: places[1].voice: voice 'busan.wav' lasts 2.60 s, longer than Busan's rest of 1.50 s (it would be cut) (give Busan a dwell of at least 3.1, or set \"voices\": { \"extendRests\": true })"),
                    "\(check)")
            let render = try CLIProcess.run(["render", "scene.json", "-o", "trip.mp4"], in: dir)
            #expect(render.status == 1 && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("trip.mp4").path))

            try Self.writeTrip(dir, voiceSeconds: 2.6, busanDwell: 2, extra: #" "voices": {"extendRests": true},"#)
            let slots = try Self.slots(dir)
            #expect(slots[1].end - slots[1].arrive > 2.6 - 1e-9, "Busan rests \(slots[1].end - slots[1].arrive) s")
            #expect(slots[1].end - slots[1].arrive < 2.7)
            let text = try CLIProcess.run(["plan", "scene.json"], in: dir)
            #expect(text.stdout.contains("voice at 2 plays busan.wav: 2.600 s from 2.000 s, in a rest of 2.600 s"), "\(text)")
        }
    }

    /// `--from 0:01 --to 0:04` is frames 30 to 119 as its own file: each frame is the whole render's
    /// frame 30 later (closer to it than to its neighbours), and its sound the whole's same stretch.
    @Test func aStretchIsTheSameFramesAndSoundAsTheWholeRender() throws {
        try Trip.withDirectory("voices") { dir in
            try Self.writeTrip(dir)
            let whole = try CLIProcess.run(["render", "scene.json", "-o", "whole.mp4", "-q"], in: dir)
            let part = try CLIProcess.run(["render", "scene.json", "--from", "0:01", "--to", "0:04", "-o", "part.mp4", "-q"], in: dir)
            #expect(whole.status == 0 && part.status == 0, "\(whole) \(part)")
            let w = try Trip.decode(dir.appendingPathComponent("whole.mp4")).frames
            let p = try Trip.decode(dir.appendingPathComponent("part.mp4")).frames
            #expect(p.count == 90 && w.count == 165, "\(p.count) and \(w.count) frames")
            guard p.count == 90, w.count == 165 else { return }
            for k in [0, 10, 20, 45, 89] {
                let same = Trip.meanDifference(p[k], w[30 + k])
                #expect(same < 1.5, "frame \(k): \(same) from the whole's frame \(30 + k)")
            }
            // In the flight into Busan (frames 45 to 59 of the whole) neighbours differ: not an off-by-one.
            for k in [17, 20, 23] {
                let same = Trip.meanDifference(p[k], w[30 + k])
                #expect(same < Trip.meanDifference(p[k], w[29 + k]) && same < Trip.meanDifference(p[k], w[31 + k]))
            }
            let a = try Self.sound(dir.appendingPathComponent("whole.mp4"))
            let b = try Self.sound(dir.appendingPathComponent("part.mp4"))
            #expect(b.count >= 3 * Self.rate)
            let difference = Tones.difference(a[Self.rate..<4 * Self.rate], b[0..<3 * Self.rate])
            #expect(difference < -25, "the stretch's sound is \(difference) dB from the whole's")
        }
    }

    /// A clip with sound (a 660 Hz tone, made by ffmpeg's command line, independent of maptrip) in
    /// Busan's card: muted by default; with `"muted": false` its sound plays from Busan's rest, beside
    /// the voice and the music.
    @Test func aClipsSoundIsMixedInOnlyWhenNotMuted() throws {
        try Trip.withDirectory("clip-sound") { dir in
            let ffmpeg = Process()
            ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=3", "-f", "lavfi",
                                "-i", "sine=frequency=660:duration=3:sample_rate=48000", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                                "-c:a", "aac", "-shortest", dir.appendingPathComponent("clip.mp4").path]
            try ffmpeg.run()
            ffmpeg.waitUntilExit()
            #expect(ffmpeg.terminationStatus == 0)
            for muted in [true, false] {
                try Self.writeTrip(dir)
                let file = dir.appendingPathComponent("scene.json")
                var text = try String(contentsOf: file, encoding: .utf8)
                text = text.replacingOccurrences(of: #""voice": "busan.wav"}"#,
                                                 with: #""voice": "busan.wav", "clip": "clip.mp4", "muted": \#(muted)}"#)
                try Data(text.utf8).write(to: file)
                let arrive = try Self.slots(dir)[1].arrive
                let result = try CLIProcess.run(["render", "scene.json", "-o", "trip.mp4", "-q"], in: dir)
                #expect(result.status == 0, "\(result)")
                let sound = try Self.sound(dir.appendingPathComponent("trip.mp4"))
                // ffmpeg's sine is 1/8 of full scale; the voice and the music are other tones.
                let during = Tones.amplitude(sound, 660, arrive + 0.1, arrive + 1.0)
                let before = Tones.amplitude(sound, 660, arrive - 0.5, arrive - 0.05)
                if muted {
                    #expect(during < 0.003, "a muted clip's tone at \(during)")
                } else {
                    #expect(abs(during - 0.125) < 0.02, "the clip's tone at \(during) in Busan's rest")
                    #expect(before < 0.003, "the clip's tone at \(before) before Busan's rest")
                }
                // The voice plays on beside it.
                #expect(abs(Tones.amplitude(sound, 1000, arrive, arrive + 0.02) - 0.3) < 0.02)
            }
            // A part for `concat` has no sound, and says whose: here only the clip's.
            let clipOnly = """
                { "video": {"width": 320, "height": 180, "fps": 30}, "flight": 0.5, "opening": false, "closing": false,
                  "places": [ {"name": "Seoul", "lat": 37.5665, "lon": 126.978, "zoom": 7, "dwell": 1},
                              {"name": "Busan", "lat": 35.1796, "lon": 129.0756, "zoom": 7, "dwell": 2,
                               "clip": "clip.mp4", "muted": false} ] }
                """
            try Data(clipOnly.utf8).write(to: dir.appendingPathComponent("clip-only.json"))
            let part = try CLIProcess.run(["render", "clip-only.json", "--frames", "0:30", "-o", "part.mp4"], in: dir)
            #expect(part.status == 0, "\(part)")
            #expect(part.stderr.contains("--frames renders a part without sound: the clips' and presenter's sound is not written"),
                    "\(part.stderr)")
        }
    }
}
