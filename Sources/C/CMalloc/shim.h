#pragma once
// glibc's allocator controls (malloc_trim), which Swift's Glibc module does not bring in.
#include <malloc.h>
#include <dlfcn.h>
#include <stddef.h>
#include <sys/prctl.h>

// Whether malloc is glibc's own: a sanitizer (ASan, TSan) replaces it, and glibc's malloc_trim then
// walks arenas that were never set up.
static inline int maptrip_malloc_is_glibc(void) {
    return dlsym(RTLD_DEFAULT, "__asan_init") == NULL && dlsym(RTLD_DEFAULT, "__tsan_init") == NULL;
}

// Every block malloc returns filled with `byte ^ 0xff`, every freed block with `byte` (M_PERTURB; as
// MALLOC_PERTURB_ does from the environment). Returns mallopt's status (1: done).
static inline int maptrip_malloc_perturb(int byte) { return mallopt(M_PERTURB, byte); }

// Transparent huge pages for the whole process, off (prctl is variadic: Swift cannot call it).
static inline int maptrip_disable_transparent_huge_pages(void) { return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0); }
// Whether they are off for the process: 1, 0, or -1 where the kernel cannot tell.
static inline int maptrip_transparent_huge_pages_disabled(void) { return prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0); }
