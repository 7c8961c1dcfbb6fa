#pragma once
// glibc's allocator controls (malloc_trim), which Swift's Glibc module does not bring in.
#include <malloc.h>
#include <dlfcn.h>
#include <stddef.h>

// Whether malloc is glibc's own: a sanitizer (ASan, TSan) replaces it, and glibc's malloc_trim then
// walks arenas that were never set up.
static inline int maptrip_malloc_is_glibc(void) {
    return dlsym(RTLD_DEFAULT, "__asan_init") == NULL && dlsym(RTLD_DEFAULT, "__tsan_init") == NULL;
}
