#include "raster_kernels.h"

#include <math.h>

// The turned tile kernel (`maptrip_resample_affine`): see raster_kernels.h.

// Weights of 7 bits, as pixman's bilinear filter has: (b - a) * w stays within a 16-bit lane.
enum { AFFINE_BITS = 7 };

// The first whole x with lo <= s + x * d < hi, and the first past them, for x in [0, width).
static void span_of(double s, double d, double lo, double hi, int width, int *first, int *end) {
    double a, b;
    if (d > 0) {
        a = ceil((lo - s) / d);
        b = ceil((hi - s) / d);
    } else if (d < 0) {
        a = floor((hi - s) / d) + 1;
        b = floor((lo - s) / d) + 1;
    } else {
        a = (s >= lo && s < hi) ? 0 : width;
        b = (s >= lo && s < hi) ? width : 0;
    }
    if (a < 0) a = 0;
    if (b > width) b = width;
    *first = (int)a;
    *end = b > a ? (int)b : (int)a;
}

static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

static inline uint32_t lerp_scalar(uint32_t p, uint32_t q, uint32_t w) {
    // Two channels at a time in 16-bit halves.
    uint32_t lo = p & 0x00ff00ffu, hi = (p >> 8) & 0x00ff00ffu;
    uint32_t qlo = q & 0x00ff00ffu, qhi = (q >> 8) & 0x00ff00ffu;
    int32_t l0 = (int32_t)(lo & 0xffff) + ((((int32_t)(qlo & 0xffff) - (int32_t)(lo & 0xffff)) * (int32_t)w) >> AFFINE_BITS);
    int32_t l1 = (int32_t)(lo >> 16) + ((((int32_t)(qlo >> 16) - (int32_t)(lo >> 16)) * (int32_t)w) >> AFFINE_BITS);
    int32_t h0 = (int32_t)(hi & 0xffff) + ((((int32_t)(qhi & 0xffff) - (int32_t)(hi & 0xffff)) * (int32_t)w) >> AFFINE_BITS);
    int32_t h1 = (int32_t)(hi >> 16) + ((((int32_t)(qhi >> 16) - (int32_t)(hi >> 16)) * (int32_t)w) >> AFFINE_BITS);
    return (uint32_t)l0 | ((uint32_t)l1 << 16) | ((uint32_t)h0 << 8) | ((uint32_t)h1 << 24);
}

// One pixel: the source at 16.16 position (fu, fv), clamped to its last whole pair of pixels.
static inline uint32_t sample_scalar(const uint8_t *src, ptrdiff_t stride, int32_t fu, int32_t fv, int maxx, int maxy) {
    int ix = fu >> 16, iy = fv >> 16;
    uint32_t wx = (uint32_t)(fu >> (16 - AFFINE_BITS)) & ((1u << AFFINE_BITS) - 1);
    uint32_t wy = (uint32_t)(fv >> (16 - AFFINE_BITS)) & ((1u << AFFINE_BITS) - 1);
    if (ix < 0) { ix = 0; wx = 0; } else if (ix > maxx) { ix = maxx; wx = (1u << AFFINE_BITS) - 1; }
    if (iy < 0) { iy = 0; wy = 0; } else if (iy > maxy) { iy = maxy; wy = (1u << AFFINE_BITS) - 1; }
    const uint32_t *top = (const uint32_t *)(src + iy * stride) + ix;
    const uint32_t *bottom = (const uint32_t *)((const uint8_t *)top + stride);
    return lerp_scalar(lerp_scalar(top[0], top[1], wx), lerp_scalar(bottom[0], bottom[1], wx), wy);
}

#if defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2")))
static inline __m256i lerp8(__m256i a, __m256i b, __m256i w) {
    // Per 16-bit lane: a + ((b - a) * w >> 7), every lane holding a channel in 0...255.
    const __m256i d = _mm256_srai_epi16(_mm256_mullo_epi16(_mm256_sub_epi16(b, a), w), AFFINE_BITS);
    return _mm256_add_epi16(a, d);
}

__attribute__((target("avx2")))
static int span_avx2(uint32_t *out, int count, const uint8_t *src, ptrdiff_t stride, int32_t fu, int32_t fv,
                     int32_t dfu, int32_t dfv, int maxx, int maxy) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i u = _mm256_add_epi32(_mm256_set1_epi32(fu), _mm256_mullo_epi32(lane, _mm256_set1_epi32(dfu)));
    __m256i v = _mm256_add_epi32(_mm256_set1_epi32(fv), _mm256_mullo_epi32(lane, _mm256_set1_epi32(dfv)));
    const __m256i du = _mm256_set1_epi32(dfu * 8), dv = _mm256_set1_epi32(dfv * 8);
    const __m256i m = _mm256_set1_epi32(0x00ff00ff), wmask = _mm256_set1_epi32((1 << AFFINE_BITS) - 1);
    const __m256i zero = _mm256_setzero_si256(), mx = _mm256_set1_epi32(maxx), my = _mm256_set1_epi32(maxy);
    const __m256i rowp = _mm256_set1_epi32((int)(stride / 4));
    const int *base = (const int *)src, *below = (const int *)(src + stride);
    int j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256i ix = _mm256_srai_epi32(u, 16), iy = _mm256_srai_epi32(v, 16);
        // Inside the tile by construction (its border included); clamped only for safety.
        const __m256i cx = _mm256_min_epi32(_mm256_max_epi32(ix, zero), mx);
        const __m256i cy = _mm256_min_epi32(_mm256_max_epi32(iy, zero), my);
        const __m256i wx0 = _mm256_and_si256(_mm256_srai_epi32(u, 16 - AFFINE_BITS), wmask);
        const __m256i wy0 = _mm256_and_si256(_mm256_srai_epi32(v, 16 - AFFINE_BITS), wmask);
        const __m256i wx = _mm256_or_si256(wx0, _mm256_slli_epi32(wx0, 16));
        const __m256i wy = _mm256_or_si256(wy0, _mm256_slli_epi32(wy0, 16));
        const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(cy, rowp), cx);
        const __m256i p00 = _mm256_i32gather_epi32(base, idx, 4), p01 = _mm256_i32gather_epi32(base + 1, idx, 4);
        const __m256i p10 = _mm256_i32gather_epi32(below, idx, 4), p11 = _mm256_i32gather_epi32(below + 1, idx, 4);
        const __m256i lo = lerp8(lerp8(_mm256_and_si256(p00, m), _mm256_and_si256(p01, m), wx),
                                 lerp8(_mm256_and_si256(p10, m), _mm256_and_si256(p11, m), wx), wy);
        const __m256i hi = lerp8(lerp8(_mm256_and_si256(_mm256_srli_epi32(p00, 8), m), _mm256_and_si256(_mm256_srli_epi32(p01, 8), m), wx),
                                 lerp8(_mm256_and_si256(_mm256_srli_epi32(p10, 8), m), _mm256_and_si256(_mm256_srli_epi32(p11, 8), m), wx), wy);
        _mm256_storeu_si256((__m256i *)(out + j), _mm256_or_si256(lo, _mm256_slli_epi32(hi, 8)));
        u = _mm256_add_epi32(u, du);
        v = _mm256_add_epi32(v, dv);
    }
    return j;
}
#endif

int maptrip_resample_affine(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                            int row_end, const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                            const double inverse[6], double u0, double v0, double u1, double v1) {
    if (src_width < 2 || src_height < 2 || dst_width <= 0 || row_end <= row_begin) return 1;
    const double ia = inverse[0], ib = inverse[1], ic = inverse[2], id = inverse[3], ie = inverse[4], iff = inverse[5];
    // Positions in 16.16 must stay within the tile's few hundred pixels along a row.
    const double limit = 16384;
    if (fabs(ia) * dst_width > limit || fabs(id) * dst_width > limit) return 0;
    const int32_t dfu = (int32_t)lrint(ia * 65536), dfv = (int32_t)lrint(id * 65536);
    const int maxx = src_width - 2, maxy = src_height - 2;
#if defined(__x86_64__)
    __builtin_cpu_init();
    const int avx2 = __builtin_cpu_supports("avx2");
#else
    const int avx2 = 0;
#endif
    for (int r = row_begin; r < row_end; r++) {
        const double y = r + 0.5;
        // Level position of the row's pixel centres: (su + x du, sv + x dv) for column x.
        const double su = ia * 0.5 + ib * y + ic, sv = id * 0.5 + ie * y + iff;
        int a0, a1, b0, b1;
        span_of(su, ia, u0, u1, dst_width, &a0, &a1);
        span_of(sv, id, v0, v1, dst_width, &b0, &b1);
        const int first = a0 > b0 ? a0 : b0, end = a1 < b1 ? a1 : b1;
        if (end <= first) continue;
        // The tile's pixel 0 is level pixel u0 - 1 (its border); samples at pixel centres, less a half.
        const double tu = su + first * ia - (u0 - 1) - 0.5, tv = sv + first * id - (v0 - 1) - 0.5;
        if (fabs(tu) > limit || fabs(tv) > limit) return 0;
        int32_t fu = (int32_t)lrint(tu * 65536), fv = (int32_t)lrint(tv * 65536);
        uint32_t *out = (uint32_t *)(dst + (ptrdiff_t)(r - first_row) * dst_stride) + first;
        const int count = end - first;
        int j = 0;
#if defined(__x86_64__)
        if (avx2) j = span_avx2(out, count, src, src_stride, fu, fv, dfu, dfv, maxx, maxy);
#endif
        for (; j < count; j++) out[j] = sample_scalar(src, src_stride, fu + j * dfu, fv + j * dfv, maxx, maxy);
    }
    return 1;
}
