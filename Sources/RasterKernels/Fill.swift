import CRasterKernels

/// maptrip's filler of polygons by the non-zero rule: each pixel at the area of it the polygons cover
/// (the map's land and lakes).
extension Kernels {
    /// Fills `starts.count` closed rings (ring r: the points from `starts[r]` up to the next ring's
    /// start or the end, at `xs`, `ys` in user space, which is device space moved by `dx`, `dy`) over
    /// premultiplied BGRA `pixels`, within `clip` (device pixels, x0..<x1, y0..<y1, inside `pixels`), in
    /// one colour (`color`: straight red, green, blue and alpha, 0...1). True when filled (or nothing to
    /// fill); false, nothing drawn, when it cannot (no AVX2, a move `dy` not of whole pixels, no
    /// memory): fill with Cairo.
    @inlinable
    public static func fillNonZero(_ pixels: PixelPlane, clip: (x0: Int, y0: Int, x1: Int, y1: Int), xs: [Double],
                                   ys: [Double], starts: [Int], dx: Double, dy: Double, color: [Double]) -> Bool {
        guard isAvailable else { return false }
        return maptrip_fill_nonzero(pixels.data, pixels.stride, Int32(clip.x0), Int32(clip.y0), Int32(clip.x1),
                                    Int32(clip.y1), xs, ys, starts, Int32(starts.count), Int32(xs.count), dx, dy,
                                    color) != 0
    }
}
