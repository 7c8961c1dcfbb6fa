import Cairo
import Foundation
import MapTripGeometry
import MapTripScene

/// What lies behind the globe: space, a soft atmosphere fading out from the limb, and the sea on the
/// Earth's disc (land and lines are drawn over it, cut at the limb).
public enum GlobeBackdrop {
    /// How far the atmosphere reaches beyond the limb, as a share of the disc's radius (and at least
    /// this many logical pixels).
    static let reach = 0.07
    static let minimumReach = 10.0

    public static func draw(_ viewport: Viewport, space: Color, atmosphere: Color, sea: Color, in cr: Context) {
        cr.save()
        defer { cr.restore() }
        let cx = Double(viewport.width) / 2, cy = Double(viewport.height) / 2, r = viewport.globeRadius
        if r * 0.98 >= hypot(cx, cy) {
            // The Earth fills the frame: no space shows.
            cr.setSource(sea)
            cr.paint()
            return
        }
        cr.setSource(space)
        cr.paint()
        let glow = max(r * reach, minimumReach * viewport.scale)
        let a = atmosphere
        ring(cx, cy, inner: r * 0.98, outer: r + glow,
             stops: [(0, a.withAlpha(a.alpha * 0.85)), (0.35, a.withAlpha(a.alpha * 0.35)), (1, a.withAlpha(0))], in: cr)
        if PixelTarget(cr)?.radial(cx: cx, cy: cy, inner: 0, outer: r, from: 0, to: r, stops: [(0, sea)]) != true {
            cr.newPath()
            cr.arc(x: cx, y: cy, radius: r)
            cr.setSource(sea)
            cr.fill()
        }
    }

    /// A rim of atmosphere over the disc's edge (drawn after the land, so the limb reads as air).
    public static func drawRim(_ viewport: Viewport, atmosphere: Color, in cr: Context) {
        let cx = Double(viewport.width) / 2, cy = Double(viewport.height) / 2, r = viewport.globeRadius
        guard r * 0.9 < hypot(cx, cy) else { return }
        let a = atmosphere
        ring(cx, cy, inner: r * 0.9, outer: r, stops: [(0, a.withAlpha(0)), (1, a.withAlpha(a.alpha * 0.45))], in: cr)
    }

    /// Fills the ring between radii `inner` and `outer` about (cx, cy) with a concentric gradient of
    /// `stops` (offset, colour) from the one to the other: by maptrip's own gradients where the context
    /// lets it (pixman's take a tenth of a globe frame), else by Cairo's.
    static func ring(_ cx: Double, _ cy: Double, inner: Double, outer: Double, stops: [(offset: Double, color: Color)],
                     in cr: Context) {
        if let target = PixelTarget(cr),
           target.radial(cx: cx, cy: cy, inner: inner, outer: outer, from: inner, to: outer, stops: stops) {
            return
        }
        guard let g = try? RadialGradient(x0: cx, y0: cy, r0: inner, x1: cx, y1: cy, r1: outer) else { return }
        for (offset, color) in stops {
            g.addStop(offset, red: color.red, green: color.green, blue: color.blue, alpha: color.alpha)
        }
        cr.save()
        annulus(cx, cy, inner: inner, outer: outer, cr)
        cr.setSource(g)
        cr.fill()
        cr.restore()
    }

    /// The ring between two circles (only it is rasterised, not the disc inside).
    static func annulus(_ cx: Double, _ cy: Double, inner: Double, outer: Double, _ cr: Context) {
        cr.newPath()
        cr.arc(x: cx, y: cy, radius: outer)
        cr.newSubPath()
        cr.arc(x: cx, y: cy, radius: inner)
        cr.setFillRule(.evenOdd)
    }
}

/// What lies behind a planar projection's map: the sea inside the projection's outline (a world
/// projection's edge, traced along its seam and the poles; an azimuthal projection's rim), `outside`
/// beyond it.
enum PlaneBackdrop {
    static func draw(_ viewport: Viewport, outline: [WorldPoint]?, outside: Color, sea: Color, in cr: Context) {
        cr.save()
        defer { cr.restore() }
        guard let outline else {
            cr.setSource(sea)
            cr.paint()
            return
        }
        cr.setSource(outside)
        cr.paint()
        cr.newPath()
        var first = true
        for p in outline {
            let q = viewport.pixel(p)
            if first { cr.move(to: q.x, q.y) } else { cr.line(to: q.x, q.y) }
            first = false
        }
        cr.closePath()
        cr.setSource(sea)
        cr.fill()
    }

    /// The projection's outline in its unit world: the seam's two sides and the poles, densely; or
    /// an azimuthal projection's rim.
    static func outline(_ plane: any PlaneProjector) -> [WorldPoint]? {
        guard let seam = plane.seam else { return plane.rim.map { $0.outline.map { Projection.unit(x: $0.x, y: $0.y) } } }
        let e = 1e-6
        var lons: [Double] = [], lats: [Double] = []
        for i in 0...180 { lons.append(seam + e); lats.append(-90 + Double(i)) }
        for i in 0...360 { lons.append(seam + e + Double(i) * (360 - 2 * e) / 360); lats.append(90) }
        for i in 0...180 { lons.append(seam + 360 - e); lats.append(90 - Double(i)) }
        for i in 0...360 { lons.append(seam + 360 - e - Double(i) * (360 - 2 * e) / 360); lats.append(-90) }
        lons = lons.map(WebMercator.wrapLongitude)
        var xs = lons, ys = lats
        plane.project(xs: &xs, ys: &ys)
        let points = xs.indices.compactMap { i in
            xs[i].isFinite && ys[i].isFinite ? Projection.unit(x: xs[i], y: ys[i]) : nil
        }
        return points.count >= 3 ? points : nil
    }
}

/// Full-frame Cairo drawing (space, atmosphere, the rim: gradients over most of a frame) split into
/// two bands of rows drawn at once, each on a surface of its own over the frame's pixels (one Cairo
/// surface may not be drawn on from two threads). The pixels come out as from one context: the
/// bands differ by whole rows. A context with a transform or a clip of its own is drawn on as it is.
public enum Bands {
    public static func draw(on cr: Context, width: Int, height: Int, _ draw: @escaping @Sendable (Context) -> Void) throws {
        try drawRows(on: cr, width: width, height: height) { band, _ in draw(band) }
    }

    /// The same, telling each band's drawing which of the frame's rows its surface holds (its context
    /// is already translated to frame coordinates; its surface's row 0 is the first of `rows`), or nil
    /// when the context is drawn on as it is (its transform and clip are then its own).
    public static func drawRows(on cr: Context, width: Int, height: Int,
                                _ draw: @escaping @Sendable (Context, Range<Int>?) -> Void) throws {
        let surface = cr.surface
        let clip = cr.clipExtents
        guard height >= 64, surface.width >= width, surface.height >= height, cr.hasIdentityMatrix,
              clip.x0 <= 0, clip.y0 <= 0, clip.x1 >= Double(width), clip.y1 >= Double(height) else {
            draw(cr, nil)
            return
        }
        surface.flush()
        let rows = (0..<2).map { k in (height * k / 2)..<(height * (k + 1) / 2) }
        let bands = try rows.map { rows -> Context in
            let band = try Context(surface: try surface.band(rows))
            band.translate(0, -Double(rows.lowerBound))
            return band
        }
        let contexts = BandContexts(contexts: bands)
        DrawingThreads.perform(iterations: 2) { k in draw(contexts.contexts[k], rows[k]) }
        for band in bands {
            band.surface.flush()
            try band.checkStatus("draw in bands")
        }
        surface.markDirty()
    }
}

/// Contexts over separate bands of a frame, each drawn on by one thread only.
private struct BandContexts: @unchecked Sendable {
    let contexts: [Context]
}
