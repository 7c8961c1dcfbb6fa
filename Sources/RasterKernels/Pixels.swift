import CRasterKernels

/// Rows of pixels in memory, read or written by a kernel: `height` rows of `width` pixels (4 bytes
/// each for premultiplied BGRA, Cairo's ARGB32; 1 for a plane of 8-bit samples), `stride` bytes from
/// one row's start to the next's.
public struct PixelPlane {
    public var data: UnsafeMutablePointer<UInt8>
    public var stride: Int
    public var width: Int
    public var height: Int

    @inlinable
    public init(data: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
        self.data = data
        self.stride = stride
        self.width = width
        self.height = height
    }

    /// Pixels a kernel only reads (a source).
    @inlinable
    public init(reading data: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) {
        self.init(data: UnsafeMutablePointer(mutating: data), stride: stride, width: width, height: height)
    }

    /// The rectangle of these pixels from column `x`, row `y` (within them), `width` x `height`, for
    /// pixels of `bytesPerPixel` bytes.
    @inlinable
    public func rectangle(x: Int, y: Int, width: Int, height: Int, bytesPerPixel: Int) -> PixelPlane {
        PixelPlane(data: data + y * stride + x * bytesPerPixel, stride: stride, width: width, height: height)
    }
}

/// The coefficients of an R'G'B' to Y'CbCr matrix in limited range, as the kernels take them.
public enum YUVCoefficients: Sendable, Equatable {
    /// BT.601 (libyuv's ARGBToI420: 66 129 25, -38 -74 112, 112 -94 -18).
    case bt601
    /// BT.709 (47 157 16, -26 -86 112, 112 -102 -10).
    case bt709

    @inlinable
    var matrix: UnsafePointer<maptrip_yuv_matrix> { maptrip_yuv_matrix_named(self == .bt709 ? 1 : 0) }
}

/// A Y'CbCr picture's three planes (I420: U and V at half the width and height, rounded up; I444: all
/// three at full size) and the matrix its samples are in. Its size is the Y plane's.
public struct YUVPlanes {
    public var y: PixelPlane, u: PixelPlane, v: PixelPlane
    public var coefficients: YUVCoefficients

    @inlinable
    public init(y: PixelPlane, u: PixelPlane, v: PixelPlane, coefficients: YUVCoefficients) {
        self.y = y
        self.u = u
        self.v = v
        self.coefficients = coefficients
    }

    @inlinable public var width: Int { y.width }
    @inlinable public var height: Int { y.height }
}
