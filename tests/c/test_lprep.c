/* test_lprep.c: library launches kept per body and thread (sk_lprep,
 * sk_run_again) give the results and messages of the general path.
 *
 * A kept launch must be dropped whenever what it was made for changes:
 * the views' dtype, layout or aliasing (x passed as y too), the capture
 * names' order at one body (named from a buffer rewritten between
 * launches, as a caller's stack would), a scalar's dtype, the cache
 * (cleared: its kernels freed), the bounds-check mode. Each case checks the
 * values the kernel wrote, on serial and on openmp (two threads), and
 * the jit's launch counts of the kept path stay those of a cache hit, and
 * the kept path marks the views it writes. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/speck.h"
#include "exec/exec.h"
#include "jit/jit.h"
#include "kernels/kernels.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

static char err[4096];

static speck_view *vec(speck_runtime *rt, const char *dtype, int64_t n, double first) {
  speck_view *v = speck_view_new(rt, "v", dtype, 1, &n, NULL, err, sizeof err);
  if (!v) return NULL;
  for (int64_t i = 0; i < n; i++) {
    double x = first + (double)i;
    if (strcmp(dtype, "float32") == 0) ((float *)speck_view_data(v))[i] = (float)x;
    else ((double *)speck_view_data(v))[i] = x;
  }
  return v;
}

static double at(speck_view *v, const char *dtype, int64_t i) {
  return strcmp(dtype, "float32") == 0 ? ((float *)speck_view_data(v))[i]
                                       : ((double *)speck_view_data(v))[i];
}

/* blas.dot and blas.axpy through the library entries, alternating dtypes
 * and aliasing: every call right */
static void test_blas(speck_runtime *rt) {
  const char *dts[] = {"float64", "float32", "float64", "float32", "float64"};
  for (int r = 0; r < 5; r++) {
    const char *dt = dts[r];
    speck_view *x = vec(rt, dt, 7, 1), *y = vec(rt, dt, 7, 10);
    CHECK(x && y);
    if (!x || !y) return;
    for (int k = 0; k < 3; k++) { /* again and again: the kept launch */
      double d = 0;
      speck_arg a[2] = {speck_arg_view("x", x), speck_arg_view("y", y)};
      CHECK(speck_call(rt, "blas.dot", a, 2, &d, err, sizeof err) == 0);
      double want = 0;
      for (int i = 0; i < 7; i++) want += at(x, dt, i) * at(y, dt, i);
      CHECK(d == want);
    }
    /* y = 2 x + y, then x = 2 x + x (x as both: aliased), then y again */
    speck_arg ax[3] = {speck_arg_f64("a", 2.0), speck_arg_view("x", x),
                       speck_arg_view("y", y)};
    CHECK(speck_call(rt, "blas.axpy", ax, 3, NULL, err, sizeof err) == 0);
    for (int i = 0; i < 7; i++) CHECK(at(y, dt, i) == 2.0 * (1 + i) + (10 + i));
    speck_arg aa[3] = {speck_arg_f64("a", 2.0), speck_arg_view("x", x),
                       speck_arg_view("y", x)};
    CHECK(speck_call(rt, "blas.axpy", aa, 3, NULL, err, sizeof err) == 0);
    for (int i = 0; i < 7; i++) CHECK(at(x, dt, i) == 3.0 * (1 + i));
    CHECK(speck_call(rt, "blas.axpy", ax, 3, NULL, err, sizeof err) == 0);
    for (int i = 0; i < 7; i++) CHECK(at(y, dt, i) == 8.0 * (1 + i) + (10 + i));
    /* a bad call keeps its message: lengths differ */
    speck_view *z = vec(rt, dt, 5, 0);
    speck_arg az[3] = {speck_arg_f64("a", 2.0), speck_arg_view("x", x),
                       speck_arg_view("y", z)};
    CHECK(speck_call(rt, "blas.axpy", az, 3, NULL, err, sizeof err) < 0);
    CHECK(strcmp(err, "speck_call blas.axpy: x (view 'v') has 7 elements, y (view 'v') 5") ==
          0);
    speck_view_release(z);
    speck_view_release(x);
    speck_view_release(y);
  }
}

/* the library's body labelled 'label' (a constant: kept launches are
 * made for those only) */
static const sk_kbody *library_body(const char *label) {
  const sk_kbody *kb;
  for (int i = 0; (kb = sk_kbody_at(i)) != NULL; i++)
    if (strcmp(kb->label, label) == 0) return kb;
  return NULL;
}

/* blas.axpy's body (y(i) += a * x(i)) launched by hand: its captures
 * named from a buffer rewritten between launches (as a caller's stack
 * would), in changing orders, with an int64 'a' */
static int axpy_body(sk_view *x, sk_view *y, double a, int order, int i64) {
  char na[8], nx[8], ny[8];
  snprintf(na, sizeof na, "a");
  snprintf(nx, sizeof nx, "x");
  snprintf(ny, sizeof ny, "y");
  sk_arg sa = i64 ? sk_arg_i64(na, (int64_t)a) : sk_arg_f64(na, a);
  sk_arg args[3];
  if (order == 0) {
    args[0] = sa;
    args[1] = sk_arg_view(nx, x);
    args[2] = sk_arg_view(ny, y);
  } else {
    args[0] = sk_arg_view(ny, y);
    args[1] = sa;
    args[2] = sk_arg_view(nx, x);
  }
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = y->extent[0];
  return sk_kbody_launch(library_body("blas.axpy"), &p, args, 3, NULL, err, sizeof err);
}

static void test_body(speck_runtime *rt) {
  CHECK(library_body("blas.axpy") != NULL);
  if (!library_body("blas.axpy")) return;
  speck_view *xv = vec(rt, "float64", 4, 1), *yv = vec(rt, "float64", 4, 0);
  CHECK(xv && yv);
  if (!xv || !yv) return;
  /* a speck_view holds its sk_view first (api/api.c) */
  sk_view *x = (sk_view *)xv, *y = (sk_view *)yv;
  double *d = speck_view_data(yv);
  double sum_a = 0;
  struct {
    double a;
    int order, i64, clear, bounds;
  } steps[] = {
    {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {3, 1, 0, 0, 0}, {3, 1, 0, 0, 0}, {2, 0, 1, 0, 0},
    {2, 0, 1, 0, 0}, {1, 0, 0, 1, 0}, {1, 0, 0, 0, 0}, {5, 1, 0, 0, 1}, {5, 1, 0, 0, 1},
    {1, 0, 0, 0, 0},
  };
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    if (steps[k].clear) sk_cache_clear();
    sk_exec_set_bounds(steps[k].bounds);
    CHECK(axpy_body(x, y, steps[k].a, steps[k].order, steps[k].i64) == 0);
    sum_a += steps[k].a;
    for (int i = 0; i < 4; i++) CHECK(d[i] == (double)i + sum_a * (1 + i));
  }
  sk_exec_set_bounds(-1);
  /* a kept launch with a bad policy: the general path's message */
  sk_arg args[3] = {sk_arg_f64("a", 1), sk_arg_view("x", x), sk_arg_view("y", y)};
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = -1;
  CHECK(sk_kbody_launch(library_body("blas.axpy"), &p, args, 3, NULL, err, sizeof err) < 0);
  CHECK(strcmp(err, "range end -1 is negative") == 0);
  speck_view_release(xv);
  speck_view_release(yv);
}

/* launches and hits of every kernel labelled 'label' */
static void counts(const char *label, int64_t *launches, int64_t *hits) {
  *launches = *hits = 0;
  for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) {
    if (strcmp(k->label, label) != 0) continue;
    sk_kstats st;
    sk_jit_kstats(k, &st);
    *launches += st.launches;
    *hits += st.hits;
  }
}

/* a kept launch counts as a cache hit: launches and hits go up by one */
static void test_counts(speck_runtime *rt) {
  speck_view *xv = vec(rt, "float64", 3, 0), *yv = vec(rt, "float64", 3, 0);
  CHECK(xv && yv);
  if (!xv || !yv) return;
  CHECK(axpy_body((sk_view *)xv, (sk_view *)yv, 1, 0, 0) == 0);
  for (int i = 0; i < 3; i++) {
    int64_t l0, h0, l1, h1;
    counts("blas.axpy", &l0, &h0);
    const sk_alloc *ya = ((sk_view *)yv)->alloc;
    const uint64_t w0 = ya ? ya->wgen : 0;
    CHECK(axpy_body((sk_view *)xv, (sk_view *)yv, 1, i % 2, 0) == 0);
    /* the kept launch marks what it writes, as the general path does (a
     * compact index of the view, kernels/sparse/csr16.c, is then stale) */
    CHECK(ya && ya->wgen > w0);
    counts("blas.axpy", &l1, &h1);
    CHECK(l1 == l0 + 1);
    CHECK(h1 == h0 + 1);
  }
  speck_view_release(xv);
  speck_view_release(yv);
}

int main(void) {
  const char *spaces[] = {"serial", "openmp"};
  for (int s = 0; s < 2; s++) {
    speck_runtime *rt = speck_runtime_open(spaces[s], 2, err, sizeof err);
    CHECK(rt != NULL);
    if (!rt) {
      printf("%s\n", err);
      continue;
    }
    test_blas(rt);
    test_body(rt);
    test_counts(rt);
    speck_runtime_close(rt);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
