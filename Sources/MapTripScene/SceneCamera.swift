import Foundation
import MapTripGeometry

/// How the camera is directed (`camera`), instead of the trip's own (resting on each place and flying
/// between them, or framing every recorded track): following a mover of a playback, or keyframes.
public struct SceneCamera: Equatable, Sendable {
    /// How deep a following camera looks.
    public enum Zoom: Equatable, Sendable {
        case fixed(Double)
        /// Out as the mover speeds up, in as it slows (`FollowCamera.zoom(forSpeed:)`).
        case speed
    }

    /// The zoom a following camera takes when the scene gives none.
    public static let defaultZoom = 15.0
    /// Seconds of the playback's start over which a following camera flies in from the whole route.
    public static let defaultIntro = 3.0

    /// The index in `Scene.tracks` of the mover followed (nil: not following).
    public var follow: Int?
    public var zoom: Zoom
    /// The map turns so that the followed mover's direction of travel points up.
    public var headingUp: Bool
    /// Seconds of video at the playback's start over which the camera flies in from the whole route to
    /// the mover (0: it follows from the first frame).
    public var intro: Double
    /// The camera at given times, eased between (empty: none). Complete: each one's centre, zoom and
    /// bearing filled in (from the one before where the scene left them out).
    public var keyframes: [CameraKeyframe]

    public init(follow: Int? = nil, zoom: Zoom = .fixed(SceneCamera.defaultZoom), headingUp: Bool = false,
                intro: Double = SceneCamera.defaultIntro, keyframes: [CameraKeyframe] = []) {
        self.follow = follow
        self.zoom = zoom
        self.headingUp = headingUp
        self.intro = intro
        self.keyframes = keyframes
    }
}

/// The camera at second `t` of the video, reached from the keyframe before it by `ease`.
public struct CameraKeyframe: Equatable, Sendable {
    public var t: Double
    public var camera: Camera
    public var ease: CameraEase

    public init(t: Double, camera: Camera, ease: CameraEase = .inOutCubic) {
        self.t = t
        self.camera = camera
        self.ease = ease
    }
}

/// How the camera moves from one keyframe to the next.
public enum CameraEase: String, Equatable, Sendable, CaseIterable {
    case linear, inCubic, outCubic, inOutCubic
    /// The van Wijk and Nuij fly-to (`Flight`): out, across and in, for keyframes far apart.
    case fly

    /// The eased share at `u` in [0, 1]: exactly 0 at or before 0 and exactly 1 at or after 1 (not
    /// used for `fly`, whose path eases itself).
    public func callAsFunction(_ u: Double) -> Double {
        guard u > 0 else { return 0 }
        guard u < 1 else { return 1 }
        switch self {
        case .linear, .fly: return u
        case .inCubic: return u * u * u
        case .outCubic: return 1 - pow(1 - u, 3)
        case .inOutCubic: return u < 0.5 ? 4 * u * u * u : 1 - pow(-2 * u + 2, 3) / 2
        }
    }
}
