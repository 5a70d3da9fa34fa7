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

#include "view.h"

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
} sk_team_limits;

/* The code a back end runs, as the JIT makes it: host C compiled in
 * process (a function pointer, launch's 'fn' as is), or CUDA C++ compiled
 * by NVRTC into an image the back end loads. exec/ asks the JIT for the
 * back end's 'code' and never looks at a space's name. */
enum { SK_CODE_HOST, SK_CODE_CUDA, SK_NCODE };
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


/* -- runtime (backends/runtime.c): the active back end ---------------- */
/* Initialise with 'space' (NULL: SPECK_SPACE or "openmp") and 'threads'
 * (<= 0: SPECK_THREADS, OMP_NUM_THREADS or the core count). Can be called
 * again after sk_rt_finalize. */
int sk_rt_initialize(const char *space, int threads, int device, char *err,
                     size_t errlen);
void sk_rt_finalize(void);
int sk_rt_initialized(void);
/* the active back end, initialising with the defaults on first use;
 * NULL only if that failed (message in 'err') */
const sk_backend *sk_rt_backend(char *err, size_t errlen);
int sk_rt_threads(void);
/* the space of new views (the active back end's; see runtime.c), or -1
 * with a message when no back end can be initialised */
int sk_rt_default_space(char *err, size_t errlen);

/* The settings of an initialisation; a member left unset means "not
 * given": the environment's value or the default is used, and a second
 * initialisation does not compare it. */
typedef struct sk_rt_settings {
  const char *space;   /* NULL: SPECK_SPACE, else "openmp" */
  int threads;         /* <= 0: SPECK_THREADS, OMP_NUM_THREADS, the cores */
  int device;          /* < 0: device 0 */
} sk_rt_settings;
/* Start the runtime with 's' (after checking the environment, env.c). If
 * it runs already, nothing is restarted: every setting 's' gives must
 * equal the running one, else -1 with "already running with threads 2,
 * asked for 4 (...)". sk_rt_initialize is this with every setting given
 * ('device' >= 0). */
int sk_rt_start(const sk_rt_settings *s, char *err, size_t errlen);
/* Wait for the work of a space: NULL the active back end (initialising
 * it on first use), else a back end's name or a memory space's (the back
 * end that owns it). An unknown name is an error listing the known ones. */
int sk_rt_fence(const char *space, char *err, size_t errlen);

/* -- interrupts (backends/runtime.c) ------------------------------------ */
/* A request that running launches stop at their next chunk boundary
 * (Ctrl-C in the REPL). Setting it is one lock-free atomic store, safe in
 * a signal handler; the host back ends read it between the pieces of a
 * launch and end the launch with the error SK_INTERRUPTED, every view
 * keeping what the finished pieces wrote. It stays set (so a loop of
 * launches stops too) until the front end clears it before new work. */
#define SK_INTERRUPTED "interrupted"
/* returns 1 when an interruptible launch was running (it will stop) */
int sk_interrupt_request(void);
void sk_interrupt_clear(void);
int sk_interrupted(void);
/* an interruptible launch starts / ends (the host back ends) */
void sk_interruptible_enter(void);
void sk_interruptible_leave(void);

/* -- host memory ---------------------------------------------------------- */
/* The most memory this process can have on the host -- RAM and swap, or a
 * lower cgroup or ulimit -v limit; 0 when unknown -- described in 'desc'
 * ("this machine's 23.5 GiB of RAM and swap"). (backends/host) */
uint64_t sk_host_memory(char *desc, size_t n);
/* bytes of host memory held by live views speck allocated, in host and
 * cuda_pinned memory (view.c) */
int64_t sk_view_host_bytes(void);
/* 0 when 'bytes' more fit beside the views held, else -1 with "cannot
 * allocate N bytes in space 'host' (with M bytes of views held, more than
 * <desc>)": for a driver, before the first of several allocations */
int sk_host_room(uint64_t bytes, char *err, size_t errlen);
/* The device memory budget SPECK_CUDA_MEMORY_MAX (backends/env.c): the
 * most bytes of views in device memory (cuda, cuda_uvm), described in 'desc'; 0 when
 * unset (the device's own size is the limit) */
uint64_t sk_device_memory(char *desc, size_t n);
/* Bytes that may still be allocated in 'space' (view.c): its budget (host
 * memory for host and cuda_pinned, SPECK_CUDA_MEMORY_MAX for cuda and
 * cuda_uvm) less
 * the views held there, and no more than its back end's free memory
 * ('room'); -1 when nothing bounds it */
int64_t sk_space_room(int space);

/* -- environment settings (backends/env.c) ------------------------------ */
/* Parsed in one place; a malformed value is an error "NAME=value: what is
 * wrong". Each returns 0 when the variable is unset or empty, 1 with the
 * value, -1 with the message. */
#define SK_THREADS_MAX 1024   /* the largest host thread pool */
const char *sk_env_get(const char *name);   /* NULL when unset or empty */
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
/* "serial, openmp or cuda" (with 'memory': and the other memory spaces) */
void sk_env_space_names(char *buf, size_t n, int memory);
/* a positive number of seconds (a fraction allowed) at most 'max' */
int sk_env_seconds(const char *name, double max, double *out, char *err,
                   size_t errlen);
/* SPECK_CC_TIMEOUT: the longest a cc-tier compile may run before it is
 * killed (the kernel stays on libtcc code with a warning) */
#define SK_CC_TIMEOUT_DEFAULT 60.0
int sk_env_cc_timeout(double *seconds, char *err, size_t errlen);
/* every setting above: 0 or -1 with the first message (runtime start-up,
 * the CLI) */
int sk_env_check(char *err, size_t errlen);
#endif
