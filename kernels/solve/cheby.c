/* cheby.c: the Chebyshev polynomial preconditioner and smoother (Ifpack2's
 * and MueLu's default smoother, on D^-1 A) and the power iteration that
 * bounds the spectrum, and the helpers every preconditioner of
 * kernels/solve/ shares (amg.h).
 *
 * The bound: lambda_max of D^-1 A from 'iters' power steps (a fixed
 * pseudo-random start, the same on every back end), each one SpMV and one
 * fused reduction that forms the Rayleigh quotient x'Ax / x'Dx (D^-1 A is
 * self-adjoint in the D inner product when A is symmetric, so the quotient
 * approaches lambda_max from below; on the host each step is one pass, the
 * SpMV fused with the reduction, the same sums bit for bit); the caller multiplies it by a safety
 * factor (speck/precond_ml.lua: 1.1, Ifpack2's boost). The apply runs
 * 'degree' steps of the three-term recurrence from z = 0 (Saad, Iterative
 * Methods, alg. 12.1, as Ifpack2's Chebyshev): a first step z = D^-1 r /
 * theta, then per step one SpMV and one fused update; on the host each
 * later step is one pass, the SpMV fused with the update (with the compact
 * index and the value codes that sparse.spmv keeps with the matrix).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "amg.h"

/* -- bodies -------------------------------------------------------------------- */
static const char *const sig_dinv[] = {
  "range" PC_MAT PC_R1("dinv", "float64") PC_R1("bad", "int64"), NULL};
static const sk_kbody k_dinv = {.label = "solve.cheby_dinv",
                                .body = sk_body_solve_cheby_dinv,
                                .pattern = SK_FOR,
                                .sigs = sig_dinv};
static const char *const sig_rand[] = {"range" PC_R1("x", "float64"), NULL};
static const sk_kbody k_rand = {.label = "solve.cheby_rand",
                                .body = sk_body_solve_cheby_rand,
                                .pattern = SK_FOR,
                                .sigs = sig_rand};
static const char *const sig_power[] = {"range" PC_R1("x", "float64") PC_R1("y", "float64")
                                          PC_R1("dinv", "float64") " s=float64",
                                        NULL};
static const sk_kbody k_power = {.label = "solve.cheby_power",
                                 .body = sk_body_solve_cheby_power,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_power,
                                 .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_first[] = {"range" PC_R1("dinv", "float64")
                                          PC_R1("r", "float64") PC_R1("d", "float64")
                                            PC_R1("z", "float64") " c2=float64",
                                        NULL};
static const sk_kbody k_first = {.label = "solve.cheby_first",
                                 .body = sk_body_solve_cheby_first,
                                 .pattern = SK_FOR,
                                 .sigs = sig_first};
static const char *const sig_step[] = {
  "range" PC_R1("dinv", "float64") PC_R1("r", "float64") PC_R1("w", "float64")
    PC_R1("d", "float64") PC_R1("z", "float64") " c1=float64 c2=float64",
  NULL};
static const sk_kbody k_step = {.label = "solve.cheby_step",
                                .body = sk_body_solve_cheby_step,
                                .pattern = SK_FOR,
                                .sigs = sig_step};
/* the host's step fused with its SpMV: A in CSR, with the compact index,
 * with the value codes too */
#define FUSED_VECS                                                                 \
  PC_R1("z", "float64") PC_R1("zn", "float64") PC_R1("d", "float64")               \
  PC_R1("rv", "float64") PC_R1("dinv", "float64") " nchunk=int64 c1=float64 c2=float64"
static const char *const sig_fused[] = {"range" PC_MAT FUSED_VECS, NULL};
static const sk_kbody k_fused = {.label = "solve.cheby_fused",
                                 .body = sk_body_solve_cheby_fused,
                                 .prelude = sk_body_sparse_row_split,
                                 .pattern = SK_FOR,
                                 .sigs = sig_fused};
static const char *const sig_fused16[] = {
  "range" PC_R1("rowptr", "int32") PC_R1("off", "int16") PC_R1("values", "float64") FUSED_VECS,
  NULL};
static const sk_kbody k_fused16 = {.label = "solve.cheby_fused16",
                                   .body = sk_body_solve_cheby_fused16,
                                   .prelude = sk_body_sparse_row_split,
                                   .pattern = SK_FOR,
                                   .sigs = sig_fused16};
static const char *const sig_fused16v[] = {"range" PC_R1("rowptr", "int32") PC_R1("off", "int16")
                                             PC_R1("vcode", "uint8") PC_R1("vtab", "float64")
                                               FUSED_VECS,
                                           NULL};
static const sk_kbody k_fused16v = {.label = "solve.cheby_fused16v",
                                    .body = sk_body_solve_cheby_fused16v,
                                    .prelude = sk_body_sparse_row_split,
                                    .pattern = SK_FOR,
                                    .sigs = sig_fused16v};
/* the host's power step fused with its SpMV: A in CSR, with the compact
 * index, with the value codes too */
#define POWER_VECS PC_R1("x", "float64") PC_R1("xo", "float64") PC_R1("dinv", "float64") " s=float64"
static const char *const sig_pfused[] = {"range" PC_MAT POWER_VECS, NULL};
static const char *const sig_pfused16[] = {
  "range" PC_R1("rowptr", "int32") PC_R1("off", "int16") PC_R1("values", "float64") POWER_VECS,
  NULL};
static const char *const sig_pfused16v[] = {"range" PC_R1("rowptr", "int32") PC_R1("off", "int16")
                                              PC_R1("vcode", "uint8") PC_R1("vtab", "float64")
                                                POWER_VECS,
                                            NULL};
static const sk_kbody k_pfused = {.label = "solve.cheby_power_fused",
                                  .body = sk_body_solve_cheby_power_fused,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_pfused,
                                  .reds = "sum:float64 sum:float64 sum:float64"};
static const sk_kbody k_pfused16 = {.label = "solve.cheby_power_fused16",
                                    .body = sk_body_solve_cheby_power_fused16,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_pfused16,
                                    .reds = "sum:float64 sum:float64 sum:float64"};
static const sk_kbody k_pfused16v = {.label = "solve.cheby_power_fused16v",
                                     .body = sk_body_solve_cheby_power_fused16v,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_pfused16v,
                                     .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_set64[] = {"range" PC_R1("v", "int64") " x=int64", NULL};
static const sk_kbody k_set64 = {.label = "solve.cheby_set64",
                                 .body = sk_body_solve_cheby_set64,
                                 .pattern = SK_FOR,
                                 .sigs = sig_set64};

/* -- shared helpers (amg.h) ---------------------------------------------------- */
int sk_pc_matrix(const sk_arg *args, int nargs, const char *p, sk_csr *A, char *err,
                 size_t errlen) {
  if (sk_csr_arg(args, nargs, p, 1, A, err, errlen) < 0) return -1;
  if (A->nrows != A->ncols) {
    char b[48];
    sk_err(err, errlen, SK_E_PC_NOT_SQUARE, p, sk_csr_shape(A, b, sizeof b));
    return -1;
  }
  if (A->values->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_PC_NOT_F64, p, sk_dtypes[A->values->dtype].name);
    return -1;
  }
  return 0;
}

const sk_view *sk_pc_vec(const sk_arg *args, int nargs, const char *name, int64_t n,
                         const sk_csr *A, char *err, size_t errlen) {
  const sk_view *v = sk_karg_view(args, nargs, name, 1, err, errlen);
  if (!v) return NULL;
  if (v->dtype != SK_F64 || v->extent[0] != n) {
    sk_err(err, errlen, SK_E_PC_VEC, name, v->label, (long long)n,
           sk_dtypes[v->dtype].name, (long long)v->extent[0]);
    return NULL;
  }
  if (v->space != A->rowptr->space) {
    sk_err(err, errlen, SK_E_PC_VEC_SPACE, name, v->label);
    return NULL;
  }
  return v;
}

int sk_pc_flag(sk_view *bad, int space, char *err, size_t errlen) {
  if (sk_sp_view(bad, "failing row", SK_I64, 1, space, 0, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view("v", bad), sk_arg_i64("x", INT64_MAX)};
  return sk_sp_range(&k_set64, 1, a, PC_NELEM(a), NULL, err, errlen);
}

int sk_pc_flag_read(const sk_view *bad, int64_t *row, char *err, size_t errlen) {
  return sk_sp_get_i64(bad, 0, row, err, errlen);
}

int sk_pc_zero_diag(const sk_csr *A, int64_t r, char *err, size_t errlen) {
  int64_t b, e;
  if (sk_sp_get_i64(A->rowptr, r, &b, err, errlen) < 0 ||
      sk_sp_get_i64(A->rowptr, r + 1, &e, err, errlen) < 0)
    return -1;
  int zero = 1;
  for (int64_t k = b; k < e && zero; k++) {
    double x;
    if (sk_sp_get_f64(A->values, k, &x, err, errlen) < 0) return -1;
    if (x != 0) zero = 0;
  }
  if (zero)
    sk_err(err, errlen, SK_E_PC_ZERO_ROW, (long long)r);
  else
    sk_err(err, errlen, SK_E_PC_ZERO_DIAG, (long long)r);
  return -1;
}

int sk_pc_dinv(const sk_csr *A, const sk_view *dinv, char *err, size_t errlen) {
  sk_view bad;
  memset(&bad, 0, sizeof bad);
  int rc = -1;
  int64_t row = INT64_MAX;
  if (sk_pc_flag(&bad, A->rowptr->space, err, errlen) < 0) goto done;
  {
    sk_arg a[] = {sk_arg_view_ro("rowptr", A->rowptr), sk_arg_view_ro("colidx", A->colidx),
                  sk_arg_view_ro("values", A->values), sk_arg_view("dinv", dinv),
                  sk_arg_view("bad", &bad)};
    if (A->nrows > 0 && sk_sp_range(&k_dinv, A->nrows, a, PC_NELEM(a), NULL, err, errlen) < 0)
      goto done;
  }
  if (sk_pc_flag_read(&bad, &row, err, errlen) < 0) goto done;
  if (row != INT64_MAX) {
    sk_pc_zero_diag(A, row, err, errlen);
    goto done;
  }
  rc = 0;
done:
  sk_view_release(&bad);
  return rc;
}

/* one fused power step over A's CSR (the compact index and value codes
 * where c16 and vd have them): sums = {x'y, x'Dx, |xo|^2} */
static int power_csr(const sk_kbody *kb, const sk_csr *A, const sk_csr16 *c16,
                     const sk_vdict *vd, const sk_view *x, const sk_view *xo,
                     const sk_view *dinv, double s, double sums[3], char *err, size_t errlen) {
  sk_arg a[9];
  int na = 0;
  a[na++] = sk_arg_view_ro("rowptr", c16->ok ? &c16->rowptr : A->rowptr);
  a[na++] = c16->ok ? sk_arg_view_ro("off", &c16->off) : sk_arg_view_ro("colidx", A->colidx);
  if (vd->ok) {
    a[na++] = sk_arg_view_ro("vcode", &vd->code);
    a[na++] = sk_arg_view_ro("vtab", &vd->tab);
  } else {
    a[na++] = sk_arg_view_ro("values", A->values);
  }
  a[na++] = sk_arg_view_ro("x", x);
  a[na++] = sk_arg_view("xo", xo);
  a[na++] = sk_arg_view_ro("dinv", dinv);
  a[na++] = sk_arg_f64("s", s);
  sk_result r;
  if (sk_sp_range(kb, A->nrows, a, na, &r, err, errlen) < 0) return -1;
  for (int t = 0; t < 3; t++) sums[t] = sk_result_f64(&r, t);
  return 0;
}

int sk_pc_lambda_max(const sk_csr *A, const sk_view *dinv, int64_t iters, double *lmax,
                     char *err, size_t errlen) {
  sk_view x, y;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  int rc = -1, space = A->rowptr->space;
  double lam = 0, s = 1;
  *lmax = 0;
  if (A->nrows == 0) return 0;
  if (sk_sp_view(&x, "power x", SK_F64, A->nrows, space, 0, err, errlen) < 0 ||
      sk_sp_view(&y, "power y", SK_F64, A->nrows, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("x", &x)};
    if (sk_sp_range(&k_rand, A->nrows, a, 1, NULL, err, errlen) < 0) goto done;
  }
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) goto done;
  if (sk_sp_host(be)) {
    /* one pass a step (the SpMV fused with the step; x and y alternate) */
    sk_csr16 c16;
    sk_vdict vd;
    /* and by diagonals where A is a stencil's (dia.c: then no index) */
    sk_dia dg;
    if (sk_dia_memos(A, iters, &c16, &vd, &dg, err, errlen) < 0) goto done;
    const sk_kbody *kb = vd.ok ? &k_pfused16v : c16.ok ? &k_pfused16 : &k_pfused;
    sk_view *cur = &x, *nxt = &y;
    int prc = 0;
    for (int64_t it = 0; it < iters && prc == 0; it++) {
      double sums[3];
      if (dg.ok) { /* y = A x by diagonals, then the step in place: the same sums */
        sk_arg a[] = {sk_arg_view("x", cur), sk_arg_view("y", nxt), sk_arg_view("dinv", dinv),
                      sk_arg_f64("s", s)};
        sk_result r;
        prc = sk_dia_spmv(&dg, A, 1.0, cur, 0.0, nxt, err, errlen);
        if (prc == 0) prc = sk_sp_range(&k_power, A->nrows, a, PC_NELEM(a), &r, err, errlen);
        for (int t = 0; prc == 0 && t < 3; t++) sums[t] = sk_result_f64(&r, t);
      } else {
        prc = power_csr(kb, A, &c16, &vd, cur, nxt, dinv, s, sums, err, errlen);
      }
      if (prc < 0) break;
      const double xy = sums[0], xdx = sums[1], nn = sums[2];
      if (xdx > 0 && isfinite(xy)) lam = xy / xdx;
      if (!(nn > 0) || !isfinite(nn)) break;
      s = 1.0 / sqrt(nn);
      if (!dg.ok) { /* the fused step's x and y alternate */
        sk_view *t = cur;
        cur = nxt;
        nxt = t;
      }
    }
    sk_dia_release(&dg);
    sk_csr16_release(&c16);
    sk_vdict_release(&vd);
    if (prc < 0) goto done;
    *lmax = lam;
    rc = 0;
    goto done;
  }
  for (int64_t it = 0; it < iters; it++) {
    sk_arg a[] = {sk_arg_view("x", &x), sk_arg_view("y", &y), sk_arg_view("dinv", dinv),
                  sk_arg_f64("s", s)};
    sk_result r;
    if (sk_sp_spmv('N', 1.0, A, &x, 0.0, &y, NULL, err, errlen) < 0 ||
        sk_sp_range(&k_power, A->nrows, a, PC_NELEM(a), &r, err, errlen) < 0)
      goto done;
    double xy = sk_result_f64(&r, 0), xdx = sk_result_f64(&r, 1),
           nn = sk_result_f64(&r, 2);
    if (xdx > 0 && isfinite(xy)) lam = xy / xdx;
    if (!(nn > 0) || !isfinite(nn)) break;
    s = 1.0 / sqrt(nn);
  }
  *lmax = lam;
  rc = 0;
done:
  sk_view_release(&x);
  sk_view_release(&y);
  return rc;
}

/* -- entries ------------------------------------------------------------------- */
/* solve.cheby_setup: A_* [, iters = 10] -> dinv, lambda_max (the estimate
 * itself, no safety factor) */
static int cheby_setup(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "iters", NULL};
  sk_csr A;
  int64_t iters;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "iters", 1, 10, &iters, err, errlen) < 0)
    return -1;
  if (iters < 1) {
    sk_err(err, errlen, SK_E_PC_ITERS, (long long)iters);
    return -1;
  }
  sk_view dinv;
  double lmax;
  if (sk_sp_view(&dinv, "dinv", SK_F64, A.nrows, A.rowptr->space, 0, err, errlen) < 0)
    return -1;
  if (sk_pc_dinv(&A, &dinv, err, errlen) < 0 ||
      sk_pc_lambda_max(&A, &dinv, iters, &lmax, err, errlen) < 0 ||
      sk_kout_num(out, "lambda_max", lmax, err, errlen) < 0) {
    sk_view_release(&dinv);
    return -1;
  }
  return sk_kout_view(out, "dinv", &dinv, err, errlen);
}

/* the host's apply of degree > 1: the first step, then degree - 1 steps
 * each fused with its SpMV (one pass over A and the vectors instead of an
 * SpMV and an update), the iterate alternating between w and z so that
 * the last lands in z; A read with its compact index and value codes where
 * it has them (csr16.c, vdict.c: the memos sparse.spmv keeps), by
 * diagonals where it is a stencil's (dia.c: the first step then formed in
 * the second's pass; the same values) */
static int fused_steps(const sk_csr *A, const sk_view *dinv, const sk_view *r, const sk_view *z,
                       const sk_view *d, const sk_view *w, int64_t degree, double sigma,
                       double delta, char *err, size_t errlen) {
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  int64_t nchunk = be->concurrency ? be->concurrency() : 1;
  if (nchunk < 1) nchunk = 1;
  if (nchunk > A->nrows) nchunk = A->nrows;
  const int64_t m = degree - 1;
  /* z1 where the m alternations end in z */
  const sk_view *cur = m % 2 == 0 ? z : w, *nxt = m % 2 == 0 ? w : z;
  double rho = 1.0 / sigma;
  const double theta = sigma * delta;
  sk_csr16 c16;
  sk_vdict vd;
  sk_dia dg;
  int rc = -1;
  if (sk_dia_memos(A, 1, &c16, &vd, &dg, err, errlen) < 0) goto done;
  if (!dg.ok) {
    sk_arg a[] = {sk_arg_view("dinv", dinv), sk_arg_view("r", r), sk_arg_view("d", d),
                  sk_arg_view("z", cur), sk_arg_f64("c2", 1.0 / theta)};
    if (sk_sp_range(&k_first, A->nrows, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  rc = 0;
  for (int64_t k = 1; k < degree && rc == 0; k++) {
    const double rn = 1.0 / (2.0 * sigma - rho), c1 = rn * rho, c2 = 2.0 * rn / delta;
    if (dg.ok) {
      /* the first step's z formed in this pass where it is the first */
      rc = sk_dia_cheby(&dg, A, k == 1 ? NULL : cur, nxt, d, r, dinv, 1.0 / theta, c1, c2,
                        k + 1 < degree, err, errlen);
    } else {
      sk_arg a[13];
      int na = 0;
      a[na++] = sk_arg_view_ro("rowptr", c16.ok ? &c16.rowptr : A->rowptr);
      a[na++] = c16.ok ? sk_arg_view_ro("off", &c16.off) : sk_arg_view_ro("colidx", A->colidx);
      if (vd.ok) {
        a[na++] = sk_arg_view_ro("vcode", &vd.code);
        a[na++] = sk_arg_view_ro("vtab", &vd.tab);
      } else {
        a[na++] = sk_arg_view_ro("values", A->values);
      }
      a[na++] = sk_arg_view("z", cur);
      a[na++] = sk_arg_view("zn", nxt);
      a[na++] = sk_arg_view("d", d);
      a[na++] = sk_arg_view("rv", r);
      a[na++] = sk_arg_view("dinv", dinv);
      a[na++] = sk_arg_i64("nchunk", nchunk);
      a[na++] = sk_arg_f64("c1", c1);
      a[na++] = sk_arg_f64("c2", c2);
      const sk_kbody *kb = vd.ok ? &k_fused16v : c16.ok ? &k_fused16 : &k_fused;
      rc = sk_sp_range(kb, nchunk, a, na, NULL, err, errlen);
    }
    const sk_view *t = cur;
    cur = nxt;
    nxt = t;
    rho = rn;
  }
done:
  sk_dia_release(&dg);
  sk_csr16_release(&c16);
  sk_vdict_release(&vd);
  return rc;
}

/* solve.cheby_apply: A_*, dinv, r, z, d, w (work), lmax, lmin, degree:
 * z = p(D^-1 A) D^-1 r, the Chebyshev polynomial of 'degree' on
 * [lmin, lmax] applied from z = 0 */
static int cheby_apply(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols", "dinv",
                                      "r",        "z",        "d",        "w",       "lmax",
                                      "lmin",     "degree",   NULL};
  (void)out;
  sk_csr A;
  const sk_view *dinv, *r, *z, *d, *w;
  double lmax, lmin;
  int64_t degree;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      !(dinv = sk_pc_vec(args, nargs, "dinv", A.nrows, &A, err, errlen)) ||
      !(r = sk_pc_vec(args, nargs, "r", A.nrows, &A, err, errlen)) ||
      !(z = sk_pc_vec(args, nargs, "z", A.nrows, &A, err, errlen)) ||
      !(d = sk_pc_vec(args, nargs, "d", A.nrows, &A, err, errlen)) ||
      !(w = sk_pc_vec(args, nargs, "w", A.nrows, &A, err, errlen)) ||
      sk_karg_f64(args, nargs, "lmax", &lmax, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "lmin", &lmin, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "degree", 1, 3, &degree, err, errlen) < 0)
    return -1;
  if (degree < 1) {
    sk_err(err, errlen, SK_E_PC_DEGREE, (long long)degree);
    return -1;
  }
  if (!(lmax > lmin) || !(lmin > 0) || !isfinite(lmax)) {
    sk_err(err, errlen, SK_E_PC_BOUNDS, lmin, lmax);
    return -1;
  }
  if (A.nrows == 0) return 0;
  const double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin);
  const double sigma = theta / delta;
  double rho = 1.0 / sigma;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (degree > 1 && sk_sp_host(be)) return fused_steps(&A, dinv, r, z, d, w, degree, sigma,
                                                       delta, err, errlen);
  {
    sk_arg a[] = {sk_arg_view("dinv", dinv), sk_arg_view("r", r), sk_arg_view("d", d),
                  sk_arg_view("z", z), sk_arg_f64("c2", 1.0 / theta)};
    if (sk_sp_range(&k_first, A.nrows, a, PC_NELEM(a), NULL, err, errlen) < 0) return -1;
  }
  for (int64_t k = 1; k < degree; k++) {
    const double rn = 1.0 / (2.0 * sigma - rho);
    sk_arg a[] = {sk_arg_view("dinv", dinv), sk_arg_view("r", r),
                  sk_arg_view("w", w),       sk_arg_view("d", d),
                  sk_arg_view("z", z),       sk_arg_f64("c1", rn * rho),
                  sk_arg_f64("c2", 2.0 * rn / delta)};
    if (sk_sp_spmv('N', 1.0, &A, z, 0.0, w, NULL, err, errlen) < 0 ||
        sk_sp_range(&k_step, A.nrows, a, PC_NELEM(a), NULL, err, errlen) < 0)
      return -1;
    rho = rn;
  }
  return 0;
}

static const sk_kentry e_setup = {"solve.cheby_setup", "A_* [, iters]", SK_KRES_NONE,
                                  cheby_setup};
static const sk_kentry e_apply = {"solve.cheby_apply",
                                  "A_*, dinv, r, z, d, w, lmax, lmin [, degree]",
                                  SK_KRES_NONE, cheby_apply};
const sk_kentry *const sk_pc_cheby_entries[] = {&e_setup, &e_apply, NULL};
const sk_kbody *const sk_pc_cheby_bodies[] = {&k_dinv,    &k_rand,  &k_power,
                                              &k_first,   &k_step,  &k_fused,
                                              &k_fused16, &k_fused16v, &k_set64,
                                              &k_pfused,  &k_pfused16, &k_pfused16v,
                                              NULL};
