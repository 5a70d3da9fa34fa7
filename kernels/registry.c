/* registry.c: the library's entries by name, its precompiled variants,
 * and the argument helpers every driver uses.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "kbodies.h"
#include "kernels.h"

/* -- families ---------------------------------------------------------------
 * One line per folder of kernels/: a folder exports its lists of entries
 * and of bodies (one list per file, NULL-terminated lists of lists). */
static const sk_kentry *const *const blas_entry_lists[] = {
  sk_blas_entries,  sk_blas3_entries,   sk_lapack_entries,
  sk_zblas_entries, sk_zlapack_entries, NULL};
static const sk_kbody *const *const blas_body_lists[] = {
  sk_blas_bodies,  sk_blas3_bodies,   sk_lapack_bodies,
  sk_zblas_bodies, sk_zlapack_bodies, NULL};
static const sk_kentry *const *const sort_entry_lists[] = {sk_sort_entries, NULL};
static const sk_kbody *const *const sort_body_lists[] = {sk_sort_bodies, NULL};

static const sk_kentry *const *const *const families[] = {
  blas_entry_lists, sk_batched_entries, sk_sparse_entries,
  sk_graph_entries, sort_entry_lists,   sk_solve_entries, NULL};
static const sk_kbody *const *const task_body_lists[] = {sk_chol_bodies, NULL};
static const sk_kbody *const *const dist_body_lists[] = {sk_dist_bodies, sk_dist_bfs_bodies,
                                                          sk_dist_cc_bodies, sk_dist_pr_bodies,
                                                          NULL};
static const sk_kbody *const *const *const body_families[] = {
  blas_body_lists, sk_batched_bodies, sk_sparse_bodies, sk_graph_bodies,
  sort_body_lists, sk_solve_bodies,   task_body_lists,  dist_body_lists, NULL};

/* the families concatenated, and an open-addressing table of them by
 * name (every library call looks its entry up), built once */
#define SK_MAXENTRY 256
#define NAME_SLOTS 1024 /* a power of two, at least 2 * SK_MAXENTRY */
static const sk_kentry *all_entries[SK_MAXENTRY + 1];
static const sk_kentry *by_name[NAME_SLOTS];
static pthread_once_t entries_once = PTHREAD_ONCE_INIT;

static unsigned name_hash(const char *s) {
  unsigned h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static void build_entries(void) {
  int n = 0;
  for (int f = 0; families[f]; f++)
    for (int l = 0; families[f][l]; l++)
      for (int e = 0; families[f][l][e] && n < SK_MAXENTRY; e++)
        all_entries[n++] = families[f][l][e];
  all_entries[n] = NULL;
  /* in list order, the first of a name kept (as the linear search did) */
  for (int i = 0; i < n; i++) {
    unsigned h = name_hash(all_entries[i]->name);
    for (;; h++) {
      const sk_kentry **slot = &by_name[h & (NAME_SLOTS - 1)];
      if (!*slot) {
        *slot = all_entries[i];
        break;
      }
      if (strcmp((*slot)->name, all_entries[i]->name) == 0) break;
    }
  }
}

const sk_kentry *const *sk_kernel_entries(void) {
  pthread_once(&entries_once, build_entries);
  return all_entries;
}

/* -- texts by name ------------------------------------------------------------
 * sk_ktext_index (scripts/embed.lua): name, text pairs; the Lua drivers
 * keep what they looked up (speck/ktext.lua), so a scan will do */
const char *sk_kernel_text(const char *name) {
  for (size_t i = 0; sk_ktext_index[i]; i += 2)
    if (strcmp(sk_ktext_index[i], name) == 0) return sk_ktext_index[i + 1];
  return NULL;
}

const sk_kentry *sk_kernel_find(const char *name) {
  pthread_once(&entries_once, build_entries);
  for (unsigned h = name_hash(name);; h++) {
    const sk_kentry *e = by_name[h & (NAME_SLOTS - 1)];
    if (!e || strcmp(e->name, name) == 0) return e;
  }
}

/* -- arguments -------------------------------------------------------------- */
const sk_arg *sk_karg_find(const sk_arg *args, int nargs, const char *name) {
  for (int i = 0; i < nargs; i++)
    if (args[i].name && strcmp(args[i].name, name) == 0) return &args[i];
  return NULL;
}

const sk_view *sk_karg_view(const sk_arg *args, int nargs, const char *name, int rank,
                            char *err, size_t errlen) {
  return sk_kpos_view(sk_karg_find(args, nargs, name), name, rank, err, errlen);
}

const sk_view *sk_kpos_view(const sk_arg *a, const char *name, int rank, char *err,
                            size_t errlen) {
  if (!a || !a->view) {
    sk_err(err, errlen, SK_E_MUST_VIEW, name);
    return NULL;
  }
  if (rank >= 0 && a->view->rank != rank) {
    sk_err(err, errlen, SK_E_VIEW_RANK_EXPECTED, name, a->view->label, a->view->rank,
           rank);
    return NULL;
  }
  return a->view;
}

int sk_karg_f64(const sk_arg *args, int nargs, const char *name, double *x, char *err,
                size_t errlen) {
  return sk_kpos_f64(sk_karg_find(args, nargs, name), name, x, err, errlen);
}

int sk_kpos_f64(const sk_arg *a, const char *name, double *x, char *err, size_t errlen) {
  if (!a || a->view || a->str ||
      !(a->dtype == SK_F64 || a->dtype == SK_F32 || a->dtype == SK_I64 ||
        a->dtype == SK_I32)) {
    sk_err(err, errlen, SK_E_MUST_NUMBER, name);
    return -1;
  }
  *x = a->dtype == SK_F64   ? a->value.f64
       : a->dtype == SK_F32 ? a->value.f32
       : a->dtype == SK_I64 ? (double)a->value.i64
                            : a->value.i32;
  return 0;
}

const char *sk_karg_str(const sk_arg *args, int nargs, const char *name, const char *dflt,
                        char *err, size_t errlen) {
  const sk_arg *a = sk_karg_find(args, nargs, name);
  if (!a && dflt) return dflt;
  if (!a || !a->str) {
    sk_err(err, errlen, SK_E_MUST_STRING, name);
    return NULL;
  }
  return a->str;
}

int sk_karg_i64(const sk_arg *args, int nargs, const char *name, int has_dflt,
                int64_t dflt, int64_t *x, char *err, size_t errlen) {
  const sk_arg *a = sk_karg_find(args, nargs, name);
  if (!a && has_dflt) {
    *x = dflt;
    return 0;
  }
  if (a && !a->view && !a->str) {
    if (a->dtype == SK_I64 || a->dtype == SK_I32 || a->dtype == SK_U32) {
      *x = a->dtype == SK_I64   ? a->value.i64
           : a->dtype == SK_I32 ? a->value.i32
                                : (int64_t)a->value.u32;
      return 0;
    }
    double d = a->dtype == SK_F64   ? a->value.f64
               : a->dtype == SK_F32 ? a->value.f32
                                    : 0.5;
    if ((a->dtype == SK_F64 || a->dtype == SK_F32) && d == (double)(int64_t)d &&
        d >= -9.2e18 && d <= 9.2e18) {
      *x = (int64_t)d;
      return 0;
    }
  }
  sk_err(err, errlen, SK_E_MUST_INTEGER, name);
  return -1;
}

int sk_karg_known(const sk_arg *args, int nargs, const char *const *known, char *err,
                  size_t errlen) {
  for (int i = 0; i < nargs; i++) {
    int ok = 0;
    for (int k = 0; known[k] && !ok; k++)
      ok = args[i].name && strcmp(args[i].name, known[k]) == 0;
    if (!ok) {
      sk_err(err, errlen, SK_E_UNKNOWN_ARGUMENT,
             args[i].name ? args[i].name : "(no name)");
      return -1;
    }
  }
  return 0;
}

/* -- running a body ---------------------------------------------------------- */
/* one "op:dtype" word of a body's 'reds' at *p into 'r'; advances *p */
static int parse_red(const char **p, sk_reducer *r, int scan, char *err, size_t errlen) {
  char word[64];
  size_t n = 0;
  while (**p == ' ') (*p)++;
  while (**p && **p != ' ' && n + 1 < sizeof word) word[n++] = *(*p)++;
  word[n] = '\0';
  memset(r, 0, sizeof *r);
  char *colon = strchr(word, ':');
  const char *dt = scan ? word : colon ? colon + 1 : "float64";
  if (colon) *colon = '\0';
  r->op = scan ? SK_RED_SUM : sk_redop_find(word);
  r->dtype = sk_dtype_parse(dt);
  if (r->op < 0 || r->dtype < 0) {
    sk_err(err, errlen, SK_E_BAD_REDUCER_LIBRARY, word);
    return -1;
  }
  return 0;
}

int sk_kbody_desc(const sk_kbody *kb, const sk_backend *b, sk_kdesc *d, char *err,
                  size_t errlen) {
  memset(d, 0, sizeof *d);
  d->label = kb->label;
  d->body = kb->body;
  d->prelude = kb->prelude;
  d->pattern = kb->pattern;
  d->bounds = -1;
  d->library = 1;
  d->backend = b;
  if (kb->pattern == SK_SCAN && kb->reds) {
    sk_reducer r;
    const char *p = kb->reds;
    if (parse_red(&p, &r, 1, err, errlen) < 0) return -1;
    d->scan_dtype = r.dtype;
  }
  if (kb->pattern != SK_REDUCE) return 0;
  if (!kb->reds) {
    d->nred = 1;
    d->reds[0].op = kb->red_op;
    d->reds[0].dtype = SK_F64;
    return 0;
  }
  for (const char *p = kb->reds; *p && d->nred < SK_MAXRED;) {
    if (parse_red(&p, &d->reds[d->nred], 0, err, errlen) < 0) return -1;
    d->nred++;
    while (*p == ' ') p++;
  }
  return 0;
}

/* the arguments of 'kb' from views 'v' and scalars 's' (field by field:
 * every library launch makes them, and a whole sk_arg is 184 bytes; a
 * scalar's slot past its dtype's member is never read) */
static int body_args(const sk_kbody *kb, const sk_view *const *v, const double *s,
                     sk_arg *args) {
  int n = 0;
  for (int k = 0; kb->views[k]; k++, n++) {
    args[n].name = kb->views[k];
    args[n].view = v[k];
    args[n].dtype = 0;
    args[n].str = NULL;
    args[n].ro = 0; /* written, as far as the launch knows (its write stamp) */
  }
  for (int k = 0; kb->scalars[k]; k++, n++) {
    args[n].name = kb->scalars[k];
    args[n].view = NULL;
    args[n].dtype = SK_F64;
    args[n].str = NULL;
    args[n].ro = 0;
    args[n].value.c128[1] = 0;
    args[n].value.f64 = s[k];
  }
  return n;
}

int sk_kbody_range(const sk_kbody *kb, int64_t b, int64_t e, const sk_arg *args, int nargs,
                   sk_result *res, char *err, size_t errlen) {
  if (e <= b) {
    if (res) memset(res, 0, sizeof *res);
    return 0;
  }
  sk_policy p = SK_POLICY_INIT(SK_POL_RANGE);
  p.begin = b;
  p.end = e;
  return sk_kbody_launch(kb, &p, args, nargs, res, err, errlen);
}

int sk_kbody_run(const sk_kbody *kb, int64_t n, const sk_view *const *v, const double *s,
                 sk_result *res, char *err, size_t errlen) {
  sk_arg args[2 * SK_KBODY_MAXCAP];
  int na = body_args(kb, v, s, args);
  sk_policy p = SK_POLICY_INIT(SK_POL_RANGE); /* no call: every library launch */
  p.end = n;
  p.grain = kb->grain;
  return sk_kbody_launch(kb, &p, args, na, res, err, errlen);
}

/* Each thread keeps its latest launches of the library's own bodies
 * (sk_lprep, one a set, picked by the body's address): a driver's
 * repeated launch of a body with the same captures runs its kernel
 * without the general path's sort, spec and look-up. Only the bodies of
 * body_families are kept, and those marked 'lasting': constants, so the
 * address names the text; a driver's copy made at run time (a sort's
 * comparator compiled into its bodies, on the stack) takes the general
 * path, whose key compares the text itself. */
#define KPREP_SETS 32 /* the set: the top 5 bits of the address hash */
static _Thread_local sk_lprep *kprep; /* on the heap: 50 KB of static TLS
                                        * would weigh on every thread */
static pthread_key_t kprep_key;
static pthread_once_t kprep_once = PTHREAD_ONCE_INIT;

static void kprep_key_make(void) { (void)pthread_key_create(&kprep_key, free); }

/* the calling thread's kept launches, made on its first library launch
 * (freed when the thread ends); NULL when memory is short */
static sk_lprep *kprep_sets(void) {
  if (__builtin_expect(kprep != NULL, 1)) return kprep;
  pthread_once(&kprep_once, kprep_key_make);
  kprep = calloc(KPREP_SETS, sizeof *kprep);
  if (kprep) (void)pthread_setspecific(kprep_key, kprep);
  return kprep;
}

static const sk_kbody *body_at(int i);

#define KNOWN_SLOTS 2048 /* a power of two, over twice the bodies */
static const sk_kbody *known_bodies[KNOWN_SLOTS];
static pthread_once_t known_once = PTHREAD_ONCE_INIT;

static unsigned known_slot(const sk_kbody *kb) {
  return (unsigned)(((uintptr_t)kb * 0x9E3779B97F4A7C15ull) >> 40) & (KNOWN_SLOTS - 1);
}

static void build_known(void) {
  const sk_kbody *kb;
  for (int i = 0; (kb = body_at(i)) != NULL; i++) {
    unsigned h = known_slot(kb), n = 0;
    while (known_bodies[h] && known_bodies[h] != kb && ++n < KNOWN_SLOTS)
      h = (h + 1) & (KNOWN_SLOTS - 1);
    if (n < KNOWN_SLOTS) known_bodies[h] = kb; /* a full table keeps no more */
  }
}

/* 1 when 'kb' is one of the library's constant bodies */
static int known_body(const sk_kbody *kb) {
  pthread_once(&known_once, build_known);
  unsigned h = known_slot(kb);
  for (unsigned n = 0; n < KNOWN_SLOTS; h = (h + 1) & (KNOWN_SLOTS - 1), n++) {
    if (known_bodies[h] == kb) return 1;
    if (!known_bodies[h]) return 0;
  }
  return 0;
}

int sk_kbody_launch(const sk_kbody *kb, const sk_policy *p, const sk_arg *args, int nargs,
                    sk_result *res, char *err, size_t errlen) {
  sk_lprep *sets = kprep_sets();
  sk_lprep *f = sets ? &sets[((uintptr_t)kb * 0x9E3779B97F4A7C15ull) >> 59] : NULL;
  int rc = f ? sk_run_again(f, kb, p, args, nargs, res, err, errlen) : 1;
  if (rc <= 0) return rc;
  sk_kdesc d;
  if (sk_kbody_desc(kb, NULL, &d, err, errlen) < 0) return -1;
  if (!f || !(kb->lasting || known_body(kb))) return sk_run(&d, p, args, nargs, res, err, errlen);
  return sk_run_keep(f, kb, &d, p, args, nargs, res, err, errlen);
}

/* -- precompiled variants ---------------------------------------------------
 * Body after body, each with its explicit signatures ('sigs') or the four
 * default ones (float64/float32 x right/left). */
static const int pre_dtypes[] = {SK_F64, SK_F32};
static const int pre_layouts[] = {SK_RIGHT, SK_LEFT};
#define NPRE_DEFAULT 4

static const sk_kbody *body_at(int i) {
  for (int f = 0; body_families[f]; f++)
    for (int l = 0; body_families[f][l]; l++)
      for (int b = 0; body_families[f][l][b]; b++)
        if (i-- == 0) return body_families[f][l][b];
  return NULL;
}

static int nvariants(const sk_kbody *kb) {
  if (!kb->sigs) return NPRE_DEFAULT;
  int n = 0;
  while (kb->sigs[n]) n++;
  return n;
}

/* the first back end whose kernels are host code */
static const sk_backend *host_code_backend(void) {
  for (const sk_backend *const *b = sk_backend_list(); *b; b++)
    if ((*b)->code == SK_CODE_HOST) return *b;
  return NULL;
}

static char sig_cell[64]; /* the data of signature views: never read */
/* the allocation that captures marked '!' in a signature share */
static sk_alloc sig_shared = {.refs = 1,
                              .label = "signature",
                              .ptr = sig_cell,
                              .bytes = sizeof sig_cell,
                              .space = SK_SPACE_HOST,
                              .owned = 0};

static void sig_view(sk_view *v, int dtype, int rank, int layout) {
  memset(v, 0, sizeof *v);
  v->data = sig_cell;
  v->dtype = dtype;
  v->rank = rank;
  v->layout = layout;
  v->space = SK_SPACE_HOST;
  int64_t ext[SK_MAXRANK];
  for (int d = 0; d < SK_MAXRANK; d++) ext[d] = 1;
  sk_view_layout_strides(rank, layout, ext, v->stride);
  for (int d = 0; d < rank; d++) v->extent[d] = 1;
  snprintf(v->label, sizeof v->label, "%s", "pre");
}

/* Parse signature 'sig' (see sk_kbody) into arguments: names kept in
 * st->names, views in 'views'. Returns the count, -1 with a message. */
static int parse_sig(const char *sig, sk_spec_store *st, sk_view *views, sk_arg *args,
                     int *pol_kind, int *md_rank, char *err, size_t errlen) {
  const char *p = sig;
  char word[128];
  int n = -1;
  *md_rank = 0;
  while (*p) {
    while (*p == ' ' || *p == '\n') p++;
    size_t l = 0;
    while (*p && *p != ' ' && *p != '\n' && l + 1 < sizeof word) word[l++] = *p++;
    word[l] = '\0';
    if (l == 0) break;
    if (n < 0) {
      if (strcmp(word, "range") == 0) *pol_kind = SK_POL_RANGE;
      else if (strcmp(word, "team") == 0) *pol_kind = SK_POL_TEAM;
      else if (strncmp(word, "mdrange", 7) == 0) {
        *pol_kind = SK_POL_MDRANGE;
        *md_rank = atoi(word + 7);
      } else {
        sk_err(err, errlen, SK_E_SIGNATURE_UNKNOWN_POLICY, sig, word);
        return -1;
      }
      n = 0;
      continue;
    }
    char *eq = strchr(word, '=');
    if (!eq || n >= SK_MAXCAP || (size_t)(eq - word) >= sizeof st->names[0]) {
      sk_err(err, errlen, SK_E_SIGNATURE_BAD_CAPTURE, sig, word);
      return -1;
    }
    *eq = '\0';
    memcpy(st->names[n], word, (size_t)(eq - word) + 1);
    size_t wl = strlen(eq + 1);
    int shared = wl > 0 && eq[wl] == '!';
    if (shared) eq[wl] = '\0';
    char *br = strchr(eq + 1, '[');
    if (br) *br = '\0';
    int dt = sk_dtype_parse(eq + 1);
    int rank = br ? atoi(br + 1) : 0;
    int layout = br && strstr(br + 1, ",left")     ? SK_LEFT
                 : br && strstr(br + 1, ",stride") ? SK_STRIDE
                                                   : SK_RIGHT;
    if (dt < 0 || (br && (rank < 1 || rank > SK_MAXRANK))) {
      sk_err(err, errlen, SK_E_SIGNATURE_BAD_CAPTURE, sig, word);
      return -1;
    }
    if (br) {
      sig_view(&views[n], dt, rank, layout);
      if (shared) views[n].alloc = &sig_shared;
      args[n] = sk_arg_view(st->names[n], &views[n]);
    } else {
      memset(&args[n], 0, sizeof args[n]);
      args[n].name = st->names[n];
      args[n].dtype = dt;
    }
    n++;
  }
  return n < 0 ? 0 : n;
}

/* The arguments of variant 'idx' of 'kb' (a signature of its list, else
 * the defaults' rank-1 views of pre_dtypes x pre_layouts): names in st,
 * views in 'views'. The count, -1 with a message. */
static int variant_args(const sk_kbody *kb, int idx, sk_spec_store *st, sk_view *views,
                        sk_arg *args, int *pol_kind, int *md_rank, char *err, size_t errlen) {
  *pol_kind = SK_POL_RANGE;
  *md_rank = 0;
  if (kb->sigs) return parse_sig(kb->sigs[idx], st, views, args, pol_kind, md_rank, err, errlen);
  int dtype = pre_dtypes[idx / 2];
  int layout = pre_layouts[idx % 2];
  const sk_view *vp[SK_KBODY_MAXCAP];
  for (int k = 0; k < SK_KBODY_MAXCAP; k++) {
    sig_view(&views[k], dtype, 1, layout);
    vp[k] = &views[k];
  }
  double sc[SK_KBODY_MAXCAP] = {0};
  return body_args(kb, vp, sc, args);
}

int sk_kpre_variant(int idx, sk_spec_store *st, char *err, size_t errlen) {
  const sk_backend *hb = host_code_backend();
  const sk_kbody *kb = NULL;
  for (int b = 0; (kb = body_at(b)) != NULL; b++) {
    int nv = nvariants(kb);
    if (idx < nv) break;
    idx -= nv;
  }
  if (!kb || !hb) return 0;
  sk_kdesc d;
  if (sk_kbody_desc(kb, hb, &d, err, errlen) < 0) return -1;
  static sk_view views[SK_MAXCAP]; /* signatures only: no data behind them */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  sk_arg args[SK_MAXCAP];
  int pol_kind, md_rank, rc = 1;
  pthread_mutex_lock(&lock);
  int na = variant_args(kb, idx, st, views, args, &pol_kind, &md_rank, err, errlen);
  if (na < 0 || sk_exec_spec(&d, pol_kind, md_rank, args, na, hb, st, err, errlen) < 0)
    rc = -1;
  pthread_mutex_unlock(&lock);
  /* the spec points at kb's static strings and at st's names */
  return rc;
}

int sk_kbody_compile(const sk_kbody *kb, int sig, const sk_backend *b, char *err,
                     size_t errlen) {
  return sk_kbody_compile_arch(kb, sig, b, NULL, err, errlen);
}

int sk_kbody_compile_arch(const sk_kbody *kb, int sig, const sk_backend *b, const char *arch,
                          char *err, size_t errlen) {
  if (sig < 0 || sig >= nvariants(kb)) {
    sk_err(err, errlen, SK_E_NO_SIGNATURE, kb->label, sig);
    return -1;
  }
  if (kb->host_only && b->code != SK_CODE_HOST) {
    sk_err(err, errlen, SK_E_KBODY_HOST_ONLY, kb->label, b->name);
    return -1;
  }
  sk_kdesc d;
  if (sk_kbody_desc(kb, b, &d, err, errlen) < 0) return -1;
  d.arch = arch;
  sk_spec_store *st = malloc(sizeof *st);
  sk_view *views = malloc(SK_MAXCAP * sizeof *views);
  sk_arg args[SK_MAXCAP];
  int pol_kind, md_rank, rc = -1;
  if (st && views) {
    int na = variant_args(kb, sig, st, views, args, &pol_kind, &md_rank, err, errlen);
    if (na >= 0) {
      for (int k = 0; k < na; k++)
        if (args[k].view) views[k].space = b->space;
      sk_prepared *h = sk_prepare(&d, pol_kind, md_rank, args, na, 1, err, errlen);
      if (h) {
        sk_prepared_free(h);
        rc = 0;
      }
    }
  } else {
    sk_err(err, errlen, SK_E_NOMEM);
  }
  free(st);
  free(views);
  return rc;
}

const sk_kbody *sk_kbody_at(int i) { return body_at(i); }

int sk_kbody_nvariants(const sk_kbody *kb) { return nvariants(kb); }

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

/* -- outputs ------------------------------------------------------ */
int sk_kout_view(sk_kvalue *o, const char *name, sk_view *v, char *err, size_t errlen) {
  if (o->nout >= SK_KOUT_MAX) {
    sk_view_release(v);
    sk_err(err, errlen, SK_E_MORE_THAN_OUTPUTS, SK_KOUT_MAX);
    return -1;
  }
  sk_kout *k = &o->out[o->nout++];
  memset(k, 0, sizeof *k);
  k->name = name;
  k->is_view = 1;
  k->view = *v;
  memset(v, 0, sizeof *v); /* the reference moved */
  return 0;
}

int sk_kerr_file(char *err, size_t errlen, const char *path) {
  char why[512];
  snprintf(why, sizeof why, "%s", err);
  sk_err(err, errlen, SK_E_PREFIX_QUOTED, path, why);
  return -1;
}

int sk_kout_num(sk_kvalue *o, const char *name, double x, char *err, size_t errlen) {
  if (o->nout >= SK_KOUT_MAX) {
    sk_err(err, errlen, SK_E_MORE_THAN_OUTPUTS, SK_KOUT_MAX);
    return -1;
  }
  sk_kout *k = &o->out[o->nout++];
  memset(k, 0, sizeof *k);
  k->name = name;
  k->num = x;
  return 0;
}

void sk_kout_release(sk_kvalue *o) {
  for (int i = 0; i < o->nout; i++)
    if (o->out[i].is_view) sk_view_release(&o->out[i].view);
  o->nout = 0;
}

/* -- calling ---------------------------------------------------------------- */
/* "no library kernel 'blas.nosuch' (known: blas.dot, ...)": the entries of
 * the name's family, or the families when the family is unknown too */
static void unknown_kernel(const char *name, char *err, size_t errlen) {
  const char *dot = name ? strchr(name, '.') : NULL;
  size_t fl = dot ? (size_t)(dot - name) + 1 : 0;
  int any = 0;
  for (const sk_kentry *const *k = sk_kernel_entries(); *k && fl; k++)
    any |= strncmp((*k)->name, name, fl) == 0;
  sk_err(err, errlen, SK_E_NO_LIBRARY_KERNEL, name ? name : "(null)",
         any ? "known" : "families");
  const char *last = "";
  size_t lastn = 0;
  int first = 1;
  for (const sk_kentry *const *k = sk_kernel_entries(); *k; k++) {
    const char *kn = (*k)->name;
    size_t l = strlen(err);
    if (any) {
      if (strncmp(kn, name, fl) != 0) continue;
      snprintf(err + l, errlen > l ? errlen - l : 0, "%s%s", first ? "" : ", ", kn);
    } else {
      const char *kd = strchr(kn, '.');
      size_t n = kd ? (size_t)(kd - kn) : strlen(kn);
      if (n == lastn && strncmp(kn, last, n) == 0) continue;
      snprintf(err + l, errlen > l ? errlen - l : 0, "%s%.*s", first ? "" : ", ", (int)n,
               kn);
      last = kn;
      lastn = n;
    }
    first = 0;
  }
  size_t l = strlen(err);
  snprintf(err + l, errlen > l ? errlen - l : 0, ")");
}

const sk_kentry_pos *sk_kentry_positional(const sk_kentry *e) {
  return e && !e->call ? (const sk_kentry_pos *)e : NULL; /* 'e' is its first member */
}

/* the driver of 'e' with 'args' by name, or by position ('pos' non-NULL:
 * pos[i] the argument params[i], NULL when absent) */
static int drive(const sk_kentry *e, const sk_arg *args, int nargs,
                 const sk_arg *const *pos, sk_kvalue *v, char *msg, size_t ml) {
  const sk_kentry_pos *ep = sk_kentry_positional(e);
  if (!ep) return e->call(args, nargs, v, msg, ml);
  if (pos) return ep->callp(pos, v, msg, ml);
  if (sk_karg_known(args, nargs, ep->params, msg, ml) < 0) return -1;
  const sk_arg *p[SK_KPOS_MAX];
  for (int i = 0; i < SK_KPOS_MAX && ep->params[i]; i++)
    p[i] = sk_karg_find(args, nargs, ep->params[i]);
  return ep->callp(p, v, msg, ml);
}

static int call_with(const sk_kentry *e, const sk_arg *args, int nargs,
                     const sk_arg *const *pos, sk_kvalue *out, int *result_kind, char *err,
                     size_t errlen, int named);

static int call_entry(const char *name, const sk_arg *args, int nargs, sk_kvalue *out,
                      int *result_kind, char *err, size_t errlen, int named) {
  const sk_kentry *e = name ? sk_kernel_find(name) : NULL;
  if (!e) {
    unknown_kernel(name, err, errlen);
    return -1;
  }
  return call_with(e, args, nargs, NULL, out, result_kind, err, errlen, named);
}

int sk_kernel_call_pos(const sk_kentry_pos *e, const sk_arg *const *pos, sk_kvalue *out,
                       int *result_kind, char *err, size_t errlen) {
  return call_with(&e->e, NULL, 0, pos, out, result_kind, err, errlen, 0);
}

static int call_with(const sk_kentry *e, const sk_arg *args, int nargs,
                     const sk_arg *const *pos, sk_kvalue *out, int *result_kind, char *err,
                     size_t errlen, int named) {
  sk_kernels_seed();
  /* no outputs: the counts and each slot's flag (the slots themselves,
   * a few kilobytes, are written by sk_kout_view / sk_kout_num); the
   * driver fills the caller's value in place */
  sk_kvalue local, *v = out ? out : &local;
  memset(v, 0, offsetof(sk_kvalue, out));
  for (int k = 0; k < SK_KOUT_MAX; k++) {
    v->out[k].name = NULL;
    v->out[k].is_view = 0;
  }
  char msg[2048];
  if (drive(e, args, nargs, pos, v, msg, sizeof msg) < 0) {
    sk_kout_release(v); /* no output is left */
    if (named) sk_err(err, errlen, SK_E_PREFIX, e->name, msg);
    else sk_err(err, errlen, SK_E_MSG, msg);
    return -1;
  }
  if (!out) sk_kout_release(v);
  if (result_kind) *result_kind = e->result;
  return 0;
}

int sk_kernel_call(const char *name, const sk_arg *args, int nargs, sk_kvalue *out,
                   int *result_kind, char *err, size_t errlen) {
  return call_entry(name, args, nargs, out, result_kind, err, errlen, 1);
}

int sk_kernel_call_raw(const char *name, const sk_arg *args, int nargs, sk_kvalue *out,
                       int *result_kind, char *err, size_t errlen) {
  return call_entry(name, args, nargs, out, result_kind, err, errlen, 0);
}
