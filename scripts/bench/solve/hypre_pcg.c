/* hypre_pcg.c: hypre's BoomerAMG-preconditioned CG (Debian's libhypre-dev,
 * 2.26, built without OpenMP: one thread a rank) as the peer of
 * scripts/bench/solve/amgpcg: A x = b to ||b - A x|| <= 1e-8 ||b|| on a
 * matrix of mats.h, assembled through the IJ interface (rows split evenly
 * over the MPI ranks). Times the setup (HYPRE_ParCSRPCGSetup, which runs
 * BoomerAMG's setup) and the solve apart, after one untimed setup + solve
 * (first touch of the memory) unless BENCH_PEER_WARM=0 in the environment
 * (amgpcg's default), and prints the records of scripts/bench/lib (rank 0):
 *   R <case>.setup|.solve|.total <impl> <seconds> 0 <relative residual>
 *   I <impl> <case>.iters|.oc|.levels|.resid <value>
 * with <impl> = hypre-np<ranks>, <case> = amgpcg-<kind><size>.
 *
 *   mpirun -np R hypre_pcg p7|fe SIZE [AGG]
 *
 * BoomerAMG: hypre's defaults (HMIS coarsening, extended+i interpolation
 * with at most 4 entries a row, l1 hybrid Gauss-Seidel forward down and
 * backward up, one sweep, Gaussian elimination on the coarsest level) with
 * the strong threshold 0.5 hypre's manual recommends for 3D and aggressive
 * coarsening (distance-2 strength, hypre's default interpolation for it) on
 * the first AGG levels (argv[3], default 0; the runner passes 1, which
 * halves hypre's time on 3D Poisson: operator complexity 1.65 against
 * 5.9 at 64^3, 14 iterations against 8); one V-cycle
 * per CG iteration. PCG: the 2-norm of the residual, relative tolerance
 * 1e-8, absolute 0.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_krylov.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h"
#include "mats.h"

#define CHUNK 4096

static int rank, nranks;

static void die(const char *what) {
  fprintf(stderr, "hypre_pcg: %s\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* sum over the ranks of the nonzeros of every level of BoomerAMG / those of A */
static double op_complexity(HYPRE_Solver amg, int *levels) {
  hypre_ParAMGData *d = (hypre_ParAMGData *)amg;
  const int nl = hypre_ParAMGDataNumLevels(d);
  hypre_ParCSRMatrix **As = hypre_ParAMGDataAArray(d);
  double loc[2] = {0, 0}, tot[2];
  for (int l = 0; l < nl; l++) {
    const double z = (double)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(As[l])) +
                     (double)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(As[l]));
    loc[1] += z;
    if (l == 0) loc[0] = z;
  }
  MPI_Allreduce(loc, tot, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *levels = nl;
  return tot[1] / tot[0];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 3 || mat_kind(argv[1]) < 0) die("usage: hypre_pcg p7|fe SIZE [AGG]");
  const int kind = mat_kind(argv[1]);
  const int64_t g = atoll(argv[2]);
  if (g < 2) die("SIZE must be >= 2");
  const int agg = argc > 3 ? atoi(argv[3]) : 0;
  HYPRE_Init();
  const int64_t n = mat_rows(kind, g);
  const HYPRE_BigInt lo = (HYPRE_BigInt)(n * rank / nranks),
                     hi = (HYPRE_BigInt)(n * (rank + 1) / nranks) - 1;
  const HYPRE_Int nloc = (HYPRE_Int)(hi - lo + 1);

  /* A, b, x through IJ */
  HYPRE_IJMatrix Aij;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, lo, hi, lo, hi, &Aij);
  HYPRE_IJMatrixSetObjectType(Aij, HYPRE_PARCSR);
  int64_t cols64[27];
  double vals[27];
  HYPRE_Int *sizes = malloc((size_t)nloc * sizeof *sizes);
  HYPRE_Int *ncols = malloc(CHUNK * sizeof *ncols);
  HYPRE_BigInt *rows = malloc(CHUNK * sizeof *rows);
  HYPRE_BigInt *cols = malloc(CHUNK * 27 * sizeof *cols);
  double *vv = malloc(CHUNK * 27 * sizeof *vv);
  if (!sizes || !ncols || !rows || !cols || !vv) die("out of memory");
  for (HYPRE_Int r = 0; r < nloc; r++) sizes[r] = mat_row(kind, g, lo + r, cols64, vals);
  HYPRE_IJMatrixSetRowSizes(Aij, sizes);
  HYPRE_IJMatrixInitialize(Aij);
  for (HYPRE_Int r0 = 0; r0 < nloc; r0 += CHUNK) {
    const HYPRE_Int m = nloc - r0 < CHUNK ? nloc - r0 : CHUNK;
    int p = 0;
    for (HYPRE_Int r = 0; r < m; r++) {
      rows[r] = lo + r0 + r;
      ncols[r] = mat_row(kind, g, rows[r], cols64, vals);
      for (int k = 0; k < ncols[r]; k++, p++) { cols[p] = (HYPRE_BigInt)cols64[k]; vv[p] = vals[k]; }
    }
    HYPRE_IJMatrixSetValues(Aij, m, ncols, rows, cols, vv);
  }
  HYPRE_IJMatrixAssemble(Aij);
  HYPRE_ParCSRMatrix A;
  HYPRE_IJMatrixGetObject(Aij, (void **)&A);

  HYPRE_IJVector bij, xij, rij;
  HYPRE_ParVector b, x, res;
  double *bv = malloc((size_t)nloc * sizeof *bv), *zv = calloc((size_t)nloc, sizeof *zv);
  HYPRE_BigInt *idx = malloc((size_t)nloc * sizeof *idx);
  if (!bv || !zv || !idx) die("out of memory");
  for (HYPRE_Int r = 0; r < nloc; r++) { idx[r] = lo + r; bv[r] = mat_rhs(kind, g, lo + r); }
  HYPRE_IJVector *vs[3] = {&bij, &xij, &rij};
  for (int k = 0; k < 3; k++) {
    HYPRE_IJVectorCreate(MPI_COMM_WORLD, lo, hi, vs[k]);
    HYPRE_IJVectorSetObjectType(*vs[k], HYPRE_PARCSR);
    HYPRE_IJVectorInitialize(*vs[k]);
    HYPRE_IJVectorSetValues(*vs[k], nloc, idx, k == 0 ? bv : zv);
    HYPRE_IJVectorAssemble(*vs[k]);
  }
  HYPRE_IJVectorGetObject(bij, (void **)&b);
  HYPRE_IJVectorGetObject(xij, (void **)&x);
  HYPRE_IJVectorGetObject(rij, (void **)&res);

  char key[64];
  snprintf(key, sizeof key, "amgpcg-%s%lld", argv[1], (long long)g);
  /* 0: untimed (skipped with BENCH_PEER_WARM=0), 1: timed */
  const char *warm = getenv("BENCH_PEER_WARM");
  for (int round = warm && strcmp(warm, "0") == 0 ? 1 : 0; round < 2; round++) {
    HYPRE_ParVectorSetConstantValues(x, 0.0);
    HYPRE_Solver pcg, amg;
    HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &pcg);
    HYPRE_PCGSetTol(pcg, 1e-8);
    HYPRE_PCGSetAbsoluteTol(pcg, 0.0);
    HYPRE_PCGSetMaxIter(pcg, 1000);
    HYPRE_PCGSetTwoNorm(pcg, 1);
    HYPRE_PCGSetPrintLevel(pcg, 0);
    HYPRE_PCGSetLogging(pcg, 1);
    HYPRE_BoomerAMGCreate(&amg);
    HYPRE_BoomerAMGSetPrintLevel(amg, 0);
    HYPRE_BoomerAMGSetStrongThreshold(amg, 0.5);
    HYPRE_BoomerAMGSetTol(amg, 0.0);
    HYPRE_BoomerAMGSetMaxIter(amg, 1);
    HYPRE_BoomerAMGSetAggNumLevels(amg, agg);
    HYPRE_PCGSetPrecond(pcg, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSolve,
                        (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSetup, amg);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    HYPRE_ParCSRPCGSetup(pcg, A, b, x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    HYPRE_ParCSRPCGSolve(pcg, A, b, x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t2 = MPI_Wtime();
    HYPRE_Int iters;
    HYPRE_PCGGetNumIterations(pcg, &iters);
    /* the true residual */
    HYPRE_ParVectorCopy(b, res);
    HYPRE_ParCSRMatrixMatvec(-1.0, A, x, 1.0, res);
    double rr, bb;
    HYPRE_ParVectorInnerProd(res, res, &rr);
    HYPRE_ParVectorInnerProd(b, b, &bb);
    const double rel = sqrt(rr / bb);
    int levels;
    const double oc = op_complexity(amg, &levels);
    if (round == 1 && rank == 0) {
      printf("R\t%s.setup\thypre-np%d\t%.9e\t0\t%.17g\n", key, nranks, t1 - t0, rel);
      printf("R\t%s.solve\thypre-np%d\t%.9e\t0\t%.17g\n", key, nranks, t2 - t1, rel);
      printf("R\t%s.total\thypre-np%d\t%.9e\t0\t%.17g\n", key, nranks, t2 - t0, rel);
      printf("I\thypre-np%d\t%s.iters\t%d\n", nranks, key, (int)iters);
      printf("I\thypre-np%d\t%s.oc\t%.3f\n", nranks, key, oc);
      printf("I\thypre-np%d\t%s.levels\t%d\n", nranks, key, levels);
      printf("I\thypre-np%d\t%s.resid\t%.3e\n", nranks, key, rel);
      fflush(stdout);
    }
    HYPRE_BoomerAMGDestroy(amg);
    HYPRE_ParCSRPCGDestroy(pcg);
  }
  HYPRE_IJMatrixDestroy(Aij);
  HYPRE_IJVectorDestroy(bij);
  HYPRE_IJVectorDestroy(xij);
  HYPRE_IJVectorDestroy(rij);
  free(sizes); free(ncols); free(rows); free(cols); free(vv); free(bv); free(zv); free(idx);
  HYPRE_Finalize();
  MPI_Finalize();
  return 0;
}
