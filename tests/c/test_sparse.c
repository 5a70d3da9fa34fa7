/* test_sparse.c: the sparse library from C, with no Lua state.
 *
 * 1. The C kernel API (speck.h): a matrix built with "sparse.from_coo"
 *    (speck_call_out hands its views back), y = A*x and A^T*x with
 *    "sparse.spmv", C = A*B with "sparse.spgemm", and the same through
 *    the symbolic/numeric handle, checked against dense products computed
 *    here; bad input gives a message, never a crash. The supernodal
 *    triangular solve ("sparse.sptrsv_sn_symbolic", "sparse.sptrsv_sn_solve")
 *    on a lower triangle with dense blocks: L x = b and L^T x = b against
 *    substitution done here, a missing diagonal entry named by its row.
 * 2. Where libnvrtc loads: every sparse body compiles for the CUDA back
 *    end (its first precompiled signature, views in device memory), so
 *    the GPU forms are checked on machines without a GPU.
 * Runs on the space of SPECK_SPACE. Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/sparse/sparse.h"
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

/* a view of the default space holding 'n' values of host array 'h' */
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

/* host copy of 'n' values of 'v' */
static void host_copy(speck_runtime *rt, speck_view *v, const char *dtype, int64_t n,
                      void *h) {
  char err[512];
  speck_view *w = speck_view_wrap(rt, "h", dtype, 1, &n, h, err, sizeof err);
  if (!w || speck_deep_copy(w, v, err, sizeof err)) {
    printf("host_copy: %s\n", err);
    exit(1);
  }
  speck_view_release(w);
}

static speck_out *find_out(speck_out *o, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(o[i].name, name) == 0) return &o[i];
  return NULL;
}

/* -- the matrices: A (m x k) and B (k x p) from deterministic triplets ----- */
enum { M = 50, K = 40, P = 30 };
static double Ad[M][K], Bd[K][P];

static void random_dense(double *d, int rows, int cols, unsigned seed, int per_row) {
  memset(d, 0, sizeof(double) * (size_t)rows * (size_t)cols);
  for (int i = 0; i < rows; i++)
    for (int e = 0; e < per_row; e++) {
      seed = seed * 1103515245u + 12345u;
      int j = (int)((seed >> 8) % (unsigned)cols);
      seed = seed * 1103515245u + 12345u;
      d[i * cols + j] += (double)((seed >> 8) % 2001) / 1000.0 - 1.0;
    }
}

/* CSR views of dense 'd' through "sparse.from_coo" */
static int build(speck_runtime *rt, const double *d, int rows, int cols, speck_view **rp,
                 speck_view **ci, speck_view **va) {
  int64_t n = 0;
  int64_t *r = malloc(sizeof(int64_t) * (size_t)(rows * cols));
  int64_t *c = malloc(sizeof(int64_t) * (size_t)(rows * cols));
  double *v = malloc(sizeof(double) * (size_t)(rows * cols));
  for (int i = 0; i < rows; i++)
    for (int j = cols - 1; j >= 0; j--) /* unsorted on purpose */
      if (d[i * cols + j] != 0) {
        r[n] = i;
        c[n] = j;
        v[n++] = d[i * cols + j];
      }
  speck_view *vr = device_copy(rt, "rows", "int64", n, r);
  speck_view *vc = device_copy(rt, "cols", "int64", n, c);
  speck_view *vv = device_copy(rt, "vals", "float64", n, v);
  free(r);
  free(c);
  free(v);
  speck_arg a[] = {speck_arg_i64("nrows", rows), speck_arg_i64("ncols", cols),
                   speck_arg_view("rows", vr), speck_arg_view("cols", vc),
                   speck_arg_view("vals", vv)};
  speck_out o[8];
  int no = 0;
  char err[1024];
  int rc = speck_call_out(rt, "sparse.from_coo", a, 5, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0 && no == 3, "%s", err);
  speck_view_release(vr);
  speck_view_release(vc);
  speck_view_release(vv);
  if (rc) return -1;
  *rp = find_out(o, no, "C_rowptr")->view;
  *ci = find_out(o, no, "C_colidx")->view;
  *va = find_out(o, no, "C_values")->view;
  return 0;
}

/* check CSR (rp, ci, va) of 'rows' x 'cols' equals dense 'want' */
static void check_csr(speck_runtime *rt, speck_view *rp, speck_view *ci, speck_view *va,
                      int rows, int cols, const double *want, const char *what) {
  int64_t nnz = speck_view_extent(ci, 0);
  int64_t *hr = malloc(sizeof(int64_t) * (size_t)(rows + 1));
  int32_t *hc = malloc(sizeof(int32_t) * (size_t)(nnz + 1));
  double *hv = malloc(sizeof(double) * (size_t)(nnz + 1));
  double *got = calloc((size_t)(rows * cols), sizeof(double));
  host_copy(rt, rp, "int64", rows + 1, hr);
  host_copy(rt, ci, "int32", nnz, hc);
  host_copy(rt, va, "float64", nnz, hv);
  int sorted = 1;
  for (int i = 0; i < rows; i++)
    for (int64_t k = hr[i]; k < hr[i + 1]; k++) {
      got[i * cols + hc[k]] += hv[k];
      if (k > hr[i] && hc[k] <= hc[k - 1]) sorted = 0;
    }
  double worst = 0;
  for (int i = 0; i < rows * cols; i++) worst = fmax(worst, fabs(got[i] - want[i]));
  CHECK(worst < 1e-12, "%s: largest difference %g", what, worst);
  CHECK(sorted, "%s: rows sorted", what);
  free(hr);
  free(hc);
  free(hv);
  free(got);
}

static void api_tests(void) {
  char err[1024];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return;
  random_dense(&Ad[0][0], M, K, 7, 4);
  random_dense(&Bd[0][0], K, P, 11, 3);
  speck_view *arp, *aci, *ava, *brp, *bci, *bva;
  if (build(rt, &Ad[0][0], M, K, &arp, &aci, &ava) ||
      build(rt, &Bd[0][0], K, P, &brp, &bci, &bva)) {
    speck_runtime_close(rt);
    return;
  }

  /* y = 2*A*x - y, then z = A^T*y */
  double hx[K], hy[M], hz[K], wy[M], wz[K];
  for (int j = 0; j < K; j++) hx[j] = 0.5 + j % 5;
  for (int i = 0; i < M; i++) hy[i] = 1.0 - i % 3;
  speck_view *x = device_copy(rt, "x", "float64", K, hx);
  speck_view *y = device_copy(rt, "y", "float64", M, hy);
  speck_view *z = device_copy(rt, "z", "float64", K, hx);
  speck_arg a[] = {speck_arg_str("mode", "N"),      speck_arg_f64("alpha", 2.0),
                   speck_arg_view("A_rowptr", arp), speck_arg_view("A_colidx", aci),
                   speck_arg_view("A_values", ava), speck_arg_i64("A_ncols", K),
                   speck_arg_view("x", x),          speck_arg_f64("beta", -1.0),
                   speck_arg_view("y", y)};
  int rc = speck_call(rt, "sparse.spmv", a, 9, NULL, err, sizeof err);
  CHECK(rc == 0, "spmv: %s", err);
  for (int i = 0; i < M; i++) {
    wy[i] = -hy[i];
    for (int j = 0; j < K; j++) wy[i] += 2.0 * Ad[i][j] * hx[j];
  }
  host_copy(rt, y, "float64", M, hy);
  double worst = 0;
  for (int i = 0; i < M; i++) worst = fmax(worst, fabs(hy[i] - wy[i]));
  CHECK(worst < 1e-12, "spmv N: largest difference %g", worst);
  a[0] = speck_arg_str("mode", "T");
  a[1] = speck_arg_f64("alpha", 1.0);
  a[6] = speck_arg_view("x", y);
  a[7] = speck_arg_f64("beta", 0.0);
  a[8] = speck_arg_view("y", z);
  rc = speck_call(rt, "sparse.spmv", a, 9, NULL, err, sizeof err);
  CHECK(rc == 0, "spmv T: %s", err);
  for (int j = 0; j < K; j++) {
    wz[j] = 0;
    for (int i = 0; i < M; i++) wz[j] += Ad[i][j] * wy[i];
  }
  host_copy(rt, z, "float64", K, hz);
  worst = 0;
  for (int j = 0; j < K; j++) worst = fmax(worst, fabs(hz[j] - wz[j]));
  CHECK(worst < 1e-12, "spmv T: largest difference %g", worst);

  /* a shape mismatch names both shapes */
  a[0] = speck_arg_str("mode", "N");
  rc = speck_call(rt, "sparse.spmv", a, 9, NULL, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "A is 50x40") != NULL, "mismatch: %s", err);
  /* a kernel with outputs through plain speck_call: refused, nothing leaks */
  speck_arg t[] = {speck_arg_view("A_rowptr", arp), speck_arg_view("A_colidx", aci),
                   speck_arg_view("A_values", ava), speck_arg_i64("A_ncols", K)};
  rc = speck_call(rt, "sparse.transpose", t, 4, NULL, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "use speck_call_out") != NULL, "%s", err);

  /* C = A*B, in one call and through the handle */
  double Cd[M][P];
  for (int i = 0; i < M; i++)
    for (int p = 0; p < P; p++) {
      Cd[i][p] = 0;
      for (int j = 0; j < K; j++) Cd[i][p] += Ad[i][j] * Bd[j][p];
    }
  speck_arg g[] = {speck_arg_view("A_rowptr", arp),  speck_arg_view("A_colidx", aci),
                   speck_arg_view("A_values", ava),  speck_arg_i64("A_ncols", K),
                   speck_arg_view("B_rowptr", brp),  speck_arg_view("B_colidx", bci),
                   speck_arg_view("B_values", bva),  speck_arg_i64("B_ncols", P),
                   speck_arg_view("C_rowptr", NULL), speck_arg_view("C_colidx", NULL),
                   speck_arg_view("C_values", NULL)};
  speck_out o[8];
  int no = 0;
  rc = speck_call_out(rt, "sparse.spgemm", g, 8, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0, "spgemm: %s", err);
  if (rc == 0) {
    check_csr(rt, find_out(o, no, "C_rowptr")->view, find_out(o, no, "C_colidx")->view,
              find_out(o, no, "C_values")->view, M, P, &Cd[0][0], "spgemm");
    for (int i = 0; i < no; i++) speck_view_release(o[i].view);
  }
  rc =
    speck_call_out(rt, "sparse.spgemm_symbolic", g, 8, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0, "spgemm_symbolic: %s", err);
  if (rc == 0) {
    speck_out *h = find_out(o, no, "C_rowptr");
    g[8] = speck_arg_view("C_rowptr", h->view);
    speck_out o2[8];
    int no2 = 0;
    rc = speck_call_out(rt, "sparse.spgemm_numeric", g, 9, NULL, o2, 8, &no2, err,
                        sizeof err);
    CHECK(rc == 0, "spgemm_numeric: %s", err);
    if (rc == 0) {
      check_csr(rt, h->view, find_out(o2, no2, "C_colidx")->view,
                find_out(o2, no2, "C_values")->view, M, P, &Cd[0][0], "spgemm handle");
      for (int i = 0; i < no2; i++) speck_view_release(o2[i].view);
    }
    for (int i = 0; i < no; i++) speck_view_release(o[i].view);
  }
  /* B's rows must be A's columns */
  g[4] = speck_arg_view("B_rowptr", arp);
  g[5] = speck_arg_view("B_colidx", aci);
  g[6] = speck_arg_view("B_values", ava);
  g[7] = speck_arg_i64("B_ncols", K);
  rc = speck_call_out(rt, "sparse.spgemm", g, 8, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "50x40 * 50x40") != NULL, "spgemm mismatch: %s", err);

  speck_view *all[] = {arp, aci, ava, brp, bci, bva, x, y, z};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) speck_view_release(all[i]);
  speck_runtime_close(rt);
}

/* -- supernodal SpTRSV from C ------------------------------------------------ */
enum { TN = 37 };
static double Td[TN][TN];

static void sptrsv_sn_tests(void) {
  char err[1024];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return;
  /* a lower triangle: dense 6x6 diagonal blocks with shared rows below, and sparse rows */
  for (int i = 0; i < TN; i++)
    for (int j = 0; j <= i; j++)
      Td[i][j] = i == j                                     ? 4.0 + i % 3
                 : (j / 6 == i / 6 || (i + 2 * j) % 7 == 0) ? 1.0 / (1 + i + j)
                                                            : 0;
  speck_view *rp, *ci, *va;
  if (build(rt, &Td[0][0], TN, TN, &rp, &ci, &va)) {
    speck_runtime_close(rt);
    return;
  }
  speck_arg a[] = {speck_arg_view("A_rowptr", rp), speck_arg_view("A_colidx", ci),
                   speck_arg_view("A_values", va), speck_arg_i64("A_ncols", TN),
                   speck_arg_str("uplo", "L"),     speck_arg_str("diag", "N")};
  speck_out o[8];
  int no = 0;
  int rc = speck_call_out(rt, "sparse.sptrsv_sn_symbolic", a, 6, NULL, o, 8, &no, err,
                          sizeof err);
  CHECK(rc == 0 && no == 8, "sptrsv_sn_symbolic: %s", err);
  if (rc == 0) {
    double hb[TN], hx[TN], want[TN];
    for (int i = 0; i < TN; i++) hb[i] = 1.0 + i % 4;
    speck_view *b = device_copy(rt, "b", "float64", TN, hb);
    speck_view *x = device_copy(rt, "x", "float64", TN, hb);
    for (int trans = 0; trans <= 1; trans++) {
      speck_arg s[] = {
        speck_arg_view("A_rowptr", rp),
        speck_arg_view("A_colidx", ci),
        speck_arg_view("A_values", va),
        speck_arg_i64("A_ncols", TN),
        speck_arg_view("ix", find_out(o, no, "ix")->view),
        speck_arg_view("ri", find_out(o, no, "ri")->view),
        speck_arg_view("blk", find_out(o, no, "blk")->view),
        speck_arg_view("plan", find_out(o, no, "plan")->view),
        speck_arg_f64("nsupernodes", find_out(o, no, "nsupernodes")->value),
        speck_arg_f64("nlevels", find_out(o, no, "nlevels")->value),
        speck_arg_f64("nlevels_t", find_out(o, no, "nlevels_t")->value),
        speck_arg_f64("lower", find_out(o, no, "lower")->value),
        speck_arg_i64("trans", trans),
        speck_arg_view("b", b),
        speck_arg_view("x", x)};
      rc = speck_call(rt, "sparse.sptrsv_sn_solve", s, 15, NULL, err, sizeof err);
      CHECK(rc == 0, "sptrsv_sn_solve (trans %d): %s", trans, err);
      host_copy(rt, x, "float64", TN, hx);
      for (int t = 0; t < TN; t++) { /* substitution: forward, or backward with L^T */
        int i = trans ? TN - 1 - t : t;
        double r = hb[i];
        for (int j = 0; j < TN; j++)
          if (j != i && (trans ? j > i : j < i))
            r -= (trans ? Td[j][i] : Td[i][j]) * want[j];
        want[i] = r / Td[i][i];
      }
      double worst = 0;
      for (int i = 0; i < TN; i++) worst = fmax(worst, fabs(hx[i] - want[i]));
      CHECK(worst < 1e-13, "sptrsv_sn_solve (trans %d): largest difference %g", trans,
            worst);
    }
    CHECK(find_out(o, no, "nsupernodes")->value < TN, "no supernode found (%g)",
          find_out(o, no, "nsupernodes")->value);
    speck_view_release(b);
    speck_view_release(x);
    for (int i = 0; i < no; i++) speck_view_release(o[i].view);
  }
  /* a missing diagonal entry (build() keeps no zeros): named by its row */
  speck_view_release(rp);
  speck_view_release(ci);
  speck_view_release(va);
  Td[9][9] = 0;
  if (build(rt, &Td[0][0], TN, TN, &rp, &ci, &va) == 0) {
    a[0] = speck_arg_view("A_rowptr", rp);
    a[1] = speck_arg_view("A_colidx", ci);
    a[2] = speck_arg_view("A_values", va);
    rc = speck_call_out(rt, "sparse.sptrsv_sn_symbolic", a, 6, NULL, o, 8, &no, err,
                        sizeof err);
    CHECK(rc != 0 && no == 0 &&
            strstr(err, "row 9 of A has no diagonal entry (diag = \"N\")") != NULL,
          "missing diagonal: %s", err);
    speck_view_release(rp);
    speck_view_release(ci);
    speck_view_release(va);
  }
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
    if (strncmp(kb->label, "sparse.", 7) != 0 || !kb->sigs) continue;
    int rc = sk_kbody_compile(kb, 0, cu, err, sizeof err);
    CHECK(rc == 0, "NVRTC: %s: %s", kb->label, err);
    n++;
  }
  printf("nvrtc: %d sparse bodies compiled for cuda\n", n);
}

/* every precompiled variant's key matches the table the build wrote (a
 * stale generator writes keys nothing looks up: every library kernel would
 * then be JIT-compiled) */
static void table_tests(void) {
  char err[1024];
  int bad = 0, n = 0;
  for (int i = 0; i < sk_kpre_count; i++) {
    sk_spec_store st;
    if (sk_kpre_variant(i, &st, err, sizeof err) != 1) {
      CHECK(0, "variant %d: %s", i, err);
      return;
    }
    n += strncmp(st.spec.label, "sparse.", 7) == 0;
    if (sk_jit_key_hash(&st.spec) != sk_kpre_table[i].hash) bad++;
  }
  CHECK(bad == 0, "%d of %d precompiled variants do not match their keys", bad,
        sk_kpre_count);
  CHECK(n > 50, "only %d sparse variants precompiled", n);
}

/* sk_sp_get_i64s: cells of an int64 view of stride 1, in one copy; any
 * other view is refused with a message naming it */
static void cells_tests(void) {
  char err[256];
  sk_view v, f;
  CHECK(sk_sp_view(&v, "cells", SK_I64, 8, SK_SPACE_HOST, 1, err, sizeof err) == 0, "%s", err);
  CHECK(sk_sp_view(&f, "floats", SK_F64, 8, SK_SPACE_HOST, 1, err, sizeof err) == 0, "%s", err);
  for (int k = 0; k < 8; k++) ((int64_t *)v.data)[k] = 10 * k;
  int64_t x[3] = {0, 0, 0};
  CHECK(sk_sp_get_i64s(&v, 2, 3, x, err, sizeof err) == 0 && x[0] == 20 && x[2] == 40, "%s", err);
  CHECK(sk_sp_get_i64s(&f, 0, 2, x, err, sizeof err) < 0 &&
          strcmp(err, "sk_sp_get_i64s: view 'floats' is float64 of stride 1: it reads int64 views "
                      "of stride 1") == 0,
        "float64 view: %s", err);
  sk_view every2 = v; /* every other cell of 'cells' */
  every2.extent[0] = 4;
  every2.stride[0] = 2;
  CHECK(sk_sp_get_i64s(&every2, 0, 2, x, err, sizeof err) < 0 &&
          strstr(err, "view 'cells' is int64 of stride 2") != NULL,
        "strided view: %s", err);
  CHECK(sk_sp_get_i64s(&every2, 1, 1, x, err, sizeof err) == 0 && x[0] == 20, "one cell: %s", err);
  CHECK(sk_sp_get_i64s(&v, 6, 3, x, err, sizeof err) < 0 && strstr(err, "index 8 outside view 'cells'"),
        "past the end: %s", err);
  sk_view_release(&v);
  sk_view_release(&f);
}

int main(void) {
  table_tests();
  cells_tests();
  api_tests();
  sptrsv_sn_tests();
  nvrtc_tests();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
