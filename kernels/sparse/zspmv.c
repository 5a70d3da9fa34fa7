/* zspmv.c: SpMV of a CSR matrix with complex values (complex128,
 * complex64): y = alpha op(A) x + beta y with op N (A), C (conj(A)), T
 * (A^T) and H (A^H); alpha, beta complex. sparse.spmv (spmv.c) hands a
 * complex matrix here. Rank-1 x and y of the matrix's dtype; bodies in
 * zspmv.sk, precompiled for complex128 and complex64 (contiguous views),
 * JIT-compiled otherwise (the cc tier on the host, the device compiler
 * on a GPU). Multivectors (rank-2 x, y) are refused.
 */
#include <string.h>

#include "core/err.h"
#include "kbodies.h"
#include "sparse.h"

#define R1(name, dt) " " name "=" dt "[1]"
#define MAT(VT)      R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT)
#define ZN_SIG(VT)                                                                   \
  "range" MAT(VT) R1("x", VT) R1("y", VT) " cj=int64 alpha=complex128 beta=complex128"
#define ZT_SIG(VT) "range" MAT(VT) R1("x", VT) R1("y", VT) " cj=int64 alpha=complex128"
#define ZS_SIG(VT) "range" R1("y", VT) " beta=complex128"
static const char *const sig_zn[] = {ZN_SIG("complex128"), ZN_SIG("complex64"), NULL};
static const char *const sig_zt[] = {ZT_SIG("complex128"), ZT_SIG("complex64"), NULL};
static const char *const sig_zs[] = {ZS_SIG("complex128"), ZS_SIG("complex64"), NULL};
static const sk_kbody k_zspmv = {
  .label = "sparse.zspmv", .body = sk_body_sparse_zspmv, .pattern = SK_FOR, .sigs = sig_zn};
static const sk_kbody k_zspmv_t = {.label = "sparse.zspmv_t",
                                   .body = sk_body_sparse_zspmv_t,
                                   .pattern = SK_FOR,
                                   .sigs = sig_zt};
static const sk_kbody k_zscale = {
  .label = "sparse.zscale", .body = sk_body_sparse_zscale, .pattern = SK_FOR, .sigs = sig_zs};

const sk_kbody *const sk_zspmv_bodies[] = {&k_zspmv, &k_zspmv_t, &k_zscale, NULL};

static sk_arg arg_c(const char *name, const double *z) {
  sk_arg a;
  memset(&a, 0, sizeof a);
  a.name = name;
  a.dtype = SK_C128;
  a.value.c128[0] = z[0];
  a.value.c128[1] = z[1];
  return a;
}

int sk_sp_zspmv(char mode, const double *alpha, const sk_csr *A, const sk_view *x,
                const double *beta, const sk_view *y, char *err, size_t errlen) {
  const sk_view *v[3] = {A->values, x, y};
  const char *nm[3] = {"A.values", "x", "y"};
  for (int k = 0; k < 3; k++) {
    if (v[k]->dtype != A->values->dtype) {
      sk_err(err, errlen, SK_E_ZSPMV_DTYPE, nm[k], v[k]->label, sk_dtypes[v[k]->dtype].name,
             sk_dtypes[A->values->dtype].name);
      return -1;
    }
    if (k && v[k]->rank != 1) {
      sk_err(err, errlen, SK_E_ZSPMV_RANK, nm[k], v[k]->label, v[k]->rank);
      return -1;
    }
  }
  int trans = mode == 'T' || mode == 'H';
  int64_t cj = mode == 'C' || mode == 'H';
  sk_arg a[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                sk_arg_view("values", A->values), sk_arg_view("x", x),
                sk_arg_view("y", y),             sk_arg_i64("cj", cj),
                arg_c("alpha", alpha),           arg_c("beta", beta)};
  int zero = alpha[0] == 0 && alpha[1] == 0;
  if (trans || zero || A->nrows == 0) { /* y = beta y first (A, x not read when alpha = 0) */
    sk_arg s[] = {sk_arg_view("y", y), arg_c("beta", beta)};
    if (sk_sp_range(&k_zscale, y->extent[0], s, 2, NULL, err, errlen) < 0) return -1;
    if (zero || !trans) return 0;
    return sk_sp_range(&k_zspmv_t, A->nrows, a, 7, NULL, err, errlen);
  }
  return sk_sp_range(&k_zspmv, A->nrows, a, 8, NULL, err, errlen);
}
