/* test_precond.c: the preconditioners' library entries (kernels/solve/:
 * Chebyshev, ILU, AMG) from C, with no Lua state.
 *
 * 1. The C kernel API: the 1D Laplacian built with "sparse.from_coo",
 *    its Chebyshev setup ("solve.cheby_setup": D^-1 and lambda_max of
 *    D^-1 A, which is below 2 and near it) and one apply
 *    ("solve.cheby_apply"), ILU(0)'s symbolic phase ("solve.ilu_symbolic":
 *    a tridiagonal matrix has no fill and n levels), a negative level of
 *    fill refused with its message.
 * 2. Where libnvrtc loads: every solve.cheby_/ilu_/amg_ body compiles for
 *    the CUDA back end, so the GPU forms are checked on machines without
 *    a GPU.
 * Runs on the space of SPECK_SPACE. Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "api/speck.h"
#include "backends/cuda/nvrtc.h"

static int passed, failed;

#define CHECK(c, ...) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)

static speck_view *device_copy(speck_runtime *rt, const char *label, const char *dtype,
                               int64_t n, void *h) {
  char err[512];
  speck_view *w = speck_view_wrap(rt, label, dtype, 1, &n, h, err, sizeof err);
  speck_view *d = speck_view_new(rt, label, dtype, 1, &n, NULL, err, sizeof err);
  if (!w || !d || speck_deep_copy(d, w, err, sizeof err)) {
    printf("device_copy %s: %s\n", label, err);
    exit(1);
  }
  speck_view_release(w);
  return d;
}

static speck_out *find_out(speck_out *o, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(o[i].name, name) == 0) return &o[i];
  return NULL;
}

enum { N = 64 };

static void api_tests(void) {
  char err[1024];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  if (!rt) {
    printf("runtime: %s\n", err);
    failed++;
    return;
  }
  int64_t r[3 * N], c[3 * N];
  double v[3 * N];
  int64_t nz = 0;
  for (int i = 0; i < N; i++) {
    r[nz] = i, c[nz] = i, v[nz++] = 2.0;
    if (i > 0) r[nz] = i, c[nz] = i - 1, v[nz++] = -1.0;
    if (i < N - 1) r[nz] = i, c[nz] = i + 1, v[nz++] = -1.0;
  }
  speck_view *vr = device_copy(rt, "rows", "int64", nz, r);
  speck_view *vc = device_copy(rt, "cols", "int64", nz, c);
  speck_view *vv = device_copy(rt, "vals", "float64", nz, v);
  speck_arg a[] = {speck_arg_i64("nrows", N), speck_arg_i64("ncols", N),
                   speck_arg_view("rows", vr), speck_arg_view("cols", vc),
                   speck_arg_view("vals", vv)};
  speck_out o[8], s[8], y[8];
  int no = 0, ns = 0, ny = 0;
  int rc = speck_call_out(rt, "sparse.from_coo", a, 5, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0, "%s", err);
  if (rc) return;
  speck_view *rp = find_out(o, no, "C_rowptr")->view, *ci = find_out(o, no, "C_colidx")->view,
             *va = find_out(o, no, "C_values")->view;
  speck_arg m[] = {speck_arg_view("A_rowptr", rp), speck_arg_view("A_colidx", ci),
                   speck_arg_view("A_values", va), speck_arg_i64("A_ncols", N),
                   speck_arg_i64("iters", 30)};
  rc = speck_call_out(rt, "solve.cheby_setup", m, 5, NULL, s, 8, &ns, err, sizeof err);
  CHECK(rc == 0, "%s", err);
  if (rc == 0) {
    speck_out *lm = find_out(s, ns, "lambda_max");
    CHECK(lm && lm->value > 1.9 && lm->value < 2.0, "lambda_max %g", lm ? lm->value : -1);
    int64_t n = N;
    speck_view *vecs[4];
    double one[N];
    for (int i = 0; i < N; i++) one[i] = 1.0;
    for (int q = 0; q < 4; q++) vecs[q] = device_copy(rt, "vec", "float64", n, one);
    speck_arg ap[] = {speck_arg_view("A_rowptr", rp),
                      speck_arg_view("A_colidx", ci),
                      speck_arg_view("A_values", va),
                      speck_arg_i64("A_ncols", N),
                      speck_arg_view("dinv", find_out(s, ns, "dinv")->view),
                      speck_arg_view("r", vecs[0]),
                      speck_arg_view("z", vecs[1]),
                      speck_arg_view("d", vecs[2]),
                      speck_arg_view("w", vecs[3]),
                      speck_arg_f64("lmax", 2.2),
                      speck_arg_f64("lmin", 0.1),
                      speck_arg_i64("degree", 3)};
    rc = speck_call(rt, "solve.cheby_apply", ap, 12, NULL, err, sizeof err);
    CHECK(rc == 0, "%s", err);
    for (int q = 0; q < 4; q++) speck_view_release(vecs[q]);
    speck_view_release(find_out(s, ns, "dinv")->view);
  }
  m[4] = speck_arg_i64("k", 0);
  rc = speck_call_out(rt, "solve.ilu_symbolic", m, 5, NULL, y, 8, &ny, err, sizeof err);
  CHECK(rc == 0, "%s", err);
  if (rc == 0) {
    speck_out *nl = find_out(y, ny, "nlevels");
    CHECK(nl && nl->value == N, "nlevels %g", nl ? nl->value : -1);
    CHECK(speck_view_extent(find_out(y, ny, "F_colidx")->view, 0) == nz, "fill in ILU(0)");
    for (int q = 0; q < ny; q++)
      if (y[q].view) speck_view_release(y[q].view);
  }
  m[4] = speck_arg_i64("k", -2);
  rc = speck_call_out(rt, "solve.ilu_symbolic", m, 5, NULL, y, 8, &ny, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "the level of fill k must be >= 0, got -2"), "%s", err);
  speck_view_release(vr), speck_view_release(vc), speck_view_release(vv);
  speck_view_release(rp), speck_view_release(ci), speck_view_release(va);
  speck_runtime_close(rt);
}

static void nvrtc_tests(void) {
  char why[256], err[8192];
  const sk_backend *cu = sk_backend_find("cuda");
  if (!cu || !sk_nvrtc_status(why, sizeof why)) {
    printf("nvrtc compile checks skipped: %s\n", cu ? why : "no cuda back end");
    return;
  }
  int n = 0;
  for (int i = 0;; i++) {
    const sk_kbody *kb = sk_kbody_at(i);
    if (!kb) break;
    if (strncmp(kb->label, "solve.cheby_", 12) != 0 && strncmp(kb->label, "solve.ilu_", 10) != 0 &&
        strncmp(kb->label, "solve.amg_", 10) != 0)
      continue;
    int rc = sk_kbody_compile(kb, 0, cu, err, sizeof err);
    CHECK(rc == 0, "NVRTC: %s: %s", kb->label, err);
    n++;
  }
  CHECK(n >= 15, "%d bodies", n);
  printf("nvrtc: %d preconditioner bodies compiled for cuda\n", n);
}

int main(void) {
  api_tests();
  nvrtc_tests();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
