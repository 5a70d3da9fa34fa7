/* capi.c: the speck side of scripts/bench/blas1 from C, through the C
 * kernel API of speck.h (no Lua state); built by ./run with
 * 'pkg-config --cflags --libs speck' from build/lib/pkgconfig.
 *
 * Usage: capi KERNEL [log2n [launches]]
 *   dot, axpy    speck_call(rt, "blas.dot" / "blas.axpy", ...) on 2^log2n
 *                float64 elements: WARM untimed calls, then the median of
 *                REPS, each timed with clock_gettime around the call and
 *                speck_fence
 *   empty        speck_run_for of an empty body over 1024 indices, one
 *                launch at a time, median of 'launches'
 *   scal2        speck_call(rt, "blas.scal", ...) on a view of 2 elements
 *                (one per thread: the pool runs), likewise
 * The runtime is the default one (SPECK_SPACE, SPECK_THREADS; ./run sets
 * openmp and 2). Records as ref.c prints them, impl "speck-c"; data and
 * checksums (dot's value, axpy's sum of y after WARM + REPS updates) match
 * ref.c. A new body is compiled by libtcc on first use and by cc in the
 * background: 'empty' launches for a second before it times, so that the
 * cc build is in place.
 */
#define _POSIX_C_SOURCE 200809L
#include <speck.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 9
#define WARM 2

static char err[4096];

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

static void check(int rc) {
  if (rc != SPECK_OK) {
    fprintf(stderr, "capi: %s\n", err);
    exit(1);
  }
}

static void record(const char *kernel, double t, double bytes, double sum) {
  printf("R\t%s\tspeck-c\t%.9e\t%.0f\t%.17g\n", kernel, t, bytes, sum);
  fflush(stdout);
}

static speck_view *view(speck_runtime *rt, const char *label, int64_t n) {
  speck_view *v = speck_view_new(rt, label, "float64", 1, &n, NULL, err, sizeof err);
  if (!v) check(-1);
  return v;
}

/* x, y as ref.c fills them, by plain C through the data pointers: a kernel
 * would start a background cc compile that runs during the timed calls */
static void init_xy(speck_view *x, speck_view *y, int64_t n) {
  double *xp = speck_view_data(x), *yp = speck_view_data(y);
  for (int64_t i = 0; i < n; i++) {
    xp[i] = 1.0 + (double)(i % 1000003) * 1e-6;
    yp[i] = 2.0 - (double)(i % 999983) * 1e-6;
  }
}

static void bench_blas(speck_runtime *rt, const char *kernel, int64_t n) {
  int dot = strcmp(kernel, "dot") == 0;
  speck_view *x = view(rt, "x", n), *y = view(rt, "y", n);
  init_xy(x, y, n);
  speck_arg a[3] = {speck_arg_view("x", x), speck_arg_view("y", y),
                    speck_arg_f64("a", 0.5)};
  const char *name = dot ? "blas.dot" : "blas.axpy";
  double t[REPS], s = 0;
  for (int r = -WARM; r < REPS; r++) {
    double t0 = now();
    check(speck_call(rt, name, a, dot ? 2 : 3, &s, err, sizeof err));
    check(speck_fence(rt, err, sizeof err));
    double dt = now() - t0;
    if (r >= 0) t[r] = dt;
  }
  if (!dot) {
    speck_arg ay = speck_arg_view("x", y);   /* y > 0: asum is its sum */
    check(speck_call(rt, "blas.asum", &ay, 1, &s, err, sizeof err));
  }
  record(kernel, median(t, REPS), (dot ? 16.0 : 24.0) * (double)n, s);
  speck_view_release(x);
  speck_view_release(y);
}

/* one launch of 'f' at a time: warm for 1000 launches and at least
 * 'warm_s' seconds, then the median of 'launches' */
static double per_launch(void (*f)(void *), void *arg, int launches, double warm_s) {
  double t0 = now();
  for (int r = 0; r < 1000 || now() - t0 < warm_s; r++) f(arg);
  double *t = malloc((size_t)launches * sizeof *t);
  if (!t) exit(1);
  for (int r = 0; r < launches; r++) {
    double s = now();
    f(arg);
    t[r] = now() - s;
  }
  double m = median(t, launches);
  free(t);
  return m;
}

static speck_runtime *the_rt;

static void empty_launch(void *arg) {
  (void)arg;
  check(speck_run_for(the_rt, "bench_empty", 0, 1024, NULL, 0, "/* empty */",
                      err, sizeof err));
  check(speck_fence(the_rt, err, sizeof err));
}

static void scal_launch(void *arg) {
  check(speck_call(the_rt, "blas.scal", arg, 2, NULL, err, sizeof err));
  check(speck_fence(the_rt, err, sizeof err));
}

int main(int argc, char **argv) {
  const char *k = argc > 1 ? argv[1] : "";
  int log2n = argc > 2 ? atoi(argv[2]) : 25;
  int launches = argc > 3 ? atoi(argv[3]) : 20000;
  if (strcmp(k, "dot") != 0 && strcmp(k, "axpy") != 0 && strcmp(k, "empty") != 0 &&
      strcmp(k, "scal2") != 0) {
    fprintf(stderr, "usage: capi dot|axpy|empty|scal2 [log2n [launches]]\n");
    return 2;
  }
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  if (!rt) check(-1);
  the_rt = rt;
  printf("I\tspeck-c\tspace\t%s\n", speck_runtime_space(rt));
  if (strcmp(k, "empty") == 0) {
    record("empty-run_for", per_launch(empty_launch, NULL, launches, 1.0), 0, 0);
  } else if (strcmp(k, "scal2") == 0) {
    speck_view *x = view(rt, "x", 2);
    speck_arg a[2] = {speck_arg_f64("a", 1.0), speck_arg_view("x", x)};
    record("scal2-c", per_launch(scal_launch, a, launches, 0), 0, 0);
    speck_view_release(x);
  } else {
    bench_blas(rt, k, (int64_t)1 << log2n);
  }
  speck_runtime_close(rt);
  return 0;
}
