/* cg.c: the conjugate gradient method (seed 001's CG solve; miniFE's
 * solver, seed 004 section 6.1) for a symmetric positive definite A.
 *
 * Three launches per iteration: Ap = A*p fused with the dot product p.Ap
 * (on the host the SpMV body is a reduction over the same runs of rows as
 * sparse.spmv; on a GPU the team SpMV then a dot), then x += a*p and
 * r -= a*Ap fused with r.r, then p = r + b*p. It stops when
 * ||r|| <= tol*||b|| (the recurrence residual) or after maxiter
 * iterations (the reason "converged" or "maxiter"); a negative p.Ap (A
 * not positive definite) is an error naming the iteration, a zero one
 * stops with the reason "breakdown"; a NaN or Inf in b'b, r'r or p.Ap is
 * an error naming the input that holds one (or the overflow).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define MAT(VT)      R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT)

/* host: Ap = A*p over run i of 'nchunk', and acc = sum p(r)*Ap(r) */
#define SD_SIG(VT) "range" MAT(VT) R1("p", VT) R1("ap", VT) " nchunk=int64"
static const char *const sig_spmv_dot[] = {SD_SIG("float64"), SD_SIG("float32"), NULL};
static const sk_kbody k_spmv_dot = {.label = "sparse.cg_spmv_dot",
                                    .body = sk_body_sparse_cg_spmv_dot,
                                    .prelude = sk_body_sparse_row_split,
                                    .pattern = SK_REDUCE,
                                    .red_op = SK_RED_SUM,
                                    .sigs = sig_spmv_dot};

#define DOT_SIG(VT) "range" R1("u", VT) R1("v", VT)
static const char *const sig_dot[] = {DOT_SIG("float64"), DOT_SIG("float32"), NULL};
static const sk_kbody k_dot = {.label = "sparse.cg_dot",
                               .body = sk_body_sparse_cg_dot,
                               .pattern = SK_REDUCE,
                               .red_op = SK_RED_SUM,
                               .sigs = sig_dot};

/* x += a*p; r -= a*Ap; acc = r.r */
#define UP_SIG(VT) "range" R1("x", VT) R1("r", VT) R1("p", VT) R1("ap", VT) " a=float64"
static const char *const sig_update[] = {UP_SIG("float64"), UP_SIG("float32"), NULL};
static const sk_kbody k_update = {.label = "sparse.cg_update",
                                  .body = sk_body_sparse_cg_update,
                                  .pattern = SK_REDUCE,
                                  .red_op = SK_RED_SUM,
                                  .sigs = sig_update};

/* p = r + b*p */
#define PU_SIG(VT) "range" R1("p", VT) R1("r", VT) " b=float64"
static const char *const sig_pupdate[] = {PU_SIG("float64"), PU_SIG("float32"), NULL};
static const sk_kbody k_pupdate = {.label = "sparse.cg_direction",
                                   .body = sk_body_sparse_cg_direction,
                                   .pattern = SK_FOR,
                                   .sigs = sig_pupdate};

static int dot(const sk_view *u, const sk_view *v, double *d, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("u", u), sk_arg_view("v", v)};
  sk_result r;
  if (sk_sp_range(&k_dot, u->extent[0], a, NELEM(a), &r, err, errlen) < 0) return -1;
  *d = sk_result_f64(&r, 0);
  return 0;
}

/* Ap = A*p, *pap = p.Ap */
static int spmv_dot(const sk_backend *b, const sk_csr *A, const sk_view *p,
                    const sk_view *ap, double *pap, char *err, size_t errlen) {
  if (!sk_sp_host(b) || A->nrows == 0) {
    if (sk_sp_spmv('N', 1.0, A, p, 0.0, ap, NULL, err, errlen) < 0) return -1;
    return dot(p, ap, pap, err, errlen);
  }
  int64_t nchunk = b->concurrency ? b->concurrency() : 1;
  if (nchunk < 1) nchunk = 1;
  if (nchunk > A->nrows) nchunk = A->nrows;
  sk_arg a[] = {sk_arg_view("rowptr", A->rowptr),
                sk_arg_view("colidx", A->colidx),
                sk_arg_view("values", A->values),
                sk_arg_view("p", p),
                sk_arg_view("ap", ap),
                sk_arg_i64("nchunk", nchunk)};
  sk_result r;
  if (sk_sp_range(&k_spmv_dot, nchunk, a, NELEM(a), &r, err, errlen) < 0) return -1;
  *pap = sk_result_f64(&r, 0);
  return 0;
}

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

/* sparse.cg: A_*, b [, x0, tol (1e-10), maxiter (1000)] -> x (a new view),
 * iters, resid (the final ||r||), reason (0 converged, 1 maxiter, 2
 * breakdown: p'Ap = 0 with r not yet small, A singular) */
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
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  int64_t n = A.nrows;
  int space = bv->space, dt = bv->dtype, rc = -1;
  sk_view x, r, p, ap;
  sk_view *all[] = {&x, &r, &p, &ap};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&x, "x", dt, n, space, 1, err, errlen) < 0 ||
      sk_sp_view(&r, "r", dt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&p, "p", dt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&ap, "Ap", dt, n, space, 0, err, errlen) < 0)
    goto done;
  /* r = b - A*x0 */
  if (sk_view_deep_copy(&r, bv, err, errlen) < 0) goto done;
  if (x0) {
    if (sk_view_deep_copy(&x, x0, err, errlen) < 0 ||
        sk_sp_spmv('N', -1.0, &A, &x, 1.0, &r, NULL, err, errlen) < 0)
      goto done;
  }
  double bb, rr;
  if (dot(bv, bv, &bb, err, errlen) < 0 || dot(&r, &r, &rr, err, errlen) < 0 ||
      sk_view_deep_copy(&p, &r, err, errlen) < 0)
    goto done;
  if (!isfinite(bb)) {
    sk_sp_cg_nonfinite(&A, bv, x0, "b'b", bb, 0, err, errlen);
    goto done;
  }
  if (!isfinite(rr)) {
    sk_sp_cg_nonfinite(&A, bv, x0, "r'r", rr, 0, err, errlen);
    goto done;
  }
  double stop = tol * sqrt(bb);
  int64_t it = 0;
  int reason = 0;
  while (it < maxiter && sqrt(rr) > stop) {
    double pap, rr1;
    if (spmv_dot(be, &A, &p, &ap, &pap, err, errlen) < 0) goto done;
    if (!isfinite(pap)) {
      sk_sp_cg_nonfinite(&A, bv, x0, "p'Ap", pap, it + 1, err, errlen);
      goto done;
    }
    if (pap == 0) {
      reason = 2;
      break;
    }
    if (pap < 0) {
      sk_err(err, errlen, SK_E_P_AP_ITERATION, pap, (long long)it + 1);
      goto done;
    }
    double alpha = rr / pap;
    sk_arg a[] = {sk_arg_view("x", &x), sk_arg_view("r", &r), sk_arg_view("p", &p),
                  sk_arg_view("ap", &ap), sk_arg_f64("a", alpha)};
    sk_result res;
    if (sk_sp_range(&k_update, n, a, NELEM(a), &res, err, errlen) < 0) goto done;
    rr1 = sk_result_f64(&res, 0);
    it++;
    if (!isfinite(rr1)) {
      sk_sp_cg_nonfinite(&A, bv, x0, "r'r", rr1, it, err, errlen);
      goto done;
    }
    if (sqrt(rr1) <= stop || it >= maxiter) {
      rr = rr1;
      break;
    }
    sk_arg q[] = {sk_arg_view("p", &p), sk_arg_view("r", &r), sk_arg_f64("b", rr1 / rr)};
    if (sk_sp_range(&k_pupdate, n, q, NELEM(q), NULL, err, errlen) < 0) goto done;
    rr = rr1;
  }
  if (sk_kout_view(out, "x", &x, err, errlen) < 0 ||
      sk_kout_num(out, "iters", (double)it, err, errlen) < 0 ||
      sk_kout_num(out, "resid", sqrt(rr), err, errlen) < 0 ||
      sk_kout_num(out, "reason",
                  reason             ? reason
                  : sqrt(rr) <= stop ? 0
                                     : 1,
                  err, errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

static const sk_kentry e_cg = {"sparse.cg", "A_*, b [, x0, tol, maxiter]", SK_KRES_NONE,
                               cg};
const sk_kentry *const sk_cg_entries[] = {&e_cg, NULL};
const sk_kbody *const sk_cg_bodies[] = {&k_spmv_dot, &k_dot, &k_update, &k_pupdate, NULL};
