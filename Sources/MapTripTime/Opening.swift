import Foundation
import MapTripGeometry
import MapTripSupport

/// The opening shot (`Scene.opening`), as pure functions of the frame: the title card fades in while
/// the camera makes a slow establishing zoom-in onto the first place, ending exactly on the first
/// slot's resting camera; the first place's pin drops in (falling a little, fading in), and its
/// caption and the distance counter fade in after the title.
struct Opening: Sendable {
    /// Zoom levels the establishing shot starts out from the first place's view.
    static let zoomOut = 0.6
    /// Seconds of the establishing zoom (at most `moveShare` of the first slot).
    static let moveSeconds = 2.4
    static let moveShare = 0.7
    /// Seconds the title takes to fade in.
    static let titleFadeIn = 0.6
    /// Seconds before the first pin starts to drop, and of its drop.
    static let pinDelay = 0.3
    static let pinDrop = 0.5
    /// Seconds before the first caption and the counter start to fade in.
    static let readoutDelay = 0.6
    /// CSS `ease-in-out`: the move starts and ends at rest.
    static let easing = CubicBezier(0.42, 0, 0.58, 1)

    /// The first slot's resting camera: where the move ends.
    let camera: Camera
    /// Frames of the establishing zoom: frame `moveFrames` on is `camera` exactly.
    let moveFrames: Int
    let pinStart: Double
    let pinFrames: Double
    /// The first frame the first caption and the counter fade in from, and their fade in frames.
    let readoutStart: Int
    let readoutFade: Double

    /// The opening of a first slot of `frames` frames resting on `camera`.
    init(camera: Camera, frames: Int, fps: Int, readoutFade: Double) {
        self.camera = camera
        let seconds = Double(fps)
        moveFrames = max(0, min(Int((Self.moveSeconds * seconds).rounded()), Int((Self.moveShare * Double(frames)).rounded())))
        pinStart = min(Self.pinDelay * seconds, Double(frames) / 4)
        pinFrames = max(1, min(Self.pinDrop * seconds, Double(frames) / 4))
        readoutStart = min(Int((Self.readoutDelay * seconds).rounded()), frames / 3)
        self.readoutFade = readoutFade
    }

    /// The camera at frame n of the first slot: zoomed out by `zoomOut` at frame 0, easing in onto
    /// `camera`, which it is exactly from frame `moveFrames` on.
    func camera(at n: Int) -> Camera {
        guard n < moveFrames else { return camera }
        let k = Self.easing(Double(n) / Double(moveFrames))
        var c = camera
        c.zoom -= Self.zoomOut * (1 - k)
        return c
    }

    /// How far the first pin has dropped at frame n: 0 (not yet shown) to 1 (landed).
    func pinDrop(at n: Int) -> Double {
        min(max((Double(n) - pinStart + 1) / pinFrames, 0), 1)
    }

    /// The counter's opacity at frame n: fading in after the title.
    func readoutOpacity(at n: Int) -> Double {
        guard readoutFade > 0 else { return n >= readoutStart ? 1 : 0 }
        return min(max(Double(n - readoutStart + 1) / readoutFade, 0), 1)
    }
}

/// How a dropping pin is drawn (`PinValue.drop`): it falls from `height` layout units above its place,
/// easing out as it lands, and fades in over the first half of its fall.
public enum PinDrop {
    /// Layout units above its place a pin starts its drop.
    public static let height = 36.0

    /// The pin's offset in layout units (negative: above its place) at drop `d` (0 to 1).
    public static func offset(_ d: Double) -> Double {
        let k = min(max(d, 0), 1)
        let fall = 1 - (1 - k) * (1 - k)  // ease out: fast, then settling
        return -height * (1 - fall)
    }

    /// The pin's opacity at drop `d`.
    public static func alpha(_ d: Double) -> Double { min(max(2 * d, 0), 1) }
}

/// How the vehicle eases into the pin on arrival (`VehicleValue.opacity`): over `seconds` after the
/// camera arrives it stays on the pin, fading out and shrinking, instead of vanishing in one frame.
public enum Arrival {
    public static let seconds = 0.3
    /// The size the vehicle shrinks to, as a share of its own, as it fades out.
    public static let smallest = 0.6

    static func frames(fps: Int) -> Int { max(1, Int((seconds * Double(fps)).rounded())) }

    /// The vehicle's opacity `k` frames after arrival (k from 0): falling from 1 to near 0.
    static func opacity(_ k: Int, frames: Int) -> Double {
        1 - Double(k + 1) / Double(frames + 1)
    }

    /// The vehicle's size (a share of its own) at opacity `o`.
    public static func size(opacity o: Double) -> Double { smallest + (1 - smallest) * o }
}
