/* chol_blocks.c: the dense block operations of the sparse Cholesky
 * (chol.c) behind one small interface, so they can be re-routed later (to
 * the library's dense/batched kernels): for now LAPACK/BLAS from OpenBLAS,
 * opened with dlopen at first use (libopenblas.so.0: dpotrf_, dtrsm_,
 * dsyrk_, dgemv_, dtrsv_), its own threading set to one thread (the
 * parallelism is the task DAG's). Also SuiteSparse's AMD ordering
 * (libamd.so), opened the same way.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "chol.h"

typedef void (*potrf_t)(const char *, const int *, double *, const int *, int *);
typedef void (*trsm_t)(const char *, const char *, const char *, const char *,
                       const int *, const int *, const double *, const double *,
                       const int *, double *, const int *);
typedef void (*syrk_t)(const char *, const char *, const int *, const int *,
                       const double *, const double *, const int *,
                       const double *, double *, const int *);
typedef void (*gemv_t)(const char *, const int *, const int *, const double *,
                       const double *, const int *, const double *, const int *,
                       const double *, double *, const int *);
typedef void (*trsv_t)(const char *, const char *, const char *, const int *,
                       const double *, const int *, double *, const int *);
typedef int (*amd_t)(int, const int *, const int *, int *, double *, double *);

static struct {
  potrf_t potrf;
  trsm_t trsm;
  syrk_t syrk;
  gemv_t gemv;
  trsv_t trsv;
  amd_t amd;
  void (*threads)(int);
  char why[256];
  int ok;
} B;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *open_first(const char *const *names) {
  for (int k = 0; names[k]; k++) {
    void *h = dlopen(names[k], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
  }
  return NULL;
}

static void load(void) {
  static const char *const blas[] = {"libopenblas.so.0", "libopenblas.so", NULL};
  static const char *const amd[] = {"libamd.so.3", "libamd.so.2", "libamd.so", NULL};
  void *h = open_first(blas);
  if (!h) {
    snprintf(B.why, sizeof B.why, "OpenBLAS not found (libopenblas.so.0: %s)", dlerror());
    return;
  }
  B.potrf = (potrf_t)dlsym(h, "dpotrf_");
  B.trsm = (trsm_t)dlsym(h, "dtrsm_");
  B.syrk = (syrk_t)dlsym(h, "dsyrk_");
  B.gemv = (gemv_t)dlsym(h, "dgemv_");
  B.trsv = (trsv_t)dlsym(h, "dtrsv_");
  B.threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
  if (B.threads) B.threads(1);
  void *a = open_first(amd);
  if (a) B.amd = (amd_t)dlsym(a, "amd_order");
  if (!B.potrf || !B.trsm || !B.syrk || !B.gemv || !B.trsv) {
    snprintf(B.why, sizeof B.why, "OpenBLAS lacks dpotrf_/dtrsm_/dsyrk_/dgemv_/dtrsv_");
    return;
  }
  if (!B.amd) {
    snprintf(B.why, sizeof B.why, "SuiteSparse AMD not found (libamd.so.2)");
    return;
  }
  B.ok = 1;
}

int sk_cb_available(char *err, size_t errlen) {
  pthread_once(&once, load);
  if (!B.ok) snprintf(err, errlen, "%s", B.why);
  return B.ok ? 0 : -1;
}

int sk_cb_amd(int n, const int *ap, const int *ai, int *perm) {
  return B.amd(n, ap, ai, perm, NULL, NULL) >= 0 ? 0 : -1;
}

int sk_cb_potrf(int k, double *a, int lda) {
  int info = 0;
  if (k > 0) B.potrf("L", &k, a, &lda, &info);
  return info;
}

void sk_cb_trsm(int m, int k, const double *l, int ldl, double *b, int ldb) {
  static const double one = 1.0;
  if (m > 0 && k > 0) B.trsm("R", "L", "T", "N", &m, &k, &one, l, &ldl, b, &ldb);
}

void sk_cb_syrk(int m, int k, const double *a, int lda, double *c, int ldc) {
  static const double one = 1.0, mone = -1.0;
  if (m > 0 && k > 0) B.syrk("L", "N", &m, &k, &mone, a, &lda, &one, c, &ldc);
}

void sk_cb_gemv(int trans, int m, int n, const double *a, int lda,
                const double *x, double *y) {
  static const double one = 1.0, mone = -1.0;
  static const int inc = 1;
  if (m > 0 && n > 0)
    B.gemv(trans ? "T" : "N", &m, &n, &mone, a, &lda, x, &inc, &one, y, &inc);
}

void sk_cb_trsv(int trans, int k, const double *l, int ldl, double *x) {
  static const int inc = 1;
  if (k > 0) B.trsv("L", trans ? "T" : "N", "N", &k, l, &ldl, x, &inc);
}

void sk_cb_threads(int n) {
  if (B.threads) B.threads(n < 1 ? 1 : n);
}
