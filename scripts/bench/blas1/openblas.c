/* openblas.c: the OpenBLAS peer of scripts/bench/blas1 (cblas_ddot,
 * cblas_daxpy of Debian's libopenblas, on OPENBLAS_NUM_THREADS threads).
 *
 * Usage: openblas KERNEL [log2n]
 *   KERNEL: dot | axpy
 * Built by ./run with gcc -O3 -march=native ... -lopenblas. Data, warm-up,
 * timing (clock_gettime, WARM untimed then the median of REPS) and the
 * records are those of ref.c; the checksum of axpy (the sum of y) is
 * taken with a plain loop, outside the timed calls.
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 9
#define WARM 2

char *openblas_get_corename(void);
int openblas_get_num_threads(void);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
    fprintf(stderr, "openblas: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static void record(const char *kernel, double t, double bytes, double check) {
  printf("R\t%s\topenblas\t%.9e\t%.0f\t%.17g\n", kernel, t, bytes, check);
  fflush(stdout);
}

static void init_xy(double *x, double *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    x[i] = 1.0 + (double)(i % 1000003) * 1e-6;
    y[i] = 2.0 - (double)(i % 999983) * 1e-6;
  }
}

int main(int argc, char **argv) {
  const char *k = argc > 1 ? argv[1] : "";
  int log2n = argc > 2 ? atoi(argv[2]) : 25;
  const int64_t n = (int64_t)1 << log2n;
  int dot = strcmp(k, "dot") == 0;
  if (!dot && strcmp(k, "axpy") != 0) {
    fprintf(stderr, "usage: openblas dot|axpy [log2n]\n");
    return 2;
  }
  printf("I\topenblas\tthreads\t%d\n", openblas_get_num_threads());
  printf("I\topenblas\tcore\t%s\n", openblas_get_corename());
  double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
  init_xy(x, y, n);
  double t[REPS], s = 0;
  for (int r = -WARM; r < REPS; r++) {
    double t0 = now();
    if (dot)
      s = cblas_ddot((blasint)n, x, 1, y, 1);
    else
      cblas_daxpy((blasint)n, 0.5, x, 1, y, 1);
    double dt = now() - t0;
    if (r >= 0) t[r] = dt;
  }
  if (!dot) {
    s = 0;
    for (int64_t i = 0; i < n; i++) s += y[i];
  }
  record(k, median(t, REPS), (dot ? 16.0 : 24.0) * (double)n, s);
  free(x);
  free(y);
  return 0;
}
