/* lap_block.h: the part of the 5-point Laplacian of an n x n grid that one
 * rank of mpi_cg.c and of mpi_cg_cuda.cu holds: rows in blocks of
 * ceil(n^2 / ranks) over the ranks, CRS (-1 off the diagonal, 4 on it),
 * the columns indices into xf = [n halo values below | local | n above].
 * Plain C that nvcc compiles as well (malloc's result is cast).
 */
#ifndef LAP_BLOCK_H
#define LAP_BLOCK_H
#include <stdlib.h>

typedef struct lap_block {
  long b, nloc, nnz; /* the first row, the rows, the entries */
  long *rp, *ci;     /* row pointers (nloc + 1), columns (nnz) */
  double *va;        /* values (nnz) */
} lap_block;

static lap_block lap_block_new(long n, int me, int np) {
  long N = n * n, rows = (N + np - 1) / np;
  long b = me * rows, e = b + rows < N ? b + rows : N, nloc = e - b;
  long *rp = (long *)malloc((nloc + 1) * sizeof *rp);
  long *ci = (long *)malloc(5 * nloc * sizeof *ci);
  double *va = (double *)malloc(5 * nloc * sizeof *va);
  long k = 0;
  for (long i = 0; i < nloc; i++) {
    long g = b + i, ix = g % n, iy = g / n;
    rp[i] = k;
#define COL(c, v) \
  do { \
    ci[k] = (c)-b + n; \
    va[k] = (v); \
    k++; \
  } while (0)
    if (iy > 0) COL(g - n, -1.0);
    if (ix > 0) COL(g - 1, -1.0);
    COL(g, 4.0);
    if (ix < n - 1) COL(g + 1, -1.0);
    if (iy < n - 1) COL(g + n, -1.0);
#undef COL
  }
  rp[nloc] = k;
  lap_block A = {b, nloc, k, rp, ci, va};
  return A;
}

#endif
