import Cairo
import Foundation
import MapTripGeometry
import MapTripScene

/// The glyphs of line labels (street names) drawn once each as pictures and painted wherever they go:
/// a glyph's halo (its outlines stroked) and its text (filled) are each a picture of one colour,
/// opaque, for one glyph at one size, turn and position within a pixel, and a frame paints them
/// (`paint`), each colour's as one layer at its opacity. Stroking a halo costs about a disc per
/// segment of a flattened outline, and a glyph has dozens of them: a street name's halo is dearer than
/// its ink, and it was drawn again on every frame.
///
/// What may differ from the glyph drawn where it is, at its edge (r pixels from its centre, r at
/// most about 12 at 1080p's 18 px text):
/// - the turn is a step of `turnStep` (1 degree) off at most half of one: 12 x 0.0087 = 0.10 px;
/// - the size a half pixel step, a quarter off: 12 x 0.25 / 18 = 0.17 px, the letters' spacing kept
///   exact (within the phase's quarter pixel: a flight's zoom changes a street's size all along, and
///   quarter pixel steps drew 302 pictures a frame of a flight over Helsinki at 720p, half pixel ones
///   216, `LineLabelPicturesTests`);
/// - the centre within a quarter pixel each way (half-pixel phases, as a point label's picture
///   lands, see `Sprites`; Cairo's hinted text puts each of its glyphs on a whole pixel, half a pixel off);
///   a halo's within half a pixel (whole pixels: a halo 2 or 3 pixels wide each side, its ring a
///   little wider on one side; one picture for its four phases, and a halo's stroke is most of a
///   glyph's drawing). A flight over Helsinki at 720p drew 216 pictures a frame, 145 so; at 1080p
///   its frames are 49-50 dB from those with halos at half pixels.
/// A heading-up ride turns its map by a degree in a few frames and a flight changes a street's size by
/// half a pixel in a dozen or so, so each picture serves several frames.
final class GlyphPictures {
    /// A halo's colour and width (pixels), or a text's colour (width 0).
    struct Pen: Hashable {
        var color: Color, width: Double
    }

    /// What names a picture: the glyph, its size and turn in steps, its pen (numbered, see `pen`), and
    /// the phase of its centre within a pixel (x + steps y). (Small integers: a frame looks up a few
    /// hundred, twice each.)
    private struct Key: Hashable {
        var glyph: Int, size: Int32, turn: Int16, pen: Int16, phase: Int16
    }

    /// The step turns are drawn at (radians), and sizes (pixels).
    static let turnStep = Double.pi / 180
    static let sizeStep = 0.5
    /// Phases of a glyph's centre a pixel, each way: a text's, and a halo's.
    static let steps = 2
    static let haloSteps = 1
    /// Room for the pictures: a frame's few hundred glyphs at their four phases and a few turns or
    /// sizes, a halo and a text each (about 3 KB a picture at 1080p).
    static let limitBytes = 32 << 20

    private var pictures: [Key: (surface: ImageSurface, x0: Int, y0: Int, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    /// The pens seen, numbered (their colours made opaque: `paint` applies the opacity).
    private var pens: [Pen: Int16] = [:], penList: [Pen] = []

    /// Pictures drawn (one evicted and drawn again counts again), glyphs painted from a picture drawn
    /// before, and the pictures' bytes.
    private(set) var drawn = 0, reused = 0, bytes = 0

    /// The number of a pen (its colour opaque).
    func pen(_ pen: Pen) -> Int16 {
        let opaque = Pen(color: pen.color.withAlpha(1), width: pen.width)
        if let n = pens[opaque] { return n }
        // (Pens are a style's few colours; a number is never given to another.)
        let n = Int16(clamping: penList.count)
        penList.append(opaque)
        pens[opaque] = n
        return n
    }

    /// The picture of a cluster's outlines (`cluster`: of a run made at `GlyphRuns.reference` pixels)
    /// at `size` pixels, placed as `g` says, drawn with pen number `pen` (see `pen(_:)`).
    func mark(_ cluster: GlyphRun.Cluster, at g: LineLabels.Glyph, size: Double, pen: Int16) throws -> Mark {
        var turn = Int((g.angle / Self.turnStep).rounded()) % 360
        if turn < 0 { turn += 360 }
        let sizeSteps = Int32(clamping: Int((size / Self.sizeStep).rounded()))
        // A halo (a pen with a width) at whole pixels, a text at half pixels (see `haloSteps`).
        let steps = penList[Int(pen)].width > 0 ? Self.haloSteps : Self.steps
        let n = Double(steps)
        let hx = (g.x * n).rounded(), hy = (g.y * n).rounded()
        let ix = Int((hx / n).rounded(.down)), iy = Int((hy / n).rounded(.down))
        let px = Int(hx) - ix * steps, py = Int(hy) - iy * steps
        let key = Key(glyph: cluster.glyph, size: sizeSteps, turn: Int16(turn), pen: pen, phase: Int16(px + steps * py))
        tick &+= 1
        // (One look-up: the entry's tick set through its index.)
        if let i = pictures.index(forKey: key) {
            pictures.values[i].tick = tick
            reused += 1
            let p = pictures.values[i]
            return Mark(picture: p.surface, x: ix + p.x0, y: iy + p.y0, alpha: 1)
        }
        let angle = Double(turn) * Self.turnStep, f = Double(sizeSteps) * Self.sizeStep / GlyphRuns.reference
        let cosA = cos(angle) * f, sinA = sin(angle) * f
        let outlines = cluster.contours.map { $0.map { (x: cosA * $0.x - sinA * $0.y, y: sinA * $0.x + cosA * $0.y) } }
        let pen = penList[Int(pen)]
        let extent = Self.extent(outlines, margin: pen.width / 2)
        // Every pixel the ink meets, moved by the phase (under a pixel): painted at whole pixels, no
        // filter reaches past them (a margin was a fifth of a glyph's pixels blended each frame).
        let x0 = Int(extent.minX.rounded(.down)), y0 = Int(extent.minY.rounded(.down))
        let x1 = Int(extent.maxX.rounded(.up)) + 1, y1 = Int(extent.maxY.rounded(.up)) + 1
        let surface = try ImageSurface(width: max(1, x1 - x0), height: max(1, y1 - y0))
        try surface.withContext { sc in
            sc.translate(Double(-x0) + Double(px) / n, Double(-y0) + Double(py) / n)
            Self.draw(outlines, pen: pen, in: sc)
        }
        surface.flush()
        drawn += 1
        let size = surface.byteCount
        if bytes + size > Self.limitBytes {
            // The least recently used dropped down to three quarters of the room at once: one sort for
            // many pictures (a heading-up ride's glyphs turn), not a search of all of them for each.
            for (k, p) in pictures.sorted(by: { $0.value.tick < $1.value.tick }) where bytes + size > Self.limitBytes * 3 / 4 {
                bytes -= p.surface.byteCount
                pictures[k] = nil
            }
        }
        pictures[key] = (surface, x0, y0, tick)
        bytes += size
        return Mark(picture: surface, x: ix + x0, y: iy + y0, alpha: 1)
    }

    /// The box around outlines, widened by `margin`.
    private static func extent(_ outlines: [[(x: Double, y: Double)]], margin: Double) -> Box {
        var b = Box.empty
        for o in outlines { for p in o { b.add(p.x, p.y) } }
        guard b.minX <= b.maxX else { return Box(minX: 0, minY: 0, maxX: 0, maxY: 0) }
        return Box(minX: b.minX - margin, minY: b.minY - margin, maxX: b.maxX + margin, maxY: b.maxY + margin)
    }

    /// Strokes outlines (a pen with a width: round joins) or fills them (non-zero), by maptrip's
    /// rasterisers where they draw, else by Cairo.
    static func draw(_ outlines: [[(x: Double, y: Double)]], pen: Pen, in cr: Context) {
        let target = PixelTarget(cr)
        if pen.width > 0 {
            if target?.stroke(outlines, passes: [(pen.color, pen.width)]) == true { return }
        } else {
            var path = PixelPath()
            for o in outlines {
                path.starts.append(path.xs.count)
                path.xs += o.map(\.x)
                path.ys += o.map(\.y)
            }
            path.closed = true
            if target?.fill(path, color: pen.color) == true { return }
        }
        cr.save()
        cr.newPath()
        for o in outlines {
            guard let first = o.first else { continue }
            cr.move(to: first.x, first.y)
            for p in o.dropFirst() { cr.line(to: p.x, p.y) }
            cr.closePath()
        }
        cr.setSource(pen.color)
        if pen.width > 0 {
            cr.setLineWidth(pen.width)
            cr.setLineJoin(.round)
            cr.stroke()
        } else {
            cr.setFillRule(.winding)
            cr.fill()
        }
        cr.restore()
    }

    /// Paints pictures of one colour, each over the ones before, all at `alpha` (the colour's
    /// opacity) over `cr`: where two meet (neighbouring letters' halos), painted once.
    static func paint(_ marks: [Mark], alpha: Double, in cr: Context) {
        guard !marks.isEmpty, alpha > 0 else { return }
        if let target = PixelTarget(cr), target.paint(marks, alpha: alpha) { return }
        paintByCairo(marks, alpha: alpha, in: cr)
    }

    /// The same by Cairo (where maptrip's own blend does not draw): a translucent colour's pictures
    /// painted into a group painted at its opacity.
    static func paintByCairo(_ marks: [Mark], alpha: Double, in cr: Context) {
        cr.save()
        if alpha < 1 { cr.pushGroup() }
        for m in marks { m.paint(in: cr) }
        if alpha < 1 {
            cr.popGroupToSource()
            cr.paint(alpha: alpha)
        }
        cr.restore()
    }
}
