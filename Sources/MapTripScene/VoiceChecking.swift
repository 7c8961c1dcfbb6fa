import Foundation

/// Reads the voices a scene's places name (`places[i].voice`) and times the rests they play in, so that
/// `validate`, `plan` and a render's start know each voice's length and say where a voice does not fit.
/// Adopted outside the pure modules (the reader decodes with FFmpeg; the rests come from the timeline).
public protocol VoiceChecking: Sendable {
    /// The sound file's length in seconds, or what is wrong with it (errors; a length only without).
    func read(_ url: URL) -> (duration: Double?, errors: [(message: String, hint: String?)])
    /// Seconds each place of `scene` rests: from the first frame the camera rests on it (where its voice
    /// starts) to the next place's slot, the last place's to the trip's end.
    func rests(of scene: Scene) -> [Double]
}
