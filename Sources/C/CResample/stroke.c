#include "resample.h"
#include "rows.h"
#include "solid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

// One pass of a stroke: its half width and reach (half width + half a pixel), and its colour.
typedef struct {
    float r, reach;
    solid_t color;
} pass_t;

__attribute__((target("avx2"))) static int stroke_round_avx2(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0,
                                                             int clip_x1, int clip_y1, const double *xy, const int *counts,
                                                             int lines, const double *widths, const double *colors,
                                                             int passes) {
    if (clip_x1 <= clip_x0 || clip_y1 <= clip_y0 || passes <= 0) return 1;
    int total = 0;
    for (int l = 0; l < lines; l++) total += counts[l] > 1 ? counts[l] - 1 : 0;
    if (total == 0) return 1;
    seg_t *segs = malloc(sizeof(seg_t) * (size_t)total);
    // Per pixel of a row: the squared distance to the nearest segment (far: none within reach).
    float *cover = malloc(sizeof(float) * ((size_t)(clip_x1 - clip_x0) + 8));
    seg_t **active = malloc(sizeof(seg_t *) * (size_t)total), **order = malloc(sizeof(seg_t *) * (size_t)total);
    pass_t *ps = malloc(sizeof(pass_t) * (size_t)passes);
    if (!segs || !cover || !active || !order || !ps) {
        free(segs); free(cover); free(active); free(order); free(ps);
        return 0;
    }
    // The passes that draw anything, in order; the segments are set up once, for the widest of them.
    int np = 0;
    float widest = 0;
    for (int k = 0; k < passes; k++) {
        const double width = widths[k], alpha = colors[4 * k + 3];
        if (!(width > 0) || !(alpha > 0) || !isfinite(width)) continue;
        pass_t *q = &ps[np++];
        q->r = (float)(width / 2);
        q->reach = q->r + 0.5f;
        if (q->reach > widest) widest = q->reach;
        q->color = solid_from(colors + 4 * k);
    }
    int n = 0;
    const double *p = xy;
    for (int l = 0; l < lines && np > 0; l++) {
        for (int i = 0; i + 1 < counts[l]; i++) {
            double ax = p[2 * i], ay = p[2 * i + 1], bx = p[2 * i + 2], by = p[2 * i + 3];
            if (!isfinite(ax) || !isfinite(ay) || !isfinite(bx) || !isfinite(by)) continue;
            // Cut to the clip widened by more than the widest reach (in double: a line may run millions of
            // pixels off the frame, beyond float's precision); an end cut there shows no cap.
            if (!clip_segment(&ax, &ay, &bx, &by, clip_x0 - widest - 2.0, clip_y0 - widest - 2.0,
                              clip_x1 + widest + 2.0, clip_y1 + widest + 2.0)) continue;
            seg_t *s = &segs[n];
            s->ax = (float)ax; s->ay = (float)ay;
            s->bx = (float)bx; s->by = (float)by;
            s->dx = s->bx - s->ax; s->dy = s->by - s->ay;
            const float len2 = s->dx * s->dx + s->dy * s->dy;
            s->inv_len2 = len2 > 0 ? 1 / len2 : 0;
            const float y0 = fminf(s->ay, s->by) - widest, y1 = fmaxf(s->ay, s->by) + widest;
            if (!(y1 > (float)clip_y0 && y0 < (float)clip_y1)) continue;  // also drops NaNs
            s->row0 = (int)fmaxf(floorf(y0), (float)clip_y0);
            s->row1 = (int)fminf(ceilf(y1), (float)clip_y1);
            if (s->row1 > s->row0) n++;
        }
        p += 2 * counts[l];
    }
    // The segments by first row (each within the clip's rows).
    if (!order_by_first_row(segs, sizeof(seg_t), offsetof(seg_t, row0), n, clip_y0, clip_y1, (void **)order)) {
        free(segs); free(cover); free(active); free(order); free(ps);
        return 0;
    }
    // Vector constants: covers (the pixel centres of eight pixels), then the compositing of
    // premultiplied 8-bit channels.
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1), half = _mm256_set1_ps(0.5f);
    const __m256 f255 = _mm256_set1_ps(255);
    const __m256 lane = _mm256_setr_ps(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f);
    const __m256 far = _mm256_set1_ps(INFINITY);
    for (int x = 0; x < clip_x1 - clip_x0 + 8; x++) cover[x] = INFINITY;
    int next = 0, nactive = 0;
    const int first_row = n ? order[0]->row0 : clip_y1;
    for (int row = first_row; row < clip_y1 && (next < n || nactive > 0); row++) {
        while (next < n && order[next]->row0 <= row) active[nactive++] = order[next++];
        int k = 0;
        for (int i = 0; i < nactive; i++) if (active[i]->row1 > row) active[k++] = active[i];
        nactive = k;
        if (nactive == 0) { if (next < n) row = order[next]->row0 - 1; continue; }
        const float cy = (float)row + 0.5f;
        uint32_t *d = (uint32_t *)(pixels + (ptrdiff_t)row * stride);
        // The squared distance from each pixel centre to the nearest segment, within the widest pass's
        // reach (one pass over the segments for every pass: a pass's cover falls as the distance grows,
        // so the nearest segment gives each the largest cover).
        const float reach = widest;
        int lo = clip_x1, hi = clip_x0;
        for (int i = 0; i < nactive; i++) {
            const seg_t *s = active[i];
            // The segment's part within the rows cy +- reach, widened by the reach: the capsule's row.
            float t0 = 0, t1 = 1;
            if (s->dy != 0) {
                float ta = (cy - reach - s->ay) / s->dy, tb = (cy + reach - s->ay) / s->dy;
                if (ta > tb) { float t = ta; ta = tb; tb = t; }
                t0 = fmaxf(ta, 0); t1 = fminf(tb, 1);
                if (t0 > t1) continue;
            } else if (fabsf(cy - s->ay) > reach) continue;
            const float xa = s->ax + t0 * s->dx, xb = s->ax + t1 * s->dx;
            // Clamped to the clip before they become whole numbers (a line may run far off the frame).
            const float fx0 = fmaxf(floorf(fminf(xa, xb) - reach), (float)clip_x0);
            const float fx1 = fminf(ceilf(fmaxf(xa, xb) + reach), (float)clip_x1);
            if (!(fx0 < fx1)) continue;
            const int x0 = (int)fx0, x1 = (int)fx1;
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
            if (x > hi) hi = x;
        }
        if (lo >= hi) continue;
        const int end = hi < clip_x1 ? hi : clip_x1;
        // The pixels a line covers two rows down are about these: asked for now, they come from
        // memory while this row and the next are drawn (most of the stroker's time was waiting on them).
        if (row + 2 < clip_y1) {
            const uint8_t *ahead = pixels + (ptrdiff_t)(row + 2) * stride;
            for (int x = lo & ~15; x < end; x += 16) _mm_prefetch((const char *)(ahead + 4 * x), _MM_HINT_T0);
        }
        // Each pass over the row in turn (an outline, then the line over it): a pixel gets them in
        // order, as from whole strokes one after the other, while the row is in cache. A pixel's cover
        // in a pass is that of a pixel-wide box across the pass's band at the pixel's distance.
        for (int pass = 0; pass < np; pass++) {
            const pass_t *q = &ps[pass];
            const __m256 rv = _mm256_set1_ps(q->r), nrv = _mm256_set1_ps(-q->r);
            const solid8_t color = solid8_from(q->color);
            // Eight pixels at a time while they are within the clip, then one by one: the source at
            // each pixel's cover over what is there (a cover of 0 leaves a pixel exactly as it was).
            int x = lo;
            for (; x + 8 <= end; x += 8) {
                const __m256 dd = _mm256_sqrt_ps(_mm256_loadu_ps(cover + (x - clip_x0)));
                const __m256 v = _mm256_sub_ps(_mm256_min_ps(_mm256_add_ps(dd, half), rv), _mm256_max_ps(_mm256_sub_ps(dd, half), nrv));
                const __m256i m = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_min_ps(_mm256_max_ps(v, zero), one), f255));
                const __m256i px = _mm256_loadu_si256((const __m256i *)(d + x));
                _mm256_storeu_si256((__m256i *)(d + x), solid_over8(px, m, color));
            }
            for (; x < end; x++) {
                const float dd = sqrtf(cover[x - clip_x0]);
                const float v = fminf(dd + 0.5f, q->r) - fmaxf(dd - 0.5f, -q->r);
                if (!(v > 0)) continue;
                const uint32_t m = v >= 1 ? 255 : (uint32_t)lrintf(v * 255);
                if (m == 0) continue;
                d[x] = solid_over1(d[x], m, q->color);
            }
        }
        int x = lo;
        for (; x + 8 <= hi; x += 8) _mm256_storeu_ps(cover + (x - clip_x0), far);
        for (; x < hi; x++) cover[x - clip_x0] = INFINITY;
    }
    free(segs); free(cover); free(active); free(order); free(ps);
    return 1;
}

int maptrip_stroke_round(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                         const double *xy, const int *counts, int lines, const double *widths, const double *colors,
                         int passes) {
    if (!maptrip_resample_available()) return 0;
    return stroke_round_avx2(pixels, stride, clip_x0, clip_y0, clip_x1, clip_y1, xy, counts, lines, widths, colors,
                             passes);
}

#else

int maptrip_stroke_round(uint8_t *pixels, ptrdiff_t stride, int clip_x0, int clip_y0, int clip_x1, int clip_y1,
                         const double *xy, const int *counts, int lines, const double *widths, const double *colors,
                         int passes) {
    (void)pixels; (void)stride; (void)clip_x0; (void)clip_y0; (void)clip_x1; (void)clip_y1; (void)xy;
    (void)counts; (void)lines; (void)widths; (void)colors; (void)passes;
    return 0;
}

#endif
