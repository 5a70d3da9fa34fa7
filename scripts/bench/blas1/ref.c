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
#define BENCH_IMPL "ref"
#include "../lib/bench.h"

/* One empty parallel region per call; the empty asm keeps the region's
 * body without adding work. */
static void empty_call(void *arg) {
  (void)arg;
#pragma omp parallel
  __asm__ volatile("");
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
  if (strcmp(k, "dot") == 0) bench_xy_run("dot", (int64_t)1 << log2n, loop_dot, 1);
  else if (strcmp(k, "axpy") == 0)
    bench_xy_run("axpy", (int64_t)1 << log2n, loop_axpy, 1);
  else if (strcmp(k, "empty") == 0)
    record("empty", per_launch(empty_call, NULL, launches, 0), 0, 0);
  else if (strcmp(k, "pingpong") == 0) pingpong(launches);
  else {
    fprintf(stderr, "usage: ref dot|axpy|empty|pingpong [log2n [launches]]\n");
    return 2;
  }
  return 0;
}
