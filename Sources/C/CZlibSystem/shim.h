#pragma once
#include <zlib.h>

/* inflateInit2 / deflateInit2 are macros passing zlib's version and sizeof(z_stream). */
static inline int maptrip_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
static inline int maptrip_deflate_init2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
