/* sptrsv.c: sparse triangular solves L x = b and U x = b, unit or
 * non-unit diagonal, by level scheduling (seed 000 section 2.4.1, after
 * Naumov): a symbolic phase on the host groups the rows into level sets
 * (a row's level is one more than the highest level of the rows it reads)
 * and plans the launches; the solve runs one launch per level, each row of
 * the level independent, reusing the symbolic phase across solves.
 * Chaining: runs of consecutive thin levels (fewer rows than make a
 * launch worth it) are solved in one launch by a single team that waits
 * at a team barrier between levels.
 *
 * The symbolic phase refuses entries on the wrong side of the diagonal
 * (naming one) and, for a non-unit diagonal, a row without a diagonal
 * entry; the solve names the first row whose diagonal is zero. With
 * diag "U" stored diagonal entries are ignored (LAPACK's rule).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparse.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define MAT(VT) R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT)

/* -- bodies ------------------------------------------------------------------ */
#define SOLVE_ROW(IDX)                                                       \
  "{ const int64_t r = rows(" IDX ");\n"                                    \
  "  VT s = b(r), d = 0;\n"                                                 \
  "  for (int64_t k = rowptr(r); k < rowptr(r + 1); k++) {\n"               \
  "    const int64_t c = colidx(k);\n"                                      \
  "    if (c == r) d += values(k); else s -= values(k) * x(c);\n"           \
  "  }\n"                                                                   \
  "  if (unit) x(r) = s;\n"                                                 \
  "  else { if (d == 0) atomic_min(&bad(0), r); x(r) = s / d; } }\n"

#define LV_SIG(VT) "range" MAT(VT) R1("rows", "int64") R1("b", VT) R1("x", VT) \
  R1("bad", "int64") " first=int64 unit=int64"
static const char *const sig_level[] = {LV_SIG("float64"), LV_SIG("float32"), NULL};
/* the rows rows(first + i) of one level */
static const sk_kbody k_level = {
  "sparse.sptrsv_level",
  "typedef __typeof__(x(0)) VT;\n" SOLVE_ROW("first + i"),
  SK_FOR, 0, {NULL}, {NULL}, sig_level, NULL, NULL};

#define CH_SIG(VT) "team" MAT(VT) R1("rows", "int64") R1("lp", "int64") R1("b", VT) \
  R1("x", VT) R1("bad", "int64") " la=int64 lb=int64 unit=int64"
static const char *const sig_chain[] = {CH_SIG("float64"), CH_SIG("float32"), NULL};
/* levels la..lb-1 in one team, a barrier between levels */
static const sk_kbody k_chain = {
  "sparse.sptrsv_chain",
  "typedef __typeof__(x(0)) VT;\n"
  "for (int64_t l = la; l < lb; l++) {\n"
  "  TEAM_FOR(j, lp(l), lp(l + 1)) " SOLVE_ROW("j")
  "  team_barrier(team);\n"
  "}",
  SK_FOR, 0, {NULL}, {NULL}, sig_chain, NULL, NULL};

static const char *const sig_fill64[] = {"range" R1("v", "int64") " x=int64", NULL};
static const sk_kbody k_fill64 = {
  "sparse.sptrsv_fill", "v(i) = x;", SK_FOR, 0, {NULL}, {NULL}, sig_fill64, NULL, NULL};

/* -- symbolic (host) ------------------------------------------------------------ */
/* a host copy of rank-1 'v' (the caller frees it) */
static void *to_host(const sk_view *v, char *err, size_t errlen) {
  size_t bytes = (size_t)v->extent[0] * sk_dtypes[v->dtype].size;
  void *h = malloc(bytes ? bytes : 1);
  if (!h) {
    snprintf(err, errlen, "out of memory (%zu bytes)", bytes);
    return NULL;
  }
  sk_view w;
  int64_t n = v->extent[0];
  if (sk_view_create(&w, "host copy", v->dtype, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, h,
                     err, errlen) < 0 ||
      sk_view_deep_copy(&w, v, err, errlen) < 0) {
    sk_view_release(&w);
    free(h);
    return NULL;
  }
  sk_view_release(&w);
  return h;
}

/* a view of 'space' holding host array 'h' of 'n' int64 */
static int from_host(sk_view *v, const char *label, const int64_t *h, int64_t n,
                     int space, char *err, size_t errlen) {
  if (sk_sp_view(v, label, SK_I64, n, space, 0, err, errlen) < 0) return -1;
  sk_view w;
  if (sk_view_create(&w, label, SK_I64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, (void *)h, err,
                     errlen) < 0 ||
      sk_view_deep_copy(v, &w, err, errlen) < 0) {
    sk_view_release(&w);
    sk_view_release(v);
    return -1;
  }
  sk_view_release(&w);
  return 0;
}

/* rows per launch below which a level is chained with its thin neighbours */
static int64_t thin_rows(const sk_backend *b) {
  if (!sk_sp_host(b)) return 256;
  int c = b->concurrency ? b->concurrency() : 1;
  return c <= 1 ? INT64_MAX : 64 * (int64_t)c;
}

/* sparse.sptrsv_symbolic: A_*, uplo ("L"), diag ("N") -> rows (the rows
 * by level, A's space), lp (level offsets, A's space), plan (host int64:
 * per launch its first and last level + 1, negative for a chain), nlevels */
static int sptrsv_symbolic(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                           size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "uplo", "diag", NULL};
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 0, &A, err, errlen) < 0)
    return -1;
  const char *uplo = sk_karg_str(args, nargs, "uplo", "L", err, errlen);
  const char *diag = uplo ? sk_karg_str(args, nargs, "diag", "N", err, errlen) : NULL;
  if (!diag) return -1;
  if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0) {
    snprintf(err, errlen, "uplo '%s' is not L or U", uplo);
    return -1;
  }
  if (strcmp(diag, "N") != 0 && strcmp(diag, "U") != 0) {
    snprintf(err, errlen, "diag '%s' is not N or U", diag);
    return -1;
  }
  char sh[64];
  if (A.nrows != A.ncols) {
    snprintf(err, errlen, "A is %s: a triangular solve needs a square matrix",
             sk_csr_shape(&A, sh, sizeof sh));
    return -1;
  }
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  int lower = uplo[0] == 'L', unit = diag[0] == 'U', rc = -1;
  int64_t n = A.nrows, nlev = 0, nplan = 0;
  int64_t *rp = to_host(A.rowptr, err, errlen);
  int32_t *ci = rp ? to_host(A.colidx, err, errlen) : NULL;
  int64_t *lev = calloc((size_t)n + 1, sizeof *lev);
  int64_t *lp = calloc((size_t)n + 2, sizeof *lp);
  int64_t *rows = malloc(((size_t)n + 1) * sizeof *rows);
  int64_t *plan = malloc(((size_t)n + 1) * 2 * sizeof *plan);
  sk_view vrows, vlp, vplan;
  memset(&vrows, 0, sizeof vrows);
  memset(&vlp, 0, sizeof vlp);
  memset(&vplan, 0, sizeof vplan);
  if (!rp || !ci) goto done;
  if (!lev || !lp || !rows || !plan) {
    snprintf(err, errlen, "out of memory (%lld rows)", (long long)n);
    goto done;
  }
  /* levels, in the order rows become ready */
  for (int64_t t = 0; t < n; t++) {
    int64_t r = lower ? t : n - 1 - t, l = 0;
    int has_diag = 0;
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
      int64_t c = ci[k];
      if (c == r) {
        has_diag = 1;
      } else if ((c > r) == lower) {
        snprintf(err, errlen, "A has the entry (%lld, %lld) %s the diagonal: it is not "
                 "%s triangular", (long long)r, (long long)c, lower ? "above" : "below",
                 lower ? "lower" : "upper");
        goto done;
      } else if (lev[c] + 1 > l) {
        l = lev[c] + 1;
      }
    }
    if (!has_diag && !unit) {
      snprintf(err, errlen, "row %lld of A has no diagonal entry (diag = \"N\")",
               (long long)r);
      goto done;
    }
    lev[r] = l;
    if (l + 1 > nlev) nlev = l + 1;
  }
  for (int64_t r = 0; r < n; r++) lp[lev[r] + 1]++;
  for (int64_t l = 0; l < nlev; l++) lp[l + 1] += lp[l];
  for (int64_t r = 0; r < n; r++) rows[lp[lev[r]]++] = r;   /* lp[l] becomes lp[l + 1] */
  for (int64_t l = nlev; l > 0; l--) lp[l] = lp[l - 1];
  lp[0] = 0;
  /* launches: a wide level alone, runs of thin levels chained */
  int64_t thin = thin_rows(b);
  for (int64_t l = 0; l < nlev;) {
    if (lp[l + 1] - lp[l] >= thin) {
      plan[2 * nplan] = l;
      plan[2 * nplan + 1] = l + 1;
      nplan++;
      l++;
      continue;
    }
    int64_t e = l;
    while (e < nlev && lp[e + 1] - lp[e] < thin) e++;
    plan[2 * nplan] = l;
    plan[2 * nplan + 1] = -e;   /* a chain of levels l..e-1 */
    nplan++;
    l = e;
  }
  int space = A.rowptr->space;
  if (from_host(&vrows, "level rows", rows, n, space, err, errlen) < 0 ||
      from_host(&vlp, "level offsets", lp, nlev + 1, space, err, errlen) < 0 ||
      from_host(&vplan, "launches", plan, 2 * nplan, SK_SPACE_HOST, err, errlen) < 0)
    goto done;
  sk_kout_view(out, "rows", &vrows, err, errlen);
  sk_kout_view(out, "lp", &vlp, err, errlen);
  sk_kout_view(out, "plan", &vplan, err, errlen);
  sk_kout_num(out, "nlevels", (double)nlev, err, errlen);
  rc = sk_kout_num(out, "unit", unit, err, errlen);
done:
  sk_view_release(&vrows);
  sk_view_release(&vlp);
  sk_view_release(&vplan);
  free(rp);
  free(ci);
  free(lev);
  free(lp);
  free(rows);
  free(plan);
  return rc;
}

/* -- solve -------------------------------------------------------------------------- */
/* sparse.sptrsv_solve: A_*, rows, lp, plan, unit, b, x */
static int sptrsv_solve(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "rows", "lp", "plan", "unit", "b", "x", NULL};
  (void)out;
  sk_csr A;
  int64_t unit;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1, &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "unit", 0, 0, &unit, err, errlen) < 0)
    return -1;
  const sk_view *rows = sk_karg_view(args, nargs, "rows", 1, err, errlen);
  const sk_view *lp = rows ? sk_karg_view(args, nargs, "lp", 1, err, errlen) : NULL;
  const sk_view *plan = lp ? sk_karg_view(args, nargs, "plan", 1, err, errlen) : NULL;
  const sk_view *bv = plan ? sk_karg_view(args, nargs, "b", 1, err, errlen) : NULL;
  const sk_view *x = bv ? sk_karg_view(args, nargs, "x", 1, err, errlen) : NULL;
  if (!x) return -1;
  char sh[64];
  if (rows->extent[0] != A.nrows || plan->space != SK_SPACE_HOST ||
      plan->dtype != SK_I64 || rows->dtype != SK_I64) {
    snprintf(err, errlen, "the handle does not belong to A (%s)",
             sk_csr_shape(&A, sh, sizeof sh));
    return -1;
  }
  if (bv->extent[0] != A.nrows || x->extent[0] != A.nrows) {
    snprintf(err, errlen, "A is %s, b (view '%s') has %lld rows and x (view '%s') %lld",
             sk_csr_shape(&A, sh, sizeof sh), bv->label, (long long)bv->extent[0],
             x->label, (long long)x->extent[0]);
    return -1;
  }
  if (bv->dtype != A.values->dtype || x->dtype != A.values->dtype) {
    snprintf(err, errlen, "A is %s, b (view '%s') %s and x (view '%s') %s: all must be "
             "one dtype", sk_dtypes[A.values->dtype].name, bv->label,
             sk_dtypes[bv->dtype].name, x->label, sk_dtypes[x->dtype].name);
    return -1;
  }
  if (x->alloc && x->alloc == bv->alloc) {
    snprintf(err, errlen, "b (view '%s') and x (view '%s') share memory", bv->label,
             x->label);
    return -1;
  }
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  sk_view bad;
  if (sk_sp_view(&bad, "bad row", SK_I64, 1, x->space, 0, err, errlen) < 0) return -1;
  sk_arg f[] = {sk_arg_view("v", &bad), sk_arg_i64("x", INT64_MAX)};
  int rc = sk_sp_range(&k_fill64, 1, f, NELEM(f), NULL, err, errlen);
  const int64_t *pl = plan->data;
  int64_t nplan = plan->extent[0] / 2;
  sk_team_limits lim;
  be->team_limits(&lim);
  int T = sk_sp_host(be) ? (be->concurrency ? be->concurrency() : 1) : 256;
  if (T > lim.team_size_max) T = lim.team_size_max;
  if (T < 1) T = 1;
  for (int64_t p = 0; p < nplan && rc == 0; p++) {
    int64_t la = pl[2 * p], lb = pl[2 * p + 1];
    if (lb > 0) {
      int64_t r0, r1;
      if (sk_sp_get_i64(lp, la, &r0, err, errlen) < 0 ||
          sk_sp_get_i64(lp, lb, &r1, err, errlen) < 0) {
        rc = -1;
        break;
      }
      sk_arg a[] = {sk_arg_view("rowptr", A.rowptr), sk_arg_view("colidx", A.colidx),
                    sk_arg_view("values", A.values), sk_arg_view("rows", rows),
                    sk_arg_view("b", bv), sk_arg_view("x", x), sk_arg_view("bad", &bad),
                    sk_arg_i64("first", r0), sk_arg_i64("unit", unit)};
      rc = sk_sp_range(&k_level, r1 - r0, a, NELEM(a), NULL, err, errlen);
    } else {
      sk_arg a[] = {sk_arg_view("rowptr", A.rowptr), sk_arg_view("colidx", A.colidx),
                    sk_arg_view("values", A.values), sk_arg_view("rows", rows),
                    sk_arg_view("lp", lp), sk_arg_view("b", bv), sk_arg_view("x", x),
                    sk_arg_view("bad", &bad), sk_arg_i64("la", la), sk_arg_i64("lb", -lb),
                    sk_arg_i64("unit", unit)};
      sk_policy pol;
      sk_policy_init(&pol, SK_POL_TEAM);
      pol.league_size = 1;
      pol.team_size = T;
      pol.vector_length = 1;
      rc = sk_kbody_launch(&k_chain, &pol, a, NELEM(a), NULL, err, errlen);
    }
  }
  int64_t row = INT64_MAX;
  if (rc == 0) rc = sk_sp_get_i64(&bad, 0, &row, err, errlen);
  if (rc == 0 && row != INT64_MAX) {
    snprintf(err, errlen, "zero on the diagonal in row %lld: A is singular",
             (long long)row);
    rc = -1;
  }
  sk_view_release(&bad);
  return rc;
}

static const sk_kentry e_symbolic = {"sparse.sptrsv_symbolic", "A_* [, uplo, diag]",
                                     SK_KRES_NONE, sptrsv_symbolic};
static const sk_kentry e_solve = {"sparse.sptrsv_solve",
                                  "A_*, rows, lp, plan, unit, b, x", SK_KRES_NONE,
                                  sptrsv_solve};
const sk_kentry *const sk_sptrsv_entries[] = {&e_symbolic, &e_solve, NULL};
const sk_kbody *const sk_sptrsv_bodies[] = {&k_level, &k_chain, &k_fill64, NULL};
