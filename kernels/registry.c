/* registry.c: the library's entries by name, its precompiled variants,
 * and the argument helpers every driver uses.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"

/* -- families ---------------------------------------------------------------
 * One list per folder of kernels/; a new family is one line here. */
static const sk_kentry *const *const families[] = {sk_blas_entries, NULL};
static const sk_kbody *const *const body_families[] = {sk_blas_bodies, NULL};

const sk_kentry *sk_kernel_find(const char *name) {
  for (int f = 0; families[f]; f++)
    for (int e = 0; families[f][e]; e++)
      if (strcmp(families[f][e]->name, name) == 0) return families[f][e];
  return NULL;
}

/* the families concatenated, built once */
#define SK_MAXENTRY 256
static const sk_kentry *all_entries[SK_MAXENTRY + 1];

static void build_entries(void) {
  int n = 0;
  for (int f = 0; families[f]; f++)
    for (int e = 0; families[f][e] && n < SK_MAXENTRY; e++)
      all_entries[n++] = families[f][e];
  all_entries[n] = NULL;
}

const sk_kentry *const *sk_kernel_entries(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_entries);
  return all_entries;
}

/* -- arguments -------------------------------------------------------------- */
static const sk_arg *find_arg(const sk_arg *args, int nargs, const char *name) {
  for (int i = 0; i < nargs; i++)
    if (args[i].name && strcmp(args[i].name, name) == 0) return &args[i];
  return NULL;
}

const sk_view *sk_karg_view(const sk_arg *args, int nargs, const char *name,
                            int rank, char *err, size_t errlen) {
  const sk_arg *a = find_arg(args, nargs, name);
  if (!a || !a->view) {
    snprintf(err, errlen, "%s must be a view", name);
    return NULL;
  }
  if (rank >= 0 && a->view->rank != rank) {
    snprintf(err, errlen, "%s (view '%s') is rank %d, expected rank %d", name,
             a->view->label, a->view->rank, rank);
    return NULL;
  }
  return a->view;
}

int sk_karg_f64(const sk_arg *args, int nargs, const char *name, double *x,
                char *err, size_t errlen) {
  const sk_arg *a = find_arg(args, nargs, name);
  if (!a || a->view ||
      !(a->dtype == SK_F64 || a->dtype == SK_F32 || a->dtype == SK_I64 ||
        a->dtype == SK_I32)) {
    snprintf(err, errlen, "%s must be a number", name);
    return -1;
  }
  *x = a->dtype == SK_F64   ? a->value.f64
       : a->dtype == SK_F32 ? a->value.f32
       : a->dtype == SK_I64 ? (double)a->value.i64
                            : a->value.i32;
  return 0;
}

int sk_karg_known(const sk_arg *args, int nargs, const char *const *known,
                  char *err, size_t errlen) {
  for (int i = 0; i < nargs; i++) {
    int ok = 0;
    for (int k = 0; known[k] && !ok; k++)
      ok = args[i].name && strcmp(args[i].name, known[k]) == 0;
    if (!ok) {
      snprintf(err, errlen, "unknown argument '%s'",
               args[i].name ? args[i].name : "(no name)");
      return -1;
    }
  }
  return 0;
}

/* -- running a body ---------------------------------------------------------- */
static void body_desc(const sk_kbody *kb, sk_kdesc *d) {
  memset(d, 0, sizeof *d);
  d->label = kb->label;
  d->body = kb->body;
  d->pattern = kb->pattern;
  d->bounds = -1;
  if (kb->pattern == SK_REDUCE) {
    d->nred = 1;
    d->reds[0].op = kb->red_op;
    d->reds[0].dtype = SK_F64;
  }
}

/* the arguments of 'kb' from views 'v' and scalars 's' */
static int body_args(const sk_kbody *kb, const sk_view *const *v,
                     const double *s, sk_arg *args) {
  int n = 0;
  for (int k = 0; kb->views[k]; k++) args[n++] = sk_arg_view(kb->views[k], v[k]);
  for (int k = 0; kb->scalars[k]; k++) args[n++] = sk_arg_f64(kb->scalars[k], s[k]);
  return n;
}

int sk_kbody_run(const sk_kbody *kb, int64_t n, const sk_view *const *v,
                 const double *s, sk_result *res, char *err, size_t errlen) {
  sk_kdesc d;
  body_desc(kb, &d);
  sk_arg args[2 * SK_KBODY_MAXCAP];
  int na = body_args(kb, v, s, args);
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return sk_run(&d, &p, args, na, res, err, errlen);
}

/* -- precompiled variants --------------------------------------------------- */
static const int pre_dtypes[] = {SK_F64, SK_F32};
static const int pre_layouts[] = {SK_RIGHT, SK_LEFT};
#define NPRE_PER_BODY 4

static const sk_kbody *body_at(int i) {
  for (int f = 0; body_families[f]; f++)
    for (int b = 0; body_families[f][b]; b++)
      if (i-- == 0) return body_families[f][b];
  return NULL;
}

/* the first back end whose kernels are host code */
static const sk_backend *host_code_backend(void) {
  for (const sk_backend *const *b = sk_backend_list(); *b; b++)
    if ((*b)->code == SK_CODE_HOST) return *b;
  return NULL;
}

int sk_kpre_variant(int idx, sk_spec_store *st, char *err, size_t errlen) {
  const sk_kbody *kb = body_at(idx / NPRE_PER_BODY);
  const sk_backend *hb = host_code_backend();
  if (!kb || !hb) return 0;
  int dtype = pre_dtypes[idx % NPRE_PER_BODY / 2];
  int layout = pre_layouts[idx % 2];
  sk_view views[SK_KBODY_MAXCAP];
  const sk_view *vp[SK_KBODY_MAXCAP];
  static char cell[8];
  for (int k = 0; k < SK_KBODY_MAXCAP; k++) {
    memset(&views[k], 0, sizeof views[k]);
    views[k].data = cell;        /* a signature only: never dereferenced */
    views[k].dtype = dtype;
    views[k].rank = 1;
    views[k].layout = layout;
    views[k].space = SK_SPACE_HOST;
    views[k].stride[0] = 1;
    snprintf(views[k].label, sizeof views[k].label, "%s", "pre");
    vp[k] = &views[k];
  }
  double s[SK_KBODY_MAXCAP] = {0};
  sk_kdesc d;
  body_desc(kb, &d);
  sk_arg args[2 * SK_KBODY_MAXCAP];
  int na = body_args(kb, vp, s, args);
  if (sk_exec_spec(&d, SK_POL_RANGE, 0, args, na, hb, st, err, errlen) < 0)
    return -1;
  /* the spec points at 'd' (label, body): both are static strings of kb */
  return 1;
}

static void seed(void) {
  if (sk_kpre_count <= 0 || !sk_kpre_cpu_ok()) return;
  for (int i = 0; i < sk_kpre_count; i++) {
    sk_spec_store st;
    char err[512];
    if (sk_kpre_variant(i, &st, err, sizeof err) != 1) return;
    /* a table from another build of the registry is not trusted */
    if (sk_jit_key_hash(&st.spec) != sk_kpre_table[i].hash) continue;
    const sk_kpre *k = &sk_kpre_table[i];
    sk_jit_seed(&st.spec, k->fn, k->init, k->join, k->layout, err, sizeof err);
  }
}

void sk_kernels_seed(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, seed);
}

/* -- calling ---------------------------------------------------------------- */
int sk_kernel_call(const char *name, const sk_arg *args, int nargs,
                   sk_kvalue *out, int *result_kind, char *err,
                   size_t errlen) {
  const sk_kentry *e = name ? sk_kernel_find(name) : NULL;
  if (!e) {
    snprintf(err, errlen, "no library kernel '%s' (known: ", name ? name : "(null)");
    for (const sk_kentry *const *k = sk_kernel_entries(); *k; k++) {
      size_t l = strlen(err);
      snprintf(err + l, errlen > l ? errlen - l : 0, "%s%s", (*k)->name,
               k[1] ? ", " : ")");
    }
    return -1;
  }
  sk_kernels_seed();
  sk_kvalue v = {0, 0};
  char msg[2048];
  if (e->call(args, nargs, &v, msg, sizeof msg) < 0) {
    snprintf(err, errlen, "%s: %s", e->name, msg);
    return -1;
  }
  if (out) *out = v;
  if (result_kind) *result_kind = e->result;
  return 0;
}
