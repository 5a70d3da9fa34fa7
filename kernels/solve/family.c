/* family.c: the registration of kernels/solve/: one list of entries and
 * one of bodies per file (the Krylov methods, the point preconditioners,
 * Chebyshev, the incomplete factorizations, smoothed aggregation, the
 * sparse LU and its level-set schedule, the AMG Galerkin product of
 * amg_rap.c), in the order the registry numbers the precompiled variants.
 */
#include "amg.h"
#include "lu.h"
#include "solve.h"

const sk_kentry *const *const sk_solve_entries[] = {
  sk_krylov_entries, sk_precond_entries, sk_pc_cheby_entries,
  sk_pc_ilu_entries, sk_pc_amg_entries,  sk_lu_entries, sk_lu_ls_entries, sk_pc_rap_entries, NULL};
const sk_kbody *const *const sk_solve_bodies[] = {
  sk_krylov_bodies, sk_precond_bodies, sk_pc_cheby_bodies,
  sk_pc_ilu_bodies, sk_pc_amg_bodies,  sk_lu_bodies, sk_lu_ls_bodies, sk_pc_rap_bodies, NULL};
