/// A path's dashes as the solid pieces a round-capped stroker draws: Cairo's dashing (`cairo_set_dash`
/// with offset 0) worked out ahead, so that a stroker that only draws solid round lines can draw
/// dashed ones.
///
/// A round-capped piece reaches half the line's width beyond its ends. `inset` cuts each piece short at
/// both ends: by half the width, it covers the stretch of the path a flat-capped dash covers; by 0,
/// the pieces are Cairo's round-capped dashes (a stroker whose pieces should ink what Cairo's dashes
/// ink chooses its own: `RoundStroke.capInset`).
public enum Dashes {
    /// Appends the "on" stretches of each of `path`'s subpaths under `pattern` to `xy` (x, y pairs)
    /// and `counts` (points a piece): lengths alternately on and off, starting on, restarting at each
    /// subpath, an odd count read twice over (as Cairo does). An empty pattern, or one that is not a
    /// pattern (nothing in it, a length below 0), gives each subpath whole (cut short by `inset` at
    /// both ends). A dash shorter than twice the inset becomes a dot (two equal points) at its middle;
    /// a dash of length 0 gives nothing with an inset (a flat cap), a dot without (a round one).
    /// A closed path's subpaths end with their first point again. With `box`, a piece whose points all
    /// lie on one side of it is left out (a band of a frame, drawn with the whole frame's lines so that
    /// their dashes are counted from their starts).
    ///
    /// A path with distances along its lines (`PixelPath.hasAlong`) is dashed by them: the pattern
    /// counted from the start of the whole line each piece was cut from, so that a piece cut by a clip
    /// shows the dashes the whole line has there.
    ///
    /// `offset` is Cairo's (`cairo_set_dash`'s): how far into the pattern each subpath (or whole line)
    /// starts.
    public static func pieces(of path: PixelPath, pattern: [Double], offset: Double = 0, inset: Double,
                              within box: Box? = nil, into xy: inout [Double], counts: inout [Int32]) {
        let dashes = pattern.count % 2 == 1 ? pattern + pattern : pattern
        let period = dashes.reduce(0, +)
        let dashed = dashes.allSatisfy { $0 >= 0 && $0.isFinite } && period > 0
        let along = path.hasAlong
        var walk = Walk(box: box)
        for k in 0..<path.subpathCount {
            walk.load(path, range: path.range(k), along: along)
            guard walk.count >= 2 else { continue }
            let start = walk.start, end = walk.end
            if !dashed {
                walk.emit(from: start, to: end, inset: inset, into: &xy, counts: &counts)
                continue
            }
            // From the pattern's period that holds the piece's start (the offset before 0 for a whole line).
            let phase = offset.isFinite ? offset - (offset / period).rounded(.down) * period : 0
            var d = ((start + phase) / period).rounded(.down) * period - phase, i = 0, on = true
            while d < end {
                let run = dashes[i]
                if on && (run > 0 || inset <= 0) && d + run >= start {
                    walk.emit(from: max(d, start), to: min(d + run, end), inset: inset, into: &xy, counts: &counts)
                }
                d += run
                i = i + 1 == dashes.count ? 0 : i + 1
                on.toggle()
            }
        }
    }

    /// The same for `lines` (x, y points, each dashed from its own start as Cairo dashes each subpath).
    public static func pieces(of lines: [[(x: Double, y: Double)]], pattern: [Double], offset: Double = 0,
                              inset: Double, within box: Box? = nil, into xy: inout [Double], counts: inout [Int32]) {
        var path = PixelPath()
        for line in lines {
            path.starts.append(path.xs.count)
            for p in line {
                path.xs.append(p.x)
                path.ys.append(p.y)
            }
        }
        pieces(of: path, pattern: pattern, offset: offset, inset: inset, within: box, into: &xy, counts: &counts)
    }

    /// The pattern and offset of round-capped dashes (Cairo's `cairo_set_dash`, or `pieces` with no
    /// inset) `width` wide that show `pattern`'s dashes as flat-capped ones show them: each dash
    /// spanning its length along the line, each gap its own. Every dash is shortened by the width (half
    /// at each end, where its caps reach), and each gap lengthened by as much; a dash no longer than
    /// the width becomes a dot (length 0) at its middle. The offset moves the first dash's start in by
    /// the half it lost. An odd pattern is read twice over first (as Cairo does); nil for what is not
    /// a pattern (empty, a length below 0 or not finite, nothing in it).
    public static func roundCapped(_ pattern: [Double], width: Double) -> (pattern: [Double], offset: Double)? {
        let dashes = pattern.count % 2 == 1 ? pattern + pattern : pattern
        let period = dashes.reduce(0, +)
        guard !dashes.isEmpty, dashes.allSatisfy({ $0 >= 0 && $0.isFinite }), period > 0, period.isFinite else { return nil }
        let w = width.isFinite ? max(width, 0) : 0
        // How far in each dash starts (and ends), by index of its "on" length.
        var cut = [Double](repeating: 0, count: dashes.count)
        for i in stride(from: 0, to: dashes.count, by: 2) { cut[i] = min(dashes[i], w) / 2 }
        var out = dashes
        for i in stride(from: 0, to: dashes.count, by: 2) {
            out[i] = dashes[i] - 2 * cut[i]
            out[i + 1] = dashes[i + 1] + cut[i] + cut[(i + 2) % dashes.count]
        }
        // Cairo's offset: how far into the pattern the line starts, here the first dash's cut before its start.
        let offset = cut[0] > 0 ? period - cut[0] : 0
        return (out, offset)
    }

    /// One subpath with the distance along it at each point, read from its start to its end.
    struct Walk {
        var xs: [Double] = [], ys: [Double] = [], at: [Double] = []
        /// The first point past the last distance asked for (distances are asked in order).
        var next = 1
        /// Pieces wholly outside it are left out (nil: none).
        let box: Box?

        init(box: Box?) { self.box = box }

        var count: Int { xs.count }
        /// The distances at the subpath's first and last points.
        var start: Double { at.first ?? 0 }
        var end: Double { at.last ?? 0 }

        /// With `along`, the path's own distances (`PixelPath.along`); else measured from the start.
        mutating func load(_ path: PixelPath, range: Range<Int>, along: Bool = false) {
            xs.removeAll(keepingCapacity: true)
            ys.removeAll(keepingCapacity: true)
            at.removeAll(keepingCapacity: true)
            next = 1
            guard !range.isEmpty else { return }
            if along {
                xs.append(contentsOf: path.xs[range])
                ys.append(contentsOf: path.ys[range])
                at.append(contentsOf: path.along[range])
                return
            }
            var d = 0.0
            func add(_ x: Double, _ y: Double) {
                if let lx = xs.last, let ly = ys.last { d += ((x - lx) * (x - lx) + (y - ly) * (y - ly)).squareRoot() }
                xs.append(x)
                ys.append(y)
                at.append(d)
            }
            for i in range { add(path.xs[i], path.ys[i]) }
            if path.closed && range.count > 2 { add(path.xs[range.lowerBound], path.ys[range.lowerBound]) }
        }

        /// The point at distance `d` (at or after the last one asked for), between points next-1 and next.
        mutating func point(at d: Double) -> (x: Double, y: Double) {
            while next < at.count - 1 && at[next] < d { next += 1 }
            let a = next - 1, span = at[next] - at[a]
            let t = span > 0 ? min(max((d - at[a]) / span, 0), 1) : 0
            return (xs[a] + t * (xs[next] - xs[a]), ys[a] + t * (ys[next] - ys[a]))
        }

        /// Appends the stretch [from, to] cut short by `inset` at both ends: its ends and the points
        /// between them (or a dot at its middle when the cut leaves nothing).
        mutating func emit(from: Double, to: Double, inset: Double, into xy: inout [Double], counts: inout [Int32]) {
            var a = from + inset, b = to - inset
            if b < a {
                a = (from + to) / 2
                b = a
            }
            let first = xy.count
            var extent = Box.empty
            let start = point(at: a)
            xy.append(start.x)
            xy.append(start.y)
            extent.add(start.x, start.y)
            var n: Int32 = 1
            while next < at.count - 1 && at[next] < b {
                xy.append(xs[next])
                xy.append(ys[next])
                extent.add(xs[next], ys[next])
                n += 1
                next += 1
            }
            let end = point(at: b)
            xy.append(end.x)
            xy.append(end.y)
            extent.add(end.x, end.y)
            if let box, !extent.intersects(box) {
                xy.removeSubrange(first...)
                return
            }
            counts.append(n + 1)
        }
    }
}
