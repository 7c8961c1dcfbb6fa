#pragma once
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libswscale/swscale.h>

/* Macros Swift cannot import, as inline functions. */
static inline int maptrip_averror(int posix_error) { return AVERROR(posix_error); }
static inline int maptrip_averror_eof(void) { return AVERROR_EOF; }
static inline int64_t maptrip_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int maptrip_av_error_max_string_size(void) { return AV_ERROR_MAX_STRING_SIZE; }
