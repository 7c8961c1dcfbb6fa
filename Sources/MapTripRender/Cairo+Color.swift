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

    /// Adds each line of two points or more to the current path as a subpath of its own (a line of one
    /// point would be a lone move, which strokes nothing).
    public func addLines(_ lines: [[(x: Double, y: Double)]]) {
        for line in lines where line.count > 1 {
            move(to: line[0].x, line[0].y)
            for p in line.dropFirst() { self.line(to: p.x, p.y) }
        }
    }

    /// Fills an integer rectangle with a core colour.
    public func fillPixelRect(x: Int, y: Int, width: Int, height: Int, color c: Color) {
        fillPixelRect(x: x, y: y, width: width, height: height, red: c.red, green: c.green, blue: c.blue, alpha: c.alpha)
    }
}
