#pragma once
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/dict.h>
#include <libavutil/pixdesc.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/samplefmt.h>
#include <libavutil/mathematics.h>
#include <libavutil/sha.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavutil/display.h>
#include <math.h>

/* Macros Swift cannot import, as inline functions. */
static inline int maptrip_averror(int posix_error) { return AVERROR(posix_error); }
static inline int maptrip_averror_eof(void) { return AVERROR_EOF; }
static inline int maptrip_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int maptrip_averror_einval(void) { return AVERROR(EINVAL); }
static inline int maptrip_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int maptrip_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int maptrip_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int maptrip_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int maptrip_averror_muxer_not_found(void) { return AVERROR_MUXER_NOT_FOUND; }
static inline int maptrip_averror_option_not_found(void) { return AVERROR_OPTION_NOT_FOUND; }
static inline int maptrip_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t maptrip_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int maptrip_av_error_max_string_size(void) { return AV_ERROR_MAX_STRING_SIZE; }

/* AVFrame.data / linesize are fixed C arrays (tuples in Swift): index them here. */
static inline uint8_t *maptrip_frame_data(const AVFrame *frame, int plane) {
    return (plane >= 0 && plane < AV_NUM_DATA_POINTERS) ? frame->data[plane] : NULL;
}
static inline int maptrip_frame_linesize(const AVFrame *frame, int plane) {
    return (plane >= 0 && plane < AV_NUM_DATA_POINTERS) ? frame->linesize[plane] : 0;
}
/* For sws_scale, which takes the arrays themselves. */
static inline const uint8_t *const *maptrip_frame_const_data(const AVFrame *frame) {
    return (const uint8_t *const *)frame->data;
}
static inline uint8_t *const *maptrip_frame_data_array(AVFrame *frame) { return frame->data; }
static inline const int *maptrip_frame_linesizes(const AVFrame *frame) { return frame->linesize; }

/* A video stream's display matrix (the rotation tag): 1 and the degrees it turns the picture
   clockwise for display (ffmpeg's own -autorotate angle), and whether it mirrors it; 0 without one.
   (av_stream_get_side_data: FFmpeg 5's API, wrapped here so its deprecation stays in C.) */
static inline int maptrip_stream_display_rotation(const AVStream *stream, double *clockwise, int *mirrored) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    size_t size = 0;
    const uint8_t *m = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
#pragma GCC diagnostic pop
    if (!m || size < 9 * sizeof(int32_t)) return 0;
    const int32_t *matrix = (const int32_t *)m;
    double angle = -av_display_rotation_get(matrix);
    if (isnan(angle)) angle = 0;
    angle = fmod(angle, 360); if (angle < 0) angle += 360;
    *clockwise = angle;
    *mirrored = ((double)matrix[0] * matrix[4] - (double)matrix[1] * matrix[3]) < 0;
    return 1;
}

/* Tags a stream (before the header is written) with a display matrix turning it `clockwise` degrees. */
static inline int maptrip_stream_set_display_rotation(AVStream *stream, double clockwise) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    uint8_t *m = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
#pragma GCC diagnostic pop
    if (!m) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)m, clockwise); /* set takes the opposite sign of what get returns */
    return 0;
}
