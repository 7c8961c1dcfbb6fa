import Foundation

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
    public func solveT(forX x: Double, epsilon: Double = 1e-12) -> Double {
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
