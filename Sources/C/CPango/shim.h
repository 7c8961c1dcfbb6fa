#pragma once
#include <pango/pangocairo.h>

/* GObject reference counting, as functions Swift can call. */
static inline void maptrip_g_object_unref(void *object) { g_object_unref(object); }
