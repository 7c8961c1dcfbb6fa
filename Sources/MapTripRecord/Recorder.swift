import FFmpeg
import Foundation
import Heap
import MapTripOutput
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTime
import MapTripRender

/// Where frames go: an encoder, or a test or benchmark sink.
public protocol FrameSink: AnyObject {
    /// A new picture: premultiplied BGRA (Cairo ARGB32) rows `stride` bytes apart. The sink must be
    /// done with the pixels when it returns (the buffer is drawn over next).
    func write(bgra: UnsafePointer<UInt8>, stride: Int) throws
    /// The previous picture again, unchanged (a still frame: nothing to draw or convert).
    func repeatLast() throws
    /// Called once by `Recorder.record` as soon as its drawing thread has begun, before the first
    /// picture: a sink may open its output here, while the first frames are drawn (by default nothing).
    func begin() throws
    /// Converters to the sink's pixel format, as many as fit in `budget` bytes (at least 2); nil (the
    /// default) when the sink converts its pictures itself. With converters, the recorder converts
    /// each picture on the drawing thread, right after drawing it, into one of a few frames (a 1080p
    /// I420 frame is 3 MB, its BGRA picture 8 MB), so that more pictures wait drawn ahead of the
    /// encoder in the same memory; where the frame format's pixels are I420, frames are drawn
    /// straight into them where the renderer can.
    func makeConverters(budget: Int) throws -> [PixelConverter]?
    /// A converted picture as the next frame (only a sink that made converters gets them);
    /// `repeatLast` sends it again until the next one.
    func write(converted frame: Frame) throws
}

extension FrameSink {
    public func begin() throws {}
    public func makeConverters(budget: Int) throws -> [PixelConverter]? { nil }
    public func write(converted frame: Frame) throws {
        throw FFmpegError(code: FFmpegError.invalidArgument, operation: "FrameSink",
                          message: "a converted frame given to a sink that made no converters")
    }
}


/// What a finished recording did.
public struct RecordSummary: Sendable {
    public var frames: Int
    /// Frames drawn; the rest repeated the frame before them.
    public var drawnFrames: Int
    public var duration: Double
    public var seconds: Double
    public var warnings: [String]
    /// What the base map's raster cache did (nil: it has none).
    public var rasterCache: RasterCacheStatistics? = nil
}

/// The recorder: runs the timeline's virtual clock frame by frame, draws each new picture with the
/// frame renderer and hands it to the sink; a still camera's frames are drawn once and repeated.
///
/// Drawing runs on a thread of its own, a few frames ahead of the sink (x264 leaves part of the
/// machine idle between its own threads; the drawing fills it). The order of frames, and so the
/// output, is exactly that of a serial loop. A sink with converters (an encoder) gets its pictures
/// converted on the drawing thread into frames of its pixel format, one and a quarter drawn pictures'
/// worth of memory (three 4:2:0 frames: two waiting, the one the sink repeats): the drawing runs two
/// pictures ahead in less memory than a second drawn picture and the sink's own frame took. Frames
/// drawn straight into I420 leave the drawing surface untouched, and get its memory as well: six
/// frames, five waiting, so that the drawing keeps working while x264's threads wait on each other.
public final class Recorder {
    public let scene: Scene
    /// The frames recorded (the scene's own, or an output's): the timeline and renderer are made from it.
    public let format: FrameFormat
    public let timeline: Timeline
    public let renderer: FrameRenderer
    /// Pictures that may be drawn ahead of a sink that converts them itself (a GIF's palette pass, a
    /// paced stream, a test's sink): surfaces cost 8 MB each at 1080p.
    public let ahead: Int

    /// `format`: the frames recorded (nil: the scene's own, `Video.format`).
    public init(scene: Scene, format: FrameFormat? = nil, baseMap: BaseMap, media: SceneMedia = SceneMedia(),
                ahead: Int = 1, fastPaths: FastPaths = .all) throws {
        self.scene = scene
        let format = format ?? scene.video.format
        self.format = format
        let projection = try Projection.make(for: scene)
        timeline = Timeline(scene: scene, format: format, projection: projection)
        self.ahead = max(1, ahead)
        renderer = try FrameRenderer(scene: scene, format: format, baseMap: baseMap, media: media,
                                     buffers: self.ahead + 1, projection: projection, fastPaths: fastPaths)
    }

    /// Every distinct viewport the trip shows (or the frames `frames` of it), for the base map to load
    /// or fetch ahead.
    public func viewports(frames: Range<Int>? = nil) -> [Viewport] {
        var seen = Set<Camera>()
        var out: [Viewport] = []
        for n in frames ?? 0..<timeline.frameCount {
            let c = timeline.camera(at: n)
            if seen.insert(c).inserted { out.append(renderer.viewport(c)) }
        }
        return out
    }

    /// Loads and plans the base map for the frames `frames` (nil: all): the data their zooms need, the
    /// tiles they show, and what to cache over the whole trip. `record` does this itself when it has
    /// not been done; done first, a map that cannot load fails before any output is opened, and the
    /// loading's passing memory is given back before the encoder takes its own.
    public func prepareBaseMap(frames: Range<Int>? = nil) throws {
        let range = frames ?? 0..<timeline.frameCount
        if preparedRange == range { return }
        try renderer.baseMap.prepare(for: viewports(frames: range))
        // Over the whole trip, whatever the range: a part's frames are those of the whole render.
        renderer.planBaseMap(timeline)
        preparedRange = range
        // Loading freed more than it kept (the full geometry once its levels are built): give the
        // pages back before the encoder opens and takes its own.
        Heap.giveBackFreePages()
    }

    private var preparedRange: Range<Int>?

    /// Starts the overlays' preparation for a recording of the frames `frames` (nil: all): what its
    /// first frame shows first (see `FrameRenderer.prepareOverlays`). `after`: work to wait for first.
    public func prepareOverlays(frames: Range<Int>? = nil, after: DispatchGroup? = nil) {
        let first = (frames ?? 0..<timeline.frameCount).lowerBound
        renderer.prepareOverlays(after: after, first: first < timeline.frameCount ? timeline.values(at: first) : nil)
    }

    /// The memory for converted frames waiting for the encoder, given a drawn picture's `picture` bytes:
    /// a quarter more than a drawn picture; or, frames drawn straight into I420
    /// (`FrameRenderer.renderPlanar`), which touch a band of BGRA rows rather than the drawing surface,
    /// that surface's memory and as much again (12 frames, 37 MB at 1080p): while a place holds the
    /// screen x264 encodes repeats and leaves a core half idle, and the drawing fills it with the next
    /// flight's first frames rather than drawing them later against x264. Measured (the Helsinki walk,
    /// 6 alternating rounds): 12 frames ahead took its time from 1.093 to 1.065 of x264 alone's, faster
    /// in every round; 24 no further (1.077); the road trip and the world tour the same within their
    /// noise (1.075 / 1.064, 1.071 / 1.072); the peak 18 MB higher. At most 50 MB all the same: a larger frame
    /// keeps x264 busy for longer, so fewer of them keep the drawing as far ahead (four at 4K, not six).
    /// The drawing runs as far ahead as it is let, so a render writes to every one of these frames: 4K
    /// at `veryfast`, four frames rather than six took the peak from 1034 to 1014 MB at the same speed
    /// (5 alternating runs of each: 0.99 the time). `makeConverters` makes at least two frames whatever
    /// their size.
    static func convertedFramesBudget(picture: Int, drawnIntoI420: Bool) -> Int {
        min(drawnIntoI420 ? picture * 9 / 2 : picture * 5 / 4, 50 << 20)
    }

    /// Records the trip, or only its frames `frames` (a part of it: frame n of the part is frame n of
    /// the whole, the first one always drawn, never a repeat). Check the range with `FrameRange.check`.
    public func record(to sink: FrameSink, frames: Range<Int>? = nil, cancellation: Cancellation = Cancellation(),
                       progress: ((RenderProgress) -> Void)? = nil) throws -> RecordSummary {
        let range = frames ?? 0..<timeline.frameCount
        if let frames { try FrameRange(frames).check(frameCount: timeline.frameCount) }
        let clock = ContinuousClock()
        let start = clock.now
        func elapsed() -> Double {
            let d = clock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        // The overlays' preparation started beside the map's and the encoder's opening (nothing new
        // where the caller started it already, as `RenderJob.run` does).
        prepareOverlays(frames: range)
        try prepareBaseMap(frames: range)
        let total = range.count
        let picture = renderer.surface.stride * renderer.surface.height
        let drawnIntoI420 = format.pixels == .i420 && renderer.fastPaths.planar
        let converters = try sink.makeConverters(
            budget: Self.convertedFramesBudget(picture: picture, drawnIntoI420: drawnIntoI420))
        let pipeline = DrawPipeline(buffers: converters == nil ? renderer.surfaces.count : 1, frames: converters?.count ?? 0)
        if drawnIntoI420, let path = converters?.first?.path, path != .i420 {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "Recorder",
                              message: "frames of I420 pixels (\(format)) given to a sink converting along \(path)")
        }
        let drawing = DrawingThread(renderer: renderer, timeline: timeline, frames: range, pipeline: pipeline,
                                    converters: converters, drawsIntoI420: drawnIntoI420)
        drawing.start()
        // Whatever happens here, the drawing thread is stopped and joined before we return: it must
        // not touch the renderer, or the surfaces, after this call.
        defer {
            pipeline.stop()
            drawing.join()
            renderer.baseMap.endRecording()
        }
        try sink.begin()
        var drawn = 0
        /// The converted picture the sink repeats until the next one.
        var held: Int?
        for n in 0..<total {
            if let sig = cancellation.signalNumber { throw CancelledError(signal: sig) }
            switch try pipeline.next() {
            case .picture(let buffer):
                let surface = renderer.surfaces[buffer]
                try sink.write(bgra: surface.data, stride: surface.stride)
                pipeline.release(buffer)
                drawn += 1
            case .converted(let index):
                try sink.write(converted: converters![index].frame)
                if let held { pipeline.releaseFrame(held) }
                held = index
                drawn += 1
            case .repeatLast:
                try sink.repeatLast()
            }
            progress?(RenderProgress(frame: n + 1, frameCount: total, elapsed: elapsed()))
        }
        return RecordSummary(frames: total, drawnFrames: drawn, duration: Double(total) / Double(timeline.fps),
                             seconds: elapsed(),
                             warnings: renderer.baseMap.warnings, rasterCache: renderer.baseMap.rasterCacheStatistics)
    }
}

/// Frames handed from the drawing thread to the sink, in order, through a bounded queue, with the
/// surfaces they were drawn into lent out and given back.
final class DrawPipeline: @unchecked Sendable {
    enum Item {
        /// A picture drawn into a surface of the renderer, given back with `release`.
        case picture(Int)
        /// A picture converted into a converter's frame, given back with `releaseFrame`.
        case converted(Int)
        case repeatLast
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var free: [Int]
    private var freeFrames: [Int]
    private var stopped = false
    private var failure: Error?
    /// Bound on queued items, so repeats of a long still stretch don't pile up.
    private let capacity = 64

    init(buffers: Int, frames: Int = 0) {
        free = Array(0..<buffers)
        freeFrames = Array(0..<frames)
    }

    /// Drawing side: a free surface to draw into, or nil once stopped.
    func acquire() -> Int? { take(from: \.free) }

    /// Drawing side: a free converter's frame to convert into, or nil once stopped.
    func acquireFrame() -> Int? { take(from: \.freeFrames) }

    private func take(from list: ReferenceWritableKeyPath<DrawPipeline, [Int]>) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while self[keyPath: list].isEmpty && !stopped { condition.wait() }
        return stopped ? nil : self[keyPath: list].removeLast()
    }

    /// Items queued for the sink, not yet taken.
    var backlog: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count - head
    }

    /// A backlog at which the drawing is not in a hurry: it draws on its own thread alone (see
    /// `DrawingThreads.withCrew`). Measured (world tour, `ultrafast`, 12 alternating renders with the
    /// tiles kept, 6 first renders): CPU 1.092 -> 1.084 of the encoder alone's, wall 1.070 -> 1.059
    /// (at 4: 1.088, 1.060); first renders the same (1.105 -> 1.102).
    static let unhurried = 2

    /// Drawing side: whether `acquire` (`frames`: `acquireFrame`) or `push` would wait now (not once stopped).
    func wouldWait(forFrame frames: Bool) -> Bool { blocked { (frames ? freeFrames : free).isEmpty } }
    func wouldWaitToPush() -> Bool { blocked { items.count - head >= capacity } }

    private func blocked(_ test: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return !stopped && test()
    }

    /// Drawing side: queues an item; false once stopped.
    func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity && !stopped { condition.wait() }
        if stopped { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// Drawing side: drawing failed; the sink side throws this error at its next frame.
    func fail(_ error: Error) {
        condition.broadcast { failure = error }
    }

    /// Sink side: the next frame, waiting for it to be drawn.
    func next() throws -> Item {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && failure == nil { condition.wait() }
        if head == items.count, let failure { throw failure }
        let item = items[head]
        head += 1
        if head > 256 {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    /// Sink side: done with a surface.
    func release(_ buffer: Int) { give(buffer, to: \.free) }

    /// Sink side: done with a converter's frame.
    func releaseFrame(_ index: Int) { give(index, to: \.freeFrames) }

    private func give(_ index: Int, to list: ReferenceWritableKeyPath<DrawPipeline, [Int]>) {
        condition.broadcast { self[keyPath: list].append(index) }
    }

    func stop() {
        condition.broadcast { stopped = true }
    }
}

/// The thread that walks the timeline and draws every new picture. Only this thread touches the
/// renderer (Cairo, Pango, the base map) while a recording runs.
final class DrawingThread: @unchecked Sendable {
    private let renderer: FrameRenderer
    private let timeline: Timeline
    private let frames: Range<Int>
    private let pipeline: DrawPipeline
    /// Converters to convert each picture with, right after drawing it (nil: the sink converts).
    private let converters: [PixelConverter]?
    /// Whether frames are drawn straight into the converters' I420 frames where the renderer can
    /// (the frame format's pixels).
    private let drawsIntoI420: Bool
    /// What each converter's frame holds of the pictures drawn into it before (see `PictureHistory`).
    private let histories: [PictureHistory]
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    init(renderer: FrameRenderer, timeline: Timeline, frames: Range<Int>, pipeline: DrawPipeline,
         converters: [PixelConverter]? = nil, drawsIntoI420: Bool = false) {
        self.renderer = renderer
        self.drawsIntoI420 = drawsIntoI420 && converters != nil
        self.timeline = timeline
        self.frames = frames
        self.pipeline = pipeline
        self.converters = converters
        histories = (converters ?? []).map { _ in PictureHistory() }
    }

    func start() {
        let t = Thread { [self] in
            // With helpers of its own, below the encoder's threads once the encoder has its first
            // frame (see `run` and `DrawingThreads`): it only has to keep the encoder fed.
            DrawingThreads.withCrew(shares: { [pipeline] in pipeline.backlog < DrawPipeline.unhurried }) { run() }
            finished.signal()
        }
        t.name = "maptrip-draw"
        t.stackSize = 8 << 20
        thread = t
        t.start()
    }

    func join() {
        if thread != nil {
            finished.wait()
            thread = nil
        }
    }

    private func run() {
        var last: FrameValues?
        for n in frames {
            // Every track's value: a frame is drawn when any of them has changed, repeated otherwise.
            let state = timeline.values(at: n)
            if state == last && renderer.fastPaths.stills, (try? renderer.holdsStill(frame: n, state)) ?? false {
                guard drawAhead(while: pipeline.wouldWaitToPush), pipeline.push(.repeatLast) else { return }
                continue
            }
            guard drawAhead(while: { pipeline.wouldWait(forFrame: converters != nil) }) else { return }
            // Converting: one surface, drawn and converted at once; the frames wait for the sink.
            // Otherwise the surfaces themselves wait.
            guard let index = converters == nil ? pipeline.acquire() : pipeline.acquireFrame() else { return }
            let buffer = converters == nil ? index : 0
            do {
                // An I420 output: a frame the map composites from rasters is drawn straight into it.
                var drawn = false
                if drawsIntoI420, let converter = converters?[index] {
                    var picture = try Self.picture(converter)
                    picture.history = histories[index]
                    drawn = try renderer.renderPlanar(state, frame: n, into: picture)
                }
                if !drawn {
                    if converters != nil { histories[index].forget() }
                    try renderer.render(state, frame: n, into: buffer)
                    if let converters {
                        let surface = renderer.surfaces[buffer]
                        try converters[index].convert(bgra: surface.data, stride: surface.stride)
                    }
                }
            } catch {
                pipeline.fail(error)
                return
            }
            if !pipeline.push(converters == nil ? .picture(index) : .converted(index)) { return }
            if last == nil { DrawingThreads.yieldWithCrew(to: DrawingThreads.nice) }
            last = state
        }
    }

    /// While `waiting` holds (the encoder has not taken a frame yet), draws what coming frames need
    /// rather than sleeping; false if that failed (the pipeline has the error).
    private func drawAhead(while waiting: () -> Bool) -> Bool {
        do {
            while waiting() {
                if try !renderer.drawAhead() { break }
            }
            return true
        } catch {
            pipeline.fail(error)
            return false
        }
    }

    /// An I420 converter's frame, writable, as a picture to draw into.
    static func picture(_ converter: PixelConverter) throws -> PlanarPicture {
        let p = try converter.writablePlanes()
        guard p.count >= 3 else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "DrawingThread",
                              message: "an I420 frame with \(p.count) planes")
        }
        return PlanarPicture(y: p[0].data, yStride: p[0].stride, u: p[1].data, uStride: p[1].stride,
                             v: p[2].data, vStride: p[2].stride, width: converter.width, height: converter.height,
                             matrix: converter.matrix)
    }
}
