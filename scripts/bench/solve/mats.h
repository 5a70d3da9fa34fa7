/* mats.h: the two matrices of scripts/bench/solve for the C peers
 * (hypre_pcg.c, petsc_gamg.c), row by row, with the same entries in the
 * same order as bench.lua / amgpcg.lua build them with speck kernels:
 *   p7 G   the 3D 7-point Poisson matrix of a G^3 grid (6 on the diagonal,
 *          -1 off it; row x + G*(y + G*z)), b = 1
 *   fe N   examples/cg.lua's miniFE matrix: hex8 elements on an N^3 box,
 *          (N+1)^3 rows, 27-point interior rows (8h/3 on the diagonal, 0 to
 *          the 6 face neighbours, -h/6 edge, -h/12 corner; entries to
 *          boundary nodes stored as explicit zeros), identity boundary
 *          rows; b = h^3 inside, 0 on the boundary (h = 1/N)
 * Plain C11, everything static inline.
 */
#ifndef SPECK_BENCH_SOLVE_MATS_H
#define SPECK_BENCH_SOLVE_MATS_H

#include <stdint.h>
#include <string.h>

enum { MAT_P7, MAT_FE };

/* the kind named by s ("p7" or "fe"), -1 for anything else */
static inline int mat_kind(const char *s) {
  return strcmp(s, "p7") == 0 ? MAT_P7 : strcmp(s, "fe") == 0 ? MAT_FE : -1;
}

/* the number of rows */
static inline int64_t mat_rows(int kind, int64_t g) {
  const int64_t np = kind == MAT_P7 ? g : g + 1;
  return np * np * np;
}

/* row i: its columns and values (at most 27); returns the count */
static inline int mat_row(int kind, int64_t g, int64_t i, int64_t *cols, double *vals) {
  int p = 0;
  if (kind == MAT_P7) {
    const int64_t x = i % g, y = (i / g) % g, z = i / (g * g);
    if (z > 0) { cols[p] = i - g * g; vals[p++] = -1; }
    if (y > 0) { cols[p] = i - g; vals[p++] = -1; }
    if (x > 0) { cols[p] = i - 1; vals[p++] = -1; }
    cols[p] = i; vals[p++] = 6;
    if (x < g - 1) { cols[p] = i + 1; vals[p++] = -1; }
    if (y < g - 1) { cols[p] = i + g; vals[p++] = -1; }
    if (z < g - 1) { cols[p] = i + g * g; vals[p++] = -1; }
    return p;
  }
  const int64_t np = g + 1;
  const double h = 1.0 / (double)g;
  const int64_t ix = i % np, iy = (i / np) % np, iz = i / (np * np);
  const int in = ix > 0 && ix < np - 1 && iy > 0 && iy < np - 1 && iz > 0 && iz < np - 1;
  if (!in) { cols[0] = i; vals[0] = 1.0; return 1; }
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        const int64_t jx = ix + dx, jy = iy + dy, jz = iz + dz;
        const int nz = (dx != 0) + (dy != 0) + (dz != 0);
        const int jb = jx == 0 || jx == np - 1 || jy == 0 || jy == np - 1 || jz == 0 ||
                       jz == np - 1;
        const double v = nz == 0   ? 8.0 / 3.0
                         : nz == 1 ? 0.0
                         : nz == 2 ? -2.0 / 12.0
                                   : -1.0 / 12.0;
        cols[p] = jx + np * (jy + np * jz);
        vals[p++] = jb ? 0.0 : v * h;
      }
  return p;
}

/* b(i) */
static inline double mat_rhs(int kind, int64_t g, int64_t i) {
  if (kind == MAT_P7) return 1.0;
  const int64_t np = g + 1;
  const double h = 1.0 / (double)g;
  const int64_t ix = i % np, iy = (i / np) % np, iz = i / (np * np);
  const int in = ix > 0 && ix < np - 1 && iy > 0 && iy < np - 1 && iz > 0 && iz < np - 1;
  return in ? h * h * h : 0.0;
}

#endif
