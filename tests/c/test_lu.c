/* test_lu.c: speck.solve's sparse LU from C, with no Lua state (the C
 * kernel API, speck.h): a nonsymmetric n = 60 matrix whose rows are a
 * convection-diffusion stencil's shifted by two (zeros on the whole
 * diagonal: the matching finds the pivots) wrapped from host arrays;
 * "solve.lu" through speck_call_out, its four F_* views passed to
 * "solve.lu_solve" with two right-hand sides; each x checked by its
 * residual on the host; the bad inputs (a structurally singular matrix,
 * a factor of another matrix, b of another length) with their messages.
 * Runs on the space of SPECK_SPACE. Last line: 'N passed, M failed'.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/speck.h"

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

enum { N = 60, MAXNNZ = 3 * N };

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

static int64_t rp[N + 1];
static int32_t ci[MAXNNZ];
static double va[MAXNNZ];

/* ||b - A x||_inf / ||b||_inf with x read back to the host */
static double resid(speck_runtime *rt, speck_view *x, const double *b) {
  double h[N], r = 0, bn = 0;
  char err[512];
  int64_t n = N;
  speck_view *w = speck_view_wrap(rt, "h", "float64", 1, &n, h, err, sizeof err);
  if (!w || speck_deep_copy(w, x, err, sizeof err)) return INFINITY;
  speck_view_release(w);
  for (int i = 0; i < N; i++) {
    double s = b[i];
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) s -= va[p] * h[ci[p]];
    r = fmax(r, fabs(s));
    bn = fmax(bn, fabs(b[i]));
  }
  return r / bn;
}

int main(void) {
  char err[2048];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return 1;
  /* row (i - 2) mod N holds column i's stencil: -1.3, 3, -0.7 */
  int k = 0;
  for (int r = 0; r < N; r++) {
    int i = (r + 2) % N;
    rp[r] = k;
    int cols[3] = {i - 1, i, i + 1};
    double vals[3] = {-1.3, 3, -0.7};
    int js[3], n3 = 0;
    double vs[3];
    for (int a = 0; a < 3; a++)
      if (cols[a] >= 0 && cols[a] < N) js[n3] = cols[a], vs[n3++] = vals[a];
    for (int a = 0; a < n3; a++) ci[k] = js[a], va[k++] = vs[a];
  }
  rp[N] = k;
  int nnz = k;
  speck_view *rowptr = to_dev(rt, "rowptr", "int64", N + 1, rp);
  speck_view *colidx = to_dev(rt, "colidx", "int32", nnz, ci);
  speck_view *values = to_dev(rt, "values", "float64", nnz, va);
#define MAT(p) \
  speck_arg_view(p "_rowptr", rowptr), speck_arg_view(p "_colidx", colidx), \
    speck_arg_view(p "_values", values), speck_arg_i64(p "_ncols", N)

  speck_out fo[8];
  int nfo = 0;
  speck_arg la[] = {MAT("A")};
  int rc = speck_call_out(rt, "solve.lu", la, 4, NULL, fo, 8, &nfo, err, sizeof err);
  CHECK(rc == 0 && nfo == 4, "solve.lu: %s", err);
  if (rc != 0) return 1;
  const char *fn[4] = {"F_ip", "F_ii", "F_x", "F_info"};
  speck_view *F[4];
  for (int q = 0; q < 4; q++) {
    speck_out *o = find_out(fo, nfo, fn[q]);
    CHECK(o && o->view, "no %s", fn[q]);
    if (!o || !o->view) return 1;
    F[q] = o->view;
  }
  for (int t = 0; t < 2; t++) {
    double bh[N];
    for (int i = 0; i < N; i++) bh[i] = t ? sin(i + 1.0) : 1 + (i % 7) / 7.0;
    speck_view *b = to_dev(rt, "b", "float64", N, bh);
    speck_arg sa[] = {MAT("A"),
                      speck_arg_view("F_ip", F[0]),
                      speck_arg_view("F_ii", F[1]),
                      speck_arg_view("F_x", F[2]),
                      speck_arg_view("F_info", F[3]),
                      speck_arg_view("b", b)};
    speck_out o[8];
    int no = 0;
    rc = speck_call_out(rt, "solve.lu_solve", sa, 9, NULL, o, 8, &no, err, sizeof err);
    CHECK(rc == 0, "solve.lu_solve: %s", err);
    if (rc == 0) {
      speck_out *x = find_out(o, no, "x"), *be = find_out(o, no, "berr");
      double r = resid(rt, x->view, bh);
      CHECK(r < 1e-13 && be && be->value <= 1e-10, "rhs %d: residual %g", t, r);
      for (int q = 0; q < no; q++)
        if (o[q].view) speck_view_release(o[q].view);
    }
    /* bad input: b of another length */
    if (t == 1) {
      speck_view *b5 = to_dev(rt, "b5", "float64", 5, bh);
      sa[8] = speck_arg_view("b", b5);
      rc = speck_call_out(rt, "solve.lu_solve", sa, 9, NULL, o, 8, &no, err, sizeof err);
      CHECK(rc != 0 && strcmp(err, "speck_call solve.lu_solve: A has 60 rows, b (view 'b5') has 5") == 0,
            "b5: %s", err);
      speck_view_release(b5);
    }
    speck_view_release(b);
  }

  /* a factor of another matrix: F_ip's length is not 4 n + 2 */
  int64_t rp2[3] = {0, 1, 2};
  int32_t ci2[2] = {0, 1};
  double va2[2] = {1, 1}, b2h[2] = {1, 1};
  speck_view *r2 = to_dev(rt, "rp2", "int64", 3, rp2), *c2 = to_dev(rt, "ci2", "int32", 2, ci2),
             *v2 = to_dev(rt, "va2", "float64", 2, va2), *b2 = to_dev(rt, "b2", "float64", 2, b2h);
  speck_arg wa[] = {speck_arg_view("A_rowptr", r2), speck_arg_view("A_colidx", c2),
                    speck_arg_view("A_values", v2), speck_arg_i64("A_ncols", 2),
                    speck_arg_view("F_ip", F[0]), speck_arg_view("F_ii", F[1]),
                    speck_arg_view("F_x", F[2]), speck_arg_view("F_info", F[3]),
                    speck_arg_view("b", b2)};
  speck_out o[8];
  int no = 0;
  rc = speck_call_out(rt, "solve.lu_solve", wa, 9, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call solve.lu_solve: F_ip (view 'F_ip') is not a factor of solve.lu for this matrix") == 0,
        "other factor: %s", err);

  /* structurally singular: rows 0 and 1 hold column 0 alone */
  int64_t rp3[4] = {0, 1, 2, 5};
  int32_t ci3[5] = {0, 0, 0, 1, 2};
  double va3[5] = {1, 2, 3, 1, 1};
  speck_view *r3 = to_dev(rt, "rp3", "int64", 4, rp3), *c3 = to_dev(rt, "ci3", "int32", 5, ci3),
             *v3 = to_dev(rt, "va3", "float64", 5, va3);
  speck_arg sa3[] = {speck_arg_view("A_rowptr", r3), speck_arg_view("A_colidx", c3),
                     speck_arg_view("A_values", v3), speck_arg_i64("A_ncols", 3)};
  rc = speck_call_out(rt, "solve.lu", sa3, 4, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call solve.lu: A is structurally singular: the matching leaves row 0 unmatched (no augmenting path reaches column 2), so no permutation puts a nonzero on every pivot") == 0,
        "singular: %s", err);

  speck_view *all[] = {r2, c2, v2, b2, r3, c3, v3, rowptr, colidx, values, F[0], F[1], F[2], F[3]};
  for (size_t q = 0; q < sizeof all / sizeof all[0]; q++) speck_view_release(all[q]);
  speck_runtime_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
