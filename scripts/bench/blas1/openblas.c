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

#define BENCH_IMPL "openblas"
#include "../lib/bench.h"

char *openblas_get_corename(void);
int openblas_get_num_threads(void);

static void call_dot(void *arg) {
  bench_xy *v = arg;
  v->s = cblas_ddot((blasint)v->n, v->x, 1, v->y, 1);
}

static void call_axpy(void *arg) {
  bench_xy *v = arg;
  cblas_daxpy((blasint)v->n, 0.5, v->x, 1, v->y, 1);
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
  bench_xy_run(k, n, dot ? call_dot : call_axpy, 1);
  return 0;
}
