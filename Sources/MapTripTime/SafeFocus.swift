import Foundation
import MapTripGeometry
import MapTripScene
import MapTripSupport

/// Where a resting camera puts its place: at the centre of the safe area of a platform's safe zone
/// (`video.safeZone`), not of the frame. Reels covers the lowest 35% of a 9:16 frame and the top 14%:
/// a place at the frame's centre sits low in what is seen, with the map above it half hidden by
/// the title bar and the map below it under the buttons. The shift is whole frame pixels, so a
/// camera on the pixel grid stays there. Without a platform's zone (`standard`) nothing moves.
enum SafeFocus {
    /// Frame pixels from the frame's centre to the safe area's, (0, 0) for `standard`.
    static func offset(format: FrameFormat, safeZone: SafeZone) -> (x: Double, y: Double) {
        guard safeZone != .standard else { return (0, 0) }
        let w = Double(format.width), h = Double(format.height)
        let safe = SafeArea.box(width: w, height: h, insets: safeZone.insets)
        return (((safe.minX + safe.maxX) / 2 - w / 2).rounded(), ((safe.minY + safe.maxY) / 2 - h / 2).rounded())
    }

    /// `camera` moved so that its centre shows `offset` pixels from the frame's centre (on the globe
    /// and other projections too: the position under the opposite pixel becomes the centre).
    static func camera(_ camera: Camera, offset: (x: Double, y: Double), format: FrameFormat,
                       projection: Projection) -> Camera {
        guard offset.x != 0 || offset.y != 0 else { return camera }
        let v = Viewport(camera: camera, width: format.width, height: format.height, scale: format.scale,
                         projection: projection)
        guard let centre = v.location(atPixel: Double(format.width) / 2 - offset.x,
                                      Double(format.height) / 2 - offset.y) else { return camera }
        return Camera(center: centre, zoom: camera.zoom, bearing: camera.bearing)
    }
}
