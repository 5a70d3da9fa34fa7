/* peer.c: the reference programs of the dense benchmark (scripts/bench/
 * dense/run): batched C_b = A_b B_b (row major, contiguous batch) by
 *   naive     a gcc -O3 -march=native triple loop, OpenMP over the batch
 *   openblas  cblas_dgemm per matrix (OpenBLAS with one thread), OpenMP over the batch
 *   libxsmm   a LIBXSMM JIT kernel per matrix, OpenMP over the batch
 * and one large C = A B by OpenBLAS (all threads); and the memory-bandwidth
 * yardstick, a STREAM triad a[i] = b[i] + s c[i] (OpenMP, static schedule,
 * first touch by the same threads) over three arrays of N doubles.
 *
 *   peer batched N BATCH REPS   -> "R\t<impl>\t<n>\t<seconds per run>\t<checksum>" lines
 *   peer batchedf N BATCH REPS  the same in float32 (naive, cblas_sgemm, LIBXSMM's
 *                               float kernel): impls naive32, openblas32, libxsmm32
 *   peer large N REPS
 *   peer triad N REPS           -> "T\t<bytes moved (24 N, as STREAM counts)>\t<seconds>" lines
 */
#include <cblas.h>
#include <libxsmm.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int);

/* calls per timing: the batch takes about a millisecond at n = 3 */
#define INNER 10

static double now(void) { return omp_get_wtime(); }

static void fill(double *x, long n, unsigned s) {
  for (long i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    x[i] = (double)(s >> 8) / 16777216.0 - 0.5;
  }
}

static double sum(const double *x, long n) {
  double s = 0;
  for (long i = 0; i < n; i++) s += x[i];
  return s;
}

/* the triple loop, OpenMP over the batch (double and float) */
#define SK_NAIVE(name, T) \
  static void name(int n, long nb, const T *A, const T *B, T *C) { \
    _Pragma("omp parallel for schedule(static)") for (long b = 0; b < nb; b++) { \
      const T *a = A + b * n * n, *bb = B + b * n * n; \
      T *c = C + b * n * n; \
      for (int i = 0; i < n; i++) \
        for (int j = 0; j < n; j++) { \
          T s = 0; \
          for (int k = 0; k < n; k++) s += a[i * n + k] * bb[k * n + j]; \
          c[i * n + j] = s; \
        } \
    } \
  }
SK_NAIVE(naive, double)
SK_NAIVE(naivef, float)

/* reps rounds of the implementations im[0..nim): one untimed call, then
 * INNER timed ones; one record each with the sum of C (double and float) */
#define SK_TIME_IMPLS(fn, T) \
  typedef struct fn##_impl { \
    const char *name; \
    void (*f)(int, long, const T *, const T *, T *); \
  } fn##_impl; \
  static void fn(int n, long nb, int reps, const T *A, const T *B, T *C, \
                 const fn##_impl *im, int nim) { \
    long tot = nb * n * n; \
    for (int r = 0; r < reps; r++) \
      for (int k = 0; k < nim; k++) { \
        im[k].f(n, nb, A, B, C); /* warm */ \
        double t = now(); \
        for (int it = 0; it < INNER; it++) im[k].f(n, nb, A, B, C); \
        t = (now() - t) / INNER; \
        double s = 0; \
        for (long i = 0; i < tot; i++) s += C[i]; \
        printf("R\t%s\t%d\t%.6f\t%.6e\n", im[k].name, n, t, s); \
        fflush(stdout); \
      } \
  }
SK_TIME_IMPLS(time_impls, double)
SK_TIME_IMPLS(time_implsf, float)

static void oblas(int n, long nb, const double *A, const double *B, double *C) {
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nb; b++)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A + b * n * n, n,
                B + b * n * n, n, 0.0, C + b * n * n, n);
}

static libxsmm_dmmfunction xk;
static void xsmm(int n, long nb, const double *A, const double *B, double *C) {
  /* row major C = A B is column major C^T = B^T A^T */
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nb; b++) xk(B + b * n * n, A + b * n * n, C + b * n * n);
}

/* float32: the same */
static void oblasf(int n, long nb, const float *A, const float *B, float *C) {
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nb; b++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A + b * n * n,
                n, B + b * n * n, n, 0.0f, C + b * n * n, n);
}

static libxsmm_smmfunction xkf;
static void xsmmf(int n, long nb, const float *A, const float *B, float *C) {
#pragma omp parallel for schedule(static)
  for (long b = 0; b < nb; b++) xkf(B + b * n * n, A + b * n * n, C + b * n * n);
}

static int batchedf(int n, long nb, int reps) {
  long tot = nb * n * n;
  float *A = malloc(4 * tot), *B = malloc(4 * tot), *C = malloc(4 * tot);
  double *t64 = malloc(8 * tot);
  if (!A || !B || !C || !t64) {
    fprintf(stderr, "peer batchedf: out of memory\n");
    return 1;
  }
  /* the same LCG values as speck's fill, rounded to float */
  fill(t64, tot, 1);
  for (long i = 0; i < tot; i++) A[i] = (float)t64[i];
  fill(t64, tot, 2);
  for (long i = 0; i < tot; i++) B[i] = (float)t64[i];
  free(t64);
  memset(C, 0, 4 * tot);
  openblas_set_num_threads(1);
  libxsmm_init();
  float one = 1, zero = 0;
  int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
  xkf = libxsmm_smmdispatch(n, n, n, NULL, NULL, NULL, &one, &zero, &flags, &pf);
  const time_implsf_impl im[] = {
    {"naive32", naivef}, {"openblas32", oblasf}, {"libxsmm32", xsmmf}};
  time_implsf(n, nb, reps, A, B, C, im, xkf ? 3 : 2); /* LIBXSMM: if it dispatched */
  free(A);
  free(B);
  free(C);
  return 0;
}

/* the triad, REPS timed passes after one untimed */
static int triad(long n, int reps) {
  double *a = malloc(8 * n), *b = malloc(8 * n), *c = malloc(8 * n);
  if (!a || !b || !c) {
    fprintf(stderr, "peer triad: out of memory\n");
    return 1;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = (double)i;
    c[i] = 1;
  }
  for (int r = 0; r <= reps; r++) {
    double t = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    t = now() - t;
    if (r) printf("T\t%ld\t%.6f\n", 24 * n, t);
  }
  fflush(stdout);
  int bad = a[n - 1] != (double)(n - 1) + 3.0;
  free(a);
  free(b);
  free(c);
  return bad;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "triad") == 0)
    return triad(atol(argv[2]), atoi(argv[3]));
  if (argc < 4 && !(argc == 4 && strcmp(argv[1], "large") == 0)) {
    fprintf(
      stderr,
      "usage: peer batched|batchedf N BATCH REPS | peer large N REPS | peer triad N REPS\n");
    return 2;
  }
  int n = atoi(argv[2]);
  if (argc == 5 && strcmp(argv[1], "batchedf") == 0)
    return batchedf(n, atol(argv[3]), atoi(argv[4]));
  if (strcmp(argv[1], "large") == 0) {
    int reps = atoi(argv[3]);
    long nn = (long)n * n;
    double *A = malloc(8 * nn), *B = malloc(8 * nn), *C = malloc(8 * nn);
    fill(A, nn, 1);
    fill(B, nn, 2);
    openblas_set_num_threads(omp_get_max_threads());
    for (int r = 0; r < reps; r++) {
      double t = now();
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n,
                  0.0, C, n);
      t = now() - t;
      printf("R\topenblas\t%d\t%.6f\t%.6e\n", n, t, sum(C, nn));
      fflush(stdout);
    }
    return 0;
  }
  long nb = atol(argv[3]);
  int reps = atoi(argv[4]);
  long tot = nb * n * n;
  double *A = malloc(8 * tot), *B = malloc(8 * tot), *C = malloc(8 * tot);
  fill(A, tot, 1);
  fill(B, tot, 2);
  memset(C, 0, 8 * tot);
  openblas_set_num_threads(1);
  libxsmm_init();
  double one = 1, zero = 0;
  int flags = LIBXSMM_GEMM_FLAG_NONE, pf = LIBXSMM_PREFETCH_NONE;
  xk = libxsmm_dmmdispatch(n, n, n, NULL, NULL, NULL, &one, &zero, &flags, &pf);
  const time_impls_impl im[] = {{"naive", naive}, {"openblas", oblas}, {"libxsmm", xsmm}};
  time_impls(n, nb, reps, A, B, C, im, xk ? 3 : 2); /* LIBXSMM: if it dispatched */
  return 0;
}
