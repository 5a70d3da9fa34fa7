/* blas.c: cuBLAS, the CUDA back end's vendor BLAS (its table's 'blas':
 * kernels/blas' impl = "vendor" on views in the CUDA spaces), opened with
 * dlopen on first use and run on the space's stream. Matrices are passed
 * as column-major operands (core/blasplan.h), as to the host's BLAS. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/blasplan.h"
#include "core/err.h"
#include "cuda_int.h"

/* kernels/blas/vendor.h's statuses */
enum { VENDOR_OK = 0, VENDOR_MISSING = 1, VENDOR_UNSUPPORTED = 2 };

typedef int (*cb_create)(void **);
typedef int (*cb_stream)(void *, void *);
/* cublasZgemm_v2 / cublasCgemm_v2: complex alpha, beta as {re, im} of the
 * matrices' precision */
typedef int (*cb_zgemm)(void *, int, int, int, int, int, const void *, const void *, int,
                        const void *, int, const void *, void *, int);
typedef int (*cb_dgemm)(void *, int, int, int, int, int, const double *, const void *,
                        int, const void *, int, const double *, void *, int);
typedef int (*cb_sgemm)(void *, int, int, int, int, int, const float *, const void *, int,
                        const void *, int, const float *, void *, int);
typedef int (*cb_dgemmsb)(void *, int, int, int, int, int, const double *, const void *,
                          int, long long, const void *, int, long long, const double *,
                          void *, int, long long, int);
typedef int (*cb_sgemmsb)(void *, int, int, int, int, int, const float *, const void *,
                          int, long long, const void *, int, long long, const float *,
                          void *, int, long long, int);
typedef int (*cb_dtrsm)(void *, int, int, int, int, int, int, const double *,
                        const void *, int, void *, int);
typedef int (*cb_strsm)(void *, int, int, int, int, int, int, const float *, const void *,
                        int, void *, int);
typedef int (*cb_dsyrk)(void *, int, int, int, int, const double *, const void *, int,
                        const double *, void *, int);
typedef int (*cb_ssyrk)(void *, int, int, int, int, const float *, const void *, int,
                        const float *, void *, int);

static struct {
  void *h, *handle;
  cb_create create;
  cb_stream set_stream;
  cb_dgemm dgemm;
  cb_sgemm sgemm;
  cb_dgemmsb dgemmsb;
  cb_sgemmsb sgemmsb;
  cb_dtrsm dtrsm;
  cb_strsm strsm;
  cb_dsyrk dsyrk;
  cb_ssyrk ssyrk;
  cb_zgemm zgemm, cgemm; /* optional: complex gemm goes native without them */
  char status[512];
} cub;
static pthread_once_t cub_once = PTHREAD_ONCE_INIT;

static void cub_load(void) {
  /* SPECK_CUBLAS, else CUDA 13's or 12's on the loader's path, then in
   * $CUDA_HOME/lib64 (or /usr/local/cuda's), which ld.so need not know */
  const char *name = getenv("SPECK_CUBLAS"), *home = getenv("CUDA_HOME");
  char h13[600], h12[600];
  snprintf(h13, sizeof h13, "%.500s/lib64/libcublas.so.13",
           home && *home ? home : "/usr/local/cuda");
  snprintf(h12, sizeof h12, "%.500s/lib64/libcublas.so.12",
           home && *home ? home : "/usr/local/cuda");
  const char *const names[] = {name && *name ? name : "libcublas.so.13",
                               "libcublas.so.12",
                               h13,
                               h12,
                               "libcublas.so",
                               NULL};
  for (int i = 0; names[i] && !cub.h; i++)
    cub.h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!cub.h) {
    const char *e = dlerror();
    sk_err(cub.status, sizeof cub.status, SK_E_CUBLAS_NOT_AVAILABLE,
           e ? e : "libcublas.so.12");
    return;
  }
#define SYM(field, s) *(void **)&cub.field = dlsym(cub.h, s)
  SYM(create, "cublasCreate_v2");
  SYM(set_stream, "cublasSetStream_v2");
  SYM(dgemm, "cublasDgemm_v2");
  SYM(sgemm, "cublasSgemm_v2");
  SYM(dgemmsb, "cublasDgemmStridedBatched");
  SYM(sgemmsb, "cublasSgemmStridedBatched");
  SYM(dtrsm, "cublasDtrsm_v2");
  SYM(strsm, "cublasStrsm_v2");
  SYM(dsyrk, "cublasDsyrk_v2");
  SYM(ssyrk, "cublasSsyrk_v2");
  SYM(zgemm, "cublasZgemm_v2");
  SYM(cgemm, "cublasCgemm_v2");
#undef SYM
  char err[256] = "";
  void *stream = sk_cuda_stream(err, sizeof err);
  int rc = -1;
  if (cub.create && cub.set_stream && cub.dgemm && cub.sgemm && cub.dgemmsb &&
      cub.sgemmsb && cub.dtrsm && cub.strsm && cub.dsyrk && cub.ssyrk && stream &&
      (rc = cub.create(&cub.handle)) == 0 && cub.set_stream(cub.handle, stream) == 0) {
    sk_err(cub.status, sizeof cub.status, SK_E_CUBLAS_CUDA_SPACE);
    return;
  }
  sk_err(cub.status, sizeof cub.status, SK_E_CUBLAS_UNUSABLE_IMPL,
         stream ? sk_err_text(rc ? SK_E_CUBLASCREATE_FAILED : SK_E_MISSING_ENTRIES)
                : err);
  cub.handle = NULL;
}

static int cub_available(void) {
  pthread_once(&cub_once, cub_load);
  return cub.handle != NULL;
}

static const char *cub_status(void) {
  pthread_once(&cub_once, cub_load);
  return cub.status;
}

/* cuBLAS' enums: op N T C = 0 1 2, fill lower upper = 0 1, side left
 * right = 0 1, diag non-unit unit = 0 1 */
static int cub_gemm_batched(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                            double alpha, const void *A, int64_t rsa, int64_t csa,
                            int64_t sa, const void *B, int64_t rsb, int64_t csb,
                            int64_t sb, double beta, void *C, int64_t rsc, int64_t csc,
                            int64_t sc, int64_t batch) {
  if (!cub_available()) return VENDOR_MISSING;
  sk_cm_plan p;
  if (!sk_cm_fits(batch) ||
      sk_cm_gemm_plan(ta, tb, m, n, k, A, rsa, csa, B, rsb, csb, rsc, csc, &p) < 0)
    return VENDOR_UNSUPPORTED;
  if (k == 0) return VENDOR_UNSUPPORTED;
  if (m == 0 || n == 0 || batch == 0) return VENDOR_OK;
  long long sx = p.swap ? sb : sa, sy = p.swap ? sa : sb;
  int rc;
  if (dtype == SK_F64) {
    double al = alpha, be = beta;
    rc = batch == 1 ? cub.dgemm(cub.handle, p.fx, p.fy, p.m, p.n, p.k, &al, p.X, p.ldx,
                                p.Y, p.ldy, &be, C, p.ldc)
                    : cub.dgemmsb(cub.handle, p.fx, p.fy, p.m, p.n, p.k, &al, p.X, p.ldx,
                                  sx, p.Y, p.ldy, sy, &be, C, p.ldc, sc, (int)batch);
  } else {
    float al = (float)alpha, be = (float)beta;
    rc = batch == 1 ? cub.sgemm(cub.handle, p.fx, p.fy, p.m, p.n, p.k, &al, p.X, p.ldx,
                                p.Y, p.ldy, &be, C, p.ldc)
                    : cub.sgemmsb(cub.handle, p.fx, p.fy, p.m, p.n, p.k, &al, p.X, p.ldx,
                                  sx, p.Y, p.ldy, sy, &be, C, p.ldc, sc, (int)batch);
  }
  return rc == 0 ? VENDOR_OK : VENDOR_UNSUPPORTED;
}

/* op(X) of a matrix stored as 'stored_t' (1: the memory holds X's
 * transpose, column-major) as cuBLAS' op of that memory, transposed once
 * more when 'flip': N T C = 0 1 2; -1 when it needs a conjugate without a
 * transpose, which BLAS has not */
static int cub_zop(char op, int stored_t, int flip) {
  int t = op == 'T' || op == 't' || op == 'C' || op == 'c';
  int c = op == 'C' || op == 'c';
  t ^= stored_t ^ flip;
  if (c && !t) return -1;
  return c ? 2 : t;
}

static int cub_zgemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                     const double alpha[2], const void *A, int64_t rsa, int64_t csa,
                     const void *B, int64_t rsb, int64_t csb, const double beta[2], void *C,
                     int64_t rsc, int64_t csc) {
  if (!cub_available() || !cub.zgemm || !cub.cgemm) return VENDOR_MISSING;
  int fa = sk_cm_flag(ta), fb = sk_cm_flag(tb), sa, sb, sc, lda, ldb, ldc;
  if (!sk_cm_fits(k) || sk_cm_as(fa ? k : m, fa ? m : k, rsa, csa, &sa, &lda) < 0 ||
      sk_cm_as(fb ? n : k, fb ? k : n, rsb, csb, &sb, &ldb) < 0 ||
      sk_cm_as(m, n, rsc, csc, &sc, &ldc) < 0)
    return VENDOR_UNSUPPORTED;
  if (k == 0) return VENDOR_UNSUPPORTED;
  if (m == 0 || n == 0) return VENDOR_OK;
  /* C stored transposed: C^T = op(B)^T op(A)^T */
  int oa = cub_zop(ta, sa, sc), ob = cub_zop(tb, sb, sc);
  if (oa < 0 || ob < 0) return VENDOR_UNSUPPORTED;
  const void *X = sc ? B : A, *Y = sc ? A : B;
  int ox = sc ? ob : oa, oy = sc ? oa : ob, ldx = sc ? ldb : lda, ldy = sc ? lda : ldb;
  int mm = (int)(sc ? n : m), nn = (int)(sc ? m : n), rc;
  if (dtype == SK_C128) {
    rc = cub.zgemm(cub.handle, ox, oy, mm, nn, (int)k, alpha, X, ldx, Y, ldy, beta, C, ldc);
  } else {
    const float al[2] = {(float)alpha[0], (float)alpha[1]};
    const float be[2] = {(float)beta[0], (float)beta[1]};
    rc = cub.cgemm(cub.handle, ox, oy, mm, nn, (int)k, al, X, ldx, Y, ldy, be, C, ldc);
  }
  return rc == 0 ? VENDOR_OK : VENDOR_UNSUPPORTED;
}

static int cub_trsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                    int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                    void *B, int64_t rsb, int64_t csb) {
  if (!cub_available()) return VENDOR_MISSING;
  int left = side == 'L' || side == 'l', sa, sb, lda, ldb;
  if (sk_cm_as(left ? m : n, left ? m : n, rsa, csa, &sa, &lda) < 0 ||
      sk_cm_as(m, n, rsb, csb, &sb, &ldb) < 0)
    return VENDOR_UNSUPPORTED;
  if (m == 0 || n == 0) return VENDOR_OK;
  int l2 = left ^ sb, lo = sk_cm_low(uplo) ^ sa, ft = sk_cm_flag(trans) ^ sa ^ sb;
  int bm = (int)(sb ? n : m), bn = (int)(sb ? m : n), d = diag == 'U' || diag == 'u';
  int rc;
  if (dtype == SK_F64) {
    double al = alpha;
    rc = cub.dtrsm(cub.handle, !l2, !lo, ft, d, bm, bn, &al, A, lda, B, ldb);
  } else {
    float al = (float)alpha;
    rc = cub.strsm(cub.handle, !l2, !lo, ft, d, bm, bn, &al, A, lda, B, ldb);
  }
  return rc == 0 ? VENDOR_OK : VENDOR_UNSUPPORTED;
}

static int cub_syrk(int dtype, char uplo, char trans, int64_t n, int64_t k, double alpha,
                    const void *A, int64_t rsa, int64_t csa, double beta, void *C,
                    int64_t rsc, int64_t csc) {
  if (!cub_available()) return VENDOR_MISSING;
  int ft = sk_cm_flag(trans), sa, sc, lda, ldc;
  if (!sk_cm_fits(k) || sk_cm_as(ft ? k : n, ft ? n : k, rsa, csa, &sa, &lda) < 0 ||
      sk_cm_as(n, n, rsc, csc, &sc, &ldc) < 0)
    return VENDOR_UNSUPPORTED;
  if (k == 0) return VENDOR_UNSUPPORTED;
  if (n == 0) return VENDOR_OK;
  int lo = sk_cm_low(uplo) ^ sc, rc;
  ft ^= sa;
  if (dtype == SK_F64) {
    double al = alpha, be = beta;
    rc = cub.dsyrk(cub.handle, !lo, ft, (int)n, (int)k, &al, A, lda, &be, C, ldc);
  } else {
    float al = (float)alpha, be = (float)beta;
    rc = cub.ssyrk(cub.handle, !lo, ft, (int)n, (int)k, &al, A, lda, &be, C, ldc);
  }
  return rc == 0 ? VENDOR_OK : VENDOR_UNSUPPORTED;
}

const sk_vendor_blas sk_cuda_blas = {
  .available = cub_available,
  .status = cub_status,
  .gemm_batched = cub_gemm_batched,
  .trsm = cub_trsm,
  .syrk = cub_syrk,
  .zgemm = cub_zgemm,
};
