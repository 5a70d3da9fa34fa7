/* test_dense.c: the dense library from C, with no Lua state.
 *
 * 1. The C kernel API (speck.h): "blas.gemm", "blas.potrf", "blas.trsm"
 *    and "batched.gemm" by speck_call on wrapped host arrays, checked
 *    against products and solves computed here; bad input gives a
 *    message, never a crash.
 * 2. The vendor layer's C API (kernels/blas/vendor.h) on raw pointers and
 *    strides -- row-major, column-major, a transposed problem -- against
 *    the same loops (when OpenBLAS loads; otherwise its 'missing' status).
 * 3. Where libnvrtc loads: every signature of every blas.* and batched.*
 *    body compiles for the CUDA back end, but the host's fast paths
 *    (host_only: refused, with a message naming the back end).
 * Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas/vendor.h"
#include "kernels/kernels.h"
#include "api/speck.h"
#include "backends/cuda/nvrtc.h"
#include "host_only.h"

static int passed, failed;

#define CHECK(c, ...) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (double)(*s >> 8) / 16777216.0 - 0.5;
}

/* C = A B, all row-major n x n */
static void ref_gemm(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}

static double maxdiff(int64_t n, const double *a, const double *b) {
  double d = 0;
  for (int64_t i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]);
    if (!(e <= d)) d = e;
  }
  return d;
}

/* -- the C kernel API -------------------------------------------------------- */
static void api_tests(void) {
  char err[1024];
  const char *space = getenv("SPECK_SPACE");
  if (space && strcmp(space, "cuda") == 0) {
    printf("api tests skipped on cuda (host arrays)\n");
    return;
  }
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return;
  enum { N = 37 };
  static double A[N * N], B[N * N], C[N * N], R[N * N], S[N * N];
  unsigned s = 7;
  for (int i = 0; i < N * N; i++) {
    A[i] = rnd(&s);
    B[i] = rnd(&s);
    C[i] = NAN;
  }
  int64_t ext[2] = {N, N};
  speck_view *va = speck_view_wrap(rt, "A", "float64", 2, ext, A, err, sizeof err);
  speck_view *vb = speck_view_wrap(rt, "B", "float64", 2, ext, B, err, sizeof err);
  speck_view *vc = speck_view_wrap(rt, "C", "float64", 2, ext, C, err, sizeof err);
  speck_view *vs = speck_view_wrap(rt, "S", "float64", 2, ext, S, err, sizeof err);
  CHECK(va && vb && vc && vs, "%s", err);
  for (int impl = 0; impl < 2; impl++) {
    speck_arg args[] = {
      speck_arg_str("transA", "N"), speck_arg_str("transB", "N"),
      speck_arg_f64("alpha", 1.0),  speck_arg_view("A", va),
      speck_arg_view("B", vb),      speck_arg_f64("beta", 0.0),
      speck_arg_view("C", vc),      speck_arg_str("impl", impl ? "vendor" : "native")};
    int rc = speck_call(rt, "blas.gemm", args, 8, NULL, err, sizeof err);
    CHECK(rc == 0, "blas.gemm: %s", err);
    ref_gemm(N, A, B, R);
    CHECK(maxdiff(N * N, C, R) < 1e-13, "blas.gemm (%s) differs by %g",
          impl ? "vendor" : "native", maxdiff(N * N, C, R));
  }
  /* S = A A^T + N I is SPD: potrf, then L L^T == S */
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double t = i == j ? N : 0;
      for (int k = 0; k < N; k++) t += A[i * N + k] * A[j * N + k];
      S[i * N + j] = R[i * N + j] = t;
    }
  speck_arg pa[] = {speck_arg_str("uplo", "L"), speck_arg_view("A", vs),
                    speck_arg_str("impl", "native")};
  CHECK(speck_call(rt, "blas.potrf", pa, 3, NULL, err, sizeof err) == 0, "%s", err);
  double worst = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      double t = 0;
      for (int k = 0; k <= j; k++) t += S[i * N + k] * S[j * N + k];
      worst = fmax(worst, fabs(t - R[i * N + j]));
    }
  CHECK(worst < 1e-11, "potrf: L L^T differs from A by %g", worst);
  /* trsm with that L: L X = A B, X == B after */
  ref_gemm(N, A, B, C);
  for (int i = 0; i < N * N; i++) R[i] = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double t = 0;
      for (int k = 0; k <= i; k++) t += S[i * N + k] * B[k * N + j];
      R[i * N + j] = t;
    }
  memcpy(C, R, sizeof R);
  speck_arg ta[] = {speck_arg_str("side", "L"),   speck_arg_str("uplo", "L"),
                    speck_arg_str("transA", "N"), speck_arg_str("diag", "N"),
                    speck_arg_f64("alpha", 1.0),  speck_arg_view("A", vs),
                    speck_arg_view("B", vc)};
  CHECK(speck_call(rt, "blas.trsm", ta, 7, NULL, err, sizeof err) == 0, "%s", err);
  CHECK(maxdiff(N * N, C, B) < 1e-11, "trsm: X differs from B by %g",
        maxdiff(N * N, C, B));
  /* a shape mismatch names both shapes */
  int64_t e2[2] = {N, 3};
  speck_view *vx = speck_view_wrap(rt, "X", "float64", 2, e2, R, err, sizeof err);
  speck_arg bad[] = {speck_arg_str("transA", "N"), speck_arg_str("transB", "N"),
                     speck_arg_f64("alpha", 1.0),  speck_arg_view("A", vx),
                     speck_arg_view("B", vb),      speck_arg_f64("beta", 0.0),
                     speck_arg_view("C", vc)};
  int rc = speck_call(rt, "blas.gemm", bad, 7, NULL, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "op(A) is 37x3, op(B) 37x37, C 37x37") != NULL, "%s", err);
  /* batched gemm of 5 matrices of 4x4 */
  static double bA[5 * 16], bB[5 * 16], bC[5 * 16];
  for (int i = 0; i < 80; i++) {
    bA[i] = rnd(&s);
    bB[i] = rnd(&s);
  }
  int64_t e3[3] = {5, 4, 4};
  speck_view *ba = speck_view_wrap(rt, "bA", "float64", 3, e3, bA, err, sizeof err);
  speck_view *bb = speck_view_wrap(rt, "bB", "float64", 3, e3, bB, err, sizeof err);
  speck_view *bc = speck_view_wrap(rt, "bC", "float64", 3, e3, bC, err, sizeof err);
  speck_arg ga[] = {speck_arg_str("transA", "N"), speck_arg_str("transB", "N"),
                    speck_arg_f64("alpha", 1.0),  speck_arg_view("A", ba),
                    speck_arg_view("B", bb),      speck_arg_f64("beta", 0.0),
                    speck_arg_view("C", bc),      speck_arg_str("mode", "team")};
  CHECK(speck_call(rt, "batched.gemm", ga, 8, NULL, err, sizeof err) == 0, "%s", err);
  for (int b = 0; b < 5; b++) {
    double r[16];
    ref_gemm(4, bA + 16 * b, bB + 16 * b, r);
    CHECK(maxdiff(16, r, bC + 16 * b) < 1e-14, "batched.gemm matrix %d", b);
  }
  speck_view *all[] = {va, vb, vc, vs, vx, ba, bb, bc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) speck_view_release(all[i]);
  speck_runtime_close(rt);
}

/* -- the vendor layer ---------------------------------------------------------- */
static void vendor_tests(void) {
  if (!sk_vendor_host_available()) {
    CHECK(sk_vendor_gemm(SK_F64, 'N', 'N', 1, 1, 1, 1, NULL, 1, 1, NULL, 1, 1, 0, NULL, 1,
                         1) == SK_VENDOR_MISSING,
          "missing library");
    printf("vendor tests: %s\n", sk_vendor_host_status());
    return;
  }
  enum { M = 7, K = 5, N = 6 };
  double A[M * K], B[K * N], C[M * N], R[M * N], At[K * M], Ct[N * M];
  unsigned s = 3;
  for (int i = 0; i < M * K; i++) A[i] = rnd(&s);
  for (int i = 0; i < K * N; i++) B[i] = rnd(&s);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double t = 0;
      for (int k = 0; k < K; k++) t += A[i * K + k] * B[k * N + j];
      R[i * N + j] = t;
    }
  /* row-major A, B, C */
  CHECK(sk_vendor_gemm(SK_F64, 'N', 'N', M, N, K, 1, A, K, 1, B, N, 1, 0, C, N, 1) ==
          SK_VENDOR_OK,
        "gemm row major");
  CHECK(maxdiff(M * N, C, R) < 1e-14, "gemm row major");
  /* A given transposed and column-major C */
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) At[k * M + i] = A[i * K + k];
  CHECK(sk_vendor_gemm(SK_F64, 'T', 'N', M, N, K, 1, At, M, 1, B, N, 1, 0, Ct, 1, M) ==
          SK_VENDOR_OK,
        "gemm T, column major C");
  double worst = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) worst = fmax(worst, fabs(Ct[j * M + i] - R[i * N + j]));
  CHECK(worst < 1e-14, "gemm T, column major C: %g", worst);
  /* no unit stride: unsupported */
  CHECK(sk_vendor_gemm(SK_F64, 'N', 'N', M, N, K, 1, A, 2 * K, 2, B, N, 1, 0, C, N, 1) ==
          SK_VENDOR_UNSUPPORTED,
        "strided A");
  /* potrf of a row-major SPD matrix, info of a singular one */
  double S[9] = {4, 2, 2, 2, 5, 3, 2, 3, 6}, Z[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  int64_t info = -1;
  CHECK(sk_vendor_potrf(SK_F64, 'L', 3, S, 3, 1, &info) == SK_VENDOR_OK && info == 0,
        "potrf");
  CHECK(fabs(S[0] - 2) < 1e-15 && fabs(S[3] - 1) < 1e-15 && fabs(S[4] - 2) < 1e-15,
        "potrf L: %g %g %g", S[0], S[3], S[4]);
  int64_t piv[3];
  CHECK(sk_vendor_getrf(SK_F64, 3, 3, Z, 3, 1, piv, &info) == SK_VENDOR_OK && info == 2,
        "getrf of a singular matrix: info %lld", (long long)info);
  CHECK(strstr(sk_vendor_host_status(), "OpenBLAS") != NULL, "%s",
        sk_vendor_host_status());
}

/* -- NVRTC compile checks ---------------------------------------------------------
 * Every signature of every blas.* and batched.* body, compiled by four
 * threads at once (each compile is independent; the JIT's caches are
 * shared and locked), the results checked here in the list's order. */
typedef struct compile_job {
  const sk_kbody *kb;
  int sig, rc;
  char err[1024];
} compile_job;

static compile_job *jobs;
static int njobs;
static int next_job;
static pthread_mutex_t job_lock = PTHREAD_MUTEX_INITIALIZER;

static void *compile_worker(void *arg) {
  const sk_backend *cu = arg;
  for (;;) {
    pthread_mutex_lock(&job_lock);
    const int j = next_job++;
    pthread_mutex_unlock(&job_lock);
    if (j >= njobs) return NULL;
    jobs[j].rc = sk_kbody_compile(jobs[j].kb, jobs[j].sig, cu, jobs[j].err, sizeof jobs[j].err);
  }
}

static void nvrtc_tests(void) {
  char why[256];
  const sk_backend *cu = sk_backend_find("cuda");
  if (!cu || !sk_nvrtc_status(why, sizeof why)) {
    printf("nvrtc compile checks skipped: %s\n", cu ? why : "no cuda back end");
    return;
  }
  int nhost = 0;
  for (int pass = 0; pass < 2; pass++) {
    njobs = 0;
    for (int i = 0;; i++) {
      const sk_kbody *kb = sk_kbody_at(i);
      if (!kb) break;
      if (!kb->sigs ||
          (strncmp(kb->label, "batched.", 8) != 0 && (strncmp(kb->label, "blas.", 5) != 0)))
        continue;
      if (kb->host_only) { /* 10-25 s of NVRTC a body, for code no GPU runs */
        if (pass) {
          char err[256];
          int rc = sk_kbody_compile(kb, 0, cu, err, sizeof err);
          CHECK(refused_host_only(rc, err, cu), "%s: %s", kb->label, rc < 0 ? err : "compiled");
          nhost++;
        }
        continue;
      }
      for (int s = 0; kb->sigs[s]; s++, njobs++)
        if (pass) jobs[njobs] = (compile_job){.kb = kb, .sig = s, .rc = -1};
    }
    if (!pass && !(jobs = calloc((size_t)njobs + 1, sizeof *jobs))) {
      CHECK(0, "out of memory for %d jobs", njobs);
      return;
    }
  }
  pthread_t t[4];
  int nt = 0;
  for (; nt < 4; nt++)
    if (pthread_create(&t[nt], NULL, compile_worker, (void *)cu) != 0) break;
  CHECK(nt > 0, "no compile thread started");
  for (int k = 0; k < nt; k++) pthread_join(t[k], NULL);
  for (int j = 0; j < njobs; j++)
    CHECK(jobs[j].rc == 0, "NVRTC: %s signature %d: %s", jobs[j].kb->label, jobs[j].sig,
          jobs[j].err);
  CHECK(njobs >= 30, "only %d dense signatures", njobs);
  CHECK(nhost == 2, "%d host fast paths (batched.gemm_small, _f)", nhost);
  printf("nvrtc: %d dense signatures compiled for cuda\n", njobs);
  free(jobs);
}

int main(void) {
  api_tests();
  vendor_tests();
  nvrtc_tests();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
