import Cairo
import Foundation
import MapTripGeometry
import MapTripScene
import MapTripTime
import RasterKernels
import Rsvg

/// Each leg's line, drawn up to where the vehicle is: legs begun so far, the travelled ones in their
/// travelled style. Lines are split at the antimeridian and drawn on every copy of the world the
/// frame shows, so a Tokyo to San Francisco leg crosses the Pacific.
public final class RouteOverlay: OverlayFastPaths {
    /// Whether lines are cut down to what the frame shows before they are stroked (see `draw`).
    let culls: Bool
    /// Whether the vertices that lie within `tolerance` of the line are left out before stroking.
    let thins: Bool
    /// How far (frame pixels) a vertex may lie from the line through its neighbours and be left out.
    static let tolerance = 0.05

    /// Whether the lines (solid and dashed) go through maptrip's own stroker where the context allows
    /// (`RoundStroke`); false: Cairo strokes every line.
    let strokesItself: Bool

    public init(culls: Bool = true, thins: Bool = true, strokesItself: Bool = true) {
        self.culls = culls
        self.thins = thins
        self.strokesItself = strokesItself
    }

    /// A leg's lines as one frame strokes them.
    struct LegStroke {
        /// The lines, cut down to what the frame shows (`culls`): a solid line's, a dashed one's outline's.
        var lines: [[(x: Double, y: Double)]]
        var width: Double
        var outline: (color: Color, width: Double)?
        /// A dashed line's dashes (nil: solid).
        var dashes: Dashed?
        var color: Color

        /// A line's dashes, round-capped (`Dashes.roundCapped`): each spans the length the scene gives
        /// it, as a flat-capped dash would, a dash no longer than the width a dot.
        struct Dashed {
            /// The whole lines, dashed from their starts (as Cairo dashes them).
            var lines: [[(x: Double, y: Double)]]
            /// Cairo's dash pattern and offset for them, round caps.
            var pattern: [Double], offset: Double
            /// The same dashes as round-capped solid pieces (`Dashes.pieces`), those the frame shows:
            /// x, y pairs and each piece's count of points (a dot: two equal points).
            var xy: [Double], counts: [Int32]
        }

        /// How far from its lines the stroke inks: half its widest line and the antialiasing's pixel.
        var reach: Double { (outline?.width ?? width) / 2 + 1 }

        /// What maptrip's stroker draws, in order, as x, y pairs (user space), the lines' point counts
        /// and the passes over them: the outline (if any) and the line over the same lines; a dashed
        /// line's outline under its line's pieces.
        var strokerStrokes: [(xy: [Double], counts: [Int32], passes: [(color: Color, width: Double)])] {
            let line = (color, width)
            guard let dashes else {
                return [(PixelTarget.flattened(lines), lines.map { Int32($0.count) }, (outline.map { [$0] } ?? []) + [line])]
            }
            let outlined = outline.map { [(PixelTarget.flattened(lines), lines.map { Int32($0.count) }, [$0])] } ?? []
            return outlined + [(dashes.xy, dashes.counts, [line])]
        }
    }

    /// The last frame's strokes, kept for the bands of rows that draw the same frame again (the scene
    /// in the key: the routes' lines and styles, and the layout, come from it).
    private var last: (viewport: Viewport, legs: [LegValue], scene: Scene, strokes: [LegStroke])?

    /// The finished legs' lines, by place, projected once (see `ProjectedLine`): their pieces outside
    /// the privacy zones.
    private var finished: [Int: (line: RouteLine, privacy: [PrivacyZone], projected: [ProjectedLine])] = [:]
    /// The colours of the legs that follow a recording coloured by a value.
    private let colors = SceneRouteColors.Cache()

    /// The frame's legs as stroked: projected, cut to what the frame shows and thinned. A leg coloured
    /// by a value is its casing, then one stroke per colour step (solid).
    func strokes(_ frame: FrameContext) -> [LegStroke] {
        if let last, last.viewport == frame.viewport, last.legs == frame.values.legs, last.scene == frame.scene {
            return last.strokes
        }
        let layout = frame.layout, privacy = frame.scene.privacy
        let colored = colors.colors(frame.scene).legs
        var out: [LegStroke] = []
        for leg in frame.values.legs {
            guard let style = frame.scene.route(into: leg.place), style.path != .none,
                  let line = frame.routes[leg.place] else { continue }
            let width = layout.size(style.width)
            let outlineWidth = width + 2 * max(layout.size(1.5), width * 0.35)
            let box = frame.strokeBox(width: style.outline != nil ? outlineWidth : width)
            /// Lines cut down to what the frame shows and thinned.
            func finish(_ lines: [[(x: Double, y: Double)]]) -> [[(x: Double, y: Double)]] {
                var lines = lines
                if culls {
                    // Only what the frame shows is stroked: a leg runs thousands of kilometres in steps of
                    // 25, most of them off the frame at the zooms routes are seen at.
                    lines = lines.flatMap { PolylineCulling.runs($0, meeting: box) }
                }
                return thinned(lines)
            }
            func thinned(_ lines: [[(x: Double, y: Double)]]) -> [[(x: Double, y: Double)]] {
                // A vertex every few kilometres is one every pixel or two on the frame, each joined
                // (round) by the stroker: those within a twentieth of a pixel of the line go.
                thins ? lines.map { PolylineSimplification.simplified($0, tolerance: Self.tolerance) } : lines
            }
            if let coloring = colored[leg.place] {
                let prefix = line.prefix(leg.progress)
                let casing = finish(frame.visibleLines(prefix))
                guard !casing.isEmpty else { continue }
                if let outline = style.outline {
                    out.append(LegStroke(lines: casing, width: outlineWidth, outline: nil, dashes: nil, color: outline))
                }
                for (bucket, runs) in coloring.runs(prefix).sorted(by: { $0.key < $1.key }) {
                    let lines = finish(runs.flatMap { frame.visibleLines($0) })
                    if !lines.isEmpty {
                        out.append(LegStroke(lines: lines, width: width, outline: nil, dashes: nil,
                                             color: coloring.coloring.color(bucket: bucket)))
                    }
                }
                continue
            }
            var lines: [[(x: Double, y: Double)]]
            if leg.progress >= 1 {
                // A finished leg is the same line from frame to frame: projected once.
                if finished[leg.place]?.line != line || finished[leg.place]?.privacy != privacy {
                    let pieces = privacy.isEmpty ? [line.points] : PrivacyClipping.visible(line.points, outside: privacy)
                    finished[leg.place] = (line, privacy, pieces.map(ProjectedLine.init))
                }
                lines = finished[leg.place]!.projected.flatMap { frame.viewport.lines($0) }
            } else {
                lines = frame.visibleLines(line.prefix(leg.progress))
            }
            guard !lines.isEmpty else { continue }
            var dashes: LegStroke.Dashed?
            if !style.dash.isEmpty, let (pattern, offset) = Dashes.roundCapped(style.dash.map { layout.size($0) }, width: width) {
                // Dashed: the whole line, its dashes counted from its start, cut into its dashes first, the
                // pieces the frame shows kept; its outline a solid line under them, cut as a solid one.
                let whole = thinned(lines)
                var xy: [Double] = [], counts: [Int32] = []
                Dashes.pieces(of: whole, pattern: pattern, offset: offset, inset: 0,
                              within: culls ? frame.strokeBox(width: width) : nil, into: &xy, counts: &counts)
                dashes = LegStroke.Dashed(lines: whole, pattern: pattern, offset: offset, xy: xy, counts: counts)
                lines = culls ? whole.flatMap { PolylineCulling.runs($0, meeting: box) } : whole
                guard !counts.isEmpty || (style.outline != nil && !lines.isEmpty) else { continue }
            } else {
                lines = finish(lines)
                guard !lines.isEmpty else { continue }
            }
            let color = leg.travelled ? (style.travelledColor ?? style.color) : style.color
            let outline = style.outline.map { ($0.withAlpha($0.alpha * (leg.travelled ? color.alpha : 1)), outlineWidth) }
            out.append(LegStroke(lines: lines, width: width, outline: outline, dashes: dashes, color: color))
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
        let strokes = strokes(frame)
        // Drawn by maptrip's own stroker where the context lets it (see `RoundStroke`), in order, in one
        // call (`PixelTarget.stroke(_ groups:)`): a dashed line as its pieces.
        if strokesItself, let target = PixelTarget(cr),
           target.stroke(strokes.flatMap(\.strokerStrokes).map { target.group(xy: $0.xy, counts: $0.counts, passes: $0.passes) }) {
            return
        }
        for stroke in strokes { Self.strokeWithCairo(stroke, in: cr) }
    }

    /// Strokes one of the legs' strokes with Cairo (its outline first): the same lines as maptrip's
    /// stroker draws, a dashed one's dashes by Cairo's dashing, round-capped (`Dashes.roundCapped`).
    private static func strokeWithCairo(_ stroke: LegStroke, in cr: Context) {
        cr.newPath()
        cr.setDash([])
        cr.setLineCap(.round)
        if let outline = stroke.outline {
            cr.addLines(stroke.lines)
            cr.setLineWidth(outline.width)
            cr.setSource(outline.color)
            if stroke.dashes == nil { cr.strokePreserve() } else { cr.stroke() }
        }
        if let dashes = stroke.dashes {
            cr.addLines(dashes.lines)
            cr.setDash(dashes.pattern, offset: dashes.offset)
        } else if stroke.outline == nil {
            cr.addLines(stroke.lines)
        }
        cr.setLineWidth(stroke.width)
        cr.setSource(stroke.color)
        cr.stroke()
    }

    /// Draws the legs straight into an I420 picture (`Kernels.strokeRound`): the pixels `draw`
    /// gives on a transparent overlay blended over it, a pair of rows at a time, without the frame's
    /// band of BGRA rows (the world tour: the drawing thread's samples 6% fewer, the stroker's rows in
    /// cache); a dashed leg as its pieces (`Dashes`). Nil, drawing nothing, where it cannot: the
    /// stroker off, no AVX2, no memory. Returns the rectangles it drew in: each 16 rows' columns the
    /// lines changed.
    public func drawPlanar(_ frame: FrameContext, into picture: PlanarPicture) throws -> [InkCells.Rect]? {
        guard strokesItself else { return nil }
        let strokes = strokes(frame).flatMap(\.strokerStrokes)
        let passes = strokes.flatMap(\.passes)
        guard let spans = Kernels.strokeRound(picture.kernelPlanes, lineCounts: strokes.map { Int32($0.counts.count) },
                                              passCounts: strokes.map { Int32($0.passes.count) },
                                              xy: Array(strokes.map(\.xy).joined()), counts: strokes.flatMap(\.counts),
                                              widths: passes.map(\.width), colors: passes.flatMap(\.color.rgba)) else { return nil }
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
