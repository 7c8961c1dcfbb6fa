import FFmpeg
import Foundation
import YUV

/// How Cairo's pictures (premultiplied B,G,R,A bytes) become the encoder's pixels. Every YUV path uses
/// one matrix in limited range, by the frame's size (`YUVMatrix.forFrame`: BT.709 for HD and larger,
/// as players assume for untagged HD video; BT.601 below), and the stream is tagged so
/// (`ColorTags.bt709Limited`, `.bt601Limited`): the tags always match the matrix that made the pixels.
public enum PixelPath: Equatable, Sendable {
    /// libyuv ARGBToI420 (4:2:0, opaque).
    case i420
    /// libyuv ARGBToI444 (4:4:4, opaque; lossless H.264).
    case i444
    /// Alpha undone (unpremultiplied), then libyuv ARGBToI420 plus the alpha plane (VP9 with alpha).
    case yuva420
    /// Alpha undone, then libswscale to any other format (ProRes' 10-bit 4:4:4(:4), RGB for PNG and GIF).
    case swscale(PixelFormat)
}

/// Converts pictures along one `PixelPath` into one reusable frame.
/// Not thread-safe: one converter per output, or converters sharing a scratch used from one thread.
public final class PixelConverter {
    public let path: PixelPath
    public let width: Int
    public let height: Int
    /// The converted picture, reused for every `convert`.
    public let frame: Frame
    /// Straight-alpha BGRA scratch (the swscale and alpha paths).
    private let bgra: Frame?
    private let scaler = Scaler(flags: Scaler.accurateFlags)
    private let unpremultiply: Bool
    /// The matrix of its YUV pictures.
    public let matrix: YUVMatrix

    /// `straightAlpha`: undo Cairo's premultiplied alpha first (only pictures with transparency need it;
    /// for opaque pictures it changes nothing and is skipped). `scratchOf`: a converter of the same
    /// path and size whose scratch picture this one uses too (converters used from one thread only).
    public init(path: PixelPath, width: Int, height: Int, straightAlpha: Bool, scratchOf other: PixelConverter? = nil) throws {
        self.path = path
        self.width = width
        self.height = height
        matrix = YUVMatrix.forFrame(width: width, height: height)
        unpremultiply = straightAlpha
        let format: PixelFormat
        switch path {
        case .i420: format = .yuv420p
        case .i444: format = .yuv444p
        case .yuva420: format = .yuva420p
        case .swscale(let f): format = f
        }
        frame = try Frame(width: width, height: height, pixelFormat: format)
        switch path {
        case .i420, .i444:
            bgra = nil
        case .yuva420, .swscale:
            if let scratch = other?.bgra, other?.path == path, other?.width == width, other?.height == height {
                bgra = scratch
            } else {
                bgra = try Frame(width: width, height: height, pixelFormat: .bgra)
            }
        }
        // JPEG's yuvj formats are full-range BT.601 by definition (JFIF), whatever the size: untagged,
        // swscale's default for them.
        let yuv = format != .rgb24 && format != .rgba && format != .pal8 && format != .bgra
            && !format.name.hasPrefix("yuvj")
        frame.colorTags = yuv ? ColorTags.limited(matrix) : .unspecified
    }

    /// Bytes of the converted picture (`frame`'s planes).
    public var frameBytes: Int { frame.pictureBytes }

    /// Converts one picture (`height` rows of `stride` bytes) into `frame` and returns it.
    /// The encoder may still hold the previous picture: the frame gets buffers of its own first.
    @discardableResult
    public func convert(bgra source: UnsafePointer<UInt8>, stride: Int) throws -> Frame {
        let planes = try writablePlanes()
        func plane(_ i: Int) throws -> (UnsafeMutablePointer<UInt8>, Int) {
            guard i < planes.count else {
                throw FFmpegError(code: FFmpegError.invalidArgument, operation: "PixelConverter",
                                  message: "frame has no plane \(i)")
            }
            return planes[i]
        }
        switch path {
        case .i420, .i444:
            let (y, ys) = try plane(0), (u, us) = try plane(1), (v, vs) = try plane(2)
            if path == .i420 {
                try YUV.argbToI420(src: source, srcStride: stride, y: y, yStride: ys, u: u, uStride: us,
                                   v: v, vStride: vs, width: width, height: height, matrix: matrix)
            } else {
                try YUV.argbToI444(src: source, srcStride: stride, y: y, yStride: ys, u: u, uStride: us,
                                   v: v, vStride: vs, width: width, height: height, matrix: matrix)
            }
        case .yuva420:
            let (straight, straightStride) = try straighten(source, stride)
            let (y, ys) = try plane(0), (u, us) = try plane(1), (v, vs) = try plane(2), (a, as_) = try plane(3)
            try YUV.argbToI420(src: straight, srcStride: straightStride, y: y, yStride: ys, u: u, uStride: us,
                               v: v, vStride: vs, width: width, height: height, matrix: matrix)
            try YUV.argbExtractAlpha(src: straight, srcStride: straightStride, alpha: a, alphaStride: as_,
                                     width: width, height: height)
        case .swscale:
            _ = try straighten(source, stride)
            try scaler.scale(bgra!, into: frame)
        }
        return frame
    }

    /// The frame's planes (pixels and bytes per row), given buffers of their own first (the encoder may
    /// still hold the previous picture): for a picture drawn straight into them (the I420 path).
    public func writablePlanes() throws -> [(data: UnsafeMutablePointer<UInt8>, stride: Int)] {
        try frame.makeWritable()
        var planes: [(data: UnsafeMutablePointer<UInt8>, stride: Int)] = []
        while planes.count < 4, let p = frame.data(plane: planes.count) {
            planes.append((p, frame.linesize(plane: planes.count)))
        }
        return planes
    }

    /// The picture with straight alpha in the scratch frame (a plain copy when opaque).
    private func straighten(_ source: UnsafePointer<UInt8>, _ stride: Int) throws -> (UnsafePointer<UInt8>, Int) {
        let scratch = bgra!
        guard let dst = scratch.data(plane: 0) else {
            throw FFmpegError(code: FFmpegError.invalidArgument, operation: "PixelConverter", message: "no scratch")
        }
        let dstStride = scratch.linesize(plane: 0)
        if unpremultiply {
            try YUV.argbUnattenuate(src: source, srcStride: stride, dst: dst, dstStride: dstStride,
                                    width: width, height: height)
        } else {
            for row in 0..<height {
                (dst + row * dstStride).update(from: source + row * stride, count: width * 4)
            }
        }
        return (UnsafePointer(dst), dstStride)
    }
}

extension ColorTags {
    /// The limited-range tags of a matrix (BT.709's primaries and transfer either way: sRGB's).
    public static func limited(_ matrix: YUVMatrix) -> ColorTags { matrix == .bt709 ? .bt709Limited : .bt601Limited }
}
