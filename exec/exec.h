/* exec.h: the launch path in C, below every front end.
 *
 * 'sk_run' is what Lua (vm/), C programs (speck.h's kernel API) and the
 * library's drivers (kernels/) all call: it checks the policy for the
 * target back end (the one place policies are validated), turns the
 * arguments into a signature and an argument block, finds or compiles the
 * kernel (jit/), launches it through the back-end table and finishes
 * reductions and scans. Nothing here knows Lua; errors are a negative
 * status and a message without the caller's name (the caller prefixes
 * "fname 'label': ").
 */
#ifndef SK_EXEC_H
#define SK_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/backend.h"
#include "../jit/jit.h"

/* One kernel argument, by capture name: a view, or a scalar of 'dtype'
 * whose value sits in the slot member of that dtype, or a string ('str'
 * set: options of library entries such as a mode "T" or a file name;
 * never a capture, sk_run refuses it). Names must stay alive for the
 * call. */
typedef struct sk_arg {
  const char *name;
  const sk_view *view; /* NULL: a scalar or a string */
  int dtype;           /* scalar only */
  sk_slot value;       /* scalar only */
  const char *str;     /* string only */
  int ro;              /* a view the kernel only reads (sk_arg_view_ro) */
} sk_arg;

sk_arg sk_arg_view(const char *name, const sk_view *v);
/* A view the kernel only reads: the launch leaves its allocation's write
 * stamp as it is (core/view.h's sk_alloc_written; every other view
 * capture counts as a write). A library kernel's promise, for the index
 * arrays of a matrix whose memo (kernels/sparse/csr16.c) must outlive
 * the calls that read it. */
sk_arg sk_arg_view_ro(const char *name, const sk_view *v);
sk_arg sk_arg_f64(const char *name, double x);
sk_arg sk_arg_i64(const char *name, int64_t x);
sk_arg sk_arg_str(const char *name, const char *s);

/* What to run, without data: the body and how it reduces. */
typedef struct sk_kdesc {
  const char *label;
  const char *body;
  size_t body_len;     /* 0: strlen(body) */
  const char *prelude; /* NULL: none */
  int pattern;         /* sk_pattern */
  int nred;            /* reduce: 1..SK_MAXRED (0: one sum) */
  sk_reducer reds[SK_MAXRED];
  int scan_dtype;              /* scan accumulator (0 = float64) */
  const char *index[SK_MAXMD]; /* index names, NULL: the defaults */
  int tier;                    /* SK_TIER_*, AUTO: the default */
  int bounds;                  /* -1: the default (SPECK_BOUNDS_CHECK) */
  const sk_backend *backend;   /* NULL: the active back end */
  int library;                 /* 1: kernels/' own text (trusted) */
  /* an image back end's architecture to compile for ("sm_90"; NULL: the
   * back end's device's): compile only (speck-kgen --images) */
  const char *arch;
} sk_kdesc;

/* A finished launch: the joined accumulators ('acc', laid out as the
 * kernel's reducers say) and the kernel that made them. */
typedef struct sk_result {
  _Alignas(64) unsigned char acc[1024];
  const sk_kernel *k;
} sk_result;

/* Run 'd' over 'p' with 'args' (any order; 'nargs' <= SK_MAXCAP).
 * 'res' may be NULL for a parallel_for. The policy is checked (and its
 * "auto" team sizes resolved) before anything is compiled. */
int sk_run(const sk_kdesc *d, const sk_policy *p, const sk_arg *args, int nargs,
           sk_result *res, char *err, size_t errlen);

/* -- launches kept by their caller ---------------------------------------
 * A caller that launches one body again and again with the same capture
 * names in the same order (a library driver: sk_kbody_run) keeps an
 * 'sk_lprep' per body and thread. sk_run_keep is sk_run that also fills
 * 'f' (for 'owner', the body's address: its descriptor's strings must
 * stay alive as long as 'f'; the capture names are copied); sk_run_again
 * launches from 'f' when it still holds: the same owner, capture names in
 * the same order,
 * signature, back end, bounds mode, policy kind and cache epoch (a
 * cleared cache frees kernels) -- no sorting, spec, key or look-up; the
 * policy is checked and the launch counted as a cache hit. It returns 1
 * when 'f' does not hold (nothing done: the caller calls sk_run_keep),
 * else sk_run's status. A descriptor with its own back end or bounds mode,
 * more than SK_LPREP_MAXCAP captures, a name of SK_LPREP_NAMELEN bytes or
 * more, or a running capture
 * (speck.graph_capture) always takes the general path. */
#define SK_LPREP_MAXCAP 16
#define SK_LPREP_NAMELEN 24
typedef struct sk_lprep {
  const void *owner; /* NULL: empty */
  unsigned epoch;
  const sk_backend *b;
  sk_kernel *k;
  const char *label;
  int pattern, pol_kind, md_rank, bounds, tier, cplx, n;
  char arch[24]; /* an image target's architecture ("": none) */
  signed char pos[SK_LPREP_MAXCAP];  /* args[i] is capture pos[i] */
  sk_capture caps[SK_LPREP_MAXCAP]; /* the signature, sorted by name */
  char names[SK_LPREP_MAXCAP][SK_LPREP_NAMELEN]; /* caps' names, owned */
} sk_lprep;
int sk_run_keep(sk_lprep *f, const void *owner, const sk_kdesc *d, const sk_policy *p,
                const sk_arg *args, int nargs, sk_result *res, char *err, size_t errlen);
int sk_run_again(sk_lprep *f, const void *owner, const sk_policy *p, const sk_arg *args,
                 int nargs, sk_result *res, char *err, size_t errlen);

/* Reducer 'r' of a result as a double / as an int64 (minloc and maxloc:
 * the value; their location with sk_result_loc). */
double sk_result_f64(const sk_result *res, int r);
int64_t sk_result_i64(const sk_result *res, int r);
int64_t sk_result_loc(const sk_result *res, int r); /* -1: none */
/* minmax: the max half */
const void *sk_result_ptr(const sk_result *res, int r);

/* The kernel spec sk_run would build for 'd', a policy kind and the
 * signature of 'args' on a back end of code target 'code' (values
 * ignored; spaces not checked): for the library's build-time generator
 * and the seeding of its precompiled kernels. 'st' holds what the spec
 * points at. */
typedef struct sk_spec_store {
  sk_kspec spec;
  sk_capture caps[SK_MAXCAP];
  sk_reducer reds[SK_MAXRED];
  char names[SK_MAXCAP][48]; /* capture names a caller may keep here */
} sk_spec_store;
int sk_exec_spec(const sk_kdesc *d, int pol_kind, int md_rank, const sk_arg *args,
                 int nargs, const sk_backend *b, sk_spec_store *st, char *err,
                 size_t errlen);

/* -- reducers ------------------------------------------------------------- */
int sk_redop_find(const char *name); /* SK_RED_*, -1 unknown */
const char *sk_redop_name(int op);
int sk_redop_default_dtype(int op);
/* a reducer's op and dtype agree (band/bor need integers, custom needs
 * code) */
int sk_reducer_check(const sk_reducer *r, char *err, size_t errlen);

/* -- policies (policy.c): the one place they are validated ------------- */
/* "auto" team size / vector length in sk_policy (Lua spells it "auto") */
#define SK_AUTO (-2147483647 - 1)
/* Check 'p' for 'pattern' (-1: any, at construction) on back end 'b'
 * (NULL: not yet known), resolving "auto" team sizes when 'b' is given.
 * Messages name the policy's field ("range end -1 is negative"). */
int sk_policy_check(sk_policy *p, int pattern, const sk_backend *b, char *err,
                    size_t errlen);
/* sk_policy_check of a range or MDRange policy, which has nothing to
 * resolve, in place (a TeamPolicy's sizes are not resolved: use
 * sk_policy_check on a copy) */
int sk_policy_check_const(const sk_policy *p, int pattern, const sk_backend *b,
                          char *err, size_t errlen);
/* a policy of 'kind' with every field at its default (automatic team
 * size and vector length, the rest 0): an initializer, and the same as a
 * call */
#define SK_POLICY_INIT(k) {.kind = (k), .team_size = SK_AUTO, .vector_length = SK_AUTO}
void sk_policy_init(sk_policy *p, int kind);
/* dispatch a checked launch to the entry of 'b' for its pattern/policy */
int sk_policy_launch(const sk_backend *b, const sk_launch *l, char *err, size_t errlen);

/* -- prepared kernels (speck.kernel): compile once, launch many -------- */
typedef struct sk_prepared sk_prepared;
/* Compile 'd' for policy kind 'pol_kind' (MDRange rank 'md_rank') and the
 * signature of 'args' (values ignored). With 'compile_only' the captures'
 * spaces are not checked against the back end (a device compiler checks on a machine
 * without a GPU). */
sk_prepared *sk_prepare(const sk_kdesc *d, int pol_kind, int md_rank, const sk_arg *args,
                        int nargs, int compile_only, char *err, size_t errlen);
/* launch with new data of the same signature */
int sk_run_prepared(sk_prepared *h, const sk_policy *p, const sk_arg *args, int nargs,
                    sk_result *res, char *err, size_t errlen);
const sk_kernel *sk_prepared_kernel(const sk_prepared *h);
/* the label the handle was made with (its kernel may carry another:
 * kernels are shared by content) */
const char *sk_prepared_label(const sk_prepared *h);
int sk_prepared_pattern(const sk_prepared *h);
void sk_prepared_free(sk_prepared *h);

/* start the one-time set-up of the active back end's compiler (a device compiler's,
 * on a thread of its own), so its first kernel compiles at warm speed */
void sk_exec_warm(void);

/* -- captures (capture.c): speck.graph_capture ----------------------------
 * A capture records the launches, copies and fills a piece of code makes
 * on the active back end's default instance, for replay. 'record' 0: a
 * check pass (the code runs; what needs the host is refused,
 * core/runtime.h); 1: the back end records when it can (its table's
 * capture entries), else a check pass. A second capture while one runs is
 * refused. sk_capture_end ends it: 'abandon' discards it, else *out is a
 * new handle (recorded: the back end replays it; not recorded: the front
 * end replays by running the code again). */
typedef struct sk_launch_graph {
  const sk_backend *backend;
  void *seq;          /* the back end's recorded sequence; NULL: run again */
  int64_t launches;   /* kernel launches (sk_run calls) captured */
  int64_t copies;     /* deep_copy and fill operations captured */
  int64_t nodes;      /* the back end's recorded operations (0: none) */
  int64_t replays;    /* replays so far */
} sk_launch_graph;
int sk_capture_begin(int record, char *err, size_t errlen);
int sk_capture_end(int abandon, sk_launch_graph **out, char *err, size_t errlen);
/* 1 when the active back end records (has capture entries) */
int sk_capture_records(void);
/* replay a recorded capture 'n' times (c->seq not NULL) */
int sk_capture_replay(sk_launch_graph *c, int64_t n, char *err, size_t errlen);
void sk_capture_free(sk_launch_graph *c);

/* -- installation (exec.c; the prefix itself: core/env.h's sk_prefix) ---- */
/* point the tcc tier at libtcc1.a: SPECK_TCC_LIBDIR, else the prefix's */
void sk_exec_setup_tcc(void);

/* -- settings ------------------------------------------------------------ */
/* bounds-check mode for launches that do not choose: SPECK_BOUNDS_CHECK=1
 * or set here (-1: back to the environment's) */
void sk_exec_set_bounds(int on);
int sk_exec_bounds(void);

#endif
