import CRasterKernels

/// maptrip's concentric radial gradients (a globe's sea and its glow).
extension Kernels {
    /// Paints over premultiplied BGRA `pixels`, within `clip` (device pixels, x0..<x1, y0..<y1, inside
    /// `pixels`), the ring between radii `inner` and `outer` about (cx, cy) (device space; `inner` <= 0:
    /// the whole disc) in a concentric radial gradient: at distance d from the centre, the colour of the
    /// stops (`offsets`, ascending in 0...1, and `colors`: straight red, green, blue, alpha, 0...1, four
    /// a stop) at t = (d - g0) / (g1 - g0), clamped to 0...1, as pixman and Cairo's EXTEND_PAD give it;
    /// each pixel at the share of it the ring covers. True when painted (or nothing to paint); false,
    /// nothing painted, when it cannot (no AVX2, a position that is not a number): paint with Cairo.
    @inlinable
    public static func radialOver(_ pixels: PixelPlane, clip: (x0: Int, y0: Int, x1: Int, y1: Int), cx: Double,
                                  cy: Double, inner: Double, outer: Double, g0: Double, g1: Double, offsets: [Double],
                                  colors: [Double]) -> Bool {
        guard isAvailable else { return false }
        return maptrip_radial_over(pixels.data, pixels.stride, Int32(clip.x0), Int32(clip.y0), Int32(clip.x1),
                                   Int32(clip.y1), cx, cy, inner, outer, g0, g1, offsets, colors,
                                   Int32(offsets.count)) != 0
    }
}
