import CCairo

/// A Cairo failure, with Cairo's own message (`cairo_status_to_string`) and what was being done.
public struct CairoError: Error, CustomStringConvertible, Sendable {
    public let status: UInt32
    public let message: String
    public let operation: String

    init(_ status: cairo_status_t, _ operation: String) {
        self.status = status.rawValue
        self.message = String(cString: cairo_status_to_string(status))
        self.operation = operation
    }

    public var description: String { "cairo: \(operation): \(message)" }

    @inline(__always)
    static func check(_ status: cairo_status_t, _ operation: @autoclosure () -> String) throws {
        if status != CAIRO_STATUS_SUCCESS { throw CairoError(status, operation()) }
    }
}

/// A colour with straight (not premultiplied) components in 0...1.
public struct Color: Equatable, Hashable, Sendable {
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
}
