import Foundation
import FFmpeg
import MapTripScene
import MapTripTime
import MapTripOutput
import MapTripRender
import MapTripGeometry

/// Reads the places' voices with FFmpeg (`AudioReader`): each is decoded whole, at 48000 Hz stereo as
/// the mix takes it, so its length is exact in samples and a file damaged midway fails here rather than
/// partway through a render. The rests are the timeline's (`Timeline.restSeconds`).
public struct VoiceFileCheck: VoiceChecking {
    /// The longest voice read: 10 minutes (a commentary, not a film's sound).
    public static let maxSeconds = 600.0

    public init() {}

    public func read(_ url: URL) -> (duration: Double?, errors: [(message: String, hint: String?)]) {
        let name = url.relativePath
        let hint = "use a sound file (M4A, MP3, WAV, FLAC, Opus) with a voice in it"
        do {
            let reader = try AudioReader(path: url.path, sampleRate: AudioTrack.sampleRate, channels: AudioTrack.channelCount)
            let most = Int(Self.maxSeconds) * AudioTrack.sampleRate
            if let stated = reader.info.duration, stated > Self.maxSeconds {
                return (nil, [(Self.tooLong(name, stated), "cut it into one voice per place")])
            }
            var count = 0
            while true {
                let chunk = try reader.read(1 << 16)
                if chunk[0].isEmpty { break }
                count += chunk[0].count
                if count > most {
                    return (nil, [(Self.tooLong(name, Double(count) / Double(AudioTrack.sampleRate)), "cut it into one voice per place")])
                }
            }
            guard count > 0 else { return (nil, [("voice '\(name)' holds no audio samples", hint)]) }
            return (Double(count) / Double(AudioTrack.sampleRate), [])
        } catch let error as FFmpegError {
            return (nil, [("voice '\(name)' cannot be played: \(AudioTrackError.reason(error))", nil)])
        } catch {
            return (nil, [("voice '\(name)' cannot be played: \(error)", hint)])
        }
    }

    static func tooLong(_ name: String, _ seconds: Double) -> String {
        String(format: "voice '\(name)' lasts %.0f s, over the %.0f s a voice may last", seconds, maxSeconds)
    }

    public func rests(of scene: Scene) -> [Double] {
        Timeline(scene: scene, projection: try? Projection.make(for: scene)).restSeconds
    }
}

extension SoundMix {
    /// A scene's sound: its music (`music`, the scene's `audio` or `--audio`), each place's voice,
    /// starting on the first frame of its rest in `timeline` (the render's), ducking the music as the
    /// scene's `voices` section says, and the sound of clips not muted and of the presenter where
    /// they play (`Timeline.soundCues`).
    public static func make(scene: Scene, timeline: Timeline, sceneDirectory: URL, music: AudioSpec?) -> SoundMix {
        var sounds: [TimedSound] = []
        for (i, place) in scene.places.enumerated() {
            guard let voice = place.voice else { continue }
            let rest = timeline.restFrames(of: i)
            guard !rest.isEmpty else { continue }
            sounds.append(TimedSound(file: URL(fileURLWithPath: voice.file, relativeTo: sceneDirectory).standardizedFileURL,
                                     start: Double(rest.lowerBound) / Double(timeline.fps),
                                     duration: voice.duration > 0 ? voice.duration : nil,
                                     gain: scene.voices.volume, ducksMusic: true))
        }
        // The clips' and the presenter's sound where they play (not ducking the music: a voice does).
        for cue in timeline.soundCues(for: scene, directory: sceneDirectory) {
            sounds.append(TimedSound(file: cue.file, start: cue.start, offset: cue.offset, duration: cue.duration,
                                     gain: cue.gain, ducksMusic: false))
        }
        let v = scene.voices
        return SoundMix(music: music, sounds: sounds, ducking: Ducking(gain: v.duckGain, attack: v.attack, release: v.release))
    }
}
