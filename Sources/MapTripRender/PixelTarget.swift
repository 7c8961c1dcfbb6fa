import Foundation
import Cairo
import MapTripGeometry
import MapTripScene
import RasterKernels

/// An image surface that maptrip's own rasterisers draw straight into: its stroker
/// (`Kernels.strokeRound`: round lines, for routes, the map's borders and labels' halos,
/// `RoundStroke`) and its filler (`Kernels.fillNonZero`: the map's land and lakes). Made where the
/// context draws over an image surface, its user space moved (by whole pixels or not: a label's picture
/// is drawn at half pixels), clipped to one rectangle of whole pixels; anywhere else (a recording, a
/// scaled poster, a group) Cairo draws.
struct PixelTarget {
    let surface: ImageSurface
    /// Where user space's origin is in the surface's pixels.
    let dx: Double, dy: Double
    let clip: (x0: Int, y0: Int, x1: Int, y1: Int)

    init?(_ cr: Context) {
        guard Kernels.isAvailable, cr.drawsOver, let surface = cr.imageTarget,
              let (dx, dy) = cr.translation, let clip = cr.deviceClipRectangle else { return nil }
        self.surface = surface
        self.dx = dx
        self.dy = dy
        // Within the surface.
        self.clip = (max(clip.x0, 0), max(clip.y0, 0), min(clip.x1, surface.width), min(clip.y1, surface.height))
    }

    /// The clip in user space, widened by `margin` on every side.
    func box(margin: Double) -> Box {
        Box(minX: Double(clip.x0) - dx - margin, minY: Double(clip.y0) - dy - margin,
            maxX: Double(clip.x1) - dx + margin, maxY: Double(clip.y1) - dy + margin)
    }

    /// Strokes the lines (user space) once per pass, in order (an outline, then the line), all
    /// passes in one call (in two bands of rows at once, see `inBands`): drawn whole, or (out of
    /// memory only: the CPU was checked) false, for Cairo to stroke instead.
    func stroke(_ lines: [[(x: Double, y: Double)]], passes: [(color: Color, width: Double)]) -> Bool {
        stroke([group(lines, passes: passes)])
    }

    /// The lines' points as x, y pairs, one line after another (as the C strokers take them).
    static func flattened(_ lines: [[(x: Double, y: Double)]]) -> [Double] {
        var xy: [Double] = []
        xy.reserveCapacity(2 * lines.reduce(0) { $0 + $1.count })
        for line in lines {
            for p in line {
                xy.append(p.x)
                xy.append(p.y)
            }
        }
        return xy
    }

    /// The same for lines given as x, y pairs in user space (`xy`, moved to the surface's pixels in
    /// place) and their points' counts.
    func stroke(xy: inout [Double], counts: [Int32], passes: [(color: Color, width: Double)]) -> Bool {
        shift(&xy)
        return stroke([StrokeGroup(xy: xy, counts: counts, passes: passes)])
    }

    /// Lines stroked once per pass of their own (a travelled line's casing, then its colour), as one
    /// `stroke` call makes them.
    struct StrokeGroup {
        /// The points as x, y pairs in the surface's pixels, one line after another, and each line's count.
        var xy: [Double]
        var counts: [Int32]
        var widths: [Double], colors: [Double]

        init(xy: [Double], counts: [Int32], passes: [(color: Color, width: Double)]) {
            self.xy = xy
            self.counts = counts
            widths = passes.map(\.width)
            colors = passes.flatMap(\.color.rgba)
        }
    }

    /// A group of lines (user space) for `stroke(_ groups:)`.
    func group(_ lines: [[(x: Double, y: Double)]], passes: [(color: Color, width: Double)]) -> StrokeGroup {
        var xy = Self.flattened(lines)
        shift(&xy)
        return StrokeGroup(xy: xy, counts: lines.map { Int32($0.count) }, passes: passes)
    }

    /// The same for lines given as x, y pairs in user space and their points' counts (a dashed route's
    /// pieces, `Dashes`).
    func group(xy: [Double], counts: [Int32], passes: [(color: Color, width: Double)]) -> StrokeGroup {
        var xy = xy
        shift(&xy)
        return StrokeGroup(xy: xy, counts: counts, passes: passes)
    }

    /// Strokes each group in turn, all in one call: each band of rows draws every group in order, so
    /// the pixels are those of one `stroke` call per group, with the bands split once rather than once
    /// per group (a thousand travelled lines each in their two bands made 2,000 jobs a frame, and 14% of
    /// the render's CPU went to the threads' waking and sleeping). A band that runs out of memory
    /// resumes at the group it could not draw, none drawn twice.
    func stroke(_ groups: [StrokeGroup]) -> Bool {
        guard !groups.isEmpty else { return true }
        let resume = BandProgress()
        return inBands { pixels, clip in
            var g = resume.start(band: clip.y0)
            while g < groups.count {
                let group = groups[g]
                guard Kernels.strokeRound(pixels, clip: clip, xy: group.xy, counts: group.counts, widths: group.widths,
                                          colors: group.colors) else {
                    resume.stop(band: clip.y0, at: g)
                    return false
                }
                g += 1
            }
            return true
        }
    }

    /// Moves x, y pairs from user space to the surface's pixels.
    private func shift(_ xy: inout [Double]) {
        guard dx != 0 || dy != 0 else { return }
        for i in stride(from: 0, to: xy.count - 1, by: 2) {
            xy[i] += dx
            xy[i + 1] += dy
        }
    }

    /// Fills `path`'s rings (user space; closed) by the non-zero rule in `color`
    /// (`Kernels.fillNonZero`, in two bands of rows at once, see `inBands`): filled whole, or (out of
    /// memory only: the CPU was checked) false, for Cairo to fill instead.
    func fill(_ path: PixelPath, color: Color) -> Bool {
        guard path.subpathCount > 0 else { return true }
        // The kernel moves rows by whole pixels only: a part of a pixel (a glyph's picture at a
        // half-pixel phase) is moved into the points, which Cairo filled instead (2% of a walk's drawing).
        let fy = dy - dy.rounded(.down)
        let rgba = color.rgba, xs = path.xs, ys = fy == 0 ? path.ys : path.ys.map { $0 + fy }, starts = path.starts, dx = dx,
            dy = dy - fy
        return inBands { pixels, clip in
            Kernels.fillNonZero(pixels, clip: clip, xs: xs, ys: ys, starts: starts, dx: dx, dy: dy, color: rgba)
        }
    }

    /// Paints `marks` (pictures at whole pixels of user space, flushed when drawn) within the clip, each over the ones
    /// before, all of them at `alpha` over the surface: as Cairo paints them into a group painted at that
    /// opacity (`Kernels.over`, the same bytes as pixman's), so that marks of one translucent colour
    /// that overlap (the halos of neighbouring letters) are painted once where they meet, not darkened.
    /// False, nothing done, where user space is not moved by whole pixels.
    func paint(_ marks: [Mark], alpha: Double) -> Bool {
        guard dx == dx.rounded(), dy == dy.rounded(), abs(dx) < 1e9, abs(dy) < 1e9 else { return false }
        let ox = Int(dx), oy = Int(dy)
        // Each mark's pixels within the clip, in the surface's pixels.
        func within(_ m: Mark) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
            (max(m.x + ox, clip.x0), max(m.y + oy, clip.y0), min(m.x + ox + m.picture.width, clip.x1),
             min(m.y + oy + m.picture.height, clip.y1))
        }
        var all = (x0: clip.x1, y0: clip.y1, x1: clip.x0, y1: clip.y0)
        for m in marks {
            let r = within(m)
            guard r.x1 > r.x0, r.y1 > r.y0 else { continue }
            all = (min(all.x0, r.x0), min(all.y0, r.y0), max(all.x1, r.x1), max(all.y1, r.y1))
        }
        guard all.x1 > all.x0, all.y1 > all.y0 else { return true }
        // Cairo's opacity as pixman gets it: 16 bits, rounded, then their top 8.
        let a = Int32(Int((min(max(alpha, 0), 1) * 65535 + 0.5).rounded(.down)) >> 8)
        surface.flush()
        defer { surface.markDirty() }
        func over(_ m: Mark, onto plane: PixelPlane, at origin: (x: Int, y: Int), alpha: Int32) {
            let r = within(m)
            guard r.x1 > r.x0, r.y1 > r.y0 else { return }
            Kernels.over(m.picture.pixels(x: r.x0 - m.x - ox, y: r.y0 - m.y - oy, width: r.x1 - r.x0, height: r.y1 - r.y0),
                         alpha: alpha,
                         onto: plane.rectangle(x: r.x0 - origin.x, y: r.y0 - origin.y, width: r.x1 - r.x0, height: r.y1 - r.y0,
                                               bytesPerPixel: 4))
        }
        if a >= 255 {
            for m in marks { over(m, onto: surface.pixels, at: (0, 0), alpha: 255) }
            return true
        }
        // The group in strips of rows, each as wide as the marks that meet it: only those pixels
        // cleared and composited (a street name along a diagonal fills a fraction of the box around
        // it). A pixel of the group no mark covers is transparent, and painting it changes nothing,
        // so the bytes are those of the whole box's group.
        let w = all.x1 - all.x0, h = all.y1 - all.y0
        let strips = (h + Self.stripRows - 1) / Self.stripRows
        var spans = [(x0: Int, x1: Int)](repeating: (all.x1, all.x0), count: strips)
        for m in marks {
            let r = within(m)
            guard r.x1 > r.x0, r.y1 > r.y0 else { continue }
            for k in (r.y0 - all.y0) / Self.stripRows...(r.y1 - 1 - all.y0) / Self.stripRows {
                spans[k] = (min(spans[k].x0, r.x0), max(spans[k].x1, r.x1))
            }
        }
        let group = UnsafeMutablePointer<UInt8>.allocate(capacity: w * h * 4)
        defer { group.deallocate() }
        let plane = PixelPlane(data: group, stride: w * 4, width: w, height: h)
        func strip(_ k: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
            let span = spans[k], y = all.y0 + k * Self.stripRows
            guard span.x1 > span.x0 else { return nil }
            return (span.x0, y, span.x1 - span.x0, min(Self.stripRows, all.y1 - y))
        }
        for k in 0..<strips {
            guard let r = strip(k) else { continue }
            for row in r.y..<(r.y + r.height) {
                (group + (row - all.y0) * w * 4 + (r.x - all.x0) * 4).initialize(repeating: 0, count: r.width * 4)
            }
        }
        for m in marks { over(m, onto: plane, at: (all.x0, all.y0), alpha: 255) }
        for k in 0..<strips {
            guard let r = strip(k) else { continue }
            Kernels.over(plane.rectangle(x: r.x - all.x0, y: r.y - all.y0, width: r.width, height: r.height, bytesPerPixel: 4),
                         alpha: a, onto: surface.pixels(x: r.x, y: r.y, width: r.width, height: r.height))
        }
        return true
    }

    /// The rows of a strip of `paint`'s group (a glyph's height or so at 1080p).
    static let stripRows = 8

    /// Paints the ring between radii `inner` and `outer` about (cx, cy) (user space; `inner` 0: the
    /// disc) over the clip in a concentric radial gradient of `stops` (offset, colour) from radius
    /// `from` to `to` (`Kernels.radialOver`): painted whole, or (no AVX2, a position that is not a
    /// number) not at all, false, for Cairo to paint instead.
    func radial(cx: Double, cy: Double, inner: Double, outer: Double, from g0: Double, to g1: Double,
                stops: [(offset: Double, color: Color)]) -> Bool {
        let offsets = stops.map(\.offset)
        let colors = stops.flatMap(\.color.rgba)
        let x = cx + dx, y = cy + dy
        return inBands { pixels, clip in
            Kernels.radialOver(pixels, clip: clip, cx: x, cy: y, inner: inner, outer: outer, g0: g0, g1: g1,
                               offsets: offsets, colors: colors)
        }
    }

    /// Runs `draw` (a kernel over the surface's pixels within a clip of device pixels: true when drawn,
    /// false when nothing was, as `Kernels` promise) over the clip: a clip of at least `bandRows` rows
    /// in two bands of rows at once, on two threads (`DrawingThreads.perform`), a shorter one whole. The
    /// rasterisers work out each row from the shapes as given, so the bands' pixels are the whole's. A
    /// band that could not be drawn (out of memory only) is tried again once the other is done; false
    /// when it still cannot be (the other band may be drawn).
    private func inBands(_ draw: @escaping @Sendable (PixelPlane, (x0: Int, y0: Int, x1: Int, y1: Int)) -> Bool) -> Bool {
        surface.flush()
        defer { surface.markDirty() }
        let pixels = Unshared(surface.pixels)
        let x0 = clip.x0, x1 = clip.x1, y0 = clip.y0, y1 = clip.y1
        let bands = y1 - y0 >= Self.bandRows ? [y0..<(y0 + (y1 - y0) / 2), (y0 + (y1 - y0) / 2)..<y1] : [y0..<y1]
        let drawn = ConcurrentResults<Bool>(count: bands.count)
        let one: @Sendable (Int) -> Void = { k in
            drawn.set(k, .success(draw(pixels.value, (x0, bands[k].lowerBound, x1, bands[k].upperBound))))
        }
        if bands.count > 1 { DrawingThreads.perform(iterations: bands.count, one) } else { one(0) }
        for k in bands.indices where (try? drawn.get(k)) != true {
            one(k)
            if (try? drawn.get(k)) != true { return false }
        }
        return true
    }

    /// The height from which a fill or stroke is drawn as two bands at once (not tuned: a band's set-up
    /// is one pass over the shapes). `--projections`, two alternating runs of 2: Web Mercator's moving
    /// frames (the route, tiles drawn alone) 2.93-3.03 -> 2.19-2.23 ms, the globe's (land, lakes and
    /// borders from the vectors) 4.97-5.04 -> 3.98-4.11, Robinson's 3.63-3.65 -> 2.88-3.07.
    static let bandRows = 128
}

/// Where each band of a grouped stroke stopped (by its first row), for the try after it ran out of memory.
private final class BandProgress: @unchecked Sendable {
    private var stopped: [Int: Int] = [:]
    private let lock = NSLock()
    func start(band: Int) -> Int { lock.withLock { stopped[band] ?? 0 } }
    func stop(band: Int, at group: Int) { lock.withLock { stopped[band] = group } }
}

/// Values handed to the threads drawing the bands, each of which only reads them (or writes its own
/// rows of the pixels they point to).
private struct Unshared<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

extension ImageSurface {
    /// The surface's pixels as maptrip's kernels take them (premultiplied BGRA, 4 bytes a pixel).
    var pixels: PixelPlane { PixelPlane(data: data, stride: stride, width: width, height: height) }

    /// The rectangle of them from column `x`, row `y`, `width` x `height`.
    func pixels(x: Int, y: Int, width: Int, height: Int) -> PixelPlane {
        pixels.rectangle(x: x, y: y, width: width, height: height, bytesPerPixel: 4)
    }
}
