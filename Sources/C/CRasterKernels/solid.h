#pragma once
// A solid colour composited over premultiplied BGRA (Cairo's ARGB32) at a cover of 0...255 per pixel,
// as pixman's OVER with an A8 mask does: the colour times the cover, then over what is there. Shared by
// maptrip's own stroker (stroke.c) and filler (fill.c).
#include <math.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>

/// A colour premultiplied, each channel 0...255.
typedef struct {
    uint32_t sa, sr, sg, sb;
} solid_t;

/// From straight red, green, blue and alpha, 0...1 (clamped).
static inline solid_t solid_from(const double *rgba) {
    const float a255 = (float)(fmin(fmax(rgba[3], 0), 1) * 255);
    solid_t s;
    s.sa = (uint32_t)lrintf(a255);
    s.sr = (uint32_t)lrintf((float)fmin(fmax(rgba[0], 0), 1) * a255);
    s.sg = (uint32_t)lrintf((float)fmin(fmax(rgba[1], 0), 1) * a255);
    s.sb = (uint32_t)lrintf((float)fmin(fmax(rgba[2], 0), 1) * a255);
    return s;
}

static inline uint32_t div255(uint32_t v) { v += 128; return (v + (v >> 8)) >> 8; }

/// The colour at cover `m` over one pixel `px`.
static inline uint32_t solid_over1(uint32_t px, uint32_t m, solid_t c) {
    const uint32_t a = div255(c.sa * m), ia = 255 - a;
    const uint32_t b0 = div255(c.sb * m) + div255((px & 0xff) * ia);
    const uint32_t g0 = div255(c.sg * m) + div255(((px >> 8) & 0xff) * ia);
    const uint32_t r0 = div255(c.sr * m) + div255(((px >> 16) & 0xff) * ia);
    const uint32_t a0 = a + div255((px >> 24) * ia);
    return b0 | (g0 << 8) | (r0 << 16) | (a0 << 24);
}

/// Colours for eight pixels, for `solid_over8`: each pixel's premultiplied channels (B, G, R, A) as
/// 16-bit lanes, laid out as `_mm256_unpacklo_epi8` (`lo`) and `_mm256_unpackhi_epi8` (`hi`) spread
/// eight BGRA pixels.
typedef struct {
    __m256i lo, hi;
} solid8_t;

/// One colour for all eight pixels.
__attribute__((target("avx2"))) static inline solid8_t solid8_from(solid_t c) {
    const __m256i v = _mm256_setr_epi16((short)c.sb, (short)c.sg, (short)c.sr, (short)c.sa, (short)c.sb, (short)c.sg,
                                        (short)c.sr, (short)c.sa, (short)c.sb, (short)c.sg, (short)c.sr, (short)c.sa,
                                        (short)c.sb, (short)c.sg, (short)c.sr, (short)c.sa);
    solid8_t s = {v, v};
    return s;
}

/// Eight colours, premultiplied BGRA pixels (as `solid_t` packs them).
__attribute__((target("avx2"))) static inline solid8_t solid8_of(__m256i colours) {
    const __m256i zero = _mm256_setzero_si256();
    solid8_t s = {_mm256_unpacklo_epi8(colours, zero), _mm256_unpackhi_epi8(colours, zero)};
    return s;
}

/// `div255` in 16-bit lanes, for values up to 255 * 255.
__attribute__((target("avx2"))) static inline __m256i div255_16(__m256i v) {
    v = _mm256_add_epi16(v, _mm256_set1_epi16(128));
    return _mm256_srli_epi16(_mm256_add_epi16(v, _mm256_srli_epi16(v, 8)), 8);
}

/// `solid_over1` for four pixels in 16-bit lanes: their channels `px`, covers `m` and colours `c`.
__attribute__((target("avx2"))) static inline __m256i solid_over4(__m256i px, __m256i m, __m256i c) {
    const __m256i cm = div255_16(_mm256_mullo_epi16(c, m));
    // 255 less each pixel's alpha (its fourth lane), in all four of its lanes.
    const __m256i ia = _mm256_sub_epi16(_mm256_set1_epi16(255), _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(cm, 0xff), 0xff));
    return _mm256_add_epi16(cm, div255_16(_mm256_mullo_epi16(px, ia)));
}

/// Eight pixels `px` at covers `m` (eight 32-bit lanes, 0...255): `solid_over1` lane by lane. In 16-bit
/// lanes (every product is at most 255 * 255, and `div255`'s sums stay below 65536): the same bytes as
/// 32-bit lanes give, without their nine 32-bit multiplies (most of the stroker's compositing).
__attribute__((target("avx2"))) static inline __m256i solid_over8(__m256i px, __m256i m, solid8_t c) {
    const __m256i zero = _mm256_setzero_si256();
    // Each pixel's cover in its four channels' lanes: pixels 0, 1 (4, 5) of each 128-bit lane, then 2, 3 (6, 7).
    const __m256i spread_lo = _mm256_setr_epi8(0, -1, 0, -1, 0, -1, 0, -1, 4, -1, 4, -1, 4, -1, 4, -1,
                                               0, -1, 0, -1, 0, -1, 0, -1, 4, -1, 4, -1, 4, -1, 4, -1);
    const __m256i spread_hi = _mm256_setr_epi8(8, -1, 8, -1, 8, -1, 8, -1, 12, -1, 12, -1, 12, -1, 12, -1,
                                               8, -1, 8, -1, 8, -1, 8, -1, 12, -1, 12, -1, 12, -1, 12, -1);
    return _mm256_packus_epi16(solid_over4(_mm256_unpacklo_epi8(px, zero), _mm256_shuffle_epi8(m, spread_lo), c.lo),
                               solid_over4(_mm256_unpackhi_epi8(px, zero), _mm256_shuffle_epi8(m, spread_hi), c.hi));
}

#endif
