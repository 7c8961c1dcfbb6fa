import Cairo
import CResample
import MapTripCore

/// An image surface that maptrip's own rasterisers draw straight into: its stroker
/// (`maptrip_stroke_round`: round lines, for routes and the map's borders, `RoundStroke`) and its
/// filler (`maptrip_fill_nonzero`: the map's land and lakes). Made where the context draws over an
/// image surface, translated by whole pixels, clipped to one rectangle; anywhere else (a recording, a
/// scaled poster, a group) Cairo draws.
struct PixelTarget {
    let surface: ImageSurface
    let dx: Int, dy: Int
    let clip: (x0: Int, y0: Int, x1: Int, y1: Int)

    init?(_ cr: Context) {
        guard BilinearResample.isAvailable, cr.drawsOver, let surface = cr.imageTarget,
              let (dx, dy) = cr.wholePixelTranslation, let clip = cr.clipRectangle else { return nil }
        self.surface = surface
        self.dx = dx
        self.dy = dy
        // In device pixels, within the surface.
        self.clip = (max(clip.x0 + dx, 0), max(clip.y0 + dy, 0),
                     min(clip.x1 + dx, surface.width), min(clip.y1 + dy, surface.height))
    }

    /// The clip in user space, widened by `margin` on every side.
    func box(margin: Double) -> Box {
        Box(minX: Double(clip.x0 - dx) - margin, minY: Double(clip.y0 - dy) - margin,
            maxX: Double(clip.x1 - dx) + margin, maxY: Double(clip.y1 - dy) + margin)
    }

    /// Strokes the lines (user space) once per pass, in order (an outline, then the line), all
    /// passes in one call: drawn whole, or (out of memory only: the CPU was checked) not at all,
    /// false, for Cairo to stroke instead.
    func stroke(_ lines: [[(x: Double, y: Double)]], passes: [(color: Color, width: Double)]) -> Bool {
        var xy: [Double] = []
        xy.reserveCapacity(2 * lines.reduce(0) { $0 + $1.count })
        for line in lines {
            for p in line {
                xy.append(p.x)
                xy.append(p.y)
            }
        }
        return stroke(xy: &xy, counts: lines.map { Int32($0.count) }, passes: passes)
    }

    /// The same for lines given as x, y pairs in user space (`xy`, moved to the surface's pixels in
    /// place) and their points' counts.
    func stroke(xy: inout [Double], counts: [Int32], passes: [(color: Color, width: Double)]) -> Bool {
        if dx != 0 || dy != 0 {
            for i in stride(from: 0, to: xy.count - 1, by: 2) {
                xy[i] += Double(dx)
                xy[i + 1] += Double(dy)
            }
        }
        let widths = passes.map(\.width)
        let colors = passes.flatMap { [$0.color.red, $0.color.green, $0.color.blue, $0.color.alpha] }
        surface.flush()
        defer { surface.markDirty() }
        return maptrip_stroke_round(surface.data, surface.stride, Int32(clip.x0), Int32(clip.y0), Int32(clip.x1),
                                    Int32(clip.y1), xy, counts, Int32(counts.count), widths, colors,
                                    Int32(passes.count)) != 0
    }

    /// Fills `path`'s rings (user space; closed) by the non-zero rule in `color`
    /// (`maptrip_fill_nonzero`): filled whole, or (out of memory only: the CPU was checked) not at all,
    /// false, for Cairo to fill instead.
    func fill(_ path: PixelPath, color: Color) -> Bool {
        guard path.subpathCount > 0 else { return true }
        let rgba = [color.red, color.green, color.blue, color.alpha]
        surface.flush()
        defer { surface.markDirty() }
        return path.xs.withUnsafeBufferPointer { xs in
            path.ys.withUnsafeBufferPointer { ys in
                path.starts.withUnsafeBufferPointer { starts in
                    maptrip_fill_nonzero(surface.data, surface.stride, Int32(clip.x0), Int32(clip.y0), Int32(clip.x1),
                                         Int32(clip.y1), xs.baseAddress, ys.baseAddress, starts.baseAddress,
                                         Int32(starts.count), Int32(xs.count), Double(dx), Double(dy), rgba) != 0
                }
            }
        }
    }
}
