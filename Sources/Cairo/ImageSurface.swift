import CCairo
import Foundation

/// Pages mapped for a surface's pixels, unmapped when Cairo destroys the surface (its user data).
private struct MappedRegion {
    let base: UnsafeMutableRawPointer
    let length: Int

    static func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let region = pointer?.assumingMemoryBound(to: MappedRegion.self) else { return }
        munmap(region.pointee.base, region.pointee.length)
        region.deinitialize(count: 1)
        region.deallocate()
    }
}

/// The key under which a mapped surface keeps its region (only its address matters).
nonisolated(unsafe) private let mappedRegionKey: UnsafeMutablePointer<cairo_user_data_key_t> = {
    let key = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)
    key.initialize(to: cairo_user_data_key_t())
    return key
}()

/// An in-memory ARGB32 surface: native-endian premultiplied 32-bit pixels, which on little-endian
/// machines are the bytes B, G, R, A (FFmpeg's BGRA, libyuv's "ARGB").
public final class ImageSurface {
    public let pointer: OpaquePointer
    public let width: Int
    public let height: Int
    /// The surface whose pixels this one shows (a band of rows: `band(_:)`), kept alive by it.
    private let owner: ImageSurface?

    /// Cairo's limits on an image surface's size.
    private static func checkSize(width: Int, height: Int) throws {
        guard width > 0, height > 0, width <= 32767, height <= 32767 else {
            throw CairoError(CAIRO_STATUS_INVALID_SIZE, "image surface \(width)x\(height)")
        }
    }

    public init(width: Int, height: Int) throws {
        try Self.checkSize(width: width, height: height)
        pointer = try CairoError.checked(surface: cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
                                         "image surface \(width)x\(height)")
        self.width = width
        self.height = height
        owner = nil
    }

    /// A surface whose pixels have pages of their own (mmap), given back to the system as soon as
    /// Cairo lets the surface go. For pixels that come and go while a render runs (a cache's tiles, a
    /// held picture): from the heap, freed blocks of one size stay with the process and a larger block
    /// needs new memory, so the process would grow past what it holds.
    public static func mapped(width: Int, height: Int) throws -> ImageSurface {
        try checkSize(width: width, height: height)
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width)))
        let length = stride * height
        guard let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              base != MAP_FAILED else {
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "image surface \(width)x\(height) (mmap: \(String(cString: strerror(errno))))")
        }
        guard let s = cairo_image_surface_create_for_data(base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                          Int32(width), Int32(height), Int32(stride)) else {
            munmap(base, length)
            throw CairoError(CAIRO_STATUS_NO_MEMORY, "image surface \(width)x\(height)")
        }
        let region = UnsafeMutablePointer<MappedRegion>.allocate(capacity: 1)
        region.initialize(to: MappedRegion(base: base, length: length))
        let status = cairo_surface_status(s) == CAIRO_STATUS_SUCCESS
            ? cairo_surface_set_user_data(s, mappedRegionKey, region) { MappedRegion.release($0) }
            : cairo_surface_status(s)
        if status != CAIRO_STATUS_SUCCESS {
            cairo_surface_destroy(s)
            MappedRegion.release(region)
            throw CairoError(status, "image surface \(width)x\(height)")
        }
        return ImageSurface(pointer: s, width: width, height: height, owner: nil)
    }

    private init(pointer: OpaquePointer, width: Int, height: Int, owner: ImageSurface?) {
        self.pointer = pointer
        self.width = width
        self.height = height
        self.owner = owner
    }

    /// A surface over some of this one's rows, sharing its pixels: separate surfaces over separate
    /// bands can be drawn on from separate threads at once (one surface may not be). Flush this one
    /// before drawing on a band, and mark it dirty after.
    public func band(_ rows: Range<Int>) throws -> ImageSurface {
        guard rows.lowerBound >= 0, rows.upperBound <= height, !rows.isEmpty else {
            throw CairoError(CAIRO_STATUS_INVALID_SIZE, "rows \(rows) of a surface \(height) high")
        }
        let s = try CairoError.checked(surface: cairo_image_surface_create_for_data(
            data + rows.lowerBound * stride, CAIRO_FORMAT_ARGB32, Int32(width), Int32(rows.count), Int32(stride)),
                                       "a band of an image surface")
        return ImageSurface(pointer: s, width: width, height: rows.count, owner: self)
    }

    /// A surface holding a copy of premultiplied BGRA pixels.
    public convenience init(width: Int, height: Int, bgra: UnsafeRawBufferPointer, stride: Int) throws {
        try self.init(width: width, height: height)
        let dst = data, dstStride = self.stride, rowBytes = width * 4
        guard stride >= rowBytes, bgra.count >= stride * (height - 1) + rowBytes else {
            throw CairoError(CAIRO_STATUS_INVALID_STRIDE, "image surface from \(bgra.count) bytes, stride \(stride)")
        }
        for row in 0..<height {
            (dst + row * dstStride).update(from: bgra.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * stride,
                                           count: rowBytes)
        }
        markDirty()
    }

    deinit { cairo_surface_destroy(pointer) }

    /// Bytes per row (Cairo may pad rows: always use this, never width * 4).
    public var stride: Int { Int(cairo_image_surface_get_stride(pointer)) }

    /// The pixels. Call `flush()` before reading them after drawing, `markDirty()` after writing.
    public var data: UnsafeMutablePointer<UInt8> { cairo_image_surface_get_data(pointer)! }

    public func flush() { cairo_surface_flush(pointer) }
    public func markDirty() { cairo_surface_mark_dirty(pointer) }

    /// The B, G, R, A bytes of one pixel (premultiplied), for tests and probes; zeros off the surface.
    public func pixel(x: Int, y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        guard x >= 0, y >= 0, x < width, y < height else { return (0, 0, 0, 0) }
        flush()
        let p = data + y * stride + x * 4
        return (p[0], p[1], p[2], p[3])
    }

    public func writePNG(to path: String) throws {
        flush()
        try CairoError.check(cairo_surface_write_to_png(pointer, path), "write PNG \(path)")
    }

    /// The surface encoded as PNG.
    public func pngData() throws -> Data {
        flush()
        let box = PNGBuffer()
        let status = cairo_surface_write_to_png_stream(pointer, { closure, bytes, length in
            let buffer = Unmanaged<PNGBuffer>.fromOpaque(closure!).takeUnretainedValue()
            buffer.data.append(bytes!, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(box).toOpaque())
        try CairoError.check(status, "encode PNG")
        return box.data
    }

    /// Runs drawing code with a fresh context on this surface.
    public func withContext<R>(_ body: (Context) throws -> R) throws -> R {
        let cr = try Context(surface: self)
        let result = try body(cr)
        try cr.checkStatus("draw")
        return result
    }
}

private final class PNGBuffer {
    var data = Data()
}
