import CRasterKernels
import Cairo

/// Paints a scaled image into a rectangle of a surface's pixels with maptrip's own bilinear kernel
/// (CRasterKernels: separable, AVX2), the way Cairo paints it with a bilinear filter, padded edges and the
/// source operator: compositing the raster cache's tiles is most of the drawing a moving frame takes,
/// and pixman's SSE2 loop samples one pixel at a time. The same for one 8-bit plane of a YUV picture.
enum BilinearResample {
    /// Whether this CPU runs the kernel.
    static let isAvailable = maptrip_resample_available() != 0

    /// Paints `image`, scaled by `scale` with its top-left corner at frame point (originX, originY),
    /// into the frame rectangle (x, y, width, height) of `surface`, whose row 0 is frame row `firstRow`
    /// (rows outside the surface are left out). The image must be flushed. Returns false, painting
    /// nothing, when the kernel cannot (no AVX2, a scale or position out of its range): paint with Cairo.
    static func paint(_ image: ImageSurface, scale: Double, originX: Double, originY: Double,
                      into surface: ImageSurface, firstRow: Int,
                      x: Int, y: Int, width: Int, height: Int) -> Bool {
        let target = Plane(data: surface.data, stride: surface.stride, width: surface.width, height: surface.height)
        let source = Plane(data: image.data, stride: image.stride, width: image.width, height: image.height)
        return paint(source, bytesPerPixel: 4, scale: scale, originX: originX, originY: originY, into: target,
                     firstRow: firstRow, x: x, y: y, width: width, height: height)
    }

    /// Rows of 8-bit samples (or of 4-byte pixels): a plane of a picture, or of a tile.
    struct Plane {
        var data: UnsafeMutablePointer<UInt8>
        var stride: Int
        var width: Int
        var height: Int
    }

    /// Fills the rectangle (x, y, width, height) of a plane of samples, of which `surface` holds the
    /// rows from `firstRow` on, with `value`: what `paint` writes there from a plane whose every sample
    /// is `value`, at any scale and position.
    static func fill(_ value: UInt8, into surface: Plane, firstRow: Int, x: Int, y: Int, width: Int, height: Int) {
        let top = max(y, firstRow), bottom = min(y + height, firstRow + surface.height)
        let left = max(x, 0), right = min(x + width, surface.width)
        if bottom <= top || right <= left { return }
        for r in top..<bottom {
            (surface.data + (r - firstRow) * surface.stride + left).update(repeating: value, count: right - left)
        }
    }

    /// The same for planes of `bytesPerPixel` (4: premultiplied BGRA; 1: a Y, U or V plane).
    static func paint(_ image: Plane, bytesPerPixel: Int, scale: Double, originX: Double, originY: Double,
                      into surface: Plane, firstRow: Int, x: Int, y: Int, width: Int, height: Int) -> Bool {
        let top = max(y, firstRow), bottom = min(y + height, firstRow + surface.height)
        let left = max(x, 0), right = min(x + width, surface.width)
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
        let stride = surface.stride
        let dst = surface.data + (top - firstRow) * stride + left * bytesPerPixel
        let resample = bytesPerPixel == 4 ? maptrip_resample_bilinear : maptrip_resample_plane
        return resample(dst, stride, Int32(right - left), Int32(bottom - top),
                        image.data, image.stride, Int32(image.width), Int32(image.height),
                        x0, y0, step, step) != 0
    }
}
