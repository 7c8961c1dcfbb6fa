#pragma once
#include <pango/pangocairo.h>

/* GObject reference counting, as functions Swift can call. */
static inline void maptrip_g_object_unref(void *object) { g_object_unref(object); }

/* The family fontconfig (through Pango's default font map) gives for a font description such as
   "Open Sans Bold": the family asked for when it is installed, another when it is not. A copy the
   caller frees with maptrip_g_free; NULL when no font loads at all. */
static inline char *maptrip_matched_family(const char *description) {
    PangoFontMap *map = pango_cairo_font_map_get_default();
    PangoContext *context = pango_font_map_create_context(map);
    PangoFontDescription *asked = pango_font_description_from_string(description);
    PangoFont *font = pango_font_map_load_font(map, context, asked);
    char *family = NULL;
    if (font) {
        PangoFontDescription *found = pango_font_describe(font);
        const char *name = pango_font_description_get_family(found);
        if (name) family = g_strdup(name);
        pango_font_description_free(found);
        g_object_unref(font);
    }
    pango_font_description_free(asked);
    g_object_unref(context);
    return family;
}

static inline void maptrip_g_free(void *pointer) { g_free(pointer); }
