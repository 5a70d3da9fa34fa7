// stdsort.cc: the std::sort peer of scripts/bench/sort: the same keys as
// bench.lua (splitmix64 of the index), sorted by std::sort (one thread)
// and std::stable_sort; prints "R<TAB>op<TAB>peer<TAB>seconds".
// Usage: stdsort N DTYPE(float64|int32) ROUNDS
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static uint64_t mix(uint64_t i) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T, class F> static void run(long n, int rounds, const char *dt, F gen) {
  std::vector<T> src(n), v(n);
  for (long i = 0; i < n; i++) src[i] = gen(mix((uint64_t)i));
  for (int r = 0; r < rounds; r++) {
    v = src;
    auto t0 = std::chrono::steady_clock::now();
    std::sort(v.begin(), v.end());
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!std::is_sorted(v.begin(), v.end())) { fprintf(stderr, "not sorted\n"); exit(1); }
    printf("R\tsort %s %ld\tstd::sort\t%.6e\n", dt, n, t);
    v = src;
    t0 = std::chrono::steady_clock::now();
    std::stable_sort(v.begin(), v.end());
    t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("R\tsort %s %ld\tstd::stable_sort\t%.6e\n", dt, n, t);
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  long n = atol(argv[1]);
  int rounds = atoi(argv[3]);
  if (strcmp(argv[2], "float64") == 0)
    run<double>(n, rounds, "float64", [](uint64_t z) { return (double)(z >> 11) * 0x1p-53; });
  else
    run<int32_t>(n, rounds, "int32", [](uint64_t z) { return (int32_t)(uint32_t)(z >> 32); });
  return 0;
}
