import Cairo
import MapTripGeometry
import MapTripScene
import RasterKernels
import YUV

/// What a picture reused frame after frame (one of the recorder's frames, given back by the encoder)
/// still holds of the frames drawn into it: the held picture of the map it was given whole, and the
/// rectangles drawn over that since (frame pixels). A map giving it the same held picture again copies
/// back only those rectangles (`ShapefileBaseMap.drawPlanar`): the overlays of a rest, pins and labels
/// coming in, cover a few percent of the frame, and the copy of a whole 1080p picture is 3 MB.
public final class PictureHistory: @unchecked Sendable {
    /// The held picture given whole (weak: one let go, or a new one where it was, never matches).
    weak var still: AnyObject?
    var drawnOver: [InkCells.Rect] = []

    public init() {}

    /// Nothing known: the picture was written whole by other means (converted from BGRA).
    public func forget() {
        still = nil
        drawnOver = []
    }

    /// The picture now holds `picture`, whole.
    func holds(_ picture: AnyObject) {
        still = picture
        drawnOver = []
    }
}

/// A picture as the H.264, HEVC, VP9 and AV1 encoders take it: I420 (8-bit Y at full size, U and V at
/// half size each way), limited range, with its matrix (BT.601 as libyuv's ARGBToI420 makes it, or
/// BT.709 for HD: `YUVMatrix.forFrame`); whatever is drawn into it uses that matrix. A frame the raster
/// cache composites is drawn straight into one (`FrameRenderer.renderPlanar`): a third of a BGRA
/// picture's bytes to write and read, and no conversion after.
public struct PlanarPicture: @unchecked Sendable {
    public var y: UnsafeMutablePointer<UInt8>, yStride: Int
    public var u: UnsafeMutablePointer<UInt8>, uStride: Int
    public var v: UnsafeMutablePointer<UInt8>, vStride: Int
    /// Luma size (even both ways).
    public var width: Int, height: Int
    /// What the picture holds from the frame drawn into it before, when it is reused frame after frame
    /// (nil: nothing known, it is drawn whole).
    public var history: PictureHistory?
    /// The matrix its samples are in.
    public var matrix: YUVMatrix

    public init(y: UnsafeMutablePointer<UInt8>, yStride: Int, u: UnsafeMutablePointer<UInt8>, uStride: Int,
                v: UnsafeMutablePointer<UInt8>, vStride: Int, width: Int, height: Int, history: PictureHistory? = nil,
                matrix: YUVMatrix = .bt601) {
        self.history = history
        self.matrix = matrix
        self.y = y
        self.yStride = yStride
        self.u = u
        self.uStride = uStride
        self.v = v
        self.vStride = vStride
        self.width = width
        self.height = height
    }

    /// The luma rows `rows` (even bounds) and their chroma rows, as a picture of their own; from luma
    /// column `x` (even), `width` columns wide (nil: to the right edge).
    func rows(_ rows: Range<Int>, x: Int = 0, width: Int? = nil) -> PlanarPicture {
        PlanarPicture(y: y + rows.lowerBound * yStride + x, yStride: yStride,
                      u: u + rows.lowerBound / 2 * uStride + x / 2, uStride: uStride,
                      v: v + rows.lowerBound / 2 * vStride + x / 2, vStride: vStride,
                      width: width ?? self.width - x, height: rows.count, matrix: matrix)
    }

    /// Two bands of luma rows splitting the picture (even bounds, for their chroma): one per thread.
    var bands: [Range<Int>] {
        let middle = height / 4 * 2
        return [0..<middle, middle..<height]
    }

    /// Copies the planes into a picture of the same size.
    func copy(into target: PlanarPicture) {
        for (source, target) in zip(planes, target.planes) {
            for row in 0..<source.height {
                (target.data + row * target.stride).update(from: source.data + row * source.stride, count: source.width)
            }
        }
    }

    var planes: [PixelPlane] { let p = kernelPlanes; return [p.y, p.u, p.v] }

    /// The planes and matrix as maptrip's kernels take them.
    var kernelPlanes: YUVPlanes {
        YUVPlanes(y: PixelPlane(data: y, stride: yStride, width: width, height: height),
                  u: PixelPlane(data: u, stride: uStride, width: width / 2, height: height / 2),
                  v: PixelPlane(data: v, stride: vStride, width: width / 2, height: height / 2),
                  coefficients: matrix.coefficients)
    }

    /// Blends a premultiplied overlay of this picture's size over it (see `Kernels.blend`), leaving
    /// the overlay transparent. Returns false, doing nothing, for an odd size.
    func blend(_ overlay: UnsafeMutablePointer<UInt8>, stride: Int) -> Bool {
        Kernels.blend(PixelPlane(data: overlay, stride: stride, width: width, height: height), over: kernelPlanes)
    }

    /// The Y, U and V of an opaque colour, as a frame's conversion with `matrix` gives it.
    static func samples(of color: Color, matrix: YUVMatrix) throws -> (y: UInt8, u: UInt8, v: UInt8) {
        let surface = try ImageSurface(width: 2, height: 2)
        try surface.withContext { cr in
            cr.setSource(color)
            cr.setOperator(.source)
            cr.paint()
        }
        surface.flush()
        var y = [UInt8](repeating: 0, count: 4), u: [UInt8] = [0], v: [UInt8] = [0]
        try YUV.argbToI420(src: surface.data, srcStride: surface.stride, y: &y, yStride: 2, u: &u, uStride: 1,
                           v: &v, vStride: 1, width: 2, height: 2, matrix: matrix)
        return (y[0], u[0], v[0])
    }

    /// Fills whole rows `rows` of plane `plane` (0: Y, 1: U, 2: V) with `value`.
    func fill(rows: Range<Int>, plane: Int, with value: UInt8) {
        let p = planes[plane]
        for r in rows.clamped(to: 0..<p.height) { (p.data + r * p.stride).update(repeating: value, count: p.width) }
    }
}
