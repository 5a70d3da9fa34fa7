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
typedef enum sk_policy_kind { SK_POL_RANGE, SK_POL_MDRANGE, SK_POL_TEAM }
  sk_policy_kind;
typedef enum sk_schedule { SK_STATIC, SK_DYNAMIC } sk_schedule;

/* An execution policy, validated by exec/ (sk_policy_check) before a
 * back end sees it: team_size and vector_length are then resolved. */
typedef struct sk_policy {
  int kind;             /* sk_policy_kind */
  int schedule;         /* sk_schedule */
  int64_t begin, end;   /* range */
  int64_t chunk;        /* 0: back end's choice */
  int md_rank;          /* mdrange */
  int64_t md_lo[SK_MAXMD], md_hi[SK_MAXMD], md_tile[SK_MAXMD];
  int64_t league_size;  /* team */
  int team_size, vector_length;
  int64_t scratch_team[2], scratch_thread[2];
  int md_tiled;         /* 1: md_tile was given */
} sk_policy;

/* One launch: the compiled code (back-end specific 'fn'), its arguments
 * and, for reduce/scan, the accumulator description. 'result' receives
 * the joined accumulator ('acc_size' bytes); for a scan, the total. */
typedef struct sk_launch {
  const char *label;
  int pattern;                  /* sk_pattern */
  const sk_policy *policy;
  void *fn;                     /* host: sk_chunk_fn */
  sk_init_fn init;
  sk_join_fn join;
  size_t acc_size;
  const sk_slot *args;
  int nargs;
  void *result;
  sk_oob *oob;                  /* bounds-check mode: first bad index */
} sk_launch;

/* What a back end allows for TeamPolicy. */
typedef struct sk_team_limits {
  int team_size_max, team_size_recommended, vector_length_max;
  int64_t scratch_max[2];       /* bytes per team, levels 0 and 1 */
  /* the threads that run in lockstep (a GPU's warp; 1 on the host):
   * library kernels size their vector loops and bitmap words by it */
  int warp;
} sk_team_limits;

/* The code a back end runs, as the JIT makes it: host code (a function
 * pointer, launch's 'fn' as is) or a device image (sk_image) the back
 * end loads. Which generator and compiler make it is the JIT's code
 * target that the table's 'target' names; exec/ hands that name to the
 * JIT and never looks at a space's name. */
enum { SK_CODE_HOST, SK_CODE_IMAGE, SK_NCODE };
/* what a back end can do beyond the common patterns */
enum { SK_FEAT_MDRANGE_SCAN = 1 };

/* A device code object made by the JIT (jit/nvrtc.c) with the launch
 * facts the generator decided; a back end whose code target is an image
 * turns it into its launchable form with 'load'. */
typedef struct sk_image {
  char *data;            /* cubin or NUL-terminated PTX (malloc'd) */
  size_t size;
  int is_binary;         /* 1 cubin, 0 PTX */
  char arch[24];         /* "sm_90" or "compute_90" */
  int pattern, policy_kind, md_rank;
  int md_perm[SK_MAXMD]; /* MDRange dims, fastest (threadIdx.x) first */
  int nargs;             /* capture slots the kernel reads */
  int host_visible;      /* 1: a capture may be read by the host right after */
  int bounds;            /* compiled in bounds-check mode */
  int scratch;           /* 1: the body asks for team or thread scratch */
} sk_image;

typedef struct sk_backend {
  const char *name;             /* "serial", "openmp", "cuda" */
  int space;                    /* its memory space (new views) */
  int code;                     /* SK_CODE_*: what its kernels are made of */
  unsigned features;            /* SK_FEAT_* */
  /* 1 if its kernels may read and write memory of 'space' */
  int (*reaches)(int space);
  /* 1 if it allocates and frees memory of 'space' */
  int (*owns)(int space);
  /* image targets: the architecture to compile for ("sm_90"); 0 when no
   * device can be used (compile-only: the JIT picks a default) */
  int (*arch)(char *buf, size_t n);
  /* image targets: make 'img' launchable (the result is sk_launch.fn);
   * the back end copies what it keeps. NULL for host code. */
  void *(*load)(const sk_image *img, const char *label, char *err,
                size_t errlen);
  void (*unload)(void *code);
  /* set-up: 'threads' <= 0 means the back end's default */
  int (*init)(int threads, int device, char *err, size_t errlen);
  void (*finalize)(void);
  int (*available)(char *why, size_t n);   /* 1 yes, 0 no (reason in why) */
  int (*concurrency)(void);
  /* memory */
  void *(*alloc)(size_t bytes, int space, char *err, size_t errlen);
  void (*free)(void *p, int space);
  int (*copy)(void *dst, int dspace, const void *src, int sspace,
              size_t bytes, char *err, size_t errlen);
  /* parallel zero-fill of fresh memory (first touch) */
  void (*first_touch)(void *p, size_t bytes);
  int (*fence)(char *err, size_t errlen);
  /* execution */
  int (*launch_range)(const sk_launch *l, char *err, size_t errlen);
  int (*launch_mdrange)(const sk_launch *l, char *err, size_t errlen);
  int (*launch_team)(const sk_launch *l, char *err, size_t errlen);
  int (*launch_reduce)(const sk_launch *l, char *err, size_t errlen);
  int (*launch_scan)(const sk_launch *l, char *err, size_t errlen);
  void (*info)(char *buf, size_t n);
  void (*team_limits)(sk_team_limits *lim);
  /* optional (NULL: none): element-wise copy and fill of views whose
   * memory this back end's kernels reach, in any layout or stride
   * (deep_copy's pack/unpack on a device); 'cell' holds one element */
  int (*copy_view)(const sk_view *dst, const sk_view *src, char *err,
                   size_t errlen);
  int (*fill_view)(const sk_view *v, const void *cell, char *err,
                   size_t errlen);
  /* optional (NULL: unknown): the bytes free in 'space' now (a device's
   * free memory); -1 when unknown */
  int64_t (*room)(int space);
  /* optional (NULL: fixed): give each device thread at least 'bytes' of
   * stack (kernels with recursion, whose frames the compiler cannot add up) */
  int (*stack)(size_t bytes, char *err, size_t errlen);
  /* -- code target ---------------------------------------------------------
   * the name of the JIT's code target that makes this back end's kernels
   * (jit/target.h: its generator, compiler tiers and dialect headers);
   * NULL: host C (libtcc, then the cc tier). It makes what 'code' says. */
  const char *target;
} sk_backend;

/* -- registry ---------------------------------------------------------- */
extern const sk_backend sk_backend_serial;
extern const sk_backend sk_backend_openmp;
extern const sk_backend sk_backend_cuda;

const sk_backend *sk_backend_find(const char *name);   /* NULL if unknown */
/* the back end that allocates memory of 'space' (the first registered
 * that owns it), NULL if none */
const sk_backend *sk_backend_for_space(int space);
/* add a back end from outside backends/ (tests, plug-ins); its name must
 * be new. Returns 0 or -1 with a message. */
int sk_backend_register(const sk_backend *b, char *err, size_t errlen);
/* the back ends in registry order, NULL-terminated */
const sk_backend *const *sk_backend_list(void);

/* the floor's services every back end uses */
#include "core/env.h"
#include "core/runtime.h"
#endif
