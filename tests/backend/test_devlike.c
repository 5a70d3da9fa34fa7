/* test_devlike.c: a second device-like back end, registered at run time
 * from this folder (devlike.c), runs every pattern -- range for, reduce,
 * scan, MDRange, team -- and library kernels (blas.dot, blas.axpy from the
 * registry) through sk_run, its views in a device memory space of its own
 * that only its table describes. Nothing outside tests/backend/ names it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "kernels/kernels.h"

#include "devlike.c"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* one launch of 'body' with policy 'p' on the active back end */
static int run(const char *label, int pattern, const char *body, const sk_policy *p,
               sk_arg *args, int nargs, sk_result *res, char *err, size_t errlen) {
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = label;
  d.body = body;
  d.pattern = pattern;
  d.bounds = -1;
  d.tier = SK_TIER_TCC;
  sk_policy q = *p;
  return sk_run(&d, &q, args, nargs, res, err, errlen);
}

static sk_policy range(int64_t n) {
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return p;
}

/* a view of 'n' float64 in the host space holding what 'v' holds */
static void to_host(sk_view *h, const sk_view *v, char *err, size_t errlen) {
  int64_t ext[SK_MAXRANK];
  for (int d = 0; d < v->rank; d++) ext[d] = v->extent[d];
  CHECK(sk_view_create(h, "h", v->dtype, v->rank, ext, v->layout, SK_SPACE_HOST, 0, NULL,
                       err, errlen) == 0);
  CHECK(sk_view_deep_copy(h, v, err, errlen) == 0);
}

int main(void) {
  char err[4096] = "";
  CHECK(devlike_register(err, sizeof err) == 0);
  if (failed) {
    printf("%s\n%d passed, %d failed\n", err, passed, failed);
    return 1;
  }
  int sp = devlike_count.space;
  /* the space, as its table describes it */
  CHECK(sp > 0 && sk_space_parse("devlike") == sp);
  CHECK(strcmp(sk_space_name(sp), "devlike") == 0);
  CHECK(!sk_space_host_accessible(sp));
  CHECK(sk_space_default_layout(sp) == SK_LEFT);
  CHECK(sk_space_spill(sp) == -1 && !sk_space_remote(sp));
  CHECK(strcmp(sk_space_tools_name(sp), "DevLike") == 0);
  CHECK(sk_space_room(sp) == -1);
  CHECK(sk_backend_for_space(sp) == &devlike);
  CHECK(sk_backend_find("devlike") == &devlike);

  /* the runtime runs it */
  CHECK(sk_rt_initialize("devlike", 1, 0, err, sizeof err) == 0);
  CHECK(sk_rt_backend(err, sizeof err) == &devlike);
  CHECK(sk_rt_default_space(err, sizeof err) == sp);

  enum { N = 1000, M = 7 };
  int64_t n = N;
  sk_view hx, x, y;
  CHECK(sk_view_create(&hx, "hx", SK_F64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                       sizeof err) == 0);
  for (int i = 0; i < N; i++) ((double *)hx.data)[i] = i;
  CHECK(sk_view_create(&x, "x", SK_F64, 1, &n, sk_space_default_layout(sp), sp, 1, NULL,
                       err, sizeof err) == 0);
  CHECK(sk_view_create(&y, "y", SK_F64, 1, &n, sk_space_default_layout(sp), sp, 1, NULL,
                       err, sizeof err) == 0);
  CHECK(devlike_count.allocs == 2);
  /* host -> device through the table's copy */
  int in0 = devlike_count.copies_in;
  CHECK(sk_view_deep_copy(&x, &hx, err, sizeof err) == 0);
  CHECK(devlike_count.copies_in == in0 + 1);

  /* range for */
  sk_policy p = range(N);
  sk_arg a[3] = {sk_arg_view("x", &x), sk_arg_view("y", &y), sk_arg_f64("a", 2.0)};
  CHECK(run("axpy", SK_FOR, "y(i) = a * x(i) + y(i);", &p, a, 3, NULL, err, sizeof err) ==
        0);
  sk_view h;
  to_host(&h, &y, err, sizeof err);
  int ok = 1;
  for (int i = 0; i < N; i++) ok &= ((double *)h.data)[i] == 2.0 * i;
  CHECK(ok);
  sk_view_release(&h);

  /* reduce */
  sk_result r;
  CHECK(run("sum", SK_REDUCE, "acc += y(i);", &p, a + 1, 1, &r, err, sizeof err) == 0);
  CHECK(sk_result_f64(&r, 0) == (double)N * (N - 1));

  /* scan: an exclusive prefix sum of x into y */
  CHECK(run("scan", SK_SCAN, "if (final) y(i) = acc; acc += x(i);", &p, a, 2, &r, err,
            sizeof err) == 0);
  CHECK(sk_result_f64(&r, 0) == (double)N * (N - 1) / 2);
  to_host(&h, &y, err, sizeof err);
  CHECK(((double *)h.data)[10] == 45 &&
        ((double *)h.data)[N - 1] == (double)(N - 1) * (N - 2) / 2);
  sk_view_release(&h);

  /* MDRange over a 2-D view in the device space, layout left */
  int64_t e2[2] = {N / 10, M};
  sk_view A;
  CHECK(sk_view_create(&A, "A", SK_F64, 2, e2, sk_space_default_layout(sp), sp, 1, NULL,
                       err, sizeof err) == 0);
  CHECK(A.layout == SK_LEFT);
  sk_policy md;
  sk_policy_init(&md, SK_POL_MDRANGE);
  md.md_rank = 2;
  md.md_hi[0] = e2[0];
  md.md_hi[1] = e2[1];
  sk_arg aA[1] = {sk_arg_view("A", &A)};
  CHECK(run("md", SK_FOR, "A(i, j) = 10 * i + j;", &md, aA, 1, NULL, err, sizeof err) ==
        0);
  to_host(&h, &A, err, sizeof err);
  ok = 1;
  for (int64_t i = 0; i < e2[0]; i++)
    for (int64_t j = 0; j < e2[1]; j++) {
      int64_t idx[2] = {i, j};
      ok &= ((double *)h.data)[sk_view_offset(&h, idx)] == 10.0 * i + j;
    }
  CHECK(ok);
  sk_view_release(&h);

  /* team: one team per row, its members over the columns */
  sk_policy tp;
  sk_policy_init(&tp, SK_POL_TEAM);
  tp.league_size = e2[0];
  CHECK(run("team", SK_FOR,
            "TEAM_FOR(j, 0, A.extent[1]) { A(team.league_rank, j) = -(double)j; }", &tp,
            aA, 1, NULL, err, sizeof err) == 0);
  CHECK(run("teamsum", SK_REDUCE, "acc += A(i % A.extent[0], i / A.extent[0]);",
            &(sk_policy){.kind = SK_POL_RANGE, .end = e2[0] * e2[1]}, aA, 1, &r, err,
            sizeof err) == 0);
  CHECK(sk_result_f64(&r, 0) == -(double)e2[0] * (M * (M - 1) / 2));

  /* library kernels from the registry, on the active back end */
  sk_kvalue out;
  int kind = 0;
  memset(&out, 0, sizeof out);
  CHECK(sk_view_deep_copy(&y, &hx, err, sizeof err) == 0);
  sk_arg dot[2] = {sk_arg_view("x", &x), sk_arg_view("y", &y)};
  CHECK(sk_kernel_call("blas.dot", dot, 2, &out, &kind, err, sizeof err) == 0);
  CHECK(kind == SK_KRES_F64 && out.f64 == (double)(N - 1) * N * (2 * N - 1) / 6);
  sk_arg axpy[3] = {sk_arg_f64("a", -1.0), sk_arg_view("x", &x), sk_arg_view("y", &y)};
  memset(&out, 0, sizeof out);
  CHECK(sk_kernel_call("blas.axpy", axpy, 3, &out, &kind, err, sizeof err) == 0);
  to_host(&h, &y, err, sizeof err);
  ok = 1;
  for (int i = 0; i < N; i++) ok &= ((double *)h.data)[i] == 0;
  CHECK(ok);
  sk_view_release(&h);

  /* fill stages through the table's copy (the CPU never touches it) */
  int in1 = devlike_count.copies_in;
  CHECK(sk_view_fill(&y, 3.0, 3, err, sizeof err) == 0);
  CHECK(devlike_count.copies_in > in1);
  CHECK(run("sum3", SK_REDUCE, "acc += y(i);", &p, a + 1, 1, &r, err, sizeof err) == 0);
  CHECK(sk_result_f64(&r, 0) == 3.0 * N);

  /* its kernels reach its own space only: a host view is refused */
  sk_arg ah[1] = {sk_arg_view("x", &hx)};
  CHECK(run("far", SK_FOR, "x(i) = 0;", &p, ah, 1, NULL, err, sizeof err) < 0);
  CHECK(strstr(err, "lives in space host; this kernel runs on devlike") != NULL);

  CHECK(devlike_count.launches >= 8);
  CHECK(sk_rt_fence(NULL, err, sizeof err) == 0 && devlike_count.fences > 0);
  sk_view_release(&A);
  sk_view_release(&x);
  sk_view_release(&y);
  sk_view_release(&hx);
  CHECK(devlike_count.frees == devlike_count.allocs);
  sk_rt_finalize();
  sk_jit_drain();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
