import CResample
import Cairo

/// Paints a scaled image into a rectangle of a surface's pixels with maptrip's own bilinear kernel
/// (CResample: separable, AVX2), the way Cairo paints it with a bilinear filter, padded edges and the
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
        let top = max(y, firstRow), bottom = min(y + height, firstRow + surface.height)
        let left = max(x, 0), right = min(x + width, surface.width)
        if bottom <= top || right <= left { return true }
        guard isAvailable, scale > 1.0 / 64, scale < 64, let step = fixed(1 / scale),
              let x0 = position(of: left, from: x, origin: originX, scale: scale, step: step),
              let y0 = position(of: top, from: y, origin: originY, scale: scale, step: step) else { return false }
        let dst = surface.data + (top - firstRow) * surface.stride + left * 4
        return maptrip_resample_bilinear(dst, surface.stride, Int32(right - left), Int32(bottom - top),
                                         image.data, image.stride, Int32(image.width), Int32(image.height),
                                         x0, y0, step, step) != 0
    }

    /// Rows of 8-bit samples: a plane of a picture, or of a tile.
    struct Plane {
        var data: UnsafeMutablePointer<UInt8>
        var stride: Int
        var width: Int
        var height: Int
    }

    /// One tile of a row of tiles (`paintRow`): its plane, where its pixel 0 lands across (frame x), and
    /// the frame columns it paints.
    struct Span {
        var image: Plane
        var originX: Double
        var x: Int
        var width: Int
    }

    /// Paints tiles side by side, scaled by `scale`, into the frame rows (y, height) of one 8-bit plane
    /// `surface`, whose row 0 is frame row `firstRow`: every tile's pixel 0 is at frame row `originY`,
    /// each at its own `originX`. The kernel writes the frame row by row across all of them, as its
    /// memory is laid out. Returns false, painting nothing, where the kernel cannot.
    static func paintRow(_ spans: [Span], scale: Double, originY: Double, into surface: Plane, firstRow: Int,
                         y: Int, height: Int) -> Bool {
        let top = max(y, firstRow), bottom = min(y + height, firstRow + surface.height)
        if bottom <= top { return true }
        guard isAvailable, scale > 1.0 / 64, scale < 64, let step = fixed(1 / scale),
              let y0 = position(of: top, from: y, origin: originY, scale: scale, step: step) else { return false }
        var described = [maptrip_plane_span]()
        described.reserveCapacity(spans.count)
        for span in spans {
            let left = max(span.x, 0), right = min(span.x + span.width, surface.width)
            if right <= left { continue }
            guard let x0 = position(of: left, from: span.x, origin: span.originX, scale: scale, step: step) else {
                return false
            }
            let image = span.image
            described.append(maptrip_plane_span(src: image.data, src_stride: image.stride,
                                                src_width: Int32(image.width), src_height: Int32(image.height),
                                                x0: x0, dst_x: Int32(left), width: Int32(right - left)))
        }
        let dst = surface.data + (top - firstRow) * surface.stride
        return maptrip_resample_plane_spans(dst, surface.stride, Int32(bottom - top), described,
                                            Int32(described.count), y0, step, step) != 0
    }

    /// 16.16 fixed point, or nil beyond the kernel's range.
    private static func fixed(_ v: Double) -> Int32? {
        let f = (v * 65536).rounded()
        return abs(f) < Double(1 << 30) ? Int32(f) : nil
    }

    /// Where frame pixel `first` samples the image (16.16), for a rectangle whose first pixel is
    /// `edge` and the image's pixel 0 at `origin`. Pixel centres: frame pixel centre (px + 0.5) is at
    /// image position (px + 0.5 - origin) / scale, whose nearest pixels are those around it minus a
    /// half. Counted in whole steps from the rectangle's first pixel: the rows a band holds come out
    /// as the same rows of the whole rectangle.
    private static func position(of first: Int, from edge: Int, origin: Double, scale: Double, step: Int32) -> Int32? {
        guard let start = fixed((Double(edge) + 0.5 - origin) / scale - 0.5) else { return nil }
        return Int32(exactly: Int(start) + (first - edge) * Int(step))
    }
}
