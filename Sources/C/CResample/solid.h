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

/// The same colour's channels, each in every lane, for `solid_over8`.
typedef struct {
    __m256i sa, sr, sg, sb;
} solid8_t;

__attribute__((target("avx2"))) static inline solid8_t solid8_from(solid_t c) {
    solid8_t s;
    s.sa = _mm256_set1_epi32((int)c.sa);
    s.sr = _mm256_set1_epi32((int)c.sr);
    s.sg = _mm256_set1_epi32((int)c.sg);
    s.sb = _mm256_set1_epi32((int)c.sb);
    return s;
}

/// Eight pixels `px` at covers `m` (eight 32-bit lanes, 0...255): `solid_over1` lane by lane.
__attribute__((target("avx2"))) static inline __m256i solid_over8(__m256i px, __m256i m, solid8_t c) {
    const __m256i c128 = _mm256_set1_epi32(128), c255 = _mm256_set1_epi32(255), lo8 = _mm256_set1_epi32(0xff);
#define DIV255(v) _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32((v), c128), _mm256_srli_epi32(_mm256_add_epi32((v), c128), 8)), 8)
    const __m256i a = DIV255(_mm256_mullo_epi32(c.sa, m)), ia = _mm256_sub_epi32(c255, a);
    const __m256i b0 = _mm256_add_epi32(DIV255(_mm256_mullo_epi32(c.sb, m)), DIV255(_mm256_mullo_epi32(_mm256_and_si256(px, lo8), ia)));
    const __m256i g0 = _mm256_add_epi32(DIV255(_mm256_mullo_epi32(c.sg, m)), DIV255(_mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(px, 8), lo8), ia)));
    const __m256i r0 = _mm256_add_epi32(DIV255(_mm256_mullo_epi32(c.sr, m)), DIV255(_mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(px, 16), lo8), ia)));
    const __m256i a0 = _mm256_add_epi32(a, DIV255(_mm256_mullo_epi32(_mm256_srli_epi32(px, 24), ia)));
#undef DIV255
    return _mm256_or_si256(_mm256_or_si256(b0, _mm256_slli_epi32(g0, 8)),
                           _mm256_or_si256(_mm256_slli_epi32(r0, 16), _mm256_slli_epi32(a0, 24)));
}

#endif
