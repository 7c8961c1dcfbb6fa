import Foundation
import MapTripOutput

extension MediaOutput: FrameSink {}
extension GIFPalettePass: FrameSink {}

/// The clock a live stream is paced by: the wall clock in a render, a virtual one in tests (time
/// passes only when the sink sleeps, so a test of a live output takes no wall time).
public protocol PacingClock: AnyObject {
    /// Seconds since an origin of the clock's own.
    func now() -> Double
    /// Waits `seconds` (more than 0).
    func sleep(seconds: Double)
}

/// The wall clock (monotonic).
public final class WallClock: PacingClock {
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    public init() { origin = clock.now }

    public func now() -> Double {
        let d = clock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    public func sleep(seconds: Double) { Thread.sleep(forTimeInterval: seconds) }
}

/// A sink paced by a clock (the wall clock for live streams): frame n is handed on at n/fps seconds
/// after the first, never earlier. A machine too slow to keep up is not hidden: `report` says how
/// late it ran.
public final class PacedSink: FrameSink {
    private let sink: FrameSink
    private let fps: Int
    private let clock: PacingClock
    private var start: Double?
    private var last: Double?
    private var frame = 0
    /// Seconds from the first frame to the last one handed on.
    public var elapsed: Double {
        guard let start, let last else { return 0 }
        return last - start
    }

    /// Frames handed on more than one frame interval late, and the worst lateness in seconds.
    public private(set) var lateFrames = 0
    public private(set) var worstLateness = 0.0

    public init(_ sink: FrameSink, fps: Int, clock: PacingClock = WallClock()) {
        self.sink = sink
        self.fps = fps
        self.clock = clock
    }

    public func write(bgra: UnsafePointer<UInt8>, stride: Int) throws {
        wait()
        try sink.write(bgra: bgra, stride: stride)
    }

    public func begin() throws { try sink.begin() }

    public func repeatLast() throws {
        wait()
        try sink.repeatLast()
    }

    /// Sleeps until frame `frame` is due; notes lateness.
    private func wait() {
        let now = clock.now()
        let start = self.start ?? now
        self.start = start
        let due = start + Double(frame) / Double(fps)
        if now < due {
            clock.sleep(seconds: due - now)
        } else {
            let late = now - due
            if late > 1 / Double(fps) { lateFrames += 1 }
            worstLateness = max(worstLateness, late)
        }
        frame += 1
        last = clock.now()
    }

    /// A line for the user when the stream fell behind the clock, else nil.
    public var report: String? {
        guard lateFrames > 0 else { return nil }
        return String(format: "this machine could not keep up with the live stream: %d of %d frames left late, "
                      + "up to %.2f s (lower the frame size or use a faster --preset)", lateFrames, frame, worstLateness)
    }
}
