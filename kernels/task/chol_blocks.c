/* chol_blocks.c: the dense block operations of the sparse Cholesky
 * (chol.c) behind one small interface: the dense library's vendor layer
 * (kernels/blas/vendor.h: OpenBLAS, opened once for all of speck) on
 * column-major blocks, its threading set by the factorisation (one thread
 * a block: the parallelism is the task DAG's). Also SuiteSparse's AMD
 * ordering (libamd.so), opened with dlopen at first use.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/view.h"
#include "../blas/vendor.h"
#include "chol.h"

typedef int (*amd_t)(int, const int *, const int *, int *, double *, double *);

static struct {
  amd_t amd;
  char why[512];
  int ok;
} B;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  static const char *const amd[] = {"libamd.so.3", "libamd.so.2", "libamd.so", NULL};
  if (!sk_vendor_host_available()) {
    snprintf(B.why, sizeof B.why, "%s", sk_vendor_host_status());
    return;
  }
  for (int k = 0; amd[k] && !B.amd; k++) {
    void *h = dlopen(amd[k], RTLD_NOW | RTLD_LOCAL);
    if (h) B.amd = (amd_t)dlsym(h, "amd_order");
  }
  if (!B.amd) {
    sk_err(B.why, sizeof B.why, SK_E_SUITESPARSE_AMD_NOT);
    return;
  }
  B.ok = 1;
}

int sk_cb_available(char *err, size_t errlen) {
  pthread_once(&once, load);
  if (!B.ok) sk_err(err, errlen, SK_E_MSG, B.why);
  return B.ok ? 0 : -1;
}

int sk_cb_amd(int n, const int *ap, const int *ai, int *perm) {
  return B.amd(n, ap, ai, perm, NULL, NULL) >= 0 ? 0 : -1;
}

int sk_cb_potrf(int k, double *a, int lda, int *nonfinite) {
  int64_t info = 0;
  *nonfinite = 0;
  if (k > 0) sk_vendor_potrf(SK_F64, 'L', k, a, 1, lda, &info);
  /* the vendor's potrf takes a NaN pivot (NaN <= 0 is false) and an Inf
   * one: the diagonal of the factor says (k reads beside k^3 / 3 flops) */
  for (int j = 0; j < (info ? (int)info : k); j++) {
    double d = a[(size_t)j * (size_t)lda + (size_t)j];
    if (!isfinite(d)) {
      *nonfinite = isnan(d) ? 1 : 2;
      return j + 1;
    }
  }
  return (int)info;
}

void sk_cb_trsm(int m, int k, const double *l, int ldl, double *b, int ldb) {
  if (m > 0 && k > 0)
    sk_vendor_trsm(SK_F64, 'R', 'L', 'T', 'N', m, k, 1.0, l, 1, ldl, b, 1, ldb);
}

void sk_cb_syrk(int m, int k, const double *a, int lda, double *c, int ldc) {
  if (m > 0 && k > 0)
    sk_vendor_syrk(SK_F64, 'L', 'N', m, k, -1.0, a, 1, lda, 1.0, c, 1, ldc);
}

void sk_cb_syrk0(int n, int k, const double *a, int lda, double *c, int ldc) {
  if (n > 0 && k > 0)
    sk_vendor_syrk(SK_F64, 'L', 'N', n, k, 1.0, a, 1, lda, 0.0, c, 1, ldc);
}

void sk_cb_gemm_nt(int m, int n, int k, const double *a, int lda, const double *b,
                   int ldb, double *c, int ldc) {
  if (m > 0 && n > 0 && k > 0)
    sk_vendor_gemm(SK_F64, 'N', 'T', m, n, k, 1.0, a, 1, lda, b, 1, ldb, 0.0, c, 1, ldc);
}

void sk_cb_gemv(int trans, int m, int n, const double *a, int lda, const double *x,
                double *y) {
  if (m > 0 && n > 0)
    sk_vendor_gemv(SK_F64, trans ? 'T' : 'N', m, n, -1.0, a, 1, lda, x, 1, 1.0, y, 1);
}

/* x = L^-1 x or L^-T x: a triangular solve with one right-hand side */
void sk_cb_trsv(int trans, int k, const double *l, int ldl, double *x) {
  if (k > 0)
    sk_vendor_trsm(SK_F64, 'L', 'L', trans ? 'T' : 'N', 'N', k, 1, 1.0, l, 1, ldl, x, 1,
                   k);
}

void sk_cb_threads(int n) { sk_vendor_host_threads(n < 1 ? 1 : n); }
