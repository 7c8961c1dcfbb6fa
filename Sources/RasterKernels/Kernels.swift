import CRasterKernels

/// maptrip's own raster kernels (C, AVX2 and AVX-512: `CRasterKernels`), the one door to them: bilinear
/// resampling (`resample`), a stroker of round lines (`strokeRound`), a filler (`fillNonZero`), radial
/// gradients (`radialOver`), the blends of overlays (`blend`, `over`) and conversions to Y'CbCr
/// (`argbToI420`, `argbToI444`).
///
/// The contract: a kernel that draws and returns `Bool` (or an optional) returns true (a value) when
/// it has done the whole of its work, and false (nil) when it has written nothing at all: this CPU
/// cannot run it (`isAvailable` false), an argument lies outside its range, or it ran out of memory.
/// The caller then draws the same pixels its own way (Cairo, pixman, libyuv): "not done here" is never
/// an error. A kernel that returns nothing always does its work (in plain C where the CPU lacks AVX2).
///
/// The wrappers are thin and inlined where they are called per frame: the kernels run in hot loops.
public enum Kernels {
    /// Whether this CPU runs the kernels (x86-64 with AVX2), asked once: where it does not, the
    /// resampler, the stroker, the filler and the gradients return false at once, and the blends and
    /// conversions take their plain C paths.
    public static let isAvailable = maptrip_resample_available() != 0

    /// The plane resampler's kernel on this CPU: 2 AVX-512 (F, BW, VBMI), 1 AVX2, 0 none. Asked once.
    public static let planeLevel = Int(maptrip_resample_plane_level())
}
