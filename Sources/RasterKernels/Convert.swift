import CRasterKernels

/// Cairo's BGRA to Y'CbCr with either matrix (libyuv has BT.601 only for RGB to YUV).
extension Kernels {
    /// Converts premultiplied BGRA `source` (opaque pictures; alpha ignored) into I420 `picture` with its
    /// matrix: Y per pixel, U and V of each 2x2 block's average (rounded as libyuv rounds). Any size
    /// (`source`'s; the last column or row of an odd size stands alone). Always done.
    @inlinable
    public static func argbToI420(_ source: PixelPlane, into picture: YUVPlanes) {
        _ = maptrip_argb_to_i420_matrix(source.data, source.stride, picture.y.data, picture.y.stride, picture.u.data,
                                        picture.u.stride, picture.v.data, picture.v.stride, Int32(source.width),
                                        Int32(source.height), picture.coefficients.matrix)
    }

    /// The same into I444 (U and V per pixel). Always done.
    @inlinable
    public static func argbToI444(_ source: PixelPlane, into picture: YUVPlanes) {
        _ = maptrip_argb_to_i444_matrix(source.data, source.stride, picture.y.data, picture.y.stride, picture.u.data,
                                        picture.u.stride, picture.v.data, picture.v.stride, Int32(source.width),
                                        Int32(source.height), picture.coefficients.matrix)
    }
}
