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
    /// The overlays' own picture, transparent between frames, for frames drawn straight into I420
    /// (made on first use).
    private var overlayLayer: (surface: ImageSurface, context: Context)?

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
    /// composites from rasters): the map into the picture, the overlays into a transparent picture of
    /// their own, blended over it (OVER is associative: the same picture as the overlays drawn over the
    /// map, then converted, within rounding). Returns false, drawing nothing, where the map cannot:
    /// `render` and convert then.
    public func renderPlanar(_ values: FrameValues, into picture: PlanarPicture) throws -> Bool {
        let width = scene.video.width, height = scene.video.height
        guard picture.width == width, picture.height == height, width % 2 == 0, height % 2 == 0 else { return false }
        let v = viewport(values.camera)
        guard try baseMap.drawPlanar(v, into: picture) else { return false }
        if overlayLayer == nil {
            let surface = try ImageSurface(width: width, height: height)
            overlayLayer = (surface, try Context(surface: surface))
        }
        let (surface, cr) = overlayLayer!
        let frame = FrameContext(scene: scene, values: values, viewport: v, layout: layout, baseMap: baseMap,
                                 routes: routes, media: media)
        do {
            cr.save()
            defer { cr.restore() }
            for overlay in overlays {
                try overlay.draw(frame, in: cr)
            }
            try cr.checkStatus("render overlays")
        } catch {
            // Whatever was drawn goes: the layer stays transparent for the next frame.
            overlayLayer = nil
            throw error
        }
        surface.flush()
        // Blended (and cleared) in two bands of rows, one per thread.
        let layer = OverlayPixels(data: surface.data, stride: surface.stride)
        let middle = height / 4 * 2
        DispatchQueue.concurrentPerform(iterations: 2) { band in
            let rows = band == 0 ? 0..<middle : middle..<height
            _ = picture.rows(rows).blend(layer.data + rows.lowerBound * layer.stride, stride: layer.stride)
        }
        surface.markDirty()
        return true
    }
}

/// The overlay layer's pixels, handed to the blending threads (each blends its own rows).
private struct OverlayPixels: @unchecked Sendable {
    let data: UnsafeMutablePointer<UInt8>
    let stride: Int
}
