/* exec.c: sk_run, the one launch path.
 *
 * A launch: pick the back end, check the policy (policy.c), turn the
 * arguments into captures (sorted by name, so the signature is canonical;
 * spaces checked against what the back end reaches; aliasing marked), ask
 * the JIT for the kernel of that signature (precompiled library kernels
 * sit in the same cache), load it where the back end needs a load, launch
 * it through the table, and report a bounds-check hit or the joined
 * accumulators. Everything lives on the C stack.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/env.h"
#include "core/err.h"
#include "core/runtime.h"
#include "core/tools.h"
#include "exec.h"

/* -- arguments ------------------------------------------------------------ */
sk_arg sk_arg_view(const char *name, const sk_view *v) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.view = v;
  return a;
}

sk_arg sk_arg_view_ro(const char *name, const sk_view *v) {
  sk_arg a = sk_arg_view(name, v);
  a.ro = 1;
  return a;
}

sk_arg sk_arg_f64(const char *name, double x) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.dtype = SK_F64;
  a.value.f64 = x;
  return a;
}

sk_arg sk_arg_i64(const char *name, int64_t x) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.dtype = SK_I64;
  a.value.i64 = x;
  return a;
}

sk_arg sk_arg_str(const char *name, const char *str) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.str = str;
  return a;
}

/* -- settings ------------------------------------------------------------- */
static int bounds_mode = -1;

void sk_exec_set_bounds(int on) { __atomic_store_n(&bounds_mode, on, __ATOMIC_RELAXED); }

/* the environment's setting, read once (not on every launch) */
static int bounds_env = -1;

int sk_exec_bounds(void) {
  int m = __atomic_load_n(&bounds_mode, __ATOMIC_RELAXED);
  if (m >= 0) return m;
  m = __atomic_load_n(&bounds_env, __ATOMIC_RELAXED);
  if (m < 0) {
    const char *e = getenv("SPECK_BOUNDS_CHECK");
    m = e && *e && strcmp(e, "0") != 0;
    __atomic_store_n(&bounds_env, m, __ATOMIC_RELAXED);
  }
  return m;
}

/* -- captures ------------------------------------------------------------- */
typedef struct sig {
  int n;
  sk_capture c[SK_MAXCAP];
  sk_slot slot[SK_MAXCAP];
  const sk_view *view[SK_MAXCAP];
} sig;

/* the order of 'args' by name (an insertion sort of indices: every launch
 * sorts its captures, and moving the slots themselves cost more than the
 * rest of a launch) */
static void name_order(const sk_arg *args, int n, int *ord) {
  for (int a = 0; a < n; a++) {
    int b = a;
    for (; b > 0 && strcmp(args[ord[b - 1]].name, args[a].name) > 0; b--)
      ord[b] = ord[b - 1];
    ord[b] = a;
  }
}

/* the launch's slot of view 'v' (data, extents, strides, the handle) */
static inline void fill_varg(const sk_view *v, sk_varg *sv) {
  sv->data = v->data;
  sv->rank = v->rank;
  sv->handle = v->alloc ? v->alloc->handle : NULL;
  /* a remote window in device memory: device code (the only code that
   * reaches it) reads its device copy */
  if (sv->handle && sk_space_remote(v->space) &&
      !sk_space_host_accessible(sk_space_local(v->space)) &&
      ((const sk_rwin *)sv->handle)->dev)
    sv->handle = ((const sk_rwin *)sv->handle)->dev;
  int d = 0;
  for (; d < v->rank && d < SK_MAXRANK; d++) {
    sv->extent[d] = v->extent[d];
    sv->stride[d] = v->stride[d];
  }
  for (; d < SK_MAXRANK; d++) {
    sv->extent[d] = 1;
    sv->stride[d] = 0;
  }
}

/* the signature of view 'v' as a capture (kind, dtype, rank, layout,
 * tiles, aggregate, space, traits): what a kernel is compiled for */
static void view_capture(const sk_view *v, sk_capture *c) {
  c->kind = SK_CAP_VIEW;
  c->dtype = v->dtype;
  c->rank = v->agg ? v->rank - 1 : v->rank; /* an aggregate's components are the element */
  c->layout = v->layout;
  for (int d = 0; d < 3; d++) c->tile_log2[d] = v->tile_log2[d];
  c->agg = v->agg;
  c->agg_n = v->agg ? v->agg_n : 0;
  c->space = v->space;
  c->traits = v->traits & (SK_TRAIT_ATOMIC | SK_TRAIT_RANDOM | SK_TRAIT_RESTRICT);
}

/* 1 when view a of 'view' (n of them, NULL for scalars) shares its memory
 * with another */
static int aliased(const sk_view *const *view, int n, int a) {
  const sk_view *v = view[a];
  for (int b = 0; v && b < n; b++)
    if (b != a && view[b] && view[b]->alloc && view[b]->alloc == v->alloc) return 1;
  return 0;
}

/* Captures of 'args' into 's'. 'b' NULL: no space check (compile only).
 * 'ord' (or NULL) receives the order: s->c[k] is args[ord[k]]. */
static int collect(const sk_arg *args, int nargs, const sk_backend *b, sig *s, int *ord,
                   char *err, size_t errlen) {
  if (nargs < 0 || nargs > SK_MAXCAP) {
    sk_err(err, errlen, SK_E_CAPTURES_MOST, nargs, SK_MAXCAP);
    return -1;
  }
  s->n = nargs;
  for (int k = 0; k < nargs; k++)
    if (!args[k].name || !*args[k].name) {
      sk_err(err, errlen, SK_E_CAPTURE_NO_NAME, k + 1);
      return -1;
    }
  int ord_own[SK_MAXCAP];
  if (!ord) ord = ord_own;
  name_order(args, nargs, ord);
  for (int k = 0; k < nargs; k++) {
    const sk_arg *a = &args[ord[k]];
    sk_capture *c = &s->c[k];
    memset(c, 0, sizeof *c);
    memset(&s->slot[k], 0, sizeof s->slot[k]);
    s->view[k] = NULL;
    c->name = a->name;
    const sk_view *v = a->view;
    if (!v && a->str) {
      sk_err(err, errlen, SK_E_CAPTURE_STRING_CAPTURES, a->name);
      return -1;
    }
    if (!v) {
      if (a->dtype < 0 || a->dtype >= SK_NDTYPE) {
        sk_err(err, errlen, SK_E_CAPTURE_UNKNOWN_DTYPE, a->name, a->dtype);
        return -1;
      }
      c->kind = SK_CAP_SCALAR;
      c->dtype = a->dtype;
      s->slot[k] = a->value;
      continue;
    }
    if (!v->alloc && !v->data && sk_view_size(v) != 0) {
      sk_err(err, errlen, SK_E_VIEW_CAPTURE_RELEASED, v->label, a->name);
      return -1;
    }
    if (b && !b->reaches(v->space)) {
      sk_err(err, errlen, SK_E_VIEW_CAPTURE_LIVES, v->label, a->name,
             sk_space_name(v->space), b->name);
      return -1;
    }
    /* a launch (b set) writes what it does not promise to only read */
    if (b && !a->ro) sk_alloc_written(v->alloc);
    view_capture(v, c);
    if (v->agg && (v->traits & SK_TRAIT_ATOMIC)) {
      sk_err(err, errlen, SK_E_VIEW_CAPTURE_ATOMIC, v->label, a->name);
      return -1;
    }
    if (sk_dtypes[v->dtype].is_complex && (v->traits & SK_TRAIT_ATOMIC)) {
      sk_err(err, errlen, SK_E_COMPLEX_TRAIT, a->name, sk_dtypes[v->dtype].name);
      return -1;
    }
    if (sk_dtypes[v->dtype].is_complex && sk_space_remote(v->space)) {
      sk_err(err, errlen, SK_E_COMPLEX_REMOTE, a->name, sk_dtypes[v->dtype].name);
      return -1;
    }
    s->view[k] = v;
    fill_varg(v, &s->slot[k].v);
  }
  for (int a = 0; a + 1 < s->n; a++)
    if (strcmp(s->c[a].name, s->c[a + 1].name) == 0) {
      sk_err(err, errlen, SK_E_CAPTURE_GIVEN_TWICE, s->c[a].name);
      return -1;
    }
  for (int a = 0; a < s->n; a++) s->c[a].alias = aliased(s->view, s->n, a);
  return 0;
}

/* -- reducers ------------------------------------------------------------- */
static const char *const redop_names[] = {"sum",    "prod",   "min",    "max",
                                          "minloc", "maxloc", "minmax", "land",
                                          "lor",    "band",   "bor",    NULL};

int sk_redop_find(const char *s) {
  for (int i = 0; redop_names[i]; i++)
    if (strcmp(s, redop_names[i]) == 0) return i;
  return -1;
}

const char *sk_redop_name(int op) {
  return op >= 0 && op < SK_RED_CUSTOM ? redop_names[op] : "custom";
}

int sk_redop_default_dtype(int op) {
  if (op == SK_RED_BAND || op == SK_RED_BOR) return SK_I64;
  if (op == SK_RED_LAND || op == SK_RED_LOR) return SK_BOOL;
  return SK_F64;
}

int sk_reducer_check(const sk_reducer *r, char *err, size_t errlen) {
  if (r->op < 0 || r->op >= SK_NREDOP || r->dtype < 0 || r->dtype >= SK_NDTYPE) {
    sk_err(err, errlen, SK_E_BAD_REDUCER_OP, r->op, r->dtype);
    return -1;
  }
  if (r->agg && (r->op != SK_RED_SUM || r->dtype != SK_F64 || r->agg_n < 1 ||
                 r->agg_n > SK_AGG_MAXN)) {
    sk_err(err, errlen, SK_E_REDUCER_NOT_DEFINED,
           r->op == SK_RED_CUSTOM ? "custom" : redop_names[r->op],
           r->agg == SK_AGG_FAD ? "fad" : "ensemble", r->agg_n);
    return -1;
  }
  if (sk_dtypes[r->dtype].is_complex && !r->agg && r->op != SK_RED_SUM &&
      r->op != SK_RED_PROD && r->op != SK_RED_CUSTOM) {
    sk_err(err, errlen, SK_E_COMPLEX_REDUCER, redop_names[r->op], sk_dtypes[r->dtype].name);
    return -1;
  }
  if (r->op == SK_RED_CUSTOM && (!r->init || !r->join)) {
    sk_err(err, errlen, SK_E_CUSTOM_REDUCER_NEEDS);
    return -1;
  }
  if ((r->op == SK_RED_BAND || r->op == SK_RED_BOR) && sk_dtypes[r->dtype].is_float) {
    sk_err(err, errlen, SK_E_REDUCER_NEEDS_INTEGER, redop_names[r->op],
           sk_dtypes[r->dtype].name);
    return -1;
  }
  return 0;
}

/* -- spec and kernel ------------------------------------------------------ */
/* the kernel spec of 'd' for a policy kind and signature; 'reds' is the
 * storage of the reducers it points at */
static int make_spec(sk_kspec *ks, sk_reducer *reds, const sk_kdesc *d, int pol_kind,
                     int md_rank, const sig *s, const sk_backend *b, char *err,
                     size_t errlen) {
  memset(ks, 0, sizeof *ks);
  if (!d->body) {
    sk_err(err, errlen, SK_E_NO_BODY);
    return -1;
  }
  /* sk_run's policy is checked; sk_exec_spec's kind and rank are not */
  if (pol_kind < SK_POL_RANGE || pol_kind > SK_POL_TEAM ||
      (pol_kind == SK_POL_MDRANGE && (md_rank < 2 || md_rank > SK_MAXMD))) {
    sk_err(err, errlen, SK_E_UNKNOWN_POLICY_KIND, pol_kind, md_rank);
    return -1;
  }
  ks->label = d->label ? d->label : "";
  ks->body = d->body;
  ks->body_len = d->body_len ? d->body_len : strlen(d->body);
  ks->prelude = d->prelude;
  ks->pattern = d->pattern;
  ks->policy_kind = pol_kind;
  ks->md_rank = pol_kind == SK_POL_MDRANGE ? md_rank : 0;
  ks->ncap = s->n;
  ks->caps = s->c;
  memcpy(ks->index, d->index, sizeof ks->index);
  ks->target = b->name;
  /* what the back end runs: its code target and, for an image target,
   * the architecture it asks for (NULL: compile only, no device) */
  ks->gen = sk_jit_target_find(b->target);
  if (!ks->gen) {
    sk_err(err, errlen, SK_E_BACK_END_JIT, b->name, b->target);
    return -1;
  }
  ks->arch = d->arch;
  if (!ks->arch && b->arch) {
    static _Thread_local char arch[24];
    if (b->arch(arch, sizeof arch)) ks->arch = arch;
  }
  ks->tier = d->tier;
  ks->library = d->library;
  ks->bounds = d->bounds < 0 ? sk_exec_bounds() : d->bounds;
  if (d->pattern == SK_REDUCE) {
    int n = d->nred;
    if (n < 0 || n > SK_MAXRED) {
      sk_err(err, errlen, SK_E_REDUCERS_MOST, n, SK_MAXRED);
      return -1;
    }
    if (n == 0) {
      memset(reds, 0, sizeof *reds);
      reds[0].op = SK_RED_SUM;
      reds[0].dtype = SK_F64;
      n = 1;
    } else {
      memcpy(reds, d->reds, (size_t)n * sizeof *reds);
    }
    for (int r = 0; r < n; r++)
      if (sk_reducer_check(&reds[r], err, errlen) < 0) return -1;
    ks->nred = n;
    ks->reds = reds;
  } else if (d->pattern == SK_SCAN) {
    memset(reds, 0, sizeof *reds);
    reds[0].op = SK_RED_SUM;
    reds[0].dtype = d->scan_dtype;
    if (sk_reducer_check(&reds[0], err, errlen) < 0) return -1;
    ks->nred = 1;
    ks->reds = reds;
  } else if (d->pattern != SK_FOR) {
    sk_err(err, errlen, SK_E_UNKNOWN_PATTERN, d->pattern);
    return -1;
  }
  return 0;
}

/* Look up or compile; a compiler message is returned as "... does not
 * compile:" naming the part (body, prelude, custom reducer) by its id. */
static int get_kernel(const sk_kspec *ks, sk_kernel **k, int *cplx, char *err,
                      size_t errlen) {
  char msg[4096];
  sk_err_clear(); /* an id of an earlier error does not name this one */
  if (sk_jit_get_cplx(ks, k, cplx, msg, sizeof msg) == 0) return 0;
  switch (sk_err_last()) {
  case SK_E_DIAG_BODY: return sk_err(err, errlen, SK_E_BODY_NOT_COMPILE, msg);
  case SK_E_DIAG_PRELUDE: return sk_err(err, errlen, SK_E_PRELUDE_NOT_COMPILE, msg);
  case SK_E_DIAG_INIT:
  case SK_E_DIAG_JOIN: return sk_err(err, errlen, SK_E_REDUCER_NOT_COMPILE, msg);
  default: return sk_err(err, errlen, SK_E_MSG, msg);
  }
}

static const sk_backend *pick_backend(const sk_kdesc *d, char *err, size_t errlen) {
  if (d->backend) return d->backend;
  return sk_rt_backend(err, errlen);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* An image (k->image) is made launchable by the back end that runs it,
 * once, on the first launch; its 'unload' goes with it into the kernel,
 * which calls it when the kernel is freed (the JIT never calls a back
 * end). Returns the back end's launchable code, NULL with a message. */
static void *load_image(const sk_backend *b, sk_kernel *k, const char *label, char *err,
                        size_t errlen) {
  static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
  if (__atomic_load_n(&k->dev_loaded, __ATOMIC_ACQUIRE)) return k->dev;
  if (!b->load) {
    sk_err(err, errlen, SK_E_BACK_END_CANNOT, b->name);
    return NULL;
  }
  void *d = NULL;
  pthread_mutex_lock(&load_lock);
  if (k->dev_loaded) {
    d = k->dev;
  } else if ((d = b->load(k->image, label, err, errlen)) != NULL) {
    k->dev = d;
    k->dev_unload = b->unload;
    __atomic_store_n(&k->dev_loaded, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&load_lock);
  return d;
}

/* run compiled kernel 'k' on 'b' and finish its result */
static int launch(const sk_backend *b, sk_kernel *k, int pattern, const sk_policy *p,
                  const sig *s, const sk_capture *caps, sk_result *res, const char *label,
                  char *err, size_t errlen) {
  sk_result local;
  if (!res) res = &local;
  res->k = k;
  sk_launch l;
  memset(&l, 0, sizeof l);
  l.label = label;
  l.pattern = pattern;
  l.policy = p;
  l.instance = p->instance ? p->instance->handle : NULL;
  if (sk_jit_entry(k, &l.fn, &l.init, &l.join, err, errlen) < 0) return -1;
  if (k->image && !(l.fn = load_image(b, k, label, err, errlen))) return -1;
  l.acc_size = k->acc_size;
  l.args = s->slot;
  l.nargs = s->n;
  l.result = res->acc;
  sk_oob oob;
  memset(&oob, 0, sizeof oob);
  l.oob = &oob;
  if (pattern != SK_FOR && k->acc_size > sizeof res->acc) {
    sk_err(err, errlen, SK_E_ACCUMULATOR_BYTES_TOO, k->acc_size);
    return -1;
  }
  uint64_t tid = sk_tools_begin(pattern, label);
  double t0 = now();
  int rc = sk_policy_launch(b, &l, err, errlen);
  double t1 = now();
  sk_tools_end(pattern, tid);
  if (rc < 0) return -1;
  if (oob.hit && oob.dim < 0 && oob.capture >= 0 && oob.capture < s->n) {
    const sk_view *v = s->view[oob.capture];
    const sk_rwin *w = v && v->alloc ? v->alloc->handle : NULL;
    long long g = (long long)oob.index, c = w ? (long long)w->chunk : 1;
    sk_err(err, errlen, SK_E_VIEW_CAPTURE_GLOBAL, v ? v->label : "?",
           caps[oob.capture].name, g, (long long)oob.extent, c,
           c > 0 ? (g < 0 ? -1 : g / c) : -1LL, w ? w->nranks : 0);
    return -1;
  }
  if (oob.hit && oob.capture >= 0 && oob.capture < s->n) {
    const sk_view *v = s->view[oob.capture];
    sk_err(err, errlen, SK_E_VIEW_CAPTURE_INDEX, v ? v->label : "?",
           caps[oob.capture].name, oob.dim, (long long)oob.index, (long long)oob.extent);
    return -1;
  }
  sk_jit_after_launch(k, t1 - t0);
  return 0;
}

/* A capture runs (speck.graph_capture): a reduction's or a scan's result
 * would come back to the host, and a capture records the default
 * instance only; refused before anything is compiled. Else the launch is
 * counted. */
static int capture_check(int pattern, const sk_policy *p, const char *label, char *err,
                         size_t errlen) {
  if (!sk_capture_mode()) return 0;
  char what[160];
  if (pattern != SK_FOR) {
    snprintf(what, sizeof what, "%s '%s'",
             pattern == SK_REDUCE ? "parallel_reduce" : "parallel_scan", label);
    return sk_capture_refuse(what,
                             pattern == SK_REDUCE ? "its result comes back to the host"
                                                  : "its total comes back to the host",
                             err, errlen);
  }
  /* any instance, a host back end's default one too: the same code must
   * capture on every back end */
  if (p->instance) {
    sk_err(what, sizeof what, SK_E_CAPTURE_WHAT_LAUNCH, label);
    return sk_err(err, errlen, SK_E_CAPTURE_INSTANCE, what);
  }
  sk_capture_note(1);
  return 0;
}

/* sk_run; with 'f' it is kept for sk_run_again (see sk_run_keep) */
static int run(const sk_kdesc *d, const sk_policy *p, const sk_arg *args, int nargs,
               sk_result *res, sk_lprep *f, const void *owner, char *err, size_t errlen) {
  const sk_backend *b = pick_backend(d, err, errlen);
  if (!b) return -1;
  sk_policy pol = *p;
  if (sk_policy_check(&pol, d->pattern, b, err, errlen) < 0) return -1;
  if (capture_check(d->pattern, &pol, d->label ? d->label : "", err, errlen) < 0)
    return -1;
  sig s;
  int ord[SK_MAXCAP];
  if (collect(args, nargs, b, &s, ord, err, errlen) < 0) return -1;
  sk_kspec ks;
  sk_reducer reds[SK_MAXRED];
  if (make_spec(&ks, reds, d, pol.kind, pol.md_rank, &s, b, err, errlen) < 0) return -1;
  /* a launch is interruptible from its compile on: a Ctrl-C while the
   * body compiles ends this launch with "interrupted" (the back end sees
   * the request at its start), as it would a running kernel */
  sk_kernel *k;
  int cplx = 0;
  unsigned epoch = sk_cache_epoch(); /* before the look-up: a clear after it shows */
  sk_interruptible_enter();
  int rc = get_kernel(&ks, &k, &cplx, err, errlen);
  sk_interruptible_leave();
  if (rc < 0) return -1;
  if (f) {
    f->owner = NULL; /* kept only when every condition of sk_run_again holds */
    int keep = !d->backend && d->bounds < 0 && nargs <= SK_LPREP_MAXCAP;
    for (int c = 0; keep && c < nargs; c++) keep = strlen(args[c].name) < SK_LPREP_NAMELEN;
    if (keep) {
      f->owner = owner;
      f->epoch = epoch;
      f->b = b;
      f->k = k;
      f->label = ks.label;
      f->pattern = d->pattern;
      f->pol_kind = pol.kind;
      f->md_rank = pol.md_rank;
      f->bounds = ks.bounds;
      f->tier = d->tier;
      f->cplx = cplx;
      f->n = nargs;
      snprintf(f->arch, sizeof f->arch, "%s", ks.arch ? ks.arch : "");
      for (int c = 0; c < nargs; c++) {
        f->pos[ord[c]] = (signed char)c;
        f->caps[c] = s.c[c];
        strcpy(f->names[c], s.c[c].name);
        f->caps[c].name = f->names[c];
      }
    }
  }
  return launch(b, k, d->pattern, &pol, &s, s.c, res, ks.label, err, errlen);
}

int sk_run(const sk_kdesc *d, const sk_policy *p, const sk_arg *args, int nargs,
           sk_result *res, char *err, size_t errlen) {
  return run(d, p, args, nargs, res, NULL, NULL, err, errlen);
}

int sk_run_keep(sk_lprep *f, const void *owner, const sk_kdesc *d, const sk_policy *p,
                const sk_arg *args, int nargs, sk_result *res, char *err, size_t errlen) {
  return run(d, p, args, nargs, res, f, owner, err, errlen);
}

/* strcmp(a, b) == 0 for the short names of captures, inline */
static inline int same_name(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}

/* 1 when view 'v' has the signature 'e' (collect's capture of it, but
 * for aliasing) and is alive */
static int same_view(const sk_view *v, const sk_capture *e) {
  sk_capture c;
  view_capture(v, &c);
  if (e->kind != c.kind || c.dtype != e->dtype || c.rank != e->rank ||
      c.layout != e->layout || c.space != e->space || c.traits != e->traits ||
      c.tile_log2[0] != e->tile_log2[0] || c.tile_log2[1] != e->tile_log2[1] ||
      c.tile_log2[2] != e->tile_log2[2] || c.agg != e->agg || c.agg_n != e->agg_n)
    return 0;
  /* a released view: the general path says so */
  return v->alloc || v->data || sk_view_size(v) == 0;
}

int sk_run_again(sk_lprep *f, const void *owner, const sk_policy *p, const sk_arg *args,
                 int nargs, sk_result *res, char *err, size_t errlen) {
  if (f->owner != owner || !owner || f->n != nargs ||
      f->epoch != sk_cache_epoch() || p->kind != f->pol_kind ||
      (p->kind == SK_POL_MDRANGE && p->md_rank != f->md_rank))
    return 1;
  char e2[8];
  if (sk_rt_backend(e2, sizeof e2) != f->b || sk_exec_bounds() != f->bounds ||
      sk_capture_mode())
    return 1;
  if (f->b->arch) { /* make_spec's: a part of the kernel's key */
    char arch[24];
    if (strcmp(f->b->arch(arch, sizeof arch) ? arch : "", f->arch) != 0) return 1;
  }
  sig s;
  s.n = nargs;
  for (int i = 0; i < nargs; i++) {
    const sk_arg *a = &args[i];
    int k = f->pos[i];
    const sk_capture *e = &f->caps[k];
    if (!same_name(a->name, e->name)) return 1;
    const sk_view *v = a->view;
    if (!v) {
      if (a->str || e->kind != SK_CAP_SCALAR || a->dtype != e->dtype) return 1;
      /* the scalar members (the slot's first 16 bytes): kernels read no more */
      memcpy(s.slot[k].c128, a->value.c128, sizeof a->value.c128);
      s.view[k] = NULL;
      continue;
    }
    if (!same_view(v, e)) return 1;
    if (!a->ro) sk_alloc_written(v->alloc); /* as collect marks a launch's writes */
    s.view[k] = v;
    fill_varg(v, &s.slot[k].v);
  }
  for (int a = 0; a < nargs; a++) /* aliasing, as collect marks it */
    if (aliased(s.view, nargs, a) != f->caps[a].alias) return 1;
  sk_policy pol;
  const sk_policy *pp = p; /* a range's or MDRange's is checked in place */
  if (p->kind == SK_POL_TEAM) {
    pol = *p;
    if (sk_policy_check(&pol, f->pattern, f->b, err, errlen) < 0) return -1;
    pp = &pol;
  } else if (sk_policy_check_const(p, f->pattern, f->b, err, errlen) < 0) {
    return -1;
  }
  if (sk_jit_again(f->k, f->label, f->tier, f->cplx, err, errlen) < 0) return -1;
  return launch(f->b, f->k, f->pattern, pp, &s, f->caps, res, f->label, err, errlen);
}

int sk_exec_spec(const sk_kdesc *d, int pol_kind, int md_rank, const sk_arg *args,
                 int nargs, const sk_backend *b, sk_spec_store *st, char *err,
                 size_t errlen) {
  sig s;
  if (collect(args, nargs, NULL, &s, NULL, err, errlen) < 0) return -1;
  memcpy(st->caps, s.c, (size_t)s.n * sizeof s.c[0]);
  if (make_spec(&st->spec, st->reds, d, pol_kind, md_rank, &s, b, err, errlen) < 0)
    return -1;
  st->spec.caps = st->caps;
  return 0;
}

void sk_exec_warm(void) {
  char err[256];
  const sk_backend *b = sk_rt_backend(err, sizeof err);
  if (!b) return;
  char arch[24];
  sk_jit_warm(b->target, b->arch && b->arch(arch, sizeof arch) ? arch : NULL);
}

/* -- results -------------------------------------------------------------- */
const void *sk_result_ptr(const sk_result *res, int r) {
  return res->acc + res->k->acc_off[r];
}

static double load_f64(int dtype, const void *p) {
  switch (dtype) {
  case SK_F64: return *(const double *)p;
  case SK_F32: return *(const float *)p;
  case SK_I64: return (double)*(const int64_t *)p;
  case SK_I32: return *(const int32_t *)p;
  case SK_I16: return *(const int16_t *)p;
  case SK_I8: return *(const int8_t *)p;
  case SK_U64: return (double)*(const uint64_t *)p;
  case SK_U32: return *(const uint32_t *)p;
  case SK_U8: return *(const uint8_t *)p;
  case SK_C128: return *(const double *)p; /* complex: the real part */
  case SK_C64: return *(const float *)p;
  default: return *(const unsigned char *)p != 0;
  }
}

static int64_t load_i64(int dtype, const void *p) {
  switch (dtype) {
  case SK_I64: return *(const int64_t *)p;
  case SK_I32: return *(const int32_t *)p;
  case SK_I16: return *(const int16_t *)p;
  case SK_I8: return *(const int8_t *)p;
  case SK_U64: return (int64_t) * (const uint64_t *)p;
  case SK_U32: return *(const uint32_t *)p;
  case SK_U8: return *(const uint8_t *)p;
  case SK_BOOL: return *(const unsigned char *)p != 0;
  default: return (int64_t)load_f64(dtype, p);
  }
}

double sk_result_f64(const sk_result *res, int r) {
  return load_f64(res->k->reds[r].dtype, sk_result_ptr(res, r));
}

int64_t sk_result_i64(const sk_result *res, int r) {
  return load_i64(res->k->reds[r].dtype, sk_result_ptr(res, r));
}

/* minloc/maxloc: {T val; int64 loc} with loc at the next 8-byte boundary */
int64_t sk_result_loc(const sk_result *res, int r) {
  size_t sz = sk_dtypes[res->k->reds[r].dtype].size;
  int64_t loc;
  memcpy(&loc, (const char *)sk_result_ptr(res, r) + ((sz + 7) & ~(size_t)7), sizeof loc);
  return loc == INT64_MAX ? -1 : loc;
}

/* -- prepared kernels ----------------------------------------------------- */
struct sk_prepared {
  sk_kernel *k;
  const sk_backend *b; /* compiled for (its code target) */
  int pattern, policy_kind, md_rank, ncap;
  sk_capture caps[SK_MAXCAP];
  char *names; /* the capture names, one block */
  char *label; /* the handle's own (kernels are shared by
                             * content: k->label is the first one's) */
};

sk_prepared *sk_prepare(const sk_kdesc *d, int pol_kind, int md_rank, const sk_arg *args,
                        int nargs, int compile_only, char *err, size_t errlen) {
  const sk_backend *b = pick_backend(d, err, errlen);
  if (!b) return NULL;
  sk_policy pol;
  sk_policy_init(&pol, pol_kind);
  pol.md_rank = md_rank;
  for (int r = 0; r < md_rank && r < SK_MAXMD; r++) pol.md_hi[r] = 0;
  if (sk_policy_check(&pol, d->pattern, b, err, errlen) < 0) return NULL;
  sig s;
  if (collect(args, nargs, compile_only ? NULL : b, &s, NULL, err, errlen) < 0)
    return NULL;
  sk_kspec ks;
  sk_reducer reds[SK_MAXRED];
  if (make_spec(&ks, reds, d, pol_kind, md_rank, &s, b, err, errlen) < 0) return NULL;
  sk_kernel *k;
  if (get_kernel(&ks, &k, NULL, err, errlen) < 0) return NULL;
  size_t total = 0;
  for (int c = 0; c < s.n; c++) total += strlen(s.c[c].name) + 1;
  sk_prepared *h = calloc(1, sizeof *h);
  char *names = malloc(total ? total : 1);
  size_t ll = strlen(ks.label) + 1;
  char *label = malloc(ll);
  if (!h || !names || !label) {
    free(h);
    free(names);
    free(label);
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  memcpy(label, ks.label, ll);
  h->label = label;
  h->k = k;
  h->b = b;
  h->pattern = d->pattern;
  h->policy_kind = pol_kind;
  h->md_rank = ks.md_rank;
  h->ncap = s.n;
  h->names = names;
  for (int c = 0; c < s.n; c++) {
    h->caps[c] = s.c[c];
    size_t n = strlen(s.c[c].name) + 1;
    memcpy(names, s.c[c].name, n);
    h->caps[c].name = names;
    names += n;
  }
  return h;
}

const sk_kernel *sk_prepared_kernel(const sk_prepared *h) { return h->k; }

const char *sk_prepared_label(const sk_prepared *h) { return h->label; }

int sk_prepared_pattern(const sk_prepared *h) { return h->pattern; }

void sk_prepared_free(sk_prepared *h) {
  if (!h) return;
  free(h->names);
  free(h->label);
  free(h);
}

static const char *kind_name(int kind) {
  return kind == SK_POL_RANGE     ? "a range"
         : kind == SK_POL_MDRANGE ? "an MDRange"
                                  : "a TeamPolicy";
}

int sk_run_prepared(sk_prepared *h, const sk_policy *p, const sk_arg *args, int nargs,
                    sk_result *res, char *err, size_t errlen) {
  const sk_backend *b = sk_rt_backend(err, errlen);
  if (!b) return -1;
  if (sk_jit_target_find(b->target) != sk_jit_target_find(h->b->target)) {
    sk_err(err, errlen, SK_E_KERNEL_WAS_COMPILED, h->b->name, b->name);
    return -1;
  }
  if (p->kind != h->policy_kind ||
      (p->kind == SK_POL_MDRANGE && p->md_rank != h->md_rank)) {
    sk_err(err, errlen, SK_E_POLICY_DOES_NOT, kind_name(h->policy_kind));
    return -1;
  }
  sk_policy pol = *p;
  if (sk_policy_check(&pol, h->pattern, b, err, errlen) < 0) return -1;
  if (capture_check(h->pattern, &pol, h->label, err, errlen) < 0) return -1;
  sig s;
  if (collect(args, nargs, b, &s, NULL, err, errlen) < 0) return -1;
  if (s.n != h->ncap) {
    sk_err(err, errlen, SK_E_CAPTURE_GIVEN_KERNEL, s.n, s.n == 1 ? "" : "s", h->ncap);
    return -1;
  }
  for (int c = 0; c < s.n; c++) {
    const sk_capture *a = &s.c[c], *e = &h->caps[c];
    if (strcmp(a->name, e->name) != 0 || a->kind != e->kind || a->dtype != e->dtype ||
        a->rank != e->rank || a->layout != e->layout ||
        a->tile_log2[0] != e->tile_log2[0] || a->tile_log2[1] != e->tile_log2[1] ||
        a->tile_log2[2] != e->tile_log2[2] || a->agg != e->agg || a->agg_n != e->agg_n ||
        a->space != e->space || a->traits != e->traits || (a->alias && !e->alias)) {
      sk_err(err, errlen, SK_E_CAPTURE_DOES_NOT, a->name,
             e->kind == SK_CAP_VIEW ? "view" : "scalar", sk_dtypes[e->dtype].name,
             e->rank);
      return -1;
    }
  }
  __atomic_add_fetch(&h->k->launches, 1, __ATOMIC_RELAXED);
  return launch(b, h->k, h->pattern, &pol, &s, s.c, res, h->label, err, errlen);
}

/* -- installation ----------------------------------------------------- */
/* tcc's libtcc1.a: SPECK_TCC_LIBDIR wins over the installation's folder */
void sk_exec_setup_tcc(void) {
  const char *env = sk_env_get("SPECK_TCC_LIBDIR");
  if (env) {
    if (strcmp(env, sk_tcc_libdir()) != 0) sk_tcc_set_libdir(env);
    return;
  }
  char dir[PATH_MAX + 32];
  snprintf(dir, sizeof dir, "%s/lib/speck/tcc", sk_prefix());
  if (strcmp(dir, sk_tcc_libdir()) != 0) sk_tcc_set_libdir(dir);
}
