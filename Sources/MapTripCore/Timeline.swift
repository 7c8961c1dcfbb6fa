import Foundation

/// Places seconds on the frame grid without drift: each boundary is the rounded product of the frame
/// rate and the exact cumulative sum of the dwells before it, so rounding never accumulates.
/// Sums are decimal, of the dwells as written (0.7 + 0.7 + 0.7 is exactly 2.1, and 2.1 s at 25 fps
/// is 52.5 frames, rounded half away from zero to 53), so the grid does not depend on binary noise.
struct FrameGrid: Equatable, Sendable {
    /// `boundaries[i]` is the first frame of slot i; the last element is the frame count.
    let boundaries: [Int]

    init(dwells: [Double], fps: Int) {
        var boundaries = [0]
        boundaries.reserveCapacity(dwells.count + 1)
        var sum = Decimal(0)
        for dwell in dwells {
            sum += Self.decimal(dwell)
            boundaries.append(Self.frames(sum, fps: fps))
        }
        self.boundaries = boundaries
    }

    var frameCount: Int { boundaries.last! }

    /// `round(fps * seconds)`, half away from zero, computed in decimal.
    static func frames(seconds: Double, fps: Int) -> Int {
        frames(decimal(seconds), fps: fps)
    }

    /// The shortest decimal that reads back as `x` (what a scene file most likely said).
    static func decimal(_ x: Double) -> Decimal {
        guard x.isFinite, x > 0 else { return 0 }
        return Decimal(string: x.description) ?? Decimal(x)
    }

    static func frames(_ seconds: Decimal, fps: Int) -> Int {
        var product = seconds * Decimal(fps)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &product, 0, .plain)
        // Scenes are validated to at most 10 million frames; anything absurd saturates.
        if rounded > Decimal(Int(Int32.max)) { return Int(Int32.max) }
        return NSDecimalNumber(decimal: rounded).intValue
    }
}

/// The part of the video that belongs to one place: the flight in, then the rest on the place.
public struct Slot: Equatable, Sendable {
    public let index: Int
    public let place: Place
    /// The frame where the slot's timer fires (and the flight in starts).
    public let startFrame: Int
    /// The first frame with the camera resting on the place (and its pin shown).
    public let arriveFrame: Int
    /// The first frame of the next slot (exclusive).
    public let endFrame: Int

    public init(index: Int, place: Place, startFrame: Int, arriveFrame: Int, endFrame: Int) {
        self.index = index
        self.place = place
        self.startFrame = startFrame
        self.arriveFrame = arriveFrame
        self.endFrame = endFrame
    }

    public var frameCount: Int { endFrame - startFrame }
    public var flightFrames: Int { arriveFrame - startFrame }
    /// The camera resting on the place.
    public var camera: Camera { place.camera }
}

extension Place {
    /// The camera resting on this place: centred on it at its zoom.
    public var camera: Camera { Camera(center: position, zoom: zoom) }
}

/// Everything that decides what frame n looks like. Equal states draw identical pictures, so the
/// recorder can reuse a frame when the state has not changed.
public struct FrameState: Equatable, Sendable {
    public var camera: Camera
    /// How many places have pins: place j is reached from its slot's `arriveFrame`.
    public var reached: Int
    /// The index of the slot the frame belongs to.
    public var current: Int
    /// The opacity of the title card, 0 when there is none.
    public var titleOpacity: Double

    public init(camera: Camera, reached: Int, current: Int, titleOpacity: Double) {
        self.camera = camera
        self.reached = reached
        self.current = current
        self.titleOpacity = titleOpacity
    }
}

/// The timer-driven animation on a virtual clock: frame n shows time n / fps. Place i holds the
/// screen for its dwell (slot i); at the start of each slot after the first, the camera flies from the
/// previous place to the new one, then rests there until the slot ends. Deterministic and exact:
/// every frame of a resting camera has the same `FrameState`.
public struct Timeline: Sendable {
    /// Seconds over which the title fades out at the end of the first slot.
    public static let titleFade = 0.5

    public let fps: Int
    public let frameCount: Int
    public var duration: Double { Double(frameCount) / Double(fps) }
    public let slots: [Slot]
    public let hasTitle: Bool

    /// The flight into slot i (nil for slot 0 and for jumps).
    private let flights: [Flight?]
    /// The title is fully visible up to this frame (a fractional frame number) ...
    private let titleFadeStart: Double
    /// ... and gone at this one (the end of slot 0).
    private let titleFadeEnd: Double

    public init(scene: Scene) {
        precondition(!scene.places.isEmpty, "a scene has at least one place")
        precondition(scene.video.fps > 0, "fps must be positive")
        let fps = scene.video.fps
        let grid = FrameGrid(dwells: scene.places.map(\.dwell), fps: fps)
        var slots: [Slot] = []
        slots.reserveCapacity(scene.places.count)
        for (i, place) in scene.places.enumerated() {
            let start = grid.boundaries[i], end = grid.boundaries[i + 1]
            // The flight ends by the slot's last frame at the latest, so every place is visited:
            // its pin shows and the camera rests on it, however short its dwell (the video ends
            // centred on the last place).
            let arrive = i == 0
                ? start
                : min(max(start, end - 1), start + FrameGrid.frames(seconds: place.flight ?? scene.flight, fps: fps))
            slots.append(Slot(index: i, place: place, startFrame: start, arriveFrame: arrive, endFrame: end))
        }

        let viewSize = Double(max(scene.video.width, scene.video.height)) / scene.video.scale
        self.fps = fps
        self.frameCount = grid.frameCount
        self.slots = slots
        self.flights = slots.indices.map { i in
            guard i > 0, slots[i].flightFrames > 0 else { return nil }
            return Flight(from: slots[i - 1].camera, to: slots[i].camera, viewSize: viewSize)
        }

        hasTitle = scene.title != nil
        let firstEnd = Double(slots[0].endFrame)
        let fade = firstEnd >= 3 * Self.titleFade * Double(fps) ? Self.titleFade * Double(fps) : firstEnd / 3
        titleFadeStart = firstEnd - fade
        titleFadeEnd = firstEnd
    }

    /// Time in seconds of frame n.
    public func time(ofFrame n: Int) -> Double { Double(n) / Double(fps) }

    /// The index of the slot that frame n belongs to (frames are clamped into the video).
    public func slotIndex(at frame: Int) -> Int {
        let n = clamp(frame)
        // The last slot starting at or before n (zero-length slots before it are skipped).
        var low = 0, high = slots.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if slots[mid].startFrame <= n { low = mid } else { high = mid - 1 }
        }
        return low
    }

    public func state(at frame: Int) -> FrameState {
        let n = clamp(frame)
        let i = slotIndex(at: n)
        let slot = slots[i]
        return FrameState(camera: camera(in: slot, at: n),
                          reached: i + (n >= slot.arriveFrame ? 1 : 0),
                          current: i,
                          titleOpacity: titleOpacity(at: n))
    }

    public func camera(at frame: Int) -> Camera {
        let n = clamp(frame)
        return camera(in: slots[slotIndex(at: n)], at: n)
    }

    /// The title's opacity: 1 through slot 0, fading linearly to 0 over its last 0.5 s (or its last
    /// third, if it is shorter than 1.5 s); 0 afterwards, and always 0 without a title.
    public func titleOpacity(at frame: Int) -> Double {
        guard hasTitle else { return 0 }
        let n = Double(clamp(frame))
        if n <= titleFadeStart { return 1 }
        if n >= titleFadeEnd { return 0 }
        return (titleFadeEnd - n) / (titleFadeEnd - titleFadeStart)
    }

    private func camera(in slot: Slot, at n: Int) -> Camera {
        guard n < slot.arriveFrame, let flight = flights[slot.index] else { return slot.camera }
        return flight.camera(at: Double(n - slot.startFrame) / Double(slot.flightFrames))
    }

    private func clamp(_ frame: Int) -> Int {
        min(max(frame, 0), max(frameCount - 1, 0))
    }
}
