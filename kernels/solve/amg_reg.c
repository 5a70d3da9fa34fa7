/* amg_reg.c: the registration of the preconditioners of kernels/solve/
 * (Chebyshev, the incomplete factorizations, smoothed aggregation): one
 * list of entries and one of bodies per file, in the order the registry
 * numbers the precompiled variants.
 */
#include "amg.h"

const sk_kentry *const *const sk_precond_entries[] = {
  sk_pc_cheby_entries, sk_pc_ilu_entries, sk_pc_amg_entries, NULL};
const sk_kbody *const *const sk_precond_bodies[] = {sk_pc_cheby_bodies, sk_pc_ilu_bodies,
                                                    sk_pc_amg_bodies, NULL};
