/* test_bad_input.c: the C kernel API's bad-input catalog (the Lua one is
 * tests/bad_input_spec.lua). Every case asserts the status and the exact
 * message (the call, the object, what is wrong), then runs correct
 * kernels on the same runtime and checks that every view involved kept
 * its data. */
#define _GNU_SOURCE
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

static speck_runtime *rt;
static speck_view *x, *m; /* x: float64[16] = 2i; m: int32[3][4] = 10i + j */
static char err[2048];

/* status 'rc' is 'want_rc' and the message is exactly 'want' */
static int is(int rc, int want_rc, const char *want) {
  if (rc == want_rc && strcmp(err, want) == 0) return 1;
  printf("  status %d (wanted %d)\n  message: %s\n  wanted:  %s\n", rc, want_rc, err,
         want);
  return 0;
}

/* a NULL result with exactly 'want' */
static int null_with(const void *p, const char *want) {
  if (!p && strcmp(err, want) == 0) return 1;
  printf("  result %p\n  message: %s\n  wanted:  %s\n", p, err, want);
  return 0;
}

/* the views kept their data; correct kernels over them run */
static int intact(void) {
  const double *xd = speck_view_data(x);
  const int *md = speck_view_data(m);
  for (int i = 0; i < 16; i++)
    if (xd[i] != 2.0 * i) return 0;
  for (int i = 0; i < 12; i++)
    if (md[i] != 10 * (i / 4) + i % 4) return 0;
  char e[512];
  speck_arg ax = speck_arg_view("x", x), am = speck_arg_view("m", m);
  double r = 0;
  e[0] = '\0';
  if (speck_run_reduce(rt, "ok_sum", 0, 16, &ax, 1, "acc += x(i);", NULL, &r, e,
                       sizeof e) != 0 ||
      r != 240.0) {
    printf("  ok_sum: %g %s\n", r, e);
    return 0;
  }
  if (speck_run_reduce(rt, "ok_m", 0, 3, &am, 1, "if (m(i, 3) > acc) acc = m(i, 3);",
                       "max", &r, e, sizeof e) != 0 ||
      r != 23.0) {
    printf("  ok_m: %g %s\n", r, e);
    return 0;
  }
  if (speck_call(rt, "blas.asum", &ax, 1, &r, e, sizeof e) != 0 || r != 240.0) {
    printf("  asum: %g %s\n", r, e);
    return 0;
  }
  return 1;
}

#define CASE(c) \
  do { \
    err[0] = '\0'; \
    CHECK(c); \
    CHECK(intact()); \
  } while (0)

int main(void) {
  setenv("SPECK_SPACE", "serial", 1);
  rt = speck_runtime_open(NULL, 1, err, sizeof err);
  if (!rt) {
    printf("%s\n0 passed, 1 failed\n", err);
    return 1;
  }
  int64_t n = 16, ext2[2] = {3, 4};
  x = speck_view_new(rt, "x", "float64", 1, &n, NULL, err, sizeof err);
  m = speck_view_new(rt, "m", "int32", 2, ext2, "host", err, sizeof err);
  if (!x || !m) {
    printf("%s\n0 passed, 1 failed\n", err);
    return 1;
  }
  double *xd = speck_view_data(x);
  int *md = speck_view_data(m);
  for (int i = 0; i < 16; i++) xd[i] = 2.0 * i;
  for (int i = 0; i < 12; i++) md[i] = 10 * (i / 4) + i % 4;
  CHECK(intact());

  speck_arg ax = speck_arg_view("x", x), am = speck_arg_view("m", m);
  double r;
  int64_t neg = -3, big = (int64_t)1 << 60;

  /* -- runtimes -------------------------------------------------------------- */
  CASE(null_with(speck_runtime_open("serial", -2, err, sizeof err),
                 "speck_runtime_open: threads -2 is negative"));
  CASE(null_with(
    speck_runtime_open("mars", 0, err, sizeof err),
    "speck_runtime_open: unknown space 'mars' (expected serial, openmp or cuda)"));
  CASE(null_with(speck_runtime_open("openmp", 0, err, sizeof err),
                 "speck_runtime_open: already running with space 'serial', asked for "
                 "'openmp' (call speck.finalize() first)"));
  CASE(
    is(speck_fence(NULL, err, sizeof err), SPECK_EARG, "speck_fence: runtime is NULL"));

  /* -- views ------------------------------------------------------------------- */
  CASE(null_with(speck_view_new(rt, "v", "complex", 1, &n, NULL, err, sizeof err),
                 "speck_view_new 'v': unknown dtype 'complex'"));
  CASE(null_with(speck_view_new(rt, "v", NULL, 1, &n, NULL, err, sizeof err),
                 "speck_view_new 'v': unknown dtype '(null)'"));
  CASE(null_with(speck_view_new(rt, "v", "float64", 9, &n, NULL, err, sizeof err),
                 "speck_view_new 'v': rank 9 needs 9 extents (rank 0..8)"));
  CASE(null_with(speck_view_new(rt, "v", "float64", 2, NULL, NULL, err, sizeof err),
                 "speck_view_new 'v': rank 2 needs 2 extents (rank 0..8)"));
  CASE(null_with(speck_view_new(rt, "v", "float64", 1, &neg, NULL, err, sizeof err),
                 "speck_view_new 'v': extent 0 is -3 (must be a non-negative integer)"));
  CASE(null_with(speck_view_new(rt, "v", "float64", 1, &n, "mars", err, sizeof err),
                 "speck_view_new 'v': unknown space 'mars'"));
  CASE(null_with(speck_view_new(rt, "v", "float64", 1, &big, NULL, err, sizeof err),
                 "speck_view_new 'v': cannot allocate 9223372036854775808 bytes"));
  int64_t big2[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
  CASE(
    null_with(speck_view_new(rt, "v", "int8", 2, big2, NULL, err, sizeof err),
              "speck_view_new 'v': cannot allocate [1099511627776][1099511627776] int8: "
              "the size overflows 64 bits"));
  CASE(null_with(speck_view_new(NULL, "v", "float64", 1, &n, NULL, err, sizeof err),
                 "speck_view_new 'v': runtime is NULL"));
  CASE(null_with(speck_view_wrap(rt, "w", "float64", 1, &n, NULL, err, sizeof err),
                 "speck_view_wrap 'w': host_data is NULL"));
  CASE(is(speck_deep_copy(x, m, err, sizeof err), SPECK_ERUN,
          "speck_deep_copy 'x' <- 'm': dtypes differ: 'x' is float64, 'm' is int32 "
          "(deep_copy does not convert)"));
  CASE(is(speck_deep_copy(NULL, x, err, sizeof err), SPECK_EARG,
          "speck_deep_copy: dst is NULL"));
  CASE(is(speck_deep_copy(x, NULL, err, sizeof err), SPECK_EARG,
          "speck_deep_copy: src is NULL"));

  /* -- kernels ------------------------------------------------------------------ */
  CASE(is(speck_run_for(NULL, "k", 0, 4, &ax, 1, "x(i) = 0;", err, sizeof err),
          SPECK_EARG, "speck_run_for 'k': runtime is NULL"));
  CASE(is(speck_run_for(rt, "k", 0, 4, &ax, 1, NULL, err, sizeof err), SPECK_EARG,
          "speck_run_for 'k': body is NULL"));
  CASE(is(speck_run_for(rt, "k", 0, 4, &ax, -1, "x(i) = 0;", err, sizeof err), SPECK_EARG,
          "speck_run_for 'k': -1 arguments (0..64, and not NULL)"));
  CASE(is(speck_run_for(rt, "k", 0, 4, NULL, 2, "x(i) = 0;", err, sizeof err), SPECK_EARG,
          "speck_run_for 'k': 2 arguments (0..64, and not NULL)"));
  speck_arg noview = {"x", SPECK_ARG_VIEW, NULL, 0, 0, NULL};
  CASE(is(speck_run_for(rt, "k", 0, 4, &noview, 1, "x(i) = 0;", err, sizeof err),
          SPECK_EARG, "speck_run_for 'k': argument 'x' has no view"));
  speck_arg oddkind = {"q", 42, NULL, 0, 0, NULL};
  CASE(is(speck_run_for(rt, "k", 0, 4, &oddkind, 1, "(void)i;", err, sizeof err),
          SPECK_EARG, "speck_run_for 'k': argument 'q' has unknown kind 42"));
  speck_arg twice[2] = {ax, ax};
  CASE(is(speck_run_for(rt, "k", 0, 4, twice, 2, "x(i) = 0;", err, sizeof err),
          SPECK_ERUN, "speck_run_for 'k': capture 'x' is given twice"));
  speck_arg noname = speck_arg_view(NULL, x);
  CASE(is(speck_run_for(rt, "k", 0, 4, &noname, 1, "(void)i;", err, sizeof err),
          SPECK_ERUN, "speck_run_for 'k': capture 1 has no name"));
  speck_arg badname = speck_arg_f64("a b", 1.0);
  CASE(is(speck_run_for(rt, "k", 0, 4, &badname, 1, "(void)i;", err, sizeof err),
          SPECK_ERUN, "speck_run_for 'k': capture name 'a b' is not a C identifier"));
  CASE(is(speck_run_for(rt, "k", 5, 2, &ax, 1, "x(i) = 0;", err, sizeof err), SPECK_ERUN,
          "speck_run_for 'k': range end 2 is before begin 5"));
  CASE(is(
    speck_run_for(rt, "k", 0, 4, &ax, 1, "x(i, 0) = 1;", err, sizeof err), SPECK_ERUN,
    "speck_run_for 'k': view 'x' is rank 1, body indexes it with 2 indices (body line 1)"));
  CASE(is(speck_run_for(rt, "k", 0, 4, &am, 1, "m(i, 0) = 0; }", err, sizeof err),
          SPECK_ERUN,
          "speck_run_for 'k': '}' on body line 1 closes nothing: the body cannot close a "
          "block it did not open"));
  CASE(is(
    speck_run_for(rt, "k", 0, 4, &ax, 1, "x(i) = nope;", err, sizeof err), SPECK_ERUN,
    "speck_run_for 'k': body does not compile:\nbody line 1: error: 'nope' undeclared"));
  CASE(is(speck_run_for(rt, "k", 0, 4, &ax, 1, "team_barrier(team);", err, sizeof err),
          SPECK_ERUN,
          "speck_run_for 'k': 'team_barrier' is a team construct, but this kernel runs a "
          "RangePolicy (use a TeamPolicy) (body line 1)"));
  CASE(is(
    speck_run_reduce(rt, "k", 0, 4, &ax, 1, "acc += x(i);", "avg", &r, err, sizeof err),
    SPECK_EARG,
    "speck_run_reduce 'k': unknown reducer 'avg' (sum, prod, min, max, minloc, "
    "maxloc, land, lor, band, bor)"));
  CASE(is(speck_run_reduce(rt, "k", 0, 4, &ax, 1, "acc += x(i);", "minmax", &r, err,
                           sizeof err),
          SPECK_EARG,
          "speck_run_reduce 'k': unknown reducer 'minmax' (sum, prod, min, max, minloc, "
          "maxloc, land, lor, band, bor)"));
  CASE(is(speck_run_scan(rt, "k", 0, 4, &ax, 1, "if (final) x(i) = acc; acc += ;", &r,
                         err, sizeof err),
          SPECK_ERUN,
          "speck_run_scan 'k': body does not compile:\nbody line 1: error: "
          "identifier expected"));

  /* -- library kernels ------------------------------------------------------------ */
  CASE(is(
    speck_call(rt, "no.such", &ax, 1, &r, err, sizeof err), SPECK_ERUN,
    "speck_call: no library kernel 'no.such' (families: blas, batched, sparse, graph, sort, solve)"));
  CASE(is(speck_call(rt, "blas.nosuch", &ax, 1, &r, err, sizeof err), SPECK_ERUN,
          "speck_call: no library kernel 'blas.nosuch' (known: blas.dot, blas.nrm2, "
          "blas.asum, blas.iamax, blas.scal, blas.axpy, blas.axpby, blas.gemv, "
          "blas.gemm, blas.syrk, blas.trsm, blas.trmm, blas.potrf, blas.getrf, "
          "blas.getrs, blas.gesv, blas.trtri, blas.zdot, blas.znrm2, blas.zscal, "
          "blas.zaxpy, blas.zgemv, blas.zgemm, blas.ztrsm, blas.zpotrf, blas.zgetrf, "
          "blas.zgetrs, blas.zgesv, blas.ztrtri, blas.ztrmm, blas.zsyrk, blas.zherk)"));
  CASE(is(speck_call(rt, "blas.dot", &ax, 1, &r, err, sizeof err), SPECK_ERUN,
          "speck_call blas.dot: y must be a view"));
  speck_arg xm[2] = {ax, speck_arg_view("y", m)};
  CASE(is(speck_call(rt, "blas.dot", xm, 2, &r, err, sizeof err), SPECK_ERUN,
          "speck_call blas.dot: y (view 'm') is rank 2, expected rank 1"));
  CASE(is(speck_call(NULL, "blas.dot", &ax, 1, &r, err, sizeof err), SPECK_EARG,
          "speck_call: runtime is NULL"));

  /* -- interrupts -------------------------------------------------------------------- */
  CHECK(speck_interrupt() == 0); /* nothing was running */
  err[0] = '\0';
  CHECK(is(speck_run_for(rt, "k", 0, 16, &ax, 1, "x(i) = -1;", err, sizeof err),
           SPECK_ERUN, "speck_run_for 'k': interrupted"));
  speck_interrupt_clear();
  CHECK(intact());

  speck_view_release(x);
  speck_view_release(m);
  speck_runtime_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
