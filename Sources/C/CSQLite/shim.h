#pragma once
#include <sqlite3.h>

/* SQLITE_TRANSIENT / SQLITE_STATIC are macros casting -1 / 0 to a destructor pointer. */
static inline sqlite3_destructor_type maptrip_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type maptrip_sqlite_static(void) { return SQLITE_STATIC; }
