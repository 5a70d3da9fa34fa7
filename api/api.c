/* api.c: the C kernel API of speck.h: runtimes, views and kernels with no
 * Lua state. Each call turns its arguments into exec/'s (sk_arg, sk_kdesc,
 * sk_policy) and calls sk_run or the library's registry; messages are
 * "<call> '<label>': <what exec said>".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/runtime.h"
#include "core/tools.h"
#include "kernels/kernels.h"
#include "api/speck.h"
#include "exec/exec.h"

struct speck_runtime {
  const sk_backend *b;
};

struct speck_view {
  sk_view v;
};

/* opens that share the runtime; 'owned': the first open initialised it */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int opens, owned;

static int fail_(char *err, size_t errlen, int code, int id, ...) {
  va_list ap;
  va_start(ap, id);
  sk_verr(err, errlen, id, ap);
  va_end(ap);
  return code;
}
#define fail(a0, a1, a2, id, ...) \
  (SK_ERRCHK(id, ##__VA_ARGS__), fail_(a0, a1, a2, id, ##__VA_ARGS__))

/* -- runtime ----------------------------------------------------------------- */
speck_runtime *speck_runtime_open(const char *space, int threads, char *err,
                                  size_t errlen) {
  char msg[512];
  if (threads < 0) {
    fail(err, errlen, 0, SK_E_SPECK_RUNTIME_OPEN, threads);
    return NULL;
  }
  speck_runtime *rt = malloc(sizeof *rt);
  if (!rt) {
    fail(err, errlen, 0, SK_E_SPECK_RUNTIME_OPEN_OUT);
    return NULL;
  }
  sk_exec_setup_tcc();
  sk_tools_start();
  /* the runtime starts, or agrees with what runs (sk_rt_start compares) */
  sk_rt_settings rs = {space, threads, -1};
  pthread_mutex_lock(&lock);
  int fresh = !sk_rt_initialized();
  const sk_backend *b = NULL;
  if (sk_rt_start(&rs, msg, sizeof msg) == 0) b = sk_rt_backend(msg, sizeof msg);
  if (b) {
    if (opens++ == 0) owned = fresh;
  }
  pthread_mutex_unlock(&lock);
  if (!b) {
    free(rt);
    fail(err, errlen, 0, SK_E_SPECK_RUNTIME_OPEN_MSG, msg);
    return NULL;
  }
  rt->b = b;
  sk_exec_warm();
  return rt;
}

void speck_runtime_close(speck_runtime *rt) {
  if (!rt) return;
  sk_jit_drain();
  pthread_mutex_lock(&lock);
  if (--opens == 0 && owned) {
    sk_rt_finalize();
    owned = 0;
  }
  /* the last close: no thread of ours runs after it (a host program may
   * dlclose libspeck.so next) */
  if (opens == 0) sk_jit_shutdown();
  pthread_mutex_unlock(&lock);
  free(rt);
}

const char *speck_runtime_space(const speck_runtime *rt) {
  return rt ? rt->b->name : NULL;
}

int speck_fence(speck_runtime *rt, char *err, size_t errlen) {
  if (!rt) return fail(err, errlen, SPECK_EARG, SK_E_SPECK_FENCE_RUNTIME);
  char msg[512];
  if (rt->b->fence(msg, sizeof msg) < 0)
    return fail(err, errlen, SPECK_ERUN, SK_E_SPECK_FENCE, msg);
  return SPECK_OK;
}

/* -- views ------------------------------------------------------------------- */
static speck_view *make_view(speck_runtime *rt, const char *fname, const char *label,
                             const char *dtype, int rank, const int64_t *extents,
                             const char *space, void *data, char *err, size_t errlen) {
  const char *lb = label ? label : "";
  if (!rt) {
    fail(err, errlen, 0, SK_E_RUNTIME_NULL, fname, lb);
    return NULL;
  }
  int dt = dtype ? sk_dtype_parse(dtype) : -1;
  if (dt < 0) {
    fail(err, errlen, 0, SK_E_UNKNOWN_DTYPE, fname, lb, dtype ? dtype : "(null)");
    return NULL;
  }
  if (rank < 0 || rank > SK_MAXRANK || (rank > 0 && !extents)) {
    fail(err, errlen, 0, SK_E_RANK_NEEDS_EXTENTS, fname, lb, rank, rank);
    return NULL;
  }
  char msg[512];
  int sp;
  if (data) {
    sp = SK_SPACE_HOST;
  } else if (space) {
    if ((sp = sk_space_parse(space)) < 0) {
      fail(err, errlen, 0, SK_E_UNKNOWN_SPACE, fname, lb, space);
      return NULL;
    }
  } else if ((sp = sk_rt_default_space(msg, sizeof msg)) < 0) {
    fail(err, errlen, 0, SK_E_PREFIX_LABEL, fname, lb, msg);
    return NULL;
  }
  speck_view *v = calloc(1, sizeof *v);
  if (!v) {
    fail(err, errlen, 0, SK_E_OUT_MEMORY, fname, lb);
    return NULL;
  }
  int layout = data ? SK_RIGHT : sk_space_default_layout(sp);
  if (sk_view_create(&v->v, lb, dt, rank, extents, layout, sp, 1, data, msg, sizeof msg) <
      0) {
    free(v);
    fail(err, errlen, 0, SK_E_PREFIX_LABEL, fname, lb, msg);
    return NULL;
  }
  return v;
}

speck_view *speck_view_new(speck_runtime *rt, const char *label, const char *dtype,
                           int rank, const int64_t *extents, const char *space, char *err,
                           size_t errlen) {
  return make_view(rt, "speck_view_new", label, dtype, rank, extents, space, NULL, err,
                   errlen);
}

speck_view *speck_view_wrap(speck_runtime *rt, const char *label, const char *dtype,
                            int rank, const int64_t *extents, void *host_data, char *err,
                            size_t errlen) {
  if (!host_data) {
    fail(err, errlen, 0, SK_E_SPECK_VIEW_WRAP, label ? label : "");
    return NULL;
  }
  return make_view(rt, "speck_view_wrap", label, dtype, rank, extents, NULL, host_data,
                   err, errlen);
}

void *speck_view_data(speck_view *v) {
  if (!v) return NULL;
  sk_alloc_expose(v->v.alloc); /* writes through the pointer are not seen */
  return v->v.data;
}

int64_t speck_view_extent(const speck_view *v, int dim) {
  return v && dim >= 0 && dim < v->v.rank ? v->v.extent[dim] : 0;
}

int speck_deep_copy(speck_view *dst, const speck_view *src, char *err, size_t errlen) {
  if (!dst || !src)
    return fail(err, errlen, SPECK_EARG, SK_E_SPECK_DEEP_COPY, dst ? "src" : "dst");
  char msg[512];
  if (sk_view_deep_copy(&dst->v, &src->v, msg, sizeof msg) < 0)
    return fail(err, errlen, SPECK_ERUN, SK_E_SPECK_DEEP_COPY_VIEWS, dst->v.label,
                src->v.label, msg);
  return SPECK_OK;
}

void speck_view_release(speck_view *v) {
  if (!v) return;
  sk_view_release(&v->v);
  free(v);
}

/* -- arguments --------------------------------------------------------------- */
speck_arg speck_arg_view(const char *name, speck_view *v) {
  speck_arg a = {name, SPECK_ARG_VIEW, v, 0, 0, NULL};
  return a;
}

speck_arg speck_arg_f64(const char *name, double x) {
  speck_arg a = {name, SPECK_ARG_F64, NULL, x, 0, NULL};
  return a;
}

speck_arg speck_arg_i64(const char *name, int64_t x) {
  speck_arg a = {name, SPECK_ARG_I64, NULL, 0, x, NULL};
  return a;
}

speck_arg speck_arg_str(const char *name, const char *str) {
  speck_arg a = {name, SPECK_ARG_STR, NULL, 0, 0, str};
  return a;
}

/* exec's arguments of 'in'; a message (without the call's name) on a
 * malformed one */
static int convert(const speck_arg *in, int nargs, sk_arg *out, char *msg, size_t n) {
  if (nargs < 0 || nargs > SK_MAXCAP || (nargs > 0 && !in)) {
    sk_err(msg, n, SK_E_ARGUMENTS_NOT_NULL, nargs, SK_MAXCAP);
    return -1;
  }
  for (int i = 0; i < nargs; i++) {
    const speck_arg *a = &in[i];
    const char *nm = a->name ? a->name : "(no name)";
    switch (a->kind) {
    case SPECK_ARG_VIEW:
      if (!a->view) {
        sk_err(msg, n, SK_E_ARGUMENT_NO_VIEW, nm);
        return -1;
      }
      out[i] = sk_arg_view(a->name, &a->view->v);
      break;
    case SPECK_ARG_F64: out[i] = sk_arg_f64(a->name, a->f64); break;
    case SPECK_ARG_I64: out[i] = sk_arg_i64(a->name, a->i64); break;
    case SPECK_ARG_STR:
      if (!a->str) {
        sk_err(msg, n, SK_E_ARGUMENT_NO_STRING, nm);
        return -1;
      }
      out[i] = sk_arg_str(a->name, a->str);
      break;
    default: sk_err(msg, n, SK_E_ARGUMENT_UNKNOWN_KIND, nm, a->kind); return -1;
    }
  }
  return 0;
}

/* -- kernels -----------------------------------------------------------------
 * Kept launches: speck_run_for / _reduce / _scan called again and again
 * from one thread with the same runtime, label, body text, reducer and
 * argument names and kinds run their kernel without the general path's
 * sort, spec, key and look-up (exec's sk_lprep: sk_run_keep, then
 * sk_run_again). The label and the body are copied into the kept record
 * and compared on every call (a caller may reuse its buffer for another
 * body); a longer one, or a runtime on another back end than the
 * process's, takes the general path. One record a pattern a thread, on
 * the heap, freed when the thread ends. */
#define KEPT_LABEL 64
#define KEPT_BODY 1024
typedef struct {
  sk_lprep f;
  const speck_runtime *rt;
  int red; /* the reducer (SK_RED_*), -1: none */
  char label[KEPT_LABEL];
  char body[KEPT_BODY];
} kept_run;
static _Thread_local kept_run *kept;
static pthread_key_t kept_key;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static void kept_key_make(void) { (void)pthread_key_create(&kept_key, free); }

/* the calling thread's record for 'pattern'; NULL when memory is short */
static kept_run *kept_for(int pattern) {
  if (__builtin_expect(kept == NULL, 0)) {
    pthread_once(&kept_once, kept_key_make);
    kept = calloc(3, sizeof *kept);
    if (!kept) return NULL;
    (void)pthread_setspecific(kept_key, kept);
  }
  return &kept[pattern == SK_FOR ? 0 : pattern == SK_REDUCE ? 1 : 2];
}

/* sk_run of 'd' over 'p', kept in the thread's record where it can be */
static int run_kept(speck_runtime *rt, sk_kdesc *d, const sk_policy *p, const sk_arg *a,
                    int nargs, sk_result *res, char *msg, size_t n) {
  char e[8];
  kept_run *kr = sk_rt_backend(e, sizeof e) == rt->b ? kept_for(d->pattern) : NULL;
  if (!kr) return sk_run(d, p, a, nargs, res, msg, n);
  int red = d->nred ? d->reds[0].op : -1;
  if (kr->f.owner == kr && kr->rt == rt && kr->red == red && strcmp(kr->label, d->label) == 0 &&
      strcmp(kr->body, d->body) == 0) {
    int rc = sk_run_again(&kr->f, kr, p, a, nargs, res, msg, n);
    if (rc <= 0) return rc;
  }
  size_t ll = strlen(d->label), bl = strlen(d->body);
  if (ll >= KEPT_LABEL || bl >= KEPT_BODY) return sk_run(d, p, a, nargs, res, msg, n);
  kr->f.owner = NULL; /* the record is rewritten: nothing kept until sk_run_keep keeps it */
  memcpy(kr->label, d->label, ll + 1);
  memcpy(kr->body, d->body, bl + 1);
  kr->rt = rt;
  kr->red = red;
  d->label = kr->label;
  d->body = kr->body;
  d->backend = NULL; /* the process's back end, rt's */
  return sk_run_keep(&kr->f, kr, d, p, a, nargs, res, msg, n);
}

static int run(speck_runtime *rt, const char *fname, const char *label, int pattern,
               const char *reducer, int64_t begin, int64_t end, const speck_arg *args,
               int nargs, const char *body, double *result, char *err, size_t errlen) {
  const char *lb = label ? label : "";
  if (!rt) return fail(err, errlen, SPECK_EARG, SK_E_RUNTIME_NULL, fname, lb);
  if (!body) return fail(err, errlen, SPECK_EARG, SK_E_BODY_NULL, fname, lb);
  char msg[4096];
  sk_arg a[SK_MAXCAP];
  if (convert(args, nargs, a, msg, sizeof msg) < 0)
    return fail(err, errlen, SPECK_EARG, SK_E_PREFIX_LABEL, fname, lb, msg);
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = lb;
  d.body = body;
  d.pattern = pattern;
  d.bounds = -1;
  d.backend = rt->b;
  if (pattern == SK_REDUCE) {
    const char *op = reducer ? reducer : "sum";
    d.nred = 1;
    d.reds[0].op = sk_redop_find(op);
    if (d.reds[0].op < 0 || d.reds[0].op == SK_RED_MINMAX)
      return fail(err, errlen, SPECK_EARG, SK_E_UNKNOWN_REDUCER_SUM, fname, lb, op);
    d.reds[0].dtype = sk_redop_default_dtype(d.reds[0].op);
  }
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.begin = begin;
  p.end = end;
  sk_result res;
  if (run_kept(rt, &d, &p, a, nargs, &res, msg, sizeof msg) < 0)
    return fail(err, errlen, SPECK_ERUN, SK_E_PREFIX_LABEL, fname, lb, msg);
  if (result && pattern != SK_FOR) *result = sk_result_f64(&res, 0);
  return SPECK_OK;
}

int speck_run_for(speck_runtime *rt, const char *label, int64_t begin, int64_t end,
                  const speck_arg *args, int nargs, const char *body, char *err,
                  size_t errlen) {
  return run(rt, "speck_run_for", label, SK_FOR, NULL, begin, end, args, nargs, body,
             NULL, err, errlen);
}

int speck_run_reduce(speck_runtime *rt, const char *label, int64_t begin, int64_t end,
                     const speck_arg *args, int nargs, const char *body,
                     const char *reducer, double *result, char *err, size_t errlen) {
  return run(rt, "speck_run_reduce", label, SK_REDUCE, reducer, begin, end, args, nargs,
             body, result, err, errlen);
}

int speck_run_scan(speck_runtime *rt, const char *label, int64_t begin, int64_t end,
                   const speck_arg *args, int nargs, const char *body, double *total,
                   char *err, size_t errlen) {
  return run(rt, "speck_run_scan", label, SK_SCAN, NULL, begin, end, args, nargs, body,
             total, err, errlen);
}

int speck_call(speck_runtime *rt, const char *kernel, const speck_arg *args, int nargs,
               double *result, char *err, size_t errlen) {
  int nout = 0;
  return speck_call_out(rt, kernel, args, nargs, result, NULL, 0, &nout, err, errlen);
}

int speck_call_out(speck_runtime *rt, const char *kernel, const speck_arg *args,
                   int nargs, double *result, speck_out *out, int maxout, int *nout,
                   char *err, size_t errlen) {
  const char *kn = kernel ? kernel : "(null)";
  if (nout) *nout = 0;
  if (!rt) return fail(err, errlen, SPECK_EARG, SK_E_SPECK_CALL_RUNTIME);
  char msg[4096];
  sk_arg a[SK_MAXCAP];
  if (convert(args, nargs, a, msg, sizeof msg) < 0)
    return fail(err, errlen, SPECK_EARG, SK_E_SPECK_CALL, kn, msg);
  sk_kvalue v;
  int kind = SK_KRES_NONE;
  if (sk_kernel_call(kernel, a, nargs, &v, &kind, msg, sizeof msg) < 0)
    return kernel && sk_kernel_find(kernel)
             ? fail(err, errlen, SPECK_ERUN, SK_E_SPECK_CALL_NAMED, msg)
             : fail(err, errlen, SPECK_ERUN, SK_E_SPECK_CALL_UNKNOWN, msg);
  if (v.nout > (out ? maxout : 0) || (v.nout > 0 && !nout)) {
    int have = v.nout;
    sk_kout_release(&v);
    return fail(err, errlen, SPECK_EARG, SK_E_SPECK_CALL_KERNEL, kn, have,
                out ? maxout : 0);
  }
  for (int i = 0; i < v.nout; i++) {
    out[i].name = v.out[i].name;
    out[i].view = NULL;
    out[i].value = v.out[i].num;
    if (!v.out[i].is_view) continue;
    speck_view *w = calloc(1, sizeof *w);
    if (!w) {
      for (int j = 0; j < i; j++) speck_view_release(out[j].view);
      sk_kout_release(&v);
      return fail(err, errlen, SPECK_ERUN, SK_E_SPECK_CALL_OUT, kn);
    }
    w->v = v.out[i].view;
    v.out[i].is_view = 0;
    out[i].view = w;
  }
  if (nout) *nout = v.nout;
  if (result)
    *result = kind == SK_KRES_F64 ? v.f64 : kind == SK_KRES_I64 ? (double)v.i64 : 0;
  return SPECK_OK;
}

/* -- interrupts -------------------------------------------------------------- */
int speck_interrupt(void) { return sk_interrupt_request(); }

void speck_interrupt_clear(void) { sk_interrupt_clear(); }
