import Foundation
import MapTripCore
import MapTripRender

/// Where frames go: an encoder, or a test or benchmark sink.
public protocol FrameSink: AnyObject {
    /// A new picture: premultiplied BGRA (Cairo ARGB32) rows `stride` bytes apart.
    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws
    /// The previous picture again, unchanged (a still frame: nothing to draw or convert).
    func repeatLast() throws
}

/// What a finished recording did.
public struct RecordSummary: Sendable {
    public var frames: Int
    /// Frames drawn; the rest repeated the frame before them.
    public var drawnFrames: Int
    public var duration: Double
    public var seconds: Double
    public var warnings: [String]
}

/// The recorder: runs the timeline's virtual clock frame by frame, draws each new picture with the
/// frame renderer and hands it to the sink; a still camera's frames are drawn once and repeated.
public final class Recorder {
    public let scene: Scene
    public let timeline: Timeline
    public let renderer: FrameRenderer

    public init(scene: Scene, baseMap: BaseMap) throws {
        self.scene = scene
        timeline = Timeline(scene: scene)
        renderer = try FrameRenderer(scene: scene, baseMap: baseMap)
    }

    /// Every distinct viewport the trip shows, for the base map to load or fetch ahead.
    public func viewports() -> [Viewport] {
        var seen = Set<Camera>()
        var out: [Viewport] = []
        for n in 0..<timeline.frameCount {
            let c = timeline.camera(at: n)
            if seen.insert(c).inserted { out.append(renderer.viewport(c)) }
        }
        return out
    }

    public func record(to sink: FrameSink, cancellation: Cancellation = Cancellation(),
                       progress: ((RenderProgress) -> Void)? = nil) throws -> RecordSummary {
        let clock = ContinuousClock()
        let start = clock.now
        func elapsed() -> Double {
            let d = clock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        try renderer.baseMap.prepare(for: viewports())
        var last: FrameState?
        var drawn = 0
        let total = timeline.frameCount
        for n in 0..<total {
            if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
            let state = timeline.state(at: n)
            if state == last {
                try sink.repeatLast()
            } else {
                try renderer.render(state)
                try sink.write(bgra: renderer.surface.data, stride: renderer.surface.stride)
                last = state
                drawn += 1
            }
            progress?(RenderProgress(frame: n + 1, frameCount: total, elapsed: elapsed()))
        }
        return RecordSummary(frames: total, drawnFrames: drawn, duration: timeline.duration, seconds: elapsed(),
                             warnings: renderer.baseMap.warnings)
    }
}

extension VideoOutput: FrameSink {}
