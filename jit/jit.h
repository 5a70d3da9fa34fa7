/* jit.h: kernel specification, code generation, compiler tiers and the
 * kernel cache. No Lua here.
 *
 * The JIT is staged (as GraphBLAS' jitifyer): a kernel spec is encoded as
 * a key (signature + pattern + body + target), hashed and looked up; a miss
 * generates source (codegen.c), compiles it (tcc.c, and later cc.c /
 * nvrtc) and inserts the result (cache.c).
 */
#ifndef SK_JIT_H
#define SK_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "../backends/backend.h"

enum { SK_CAP_VIEW, SK_CAP_SCALAR };

/* One capture as the signature sees it (never extents or values). */
typedef struct sk_capture {
  const char *name;
  int kind;            /* SK_CAP_VIEW / SK_CAP_SCALAR */
  int dtype;
  int rank, layout, space;
  unsigned traits;
  int alias;           /* 1 if it shares an allocation with another view */
} sk_capture;

typedef enum sk_redop {
  SK_RED_SUM, SK_RED_PROD, SK_RED_MIN, SK_RED_MAX, SK_RED_MINLOC,
  SK_RED_MAXLOC, SK_RED_MINMAX, SK_RED_LAND, SK_RED_LOR, SK_RED_BAND,
  SK_RED_BOR, SK_RED_CUSTOM, SK_NREDOP
} sk_redop;

typedef struct sk_reducer {
  int op;              /* sk_redop */
  int dtype;
  const char *init;    /* custom: C statements over 'acc' */
  const char *join;    /* custom: C statements over 'dst' and 'src' */
} sk_reducer;

#define SK_MAXRED 16
#define SK_MAXCAP 64

/* SK_TIER_PRE: precompiled into libspeck (kernels/), seeded at start */
enum { SK_TIER_AUTO, SK_TIER_TCC, SK_TIER_CC, SK_TIER_NVRTC, SK_TIER_PRE,
       SK_NTIER };
/* background tier-up state: NONE -> PENDING (queued or compiling) ->
 * READY (staged, installed by the next launch) -> NONE, or -> FAILED
 * (message in cc_err) -> OFF (message shown as the warning; the kernel
 * stays on libtcc code) */
enum { SK_CC_NONE, SK_CC_PENDING, SK_CC_READY, SK_CC_FAILED, SK_CC_OFF };
/* tier-up rule: a kernel on libtcc code moves to the cc tier after this
 * many launches or this much accumulated run time, whichever first */
#define SK_TIERUP_LAUNCHES 8
#define SK_TIERUP_SECONDS 0.005

/* Everything that determines the generated source. */
typedef struct sk_kspec {
  const char *label;
  const char *body;
  size_t body_len;
  const char *prelude;         /* may be NULL */
  int pattern;                 /* sk_pattern */
  int policy_kind;             /* sk_policy_kind */
  int md_rank;
  int ncap;
  const sk_capture *caps;      /* sorted by name */
  int nred;
  const sk_reducer *reds;      /* reduce: 1..SK_MAXRED; scan: 1 (sum) */
  const char *index[SK_MAXMD]; /* index names, NULL = default */
  const char *target;          /* back-end name, for messages only */
  int code;                    /* SK_CODE_*: what to make (the back end's) */
  const char *arch;            /* image targets: "sm_90" (the back end's
                                * 'arch'); NULL or "": compile only */
  int bounds;                  /* bounds-check mode */
  int tier;                    /* requested tier (SK_TIER_*) */
} sk_kspec;

typedef struct sk_ccode {
  void *dl;                    /* dlopen handle */
  void *fn, *init, *join, *layout;
  int from_disk;
  double seconds;              /* compile or load time */
} sk_ccode;

/* One tier's entry points. A kernel's entry for a tier is written once,
 * before the kernel points launches at it, and never changes after. */
typedef struct sk_entry {
  void *fn;
  sk_init_fn init;
  sk_join_fn join;
  int tier;
} sk_entry;

/* A compiled kernel, owned by the cache.
 *
 * Threads: several VMs (threads) launch the same kernel at once. What a
 * launch runs is read through sk_jit_entry (the published 'entry', one
 * consistent triple); compiled code is never freed or replaced while the
 * kernel lives (a tier-up adds code, the old tier's stays loaded until
 * sk_kernel_free), so a launch in flight keeps valid code. Counters are
 * updated with atomics; read them with sk_jit_kstats. Tier changes are
 * serialised per kernel in jit.c. 'fn', 'init', 'join' and 'tier' mirror
 * the best tier's entry for single-threaded callers. */
typedef struct sk_kernel {
  uint64_t hash;
  char *key;
  size_t keylen;
  char *label;
  char *source;
  void *fn;                    /* host: sk_chunk_fn */
  sk_init_fn init;
  sk_join_fn join;
  size_t acc_size;
  int64_t acc_off[SK_MAXRED];  /* byte offset of each reducer's value */
  int nred;
  sk_reducer reds[SK_MAXRED];
  int tier;                    /* tier whose code 'fn' is */
  sk_entry code[SK_NTIER];     /* each tier's entry points (sk_jit_install) */
  const sk_entry *entry;       /* the best tier's: what launches run (atomic) */
  sk_image *image;             /* nvrtc tier: the device code ('fn' NULL) */
  /* the image made launchable by the back end's 'load' on first launch
   * (by exec/); 'dev_unload' is that back end's 'unload', called when the
   * kernel is freed (the JIT never calls a back end itself) */
  void *dev;
  void (*dev_unload)(void *dev);
  int dev_loaded;              /* 'dev' is set (atomic, release) */
  void *tcc_state;
  void *tcc_fn;                /* the libtcc code, kept after a tier-up */
  sk_init_fn tcc_init;
  sk_join_fn tcc_join;
  int want;                    /* requested tier of the latest look-up
                                  (any thread; a thread's own look-up wins) */
  void *cc_dl;                 /* dlopen handle of the cc code */
  int cc_state;                /* SK_CC_*: background tier-up state */
  sk_ccode cc_staged;          /* background result, installed at a launch */
  char cc_err[1024];           /* background failure message */
  struct sk_kernel *bg_next;   /* background queue */
  char warning[1024];          /* cc tier failure, shown in stats */
  /* statistics */
  int64_t launches, hits, compiles[SK_NTIER], tierups, disk_hits;
  double compile_seconds, run_seconds;
  struct sk_kernel *next;      /* hash chain */
  struct sk_kernel *older;     /* insertion order, newest first */
} sk_kernel;

/* A consistent copy of a kernel's statistics (speck.jit.stats). */
typedef struct sk_kstats {
  int tier;
  int64_t launches, hits, compiles[SK_NTIER], tierups, disk_hits;
  double compile_seconds, run_seconds;
  char warning[1024];
} sk_kstats;

/* -- front: look up or build ------------------------------------------ */
/* Find or compile the kernel for 'spec'. On a compile error returns < 0
 * with the compiler's message (lines of the body) in 'err'. */
int sk_jit_get(const sk_kspec *spec, sk_kernel **out, char *err,
               size_t errlen);
/* Seed the cache with precompiled code for 'spec' (tier SK_TIER_PRE):
 * 'fn', 'init', 'join', 'layout' as a generated source defines them. A
 * spec already cached is left alone. Returns < 0 with a message. */
int sk_jit_seed(const sk_kspec *spec, void *fn, void *init, void *join,
                void *layout, char *err, size_t errlen);
/* the hash of the cache key of 'spec' (what sk_jit_get looks up) */
uint64_t sk_jit_key_hash(const sk_kspec *spec);
/* Check a spec before compiling: capture names, index counts of views in
 * the body. Returns < 0 with a message. */
int sk_jit_check(const sk_kspec *spec, char *err, size_t errlen);

/* free a kernel and its compiled code (cache.c owns kernels): only when
 * no launch can be running it (sk_cache_clear, or a kernel never
 * inserted) */
void sk_kernel_free(sk_kernel *k);

/* the body with element updates of 'atomic' views made atomic (malloc'd),
 * or NULL when no capture has the trait */
char *sk_body_atomic(const sk_kspec *spec);

/* -- codegen.c --------------------------------------------------------- */
/* Generated source for 'spec' (malloc'd) or NULL with 'err' filled. */
char *sk_codegen_host(const sk_kspec *spec, char *err, size_t errlen);
/* pieces shared by the host and CUDA generators (codegen.c) */
struct sk_buf;
void sk_cg_header(struct sk_buf *b, const char *text);   /* without #include lines */
const char *sk_cg_slot(int dtype);                        /* sk_slot member */
void sk_cg_index_alias(struct sk_buf *b, const sk_kspec *s, int d,
                       const char *var, const char *indent);
void sk_cg_body(struct sk_buf *b, const sk_kspec *s, const char *indent,
                const char *label, int atomic);
/* 1 if 'name' is a C keyword or a dialect word */
int sk_codegen_reserved(const char *name);
struct sk_buf;
/* the accumulator type with its identity and join: host C (cuda == 0:
 * sk__init, sk__join, sk__layout) or CUDA C++ (reducer type sk__R) */
void sk_codegen_acc(struct sk_buf *b, const sk_kspec *spec, int cuda);
/* host source holding only the accumulator of a GPU kernel (libtcc) */
char *sk_codegen_host_acc(const sk_kspec *spec, char *err, size_t errlen);

/* -- codegen_cuda.c: the CUDA source (NVRTC, C++) ----------------------- */
char *sk_codegen_cuda(const sk_kspec *spec, char *err, size_t errlen);
/* MDRange dimensions in thread order, fastest (threadIdx.x) first */
void sk_codegen_cuda_perm(const sk_kspec *spec, int *perm);

/* -- nvrtc.c: the GPU tier ----------------------------------------------- */
/* Compile 'source' into an image for spec->arch (a cubin; PTX when no
 * architecture is given or NVRTC does not know it), through the disk
 * cache; sets k->image (and, for reduce/scan, the host accumulator).
 * Errors name the body's lines. */
int sk_nvrtc_compile(sk_kernel *k, const sk_kspec *spec, const char *source,
                     char *err, size_t errlen);
void sk_image_free(sk_image *img);
/* Start NVRTC's one-time set-up on a thread of its own (once per process;
 * nothing when NVRTC is missing), so that the first kernel compiles at
 * the warm speed: for exec/, when a back end with a CUDA code target
 * starts. */
void sk_nvrtc_warm(void);
/* NVRTC status for speck.info(): 1 usable, with "NVRTC 13.0 (path)" in
 * buf, else 0 and the reason */
int sk_nvrtc_status(char *buf, size_t n);

/* Install compiled entry points into 'k' (any tier) and make them the
 * ones launches run: 'layout' is the generated sk__layout (accumulator
 * size and offsets, read at the first install only: every tier compiles
 * the same source) or NULL. Each tier is installed at most once; on a
 * kernel other threads can see, the caller serialises (jit.c does). */
void sk_jit_install(sk_kernel *k, void *fn, void *init, void *join,
                    void *layout, int tier);

/* -- tcc.c ------------------------------------------------------------- */
/* Compile 'source' with libtcc into k->tcc_* (and install it as the
 * kernel's code unless the kernel runs cc code). Safe on a kernel other
 * threads launch: the first compile wins, a concurrent one is discarded,
 * and code once published is never freed before sk_kernel_free. */
int sk_tcc_compile(sk_kernel *k, const char *source, char *err,
                   size_t errlen);
void sk_tcc_free(void *state);
/* where libtcc1.a lives; set by the VM from the binary's location. A
 * string returned by sk_tcc_libdir stays valid for the process' life. */
void sk_tcc_set_libdir(const char *dir);
const char *sk_tcc_libdir(void);

/* -- cc.c: the optimising tier ------------------------------------------ */
#define SK_JIT_VERSION "speck-0.1.0-jit1"
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
const char *sk_disk_status(void);   /* the directory, or why disabled */
const char *sk_disk_dir(void);      /* NULL when disabled */
/* < 0 with the message in 'err' when a cache setting is malformed
 * (SPECK_CACHE_MAX); the JIT refuses to compile until it is fixed */
int sk_disk_config(char *err, size_t errlen);
int64_t sk_disk_size(void);         /* bytes in entries of every kind */
int64_t sk_disk_max(void);
/* "123", "1.5K", "256M", "2G" -> bytes; -1 when malformed */
int64_t sk_parse_size(const char *s);
void sk_disk_path(uint64_t key, const char *suffix, char *out, size_t n);
void *sk_disk_read(uint64_t key, const char *suffix, size_t *len);
int sk_disk_check(uint64_t key, const char *suffix, char *path, size_t n);
void sk_disk_tmpname(const char *suffix, char *out, size_t n);
int sk_disk_commit(const char *tmp, uint64_t key, const char *suffix,
                   char *final, size_t n);
int sk_disk_write(uint64_t key, const char *suffix, const void *data,
                  size_t len);
void sk_disk_evict(void);

/* warm the compiler of code target 'code' (SK_CODE_*): NVRTC's set-up
 * for CUDA, nothing for host code */
void sk_jit_warm(int code);

/* -- tiers (jit.c) ------------------------------------------------------ */
/* default tier from SPECK_JIT / speck.initialize{jit=} */
void sk_jit_set_default_tier(int tier);
/* the tier a launch asking for 'requested' gets (SK_TIER_AUTO: the
 * default); -1 with "SPECK_JIT=fast: unknown tier (tcc, cc or auto)" */
int sk_jit_tier(int requested, char *err, size_t errlen);
/* the default tier, for display (auto when SPECK_JIT is malformed) */
int sk_jit_default_tier(void);
/* after each launch: account time, maybe schedule a background tier-up */
void sk_jit_after_launch(sk_kernel *k, double seconds);
/* The entry points a launch should use: the libtcc code when the launch
 * asked for jit = "tcc" (compiled now if the kernel came from the disk
 * cache), else the best tier's. Returns < 0 with a message. */
int sk_jit_entry(sk_kernel *k, void **fn, sk_init_fn *init, sk_join_fn *join,
                 char *err, size_t errlen);
/* install a finished background compile (at launch time) */
void sk_jit_refresh(sk_kernel *k);
/* wait until no background compile is pending (tests, finalize) */
void sk_jit_drain(void);
/* a consistent copy of k's statistics, safe while other threads launch it */
void sk_jit_kstats(sk_kernel *k, sk_kstats *out);

/* -- cache.c ----------------------------------------------------------- */
/* Every function here is safe to call from several threads at once,
 * except sk_cache_clear. */
uint64_t sk_hash(const void *p, size_t n, uint64_t seed);
sk_kernel *sk_cache_find(uint64_t hash, const char *key, size_t keylen);
/* Insert 'k' unless a kernel with the same key is there already (another
 * thread compiled it first); returns the cached kernel, 'k' or that one
 * (the caller then frees 'k', which no one else has seen). */
sk_kernel *sk_cache_insert(sk_kernel *k);
/* the kernel most recently launched (or inserted) under 'label' */
sk_kernel *sk_cache_last(const char *label);
/* note a launch of 'k' under 'label'; labels other than a kernel's first
 * are kept in a table of fixed size (least recently used dropped) */
void sk_cache_label(const char *label, sk_kernel *k);
/* iterate kernels in insertion order; returns NULL at the end */
sk_kernel *sk_cache_next(sk_kernel *prev);
/* free every kernel: only when no thread launches or looks up kernels */
void sk_cache_clear(void);
typedef struct sk_jit_totals {
  int64_t kernels, compiles, hits, tierups;
  double compile_seconds;
} sk_jit_totals;
void sk_cache_totals(sk_jit_totals *t);

#endif
