#include "resample.h"

#include <string.h>

// BT.601, limited range, as libyuv's ARGBToI420 (8-bit coefficients out of 256): Y of r, g, b is
// 16 + (66 r + 129 g + 25 b) / 256; U and V those of a 2x2 block's average. A premultiplied overlay
// pixel (r, g, b, a) over a picture whose Y is Y0 gives
//   Y = (66 r + 129 g + 25 b) / 256 + 16 a / 255 + (1 - a / 255) Y0,
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

int maptrip_blend_overlay_i420(uint8_t *overlay, ptrdiff_t stride, uint8_t *y, ptrdiff_t y_stride, uint8_t *u,
                               ptrdiff_t u_stride, uint8_t *v, ptrdiff_t v_stride, int width, int height) {
    if (width <= 0 || height <= 0 || ((width | height) & 1)) return 0;
    for (int r = 0; r < height; r += 2) {
        uint8_t *o0 = overlay + (ptrdiff_t)r * stride, *o1 = o0 + stride;
        uint8_t *y0 = y + (ptrdiff_t)r * y_stride, *y1 = y0 + y_stride;
        uint8_t *ur = u + (ptrdiff_t)(r / 2) * u_stride, *vr = v + (ptrdiff_t)(r / 2) * v_stride;
        for (int c0 = 0; c0 < width; c0 += CHUNK) {
            const int n = width - c0 < CHUNK ? width - c0 : CHUNK;
            if (row_clear(o0 + 4 * c0, n) && row_clear(o1 + 4 * c0, n)) continue;
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
                    *py[k] = (uint8_t)((*py[k] * (255 - a) * 256 + (66 * rr + 129 * g + 25 * b) * 255 + 16 * 256 * a +
                                        32640) / 65280);
                }
                if ((sa | sb | sg | sr) == 0) continue;
                uint8_t *pu = ur + c / 2, *pv = vr + c / 2;
                *pu = (uint8_t)((*pu * (1020 - sa) * 256 + (112 * sb - 74 * sg - 38 * sr) * 255 + 128 * 256 * sa +
                                 130560) / 261120);
                *pv = (uint8_t)((*pv * (1020 - sa) * 256 + (112 * sr - 94 * sg - 18 * sb) * 255 + 128 * 256 * sa +
                                 130560) / 261120);
            }
            // Left transparent for the next picture's overlays.
            memset(o0 + 4 * c0, 0, 4 * (size_t)n);
            memset(o1 + 4 * c0, 0, 4 * (size_t)n);
        }
    }
    return 1;
}
