/* dense.h: what the dense drivers share (kernels/blas/ level 2-3 and
 * LAPACK, kernels/batched/): argument checks with their messages, the
 * stride-layout copies of views that the kernels see, launches.
 *
 * Every dense kernel reads its matrices through sk_mat (dialect/linalg.h):
 * pointer, extents and both strides, so one precompiled signature (layout
 * "stride") serves row-major, column-major and strided views alike.
 */
#ifndef SK_DENSE_H
#define SK_DENSE_H

#include "../kernels.h"
#include "vendor.h"

/* 'v' as the kernels see it: the same view with layout SK_STRIDE (no
 * reference taken: valid while 'v' is) */
void sk_dense_strided(const sk_view *v, sk_view *out);
/* "3x4" (rank 2) or "10x3x4" (rank 3) */
const char *sk_dense_shape(const sk_view *v, char *buf, size_t n);
/* A rank-2 (rank 3 when 'batched') float view named 'name' of dtype
 * 'dtype' (-1: any float; the first matrix fixes it), in the active
 * back end's space. */
const sk_view *sk_dense_mat(const sk_arg *args, int nargs, const char *name, int batched,
                            int *dtype, char *err, size_t errlen);
/* the one-character option 'name' (a string), one of 'allowed'; 'dflt'
 * when absent (0: required) */
int sk_dense_char(const sk_arg *args, int nargs, const char *name, const char *allowed,
                  char dflt, char *c, char *err, size_t errlen);
/* impl "native" | "vendor" | "auto" (default auto) -> SK_IMPL_* */
enum { SK_IMPL_NATIVE, SK_IMPL_VENDOR, SK_IMPL_AUTO };
int sk_dense_impl(const sk_arg *args, int nargs, int *impl, char *err, size_t errlen);
/* the active back end (NULL with a message) */
const sk_backend *sk_dense_backend(char *err, size_t errlen);
/* potrf's pivot 'info' - 1 failed with value 'd' (the pivot left in
 * A(k, k); a complex matrix's real part): NaN or Inf, or not positive --
 * the message, and -1 (lapack.c; zlapack.c's too) */
int sk_dense_potrf_fail(const sk_view *A, int64_t info, double d, char *err,
                        size_t errlen);

/* getrf's / trtri's zero pivot info - 1 (LAPACK's info): "A (view 'S') is
 * singular: pivot 1 is zero", and -1 (lapack.c; zlapack.c's too) */
int sk_dense_singular(const sk_view *A, int64_t info, char *err, size_t errlen);
/* the pivots view 'ipiv': int32 or int64 of 'n' entries, else a message
 * and NULL; absent and not 'need'ed: NULL, no message (lapack.c) */
const sk_view *sk_dense_pivots(const sk_arg *args, int nargs, int64_t n, int need,
                               char *err, size_t errlen);

/* complex arguments (zblas.c; for zlapack.c and batched/zbatched.c): a
 * complex128 capture; the complex view 'name' of 'rank', of the dtype *dt
 * (set by the first), with 'reach': in a space the active back end
 * reaches; a scalar given as 'name'_re and 'name'_im (im defaults to 0) */
sk_arg sk_zarg(const char *name, double re, double im);
const sk_view *sk_zview(const sk_arg *args, int nargs, const char *name, int rank, int *dt,
                        int reach, char *err, size_t errlen);
int sk_zscalar(const sk_arg *args, int nargs, const char *name, double z[2], char *err,
               size_t errlen);
/* after a GPU vendor call wrote 'C': wait for it when C is host visible
 * (managed, pinned), as a parallel_for does; 0, or -1 with a message */
int sk_dense_vendor_done(const sk_view *C, char *err, size_t errlen);

/* a team launch of 'kb': 'league' teams of 'team' members (0: auto),
 * 'scratch' bytes of level-1 thread scratch per member */
int sk_dense_team(const sk_kbody *kb, int64_t league, int team, int64_t scratch,
                  const sk_arg *args, int nargs, char *err, size_t errlen);
int sk_dense_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                   char *err, size_t errlen);

/* An int64 view of 'n' entries in 'space', zeroed; and its entry 0 read
 * back (info views) */
int sk_dense_ivec(sk_view *v, const char *label, int64_t n, int space, char *err,
                  size_t errlen);
int sk_dense_get_i64(const sk_view *v, int64_t i, int64_t *x, char *err, size_t errlen);

/* The native level-3 building blocks on the active back end (views any
 * layout; no argument checks: the drivers made them), used by the
 * drivers of blas3.c and lapack.c:
 *   gemm: C = alpha op(A) op(B) + beta C; with 'tri' 'L' / 'U' only that
 *         triangle of C is written (syrk), 0 all of it
 *   trsm: B = alpha op(A)^-1 B (side L) or alpha B op(A)^-1 (side R) */
int sk_dense_gemm(char ta, char tb, double alpha, const sk_view *A, const sk_view *B,
                  double beta, const sk_view *C, char tri, char *err, size_t errlen);
int sk_dense_trsm(char side, char uplo, char trans, char diag, double alpha,
                  const sk_view *A, const sk_view *B, char *err, size_t errlen);
/* Column-major float64 blocks inside rank-1 views (blocks.c): the m x n
 * block at element 'off' with leading dimension 'ld' as a rank-2 view; and
 * gemm (C = alpha op(A) op(B) + beta C) / trsm (B = op(T)^-1 B, side 'L',
 * or B op(T)^-1, side 'R'; T the triangle 'uplo' of A's block) on such
 * blocks in memory space 'space', by the vendor layer that reaches it,
 * else the native kernels above */
void sk_dense_colblock(const sk_view *base, int64_t off, int64_t m, int64_t n, int64_t ld,
                       sk_view *o);
int sk_dense_blk_gemm(int space, char ta, char tb, const sk_view *A, int64_t aoff,
                      int64_t lda, const sk_view *B, int64_t boff, int64_t ldb,
                      const sk_view *C, int64_t coff, int64_t ldc, int64_t m, int64_t n,
                      int64_t k, double alpha, double beta, char *err, size_t errlen);
int sk_dense_blk_trsm(int space, char side, char uplo, char trans, char diag,
                      const sk_view *A, int64_t aoff, int64_t lda, const sk_view *B,
                      int64_t boff, int64_t ldb, int64_t m, int64_t n, char *err,
                      size_t errlen);
/* the rows [r0, r0+m) and columns [c0, c0+n) of rank-2 'v' */
void sk_dense_block(const sk_view *v, int64_t r0, int64_t c0, int64_t m, int64_t n,
                    sk_view *out);

#endif
