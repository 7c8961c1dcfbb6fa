import Cairo
import MapTripCore

extension Context {
    /// A solid source of a core colour.
    public func setSource(_ c: Color) { setSource(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha) }

    /// Fills an integer rectangle with a core colour.
    public func fillPixelRect(x: Int, y: Int, width: Int, height: Int, color c: Color) {
        fillPixelRect(x: x, y: y, width: width, height: height, red: c.red, green: c.green, blue: c.blue, alpha: c.alpha)
    }
}
