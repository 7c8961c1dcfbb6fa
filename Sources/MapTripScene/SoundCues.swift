import Foundation

/// A stretch of a file's sound the trip plays: a place's clip (not muted) during its rest, or the
/// presenter during its places' times. The sound side mixes them; the picture side decides when.
public struct SoundCue: Equatable, Sendable {
    /// The file (relative names resolved against the scene's folder).
    public var file: URL
    /// Seconds into the trip where the sound starts.
    public var start: Double
    /// Seconds into the file where it starts playing.
    public var offset: Double
    /// Seconds it plays (the stretch shown, cut where the file ends when its length is known).
    public var duration: Double
    /// Linear gain: 1 is the file's own level.
    public var gain: Double

    public init(file: URL, start: Double, offset: Double, duration: Double, gain: Double) {
        self.file = file
        self.start = start
        self.offset = offset
        self.duration = duration
        self.gain = gain
    }
}

/// A video played in a place's card, where a photo goes (`"clip"`), during the place's rest.
public struct Clip: Equatable, Sendable {
    /// The file as the scene names it (relative to the scene).
    public var file: String
    /// Seconds into the file shown as the rest starts.
    public var from: Double
    /// Its sound is left out (the default), or mixed in at `volume`.
    public var muted: Bool
    public var volume: Double
    /// The file's length in seconds, when the scene's check read it (nil: unknown).
    public var duration: Double?
    /// The picture's size as shown (after its rotation tag), when the check read it.
    public var width: Int?
    public var height: Int?
    /// The file has a sound stream (nil: unknown).
    public var hasSound: Bool?

    public init(file: String, from: Double = 0, muted: Bool = true, volume: Double = 1) {
        self.file = file
        self.from = from
        self.muted = muted
        self.volume = volume
    }

    /// Width over height as shown (nil: unknown).
    public var aspect: Double? {
        guard let width, let height, width > 0, height > 0 else { return nil }
        return Double(width) / Double(height)
    }
}

/// A scene-level video in a corner of the frame (`"presenter"`): for the whole trip, or during chosen
/// places' slots. Its picture runs with the trip's clock: at trip second t it shows `from + t`.
public struct Presenter: Equatable, Sendable {
    public enum Corner: String, CaseIterable, Sendable {
        case bottomLeft = "bottom-left", bottomRight = "bottom-right", topLeft = "top-left", topRight = "top-right"
    }

    public enum Shape: String, CaseIterable, Sendable {
        case circle, rounded
    }

    public static let defaultSize = 0.25

    public var file: String
    public var corner: Corner
    /// The picture's height as a share of the frame's shorter side (a circle's diameter).
    public var size: Double
    public var shape: Shape
    /// The places (indices) whose slots it shows in; nil: the whole trip.
    public var places: [Int]?
    /// Seconds into the file at the trip's start.
    public var from: Double
    /// Linear gain of its sound (0: silent).
    public var volume: Double
    /// The file's length in seconds, its size as shown and whether it has sound, when the check read it.
    public var duration: Double?
    public var width: Int?
    public var height: Int?
    public var hasSound: Bool?

    public init(file: String, corner: Corner = .bottomLeft, size: Double = Presenter.defaultSize, shape: Shape = .circle,
                places: [Int]? = nil, from: Double = 0, volume: Double = 1) {
        self.file = file
        self.corner = corner
        self.size = size
        self.shape = shape
        self.places = places
        self.from = from
        self.volume = volume
    }

    /// Width over height as shown (1 when unknown).
    public var aspect: Double {
        guard let width, let height, width > 0, height > 0 else { return 1 }
        return Double(width) / Double(height)
    }
}

/// What the scene's check learnt of a video it names, or why it cannot be played.
public struct VideoFacts: Equatable, Sendable {
    /// Size as shown (after the rotation tag).
    public var width: Int
    public var height: Int
    /// Seconds (nil: the file does not say).
    public var duration: Double?
    public var hasSound: Bool

    public init(width: Int, height: Int, duration: Double?, hasSound: Bool) {
        self.width = width
        self.height = height
        self.duration = duration
        self.hasSound = hasSound
    }
}

extension Scene {
    /// The sound of the clips (not muted) and the presenter, as cues for the mixer. `windows`: the
    /// seconds of the trip each shows in (a clip: its place's rest; the presenter: each stretch it is
    /// up), as the timeline times them (`Timeline.videoWindows`). `directory`: the scene's folder.
    public func soundCues(clipWindows: [Int: Range<Double>], presenterWindows: [Range<Double>],
                          directory: URL) -> [SoundCue] {
        var cues: [SoundCue] = []
        func add(_ file: String, start: Double, offset: Double, length: Double, fileDuration: Double?, gain: Double) {
            var d = length
            if let fileDuration { d = min(d, fileDuration - offset) }
            guard d > 0, gain > 0 else { return }
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : directory.appendingPathComponent(file)
            cues.append(SoundCue(file: url.standardizedFileURL,
                                 start: start, offset: offset, duration: d, gain: gain))
        }
        for (i, place) in places.enumerated() {
            guard let clip = place.clip, !clip.muted, clip.hasSound != false, let w = clipWindows[i] else { continue }
            add(clip.file, start: w.lowerBound, offset: clip.from, length: w.upperBound - w.lowerBound,
                fileDuration: clip.duration, gain: clip.volume)
        }
        if let presenter, presenter.hasSound != false {
            for w in presenterWindows {
                add(presenter.file, start: w.lowerBound, offset: presenter.from + w.lowerBound,
                    length: w.upperBound - w.lowerBound, fileDuration: presenter.duration, gain: presenter.volume)
            }
        }
        return cues.sorted { ($0.start, $0.file.path) < ($1.start, $1.file.path) }
    }
}
