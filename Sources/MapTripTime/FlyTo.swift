import Foundation
import MapTripGeometry

/// A CSS-style `cubic-bezier(x1, y1, x2, y2)` timing function from (0, 0) to (1, 1), solved for y
/// given x as WebKit's and Mapbox's UnitBezier do: Newton's method, falling back to bisection.
public struct CubicBezier: Equatable, Sendable {
    /// Mapbox GL's default ease for camera animations (CSS `ease`).
    public static let ease = CubicBezier(0.25, 0.1, 0.25, 1)
    public static let linear = CubicBezier(0, 0, 1, 1)

    public let x1: Double, y1: Double, x2: Double, y2: Double
    // Polynomial coefficients: x(t) = ((ax t + bx) t + cx) t, likewise y.
    private let ax: Double, bx: Double, cx: Double
    private let ay: Double, by: Double, cy: Double

    /// `x1` and `x2` must lie in [0, 1] so that x(t) increases and y is a function of x.
    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        precondition((0...1).contains(x1) && (0...1).contains(x2), "cubic-bezier x values must lie in [0, 1]")
        self.x1 = x1
        self.y1 = y1
        self.x2 = x2
        self.y2 = y2
        cx = 3 * x1
        bx = 3 * (x2 - x1) - cx
        ax = 1 - cx - bx
        cy = 3 * y1
        by = 3 * (y2 - y1) - cy
        ay = 1 - cy - by
    }

    /// The eased value at `x`; exactly 0 at or before 0 and exactly 1 at or after 1.
    public func callAsFunction(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        guard x < 1 else { return 1 }
        return sampleY(solveT(forX: x))
    }

    private func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    private func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    private func slopeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// The curve parameter t in [0, 1] where x(t) = x, to within `epsilon`.
    func solveT(forX x: Double, epsilon: Double = 1e-12) -> Double {
        // Newton's method converges in a few steps except where the slope vanishes.
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < epsilon { return t }
            let slope = slopeX(t)
            if abs(slope) < 1e-9 { break }
            t -= error / slope
        }
        // Bisection always converges because x(t) is monotonic on [0, 1].
        var low = 0.0, high = 1.0
        t = x
        for _ in 0..<100 {
            let value = sampleX(t)
            if abs(value - x) < epsilon { break }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return t
    }
}

/// A smooth zoom-and-pan between two cameras: van Wijk and Nuij, "Smooth and efficient zooming and
/// panning" (2003), as Mapbox GL's `Map#flyTo` implements it (src/ui/camera.ts), as a pure function
/// of progress. The camera zooms out, pans and zooms in along the path that keeps the perceived
/// speed constant; `rho` trades zooming for panning (larger rho zooms out further).
///
/// Positions are in the unit Web Mercator world; the visible span is `viewSize` logical pixels, so
/// `viewSize / 256 * 2^-zoom` world units. The flight takes the short way round: across the
/// antimeridian when that is shorter, with longitudes wrapped back into [-180, 180).
public struct Flight: Equatable, Sendable {
    /// Mapbox's default `curve`, the value van Wijk and Nuij found users preferred.
    public static let defaultRho = 1.42
    /// The larger side of a 1920x1080 frame in logical pixels.
    public static let defaultViewSize = 1920.0

    public let from: Camera
    public let to: Camera
    public let rho: Double
    public let easing: CubicBezier

    private enum Path: Equatable, Sendable {
        /// Same place, same zoom: nothing moves (but the bearing may turn).
        case still
        /// Same place, different zoom: w(s) = exp(sign * rho * s).
        case zoom(sign: Double)
        /// The general case.
        case fly(r0: Double, u1: Double)
    }

    /// The ground the centre travels over, in unit-world units.
    private enum Ground: Equatable, Sendable {
        /// Straight across the Web Mercator world, the short way round the antimeridian.
        case mercator(start: WorldPoint, dx: Double, dy: Double)
        /// Straight in a projection's plane.
        case plane(Projection, start: WorldPoint, dx: Double, dy: Double)
        /// Along the great circle (on the globe): u is the start, v the tangent towards the end.
        case sphere(u: Geodesy.Vector, v: Geodesy.Vector, angle: Double)
    }

    private let path: Path
    private let ground: Ground
    private let w0: Double
    /// The bearing turns by this much (degrees, the short way).
    private let turn: Double
    /// The path length S in van Wijk and Nuij's units (Mapbox scales the duration by it).
    public let length: Double

    /// `projection` decides the ground the centre crosses: straight on Web Mercator (the short way
    /// round the world) and in a projection's plane, along the great circle on the globe (the arc's
    /// length, a fraction of the equator, is the distance the fly-to zooms out for).
    public init(from: Camera, to: Camera, rho: Double = Flight.defaultRho,
                viewSize: Double = Flight.defaultViewSize, easing: CubicBezier = .ease,
                projection: Projection = .webMercator) {
        precondition(rho > 0 && viewSize > 0, "rho and viewSize must be positive")
        self.from = from
        self.to = to
        self.rho = rho
        self.easing = easing
        turn = (to.bearing - from.bearing + 540).truncatingRemainder(dividingBy: 360) - 180

        let u1: Double
        switch projection {
        case .webMercator:
            let p0 = WebMercator.project(from.center)
            var p1 = WebMercator.project(to.center)
            // The short way round: move the target to the copy of the world nearest the start.
            if p1.x - p0.x > 0.5 { p1.x -= 1 } else if p1.x - p0.x < -0.5 { p1.x += 1 }
            ground = .mercator(start: p0, dx: p1.x - p0.x, dy: p1.y - p0.y)
            u1 = ((p1.x - p0.x) * (p1.x - p0.x) + (p1.y - p0.y) * (p1.y - p0.y)).squareRoot()
        case .plane:
            if let p0 = projection.planePoint(from.center), let p1 = projection.planePoint(to.center) {
                ground = .plane(projection, start: p0, dx: p1.x - p0.x, dy: p1.y - p0.y)
                u1 = hypot(p1.x - p0.x, p1.y - p0.y)
            } else {
                let arc = Geodesy.Arc(from.center, to.center)
                ground = .sphere(u: arc.u, v: arc.v, angle: arc.angle)
                u1 = arc.angle / (2 * .pi)
            }
        case .globe:
            let arc = Geodesy.Arc(from.center, to.center)
            ground = .sphere(u: arc.u, v: arc.v, angle: arc.angle)
            u1 = arc.angle / (2 * .pi)  // the equator is 1 unit long
        }

        let rho2 = rho * rho
        let w0 = viewSize / WebMercator.tileSize * pow(2, -from.zoom)  // visible span at the start
        let w1 = w0 / pow(2, to.zoom - from.zoom)                        // ... and at the end
        self.w0 = w0

        // r(0) and r(1): log(sqrt(b^2 + 1) - b) is -asinh(b), which does not cancel for large b.
        func r(_ i: Int) -> Double {
            let b = (w1 * w1 - w0 * w0 + (i == 0 ? 1 : -1) * rho2 * rho2 * u1 * u1)
                / (2 * (i == 0 ? w0 : w1) * rho2 * u1)
            return -asinh(b)
        }
        let r0 = r(0)
        let s = (r(1) - r0) / rho

        // Mapbox's threshold: less than a millionth of a pixel at the start zoom is no move at all.
        if u1 * WebMercator.worldSize(zoom: from.zoom) < 1e-6 || !s.isFinite {
            if abs(to.zoom - from.zoom) < 1e-9 {
                path = .still
                length = 0
            } else {
                path = .zoom(sign: w1 < w0 ? -1 : 1)
                length = abs(log(w1 / w0)) / rho
            }
        } else {
            path = .fly(r0: r0, u1: u1)
            length = s
        }
    }

    /// The camera at `progress` in [0, 1] of the flight's time, eased by `easing`.
    /// Exactly `from` at 0 and exactly `to` at 1.
    public func camera(at progress: Double) -> Camera {
        camera(alongPath: easing(progress))
    }

    /// The fraction of the ground between the two centres covered at `progress` in [0, 1] of the
    /// flight's time: 0 at 0 and exactly 1 at 1. A vehicle at this fraction of its leg keeps pace
    /// with the camera (on a zoom-out-and-in flight, most of the ground is covered mid-flight).
    public func travelled(at progress: Double) -> Double {
        let k = easing(progress)
        guard k > 0 else { return 0 }
        guard k < 1 else { return 1 }
        switch path {
        case .still, .zoom:
            return k
        case .fly(let r0, let u1):
            let s = k * length
            let u = w0 * (cosh(r0) * tanh(r0 + rho * s) - sinh(r0)) / (rho * rho) / u1
            return min(max(u, 0), 1)
        }
    }

    /// The camera at fraction `k` of the path (no easing). Exactly `from` at 0 and `to` at 1.
    public func camera(alongPath k: Double) -> Camera {
        guard k > 0 else { return from }
        guard k < 1 else { return to }
        let s = k * length
        let bearing = from.bearing + turn * k
        switch path {
        case .still:
            return Camera(center: from.center, zoom: from.zoom, bearing: bearing)
        case .zoom(let sign):
            let w = exp(sign * rho * s)
            return Camera(center: from.center, zoom: from.zoom - log2(w), bearing: bearing)
        case .fly(let r0, let u1):
            // w(s): visible span relative to w0; u(s): distance travelled as a fraction of u1.
            let w = cosh(r0) / cosh(r0 + rho * s)
            let u = w0 * (cosh(r0) * tanh(r0 + rho * s) - sinh(r0)) / (rho * rho) / u1
            return Camera(center: center(atFraction: u), zoom: from.zoom - log2(w), bearing: bearing)
        }
    }

    /// The centre at fraction u of the ground between the two places.
    private func center(atFraction u: Double) -> LonLat {
        switch ground {
        case .mercator(let start, let dx, let dy):
            var center = WebMercator.unproject(WorldPoint(x: start.x + dx * u, y: start.y + dy * u))
            center.lon = WebMercator.wrapLongitude(center.lon)
            return center
        case .plane(let projection, let start, let dx, let dy):
            if let p = projection.location(planePoint: WorldPoint(x: start.x + dx * u, y: start.y + dy * u)) {
                return p
            }
            return Geodesy.interpolate(from.center, to.center, fraction: u)
        case .sphere(let a, let v, let angle):
            return Geodesy.lonLat(cos(u * angle) * a + sin(u * angle) * v)
        }
    }
}
