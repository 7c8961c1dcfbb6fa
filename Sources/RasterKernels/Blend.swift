import CRasterKernels

/// The blends of a frame's overlays: over an I420 picture (`blend`), and their pictures over a band of
/// BGRA rows (`over`). Each has a plain C path besides the vector ones, with the same bytes (`Reference`).
extension Kernels {
    /// Blends premultiplied BGRA `overlay` (the picture's size, transparent where nothing is drawn) over
    /// I420 `picture`, with the picture's matrix: each pixel's Y, and each 2x2 block's U and V with the
    /// block's average overlay. Blocks of the overlay that hold anything are cleared to transparent
    /// (ready for the next picture's overlays). True when blended; false, nothing done, for an odd size.
    @inlinable
    public static func blend(_ overlay: PixelPlane, over picture: YUVPlanes) -> Bool {
        maptrip_blend_overlay_i420(overlay.data, overlay.stride, picture.y.data, picture.y.stride, picture.u.data,
                                   picture.u.stride, picture.v.data, picture.v.stride, Int32(picture.width),
                                   Int32(picture.height), picture.coefficients.matrix) != 0
    }

    /// `blend` along the path `level` (as `planeLevel` numbers them, at most it): for tests, each path
    /// against plain C's bytes.
    public static func blend(_ overlay: PixelPlane, over picture: YUVPlanes, level: Int) -> Bool {
        maptrip_blend_overlay_i420_at(Int32(level), overlay.data, overlay.stride, picture.y.data, picture.y.stride,
                                      picture.u.data, picture.u.stride, picture.v.data, picture.v.stride,
                                      Int32(picture.width), Int32(picture.height), picture.coefficients.matrix) != 0
    }

    /// Paints premultiplied BGRA `source` (all of its width x height) at opacity `alpha` (0...255) over
    /// the premultiplied BGRA pixels of `target` from its top-left corner, as pixman composites a picture
    /// painted with an opacity (OVER through a solid mask): the same bytes. Always done.
    @inlinable
    public static func over(_ source: PixelPlane, alpha: Int32, onto target: PixelPlane) {
        _ = maptrip_over_bgra(target.data, target.stride, source.data, source.stride, Int32(source.width),
                              Int32(source.height), alpha)
    }

    /// `over` along the path `level` (as `planeLevel` numbers them): for tests.
    public static func over(_ source: PixelPlane, alpha: Int32, onto target: PixelPlane, level: Int) {
        _ = maptrip_over_bgra_at(Int32(level), target.data, target.stride, source.data, source.stride, Int32(source.width),
                                 Int32(source.height), alpha)
    }

    /// The plain C paths, pixel by pixel, that the vector ones (taken where the CPU has AVX2) must
    /// equal byte for byte: for tests.
    public enum Reference {
        /// `Kernels.blend` in plain C.
        public static func blend(_ overlay: PixelPlane, over picture: YUVPlanes) -> Bool {
            maptrip_blend_overlay_i420_reference(overlay.data, overlay.stride, picture.y.data, picture.y.stride,
                                                 picture.u.data, picture.u.stride, picture.v.data, picture.v.stride,
                                                 Int32(picture.width), Int32(picture.height),
                                                 picture.coefficients.matrix) != 0
        }

        /// `Kernels.over` in plain C.
        public static func over(_ source: PixelPlane, alpha: Int32, onto target: PixelPlane) {
            _ = maptrip_over_bgra_reference(target.data, target.stride, source.data, source.stride,
                                            Int32(source.width), Int32(source.height), alpha)
        }

        /// `Kernels.argbToI420` in plain C.
        public static func argbToI420(_ source: PixelPlane, into picture: YUVPlanes) {
            _ = maptrip_argb_to_i420_matrix_reference(source.data, source.stride, picture.y.data, picture.y.stride,
                                                      picture.u.data, picture.u.stride, picture.v.data,
                                                      picture.v.stride, Int32(source.width), Int32(source.height),
                                                      picture.coefficients.matrix)
        }
    }
}
