/* gb_peer.c: SuiteSparse:GraphBLAS (Debian's libgraphblas-dev 7.4) on the
 * graph bench.lua wrote, the algorithms as LAGraph writes them in plain
 * GraphBLAS: BFS levels (q<!v> = q*A over ANY_PAIR, push/pull chosen by
 * GraphBLAS), PageRank (20 iterations, dangling mass spread evenly, as
 * speck and NetworkX), triangles (C<L> = L*L' over PLUS_PAIR, L the strict
 * lower triangle). usage: gb_peer EDGEFILE [THREADS] -- records as bench.lua */
#include <GraphBLAS.h>

#include "snap.h"

#define OK(x) \
  do { \
    GrB_Info i_ = (x); \
    if (i_ != GrB_SUCCESS && i_ != GrB_NO_VALUE) { \
      fprintf(stderr, "gb_peer: %s failed: %d\n", #x, (int)i_); \
      exit(1); \
    } \
  } while (0)

static GrB_Index bfs(GrB_Matrix A, GrB_Index n, GrB_Index s) {
  GrB_Vector q, v;
  OK(GrB_Vector_new(&q, GrB_BOOL, n));
  OK(GrB_Vector_new(&v, GrB_INT32, n));
  OK(GrB_Vector_setElement_BOOL(q, true, s));
  GrB_Index nq = 1, reached = 0;
  for (int32_t level = 0; nq > 0; level++) {
    OK(GrB_Vector_assign_INT32(v, q, NULL, level, GrB_ALL, n, GrB_DESC_S));
    OK(GrB_vxm(q, v, NULL, GxB_ANY_PAIR_BOOL, q, A, GrB_DESC_RSC));
    OK(GrB_Vector_nvals(&nq, q));
  }
  OK(GrB_Vector_nvals(&reached, v));
  GrB_free(&q);
  GrB_free(&v);
  return reached;
}

static void pagerank(GrB_Matrix A, GrB_Index n, int iters) {
  const double damp = 0.85, tele = (1 - damp) / (double)n;
  GrB_Vector d, r, w, t, dangling;
  OK(GrB_Vector_new(&d, GrB_FP64, n));
  OK(GrB_Vector_new(&r, GrB_FP64, n));
  OK(GrB_Vector_new(&w, GrB_FP64, n));
  OK(GrB_Vector_new(&t, GrB_FP64, n));
  OK(GrB_Vector_new(&dangling, GrB_BOOL, n));
  /* out-degrees; the vertices without edges */
  OK(GrB_reduce(d, NULL, NULL, GxB_PLUS_FP64_MONOID, A, NULL));
  OK(GrB_Vector_assign_BOOL(dangling, d, NULL, true, GrB_ALL, n, GrB_DESC_SC));
  OK(GrB_Vector_assign_FP64(r, NULL, NULL, 1.0 / (double)n, GrB_ALL, n, NULL));
  for (int k = 0; k < iters; k++) {
    double dm = 0;
    OK(GrB_Vector_clear(t));
    OK(GrB_Vector_assign(t, dangling, NULL, r, GrB_ALL, n, GrB_DESC_S));
    OK(GrB_reduce(&dm, NULL, GrB_PLUS_MONOID_FP64, t, NULL));
    OK(GrB_eWiseMult(w, NULL, NULL, GrB_DIV_FP64, r, d, NULL));
    OK(GrB_mxv(t, NULL, NULL, GxB_PLUS_SECOND_FP64, A, w, NULL));
    /* r = tele + damp*dm/n everywhere, plus damp*t */
    OK(GrB_Vector_assign_FP64(r, NULL, NULL, tele + damp * dm / (double)n, GrB_ALL, n,
                              NULL));
    OK(GrB_Vector_apply_BinaryOp2nd_FP64(t, NULL, NULL, GrB_TIMES_FP64, t, damp, NULL));
    OK(GrB_eWiseAdd(r, NULL, NULL, GrB_PLUS_FP64, r, t, NULL));
  }
  GrB_free(&d);
  GrB_free(&r);
  GrB_free(&w);
  GrB_free(&t);
  GrB_free(&dangling);
}

static int64_t triangles(GrB_Matrix A, GrB_Index n) {
  GrB_Matrix L, C;
  OK(GrB_Matrix_new(&L, GrB_BOOL, n, n));
  OK(GrB_Matrix_new(&C, GrB_INT64, n, n));
  OK(GrB_Matrix_select_INT64(L, NULL, NULL, GrB_TRIL, A, -1, NULL));
  OK(GrB_mxm(C, L, NULL, GxB_PLUS_PAIR_INT64, L, L, GrB_DESC_ST1));
  int64_t tri = 0;
  OK(GrB_reduce(&tri, NULL, GrB_PLUS_MONOID_INT64, C, NULL));
  GrB_free(&L);
  GrB_free(&C);
  return tri;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gb_peer EDGEFILE [THREADS]\n");
    return 2;
  }
  snap g;
  snap_read(argv[1], &g);
  OK(GrB_init(GrB_NONBLOCKING));
  OK(GxB_Global_Option_set(GxB_NTHREADS, argc > 2 ? atoi(argv[2]) : 2));
  GrB_Index n = (GrB_Index)g.n, m = (GrB_Index)g.m;
  double t0 = now();
  GrB_Index *I = malloc(2 * m * sizeof *I), *J = malloc(2 * m * sizeof *J);
  bool *X = malloc(2 * m * sizeof *X);
  GrB_Index k = 0;
  for (GrB_Index e = 0; e < m; e++) {
    if (g.u[e] == g.v[e]) continue;
    I[k] = g.u[e], J[k] = g.v[e], X[k++] = true;
    I[k] = g.v[e], J[k] = g.u[e], X[k++] = true;
  }
  GrB_Matrix A;
  OK(GrB_Matrix_new(&A, GrB_BOOL, n, n));
  OK(GrB_Matrix_build_BOOL(A, I, J, X, k, GrB_LOR));
  OK(GrB_wait(A, GrB_MATERIALIZE));
  free(I);
  free(J);
  free(X);
  GrB_Index nv;
  OK(GrB_Matrix_nvals(&nv, A));
  char extra[128];
  snprintf(extra, sizeof extra, "%llu arcs", (unsigned long long)nv);
  record("generate", "graphblas", now() - t0, extra);

  bfs(A, n, (GrB_Index)g.src[0]); /* warm-up */
  double tb = 0;
  for (int s = 0; s < g.nsrc; s++) {
    t0 = now();
    bfs(A, n, (GrB_Index)g.src[s]);
    tb += now() - t0;
  }
  record("bfs", "graphblas", tb / g.nsrc, NULL);
  pagerank(A, n, 20);
  t0 = now();
  pagerank(A, n, 20);
  record("pagerank20", "graphblas", now() - t0, NULL);
  t0 = now();
  int64_t tri = triangles(A, n);
  snprintf(extra, sizeof extra, "%lld triangles", (long long)tri);
  record("triangles", "graphblas", now() - t0, extra);
  GrB_free(&A);
  GrB_finalize();
  return 0;
}
