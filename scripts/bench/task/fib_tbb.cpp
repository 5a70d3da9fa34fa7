// fib_tbb.cpp: the oneTBB task_group peer of the task benchmark: fib(n)
// with one task per call (g++ -O2, Debian libtbb-dev). Prints "fib tasks seconds".
#include <tbb/global_control.h>
#include <tbb/task_group.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

static long fib(int n) {
  if (n < 2) return n;
  long x, y;
  tbb::task_group g;
  g.run([&] { x = fib(n - 1); });
  g.run([&] { y = fib(n - 2); });
  g.wait();
  return x + y;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30;
  int threads = argc > 2 ? atoi(argv[2]) : 2;
  tbb::global_control gc(tbb::global_control::max_allowed_parallelism, threads);
  auto t0 = std::chrono::steady_clock::now();
  long r = fib(n);
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long a = 0, b = 1;
  for (int k = 0; k < n + 1; k++) { long c = a + b; a = b; b = c; }
  std::printf("fib tbb %ld %.6f %ld\n", 2 * a - 1, dt, r);
  return 0;
}
