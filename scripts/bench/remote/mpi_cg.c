/* mpi_cg.c: the plain MPI CG that examples/remote_cg.lua is measured
 * against: the same 5-point Laplacian of an n x n grid, rows in blocks of
 * ceil(n^2 / ranks) over the ranks, CRS with the same entries, the same
 * right-hand side and recurrences; the halo (a grid row each side) moved
 * with MPI_Sendrecv into a [halo | local | halo] vector, dots with
 * MPI_Allreduce. gcc -O3, one thread per rank.
 *
 *   mpirun -np 2 mpi_cg n iterations   -> "ms_per_iteration resid" (rank 0)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "lap_block.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  long n = argc > 1 ? atol(argv[1]) : 256, iters = argc > 2 ? atol(argv[2]) : 100;
  lap_block A = lap_block_new(n, me, np);
  long b = A.b, nloc = A.nloc, *rp = A.rp, *ci = A.ci;
  double *va = A.va;
  double *xf = calloc(nloc + 2 * n, sizeof *xf), *p = xf + n;
  double *x = calloc(nloc, sizeof *x), *r = malloc(nloc * sizeof *r);
  double *ap = malloc(nloc * sizeof *ap);
  double bb = 0;
  for (long i = 0; i < nloc; i++) {
    r[i] = p[i] = 1.0 + (double)((b + i) % 7) * 0.125;
    bb += r[i] * r[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double rr = bb;
  int lo = me > 0 ? me - 1 : MPI_PROC_NULL, hi = me < np - 1 ? me + 1 : MPI_PROC_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long it = 0; it < iters; it++) {
    MPI_Sendrecv(p, (int)n, MPI_DOUBLE, lo, 0, p + nloc, (int)n, MPI_DOUBLE, hi, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(p + nloc - n, (int)n, MPI_DOUBLE, hi, 1, xf, (int)n, MPI_DOUBLE, lo, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double pap = 0;
    for (long i = 0; i < nloc; i++) {
      double s = 0;
      for (long q = rp[i]; q < rp[i + 1]; q++) s += va[q] * xf[ci[q]];
      ap[i] = s;
      pap += p[i] * s;
    }
    MPI_Allreduce(MPI_IN_PLACE, &pap, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double a = rr / pap, rr1 = 0;
    for (long i = 0; i < nloc; i++) {
      x[i] += a * p[i];
      double ri = r[i] - a * ap[i];
      r[i] = ri;
      rr1 += ri * ri;
    }
    MPI_Allreduce(MPI_IN_PLACE, &rr1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double beta = rr1 / rr;
    for (long i = 0; i < nloc; i++) p[i] = r[i] + beta * p[i];
    rr = rr1;
  }
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) printf("%.4f %.4e\n", 1e3 * t / iters, sqrt(rr));
  MPI_Finalize();
  return 0;
}
