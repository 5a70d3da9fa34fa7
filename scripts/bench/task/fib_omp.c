/* fib_omp.c: the OpenMP tasks peer of the task benchmark: fib(n) with one
 * task per call (gcc -O2 -fopenmp, libgomp). Prints "tasks seconds". */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long fib(int n) {
  if (n < 2) return n;
  long x, y;
#pragma omp task shared(x)
  x = fib(n - 1);
#pragma omp task shared(y)
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30;
  long r = 0;
  double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  r = fib(n);
  double dt = omp_get_wtime() - t0;
  /* calls = 2 fib(n+1) - 1, each a task but the root (run inline) */
  long a = 0, b = 1;
  for (int k = 0; k < n + 1; k++) {
    long c = a + b;
    a = b;
    b = c;
  }
  printf("fib omp %ld %.6f %ld\n", 2 * a - 1, dt, r);
  return 0;
}
