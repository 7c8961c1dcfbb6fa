import CResample
import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import Rsvg

/// Each leg's line, drawn up to where the vehicle is: legs begun so far, the travelled ones in their
/// travelled style. Lines are split at the antimeridian and drawn on every copy of the world the
/// frame shows, so a Tokyo to San Francisco leg crosses the Pacific.
public final class RouteOverlay: Overlay {
    /// Whether lines are cut down to what the frame shows before they are stroked (see `draw`).
    let culls: Bool
    /// Whether the vertices that lie within `tolerance` of the line are left out before stroking.
    let thins: Bool
    /// How far (frame pixels) a vertex may lie from the line through its neighbours and be left out.
    static let tolerance = 0.05

    /// Whether solid lines go through maptrip's own stroker where the context allows (`RoundStroke`);
    /// false: Cairo strokes every line.
    let strokesItself: Bool

    public init(culls: Bool = true, thins: Bool = true, strokesItself: Bool = true) {
        self.culls = culls
        self.thins = thins
        self.strokesItself = strokesItself
    }

    /// A leg's lines as one frame strokes them.
    struct LegStroke {
        var lines: [[(x: Double, y: Double)]]
        var width: Double
        var outline: (color: Color, width: Double)?
        var dash: [Double]
        var color: Color

        /// How far from its lines the stroke inks: half its widest line and the antialiasing's pixel.
        var reach: Double { (outline?.width ?? width) / 2 + 1 }

        /// Its passes for maptrip's stroker, in order: the outline (if any), then the line.
        var passes: [(color: Color, width: Double)] { (outline.map { [$0] } ?? []) + [(color, width)] }
    }

    /// The last frame's strokes, kept for the bands of rows that draw the same frame again (the scene
    /// in the key: the routes' lines and styles, and the layout, come from it).
    private var last: (viewport: Viewport, legs: [LegValue], scene: Scene, strokes: [LegStroke])?

    /// The finished legs' lines, by place, projected once (see `ProjectedLine`).
    private var finished: [Int: (line: RouteLine, projected: ProjectedLine)] = [:]

    /// The frame's legs as stroked: projected, cut to what the frame shows and thinned.
    func strokes(_ frame: FrameContext) -> [LegStroke] {
        if let last, last.viewport == frame.viewport, last.legs == frame.values.legs, last.scene == frame.scene {
            return last.strokes
        }
        let layout = frame.layout
        var out: [LegStroke] = []
        for leg in frame.values.legs {
            guard let style = frame.scene.route(into: leg.place), style.path != .none,
                  let line = frame.routes[leg.place] else { continue }
            var lines: [[(x: Double, y: Double)]]
            if leg.progress >= 1 {
                // A finished leg is the same line from frame to frame: projected once.
                if finished[leg.place]?.line != line { finished[leg.place] = (line, ProjectedLine(line.points)) }
                lines = frame.viewport.lines(finished[leg.place]!.projected)
            } else {
                lines = frame.viewport.lines(line.prefix(leg.progress))
            }
            guard !lines.isEmpty else { continue }
            let width = layout.size(style.width)
            let outlineWidth = width + 2 * max(layout.size(1.5), width * 0.35)
            if culls && style.dash.isEmpty {
                // Only what the frame shows is stroked: a leg runs thousands of kilometres in steps of
                // 25, most of them off the frame at the zooms routes are seen at. (A dashed line keeps
                // all of it: its dashes are counted from its start.)
                let m = (style.outline != nil ? outlineWidth : width) / 2 + 2
                let box = Box(minX: -m, minY: -m, maxX: Double(frame.viewport.width) + m,
                              maxY: Double(frame.viewport.height) + m)
                lines = lines.flatMap { PolylineCulling.runs($0, meeting: box) }
            }
            if thins {
                // A vertex every few kilometres is one every pixel or two on the frame, each joined
                // (round) by the stroker: those within a twentieth of a pixel of the line go.
                lines = lines.map { PolylineSimplification.simplified($0, tolerance: Self.tolerance) }
            }
            guard !lines.isEmpty else { continue }
            let color = leg.travelled ? (style.travelledColor ?? style.color) : style.color
            let outline = style.outline.map { ($0.withAlpha($0.alpha * (leg.travelled ? color.alpha : 1)), outlineWidth) }
            out.append(LegStroke(lines: lines, width: width, outline: outline, dash: style.dash.map { layout.size($0) },
                                 color: color))
        }
        last = (frame.viewport, frame.values.legs, frame.scene, out)
        return out
    }

    public func inkCells(_ frame: FrameContext) throws -> InkCells? {
        var cells = InkCells(width: frame.viewport.width, height: frame.viewport.height)
        for stroke in strokes(frame) {
            for line in stroke.lines { cells.mark(line, radius: stroke.reach) }
        }
        return cells
    }

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard !frame.values.legs.isEmpty else { return }
        cr.save()
        defer { cr.restore() }
        cr.setLineJoin(.round)
        cr.setLineCap(.round)
        // Solid lines are drawn by maptrip's own stroker where the context lets it (see `RoundStroke`).
        let target = strokesItself ? PixelTarget(cr) : nil
        for stroke in strokes(frame) {
            if stroke.dash.isEmpty, let target,
               target.stroke(stroke.lines, passes: stroke.passes) {
                continue
            }
            cr.newPath()
            for line in stroke.lines {
                cr.move(to: line[0].x, line[0].y)
                for p in line.dropFirst() { cr.line(to: p.x, p.y) }
            }
            if let outline = stroke.outline {
                cr.setDash([])
                cr.setLineCap(.round)
                cr.setLineWidth(outline.width)
                cr.setSource(outline.color)
                cr.strokePreserve()
            }
            cr.setDash(stroke.dash)
            cr.setLineCap(stroke.dash.isEmpty ? .round : .butt)
            cr.setLineWidth(stroke.width)
            cr.setSource(stroke.color)
            cr.stroke()
        }
    }

    /// Draws the legs straight into an I420 picture (`maptrip_stroke_round_i420`): the pixels `draw`
    /// gives on a transparent overlay blended over it, a pair of rows at a time, without the frame's
    /// band of BGRA rows (the world tour: the drawing thread's samples 6% fewer, the stroker's rows in
    /// cache). False, drawing nothing, where it cannot: a dashed leg (Cairo dashes it), the stroker
    /// off, no AVX2, no memory. Returns the rectangles it drew in: each 16 rows' columns the lines
    /// changed.
    public func drawPlanar(_ frame: FrameContext, into picture: PlanarPicture) throws -> [InkCells.Rect]? {
        let strokes = strokes(frame)
        guard strokesItself, strokes.allSatisfy(\.dash.isEmpty) else { return nil }
        let passes = strokes.map(\.passes), allPasses = Array(passes.joined())
        let lines = strokes.flatMap(\.lines)
        var spans = [Int32](repeating: 0, count: picture.height)
        guard maptrip_stroke_round_i420(
            picture.y, picture.yStride, picture.u, picture.uStride, picture.v, picture.vStride, Int32(picture.width),
            Int32(picture.height), Int32(strokes.count), strokes.map { Int32($0.lines.count) }, passes.map { Int32($0.count) },
            PixelTarget.flattened(lines), lines.map { Int32($0.count) }, allPasses.map(\.width),
            allPasses.flatMap(\.color.rgba), &spans, picture.matrix.coefficients) != 0
        else { return nil }
        var rects: [InkCells.Rect] = []
        for top in stride(from: 0, to: picture.height, by: 16) {
            var lo = Int32.max, hi = Int32.min
            for r in stride(from: top, to: min(top + 16, picture.height), by: 2) where spans[r] < spans[r + 1] {
                lo = min(lo, spans[r])
                hi = max(hi, spans[r + 1])
            }
            if lo < hi {
                rects.append(InkCells.Rect(x: Int(lo), y: top, width: Int(hi - lo), height: min(16, picture.height - top)))
            }
        }
        return rects
    }
}

/// What a vehicle looks like: a vector icon (crisp at any size) or an image, drawn pointing up.
public enum VehicleArt {
    case svg(SVGDocument)
    case image(ImageSurface)
}

/// The vehicle on its leg's line during the flight, turned to its heading.
public final class VehicleOverlay: Overlay {
    /// The icon's size in layout units.
    public static let size = 56.0
    /// Each distinct art drawn once at its size (a plane on every leg is one raster).
    private var rasters: [ObjectIdentifier: ImageSurface] = [:]

    public init() {}

    public func draw(_ frame: FrameContext, in cr: Context) throws {
        guard let vehicle = frame.values.vehicle, let art = frame.media.vehicles[vehicle.place] else { return }
        let side = frame.layout.size(Self.size)
        let icon = try raster(art, side: side)
        guard let p = frame.viewport.pixel(vehicle.position) else { return }
        cr.save()
        cr.translate(p.x, p.y)
        cr.rotate(Self.screenHeading(vehicle, frame.viewport) * .pi / 180)
        cr.translate(-Double(icon.width) / 2, -Double(icon.height) / 2)
        cr.setSource(icon, x: 0, y: 0)
        cr.setSourceFilter(.good)
        cr.paint()
        cr.restore()
    }

    /// The vehicle's heading on the frame (degrees clockwise from up): its heading on the ground,
    /// unless the projection or the bearing turn the map under it, then the direction a step ahead
    /// takes on the frame.
    static func screenHeading(_ vehicle: VehicleValue, _ viewport: Viewport) -> Double {
        if case .webMercator = viewport.projection, !viewport.isRotated { return vehicle.heading }
        let h = vehicle.heading * .pi / 180, step = 0.01
        let lat = vehicle.position.lat
        let ahead = LonLat(lon: vehicle.position.lon + step * sin(h) / max(cos(lat * .pi / 180), 1e-6),
                           lat: min(max(lat + step * cos(h), -90), 90))
        guard let a = viewport.pixel(vehicle.position), let b = viewport.pixel(ahead),
              a.x != b.x || a.y != b.y else { return vehicle.heading - viewport.camera.bearing }
        return atan2(b.x - a.x, a.y - b.y) * 180 / .pi
    }

    /// The art drawn once at its size on the frame (kept: the size does not change during a render).
    private func raster(_ art: VehicleArt, side: Double) throws -> ImageSurface {
        let key: ObjectIdentifier
        switch art {
        case .svg(let document): key = ObjectIdentifier(document)
        case .image(let image): key = ObjectIdentifier(image)
        }
        if let r = rasters[key] { return r }
        let n = max(1, Int(side.rounded()))
        let surface = try ImageSurface(width: n, height: n)
        try surface.withContext { cr in
            switch art {
            case .svg(let document):
                try document.render(in: cr, x: 0, y: 0, width: Double(n), height: Double(n))
            case .image(let image):
                // Fit the image in the square, keeping its shape.
                let k = Double(n) / Double(max(image.width, image.height))
                cr.translate((Double(n) - Double(image.width) * k) / 2, (Double(n) - Double(image.height) * k) / 2)
                cr.scale(k, k)
                cr.setSource(image, x: 0, y: 0)
                cr.setSourceFilter(.best)
                cr.paint()
            }
        }
        surface.flush()
        rasters[key] = surface
        return surface
    }
}

/// Meridians and parallels every `scene.graticule` degrees, over the base map and under the route,
/// cut by the projection like every other line (at the globe's horizon, at a world map's seam).
public final class GraticuleOverlay: Overlay {
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
        for piece in lines(frame, step: step) {
            cr.move(to: piece[0].x, piece[0].y)
            for p in piece.dropFirst() { cr.line(to: p.x, p.y) }
        }
        cr.setSource(stroke.color)
        cr.setLineWidth(frame.layout.size(stroke.width))
        cr.setDash(stroke.dash.map { frame.layout.size($0) })
        cr.setLineJoin(.round)
        cr.stroke()
    }
}

/// Round-capped, round-joined solid lines drawn straight into an image surface's pixels by maptrip's
/// own stroker (`maptrip_stroke_round`, CResample): a route's strokes on every moving frame were
/// most of the Cairo work of a frame, Cairo's scan converter taking fifteen sub-rows per row; the
/// map's borders and provinces too, their dashes cut into pieces ahead (`Dashes`, `capInset`). Used
/// through a `PixelTarget`; anywhere else (a recording, a scaled poster, a route's dashes) Cairo strokes.
enum RoundStroke {
    /// How far to cut a piece short at each end for it to ink what Cairo's stroke of the whole stretch
    /// inks, with flat caps or round ones (Cairo's dashes, drawn as pieces: `Dashes`). Along a piece the
    /// stroker inks a band 2r wide (r: half the width), as Cairo does; past an end, where a pixel's
    /// cover at distance p from the end point is c(p) = min(p + 1/2, r) - max(p - 1/2, -r), it inks
    /// E = pi * integral of c(p) p dp over the half disc, against nothing for a flat cap and pi r^2 / 2
    /// for a round one. Cut by (E - cap) / 2r at each end, a dash inks what Cairo's does: about r for
    /// a 1.1 px border (half its width: its dashes also reach as far), 0.44 for a 0.6 px province
    /// line, whose ends the stroker's cover overstates most, 0.06 for a round-capped 2.2 px border.
    static func capInset(width: Double, flatCaps: Bool) -> Double {
        let r = width / 2
        guard r > 0, r.isFinite else { return 0 }
        // c(p) is min(2r, 1) out to |r - 1/2|, then falls as r + 1/2 - p to 0 at r + 1/2.
        let a = abs(r - 0.5), b = r + 0.5
        let ink = Double.pi * (min(2 * r, 1) * a * a / 2 + b * (b * b - a * a) / 2 - (b * b * b - a * a * a) / 3)
        let cap = flatCaps ? 0 : Double.pi * r * r / 2
        return max(0, (ink - cap) / (2 * r))
    }
}
