/* zblas.c: BLAS on complex views (complex128, complex64): dot (dotu) and
 * dotc, nrm2, scal, axpy, gemv and gemm with 'N', 'T' and 'C' (the
 * conjugate transpose). Each body is written once in the dialect
 * (zblas.sk) and JIT-compiled on first use: by the cc tier on the host
 * (C99 _Complex) and by the device compiler on a GPU. Scalars (alpha,
 * beta, a) are complex128 captures. Sums accumulate in complex128. The
 * real drivers (blas1.c, blas3.c) refuse complex views; stdlib's
 * speck.blas routes complex views here.
 *
 * gemm of host views takes OpenBLAS's zgemm / cgemm when impl is "vendor",
 * or "auto" (the default) above ZGEMM_CROSS flops, for views all
 * row-major or all column-major; gemm of device views takes the back
 * end's vendor BLAS (its table's zgemm) unless impl is "native". Not here (yet): a
 * blocked native gemm, nrm2's rescaling of overflowing squares.
 */
#include <math.h>
#include <string.h>

#include "core/err.h"
#include "../kernels.h"
#include "dense.h"
#include "kbodies.h"
#include "vendor.h"

/* -- bodies ------------------------------------------------------------------ */
/* precompiled (gcc, at build time) for contiguous views of both dtypes;
 * other layouts are JIT-compiled from the same text */
#define SIG2(F, T) {F("complex128"), F("complex64"), NULL}
#define DOT_SIG(VT) "range x=" VT "[1] y=" VT "[1] cj=int64"
#define NRM2_SIG(VT) "range x=" VT "[1]"
#define SCAL_SIG(VT) "range x=" VT "[1] a=complex128"
#define AXPY_SIG(VT) "range x=" VT "[1] y=" VT "[1] a=complex128"
#define GEMV_SIG(VT) \
  "range A=" VT "[2] x=" VT "[1] y=" VT "[1] t=int64 alpha=complex128 beta=complex128"
#define GEMM_SIG(VT)                                                          \
  "mdrange2 A=" VT "[2] B=" VT "[2] C=" VT "[2] ta=int64 tb=int64 alpha=complex128 " \
  "beta=complex128"
static const char *const sig_dot[] = SIG2(DOT_SIG, 0);
static const char *const sig_nrm2[] = SIG2(NRM2_SIG, 0);
static const char *const sig_scal[] = SIG2(SCAL_SIG, 0);
static const char *const sig_axpy[] = SIG2(AXPY_SIG, 0);
static const char *const sig_gemv[] = SIG2(GEMV_SIG, 0);
static const char *const sig_gemm[] = SIG2(GEMM_SIG, 0);
static const sk_kbody k_zdot = {.label = "blas.zdot",
                                .body = sk_body_blas_zdot,
                                .pattern = SK_REDUCE,
                                .reds = "sum:complex128",
                                .sigs = sig_dot};
static const sk_kbody k_znrm2 = {.label = "blas.znrm2",
                                 .body = sk_body_blas_znrm2,
                                 .pattern = SK_REDUCE,
                                 .red_op = SK_RED_SUM,
                                 .sigs = sig_nrm2};
static const sk_kbody k_zscal = {
  .label = "blas.zscal", .body = sk_body_blas_zscal, .pattern = SK_FOR, .sigs = sig_scal};
static const sk_kbody k_zaxpy = {
  .label = "blas.zaxpy", .body = sk_body_blas_zaxpy, .pattern = SK_FOR, .sigs = sig_axpy};
static const sk_kbody k_zgemv = {
  .label = "blas.zgemv", .body = sk_body_blas_zgemv, .pattern = SK_FOR, .sigs = sig_gemv};
static const sk_kbody k_zgemm = {
  .label = "blas.zgemm", .body = sk_body_blas_zgemm, .pattern = SK_FOR, .sigs = sig_gemm};

const sk_kbody *const sk_zblas_bodies[] = {&k_zdot,  &k_znrm2, &k_zscal,
                                           &k_zaxpy, &k_zgemv, &k_zgemm, NULL};

/* -- arguments (dense.h: shared with zlapack.c and zbatched.c) ------------------ */
sk_arg sk_zarg(const char *name, double re, double im) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.dtype = SK_C128;
  a.value.c128[0] = re;
  a.value.c128[1] = im;
  return a;
}

const sk_view *sk_zview(const sk_arg *args, int nargs, const char *name, int rank, int *dt,
                        int reach, char *err, size_t errlen) {
  const sk_view *v = sk_karg_view(args, nargs, name, rank, err, errlen);
  if (!v) return NULL;
  if (!sk_dtypes[v->dtype].is_complex || v->agg || sk_layout_tiled(v->layout)) {
    sk_err(err, errlen, SK_E_ZBLAS_DTYPE, name, v->label, sk_dtypes[v->dtype].name);
    return NULL;
  }
  if (*dt >= 0 && v->dtype != *dt) {
    sk_err(err, errlen, SK_E_ZBLAS_MIXED, name, v->label, sk_dtypes[v->dtype].name,
           sk_dtypes[*dt].name);
    return NULL;
  }
  if (reach) {
    const sk_backend *b = sk_dense_backend(err, errlen);
    if (!b) return NULL;
    if (v->space != b->space && !b->owns(v->space)) {
      sk_err(err, errlen, SK_E_VIEW_ANOTHER_MEMORY, name, v->label, b->name);
      return NULL;
    }
  }
  *dt = v->dtype;
  return v;
}

int sk_zscalar(const sk_arg *args, int nargs, const char *name, double z[2], char *err,
               size_t errlen) {
  char nr[32], ni[32];
  snprintf(nr, sizeof nr, "%s_re", name);
  snprintf(ni, sizeof ni, "%s_im", name);
  z[1] = 0;
  if (sk_karg_f64(args, nargs, nr, &z[0], err, errlen) < 0) return -1;
  if (sk_karg_find(args, nargs, ni) && sk_karg_f64(args, nargs, ni, &z[1], err, errlen) < 0)
    return -1;
  return 0;
}

static int zscalar(const sk_arg *args, int nargs, const char *name, double *re, double *im,
                   char *err, size_t errlen) {
  double z[2];
  if (sk_zscalar(args, nargs, name, z, err, errlen) < 0) return -1;
  *re = z[0];
  *im = z[1];
  return 0;
}

static int trans_of(const sk_arg *args, int nargs, const char *name, char *t, char *err,
                    size_t errlen) {
  const char *s = sk_karg_str(args, nargs, name, "N", err, errlen);
  if (!s) return -1;
  if ((s[0] != 'N' && s[0] != 'T' && s[0] != 'C') || s[1]) {
    sk_err(err, errlen, SK_E_ZBLAS_TRANS, name, s);
    return -1;
  }
  *t = s[0];
  return 0;
}

static int same_len(const sk_view *x, int64_t n, const char *what, char *err,
                    size_t errlen) {
  if (x->extent[0] == n) return 0;
  sk_err(err, errlen, SK_E_ZBLAS_SHAPE, what, x->label, (long long)x->extent[0],
         (long long)n);
  return -1;
}

static sk_policy range(int64_t n) {
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return p;
}

/* -- level 1 ------------------------------------------------------------------- */
static int zdot(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"x", "y", "conj", NULL};
  int dt = -1;
  int64_t cj = 0;
  const sk_view *x, *y;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(x = sk_zview(args, nargs, "x", 1, &dt, 0, err, errlen)) ||
      !(y = sk_zview(args, nargs, "y", 1, &dt, 0, err, errlen)) ||
      same_len(y, x->extent[0], "y", err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "conj", 1, 0, &cj, err, errlen) < 0)
    return -1;
  sk_policy p = range(x->extent[0]);
  sk_arg a[] = {sk_arg_view("x", x), sk_arg_view("y", y), sk_arg_i64("cj", cj != 0)};
  sk_result r;
  if (sk_kbody_launch(&k_zdot, &p, a, 3, &r, err, errlen) < 0) return -1;
  double v[2];
  memcpy(v, sk_result_ptr(&r, 0), sizeof v);
  if (sk_kout_num(out, "re", v[0], err, errlen) < 0 ||
      sk_kout_num(out, "im", v[1], err, errlen) < 0)
    return -1;
  return 0;
}

static int znrm2(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"x", NULL};
  int dt = -1;
  const sk_view *x;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(x = sk_zview(args, nargs, "x", 1, &dt, 0, err, errlen)))
    return -1;
  out->f64 = 0;
  if (x->extent[0] == 0) return 0;
  sk_policy p = range(x->extent[0]);
  sk_arg a[] = {sk_arg_view("x", x)};
  sk_result r;
  if (sk_kbody_launch(&k_znrm2, &p, a, 1, &r, err, errlen) < 0) return -1;
  out->f64 = sqrt(sk_result_f64(&r, 0));
  return 0;
}

static int zscal(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"a_re", "a_im", "x", NULL};
  (void)out;
  int dt = -1;
  double re, im;
  const sk_view *x;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(x = sk_zview(args, nargs, "x", 1, &dt, 0, err, errlen)) ||
      zscalar(args, nargs, "a", &re, &im, err, errlen) < 0)
    return -1;
  sk_policy p = range(x->extent[0]);
  sk_arg a[] = {sk_arg_view("x", x), sk_zarg("a", re, im)};
  return sk_kbody_launch(&k_zscal, &p, a, 2, NULL, err, errlen);
}

static int zaxpy(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"a_re", "a_im", "x", "y", NULL};
  (void)out;
  int dt = -1;
  double re, im;
  const sk_view *x, *y;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(x = sk_zview(args, nargs, "x", 1, &dt, 0, err, errlen)) ||
      !(y = sk_zview(args, nargs, "y", 1, &dt, 0, err, errlen)) ||
      same_len(y, x->extent[0], "y", err, errlen) < 0 ||
      zscalar(args, nargs, "a", &re, &im, err, errlen) < 0)
    return -1;
  if (re == 0 && im == 0) return 0; /* y unchanged, x not read (BLAS) */
  sk_policy p = range(x->extent[0]);
  sk_arg a[] = {sk_arg_view("x", x), sk_arg_view("y", y), sk_zarg("a", re, im)};
  return sk_kbody_launch(&k_zaxpy, &p, a, 3, NULL, err, errlen);
}

/* -- levels 2 and 3 ------------------------------------------------------------ */
static int zgemv(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"trans", "alpha_re", "alpha_im", "A",   "x",
                                      "beta_re", "beta_im", "y",       NULL};
  (void)out;
  int dt = -1;
  char t;
  double ar, ai, br, bi;
  const sk_view *A, *x, *y;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      trans_of(args, nargs, "trans", &t, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 2, &dt, 0, err, errlen)) ||
      !(x = sk_zview(args, nargs, "x", 1, &dt, 0, err, errlen)) ||
      !(y = sk_zview(args, nargs, "y", 1, &dt, 0, err, errlen)) ||
      zscalar(args, nargs, "alpha", &ar, &ai, err, errlen) < 0 ||
      zscalar(args, nargs, "beta", &br, &bi, err, errlen) < 0)
    return -1;
  int64_t m = t == 'N' ? A->extent[0] : A->extent[1];
  int64_t k = t == 'N' ? A->extent[1] : A->extent[0];
  if (same_len(x, k, "x", err, errlen) < 0 || same_len(y, m, "y", err, errlen) < 0)
    return -1;
  sk_policy p = range(m);
  sk_arg a[] = {sk_arg_view("A", A),       sk_arg_view("x", x),         sk_arg_view("y", y),
                sk_arg_i64("t", t),        sk_zarg("alpha", ar, ai),      sk_zarg("beta", br, bi)};
  return sk_kbody_launch(&k_zgemv, &p, a, 6, NULL, err, errlen);
}

/* below this many flops (8 m n k) "auto" keeps the native kernel */
#define ZGEMM_CROSS 2e5

static int zgemm(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"transA", "transB",  "alpha_re", "alpha_im", "A", "B",
                                      "beta_re", "beta_im", "C",        "impl",     NULL};
  (void)out;
  int dt = -1;
  char ta, tb;
  double ar, ai, br, bi;
  const sk_view *A, *B, *C;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      trans_of(args, nargs, "transA", &ta, err, errlen) < 0 ||
      trans_of(args, nargs, "transB", &tb, err, errlen) < 0 ||
      !(A = sk_zview(args, nargs, "A", 2, &dt, 0, err, errlen)) ||
      !(B = sk_zview(args, nargs, "B", 2, &dt, 0, err, errlen)) ||
      !(C = sk_zview(args, nargs, "C", 2, &dt, 0, err, errlen)) ||
      zscalar(args, nargs, "alpha", &ar, &ai, err, errlen) < 0 ||
      zscalar(args, nargs, "beta", &br, &bi, err, errlen) < 0)
    return -1;
  int64_t m = ta == 'N' ? A->extent[0] : A->extent[1];
  int64_t k = ta == 'N' ? A->extent[1] : A->extent[0];
  int64_t kb = tb == 'N' ? B->extent[0] : B->extent[1];
  int64_t n = tb == 'N' ? B->extent[1] : B->extent[0];
  if (kb != k || C->extent[0] != m || C->extent[1] != n) {
    sk_err(err, errlen, SK_E_ZBLAS_GEMM_SHAPE, (long long)m, (long long)k, (long long)kb,
           (long long)n, C->label, (long long)C->extent[0], (long long)C->extent[1]);
    return -1;
  }
  if (m == 0 || n == 0) return 0;
  const sk_view *in[2] = {A, B};
  for (int q = 0; q < 2; q++)
    if (in[q]->alloc && in[q]->alloc == C->alloc) {
      sk_err(err, errlen, SK_E_ZBLAS_ALIAS, C->label, q ? "B" : "A", in[q]->label);
      return -1;
    }
  int impl;
  if (sk_dense_impl(args, nargs, &impl, err, errlen) < 0) return -1;
  const double al[2] = {ar, ai}, be[2] = {br, bi};
  if (impl != SK_IMPL_NATIVE && A->space == SK_SPACE_HOST && B->space == SK_SPACE_HOST &&
      C->space == SK_SPACE_HOST && sk_vendor_host_available() &&
      (impl == SK_IMPL_VENDOR || 8.0 * (double)m * (double)n * (double)k >= ZGEMM_CROSS)) {
    sk_vendor_host_threads(sk_rt_threads());
    if (sk_vendor_zgemm(dt, ta, tb, m, n, k, al, A->data, A->stride[0], A->stride[1],
                        B->data, B->stride[0], B->stride[1], be, C->data, C->stride[0],
                        C->stride[1]) == SK_VENDOR_OK)
      return 0;
  }
  /* device views of one space: the vendor BLAS of a back end reaching it,
   * whatever the size (as the real gemm) */
  if (impl != SK_IMPL_NATIVE && C->space != SK_SPACE_HOST && !sk_space_remote(C->space) &&
      A->space == C->space && B->space == C->space) {
    const sk_backend *vb = sk_backend_blas_for(C->space);
    if (vb && vb->blas->zgemm && vb->blas->available() &&
        vb->blas->zgemm(dt, ta, tb, m, n, k, al, A->data, A->stride[0], A->stride[1],
                        B->data, B->stride[0], B->stride[1], be, C->data, C->stride[0],
                        C->stride[1]) == SK_VENDOR_OK)
      return 0;
  }
  sk_policy p;
  sk_policy_init(&p, SK_POL_MDRANGE);
  p.md_rank = 2;
  p.md_hi[0] = m;
  p.md_hi[1] = n;
  sk_arg a[] = {sk_arg_view("A", A), sk_arg_view("B", B), sk_arg_view("C", C),
                sk_arg_i64("ta", ta), sk_arg_i64("tb", tb), sk_zarg("alpha", ar, ai),
                sk_zarg("beta", br, bi)};
  return sk_kbody_launch(&k_zgemm, &p, a, 7, NULL, err, errlen);
}

/* -- entries ------------------------------------------------------------------ */
static const sk_kentry e_zdot = {"blas.zdot", "x, y [, conj]", SK_KRES_NONE, zdot};
static const sk_kentry e_znrm2 = {"blas.znrm2", "x", SK_KRES_F64, znrm2};
static const sk_kentry e_zscal = {"blas.zscal", "a_re [, a_im], x", SK_KRES_NONE, zscal};
static const sk_kentry e_zaxpy = {"blas.zaxpy", "a_re [, a_im], x, y", SK_KRES_NONE, zaxpy};
static const sk_kentry e_zgemv = {
  "blas.zgemv", "trans, alpha_re [, alpha_im], A, x, beta_re [, beta_im], y", SK_KRES_NONE,
  zgemv};
static const sk_kentry e_zgemm = {"blas.zgemm",
                                  "transA, transB, alpha_re [, alpha_im], A, B, beta_re [, "
                                  "beta_im], C",
                                  SK_KRES_NONE, zgemm};

const sk_kentry *const sk_zblas_entries[] = {&e_zdot,  &e_znrm2, &e_zscal,
                                             &e_zaxpy, &e_zgemv, &e_zgemm, NULL};
