import CYUV
import RasterKernels

/// The matrix that turns R'G'B' into Y'CbCr (limited range both): BT.601 for standard-definition
/// pictures, BT.709 for HD and larger, as players assume for untagged video of each size. The stream
/// is tagged with the one that made its pixels (ColorTags.bt601Limited or .bt709Limited).
public enum YUVMatrix: String, Sendable, Equatable {
    case bt601, bt709

    /// BT.709 from 1280 wide or 720 high (HD and beyond, portrait too), else BT.601.
    public static func forFrame(width: Int, height: Int) -> YUVMatrix {
        width >= 1280 || height >= 720 ? .bt709 : .bt601
    }

    /// The matrix as maptrip's own kernels take it (`RasterKernels`).
    public var coefficients: YUVCoefficients { self == .bt709 ? .bt709 : .bt601 }
}

/// A libyuv call that failed, or arguments it would not be safe to pass.
public struct YUVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libyuv function.
    public let function: String
    /// What is wrong.
    public let message: String
    /// libyuv's return code (-1 for bad arguments), 0 when the wrapper refused before calling.
    public let code: Int32

    public init(function: String, message: String, code: Int32 = 0) {
        self.function = function
        self.message = message
        self.code = code
    }

    public var description: String { "\(function): \(message)" }
}

/// Thin wrapper over libyuv's colour conversions.
public enum YUV {
    /// libyuv's version (its headers' LIBYUV_VERSION), e.g. 1857.
    public static let version = Int(LIBYUV_VERSION)

    /// Converts 32-bit B,G,R,A pixels (libyuv's "ARGB", i.e. Cairo's ARGB32 on little-endian) to planar
    /// I420 (YUV 4:2:0) with the BT.601 matrix in limited range (Y 16...235, U/V 16...240); alpha is
    /// ignored. Odd sizes are fine: chroma planes are ceil(width/2) x ceil(height/2).
    ///
    /// Tag the result as colorspace SMPTE 170M (BT.601), range MPEG/"tv". `matrix` .bt709: the same with
    /// BT.709's coefficients (maptrip's own kernel: this libyuv has no BT.709 for RGB to YUV).
    public static func argbToI420(src: UnsafePointer<UInt8>, srcStride: Int,
                                  y: UnsafeMutablePointer<UInt8>, yStride: Int,
                                  u: UnsafeMutablePointer<UInt8>, uStride: Int,
                                  v: UnsafeMutablePointer<UInt8>, vStride: Int,
                                  width: Int, height: Int, matrix: YUVMatrix = .bt601) throws {
        try toPlanar("ARGBToI420", src: src, srcStride: srcStride, y: y, yStride: yStride, u: u, uStride: uStride,
                     v: v, vStride: vStride, width: width, height: height,
                     chroma: ((width + 1) / 2, (height + 1) / 2), matrix: matrix,
                     kernel: Kernels.argbToI420, libyuv: ARGBToI420)
    }

    /// Converts B,G,R,A pixels to planar I444 (YUV 4:4:4, no chroma subsampling) with the same BT.601
    /// limited-range matrix as `argbToI420`; alpha is ignored.
    public static func argbToI444(src: UnsafePointer<UInt8>, srcStride: Int,
                                  y: UnsafeMutablePointer<UInt8>, yStride: Int,
                                  u: UnsafeMutablePointer<UInt8>, uStride: Int,
                                  v: UnsafeMutablePointer<UInt8>, vStride: Int,
                                  width: Int, height: Int, matrix: YUVMatrix = .bt601) throws {
        try toPlanar("ARGBToI444", src: src, srcStride: srcStride, y: y, yStride: yStride, u: u, uStride: uStride,
                     v: v, vStride: vStride, width: width, height: height, chroma: (width, height), matrix: matrix,
                     kernel: Kernels.argbToI444, libyuv: ARGBToI444)
    }

    /// One BGRA to planar YUV conversion: sizes and strides checked, then BT.601 by libyuv's
    /// `libyuv` function, or BT.709 by maptrip's `kernel` (libyuv has no BT.709 for RGB to YUV).
    private static func toPlanar(
        _ function: String, src: UnsafePointer<UInt8>, srcStride: Int, y: UnsafeMutablePointer<UInt8>, yStride: Int,
        u: UnsafeMutablePointer<UInt8>, uStride: Int, v: UnsafeMutablePointer<UInt8>, vStride: Int,
        width: Int, height: Int, chroma: (width: Int, height: Int), matrix: YUVMatrix,
        kernel: (PixelPlane, YUVPlanes) -> Void,
        libyuv: (UnsafePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32,
                 UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32) -> Int32
    ) throws {
        try check(function, width: width, height: height,
                  strides: [(srcStride, width * 4), (yStride, width), (uStride, chroma.width), (vStride, chroma.width)])
        if matrix == .bt709 {
            kernel(PixelPlane(reading: src, stride: srcStride, width: width, height: height),
                   YUVPlanes(y: PixelPlane(data: y, stride: yStride, width: width, height: height),
                             u: PixelPlane(data: u, stride: uStride, width: chroma.width, height: chroma.height),
                             v: PixelPlane(data: v, stride: vStride, width: chroma.width, height: chroma.height),
                             coefficients: matrix.coefficients))
            return
        }
        let status = libyuv(src, Int32(srcStride), y, Int32(yStride), u, Int32(uStride), v, Int32(vStride),
                            Int32(width), Int32(height))
        if status != 0 { throw YUVError(function: function, message: "failed for \(width)x\(height)", code: status) }
    }

    /// Undoes premultiplied alpha (Cairo's ARGB32 is premultiplied; video codecs and PNG want straight
    /// alpha): each colour channel is divided by alpha. `src` and `dst` may be the same buffer.
    public static func argbUnattenuate(src: UnsafePointer<UInt8>, srcStride: Int,
                                       dst: UnsafeMutablePointer<UInt8>, dstStride: Int,
                                       width: Int, height: Int) throws {
        try check("ARGBUnattenuate", width: width, height: height,
                  strides: [(srcStride, width * 4), (dstStride, width * 4)])
        let status = ARGBUnattenuate(src, Int32(srcStride), dst, Int32(dstStride), Int32(width), Int32(height))
        if status != 0 {
            throw YUVError(function: "ARGBUnattenuate", message: "failed for \(width)x\(height)", code: status)
        }
    }

    /// Copies the alpha channel of B,G,R,A pixels into a plane of its own.
    public static func argbExtractAlpha(src: UnsafePointer<UInt8>, srcStride: Int,
                                        alpha: UnsafeMutablePointer<UInt8>, alphaStride: Int,
                                        width: Int, height: Int) throws {
        try check("ARGBExtractAlpha", width: width, height: height,
                  strides: [(srcStride, width * 4), (alphaStride, width)])
        let status = ARGBExtractAlpha(src, Int32(srcStride), alpha, Int32(alphaStride), Int32(width), Int32(height))
        if status != 0 {
            throw YUVError(function: "ARGBExtractAlpha", message: "failed for \(width)x\(height)", code: status)
        }
    }

    /// Sizes positive; every (stride, minimum) pair large enough and within Int32.
    private static func check(_ function: String, width: Int, height: Int, strides: [(Int, Int)]) throws {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max) else {
            throw YUVError(function: function, message: "invalid size \(width)x\(height)")
        }
        for (stride, minimum) in strides where stride < minimum || stride > Int(Int32.max) {
            throw YUVError(function: function,
                           message: "stride \(stride) does not fit a row of \(minimum) bytes (\(width)x\(height))")
        }
    }
}
