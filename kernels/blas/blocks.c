/* blocks.c: gemm and trsm on column-major float64 blocks inside rank-1
 * views (an offset and a leading dimension each), in a given memory
 * space: the vendor layer where it reaches that space (OpenBLAS on the
 * host, the GPU's vendor BLAS of the back end whose kernels reach a device
 * space), else speck's own dense kernels (sk_dense_gemm, sk_dense_trsm).
 * The supernodal factorizations' blocks (kernels/task/chol_ls.c,
 * kernels/solve/lu_ls.c) go through here.
 */
#include "core/backend.h"
#include "dense.h"
#include "vendor.h"

void sk_dense_colblock(const sk_view *base, int64_t off, int64_t m, int64_t n, int64_t ld,
                       sk_view *o) {
  *o = *base;
  o->data = (double *)base->data + off;
  o->rank = 2;
  o->extent[0] = m;
  o->extent[1] = n;
  o->stride[0] = 1;
  o->stride[1] = ld;
  o->layout = SK_STRIDE;
}

/* the vendor BLAS of the back end whose kernels reach device 'space',
 * loaded, or NULL: a device space no vendor library reaches (a device-like
 * back end's) takes speck's dense kernels -- another back end's library
 * must not get its pointers */
static const sk_vendor_blas *dev_blas(int space) {
  const sk_backend *b = sk_backend_blas_for(space);
  return b && b->blas->available() ? b->blas : NULL;
}

int sk_dense_blk_gemm(int space, char ta, char tb, const sk_view *A, int64_t aoff,
                      int64_t lda, const sk_view *B, int64_t boff, int64_t ldb,
                      const sk_view *C, int64_t coff, int64_t ldc, int64_t m, int64_t n,
                      int64_t k, double alpha, double beta, char *err, size_t errlen) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const double *a = (const double *)A->data + aoff, *b = (const double *)B->data + boff;
  double *c = (double *)C->data + coff;
  const sk_vendor_blas *dv;
  if (space == SK_SPACE_HOST) {
    if (sk_vendor_gemm(SK_F64, ta, tb, m, n, k, alpha, a, 1, lda, b, 1, ldb, beta, c, 1,
                       ldc) == SK_VENDOR_OK)
      return 0;
  } else if ((dv = dev_blas(space)) &&
             dv->gemm_batched(SK_F64, ta, tb, m, n, k, alpha, a, 1, lda, 0, b, 1, ldb, 0,
                              beta, c, 1, ldc, 0, 1) == SK_VENDOR_OK) {
    return 0;
  }
  sk_view va, vb, vc;
  sk_dense_colblock(A, aoff, ta == 'N' ? m : k, ta == 'N' ? k : m, lda, &va);
  sk_dense_colblock(B, boff, tb == 'N' ? k : n, tb == 'N' ? n : k, ldb, &vb);
  sk_dense_colblock(C, coff, m, n, ldc, &vc);
  return sk_dense_gemm(ta, tb, alpha, &va, &vb, beta, &vc, 0, err, errlen);
}

int sk_dense_blk_trsm(int space, char side, char uplo, char trans, char diag,
                      const sk_view *A, int64_t aoff, int64_t lda, const sk_view *B,
                      int64_t boff, int64_t ldb, int64_t m, int64_t n, char *err,
                      size_t errlen) {
  if (m <= 0 || n <= 0) return 0;
  const double *a = (const double *)A->data + aoff;
  double *b = (double *)B->data + boff;
  const sk_vendor_blas *dv;
  if (space == SK_SPACE_HOST) {
    if (sk_vendor_trsm(SK_F64, side, uplo, trans, diag, m, n, 1.0, a, 1, lda, b, 1,
                       ldb) == SK_VENDOR_OK)
      return 0;
  } else if ((dv = dev_blas(space)) &&
             dv->trsm(SK_F64, side, uplo, trans, diag, m, n, 1.0, a, 1, lda, b, 1, ldb) ==
               SK_VENDOR_OK) {
    return 0;
  }
  int64_t ka = side == 'R' ? n : m;
  sk_view va, vb;
  sk_dense_colblock(A, aoff, ka, ka, lda, &va);
  sk_dense_colblock(B, boff, m, n, ldb, &vb);
  return sk_dense_trsm(side, uplo, trans, diag, 1.0, &va, &vb, err, errlen);
}
