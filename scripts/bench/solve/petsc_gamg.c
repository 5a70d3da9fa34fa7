/* petsc_gamg.c: PETSc's GAMG-preconditioned CG (Debian's petsc-dev, 3.18,
 * one thread a rank) as the peer of scripts/bench/solve/amgpcg: A x = b to
 * ||b - A x|| <= 1e-8 ||b|| on a matrix of mats.h, a MatMPIAIJ (rows split
 * evenly over the MPI ranks, preallocated exactly). Times the setup
 * (KSPSetUp, which runs GAMG's) and the solve apart, after one untimed
 * setup + solve on a KSP of its own (first touch of the memory) unless
 * BENCH_PEER_WARM=0 in the environment (amgpcg's default), and prints the
 * records of scripts/bench/lib (rank 0):
 *   R <case>.setup|.solve|.total <impl> <seconds> 0 <relative residual>
 *   I <impl> <case>.iters|.oc|.levels|.resid <value>
 * with <impl> = petsc-np<ranks>, <case> = amgpcg-<kind><size>.
 *
 *   mpirun -np R petsc_gamg p7|fe SIZE [PETSc options]
 *
 * KSPCG + PCGAMG with GAMG's defaults (smoothed aggregation, MIS
 * coarsening, Chebyshev/Jacobi smoothing, one V-cycle per iteration; the
 * constant near-null space); the norm tested is the unpreconditioned
 * residual's (KSP_NORM_UNPRECONDITIONED), rtol 1e-8, atol 0; the command
 * line's PETSc options (KSPSetFromOptions) come last.
 */
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

#include "mats.h"

static PetscErrorCode run(int kind, int64_t g, const char *kname) {
  PetscMPIInt rank, nranks;
  PetscCall(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MPI_Comm_size(PETSC_COMM_WORLD, &nranks));
  const int64_t n = mat_rows(kind, g);
  const PetscInt lo = (PetscInt)(n * rank / nranks), hi = (PetscInt)(n * (rank + 1) / nranks);
  const PetscInt nloc = hi - lo;
  int64_t cols64[27];
  double vals[27];
  PetscInt cols[27], *dnz, *onz;
  PetscCall(PetscMalloc2(nloc, &dnz, nloc, &onz));
  for (PetscInt r = 0; r < nloc; r++) {
    const int c = mat_row(kind, g, lo + r, cols64, vals);
    dnz[r] = onz[r] = 0;
    for (int k = 0; k < c; k++) {
      if (cols64[k] >= lo && cols64[k] < hi) dnz[r]++;
      else onz[r]++;
    }
  }
  Mat A;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, nloc, nloc, (PetscInt)n, (PetscInt)n, 0, dnz, 0, onz, &A));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  for (PetscInt r = lo; r < hi; r++) {
    const int c = mat_row(kind, g, r, cols64, vals);
    for (int k = 0; k < c; k++) cols[k] = (PetscInt)cols64[k];
    PetscCall(MatSetValues(A, 1, &r, c, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree2(dnz, onz));
  Vec b, x, res;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &res));
  for (PetscInt r = lo; r < hi; r++) PetscCall(VecSetValue(b, r, mat_rhs(kind, g, r), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));

  char key[64];
  snprintf(key, sizeof key, "amgpcg-%s%lld", kname, (long long)g);
  /* 0: untimed (skipped with BENCH_PEER_WARM=0), 1: timed */
  const char *warm = getenv("BENCH_PEER_WARM");
  for (int round = warm && strcmp(warm, "0") == 0 ? 1 : 0; round < 2; round++) {
    KSP ksp;
    PC pc;
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, 1e-8, 0.0, PETSC_DEFAULT, 1000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
    const double t0 = MPI_Wtime();
    PetscCall(KSPSetUp(ksp));
    PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
    const double t1 = MPI_Wtime();
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
    const double t2 = MPI_Wtime();
    PetscInt iters, levels;
    KSPConvergedReason reason;
    PetscReal gc, oc, rn, bn;
    PetscCall(KSPGetIterationNumber(ksp, &iters));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PCMGGetLevels(pc, &levels));
    PetscCall(PCMGGetGridComplexity(pc, &gc, &oc));
    PetscCall(MatMult(A, x, res));
    PetscCall(VecAYPX(res, -1.0, b));
    PetscCall(VecNorm(res, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    const double rel = (double)(rn / bn);
    if (reason <= 0) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petsc_gamg: %s %lld: not converged (reason %d)\n",
                            kname, (long long)g, (int)reason));
      PetscCall(KSPDestroy(&ksp));
      return PETSC_ERR_NOT_CONVERGED;
    }
    if (round == 1 && rank == 0) {
      printf("R\t%s.setup\tpetsc-np%d\t%.9e\t0\t%.17g\n", key, nranks, t1 - t0, rel);
      printf("R\t%s.solve\tpetsc-np%d\t%.9e\t0\t%.17g\n", key, nranks, t2 - t1, rel);
      printf("R\t%s.total\tpetsc-np%d\t%.9e\t0\t%.17g\n", key, nranks, t2 - t0, rel);
      printf("I\tpetsc-np%d\t%s.iters\t%d\n", nranks, key, (int)iters);
      printf("I\tpetsc-np%d\t%s.oc\t%.3f\n", nranks, key, (double)oc);
      printf("I\tpetsc-np%d\t%s.levels\t%d\n", nranks, key, (int)levels);
      printf("I\tpetsc-np%d\t%s.resid\t%.3e\n", nranks, key, rel);
      fflush(stdout);
    }
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&res));
  PetscCall(MatDestroy(&A));
  return 0;
}

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  if (argc < 3 || mat_kind(argv[1]) < 0 || atoll(argv[2]) < 2) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "usage: petsc_gamg p7|fe SIZE [PETSc options]\n"));
    PetscCall(PetscFinalize());
    return 1;
  }
  const PetscErrorCode e = run(mat_kind(argv[1]), atoll(argv[2]), argv[1]);
  PetscCall(PetscFinalize());
  return e != 0;
}
