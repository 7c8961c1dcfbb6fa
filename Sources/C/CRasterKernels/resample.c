#include "raster_kernels.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

int maptrip_resample_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

static inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// What both kernels can do: a CPU with AVX2; every position, and the vector loop's `step` pixels past
// the width, within 16.16 fixed point's 2^14 pixels; neighbours two source columns apart at most.
static int fits(int width, int height, int src_width, int src_height, int32_t x0, int32_t y0, int32_t dx,
                int32_t dy, int step) {
    if (!maptrip_resample_available() || dx <= 0 || dx > 2 * 65536 || src_width <= 0 || src_height <= 0) return 0;
    const int64_t limit = (int64_t)1 << 30;
    const int64_t x_end = (int64_t)x0 + (int64_t)(width + step) * dx, y_end = (int64_t)y0 + (int64_t)height * dy;
    return !(x0 < -limit || x_end > limit || y0 < -limit || y0 > limit || y_end < -limit || y_end > limit);
}

// Source columns read: first ... last (the last one only as a right neighbour), for the pixels rounded
// up to a multiple of `step` (`padded`): the last step is resampled whole, and as many kept as fit.
static void columns_read(int width, int step, int32_t x0, int32_t dx, int *padded, int *first, int *last) {
    *padded = (width + step - 1) / step * step;
    *first = x0 >> 16;
    *last = (int)(((int64_t)x0 + (int64_t)(*padded - 1) * dx) >> 16) + 1;
}

// Weights have 6 bits (64 - f and f): pmaddubsw takes them as signed bytes, and 64 fits.
enum { WEIGHT_BITS = 6, WEIGHT_ONE = 1 << WEIGHT_BITS };

// The row eight below row `r` (`bytes` from `d` one row down each `stride`), asked for to be written
// (PREFETCHW): its lines come from memory (the frame was last read by the encoder frames ago) while
// the rows above it are resampled, not when they are stored, the stores waiting on them. Whole render
// of the world tour at `ultrafast`: the plane kernel's share of the CPU samples 950 -> 750.
__attribute__((target("prfchw")))
static inline void prefetch_row_for_writing(uint8_t *d, ptrdiff_t stride, int r, int height, int bytes) {
    if (r + 8 >= height) return;
    const uint8_t *ahead = d + 8 * stride;
    for (int c = 0; c < bytes; c += 64) __builtin_prefetch(ahead + c, 1, 3);
    __builtin_prefetch(ahead + bytes - 1, 1, 3);
}

// Down: `count` bytes of two source rows blended (`wy` of 64 on the bottom one), 32 at a time, whatever
// they hold (BGRA pixels or samples). The row twelve below is prefetched for the rows to come: the
// tiles are read from memory, not cache (two rows ahead -> twelve: the plane kernel's samples in a
// render 750 -> 665).
__attribute__((target("avx2")))
static inline void blend_rows(uint8_t *out, const uint8_t *top, const uint8_t *bottom, ptrdiff_t src_stride,
                              int count, int wy) {
    const __m256i half = _mm256_set1_epi16(1 << (15 - WEIGHT_BITS));  // pmulhrsw: (v + 32) >> 6
    const __m256i wv = _mm256_set1_epi16((short)(((wy & 0xff) << 8) | (WEIGHT_ONE - wy)));
    int c = 0;
    for (; c + 32 <= count; c += 32) {
        if ((c & 63) == 0) _mm_prefetch((const char *)(bottom + 12 * src_stride + c), _MM_HINT_T0);
        const __m256i t = _mm256_loadu_si256((const __m256i *)(top + c));
        const __m256i u = _mm256_loadu_si256((const __m256i *)(bottom + c));
        const __m256i lo = _mm256_mulhrs_epi16(_mm256_maddubs_epi16(_mm256_unpacklo_epi8(t, u), wv), half);
        const __m256i hi = _mm256_mulhrs_epi16(_mm256_maddubs_epi16(_mm256_unpackhi_epi8(t, u), wv), half);
        _mm256_storeu_si256((__m256i *)(out + c), _mm256_packus_epi16(lo, hi));
    }
    for (; c < count; c++) {
        out[c] = (uint8_t)((top[c] * (WEIGHT_ONE - wy) + bottom[c] * wy + WEIGHT_ONE / 2) >> WEIGHT_BITS);
    }
}

// The blended row of source columns first ... last (`bpp` bytes each) at `row`: the columns within the
// source blended from its two rows, those beside it repeating its edge column (pixman's EXTEND_PAD),
// also when the whole row lies beside it.
__attribute__((target("avx2")))
static inline void blend_padded_row(uint8_t *row, int first, int last, const uint8_t *top, const uint8_t *bottom,
                                    ptrdiff_t src_stride, int src_width, int bpp, int wy) {
    const int lo = first > 0 ? first : 0, hi = last < src_width - 1 ? last : src_width - 1;
    int left, right;  // the columns whose bytes repeat to the left and to the right
    if (lo <= hi) {
        blend_rows(row + bpp * (lo - first), top + bpp * lo, bottom + bpp * lo, src_stride, bpp * (hi - lo + 1), wy);
        left = lo;
        right = hi;
    } else {
        // Wholly beside the source: its nearest edge column, blended into the row's first column.
        const int edge = last < 0 ? 0 : src_width - 1;
        blend_rows(row, top + bpp * edge, bottom + bpp * edge, src_stride, bpp, wy);
        left = right = first;
    }
    if (bpp == 1) {
        if (first < left) memset(row, row[left - first], (size_t)(left - first));
        if (right < last) memset(row + (right + 1 - first), row[right - first], (size_t)(last - right));
    } else {
        for (int p = first; p < left; p++) memcpy(row + bpp * (p - first), row + bpp * (left - first), (size_t)bpp);
        for (int p = right + 1; p <= last; p++) memcpy(row + bpp * (p - first), row + bpp * (right - first), (size_t)bpp);
    }
}

// How each pair of output pixels (j, j + 1) reads the blended row: from the 4 pixels at `offset`, the
// bytes `control` picks (each channel's left and right neighbour side by side, for both pixels), times
// `weights` (64 - f, f per channel).
typedef struct {
    int32_t offset;
    uint8_t control[16];
    int8_t weights[16];
} pair_t;

__attribute__((target("avx2,prfchw")))
static void resample_avx2(uint8_t *dst, ptrdiff_t dst_stride, int width, int padded, int height,
                          const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                          int32_t x0, int32_t y0, int32_t dx, int32_t dy, int first, int last,
                          uint8_t *row, pair_t *pairs) {
    // `padded`: the width rounded up to eight; `first` ... `last`: the source columns those pixels read.
    // Every row samples the same columns: how to read them, once.
    const int npairs = padded / 2;
    for (int g = 0; g < npairs; g++) {
        int32_t xl = x0 + 2 * g * dx, xr = xl + dx;
        int il = (xl >> 16) - first, d = (xr >> 16) - (xl >> 16);
        int fl = (xl >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1), fr = (xr >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1);
        pair_t *p = &pairs[g];
        p->offset = 4 * il;
        for (int c = 0; c < 4; c++) {
            p->control[2 * c] = (uint8_t)c;
            p->control[2 * c + 1] = (uint8_t)(4 + c);
            p->control[8 + 2 * c] = (uint8_t)(4 * d + c);
            p->control[8 + 2 * c + 1] = (uint8_t)(4 * d + 4 + c);
            p->weights[2 * c] = (int8_t)(WEIGHT_ONE - fl);
            p->weights[2 * c + 1] = (int8_t)fl;
            p->weights[8 + 2 * c] = (int8_t)(WEIGHT_ONE - fr);
            p->weights[8 + 2 * c + 1] = (int8_t)fr;
        }
    }
    const __m256i half = _mm256_set1_epi16(1 << (15 - WEIGHT_BITS));  // pmulhrsw: (v + 32) >> 6
    for (int r = 0; r < height; r++) {
        const int32_t y = y0 + r * dy;
        const int iy = y >> 16, wy = (y >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1);
        const uint8_t *top = src + (ptrdiff_t)clamp_int(iy, 0, src_height - 1) * src_stride;
        const uint8_t *bottom = src + (ptrdiff_t)clamp_int(iy + 1, 0, src_height - 1) * src_stride;
        // The two rows blended, the columns beside the source padded.
        blend_padded_row(row, first, last, top, bottom, src_stride, src_width, 4, wy);

        // Across: eight pixels (four pairs) at a time; the last eight into `tail`, as many kept as fit.
        uint8_t *d = dst + (ptrdiff_t)r * dst_stride;
        prefetch_row_for_writing(d, dst_stride, r, height, 4 * width);
        for (int g = 0; g < npairs; g += 4) {
            const pair_t *p = &pairs[g];
#define MAPTRIP_TWO_PAIRS(p0, p1)                                                                            \
    _mm256_mulhrs_epi16(                                                                                     \
        _mm256_maddubs_epi16(                                                                                \
            _mm256_shuffle_epi8(                                                                             \
                _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(row + (p0).offset))), \
                                        _mm_loadu_si128((const __m128i *)(row + (p1).offset)), 1),          \
                _mm256_setr_m128i(_mm_loadu_si128((const __m128i *)(p0).control),                            \
                                  _mm_loadu_si128((const __m128i *)(p1).control))),                          \
            _mm256_setr_m128i(_mm_loadu_si128((const __m128i *)(p0).weights),                                \
                              _mm_loadu_si128((const __m128i *)(p1).weights))),                              \
        half)
            const __m256i q01 = MAPTRIP_TWO_PAIRS(p[0], p[1]);
            const __m256i q23 = MAPTRIP_TWO_PAIRS(p[2], p[3]);
#undef MAPTRIP_TWO_PAIRS
            // Lanes: (pixels 0 1, 4 5) and (2 3, 6 7): put them in order.
            const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(q01, q23), 0xd8);
            const int j = 2 * g;
            if (j + 8 <= width) {
                _mm256_storeu_si256((__m256i *)(d + 4 * j), packed);
            } else {
                uint8_t tail[32];
                _mm256_storeu_si256((__m256i *)tail, packed);
                memcpy(d + 4 * j, tail, 4 * (size_t)(width - j));
            }
        }
    }
}

int maptrip_resample_bilinear(uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                              const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                              int32_t x0, int32_t y0, int32_t dx, int32_t dy) {
    if (width <= 0 || height <= 0) return 1;
    // A pair of pixels reads within 4 source pixels; the vector loop resamples eight at a time.
    if (!fits(width, height, src_width, src_height, x0, y0, dx, dy, 8)) return 0;
    int padded, first, last;
    columns_read(width, 8, x0, dx, &padded, &first, &last);
    // The blended row (with room for 16-byte reads past its end), then the columns' reading plan.
    const size_t row_bytes = (4 * ((size_t)(last - first + 1) + 8) + 15) & ~(size_t)15;
    const size_t bytes = row_bytes + sizeof(pair_t) * (size_t)(padded / 2);
    _Alignas(16) uint8_t local[4 * 1100 + sizeof(pair_t) * 600];
    uint8_t *memory = bytes <= sizeof local ? local : malloc(bytes);
    if (!memory) return 0;
    resample_avx2(dst, dst_stride, width, padded, height, src, src_stride, src_width, src_height, x0, y0, dx, dy,
                  first, last, memory, (pair_t *)(memory + row_bytes));
    if (memory != local) free(memory);
    return 1;
}

// One plane (8-bit samples: a YUV frame's Y, U or V): the same separable scheme. Down: each row blends
// its two source rows, 32 samples at a time (the same bytes as four BGRA pixels). Across: sixteen
// samples per vector, eight per 128-bit lane, each lane reading the 16 bytes from its first sample's
// left neighbour on (eight samples at most 2 apart span at most 16 bytes), by a plan made once per call.
typedef struct {
    int32_t offset[2];
    uint8_t control[32];
    int8_t weights[32];
} run16_t;

// The AVX2 kernel's plan of a call's columns: each run of 16 samples' offsets, indices and weights.
static void plan_avx2(run16_t *runs, int padded, int32_t x0, int32_t dx, int first) {
    const int nruns = padded / 16;
    for (int g = 0; g < nruns; g++) {
        run16_t *p = &runs[g];
        for (int lane = 0; lane < 2; lane++) {
            const int j0 = 16 * g + 8 * lane;
            const int32_t base = (x0 + j0 * dx) >> 16;
            p->offset[lane] = base - first;
            for (int k = 0; k < 8; k++) {
                const int32_t x = x0 + (j0 + k) * dx;
                const int i = (x >> 16) - base, f = (x >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1);
                p->control[16 * lane + 2 * k] = (uint8_t)i;
                p->control[16 * lane + 2 * k + 1] = (uint8_t)(i + 1);
                p->weights[16 * lane + 2 * k] = (int8_t)(WEIGHT_ONE - f);
                p->weights[16 * lane + 2 * k + 1] = (int8_t)f;
            }
        }
    }
}

__attribute__((target("avx2,prfchw")))
static void resample_plane_avx2(uint8_t *dst, ptrdiff_t dst_stride, int width, int padded, int height,
                                const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                                int32_t y0, int32_t dy, int first, int last, uint8_t *row, const run16_t *runs) {
    const int nruns = padded / 16;
    const __m256i half = _mm256_set1_epi16(1 << (15 - WEIGHT_BITS));
    for (int r = 0; r < height; r++) {
        const int32_t y = y0 + r * dy;
        const int iy = y >> 16, wy = (y >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1);
        const uint8_t *top = src + (ptrdiff_t)clamp_int(iy, 0, src_height - 1) * src_stride;
        const uint8_t *bottom = src + (ptrdiff_t)clamp_int(iy + 1, 0, src_height - 1) * src_stride;
        blend_padded_row(row, first, last, top, bottom, src_stride, src_width, 1, wy);

        uint8_t *d = dst + (ptrdiff_t)r * dst_stride;
        prefetch_row_for_writing(d, dst_stride, r, height, width);
        for (int g = 0; g < nruns; g += 2) {
            const run16_t *p = &runs[g], *q = &runs[g + 1];
            const __m256i s0 = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(row + p->offset[0]))),
                _mm_loadu_si128((const __m128i *)(row + p->offset[1])), 1);
            const __m256i s1 = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(row + q->offset[0]))),
                _mm_loadu_si128((const __m128i *)(row + q->offset[1])), 1);
            const __m256i v0 = _mm256_mulhrs_epi16(_mm256_maddubs_epi16(
                _mm256_shuffle_epi8(s0, _mm256_loadu_si256((const __m256i *)p->control)),
                _mm256_loadu_si256((const __m256i *)p->weights)), half);
            const __m256i v1 = _mm256_mulhrs_epi16(_mm256_maddubs_epi16(
                _mm256_shuffle_epi8(s1, _mm256_loadu_si256((const __m256i *)q->control)),
                _mm256_loadu_si256((const __m256i *)q->weights)), half);
            // Lanes: (0-7, 16-23) and (8-15, 24-31): put them in order.
            const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(v0, v1), 0xd8);
            const int j = 16 * g;
            if (j + 32 <= width) {
                _mm256_storeu_si256((__m256i *)(d + j), packed);
            } else {
                uint8_t tail[32];
                _mm256_storeu_si256((__m256i *)tail, packed);
                memcpy(d + j, tail, (size_t)(width - j));
            }
        }
    }
}

// The same on AVX-512 (F, BW and VBMI: Zen 4 and later, Intel's since Ice Lake), without reading back
// what was just written at another size: on AMD's cores a load spanning two earlier stores, or reading
// from a masked one, waits for them to reach the cache instead of taking their bytes (the AVX2 kernel's
// row re-reads took a third of its time there). Each row's source columns are blended down 64 at a time
// into whole, aligned 64-byte chunks; across, each run of 32 samples picks its samples' two neighbours
// from two neighbouring chunks with one two-register byte permute (vpermt2b), by indices clamped to the
// source's columns (pixman's EXTEND_PAD, with no padding written): 32 samples at most 2 apart span at
// most 64 bytes, so within 128 from their chunk's start. The same arithmetic as the AVX2 kernel, so the
// same bytes.
typedef struct {
    _Alignas(64) uint8_t control[64];
    int8_t weights[64];
    int32_t chunk;
} run32_t;

// The AVX-512 kernel's plan of a call's columns: each run of 32 samples' chunk, indices and weights.
static void plan_avx512(run32_t *runs, int padded, int32_t x0, int32_t dx, int src_width, int first) {
    const int c0 = clamp_int(first, 0, src_width - 1);
    const int nruns = padded / 32;
    for (int g = 0; g < nruns; g++) {
        run32_t *p = &runs[g];
        const int base = clamp_int((x0 + 32 * g * dx) >> 16, 0, src_width - 1) - c0;
        p->chunk = base >> 6;
        for (int k = 0; k < 32; k++) {
            const int32_t x = x0 + (32 * g + k) * dx;
            const int i = x >> 16, f = (x >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1);
            p->control[2 * k] = (uint8_t)(clamp_int(i, 0, src_width - 1) - c0 - 64 * p->chunk);
            p->control[2 * k + 1] = (uint8_t)(clamp_int(i + 1, 0, src_width - 1) - c0 - 64 * p->chunk);
            p->weights[2 * k] = (int8_t)(WEIGHT_ONE - f);
            p->weights[2 * k + 1] = (int8_t)f;
        }
    }
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,prfchw")))
static void resample_plane_avx512(uint8_t *dst, ptrdiff_t dst_stride, int width, int padded, int height,
                                  const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                                  int32_t y0, int32_t dy, int first, int last, __m512i *chunks, const run32_t *runs) {
    // Source columns c0 ... c1 are blended (those the clamped indices reach), into nchunks chunks.
    const int c0 = clamp_int(first, 0, src_width - 1), c1 = clamp_int(last, 0, src_width - 1);
    const int ncols = c1 - c0 + 1, nchunks = (ncols + 63) / 64;
    const int nruns = padded / 32;
    // The chunk after the last, read by runs whose indices stay within the one before: defined bytes.
    chunks[nchunks] = _mm512_setzero_si512();
    const __m512i half = _mm512_set1_epi16(1 << (15 - WEIGHT_BITS));
    // packus interleaves the two runs' eight-sample groups by lane: qwords 0 2 4 6 are the first run's.
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    const __mmask64 tail = ncols % 64 ? ((__mmask64)1 << (ncols % 64)) - 1 : ~(__mmask64)0;
    for (int r = 0; r < height; r++) {
        const int32_t y = y0 + r * dy;
        const int iy = y >> 16, wy = (y >> (16 - WEIGHT_BITS)) & (WEIGHT_ONE - 1);
        const uint8_t *top = src + (ptrdiff_t)clamp_int(iy, 0, src_height - 1) * src_stride + c0;
        const uint8_t *bottom = src + (ptrdiff_t)clamp_int(iy + 1, 0, src_height - 1) * src_stride + c0;
        const __m512i wv = _mm512_set1_epi16((short)(((wy & 0xff) << 8) | (WEIGHT_ONE - wy)));
        for (int c = 0; c < nchunks; c++) {
            // 24 rows ahead (12: the AVX2 kernel's; here the kernel's samples in 3 renders, alternated:
            // 4 rows 1703-1779, 12 1577-1583, 24 1505-1649, 36 1637-1742, 64 1781-1843).
            _mm_prefetch((const char *)(bottom + 24 * src_stride + 64 * c), _MM_HINT_T0);
            // Plain loads but for the last chunk (a masked load is slower on some cores even unmasked).
            const int whole = c + 1 < nchunks;
            const __m512i t = whole ? _mm512_loadu_si512(top + 64 * c) : _mm512_maskz_loadu_epi8(tail, top + 64 * c);
            const __m512i u = whole ? _mm512_loadu_si512(bottom + 64 * c) : _mm512_maskz_loadu_epi8(tail, bottom + 64 * c);
            const __m512i lo = _mm512_mulhrs_epi16(_mm512_maddubs_epi16(_mm512_unpacklo_epi8(t, u), wv), half);
            const __m512i hi = _mm512_mulhrs_epi16(_mm512_maddubs_epi16(_mm512_unpackhi_epi8(t, u), wv), half);
            _mm512_store_si512(&chunks[c], _mm512_packus_epi16(lo, hi));
        }

        uint8_t *d = dst + (ptrdiff_t)r * dst_stride;
        prefetch_row_for_writing(d, dst_stride, r, height, width);
        for (int g = 0; g < nruns; g += 2) {
            const run32_t *p = &runs[g], *q = &runs[g + 1];
            const __m512i v0 = _mm512_mulhrs_epi16(_mm512_maddubs_epi16(
                _mm512_permutex2var_epi8(chunks[p->chunk], _mm512_load_si512(p->control), chunks[p->chunk + 1]),
                _mm512_load_si512(p->weights)), half);
            const __m512i v1 = _mm512_mulhrs_epi16(_mm512_maddubs_epi16(
                _mm512_permutex2var_epi8(chunks[q->chunk], _mm512_load_si512(q->control), chunks[q->chunk + 1]),
                _mm512_load_si512(q->weights)), half);
            const __m512i packed = _mm512_permutexvar_epi64(order, _mm512_packus_epi16(v0, v1));
            const int j = 32 * g;
            if (j + 64 <= width) {
                _mm512_storeu_si512(d + j, packed);
            } else {
                _mm512_mask_storeu_epi8(d + j, ((__mmask64)1 << (width - j)) - 1, packed);
            }
        }
    }
}

// The plan of the last call on this thread, kept for the next with the same columns (a plan depends
// only on them): the tiles of one column of a frame share it, their calls differing only in rows. No
// plan kept yet: the key as the thread starts, all zero, which no call's matches (its level is 1 or 2).
typedef struct {
    int level, padded, src_width, first;
    int32_t x0, dx;
} plan_key_t;
static _Thread_local plan_key_t kept_plan_key;
static _Thread_local _Alignas(64) uint8_t kept_plan[sizeof(run32_t) * 40];

// The AVX-512 every kernel's level 2 takes: the byte permutes (VBMI) the plane kernels use, and the
// 256-bit forms (VL) and quadword conversions (DQ) the overlay blend uses (every CPU with VBMI has both).
static int avx512_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq");
}

int maptrip_resample_plane_level(void) {
    return avx512_available() ? 2 : (maptrip_resample_available() ? 1 : 0);
}

int maptrip_resample_plane_at(int level, uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                              const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                              int32_t x0, int32_t y0, int32_t dx, int32_t dy) {
    if (width <= 0 || height <= 0) return 1;
    if (level > maptrip_resample_plane_level() || level < 1) return 0;
    // AVX2: eight samples of a lane read 16 bytes at most, 32 resampled a step. AVX-512: 32 samples
    // read 64 bytes at most, 64 a step.
    const int step = level == 2 ? 64 : 32;
    if (!fits(width, height, src_width, src_height, x0, y0, dx, dy, step)) return 0;
    int padded, first, last;
    columns_read(width, step, x0, dx, &padded, &first, &last);
    // The blended row (with room for the widest read from its last run's offset), then the plan, if
    // it is not the one this thread keeps.
    const size_t row_bytes = ((size_t)(last - first + 1) + 2 * 64) & ~(size_t)63;
    const size_t plan_bytes = level == 2 ? sizeof(run32_t) * (size_t)(padded / 32) : sizeof(run16_t) * (size_t)(padded / 16);
    const int keeps = plan_bytes <= sizeof kept_plan;
    const size_t bytes = row_bytes + (keeps ? 0 : plan_bytes);
    _Alignas(64) uint8_t local[1100 + 128 + sizeof(run32_t) * 36];
    uint8_t *memory = local;
    if (bytes > sizeof local && posix_memalign((void **)&memory, 64, bytes) != 0) return 0;
    plan_key_t key;
    memset(&key, 0, sizeof key);
    key.level = level, key.padded = padded, key.src_width = src_width, key.first = first, key.x0 = x0, key.dx = dx;
    void *plan = keeps ? (void *)kept_plan : (void *)(memory + row_bytes);
    if (!keeps || memcmp(&key, &kept_plan_key, sizeof key) != 0) {
        if (level == 2) plan_avx512((run32_t *)plan, padded, x0, dx, src_width, first);
        else plan_avx2((run16_t *)plan, padded, x0, dx, first);
        if (keeps) kept_plan_key = key;
    }
    if (level == 2) {
        resample_plane_avx512(dst, dst_stride, width, padded, height, src, src_stride, src_width, src_height,
                              y0, dy, first, last, (__m512i *)memory, (const run32_t *)plan);
    } else {
        resample_plane_avx2(dst, dst_stride, width, padded, height, src, src_stride, src_width, src_height,
                            y0, dy, first, last, memory, (const run16_t *)plan);
    }
    if (memory != local) free(memory);
    return 1;
}

static int bytes_all(const uint8_t *p, size_t count, uint8_t value);

__attribute__((target("avx2"))) static int bytes_all_avx2(const uint8_t *p, size_t count, uint8_t value) {
    const __m256i v = _mm256_set1_epi8((char)value);
    size_t i = 0;
    for (; i + 128 <= count; i += 128) {
        const __m256i a = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i)), v);
        const __m256i b = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 32)), v);
        const __m256i c = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 64)), v);
        const __m256i d = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(p + i + 96)), v);
        if (_mm256_movemask_epi8(_mm256_and_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, d))) != -1) return 0;
    }
    return bytes_all(p + i, count - i, value);
}

int maptrip_resample_plane(uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                           const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                           int32_t x0, int32_t y0, int32_t dx, int32_t dy) {
    return maptrip_resample_plane_at(maptrip_resample_plane_level(), dst, dst_stride, width, height, src, src_stride,
                                     src_width, src_height, x0, y0, dx, dy);
}

#else

int maptrip_resample_available(void) { return 0; }

int maptrip_resample_plane_level(void) { return 0; }

int maptrip_resample_plane_at(int level, uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                              const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                              int32_t x0, int32_t y0, int32_t dx, int32_t dy) {
    (void)level; (void)dst; (void)dst_stride; (void)width; (void)height; (void)src; (void)src_stride;
    (void)src_width; (void)src_height; (void)x0; (void)y0; (void)dx; (void)dy;
    return 0;
}

int maptrip_resample_bilinear(uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                              const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                              int32_t x0, int32_t y0, int32_t dx, int32_t dy) {
    (void)dst; (void)dst_stride; (void)width; (void)height; (void)src; (void)src_stride;
    (void)src_width; (void)src_height; (void)x0; (void)y0; (void)dx; (void)dy;
    return 0;
}

int maptrip_resample_plane(uint8_t *dst, ptrdiff_t dst_stride, int width, int height,
                           const uint8_t *src, ptrdiff_t src_stride, int src_width, int src_height,
                           int32_t x0, int32_t y0, int32_t dx, int32_t dy) {
    (void)dst; (void)dst_stride; (void)width; (void)height; (void)src; (void)src_stride;
    (void)src_width; (void)src_height; (void)x0; (void)y0; (void)dx; (void)dy;
    return 0;
}

#endif

// One byte at a time: the tail of the vector path, and the whole where there is none.
static int bytes_all(const uint8_t *p, size_t count, uint8_t value) {
    for (size_t i = 0; i < count; i++) if (p[i] != value) return 0;
    return 1;
}

int maptrip_bytes_all(const uint8_t *p, size_t count, uint8_t value) {
#if defined(__x86_64__)
    if (maptrip_resample_available()) return bytes_all_avx2(p, count, value);
#endif
    return bytes_all(p, count, value);
}
