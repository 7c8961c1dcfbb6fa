#pragma once
#include <shapefil.h>
#include <string.h>

// shapelib reports its errors through SAHooks.Error, by default onto standard error. maptrip keeps
// the calling thread's last message instead and puts it in the error it throws.
static inline char *maptrip_shapelib_buffer(void) {
    static _Thread_local char buffer[512];
    return buffer;
}

static void maptrip_shapelib_error(const char *message) {
    char *buffer = maptrip_shapelib_buffer();
    strncpy(buffer, message ? message : "", 511);
    buffer[511] = 0;
}

/// Default file hooks, with errors kept (see maptrip_shapelib_last_message) instead of printed.
static inline void maptrip_shapelib_hooks(SAHooks *hooks) {
    SASetupDefaultHooks(hooks);
    hooks->Error = maptrip_shapelib_error;
}

static inline const char *maptrip_shapelib_last_message(void) { return maptrip_shapelib_buffer(); }
static inline void maptrip_shapelib_clear_message(void) { maptrip_shapelib_buffer()[0] = 0; }
