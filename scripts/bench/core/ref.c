/* ref.c: the hand-written C reference for scripts/bench/core.
 *
 * gcc -O3 -march=native -fopenmp, OpenMP 'parallel for' / 'reduction' with
 * OMP_NUM_THREADS threads (the run script sets 2). Each kernel is warmed
 * up, then timed REPS times with omp_get_wtime; the median is printed as
 * one tab-separated record per kernel, the same records core.lua and
 * numba_peer.py print:
 *
 *   R <kernel> <impl> <median seconds> <bytes moved> <checksum>
 *
 * The kernels and sizes match core.lua exactly (same data, same matrix),
 * so the checksums can be compared.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 9
#define WARM 2

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void *xmalloc(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n) != 0) {
    fprintf(stderr, "ref: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static void record(const char *kernel, double t, double bytes, double check) {
  printf("R\t%s\tref\t%.9e\t%.0f\t%.17g\n", kernel, t, bytes, check);
  fflush(stdout);
}

/* -- axpy and dot ---------------------------------------------------------- */
static void bench_axpy_dot(int64_t n) {
  double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
  const double a = 0.5;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    x[i] = 1.0 + (double)(i % 7) * 0.25;
    y[i] = 2.0 - (double)(i % 5) * 0.125;
  }
  double t[REPS];

  /* dot first, while x and y hold their initial values (checksum) */
  double s = 0;
  for (int r = -WARM; r < REPS; r++) {
    double t0 = omp_get_wtime();
    s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
    double dt = omp_get_wtime() - t0;
    if (r >= 0) t[r] = dt;
  }
  record("dot", median(t, REPS), 16.0 * (double)n, s);

  for (int r = -WARM; r < REPS; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
    double dt = omp_get_wtime() - t0;
    if (r >= 0) t[r] = dt;
  }
  record("axpy", median(t, REPS), 24.0 * (double)n, 0);
  free(x);
  free(y);
}

/* -- 2D 5-point stencil ---------------------------------------------------- */
static void bench_stencil(int64_t n) {
  double *in = xmalloc((size_t)(n * n) * sizeof *in);
  double *out = xmalloc((size_t)(n * n) * sizeof *out);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      in[i * n + j] = (double)((i * 3 + j * 7) % 11) * 0.5;
      out[i * n + j] = 0;
    }
  double t[REPS];
  for (int r = -WARM; r < REPS; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 1; i < n - 1; i++)
      for (int64_t j = 1; j < n - 1; j++)
        out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                                 in[i * n + j - 1] + in[i * n + j + 1]) -
                         in[i * n + j];
    double dt = omp_get_wtime() - t0;
    if (r >= 0) t[r] = dt;
  }
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t k = 0; k < n * n; k++) s += out[k];
  record("stencil", median(t, REPS), 16.0 * (double)((n - 2) * (n - 2)), s);
  free(in);
  free(out);
}

/* -- CSR SpMV of the 2D 5-point Laplacian ---------------------------------- */
/* Row r = gi*ny + gj; columns in increasing order: r-ny, r-1, r, r+1, r+ny;
 * 4 on the diagonal, -1 off it. */
static void bench_spmv(int64_t nx, int64_t ny) {
  const int64_t n = nx * ny;
  int64_t *rowptr = xmalloc((size_t)(n + 1) * sizeof *rowptr);
  rowptr[0] = 0;
  for (int64_t r = 0; r < n; r++) {
    int64_t gi = r / ny, gj = r % ny;
    rowptr[r + 1] = rowptr[r] + 1 + (gi > 0) + (gi < nx - 1) + (gj > 0) + (gj < ny - 1);
  }
  const int64_t nnz = rowptr[n];
  int32_t *col = xmalloc((size_t)nnz * sizeof *col);
  double *val = xmalloc((size_t)nnz * sizeof *val);
  double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; r++) {
    int64_t gi = r / ny, gj = r % ny, p = rowptr[r];
    if (gi > 0) { col[p] = (int32_t)(r - ny); val[p++] = -1.0; }
    if (gj > 0) { col[p] = (int32_t)(r - 1); val[p++] = -1.0; }
    col[p] = (int32_t)r; val[p++] = 4.0;
    if (gj < ny - 1) { col[p] = (int32_t)(r + 1); val[p++] = -1.0; }
    if (gi < nx - 1) { col[p] = (int32_t)(r + ny); val[p++] = -1.0; }
    x[r] = 1.0 + (double)(r % 7) * 0.5;
    y[r] = 0;
  }
  double t[REPS];
  for (int rep = -WARM; rep < REPS; rep++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < n; r++) {
      double s = 0;
      for (int64_t p = rowptr[r]; p < rowptr[r + 1]; p++) s += val[p] * x[col[p]];
      y[r] = s;
    }
    double dt = omp_get_wtime() - t0;
    if (rep >= 0) t[rep] = dt;
  }
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t r = 0; r < n; r++) s += y[r] * (double)(1 + r % 3);
  double bytes = 12.0 * (double)nnz + 8.0 * (double)(n + 1) + 16.0 * (double)n;
  record("spmv", median(t, REPS), bytes, s);
  free(rowptr);
  free(col);
  free(val);
  free(x);
  free(y);
}

/* -- empty parallel region ------------------------------------------------- */
static void bench_empty(int64_t n, int launches) {
  double *t = xmalloc((size_t)launches * sizeof *t);
  for (int r = -1000; r < launches; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) __asm__ volatile("");
    double dt = omp_get_wtime() - t0;
    if (r >= 0) t[r] = dt;
  }
  record("empty", median(t, launches), 0, 0);
  free(t);
}

int main(int argc, char **argv) {
  int log2n = argc > 1 ? atoi(argv[1]) : 25;
  int64_t sn = argc > 2 ? atoll(argv[2]) : 4096;
  int64_t gn = argc > 3 ? atoll(argv[3]) : 2048;
  int launches = argc > 4 ? atoi(argv[4]) : 20000;
  printf("I\tref\tthreads\t%d\n", omp_get_max_threads());
  bench_empty(1024, launches);
  bench_axpy_dot((int64_t)1 << log2n);
  bench_stencil(sn);
  bench_spmv(gn, gn);
  return 0;
}
