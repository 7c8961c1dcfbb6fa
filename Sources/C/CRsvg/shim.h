#pragma once
#include <librsvg/rsvg.h>

/* GObject reference counting, as functions Swift can call. */
static inline void maptrip_rsvg_handle_unref(RsvgHandle *handle) { g_object_unref(handle); }
