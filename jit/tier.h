/* tier.h: the compilers behind one interface, each usable alone: a
 * tier turns source into a code object (host entry points, or a device
 * image) and knows no kernel, no cache and no device. tcc.c (in-process,
 * instant), cc.c (the system compiler, cached .so) and the disk cache
 * they share (diskcache.c); a device compiler is an image target's
 * 'build' (target.h), declared by its own header.
 */
#ifndef SK_TIER_H
#define SK_TIER_H

#include "core/version.h" /* SPECK_VERSION */
#include "spec.h"

/* FNV-1a, 64 bit: cache keys */
uint64_t sk_hash(const void *p, size_t n, uint64_t seed);

/* Host code made by a tier: the entry points of one generated source
 * (sk__kernel, sk__init, sk__join, sk__layout) and what keeps them alive
 * ('dl': the cc tier's dlopen handle, or the tcc tier's state). */
typedef struct sk_ccode {
  void *dl;
  void *fn, *init, *join, *layout;
  int from_disk;
  double seconds; /* compile or load time */
} sk_ccode;

/* free an image target's image (target.h's 'build', malloc'd with its
 * data) and everything it holds (jit.c) */
void sk_image_free(sk_image *img);

/* -- tcc.c ------------------------------------------------------------- */
/* Compile 'source' with libtcc into memory: out->dl is the libtcc state
 * (free it with sk_tcc_free), the entry points are the source's. Any
 * thread; libtcc itself is serialised inside. */
int sk_tcc_build(const char *source, int user, sk_ccode *out, char *err, size_t errlen);
void sk_tcc_free(void *code);
/* where libtcc1.a lives; set by the VM from the binary's location. A
 * string returned by sk_tcc_libdir stays valid for the process' life. */
void sk_tcc_set_libdir(const char *dir);
const char *sk_tcc_libdir(void);

/* -- cc.c: the optimising tier ------------------------------------------ */
/* part of every cache key: a new speck version never trusts old entries */
#define SK_JIT_VERSION "speck-" SPECK_VERSION "-jit1"
int sk_cc_available(void);
const char *sk_cc_path(void);
const char *sk_cc_ident(void);
const char *sk_cc_flags(void);
const char *sk_cc_why(void);
uint64_t sk_cc_key(const char *source);
/* load from the disk cache only: 1 if found */
int sk_cc_lookup(const char *source, sk_ccode *out);
/* load from the disk cache or compile */
int sk_cc_build(const char *source, sk_ccode *out, char *err, size_t errlen);

/* -- diskcache.c -------------------------------------------------------- */
int sk_disk_enabled(void);
const char *sk_disk_status(void); /* the directory, or why disabled */
const char *sk_disk_dir(void);    /* NULL when disabled */
/* < 0 with the message in 'err' when a cache setting is malformed
 * (SPECK_CACHE_MAX); the JIT refuses to compile until it is fixed */
int sk_disk_config(char *err, size_t errlen);
int64_t sk_disk_size(void); /* bytes in entries of every kind */
int64_t sk_disk_max(void);
void sk_disk_path(uint64_t key, const char *suffix, char *out, size_t n);
void *sk_disk_read(uint64_t key, const char *suffix, size_t *len);
int sk_disk_check(uint64_t key, const char *suffix, char *path, size_t n);
void sk_disk_tmpname(const char *suffix, char *out, size_t n);
int sk_disk_commit(const char *tmp, uint64_t key, const char *suffix, char *final,
                   size_t n);
int sk_disk_write(uint64_t key, const char *suffix, const void *data, size_t len);
void sk_disk_evict(void);
/* A new entry other processes may be compiling at the same time (device
 * images): its payload once another process has written it (malloc'd),
 * else NULL with *claimed set when this process now holds the claim to
 * compile it -- then sk_disk_unclaim after writing it or failing. */
void *sk_disk_await(uint64_t key, const char *suffix, size_t *len, int *claimed);
void sk_disk_unclaim(uint64_t key, const char *suffix);
/* The shelf: entries made at build time in the cache's format and keys
 * (speck-kgen --images: the library's device images), read-only, in
 * SPECK_PREBUILT (a folder, or "off"), else <prefix>/share/speck/images.
 * The payload (malloc'd) or NULL; a bad entry is passed over, never
 * removed. Looked at before the cache, whether the cache is on or not. */
void *sk_disk_shelf_read(uint64_t key, const char *suffix, size_t *len);
const char *sk_disk_shelf_dir(void); /* NULL when off */
/* another folder for it (a luarocks tree's: vm/lpath.c); not when off */
void sk_disk_shelf_set(const char *dir);
int64_t sk_disk_shelf_hits(void);    /* entries this process read from it */
/* 1 when process 'pid' no longer runs (gone, or a zombie); never this one:
 * what it left in a shared folder may be removed */
int sk_pid_gone(long pid);

#endif
