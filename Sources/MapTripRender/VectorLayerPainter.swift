import Cairo
import MapTripGeometry

/// Paints a map's vector layers, bottom to top, from their geometry in pixels: a fill or a line
/// each (Mapnik's symbolizers), faded by zoom as the layer says. The one renderer a vector map
/// draws through, in frames and in the raster cache's tiles alike; where the geometry comes from
/// (a shapefile's levels, flat or on the sphere; later vector tiles) is the map's to say.
final class VectorLayerPainter {
    let layers: [MapLayer]
    /// Paths and clippers of the drawing threads: [0] for frames, both for tiles drawn two at a time.
    let scratch = [DrawScratch(), DrawScratch()]

    /// Whether the layers' lines go through maptrip's own stroker where the context allows (false:
    /// Cairo strokes them all; the tests compare the two).
    var strokesItself = true

    /// Whether the layers' fills (land, lakes) go through maptrip's own filler where the context
    /// allows (`PixelTarget.fill`: exact area cover, the land's whole pixels written without a blend;
    /// false: Cairo fills them all; the tests compare the two).
    var fillsItself = true

    init(layers: [MapLayer]) {
        self.layers = layers
    }

    /// Paints every layer that shows at `zoom`, one path each: `geometry` appends the layer's pixels
    /// to `scratch.path` (with `scratch.clipper`); dash lengths are the style's times `scale` and
    /// `dashScale`.
    func drawLayers(zoom: Double, scale: Double, dashScale: Double, in cr: Context, scratch: DrawScratch,
                    geometry: (MapLayer, DrawScratch) throws -> Void) throws {
        for layer in layers {
            let opacity = layer.opacity(zoom: zoom)
            if opacity <= 0 { continue }
            scratch.path.removeAll()
            try geometry(layer, scratch)
            let path = scratch.path
            if path.subpathCount == 0 { continue }
            if case .stroke(let stroke) = layer.symbolizer,
               self.stroke(path, stroke, opacity: opacity, scale: scale, dashScale: dashScale, in: cr, scratch: scratch) {
                continue
            }
            if case .fill(let color) = layer.symbolizer, fillsItself, let target = PixelTarget(cr),
               target.fill(path, color: color.withAlpha(color.alpha * opacity)) {
                continue
            }
            // One path for all copies of the world, filled once: pieces that meet at the
            // antimeridian are rasterised together, so no seam shows between them.
            cr.newPath()
            emit(path, cr)
            switch layer.symbolizer {
            case .fill(let color):
                cr.setFillRule(.winding)
                cr.setSource(color.withAlpha(color.alpha * opacity))
                cr.fill()
            case .stroke(let stroke):
                cr.setSource(stroke.color.withAlpha(stroke.color.alpha * opacity))
                let width = stroke.width * scale
                cr.setLineWidth(width)
                let thin = Self.isHairline(width)
                cr.setLineJoin(thin ? .bevel : .round)
                cr.setLineCap(thin ? .butt : .round)
                let pattern = stroke.dash.map { $0 * scale * dashScale }
                guard path.hasAlong, pattern.reduce(0, +) >= 1 else {
                    cr.setDash(pattern)
                    cr.stroke()
                    continue
                }
                // Each piece dashed from its distance along its whole line, as maptrip's stroker
                // does (`Dashes`): a stroke each.
                cr.newPath()
                for k in 0..<path.subpathCount {
                    let r = path.range(k)
                    cr.move(to: path.xs[r.lowerBound], path.ys[r.lowerBound])
                    for i in (r.lowerBound + 1)..<r.upperBound { cr.line(to: path.xs[i], path.ys[i]) }
                    cr.setDash(pattern, offset: path.along[r.lowerBound])
                    cr.stroke()
                }
            }
        }
    }
    /// A layer's lines (dashed or not) drawn by maptrip's own stroker where the context lets it
    /// (`RoundStroke`): each dash a round-capped piece (`Dashes`), cut short at its ends so that it
    /// inks what Cairo's dash does (`RoundStroke.capInset`). Cairo samples fifteen sub-rows a row
    /// for the same lines: the 1:10m borders of a moving 1080p frame drawn from the vectors took 4.4
    /// ms, 1.3 this way (`maptrip-bench --profile`, clipping included); the globe's and Robinson's
    /// frames 28-32% less. False where the context does not allow it: Cairo strokes.
    private func stroke(_ path: PixelPath, _ stroke: MapStyle.Stroke, opacity: Double, scale: Double, dashScale: Double,
                        in cr: Context, scratch: DrawScratch) -> Bool {
        guard strokesItself, let target = PixelTarget(cr) else { return false }
        let width = stroke.width * scale
        let pattern = stroke.dash.map { $0 * scale * dashScale }
        // Dashes finer than a pixel are left to Cairo (which draws them as a fainter solid line): as
        // pieces, a long line would be millions of them.
        guard pattern.isEmpty || pattern.reduce(0, +) >= 1 else { return false }
        scratch.dashXY.removeAll(keepingCapacity: true)
        scratch.dashCounts.removeAll(keepingCapacity: true)
        // Flat caps on hairlines, round ones above, as Cairo strokes them (`drawLayers`).
        Dashes.pieces(of: path, pattern: pattern,
                      inset: RoundStroke.capInset(width: width, flatCaps: Self.isHairline(width)),
                      within: target.box(margin: width / 2 + 1),
                      into: &scratch.dashXY, counts: &scratch.dashCounts)
        return target.stroke(xy: &scratch.dashXY, counts: scratch.dashCounts,
                             passes: [(stroke.color.withAlpha(stroke.color.alpha * opacity), width)])
    }

    /// Whether a map line this wide (pixels) is a hairline, which Cairo strokes with bevel joins and
    /// flat ends (and maptrip's stroker cuts to ink as those do): round joins and caps cost Cairo's
    /// rasteriser an arc at every vertex and dash end, and on hairlines look no different.
    static func isHairline(_ width: Double) -> Bool { width <= 2 }

    /// The pixels geometry is clipped to on a surface of this size: a little beyond its edges, so that
    /// strokes and antialiasing don't show the clip; or, with `rows`, a little beyond those rows.
    static func clip(width: Int, height: Int, scale: Double, rows: Range<Int>? = nil) -> Box {
        let margin = 4 * scale + 2
        let rows = rows ?? 0..<height
        return Box(minX: -margin, minY: Double(rows.lowerBound) - margin, maxX: Double(width) + margin,
                   maxY: Double(rows.upperBound) + margin)
    }

    /// The factor on a Web Mercator map's dash lengths in a world this many pixels wide: the world's
    /// width over that of the first quarter zoom at least as wide (`RasterCache.stepWidth`), 0.84-1.
    /// The raster cache's tiles, drawn at those widths (or a resting camera's, between them) and
    /// scaled down, show the same dashes as a frame drawn from the vectors: dashes of one length on
    /// the map between two quarter zooms, counted from the lines' starts (`PixelPath.tracksAlong`).
    static func dashScale(worldWidth: Double) -> Double {
        let step = RasterCache.stepWidth(atLeast: worldWidth, stepsPerZoom: RasterCache.defaultStepsPerZoom)
        return min(1, worldWidth / Double(step))
    }

    private func emit(_ p: PixelPath, _ cr: Context) {
        p.xs.withUnsafeBufferPointer { xs in
            p.ys.withUnsafeBufferPointer { ys in
                for k in 0..<p.subpathCount {
                    let r = p.range(k)
                    cr.move(to: xs[r.lowerBound], ys[r.lowerBound])
                    for i in (r.lowerBound + 1)..<r.upperBound {
                        cr.line(to: xs[i], ys[i])
                    }
                    if p.closed { cr.closePath() }
                }
            }
        }
    }
}

/// One drawing thread's path and clipper (their buffers are kept from one layer to the next).
final class DrawScratch: @unchecked Sendable {
    var path = PixelPath()
    var clipper = PathClipper()
    /// A layer's dashes for `RoundStroke` (x, y pairs; points a piece).
    var dashXY: [Double] = []
    var dashCounts: [Int32] = []
}
