#pragma once
#include <curl/curl.h>

/* curl_easy_setopt / getinfo are variadic macros: typed entry points Swift can call. */
static inline CURLcode maptrip_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode maptrip_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode maptrip_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode maptrip_curl_setopt_off_t(CURL *h, CURLoption o, long long v) { return curl_easy_setopt(h, o, (curl_off_t)v); }
static inline CURLcode maptrip_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode maptrip_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode maptrip_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode maptrip_curl_getinfo_string(CURL *h, CURLINFO i, const char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode maptrip_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }

/* CURL_GLOBAL_DEFAULT is a macro built from other macros; give Swift a plain call. */
static inline CURLcode maptrip_curl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/* Size of the buffer CURLOPT_ERRORBUFFER writes into. */
static inline size_t maptrip_curl_error_size(void) { return CURL_ERROR_SIZE; }
