import Foundation
import MapTripOutput

extension MediaOutput: FrameSink {}
extension GIFPalettePass: FrameSink {}

/// A sink paced by the wall clock, for live streams: frame n is handed on at n/fps seconds after the
/// first, never earlier. A machine too slow to keep up is not hidden: `report` says how late it ran.
public final class PacedSink: FrameSink {
    private let sink: FrameSink
    private let fps: Int
    private let clock = ContinuousClock()
    private var start: ContinuousClock.Instant?
    private var frame = 0
    /// Seconds from the first frame to the last one handed on.
    public var elapsed: Double {
        guard let start, let last else { return 0 }
        let d = last - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
    private var last: ContinuousClock.Instant?

    /// Frames handed on more than one frame interval late, and the worst lateness in seconds.
    public private(set) var lateFrames = 0
    public private(set) var worstLateness = 0.0

    public init(_ sink: FrameSink, fps: Int) {
        self.sink = sink
        self.fps = fps
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
        let now = clock.now
        let start = self.start ?? now
        self.start = start
        let due = start + .nanoseconds(Int64(frame) * 1_000_000_000 / Int64(fps))
        if now < due {
            Thread.sleep(forTimeInterval: Double((due - now).components.attoseconds) * 1e-18
                         + Double((due - now).components.seconds))
        } else {
            let late = now - due
            let seconds = Double(late.components.seconds) + Double(late.components.attoseconds) * 1e-18
            if seconds > 1 / Double(fps) { lateFrames += 1 }
            worstLateness = max(worstLateness, seconds)
        }
        frame += 1
        last = clock.now
    }

    /// A line for the user when the stream fell behind the clock, else nil.
    public var report: String? {
        guard lateFrames > 0 else { return nil }
        return String(format: "this machine could not keep up with the live stream: %d of %d frames left late, "
                      + "up to %.2f s (lower the frame size or use a faster --preset)", lateFrames, frame, worstLateness)
    }
}
