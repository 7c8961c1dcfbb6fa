import CFFmpeg

/// A rational number (AVRational): time bases and frame rates.
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int32
    public var denominator: Int32

    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ value: AVRational) {
        self.init(value.num, value.den)
    }

    var av: AVRational { AVRational(num: numerator, den: denominator) }

    /// 0 when the denominator is 0.
    public var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    public var inverted: Rational { Rational(denominator, numerator) }

    /// FFmpeg uses 0/1 or x/0 for "unknown".
    public var isValid: Bool { numerator > 0 && denominator > 0 }

    public var description: String { "\(numerator)/\(denominator)" }

    /// `value` (a count of `from` units) in units of `to`, rounded to nearest (av_rescale_q).
    public static func rescale(_ value: Int64, from: Rational, to: Rational) -> Int64 {
        av_rescale_q(value, from.av, to.av)
    }
}
