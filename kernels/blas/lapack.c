/* lapack.c: the LAPACK subset on rank-2 views (potrf getrf getrs gesv
 * trtri), float64 and float32, any layout, in place as LAPACK.
 *
 * potrf is blocked, right-looking (a C driver over sk_run): per diagonal
 * block a Cholesky by one thread, a trsm of the panel below it and a syrk
 * update of the trailing matrix (blas3.c's kernels). getrf (partial
 * pivoting, LAPACK's choice of the first largest magnitude), getrs and
 * trtri are one team kernel each over the dialect's team_ operations
 * (dialect/linalg.h): the rows below a pivot are updated by the team's
 * members. A zero pivot (getrf, gesv, trtri) or a non-positive one
 * (potrf) is an error naming the call and the pivot; getrf's pivots are
 * 0-based, LAPACK's swap sequence, into an int32 or int64 view. Bodies:
 * lapack.sk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "dense.h"
#include "kbodies.h"

#define NELEM(a)    ((int)(sizeof(a) / sizeof((a)[0])))
#define MAT2(VT, n) " " n "=" VT "[2,stride]"

/* -- bodies -------------------------------------------------------------------- */
#define POTRF_SIG(VT) "team" MAT2(VT, "A") " info=int64[1] base=int64"
static const char *const sig_potrf[] = {POTRF_SIG("float64"), POTRF_SIG("float32"), NULL};
/* the diagonal block at offset 'base', lower; info(0) = base + its info */
static const sk_kbody k_potrf = {.label = "blas.potrf",
                                 .body = sk_body_blas_potrf,
                                 .pattern = SK_FOR,
                                 .sigs = sig_potrf};

#define GETRF_SIG(VT, PT) "team" MAT2(VT, "A") " P=int64[1] ipiv=" PT "[1] info=int64[1]"
static const char *const sig_getrf[] = {
  GETRF_SIG("float64", "int64"), GETRF_SIG("float32", "int64"),
  GETRF_SIG("float64", "int32"), GETRF_SIG("float32", "int32"), NULL};
/* one team: pivots into P (int64, contiguous), then the caller's ipiv */
static const sk_kbody k_getrf = {.label = "blas.getrf",
                                 .body = sk_body_blas_getrf,
                                 .pattern = SK_FOR,
                                 .sigs = sig_getrf};

#define GETRS_SIG(VT) "team" MAT2(VT, "A") MAT2(VT, "B") " P=int64[1]"
static const char *const sig_getrs[] = {GETRS_SIG("float64"), GETRS_SIG("float32"), NULL};
static const sk_kbody k_getrs = {.label = "blas.getrs",
                                 .body = sk_body_blas_getrs,
                                 .pattern = SK_FOR,
                                 .sigs = sig_getrs};

#define TRTRI_SIG(VT) "team" MAT2(VT, "A") " info=int64[1] uplo=int64 diag=int64"
static const char *const sig_trtri[] = {TRTRI_SIG("float64"), TRTRI_SIG("float32"), NULL};
static const sk_kbody k_trtri = {.label = "blas.trtri",
                                 .body = sk_body_blas_trtri,
                                 .pattern = SK_FOR,
                                 .sigs = sig_trtri};

#define PIVCP_SIG(PT) "range P=int64[1] ipiv=" PT "[1]"
static const char *const sig_pivcp[] = {PIVCP_SIG("int64"), PIVCP_SIG("int32"), NULL};
/* the caller's pivots (int32 or int64) into P */
static const sk_kbody k_pivcp = {.label = "blas.getrs",
                                 .body = sk_body_blas_getrs_pivots,
                                 .pattern = SK_FOR,
                                 .sigs = sig_pivcp};

/* -- helpers ------------------------------------------------------------------- */
static int square(const char *name, const sk_view *A, char *err, size_t errlen) {
  if (A->extent[0] == A->extent[1]) return 0;
  char s[48];
  sk_err(err, errlen, SK_E_VIEW_SQUARE_MATRIX, name, A->label,
         sk_dense_shape(A, s, sizeof s));
  return -1;
}

static int not_spd(const sk_view *A, int64_t info, char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_VIEW_NOT_POSITIVE, A->label, (long long)info,
         (long long)(info - 1));
  return -1;
}

/* A(j, j) of a float matrix in any space (one element copied to the host
 * where the host cannot read it) */
static int diag_get(const sk_view *A, int64_t j, double *x, char *err, size_t errlen) {
  int64_t off = j * (A->stride[0] + A->stride[1]);
  if (A->space == SK_SPACE_HOST) {
    *x = sk_view_get_f(A, off);
    return 0;
  }
  sk_view h, s;
  int64_t one = 1;
  double cell[2] = {0, 0};
  if (sk_view_create(&h, "pivot", A->dtype, 1, &one, SK_RIGHT, SK_SPACE_HOST, 0, cell,
                     err, errlen) < 0)
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
  *x = sk_view_get_f(&h, 0);
  sk_view_release(&h);
  return rc;
}

/* potrf's pivot 'info' - 1 failed: NaN or Inf (the pivot the body left in
 * A(k, k), as LAPACK), or not positive */
int sk_dense_potrf_fail(const sk_view *A, int64_t info, double d, char *err,
                        size_t errlen) {
  if (isfinite(d)) return not_spd(A, info, err, errlen);
  sk_err(err, errlen, SK_E_VIEW_PIVOT_NONFINITE, A->label, (long long)(info - 1),
         (long long)(info - 1), isnan(d) ? "NaN" : "Inf");
  return -1;
}

static int potrf_fail(const sk_view *A, int64_t info, char *err, size_t errlen) {
  double d;
  if (diag_get(A, info - 1, &d, err, errlen) < 0) return -1;
  return sk_dense_potrf_fail(A, info, d, err, errlen);
}

/* LAPACK's info (pivot info - 1 is zero): the message, and -1 (dense.h;
 * zlapack.c's getrf, gesv and trtri too) */
int sk_dense_singular(const sk_view *A, int64_t info, char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_VIEW_SINGULAR_PIVOT, A->label, (long long)(info - 1));
  return -1;
}

/* the team size for the one-team kernels: every thread on the host */
static int team_size(void) {
  char e[64];
  const sk_backend *b = sk_dense_backend(e, sizeof e);
  if (!b) return 1;
  if (sk_space_host_accessible(b->space))
    return sk_rt_threads() > 0 ? sk_rt_threads() : 1;
  return 0;
}

/* the vendor path: host views and the library there; 'auto' above 'cross' */
static int vendor_ok(int impl, const sk_view *A, double flops) {
  if (impl == SK_IMPL_NATIVE || A->space != SK_SPACE_HOST) return 0;
  if (!sk_vendor_host_available()) return 0;
  (void)flops; /* auto: the vendor at every size (blas3.c's GEMM_CROSS says why) */
  sk_vendor_host_threads(sk_rt_threads());
  return 1;
}

/* -- potrf --------------------------------------------------------------------- */
#define POTRF_NB 96

static int potrf(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  static const char *const known[] = {"uplo", "A", "impl", NULL};
  (void)out;
  char uplo;
  int dt = -1, impl;
  const sk_view *A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 ||
      square("A", A, err, errlen) < 0)
    return -1;
  int64_t n = A->extent[0], info = 0;
  if (n == 0) return 0;
  if (vendor_ok(impl, A, (double)n * n * n / 3) &&
      sk_vendor_potrf(dt, uplo, n, A->data, A->stride[0], A->stride[1], &info) ==
        SK_VENDOR_OK) {
    /* a vendor's potrf takes a NaN (NaN <= 0 is false) or an Inf pivot:
     * the factor's diagonal says (n reads beside n^3 / 3 flops) */
    for (int64_t j = 0; j < (info ? info - 1 : n); j++)
      if (!isfinite(sk_view_get_f(A, j * (A->stride[0] + A->stride[1]))))
        return potrf_fail(A, j + 1, err, errlen);
    return info ? potrf_fail(A, info, err, errlen) : 0;
  }
  /* upper: the lower factor of the transposed view (A is symmetric) */
  sk_view a;
  sk_dense_strided(A, &a);
  if (uplo == 'U') {
    a.extent[0] = A->extent[1];
    a.extent[1] = A->extent[0];
    a.stride[0] = A->stride[1];
    a.stride[1] = A->stride[0];
  }
  sk_view iv;
  if (sk_dense_ivec(&iv, "info", 1, A->space, err, errlen) < 0) return -1;
  int rc = 0;
  for (int64_t k = 0; k < n && rc == 0; k += POTRF_NB) {
    int64_t nb = n - k < POTRF_NB ? n - k : POTRF_NB, rest = n - k - nb;
    sk_view d, p, t;
    sk_dense_block(&a, k, k, nb, nb, &d);
    sk_arg ka[] = {sk_arg_view("A", &d), sk_arg_view("info", &iv), sk_arg_i64("base", k)};
    if (sk_dense_team(&k_potrf, 1, 1, 0, ka, NELEM(ka), err, errlen) < 0 ||
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
    if (sk_dense_trsm('R', 'L', 'T', 'N', 1.0, &d, &p, err, errlen) < 0 ||
        sk_dense_gemm('N', 'T', -1.0, &p, &p, 1.0, &t, 'L', err, errlen) < 0)
      rc = -1;
  }
  sk_view_release(&iv);
  return rc;
}

/* -- getrf, getrs, gesv --------------------------------------------------------- */
/* the pivots view 'ipiv' (dense.h): int32 or int64 of n entries; absent
 * and not 'need'ed: NULL without a message */
const sk_view *sk_dense_pivots(const sk_arg *args, int nargs, int64_t n, int need,
                               char *err, size_t errlen) {
  const sk_arg *a = sk_karg_find(args, nargs, "ipiv");
  if (!a && !need) return NULL;
  const sk_view *p = sk_karg_view(args, nargs, "ipiv", 1, err, errlen);
  if (!p) return NULL;
  if (p->dtype != SK_I64 && p->dtype != SK_I32) {
    sk_err(err, errlen, SK_E_IPIV_VIEW_INT32, p->label, sk_dtypes[p->dtype].name);
    return NULL;
  }
  if (p->extent[0] != n) {
    sk_err(err, errlen, SK_E_IPIV_VIEW_ELEMENTS, p->label, (long long)p->extent[0],
           (long long)n);
    return NULL;
  }
  return p;
}

/* factor A (m x n) in place, pivots into P (int64, A's space) and, when
 * given, 'ipiv'; *info as LAPACK */
static int factor(const sk_view *A, const sk_view *P, const sk_view *ipiv, int impl,
                  int64_t *info, char *err, size_t errlen) {
  int64_t m = A->extent[0], n = A->extent[1], kn = m < n ? m : n;
  *info = 0;
  if (kn == 0) return 0;
  if (vendor_ok(impl, A, 2.0 / 3 * (double)n * n * n)) {
    int64_t *h = malloc((size_t)kn * sizeof *h);
    if (!h) {
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    if (sk_vendor_getrf(A->dtype, m, n, A->data, A->stride[0], A->stride[1], h, info) ==
        SK_VENDOR_OK) {
      memcpy(P->data, h, (size_t)kn * sizeof *h);
      if (ipiv)
        for (int64_t k = 0; k < kn; k++)
          sk_view_set_i((sk_view *)ipiv, k * ipiv->stride[0], h[k]);
      free(h);
      return 0;
    }
    free(h);
  }
  sk_view a, iv;
  sk_dense_strided(A, &a);
  if (sk_dense_ivec(&iv, "info", 1, A->space, err, errlen) < 0) return -1;
  sk_arg ka[] = {sk_arg_view("A", &a), sk_arg_view("P", P),
                 sk_arg_view("ipiv", ipiv ? ipiv : P), sk_arg_view("info", &iv)};
  int rc = sk_dense_team(&k_getrf, 1, team_size(), 0, ka, NELEM(ka), err, errlen);
  if (rc == 0) rc = sk_dense_get_i64(&iv, 0, info, err, errlen);
  sk_view_release(&iv);
  return rc;
}

static int solve(const sk_view *A, const sk_view *P, const sk_view *B, int impl,
                 char *err, size_t errlen) {
  int64_t n = A->extent[0];
  if (n == 0 || B->extent[1] == 0) return 0;
  if (vendor_ok(impl, A, 2.0 * (double)n * n * (double)B->extent[1]) &&
      sk_vendor_getrs(A->dtype, n, B->extent[1], A->data, A->stride[0], A->stride[1],
                      P->data, B->data, B->stride[0], B->stride[1]) == SK_VENDOR_OK)
    return 0;
  sk_view a, b;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_arg ka[] = {sk_arg_view("A", &a), sk_arg_view("B", &b), sk_arg_view("P", P)};
  return sk_dense_team(&k_getrs, 1, team_size(), 0, ka, NELEM(ka), err, errlen);
}

static int getrf(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  static const char *const known[] = {"A", "ipiv", "impl", NULL};
  (void)out;
  int dt = -1, impl;
  const sk_view *A, *ipiv;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0)
    return -1;
  int64_t kn = A->extent[0] < A->extent[1] ? A->extent[0] : A->extent[1];
  if (!(ipiv = sk_dense_pivots(args, nargs, kn, 1, err, errlen))) return -1;
  if (ipiv->space != A->space) {
    sk_err(err, errlen, SK_E_IPIV_VIEW_ANOTHER, ipiv->label);
    return -1;
  }
  sk_view P;
  int64_t info;
  if (sk_dense_ivec(&P, "pivots", kn, A->space, err, errlen) < 0) return -1;
  int rc = factor(A, &P, ipiv, impl, &info, err, errlen);
  sk_view_release(&P);
  if (rc == 0 && info) return sk_dense_singular(A, info, err, errlen);
  return rc;
}

static int gesv_like(int factor_too, const sk_arg *args, int nargs, char *err,
                     size_t errlen) {
  static const char *const known[] = {"A", "B", "ipiv", "impl", NULL};
  int dt = -1, impl;
  const sk_view *A, *B, *ipiv = NULL;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      !(B = sk_dense_mat(args, nargs, "B", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 ||
      square("A", A, err, errlen) < 0)
    return -1;
  if (B->extent[0] != A->extent[0]) {
    char sa[48], sb[48];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_B, sk_dense_shape(A, sa, sizeof sa),
           sk_dense_shape(B, sb, sizeof sb));
    return -1;
  }
  int64_t n = A->extent[0];
  ipiv = sk_dense_pivots(args, nargs, n, !factor_too, err, errlen);
  if (!ipiv && (!factor_too || sk_karg_find(args, nargs, "ipiv"))) return -1;
  sk_view P;
  if (sk_dense_ivec(&P, "pivots", n, A->space, err, errlen) < 0) return -1;
  int rc = 0;
  int64_t info = 0;
  if (factor_too) {
    rc = factor(A, &P, ipiv, impl, &info, err, errlen);
    if (rc == 0 && info) rc = sk_dense_singular(A, info, err, errlen);
  } else {
    sk_arg ka[] = {sk_arg_view("P", &P), sk_arg_view("ipiv", ipiv)};
    sk_policy p;
    sk_policy_init(&p, SK_POL_RANGE);
    p.end = n;
    if (n > 0) rc = sk_kbody_launch(&k_pivcp, &p, ka, NELEM(ka), NULL, err, errlen);
  }
  if (rc == 0) rc = solve(A, &P, B, impl, err, errlen);
  sk_view_release(&P);
  return rc;
}

static int getrs(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  (void)out;
  return gesv_like(0, args, nargs, err, errlen);
}

static int gesv(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  return gesv_like(1, args, nargs, err, errlen);
}

/* -- trtri ---------------------------------------------------------------------- */
static int trtri(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  static const char *const known[] = {"uplo", "diag", "A", "impl", NULL};
  (void)out;
  char uplo, diag;
  int dt = -1, impl;
  const sk_view *A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "diag", "NU", 'N', &diag, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 ||
      square("A", A, err, errlen) < 0)
    return -1;
  int64_t n = A->extent[0], info = 0;
  if (n == 0) return 0;
  if (vendor_ok(impl, A, (double)n * n * n / 3) &&
      sk_vendor_trtri(dt, uplo, diag, n, A->data, A->stride[0], A->stride[1], &info) ==
        SK_VENDOR_OK)
    return info ? sk_dense_singular(A, info, err, errlen) : 0;
  sk_view a, iv;
  sk_dense_strided(A, &a);
  if (sk_dense_ivec(&iv, "info", 1, A->space, err, errlen) < 0) return -1;
  sk_arg ka[] = {sk_arg_view("A", &a), sk_arg_view("info", &iv), sk_arg_i64("uplo", uplo),
                 sk_arg_i64("diag", diag)};
  int rc = sk_dense_team(&k_trtri, 1, team_size(), 0, ka, NELEM(ka), err, errlen);
  if (rc == 0) rc = sk_dense_get_i64(&iv, 0, &info, err, errlen);
  sk_view_release(&iv);
  if (rc == 0 && info) return sk_dense_singular(A, info, err, errlen);
  return rc;
}

/* -- entries ---------------------------------------------------------------------- */
static const sk_kentry e_potrf = {"blas.potrf", "uplo, A [, impl]", SK_KRES_NONE, potrf};
static const sk_kentry e_getrf = {"blas.getrf", "A, ipiv [, impl]", SK_KRES_NONE, getrf};
static const sk_kentry e_getrs = {"blas.getrs", "A, ipiv, B [, impl]", SK_KRES_NONE,
                                  getrs};
static const sk_kentry e_gesv = {"blas.gesv", "A, B [, ipiv, impl]", SK_KRES_NONE, gesv};
static const sk_kentry e_trtri = {"blas.trtri", "uplo, diag, A [, impl]", SK_KRES_NONE,
                                  trtri};

const sk_kentry *const sk_lapack_entries[] = {&e_potrf, &e_getrf, &e_getrs,
                                              &e_gesv,  &e_trtri, NULL};
const sk_kbody *const sk_lapack_bodies[] = {&k_potrf, &k_getrf, &k_getrs,
                                            &k_trtri, &k_pivcp, NULL};
