import Cairo
import MapTripGeometry
import MapTripScene

extension Context {
    /// A solid source of a core colour.
    public func setSource(_ c: Color) { setSource(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha) }

    /// Adds the smallest rectangle of whole device pixels holding `box` (user space: no transformation
    /// but a move by whole pixels), for a clip that cuts nothing drawn inside it.
    public func rectangle(whole box: Box) {
        let x0 = box.minX.rounded(.down), y0 = box.minY.rounded(.down)
        rectangle(x0, y0, box.maxX.rounded(.up) - x0, box.maxY.rounded(.up) - y0)
    }

    /// Fills an integer rectangle with a core colour.
    public func fillPixelRect(x: Int, y: Int, width: Int, height: Int, color c: Color) {
        fillPixelRect(x: x, y: y, width: width, height: height, red: c.red, green: c.green, blue: c.blue, alpha: c.alpha)
    }
}
