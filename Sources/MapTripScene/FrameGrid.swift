import Foundation

/// Places seconds on the frame grid without drift: each boundary is the rounded product of the frame
/// rate and the exact cumulative sum of the dwells before it, so rounding never accumulates.
/// Sums are decimal, of the dwells as written (0.7 + 0.7 + 0.7 is exactly 2.1, and 2.1 s at 25 fps
/// is 52.5 frames, rounded half away from zero to 53), so the grid does not depend on binary noise.
public struct FrameGrid: Equatable, Sendable {
    /// `boundaries[i]` is the first frame of slot i; the last element is the frame count.
    public let boundaries: [Int]

    public init(dwells: [Double], fps: Int) {
        var boundaries = [0]
        boundaries.reserveCapacity(dwells.count + 1)
        var sum = Decimal(0)
        for dwell in dwells {
            sum += Self.decimal(dwell)
            boundaries.append(Self.frames(sum, fps: fps))
        }
        self.boundaries = boundaries
    }

    public var frameCount: Int { boundaries.last! }

    /// `round(fps * seconds)`, half away from zero, computed in decimal.
    public static func frames(seconds: Double, fps: Int) -> Int {
        frames(decimal(seconds), fps: fps)
    }

    /// The shortest decimal that reads back as `x` (what a scene file most likely said).
    public static func decimal(_ x: Double) -> Decimal {
        guard x.isFinite, x > 0 else { return 0 }
        return Decimal(string: x.description) ?? Decimal(x)
    }

    public static func frames(_ seconds: Decimal, fps: Int) -> Int {
        var product = seconds * Decimal(fps)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &product, 0, .plain)
        // Scenes are validated to at most 10 million frames; anything absurd saturates.
        if rounded > Decimal(Int(Int32.max)) { return Int(Int32.max) }
        return NSDecimalNumber(decimal: rounded).intValue
    }
}
