import CFFmpeg

/// A picture as B,G,R,A bytes per pixel (AV_PIX_FMT_BGRA; Cairo's ARGB32 byte order on little-endian).
/// Alpha is straight (not premultiplied) unless `premultiplyAlpha()` was called; Cairo wants premultiplied.
public struct BGRAImage: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Bytes per row, >= width * 4.
    public var stride: Int
    /// stride * height bytes.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, stride: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    /// Transparent black, tightly packed.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, stride: width * 4,
                  pixels: [UInt8](repeating: 0, count: max(0, width * 4 * height)))
    }

    /// The pixel at (x, y); x, y must be inside the image.
    public func pixel(x: Int, y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        let i = y * stride + x * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    public mutating func setPixel(x: Int, y: Int, b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        let i = y * stride + x * 4
        pixels[i] = b
        pixels[i + 1] = g
        pixels[i + 2] = r
        pixels[i + 3] = a
    }

    /// Multiplies B, G, R by alpha (rounded), as Cairo's ARGB32 expects.
    public mutating func premultiplyAlpha() {
        let (width, height, stride) = (self.width, self.height, self.stride)
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                var i = y * stride
                for _ in 0..<width {
                    let a = UInt32(p[i + 3])
                    if a != 255 {
                        for c in 0..<3 {
                            let v = UInt32(p[i + c]) * a + 128
                            p[i + c] = UInt8((v + (v >> 8)) >> 8)
                        }
                    }
                    i += 4
                }
            }
        }
    }

    /// A BGRA Frame holding a copy of the pixels.
    public func makeFrame() throws -> Frame {
        guard width > 0, height > 0, stride >= width * 4, pixels.count >= stride * height else {
            throw FFmpegError(code: FFmpegError.invalidArgument,
                              operation: "BGRAImage.makeFrame \(width)x\(height) stride \(stride)",
                              message: "the pixel buffer does not match the size")
        }
        let frame = try Frame(width: width, height: height, pixelFormat: .bgra)
        guard let data = frame.data(plane: 0) else {
            throw FFmpegError(code: FFmpegError.outOfMemory, operation: "BGRAImage.makeFrame")
        }
        let linesize = frame.linesize(plane: 0)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<height {
                (data + y * linesize).update(from: source.baseAddress! + y * stride, count: width * 4)
            }
        }
        return frame
    }

    /// Copies a BGRA frame's visible pixels, tightly packed.
    public init(bgraFrame frame: Frame) throws {
        guard frame.pixelFormat == .bgra, let data = frame.data(plane: 0) else {
            throw FFmpegError(code: FFmpegError.invalidArgument,
                              operation: "BGRAImage from a \(frame.pixelFormat.name) frame",
                              message: "the frame is not a BGRA picture")
        }
        let (width, height, linesize) = (frame.width, frame.height, frame.linesize(plane: 0))
        let rowBytes = width * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            for y in 0..<height {
                (buffer.baseAddress! + y * rowBytes).initialize(from: data + y * linesize, count: rowBytes)
            }
            count = rowBytes * height
        }
        self.init(width: width, height: height, stride: rowBytes, pixels: pixels)
    }
}
