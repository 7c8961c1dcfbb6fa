import Cairo
import Foundation
import MapTripCore

/// Draws frames: the base map, then the overlay layers in order, onto reusable Cairo surfaces. It
/// keeps `buffers` surfaces so a frame can be drawn while earlier ones are still being encoded.
public final class FrameRenderer {
    public let scene: Scene
    public let baseMap: BaseMap
    public var overlays: [Overlay]
    public let surfaces: [ImageSurface]
    public let layout: FrameLayout
    public let media: SceneMedia
    /// The projection every frame is drawn through.
    public let projection: Projection
    private let routes: [RouteLine?]
    private let contexts: [Context]

    /// The layers every trip draws, bottom to top.
    public static func standardOverlays() -> [Overlay] {
        [GraticuleOverlay(), RouteOverlay(), PlacesOverlay(), VehicleOverlay(), PhotoOverlay(), CaptionOverlay(), DistanceOverlay(),
         TitleOverlay(), AttributionOverlay()]
    }

    /// `projection`: the scene's, made (nil: made here from the scene).
    public init(scene: Scene, baseMap: BaseMap, media: SceneMedia = SceneMedia(), overlays: [Overlay]? = nil,
                buffers: Int = 1, projection: Projection? = nil) throws {
        self.scene = scene
        self.projection = try projection ?? Projection.make(for: scene)
        self.baseMap = baseMap
        self.media = media
        self.overlays = overlays ?? Self.standardOverlays()
        layout = FrameLayout(width: scene.video.width, height: scene.video.height)
        routes = Timeline.routes(for: scene)
        surfaces = try (0..<max(1, buffers)).map { _ in
            try ImageSurface(width: scene.video.width, height: scene.video.height)
        }
        contexts = try surfaces.map { try Context(surface: $0) }
    }

    /// The first surface (the only one when `buffers` is 1).
    public var surface: ImageSurface { surfaces[0] }

    public func viewport(_ camera: Camera) -> Viewport {
        Viewport(camera: camera, width: scene.video.width, height: scene.video.height, scale: scene.video.scale,
                 projection: projection)
    }

    /// Tells the base map every frame's camera of the whole trip (see `BaseMap.plan`), whatever part of
    /// it is drawn: a frame is drawn the same way in a whole render, a part and a preview.
    public func planBaseMap(_ timeline: Timeline) {
        baseMap.plan(frames: (0..<timeline.frameCount).map { timeline.camera(at: $0) }, width: scene.video.width,
                     height: scene.video.height, scale: scene.video.scale)
    }

    /// Draws one frame into surface `buffer`; its pixels are flushed and ready to read on return.
    public func render(_ values: FrameValues, into buffer: Int = 0) throws {
        let cr = contexts[buffer]
        let v = viewport(values.camera)
        let frame = FrameContext(scene: scene, values: values, viewport: v, layout: layout, baseMap: baseMap,
                                 routes: routes, media: media)
        cr.save()
        try baseMap.draw(v, in: cr)
        for overlay in overlays {
            try overlay.draw(frame, in: cr)
        }
        cr.restore()
        try cr.checkStatus("render frame")
        surfaces[buffer].flush()
    }

    /// Draws one frame straight into an I420 picture, where the base map can paint it so (a frame it
    /// composites from rasters, a held picture it keeps): the map into the picture; each overlay
    /// recorded, replayed on the first BGRA surface inside its ink rectangle only (cleared first), and
    /// those rectangles blended over the picture (OVER is associative: the same picture as the overlays
    /// drawn over the map, then converted, within rounding). Returns false, drawing nothing, where the
    /// map cannot: `render` and convert then.
    public func renderPlanar(_ values: FrameValues, into picture: PlanarPicture) throws -> Bool {
        let width = scene.video.width, height = scene.video.height
        guard picture.width == width, picture.height == height, width % 2 == 0, height % 2 == 0 else { return false }
        let v = viewport(values.camera)
        // The first BGRA surface: the map's scratch (a held picture is drawn there once), then the
        // overlays' layer.
        let surface = surfaces[0], cr = contexts[0]
        guard try baseMap.drawPlanar(v, into: picture, scratch: cr) else { return false }
        let frame = FrameContext(scene: scene, values: values, viewport: v, layout: layout, baseMap: baseMap,
                                 routes: routes, media: media)
        // Each overlay recorded first: its ink extents tell which pixels of the layer it touches, and
        // only those are blended (a frame's labels and pins cover a few percent of it).
        var recorded: [(RecordingSurface, (x: Int, y: Int, width: Int, height: Int))] = []
        for overlay in overlays {
            let recording = try RecordingSurface()
            let rc = try Context(recording: recording)
            try overlay.draw(frame, in: rc)
            try rc.checkStatus("record overlay")
            guard let ink = recording.inkExtents else { continue }
            // Within the frame, bounds rounded out to even (the chroma's 2x2 blocks).
            let x0 = max(0, ink.x) & ~1, y0 = max(0, ink.y) & ~1
            let x1 = min(width, (ink.x + ink.width + 1) & ~1), y1 = min(height, (ink.y + ink.height + 1) & ~1)
            if x1 > x0, y1 > y0 { recorded.append((recording, (x0, y0, x1 - x0, y1 - y0))) }
        }
        // The rectangles cleared first (they may overlap), then each overlay replayed in its own, in order.
        cr.save()
        cr.setOperator(.clear)
        for (_, r) in recorded { cr.rectangle(Double(r.x), Double(r.y), Double(r.width), Double(r.height)) }
        cr.fill()
        cr.restore()
        for (recording, r) in recorded {
            cr.save()
            cr.rectangle(Double(r.x), Double(r.y), Double(r.width), Double(r.height))
            cr.clip()
            cr.setSource(recording, x: 0, y: 0)
            cr.paint()
            cr.restore()
        }
        try cr.checkStatus("render overlays")
        let rects = recorded.map(\.1)
        surface.flush()
        // Blended in two bands of rows, one per thread (the blend clears what it blends: a rectangle
        // overlapping one blended before finds it clear).
        let layer = OverlayPixels(data: surface.data, stride: surface.stride, rects: rects)
        let bands = picture.bands
        DispatchQueue.concurrentPerform(iterations: bands.count) { band in
            let rows = bands[band]
            for r in layer.rects {
                let top = max(r.y, rows.lowerBound), bottom = min(r.y + r.height, rows.upperBound)
                guard bottom > top else { continue }
                _ = picture.rows(top..<bottom, x: r.x, width: r.width)
                    .blend(layer.data + top * layer.stride + r.x * 4, stride: layer.stride)
            }
        }
        surface.markDirty()
        return true
    }
}

/// The overlay layer's pixels, handed to the blending threads (each blends its own rows).
private struct OverlayPixels: @unchecked Sendable {
    let data: UnsafeMutablePointer<UInt8>
    let stride: Int
    /// The rectangles the overlays drew in (even bounds).
    let rects: [(x: Int, y: Int, width: Int, height: Int)]
}
