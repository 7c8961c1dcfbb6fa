#pragma once
#include <stdarg.h>
#include <stdio.h>
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include <libexif/exif-log.h>
#include <libexif/exif-utils.h>

/* libexif's log messages (printf-style with a va_list, which Swift cannot format) kept as text: the
   first error or corrupt-data message it logs while loading, for the Swift error. Debug chatter is
   dropped. */
typedef struct { char text[512]; } maptrip_exif_message;

static void maptrip_exif_log_func(ExifLog *log, ExifLogCode code, const char *domain, const char *format,
                                  va_list args, void *data) {
    (void)log; (void)domain;
    maptrip_exif_message *message = (maptrip_exif_message *)data;
    if (code == EXIF_LOG_CODE_DEBUG || message->text[0] != 0) return;
    vsnprintf(message->text, sizeof message->text, format, args);
}

/* A log that writes into `message` (which outlives it). */
static inline ExifLog *maptrip_exif_log_new(maptrip_exif_message *message) {
    ExifLog *log = exif_log_new();
    if (log) exif_log_set_func(log, maptrip_exif_log_func, message);
    return log;
}

/* The entry `tag` of IFD `ifd` (exif_data_get_entry is a macro), or NULL. */
static inline ExifEntry *maptrip_exif_entry(ExifData *data, ExifIfd ifd, unsigned int tag) {
    if (!data || ifd >= EXIF_IFD_COUNT || !data->ifd[ifd]) return NULL;
    return exif_content_get_entry(data->ifd[ifd], (ExifTag)tag);
}

/* Entries in all of the data's IFDs. */
static inline unsigned int maptrip_exif_entry_count(ExifData *data) {
    unsigned int n = 0;
    for (int i = 0; data && i < EXIF_IFD_COUNT; i++) if (data->ifd[i]) n += data->ifd[i]->count;
    return n;
}
