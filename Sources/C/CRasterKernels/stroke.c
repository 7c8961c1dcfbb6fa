#include "raster_kernels.h"
#include "rows.h"
#include "solid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// No fused multiply-adds where a kernel's target has them: the AVX-512 distance pass works out the
// AVX2 one's numbers to the bit.
#pragma STDC FP_CONTRACT OFF

// Round-capped, round-joined lines in one solid colour, for a trip's route: every pixel's cover is
// that of a pixel-wide box across a band as wide as the line, at the pixel centre's distance from
// the nearest segment (exact for a straight edge along a row or column; round joins and caps come
// out of the distance). Cairo's scan converter samples fifteen sub-rows per row for the same line;
// this evaluates a few pixels per row and segment, eight at a time. Against Cairo's strokes: the same
// ink within 0.5%, pixels along a line within 20-28 levels (1-4 on average); where two edges share a
// pixel (a sharp turn, a crossing) it takes the larger of their covers, Cairo their union.
#if defined(__x86_64__)
#include <immintrin.h>

// A segment of a line, and the rows its capsule (every point within the reach of it) touches.
typedef struct {
    float ax, ay, bx, by;  // ends
    float dx, dy, inv_len2;
    float inv_dy;          // 1 / dy (0 for a level segment)
    int row0, row1;        // rows [row0, row1)
} seg_t;

// Liang-Barsky: the part of segment a-b within the box, or 0 when none of it is (a point: whether
// it is inside).
static int clip_segment(double *ax, double *ay, double *bx, double *by, double x0, double y0, double x1, double y1) {
    const double dx = *bx - *ax, dy = *by - *ay;
    double t0 = 0, t1 = 1;
    const double p[4] = {-dx, dx, -dy, dy}, q[4] = {*ax - x0, x1 - *ax, *ay - y0, y1 - *ay};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0) return 0;
        } else {
            const double t = q[k] / p[k];
            if (p[k] < 0) { if (t > t1) return 0; if (t > t0) t0 = t; }
            else { if (t < t0) return 0; if (t < t1) t1 = t; }
        }
    }
    const double sx = *ax, sy = *ay;
    *ax = sx + t0 * dx; *ay = sy + t0 * dy;
    *bx = sx + t1 * dx; *by = sy + t1 * dy;
    return 1;
}

// The distance row's chunks, in pixels: the passes over a row composite (and reset) only the chunks
// some segment's distances were written to.
#define CHUNK 32

// Marks the chunks of the distance row's columns [x0, x1) (x0 < x1, from the clip's left) as written.
static inline void mark_chunks(uint64_t *touched, int x0, int x1) {
    const unsigned c0 = (unsigned)x0 / CHUNK, c1 = (unsigned)(x1 - 1) / CHUNK;
    touched[c0 >> 6] |= (uint64_t)1 << (c0 & 63);
    touched[c1 >> 6] |= (uint64_t)1 << (c1 & 63);
    for (unsigned c = c0 + 1; c < c1; c++) touched[c >> 6] |= (uint64_t)1 << (c & 63);
}

static inline int chunk_touched(const uint64_t *touched, int c) { return (int)((touched[c >> 6] >> (c & 63)) & 1); }

// The first chunk written at or after chunk `c`, or -1.
static inline int next_chunk(const uint64_t *touched, int words, int c) {
    int w = c >> 6;
    if (w >= words) return -1;
    uint64_t bits = touched[w] & (~(uint64_t)0 << (c & 63));
    while (!bits) {
        if (++w >= words) return -1;
        bits = touched[w];
    }
    return (w << 6) + __builtin_ctzll(bits);
}

// One pass of a stroke: its half width and reach (half width + half a pixel), and its colour.
typedef struct {
    float r, reach;
    solid_t color;
} pass_t;

// A stroke set up for its clip: its segments (by first row), the passes that draw anything, and the
// walk down the rows (the segments whose capsules meet the row, and the next to join).
typedef struct {
    seg_t *segs, **order, **active;
    float *cover;  // per pixel of a row: the squared distance to the nearest segment (far: none in reach)
    uint64_t *touched;  // per chunk of `CHUNK` pixels of the row (from the clip's left): whether any is in cover
    int words;          // of `touched`
    pass_t *ps;
    int n, np, next, nactive;
    float widest;
    int clip_x0, clip_y0, clip_x1, clip_y1;
    int wide;      // the distance pass sixteen pixels at a time (AVX-512), else eight (AVX2)
} stroke_t;

static void stroke_free(stroke_t *k) {
    free(k->segs); free(k->cover); free(k->active); free(k->order); free(k->ps); free(k->touched);
}

// Sets up a stroke; 0 when out of memory (nothing to free then). A stroke with nothing to draw has
// no segments (`n` 0).
static int stroke_begin(stroke_t *k, int level, int clip_x0, int clip_y0, int clip_x1, int clip_y1, const double *xy,
                        const int *counts, int lines, const double *widths, const double *colors, int passes) {
    memset(k, 0, sizeof(*k));
    k->wide = level >= 2;
    k->clip_x0 = clip_x0; k->clip_y0 = clip_y0; k->clip_x1 = clip_x1; k->clip_y1 = clip_y1;
    if (clip_x1 <= clip_x0 || clip_y1 <= clip_y0 || passes <= 0) return 1;
    int total = 0;
    for (int l = 0; l < lines; l++) total += counts[l] > 1 ? counts[l] - 1 : 0;
    if (total == 0) return 1;
    k->segs = malloc(sizeof(seg_t) * (size_t)total);
    k->cover = malloc(sizeof(float) * ((size_t)(clip_x1 - clip_x0) + 16));
    k->active = malloc(sizeof(seg_t *) * (size_t)total);
    k->order = malloc(sizeof(seg_t *) * (size_t)total);
    k->ps = malloc(sizeof(pass_t) * (size_t)passes);
    k->words = (((clip_x1 - clip_x0) + 16) / CHUNK + 1 + 63) / 64;
    k->touched = calloc((size_t)k->words, sizeof(uint64_t));
    if (!k->segs || !k->cover || !k->active || !k->order || !k->ps || !k->touched) {
        stroke_free(k);
        return 0;
    }
    for (int x = 0; x < clip_x1 - clip_x0 + 16; x++) k->cover[x] = INFINITY;
    // The passes that draw anything, in order; the segments are set up once, for the widest of them.
    for (int j = 0; j < passes; j++) {
        const double width = widths[j], alpha = colors[4 * j + 3];
        if (!(width > 0) || !(alpha > 0) || !isfinite(width)) continue;
        pass_t *q = &k->ps[k->np++];
        q->r = (float)(width / 2);
        q->reach = q->r + 0.5f;
        if (q->reach > k->widest) k->widest = q->reach;
        q->color = solid_from(colors + 4 * j);
    }
    const float widest = k->widest;
    int n = 0;
    const double *p = xy;
    for (int l = 0; l < lines && k->np > 0; l++) {
        for (int i = 0; i + 1 < counts[l]; i++) {
            double ax = p[2 * i], ay = p[2 * i + 1], bx = p[2 * i + 2], by = p[2 * i + 3];
            if (!isfinite(ax) || !isfinite(ay) || !isfinite(bx) || !isfinite(by)) continue;
            // Rows first, before the clip's divisions: a band of rows meets few of a long line's segments.
            if (fmax(ay, by) < clip_y0 - widest - 2.0 || fmin(ay, by) > clip_y1 + widest + 2.0) continue;
            // Cut to the clip widened by more than the widest reach (in double: a line may run millions of
            // pixels off the frame, beyond float's precision); an end cut there shows no cap.
            if (!clip_segment(&ax, &ay, &bx, &by, clip_x0 - widest - 2.0, clip_y0 - widest - 2.0,
                              clip_x1 + widest + 2.0, clip_y1 + widest + 2.0)) continue;
            seg_t *s = &k->segs[n];
            s->ax = (float)ax; s->ay = (float)ay;
            s->bx = (float)bx; s->by = (float)by;
            s->dx = s->bx - s->ax; s->dy = s->by - s->ay;
            const float len2 = s->dx * s->dx + s->dy * s->dy;
            s->inv_len2 = len2 > 0 ? 1 / len2 : 0;
            s->inv_dy = s->dy != 0 ? 1 / s->dy : 0;
            const float y0 = fminf(s->ay, s->by) - widest, y1 = fmaxf(s->ay, s->by) + widest;
            if (!(y1 > (float)clip_y0 && y0 < (float)clip_y1)) continue;  // also drops NaNs
            s->row0 = (int)fmaxf(floorf(y0), (float)clip_y0);
            s->row1 = (int)fminf(ceilf(y1), (float)clip_y1);
            if (s->row1 > s->row0) n++;
        }
        p += 2 * counts[l];
    }
    k->n = n;
    // The segments by first row (each within the clip's rows).
    if (!order_by_first_row(k->segs, sizeof(seg_t), offsetof(seg_t, row0), n, clip_y0, clip_y1, (void **)k->order)) {
        stroke_free(k);
        return 0;
    }
    return 1;
}

// The first row at or after `row` where a segment may draw (the clip's end when none is left).
static int stroke_next_row(const stroke_t *k, int row) {
    if (k->nactive > 0) return row;
    return k->next < k->n ? (k->order[k->next]->row0 > row ? k->order[k->next]->row0 : row) : k->clip_y1;
}

// The columns [*x0, *x1) of row centre `cy` that segment `s`'s capsule (reach `reach`) may cover,
// within the clip: the segment's part within the rows cy +- reach, widened by the reach. 0: none.
static inline int stroke_span(const seg_t *s, float cy, float reach, int clip_x0, int clip_x1, int *x0, int *x1) {
    float t0 = 0, t1 = 1;
    if (s->dy != 0) {
        // (By the reciprocal: t only bounds the pixels looked at, and a pixel it leaves out by a
        // rounding is at the reach or beyond, where the cover is 0.)
        float ta = (cy - reach - s->ay) * s->inv_dy, tb = (cy + reach - s->ay) * s->inv_dy;
        if (ta > tb) { float t = ta; ta = tb; tb = t; }
        t0 = fmaxf(ta, 0); t1 = fminf(tb, 1);
        if (t0 > t1) return 0;
    } else if (fabsf(cy - s->ay) > reach) return 0;
    const float xa = s->ax + t0 * s->dx, xb = s->ax + t1 * s->dx;
    // Clamped to the clip before they become whole numbers (a line may run far off the frame).
    const float fx0 = fmaxf(floorf(fminf(xa, xb) - reach), (float)clip_x0);
    const float fx1 = fminf(ceilf(fmaxf(xa, xb) + reach), (float)clip_x1);
    if (!(fx0 < fx1)) return 0;
    *x0 = (int)fx0;
    *x1 = (int)fx1;
    return 1;
}

// The squared distance from each pixel centre of the row (centre `cy`) to the nearest active segment
// into `k->cover`, within the widest pass's reach (one pass over the segments for every pass: a
// pass's cover falls as the distance grows, so the nearest segment gives each the largest cover).
// [*lo, *hi): the columns written, as eight-pixel blocks from each segment's first column (the same
// whichever kernel); [*wipe_lo, *wipe_hi): every column written (to reset after the row).
__attribute__((target("avx2"))) static void stroke_distances8(stroke_t *k, float cy, int *lo_out, int *hi_out,
                                                             int *wipe_lo, int *wipe_hi) {
    const int clip_x0 = k->clip_x0, clip_x1 = k->clip_x1;
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1);
    const __m256 lane = _mm256_setr_ps(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f);
    float *cover = k->cover;
    const float reach = k->widest;
    int lo = *lo_out, hi = *hi_out;
    for (int i = 0; i < k->nactive; i++) {
        const seg_t *s = k->active[i];
        int x0, x1;
        if (!stroke_span(s, cy, reach, clip_x0, clip_x1, &x0, &x1)) continue;
        if (x0 < lo) lo = x0;
        // Eight pixels at a time (the distance row has room past the clip for the last eight).
        const __m256 ax = _mm256_set1_ps(s->ax), sdx = _mm256_set1_ps(s->dx), sdy = _mm256_set1_ps(s->dy);
        const __m256 py = _mm256_set1_ps(cy - s->ay), inv = _mm256_set1_ps(s->inv_len2);
        const __m256 pyd = _mm256_mul_ps(py, sdy);
        int x = x0;
        for (; x < x1; x += 8) {
            const __m256 px = _mm256_sub_ps(_mm256_add_ps(_mm256_set1_ps((float)x), lane), ax);
            __m256 t = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(px, sdx), pyd), inv);
            t = _mm256_min_ps(_mm256_max_ps(t, zero), one);
            const __m256 ex = _mm256_sub_ps(px, _mm256_mul_ps(t, sdx)), ey = _mm256_sub_ps(py, _mm256_mul_ps(t, sdy));
            const __m256 dd2 = _mm256_add_ps(_mm256_mul_ps(ex, ex), _mm256_mul_ps(ey, ey));
            float *c = cover + (x - clip_x0);
            _mm256_storeu_ps(c, _mm256_min_ps(_mm256_loadu_ps(c), dd2));
        }
        mark_chunks(k->touched, x0 - clip_x0, x - clip_x0);
        if (x > hi) hi = x;
    }
    *lo_out = *wipe_lo = lo;
    *hi_out = *wipe_hi = hi;
}

// The same sixteen pixels at a time: a segment of a GPS track is a few pixels long, and its capsule's
// row (the reach either side) mostly fits one block of sixteen where it took two of eight. Each lane
// works out what the eight-pixel kernel's does, operation for operation, so the distances are the
// same to the bit; a block's pixels past the segment's columns get their distance to it too (beyond
// the reach: no cover, as none).
__attribute__((target("avx512f"))) static void stroke_distances16(stroke_t *k, float cy, int *lo_out, int *hi_out,
                                                                int *wipe_lo, int *wipe_hi) {
    const int clip_x0 = k->clip_x0, clip_x1 = k->clip_x1;
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1);
    const __m512 lane = _mm512_setr_ps(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f, 8.5f, 9.5f, 10.5f, 11.5f,
                                       12.5f, 13.5f, 14.5f, 15.5f);
    float *cover = k->cover;
    const float reach = k->widest;
    int lo = *lo_out, hi = *hi_out, whi = clip_x0;
    for (int i = 0; i < k->nactive; i++) {
        const seg_t *s = k->active[i];
        int x0, x1;
        if (!stroke_span(s, cy, reach, clip_x0, clip_x1, &x0, &x1)) continue;
        if (x0 < lo) lo = x0;
        // What the eight-pixel kernel reports as written: whole blocks of eight from x0.
        const int end8 = x0 + ((x1 - x0 + 7) & ~7);
        if (end8 > hi) hi = end8;
        // (The distance row has room past the clip for the last sixteen.)
        const __m512 ax = _mm512_set1_ps(s->ax), sdx = _mm512_set1_ps(s->dx), sdy = _mm512_set1_ps(s->dy);
        const __m512 py = _mm512_set1_ps(cy - s->ay), inv = _mm512_set1_ps(s->inv_len2);
        const __m512 pyd = _mm512_mul_ps(py, sdy);
        int x = x0;
        for (; x < x1; x += 16) {
            const __m512 px = _mm512_sub_ps(_mm512_add_ps(_mm512_set1_ps((float)x), lane), ax);
            __m512 t = _mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(px, sdx), pyd), inv);
            t = _mm512_min_ps(_mm512_max_ps(t, zero), one);
            const __m512 ex = _mm512_sub_ps(px, _mm512_mul_ps(t, sdx)), ey = _mm512_sub_ps(py, _mm512_mul_ps(t, sdy));
            const __m512 dd2 = _mm512_add_ps(_mm512_mul_ps(ex, ex), _mm512_mul_ps(ey, ey));
            float *c = cover + (x - clip_x0);
            _mm512_storeu_ps(c, _mm512_min_ps(_mm512_loadu_ps(c), dd2));
        }
        mark_chunks(k->touched, x0 - clip_x0, x - clip_x0);
        if (x > whi) whi = x;
    }
    *lo_out = *wipe_lo = lo;
    *hi_out = hi;
    *wipe_hi = whi > hi ? whi : hi;
}

// Draws row `row` (rows are drawn in order, each once) over the premultiplied BGRA pixels at `d`
// (indexed by the frame's column), `ahead`: that row two rows down, to prefetch (NULL: none). Sets
// [*lo, *hi) to the columns it may have changed (empty: none).
__attribute__((target("avx2"))) static void stroke_row(stroke_t *k, int row, uint32_t *d, const uint8_t *ahead,
                                                      int *lo_out, int *hi_out) {
    const int clip_x0 = k->clip_x0, clip_x1 = k->clip_x1;
    *lo_out = *hi_out = clip_x0;
    while (k->next < k->n && k->order[k->next]->row0 <= row) k->active[k->nactive++] = k->order[k->next++];
    int m = 0;
    for (int i = 0; i < k->nactive; i++) if (k->active[i]->row1 > row) k->active[m++] = k->active[i];
    k->nactive = m;
    if (m == 0) return;
    // Vector constants: covers (the pixel centres of eight pixels), then the compositing of
    // premultiplied 8-bit channels.
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1), half = _mm256_set1_ps(0.5f);
    const __m256 f255 = _mm256_set1_ps(255);
    const __m256 far = _mm256_set1_ps(INFINITY);
    float *cover = k->cover;
    const float cy = (float)row + 0.5f;
    int lo = clip_x1, hi = clip_x0, wlo = clip_x1, whi = clip_x0;
    if (k->wide) stroke_distances16(k, cy, &lo, &hi, &wlo, &whi);
    else stroke_distances8(k, cy, &lo, &hi, &wlo, &whi);
    if (lo >= hi) return;
    const int end = hi < clip_x1 ? hi : clip_x1;
    // The pixels a line covers two rows down are about those it covers in this row: asked for in
    // the first pass (the blocks it finds ink in), they come from memory while this row and the next
    // are drawn (most of the stroker's time was waiting on them). Only those: a ride's loop spans most
    // of a row and inks a few blocks of it, and asking for the whole span two rows down was a sixteenth
    // of the stroker's time.
    // Each pass over the row in turn (an outline, then the line over it): a pixel gets them in
    // order, as from whole strokes one after the other, while the row is in cache. A pixel's cover
    // in a pass is that of a pixel-wide box across the pass's band at the pixel's distance.
    for (int pass = 0; pass < k->np; pass++) {
        const pass_t *q = &k->ps[pass];
        const __m256 rv = _mm256_set1_ps(q->r), nrv = _mm256_set1_ps(-q->r);
        // Beyond this squared distance a pixel's cover in the pass is 0 (its distance is past the
        // reach, with room for rounding): a row of a track that loops over the frame spans most of
        // it, and most of its eight-pixel blocks are none of the line's.
        const __m256 none = _mm256_set1_ps(q->reach * q->reach * 1.0001f + 1e-3f);
        const solid8_t color = solid8_from(q->color);
        // Eight pixels at a time while they are within the clip, then one by one: the source at
        // each pixel's cover over what is there (a cover of 0 leaves a pixel exactly as it was).
        // Blocks from `lo` as ever (the same pixels whichever way a row is walked), leaping over the
        // chunks no distance was written to (all of them far: no cover).
        int x = lo;
        for (; x + 8 <= end; x += 8) {
            if (!chunk_touched(k->touched, (x - clip_x0) / CHUNK) && !chunk_touched(k->touched, (x + 7 - clip_x0) / CHUNK)) {
                const int c = next_chunk(k->touched, k->words, (x + 7 - clip_x0) / CHUNK + 1);
                // The block holding the chunk's first pixel (after this one: that chunk is past x + 7).
                x = c < 0 ? end : lo + (((clip_x0 + c * CHUNK) - lo) & ~7);
                if (x + 8 > end) { x = lo + ((end - lo) & ~7); break; }
            }
            const __m256 dd2 = _mm256_loadu_ps(cover + (x - clip_x0));
            if (_mm256_movemask_ps(_mm256_cmp_ps(dd2, none, _CMP_LT_OQ)) == 0) continue;
            if (pass == 0 && ahead) {
                _mm_prefetch((const char *)(ahead + 4 * x), _MM_HINT_T0);
                _mm_prefetch((const char *)(ahead + 4 * x + 28), _MM_HINT_T0);
            }
            const __m256 dd = _mm256_sqrt_ps(dd2);
            const __m256 v = _mm256_sub_ps(_mm256_min_ps(_mm256_add_ps(dd, half), rv), _mm256_max_ps(_mm256_sub_ps(dd, half), nrv));
            const __m256i m8 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_min_ps(_mm256_max_ps(v, zero), one), f255));
            const __m256i px = _mm256_loadu_si256((const __m256i *)(d + x));
            _mm256_storeu_si256((__m256i *)(d + x), solid_over8(px, m8, color));
        }
        for (; x < end; x++) {
            const float dd = sqrtf(cover[x - clip_x0]);
            const float v = fminf(dd + 0.5f, q->r) - fmaxf(dd - 0.5f, -q->r);
            if (!(v > 0)) continue;
            const uint32_t m1 = v >= 1 ? 255 : (uint32_t)lrintf(v * 255);
            if (m1 == 0) continue;
            d[x] = solid_over1(d[x], m1, q->color);
        }
    }
    // The chunks written, far again (and their marks cleared).
    for (int c = next_chunk(k->touched, k->words, 0); c >= 0; c = next_chunk(k->touched, k->words, c + 1)) {
        const int c0 = clip_x0 + c * CHUNK, a = c0 > wlo ? c0 : wlo, b = c0 + CHUNK < whi ? c0 + CHUNK : whi;
        int x = a;
        for (; x + 8 <= b; x += 8) _mm256_storeu_ps(cover + (x - clip_x0), far);
        for (; x < b; x++) cover[x - clip_x0] = INFINITY;
    }
    memset(k->touched, 0, sizeof(uint64_t) * (size_t)k->words);
    *lo_out = lo;
    *hi_out = end;
}

__attribute__((target("avx2"))) static int stroke_round_avx2(int level, uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0,
                                                             int clip_x1, int clip_y1, const double *xy, const int *counts,
                                                             int lines, const double *widths, const double *colors,
                                                             int passes) {
    stroke_t k;
    if (!stroke_begin(&k, level, clip_x0, clip_y0, clip_x1, clip_y1, xy, counts, lines, widths, colors, passes)) return 0;
    for (int row = stroke_next_row(&k, clip_y0); row < clip_y1; row = stroke_next_row(&k, row + 1)) {
        int lo, hi;
        stroke_row(&k, row, (uint32_t *)(pixels + (ptrdiff_t)row * stride),
                   row + 2 < clip_y1 ? pixels + (ptrdiff_t)(row + 2) * stride : NULL, &lo, &hi);
    }
    stroke_free(&k);
    return 1;
}

// The first pair of rows at or after `row` (even) where any of the strokes may draw.
static int strokes_next_pair(const stroke_t *ks, int strokes, int row) {
    int top = ks[0].clip_y1;
    for (int j = 0; j < strokes; j++) {
        const int r = stroke_next_row(&ks[j], row) & ~1;
        if (r < top) top = r;
    }
    return top;
}

// The I420 strokes: each row pair's pixels of every stroke in turn drawn over a transparent pair of
// BGRA rows, then blended into the picture (`maptrip_blend_overlay_i420`, which leaves them
// transparent again): a row pair of the overlay the strokes would draw, blended as it would be.
__attribute__((target("avx2"))) static int stroke_round_i420_avx2(int level, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                                                                  ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride,
                                                                  int width, int height, int strokes,
                                                                  const int *stroke_lines, const int *stroke_passes,
                                                                  const double *xy, const int *counts,
                                                                  const double *widths, const double *colors,
                                                                  int *spans, const maptrip_yuv_matrix *m) {
    if (spans) memset(spans, 0, sizeof(int) * (size_t)height);
    if (strokes <= 0) return 1;
    const ptrdiff_t stride = 4 * ((ptrdiff_t)width + 8);
    stroke_t *ks = calloc((size_t)strokes, sizeof(stroke_t));
    uint8_t *pair = calloc(2, (size_t)stride);
    int made = 0;
    if (ks && pair) {
        const double *p = xy;
        const int *c = counts;
        const double *w = widths, *rgba = colors;
        for (; made < strokes; made++) {
            if (!stroke_begin(&ks[made], level, 0, 0, width, height, p, c, stroke_lines[made], w, rgba, stroke_passes[made])) break;
            for (int l = 0; l < stroke_lines[made]; l++) p += 2 * c[l];
            c += stroke_lines[made];
            w += stroke_passes[made];
            rgba += 4 * stroke_passes[made];
        }
    }
    if (made < strokes) {  // out of memory: nothing drawn
        for (int j = 0; j < made; j++) stroke_free(&ks[j]);
        free(ks);
        free(pair);
        return 0;
    }
    for (int top = strokes_next_pair(ks, strokes, 0); top < height; top = strokes_next_pair(ks, strokes, top + 2)) {
        int lo = width, hi = 0;
        for (int j = 0; j < strokes; j++) {
            for (int r = 0; r < 2; r++) {
                int l, h;
                stroke_row(&ks[j], top + r, (uint32_t *)(pair + r * stride), NULL, &l, &h);
                if (l < h) {
                    if (l < lo) lo = l;
                    if (h > hi) hi = h;
                }
            }
        }
        if (lo < hi) {
            lo &= ~1;
            hi = (hi + 1) & ~1;
            if (hi > width) hi = width;
            maptrip_blend_overlay_i420(pair + 4 * lo, stride, y + (ptrdiff_t)top * y_stride + lo, y_stride,
                                       u + (ptrdiff_t)(top / 2) * u_stride + lo / 2, u_stride,
                                       v + (ptrdiff_t)(top / 2) * v_stride + lo / 2, v_stride, hi - lo, 2, m);
            if (spans) {
                spans[top] = lo;
                spans[top + 1] = hi;
            }
        }
    }
    for (int j = 0; j < strokes; j++) stroke_free(&ks[j]);
    free(ks);
    free(pair);
    return 1;
}

// The distance pass's kernel for `level` (-1 or beyond this CPU: the best it has): 2 AVX-512, else AVX2.
static int stroke_level(int level) {
    const int best = maptrip_resample_plane_level();
    return level < 0 || level > best ? best : level;
}

int maptrip_stroke_round_at(int level, uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1,
                            int clip_y1, const double *xy, const int *counts, int lines, const double *widths,
                            const double *colors, int passes) {
    if (!maptrip_resample_available()) return 0;
    return stroke_round_avx2(stroke_level(level), pixels, stride, clip_x0, clip_y0, clip_x1, clip_y1, xy, counts, lines,
                             widths, colors, passes);
}

int maptrip_stroke_round(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                         const double *xy, const int *counts, int lines, const double *widths, const double *colors,
                         int passes) {
    return maptrip_stroke_round_at(-1, pixels, stride, clip_x0, clip_y0, clip_x1, clip_y1, xy, counts, lines, widths,
                                   colors, passes);
}

int maptrip_stroke_round_i420(uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride, uint8_t *v,
                              ptrdiff_t v_stride, int width, int height, int strokes, const int *stroke_lines,
                              const int *stroke_passes, const double *xy, const int *counts, const double *widths,
                              const double *colors, int *spans, const maptrip_yuv_matrix *m) {
    if (!maptrip_resample_available() || width % 2 || height % 2 || width <= 0 || height <= 0) return 0;
    return stroke_round_i420_avx2(stroke_level(-1), y, y_stride, u, u_stride, v, v_stride, width, height, strokes, stroke_lines,
                                  stroke_passes, xy, counts, widths, colors, spans, m);
}

#else

int maptrip_stroke_round_i420(uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride, uint8_t *v,
                              ptrdiff_t v_stride, int width, int height, int strokes, const int *stroke_lines,
                              const int *stroke_passes, const double *xy, const int *counts, const double *widths,
                              const double *colors, int *spans, const maptrip_yuv_matrix *m) {
    (void)y; (void)y_stride; (void)u; (void)u_stride; (void)v; (void)v_stride; (void)width; (void)height;
    (void)strokes; (void)stroke_lines; (void)stroke_passes; (void)xy; (void)counts; (void)widths; (void)colors; (void)m;
    (void)spans;
    return 0;
}

int maptrip_stroke_round_at(int level, uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1,
                            int clip_y1, const double *xy, const int *counts, int lines, const double *widths,
                            const double *colors, int passes) {
    (void)level; (void)pixels; (void)stride; (void)clip_x0; (void)clip_y0; (void)clip_x1; (void)clip_y1; (void)xy;
    (void)counts; (void)lines; (void)widths; (void)colors; (void)passes;
    return 0;
}

int maptrip_stroke_round(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                         const double *xy, const int *counts, int lines, const double *widths, const double *colors,
                         int passes) {
    (void)pixels; (void)stride; (void)clip_x0; (void)clip_y0; (void)clip_x1; (void)clip_y1; (void)xy;
    (void)counts; (void)lines; (void)widths; (void)colors; (void)passes;
    return 0;
}

#endif
