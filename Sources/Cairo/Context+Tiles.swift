import CCairo
import Foundation

// Small additive helpers used by the tile base map (MapTripTiles).

extension ImageSurface {
    /// Decodes PNG bytes with Cairo's own loader (libpng): any PNG colour type comes out as
    /// premultiplied ARGB32. Throws a CairoError (READ_ERROR / PNG_ERROR ...) when the bytes are not a PNG.
    public convenience init(pngData: Data) throws {
        let reader = PNGReader(pngData)
        let s: OpaquePointer? = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream({ closure, buffer, length in
                let r = Unmanaged<PNGReader>.fromOpaque(closure!).takeUnretainedValue()
                return r.read(into: buffer, count: Int(length))
            }, Unmanaged.passUnretained(reader).toOpaque())
        }
        guard let s else { throw CairoError(CAIRO_STATUS_NO_MEMORY, "decode PNG (\(pngData.count) bytes)") }
        defer { cairo_surface_destroy(s) }
        let status = cairo_surface_status(s)
        if status != CAIRO_STATUS_SUCCESS {
            // A file that ends before its picture does can come back as "out of memory" (cairo's word
            // for a libpng error once the header is read): say what happened.
            if reader.ranOut {
                throw CairoError(CAIRO_STATUS_READ_ERROR, "decode PNG (\(pngData.count) bytes): the file ends before its picture (cut short)")
            }
            throw CairoError(status, "decode PNG (\(pngData.count) bytes)")
        }
        cairo_surface_flush(s)
        let w = Int(cairo_image_surface_get_width(s)), h = Int(cairo_image_surface_get_height(s))
        let stride = Int(cairo_image_surface_get_stride(s))
        guard let src = cairo_image_surface_get_data(s) else {
            throw CairoError(CAIRO_STATUS_NULL_POINTER, "decode PNG: no pixels")
        }
        if cairo_image_surface_get_format(s) == CAIRO_FORMAT_ARGB32 {
            try self.init(width: w, height: h, bgra: UnsafeRawBufferPointer(start: src, count: stride * h), stride: stride)
        } else {
            // RGB24 (opaque PNGs): same byte layout with an undefined alpha byte; paint it over.
            try self.init(width: w, height: h)
            try withContext { cr in
                cr.setSource(rawSurface: s, x: 0, y: 0)
                cr.setOperator(.source)
                cr.paint()
            }
        }
    }

    /// Bytes of pixel memory this surface holds (stride x height).
    public var byteCount: Int { stride * height }
}

private final class PNGReader {
    let bytes: Data
    var offset = 0
    /// Set when libpng asked for more bytes than are left.
    var ranOut = false
    init(_ bytes: Data) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<UInt8>?, count: Int) -> cairo_status_t {
        guard let buffer, count <= bytes.count - offset else {
            ranOut = true
            return CAIRO_STATUS_READ_ERROR
        }
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            buffer.update(from: base + offset, count: count)
        }
        offset += count
        return CAIRO_STATUS_SUCCESS
    }
}

extension Context {
    /// Paints `image` stretched onto the frame rectangle (x, y, width, height) — which may be
    /// fractional and larger than the frame — but only inside the integer clip rectangle
    /// (clipX, clipY, clipWidth, clipHeight), with the given alpha. The image's edges are padded
    /// outwards (EXTEND_PAD), so rectangles laid edge to edge leave no seam, and the clip is
    /// pixel-aligned, so nothing is antialiased against a neighbour.
    public func paintImage(_ image: ImageSurface, into x: Double, _ y: Double, _ width: Double, _ height: Double,
                           clipX: Int, clipY: Int, clipWidth: Int, clipHeight: Int,
                           alpha: Double = 1, filter: Filter = .good) {
        guard clipWidth > 0, clipHeight > 0, width > 0, height > 0 else { return }
        save()
        cairo_rectangle(pointer, Double(clipX), Double(clipY), Double(clipWidth), Double(clipHeight))
        cairo_clip(pointer)
        translate(x, y)
        scale(width / Double(image.width), height / Double(image.height))
        setSource(image, x: 0, y: 0)
        setSourceFilter(filter)
        setSourceExtendPad()
        if alpha >= 1 { paint() } else { paint(alpha: alpha) }
        restore()
    }

    /// Paints `image` through an affine map from its pixels to the frame's (frame x = a u + b v + x0,
    /// y = c u + d v + y0: a turned tile, say), only inside the polygon `clip` (frame pixels). The
    /// polygon's edges are not antialiased: each pixel whose centre lies inside is painted, so
    /// polygons laid edge to edge share their pixels out exactly, with no seam of half-covered ones.
    /// The image's pixels just outside the polygon's map (a tile's border) feed its edge's filtering.
    public func paintImage(_ image: ImageSurface, a: Double, b: Double, c: Double, d: Double, x0: Double, y0: Double,
                           clip: [(x: Double, y: Double)], alpha: Double = 1, filter: Filter = .bilinear) {
        guard clip.count >= 3 else { return }
        save()
        setAntialias(.none)
        move(to: clip[0].x, clip[0].y)
        for p in clip.dropFirst() { line(to: p.x, p.y) }
        closePath()
        // The source's pattern takes the map; the path (already in device space) does not.
        var user = cairo_matrix_t(), m = cairo_matrix_t(xx: a, yx: c, xy: b, yy: d, x0: x0, y0: y0)
        cairo_get_matrix(pointer, &user)
        cairo_transform(pointer, &m)
        setSource(image, x: 0, y: 0)
        setSourceFilter(filter)
        setSourceExtendPad()
        cairo_set_matrix(pointer, &user)
        if alpha >= 1 { cairo_fill(pointer) } else {
            cairo_clip(pointer)
            paint(alpha: alpha)
        }
        restore()
    }

    /// Fills an integer rectangle with a colour (no antialiasing needed: it is pixel-aligned).
    public func fillPixelRect(x: Int, y: Int, width: Int, height: Int,
                              red: Double, green: Double, blue: Double, alpha: Double = 1) {
        guard width > 0, height > 0 else { return }
        save()
        setSource(red: red, green: green, blue: blue, alpha: alpha)
        cairo_rectangle(pointer, Double(x), Double(y), Double(width), Double(height))
        cairo_fill(pointer)
        restore()
    }
}
