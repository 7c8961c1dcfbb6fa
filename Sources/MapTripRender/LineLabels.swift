import Cairo
import Foundation
import MapTripGeometry
import Pango

/// A label's text shaped once for setting along a line: the whole string laid out by Pango (its
/// kerning and shaping kept), then cut into its clusters, each with its advance and the outlines of
/// its glyphs, flattened, relative to the cluster's centre on the text's middle line. A frame places
/// each cluster on the line and turns it there (`LineLabels.place`).
struct GlyphRun {
    struct Cluster {
        /// The cluster's centre, from the text's left edge, and its advance (pixels).
        var center: Double, advance: Double
        /// Its glyphs' outlines, closed, around (centre, middle of the text's height).
        var contours: [[(x: Double, y: Double)]]
        /// What names its outlines (the same outlines in any text: the same number, see `GlyphRuns`).
        var glyph = 0
    }

    var clusters: [Cluster]
    /// The logical size of the whole text.
    var width: Double, height: Double
}

/// The glyph runs of the line labels' texts, made once per text and font at one size, `reference`
/// pixels, and scaled where they are placed: a street's name shows on every frame, in several
/// places, at a size that follows the zoom (outlines laid out without hinting scale exactly).
final class GlyphRuns {
    private struct Key: Hashable {
        var text: String, family: String, weight: String
    }

    /// The size runs are made at (pixels).
    static let reference = 24.0

    private var runs: [Key: GlyphRun] = [:]
    /// The numbers given to clusters' outlines (in 1/64 px at the reference size), and the next one:
    /// a letter with the same outlines in two street names is one glyph, its pictures shared.
    private var glyphs: [[Int32]: Int] = [:]
    private var nextGlyph = 0

    private func glyph(_ contours: [[(x: Double, y: Double)]]) -> Int {
        var key: [Int32] = []
        for c in contours {
            key.append(Int32(clamping: c.count))
            for p in c {
                key.append(Int32(clamping: Int((p.x * 64).rounded())))
                key.append(Int32(clamping: Int((p.y * 64).rounded())))
            }
        }
        if let known = glyphs[key] { return known }
        // (Numbers are never given twice: a number always names the same outlines.)
        if glyphs.count >= 4 * Self.limit { glyphs.removeAll(keepingCapacity: true) }
        nextGlyph += 1
        glyphs[key] = nextGlyph
        return nextGlyph
    }
    /// A context to take the glyphs' outlines on (untransformed, as `TextCache`'s layouts are made for).
    private lazy var scratch: Result<Context, Error> = Result {
        let cr = try Context(surface: try ImageSurface(width: 1, height: 1))
        cr.setTolerance(Self.tolerance * Self.reference / 16)
        return cr
    }

    /// How far a flattened outline may stray from the glyph's curves (pixels, at 16 px text). Cairo's
    /// 0.1 gave 1.3 times the points (700 against 541 for three street names at 18 px), which the
    /// halo's stroker and the filler pay for on every frame; a quarter pixel is not seen at label sizes.
    static let tolerance = 0.25

    /// Runs kept at most; past it they are dropped and made again as needed (a render names a few
    /// hundred streets).
    static let limit = 4096

    /// The run of a text in a style, and the factor from its size to the style's at `scale`.
    func run(_ text: String, _ style: TextStyle, scale: Double, layouts: TextCache) throws -> (run: GlyphRun, factor: Double) {
        let key = Key(text: text, family: style.family, weight: style.weight)
        let factor = style.size * scale / Self.reference
        if let r = runs[key] { return (r, factor) }
        var at = style
        at.size = Self.reference
        let l = try layouts.layout(text, at, scale: 1)
        let cr = try scratch.get()
        cr.newPath()
        cr.move(to: 0, 0)
        l.appendPath(in: cr)
        let outlines = cr.flattenedPath() ?? []
        cr.newPath()
        let (width, height) = l.size
        let cuts = l.clusters.sorted { $0.left < $1.left }
        var clusters = cuts.map { GlyphRun.Cluster(center: $0.left + $0.advance / 2, advance: $0.advance, contours: []) }
        if !clusters.isEmpty {
            // Each outline goes with the cluster its middle lies in (the nearest one for an overhang).
            for outline in outlines where outline.count > 2 {
                var lo = Double.infinity, hi = -Double.infinity
                for p in outline { lo = min(lo, p.x); hi = max(hi, p.x) }
                let mid = (lo + hi) / 2
                var best = 0
                for (i, c) in clusters.enumerated() where abs(c.center - mid) < abs(clusters[best].center - mid) { best = i }
                let c = clusters[best].center
                clusters[best].contours.append(outline.map { (x: $0.x - c, y: $0.y - height / 2) })
            }
        }
        for i in clusters.indices { clusters[i].glyph = glyph(clusters[i].contours) }
        let run = GlyphRun(clusters: clusters, width: width, height: height)
        if runs.count >= Self.limit { runs.removeAll(keepingCapacity: true) }
        runs[key] = run
        return (run, factor)
    }
}

/// A line in frame pixels with each point's distance along it.
struct LinePath {
    var xs: [Double], ys: [Double]
    var along: [Double]

    init(xs: [Double], ys: [Double]) {
        self.xs = xs
        self.ys = ys
        var along = [0.0]
        along.reserveCapacity(xs.count)
        for i in xs.indices.dropFirst() { along.append(along[i - 1] + hypot(xs[i] - xs[i - 1], ys[i] - ys[i - 1])) }
        self.along = along
    }

    var length: Double { along.last ?? 0 }

    /// The same line run backwards.
    func reversed() -> LinePath { LinePath(xs: xs.reversed(), ys: ys.reversed()) }

    /// The segment a distance along the line falls in (its first point's index).
    func segment(at d: Double) -> Int {
        var lo = 0, hi = max(along.count - 2, 0)
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if along[mid] <= d { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The point at a distance along the line (clamped to its ends).
    func point(at d: Double) -> (x: Double, y: Double) {
        guard xs.count > 1 else { return (xs.first ?? 0, ys.first ?? 0) }
        let i = segment(at: d)
        let l = along[i + 1] - along[i]
        let f = l > 0 ? min(max((d - along[i]) / l, 0), 1) : 0
        return (xs[i] + f * (xs[i + 1] - xs[i]), ys[i] + f * (ys[i + 1] - ys[i]))
    }

    /// The direction of the segment at a distance along the line.
    func angle(at d: Double) -> Double {
        guard xs.count > 1 else { return 0 }
        let i = segment(at: d)
        return atan2(ys[i + 1] - ys[i], xs[i + 1] - xs[i])
    }

    /// The line's distance from a point (pixels).
    func distance(from x: Double, _ y: Double) -> Double {
        guard xs.count > 1 else { return xs.isEmpty ? .infinity : hypot(x - xs[0], y - ys[0]) }
        var best = Double.infinity
        for i in xs.indices.dropLast() { best = min(best, LineLabels.segmentDistance(x, y, xs[i], ys[i], xs[i + 1], ys[i + 1])) }
        return best
    }
}

/// Placing a glyph run along a line, as MapLibre places `symbol-placement: line` labels: centred on
/// a distance along it, each cluster on the line at its own distance and turned with it, the text
/// kept upright (run the other way when the line heads left), refused where the line bends more than
/// the style's `text-max-angle` within about a character, or is too short for the text there.
enum LineLabels {
    /// One cluster set on the line: its centre and turn (radians), and its box turned and bounded.
    struct Glyph {
        var x: Double, y: Double, angle: Double
        var box: Box
    }

    /// The clusters of `run` (its sizes times `scale`) centred `anchor` pixels along `path`, each box
    /// widened by `pad`; nil where the text does not fit or the line bends too much under it.
    static func place(_ run: GlyphRun, scale f: Double = 1, on line: LinePath, at anchor: Double, maxAngle: Double,
                      pad: Double) -> [Glyph]? {
        let half = run.width * f / 2
        guard !run.clusters.isEmpty, anchor - half >= 0, anchor + half <= line.length else { return nil }
        var path = line, middle = anchor
        let a = path.point(at: anchor - half), b = path.point(at: anchor + half)
        // Upright: the text reads left to right, whichever way the line was drawn.
        if b.x < a.x {
            path = line.reversed()
            middle = line.length - anchor
        }
        let start = middle - half, end = middle + half
        guard bendsWithin(path, from: start, to: end, window: 0.6 * run.height * f / 1.2, maxAngle: maxAngle) else { return nil }
        var glyphs: [Glyph] = []
        glyphs.reserveCapacity(run.clusters.count)
        let halfHeight = run.height * f / 2 + pad
        for c in run.clusters {
            let d = start + c.center * f, advance = c.advance * f
            let p = path.point(at: d)
            // The chord across the cluster turns it smoothly round a bend.
            let p0 = path.point(at: max(d - advance / 2, 0)), p1 = path.point(at: min(d + advance / 2, path.length))
            let angle = hypot(p1.x - p0.x, p1.y - p0.y) > 0.01 ? atan2(p1.y - p0.y, p1.x - p0.x) : path.angle(at: d)
            let cosA = abs(cos(angle)), sinA = abs(sin(angle)), hw = advance / 2 + pad
            let ex = cosA * hw + sinA * halfHeight, ey = sinA * hw + cosA * halfHeight
            // A bend the text follows round past upside down reads badly: refused.
            guard cos(angle) > -0.2 else { return nil }
            glyphs.append(Glyph(x: p.x, y: p.y, angle: angle, box: Box(minX: p.x - ex, minY: p.y - ey, maxX: p.x + ex, maxY: p.y + ey)))
        }
        return glyphs
    }

    /// Whether the line's turns between two distances, summed over any stretch of `window` pixels
    /// (about a character), stay within `maxAngle` radians either way.
    static func bendsWithin(_ path: LinePath, from start: Double, to end: Double, window: Double, maxAngle: Double) -> Bool {
        guard path.xs.count > 2 else { return true }
        var turns: [(at: Double, angle: Double)] = []
        var sum = 0.0, first = 0
        for i in 1..<(path.xs.count - 1) where path.along[i] > start && path.along[i] < end {
            let before = atan2(path.ys[i] - path.ys[i - 1], path.xs[i] - path.xs[i - 1])
            let after = atan2(path.ys[i + 1] - path.ys[i], path.xs[i + 1] - path.xs[i])
            var turn = after - before
            if turn > .pi { turn -= 2 * .pi } else if turn < -.pi { turn += 2 * .pi }
            turns.append((path.along[i], turn))
            sum += turn
            while first < turns.count, turns[first].at < path.along[i] - window {
                sum -= turns[first].angle
                first += 1
            }
            if abs(sum) > maxAngle { return false }
        }
        return true
    }

    /// Distances along a line in tile units where its labels are anchored: its middle and, for
    /// `symbol-placement: line`, every `spacing` either side of it, middle first. Worked out from the
    /// tile's geometry alone, so that they stay put on the map from frame to frame.
    static func anchors(length: Double, spacing: Double, centreOnly: Bool) -> [Double] {
        guard length > 0 else { return [] }
        let middle = length / 2
        var out = [middle]
        guard !centreOnly, spacing > 0 else { return out }
        var k = 1.0
        while middle - k * spacing >= 0 {
            out.append(middle - k * spacing)
            out.append(middle + k * spacing)
            k += 1
        }
        return out
    }

    /// Joins lines that continue one another (one's last point the next's first), as a tile cuts a
    /// street into several features at its crossings: a longer line fits a longer name.
    static func merge(_ lines: [[(x: Double, y: Double)]]) -> [[(x: Double, y: Double)]] {
        struct P: Hashable { var x: Double, y: Double }
        var out: [[(x: Double, y: Double)]] = []
        // The merged lines starting at a point, and ending at one.
        var starting: [P: Int] = [:], ending: [P: Int] = [:]
        for line in lines {
            guard let f = line.first, let l = line.last else { continue }
            let s = P(x: f.x, y: f.y), e = P(x: l.x, y: l.y)
            guard s != e else { out.append(line); continue }
            if let i = ending[s], let j = starting[e] {
                ending[s] = nil
                starting[e] = nil
                if i == j {  // closes a loop
                    out[i] += line.dropFirst()
                    continue
                }
                out[i] += line.dropFirst()
                out[i] += out[j].dropFirst()
                if let end = out[j].last { ending[P(x: end.x, y: end.y)] = i }
                out[j] = []
            } else if let i = ending[s] {
                ending[s] = nil
                out[i] += line.dropFirst()
                ending[e] = i
            } else if let j = starting[e] {
                starting[e] = nil
                out[j] = line + out[j].dropFirst()
                starting[s] = j
            } else {
                starting[s] = out.count
                ending[e] = out.count
                out.append(line)
            }
        }
        return out.filter { !$0.isEmpty }
    }

    static func segmentDistance(_ x: Double, _ y: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = x1 - x0, dy = y1 - y0, l = dx * dx + dy * dy
        let t = l > 0 ? min(max(((x - x0) * dx + (y - y0) * dy) / l, 0), 1) : 0
        return hypot(x - (x0 + t * dx), y - (y0 + t * dy))
    }
}
