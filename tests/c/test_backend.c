/* test_backend.c: the back-end table is the only switch. A back end
 * defined here, outside backends/ -- a bounds-checking serial space that
 * starts from the serial reference table, checks every view argument's
 * metadata before it runs a launch and counts launches -- is registered at
 * run time and runs parallel_for, parallel_reduce and parallel_scan through
 * sk_run with no other change anywhere. Also: policies are refused before
 * anything is compiled, and a scan over teams is refused in one place. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* -- the checked back end ------------------------------------------------ */
static sk_backend checked;
static int launches, refused;

/* every view slot must describe memory: data, extents >= 0 */
static int check_args(const sk_launch *l, char *err, size_t errlen) {
  launches++;
  for (int a = 0; a < l->nargs; a++) {
    const sk_varg *v = &l->args[a].v;
    if (v->rank < 0 || v->rank > SK_MAXRANK) continue; /* a scalar slot */
    for (int d = 0; d < v->rank; d++)
      if (v->extent[d] < 0) {
        refused++;
        snprintf(err, errlen, "checked: argument %d has extent %ld", a, v->extent[d]);
        return -1;
      }
  }
  return 0;
}

static int c_launch(const sk_launch *l, char *e, size_t n) {
  return check_args(l, e, n) < 0 ? -1 : sk_backend_serial.launch(l, e, n);
}

static int run1(const char *label, int pattern, const char *body, int64_t n, sk_arg *args,
                int nargs, sk_result *res, char *err, size_t errlen) {
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = label;
  d.body = body;
  d.pattern = pattern;
  d.bounds = -1;
  d.tier = SK_TIER_TCC;
  d.backend = &checked;
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return sk_run(&d, &p, args, nargs, res, err, errlen);
}

int main(void) {
  char err[4096];
  checked = sk_backend_serial; /* start from the reference */
  checked.name = "checked";
  checked.launch = c_launch;
  CHECK(sk_backend_register(&checked, err, sizeof err) == 0);
  CHECK(sk_backend_find("checked") == &checked);
  /* a name can be registered once */
  CHECK(sk_backend_register(&checked, err, sizeof err) < 0);
  CHECK(strstr(err, "back end 'checked' exists") != NULL);
  /* an incomplete table is refused */
  sk_backend half;
  memset(&half, 0, sizeof half);
  half.name = "half";
  CHECK(sk_backend_register(&half, err, sizeof err) < 0);
  CHECK(strstr(err, "incomplete") != NULL);

  enum { N = 1000 };
  sk_view x, y;
  int64_t n = N;
  CHECK(sk_view_create(&x, "x", SK_F64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 1, NULL, err,
                       sizeof err) == 0);
  CHECK(sk_view_create(&y, "y", SK_F64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 1, NULL, err,
                       sizeof err) == 0);
  double *xd = x.data, *yd = y.data;
  for (int i = 0; i < N; i++) xd[i] = i;

  /* parallel_for */
  sk_arg a[3] = {sk_arg_view("x", &x), sk_arg_view("y", &y), sk_arg_f64("a", 2.0)};
  CHECK(run1("axpy", SK_FOR, "y(i) = a * x(i) + y(i);", N, a, 3, NULL, err, sizeof err) ==
        0);
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= yd[i] == 2.0 * i;
  CHECK(ok);
  CHECK(launches == 1);

  /* parallel_reduce */
  sk_result r;
  CHECK(run1("sum", SK_REDUCE, "acc += y(i);", N, a + 1, 1, &r, err, sizeof err) == 0);
  CHECK(sk_result_f64(&r, 0) == (double)N * (N - 1));
  CHECK(launches == 2);

  /* parallel_scan: an exclusive prefix sum of x into y */
  CHECK(run1("scan", SK_SCAN, "if (final) y(i) = acc; acc += x(i);", N, a, 2, &r, err,
             sizeof err) == 0);
  CHECK(sk_result_f64(&r, 0) == (double)N * (N - 1) / 2);
  CHECK(yd[0] == 0 && yd[10] == 45 && yd[N - 1] == (double)(N - 1) * (N - 2) / 2);
  CHECK(launches == 3);

  /* the back end's own check refuses a launch: the error comes back */
  sk_view bad = x;
  bad.extent[0] = -5;
  sk_arg b1[1] = {sk_arg_view("x", &bad)};
  CHECK(run1("bad", SK_FOR, "(void)x;", 0, b1, 1, NULL, err, sizeof err) < 0);
  CHECK(refused == 1 && strstr(err, "checked: argument 0 has extent -5") != NULL);

  /* a compile error names the body */
  CHECK(run1("broken", SK_FOR, "x(i) = nope;", N, a, 1, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "body does not compile") != NULL);

  /* policies are refused before compiling: no kernel is made */
  sk_jit_totals t0, t1;
  sk_cache_totals(&t0);
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = "never";
  d.body = "acc += 1; /* never compiled */";
  d.pattern = SK_SCAN;
  d.bounds = -1;
  d.backend = &checked;
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = 4;
  CHECK(sk_run(&d, &p, NULL, 0, &r, err, sizeof err) < 0);
  CHECK(strcmp(err, "parallel_scan does not take a TeamPolicy (as in Kokkos)") == 0);
  sk_policy_init(&p, SK_POL_RANGE);
  p.begin = INT64_MIN;
  p.end = INT64_MAX;
  d.pattern = SK_FOR;
  CHECK(sk_run(&d, &p, NULL, 0, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "has more than 2^63 - 1 iterations") != NULL);
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = 1;
  p.team_size = 1;
  p.scratch_team[0] = INT64_MAX; /* + 1 x 16 per thread wraps */
  p.scratch_thread[0] = 16;
  CHECK(sk_run(&d, &p, NULL, 0, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "scratch level 0 asks more than 2^63 - 1 bytes") != NULL);
  p.scratch_team[0] = 16; /* fits in int64, above the limit */
  p.scratch_thread[0] = ((int64_t)1 << 62) + 16;
  CHECK(sk_run(&d, &p, NULL, 0, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "scratch level 0 asks 4611686018427387936 bytes") != NULL);
  sk_cache_totals(&t1);
  CHECK(t1.kernels == t0.kernels && t1.compiles == t0.compiles);

  /* views the back end does not reach are refused, naming both */
  sk_view dev = x;
  dev.space = sk_space_parse("cuda");
  sk_arg c1[1] = {sk_arg_view("x", &dev)};
  CHECK(run1("far", SK_FOR, "x(i) = 0;", N, c1, 1, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "view 'x' (capture 'x') lives in space cuda; this kernel "
                    "runs on checked") != NULL);

  sk_view_release(&x);
  sk_view_release(&y);
  sk_jit_drain();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
