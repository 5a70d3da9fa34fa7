/* backend.h: the one interface every execution/memory back end fills.
 *
 * A back end is one folder under backends/ that defines a 'struct
 * sk_backend'. 'serial' (backends/host) is the reference table; others
 * start from it and override what they do differently. The registry
 * (backends/registry.c) is the only place that lists them. Functions
 * return 0 or a negative status and fill 'err'; nothing here aborts,
 * prints or knows about Lua.
 */
#ifndef SK_BACKEND_H
#define SK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "core/view.h"

typedef enum sk_pattern { SK_FOR, SK_REDUCE, SK_SCAN } sk_pattern;
typedef enum sk_policy_kind { SK_POL_RANGE, SK_POL_MDRANGE, SK_POL_TEAM } sk_policy_kind;
typedef enum sk_schedule { SK_STATIC, SK_DYNAMIC } sk_schedule;

struct sk_backend;
/* An execution-space instance (speck.Instance, Kokkos' execution space
 * instance): one of a back end's independent queues of work (a GPU's
 * streams). 'handle' is the back end's (its 'instance_create' made it);
 * NULL: the back end's default instance, where launches without one run. */
typedef struct sk_instance {
  const struct sk_backend *backend;
  void *handle;
} sk_instance;

/* An execution policy, validated by exec/ (sk_policy_check) before a
 * back end sees it: team_size and vector_length are then resolved. */
typedef struct sk_policy {
  int kind;           /* sk_policy_kind */
  int schedule;       /* sk_schedule */
  int64_t begin, end; /* range */
  int64_t chunk;      /* 0: back end's choice */
  int md_rank;        /* mdrange */
  int64_t md_lo[SK_MAXMD], md_hi[SK_MAXMD], md_tile[SK_MAXMD];
  int64_t league_size; /* team */
  int team_size, vector_length;
  int64_t scratch_team[2], scratch_thread[2];
  int md_tiled; /* 1: md_tile was given */
  /* range: the fewest indices worth a thread of their own -- a launch of
   * fewer than two grains runs on the calling thread, where waking another
   * costs more than the work (the library's cheap bodies, BLAS-1); 0: the
   * back end splits as it likes. Host back ends only. */
  int64_t grain;
  /* where the launch runs, as Kokkos' policy carries its instance (NULL:
   * the back end's default instance); sk_policy_check refuses an
   * instance of another back end */
  const sk_instance *instance;
} sk_policy;

/* One launch: the compiled code (back-end specific 'fn'), its arguments
 * and, for reduce/scan, the accumulator description. 'result' receives
 * the joined accumulator ('acc_size' bytes); for a scan, the total. */
typedef struct sk_launch {
  const char *label;
  int pattern; /* sk_pattern */
  const sk_policy *policy;
  void *fn; /* host: sk_chunk_fn */
  sk_init_fn init;
  sk_join_fn join;
  size_t acc_size;
  const sk_slot *args;
  int nargs;
  void *result;
  sk_oob *oob; /* bounds-check mode: first bad index */
  /* the policy's instance, its back end's handle (NULL: the default) */
  void *instance;
} sk_launch;

/* What a back end allows for TeamPolicy. */
typedef struct sk_team_limits {
  int team_size_max, team_size_recommended, vector_length_max;
  int64_t scratch_max[2]; /* bytes per team, levels 0 and 1 */
  /* the threads that run in lockstep (a GPU's warp; 1 on the host):
   * library kernels size their vector loops and bitmap words by it */
  int warp;
  /* the processors teams run on at once (a GPU's multiprocessors; 0:
   * unknown): a library kernel sizes a league of one wave by it */
  int processors;
} sk_team_limits;

/* The code a back end runs, as the JIT makes it: host code (a function
 * pointer, launch's 'fn' as is) or a device image (sk_image) the back
 * end loads. Which generator and compiler make it is the JIT's code
 * target that the table's 'target' names; exec/ hands that name to the
 * JIT and never looks at a space's name. */
enum { SK_CODE_HOST, SK_CODE_IMAGE, SK_NCODE };
/* what a back end can do beyond the common patterns */
enum { SK_FEAT_MDRANGE_SCAN = 1 };

/* A device code object made by the JIT (an image target's compiler) with the launch
 * facts the generator decided; a back end whose code target is an image
 * turns it into its launchable form with 'load'. */
typedef struct sk_image {
  char *data; /* a device code object: binary, or NUL-terminated text (malloc'd) */
  size_t size;
  int is_binary; /* 1 binary, 0 text the back end compiles on load */
  char arch[24]; /* the architecture it is for, as 'arch' names it */
  int pattern, policy_kind, md_rank;
  int md_perm[SK_MAXMD]; /* MDRange dims, fastest (threadIdx.x) first */
  int nargs;             /* capture slots the kernel reads */
  int host_visible;      /* 1: a capture may be read by the host right after */
  int bounds;            /* compiled in bounds-check mode */
  int scratch;           /* 1: the body asks for team or thread scratch */
} sk_image;

/* -- memory spaces -----------------------------------------------------
 * A back end brings the memory spaces it allocates, each described here;
 * core/space.c keeps them in one table, by id (host is 0) and by name,
 * and everything that asks "is it host memory", "where does it spill",
 * "which layout by default", "what budget" asks that table. A remote
 * space (a global view over the ranks of a job) names the space each
 * rank's part lives in ('local'); it is made by remote.View, never by
 * name. */
typedef struct sk_space_desc {
  const char *name;    /* what a user writes: space = "host" */
  int id;              /* the id a const table names it by; -1: the next free */
  int host_accessible; /* 1: the CPU loads and stores it directly */
  int default_layout;  /* SK_RIGHT or SK_LEFT (coalesced on a GPU) */
  const char *spill;   /* the space that takes what does not fit, NULL: none */
  const char *local;   /* remote spaces: the space of a rank's part */
  /* the most bytes of views it holds (0: unbounded), described in 'desc';
   * spaces with the same function share one count of held bytes. NULL:
   * not counted */
  uint64_t (*budget)(char *desc, size_t n);
  const char *budget_env; /* the variable behind 'budget', checked at start-up */
  const char *tools_name; /* Kokkos Tools' name of the space ("Host") */
} sk_space_desc;

/* Register a space (a back end's, through sk_backend_register): returns
 * its id, the existing id when the name is known, or -1 with a message. */
int sk_space_register(const sk_space_desc *d, char *err, size_t errlen);
/* the description of space 'id', NULL when no space has it */
const sk_space_desc *sk_space_desc_of(int space);
/* 1 + the largest space id */
int sk_space_count(void);
/* the budget variables the spaces declare ('budget_env'), each once, in
 * registration order, for the start-up check: stops at f's first < 0 */
int sk_space_budget_envs(int (*f)(const char *name, void *ctx), void *ctx);

/* A device, for speck.info()'s 'devices'. */
typedef struct sk_device {
  char name[256];
  char arch[24]; /* the code target's architecture name */
  int multiprocessors;
  uint64_t memory, free;    /* bytes; free 0: unknown */
  int64_t shared_per_block; /* team scratch bytes a block may opt in to */
} sk_device;

/* A vendor BLAS on a back end's memory (column-major, as BLAS): returns
 * 0, SK_VENDOR_MISSING (kernels/blas/vendor.h) or another status. */
typedef struct sk_vendor_blas {
  int (*available)(void);      /* loads it on first call */
  const char *(*status)(void); /* what was loaded, or why not */
  int (*gemm_batched)(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                      double alpha, const void *A, int64_t rsa, int64_t csa, int64_t sta,
                      const void *B, int64_t rsb, int64_t csb, int64_t stb, double beta,
                      void *C, int64_t rsc, int64_t csc, int64_t stc, int64_t batch);
  int (*trsm)(int dtype, char side, char uplo, char trans, char diag, int64_t m,
              int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa, void *B,
              int64_t rsb, int64_t csb);
  int (*syrk)(int dtype, char uplo, char trans, int64_t n, int64_t k, double alpha,
              const void *A, int64_t rsa, int64_t csa, double beta, void *C, int64_t rsc,
              int64_t csc);
  /* complex128 / complex64 gemm, 'N' 'T' 'C'; alpha, beta {re, im}; NULL
   * when the back end has none */
  int (*zgemm)(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
               const double alpha[2], const void *A, int64_t rsa, int64_t csa,
               const void *B, int64_t rsb, int64_t csb, const double beta[2], void *C,
               int64_t rsc, int64_t csc);
} sk_vendor_blas;

/* Symmetric memory over a job's ranks in a back end's device memory (the
 * remote space over it: backends/remote). available: its library loads
 * (else 0 and why). start: collective over 'nranks', given a broadcast of
 * rank 0's bytes. malloc and free are collective (one size everywhere);
 * malloc zeroes. ptr: rank 'pe''s copy of 'p' as this device addresses
 * it, NULL when it cannot load from it. */
typedef struct sk_symmetric {
  int (*available)(char *why, size_t n);
  int (*started)(void);
  int (*start)(int me, int nranks, int (*bcast)(void *buf, int bytes), char *err,
               size_t errlen);
  void *(*malloc)(size_t bytes, char *err, size_t errlen);
  void (*free)(void *p);
  void *(*ptr)(void *p, int pe);
  void (*quiet)(void);
  void (*stop)(void);
  void (*info)(char *buf, size_t n);
} sk_symmetric;

typedef struct sk_backend {
  const char *name;  /* "serial", "openmp", ... */
  /* the environment variables it reads, for --help ("SPECK_X, SPECK_Y");
   * NULL: none of its own */
  const char *env;
  int space;         /* its memory space (new views) */
  int code;          /* SK_CODE_*: what its kernels are made of */
  unsigned features; /* SK_FEAT_* */
  /* 1 if its kernels may read and write memory of 'space' */
  int (*reaches)(int space);
  /* 1 if it allocates and frees memory of 'space' */
  int (*owns)(int space);
  /* image targets: the architecture to compile for ("sm_90"); 0 when no
   * device can be used (compile-only: the JIT picks a default) */
  int (*arch)(char *buf, size_t n);
  /* image targets: make 'img' launchable (the result is sk_launch.fn);
   * the back end copies what it keeps. NULL for host code. */
  void *(*load)(const sk_image *img, const char *label, char *err, size_t errlen);
  void (*unload)(void *code);
  /* set-up: 'threads' <= 0 means the back end's default */
  int (*init)(int threads, int device, char *err, size_t errlen);
  void (*finalize)(void);
  int (*available)(char *why, size_t n); /* 1 yes, 0 no (reason in why) */
  int (*concurrency)(void);
  /* memory */
  void *(*alloc)(size_t bytes, int space, char *err, size_t errlen);
  void (*free)(void *p, int space);
  int (*copy)(void *dst, int dspace, const void *src, int sspace, size_t bytes, char *err,
              size_t errlen);
  /* parallel zero-fill of fresh memory (first touch) */
  void (*first_touch)(void *p, size_t bytes);
  int (*fence)(char *err, size_t errlen);
  /* execution: every pattern and policy (l->pattern, l->policy->kind) */
  int (*launch)(const sk_launch *l, char *err, size_t errlen);
  void (*info)(char *buf, size_t n);
  void (*team_limits)(sk_team_limits *lim);
  /* optional (NULL: none): element-wise copy and fill of views whose
   * memory this back end's kernels reach, in any layout or stride
   * (deep_copy's pack/unpack on a device); 'cell' holds one element */
  int (*copy_view)(const sk_view *dst, const sk_view *src, char *err, size_t errlen);
  int (*fill_view)(const sk_view *v, const void *cell, char *err, size_t errlen);
  /* optional (NULL: unknown): the bytes free in 'space' now (a device's
   * free memory); -1 when unknown */
  int64_t (*room)(int space);
  /* optional (NULL: fixed): give each device thread at least 'bytes' of
   * stack (kernels with recursion, whose frames the compiler cannot add up) */
  int (*stack)(size_t bytes, char *err, size_t errlen);

  /* -- what the back end brings and knows (one folder) ------------------ */
  /* the memory spaces it brings, ending with an entry whose name is NULL
   * (NULL: none; openmp inherits serial's 'host', registered once).
   * Registered with the back end (core/space.c); built-in back ends' at
   * the first question about a space. */
  const sk_space_desc *spaces;
  /* optional (NULL: always 'space'): the space of new views when the back
   * end runs (a GPU's managed memory, when its back end is asked for it) */
  int (*default_space)(void);
  /* optional (NULL: none): its devices for speck.info(), at most 'max'
   * into 'd'; returns how many (0 without a driver) */
  int (*devices)(sk_device *d, int max);
  /* optional (NULL: none): the vendor BLAS its kernels' memory can use
   * (kernels/blas impl = "vendor" on views this back end reaches) */
  const sk_vendor_blas *blas;
  /* optional (NULL: none): symmetric memory for remote views in this back
   * end's 'space' (backends/remote over device memory) */
  const sk_symmetric *symmetric;

  /* -- speck.task (kernels/task) ------------------------------------------ */
  /* optional (NULL: speck.task runs on the host's threads, a host back
   * end's): the back end's own task scheduler, the ops of
   * kernels/task/task.h (sk_task_ops; a GPU's persistent workers) */
  const struct sk_task_ops *tasks;

  /* -- code target ---------------------------------------------------------
   * the name of the JIT's code target that makes this back end's kernels
   * (jit/target.h: its generator, compiler tiers and dialect headers);
   * NULL: host C (libtcc, then the cc tier). It makes what 'code' says. */
  const char *target;

  /* -- execution-space instances (speck.Instance) --------------------------
   * optional (NULL: the back end has its default instance only; its
   * launches and copies are done when they return, so an instance has
   * nothing of its own to wait for). create: a new independent queue of
   * work, in order within itself, unordered with the others' except that
   * its work starts after what the default instance queued before it,
   * and memory is given back only after every instance's earlier work;
   * destroy: give it back (queued work still runs; not waited for);
   * fence: wait for the work queued on it. The launch's instance is
   * sk_launch.instance. copy_async: 'copy' queued on instance 'inst'
   * (contiguous bytes; it may return before the bytes arrive, as its
   * back end documents); 'fence' waits for every instance. */
  void *(*instance_create)(char *err, size_t errlen);
  void (*instance_destroy)(void *inst);
  int (*instance_fence)(void *inst, char *err, size_t errlen);
  int (*copy_async)(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                    void *inst, char *err, size_t errlen);

  /* -- replayed launch sequences (speck.graph_capture, exec/capture.c) -----
   * optional (NULL: nothing to record -- a host back end's launches are
   * done when they return, so a replay runs the captured function again).
   * capture_begin: from now until capture_end, the work queued on the
   * default instance (launches, copy, copy_view, fill_view) is recorded,
   * not run; nothing may wait for it (fence returns at once: the layers
   * above refuse what would need the host, core/runtime.h's
   * sk_capture_refuse). capture_end: the recorded sequence made
   * replayable, its operations' count in *nodes ('abandon': discarded,
   * NULL without a message; else NULL with a message on failure).
   * replay: the sequence 'n' times on the default instance, in order after
   * what it holds (waited for when a recorded kernel reaches
   * host-accessible memory, as such a launch is). replay_free: give it
   * back. */
  int (*capture_begin)(char *err, size_t errlen);
  void *(*capture_end)(int abandon, int64_t *nodes, char *err, size_t errlen);
  int (*replay)(void *seq, int64_t n, char *err, size_t errlen);
  void (*replay_free)(void *seq);
} sk_backend;

/* -- the reference table ------------------------------------------------
 * Serial (backends/host) is the reference: every other table starts from
 * it, as BLIS's configurations start from its reference kernels, and
 * overrides only what it does differently:
 *
 *   SK_FROM_SERIAL_BEGIN
 *   const sk_backend sk_backend_mine = {
 *     SK_FROM_SERIAL,
 *     .name = "mine", .launch = mine_launch, ...
 *   };
 *   SK_FROM_SERIAL_END
 *
 * (later designators override earlier ones: C11 6.7.9; the pragmas
 * silence -Woverride-init for that table only). A table built at run
 * time copies it instead: 't = sk_backend_serial;'. */
#define SK_FROM_SERIAL \
  .name = "serial", .space = SK_SPACE_HOST, .code = SK_CODE_HOST, \
  .features = SK_FEAT_MDRANGE_SCAN, .spaces = sk_serial_spaces, \
  .reaches = sk_serial_reaches, .owns = sk_serial_owns, .init = sk_serial_init, \
  .finalize = sk_serial_finalize, .available = sk_serial_available, \
  .concurrency = sk_serial_concurrency, .alloc = sk_serial_alloc, \
  .free = sk_serial_free, .copy = sk_serial_copy, .first_touch = sk_serial_first_touch, \
  .fence = sk_serial_fence, .launch = sk_serial_launch, .info = sk_serial_info, \
  .team_limits = sk_serial_team_limits
#define SK_FROM_SERIAL_BEGIN \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")
#define SK_FROM_SERIAL_END _Pragma("GCC diagnostic pop")

/* serial's entries (backends/host/host.c) */
extern const sk_space_desc sk_serial_spaces[];
int sk_serial_reaches(int space);
int sk_serial_owns(int space);
int sk_serial_init(int threads, int device, char *err, size_t errlen);
void sk_serial_finalize(void);
int sk_serial_available(char *why, size_t n);
int sk_serial_concurrency(void);
void *sk_serial_alloc(size_t bytes, int space, char *err, size_t errlen);
void sk_serial_free(void *p, int space);
int sk_serial_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                   char *err, size_t errlen);
void sk_serial_first_touch(void *p, size_t bytes);
int sk_serial_fence(char *err, size_t errlen);
int sk_serial_launch(const sk_launch *l, char *err, size_t errlen);
void sk_serial_info(char *buf, size_t n);
void sk_serial_team_limits(sk_team_limits *lim);

/* -- registry ---------------------------------------------------------- */
extern const sk_backend sk_backend_serial;
extern const sk_backend sk_backend_openmp;

const sk_backend *sk_backend_find(const char *name); /* NULL if unknown */
/* the back end that allocates memory of 'space' (the first registered
 * that owns it), NULL if none */
const sk_backend *sk_backend_for_space(int space);
/* add a back end from outside backends/ (tests, plug-ins); its name must
 * be new. Its spaces are registered first (their ids, when assigned, can
 * be read back with sk_space_parse). Returns 0 or -1 with a message. */
int sk_backend_register(const sk_backend *b, char *err, size_t errlen);
/* the back ends in registry order, NULL-terminated */
const sk_backend *const *sk_backend_list(void);
/* back ends that register themselves when started (remote), whose spaces
 * exist from the first use, NULL-terminated */
const sk_backend *const *sk_backend_dormant(void);
/* the first back end (registry order) with a vendor BLAS whose kernels
 * reach 'space', NULL if none */
const sk_backend *sk_backend_blas_for(int space);

/* the floor's services every back end uses */
#include "core/env.h"
#include "core/runtime.h"
#endif
