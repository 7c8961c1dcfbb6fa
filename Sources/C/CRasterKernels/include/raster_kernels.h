#pragma once
// maptrip's own raster kernels: bilinear resampling, a stroker of round lines, a filler, radial gradients,
// the blends of a frame's overlays and conversions to Y'CbCr, on AVX2 (AVX-512 for planes) where the CPU
// has it. Swift calls them through the RasterKernels module only (its CPU check, its contract of "done"
// or "not done here").
//
// Bilinear resampling of premultiplied BGRA, for compositing the raster cache's tiles into frames. pixman
// does the same with SSE2, blending four neighbours per pixel in 16 bits; this one is separable: each
// destination row blends its two source rows once (8 bits, rounded), then resamples that row across, eight
// pixels at a time, by a plan of byte shuffles and weights made once per call (every row samples the same
// columns). AVX2, where the CPU has it. Positions are 16.16 fixed point as pixman's; weights have 6 bits
// (pixman's 7), so they fit pmaddubsw's signed bytes. Against pixman: within 5 levels at noise, 0.06 on
// average; flat colours come out exactly.
#include <stddef.h>
#include <stdint.h>

/// Whether this CPU runs the kernel (x86-64 with AVX2). Without it, `maptrip_resample_bilinear` does
/// nothing and returns 0: the caller paints the same pixels with pixman.
int maptrip_resample_available(void);

/// An RGB to Y'CbCr matrix in limited range, as 8-bit coefficients out of 256 (libyuv's form):
/// Y = 16 + (yr r + yg g + yb b) / 256, U = 128 + (ur r + ug g + ub b) / 256, V likewise.
typedef struct {
    int yr, yg, yb, ur, ug, ub, vr, vg, vb;
} maptrip_yuv_matrix;

/// BT.601 (libyuv's ARGBToI420: 66 129 25, -38 -74 112, 112 -94 -18) and BT.709 (47 157 16,
/// -26 -86 112, 112 -102 -10; each row's chroma coefficients add up to 0, its luma to 220 as 601's).
extern const maptrip_yuv_matrix maptrip_yuv_bt601;
extern const maptrip_yuv_matrix maptrip_yuv_bt709;
/// The one or the other (for Swift, which cannot take a C global's address for good).
const maptrip_yuv_matrix *maptrip_yuv_matrix_named(int bt709);

/// Cairo's BGRA (premultiplied; opaque pictures) to I420 with `m`: Y per pixel, U and V of each 2x2
/// block's average (rounded as libyuv rounds: pairs averaged up). Any width and height (the last
/// column or row of an odd size stands alone). Returns 1.
int maptrip_argb_to_i420_matrix(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                                ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                const maptrip_yuv_matrix *m);

/// The same in plain C alone: what the AVX2 path must equal.
int maptrip_argb_to_i420_matrix_reference(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride,
                                          uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width,
                                          int height, const maptrip_yuv_matrix *m);

/// The same to I444 (U and V per pixel). Returns 1.
int maptrip_argb_to_i444_matrix(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                                ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                const maptrip_yuv_matrix *m);

/// Writes `width` x `height` pixels at `dst` (row stride `dst_stride` bytes): pixel (j, r) is the
/// source sampled bilinearly at column x0 + j * dx, row y0 + r * dy (16.16 fixed point, where whole
/// numbers are pixel centres), the source's edges padded outwards (pixman's EXTEND_PAD).
/// Requires 0 < dx <= 2 pixels and positions within +-2^14 pixels. Returns 1 when written, 0 when
/// unavailable or out of range (nothing written: paint with pixman).
int maptrip_resample_bilinear(uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                              const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                              int32_t x0, int32_t y0, int32_t dx, int32_t dy);

/// A turned tile: writes the pixels of frame rows row_begin ..< row_end (`dst` holds frame row
/// `first_row` at its start) whose centres fall in the tile's square [u0, u1) x [v0, v1) of level
/// pixels, `inverse` (a, b, c, d, e, f) mapping a frame point (x, y) to level point
/// (a x + b y + c, d x + e y + f); the square's half-open edges share a frame's pixels out exactly
/// among neighbouring tiles. Each is the premultiplied BGRA `src` (the tile, whose pixel 0 is level
/// pixel u0 - 1, v0 - 1: a one-pixel border) sampled bilinearly: 6-bit weights down (as the scale
/// kernel's), 7-bit across (pixman's), rounded once.
/// Returns 1 when done, 0 when positions would leave 16.16 fixed point's range (paint the tile
/// otherwise then: rows may have been written, and are painted over).
int maptrip_resample_affine(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                            int row_end, const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                            const double inverse[6], double u0, double v0, double u1, double v1);

/// The same for one plane of 8-bit samples (an I420 tile's Y, U or V): the tile's pixel 0 is level
/// pixel (u0 - border, v0 - border), in the plane's own pixels (a chroma plane's square, inverse and
/// border are the luma's halved: its inverse (a, b, c / 2, d, e, f / 2)). The same arithmetic, sample
/// for sample, as the BGRA kernel's per channel. `vector` 0: plain C alone (what the others must
/// equal); 1: AVX2 (32-bit gathers); 2: AVX-512 VBMI (rows loaded whole and picked by byte permutes,
/// gathers where a group of samples reaches too far); -1 (or one beyond this CPU): the best it has.
/// Returns 1 when done, 0 as the BGRA kernel (or for a border beyond 16).
int maptrip_resample_affine_plane(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                                  int row_end, const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                                  const double inverse[6], double u0, double v0, double u1, double v1, int border,
                                  int vector);

/// Sets the same pixels of a plane `maptrip_resample_affine_plane` paints to `value` (a flat tile:
/// what sampling it gives). Returns 1.
int maptrip_fill_affine_plane(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                              int row_end, uint8_t value, const double inverse[6], double u0, double v0, double u1,
                              double v1);

/// The same for one plane of 8-bit samples (a YUV picture's Y, U or V; no padding of channels).
int maptrip_resample_plane(uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                           const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                           int32_t x0, int32_t y0, int32_t dx, int32_t dy);

/// Which kernel `maptrip_resample_plane` runs on this CPU: 2 AVX-512 (F, BW, VBMI, VL, DQ), 1 AVX2, 0 none;
/// every kernel with an AVX-512 path (the overlay blend and OVER, the stroker) numbers its paths so.
int maptrip_resample_plane_level(void);

/// `maptrip_resample_plane` on the kernel of `level` (1 or 2, at most this CPU's): the same bytes from
/// either. Returns 0 (nothing written) for a level this CPU lacks.
int maptrip_resample_plane_at(int level, uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                              const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                              int32_t x0, int32_t y0, int32_t dx, int32_t dy);

/// Strokes `lines` polylines (`counts[l]` points each, x y pairs one line after the other in `xy`, in
/// the surface's pixels) with round caps and joins over premultiplied BGRA `pixels`, within the clip
/// rectangle (x0, y0) ... (x1, y1), in `passes` passes one over the other (an outline, then the line):
/// pass k `widths[k]` wide, in one colour (`colors[4k...4k+3]`: straight red, green, blue and alpha,
/// 0...1). The lines are set up once for all passes, and each row gets every pass in turn: the same
/// pixels as whole strokes drawn one after the other. Returns 1 when drawn (or nothing to draw), 0 when
/// it cannot (no AVX2, no memory): nothing drawn, stroke with Cairo.
int maptrip_stroke_round(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                         const double *xy, const int *counts, int lines, const double *widths, const double *colors,
                         int passes);

/// `maptrip_stroke_round` with the distance pass's kernel at `level`: 2 AVX-512 (sixteen pixels at a
/// time), 1 AVX2 (eight), -1 (or beyond this CPU) the best it has; the same pixels at every level.
int maptrip_stroke_round_at(int level, uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1,
                            int clip_y1, const double *xy, const int *counts, int lines, const double *widths,
                            const double *colors, int passes);

/// Strokes as `maptrip_stroke_round` over the whole of an I420 picture (`width` x `height`, both even):
/// the pixels of the strokes drawn in turn over a transparent BGRA overlay, which
/// `maptrip_blend_overlay_i420` then blends, without that overlay (each pair of rows is drawn and
/// blended in turn). `strokes` strokes: stroke k has the next `stroke_lines[k]` lines (their points in
/// `xy`, their counts in `counts`) and the next `stroke_passes[k]` passes (`widths`, `colors`). Returns
/// 1 when drawn (or nothing to draw), 0 when it cannot (no AVX2, an odd size, no memory): nothing drawn.
/// `spans` (`height` of them, or NULL): for each pair of rows, the columns [spans[r], spans[r + 1]) it
/// may have changed (even bounds; none: 0, 0). `m`: the picture's matrix (NULL: BT.601).
int maptrip_stroke_round_i420(uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride, uint8_t *v,
                              ptrdiff_t v_stride, int width, int height, int strokes, const int *stroke_lines,
                              const int *stroke_passes, const double *xy, const int *counts, const double *widths,
                              const double *colors, int *spans, const maptrip_yuv_matrix *m);

/// Fills polygons (`rings` closed rings, the points of ring r from `starts[r]` up to the next ring's start
/// or `points`, at `xs`, `ys` in user space, which is device space moved by `dx`, `dy`) by the non-zero
/// rule over premultiplied BGRA `pixels`, within the clip rectangle (x0, y0) ... (x1, y1) in device
/// pixels, in one colour (`color`: straight red, green, blue and alpha, 0...1): each pixel at the area
/// of it the polygons cover (where rings overlap, their areas added up to the whole pixel). Returns 1
/// when filled (or nothing to fill), 0 when it cannot (no AVX2, no memory): nothing drawn, fill with
/// Cairo.
int maptrip_fill_nonzero(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                         const double *xs, const double *ys, const ptrdiff_t *starts, int rings, int points,
                         double dx, double dy, const double *color);

/// Paints over premultiplied BGRA `pixels`, within the clip rectangle (x0, y0) ... (x1, y1) in device
/// pixels, the ring between radii `r_in` and `r_out` about (cx, cy) (device space; r_in <= 0: the
/// whole disc) in a concentric radial gradient: at distance d from the centre, the colour of the
/// stops (`offsets`, ascending in 0...1, and `colors`: straight red, green, blue, alpha, 0...1, four
/// per stop) at t = (d - g0) / (g1 - g0), clamped to 0...1, from a table of 256 (straight colours
/// mixed, then premultiplied, as pixman does; before the first stop and after the last, theirs, as
/// Cairo's EXTEND_PAD); each pixel at the share of it the ring covers, from its centre's distance to
/// each circle (half a pixel either side). Returns 1 when painted (or nothing to paint), 0 when it
/// cannot (no AVX2, a position that is not a number): nothing painted, paint with Cairo.
int maptrip_radial_over(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                        double cx, double cy, double r_in, double r_out, double g0, double g1,
                        const double *offsets, const double *colors, int stops);

/// Blends a premultiplied BGRA overlay (`width` x `height`, transparent where nothing is drawn) over
/// an I420 picture of the same size, converted with matrix `m` (NULL: BT.601, libyuv's ARGBToI420): each
/// pixel's Y, and each 2x2 block's U and V with the block's average overlay. Blocks of the overlay
/// that hold anything are cleared to transparent (ready for the next picture's overlays); clear
/// stretches are skipped. Width and height must be even (returns 0, nothing done, otherwise; else 1).
int maptrip_blend_overlay_i420(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                               ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                               const maptrip_yuv_matrix *m);
/// The blend along the path `level` (as `maptrip_resample_plane_level` numbers them, at most the CPU's
/// best): each must equal plain C's bytes.
int maptrip_blend_overlay_i420_at(int level, uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride,
                                  uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                  const maptrip_yuv_matrix *m);
/// The same, pixel by pixel in plain C: what the vector paths (taken where the CPU has them) must
/// equal, for every premultiplied overlay (Cairo's ARGB32).
int maptrip_blend_overlay_i420_reference(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride,
                                         uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width,
                                         int height, const maptrip_yuv_matrix *m);

/// `src` (premultiplied BGRA, `width` x `height` pixels) at `alpha` (0-255) over `dst` (premultiplied
/// BGRA), as pixman composites a picture painted with an opacity (OVER through a solid mask): the same
/// bytes. For overlays' pictures painted on a band of a frame drawn into I420. Returns 1.
int maptrip_over_bgra(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride, int width,
                      int height, int alpha);
/// The same along the path `level` (as `maptrip_resample_plane_level` numbers them).
int maptrip_over_bgra_at(int level, uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                         int width, int height, int alpha);
/// The same, one pixel at a time (the reference the vector paths are tested against).
int maptrip_over_bgra_reference(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                                int width, int height, int alpha);

/// Whether all `count` bytes at `p` equal `value` (stops at the first that does not).
int maptrip_bytes_all(const uint8_t *p, size_t count, uint8_t value);

/// Asks for the cache line at `p` ahead of its use (a hint: never faults).
static inline void maptrip_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }
