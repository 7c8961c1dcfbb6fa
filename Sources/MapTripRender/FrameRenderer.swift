import Cairo
import MapTripCore

/// Draws frames: the base map, then the overlays in order, onto one reusable Cairo surface.
public final class FrameRenderer {
    public let scene: Scene
    public let baseMap: BaseMap
    public var overlays: [Overlay]
    public let surface: ImageSurface
    private let context: Context

    public init(scene: Scene, baseMap: BaseMap, overlays: [Overlay]? = nil) throws {
        self.scene = scene
        self.baseMap = baseMap
        self.overlays = overlays ?? [PlacesOverlay(), TitleOverlay(), AttributionOverlay()]
        surface = try ImageSurface(width: scene.video.width, height: scene.video.height)
        context = try Context(surface: surface)
    }

    public func viewport(_ camera: Camera) -> Viewport {
        Viewport(camera: camera, width: scene.video.width, height: scene.video.height, scale: scene.video.scale)
    }

    /// Draws one frame; the pixels are in `surface` (flushed, ready to read) when it returns.
    public func render(_ state: FrameState) throws {
        let v = viewport(state.camera)
        let frame = FrameContext(scene: scene, state: state, viewport: v, baseMap: baseMap)
        context.save()
        try baseMap.draw(v, in: context)
        for overlay in overlays {
            try overlay.draw(frame, in: context)
        }
        context.restore()
        try context.checkStatus("render frame")
        surface.flush()
    }
}
