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
enum { SK_CC_NONE, SK_CC_PENDING, SK_CC_READY, SK_CC_FAILED };
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
  const char *target;          /* back-end name, for messages */
  int code;                    /* SK_CODE_*: what to compile to */
  int bounds;                  /* bounds-check mode */
  int tier;                    /* requested tier (SK_TIER_*) */
} sk_kspec;

typedef struct sk_ccode {
  void *dl;                    /* dlopen handle */
  void *fn, *init, *join, *layout;
  int from_disk;
  double seconds;              /* compile or load time */
} sk_ccode;

/* A compiled kernel, owned by the cache. */
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
  void *gpu;                   /* nvrtc tier: the sk_cuda_code ('fn') */
  void *tcc_state;
  void *tcc_fn;                /* the libtcc code, kept after a tier-up */
  sk_init_fn tcc_init;
  sk_join_fn tcc_join;
  int want;                    /* requested tier of the latest launch */
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

/* free a kernel and its compiled code (cache.c owns kernels) */
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
/* Compile 'source' for the device (cubin; PTX when no device or the arch
 * is newer than NVRTC), through the disk cache; installs the code in 'k'
 * (k->gpu, k->fn). Errors name the body's lines. */
int sk_nvrtc_compile(sk_kernel *k, const sk_kspec *spec, const char *source,
                     char *err, size_t errlen);
void sk_nvrtc_free(void *gpu);
/* NVRTC status for speck.info(): 1 usable, with "NVRTC 13.0 (path)" in
 * buf, else 0 and the reason */
int sk_nvrtc_status(char *buf, size_t n);

/* Install compiled entry points into 'k' (any tier): 'layout' is the
 * generated sk__layout (accumulator size and offsets) or NULL. */
void sk_jit_install(sk_kernel *k, void *fn, void *init, void *join,
                    void *layout, int tier);

/* -- tcc.c ------------------------------------------------------------- */
int sk_tcc_compile(sk_kernel *k, const char *source, char *err,
                   size_t errlen);
void sk_tcc_free(void *state);
/* where libtcc1.a lives; set by the VM from the binary's location */
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
int64_t sk_disk_size(void);
int64_t sk_disk_max(void);
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
/* drain, then join the background compiler (before the library's code
 * may be unloaded) */
void sk_jit_stop(void);

/* -- cache.c ----------------------------------------------------------- */
uint64_t sk_hash(const void *p, size_t n, uint64_t seed);
sk_kernel *sk_cache_find(uint64_t hash, const char *key, size_t keylen);
void sk_cache_insert(sk_kernel *k);
sk_kernel *sk_cache_last(const char *label);       /* latest by label */
/* remember that 'k' was launched under 'label' (not its first label) */
void sk_cache_label(const char *label, sk_kernel *k);
/* iterate kernels in insertion order; returns NULL at the end */
sk_kernel *sk_cache_next(sk_kernel *prev);
void sk_cache_clear(void);
typedef struct sk_jit_totals {
  int64_t kernels, compiles, hits, tierups;
  double compile_seconds;
} sk_jit_totals;
void sk_cache_totals(sk_jit_totals *t);

#endif
