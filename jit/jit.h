/* jit.h: the JIT's front: compiled kernels, the look-up that builds
 * them, tier-ups, and the kernel cache. No Lua here, no device.
 *
 * The JIT is staged (as GraphBLAS' jitifyer): a kernel spec (spec.h) is
 * encoded as a key (signature + pattern + body + code target), hashed and
 * looked up; a miss generates source (codegen.h), compiles it with a tier
 * (tier.h: tcc, cc, an image target's compiler -- each alone knows
 * nothing of kernels; target.h says which a back end's kernels need) and
 * inserts the result (cache.c). Layers: spec.h <- codegen.h, tier.h <-
 * jit.h; nothing below includes this file.
 */
#ifndef SK_JIT_H
#define SK_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "codegen.h"
#include "spec.h"
#include "target.h"
#include "tier.h"

/* background tier-up state: NONE -> PENDING (queued or compiling) ->
 * READY (staged, installed by the next launch) -> NONE, or -> FAILED
 * (message in cc_err) -> OFF (message shown as the warning; the kernel
 * stays on libtcc code) */
enum { SK_CC_NONE, SK_CC_PENDING, SK_CC_READY, SK_CC_FAILED, SK_CC_OFF };
/* tier-up rule: a kernel on libtcc code moves to the cc tier after this
 * many launches or this much accumulated run time, whichever first */
#define SK_TIERUP_LAUNCHES 8
#define SK_TIERUP_SECONDS  0.005

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
  void *fn; /* host: sk_chunk_fn */
  sk_init_fn init;
  sk_join_fn join;
  size_t acc_size;
  int64_t acc_off[SK_MAXRED]; /* byte offset of each reducer's value */
  int nred;
  sk_reducer reds[SK_MAXRED];
  int tier;                /* tier whose code 'fn' is */
  sk_entry code[SK_NTIER]; /* each tier's entry points (sk_jit_install) */
  const sk_entry *entry;   /* the best tier's: what launches run (atomic) */
  sk_image *image;         /* image tier: the device code ('fn' NULL) */
  /* the image made launchable by the back end's 'load' on first launch
   * (by exec/); 'dev_unload' is that back end's 'unload', called when the
   * kernel is freed (the JIT never calls a back end itself) */
  void *dev;
  void (*dev_unload)(void *dev);
  int dev_loaded; /* 'dev' is set (atomic, release) */
  int user;       /* a user's body (not the library's): polled or kicked */
  void *tcc_state; /* sk_tcc_build's handle */
  void *tcc_fn;    /* the libtcc code, kept after a tier-up */
  sk_init_fn tcc_init;
  sk_join_fn tcc_join;
  int want;                  /* requested tier of the latest look-up
                                  (any thread; a thread's own look-up wins) */
  void *cc_dl;               /* dlopen handle of the cc code */
  int cc_state;              /* SK_CC_*: background tier-up state */
  sk_ccode cc_staged;        /* background result, installed at a launch */
  char cc_err[1024];         /* background failure message */
  struct sk_kernel *bg_next; /* background queue */
  char warning[1024];        /* cc tier failure, shown in stats */
  /* statistics */
  int64_t launches, hits, compiles[SK_NTIER], tierups, disk_hits;
  double compile_seconds, run_seconds;
  struct sk_kernel *next;  /* hash chain */
  struct sk_kernel *older; /* insertion order, newest first */
} sk_kernel;

/* A consistent copy of a kernel's statistics (speck.jit.stats). */
typedef struct sk_kstats {
  int tier;
  int64_t launches, hits, compiles[SK_NTIER], tierups, disk_hits;
  double compile_seconds, run_seconds;
  char warning[1024];
} sk_kstats;

/* -- front: look up or build ------------------------------------------ */
/* A compiler's errors in err, raised with the id of the part its first
 * line names ("body line 3: ..." is SK_E_DIAG_BODY, "prelude line ",
 * "init line ", "join line " likewise; SK_E_MSG for another text), so
 * callers tell a body's error from the generator's by the id. */
int sk_jit_diag(char *err, size_t errlen, const char *log);

/* Find or compile the kernel for 'spec'. On a compile error returns < 0
 * with the compiler's message (lines of the body) in 'err' and its id
 * (sk_jit_diag's) as the thread's last error. */
int sk_jit_get(const sk_kspec *spec, sk_kernel **out, char *err, size_t errlen);
/* sk_jit_get that also says whether the kernel is complex ('*cplx': it
 * runs at the cc tier only), for a caller that keeps the kernel */
int sk_jit_get_cplx(const sk_kspec *spec, sk_kernel **out, int *cplx, char *err,
                    size_t errlen);
/* Kernel 'k', found by sk_jit_get_cplx for a spec of tier 'tier' and kept
 * by its caller (exec's prepared library launches), launched again: what a
 * cache hit does (counts, label, the tier it should reach); -1 with a
 * message when the tier setting is malformed. The caller checks that 'k'
 * is still alive (sk_cache_epoch unchanged). */
int sk_jit_again(sk_kernel *k, const char *label, int tier, int cplx, char *err,
                 size_t errlen);
/* Seed the cache with precompiled code for 'spec' (tier SK_TIER_PRE):
 * 'fn', 'init', 'join', 'layout' as a generated source defines them. A
 * spec already cached is left alone. Returns < 0 with a message. */
int sk_jit_seed(const sk_kspec *spec, void *fn, void *init, void *join, void *layout,
                char *err, size_t errlen);
/* the hash of the cache key of 'spec' (what sk_jit_get looks up) */
uint64_t sk_jit_key_hash(const sk_kspec *spec);

/* free a kernel and its compiled code (cache.c owns kernels): only when
 * no launch can be running it (sk_cache_clear, or a kernel never
 * inserted) */
void sk_kernel_free(sk_kernel *k);

/* Install compiled entry points into 'k' (any tier) and make them the
 * ones launches run: 'layout' is the generated sk__layout (accumulator
 * size and offsets, read at the first install only: every tier compiles
 * the same source) or NULL. Each tier is installed at most once; on a
 * kernel other threads can see, the caller serialises (jit.c does). */
void sk_jit_install(sk_kernel *k, void *fn, void *init, void *join, void *layout,
                    int tier);

/* warm the compiler of the code target named 'target' (a back end's
 * 'target'; NULL: host C) for the architecture 'arch' (the back end's
 * 'arch'; NULL: none or unknown): its 'warm' hook, nothing when it has
 * none */
void sk_jit_warm(const char *target, const char *arch);

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
int sk_jit_entry(sk_kernel *k, void **fn, sk_init_fn *init, sk_join_fn *join, char *err,
                 size_t errlen);
/* install a finished background compile (at launch time) */
void sk_jit_refresh(sk_kernel *k);
/* wait until no background compile is pending (tests, finalize) */
void sk_jit_drain(void);
/* drain, then end the background compiler's thread and wait for it (before
 * the library is unloaded); tier-ups after it start a new one */
void sk_jit_shutdown(void);
/* a consistent copy of k's statistics, safe while other threads launch it */
void sk_jit_kstats(sk_kernel *k, sk_kstats *out);

/* -- cache.c ----------------------------------------------------------- */
/* Every function here is safe to call from several threads at once,
 * except sk_cache_clear. */
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
/* changes at every sk_cache_clear (kernel pointers held elsewhere go stale) */
unsigned sk_cache_epoch(void);
/* 1 if spec 's' uses complex values or words: built by the cc tier only */
int sk_jit_spec_complex(const sk_kspec *s);
typedef struct sk_jit_totals {
  int64_t kernels, compiles, hits, tierups;
  double compile_seconds;
} sk_jit_totals;
void sk_cache_totals(sk_jit_totals *t);

#endif
