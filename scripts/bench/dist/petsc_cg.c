/* petsc_cg.c: the PETSc peer of scripts/bench/dist/cg.lua -- the same
 * 7-point (n^3) or 5-point (n^2) Poisson matrix as MatMPIAIJ, rows in
 * PETSc's contiguous blocks, b = 1, KSPCG with PCJACOBI to the same
 * criterion (||r|| <= 1e-8 ||b||, the unpreconditioned residual) or
 * maxiter, after a warm-up solve of 2 iterations (as cg.lua). Prints the
 * line cg.lua prints (ms per iteration, wall and rank 0's CPU time).
 *   mpicc -O3 -I/usr/lib/petsc/include petsc_cg.c -L/usr/lib/petsc/lib -lpetsc_real
 *   mpirun -np 2 ./a.out n stencil maxiter
 */
#include <petscksp.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscInt n = argc > 1 ? atoi(argv[1]) : 128, st = argc > 2 ? atoi(argv[2]) : 7,
           maxit = argc > 3 ? atoi(argv[3]) : 200;
  PetscInt nz = st == 7 ? n : 1, N = n * n * nz;
  PetscMPIInt np;
  MPI_Comm_size(PETSC_COMM_WORLD, &np);
  Mat A;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N, N, st, NULL, st - 1,
                         NULL, &A));
  PetscInt b, e;
  PetscCall(MatGetOwnershipRange(A, &b, &e));
  for (PetscInt g = b; g < e; g++) {
    PetscInt x = g % n, y = (g / n) % n, z = g / (n * n), cols[7], k = 0;
    PetscScalar v[7];
    if (nz > 1 && z > 0) { cols[k] = g - n * n; v[k++] = -1.0; }
    if (y > 0) { cols[k] = g - n; v[k++] = -1.0; }
    if (x > 0) { cols[k] = g - 1; v[k++] = -1.0; }
    cols[k] = g; v[k++] = nz > 1 ? 6.0 : 4.0;
    if (x < n - 1) { cols[k] = g + 1; v[k++] = -1.0; }
    if (y < n - 1) { cols[k] = g + n; v[k++] = -1.0; }
    if (nz > 1 && z < nz - 1) { cols[k] = g + n * n; v[k++] = -1.0; }
    PetscCall(MatSetValues(A, 1, &g, k, cols, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  Vec xv, bv;
  PetscCall(MatCreateVecs(A, &xv, &bv));
  PetscCall(VecSet(bv, 1.0));
  KSP ksp;
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-8, 0.0, PETSC_DEFAULT, maxit));
  PetscCall(KSPSetUp(ksp));
  /* a warm-up solve of 2 iterations (as cg.lua's), then the timed one */
  PetscCall(KSPSetTolerances(ksp, 1e-8, 0.0, PETSC_DEFAULT, 2));
  PetscCall(KSPSolve(ksp, bv, xv));
  PetscCall(KSPSetTolerances(ksp, 1e-8, 0.0, PETSC_DEFAULT, maxit));
  PetscCall(PetscBarrier(NULL));
  double t0 = MPI_Wtime();
  clock_t c0 = clock();
  PetscCall(KSPSolve(ksp, bv, xv));
  double s = MPI_Wtime() - t0, cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  PetscInt its;
  KSPConvergedReason why;
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &why));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "petsc_cg ranks=%d stencil=%d n=%d rows=%d iters=%d reason=%s ms_per_iter=%.3f "
                        "cpu_ms_per_iter=%.3f\n",
                        (int)np, (int)st, (int)n, (int)N, (int)its, KSPConvergedReasons[why],
                        1e3 * s / (its > 0 ? its : 1), 1e3 * cpu / (its > 0 ? its : 1)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&xv));
  PetscCall(VecDestroy(&bv));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
