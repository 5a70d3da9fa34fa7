/* ref.c: the hand-written C reference of scripts/bench/core.
 *
 * Usage: ref KERNEL [log2n [stencil_n [grid_n [launches]]]]
 *   KERNEL: empty | axpy | dot | stencil | spmv
 * Built by ./run with gcc -O3 -march=native -fopenmp; OpenMP 'parallel for'
 * and 'reduction' on OMP_NUM_THREADS threads (./run sets 2). Each kernel is
 * warmed up, then timed REPS times with omp_get_wtime; the median goes out
 * as one tab-separated record, the format core.lua and numba_peer.py print:
 *
 *   R <kernel> <impl> <median seconds> <bytes moved> <checksum>
 *
 * Data, sizes and the matrix match core.lua exactly, so checksums compare.
 * The data are not periodic within a page (prime periods), so no page
 * deduplication or compression can make the arrays smaller than they look.
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
static void init_xy(double *x, double *y, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    x[i] = 1.0 + (double)(i % 1000003) * 1e-6;
    y[i] = 2.0 - (double)(i % 999983) * 1e-6;
  }
}

static void bench_axpy(int64_t n) {
  double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
  const double a = 0.5;
  init_xy(x, y, n);
  double t[REPS];
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

static void bench_dot(int64_t n) {
  double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
  init_xy(x, y, n);
  double t[REPS], s = 0;
  for (int r = -WARM; r < REPS; r++) {
    double t0 = omp_get_wtime();
    s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
    double dt = omp_get_wtime() - t0;
    if (r >= 0) t[r] = dt;
  }
  record("dot", median(t, REPS), 16.0 * (double)n, s);
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
      in[i * n + j] = (double)((i * 3 + j * 7) % 1009) * 1e-3;
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
  for (int64_t k = 0; k < n * n; k++) s += out[k] * out[k];
  record("stencil", median(t, REPS), 16.0 * (double)((n - 2) * (n - 2)), s);
  free(in);
  free(out);
}

/* -- CSR SpMV of the 2D 5-point Laplacian ---------------------------------- */
/* Row r = gi*ny + gj; columns ascending: r-ny, r-1, r, r+1, r+ny; 4 on the
 * diagonal, -1 off it. */
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
    x[r] = 1.0 + (double)(r % 1000003) * 1e-6;
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
/* One 'parallel for' region over n empty iterations per sample; the empty
 * asm keeps the loop without adding work. */
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
  const char *k = argc > 1 ? argv[1] : "";
  int log2n = argc > 2 ? atoi(argv[2]) : 25;
  int64_t sn = argc > 3 ? atoll(argv[3]) : 4096;
  int64_t gn = argc > 4 ? atoll(argv[4]) : 2048;
  int launches = argc > 5 ? atoi(argv[5]) : 20000;
  printf("I\tref\tthreads\t%d\n", omp_get_max_threads());
  if (strcmp(k, "empty") == 0) bench_empty(1024, launches);
  else if (strcmp(k, "axpy") == 0) bench_axpy((int64_t)1 << log2n);
  else if (strcmp(k, "dot") == 0) bench_dot((int64_t)1 << log2n);
  else if (strcmp(k, "stencil") == 0) bench_stencil(sn);
  else if (strcmp(k, "spmv") == 0) bench_spmv(gn, gn);
  else {
    fprintf(stderr, "usage: ref empty|axpy|dot|stencil|spmv [log2n [stencil_n [grid_n [launches]]]]\n");
    return 2;
  }
  return 0;
}
