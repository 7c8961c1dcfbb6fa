// maptrip's own concentric radial gradients: the globe's atmosphere (a glow beyond the limb and a rim
// over it) and its sea disc, which pixman draws one pixel at a time through its general two-circle
// gradient (about 0.6 ms of a 1080p globe frame). Here each row works out, in double precision, where
// the ring starts and ends; only the pixels across its edges are computed (eight at a time: their
// distance from the centre, the ring's cover of them from that distance, the gradient's colour from a
// table of 256), those wholly inside an opaque ring of one colour are written as it, and those outside
// are not touched.
#include "raster_kernels.h"
#include "solid.h"

#include <math.h>
#include <stdlib.h>

// The gradient's colours at t = i / 255, premultiplied: between two stops their straight colours
// mixed, then premultiplied (as pixman's gradient walker does); before the first stop and after the
// last, theirs (Cairo's EXTEND_PAD).
static void gradient_table(uint32_t *lut, const double *offsets, const double *colors, int stops) {
    for (int i = 0; i < 256; i++) {
        const double t = i / 255.0;
        double rgba[4];
        int k = 0;
        while (k + 1 < stops && offsets[k + 1] < t) k++;
        if (t <= offsets[0] || k + 1 >= stops) {
            const int s = t <= offsets[0] ? 0 : stops - 1;
            for (int c = 0; c < 4; c++) rgba[c] = colors[4 * s + c];
        } else {
            const double span = offsets[k + 1] - offsets[k], f = span > 0 ? (t - offsets[k]) / span : 1;
            for (int c = 0; c < 4; c++) rgba[c] = colors[4 * k + c] + (colors[4 * (k + 1) + c] - colors[4 * k + c]) * f;
        }
        const solid_t s = solid_from(rgba);
        lut[i] = s.sb | (s.sg << 8) | (s.sr << 16) | (s.sa << 24);
    }
}

#if defined(__x86_64__)

// The geometry of one row, per pixel relative to the centre column: each circle's signed distance is
// (dx^2 + q) / (d + r), with q = dy^2 - r^2 worked out per row in double precision (near a circle q is
// no larger than the frame, so single precision serves for the rest, also for radii of millions).
typedef struct {
    float cx;            // the centre's column, less the half pixel to a pixel's centre
    float dy2;           // dy^2
    float q_out, r_out;  // the outer circle
    float q_in, r_in;    // the inner one (r_in <= 0: none)
    float q_g0, g0, inv; // the gradient's start, and 1 / its length
    int hole;            // whether there is an inner circle
} ring_row_t;

// Pixels x ... x1 - 1 of row `d` (at most eight a step, the last step's lanes past x1 left alone).
__attribute__((target("avx2,fma"))) static void ring_span(uint32_t *d, int x, int x1, const ring_row_t *g,
                                                          const uint32_t *lut) {
    const __m256 lanes = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1), half = _mm256_set1_ps(0.5f);
    const __m256 f255 = _mm256_set1_ps(255);
    for (; x < x1; x += 8) {
        const __m256 dx = _mm256_sub_ps(_mm256_add_ps(_mm256_set1_ps((float)x), lanes), _mm256_set1_ps(g->cx));
        const __m256 dx2 = _mm256_mul_ps(dx, dx);
        const __m256 dist = _mm256_sqrt_ps(_mm256_add_ps(dx2, _mm256_set1_ps(g->dy2)));
        // Cover: half a pixel either side of each circle, by the centre's distance from it.
        const __m256 s_out = _mm256_div_ps(_mm256_add_ps(dx2, _mm256_set1_ps(g->q_out)),
                                           _mm256_add_ps(dist, _mm256_set1_ps(g->r_out)));
        __m256 cover = _mm256_min_ps(_mm256_max_ps(_mm256_sub_ps(half, s_out), zero), one);
        if (g->hole) {
            const __m256 s_in = _mm256_div_ps(_mm256_add_ps(dx2, _mm256_set1_ps(g->q_in)),
                                              _mm256_add_ps(dist, _mm256_set1_ps(g->r_in)));
            cover = _mm256_mul_ps(cover, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(s_in, half), zero), one));
        }
        const __m256 t = _mm256_mul_ps(_mm256_div_ps(_mm256_add_ps(dx2, _mm256_set1_ps(g->q_g0)),
                                                     _mm256_add_ps(dist, _mm256_set1_ps(g->g0))),
                                       _mm256_set1_ps(g->inv));
        const __m256i index = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_min_ps(_mm256_max_ps(t, zero), one), f255));
        const __m256i colour = _mm256_i32gather_epi32((const int *)lut, index, 4);
        const __m256i m = _mm256_cvtps_epi32(_mm256_mul_ps(cover, f255));
        const solid8_t c = solid8_of(colour);
        if (x + 8 <= x1) {
            _mm256_storeu_si256((__m256i *)(d + x), solid_over8(_mm256_loadu_si256((const __m256i *)(d + x)), m, c));
        } else {
            uint32_t px[8] = {0}, out[8];
            for (int l = 0; l < x1 - x; l++) px[l] = d[x + l];
            _mm256_storeu_si256((__m256i *)out, solid_over8(_mm256_loadu_si256((const __m256i *)px), m, c));
            for (int l = 0; l < x1 - x; l++) d[x + l] = out[l];
        }
    }
}

// The columns [*a, *b) whose centres lie within `h` of the centre column `c`, within lo ... hi.
static void columns_within(double c, double h, int lo, int hi, int *a, int *b) {
    const double l = ceil(c - h - 0.5), r = floor(c + h - 0.5) + 1;
    *a = l < lo ? lo : (l > hi ? hi : (int)l);
    *b = r < *a ? *a : (r > hi ? hi : (int)r);
}

__attribute__((target("avx2,fma"))) static int radial_avx2(uint8_t *pixels, ptrdiff_t stride, int clip_x0,
                                                           int clip_y0, int clip_x1, int clip_y1, double cx, double cy,
                                                           double r_in, double r_out, double g0, double g1,
                                                           const double *offsets, const double *colors, int stops) {
    uint32_t lut[256];
    gradient_table(lut, offsets, colors, stops);
    // An opaque ring of one colour: the pixels wholly inside it are written as that colour.
    int uniform = 1;
    for (int i = 1; i < 256; i++) uniform &= lut[i] == lut[0];
    const int solid = uniform && (lut[0] >> 24) == 255;
    const int hole = r_in > 0;
    const double glen = g1 - g0;
    ring_row_t g = {(float)(cx - 0.5), 0, 0, (float)r_out, 0, (float)(hole ? r_in : 0), 0, (float)g0,
                    (float)(glen > 0 ? 1 / glen : 0), hole};
    const double outer = r_out + 0.5, inner = r_in - 0.5, whole = r_out - 0.5;
    for (int row = clip_y0; row < clip_y1; row++) {
        const double dy = row + 0.5 - cy, dy2 = dy * dy;
        if (dy2 >= outer * outer) continue;
        uint32_t *d = (uint32_t *)(pixels + (ptrdiff_t)row * stride);
        g.dy2 = (float)dy2;
        g.q_out = (float)(dy2 - r_out * r_out);
        g.q_in = (float)(dy2 - r_in * r_in);
        g.q_g0 = (float)(dy2 - g0 * g0);
        // The ring's columns, then within them the hole (covered not at all) or the solid middle.
        int a, b;
        columns_within(cx, sqrt(outer * outer - dy2), clip_x0, clip_x1, &a, &b);
        int ma = b, mb = b;
        if (hole && inner > 0 && dy2 < inner * inner) {
            columns_within(cx, sqrt(inner * inner - dy2), a, b, &ma, &mb);
        } else if (solid && !hole && whole > 0 && dy2 < whole * whole) {
            columns_within(cx, sqrt(whole * whole - dy2), a, b, &ma, &mb);
            for (int x = ma; x < mb; x++) d[x] = lut[0];
        }
        ring_span(d, a, ma, &g, lut);
        ring_span(d, mb, b, &g, lut);
    }
    return 1;
}

int maptrip_radial_over(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                        double cx, double cy, double r_in, double r_out, double g0, double g1,
                        const double *offsets, const double *colors, int stops) {
    if (!maptrip_resample_available()) return 0;
    if (clip_x1 <= clip_x0 || clip_y1 <= clip_y0 || stops <= 0 || !(r_out > 0) || !isfinite(r_out)) return 1;
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(r_in) || !isfinite(g0) || !isfinite(g1)) return 0;
    return radial_avx2(pixels, stride, clip_x0, clip_y0, clip_x1, clip_y1, cx, cy, r_in, r_out, g0, g1, offsets,
                       colors, stops);
}

#else

int maptrip_radial_over(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                        double cx, double cy, double r_in, double r_out, double g0, double g1,
                        const double *offsets, const double *colors, int stops) {
    (void)pixels; (void)stride; (void)clip_x0; (void)clip_y0; (void)clip_x1; (void)clip_y1; (void)cx; (void)cy;
    (void)r_in; (void)r_out; (void)g0; (void)g1; (void)offsets; (void)colors; (void)stops;
    (void)gradient_table;
    return 0;
}

#endif
