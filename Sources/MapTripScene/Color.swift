import Foundation

/// A colour with straight (not premultiplied) components in 0...1. Part of the core model (styles and
/// themes are data); the renderer hands it to Cairo.
public struct Color: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var red, green, blue, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `#rrggbb` or `#rrggbbaa`; nil when malformed.
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        guard s.count == 6 || s.count == 8, let v = UInt32(s, radix: 16) else { return nil }
        let n = s.count == 6 ? (v << 8) | 0xff : v
        self.init(red: Double((n >> 24) & 0xff) / 255, green: Double((n >> 16) & 0xff) / 255,
                  blue: Double((n >> 8) & 0xff) / 255, alpha: Double(n & 0xff) / 255)
    }

    public func withAlpha(_ a: Double) -> Color { Color(red: red, green: green, blue: blue, alpha: a) }

    /// Red, green, blue and alpha, as C functions take a colour.
    public var rgba: [Double] { [red, green, blue, alpha] }

    /// `#rrggbb`, or `#rrggbbaa` when not opaque.
    public var description: String {
        func byte(_ x: Double) -> String { String(format: "%02x", Int((min(max(x, 0), 1) * 255).rounded())) }
        return "#" + byte(red) + byte(green) + byte(blue) + (alpha < 1 ? byte(alpha) : "")
    }

    /// Linear interpolation of the straight components (t = 0 gives self, 1 gives other).
    public func mixed(with other: Color, _ t: Double) -> Color {
        Color(red: red + (other.red - red) * t, green: green + (other.green - green) * t,
              blue: blue + (other.blue - blue) * t, alpha: alpha + (other.alpha - alpha) * t)
    }

    /// CIE L*a*b* (D65 white) of the opaque colour: sRGB decoded to linear light, to CIE XYZ by
    /// sRGB's matrix (IEC 61966-2-1), to Lab by CIE 15's formulas. L runs 0 (black) to 100 (white).
    public var lab: (l: Double, a: Double, b: Double) {
        func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        let r = linear(red), g = linear(green), b = linear(blue)
        let x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
        let delta = 6.0 / 29
        func f(_ t: Double) -> Double { t > delta * delta * delta ? cbrt(t) : t / (3 * delta * delta) + 4.0 / 29 }
        let fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883)
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// The CIE 1976 colour difference (ΔE*ab: the distance in Lab) of two opaque colours; about 2.3 is
    /// just noticeable, 15 or more reads as two different grounds at a glance.
    public func deltaE76(_ other: Color) -> Double {
        let p = lab, q = other.lab
        return ((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) + (p.b - q.b) * (p.b - q.b)).squareRoot()
    }
}
