#pragma once
#include <zip.h>

/* libzip's message for one of its error codes (zip_error_t is a struct to be set up and torn down;
   the text is copied into `buffer`). */
static inline void maptrip_zip_strerror(int code, char *buffer, int size) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    snprintf(buffer, (size_t)size, "%s", zip_error_strerror(&error));
    zip_error_fini(&error);
}
