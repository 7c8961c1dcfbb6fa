import CRasterKernels

/// Bilinear resampling, separable: each destination row blends its two source rows once, then
/// resamples that row across by a plan of byte shuffles and weights made once per call. The way Cairo
/// paints a scaled image with a bilinear filter, padded edges and the SOURCE operator: compositing the
/// raster cache's tiles is most of the drawing a moving frame takes, and pixman samples one pixel at a
/// time. For premultiplied BGRA and for planes of 8-bit samples (a Y'CbCr picture's Y, U or V).
extension Kernels {
    /// Paints `image` (`bytesPerPixel` 4: premultiplied BGRA; 1: 8-bit samples), scaled by `scale` with
    /// its top-left corner at frame point (originX, originY), into the frame rectangle (x, y, width,
    /// height) of `target`, whose row 0 is frame row `firstRow` (rows outside `target` are left out).
    /// True when painted (or when none of the rectangle lies in `target`); false, nothing written, when
    /// the kernel cannot (no AVX2, a scale or position out of its range): paint with Cairo.
    public static func resample(_ image: PixelPlane, bytesPerPixel: Int, scale: Double, originX: Double,
                                originY: Double, into target: PixelPlane, firstRow: Int,
                                x: Int, y: Int, width: Int, height: Int) -> Bool {
        let top = max(y, firstRow), bottom = min(y + height, firstRow + target.height)
        let left = max(x, 0), right = min(x + width, target.width)
        if bottom <= top || right <= left { return true }
        guard isAvailable, scale > 1.0 / 64, scale < 64 else { return false }
        // Pixel centres: frame pixel centre (px + 0.5) is at image position (px + 0.5 - origin) / scale,
        // whose nearest pixels are those around it minus a half.
        func fixed(_ v: Double) -> Int32? {
            let f = (v * 65536).rounded()
            return abs(f) < Double(1 << 30) ? Int32(f) : nil
        }
        // Positions from the rectangle's first pixel on, in whole steps: the rows a band holds come out
        // as the same rows of the whole rectangle.
        guard let startX = fixed((Double(x) + 0.5 - originX) / scale - 0.5),
              let startY = fixed((Double(y) + 0.5 - originY) / scale - 0.5),
              let step = fixed(1 / scale),
              let x0 = Int32(exactly: Int(startX) + (left - x) * Int(step)),
              let y0 = Int32(exactly: Int(startY) + (top - y) * Int(step)) else { return false }
        let rectangle = target.rectangle(x: left, y: top - firstRow, width: right - left, height: bottom - top,
                                         bytesPerPixel: bytesPerPixel)
        return resample(image, bytesPerPixel: bytesPerPixel, into: rectangle, x0: x0, y0: y0, dx: step, dy: step)
    }

    /// Paints a turned tile (`bytesPerPixel` 4: premultiplied BGRA; 1: a plane of 8-bit samples) whose
    /// pixel 0 is level pixel (u0 - border, v0 - border) into frame rows `rows` of `target` (whose row 0
    /// is frame row `firstRow`): every pixel whose centre `inverse` (a, b, c, d, e, f: level point
    /// (a x + b y + c, d x + e y + f) of frame point (x, y)) takes into the square [u0, u1) x [v0, v1),
    /// sampled bilinearly (6-bit weights down, 7 across). Neighbouring squares share the frame's
    /// pixels out exactly. For a chroma plane of I420, all of it in the plane's own pixels (see
    /// `halved(_:)`). BGRA tiles have a border of 1. `level` (a plane's only): 0 the plain C path
    /// alone, 1 AVX2's gathers, 2 AVX-512's permutes (at most `planeLevel`; for the tests
    /// and the benchmark that compare them); nil the best this CPU has. False when it cannot
    /// (positions beyond its fixed point): paint the tile otherwise.
    public static func resampleTurned(_ tile: PixelPlane, bytesPerPixel: Int = 4, border: Int = 1,
                                      into target: PixelPlane, firstRow: Int, rows: Range<Int>,
                                      inverse: [Double], u0: Double, v0: Double, u1: Double, v1: Double,
                                      level: Int? = nil) -> Bool {
        precondition(inverse.count == 6, "an affine map has six coefficients")
        let begin = max(rows.lowerBound, firstRow), end = min(rows.upperBound, firstRow + target.height)
        if end <= begin { return true }
        return inverse.withUnsafeBufferPointer { m in
            if bytesPerPixel == 4 {
                guard border == 1, level == nil else { return false }
                return maptrip_resample_affine(target.data, target.stride, Int32(target.width), Int32(firstRow),
                                               Int32(begin), Int32(end), tile.data, tile.stride, Int32(tile.width),
                                               Int32(tile.height), m.baseAddress, u0, v0, u1, v1) == 1
            }
            return maptrip_resample_affine_plane(target.data, target.stride, Int32(target.width), Int32(firstRow),
                                                 Int32(begin), Int32(end), tile.data, tile.stride, Int32(tile.width),
                                                 Int32(tile.height), m.baseAddress, u0, v0, u1, v1, Int32(border),
                                                 Int32(level ?? -1)) == 1
        }
    }

    /// Sets the pixels of a plane of samples `resampleTurned` would paint from a tile in the square
    /// [u0, u1) x [v0, v1) to `value`: what it paints from a flat tile (its every sample `value`).
    /// False, as `resampleTurned`, where the turn is beyond its fixed point.
    public static func fillTurned(_ value: UInt8, into target: PixelPlane, firstRow: Int, rows: Range<Int>,
                                  inverse: [Double], u0: Double, v0: Double, u1: Double, v1: Double) -> Bool {
        precondition(inverse.count == 6, "an affine map has six coefficients")
        let begin = max(rows.lowerBound, firstRow), end = min(rows.upperBound, firstRow + target.height)
        if end <= begin { return true }
        return inverse.withUnsafeBufferPointer { m in
            maptrip_fill_affine_plane(target.data, target.stride, Int32(target.width), Int32(firstRow), Int32(begin),
                                      Int32(end), value, m.baseAddress, u0, v0, u1, v1) == 1
        }
    }

    /// A turn's `inverse` (frame point to level point, as `resampleTurned` takes it) for a chroma
    /// plane of I420, whose samples sit at the centres of 2x2 blocks of luma pixels: plane point
    /// (x, y) is luma point (2x, 2y), and its level point, halved, the plane's level point.
    public static func halved(_ inverse: [Double]) -> [Double] {
        [inverse[0], inverse[1], inverse[2] / 2, inverse[3], inverse[4], inverse[5] / 2]
    }

    /// Fills the rectangle (x, y, width, height) of a plane of samples, of which `target` holds the rows
    /// from `firstRow` on, with `value`: what `resample` writes there from a plane whose every sample
    /// is `value`, at any scale and position. Always done.
    public static func fill(_ value: UInt8, into target: PixelPlane, firstRow: Int, x: Int, y: Int, width: Int,
                            height: Int) {
        let top = max(y, firstRow), bottom = min(y + height, firstRow + target.height)
        let left = max(x, 0), right = min(x + width, target.width)
        if bottom <= top || right <= left { return }
        // Whole rows of a plane without padding: one write.
        if left == 0, right == target.width, target.stride == target.width {
            (target.data + (top - firstRow) * target.stride).update(repeating: value, count: (bottom - top) * target.stride)
            return
        }
        for r in top..<bottom {
            (target.data + (r - firstRow) * target.stride + left).update(repeating: value, count: right - left)
        }
    }

    /// The kernel in its own terms: writes every pixel of `target`: pixel (j, r) is `source` sampled
    /// bilinearly at column x0 + j * dx, row y0 + r * dy (16.16 fixed point, whole numbers at pixel
    /// centres), the source's edges padded outwards (pixman's EXTEND_PAD). Needs 0 < dx <= 2 pixels and
    /// positions within +-2^14 pixels. True when written; false, nothing written, when this CPU cannot
    /// or an argument is out of range.
    @inlinable
    public static func resample(_ source: PixelPlane, bytesPerPixel: Int, into target: PixelPlane,
                                x0: Int32, y0: Int32, dx: Int32, dy: Int32) -> Bool {
        let kernel = bytesPerPixel == 4 ? maptrip_resample_bilinear : maptrip_resample_plane
        return kernel(target.data, target.stride, Int32(target.width), Int32(target.height),
                      source.data, source.stride, Int32(source.width), Int32(source.height), x0, y0, dx, dy) != 0
    }

    /// The plane kernel (1 byte a pixel) of `level` (1 AVX2, 2 AVX-512; at most `planeLevel`): the same
    /// bytes from either, for the tests that compare them. False, nothing written, for a level this CPU
    /// lacks.
    public static func resamplePlane(_ source: PixelPlane, into target: PixelPlane, x0: Int32, y0: Int32,
                                     dx: Int32, dy: Int32, level: Int) -> Bool {
        maptrip_resample_plane_at(Int32(level), target.data, target.stride, Int32(target.width), Int32(target.height),
                                  source.data, source.stride, Int32(source.width), Int32(source.height),
                                  x0, y0, dx, dy) != 0
    }

    /// Whether every byte of `plane`'s rows (`stride` x `height` bytes, the padding at the rows' ends
    /// too) is `value`. Always answered.
    @inlinable
    public static func allBytes(of plane: PixelPlane, are value: UInt8) -> Bool {
        maptrip_bytes_all(plane.data, plane.stride * plane.height, value) != 0
    }

    /// Asks for the cache line at `address` ahead of its use: a hint, which never faults (for loops
    /// that walk a picture in an order the hardware prefetcher cannot guess).
    @inlinable @inline(__always)
    public static func prefetch(_ address: UnsafeRawPointer) {
        maptrip_prefetch(address)
    }
}
