#include "raster_kernels.h"

#include <string.h>

// A limited-range matrix (`maptrip_yuv_matrix`: BT.601 as libyuv's ARGBToI420, or BT.709), 8-bit
// coefficients out of 256: Y of r, g, b is 16 + (yr r + yg g + yb b) / 256 (601: 66, 129, 25); U and
// V those of a 2x2 block's average. A premultiplied overlay pixel (r, g, b, a) over a picture whose Y
// is Y0 gives
//   Y = (yr r + yg g + yb b) / 256 + 16 a / 255 + (1 - a / 255) Y0,
// since the picture's colour times (1 - a / 255) converts to (1 - a / 255) (Y0 - 16) + 16. U and V:
// the same with the block's sums (its four overlay pixels, their alphas), over the block's U0 and V0.
enum { CHUNK = 16 };  // pixels of a row pair checked for any overlay at once

static inline int row_clear(const uint8_t *p, int pixels) {
    uint64_t any = 0;
    for (int i = 0; i < pixels / 2; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        any |= w;
    }
    return any == 0;
}

// One chunk of a row pair (columns c0 ..< c0 + n, n even): every pixel's Y, every block's U and V.
static inline void blend_chunk(uint8_t *o0, uint8_t *o1, uint8_t *y0, uint8_t *y1, uint8_t *ur, uint8_t *vr, int c0,
                               int n, const maptrip_yuv_matrix *m) {
    for (int c = c0; c < c0 + n; c += 2) {
        const uint8_t *p[4] = {o0 + 4 * c, o0 + 4 * c + 4, o1 + 4 * c, o1 + 4 * c + 4};
        uint8_t *py[4] = {y0 + c, y0 + c + 1, y1 + c, y1 + c + 1};
        int sb = 0, sg = 0, sr = 0, sa = 0;
        for (int k = 0; k < 4; k++) {
            const int b = p[k][0], g = p[k][1], rr = p[k][2], a = p[k][3];
            if ((a | b | g | rr) == 0) continue;
            sb += b;
            sg += g;
            sr += rr;
            sa += a;
            *py[k] = (uint8_t)((*py[k] * (255 - a) * 256 + (m->yr * rr + m->yg * g + m->yb * b) * 255 + 16 * 256 * a +
                                32640) / 65280);
        }
        if ((sa | sb | sg | sr) == 0) continue;
        uint8_t *pu = ur + c / 2, *pv = vr + c / 2;
        *pu = (uint8_t)((*pu * (1020 - sa) * 256 + (m->ub * sb + m->ug * sg + m->ur * sr) * 255 + 128 * 256 * sa +
                         130560) / 261120);
        *pv = (uint8_t)((*pv * (1020 - sa) * 256 + (m->vr * sr + m->vg * sg + m->vb * sb) * 255 + 128 * 256 * sa +
                         130560) / 261120);
    }
}

// Whole chunks of CHUNK pixels done 16 columns a step (nil: by `blend_chunk`, as every partial one).
typedef int (*chunk16_clear_t)(const uint8_t *o0, const uint8_t *o1);
typedef void (*blend_chunk16_t)(const uint8_t *o0, const uint8_t *o1, uint8_t *y0, uint8_t *y1, uint8_t *ur,
                                uint8_t *vr, const maptrip_yuv_matrix *m);

// The walk both blends share: row pairs, chunks of CHUNK pixels, clear chunks skipped, blended ones
// left transparent for the next picture's overlays. Inlined into each caller, so that its vector
// steps (constants there) are inlined in turn.
__attribute__((always_inline))
static inline void blend_walk(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                              ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                              chunk16_clear_t clear16, blend_chunk16_t blend16, const maptrip_yuv_matrix *m) {
    for (int r = 0; r < height; r += 2) {
        uint8_t *o0 = overlay + (ptrdiff_t)r * stride, *o1 = o0 + stride;
        uint8_t *y0 = y + (ptrdiff_t)r * y_stride, *y1 = y0 + y_stride;
        uint8_t *ur = u + (ptrdiff_t)(r / 2) * u_stride, *vr = v + (ptrdiff_t)(r / 2) * v_stride;
        for (int c0 = 0; c0 < width; c0 += CHUNK) {
            const int n = width - c0 < CHUNK ? width - c0 : CHUNK;
            if (blend16 && n == CHUNK) {
                if (clear16(o0 + 4 * c0, o1 + 4 * c0)) continue;
                blend16(o0 + 4 * c0, o1 + 4 * c0, y0 + c0, y1 + c0, ur + c0 / 2, vr + c0 / 2, m);
                // (A constant size: stores in line, not a call.)
                memset(o0 + 4 * c0, 0, 4 * CHUNK);
                memset(o1 + 4 * c0, 0, 4 * CHUNK);
                continue;
            } else {
                if (row_clear(o0 + 4 * c0, n) && row_clear(o1 + 4 * c0, n)) continue;
                blend_chunk(o0, o1, y0, y1, ur, vr, c0, n, m);
            }
            memset(o0 + 4 * c0, 0, 4 * (size_t)n);
            memset(o1 + 4 * c0, 0, 4 * (size_t)n);
        }
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

// floor(t / 255) for 0 <= t <= 65534, in each 32-bit lane.
__attribute__((target("avx2")))
static inline __m256i div255(__m256i t) {
    return _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(t, _mm256_set1_epi32(1)), _mm256_srli_epi32(t, 8)), 8);
}

// The same as `blend_chunk` on 16 columns, 8 pixels a vector, in 32-bit lanes: the same integers,
// divided exactly (x / 65280 = ((x >> 8) / 255), x / 261120 = ((x >> 10) / 255), both quotients' t
// within div255's range for premultiplied pixels). A transparent pixel or block gives back its Y, U
// or V unchanged, as the scalar code's skip does.
__attribute__((target("avx2")))
static inline void blend_chunk16_avx2(const uint8_t *o0, const uint8_t *o1, uint8_t *y0, uint8_t *y1, uint8_t *ur,
                                      uint8_t *vr, const maptrip_yuv_matrix *m) {
    const __m256i m8 = _mm256_set1_epi32(0xff);
    __m256i sb[2], sg[2], sr[2], sa[2];  // per column of 8 pixels: the two rows' channels added
    for (int half = 0; half < 2; half++) {
        sb[half] = sg[half] = sr[half] = sa[half] = _mm256_setzero_si256();
        for (int row = 0; row < 2; row++) {
            const uint8_t *o = (row ? o1 : o0) + 32 * half;
            uint8_t *py = (row ? y1 : y0) + 8 * half;
            const __m256i px = _mm256_loadu_si256((const __m256i *)o);
            const __m256i b = _mm256_and_si256(px, m8), g = _mm256_and_si256(_mm256_srli_epi32(px, 8), m8);
            const __m256i r = _mm256_and_si256(_mm256_srli_epi32(px, 16), m8), a = _mm256_srli_epi32(px, 24);
            const __m256i y = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)py));
            __m256i num = _mm256_slli_epi32(_mm256_mullo_epi32(y, _mm256_sub_epi32(m8, a)), 8);
            const __m256i luma = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(r, _mm256_set1_epi32(m->yr)),
                                                                   _mm256_mullo_epi32(g, _mm256_set1_epi32(m->yg))),
                                                  _mm256_mullo_epi32(b, _mm256_set1_epi32(m->yb)));
            num = _mm256_add_epi32(num, _mm256_mullo_epi32(luma, _mm256_set1_epi32(255)));
            num = _mm256_add_epi32(num, _mm256_add_epi32(_mm256_slli_epi32(a, 12), _mm256_set1_epi32(32640)));
            const __m256i q = div255(_mm256_srli_epi32(num, 8));
            const __m128i q16 = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
            _mm_storel_epi64((__m128i *)py, _mm_packus_epi16(q16, q16));
            sb[half] = _mm256_add_epi32(sb[half], b);
            sg[half] = _mm256_add_epi32(sg[half], g);
            sr[half] = _mm256_add_epi32(sr[half], r);
            sa[half] = _mm256_add_epi32(sa[half], a);
        }
    }
    // Blocks: neighbouring columns added; hadd works within 128-bit lanes, the permute puts the eight
    // blocks in order.
#define BLOCKS(x) _mm256_permute4x64_epi64(_mm256_hadd_epi32(x[0], x[1]), 0xd8)
    const __m256i bb = BLOCKS(sb), bg = BLOCKS(sg), br = BLOCKS(sr), ba = BLOCKS(sa);
#undef BLOCKS
    const __m256i keep = _mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(1020), ba), 8);
    const __m256i bias = _mm256_add_epi32(_mm256_slli_epi32(ba, 15), _mm256_set1_epi32(130560));
    for (int k = 0; k < 2; k++) {
        uint8_t *p = k ? vr : ur;
        const __m256i old = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
        // U: ur r + ug g + ub b; V: vr r + vg g + vb b (signed: 601's U is 112 b - 74 g - 38 r).
        const int cr = k ? m->vr : m->ur, cg = k ? m->vg : m->ug, cb = k ? m->vb : m->ub;
        const __m256i chroma = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(br, _mm256_set1_epi32(cr)),
                                                                 _mm256_mullo_epi32(bg, _mm256_set1_epi32(cg))),
                                                _mm256_mullo_epi32(bb, _mm256_set1_epi32(cb)));
        __m256i num = _mm256_add_epi32(_mm256_mullo_epi32(old, keep), _mm256_mullo_epi32(chroma, _mm256_set1_epi32(255)));
        num = _mm256_add_epi32(num, bias);
        const __m256i q = div255(_mm256_srli_epi32(num, 10));
        const __m128i q16 = _mm_packus_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(q16, q16));
    }
}

__attribute__((target("avx2")))
static inline int chunk16_clear_avx2(const uint8_t *o0, const uint8_t *o1) {
    const __m256i any = _mm256_or_si256(
        _mm256_or_si256(_mm256_loadu_si256((const __m256i *)o0), _mm256_loadu_si256((const __m256i *)(o0 + 32))),
        _mm256_or_si256(_mm256_loadu_si256((const __m256i *)o1), _mm256_loadu_si256((const __m256i *)(o1 + 32))));
    return _mm256_testz_si256(any, any);
}

__attribute__((target("avx2")))
static void blend_avx2(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                       ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                       const maptrip_yuv_matrix *m) {
    blend_walk(overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, chunk16_clear_avx2,
               blend_chunk16_avx2, m);
}
#endif

int maptrip_blend_overlay_i420_reference(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride,
                                         uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width,
                                         int height, const maptrip_yuv_matrix *m) {
    if (width <= 0 || height <= 0 || ((width | height) & 1)) return 0;
    blend_walk(overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, NULL, NULL,
               m ? m : &maptrip_yuv_bt601);
    return 1;
}

#if defined(__x86_64__)
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

// floor(t / 255) for 0 <= t <= 65534, in each 32-bit lane.
AVX512 static inline __m512i div255_512(__m512i t) {
    return _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(t, _mm512_set1_epi32(1)), _mm512_srli_epi32(t, 8)), 8);
}

// The same as `blend_chunk16_avx2`, a row of the chunk (16 pixels) a vector: the same integers. Every
// product is of 16-bit words (vpmaddwd: one instruction, where the 32-bit multiplies were two and
// twice as slow): a pixel's (b, r) and (g, a) words weighted by the matrix's, a sample by 255 - a, a
// block's sums (at most 1020) by the chroma coefficients and by 1020 less its alpha.
AVX512 static inline void blend_chunk16_avx512(const uint8_t *o0, const uint8_t *o1, uint8_t *y0, uint8_t *y1,
                                               uint8_t *ur, uint8_t *vr, const maptrip_yuv_matrix *m) {
    const __m512i low = _mm512_set1_epi32(0x00ff00ff);
    const __m512i ybr = _mm512_set1_epi32((m->yb & 0xffff) | (m->yr << 16)), yg = _mm512_set1_epi32(m->yg & 0xffff);
    __m512i br = _mm512_setzero_si512(), ga = _mm512_setzero_si512();  // the two rows' (b, r) and (g, a) added
    for (int row = 0; row < 2; row++) {
        const __m512i px = _mm512_loadu_si512(row ? o1 : o0);
        uint8_t *py = row ? y1 : y0;
        const __m512i pbr = _mm512_and_si512(px, low), pga = _mm512_and_si512(_mm512_srli_epi32(px, 8), low);
        const __m512i a = _mm512_srli_epi32(px, 24);
        const __m512i luma = _mm512_add_epi32(_mm512_madd_epi16(pbr, ybr), _mm512_madd_epi16(pga, yg));
        const __m512i y = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)py));
        // y (255 - a) 256 + luma 255 + 4096 a + 32640
        __m512i num = _mm512_slli_epi32(_mm512_madd_epi16(y, _mm512_sub_epi32(_mm512_set1_epi32(255), a)), 8);
        num = _mm512_add_epi32(num, _mm512_sub_epi32(_mm512_slli_epi32(luma, 8), luma));
        num = _mm512_add_epi32(num, _mm512_add_epi32(_mm512_slli_epi32(a, 12), _mm512_set1_epi32(32640)));
        _mm_storeu_si128((__m128i *)py, _mm512_cvtusepi32_epi8(div255_512(_mm512_srli_epi32(num, 8))));
        br = _mm512_add_epi32(br, pbr);
        ga = _mm512_add_epi32(ga, pga);
    }
    // Blocks: each even lane plus the odd one after it (words apart, none carrying: at most 1020), the
    // even lanes then taken in order.
    const __m256i bbr = _mm512_cvtepi64_epi32(_mm512_add_epi32(br, _mm512_srli_epi64(br, 32)));
    const __m256i bga = _mm512_cvtepi64_epi32(_mm512_add_epi32(ga, _mm512_srli_epi64(ga, 32)));
    const __m256i ba = _mm256_srli_epi32(bga, 16);
    const __m256i keep = _mm256_sub_epi32(_mm256_set1_epi32(1020), ba);
    const __m256i bias = _mm256_add_epi32(_mm256_slli_epi32(ba, 15), _mm256_set1_epi32(130560));
    const __m256i bg = _mm256_and_si256(bga, _mm256_set1_epi32(0xffff));
    for (int k = 0; k < 2; k++) {
        uint8_t *p = k ? vr : ur;
        const __m256i old = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
        const int cr = k ? m->vr : m->ur, cg = k ? m->vg : m->ug, cb = k ? m->vb : m->ub;
        const __m256i chroma = _mm256_add_epi32(_mm256_madd_epi16(bbr, _mm256_set1_epi32((cb & 0xffff) | (cr << 16))),
                                                _mm256_madd_epi16(bg, _mm256_set1_epi32(cg & 0xffff)));
        // old (1020 - sa) 256 + chroma 255 + 32768 sa + 130560
        __m256i num = _mm256_slli_epi32(_mm256_madd_epi16(old, keep), 8);
        num = _mm256_add_epi32(num, _mm256_sub_epi32(_mm256_slli_epi32(chroma, 8), chroma));
        num = _mm256_add_epi32(num, bias);
        const __m256i t = _mm256_srli_epi32(num, 10);
        const __m256i q = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(t, _mm256_set1_epi32(1)), _mm256_srli_epi32(t, 8)), 8);
        _mm_storel_epi64((__m128i *)p, _mm256_cvtusepi32_epi8(q));
    }
}

AVX512 static inline int chunk16_clear_avx512(const uint8_t *o0, const uint8_t *o1) {
    return _mm512_test_epi64_mask(_mm512_loadu_si512(o0), _mm512_loadu_si512(o0)) == 0 &&
           _mm512_test_epi64_mask(_mm512_loadu_si512(o1), _mm512_loadu_si512(o1)) == 0;
}

AVX512 static void blend_avx512(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                                ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                const maptrip_yuv_matrix *m) {
    blend_walk(overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, chunk16_clear_avx512,
               blend_chunk16_avx512, m);
}

#endif

int maptrip_blend_overlay_i420_at(int level, uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride,
                                  uint8_t *u, ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                                  const maptrip_yuv_matrix *m) {
    if (width <= 0 || height <= 0 || ((width | height) & 1)) return 0;
    if (!m) m = &maptrip_yuv_bt601;
    const int best = maptrip_resample_plane_level();
    if (level > best) level = best;
#if defined(__x86_64__)
    if (level == 2) {
        blend_avx512(overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, m);
        return 1;
    }
    if (level == 1) {
        blend_avx2(overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, m);
        return 1;
    }
#endif
    return maptrip_blend_overlay_i420_reference(overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, m);
}

int maptrip_blend_overlay_i420(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                               ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height,
                               const maptrip_yuv_matrix *m) {
    return maptrip_blend_overlay_i420_at(maptrip_resample_plane_level(), overlay, stride, y, y_stride, u, u_stride, v, v_stride, width, height, m);
}

// A picture over a band, as pixman's OVER with a solid mask: each channel of the source times the
// mask's alpha, then the destination times 255 less the source's alpha, added, every product rounded
// as pixman rounds it (x * a / 255: t = x * a + 128, (t + (t >> 8)) >> 8).
static inline uint32_t mul_un8(uint32_t x, uint32_t a) {
    const uint32_t t = x * a + 128;
    return (t + (t >> 8)) >> 8;
}

static inline uint32_t over1(uint32_t d, uint32_t s, uint32_t alpha) {
    uint32_t out = 0;
    if (alpha < 255) {
        uint32_t scaled = 0;
        for (int k = 0; k < 32; k += 8) scaled |= mul_un8((s >> k) & 0xff, alpha) << k;
        s = scaled;
    }
    const uint32_t ia = 255 - (s >> 24);
    for (int k = 0; k < 32; k += 8) {
        const uint32_t v = ((s >> k) & 0xff) + mul_un8((d >> k) & 0xff, ia);
        out |= (v > 255 ? 255 : v) << k;
    }
    return out;
}

int maptrip_over_bgra_reference(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                                int width, int height, int alpha) {
    if (alpha <= 0) return 1;
    if (alpha > 255) alpha = 255;
    for (int r = 0; r < height; r++) {
        uint32_t *d = (uint32_t *)(dst + (ptrdiff_t)r * dst_stride);
        const uint32_t *s = (const uint32_t *)(src + (ptrdiff_t)r * src_stride);
        for (int x = 0; x < width; x++) {
            if (s[x] == 0) continue;
            d[x] = over1(d[x], s[x], (uint32_t)alpha);
        }
    }
    return 1;
}

#if defined(__x86_64__)
// x * a / 255 in each 16-bit lane, rounded as `mul_un8`.
__attribute__((target("avx2"))) static inline __m256i mul_un8x16(__m256i x, __m256i a) {
    const __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(x, a), _mm256_set1_epi16(128));
    return _mm256_srli_epi16(_mm256_add_epi16(t, _mm256_srli_epi16(t, 8)), 8);
}

// Eight pixels widened to 16 bits (four a lane), over eight: the same integers as `over1`.
__attribute__((target("avx2"))) static inline __m256i over8_16(__m256i d, __m256i s, __m256i alpha, int masked) {
    // Each pixel's alpha (its fourth 16-bit lane) in all four of its lanes.
    const __m256i spread = _mm256_setr_epi8(6, 7, 6, 7, 6, 7, 6, 7, 14, 15, 14, 15, 14, 15, 14, 15,
                                            6, 7, 6, 7, 6, 7, 6, 7, 14, 15, 14, 15, 14, 15, 14, 15);
    if (masked) s = mul_un8x16(s, alpha);
    const __m256i ia = _mm256_sub_epi16(_mm256_set1_epi16(255), _mm256_shuffle_epi8(s, spread));
    return _mm256_add_epi16(s, mul_un8x16(d, ia));
}

__attribute__((target("avx2"))) static void over_bgra_avx2(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                                                          ptrdiff_t src_stride, int width, int height, int alpha) {
    const __m256i a = _mm256_set1_epi16((short)alpha);
    const int masked = alpha < 255;
    for (int r = 0; r < height; r++) {
        uint8_t *d = dst + (ptrdiff_t)r * dst_stride;
        const uint8_t *s = src + (ptrdiff_t)r * src_stride;
        int x = 0;
        for (; x + 8 <= width; x += 8) {
            const __m256i sv = _mm256_loadu_si256((const __m256i *)(s + 4 * x));
            if (_mm256_testz_si256(sv, sv)) continue;  // transparent: the band as it is
            const __m256i dv = _mm256_loadu_si256((const __m256i *)(d + 4 * x));
            const __m256i zero = _mm256_setzero_si256();
            const __m256i lo = over8_16(_mm256_unpacklo_epi8(dv, zero), _mm256_unpacklo_epi8(sv, zero), a, masked);
            const __m256i hi = over8_16(_mm256_unpackhi_epi8(dv, zero), _mm256_unpackhi_epi8(sv, zero), a, masked);
            // packus saturates each sum at 255, as `over1` does.
            _mm256_storeu_si256((__m256i *)(d + 4 * x), _mm256_packus_epi16(lo, hi));
        }
        if (x < width) {
            // The last one to seven pixels, loaded and stored through a mask (the lanes past the row
            // read as transparent, written not at all): a glyph's picture is a dozen or two pixels
            // wide, and pixel by pixel its tail was most of the blend's time.
            const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(width - x), lanes);
            const __m256i sv = _mm256_maskload_epi32((const int *)(s + 4 * x), mask);
            if (!_mm256_testz_si256(sv, sv)) {
                const __m256i dv = _mm256_maskload_epi32((const int *)(d + 4 * x), mask);
                const __m256i zero = _mm256_setzero_si256();
                const __m256i lo = over8_16(_mm256_unpacklo_epi8(dv, zero), _mm256_unpacklo_epi8(sv, zero), a, masked);
                const __m256i hi = over8_16(_mm256_unpackhi_epi8(dv, zero), _mm256_unpackhi_epi8(sv, zero), a, masked);
                _mm256_maskstore_epi32((int *)(d + 4 * x), mask, _mm256_packus_epi16(lo, hi));
            }
        }
    }
}
#endif

#if defined(__x86_64__)
// x * a / 255 in each 16-bit lane, rounded as `mul_un8`.
AVX512 static inline __m512i mul_un8x32(__m512i x, __m512i a) {
    const __m512i t = _mm512_add_epi16(_mm512_mullo_epi16(x, a), _mm512_set1_epi16(128));
    return _mm512_srli_epi16(_mm512_add_epi16(t, _mm512_srli_epi16(t, 8)), 8);
}

// Sixteen pixels widened to 16 bits, over sixteen: the same integers as `over1`.
AVX512 static inline __m512i over16_16(__m512i d, __m512i s, __m512i alpha, int masked) {
    const __m512i spread = _mm512_set4_epi32(0x0f0e0f0e, 0x0f0e0f0e, 0x07060706, 0x07060706);
    if (masked) s = mul_un8x32(s, alpha);
    const __m512i ia = _mm512_sub_epi16(_mm512_set1_epi16(255), _mm512_shuffle_epi8(s, spread));
    return _mm512_add_epi16(s, mul_un8x32(d, ia));
}

// `over_bgra_avx2` sixteen pixels a vector, a row's last ones through a mask (a glyph's picture is a
// dozen or two pixels wide: most rows are one or two vectors).
AVX512 static void over_bgra_avx512(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                                    int width, int height, int alpha) {
    const __m512i a = _mm512_set1_epi16((short)alpha), zero = _mm512_setzero_si512();
    const int masked = alpha < 255;
    for (int r = 0; r < height; r++) {
        uint8_t *d = dst + (ptrdiff_t)r * dst_stride;
        const uint8_t *s = src + (ptrdiff_t)r * src_stride;
        for (int x = 0; x < width; x += 16) {
            const __mmask16 lanes = width - x >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (width - x)) - 1);
            const __m512i sv = _mm512_maskz_loadu_epi32(lanes, s + 4 * x);
            if (_mm512_test_epi64_mask(sv, sv) == 0) continue;  // transparent: the band as it is
            const __m512i dv = _mm512_maskz_loadu_epi32(lanes, d + 4 * x);
            const __m512i lo = over16_16(_mm512_unpacklo_epi8(dv, zero), _mm512_unpacklo_epi8(sv, zero), a, masked);
            const __m512i hi = over16_16(_mm512_unpackhi_epi8(dv, zero), _mm512_unpackhi_epi8(sv, zero), a, masked);
            // packus saturates each sum at 255, as `over1` does.
            _mm512_mask_storeu_epi32(d + 4 * x, lanes, _mm512_packus_epi16(lo, hi));
        }
    }
}
#endif

int maptrip_over_bgra_at(int level, uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                         int width, int height, int alpha) {
    if (alpha <= 0 || width <= 0 || height <= 0) return 1;
    if (alpha > 255) alpha = 255;
    const int best = maptrip_resample_plane_level();
    if (level > best) level = best;
#if defined(__x86_64__)
    if (level == 2) {
        over_bgra_avx512(dst, dst_stride, src, src_stride, width, height, alpha);
        return 1;
    }
    if (level == 1) {
        over_bgra_avx2(dst, dst_stride, src, src_stride, width, height, alpha);
        return 1;
    }
#endif
    return maptrip_over_bgra_reference(dst, dst_stride, src, src_stride, width, height, alpha);
}

int maptrip_over_bgra(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride, int width,
                      int height, int alpha) {
    return maptrip_over_bgra_at(maptrip_resample_plane_level(), dst, dst_stride, src, src_stride, width, height, alpha);
}
