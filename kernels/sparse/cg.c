/* cg.c: sparse.cg, the conjugate gradient method (seed 001's CG solve;
 * miniFE's solver, seed 004 section 6.1) for a symmetric positive
 * definite A: its arguments checked here, the iteration speck.solve's CG
 * without a preconditioner (kernels/solve/krylov.c: Chronopoulos and
 * Gear's form, the SpMV fused with the dots, one reduction per
 * iteration). It stops when ||r|| <= tol*||b|| (the true residual) or after
 * maxiter iterations (the reason "converged" or "maxiter"); a negative
 * p'Ap (A not positive definite) is an error naming the iteration, a zero
 * one stops with the reason "breakdown"; a NaN or Inf in b'b, r'r or p'Ap
 * is an error naming the input that holds one (or the overflow): the
 * search for it lives here (sk_sp_cg_nonfinite), for every solver.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"

/* -- non-finite values ----------------------------------------------------
 * The iteration checks only what it already reduces: b'b, r'r and p'Ap.
 * When one is not finite, the inputs are searched (once, on the way out)
 * for the first NaN or Inf: b, then x0, then A's values; none found means
 * the iteration itself overflowed. */

/* "a NaN", "an Inf", "a -Inf" */
static const char *nonfinite_name(double x) {
  return isnan(x) ? "a NaN" : x > 0 ? "an Inf" : "a -Inf";
}

/* the first non-finite element of rank-1 'v' into *at (-1: none), *val */
static int first_nonfinite(const sk_view *v, int64_t *at, double *val, char *err,
                           size_t errlen) {
  sk_view h;
  if (sk_sp_host_copy(v, &h, err, errlen) < 0) return -1;
  *at = -1;
  for (int64_t i = 0; i < h.extent[0]; i++) {
    double x = sk_view_get_f(&h, sk_view_offset(&h, &i));
    if (!isfinite(x)) {
      *at = i, *val = x;
      break;
    }
  }
  sk_view_release(&h);
  return 0;
}

int sk_sp_cg_nonfinite(const sk_csr *A, const sk_view *bv, const sk_view *x0,
                        const char *what, double x, int64_t it, char *err,
                        size_t errlen) {
  int64_t at;
  double val = 0;
  if (first_nonfinite(bv, &at, &val, err, errlen) < 0) return -1;
  if (at >= 0) {
    sk_err(err, errlen, SK_E_CG_B_NONFINITE, bv->label, nonfinite_name(val),
           (long long)at);
    return -1;
  }
  if (x0) {
    if (first_nonfinite(x0, &at, &val, err, errlen) < 0) return -1;
    if (at >= 0) {
      sk_err(err, errlen, SK_E_CG_X0_NONFINITE, x0->label, nonfinite_name(val),
             (long long)at);
      return -1;
    }
  }
  if (A && first_nonfinite(A->values, &at, &val, err, errlen) < 0) return -1;
  if (A && at >= 0) {
    int64_t row = 0, col = 0, lo = 0, hi = A->nrows;
    /* the row holding entry 'at': the last row whose rowptr <= at */
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2, rp;
      if (sk_sp_get_i64(A->rowptr, mid, &rp, err, errlen) < 0) return -1;
      if (rp <= at) lo = mid;
      else hi = mid;
    }
    row = lo;
    if (sk_sp_get_i64(A->colidx, at, &col, err, errlen) < 0) return -1;
    sk_err(err, errlen, SK_E_CG_A_NONFINITE, nonfinite_name(val), (long long)row,
           (long long)col);
    return -1;
  }
  sk_err(err, errlen, SK_E_CG_OVERFLOW, what, x, (long long)it);
  return -1;
}

/* sparse.cg: A_*, b [, x0, tol (1e-10), maxiter (1000, 0 allowed)] -> x (a
 * new view), iters, resid (the final ||b - A x||), reason (0 converged, 1
 * maxiter, 2 breakdown: p'Ap = 0 with r not yet small, A singular) */
static int cg(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols", "b",
                                      "x0",       "tol",      "maxiter",  NULL};
  sk_csr A;
  double tol = 1e-10;
  int64_t maxiter = 1000;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1, &A, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "tol") &&
       sk_karg_f64(args, nargs, "tol", &tol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "maxiter", 1, 1000, &maxiter, err, errlen) < 0)
    return -1;
  const sk_view *bv = sk_karg_view(args, nargs, "b", 1, err, errlen);
  if (!bv) return -1;
  const sk_view *x0 = NULL;
  if (sk_karg_find(args, nargs, "x0") &&
      !(x0 = sk_karg_view(args, nargs, "x0", 1, err, errlen)))
    return -1;
  char sh[64];
  sk_csr_shape(&A, sh, sizeof sh);
  if (A.nrows != A.ncols) {
    sk_err(err, errlen, SK_E_CG_NEEDS_SQUARE, sh);
    return -1;
  }
  if (bv->extent[0] != A.nrows || (x0 && x0->extent[0] != A.nrows)) {
    sk_err(err, errlen, SK_E_B_VIEW_ROWS, sh, bv->label, (long long)bv->extent[0],
           x0 ? ", x0 " : "");
    if (x0) {
      size_t l = strlen(err);
      sk_err(err + l, errlen - l, SK_E_VIEW, x0->label, (long long)x0->extent[0]);
    }
    return -1;
  }
  if (bv->dtype != A.values->dtype || (x0 && x0->dtype != A.values->dtype)) {
    sk_err(err, errlen, SK_E_B_VIEW_ALL, sk_dtypes[A.values->dtype].name, bv->label,
           sk_dtypes[bv->dtype].name, x0 ? ", x0 " : "",
           x0 ? sk_dtypes[x0->dtype].name : "");
    return -1;
  }
  if (!(tol >= 0) || maxiter < 0) {
    sk_err(err, errlen, SK_E_TOL_MAXITER_MUST, tol, (long long)maxiter);
    return -1;
  }
  /* the iteration is speck.solve's CG (kernels/solve/krylov.c) without a
   * preconditioner */
  sk_view x;
  int64_t it;
  double rnorm;
  int reason;
  if (sk_solve_cg_plain(&A, bv, x0, tol, maxiter, &x, &it, &rnorm, &reason, err, errlen) < 0)
    return -1;
  if (sk_kout_view(out, "x", &x, err, errlen) < 0 ||
      sk_kout_num(out, "iters", (double)it, err, errlen) < 0 ||
      sk_kout_num(out, "resid", rnorm, err, errlen) < 0 ||
      sk_kout_num(out, "reason", reason, err, errlen) < 0)
    return -1;
  return 0;
}

static const sk_kentry e_cg = {"sparse.cg", "A_*, b [, x0, tol, maxiter]", SK_KRES_NONE,
                               cg};
const sk_kentry *const sk_cg_entries[] = {&e_cg, NULL};
