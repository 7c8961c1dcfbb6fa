#pragma once
// glibc's allocator controls (malloc_trim), which Swift's Glibc module does not bring in.
#include <malloc.h>
