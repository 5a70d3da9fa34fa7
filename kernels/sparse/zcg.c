/* zcg.c: conjugate gradients for a Hermitian positive definite matrix
 * with complex values (complex128, complex64): sparse.cg hands a complex
 * matrix here. The textbook iteration with the Hermitian inner product
 * (conj(r) . r), complex step lengths, unpreconditioned; SpMV through
 * zspmv.c, the vector steps in zcg.sk (JIT-compiled: the cc tier on the
 * host, the device compiler on a GPU). Whether A is Hermitian positive
 * definite is not checked: otherwise the iteration may stop at maxiter or
 * in a breakdown (reason 1 or 2), as the real CG does.
 */
#include <math.h>
#include <string.h>

#include "core/err.h"
#include "kbodies.h"
#include "sparse.h"

#define V2(VT) "range x=" VT "[1] y=" VT "[1]"
static const char *const sig_dotc[] = {V2("complex128"), V2("complex64"), NULL};
static const char *const sig_axpy[] = {V2("complex128") " a=complex128",
                                       V2("complex64") " a=complex128", NULL};
static const char *const sig_xpby[] = {V2("complex128") " b=complex128",
                                       V2("complex64") " b=complex128", NULL};
static const sk_kbody k_dotc = {.label = "sparse.zcg_dotc",
                                .body = sk_body_sparse_zcg_dotc,
                                .pattern = SK_REDUCE,
                                .reds = "sum:complex128",
                                .sigs = sig_dotc};
static const sk_kbody k_axpy = {.label = "sparse.zcg_axpy",
                                .body = sk_body_sparse_zcg_axpy,
                                .pattern = SK_FOR,
                                .sigs = sig_axpy};
static const sk_kbody k_xpby = {.label = "sparse.zcg_xpby",
                                .body = sk_body_sparse_zcg_xpby,
                                .pattern = SK_FOR,
                                .sigs = sig_xpby};

static sk_arg arg_c(const char *name, double re, double im) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.dtype = SK_C128;
  a.value.c128[0] = re;
  a.value.c128[1] = im;
  return a;
}

static int dotc(const sk_view *x, const sk_view *y, double *z, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("x", x), sk_arg_view("y", y)};
  sk_result r;
  if (sk_sp_range(&k_dotc, x->extent[0], a, 2, &r, err, errlen) < 0) return -1;
  memcpy(z, sk_result_ptr(&r, 0), 2 * sizeof(double));
  return 0;
}

/* y += (re + im i) x */
static int axpy(double re, double im, const sk_view *x, const sk_view *y, char *err,
                size_t errlen) {
  sk_arg a[] = {sk_arg_view("x", x), sk_arg_view("y", y), arg_c("a", re, im)};
  return sk_sp_range(&k_axpy, x->extent[0], a, 3, NULL, err, errlen);
}

/* sparse.zcg: A_*, b [, x0, tol (1e-10), maxiter (1000)] -> x, iters, resid,
 * reason (as sparse.cg) */
static int zcg(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols", "b",
                                      "x0",       "tol",      "maxiter",  NULL};
  sk_csr A;
  double tol = 1e-10;
  int64_t maxiter = 1000;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "tol") &&
       sk_karg_f64(args, nargs, "tol", &tol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "maxiter", 1, 1000, &maxiter, err, errlen) < 0)
    return -1;
  const sk_view *b = sk_karg_view(args, nargs, "b", 1, err, errlen), *x0 = NULL;
  if (!b) return -1;
  if (sk_karg_find(args, nargs, "x0") && !(x0 = sk_karg_view(args, nargs, "x0", 1, err, errlen)))
    return -1;
  const int dt = A.values->dtype;
  char sh[64];
  sk_csr_shape(&A, sh, sizeof sh);
  if (!sk_dtypes[dt].is_complex)
    return sk_err(err, errlen, SK_E_ZSPMV_DTYPE, "A.values", A.values->label,
                  sk_dtypes[dt].name, "complex");
  if (A.nrows != A.ncols) return sk_err(err, errlen, SK_E_CG_NEEDS_SQUARE, sh);
  const sk_view *in[2] = {b, x0};
  for (int k = 0; k < 2; k++) {
    if (!in[k]) continue;
    if (in[k]->dtype != dt)
      return sk_err(err, errlen, SK_E_ZSPMV_DTYPE, k ? "x0" : "b", in[k]->label,
                    sk_dtypes[in[k]->dtype].name, sk_dtypes[dt].name);
    if (in[k]->extent[0] != A.nrows)
      return sk_err(err, errlen, SK_E_ZBLAS_SHAPE, k ? "x0" : "b", in[k]->label,
                    (long long)in[k]->extent[0], (long long)A.nrows);
  }
  if (!(tol >= 0) || maxiter < 0) return sk_err(err, errlen, SK_E_ZCG_OPTS, tol, (long long)maxiter);
  const int64_t n = A.nrows;
  const int space = b->space;
  sk_view x, r, p, q;
  memset(&x, 0, sizeof x);
  memset(&r, 0, sizeof r);
  memset(&p, 0, sizeof p);
  memset(&q, 0, sizeof q);
  int rc = -1, reason = 1;
  int64_t it = 0;
  double rr[2], bb[2], pq[2], resid = 0;
  const double one[2] = {1, 0}, mone[2] = {-1, 0};
  if (sk_sp_view(&x, "x", dt, n, space, 1, err, errlen) < 0 ||
      sk_sp_view(&r, "cg r", dt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&p, "cg p", dt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&q, "cg q", dt, n, space, 0, err, errlen) < 0)
    goto done;
  /* r = b - A x0 */
  if ((x0 && sk_view_deep_copy(&x, x0, err, errlen) < 0) ||
      sk_view_deep_copy(&r, b, err, errlen) < 0 ||
      (x0 && sk_sp_zspmv('N', mone, &A, &x, one, &r, err, errlen) < 0) ||
      sk_view_deep_copy(&p, &r, err, errlen) < 0 || dotc(b, b, bb, err, errlen) < 0 ||
      dotc(&r, &r, rr, err, errlen) < 0)
    goto done;
  const double stop = tol * sqrt(bb[0]);
  resid = sqrt(rr[0]);
  for (it = 0; resid > stop; it++) {
    if (it == maxiter) {
      reason = 1;
      break;
    }
    const double zero[2] = {0, 0};
    if (sk_sp_zspmv('N', one, &A, &p, zero, &q, err, errlen) < 0 ||
        dotc(&p, &q, pq, err, errlen) < 0)
      goto done;
    const double d = pq[0] * pq[0] + pq[1] * pq[1];
    if (d == 0 || !isfinite(d)) {
      reason = 2;
      break;
    }
    /* alpha = rr / pq (rr real) */
    const double ar = rr[0] * pq[0] / d, ai = -rr[0] * pq[1] / d;
    double rn[2];
    if (axpy(ar, ai, &p, &x, err, errlen) < 0 || axpy(-ar, -ai, &q, &r, err, errlen) < 0 ||
        dotc(&r, &r, rn, err, errlen) < 0)
      goto done;
    const double beta = rn[0] / rr[0];
    rr[0] = rn[0];
    resid = sqrt(rn[0]);
    sk_arg a[] = {sk_arg_view("x", &r), sk_arg_view("y", &p), arg_c("b", beta, 0)};
    if (sk_sp_range(&k_xpby, n, a, 3, NULL, err, errlen) < 0) goto done;
  }
  if (resid <= stop) reason = 0;
  if (sk_kout_view(out, "x", &x, err, errlen) < 0) goto done;
  memset(&x, 0, sizeof x); /* moved */
  if (sk_kout_num(out, "iters", (double)it, err, errlen) < 0 ||
      sk_kout_num(out, "resid", resid, err, errlen) < 0 ||
      sk_kout_num(out, "reason", reason, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  if (rc < 0) sk_kout_release(out);
  sk_view_release(&x);
  sk_view_release(&r);
  sk_view_release(&p);
  sk_view_release(&q);
  return rc;
}

const sk_kbody *const sk_zcg_bodies[] = {&k_dotc, &k_axpy, &k_xpby, NULL};
static const sk_kentry e_zcg = {"sparse.zcg", "A_*, b [, x0, tol, maxiter]", SK_KRES_NONE,
                                zcg};
const sk_kentry *const sk_zcg_entries[] = {&e_zcg, NULL};
