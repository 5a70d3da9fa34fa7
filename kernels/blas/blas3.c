/* blas3.c: BLAS levels 2 and 3 (gemv gemm syrk trsm trmm) on rank-2 views
 * of any layout, float64 and float32, and the helpers every dense driver
 * shares (dense.h).
 *
 * gemm is blocked and packed (the BLIS / GotoBLAS scheme): each team of
 * one thread owns an mc x nc tile of C; for every kc-deep slice of the
 * product it packs op(B) into NR-wide and op(A) into MR-tall panels in
 * its thread scratch and runs an MR x NR register micro-kernel the
 * compiler vectorises (MR = 16: two AVX-512 vectors of doubles). syrk is
 * gemm writing one triangle. trsm is blocked: a triangular solve of each
 * diagonal block (its columns in parallel), then a gemm update of the
 * rows below. impl "vendor" sends host views to OpenBLAS (vendor.c);
 * "auto" does so above the crossover measured in docs/bench.md. Bodies:
 * blas3.sk.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "dense.h"
#include "kbodies.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* -- shared helpers (dense.h) ---------------------------------------------- */
void sk_dense_strided(const sk_view *v, sk_view *out) {
  *out = *v;
  out->layout = SK_STRIDE;
}

const char *sk_dense_shape(const sk_view *v, char *buf, size_t n) {
  if (v->rank == 3)
    snprintf(buf, n, "%lldx%lldx%lld", (long long)v->extent[0], (long long)v->extent[1],
             (long long)v->extent[2]);
  else if (v->rank == 2)
    snprintf(buf, n, "%lldx%lld", (long long)v->extent[0], (long long)v->extent[1]);
  else snprintf(buf, n, "%lld", (long long)v->extent[0]);
  return buf;
}

const sk_backend *sk_dense_backend(char *err, size_t errlen) {
  return sk_rt_backend(err, errlen);
}

int sk_dense_vendor_done(const sk_view *C, char *err, size_t errlen) {
  if (!sk_space_host_accessible(C->space)) return 0;
  const sk_backend *b = sk_backend_for_space(C->space);
  return b && b->fence ? b->fence(err, errlen) : 0;
}

const sk_view *sk_dense_mat(const sk_arg *args, int nargs, const char *name, int batched,
                            int *dtype, char *err, size_t errlen) {
  const sk_view *v = sk_karg_view(args, nargs, name, batched ? 3 : 2, err, errlen);
  if (!v) return NULL;
  if (v->dtype != SK_F64 && v->dtype != SK_F32) {
    sk_err(err, errlen, SK_E_VIEW_FLOAT64_FLOAT32, name, v->label,
           sk_dtypes[v->dtype].name);
    return NULL;
  }
  if (sk_layout_tiled(v->layout) || v->agg) {
    sk_err(err, errlen, SK_E_VIEW_PLAIN_RIGHT, name, v->label,
           v->agg ? "an aggregate view" : "tiled");
    return NULL;
  }
  if (*dtype >= 0 && v->dtype != *dtype) {
    sk_err(err, errlen, SK_E_VIEW_OTHER_MATRICES, name, v->label,
           sk_dtypes[v->dtype].name, sk_dtypes[*dtype].name);
    return NULL;
  }
  const sk_backend *b = sk_dense_backend(err, errlen);
  if (!b) return NULL;
  /* its own space, or another the active back end allocates (a device
   * back end's page-locked or managed memory) */
  if (v->space != b->space && !b->owns(v->space)) {
    sk_err(err, errlen, SK_E_VIEW_ANOTHER_MEMORY, name, v->label, b->name);
    return NULL;
  }
  *dtype = v->dtype;
  return v;
}

int sk_dense_char(const sk_arg *args, int nargs, const char *name, const char *allowed,
                  char dflt, char *c, char *err, size_t errlen) {
  const sk_arg *a = sk_karg_find(args, nargs, name);
  if (!a && dflt) {
    *c = dflt;
    return 0;
  }
  const char *s = a ? a->str : NULL;
  if (!s || strlen(s) != 1 || !strchr(allowed, s[0] & ~0x20)) {
    char list[64] = "";
    for (const char *p = allowed; *p; p++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s\"%c\"", p == allowed ? "" : " | ", *p);
    }
    sk_err(err, errlen, SK_E_MUST, name, list, s ? " (got \"" : "", s ? s : "",
           s ? "\")" : "");
    return -1;
  }
  *c = (char)(s[0] & ~0x20);
  return 0;
}

int sk_dense_impl(const sk_arg *args, int nargs, int *impl, char *err, size_t errlen) {
  const char *s = sk_karg_str(args, nargs, "impl", "auto", err, errlen);
  if (!s) return -1;
  if (strcmp(s, "native") == 0) *impl = SK_IMPL_NATIVE;
  else if (strcmp(s, "vendor") == 0) *impl = SK_IMPL_VENDOR;
  else if (strcmp(s, "auto") == 0) *impl = SK_IMPL_AUTO;
  else {
    sk_err(err, errlen, SK_E_IMPL_MUST_NATIVE, s);
    return -1;
  }
  return 0;
}

int sk_dense_team(const sk_kbody *kb, int64_t league, int team, int64_t scratch,
                  const sk_arg *args, int nargs, char *err, size_t errlen) {
  if (league <= 0) return 0;
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = league;
  if (team > 0) {
    p.team_size = team;
    p.vector_length = 1;
  }
  p.scratch_thread[1] = scratch;
  return sk_kbody_launch(kb, &p, args, nargs, NULL, err, errlen);
}

int sk_dense_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                   char *err, size_t errlen) {
  if (n <= 0) return 0;
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return sk_kbody_launch(kb, &p, args, nargs, NULL, err, errlen);
}

int sk_dense_ivec(sk_view *v, const char *label, int64_t n, int space, char *err,
                  size_t errlen) {
  if (sk_view_create(v, label, SK_I64, 1, &n, SK_RIGHT, space, 1, NULL, err, errlen) < 0)
    return -1;
  return sk_view_fill(v, 0, 0, err, errlen);
}

int sk_dense_get_i64(const sk_view *v, int64_t i, int64_t *x, char *err, size_t errlen) {
  if (v->space == SK_SPACE_HOST) {
    *x = sk_view_get_i(v, i * v->stride[0]);
    return 0;
  }
  sk_view h, s;
  int64_t one = 1;
  int64_t cell = 0;
  if (sk_view_create(&h, "info", SK_I64, 1, &one, SK_RIGHT, SK_SPACE_HOST, 0, &cell, err,
                     errlen) < 0)
    return -1;
  s = *v;
  s.data = (char *)v->data + i * v->stride[0] * 8;
  s.extent[0] = 1;
  int rc = sk_view_deep_copy(&h, &s, err, errlen);
  sk_view_release(&h);
  *x = cell;
  return rc;
}

void sk_dense_block(const sk_view *v, int64_t r0, int64_t c0, int64_t m, int64_t n,
                    sk_view *out) {
  *out = *v;
  out->layout = SK_STRIDE;
  out->data = (char *)v->data +
              (r0 * v->stride[0] + c0 * v->stride[1]) * (int64_t)sk_dtypes[v->dtype].size;
  out->extent[0] = m;
  out->extent[1] = n;
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

/* The vendor library that serves this problem of 'flops': 0 none, 1
 * OpenBLAS (host views; 'auto' above 'cross'), 2 a device back end's
 * (its table's 'blas'; 'auto' always: the native device kernels are the
 * portable fallback) */
static int use_vendor(int impl, const sk_view *v, const sk_view *o1, const sk_view *o2,
                      double flops, double cross) {
  if (impl == SK_IMPL_NATIVE) return 0;
  /* the vendors take plain pointers of one memory: a remote view's
   * elements are reached through its window only */
  const sk_view *all[3] = {v, o1, o2};
  for (int i = 0; i < 3; i++)
    if (all[i] && (sk_space_remote(all[i]->space) ||
                   (all[i]->space == SK_SPACE_HOST) != (v->space == SK_SPACE_HOST)))
      return 0;
  if (v->space != SK_SPACE_HOST) { /* the vendor BLAS of a back end reaching it */
    const sk_backend *vb = sk_backend_blas_for(v->space);
    return vb && vb->blas->available() ? 2 : 0;
  }
  if (!sk_vendor_host_available()) return 0;
  if (impl == SK_IMPL_AUTO && flops < cross) return 0;
  sk_vendor_host_threads(sk_rt_threads());
  return 1;
}

/* -- gemm --------------------------------------------------------------------- */
#define MAT2(VT, n, alias) " " n "=" VT "[2,stride]" alias
/* the precompiled signatures of a body over matrices: float64 and float32,
 * its matrices apart or one allocation ('!': A and B in A*A) */
#define MAT_SIGS(SIG) \
  { \
    SIG("float64", ""), SIG("float32", ""), SIG("float64", "!"), SIG("float32", "!"), \
      NULL \
  }
#define GEMM_SIG(VT, al) \
  "team" MAT2(VT, "A", al) MAT2(VT, "B", al) MAT2( \
    VT, "C", \
    al) " ta=int64 tb=int64 alpha=float64 beta=float64 mc=int64 nc=int64 kc=int64 tri=int64"
static const char *const sig_gemm[] = MAT_SIGS(GEMM_SIG);
/* One mc x nc tile of C per team (of one thread), league rank row-major
 * over the tiles; 'tri' 'L' / 'U': only that triangle of C (syrk). */
static const sk_kbody k_gemm = {
  .label = "blas.gemm", .body = sk_body_blas_gemm, .pattern = SK_FOR, .sigs = sig_gemm};

int sk_dense_gemm(char ta, char tb, double alpha, const sk_view *A, const sk_view *B,
                  double beta, const sk_view *C, char tri, char *err, size_t errlen) {
  int64_t m = C->extent[0], n = C->extent[1];
  if (m == 0 || n == 0) return 0;
  const sk_backend *b = sk_dense_backend(err, errlen);
  if (!b) return -1;
  /* tiles: big ones on the host (cache blocking), enough of them for every
   * thread; on a device (its memory not the host's) small ones (one thread
   * each: the vendor path is the fast one there) */
  int64_t mc = 128, nc = 384, kc = 256;
  int threads = b->concurrency ? b->concurrency() : 1;
  if (!sk_space_host_accessible(b->space)) {
    mc = 16;
    nc = 12;
    kc = 64;
  } else {
    while (mc > 16 && ((m + mc - 1) / mc) * ((n + nc - 1) / nc) < 2 * threads) {
      if (nc > 48) nc /= 2;
      else mc /= 2;
    }
  }
  sk_view a, bb, c;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &bb);
  sk_dense_strided(C, &c);
  sk_arg args[] = {
    sk_arg_view("A", &a),     sk_arg_view("B", &bb), sk_arg_view("C", &c),
    sk_arg_i64("ta", ta),     sk_arg_i64("tb", tb),  sk_arg_f64("alpha", alpha),
    sk_arg_f64("beta", beta), sk_arg_i64("mc", mc),  sk_arg_i64("nc", nc),
    sk_arg_i64("kc", kc),     sk_arg_i64("tri", tri)};
  int64_t es = (int64_t)sk_dtypes[C->dtype].size;
  int64_t scratch = (mc * kc + kc * (nc + 6)) * es + 256;
  int64_t league = ((m + mc - 1) / mc) * ((n + nc - 1) / nc);
  return sk_dense_team(&k_gemm, league, 1, scratch, args, NELEM(args), err, errlen);
}

/* An output 'o' (named 'on') that shares an allocation with input 'i'
 * ('in') is refused, as sparse.spmv refuses y sharing x: the kernels read
 * the inputs while writing the output, so the product would be wrong. */
static int no_alias(const char *in, const sk_view *i, const char *on, const sk_view *o,
                    char *err, size_t errlen) {
  if (!(i->data && i->alloc && i->alloc == o->alloc)) return 0;
  sk_err(err, errlen, SK_E_ARG_VIEW_SHARE_MEMORY, in, i->label, on, o->label);
  return -1;
}

/* "op(A) is 3x4, op(B) 5x6, C 3x6" */
static int gemm_shapes(char ta, char tb, const sk_view *A, const sk_view *B,
                       const sk_view *C, char *err, size_t errlen) {
  int64_t am = ta == 'N' ? A->extent[0] : A->extent[1];
  int64_t ak = ta == 'N' ? A->extent[1] : A->extent[0];
  int64_t bk = tb == 'N' ? B->extent[0] : B->extent[1];
  int64_t bn = tb == 'N' ? B->extent[1] : B->extent[0];
  if (am == C->extent[0] && bn == C->extent[1] && ak == bk) return 0;
  sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_OP, (long long)am, (long long)ak,
         (long long)bk, (long long)bn, (long long)C->extent[0], (long long)C->extent[1]);
  return -1;
}

/* The crossovers of impl = "auto" in flops (docs/bench-library.md, "dense"):
 * measured on this machine (2 cores of a Zen 5 EPYC), OpenBLAS was as fast
 * or faster than the native kernels at every size from n = 16 (where a
 * launch costs more than the product) to n = 4000 (native 0.65x), so auto
 * takes the vendor library for every size when it is there. */
#define GEMM_CROSS 0.0
#define TRI_CROSS  0.0

static int gemm(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"transA", "transB", "alpha", "A", "B",
                                      "beta",   "C",      "impl",  NULL};
  (void)out;
  char ta, tb;
  double alpha, beta;
  int dt = -1, impl;
  const sk_view *A, *B, *C;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', &ta, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transB", "NTC", 'N', &tb, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      !(B = sk_dense_mat(args, nargs, "B", 0, &dt, err, errlen)) ||
      !(C = sk_dense_mat(args, nargs, "C", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 ||
      gemm_shapes(ta, tb, A, B, C, err, errlen) < 0 ||
      no_alias("A", A, "C", C, err, errlen) < 0 ||
      no_alias("B", B, "C", C, err, errlen) < 0)
    return -1;
  int64_t m = C->extent[0], n = C->extent[1], k = ta == 'N' ? A->extent[1] : A->extent[0];
  int v = use_vendor(impl, C, A, B, 2.0 * m * n * k, GEMM_CROSS);
  if (v && (v == 1 ? sk_vendor_gemm : sk_vendor_gpu_gemm)(
             dt, ta, tb, m, n, k, alpha, A->data, A->stride[0], A->stride[1], B->data,
             B->stride[0], B->stride[1], beta, C->data, C->stride[0],
             C->stride[1]) == SK_VENDOR_OK)
    return v == 2 ? sk_dense_vendor_done(C, err, errlen) : 0;
  return sk_dense_gemm(ta, tb, alpha, A, B, beta, C, 0, err, errlen);
}

/* -- syrk ---------------------------------------------------------------------- */
static int syrk(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"uplo", "trans", "alpha", "A",
                                      "beta", "C",     "impl",  NULL};
  (void)out;
  char uplo, tr;
  double alpha, beta;
  int dt = -1, impl;
  const sk_view *A, *C;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "trans", "NTC", 'N', &tr, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      !(C = sk_dense_mat(args, nargs, "C", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 ||
      no_alias("A", A, "C", C, err, errlen) < 0)
    return -1;
  int64_t n = tr == 'N' ? A->extent[0] : A->extent[1];
  int64_t k = tr == 'N' ? A->extent[1] : A->extent[0];
  if (C->extent[0] != C->extent[1] || C->extent[0] != n) {
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_OP_X, (long long)n, (long long)k,
           (long long)C->extent[0], (long long)C->extent[1]);
    return -1;
  }
  int v = use_vendor(impl, C, A, NULL, 1.0 * n * n * k, GEMM_CROSS);
  if (v && (v == 1 ? sk_vendor_syrk : sk_vendor_gpu_syrk)(
             dt, uplo, tr, n, k, alpha, A->data, A->stride[0], A->stride[1], beta,
             C->data, C->stride[0], C->stride[1]) == SK_VENDOR_OK)
    return v == 2 ? sk_dense_vendor_done(C, err, errlen) : 0;
  return sk_dense_gemm(tr, tr == 'N' ? 'T' : 'N', alpha, A, A, beta, C, uplo, err,
                       errlen);
}

/* -- gemv ------------------------------------------------------------------------ */
#define GEMV_SIG(VT) \
  "range" MAT2(VT, "A", "") " x=" VT "[1] y=" VT "[1]" \
                            " ta=int64 alpha=float64 beta=float64"
static const char *const sig_gemv[] = {GEMV_SIG("float64"), GEMV_SIG("float32"), NULL};
/* y(i) = alpha op(A)(i, :) x + beta y(i) */
static const sk_kbody k_gemv = {
  .label = "blas.gemv", .body = sk_body_blas_gemv, .pattern = SK_FOR, .sigs = sig_gemv};

static int gemv(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"trans", "alpha", "A",    "x",
                                      "beta",  "y",     "impl", NULL};
  (void)out;
  char ta;
  double alpha, beta;
  int dt = -1, impl;
  const sk_view *A, *x, *y;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "trans", "NTC", 'N', &ta, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0 ||
      !(A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      !(x = sk_karg_view(args, nargs, "x", 1, err, errlen)) ||
      !(y = sk_karg_view(args, nargs, "y", 1, err, errlen)) ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0 ||
      no_alias("A", A, "y", y, err, errlen) < 0 ||
      no_alias("x", x, "y", y, err, errlen) < 0)
    return -1;
  if (x->dtype != dt || y->dtype != dt) {
    sk_err(err, errlen, SK_E_X_VIEW_Y, x->label, sk_dtypes[x->dtype].name, y->label,
           sk_dtypes[y->dtype].name, sk_dtypes[dt].name);
    return -1;
  }
  int64_t m = ta == 'N' ? A->extent[0] : A->extent[1];
  int64_t k = ta == 'N' ? A->extent[1] : A->extent[0];
  if (x->extent[0] != k || y->extent[0] != m) {
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_OP_X_X, (long long)m, (long long)k,
           (long long)x->extent[0], (long long)y->extent[0]);
    return -1;
  }
  if (use_vendor(impl, A, x, y, 2.0 * m * k, GEMM_CROSS) == 1 &&
      sk_vendor_gemv(dt, ta, A->extent[0], A->extent[1], alpha, A->data, A->stride[0],
                     A->stride[1], x->data, x->stride[0], beta, y->data,
                     y->stride[0]) == SK_VENDOR_OK)
    return 0;
  sk_view a;
  sk_dense_strided(A, &a);
  sk_arg ka[] = {sk_arg_view("A", &a),       sk_arg_view("x", x),
                 sk_arg_view("y", y),        sk_arg_i64("ta", ta),
                 sk_arg_f64("alpha", alpha), sk_arg_f64("beta", beta)};
  return sk_dense_range(&k_gemv, m, ka, NELEM(ka), err, errlen);
}

/* -- trsm, trmm ---------------------------------------------------------------------
 * The unblocked kernel: one independent vector of B per work item (a
 * column for side L, a row for side R), solved or multiplied in place. */
#define TRI_SIG(VT, al) \
  "range" MAT2(VT, "A", al) MAT2( \
    VT, "B", al) " side=int64 uplo=int64 trans=int64 diag=int64 alpha=float64 mm=int64"
static const char *const sig_tri[] = MAT_SIGS(TRI_SIG);
static const sk_kbody k_tri = {
  .label = "blas.trsm", .body = sk_body_blas_trsm, .pattern = SK_FOR, .sigs = sig_tri};

static int tri_kernel(int mm, char side, char uplo, char trans, char diag, double alpha,
                      const sk_view *A, const sk_view *B, char *err, size_t errlen) {
  sk_view a, b;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_arg ka[] = {sk_arg_view("A", &a),       sk_arg_view("B", &b),
                 sk_arg_i64("side", side),   sk_arg_i64("uplo", uplo),
                 sk_arg_i64("trans", trans), sk_arg_i64("diag", diag),
                 sk_arg_f64("alpha", alpha), sk_arg_i64("mm", mm)};
  return sk_dense_range(&k_tri, side == 'L' ? B->extent[1] : B->extent[0], ka, NELEM(ka),
                        err, errlen);
}

#define TRSM_NB 128

/* B = alpha op(A)^-1 B, blocked: reduced to side L, trans N (a transposed
 * view flips uplo; side R is the transposed problem), then per diagonal
 * block a solve and a gemm update of the rows still to solve */
int sk_dense_trsm(char side, char uplo, char trans, char diag, double alpha,
                  const sk_view *A, const sk_view *B, char *err, size_t errlen) {
  sk_view a, b;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  int lower = uplo == 'L';
  if (trans != 'N') {
    transposed(A, &a);
    lower = !lower;
  }
  if (side == 'R') {
    sk_view t = a;
    transposed(&t, &a);
    lower = !lower;
    transposed(B, &b);
  }
  int64_t m = b.extent[0], n = b.extent[1];
  if (m == 0 || n == 0) return 0;
  if (m <= TRSM_NB || alpha == 0)
    return tri_kernel(0, 'L', lower ? 'L' : 'U', 'N', diag, alpha, &a, &b, err, errlen);
  for (int64_t s = 0; s < m; s += TRSM_NB) {
    int64_t nb = m - s < TRSM_NB ? m - s : TRSM_NB;
    int64_t k0 = lower ? s : m - s - nb; /* this diagonal block */
    double sc = s == 0 ? alpha : 1.0;    /* later rows: scaled by the first update */
    sk_view d, x, rest, arest;
    sk_dense_block(&a, k0, k0, nb, nb, &d);
    sk_dense_block(&b, k0, 0, nb, n, &x);
    if (tri_kernel(0, 'L', lower ? 'L' : 'U', 'N', diag, sc, &d, &x, err, errlen) < 0)
      return -1;
    int64_t left = m - s - nb;
    if (left == 0) break;
    if (lower) {
      sk_dense_block(&a, k0 + nb, k0, left, nb, &arest);
      sk_dense_block(&b, k0 + nb, 0, left, n, &rest);
    } else {
      sk_dense_block(&a, 0, k0, left, nb, &arest);
      sk_dense_block(&b, 0, 0, left, n, &rest);
    }
    if (sk_dense_gemm('N', 'N', -1.0, &arest, &x, sc, &rest, 0, err, errlen) < 0)
      return -1;
  }
  return 0;
}

/* the arguments of trsm / trmm: side, uplo, transA, diag, alpha, A, B */
static int tri_args(const sk_arg *args, int nargs, char *side, char *uplo, char *tr,
                    char *diag, double *alpha, const sk_view **A, const sk_view **B,
                    int *impl, char *err, size_t errlen) {
  static const char *const known[] = {"side", "uplo", "transA", "diag", "alpha",
                                      "A",    "B",    "impl",   NULL};
  int dt = -1;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "side", "LR", 0, side, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', tr, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "diag", "NU", 'N', diag, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", alpha, err, errlen) < 0 ||
      !(*A = sk_dense_mat(args, nargs, "A", 0, &dt, err, errlen)) ||
      !(*B = sk_dense_mat(args, nargs, "B", 0, &dt, err, errlen)) ||
      sk_dense_impl(args, nargs, impl, err, errlen) < 0 ||
      no_alias("A", *A, "B", *B, err, errlen) < 0)
    return -1;
  int64_t need = *side == 'L' ? (*B)->extent[0] : (*B)->extent[1];
  if ((*A)->extent[0] != (*A)->extent[1] || (*A)->extent[0] != need) {
    char sa[48], sb[48];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_B_SIDE,
           sk_dense_shape(*A, sa, sizeof sa), sk_dense_shape(*B, sb, sizeof sb), *side,
           *side == 'L' ? "rows" : "columns");
    return -1;
  }
  return 0;
}

/* trsm ('mm' 0) and trmm (1): the vendor's routine where use_vendor picks
 * one (trmm: the host's only), else the native kernels */
static int tri_entry(int mm, const sk_arg *args, int nargs, char *err, size_t errlen) {
  char side, uplo, tr, diag;
  double alpha;
  const sk_view *A, *B;
  int impl;
  if (tri_args(args, nargs, &side, &uplo, &tr, &diag, &alpha, &A, &B, &impl, err,
               errlen) < 0)
    return -1;
  double na = (double)A->extent[0],
         nb = (double)(side == 'L' ? B->extent[1] : B->extent[0]);
  int v = use_vendor(impl, B, A, NULL, na * na * nb, TRI_CROSS);
  if (mm && v == 2) v = 0; /* no device trmm */
  if (v && (mm       ? sk_vendor_trmm
            : v == 1 ? sk_vendor_trsm
                     : sk_vendor_gpu_trsm)(B->dtype, side, uplo, tr, diag, B->extent[0],
                                           B->extent[1], alpha, A->data, A->stride[0],
                                           A->stride[1], B->data, B->stride[0],
                                           B->stride[1]) == SK_VENDOR_OK)
    return v == 2 ? sk_dense_vendor_done(B, err, errlen) : 0;
  if (mm) return tri_kernel(1, side, uplo, tr, diag, alpha, A, B, err, errlen);
  return sk_dense_trsm(side, uplo, tr, diag, alpha, A, B, err, errlen);
}

static int trsm(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  return tri_entry(0, args, nargs, err, errlen);
}

static int trmm(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  (void)out;
  return tri_entry(1, args, nargs, err, errlen);
}

/* -- entries ------------------------------------------------------------------------ */
static const sk_kentry e_gemv = {"blas.gemv", "trans, alpha, A, x, beta, y [, impl]",
                                 SK_KRES_NONE, gemv};
static const sk_kentry e_gemm = {
  "blas.gemm", "transA, transB, alpha, A, B, beta, C [, impl]", SK_KRES_NONE, gemm};
static const sk_kentry e_syrk = {"blas.syrk", "uplo, trans, alpha, A, beta, C [, impl]",
                                 SK_KRES_NONE, syrk};
static const sk_kentry e_trsm = {
  "blas.trsm", "side, uplo, transA, diag, alpha, A, B [, impl]", SK_KRES_NONE, trsm};
static const sk_kentry e_trmm = {
  "blas.trmm", "side, uplo, transA, diag, alpha, A, B [, impl]", SK_KRES_NONE, trmm};

const sk_kentry *const sk_blas3_entries[] = {&e_gemv, &e_gemm, &e_syrk,
                                             &e_trsm, &e_trmm, NULL};
const sk_kbody *const sk_blas3_bodies[] = {&k_gemm, &k_gemv, &k_tri, NULL};
