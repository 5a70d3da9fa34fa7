/* sparse.c: the sparse family's registration: one list of entries and
 * one of bodies per file of kernels/sparse/, in the order the registry
 * numbers the precompiled variants.
 */
#include "sparse.h"

const sk_kentry *const *const sk_sparse_entries[] = {
  sk_csr_entries,    sk_mmio_entries,  sk_spmv_entries,   sk_cg_entries,
  sk_spgemm_entries, sk_spadd_entries, sk_sptrsv_entries, sk_zcg_entries, NULL};
const sk_kbody *const *const sk_sparse_bodies[] = {
  sk_csr_bodies,   sk_spmv_bodies,   sk_spgemm_bodies,
  sk_spadd_bodies, sk_sptrsv_bodies, sk_zspmv_bodies, sk_zcg_bodies, sk_csr16_bodies, sk_vdict_bodies, sk_dia_bodies,
  NULL};
