import Foundation
import MapTripGeometry
import MapTripSupport

/// How fast the map moves on screen: between two cameras, the farthest any of nine points of the
/// frame (its centre, corners and edges' midpoints) moves, in frame pixels. A pan moves them all
/// alike; a zoom moves the corners most.
public enum ScreenSpeed {
    /// The bound automatic flights keep to where their slot allows: 60 pixels a frame at 1080p30,
    /// that is 60 x 30 / 1080 of the frame's shorter side a second.
    public static let boundShortSidesPerSecond = 60.0 * 30 / 1080

    /// The bound in frame pixels per frame for `format`.
    public static func bound(_ format: FrameFormat) -> Double {
        boundShortSidesPerSecond * Double(min(format.width, format.height)) / Double(max(format.fps, 1))
    }

    /// The farthest a point of the frame moves from camera `a` to camera `b`, in frame pixels (0 where
    /// nothing of the map shows under those points).
    public static func pixels(from a: Camera, to b: Camera, format: FrameFormat, projection: Projection) -> Double {
        if a == b { return 0 }
        let va = Viewport(camera: a, width: format.width, height: format.height, scale: format.scale, projection: projection)
        let vb = Viewport(camera: b, width: format.width, height: format.height, scale: format.scale, projection: projection)
        let w = Double(format.width), h = Double(format.height)
        var most = 0.0
        for x in [0, w / 2, w] {
            for y in [0, h / 2, h] {
                // Only where the map is (a pixel beyond the world's edge finds no place of its own).
                guard let at = va.location(atPixel: x, y), let back = va.pixel(at), hypot(back.x - x, back.y - y) < 1,
                      let p = vb.pixel(at) else { continue }
                most = max(most, hypot(p.x - x, p.y - y))
            }
        }
        return most
    }

    /// The peak of `pixels` along `camera(t)`, t in [0, 1], per unit of t (so over F frames the
    /// fastest frame moves about this / F pixels), sampled at `steps` steps.
    static func peak(format: FrameFormat, projection: Projection, steps: Int = 240, _ camera: (Double) -> Camera) -> Double {
        var most = 0.0
        var before = camera(0)
        for k in 1...steps {
            let now = camera(Double(k) / Double(steps))
            most = max(most, pixels(from: before, to: now, format: format, projection: projection))
            before = now
        }
        return most * Double(steps)
    }

    /// The frames a move along `camera(t)` needs so that no frame moves faster than the bound: from the
    /// peak, then checked frame by frame (a zoom's frames are not quite linear in its speed) and
    /// lengthened until none is.
    /// At most `limit` frames.
    static func frames(format: FrameFormat, projection: Projection, atMost limit: Int, _ camera: (Double) -> Camera) -> Int {
        let bound = bound(format)
        var frames = max(1, Int((peak(format: format, projection: projection, camera) / bound).rounded(.up)))
        for _ in 0..<8 where frames < limit {
            let fastest = peak(format: format, projection: projection, steps: frames, camera) / Double(frames)
            guard fastest > bound else { break }
            frames = Int((Double(frames) * fastest / bound).rounded(.up)) + 1
        }
        return min(frames, max(limit, 1))
    }
}
