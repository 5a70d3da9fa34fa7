/* test_chol_devlike.c: the sparse Cholesky's level-set schedule
 * (kernels/task/chol_ls.c) on a device-like back end (devlike.c: a memory
 * space the CPU may not touch, its own copies): the factor built and kept
 * in that space, solves with views there, on the 5-point and 27-point
 * Laplacians and a shifted (indefinite) one by L D L^T, with the default
 * gemm threshold and with every update by gemm (the dense kernels'
 * fallback there: no vendor library reaches that space); the relative
 * residual <= 1e-12 on the host; the factor read back (sk_chol_lower);
 * an indefinite Cholesky names the failing row. Last line: 'N passed, M
 * failed'. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "kernels/kernels.h"
#include "kernels/task/chol.h"

#include "devlike.c"

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

typedef struct csr {
  int64_t n, *rp;
  int32_t *ci;
  double *v;
} csr;

/* the 2D 5-point (three = 0) or 3D 27-point Laplacian of side g, the
 * diagonal less 'shift' */
static csr lap(int g, int three, double shift) {
  csr A;
  A.n = three ? (int64_t)g * g * g : (int64_t)g * g;
  A.rp = calloc((size_t)A.n + 1, sizeof *A.rp);
  A.ci = malloc((size_t)A.n * 27 * sizeof *A.ci);
  A.v = malloc((size_t)A.n * 27 * sizeof *A.v);
  int64_t q = 0;
  for (int64_t i = 0; i < A.n; i++) {
    int a = three ? (int)(i / ((int64_t)g * g)) : 0, b = (int)((i / g) % g),
        c = (int)(i % g);
    for (int da = three ? -1 : 0; da <= (three ? 1 : 0); da++)
      for (int db = -1; db <= 1; db++)
        for (int dc = -1; dc <= 1; dc++) {
          int x = a + da, y = b + db, z = c + dc;
          if (x < 0 || x >= g || y < 0 || y >= g || z < 0 || z >= g) continue;
          if (!three && db != 0 && dc != 0) continue;
          int same = da == 0 && db == 0 && dc == 0;
          A.ci[q] = (int32_t)(((int64_t)x * g + y) * g + z); /* x = 0 in 2D */
          A.v[q++] = same ? (three ? 26.0 : 4.0) - shift : -1.0;
        }
    A.rp[i + 1] = q;
  }
  return A;
}

static void csr_free(csr *A) {
  free(A->rp);
  free(A->ci);
  free(A->v);
}

/* factor A in space 'sp', solve, check the residual on the host */
static void run(const char *name, csr A, int ldl, int64_t gemm_min, int sp) {
  char err[4096] = "";
  sk_chol_opts o = {1, ldl, gemm_min};
  sk_chol *F = sk_chol_factor_ex(A.n, A.rp, A.ci, A.v, &o, err, sizeof err);
  CHECK(F != NULL, "%s: %s", name, err);
  if (!F) return;
  CHECK(sk_chol_levels(F) == 1, "%s", name);
  int64_t n = A.n;
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++)
    b[i] = 1.0 + (double)(i * 37 % 11) - 0.5 * (double)(i % 3);
  sk_view hb, hx, db, dx;
  CHECK(sk_view_create(&hb, "b", SK_F64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, b, err,
                       sizeof err) == 0 &&
          sk_view_create(&hx, "x", SK_F64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, x, err,
                         sizeof err) == 0 &&
          sk_view_create(&db, "db", SK_F64, 1, &n, SK_RIGHT, sp, 0, NULL, err,
                         sizeof err) == 0 &&
          sk_view_create(&dx, "dx", SK_F64, 1, &n, SK_RIGHT, sp, 0, NULL, err,
                         sizeof err) == 0 &&
          sk_view_deep_copy(&db, &hb, err, sizeof err) == 0,
        "%s: %s", name, err);
  CHECK(sk_chol_solve_view(F, &db, &dx, err, sizeof err) == 0, "%s: %s", name, err);
  CHECK(sk_view_deep_copy(&hx, &dx, err, sizeof err) == 0, "%s: %s", name, err);
  double rr = 0, bb = 0;
  for (int64_t i = 0; i < n; i++) {
    double r = b[i];
    for (int64_t p = A.rp[i]; p < A.rp[i + 1]; p++) r -= A.v[p] * x[A.ci[p]];
    rr += r * r;
    bb += b[i] * b[i];
  }
  CHECK(sqrt(rr / bb) <= 1e-12, "%s: relative residual %g", name, sqrt(rr / bb));
  /* the factor read back from the device-like space */
  sk_chol_info in;
  sk_chol_info_get(F, &in);
  int64_t nnz = sk_chol_lower_nnz(F);
  int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp),
          *perm = malloc((size_t)n * sizeof *perm);
  int32_t *ci = malloc((size_t)nnz * sizeof *ci);
  double *lv = malloc((size_t)nnz * sizeof *lv);
  CHECK(sk_chol_lower(F, rp, ci, lv, perm, err, sizeof err) == 0, "%s: %s", name, err);
  CHECK(rp[n] == nnz && in.levels > 0, "%s: %lld entries, %lld levels", name,
        (long long)rp[n], (long long)in.levels);
  if (gemm_min == 1) CHECK(in.gemm_updates > 0, "%s: no update by gemm", name);
  free(rp);
  free(perm);
  free(ci);
  free(lv);
  sk_view_release(&hb);
  sk_view_release(&hx);
  sk_view_release(&db);
  sk_view_release(&dx);
  free(b);
  free(x);
  sk_chol_free(F);
}

int main(void) {
  char err[4096] = "";
  CHECK(devlike_register(err, sizeof err) == 0, "%s", err);
  CHECK(sk_rt_initialize("devlike", 1, 0, err, sizeof err) == 0, "%s", err);
  if (failed) {
    printf("%d passed, %d failed\n", passed, failed);
    return 1;
  }
  int sp = devlike_count.space;
  csr A = lap(20, 0, 0), B = lap(7, 1, 0), C = lap(16, 0, 2.3);
  run("lap2d", A, 0, 0, sp);
  run("lap3d", B, 0, 0, sp);
  run("lap3d gemm", B, 0, 1, sp);
  run("ind2d ldl", C, 1, 0, sp);
  run("ind2d ldl gemm", C, 1, 1, sp);
  run("lap3d ldl gemm", B, 1, 1, sp);
  /* an indefinite Cholesky names the row */
  sk_chol_opts o = {1, 0, 0};
  sk_chol *F = sk_chol_factor_ex(C.n, C.rp, C.ci, C.v, &o, err, sizeof err);
  CHECK(F == NULL && strstr(err, "the matrix is not positive definite: the pivot of row"),
        "%s", err);
  sk_chol_free(F);
  CHECK(devlike_count.launches > 0, "no launch on the device-like back end");
  csr_free(&A);
  csr_free(&B);
  csr_free(&C);
  sk_rt_finalize();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
