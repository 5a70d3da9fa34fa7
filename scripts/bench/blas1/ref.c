/* ref.c: the hand-written C reference of scripts/bench/blas1.
 *
 * Usage: ref KERNEL [log2n [launches]]
 *   KERNEL: dot | axpy | empty | pingpong
 * Built by ./run with gcc -O3 -march=native -fopenmp; OpenMP 'parallel for'
 * and 'reduction' on OMP_NUM_THREADS threads (./run sets 2). dot and axpy
 * are warmed up WARM times, then timed REPS times with omp_get_wtime; the
 * median goes out as one tab-separated record, the format every program
 * of this benchmark prints (table.lua reads them):
 *
 *   I <impl> <key> <value>                                 facts
 *   R <kernel> <impl> <median seconds> <bytes moved> <checksum>
 *
 * 'empty' times an empty '#pragma omp parallel' region (every thread
 * enters and leaves it, the implicit barrier included) one region at a
 * time, median of 'launches' after 1000 untimed ones.
 *
 * 'pingpong' prints a fact, not a record: the round trip of a cache line
 * between two threads (one flips a flag, the other flips it back), the
 * mean of 'launches' rounds. Every launch costs a few of these, and on a
 * virtual machine it changes with where the host places the two vCPUs.
 *
 * Data match blas1.lua, capi.c and openblas.c exactly, so checksums
 * compare: dot's value; axpy's sum of y after its WARM + REPS updates.
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

static void init_xy(double *x, double *y, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    x[i] = 1.0 + (double)(i % 1000003) * 1e-6;
    y[i] = 2.0 - (double)(i % 999983) * 1e-6;
  }
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
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < n; i++) s += y[i];
  record("axpy", median(t, REPS), 24.0 * (double)n, s);
  free(x);
  free(y);
}

/* One empty parallel region per sample; the empty asm keeps the region's
 * body without adding work. */
static void bench_empty(int launches) {
  double *t = xmalloc((size_t)launches * sizeof *t);
  for (int r = -1000; r < launches; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel
    __asm__ volatile("");
    double dt = omp_get_wtime() - t0;
    if (r >= 0) t[r] = dt;
  }
  record("empty", median(t, launches), 0, 0);
  free(t);
}

static void pingpong(int rounds) {
  static int flag;
  double t = 0;
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    if (omp_get_num_threads() == 2) {
      for (int r = -1000; r < rounds; r++) {
        if (me == 0) {
          double t0 = r == 0 ? omp_get_wtime() : 0;
          __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
          while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 0) __asm__ volatile("");
          if (r == 0) t = -t0;
        } else {
          while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 1) __asm__ volatile("");
          __atomic_store_n(&flag, 0, __ATOMIC_RELEASE);
        }
      }
      if (me == 0) t += omp_get_wtime();
    }
  }
  printf("I\tref\tpingpong_ns\t%.0f\n", t / rounds * 1e9);
}

int main(int argc, char **argv) {
  const char *k = argc > 1 ? argv[1] : "";
  int log2n = argc > 2 ? atoi(argv[2]) : 25;
  int launches = argc > 3 ? atoi(argv[3]) : 20000;
  printf("I\tref\tthreads\t%d\n", omp_get_max_threads());
  if (strcmp(k, "dot") == 0) bench_dot((int64_t)1 << log2n);
  else if (strcmp(k, "axpy") == 0) bench_axpy((int64_t)1 << log2n);
  else if (strcmp(k, "empty") == 0) bench_empty(launches);
  else if (strcmp(k, "pingpong") == 0) pingpong(launches);
  else {
    fprintf(stderr, "usage: ref dot|axpy|empty|pingpong [log2n [launches]]\n");
    return 2;
  }
  return 0;
}
