/* env.h: speck's environment settings, parsed in one place (core/env.c). */
#ifndef SK_ENV_H
#define SK_ENV_H

#include <stddef.h>
#include <stdint.h>

/* -- environment settings (core/env.c) ------------------------------ */
/* Parsed in one place; a malformed value is an error "NAME=value: what is
 * wrong". Each returns 0 when the variable is unset or empty, 1 with the
 * value, -1 with the message. */
#define SK_THREADS_MAX 1024               /* the largest host thread pool */
const char *sk_env_get(const char *name); /* NULL when unset or empty */
/* a size: digits with an optional fraction, then nothing or K, M, G
 * (powers of 1024); -1 when malformed (SPECK_CACHE_MAX, SPECK_MEMORY_MAX) */
int64_t sk_parse_size(const char *s);
/* a positive integer at most 'max' */
int sk_env_count(const char *name, int max, int *out, char *err, size_t errlen);
/* SPECK_THREADS, else the first entry of OMP_NUM_THREADS */
int sk_env_threads(int *threads, char *err, size_t errlen);
/* SPECK_JIT: 0 auto, 1 tcc, 2 cc (jit.h's SK_TIER_* order; 0 when unset) */
int sk_env_jit(int *tier, char *err, size_t errlen);
const char *sk_env_jit_name(int tier);
/* SPECK_SPACE: a registered back end's name */
int sk_env_space(const char **space, char *err, size_t errlen);
/* the registered back ends' names, "serial, openmp or ..." (with 'memory': and the other memory spaces) */
void sk_env_space_names(char *buf, size_t n, int memory);
/* a positive number of seconds (a fraction allowed) at most 'max' */
int sk_env_seconds(const char *name, double max, double *out, char *err, size_t errlen);
/* SPECK_CC_TIMEOUT: the longest a cc-tier compile may run before it is
 * killed (the kernel stays on libtcc code with a warning) */
#define SK_CC_TIMEOUT_DEFAULT 60.0
int sk_env_cc_timeout(double *seconds, char *err, size_t errlen);
/* every setting above: 0 or -1 with the first message (runtime start-up,
 * the CLI) */
int sk_env_check(char *err, size_t errlen);

/* -- installation (core/prefix.c) ---------------------------------------- */
/* The installation prefix (<prefix>/lib/libspeck.so, <prefix>/share/lua...):
 * the nearest folder at or above the object holding this code with
 * share/lua/5.4/speck.lua in it, else the standard layout's. Static. */
const char *sk_prefix(void);
#endif
