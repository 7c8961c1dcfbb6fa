#include "raster_kernels.h"

#include <math.h>
#include <string.h>

// The turned tile kernel (`maptrip_resample_affine`): see raster_kernels.h.

// Weights: 6 bits down (pmaddubsw takes them as signed bytes, and 64 fits), 7 across (pixman's).
enum { DOWN_BITS = 6, ACROSS_BITS = 7 };

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


// Where the source at 16.16 position (fu, fv) is sampled, clamped to its last whole pair of pixels
// (`bytes` a pixel): its top-left pixel, and the weights across (7 bits) and down (6).
static inline const uint8_t *locate(const uint8_t *src, ptrdiff_t stride, int bytes, int32_t fu, int32_t fv, int maxx,
                                    int maxy, int *wx, int *wy) {
    int ix = fu >> 16, iy = fv >> 16;
    *wx = (fu >> (16 - ACROSS_BITS)) & ((1 << ACROSS_BITS) - 1);
    *wy = (fv >> (16 - DOWN_BITS)) & ((1 << DOWN_BITS) - 1);
    if (ix < 0) { ix = 0; *wx = 0; } else if (ix > maxx) { ix = maxx; *wx = (1 << ACROSS_BITS) - 1; }
    if (iy < 0) { iy = 0; *wy = 0; } else if (iy > maxy) { iy = maxy; *wy = (1 << DOWN_BITS) - 1; }
    return src + iy * stride + ix * bytes;
}

// One channel: the byte at `p`, the one below it and their neighbours `next` bytes on, blended down,
// then across, rounded once: the same arithmetic as the vector kernels'.
static inline int blend(const uint8_t *p, ptrdiff_t stride, int next, int wx, int wy) {
    const int left = p[0] * ((1 << DOWN_BITS) - wy) + p[stride] * wy;
    const int right = p[next] * ((1 << DOWN_BITS) - wy) + p[stride + next] * wy;
    return (left * ((1 << ACROSS_BITS) - wx) + right * wx + (1 << (DOWN_BITS + ACROSS_BITS - 1))) >> (DOWN_BITS + ACROSS_BITS);
}

// One BGRA pixel.
static inline uint32_t sample_scalar(const uint8_t *src, ptrdiff_t stride, int32_t fu, int32_t fv, int maxx, int maxy) {
    int wx, wy;
    const uint8_t *top = locate(src, stride, 4, fu, fv, maxx, maxy, &wx, &wy);
    uint32_t out = 0;
    for (int c = 0; c < 4; c++) out |= (uint32_t)blend(top + c, stride, 4, wx, wy) << (8 * c);
    return out;
}

// One sample of a plane.
static inline uint8_t sample_plane_scalar(const uint8_t *src, ptrdiff_t stride, int32_t fu, int32_t fv, int maxx, int maxy) {
    int wx, wy;
    const uint8_t *top = locate(src, stride, 1, fu, fv, maxx, maxy, &wx, &wy);
    return (uint8_t)blend(top, stride, 1, wx, wy);
}

#if defined(__x86_64__)
#include <immintrin.h>

// Four pixels at a time: each pixel's two source pixels side by side taken by one 64-bit gather from
// its row and one from the row below (half the elements four 32-bit gathers take), blended down with
// pmaddubsw, then across with pmaddwd, rounded once.
__attribute__((target("avx2")))
static int span_avx2(uint32_t *out, int count, const uint8_t *src, ptrdiff_t stride, int32_t fu, int32_t fv,
                     int32_t dfu, int32_t dfv, int maxx, int maxy) {
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
    __m128i u = _mm_add_epi32(_mm_set1_epi32(fu), _mm_mullo_epi32(lane, _mm_set1_epi32(dfu)));
    __m128i v = _mm_add_epi32(_mm_set1_epi32(fv), _mm_mullo_epi32(lane, _mm_set1_epi32(dfv)));
    const __m128i du = _mm_set1_epi32(dfu * 4), dv = _mm_set1_epi32(dfv * 4);
    const __m128i xmask = _mm_set1_epi32((1 << ACROSS_BITS) - 1), ymask = _mm_set1_epi32((1 << DOWN_BITS) - 1);
    const __m128i xone = _mm_set1_epi32(1 << ACROSS_BITS), yone = _mm_set1_epi32(1 << DOWN_BITS);
    const __m128i zero = _mm_setzero_si128(), mx = _mm_set1_epi32(maxx), my = _mm_set1_epi32(maxy);
    const __m128i rowp = _mm_set1_epi32((int)(stride / 4));
    // Per 128-bit lane, the first (lo) or second (hi) pixel's weights spread over its bytes or words.
    const __m256i first = _mm256_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2), second = _mm256_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3);
    // Words (left c, right c) side by side for each channel c: left pixel's words 0-3, right's 4-7.
    const __m256i pairs = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                           0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m256i round = _mm256_set1_epi32(1 << (DOWN_BITS + ACROSS_BITS - 1));
    const long long *base = (const long long *)src, *below = (const long long *)(src + stride);
    int j = 0;
    for (; j + 4 <= count; j += 4) {
        const __m128i cx = _mm_min_epi32(_mm_max_epi32(_mm_srai_epi32(u, 16), zero), mx);
        const __m128i cy = _mm_min_epi32(_mm_max_epi32(_mm_srai_epi32(v, 16), zero), my);
        const __m128i wx = _mm_and_si128(_mm_srai_epi32(u, 16 - ACROSS_BITS), xmask);
        const __m128i wy = _mm_and_si128(_mm_srai_epi32(v, 16 - DOWN_BITS), ymask);
        const __m128i idx = _mm_add_epi32(_mm_mullo_epi32(cy, rowp), cx);
        const __m256i top = _mm256_i32gather_epi64(base, idx, 4), bottom = _mm256_i32gather_epi64(below, idx, 4);
        // Down: bytes (top, bottom) paired, weighted (64 - wy, wy): bytes b0 = 64 - wy, b1 = wy, twice.
        const __m128i wyb = _mm_or_si128(_mm_sub_epi32(yone, wy), _mm_slli_epi32(wy, 8));
        const __m256i wyw = _mm256_castsi128_si256(_mm_or_si128(wyb, _mm_slli_epi32(wyb, 16)));
        const __m256i wyx = _mm256_inserti128_si256(wyw, _mm256_castsi256_si128(wyw), 1);
        const __m256i lo = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(top, bottom), _mm256_permutevar8x32_epi32(wyx, first));
        const __m256i hi = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(top, bottom), _mm256_permutevar8x32_epi32(wyx, second));
        // Across: words (left, right) weighted (128 - wx, wx).
        const __m128i wxw = _mm_or_si128(_mm_sub_epi32(xone, wx), _mm_slli_epi32(wx, 16));
        const __m256i wxx = _mm256_inserti128_si256(_mm256_castsi128_si256(wxw), wxw, 1);
        const __m256i a = _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_shuffle_epi8(lo, pairs),
                                                                               _mm256_permutevar8x32_epi32(wxx, first)), round), DOWN_BITS + ACROSS_BITS);
        const __m256i b = _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_shuffle_epi8(hi, pairs),
                                                                               _mm256_permutevar8x32_epi32(wxx, second)), round), DOWN_BITS + ACROSS_BITS);
        // Lane 0: pixels 0 (a) and 1 (b); lane 1: pixels 2 and 3.
        const __m256i words = _mm256_packs_epi32(a, b);
        const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), 0x08);
        _mm_storeu_si128((__m128i *)(out + j), _mm256_castsi256_si128(bytes));
        u = _mm_add_epi32(u, du);
        v = _mm_add_epi32(v, dv);
    }
    return j;
}

// Eight samples at a time: each one's two source samples side by side (and two more) taken by one 32-bit
// gather from its row and one from the row below, put (top left, bottom left, top right, bottom right),
// blended down with pmaddubsw, then across with pmaddwd, rounded once: the scalar path's arithmetic. A
// gather's four bytes may reach two past the sample pair: the eight whose reach would pass the plane's
// last byte (its last row's last columns) are left to the scalar path.
__attribute__((target("avx2")))
static int span_plane_avx2(uint8_t *out, int count, const uint8_t *src, ptrdiff_t stride, int src_width, int32_t fu,
                           int32_t fv, int32_t dfu, int32_t dfv, int maxx, int maxy) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i u = _mm256_add_epi32(_mm256_set1_epi32(fu), _mm256_mullo_epi32(lane, _mm256_set1_epi32(dfu)));
    __m256i v = _mm256_add_epi32(_mm256_set1_epi32(fv), _mm256_mullo_epi32(lane, _mm256_set1_epi32(dfv)));
    const __m256i du = _mm256_set1_epi32(dfu * 8), dv = _mm256_set1_epi32(dfv * 8);
    const __m256i xmask = _mm256_set1_epi32((1 << ACROSS_BITS) - 1), ymask = _mm256_set1_epi32((1 << DOWN_BITS) - 1);
    const __m256i xone = _mm256_set1_epi32(1 << ACROSS_BITS), yone = _mm256_set1_epi32(1 << DOWN_BITS);
    const __m256i zero = _mm256_setzero_si256(), mx = _mm256_set1_epi32(maxx), my = _mm256_set1_epi32(maxy);
    const __m256i rowp = _mm256_set1_epi32((int)stride), low = _mm256_set1_epi32(0xffff);
    // The last top-row index whose bottom row's four bytes stay within the plane.
    const __m256i last = _mm256_set1_epi32((int)(maxy * stride) + src_width - 4);
    // Per 32-bit lane (t0, t1, b0, b1) to (t0, b0, t1, b1).
    const __m256i order = _mm256_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15,
                                           0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
    const __m256i round = _mm256_set1_epi32(1 << (DOWN_BITS + ACROSS_BITS - 1));
    const int *base = (const int *)src, *below = (const int *)(src + stride);
    int j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256i cx = _mm256_min_epi32(_mm256_max_epi32(_mm256_srai_epi32(u, 16), zero), mx);
        const __m256i cy = _mm256_min_epi32(_mm256_max_epi32(_mm256_srai_epi32(v, 16), zero), my);
        const __m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(cy, rowp), cx);
        if (!_mm256_testz_si256(_mm256_cmpgt_epi32(idx, last), _mm256_cmpgt_epi32(idx, last))) break;
        // Clamped as the scalar path clamps: below 0, weight 0; past the last pair, its right sample.
        __m256i wx = _mm256_and_si256(_mm256_srai_epi32(u, 16 - ACROSS_BITS), xmask);
        __m256i wy = _mm256_and_si256(_mm256_srai_epi32(v, 16 - DOWN_BITS), ymask);
        wx = _mm256_andnot_si256(_mm256_cmpgt_epi32(zero, _mm256_srai_epi32(u, 16)), wx);
        wx = _mm256_blendv_epi8(wx, xmask, _mm256_cmpgt_epi32(_mm256_srai_epi32(u, 16), mx));
        wy = _mm256_andnot_si256(_mm256_cmpgt_epi32(zero, _mm256_srai_epi32(v, 16)), wy);
        wy = _mm256_blendv_epi8(wy, ymask, _mm256_cmpgt_epi32(_mm256_srai_epi32(v, 16), my));
        const __m256i top = _mm256_i32gather_epi32(base, idx, 1), bottom = _mm256_i32gather_epi32(below, idx, 1);
        const __m256i pairs = _mm256_shuffle_epi8(_mm256_or_si256(_mm256_and_si256(top, low), _mm256_slli_epi32(bottom, 16)), order);
        // Down: bytes (top, bottom) weighted (64 - wy, wy), for the left and the right sample.
        const __m256i wyb = _mm256_or_si256(_mm256_sub_epi32(yone, wy), _mm256_slli_epi32(wy, 8));
        const __m256i words = _mm256_maddubs_epi16(pairs, _mm256_or_si256(wyb, _mm256_slli_epi32(wyb, 16)));
        // Across: words (left, right) weighted (128 - wx, wx).
        const __m256i wxw = _mm256_or_si256(_mm256_sub_epi32(xone, wx), _mm256_slli_epi32(wx, 16));
        const __m256i values = _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(words, wxw), round), DOWN_BITS + ACROSS_BITS);
        // Eight 32-bit values to eight bytes: lane 0 holds 0-3, lane 1 4-7.
        const __m256i w16 = _mm256_packs_epi32(values, values);
        const __m256i b8 = _mm256_packus_epi16(w16, w16);
        const __m256i both = _mm256_permutevar8x32_epi32(b8, _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4));
        _mm_storel_epi64((__m128i *)(out + j), _mm256_castsi256_si128(both));
        u = _mm256_add_epi32(u, du);
        v = _mm256_add_epi32(v, dv);
    }
    return j;
}

// The pixels (clamped as the samples' are) a group's first sample (at 16.16 position ua, va) and its
// sample `last` steps on lie in: columns x0 to x1, rows y0 to y1. The positions move one way, so
// every sample's between lies within.
static inline void group_box(int32_t ua, int32_t va, int32_t dfu, int32_t dfv, int last, int maxx, int maxy, int *x0,
                             int *x1, int *y0, int *y1) {
    const int32_t ub = (int32_t)((uint32_t)ua + (uint32_t)last * (uint32_t)dfu);
    const int32_t vb = (int32_t)((uint32_t)va + (uint32_t)last * (uint32_t)dfv);
    int xa = ua >> 16, xb = ub >> 16, ya = va >> 16, yb = vb >> 16;
    xa = xa < 0 ? 0 : xa > maxx ? maxx : xa;
    xb = xb < 0 ? 0 : xb > maxx ? maxx : xb;
    ya = ya < 0 ? 0 : ya > maxy ? maxy : ya;
    yb = yb < 0 ? 0 : yb > maxy ? maxy : yb;
    *x0 = xa < xb ? xa : xb;
    *x1 = xa < xb ? xb : xa;
    *y0 = ya < yb ? ya : yb;
    *y1 = ya < yb ? yb : ya;
}

// Sixteen samples at a time, no gather: a rotation's sixteen consecutive samples lie within a few
// source rows and 64 columns, so each of those rows is loaded whole (64 bytes from the group's
// leftmost column, masked to the row: no read past the plane) and the samples whose top row it is
// take their four bytes (top left, bottom left, top right, bottom right) from it and the row below
// by one two-table byte permute (vpermi2b), written only into their own bytes. Then the AVX2 path's
// arithmetic on sixteen lanes, and a masked store of the last group's samples (no scalar tail).
// Returns where it stopped: a group reaching over more than 63 columns or 32 rows (a far zoom) is
// left to the gathers.
__attribute__((target("avx512f,avx512bw,avx512vbmi,bmi2")))
static int span_plane_avx512(uint8_t *out, int count, const uint8_t *src, ptrdiff_t stride, int src_width, int32_t fu,
                             int32_t fv, int32_t dfu, int32_t dfv, int maxx, int maxy) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i u = _mm512_add_epi32(_mm512_set1_epi32(fu), _mm512_mullo_epi32(lane, _mm512_set1_epi32(dfu)));
    __m512i v = _mm512_add_epi32(_mm512_set1_epi32(fv), _mm512_mullo_epi32(lane, _mm512_set1_epi32(dfv)));
    const __m512i du = _mm512_set1_epi32((int32_t)((uint32_t)dfu * 16)), dv = _mm512_set1_epi32((int32_t)((uint32_t)dfv * 16));
    const __m512i xmask = _mm512_set1_epi32((1 << ACROSS_BITS) - 1), ymask = _mm512_set1_epi32((1 << DOWN_BITS) - 1);
    const __m512i xone = _mm512_set1_epi32(1 << ACROSS_BITS), yone = _mm512_set1_epi32(1 << DOWN_BITS);
    const __m512i zero = _mm512_setzero_si512(), mx = _mm512_set1_epi32(maxx), my = _mm512_set1_epi32(maxy);
    const __m512i round = _mm512_set1_epi32(1 << (DOWN_BITS + ACROSS_BITS - 1));
    // A lane's value in each of its four bytes; and the bytes' picks: column +0, +0, +1, +1 of the
    // first table (the top row) and the second (+64: the row below).
    const __m512i spread = _mm512_set4_epi32(0x0c0c0c0c, 0x08080808, 0x04040404, 0), picks = _mm512_set1_epi32(0x41014000);
    int j = 0;
    for (; j < count; j += 16) {
        const int left = count - j, last = left < 16 ? left - 1 : 15;
        const int32_t ua = (int32_t)((uint32_t)fu + (uint32_t)j * (uint32_t)dfu), va = (int32_t)((uint32_t)fv + (uint32_t)j * (uint32_t)dfv);
        int x0, x1, y0, y1;
        group_box(ua, va, dfu, dfv, last, maxx, maxy, &x0, &x1, &y0, &y1);
        if (x1 - x0 > 62 || y1 - y0 > 32) break;
        // The rows of the group after next asked of the caches now: a turned row walks through a
        // tile's rows faster than the hardware's prefetchers follow.
        if (j + 32 < count) {
            int px, px1, py0, py1;
            group_box((int32_t)((uint32_t)ua + 32u * (uint32_t)dfu), (int32_t)((uint32_t)va + 32u * (uint32_t)dfv), dfu, dfv, 15,
                      maxx, maxy, &px, &px1, &py0, &py1);
            for (int y = py0; y <= py1 + 1 && y <= py0 + 33; y++) {
                const char *q = (const char *)src + (ptrdiff_t)y * stride + px;
                _mm_prefetch(q, _MM_HINT_T0);
                _mm_prefetch(q + 63, _MM_HINT_T0);
            }
        }
        const __m512i sx = _mm512_srai_epi32(u, 16), sy = _mm512_srai_epi32(v, 16);
        const __m512i cx = _mm512_min_epi32(_mm512_max_epi32(sx, zero), mx);
        const __m512i cy = _mm512_min_epi32(_mm512_max_epi32(sy, zero), my);
        // Clamped as the scalar path clamps: below 0, weight 0; past the last pair, its right sample.
        __m512i wx = _mm512_and_si512(_mm512_srai_epi32(u, 16 - ACROSS_BITS), xmask);
        __m512i wy = _mm512_and_si512(_mm512_srai_epi32(v, 16 - DOWN_BITS), ymask);
        wx = _mm512_mask_mov_epi32(wx, _mm512_cmplt_epi32_mask(sx, zero), zero);
        wx = _mm512_mask_mov_epi32(wx, _mm512_cmpgt_epi32_mask(sx, mx), xmask);
        wy = _mm512_mask_mov_epi32(wy, _mm512_cmplt_epi32_mask(sy, zero), zero);
        wy = _mm512_mask_mov_epi32(wy, _mm512_cmpgt_epi32_mask(sy, my), ymask);
        // Each byte's pick within its two rows, and its top row (from y0) in all four of a lane's bytes.
        const __m512i picked = _mm512_add_epi8(_mm512_shuffle_epi8(_mm512_sub_epi32(cx, _mm512_set1_epi32(x0)), spread), picks);
        const __m512i rows = _mm512_shuffle_epi8(_mm512_sub_epi32(cy, _mm512_set1_epi32(y0)), spread);
        const int reach = src_width - x0, n = y1 - y0;
        const __mmask64 within = reach >= 64 ? ~(__mmask64)0 : _bzhi_u64(~0ULL, (unsigned)reach);
        const uint8_t *p = src + (ptrdiff_t)y0 * stride + x0;
        // The lanes of top row r: their bytes' picks replaced by the bytes picked; even and odd rows
        // into two registers (two chains of permutes, not one), put together after.
        __m512i here = _mm512_maskz_loadu_epi8(within, p), even = picked, odd = picked;
        int r = 0;
        for (; r < n; r += 2) {
            const __m512i below = _mm512_maskz_loadu_epi8(within, p + (ptrdiff_t)(r + 1) * stride);
            const __m512i after = _mm512_maskz_loadu_epi8(within, p + (ptrdiff_t)(r + 2) * stride);
            even = _mm512_mask2_permutex2var_epi8(here, even, _mm512_cmpeq_epi8_mask(rows, _mm512_set1_epi8((char)r)), below);
            odd = _mm512_mask2_permutex2var_epi8(below, odd, _mm512_cmpeq_epi8_mask(rows, _mm512_set1_epi8((char)(r + 1))), after);
            here = after;
        }
        if (r == n) {
            const __m512i below = _mm512_maskz_loadu_epi8(within, p + (ptrdiff_t)(r + 1) * stride);
            even = _mm512_mask2_permutex2var_epi8(here, even, _mm512_cmpeq_epi8_mask(rows, _mm512_set1_epi8((char)r)), below);
        }
        const __m512i pairs = _mm512_mask_blend_epi8(_mm512_test_epi8_mask(rows, _mm512_set1_epi8(1)), even, odd);
        // Down: bytes (top, bottom) weighted (64 - wy, wy), for the left and the right sample.
        const __m512i wyb = _mm512_or_si512(_mm512_sub_epi32(yone, wy), _mm512_slli_epi32(wy, 8));
        const __m512i words = _mm512_maddubs_epi16(pairs, _mm512_or_si512(wyb, _mm512_slli_epi32(wyb, 16)));
        // Across: words (left, right) weighted (128 - wx, wx).
        const __m512i wxw = _mm512_or_si512(_mm512_sub_epi32(xone, wx), _mm512_slli_epi32(wx, 16));
        const __m512i values = _mm512_srai_epi32(_mm512_add_epi32(_mm512_madd_epi16(words, wxw), round), DOWN_BITS + ACROSS_BITS);
        _mm512_mask_storeu_epi8(out + j, _bzhi_u64(0xffff, (unsigned)(last + 1)),
                                _mm512_castsi128_si512(_mm512_cvtusepi32_epi8(values)));
        u = _mm512_add_epi32(u, du);
        v = _mm512_add_epi32(v, dv);
    }
    return j < count ? j : count;
}
#endif

// Both kernels: `bytes` 4 (BGRA) or 1 (a plane of samples); the tile's pixel 0 is level pixel u0 - border.
// `fill` 0-255: the square's pixels set to it, no tile read (a plane's only).
static int resample_affine(int bytes, int border, int vector, int fill, uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row,
                           int row_begin, int row_end, const uint8_t *src, ptrdiff_t src_stride, int src_width,
                           int src_height, const double inverse[6], double u0, double v0, double u1, double v1) {
    if ((fill < 0 && (src_width < 2 || src_height < 2)) || dst_width <= 0 || row_end <= row_begin) return 1;
    const double ia = inverse[0], ib = inverse[1], ic = inverse[2], id = inverse[3], ie = inverse[4], iff = inverse[5];
    // Positions in 16.16 must stay within the tile's few hundred pixels along a row.
    const double limit = 16384;
    if (fabs(ia) * dst_width > limit || fabs(id) * dst_width > limit) return 0;
    const int32_t dfu = (int32_t)lrint(ia * 65536), dfv = (int32_t)lrint(id * 65536);
    const int maxx = src_width - 2, maxy = src_height - 2;
#if defined(__x86_64__)
    // `vector`: -1 the best this CPU has (or beyond it), 0 plain C, 1 AVX2 (gathers), 2 AVX-512 (permutes, then gathers).
    const int best = maptrip_resample_plane_level();
    const int level = vector < 0 || vector > best ? best : vector;
    const int avx2 = level >= 1 && maptrip_resample_available(), avx512 = level == 2;
#else
    const int avx2 = 0;
#endif
    // Only the rows the square's corners span (the forward map: the inverse of `inverse`).
    const double det = ia * ie - ib * id;
    if (det != 0) {
        double top = INFINITY, bottom = -INFINITY;
        const double us[2] = {u0, u1}, vs[2] = {v0, v1};
        for (int i = 0; i < 4; i++) {
            const double pu = us[i & 1] - ic, pv = vs[i >> 1] - iff;
            const double y = (-id * pu + ia * pv) / det;
            if (y < top) top = y;
            if (y > bottom) bottom = y;
        }
        const double first = floor(top - 1), last = ceil(bottom + 1);
        if (first > row_begin) row_begin = first < row_end ? (int)first : row_end;
        if (last < row_end) row_end = last > row_begin ? (int)last : row_begin;
    }
    for (int r = row_begin; r < row_end; r++) {
        const double y = r + 0.5;
        // Level position of the row's pixel centres: (su + x du, sv + x dv) for column x.
        const double su = ia * 0.5 + ib * y + ic, sv = id * 0.5 + ie * y + iff;
        int a0, a1, b0, b1;
        span_of(su, ia, u0, u1, dst_width, &a0, &a1);
        span_of(sv, id, v0, v1, dst_width, &b0, &b1);
        const int first = a0 > b0 ? a0 : b0, end = a1 < b1 ? a1 : b1;
        if (end <= first) continue;
        if (fill >= 0) {
            memset(dst + (ptrdiff_t)(r - first_row) * dst_stride + first, fill, (size_t)(end - first));
            continue;
        }
        // The tile's pixel 0 is level pixel u0 - border; samples at pixel centres, less a half.
        const double tu = su + first * ia - (u0 - border) - 0.5, tv = sv + first * id - (v0 - border) - 0.5;
        if (fabs(tu) > limit || fabs(tv) > limit) return 0;
        int32_t fu = (int32_t)lrint(tu * 65536), fv = (int32_t)lrint(tv * 65536);
        const int count = end - first;
        int j = 0;
        if (bytes == 4) {
            uint32_t *out = (uint32_t *)(dst + (ptrdiff_t)(r - first_row) * dst_stride) + first;
#if defined(__x86_64__)
            if (avx2) j = span_avx2(out, count, src, src_stride, fu, fv, dfu, dfv, maxx, maxy);
#endif
            for (; j < count; j++) out[j] = sample_scalar(src, src_stride, fu + j * dfu, fv + j * dfv, maxx, maxy);
        } else {
            uint8_t *out = dst + (ptrdiff_t)(r - first_row) * dst_stride + first;
#if defined(__x86_64__)
            if (avx512) j = span_plane_avx512(out, count, src, src_stride, src_width, fu, fv, dfu, dfv, maxx, maxy);
            if (avx2 && j < count) {
                const int32_t ju = (int32_t)((uint32_t)fu + (uint32_t)j * (uint32_t)dfu);
                const int32_t jv = (int32_t)((uint32_t)fv + (uint32_t)j * (uint32_t)dfv);
                j += span_plane_avx2(out + j, count - j, src, src_stride, src_width, ju, jv, dfu, dfv, maxx, maxy);
            }
#endif
            for (; j < count; j++) out[j] = sample_plane_scalar(src, src_stride, fu + j * dfu, fv + j * dfv, maxx, maxy);
        }
    }
    return 1;
}

int maptrip_resample_affine(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                            int row_end, const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                            const double inverse[6], double u0, double v0, double u1, double v1) {
    return resample_affine(4, 1, 1, -1, dst, dst_stride, dst_width, first_row, row_begin, row_end, src, src_stride, src_width,
                           src_height, inverse, u0, v0, u1, v1);
}

int maptrip_resample_affine_plane(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                                  int row_end, const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                                  const double inverse[6], double u0, double v0, double u1, double v1, int border,
                                  int vector) {
    if (border < 0 || border > 16) return 0;
    return resample_affine(1, border, vector, -1, dst, dst_stride, dst_width, first_row, row_begin, row_end, src,
                           src_stride, src_width, src_height, inverse, u0, v0, u1, v1);
}

int maptrip_fill_affine_plane(uint8_t *dst, ptrdiff_t dst_stride, int dst_width, int first_row, int row_begin,
                              int row_end, uint8_t value, const double inverse[6], double u0, double v0, double u1,
                              double v1) {
    return resample_affine(1, 0, 0, value, dst, dst_stride, dst_width, first_row, row_begin, row_end, NULL, 0, 0, 0,
                           inverse, u0, v0, u1, v1);
}
