/* test_kernel_api.c: the C kernel API of speck.h beyond the contract
 * example: scans, library kernels from C, kernels that need tcc's run-time
 * library (found with no Lua state), and every bad input answered with a
 * status and a message naming the call and the object. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/speck.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* 'rc' failed with a message holding 'want' */
static int says(int rc, const char *err, const char *want) {
  if (rc == 0) return 0;
  if (!strstr(err, want)) {
    printf("  message: %s\n  wanted:  %s\n", err, want);
    return 0;
  }
  return 1;
}

int main(void) {
  char err[1024];
  setenv("SPECK_SPACE", "serial", 1);
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL);
  if (!rt) {
    printf("%s\n0 passed, 1 failed\n", err);
    return 1;
  }
  CHECK(strcmp(speck_runtime_space(rt), "serial") == 0);
  /* a second open shares the runtime; a different space is refused */
  speck_runtime *rt2 = speck_runtime_open("serial", 0, err, sizeof err);
  CHECK(rt2 != NULL);
  CHECK(speck_runtime_open("openmp", 0, err, sizeof err) == NULL &&
        strstr(err, "speck_runtime_open: ") == err &&
        strstr(err, "already running") != NULL);
  CHECK(speck_runtime_open("mars", 0, err, sizeof err) == NULL &&
        strstr(err, "mars") != NULL);
  speck_runtime_close(rt2);

  int64_t n = 100;
  speck_view *x = speck_view_new(rt, "x", "float64", 1, &n, NULL, err, sizeof err);
  speck_view *u = speck_view_new(rt, "u", "uint64", 1, &n, "host", err, sizeof err);
  CHECK(x && u && speck_view_extent(x, 0) == 100);
  double *xd = speck_view_data(x);
  for (int i = 0; i < n; i++) xd[i] = i;

  /* a scan */
  double total = 0;
  speck_arg ax[] = {speck_arg_view("x", x)};
  CHECK(speck_run_scan(rt, "cumsum", 0, n, ax, 1,
                       "double v = x(i); if (final) x(i) = acc; acc += v;", &total, err,
                       sizeof err) == 0);
  CHECK(total == 4950 && xd[0] == 0 && xd[99] == 4851);

  /* double -> uint64 needs libtcc1.a (__fixunsdfdi): found without Lua */
  speck_arg au[] = {speck_arg_view("u", u), speck_arg_f64("s", 2.5)};
  int rc = speck_run_for(rt, "to_u64", 0, n, au, 2, "u(i) = (uint64_t)(s * (double)i);",
                         err, sizeof err);
  if (rc) printf("  %s\n", err);
  CHECK(rc == 0 && ((uint64_t *)speck_view_data(u))[3] == 7);

  /* kept launches: the same label and body again run the kept kernel; a
   * buffer reused for another body, other arguments, another reducer or
   * a view of another dtype each run what they say */
  double r = 0;
  char body[64];
  speck_arg ai[] = {speck_arg_view("x", x), speck_arg_f64("s", 1.0)};
  for (int rep = 0; rep < 3; rep++) {
    snprintf(body, sizeof body, "x(i) = s * %d;", rep % 2 ? 3 : 2);
    ai[1] = speck_arg_f64("s", rep + 1.0);
    CHECK(speck_run_for(rt, "kept", 0, n, ai, 2, body, err, sizeof err) == 0 &&
          xd[5] == (rep + 1.0) * (rep % 2 ? 3 : 2));
  }
  CHECK(speck_run_reduce(rt, "kept", 0, n, ai, 2, "acc = x(i) > acc ? x(i) : acc;", "max",
                         &r, err, sizeof err) == 0 &&
        r == 6);
  /* the same body under "min" starts from +inf and keeps it */
  CHECK(speck_run_reduce(rt, "kept", 0, n, ai, 2, "acc = x(i) > acc ? x(i) : acc;", "min",
                         &r, err, sizeof err) == 0 &&
        isinf(r) && r > 0);
  CHECK(speck_run_reduce(rt, "kept", 0, n, ai, 1, "acc = x(i) > acc ? x(i) : acc;", "max",
                         &r, err, sizeof err) == 0 &&
        r == 6);
  speck_arg au2[] = {speck_arg_view("x", u), speck_arg_f64("s", 1.0)};
  CHECK(speck_run_for(rt, "kept", 0, n, au2, 2, "x(i) = s * 2;", err, sizeof err) == 0 &&
        ((uint64_t *)speck_view_data(u))[5] == 2);
  CHECK(speck_run_for(rt, "kept", 0, n, ai, 2, "x(i) = i;", err, sizeof err) == 0 &&
        xd[5] == 5);

  /* library kernels */
  CHECK(speck_call(rt, "blas.asum", ax, 1, &r, err, sizeof err) == 0 && r > 0);
  speck_arg scal[] = {speck_arg_f64("a", 0.0), speck_arg_view("x", x)};
  CHECK(speck_call(rt, "blas.scal", scal, 2, NULL, err, sizeof err) == 0);
  CHECK(speck_call(rt, "blas.iamax", ax, 1, &r, err, sizeof err) == 0 && r == 0);

  /* bad input: a status and a message, nothing lost */
  CHECK(says(speck_call(rt, "blas.dot", ax, 1, &r, err, sizeof err), err,
             "speck_call blas.dot: y must be a view"));
  CHECK(says(speck_call(rt, "no.such", ax, 1, &r, err, sizeof err), err,
             "speck_call: no library kernel 'no.such' (families: blas"));
  CHECK(says(speck_call(NULL, "blas.dot", ax, 1, &r, err, sizeof err), err,
             "speck_call: runtime is NULL"));
  speck_arg noview[] = {{"x", SPECK_ARG_VIEW, NULL, 0, 0, NULL}};
  CHECK(says(speck_run_for(rt, "k", 0, 4, noview, 1, "", err, sizeof err), err,
             "speck_run_for 'k': argument 'x' has no view"));
  speck_arg badkind[] = {{"x", 42, NULL, 0, 0, NULL}};
  CHECK(says(speck_run_for(rt, "k", 0, 4, badkind, 1, "", err, sizeof err), err,
             "speck_run_for 'k': argument 'x' has unknown kind 42"));
  CHECK(says(speck_run_for(rt, "k", 5, 2, ax, 1, "", err, sizeof err), err,
             "speck_run_for 'k': range end 2 is before begin 5"));
  CHECK(says(speck_run_for(rt, "k", 0, 4, ax, 1, NULL, err, sizeof err), err,
             "speck_run_for 'k': body is NULL"));
  CHECK(says(speck_run_for(rt, "k", 0, 4, ax, 1, "x(i, 0) = 1;", err, sizeof err), err,
             "speck_run_for 'k': view 'x' is rank 1, body indexes it with 2 indices"));
  CHECK(says(
    speck_run_reduce(rt, "k", 0, 4, ax, 1, "acc += x(i);", "avg", &r, err, sizeof err),
    err, "speck_run_reduce 'k': unknown reducer 'avg'"));
  CHECK(says(speck_run_for(NULL, "k", 0, 4, ax, 1, "", err, sizeof err), err,
             "speck_run_for 'k': runtime is NULL"));
  CHECK(speck_view_new(rt, "v", "complex", 1, &n, NULL, err, sizeof err) == NULL &&
        strstr(err, "speck_view_new 'v': unknown dtype 'complex'"));
  CHECK(speck_view_new(rt, "v", "float64", 9, &n, NULL, err, sizeof err) == NULL &&
        strstr(err, "speck_view_new 'v': rank 9"));
  CHECK(speck_view_new(rt, "v", "float64", 1, &n, "mars", err, sizeof err) == NULL &&
        strstr(err, "speck_view_new 'v': unknown space 'mars'"));
  CHECK(speck_view_wrap(rt, "w", "float64", 1, &n, NULL, err, sizeof err) == NULL &&
        strstr(err, "speck_view_wrap 'w': host_data is NULL"));
  int64_t m = 7;
  speck_view *y = speck_view_new(rt, "y", "float64", 1, &m, NULL, err, sizeof err);
  CHECK(
    says(speck_deep_copy(y, x, err, sizeof err), err, "speck_deep_copy 'y' <- 'x': "));
  CHECK(
    says(speck_deep_copy(NULL, x, err, sizeof err), err, "speck_deep_copy: dst is NULL"));
  /* everything still works */
  CHECK(speck_run_reduce(rt, "sum", 0, n, ax, 1, "acc += 1;", NULL, &r, err,
                         sizeof err) == 0 &&
        r == 100);
  CHECK(speck_fence(rt, err, sizeof err) == 0);

  speck_view_release(x);
  speck_view_release(u);
  speck_view_release(y);
  speck_runtime_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
