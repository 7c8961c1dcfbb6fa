import Foundation
import MapTripGeometry
import MapTripSupport

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
