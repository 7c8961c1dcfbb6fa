import Foundation
import MapTripScene

/// The presenter's value at one frame: the second of its file shown, and its opacity.
public struct PresenterValue: Equatable, Sendable {
    public var seconds: Double
    public var opacity: Double
}

/// When the presenter shows (`Scene.presenter`): the stretches of frames it is up (the whole trip, or
/// its places' slots, neighbours joined), fading in and out at their edges inside the trip; at frame n
/// it shows second `from + n / fps` of its file (held at the file's end).
public struct PresenterTrack: Equatable, Sendable {
    /// Frames it is up, in order, apart.
    public let windows: [Range<Int>]
    let frameCount: Int
    let fade: Double
    let fps: Int
    let from: Double
    let duration: Double?

    init(_ presenter: Presenter, slots: [Slot], frameCount: Int, fps: Int, fade: Double) {
        var windows: [Range<Int>] = []
        if let places = presenter.places, !slots.isEmpty {
            for i in places where i < slots.count {
                let start = slots[i].startFrame, end = i == slots.count - 1 ? frameCount : slots[i].endFrame
                guard end > start else { continue }
                if let last = windows.last, last.upperBound >= start {
                    windows[windows.count - 1] = last.lowerBound..<max(last.upperBound, end)
                } else {
                    windows.append(start..<end)
                }
            }
        } else if frameCount > 0 {
            windows = [0..<frameCount]
        }
        self.windows = windows
        self.frameCount = frameCount
        self.fade = fade
        self.fps = fps
        from = presenter.from
        duration = presenter.duration
    }

    /// Its value at frame n (nil: not showing).
    public func value(at n: Int) -> PresenterValue? {
        guard let w = windows.first(where: { $0.contains(n) }) else { return nil }
        let length = Double(w.count)
        let fadeIn = w.lowerBound > 0 ? min(fade, length / 3) : 0
        let fadeOut = w.upperBound < frameCount ? min(fade, length / 3) : 0
        let cue = Cue(kind: .title, start: Double(w.lowerBound), end: Double(w.upperBound), fadeIn: fadeIn, fadeOut: fadeOut)
        let opacity = cue.opacity(at: n)
        guard opacity > 0 else { return nil }
        var t = from + Double(n) / Double(fps)
        if let duration { t = min(t, max(from, duration)) }
        return PresenterValue(seconds: t, opacity: opacity)
    }

    /// The seconds of the trip it shows in.
    public var seconds: [Range<Double>] {
        windows.map { Double($0.lowerBound) / Double(fps)..<Double($0.upperBound) / Double(fps) }
    }
}

extension Timeline {
    /// The second of place i's clip shown at frame n of its cue (held at the file's end).
    func clipSeconds(_ i: Int, cue: Cue, at n: Int) -> Double? {
        guard i < placeClips.count, let clip = placeClips[i] else { return nil }
        var t = clip.from + (Double(n) - cue.start) / Double(fps)
        if let d = clip.duration { t = min(t, max(clip.from, d)) }
        return t
    }

    /// The cards' values at frame n, in drawing order.
    func cardValues(at n: Int) -> [CardValue] {
        var cards: [CardValue] = []
        for cue in cues {
            let o = cue.opacity(at: n)
            guard o > 0 else { continue }
            var card = CardValue(cue: cue.kind, opacity: o)
            if case .clip(let i) = cue.kind { card.seconds = clipSeconds(i, cue: cue, at: n) }
            cards.append(card)
        }
        return cards
    }

    /// The seconds of the trip each place's clip plays in (its card's cue).
    public var clipWindows: [Int: Range<Double>] {
        var windows: [Int: Range<Double>] = [:]
        for cue in cues {
            guard case .clip(let i) = cue.kind else { continue }
            windows[i] = cue.start / Double(fps)..<cue.end / Double(fps)
        }
        return windows
    }

    /// The sound of the scene's clips and presenter, timed by this timeline (`Scene.soundCues`).
    public func soundCues(for scene: Scene, directory: URL) -> [SoundCue] {
        scene.soundCues(clipWindows: clipWindows, presenterWindows: presenterTrack?.seconds ?? [], directory: directory)
    }
}
