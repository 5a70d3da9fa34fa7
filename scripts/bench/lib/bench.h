/* bench.h: what the C programs of scripts/bench share: the clock, medians,
 * aligned allocation, the tab-separated records every program prints
 * (table.lua reads them), the WARM + REPS timing loop, one-launch-at-a-time
 * timing, and the data and kernels that several areas' references run
 * alike (x and y of dot and axpy, the 2D 5-point Laplacian in CSR, its
 * SpMV). Included as "../lib/bench.h" by a program that first defines
 * BENCH_IMPL, the implementation's name in its records ("ref",
 * "openblas", ...), which also prefixes its error messages.
 *
 *   I <impl> <key> <value>                                 facts
 *   R <kernel> <impl> <median seconds> <bytes moved> <checksum>
 *   R <kernel> <impl> <median seconds> <checksum>          (record_check)
 *
 * Built with -fopenmp the clock is omp_get_wtime and the loops here run as
 * OpenMP 'parallel for' (static schedule); without it (openblas.c, capi.c)
 * the clock is clock_gettime(CLOCK_MONOTONIC) and the loops are serial.
 * Plain C11 (with _POSIX_C_SOURCE 200809L where the program asks for
 * strict C); everything is static inline, so a program pays nothing for
 * what it does not use.
 */
#ifndef SPECK_BENCH_H
#define SPECK_BENCH_H

#ifndef BENCH_IMPL
#error "define BENCH_IMPL (the impl column of the records) before bench.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
/* the loops below: OpenMP 'parallel for', and one with reduction(+ : s) */
#define BENCH_FOR       _Pragma("omp parallel for schedule(static)")
#define BENCH_FOR_SUM_S _Pragma("omp parallel for schedule(static) reduction(+ : s)")
#else
#define BENCH_FOR
#define BENCH_FOR_SUM_S
#endif

#define REPS 9
#define WARM 2

static inline double now(void) {
#ifdef _OPENMP
  return omp_get_wtime();
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

static inline int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* sorts t */
static inline double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* 64-byte aligned (a cache line); exits on failure */
static inline void *xmalloc(size_t n) {
  void *p = NULL;
  if (posix_memalign(&p, 64, n ? n : 64) != 0) {
    fprintf(stderr, BENCH_IMPL ": out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static inline void record(const char *kernel, double t, double bytes, double check) {
  printf("R\t%s\t" BENCH_IMPL "\t%.9e\t%.0f\t%.17g\n", kernel, t, bytes, check);
  fflush(stdout);
}

/* a record without the bytes column (teams/ref.c's format) */
static inline void record_check(const char *kernel, double t, double check) {
  printf("R\t%s\t" BENCH_IMPL "\t%.9e\t%.17g\n", kernel, t, check);
  fflush(stdout);
}

/* WARM untimed calls of f(arg), then the median of REPS timed ones */
static inline double time_reps(void (*f)(void *), void *arg) {
  double t[REPS];
  for (int r = -WARM; r < REPS; r++) {
    double t0 = now();
    f(arg);
    double dt = now() - t0;
    if (r >= 0) t[r] = dt;
  }
  return median(t, REPS);
}

/* one call of f(arg) at a time: warm for 1000 calls and at least 'warm_s'
 * seconds, then the median of 'launches' */
static inline double per_launch(void (*f)(void *), void *arg, int launches,
                                double warm_s) {
  double t0 = now();
  for (int r = 0; r < 1000 || now() - t0 < warm_s; r++) f(arg);
  double *t = xmalloc((size_t)launches * sizeof *t);
  for (int r = 0; r < launches; r++) {
    double s = now();
    f(arg);
    t[r] = now() - s;
  }
  double m = median(t, launches);
  free(t);
  return m;
}

/* -- dot and axpy ------------------------------------------------------------ */
/* x and y as every implementation of dot and axpy fills them (prime
 * periods: no page deduplication or compression makes them smaller) */
static inline void init_xy(double *x, double *y, int64_t n) {
  BENCH_FOR
  for (int64_t i = 0; i < n; i++) {
    x[i] = 1.0 + (double)(i % 1000003) * 1e-6;
    y[i] = 2.0 - (double)(i % 999983) * 1e-6;
  }
}

/* what a dot or axpy call gets: s is dot's value (axpy: a = 0.5) */
typedef struct bench_xy {
  int64_t n;
  double *x, *y, s;
} bench_xy;

/* the plain loops (the references' dot and axpy, for bench_xy_run) */
static inline void loop_dot(void *arg) {
  bench_xy *v = arg;
  const int64_t n = v->n;
  const double *x = v->x, *y = v->y;
  double s = 0;
  BENCH_FOR_SUM_S
  for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
  v->s = s;
}

static inline void loop_axpy(void *arg) {
  const bench_xy *v = arg;
  const int64_t n = v->n;
  const double a = 0.5, *x = v->x;
  double *y = v->y;
  BENCH_FOR
  for (int64_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}

/* 'kernel' (dot or axpy) by call(bench_xy *) on x, y of n elements as
 * init_xy fills them, timed by time_reps; one record with dot's value, or
 * for axpy the sum of y after all WARM + REPS updates (sum_y) or 0 */
static inline void bench_xy_run(const char *kernel, int64_t n, void (*call)(void *),
                                int sum_y) {
  bench_xy v = {n, xmalloc((size_t)n * sizeof(double)),
                xmalloc((size_t)n * sizeof(double)), 0};
  init_xy(v.x, v.y, n);
  int dot = strcmp(kernel, "dot") == 0;
  double t = time_reps(call, &v), s = dot ? v.s : 0;
  if (!dot && sum_y) {
    BENCH_FOR_SUM_S
    for (int64_t i = 0; i < n; i++) s += v.y[i];
  }
  record(kernel, t, (dot ? 16.0 : 24.0) * (double)n, s);
  free(v.x);
  free(v.y);
}

/* -- CSR SpMV of the 2D 5-point Laplacian ------------------------------------ */
/* The matrix of an nx x ny grid: row r = gi*ny + gj; columns ascending:
 * r-ny, r-1, r, r+1, r+ny; 4 on the diagonal, -1 off it. Returns the rows
 * (n = nx * ny); *rowptr, *col, *val are the caller's to free. */
static inline int64_t laplacian_csr(int64_t nx, int64_t ny, int64_t **rowptr_out,
                                    int32_t **col_out, double **val_out) {
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
  BENCH_FOR
  for (int64_t r = 0; r < n; r++) {
    int64_t gi = r / ny, gj = r % ny, p = rowptr[r];
    if (gi > 0) {
      col[p] = (int32_t)(r - ny);
      val[p++] = -1.0;
    }
    if (gj > 0) {
      col[p] = (int32_t)(r - 1);
      val[p++] = -1.0;
    }
    col[p] = (int32_t)r;
    val[p++] = 4.0;
    if (gj < ny - 1) {
      col[p] = (int32_t)(r + 1);
      val[p++] = -1.0;
    }
    if (gi < nx - 1) {
      col[p] = (int32_t)(r + ny);
      val[p++] = -1.0;
    }
  }
  *rowptr_out = rowptr;
  *col_out = col;
  *val_out = val;
  return n;
}

typedef struct bench_csr {
  int64_t n;
  const int64_t *rowptr;
  const int32_t *col;
  const double *val;
  const double *x;
  double *y;
} bench_csr;

static inline void bench_spmv_call(void *arg) {
  const bench_csr *A = arg;
  const int64_t n = A->n, *rowptr = A->rowptr;
  const int32_t *col = A->col;
  const double *val = A->val, *x = A->x;
  double *y = A->y;
  BENCH_FOR
  for (int64_t r = 0; r < n; r++) {
    double s = 0;
    for (int64_t p = rowptr[r]; p < rowptr[r + 1]; p++) s += val[p] * x[col[p]];
    y[r] = s;
  }
}

/* y = A x, x(r) = 1 + (r mod 1000003) 1e-6, timed by time_reps; returns
 * the median, and in *check the sum of y(r) (1 + r mod 3) */
static inline double spmv_time(int64_t n, const int64_t *rowptr, const int32_t *col,
                               const double *val, double *check) {
  double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
  BENCH_FOR
  for (int64_t r = 0; r < n; r++) {
    x[r] = 1.0 + (double)(r % 1000003) * 1e-6;
    y[r] = 0;
  }
  bench_csr A = {n, rowptr, col, val, x, y};
  double t = time_reps(bench_spmv_call, &A);
  double s = 0;
  BENCH_FOR_SUM_S
  for (int64_t r = 0; r < n; r++) s += y[r] * (double)(1 + r % 3);
  *check = s;
  free(x);
  free(y);
  return t;
}

#endif
