import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Rsvg

/// Meridians and parallels every `scene.graticule` degrees, over the base map and under the route,
/// cut by the projection like every other line (at the globe's horizon, at a world map's seam).
public final class GraticuleOverlay: OverlayFastPaths {
    private var cached: (step: Double, lines: [ProjectedLine])?

    public init() {}

    /// The graticule's lines: meridians from pole to pole (stopping short of the poles, where they
    /// all meet, unless every fourth one) and parallels around the world, a point every degree.
    static func lines(step: Double) -> [[LonLat]] {
        var out: [[LonLat]] = []
        var lon = -180.0
        while lon < 180 - 1e-9 {
            out.append(stride(from: -90.0, through: 90.0, by: 1).map { LonLat(lon: lon, lat: $0) })
            lon += step
        }
        var lat = (-90 / step).rounded(.up) * step
        while lat <= 90 {
            if abs(lat) < 90 {
                out.append(stride(from: -180.0, through: 180.0, by: 1).map { LonLat(lon: $0, lat: lat) })
            }
            lat += step
        }
        return out
    }

    /// The last frame's lines, kept for the bands of rows that draw the same frame again.
    private var last: (viewport: Viewport, step: Double, lines: [[(x: Double, y: Double)]])?

    /// The graticule's lines on the frame, projected and cut.
    func lines(_ frame: FrameContext, step: Double) -> [[(x: Double, y: Double)]] {
        if let last, last.step == step, last.viewport == frame.viewport { return last.lines }
        if cached?.step != step { cached = (step, Self.lines(step: step).map(ProjectedLine.init)) }
        let lines = cached!.lines.flatMap { frame.viewport.lines($0) }.filter { !$0.isEmpty }
        last = (frame.viewport, step, lines)
        return lines
    }

    public func inkCells(_ frame: FrameContext) throws -> InkCells? {
        var cells = InkCells(width: frame.viewport.width, height: frame.viewport.height)
        guard let step = frame.scene.graticule else { return cells }
        let reach = frame.layout.size(frame.scene.style.graticule.width) / 2 + 1
        for line in lines(frame, step: step) { cells.mark(line, radius: reach) }
        return cells
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let step = frame.scene.graticule else { return }
        let stroke = frame.scene.style.graticule
        cr.save()
        defer { cr.restore() }
        cr.newPath()
        cr.addLines(lines(frame, step: step))
        cr.setSource(stroke.color)
        cr.setLineWidth(frame.layout.size(stroke.width))
        cr.setDash(stroke.dash.map { frame.layout.size($0) })
        cr.setLineJoin(.round)
        cr.stroke()
    }
}
