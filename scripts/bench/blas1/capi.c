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

#define BENCH_IMPL "speck-c"
#include "../lib/bench.h"

static char err[4096];

static void check(int rc) {
  if (rc != SPECK_OK) {
    fprintf(stderr, "capi: %s\n", err);
    exit(1);
  }
}

static speck_view *view(speck_runtime *rt, const char *label, int64_t n) {
  speck_view *v = speck_view_new(rt, label, "float64", 1, &n, NULL, err, sizeof err);
  if (!v) check(-1);
  return v;
}

typedef struct blas_call {
  speck_runtime *rt;
  const char *name;
  speck_arg *a;
  int nargs;
  double s;
} blas_call;

static void call_blas(void *arg) {
  blas_call *c = arg;
  check(speck_call(c->rt, c->name, c->a, c->nargs, &c->s, err, sizeof err));
  check(speck_fence(c->rt, err, sizeof err));
}

static void bench_blas(speck_runtime *rt, const char *kernel, int64_t n) {
  int dot = strcmp(kernel, "dot") == 0;
  speck_view *x = view(rt, "x", n), *y = view(rt, "y", n);
  /* x, y as ref.c fills them, by plain C through the data pointers: a
   * kernel would start a background cc compile that runs during the timed
   * calls */
  init_xy(speck_view_data(x), speck_view_data(y), n);
  speck_arg a[3] = {speck_arg_view("x", x), speck_arg_view("y", y),
                    speck_arg_f64("a", 0.5)};
  blas_call c = {rt, dot ? "blas.dot" : "blas.axpy", a, dot ? 2 : 3, 0};
  double t = time_reps(call_blas, &c), s = c.s;
  if (!dot) {
    speck_arg ay = speck_arg_view("x", y); /* y > 0: asum is its sum */
    check(speck_call(rt, "blas.asum", &ay, 1, &s, err, sizeof err));
  }
  record(kernel, t, (dot ? 16.0 : 24.0) * (double)n, s);
  speck_view_release(x);
  speck_view_release(y);
}

static speck_runtime *the_rt;

static void empty_launch(void *arg) {
  (void)arg;
  check(speck_run_for(the_rt, "bench_empty", 0, 1024, NULL, 0, "/* empty */", err,
                      sizeof err));
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
