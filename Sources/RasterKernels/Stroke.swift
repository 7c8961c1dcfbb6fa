import CRasterKernels

/// maptrip's stroker of solid round lines (round caps and joins): per row, each segment's cover of the
/// row's pixels, for routes, the map's borders and labels' halos.
extension Kernels {
    /// Strokes polylines over premultiplied BGRA `pixels`, within `clip` (device pixels, x0..<x1,
    /// y0..<y1, inside `pixels`): `counts[l]` points for line l, their x, y pairs one line after the
    /// other in `xy` (device space); in `widths.count` passes one over the other (an outline, then the
    /// line), pass k `widths[k]` wide in one colour, `colors[4k...4k+3]` (straight red, green, blue and
    /// alpha, 0...1). The same pixels as whole strokes drawn one after the other. True when drawn (or
    /// nothing to draw); false, nothing drawn, when it cannot (no AVX2, no memory): stroke with Cairo.
    /// `level`: the distance pass's kernel, 2 AVX-512 (sixteen pixels at a time), 1 AVX2 (eight), -1 (or
    /// beyond `planeLevel`) the best this CPU has: the same pixels from each, for the tests that compare them.
    @inlinable
    public static func strokeRound(_ pixels: PixelPlane, clip: (x0: Int, y0: Int, x1: Int, y1: Int), xy: [Double],
                                   counts: [Int32], widths: [Double], colors: [Double], level: Int = -1) -> Bool {
        guard isAvailable else { return false }
        return maptrip_stroke_round_at(Int32(level), pixels.data, pixels.stride, Int32(clip.x0), Int32(clip.y0),
                                       Int32(clip.x1), Int32(clip.y1), xy, counts, Int32(counts.count), widths, colors,
                                       Int32(widths.count)) != 0
    }

    /// Strokes as `strokeRound` over the whole of an I420 `picture` (width and height even): each stroke
    /// drawn in turn over a transparent overlay that `blend` then blends, without that overlay (a pair of
    /// rows drawn and blended at a time). Stroke k has the next `lineCounts[k]` lines (their points in
    /// `xy`, their point counts in `counts`) and the next `passCounts[k]` passes (`widths`, `colors`).
    /// Returns, for each pair of rows r, r + 1, the columns spans[r] ..< spans[r + 1] it may have
    /// changed (even bounds; none: 0, 0); nil, nothing drawn, when it cannot (no AVX2, an odd size, no
    /// memory): draw over a BGRA picture.
    @inlinable
    public static func strokeRound(_ picture: YUVPlanes, lineCounts: [Int32], passCounts: [Int32], xy: [Double],
                                   counts: [Int32], widths: [Double], colors: [Double]) -> [Int32]? {
        guard isAvailable else { return nil }
        var spans = [Int32](repeating: 0, count: picture.height)
        let done = maptrip_stroke_round_i420(
            picture.y.data, picture.y.stride, picture.u.data, picture.u.stride, picture.v.data, picture.v.stride,
            Int32(picture.width), Int32(picture.height), Int32(lineCounts.count), lineCounts, passCounts, xy, counts,
            widths, colors, &spans, picture.coefficients.matrix)
        return done != 0 ? spans : nil
    }
}
