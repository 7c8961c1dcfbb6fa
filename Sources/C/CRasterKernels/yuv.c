#include "raster_kernels.h"

const maptrip_yuv_matrix maptrip_yuv_bt601 = {66, 129, 25, -38, -74, 112, 112, -94, -18};
const maptrip_yuv_matrix maptrip_yuv_bt709 = {47, 157, 16, -26, -86, 112, 112, -102, -10};

const maptrip_yuv_matrix *maptrip_yuv_matrix_named(int bt709) { return bt709 ? &maptrip_yuv_bt709 : &maptrip_yuv_bt601; }

// As libyuv's C rows: Y = (yr r + yg g + yb b + 0x1080) >> 8 (16.5: the offset and rounding), U and V
// = (... + 0x8080) >> 8. I420's whole steps of 8 pixels go through AVX2 where the CPU has it; the C
// loops do the rest, and everything for I444 (only lossless H.264 at HD takes it).
static inline uint8_t luma(const maptrip_yuv_matrix *m, int r, int g, int b) {
    return (uint8_t)((m->yr * r + m->yg * g + m->yb * b + 0x1080) >> 8);
}
static inline uint8_t chroma(int cr, int cg, int cb, int r, int g, int b) {
    return (uint8_t)((cr * r + cg * g + cb * b + 0x8080) >> 8);
}
static inline int avg(int a, int b) { return (a + b + 1) >> 1; }

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

// Eight 32-bit lanes (0-255 each) as eight bytes at `p`.
__attribute__((target("avx2"))) static inline void store8(uint8_t *p, __m256i v32) {
    const __m128i q16 = _mm_packus_epi32(_mm256_castsi256_si128(v32), _mm256_extracti128_si256(v32, 1));
    _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(q16, q16));
}

// The rows' whole steps of 8 pixels, as the C code computes them (the same integers, lane by lane);
// returns the columns done (the rest is the C code's).
__attribute__((target("avx2"))) static int i420_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *y0, uint8_t *y1,
                                                    uint8_t *pu, uint8_t *pv, int width, const maptrip_yuv_matrix *k) {
    const __m256i m8 = _mm256_set1_epi32(0xff), one = _mm256_set1_epi32(1);
    const __m256i yr = _mm256_set1_epi32(k->yr), yg = _mm256_set1_epi32(k->yg), yb = _mm256_set1_epi32(k->yb);
    const __m256i ur = _mm256_set1_epi32(k->ur), ug = _mm256_set1_epi32(k->ug), ub = _mm256_set1_epi32(k->ub);
    const __m256i vr = _mm256_set1_epi32(k->vr), vg = _mm256_set1_epi32(k->vg), vb = _mm256_set1_epi32(k->vb);
    const __m256i yo = _mm256_set1_epi32(0x1080), co = _mm256_set1_epi32(0x8080);
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        __m256i c[2][3];
        for (int row = 0; row < 2; row++) {
            const __m256i px = _mm256_loadu_si256((const __m256i *)((row ? s1 : s0) + 4 * x));
            const __m256i b = _mm256_and_si256(px, m8), g = _mm256_and_si256(_mm256_srli_epi32(px, 8), m8);
            const __m256i r = _mm256_and_si256(_mm256_srli_epi32(px, 16), m8);
            const __m256i l = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(r, yr), _mm256_mullo_epi32(g, yg)),
                                               _mm256_add_epi32(_mm256_mullo_epi32(b, yb), yo));
            if (row == 0 || y1) store8((row ? y1 : y0) + x, _mm256_srli_epi32(l, 8));
            c[row][0] = b;
            c[row][1] = g;
            c[row][2] = r;
        }
        // Each block: its columns' rows averaged, then the two columns (hadd pairs neighbours within
        // each 128-bit half; the permute puts the four blocks first).
        __m256i a[3];
        for (int i = 0; i < 3; i++) {
            const __m256i vert = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(c[0][i], c[1][i]), one), 1);
            const __m256i pair = _mm256_permute4x64_epi64(_mm256_hadd_epi32(vert, vert), 0xd8);
            a[i] = _mm256_srli_epi32(_mm256_add_epi32(pair, one), 1);
        }
        const __m256i b = a[0], g = a[1], r = a[2];
        const __m256i uu = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(r, ur), _mm256_mullo_epi32(g, ug)),
                                                              _mm256_add_epi32(_mm256_mullo_epi32(b, ub), co)), 8);
        const __m256i vv = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(r, vr), _mm256_mullo_epi32(g, vg)),
                                                              _mm256_add_epi32(_mm256_mullo_epi32(b, vb), co)), 8);
        uint8_t bytes[8];
        store8(bytes, uu);
        memcpy(pu + x / 2, bytes, 4);
        store8(bytes, vv);
        memcpy(pv + x / 2, bytes, 4);
    }
    return x;
}
#endif

static int argb_to_i420(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                        ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                        const maptrip_yuv_matrix *m, int simd) {
    const maptrip_yuv_matrix k = *m;
    for (int row = 0; row < height; row += 2) {
        const uint8_t *s0 = src + (ptrdiff_t)row * src_stride;
        const int pair = row + 1 < height;
        const uint8_t *s1 = pair ? s0 + src_stride : s0;
        uint8_t *y0 = y + (ptrdiff_t)row * y_stride, *y1 = pair ? y0 + y_stride : NULL;
        uint8_t *pu = u + (ptrdiff_t)(row / 2) * u_stride, *pv = v + (ptrdiff_t)(row / 2) * v_stride;
        int x = 0;
#if defined(__x86_64__)
        if (simd && maptrip_resample_available()) x = i420_avx2(s0, s1, y0, y1, pu, pv, width, &k);
#else
        (void)simd;
#endif
        for (int c = x; c < width; c++) {
            y0[c] = luma(&k, s0[4 * c + 2], s0[4 * c + 1], s0[4 * c]);
            if (y1) y1[c] = luma(&k, s1[4 * c + 2], s1[4 * c + 1], s1[4 * c]);
        }
        for (; x < width; x += 2) {
            const int x1 = x + 1 < width ? x + 1 : x;
            int c[3];
            for (int i = 0; i < 3; i++) {
                c[i] = avg(avg(s0[4 * x + i], s1[4 * x + i]), avg(s0[4 * x1 + i], s1[4 * x1 + i]));
            }
            const int b = c[0], g = c[1], r = c[2];
            pu[x / 2] = chroma(k.ur, k.ug, k.ub, r, g, b);
            pv[x / 2] = chroma(k.vr, k.vg, k.vb, r, g, b);
        }
    }
    return 1;
}

int maptrip_argb_to_i420_matrix(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                                ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                const maptrip_yuv_matrix *m) {
    return argb_to_i420(src, src_stride, y, y_stride, u, u_stride, v, v_stride, width, height, m, 1);
}

int maptrip_argb_to_i420_matrix_reference(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride,
                                          uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width,
                                          int height, const maptrip_yuv_matrix *m) {
    return argb_to_i420(src, src_stride, y, y_stride, u, u_stride, v, v_stride, width, height, m, 0);
}

int maptrip_argb_to_i444_matrix(const uint8_t *src, ptrdiff_t src_stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                                ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                const maptrip_yuv_matrix *m) {
    const maptrip_yuv_matrix k = *m;
    for (int row = 0; row < height; row++) {
        const uint8_t *s = src + (ptrdiff_t)row * src_stride;
        uint8_t *py = y + (ptrdiff_t)row * y_stride, *pu = u + (ptrdiff_t)row * u_stride, *pv = v + (ptrdiff_t)row * v_stride;
        for (int x = 0; x < width; x++) {
            const int b = s[4 * x], g = s[4 * x + 1], r = s[4 * x + 2];
            py[x] = luma(&k, r, g, b);
            pu[x] = chroma(k.ur, k.ug, k.ub, r, g, b);
            pv[x] = chroma(k.vr, k.vg, k.vb, r, g, b);
        }
    }
    return 1;
}
