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
 *
 * The level-set solve also takes complex values (complex128, complex64:
 * the same bodies, b and x of the matrix's dtype); the supernodal one is
 * real only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define MAT(VT)      R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT)

/* -- bodies ------------------------------------------------------------------ */

#define LV_SIG(VT) \
  "range" MAT(VT) R1("rows", "int64") R1("b", VT) R1("x", VT) \
    R1("bad", "int64") " first=int64 unit=int64"
/* complex values too (level-set solves only; sums in the values' dtype) */
static const char *const sig_level[] = {LV_SIG("float64"), LV_SIG("float32"),
                                        LV_SIG("complex128"), LV_SIG("complex64"), NULL};
/* the rows rows(first + i) of one level */
static const sk_kbody k_level = {.label = "sparse.sptrsv_level",
                                 .body = sk_body_sparse_sptrsv_level,
                                 .pattern = SK_FOR,
                                 .sigs = sig_level};

#define CH_SIG(VT) \
  "team" MAT(VT) R1("rows", "int64") R1("lp", "int64") R1("b", VT) R1("x", VT) \
    R1("bad", "int64") " la=int64 lb=int64 unit=int64"
static const char *const sig_chain[] = {CH_SIG("float64"), CH_SIG("float32"),
                                        CH_SIG("complex128"), CH_SIG("complex64"), NULL};
/* levels la..lb-1 in one team, a barrier between levels */
static const sk_kbody k_chain = {.label = "sparse.sptrsv_chain",
                                 .body = sk_body_sparse_sptrsv_chain,
                                 .pattern = SK_FOR,
                                 .sigs = sig_chain};

static const char *const sig_fill64[] = {"range" R1("v", "int64") " x=int64", NULL};
static const sk_kbody k_fill64 = {.label = "sparse.sptrsv_fill",
                                  .body = sk_body_sparse_sptrsv_fill,
                                  .pattern = SK_FOR,
                                  .sigs = sig_fill64};

static const char *const sig_conj[] = {"range" R1("v", "complex128"),
                                       "range" R1("v", "complex64"), NULL};
static const sk_kbody k_conj = {.label = "sparse.sptrsv_conj",
                                .body = sk_body_sparse_sptrsv_conj,
                                .pattern = SK_FOR,
                                .sigs = sig_conj};

/* -- the messages of both algorithms ------------------------------------------------ */
static int not_triangular(int64_t r, int64_t c, int lower, char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_ENTRY_DIAGONAL_NOT, (long long)r, (long long)c,
         lower ? "above" : "below", lower ? "lower" : "upper");
  return -1;
}
static int no_diagonal(int64_t r, char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_ROW_NO_DIAGONAL, (long long)r);
  return -1;
}
static int zero_diagonal(int64_t r, char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_ZERO_DIAGONAL_ROW, (long long)r);
  return -1;
}

/* -- symbolic (host) ------------------------------------------------------------ */
/* a host copy of rank-1 'v' (the caller frees it) */
static void *to_host(const sk_view *v, char *err, size_t errlen) {
  size_t bytes = (size_t)v->extent[0] * sk_dtypes[v->dtype].size;
  void *h = malloc(bytes ? bytes : 1);
  if (!h) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_BYTES, bytes);
    return NULL;
  }
  sk_view w;
  int64_t n = v->extent[0];
  if (sk_view_create(&w, "host copy", v->dtype, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, h, err,
                     errlen) < 0 ||
      sk_view_deep_copy(&w, v, err, errlen) < 0) {
    sk_view_release(&w);
    free(h);
    return NULL;
  }
  sk_view_release(&w);
  return h;
}

/* a view of 'space' holding host array 'h' of 'n' elements of 'dtype' */
static int up_view(sk_view *v, const char *label, int dtype, const void *h, int64_t n,
                   int space, char *err, size_t errlen) {
  if (sk_sp_view(v, label, dtype, n, space, 0, err, errlen) < 0) return -1;
  sk_view w;
  if (sk_view_create(&w, label, dtype, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, (void *)h, err,
                     errlen) < 0 ||
      sk_view_deep_copy(v, &w, err, errlen) < 0) {
    sk_view_release(&w);
    sk_view_release(v);
    return -1;
  }
  sk_view_release(&w);
  return 0;
}

/* Rows (or supernodes) 0..n-1 at the levels lev[] (nlev of them): 'order'
 * sorted by level, lp[l] where level l starts in it (nlev + 1 entries; lp
 * has room for nlev + 2 and comes zeroed) and the launches in 'plan'
 * (nlev pairs at most): a level of 'thin' rows or more alone (l, l + 1),
 * a run of thinner levels l..e-1 chained (l, -e). Returns the launches. */
static int64_t level_plan(const int64_t *lev, int64_t n, int64_t nlev, int64_t thin,
                          int64_t *order, int64_t *lp, int64_t *plan) {
  for (int64_t r = 0; r < n; r++) lp[lev[r] + 1]++;
  for (int64_t l = 0; l < nlev; l++) lp[l + 1] += lp[l];
  for (int64_t r = 0; r < n; r++) order[lp[lev[r]]++] = r; /* lp[l] becomes lp[l + 1] */
  for (int64_t l = nlev; l > 0; l--) lp[l] = lp[l - 1];
  lp[0] = 0;
  int64_t np = 0;
  for (int64_t l = 0; l < nlev;) {
    if (lp[l + 1] - lp[l] >= thin) {
      plan[2 * np] = l;
      plan[2 * np + 1] = l + 1;
      np++;
      l++;
      continue;
    }
    int64_t e = l;
    while (e < nlev && lp[e + 1] - lp[e] < thin) e++;
    plan[2 * np] = l;
    plan[2 * np + 1] = -e; /* a chain of levels l..e-1 */
    np++;
    l = e;
  }
  return np;
}

/* rows per launch below which a level is chained with its thin neighbours */
static int64_t thin_rows(const sk_backend *b) {
  if (!sk_sp_host(b)) return 256;
  int c = b->concurrency ? b->concurrency() : 1;
  return c <= 1 ? INT64_MAX : 64 * (int64_t)c;
}

/* uplo ("L"), diag ("N") and a square A: both algorithms' arguments */
static int tri_args(const sk_arg *args, int nargs, const sk_csr *A, int *lower, int *unit,
                    char *err, size_t errlen) {
  const char *uplo = sk_karg_str(args, nargs, "uplo", "L", err, errlen);
  const char *diag = uplo ? sk_karg_str(args, nargs, "diag", "N", err, errlen) : NULL;
  if (!diag) return -1;
  if (strcmp(uplo, "L") != 0 && strcmp(uplo, "U") != 0) {
    sk_err(err, errlen, SK_E_UPLO_NOT_L, uplo);
    return -1;
  }
  if (strcmp(diag, "N") != 0 && strcmp(diag, "U") != 0) {
    sk_err(err, errlen, SK_E_DIAG_NOT_N, diag);
    return -1;
  }
  char sh[64];
  if (A->nrows != A->ncols) {
    sk_err(err, errlen, SK_E_TRIANGULAR_SOLVE_NEEDS, sk_csr_shape(A, sh, sizeof sh));
    return -1;
  }
  *lower = uplo[0] == 'L';
  *unit = diag[0] == 'U';
  return 0;
}

/* sparse.sptrsv_symbolic: A_*, uplo ("L"), diag ("N") -> rows (the rows
 * by level, A's space), lp (level offsets, A's space), plan (host int64:
 * per launch its first and last level + 1, negative for a chain), nlevels */
static int sptrsv_symbolic(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                           size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "uplo",     "diag",     NULL};
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", SK_CSR_CPLX, &A, err, errlen) < 0)
    return -1;
  int lower, unit, rc = -1;
  if (tri_args(args, nargs, &A, &lower, &unit, err, errlen) < 0) return -1;
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
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
    sk_err(err, errlen, SK_E_OUT_MEMORY_ROWS, (long long)n);
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
        not_triangular(r, c, lower, err, errlen);
        goto done;
      } else if (lev[c] + 1 > l) {
        l = lev[c] + 1;
      }
    }
    if (!has_diag && !unit) {
      no_diagonal(r, err, errlen);
      goto done;
    }
    lev[r] = l;
    if (l + 1 > nlev) nlev = l + 1;
  }
  nplan = level_plan(lev, n, nlev, thin_rows(b), rows, lp, plan);
  int space = A.rowptr->space;
  if (up_view(&vrows, "level rows", SK_I64, rows, n, space, err, errlen) < 0 ||
      up_view(&vlp, "level offsets", SK_I64, lp, nlev + 1, space, err, errlen) < 0 ||
      up_view(&vplan, "launches", SK_I64, plan, 2 * nplan, SK_SPACE_HOST, err, errlen) <
        0)
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
/* b and x of a solve with A: A's rows, A's dtype, separate memory */
static int check_bx(const sk_csr *A, const sk_view *bv, const sk_view *x, char *err,
                    size_t errlen) {
  char sh[64];
  if (bv->extent[0] != A->nrows || x->extent[0] != A->nrows) {
    sk_err(err, errlen, SK_E_B_VIEW_ROWS_X, sk_csr_shape(A, sh, sizeof sh), bv->label,
           (long long)bv->extent[0], x->label, (long long)x->extent[0]);
    return -1;
  }
  if (bv->dtype != A->values->dtype || x->dtype != A->values->dtype) {
    sk_err(err, errlen, SK_E_B_VIEW_X, sk_dtypes[A->values->dtype].name, bv->label,
           sk_dtypes[bv->dtype].name, x->label, sk_dtypes[x->dtype].name);
    return -1;
  }
  if (x->alloc && x->alloc == bv->alloc) {
    sk_err(err, errlen, SK_E_B_VIEW_X_VIEW, bv->label, x->label);
    return -1;
  }
  return 0;
}

static int sptrsv_solve(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "rows",     "lp",       "plan",     "unit",
                                      "b",        "x",        NULL};
  (void)out;
  sk_csr A;
  int64_t unit;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0 ||
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
    sk_err(err, errlen, SK_E_HANDLE_DOES_NOT_BELONG, sk_csr_shape(&A, sh, sizeof sh));
    return -1;
  }
  if (check_bx(&A, bv, x, err, errlen) < 0) return -1;
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
      sk_arg a[] = {sk_arg_view("rowptr", A.rowptr),
                    sk_arg_view("colidx", A.colidx),
                    sk_arg_view("values", A.values),
                    sk_arg_view("rows", rows),
                    sk_arg_view("b", bv),
                    sk_arg_view("x", x),
                    sk_arg_view("bad", &bad),
                    sk_arg_i64("first", r0),
                    sk_arg_i64("unit", unit)};
      rc = sk_sp_range(&k_level, r1 - r0, a, NELEM(a), NULL, err, errlen);
    } else {
      sk_arg a[] = {sk_arg_view("rowptr", A.rowptr),
                    sk_arg_view("colidx", A.colidx),
                    sk_arg_view("values", A.values),
                    sk_arg_view("rows", rows),
                    sk_arg_view("lp", lp),
                    sk_arg_view("b", bv),
                    sk_arg_view("x", x),
                    sk_arg_view("bad", &bad),
                    sk_arg_i64("la", la),
                    sk_arg_i64("lb", -lb),
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
  if (rc == 0 && row != INT64_MAX) rc = zero_diagonal(row, err, errlen);
  sk_view_release(&bad);
  return rc;
}

/* -- supernodal (seed 000 section 2.4.2) -----------------------------------------------
 * The lower triangle L (A, or A^T for uplo "U") by columns falls into
 * supernodes: runs of consecutive columns f..f+k-1 whose diagonal block is
 * dense and whose rows below are the same, column j's rows being column
 * j+1's and j itself (at most SN_MAX columns). Supernode s keeps its rows
 * R (its k columns, then the m - k rows below) and one dense m x k block,
 * column major: its diagonal block inverted once (team_trtri of the
 * dialect's dense layer, one team a supernode), the rows below as they
 * are. The solves go by levels of supernodes, as the level-set solve by
 * levels of rows:
 *   L x = b    (forward): x_s = Dinv_s w_s, then w_R -= B_s x_s (atomics
 *              where several teams run; a single team's supernodes of one
 *              level write distinct rows between its barriers)
 *   L^T x = b  (backward): z_s = b_s - B_s^T x_R, then x_s = Dinv_s^T z_s
 * each product a dense gemv over the block, the team's threads a row (or
 * column) each. A wide level is one launch of a team per supernode; runs
 * of thin levels are chained in one team with a barrier between levels.
 * The blocks hold A's values when the handle was made. */
#define SN_MAX 256

/* ix: the int64 arrays of the handle one after the other (ix(s) the first
 * column of s, ix(orp + s) its rows' offset, ix(obp + s) its block's, the
 * solve's order at ix(oo + q) and level offsets at ix(olp + l)) */
#define SN_SIG(VT) \
  "team" R1("ix", "int64") R1("ri", "int64") R1("blk", VT) R1("b", VT) R1("w", VT) \
    R1("x", VT) " la=int64 lb=int64 back=int64 orp=int64 obp=int64 oo=int64" \
                " olp=int64"
static const char *const sig_sn[] = {SN_SIG("float64"), SN_SIG("float32"), NULL};
static const sk_kbody k_sn = {.label = "sparse.sptrsv_supernodal",
                              .body = sk_body_sparse_sptrsv_supernodal,
                              .pattern = SK_FOR,
                              .sigs = sig_sn};

#define INV_SIG(VT) \
  "team" R1("ix", "int64") R1("blk", VT) \
    R1("bad", "int64") " unit=int64 orp=int64 obp=int64"
static const char *const sig_inv[] = {INV_SIG("float64"), INV_SIG("float32"), NULL};
/* each supernode's diagonal block inverted in place (the dialect's trtri) */
static const sk_kbody k_inv = {.label = "sparse.sptrsv_invert",
                               .body = sk_body_sparse_sptrsv_invert,
                               .pattern = SK_FOR,
                               .sigs = sig_inv};

/* where each array of the handle starts in its one int64 view */
typedef struct sn_off {
  int64_t rp, bp, fo, flp, bo, blp, total;
} sn_off;
static sn_off sn_offsets(int64_t nsn, int64_t nfl, int64_t nbl) {
  sn_off o;
  o.rp = nsn + 1;
  o.bp = 2 * (nsn + 1);
  o.fo = 3 * (nsn + 1);
  o.flp = o.fo + nsn;
  o.bo = o.flp + nfl + 1;
  o.blp = o.bo + nsn;
  o.total = o.blp + nbl + 1;
  return o;
}

typedef struct sn_ent {
  int64_t r;
  double v;
} sn_ent;

static int cmp_ent(const void *a, const void *b) {
  int64_t x = ((const sn_ent *)a)->r, y = ((const sn_ent *)b)->r;
  return (x > y) - (x < y);
}

/* levels of the supernodes in 'lev' (nsn) -> order, offsets lp (nlev + 1),
 * the launch plan as in the level-set solve; 'thin' supernodes a level
 * below which levels are chained */
static int sn_levels(const int64_t *lev, int64_t nsn, int64_t thin, int64_t *order,
                     int64_t **lp_out, int64_t **plan_out, int64_t *nlev_out,
                     int64_t *nplan_out) {
  int64_t nlev = 0;
  for (int64_t s = 0; s < nsn; s++)
    if (lev[s] + 1 > nlev) nlev = lev[s] + 1;
  int64_t *lp = calloc((size_t)nlev + 2, sizeof *lp);
  int64_t *plan = malloc(((size_t)nlev + 1) * 2 * sizeof *plan);
  if (!lp || !plan) {
    free(lp);
    free(plan);
    return -1;
  }
  *nplan_out = level_plan(lev, nsn, nlev, thin, order, lp, plan);
  *lp_out = lp;
  *plan_out = plan;
  *nlev_out = nlev;
  return 0;
}

/* sparse.sptrsv_sn_symbolic: A_*, uplo, diag -> the supernodes (sp: first
 * columns, rp: row offsets, ri: rows, bp: block offsets, blk: the blocks,
 * A's space), forward (fo, flp, fplan) and backward (bo, blp, bplan)
 * schedules as the level-set solve's, nsupernodes, nlevels, nlevels_t */
static int sn_symbolic(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "uplo",     "diag",     NULL};
  sk_csr A;
  int lower, unit, rc = -1;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1, &A, err, errlen) < 0 ||
      tri_args(args, nargs, &A, &lower, &unit, err, errlen) < 0)
    return -1;
  if (!sk_sp_is_float(A.values->dtype)) {
    sk_err(err, errlen, SK_E_VALUES_FLOAT64_FLOAT32, sk_dtypes[A.values->dtype].name);
    return -1;
  }
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  int dt = A.values->dtype, space = A.rowptr->space;
  int64_t n = A.nrows, nnz = A.nnz, nsn = 0;
  int64_t *rp = to_host(A.rowptr, err, errlen);
  int32_t *ci = rp ? to_host(A.colidx, err, errlen) : NULL;
  void *va = ci ? to_host(A.values, err, errlen) : NULL;
  int64_t *cp = calloc((size_t)n + 2, sizeof *cp), *cnext = NULL;
  unsigned char *hasd = calloc((size_t)n + 1, 1);
  sn_ent *L = NULL;
  int64_t *sp = NULL, *srp = NULL, *ri = NULL, *bp = NULL, *snof = NULL, *lev = NULL;
  int64_t *fo = NULL, *bo = NULL, *flp = NULL, *blp = NULL, *fplan = NULL, *bplan = NULL;
  int64_t nfl = 0, nbl = 0, nfp = 0, nbp = 0;
  double *blk = NULL;
  float *blkf = NULL;
  int64_t *ix = NULL, *hp = NULL;
  sk_view V[4];
  memset(V, 0, sizeof V);
  if (!va) goto done;
  if (!cp || !hasd) goto oom;
  /* L by columns (the diagonal first), the triangle checked */
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
      int64_t c = ci[k];
      if (c != r && (c > r) == lower) {
        not_triangular(r, c, lower, err, errlen);
        goto done;
      }
      if (c != r) cp[(lower ? c : r) + 1]++;
      else hasd[r] = 1;
    }
  for (int64_t j = 0; j < n; j++) {
    if (!hasd[j] && !unit) {
      no_diagonal(j, err, errlen);
      goto done;
    }
    cp[j + 1] += cp[j] + 1;
  }
  L = malloc(((size_t)cp[n] + 1) * sizeof *L);
  cnext = malloc(((size_t)n + 1) * sizeof *cnext);
  if (!L || !cnext) goto oom;
  for (int64_t j = 0; j < n; j++) {
    L[cp[j]].r = j;
    L[cp[j]].v = unit ? 1.0 : 0.0;
    cnext[j] = cp[j] + 1;
  }
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
      int64_t c = ci[k];
      double v = dt == SK_F64 ? ((const double *)va)[k] : ((const float *)va)[k];
      if (c == r) {
        if (!unit) L[cp[r]].v += v;
        continue;
      }
      int64_t col = lower ? c : r, row = lower ? r : c, q = cnext[col]++;
      L[q].r = row;
      L[q].v = v;
    }
  /* rows sorted, duplicates summed (cnext: each column's end) */
  for (int64_t j = 0; j < n; j++) {
    int64_t a = cp[j] + 1, e = cp[j + 1], o = a, u = a + 1;
    while (u < e && L[u - 1].r < L[u].r) u++;
    if (u < e) qsort(L + a, (size_t)(e - a), sizeof *L, cmp_ent);
    for (int64_t q = a; q < e; q++) {
      if (o > a && L[o - 1].r == L[q].r) L[o - 1].v += L[q].v;
      else L[o++] = L[q];
    }
    cnext[j] = o;
  }
  /* supernodes */
  sp = malloc(((size_t)n + 1) * sizeof *sp);
  snof = malloc(((size_t)n + 1) * sizeof *snof);
  if (!sp || !snof) goto oom;
  sp[0] = 0;
  for (int64_t j = 0; j < n; j++) {
    if (j > 0) {
      int64_t a = cp[j - 1], la = cnext[j - 1] - a, lb = cnext[j] - cp[j];
      int join = j - sp[nsn] < SN_MAX && la == lb + 1 && L[a + 1].r == j;
      for (int64_t q = 1; join && q < la; q++) join = L[a + q].r == L[cp[j] + q - 1].r;
      if (!join) sp[++nsn] = j;
    }
    snof[j] = nsn;
  }
  if (n > 0) nsn++;
  sp[nsn] = n;
  srp = malloc(((size_t)nsn + 1) * sizeof *srp);
  bp = malloc(((size_t)nsn + 1) * sizeof *bp);
  lev = calloc((size_t)nsn + 1, sizeof *lev);
  fo = malloc(((size_t)nsn + 1) * sizeof *fo);
  bo = malloc(((size_t)nsn + 1) * sizeof *bo);
  if (!srp || !bp || !lev || !fo || !bo) goto oom;
  srp[0] = bp[0] = 0;
  for (int64_t s = 0; s < nsn; s++) {
    int64_t m = cnext[sp[s]] - cp[sp[s]], k = sp[s + 1] - sp[s];
    srp[s + 1] = srp[s] + m;
    bp[s + 1] = bp[s] + m * k;
  }
  if (sk_host_room((uint64_t)bp[nsn] * 8, err, errlen) < 0) goto done;
  ri = malloc(((size_t)srp[nsn] + 1) * sizeof *ri);
  blk = calloc((size_t)bp[nsn] + 1, sizeof *blk);
  if (!ri || !blk) goto oom;
  for (int64_t s = 0; s < nsn; s++) {
    int64_t f = sp[s], k = sp[s + 1] - f, m = srp[s + 1] - srp[s];
    for (int64_t i = 0; i < m; i++) ri[srp[s] + i] = L[cp[f] + i].r;
    for (int64_t c = 0; c < k; c++)
      for (int64_t i = c; i < m; i++) blk[bp[s] + c * m + i] = L[cp[f + c] + i - c].v;
  }
  /* levels: forward (a supernode after those that update its rows), backward */
  for (int64_t s = 0; s < nsn; s++) {
    int64_t k = sp[s + 1] - sp[s];
    for (int64_t i = srp[s] + k; i < srp[s + 1]; i++) {
      int64_t t = snof[ri[i]];
      if (lev[t] < lev[s] + 1) lev[t] = lev[s] + 1;
    }
  }
  int64_t thin = 8;
  if (sk_sp_host(be)) {
    int c = be->concurrency ? be->concurrency() : 1;
    thin = c <= 1 ? INT64_MAX : c;
  }
  if (sn_levels(lev, nsn, thin, fo, &flp, &fplan, &nfl, &nfp) < 0) goto oom;
  for (int64_t s = nsn - 1; s >= 0; s--) {
    int64_t k = sp[s + 1] - sp[s], l = 0;
    for (int64_t i = srp[s] + k; i < srp[s + 1]; i++) {
      int64_t t = snof[ri[i]];
      if (l < lev[t] + 1) l = lev[t] + 1;
    }
    lev[s] = l;
  }
  if (sn_levels(lev, nsn, thin, bo, &blp, &bplan, &nbl, &nbp) < 0) goto oom;
  const void *hb = blk;
  if (dt == SK_F32) {
    blkf = malloc(((size_t)bp[nsn] + 1) * sizeof *blkf);
    if (!blkf) goto oom;
    for (int64_t q = 0; q < bp[nsn]; q++) blkf[q] = (float)blk[q];
    hb = blkf;
  }
  sn_off o = sn_offsets(nsn, nfl, nbl);
  ix = malloc(((size_t)o.total + 1) * sizeof *ix);
  hp = malloc(((size_t)(nfp + nbp) * 2 + 1) * sizeof *hp);
  if (!ix || !hp) goto oom;
  memcpy(ix, sp, ((size_t)nsn + 1) * sizeof *ix);
  memcpy(ix + o.rp, srp, ((size_t)nsn + 1) * sizeof *ix);
  memcpy(ix + o.bp, bp, ((size_t)nsn + 1) * sizeof *ix);
  memcpy(ix + o.fo, fo, (size_t)nsn * sizeof *ix);
  memcpy(ix + o.flp, flp, ((size_t)nfl + 1) * sizeof *ix);
  memcpy(ix + o.bo, bo, (size_t)nsn * sizeof *ix);
  memcpy(ix + o.blp, blp, ((size_t)nbl + 1) * sizeof *ix);
  hp[0] = nfp;
  memcpy(hp + 1, fplan, (size_t)nfp * 2 * sizeof *hp);
  memcpy(hp + 1 + 2 * nfp, bplan, (size_t)nbp * 2 * sizeof *hp);
  if (up_view(&V[0], "supernodes", SK_I64, ix, o.total, space, err, errlen) < 0 ||
      up_view(&V[1], "supernode rows", SK_I64, ri, srp[nsn], space, err, errlen) < 0 ||
      up_view(&V[2], "blocks", dt, hb, bp[nsn], space, err, errlen) < 0 ||
      up_view(&V[3], "launches", SK_I64, hp, 1 + 2 * (nfp + nbp), SK_SPACE_HOST, err,
              errlen) < 0)
    goto done;
  /* the diagonal blocks inverted, a zero pivot named by its row */
  if (nsn > 0) {
    sk_view bad;
    if (sk_sp_view(&bad, "bad row", SK_I64, 1, space, 0, err, errlen) < 0) goto done;
    sk_arg f[] = {sk_arg_view("v", &bad), sk_arg_i64("x", INT64_MAX)};
    int r = sk_sp_range(&k_fill64, 1, f, NELEM(f), NULL, err, errlen);
    sk_arg a[] = {sk_arg_view("ix", &V[0]), sk_arg_view("blk", &V[2]),
                  sk_arg_view("bad", &bad), sk_arg_i64("unit", unit),
                  sk_arg_i64("orp", o.rp),  sk_arg_i64("obp", o.bp)};
    sk_policy pol;
    sk_policy_init(&pol, SK_POL_TEAM);
    pol.league_size = nsn;
    pol.team_size = sk_sp_host(be) ? 1 : 32;
    pol.vector_length = 1;
    if (r == 0) r = sk_kbody_launch(&k_inv, &pol, a, NELEM(a), NULL, err, errlen);
    int64_t row = INT64_MAX;
    if (r == 0) r = sk_sp_get_i64(&bad, 0, &row, err, errlen);
    if (r == 0 && row != INT64_MAX) r = zero_diagonal(row, err, errlen);
    sk_view_release(&bad);
    if (r < 0) goto done;
  }
  static const char *const names[] = {"ix", "ri", "blk", "plan"};
  for (int q = 0; q < 4; q++) sk_kout_view(out, names[q], &V[q], err, errlen);
  sk_kout_num(out, "nsupernodes", (double)nsn, err, errlen);
  sk_kout_num(out, "nlevels", (double)nfl, err, errlen);
  sk_kout_num(out, "nlevels_t", (double)nbl, err, errlen);
  rc = sk_kout_num(out, "lower", lower, err, errlen);
  goto done;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_ROWS_ENTRIES, (long long)n, (long long)nnz);
done:
  for (int q = 0; q < 4; q++) sk_view_release(&V[q]);
  free(ix);
  free(hp);
  free(rp);
  free(ci);
  free(va);
  free(cp);
  free(cnext);
  free(hasd);
  free(L);
  free(sp);
  free(srp);
  free(ri);
  free(bp);
  free(snof);
  free(lev);
  free(fo);
  free(bo);
  free(flp);
  free(blp);
  free(fplan);
  free(bplan);
  free(blk);
  free(blkf);
  return rc;
}

/* sparse.sptrsv_sn_solve: A_*, the handle (ix, ri, blk, plan, nsupernodes,
 * nlevels, nlevels_t, lower), trans, b, x */
static int sn_solve(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {
    "A_rowptr",    "A_colidx", "A_values",  "A_ncols", "ix",    "ri", "blk", "plan",
    "nsupernodes", "nlevels",  "nlevels_t", "lower",   "trans", "b",  "x",   NULL};
  (void)out;
  sk_csr A;
  int64_t lower, trans, nsn, nfl, nbl;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1, &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "lower", 0, 0, &lower, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "trans", 1, 0, &trans, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nsupernodes", 0, 0, &nsn, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nlevels", 0, 0, &nfl, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nlevels_t", 0, 0, &nbl, err, errlen) < 0)
    return -1;
  const sk_view *ix = sk_karg_view(args, nargs, "ix", 1, err, errlen);
  const sk_view *ri = ix ? sk_karg_view(args, nargs, "ri", 1, err, errlen) : NULL;
  const sk_view *blk = ri ? sk_karg_view(args, nargs, "blk", 1, err, errlen) : NULL;
  const sk_view *plan = blk ? sk_karg_view(args, nargs, "plan", 1, err, errlen) : NULL;
  const sk_view *bv = plan ? sk_karg_view(args, nargs, "b", 1, err, errlen) : NULL;
  const sk_view *x = bv ? sk_karg_view(args, nargs, "x", 1, err, errlen) : NULL;
  if (!x) return -1;
  char sh[64];
  sn_off o = sn_offsets(nsn, nfl, nbl);
  int64_t last = -1;
  const int64_t *pl = plan->data;
  if (ix->dtype == SK_I64 && ix->extent[0] == o.total && ix->extent[0] > nsn &&
      plan->dtype == SK_I64 && plan->space == SK_SPACE_HOST && plan->extent[0] >= 1 &&
      blk->dtype == A.values->dtype && sk_sp_get_i64(ix, nsn, &last, err, errlen) < 0)
    return -1;
  if (last != A.nrows || pl[0] < 0 || 1 + 2 * pl[0] > plan->extent[0]) {
    sk_err(err, errlen, SK_E_HANDLE_DOES_NOT_BELONG, sk_csr_shape(&A, sh, sizeof sh));
    return -1;
  }
  if (check_bx(&A, bv, x, err, errlen) < 0) return -1;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (A.nrows == 0) return 0;
  int back = (lower != 0) == (trans != 0);
  int64_t oo = back ? o.bo : o.fo, olp = back ? o.blp : o.flp;
  int64_t p0 = back ? 1 + 2 * pl[0] : 1, np = back ? (plan->extent[0] - p0) / 2 : pl[0];
  sk_view w;
  if (sk_sp_view(&w, "work", x->dtype, A.nrows, x->space, 0, err, errlen) < 0) return -1;
  int rc = back ? 0 : sk_view_deep_copy(&w, bv, err, errlen);
  sk_team_limits lim;
  be->team_limits(&lim);
  int host = sk_sp_host(be);
  int T = host ? (be->concurrency ? be->concurrency() : 1) : 128;
  if (T > lim.team_size_max) T = lim.team_size_max;
  if (T < 1) T = 1;
  for (int64_t p = 0; p < np && rc == 0; p++) {
    int64_t la = pl[p0 + 2 * p], lb = pl[p0 + 2 * p + 1];
    sk_arg a[] = {sk_arg_view("ix", ix),    sk_arg_view("ri", ri),
                  sk_arg_view("blk", blk),  sk_arg_view("b", bv),
                  sk_arg_view("w", &w),     sk_arg_view("x", x),
                  sk_arg_i64("la", la),     sk_arg_i64("lb", lb > 0 ? lb : -lb),
                  sk_arg_i64("back", back), sk_arg_i64("orp", o.rp),
                  sk_arg_i64("obp", o.bp),  sk_arg_i64("oo", oo),
                  sk_arg_i64("olp", olp)};
    sk_policy pol;
    sk_policy_init(&pol, SK_POL_TEAM);
    pol.vector_length = 1;
    if (lb > 0) {
      int64_t s0, s1;
      if (sk_sp_get_i64(ix, olp + la, &s0, err, errlen) < 0 ||
          sk_sp_get_i64(ix, olp + lb, &s1, err, errlen) < 0) {
        rc = -1;
        break;
      }
      pol.league_size = s1 - s0;
      pol.team_size = host ? 1 : (T < 64 ? T : 64);
    } else {
      pol.league_size = 1;
      pol.team_size = T;
    }
    rc = sk_kbody_launch(&k_sn, &pol, a, NELEM(a), NULL, err, errlen);
  }
  sk_view_release(&w);
  return rc;
}

/* sparse.sptrsv_conj: v (complex, rank 1) conjugated in place: the values
 * of A^T made those of A^H for a conjugate-transposed level-set solve */
static int sptrsv_conj(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"v", NULL};
  (void)out;
  const sk_view *v;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(v = sk_karg_view(args, nargs, "v", 1, err, errlen)))
    return -1;
  if (!sk_dtypes[v->dtype].is_complex || v->agg) {
    sk_err(err, errlen, SK_E_ZLIN_CONJ_DTYPE, v->label, sk_dtypes[v->dtype].name);
    return -1;
  }
  sk_arg a[] = {sk_arg_view("v", v)};
  return sk_sp_range(&k_conj, v->extent[0], a, NELEM(a), NULL, err, errlen);
}

static const sk_kentry e_symbolic = {"sparse.sptrsv_symbolic", "A_* [, uplo, diag]",
                                     SK_KRES_NONE, sptrsv_symbolic};
static const sk_kentry e_solve = {
  "sparse.sptrsv_solve", "A_*, rows, lp, plan, unit, b, x", SK_KRES_NONE, sptrsv_solve};
static const sk_kentry e_sn_symbolic = {"sparse.sptrsv_sn_symbolic", "A_* [, uplo, diag]",
                                        SK_KRES_NONE, sn_symbolic};
static const sk_kentry e_sn_solve = {
  "sparse.sptrsv_sn_solve",
  "A_*, ix, ri, blk, plan, nsupernodes, nlevels, nlevels_t, lower, b, x [, trans]",
  SK_KRES_NONE, sn_solve};
static const sk_kentry e_conj = {"sparse.sptrsv_conj", "v", SK_KRES_NONE, sptrsv_conj};
const sk_kentry *const sk_sptrsv_entries[] = {&e_symbolic, &e_solve, &e_sn_symbolic,
                                              &e_sn_solve, &e_conj,  NULL};
const sk_kbody *const sk_sptrsv_bodies[] = {&k_level, &k_chain, &k_fill64, &k_sn,
                                            &k_inv,   &k_conj,  NULL};
