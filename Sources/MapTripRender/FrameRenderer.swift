import Cairo
import MapTripCore

/// Draws frames: the base map, then the overlays in order, onto reusable Cairo surfaces. It keeps
/// `buffers` surfaces so a frame can be drawn while earlier ones are still being encoded.
public final class FrameRenderer {
    public let scene: Scene
    public let baseMap: BaseMap
    public var overlays: [Overlay]
    public let surfaces: [ImageSurface]
    private let contexts: [Context]

    public init(scene: Scene, baseMap: BaseMap, overlays: [Overlay]? = nil, buffers: Int = 1) throws {
        self.scene = scene
        self.baseMap = baseMap
        self.overlays = overlays ?? [PlacesOverlay(), TitleOverlay(), AttributionOverlay()]
        surfaces = try (0..<max(1, buffers)).map { _ in
            try ImageSurface(width: scene.video.width, height: scene.video.height)
        }
        contexts = try surfaces.map { try Context(surface: $0) }
    }

    /// The first surface (the only one when `buffers` is 1).
    public var surface: ImageSurface { surfaces[0] }

    public func viewport(_ camera: Camera) -> Viewport {
        Viewport(camera: camera, width: scene.video.width, height: scene.video.height, scale: scene.video.scale)
    }

    /// Draws one frame into surface `buffer`; its pixels are flushed and ready to read on return.
    public func render(_ state: FrameState, into buffer: Int = 0) throws {
        let cr = contexts[buffer]
        let v = viewport(state.camera)
        let frame = FrameContext(scene: scene, state: state, viewport: v, baseMap: baseMap)
        cr.save()
        try baseMap.draw(v, in: cr)
        for overlay in overlays {
            try overlay.draw(frame, in: cr)
        }
        cr.restore()
        try cr.checkStatus("render frame")
        surfaces[buffer].flush()
    }
}
