/* zbatched.c: batched gemm, trsm, trmm, trtri, lu and gesv on complex views
 * (complex128, complex64). gemm:
 * C_b = alpha op(A_b) op(B_b) + beta C_b for every matrix b of rank-3 views
 * (batch, rows, cols) of any layout, op 'N', 'T' or 'C' (the conjugate
 * transpose), alpha and beta complex. The options are batched.gemm's:
 * mode "serial" (a thread per matrix), "rows" (a thread per row of C),
 * "team" (a team per matrix, a row per member and lane), "teamvector"
 * (rows over the members, columns over their lanes), "auto" choosing as
 * the real gemm does (serial on the host; on a GPU serial up to 9x9, rows
 * up to 16x16, else teamvector); impl and stream are checked as there, and
 * complex views always run these kernels (no vendor batched complex gemm,
 * no streamed stores). Sums accumulate in complex128.
 *
 * trsm: B_b = alpha op(A_b)^-1 B_b (side L) or alpha B_b op(A_b)^-1 (R),
 * transA 'N', 'T' or 'C', reduced to side L as blas.trsm's native path
 * (zlapack.c); mode "serial" (a thread per matrix) or "team" /
 * "teamvector" (a team per matrix, B's columns over its members and
 * lanes), "auto" serial.
 *
 * trmm, trtri, lu (without and with pivoting: LAPACK's |re| + |im|) and
 * gesv run through batched.c's drivers (bmode.h: sk_batched_tri,
 * sk_batched_fac: the real ones' options, checks, info and ipiv views and
 * messages) with the complex kernels below. Bodies: zbatched.sk.
 * SIMD-packed (rank-4) views are real only.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "../blas/dense.h"
#include "bmode.h"
#include "kbodies.h"

#define NELEM(a)  ((int)(sizeof(a) / sizeof((a)[0])))
#define M3(VT, n) " " n "=" VT "[3,stride]"
#define ZSIG(VT, POL, LAST)                                                           \
  POL M3(VT, "A") M3(VT, "B") M3(VT, "C") " ta=int64 tb=int64 alpha=complex128 " \
                                          "beta=complex128" LAST

static const char *const sig_s[] = {ZSIG("complex128", "range", ""),
                                    ZSIG("complex64", "range", ""), NULL};
static const char *const sig_t[] = {ZSIG("complex128", "team", " vec=int64"),
                                    ZSIG("complex64", "team", " vec=int64"), NULL};
static const sk_kbody k_zs = {.label = "batched.zgemm",
                              .body = sk_body_batched_zbgemm_s,
                              .pattern = SK_FOR,
                              .sigs = sig_s};
static const sk_kbody k_zr = {.label = "batched.zgemm_rows",
                              .body = sk_body_batched_zbgemm_r,
                              .pattern = SK_FOR,
                              .sigs = sig_s};
static const sk_kbody k_zt = {.label = "batched.zgemm",
                              .body = sk_body_batched_zbgemm_t,
                              .pattern = SK_FOR,
                              .sigs = sig_t};

#define TSIG(VT, POL)                                                                 \
  POL M3(VT, "A") M3(VT, "B") " lower=int64 unit=int64 cj=int64 tr=int64 sr=int64 " \
                              "alpha=complex128"
static const char *const sig_ts[] = {TSIG("complex128", "range"), TSIG("complex64", "range"),
                                     NULL};
static const char *const sig_tt[] = {TSIG("complex128", "team"), TSIG("complex64", "team"),
                                     NULL};
static const sk_kbody k_zts = {.label = "batched.ztrsm",
                               .body = sk_body_batched_zbtrsm_s,
                               .pattern = SK_FOR,
                               .sigs = sig_ts};
static const sk_kbody k_ztt = {.label = "batched.ztrsm",
                               .body = sk_body_batched_zbtrsm_t,
                               .pattern = SK_FOR,
                               .sigs = sig_tt};

static int zbgemm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  static const char *const known[] = {"transA",  "transB",  "alpha_re", "alpha_im",
                                      "A",       "B",       "beta_re",  "beta_im",
                                      "C",       "mode",    "impl",     "stream",
                                      NULL};
  (void)out;
  char ta, tb;
  double al[2], be[2];
  int dt = -1, mode, impl;
  const sk_view *A, *B, *C;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', &ta, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transB", "NTC", 'N', &tb, err, errlen) < 0 ||
      sk_zscalar(args, nargs, "alpha", al, err, errlen) < 0 ||
      sk_zscalar(args, nargs, "beta", be, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 3, &dt, 1, err, errlen)) ||
      !(B = sk_zview(args, nargs, "B", 3, &dt, 1, err, errlen)) ||
      !(C = sk_zview(args, nargs, "C", 3, &dt, 1, err, errlen)))
    return -1;
  const sk_view *bv[2] = {B, C};
  const char *bn[2] = {"B", "C"};
  for (int q = 0; q < 2; q++)
    if (bv[q]->extent[0] != A->extent[0]) {
      char sa[64], sb[64];
      sk_err(err, errlen, SK_E_BATCH_SIZES_DIFFER, "A", sk_dense_shape(A, sa, sizeof sa),
             bn[q], sk_dense_shape(bv[q], sb, sizeof sb));
      return -1;
    }
  const sk_arg *sa = sk_karg_find(args, nargs, "stream");
  int64_t stream = 0;
  if (sa && (sa->view || sa->str ||
             sk_karg_i64(args, nargs, "stream", 0, 0, &stream, err, errlen) < 0 ||
             stream < 0 || stream > 1)) {
    sk_err(err, errlen, SK_E_STREAM_MUST_TRUE, sa->str ? "\"" : "",
           sa->str    ? sa->str
           : sa->view ? "a view"
                      : "a number",
           sa->str ? "\"" : "");
    return -1;
  }
  int64_t am = ta == 'N' ? A->extent[1] : A->extent[2];
  int64_t ak = ta == 'N' ? A->extent[2] : A->extent[1];
  int64_t bk = tb == 'N' ? B->extent[1] : B->extent[2];
  int64_t bn2 = tb == 'N' ? B->extent[2] : B->extent[1];
  if (am != C->extent[1] || bn2 != C->extent[2] || ak != bk) {
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT, (long long)am, (long long)ak, (long long)bk,
           (long long)bn2, (long long)C->extent[1], (long long)C->extent[2],
           (long long)C->extent[0]);
    return -1;
  }
  for (int q = 0; q < 2; q++) {
    const sk_view *in = q ? B : A;
    if (in->alloc && in->alloc == C->alloc) {
      sk_err(err, errlen, SK_E_ZBLAS_ALIAS, C->label, q ? "B" : "A", in->label);
      return -1;
    }
  }
  if (sk_batched_mode(args, nargs, C->extent[1], C->extent[2], &mode, 1, err, errlen) < 0 ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0)
    return -1;
  int64_t nb = C->extent[0], m = C->extent[1];
  if (nb == 0 || m == 0 || C->extent[2] == 0) return 0;
  sk_view a, b, c;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_dense_strided(C, &c);
  sk_arg ka[] = {sk_arg_view("A", &a),         sk_arg_view("B", &b),
                 sk_arg_view("C", &c),         sk_arg_i64("ta", ta),
                 sk_arg_i64("tb", tb),         sk_zarg("alpha", al[0], al[1]),
                 sk_zarg("beta", be[0], be[1]), sk_arg_i64("vec", mode == SK_BMODE_TEAMVECTOR)};
  if (mode == SK_BMODE_SERIAL) return sk_dense_range(&k_zs, nb, ka, NELEM(ka) - 1, err, errlen);
  if (mode == SK_BMODE_ROWS) return sk_dense_range(&k_zr, nb * m, ka, NELEM(ka) - 1, err, errlen);
  return sk_dense_team(&k_zt, nb, 0, 0, ka, NELEM(ka), err, errlen);
}

static int zbtrsm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  static const char *const known[] = {"side", "uplo", "transA", "diag", "alpha_re",
                                      "alpha_im", "A", "B", "mode", NULL};
  (void)out;
  char side, uplo, trans, diag;
  double al[2];
  int dt = -1, mode;
  const sk_view *A, *B;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "side", "LR", 0, &side, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', &trans, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "diag", "NU", 'N', &diag, err, errlen) < 0 ||
      sk_zscalar(args, nargs, "alpha", al, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 3, &dt, 1, err, errlen)) ||
      !(B = sk_zview(args, nargs, "B", 3, &dt, 1, err, errlen)))
    return -1;
  if (B->extent[0] != A->extent[0]) {
    char sa[64], sb[64];
    sk_err(err, errlen, SK_E_BATCH_SIZES_DIFFER, "A", sk_dense_shape(A, sa, sizeof sa), "B",
           sk_dense_shape(B, sb, sizeof sb));
    return -1;
  }
  int64_t need = side == 'L' ? B->extent[1] : B->extent[2];
  if (A->extent[1] != A->extent[2] || A->extent[1] != need) {
    char sa[64], sb[64];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH, sk_dense_shape(A, sa, sizeof sa),
           sk_dense_shape(B, sb, sizeof sb), side, side == 'L' ? "rows" : "columns");
    return -1;
  }
  if (A->alloc && A->alloc == B->alloc) {
    sk_err(err, errlen, SK_E_ARG_VIEW_SHARE_MEMORY, "A", A->label, "B", B->label);
    return -1;
  }
  if (sk_batched_mode(args, nargs, B->extent[1], B->extent[2], &mode, 0, err, errlen) < 0)
    return -1;
  /* side L: M = op(A); side R: M = op(A)^T, B read transposed; the
   * transposes are index swaps (tr), 'C' a conjugate (cj) */
  int lower = uplo == 'L', tr = trans != 'N', sr = side == 'R';
  if (sr) tr = !tr;
  if (tr) lower = !lower;
  int64_t nb = B->extent[0];
  if (nb == 0 || B->extent[1] == 0 || B->extent[2] == 0) return 0;
  sk_view a, b;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_arg ka[] = {sk_arg_view("A", &a),         sk_arg_view("B", &b),
                 sk_arg_i64("lower", lower),   sk_arg_i64("unit", diag == 'U'),
                 sk_arg_i64("cj", trans == 'C'), sk_arg_i64("tr", tr),
                 sk_arg_i64("sr", sr),         sk_zarg("alpha", al[0], al[1])};
  if (mode == SK_BMODE_SERIAL) return sk_dense_range(&k_zts, nb, ka, NELEM(ka), err, errlen);
  return sk_dense_team(&k_ztt, nb, 0, 0, ka, NELEM(ka), err, errlen);
}

/* trmm (and trsm: the driver's mm) and the factorisations through
 * batched.c's drivers (bmode.h), with its TRI and FAC captures */
#define ZTRI(VT, pol)                                                              \
  pol M3(VT, "A") M3(VT, "B") " side=int64 uplo=int64 trans=int64 diag=int64 " \
                              "alpha=complex128 mm=int64 vec=int64"
static const char *const sig_tri_s[] = {ZTRI("complex128", "range"),
                                        ZTRI("complex64", "range"), NULL};
static const char *const sig_tri_t[] = {ZTRI("complex128", "team"), ZTRI("complex64", "team"),
                                        NULL};
static const sk_kbody k_ztri_s = {.label = "batched.ztrmm",
                                  .body = sk_body_batched_zbtri_s,
                                  .pattern = SK_FOR,
                                  .sigs = sig_tri_s};
static const sk_kbody k_ztri_t = {.label = "batched.ztrmm",
                                  .body = sk_body_batched_zbtri_t,
                                  .pattern = SK_FOR,
                                  .sigs = sig_tri_t};
#define ZFAC(VT, pol) \
  pol M3(VT, "A") M3(VT, "B") " P=int64[2] info=int64[1] op=int64 uplo=int64 diag=int64 vec=int64"
static const char *const sig_fac_s[] = {ZFAC("complex128", "range"),
                                        ZFAC("complex64", "range"), NULL};
static const char *const sig_fac_t[] = {ZFAC("complex128", "team"), ZFAC("complex64", "team"),
                                        NULL};
static const sk_kbody k_zfac_s = {.label = "batched.zlu",
                                  .body = sk_body_batched_zbfac_s,
                                  .pattern = SK_FOR,
                                  .sigs = sig_fac_s};
static const sk_kbody k_zfac_t = {.label = "batched.zlu",
                                  .body = sk_body_batched_zbfac_t,
                                  .pattern = SK_FOR,
                                  .sigs = sig_fac_t};

static int zbtrmm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  (void)out;
  return sk_batched_tri(1, 1, &k_ztri_s, &k_ztri_t, args, nargs, err, errlen);
}
static int zbtrtri(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  return sk_batched_fac(0, 1, &k_zfac_s, &k_zfac_t, args, nargs, out, err, errlen);
}
static int zblu(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  return sk_batched_fac(1, 1, &k_zfac_s, &k_zfac_t, args, nargs, out, err, errlen);
}
static int zbgesv(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  return sk_batched_fac(3, 1, &k_zfac_s, &k_zfac_t, args, nargs, out, err, errlen);
}

static const sk_kentry e_zbtrmm = {
  "batched.ztrmm", "side, uplo, transA, diag, alpha_re [, alpha_im], A, B [, mode]",
  SK_KRES_NONE, zbtrmm};
static const sk_kentry e_zbtrtri = {"batched.ztrtri", "uplo, diag, A [, info, check, mode]",
                                    SK_KRES_I64, zbtrtri};
static const sk_kentry e_zblu = {"batched.zlu", "A [, pivot, ipiv, info, check, mode]",
                                 SK_KRES_I64, zblu};
static const sk_kentry e_zbgesv = {"batched.zgesv", "A, B [, ipiv, info, check, mode]",
                                   SK_KRES_I64, zbgesv};
static const sk_kentry e_zbtrsm = {
  "batched.ztrsm", "side, uplo, transA, diag, alpha_re [, alpha_im], A, B [, mode]",
  SK_KRES_NONE, zbtrsm};
static const sk_kentry e_zbgemm = {"batched.zgemm",
                                   "transA, transB, alpha_re [, alpha_im], A, B, beta_re [, "
                                   "beta_im], C [, mode, impl, stream]",
                                   SK_KRES_NONE, zbgemm};

const sk_kentry *const sk_zbatched_entries[] = {&e_zbgemm, &e_zbtrsm, &e_zbtrmm, &e_zbtrtri,
                                                &e_zblu,   &e_zbgesv, NULL};
const sk_kbody *const sk_zbatched_bodies[] = {&k_zs,     &k_zr,     &k_zt,     &k_zts, &k_ztt,
                                              &k_ztri_s, &k_ztri_t, &k_zfac_s, &k_zfac_t, NULL};
