/* zlapack.c: trsm, potrf, getrf, getrs (trans 'N' 'T' 'C'), gesv, trtri,
 * trmm, syrk and herk on complex views (complex128, complex64), rank 2,
 * any layout, in place as BLAS / LAPACK, built as the real ones (blas3.c,
 * lapack.c) are:
 *
 *  - host views with impl "vendor" or "auto" (the default; the real ones'
 *    auto takes the vendor at every size, docs/bench-library.md) go to
 *    OpenBLAS's ztrsm / zpotrf / zgetrf / zgetrs / ztrtri / ztrmm / zsyrk /
 *    zherk (ctrsm ... for complex64);
 *  - otherwise (impl "native", a GPU's views, no library) the library's own
 *    dialect kernels (zlapack.sk): trsm blocked (a triangular solve of
 *    each diagonal block, its columns in parallel, then a gemm update of
 *    the rows still to solve); potrf blocked, right-looking (a Cholesky
 *    of each diagonal block by one thread, a trsm of the panel below it,
 *    a Hermitian rank-k update of the trailing lower triangle); getrf one
 *    team kernel (partial pivoting by LAPACK's |re| + |im|, rows below a
 *    pivot updated by the team's members); getrs the row interchanges (a
 *    column of B per work item) and two native trsm; trtri by one thread
 *    (as the real one); trmm B's columns in parallel; syrk / herk one
 *    element of C's triangle per work item (herk: real alpha and beta, the
 *    diagonal's imaginary parts 0, as BLAS).
 *
 * 'C' is the conjugate transpose. potrf factors a Hermitian matrix, A =
 * L L^H (uplo "L") or U^H U ("U"), reading one triangle and the real parts
 * of the diagonal; a pivot that is not positive or not finite is an error
 * naming it, as the real potrf's; getrf's zero pivot names it too. The
 * argument checks and messages are zblas.c's (complex views of one dtype)
 * and lapack.c's (square, pivots). The GPU's vendor library is not used
 * for complex views yet.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "dense.h"
#include "kbodies.h"
#include "vendor.h"

#define NELEM(a)    ((int)(sizeof(a) / sizeof((a)[0])))
#define MAT2(VT, n) " " n "=" VT "[2,stride]"
#define SIG2(F)     {F("complex128"), F("complex64"), NULL}

/* -- bodies ------------------------------------------------------------------ */
#define TRSV_SIG(VT) \
  "range" MAT2(VT, "A") MAT2(VT, "B") " lower=int64 unit=int64 cj=int64 alpha=complex128"
static const char *const sig_trsv[] = SIG2(TRSV_SIG);
/* column i of B: M x = alpha b, M = A or conj(A) */
static const sk_kbody k_ztrsv = {
  .label = "blas.ztrsm", .body = sk_body_blas_ztrsv, .pattern = SK_FOR, .sigs = sig_trsv};

#define GEMMT_SIG(VT)                                                              \
  "mdrange2" MAT2(VT, "A") MAT2(VT, "B") MAT2(VT, "C") " ta=int64 tb=int64 tri=int64 " \
  "alpha=complex128 beta=complex128"
static const char *const sig_gemmt[] = SIG2(GEMMT_SIG);
/* C = alpha op(A) op(B) + beta C, one triangle or all of C */
static const sk_kbody k_zgemmt = {.label = "blas.zgemm_update",
                                  .body = sk_body_blas_zgemm_tri,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gemmt};

#define POTRF_SIG(VT) "team" MAT2(VT, "A") " info=int64[1] base=int64"
static const char *const sig_potrf[] = SIG2(POTRF_SIG);
static const sk_kbody k_zpotrf = {
  .label = "blas.zpotrf", .body = sk_body_blas_zpotrf, .pattern = SK_FOR, .sigs = sig_potrf};

#define GETRF_SIG(VT, PT) "team" MAT2(VT, "A") " P=int64[1] ipiv=" PT "[1] info=int64[1]"
static const char *const sig_getrf[] = {
  GETRF_SIG("complex128", "int64"), GETRF_SIG("complex64", "int64"),
  GETRF_SIG("complex128", "int32"), GETRF_SIG("complex64", "int32"), NULL};
static const sk_kbody k_zgetrf = {
  .label = "blas.zgetrf", .body = sk_body_blas_zgetrf, .pattern = SK_FOR, .sigs = sig_getrf};

#define LASWP_SIG(VT, PT) "range" MAT2(VT, "B") " ipiv=" PT "[1] rev=int64"
static const char *const sig_laswp[] = {
  LASWP_SIG("complex128", "int64"), LASWP_SIG("complex64", "int64"),
  LASWP_SIG("complex128", "int32"), LASWP_SIG("complex64", "int32"), NULL};
/* getrs's row interchanges, a column of B per work item */
static const sk_kbody k_zlaswp = {
  .label = "blas.zgetrs", .body = sk_body_blas_zlaswp, .pattern = SK_FOR, .sigs = sig_laswp};

#define TRMV_SIG(VT) \
  "range" MAT2(VT, "A") MAT2(VT, "B") " lower=int64 unit=int64 cj=int64 alpha=complex128"
static const char *const sig_trmv[] = SIG2(TRMV_SIG);
/* column i of B: b = alpha M b, M = A or conj(A) */
static const sk_kbody k_ztrmv = {
  .label = "blas.ztrmm", .body = sk_body_blas_ztrmv, .pattern = SK_FOR, .sigs = sig_trmv};

#define TRTRI_SIG(VT) "team" MAT2(VT, "A") " info=int64[1] unit=int64"
static const char *const sig_trtri[] = SIG2(TRTRI_SIG);
static const sk_kbody k_ztrtri = {
  .label = "blas.ztrtri", .body = sk_body_blas_ztrtri, .pattern = SK_FOR, .sigs = sig_trtri};

#define SYRK_SIG(VT)                                                                 \
  "mdrange2" MAT2(VT, "A") MAT2(VT, "C") " t=int64 tri=int64 her=int64 alpha=complex128 " \
  "beta=complex128"
static const char *const sig_syrk[] = SIG2(SYRK_SIG);
/* C(i, j) of syrk / herk, one triangle */
static const sk_kbody k_zsyrk = {
  .label = "blas.zsyrk", .body = sk_body_blas_zsyrk, .pattern = SK_FOR, .sigs = sig_syrk};

const sk_kbody *const sk_zlapack_bodies[] = {&k_ztrsv,  &k_zgemmt, &k_zpotrf, &k_zgetrf,
                                             &k_zlaswp, &k_ztrmv,  &k_ztrtri, &k_zsyrk,
                                             NULL};

static int square(const sk_view *A, char *err, size_t errlen) {
  if (A->extent[0] == A->extent[1]) return 0;
  char s[48];
  sk_err(err, errlen, SK_E_VIEW_SQUARE_MATRIX, "A", A->label, sk_dense_shape(A, s, sizeof s));
  return -1;
}

/* the host vendor library for host views (impl not "native") */
static int vendor_ok(int impl, const sk_view *A, const sk_view *B) {
  if (impl == SK_IMPL_NATIVE || A->space != SK_SPACE_HOST) return 0;
  if (B && B->space != SK_SPACE_HOST) return 0;
  if (!sk_vendor_host_available()) return 0;
  sk_vendor_host_threads(sk_rt_threads());
  return 1;
}

/* the transpose: the same memory, extents and strides swapped */
static void transposed(const sk_view *v, sk_view *out) {
  *out = *v;
  out->layout = SK_STRIDE;
  out->extent[0] = v->extent[1];
  out->extent[1] = v->extent[0];
  out->stride[0] = v->stride[1];
  out->stride[1] = v->stride[0];
}

/* -- the native building blocks --------------------------------------------------- */
/* C = alpha op(A) op(B) + beta C (op 'N' 'T' 'C' 'R'), triangle 'tri' or all */
static int zgemm_update(char ta, char tb, const double *alpha, const sk_view *A,
                        const sk_view *B, const double *beta, const sk_view *C, char tri,
                        char *err, size_t errlen) {
  if (C->extent[0] == 0 || C->extent[1] == 0) return 0;
  sk_view a, b, c;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_dense_strided(C, &c);
  sk_policy p;
  sk_policy_init(&p, SK_POL_MDRANGE);
  p.md_rank = 2;
  p.md_hi[0] = C->extent[0];
  p.md_hi[1] = C->extent[1];
  sk_arg ka[] = {sk_arg_view("A", &a),
                 sk_arg_view("B", &b),
                 sk_arg_view("C", &c),
                 sk_arg_i64("ta", ta),
                 sk_arg_i64("tb", tb),
                 sk_arg_i64("tri", tri),
                 sk_zarg("alpha", alpha[0], alpha[1]),
                 sk_zarg("beta", beta[0], beta[1])};
  return sk_kbody_launch(&k_zgemmt, &p, ka, NELEM(ka), NULL, err, errlen);
}

/* B = M^-1 alpha B, columns in parallel (M = a or conj(a), lower or upper) */
static int trsv_cols(int lower, int unit, int cj, const double *alpha, const sk_view *a,
                     const sk_view *b, char *err, size_t errlen) {
  sk_arg ka[] = {sk_arg_view("A", a),        sk_arg_view("B", b),
                 sk_arg_i64("lower", lower), sk_arg_i64("unit", unit),
                 sk_arg_i64("cj", cj),       sk_zarg("alpha", alpha[0], alpha[1])};
  return sk_dense_range(&k_ztrsv, b->extent[1], ka, NELEM(ka), err, errlen);
}

#define ZTRSM_NB 128

/* a triangular operation on side 'side' as one on side L: 'a' is op(A)
 * or op(A)^T as a view of A (its triangle 'lower' after the transpose),
 * 'b' is B or B^T, 'cj' whether A's entries are conjugated (side R: X op(A)
 * = B is op(A)^T X^T = B^T, and (A^H)^T = conj(A)) */
static void side_left(char side, char uplo, char trans, const sk_view *A, const sk_view *B,
                      sk_view *a, sk_view *b, int *lower, int *cj) {
  int tr = trans != 'N';
  *lower = uplo == 'L';
  *cj = trans == 'C';
  if (side == 'R') tr = !tr;
  if (tr) {
    transposed(A, a);
    *lower = !*lower;
  } else sk_dense_strided(A, a);
  if (side == 'R') transposed(B, b);
  else sk_dense_strided(B, b);
}

/* B = alpha op(A)^-1 B (side L) or alpha B op(A)^-1 (R), natively: reduced
 * to side L with M = op(A) or op(A)^T as a view of A and a conjugate flag
 * (side R: X op(A) = B is op(A)^T X^T = B^T, and (A^H)^T = conj(A)), then
 * per diagonal block a solve and a gemm update of the rows still to solve */
static int ztrsm_native(char side, char uplo, char trans, char diag, const double *alpha,
                        const sk_view *A, const sk_view *B, char *err, size_t errlen) {
  sk_view a, b;
  int lower, cj;
  side_left(side, uplo, trans, A, B, &a, &b, &lower, &cj);
  int unit = diag == 'U';
  int64_t m = b.extent[0], n = b.extent[1];
  if (m == 0 || n == 0) return 0;
  if (m <= ZTRSM_NB || (alpha[0] == 0 && alpha[1] == 0))
    return trsv_cols(lower, unit, cj, alpha, &a, &b, err, errlen);
  const double one[2] = {1, 0}, minus[2] = {-1, 0};
  for (int64_t s = 0; s < m; s += ZTRSM_NB) {
    int64_t nb = m - s < ZTRSM_NB ? m - s : ZTRSM_NB;
    int64_t k0 = lower ? s : m - s - nb; /* this diagonal block */
    const double *sc = s == 0 ? alpha : one; /* later rows: scaled by the first update */
    sk_view d, x, rest, arest;
    sk_dense_block(&a, k0, k0, nb, nb, &d);
    sk_dense_block(&b, k0, 0, nb, n, &x);
    if (trsv_cols(lower, unit, cj, sc, &d, &x, err, errlen) < 0) return -1;
    int64_t left = m - s - nb;
    if (left == 0) break;
    if (lower) {
      sk_dense_block(&a, k0 + nb, k0, left, nb, &arest);
      sk_dense_block(&b, k0 + nb, 0, left, n, &rest);
    } else {
      sk_dense_block(&a, 0, k0, left, nb, &arest);
      sk_dense_block(&b, 0, 0, left, n, &rest);
    }
    if (zgemm_update(cj ? 'R' : 'N', 'N', minus, &arest, &x, sc, &rest, 0, err, errlen) <
        0)
      return -1;
  }
  return 0;
}

/* -- trsm ------------------------------------------------------------------------- */
/* trsm's and trmm's arguments: side, uplo, transA (N, T, C), diag, alpha,
 * the square triangle A and B (distinct memory, A's order B's rows or
 * columns by side), impl */
typedef struct ztri {
  char side, uplo, tr, diag;
  double alpha[2];
  int dt, impl;
  const sk_view *A, *B;
} ztri;

static int ztri_args(const sk_arg *args, int nargs, ztri *z, char *err, size_t errlen) {
  static const char *const known[] = {"side", "uplo",  "transA", "diag", "alpha_re",
                                      "alpha_im", "A", "B",      "impl", NULL};
  z->dt = -1;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "side", "LR", 0, &z->side, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &z->uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', &z->tr, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "diag", "NU", 'N', &z->diag, err, errlen) < 0 ||
      sk_zscalar(args, nargs, "alpha", z->alpha, err, errlen) < 0 ||
      !(z->A = sk_zview(args, nargs, "A", 2, &z->dt, 1, err, errlen)) ||
      !(z->B = sk_zview(args, nargs, "B", 2, &z->dt, 1, err, errlen)) ||
      sk_dense_impl(args, nargs, &z->impl, err, errlen) < 0)
    return -1;
  const sk_view *A = z->A, *B = z->B;
  if (A->data && A->alloc && A->alloc == B->alloc) {
    sk_err(err, errlen, SK_E_ARG_VIEW_SHARE_MEMORY, "A", A->label, "B", B->label);
    return -1;
  }
  int64_t need = z->side == 'L' ? B->extent[0] : B->extent[1];
  if (A->extent[0] != A->extent[1] || A->extent[0] != need) {
    char sa[48], sb[48];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_B_SIDE, sk_dense_shape(A, sa, sizeof sa),
           sk_dense_shape(B, sb, sizeof sb), z->side, z->side == 'L' ? "rows" : "columns");
    return -1;
  }
  return 0;
}

static int ztrsm(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  ztri z;
  if (ztri_args(args, nargs, &z, err, errlen) < 0) return -1;
  const sk_view *A = z.A, *B = z.B;
  if (vendor_ok(z.impl, A, B) &&
      sk_vendor_ztrsm(z.dt, z.side, z.uplo, z.tr, z.diag, B->extent[0], B->extent[1], z.alpha,
                      A->data, A->stride[0], A->stride[1], B->data, B->stride[0],
                      B->stride[1]) == SK_VENDOR_OK)
    return 0;
  return ztrsm_native(z.side, z.uplo, z.tr, z.diag, z.alpha, A, B, err, errlen);
}

/* -- potrf ------------------------------------------------------------------------ */
/* A(j, j)'s real part, from any space */
static int diag_re(const sk_view *A, int64_t j, double *x, char *err, size_t errlen) {
  int64_t off = j * (A->stride[0] + A->stride[1]);
  double im;
  if (A->space == SK_SPACE_HOST) {
    sk_view_get_c(A, off, x, &im);
    return 0;
  }
  sk_view h, s;
  int64_t one = 1;
  double cell[2] = {0, 0};
  if (sk_view_create(&h, "pivot", A->dtype, 1, &one, SK_RIGHT, SK_SPACE_HOST, 0, cell, err,
                     errlen) < 0)
    return -1;
  s = *A;
  s.rank = 1;
  s.data = (char *)A->data + off * (int64_t)sk_dtypes[A->dtype].size;
  s.extent[0] = 1;
  s.extent[1] = 1;
  s.stride[0] = 1;
  s.stride[1] = 0;
  s.layout = SK_RIGHT;
  int rc = sk_view_deep_copy(&h, &s, err, errlen);
  sk_view_get_c(&h, 0, x, &im);
  sk_view_release(&h);
  return rc;
}

/* pivot info - 1 failed: not finite (NaN, Inf: the value left in A(k, k))
 * or not positive -- the real potrf's messages */
static int potrf_fail(const sk_view *A, int64_t info, char *err, size_t errlen) {
  double d;
  if (diag_re(A, info - 1, &d, err, errlen) < 0) return -1;
  return sk_dense_potrf_fail(A, info, d, err, errlen);
}

#define ZPOTRF_NB 96

static int zpotrf(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  static const char *const known[] = {"uplo", "A", "impl", NULL};
  (void)out;
  char uplo;
  int dt = -1, impl;
  const sk_view *A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 2, &dt, 1, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 || square(A, err, errlen) < 0)
    return -1;
  int64_t n = A->extent[0], info = 0;
  if (n == 0) return 0;
  if (vendor_ok(impl, A, NULL) &&
      sk_vendor_zpotrf(dt, uplo, n, A->data, A->stride[0], A->stride[1], &info) ==
        SK_VENDOR_OK) {
    /* the vendor takes a NaN or an Inf pivot: the factor's diagonal says */
    for (int64_t j = 0; j < (info ? info - 1 : n); j++) {
      double re, im;
      sk_view_get_c(A, j * (A->stride[0] + A->stride[1]), &re, &im);
      if (!isfinite(re)) return potrf_fail(A, j + 1, err, errlen);
    }
    return info ? potrf_fail(A, info, err, errlen) : 0;
  }
  /* upper: the lower factor of the transposed view (its values are conj(A),
   * Hermitian too: conj(A) = L L^H gives A = U^H U with U = L^T, which the
   * transposed view stores in A's upper triangle) */
  sk_view a;
  if (uplo == 'U') transposed(A, &a);
  else sk_dense_strided(A, &a);
  sk_view iv;
  if (sk_dense_ivec(&iv, "info", 1, A->space, err, errlen) < 0) return -1;
  const double one[2] = {1, 0}, minus[2] = {-1, 0};
  int rc = 0;
  for (int64_t k = 0; k < n && rc == 0; k += ZPOTRF_NB) {
    int64_t nb = n - k < ZPOTRF_NB ? n - k : ZPOTRF_NB, rest = n - k - nb;
    sk_view d, p, t;
    sk_dense_block(&a, k, k, nb, nb, &d);
    sk_arg ka[] = {sk_arg_view("A", &d), sk_arg_view("info", &iv), sk_arg_i64("base", k)};
    if (sk_dense_team(&k_zpotrf, 1, 1, 0, ka, NELEM(ka), err, errlen) < 0 ||
        sk_dense_get_i64(&iv, 0, &info, err, errlen) < 0) {
      rc = -1;
      break;
    }
    if (info) {
      rc = potrf_fail(A, info, err, errlen);
      break;
    }
    if (rest == 0) break;
    sk_dense_block(&a, k + nb, k, rest, nb, &p);
    sk_dense_block(&a, k + nb, k + nb, rest, rest, &t);
    /* P = P D^-H, then T -= P P^H (its lower triangle) */
    if (ztrsm_native('R', 'L', 'C', 'N', one, &d, &p, err, errlen) < 0 ||
        zgemm_update('N', 'C', minus, &p, &p, one, &t, 'L', err, errlen) < 0)
      rc = -1;
  }
  sk_view_release(&iv);
  return rc;
}

/* -- getrf ------------------------------------------------------------------------ */
static int team_size(void) {
  char e[64];
  const sk_backend *b = sk_dense_backend(e, sizeof e);
  if (!b) return 1;
  if (sk_space_host_accessible(b->space)) return sk_rt_threads() > 0 ? sk_rt_threads() : 1;
  return 0;
}

/* the pivots view 'ipiv': int32 or int64, 'n' entries (lapack.c's
 * sk_dense_pivots), in A's space */
static const sk_view *zpivots(const sk_arg *args, int nargs, const sk_view *A, int64_t n,
                              char *err, size_t errlen) {
  const sk_view *ipiv = sk_dense_pivots(args, nargs, n, 1, err, errlen);
  if (!ipiv) return NULL;
  if (ipiv->space != A->space) {
    sk_err(err, errlen, SK_E_IPIV_VIEW_ANOTHER, ipiv->label);
    return NULL;
  }
  return ipiv;
}

/* A = P L U in place, the pivots into ipiv; a zero pivot is an error
 * naming it */
static int zfactor(const sk_view *A, const sk_view *ipiv, int impl, char *err,
                   size_t errlen) {
  int64_t m = A->extent[0], n = A->extent[1], kn = m < n ? m : n, info = 0;
  if (kn == 0) return 0;
  int rc = 0;
  int64_t *h = NULL;
  if (vendor_ok(impl, A, NULL) && (h = malloc((size_t)kn * sizeof *h)) != NULL &&
      sk_vendor_zgetrf(A->dtype, m, n, A->data, A->stride[0], A->stride[1], h, &info) ==
        SK_VENDOR_OK) {
    for (int64_t k = 0; k < kn; k++)
      sk_view_set_i((sk_view *)ipiv, k * ipiv->stride[0], h[k]);
  } else {
    sk_view a, P, iv;
    sk_dense_strided(A, &a);
    if (sk_dense_ivec(&P, "pivots", kn, A->space, err, errlen) < 0) {
      free(h);
      return -1;
    }
    if (sk_dense_ivec(&iv, "info", 1, A->space, err, errlen) < 0) {
      sk_view_release(&P);
      free(h);
      return -1;
    }
    sk_arg ka[] = {sk_arg_view("A", &a), sk_arg_view("P", &P), sk_arg_view("ipiv", ipiv),
                   sk_arg_view("info", &iv)};
    rc = sk_dense_team(&k_zgetrf, 1, team_size(), 0, ka, NELEM(ka), err, errlen);
    if (rc == 0) rc = sk_dense_get_i64(&iv, 0, &info, err, errlen);
    sk_view_release(&iv);
    sk_view_release(&P);
  }
  free(h);
  if (rc == 0 && info) return sk_dense_singular(A, info, err, errlen);
  return rc;
}

static int zgetrf(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  static const char *const known[] = {"A", "ipiv", "impl", NULL};
  (void)out;
  int dt = -1, impl;
  const sk_view *A, *ipiv;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 2, &dt, 1, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0)
    return -1;
  int64_t kn = A->extent[0] < A->extent[1] ? A->extent[0] : A->extent[1];
  if (!(ipiv = zpivots(args, nargs, A, kn, err, errlen))) return -1;
  return zfactor(A, ipiv, impl, err, errlen);
}

/* -- getrs, gesv ------------------------------------------------------------------ */
/* B = op(A)^-1 B with getrf's factors in A and its pivots: op 'N': P B,
 * then L and U solved; 'T' / 'C': op(U) then op(L) solved, then P^T */
static int zsolve(char trans, const sk_view *A, const sk_view *ipiv, const sk_view *B,
                  int impl, char *err, size_t errlen) {
  int64_t n = A->extent[0], nrhs = B->extent[1];
  if (n == 0 || nrhs == 0) return 0;
  if (vendor_ok(impl, A, B)) {
    int64_t *h = malloc((size_t)n * sizeof *h);
    if (!h) {
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    for (int64_t k = 0; k < n; k++) h[k] = sk_view_get_i(ipiv, k * ipiv->stride[0]);
    int vr = sk_vendor_zgetrs(A->dtype, trans, n, nrhs, A->data, A->stride[0], A->stride[1],
                              h, B->data, B->stride[0], B->stride[1]);
    free(h);
    if (vr == SK_VENDOR_OK) return 0;
  }
  const double one[2] = {1, 0};
  sk_view b;
  sk_dense_strided(B, &b);
  sk_arg ka[] = {sk_arg_view("B", &b), sk_arg_view("ipiv", ipiv),
                 sk_arg_i64("rev", trans != 'N')};
  if (trans == 'N')
    return sk_dense_range(&k_zlaswp, nrhs, ka, NELEM(ka), err, errlen) < 0 ||
               ztrsm_native('L', 'L', 'N', 'U', one, A, B, err, errlen) < 0 ||
               ztrsm_native('L', 'U', 'N', 'N', one, A, B, err, errlen) < 0
             ? -1
             : 0;
  return ztrsm_native('L', 'U', trans, 'N', one, A, B, err, errlen) < 0 ||
             ztrsm_native('L', 'L', trans, 'U', one, A, B, err, errlen) < 0 ||
             sk_dense_range(&k_zlaswp, nrhs, ka, NELEM(ka), err, errlen) < 0
           ? -1
           : 0;
}

/* getrs (factor_too 0: A factored, ipiv given) or gesv (1: A factored
 * here, the pivots into ipiv when given) */
static int zgesv_like(int factor_too, const sk_arg *args, int nargs, char *err,
                      size_t errlen) {
  static const char *const known[] = {"A", "B", "ipiv", "trans", "impl", NULL};
  int dt = -1, impl;
  char trans = 'N';
  const sk_view *A, *B, *ipiv = NULL;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 2, &dt, 1, err, errlen)) ||
      !(B = sk_zview(args, nargs, "B", 2, &dt, 1, err, errlen)) ||
      (!factor_too &&
       sk_dense_char(args, nargs, "trans", "NTC", 'N', &trans, err, errlen) < 0) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 || square(A, err, errlen) < 0)
    return -1;
  if (B->extent[0] != A->extent[0]) {
    char sa[48], sb[48];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_B, sk_dense_shape(A, sa, sizeof sa),
           sk_dense_shape(B, sb, sizeof sb));
    return -1;
  }
  if (A->alloc && A->alloc == B->alloc) {
    sk_err(err, errlen, SK_E_ARG_VIEW_SHARE_MEMORY, "A", A->label, "B", B->label);
    return -1;
  }
  int64_t n = A->extent[0];
  if ((!factor_too || sk_karg_find(args, nargs, "ipiv")) &&
      !(ipiv = zpivots(args, nargs, A, n, err, errlen)))
    return -1;
  if (!factor_too) return zsolve(trans, A, ipiv, B, impl, err, errlen);
  sk_view own;
  if (!ipiv) {
    if (sk_dense_ivec(&own, "ipiv", n, A->space, err, errlen) < 0) return -1;
    ipiv = &own;
  }
  int rc = zfactor(A, ipiv, impl, err, errlen);
  if (rc == 0) rc = zsolve('N', A, ipiv, B, impl, err, errlen);
  if (ipiv == &own) sk_view_release(&own);
  return rc;
}

static int zgetrs(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  (void)out;
  return zgesv_like(0, args, nargs, err, errlen);
}

static int zgesv(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  return zgesv_like(1, args, nargs, err, errlen);
}

/* -- trtri, trmm ------------------------------------------------------------------ */
static int ztrtri(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  static const char *const known[] = {"uplo", "diag", "A", "impl", NULL};
  (void)out;
  char uplo, diag;
  int dt = -1, impl;
  const sk_view *A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "diag", "NU", 'N', &diag, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 2, &dt, 1, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 || square(A, err, errlen) < 0)
    return -1;
  int64_t n = A->extent[0], info = 0;
  if (n == 0) return 0;
  int rc = 0;
  if (!(vendor_ok(impl, A, NULL) &&
        sk_vendor_ztrtri(dt, uplo, diag, n, A->data, A->stride[0], A->stride[1], &info) ==
          SK_VENDOR_OK)) {
    /* lower: the upper triangle of the transposed view */
    sk_view a, iv;
    if (uplo == 'L') transposed(A, &a);
    else sk_dense_strided(A, &a);
    if (sk_dense_ivec(&iv, "info", 1, A->space, err, errlen) < 0) return -1;
    sk_arg ka[] = {sk_arg_view("A", &a), sk_arg_view("info", &iv),
                   sk_arg_i64("unit", diag == 'U')};
    rc = sk_dense_team(&k_ztrtri, 1, 1, 0, ka, NELEM(ka), err, errlen);
    if (rc == 0) rc = sk_dense_get_i64(&iv, 0, &info, err, errlen);
    sk_view_release(&iv);
  }
  if (rc == 0 && info) return sk_dense_singular(A, info, err, errlen);
  return rc;
}

/* B = alpha op(A) B (side L) or alpha B op(A) (R), natively: reduced to
 * side L as ztrsm_native, B's columns in parallel */
static int ztrmm_native(char side, char uplo, char trans, char diag, const double *alpha,
                        const sk_view *A, const sk_view *B, char *err, size_t errlen) {
  sk_view a, b;
  int lower, cj;
  side_left(side, uplo, trans, A, B, &a, &b, &lower, &cj);
  if (b.extent[0] == 0 || b.extent[1] == 0) return 0;
  sk_arg ka[] = {sk_arg_view("A", &a),        sk_arg_view("B", &b),
                 sk_arg_i64("lower", lower),  sk_arg_i64("unit", diag == 'U'),
                 sk_arg_i64("cj", cj),        sk_zarg("alpha", alpha[0], alpha[1])};
  return sk_dense_range(&k_ztrmv, b.extent[1], ka, NELEM(ka), err, errlen);
}

static int ztrmm(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  ztri z;
  if (ztri_args(args, nargs, &z, err, errlen) < 0) return -1;
  const sk_view *A = z.A, *B = z.B;
  if (vendor_ok(z.impl, A, B) &&
      sk_vendor_ztrmm(z.dt, z.side, z.uplo, z.tr, z.diag, B->extent[0], B->extent[1], z.alpha,
                      A->data, A->stride[0], A->stride[1], B->data, B->stride[0],
                      B->stride[1]) == SK_VENDOR_OK)
    return 0;
  return ztrmm_native(z.side, z.uplo, z.tr, z.diag, z.alpha, A, B, err, errlen);
}

/* -- syrk, herk ------------------------------------------------------------------- */
/* her 0: C = alpha op(A) op(A)^T + beta C (trans 'N' / 'T', complex alpha,
 * beta); her 1: C = alpha op(A) op(A)^H + beta C (trans 'N' / 'C', real
 * alpha, beta); triangle uplo of C only */
static int zsyrk_like(int her, const sk_arg *args, int nargs, char *err, size_t errlen) {
  static const char *const known[] = {"uplo", "trans", "alpha_re", "alpha_im", "A",
                                      "beta_re", "beta_im", "C", "impl", NULL};
  char uplo, t;
  double al[2], be[2];
  int dt = -1, impl;
  const sk_view *A, *C;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "trans", her ? "NC" : "NT", 'N', &t, err, errlen) < 0 ||
      sk_zscalar(args, nargs, "alpha", al, err, errlen) < 0 ||
      sk_zscalar(args, nargs, "beta", be, err, errlen) < 0)
    return -1;
  if (her && (al[1] != 0 || be[1] != 0)) {
    int a = al[1] != 0;
    sk_err(err, errlen, SK_E_ZHERK_REAL, a ? "alpha" : "beta", a ? al[0] : be[0],
           a ? al[1] : be[1]);
    return -1;
  }
  if (!(A = sk_zview(args, nargs, "A", 2, &dt, 1, err, errlen)) ||
      !(C = sk_zview(args, nargs, "C", 2, &dt, 1, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0)
    return -1;
  int64_t n = t == 'N' ? A->extent[0] : A->extent[1];
  int64_t k = t == 'N' ? A->extent[1] : A->extent[0];
  if (C->extent[0] != n || C->extent[1] != n) {
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_OP_X, (long long)n, (long long)k,
           (long long)C->extent[0], (long long)C->extent[1]);
    return -1;
  }
  if (A->alloc && A->alloc == C->alloc) {
    sk_err(err, errlen, SK_E_ZBLAS_ALIAS, C->label, "A", A->label);
    return -1;
  }
  if (n == 0) return 0;
  if (vendor_ok(impl, A, C) &&
      sk_vendor_zsyrk(dt, her, uplo, t, n, k, al, A->data, A->stride[0], A->stride[1], be,
                      C->data, C->stride[0], C->stride[1]) == SK_VENDOR_OK)
    return 0;
  sk_view a, c;
  sk_dense_strided(A, &a);
  sk_dense_strided(C, &c);
  sk_policy p;
  sk_policy_init(&p, SK_POL_MDRANGE);
  p.md_rank = 2;
  p.md_hi[0] = n;
  p.md_hi[1] = n;
  sk_arg ka[] = {sk_arg_view("A", &a),         sk_arg_view("C", &c),
                 sk_arg_i64("t", t),           sk_arg_i64("tri", uplo),
                 sk_arg_i64("her", her),       sk_zarg("alpha", al[0], al[1]),
                 sk_zarg("beta", be[0], be[1])};
  return sk_kbody_launch(&k_zsyrk, &p, ka, NELEM(ka), NULL, err, errlen);
}

static int zsyrk(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  return zsyrk_like(0, args, nargs, err, errlen);
}

static int zherk(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  return zsyrk_like(1, args, nargs, err, errlen);
}

/* -- entries ------------------------------------------------------------------------ */
static const sk_kentry e_ztrsm = {
  "blas.ztrsm", "side, uplo, transA, diag, alpha_re [, alpha_im], A, B [, impl]",
  SK_KRES_NONE, ztrsm};
static const sk_kentry e_zpotrf = {"blas.zpotrf", "uplo, A [, impl]", SK_KRES_NONE, zpotrf};
static const sk_kentry e_zgetrf = {"blas.zgetrf", "A, ipiv [, impl]", SK_KRES_NONE, zgetrf};

static const sk_kentry e_zgetrs = {"blas.zgetrs", "A, ipiv, B [, trans, impl]", SK_KRES_NONE,
                                   zgetrs};
static const sk_kentry e_zgesv = {"blas.zgesv", "A, B [, ipiv, impl]", SK_KRES_NONE, zgesv};
static const sk_kentry e_ztrtri = {"blas.ztrtri", "uplo, diag, A [, impl]", SK_KRES_NONE,
                                   ztrtri};
static const sk_kentry e_ztrmm = {
  "blas.ztrmm", "side, uplo, transA, diag, alpha_re [, alpha_im], A, B [, impl]",
  SK_KRES_NONE, ztrmm};
static const sk_kentry e_zsyrk = {
  "blas.zsyrk", "uplo, trans, alpha_re [, alpha_im], A, beta_re [, beta_im], C [, impl]",
  SK_KRES_NONE, zsyrk};
static const sk_kentry e_zherk = {"blas.zherk",
                                  "uplo, trans, alpha_re, A, beta_re, C [, impl]",
                                  SK_KRES_NONE, zherk};

const sk_kentry *const sk_zlapack_entries[] = {&e_ztrsm,  &e_zpotrf, &e_zgetrf, &e_zgetrs,
                                               &e_zgesv,  &e_ztrtri, &e_ztrmm,  &e_zsyrk,
                                               &e_zherk, NULL};
