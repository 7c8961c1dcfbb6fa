import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport
import MapTripTime
import RasterKernels

/// Draws frames: the base map, then the overlay layers in order, onto reusable Cairo surfaces. It
/// keeps `buffers` surfaces so a frame can be drawn while earlier ones are still being encoded.
public final class FrameRenderer {
    public let scene: Scene
    /// The frames drawn: their size and pixel ratio (the scene's own, or an output's).
    public let format: FrameFormat
    public let baseMap: BaseMap
    public var overlays: [Overlay]
    public let surfaces: [ImageSurface]
    public let layout: FrameLayout
    public let media: SceneMedia
    /// The projection every frame is drawn through.
    public let projection: Projection
    /// The shortcuts taken to the same pictures (see `FastPaths`).
    public let fastPaths: FastPaths
    private let routes: [RouteLine?]
    private let contexts: [Context]

    /// The layers every trip draws, bottom to top.
    public static func standardOverlays() -> [Overlay] {
        let places = PlacesOverlay()
        // Towns (the embedded map's, when it has them) over the route, under the pins and clear of them.
        return [GraticuleOverlay(), BackgroundTracksOverlay(), RouteOverlay(), MoverOverlay(drawsMovers: false),
                TownsOverlay(places: places), places, VehicleOverlay(), MoverOverlay(drawsLines: false), FurnitureOverlay(),
                CutDipOverlay(),
                PhotoOverlay(), PresenterOverlay(), CaptionOverlay(), DistanceOverlay(), ReadoutOverlay(), ClockOverlay(),
                LegendOverlay(), TitleOverlay(), AttributionOverlay()]
    }

    /// `format`: the frames drawn (nil: the scene's own, `Video.format`). `projection`: the scene's,
    /// made (nil: made here from the scene).
    public init(scene: Scene, format: FrameFormat? = nil, baseMap: BaseMap, media: SceneMedia = SceneMedia(),
                overlays: [Overlay]? = nil, buffers: Int = 1, projection: Projection? = nil,
                fastPaths: FastPaths = .all) throws {
        self.scene = scene
        let format = format ?? scene.video.format
        self.format = format
        self.fastPaths = fastPaths
        self.projection = try projection ?? Projection.make(for: scene)
        self.baseMap = baseMap
        self.media = media
        self.overlays = overlays ?? Self.standardOverlays()
        layout = FrameLayout(width: format.width, height: format.height, safeZone: scene.video.safeZone,
                             presenter: scene.presenter)
        routes = Timeline.routes(for: scene)
        surfaces = try (0..<max(1, buffers)).map { _ in
            try ImageSurface(width: format.width, height: format.height)
        }
        contexts = try surfaces.map { try Context(surface: $0) }
    }

    /// The first surface (the only one when `buffers` is 1).
    public var surface: ImageSurface { surfaces[0] }

    public func viewport(_ camera: Camera) -> Viewport {
        Viewport(camera: camera, width: format.width, height: format.height, scale: format.scale, projection: projection)
    }

    /// Tells the base map every frame's camera of the whole trip (see `BaseMap.plan`), whatever part of
    /// it is drawn: a frame is drawn the same way in a whole render, a part and a preview.
    public func planBaseMap(_ timeline: Timeline) {
        self.timeline = timeline
        baseMap.plan(frames: (0..<timeline.frameCount).map { timeline.camera(at: $0) }, format: format)
    }

    /// Starts the overlays' preparation (`OverlayFastPaths.preparation`): a render calls it as it starts. The
    /// steps the first frame drawn needs (its values `first`; nil: all of them) are made on another
    /// thread, beside the map's preparation and the encoder's opening, and that frame waits for them
    /// before its overlays (its base map drawn meanwhile). The others are made by `drawAhead`, on the
    /// drawing thread, while it waits for the encoder: during the trip's first still stretch rather
    /// than before its first frame, where every core is busy (the world tour's first frame waited
    /// for its eight places' labels). Either way, the frames that draw a label find it made. A
    /// failure is left for the frame that meets it to report.
    ///
    /// `after`: work to wait for first (the text's set-up, `TextSetup.warmUp`).
    public func prepareOverlays(after: DispatchGroup? = nil, first: FrameValues? = nil) {
        guard !overlaysStarted else { return }
        overlaysStarted = true
        // Without drawing ahead, each frame makes what it needs as it draws.
        guard fastPaths.drawAhead else { return }
        let steps = overlays.compactMap { $0 as? OverlayFastPaths }.flatMap { $0.preparation(scene, layout: layout, first: first) }
        laterSteps = steps.filter { !$0.forFirstFrame }[...]
        let group = DispatchGroup()
        let work = OverlayPreparation(steps: steps.filter(\.forFirstFrame))
        DispatchQueue.global().async(group: group) {
            after?.wait()
            for step in work.steps { try? step.make() }
        }
        overlaysPrepared = group
    }

    /// The trip's timeline, once planned (`planBaseMap`): frames drawn with their number see the
    /// trip's other frames through it (`FrameContext.frameAt`).
    private var timeline: Timeline?

    /// What the overlays see of a frame: its values, its view, and (with its number, once the trip is
    /// planned) the trip's other frames.
    public func context(_ values: FrameValues, frame number: Int? = nil) -> FrameContext {
        var frame = FrameContext(scene: scene, values: values, viewport: viewport(values.camera), layout: layout,
                                 baseMap: baseMap, routes: routes, media: media)
        frame.fastPaths = fastPaths
        if let number, let timeline {
            frame.number = number
            frame.frameAt = { [unowned self] k in self.context(timeline.values(at: k), frame: k) }
            frame.frameCount = timeline.frameCount
            frame.viewportAt = { [unowned self] k in self.viewport(timeline.camera(at: k)) }
            if timeline.slots.isEmpty {
                // A playback without places has no slots: one stretch.
                frame.stretch = 0..<max(1, timeline.frameCount)
            } else {
                let slot = timeline.slots[timeline.slotIndex(at: number)]
                frame.stretch = number >= slot.endFrame ? slot.endFrame..<max(slot.endFrame + 1, timeline.frameCount)
                    : number >= slot.arriveFrame ? slot.arriveFrame..<slot.endFrame
                    : slot.startFrame..<max(slot.startFrame + 1, slot.arriveFrame)
            }
        }
        return frame
    }

    /// Whether frame `number`, with the same values as the frame before it, shows the same picture:
    /// no overlay changes by its own clock there (a label fading across sides).
    public func holdsStill(frame number: Int, _ values: FrameValues) throws -> Bool {
        let frame = context(values, frame: number)
        for case let overlay as OverlayFastPaths in overlays where try overlay.animates(frame) { return false }
        return true
    }

    /// Whether `prepareOverlays` has run.
    private var overlaysStarted = false
    /// The overlays' preparation for the first frame, under way (see `prepareOverlays`), waited for
    /// before any overlay draws.
    private var overlaysPrepared: DispatchGroup?
    /// The rest of the overlays' preparation, made on the drawing thread by `drawAhead` once the
    /// first frame's is done.
    private var laterSteps: ArraySlice<PreparationStep> = []

    func waitForOverlays() {
        overlaysPrepared?.wait()
        overlaysPrepared = nil
    }

    /// Draws one frame into surface `buffer`; its pixels are flushed and ready to read on return.
    /// `frame`: its number in the trip (see `context`).
    public func render(_ values: FrameValues, frame number: Int? = nil, into buffer: Int = 0) throws {
        let cr = contexts[buffer]
        let frame = context(values, frame: number)
        let v = frame.viewport
        cr.save()
        try tellMapTripMarks(frame)
        try baseMap.draw(v, in: cr)
        waitForOverlays()
        for overlay in overlays {
            try overlay.draw(frame, in: cr)
        }
        cr.restore()
        try cr.checkStatus("render frame")
        surfaces[buffer].flush()
    }

    /// Makes ahead what the coming frames will need: one small piece, false when there is none. The
    /// overlays' preparation left for the drawing thread (see `prepareOverlays`) first, once the first
    /// frame's is done, then the base map's `drawAhead`.
    public func drawAhead() throws -> Bool {
        guard fastPaths.drawAhead else { return false }
        if overlaysPrepared == nil, let step = laterSteps.popFirst() {
            // A failure is the frame's that meets it to report.
            try? step.make()
            return true
        }
        return try baseMap.drawAhead()
    }

    /// Draws one frame straight into an I420 picture, where the base map can paint it so (a frame it
    /// composites from rasters, a held picture it keeps): the map into the picture; each overlay
    /// recorded, and replayed inside its ink rectangle only, a band of rows at a time, on a BGRA band
    /// of the frame's width (transparent), or, an overlay of lines that tells its cells
    /// (`OverlayFastPaths.inkCells`), drawn on each band in those cells; those rectangles' rows blended over
    /// the picture (OVER is associative: the same picture as the overlays drawn over the map, then
    /// converted, within rounding). The band is all the BGRA memory such a frame touches (a quarter
    /// of the frame: 2 MB at 1080p, not 8). An overlay that draws itself straight into the picture
    /// (`OverlayFastPaths.drawPlanar`, the route) does so where nothing is drawn under it yet, without the band.
    /// Returns false, drawing nothing, where the map cannot: `render` and convert then.
    public func renderPlanar(_ values: FrameValues, frame number: Int? = nil, into picture: PlanarPicture) throws -> Bool {
        let width = format.width, height = format.height
        guard fastPaths.planar, picture.width == width, picture.height == height, width % 2 == 0, height % 2 == 0 else { return false }
        let band = try planarBand()
        let frame = context(values, frame: number)
        let v = frame.viewport
        try tellMapTripMarks(frame)
        guard try baseMap.drawPlanar(v, into: picture, scratch: band) else { return false }
        waitForOverlays()
        // Each overlay recorded first: its ink extents tell which pixels it touches, and only those
        // are replayed and blended (a frame's labels and pins cover a few percent of it). An overlay of
        // long lines that tells its cells is not recorded: it is drawn on each band, in its cells.
        var inks: [OverlayInk] = []
        for overlay in overlays {
            let fast = overlay as? OverlayFastPaths
            // With nothing under it yet, drawn straight into the picture where it can (the route).
            if fastPaths.lines, inks.isEmpty, let rects = try fast?.drawPlanar(frame, into: picture) {
                picture.history?.drawnOver += rects
                continue
            }
            if fastPaths.lines, let cells = try fast?.inkCells(frame) {
                if let rows = cells.markedRows { inks.append(.cells(overlay, cells, rows)) }
                continue
            }
            // An overlay of pictures: each painted on the bands it meets, its rectangle blended.
            if fastPaths.marks, let marks = try fast?.marks(frame) {
                let placed = marks.compactMap { mark in
                    Self.evenRect(mark.rect, width: width, height: height).map { (mark, $0) }
                }
                if let top = placed.map(\.1.y).min(), let bottom = placed.map({ $0.1.y + $0.1.height }).max() {
                    inks.append(.marks(placed, top..<bottom))
                }
                continue
            }
            // Bounded to the frame: its ink extents are known whatever the overlay draws (a group too).
            let recording = try RecordingSurface(width: width, height: height)
            let rc = try Context(recording: recording)
            try overlay.draw(frame, in: rc)
            try rc.checkStatus("record overlay")
            guard let ink = recording.inkExtents,
                  let rect = Self.evenRect(OverlayRect(x: ink.x, y: ink.y, width: ink.width, height: ink.height),
                                           width: width, height: height) else { continue }
            inks.append(.recorded(recording, rect))
        }
        guard let top = inks.map(\.rows.lowerBound).min(), let bottom = inks.map(\.rows.upperBound).max() else { return true }
        for rows in stride(from: top, to: bottom, by: band.height).map({ $0..<min($0 + band.height, bottom) }) {
            // Each overlay's rectangles in these rows, in the band's coordinates.
            let parts = inks.map { $0.rectangles(in: rows) }
            let rects = parts.joined()
            if rects.isEmpty { continue }
            // Each overlay drawn in its own rectangles, in order, over the band's transparency (the
            // map leaves it so, and the blend clears what it blends).
            try band.withContext { cr in
                for (ink, rects) in zip(inks, parts) where !rects.isEmpty {
                    cr.save()
                    switch ink {
                    case .recorded(let recording, _):
                        let r = rects[0]
                        cr.rectangle(Double(r.x), Double(r.y), Double(r.width), Double(r.height))
                        cr.clip()
                        cr.setSource(recording, x: 0, y: -Double(rows.lowerBound))
                        cr.paint()
                    case .marks(let marks, _):
                        // Painted by maptrip's own OVER (pixman's bytes), without Cairo's set-up per picture.
                        band.flush()
                        for (mark, _) in marks { Self.paint(mark, on: band, rows: rows) }
                        band.markDirty()
                    case .cells(let overlay, _, _):
                        // One clip box around the cells (Cairo cuts a stroke's polygon against each box of
                        // a clip of several); the line inks nothing outside its cells, so blending those
                        // is enough.
                        let x0 = rects.map(\.x).min()!, x1 = rects.map { $0.x + $0.width }.max()!
                        let y0 = rects.map(\.y).min()!, y1 = rects.map { $0.y + $0.height }.max()!
                        cr.rectangle(Double(x0), Double(y0), Double(x1 - x0), Double(y1 - y0))
                        cr.clip()
                        cr.translate(0, -Double(rows.lowerBound))
                        try overlay.draw(frame, in: cr)
                    }
                    cr.restore()
                }
            }
            Self.blend(band, rects: Array(rects), rows: rows, into: picture)
        }
        return true
    }

    /// Blends the rectangles `rects` (the band's coordinates, even bounds) of `band`, the frame's rows
    /// `rows` drawn over transparency, over those rows of the picture, and clears them (the band is left
    /// transparent where it was drawn in those rectangles only). In two halves of the rows, one per
    /// thread when there is enough to share (the blend clears what it blends: a rectangle overlapping
    /// one blended before finds it clear).
    static func blend(_ band: ImageSurface, rects: [OverlayRect], rows: Range<Int>, into picture: PlanarPicture) {
        band.flush()
        let layer = OverlayPixels(data: band.data, stride: band.stride, rects: rects)
        picture.history?.drawnOver += layer.rects.map {
            OverlayRect(x: $0.x, y: $0.y + rows.lowerBound, width: $0.width, height: $0.height)
        }
        let target = picture.rows(rows)
        let halves = layer.rects.reduce(0) { $0 + $1.width * $1.height } >= 65536 ? target.bands : [0..<rows.count]
        DrawingThreads.perform(iterations: halves.count) { half in
            let within = halves[half]
            for r in layer.rects {
                let y0 = max(r.y, within.lowerBound), y1 = min(r.y + r.height, within.upperBound)
                guard y1 > y0 else { continue }
                _ = target.rows(y0..<y1, x: r.x, width: r.width)
                    .blend(layer.data + y0 * layer.stride + r.x * 4, stride: layer.stride)
            }
        }
        band.markDirty()
    }

    /// BGRA rows of the frame's width, a quarter of its height (even), that frames drawn into I420
    /// pictures are drawn through (see `renderPlanar`); made on first use, transparent (as Cairo
    /// makes a surface), and left so by every use.
    private func planarBand() throws -> ImageSurface {
        if let planarBandSurface { return planarBandSurface }
        let rows = min(format.height, ((format.height + 3) / 4 + 1) & ~1)
        let band = try ImageSurface(width: format.width, height: max(2, rows))
        planarBandSurface = band
        return band
    }

    private var planarBandSurface: ImageSurface?

    /// Paints `mark` on `band`, the frame's rows `rows`, as Cairo paints it there (see `Kernels.over`).
    private static func paint(_ mark: Mark, on band: ImageSurface, rows: Range<Int>) {
        let picture = mark.picture
        let x0 = max(mark.x, 0), x1 = min(mark.x + picture.width, band.width)
        let y0 = max(mark.y, rows.lowerBound), y1 = min(mark.y + picture.height, rows.upperBound)
        guard x1 > x0, y1 > y0 else { return }
        // Cairo's opacity as pixman gets it: 16 bits, rounded, then their top 8.
        let alpha = Int32(Int((min(max(mark.alpha, 0), 1) * 65535 + 0.5).rounded(.down)) >> 8)
        Kernels.over(picture.pixels(x: x0 - mark.x, y: y0 - mark.y, width: x1 - x0, height: y1 - y0), alpha: alpha,
                     onto: band.pixels(x: x0, y: y0 - rows.lowerBound, width: x1 - x0, height: y1 - y0))
    }

    /// `rect` within the frame, its bounds rounded out to even (the chroma's 2x2 blocks); nil if none of
    /// it is.
    static func evenRect(_ rect: OverlayRect, width: Int, height: Int) -> OverlayRect? {
        let x0 = max(0, rect.x) & ~1, y0 = max(0, rect.y) & ~1
        let x1 = min(width, (rect.x + rect.width + 1) & ~1), y1 = min(height, (rect.y + rect.height + 1) & ~1)
        return x1 > x0 && y1 > y0 ? OverlayRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// The first frame's preparation steps, handed to the thread making them (only it uses the overlays'
/// caches until it is waited for).
private struct OverlayPreparation: @unchecked Sendable {
    let steps: [PreparationStep]
}

/// A rectangle of a frame's pixels an overlay draws in.
typealias OverlayRect = InkCells.Rect

/// Where one overlay of a frame drawn into I420 inks: its recording and the recording's ink rectangle,
/// or (an overlay of lines) the cells it told, drawn again on each band.
private enum OverlayInk {
    case recorded(RecordingSurface, OverlayRect)
    case cells(Overlay, InkCells, Range<Int>)
    /// Pictures, each with its rectangle (within the frame, even), and the rows they cover.
    case marks([(Mark, OverlayRect)], Range<Int>)

    /// The frame's rows it inks.
    var rows: Range<Int> {
        switch self {
        case .recorded(_, let r): r.y..<(r.y + r.height)
        case .cells(_, _, let rows), .marks(_, let rows): rows
        }
    }

    /// Its rectangles within the frame's rows `band`, in the band's coordinates.
    func rectangles(in band: Range<Int>) -> [OverlayRect] {
        switch self {
        case .recorded(_, let r):
            return Self.part(of: r, in: band).map { [$0] } ?? []
        case .marks(let marks, _):
            return marks.compactMap { Self.part(of: $0.1, in: band) }
        case .cells(_, let cells, _):
            return cells.runs(in: band).map { OverlayRect(x: $0.x, y: $0.y - band.lowerBound, width: $0.width, height: $0.height) }
        }
    }

    /// The part of `r` within the frame's rows `band`, in the band's coordinates (nil: none).
    private static func part(of r: OverlayRect, in band: Range<Int>) -> OverlayRect? {
        let y0 = max(r.y, band.lowerBound), y1 = min(r.y + r.height, band.upperBound)
        return y1 > y0 ? OverlayRect(x: r.x, y: y0 - band.lowerBound, width: r.width, height: y1 - y0) : nil
    }
}

/// The overlay layer's pixels, handed to the blending threads (each blends its own rows).
private struct OverlayPixels: @unchecked Sendable {
    let data: UnsafeMutablePointer<UInt8>
    let stride: Int
    /// The rectangles the overlays drew in (even bounds).
    let rects: [OverlayRect]
}
