/* test_solve.c: speck.solve from C, with no Lua state.
 *
 * 1. The C kernel API (speck.h): the 1D Laplacian (tridiagonal 2, -1) of
 *    n = 50 rows wrapped from host arrays; "solve.jacobi" and
 *    "solve.gauss_seidel" (multicolor) through speck_call_out, their
 *    outputs passed back as the M_* arguments of "solve.cg",
 *    "solve.bicgstab" and "solve.gmres"; each solution checked against the
 *    exact one (x_i = (i + 1)(n - i) / 2 for b = 1); a user body as the
 *    operator; "solve.precond_apply" (one Jacobi application); the bad
 *    inputs of issue 27 (GMRES restart 0, maxiter 0, a preconditioner of
 *    another size) and precond "callback" with no callback set, with their
 *    messages.
 * 2. Where libnvrtc loads: every solve body compiles for the GPU back
 *    end (its first precompiled signature).
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

enum { N = 50, NNZ = 3 * N - 2 };

static speck_out *find_out(speck_out *o, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(o[i].name, name) == 0) return &o[i];
  return NULL;
}

/* a view in the runtime's default space holding host array 'h' */
static speck_view *to_dev(speck_runtime *rt, const char *label, const char *dtype, int64_t n,
                          void *h) {
  char err[512];
  speck_view *w = speck_view_wrap(rt, label, dtype, 1, &n, h, err, sizeof err);
  speck_view *v = speck_view_new(rt, label, dtype, 1, &n, NULL, err, sizeof err);
  if (!w || !v || speck_deep_copy(v, w, err, sizeof err)) {
    printf("to_dev: %s\n", err);
    exit(1);
  }
  speck_view_release(w);
  return v;
}

/* the largest |x_i - exact_i| / max exact */
static double error_of(speck_runtime *rt, speck_view *x) {
  double h[N], e = 0;
  char err[512];
  int64_t n = N;
  speck_view *w = speck_view_wrap(rt, "h", "float64", 1, &n, h, err, sizeof err);
  if (!w || speck_deep_copy(w, x, err, sizeof err)) return INFINITY;
  speck_view_release(w);
  for (int i = 0; i < N; i++) {
    double ex = (i + 1.0) * (N - i) / 2.0;
    e = fmax(e, fabs(h[i] - ex));
  }
  return e / ((N / 2.0) * (N / 2.0 + 1) / 2.0);
}

static void api_tests(void) {
  char err[2048];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return;
  int64_t rp[N + 1];
  int32_t ci[NNZ];
  double va[NNZ], bh[N];
  int k = 0;
  for (int i = 0; i < N; i++) {
    rp[i] = k;
    if (i > 0) ci[k] = i - 1, va[k++] = -1;
    ci[k] = i, va[k++] = 2;
    if (i < N - 1) ci[k] = i + 1, va[k++] = -1;
    bh[i] = 1;
  }
  rp[N] = k;
  speck_view *rowptr = to_dev(rt, "rowptr", "int64", N + 1, rp);
  speck_view *colidx = to_dev(rt, "colidx", "int32", NNZ, ci);
  speck_view *values = to_dev(rt, "values", "float64", NNZ, va);
  speck_view *b = to_dev(rt, "b", "float64", N, bh);
#define MAT(p) \
  speck_arg_view(p "_rowptr", rowptr), speck_arg_view(p "_colidx", colidx), \
    speck_arg_view(p "_values", values), speck_arg_i64(p "_ncols", N)

  /* the preconditioners' set-ups */
  speck_out jo[8], go[8];
  int njo = 0, ngo = 0;
  speck_arg ja[] = {MAT("A"), speck_arg_f64("omega", 1.0)};
  int rc = speck_call_out(rt, "solve.jacobi", ja, 5, NULL, jo, 8, &njo, err, sizeof err);
  CHECK(rc == 0 && find_out(jo, njo, "M_dinv"), "solve.jacobi: %s", err);
  speck_arg ga[] = {MAT("A"), speck_arg_i64("multicolor", 1)};
  rc = speck_call_out(rt, "solve.gauss_seidel", ga, 5, NULL, go, 8, &ngo, err, sizeof err);
  CHECK(rc == 0 && find_out(go, ngo, "M_perm") && find_out(go, ngo, "ncolors") &&
          find_out(go, ngo, "ncolors")->value == 2,
        "solve.gauss_seidel: %s", err);
  if (rc != 0 || njo == 0) return;
  speck_view *dinv = find_out(jo, njo, "M_dinv")->view;
  speck_view *gdinv = find_out(go, ngo, "M_dinv")->view;
  speck_view *perm = find_out(go, ngo, "M_perm")->view;
  speck_view *cptr = find_out(go, ngo, "M_colorptr")->view;

  const char *methods[] = {"solve.cg", "solve.bicgstab", "solve.gmres"};
  for (int m = 0; m < 3; m++)
    for (int p = 0; p < 3; p++) {
      speck_arg a[20] = {MAT("A"), speck_arg_view("b", b), speck_arg_f64("tol", 1e-10),
                         speck_arg_i64("maxiter", 500)};
      int na = 7;
      if (p == 1) {
        a[na++] = speck_arg_str("precond", "jacobi");
        a[na++] = speck_arg_view("M_dinv", dinv);
      } else if (p == 2) {
        a[na++] = speck_arg_str("precond", "gs");
        a[na++] = speck_arg_view("M_dinv", gdinv);
        a[na++] = speck_arg_view("M_perm", perm);
        a[na++] = speck_arg_view("M_colorptr", cptr);
        a[na++] = speck_arg_i64("M_symmetric", 1);
        a[na++] = speck_arg_view("M_rowptr", rowptr);
        a[na++] = speck_arg_view("M_colidx", colidx);
        a[na++] = speck_arg_view("M_values", values);
        a[na++] = speck_arg_i64("M_ncols", N);
      }
      speck_out o[8];
      int no = 0;
      rc = speck_call_out(rt, methods[m], a, na, NULL, o, 8, &no, err, sizeof err);
      CHECK(rc == 0, "%s precond %d: %s", methods[m], p, err);
      if (rc != 0) continue;
      speck_out *x = find_out(o, no, "x"), *reason = find_out(o, no, "reason"),
                *resid = find_out(o, no, "resid"), *iters = find_out(o, no, "iters");
      double e = error_of(rt, x->view);
      CHECK(reason->value == 0 && resid->value <= 1e-10 && e < 1e-8 && iters->value > 0,
            "%s precond %d: reason %g resid %g error %g", methods[m], p, reason->value,
            resid->value, e);
      for (int q = 0; q < no; q++)
        if (o[q].view) speck_view_release(o[q].view);
    }

  /* a user body as the operator */
  speck_arg ba[] = {speck_arg_str("op_body",
                                  "double s = 2 * x(i); if (i > 0) s -= x(i - 1);"
                                  " if (i < nn - 1) s -= x(i + 1); y(i) = s;"),
                    speck_arg_i64("op_n", N), speck_arg_i64("op_nn", N),
                    speck_arg_view("b", b), speck_arg_f64("tol", 1e-10)};
  speck_out o[8];
  int no = 0;
  rc = speck_call_out(rt, "solve.cg", ba, 5, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0 && error_of(rt, find_out(o, no, "x")->view) < 1e-8, "op_body: %s", err);
  for (int q = 0; rc == 0 && q < no; q++)
    if (o[q].view) speck_view_release(o[q].view);

  /* bad inputs */
  speck_arg r0[] = {MAT("A"), speck_arg_view("b", b), speck_arg_i64("restart", 0)};
  rc = speck_call_out(rt, "solve.gmres", r0, 6, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call solve.gmres: restart 0 must be at least 1") == 0,
        "restart 0: %s", err);
  speck_arg m0[] = {MAT("A"), speck_arg_view("b", b), speck_arg_i64("maxiter", 0)};
  rc = speck_call_out(rt, "solve.cg", m0, 6, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call solve.cg: maxiter 0 must be at least 1") == 0,
        "maxiter 0: %s", err);
  double small[10] = {0};
  speck_view *d10 = to_dev(rt, "d10", "float64", 10, small);
  speck_arg p10[] = {MAT("A"), speck_arg_view("b", b), speck_arg_str("precond", "jacobi"),
                     speck_arg_view("M_dinv", d10)};
  rc = speck_call_out(rt, "solve.bicgstab", p10, 7, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call solve.bicgstab: the preconditioner (jacobi) has "
                               "10 rows, A has 50") == 0,
        "precond size: %s", err);
  speck_view_release(d10);
  speck_arg cb[] = {MAT("A"), speck_arg_view("b", b), speck_arg_str("precond", "callback")};
  rc = speck_call_out(rt, "solve.cg", cb, 6, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call solve.cg: precond 'callback' but the host program "
                               "set no callback") == 0,
        "callback: %s", err);

  /* one application: z = D^-1 r = r / 2 */
  double zh[N];
  speck_view *z = to_dev(rt, "z", "float64", N, bh);
  speck_arg pa[] = {speck_arg_str("precond", "jacobi"), speck_arg_view("M_dinv", dinv),
                    speck_arg_view("r", b), speck_arg_view("z", z)};
  rc = speck_call(rt, "solve.precond_apply", pa, 4, NULL, err, sizeof err);
  CHECK(rc == 0, "precond_apply: %s", err);
  int64_t nn = N;
  speck_view *zw = speck_view_wrap(rt, "zh", "float64", 1, &nn, zh, err, sizeof err);
  CHECK(zw && speck_deep_copy(zw, z, err, sizeof err) == 0 && zh[0] == 0.5 && zh[N - 1] == 0.5,
        "precond_apply: z = %g .. %g", zh[0], zh[N - 1]);
  speck_view_release(zw);
  speck_view_release(z);
  for (int q = 0; q < njo; q++)
    if (jo[q].view) speck_view_release(jo[q].view);
  for (int q = 0; q < ngo; q++)
    if (go[q].view) speck_view_release(go[q].view);
  speck_view_release(rowptr);
  speck_view_release(colidx);
  speck_view_release(values);
  speck_view_release(b);
  speck_runtime_close(rt);
}

/* -- NVRTC compile checks ----------------------------------------------------- */
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
    if (strncmp(kb->label, "solve.", 6) != 0 || !kb->sigs) continue;
    int rc = sk_kbody_compile(kb, 0, cu, err, sizeof err);
    CHECK(rc == 0, "NVRTC: %s: %s", kb->label, err);
    n++;
  }
  printf("nvrtc: %d solve bodies compiled for cuda\n", n);
}

int main(void) {
  api_tests();
  nvrtc_tests();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
