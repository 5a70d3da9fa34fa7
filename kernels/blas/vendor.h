/* vendor.h: the vendor BLAS / LAPACK behind impl = "vendor" (and "auto"
 * above the measured crossover): OpenBLAS on the host, opened with dlopen
 * (libopenblas.so.0), so speck builds and runs without it.
 *
 * A small C API on raw host pointers, for the drivers of kernels/blas/ and
 * for any C driver (a supernodal Cholesky calls potrf / trsm / syrk / gemm
 * on its blocks). A matrix is a pointer, its extents and the strides of a
 * row step 'rs' and a column step 'cs' in elements: row-major (cs == 1)
 * and column-major (rs == 1) matrices go to the library as they are (a
 * row-major matrix is the transposed column-major one); LAPACK calls on a
 * row-major or strided matrix work on a column-major copy. 'dtype' is
 * SK_F64 or SK_F32, alpha / beta are converted to it. Pivots are 0-based
 * (row k was swapped with ipiv[k]), info as LAPACK's (0, or k + 1 for the
 * first zero / non-positive pivot k).
 *
 * Each returns SK_VENDOR_OK, SK_VENDOR_MISSING (no library: the caller
 * runs its native code) or SK_VENDOR_UNSUPPORTED (no unit stride, or
 * extents past the library's 32-bit integers: native too).
 */
#ifndef SK_VENDOR_H
#define SK_VENDOR_H

#include <stdint.h>

enum { SK_VENDOR_OK = 0, SK_VENDOR_MISSING = 1, SK_VENDOR_UNSUPPORTED = 2 };

/* 1 when OpenBLAS loaded (loads it on first call, once per process) */
int sk_vendor_host_available(void);
/* one line for speck.info(): the library, its core and thread count, or
 * why it is not used ("libopenblas.so.0 not found: native kernels") */
const char *sk_vendor_host_status(void);
/* let the library use 'threads' threads (speck's host thread count) */
void sk_vendor_host_threads(int threads);

int sk_vendor_gemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                   double alpha, const void *A, int64_t rsa, int64_t csa, const void *B,
                   int64_t rsb, int64_t csb, double beta, void *C, int64_t rsc,
                   int64_t csc);
/* complex gemm (cblas_zgemm / cblas_cgemm): dtype SK_C128 or SK_C64, trans
 * 'N', 'T' or 'C', alpha / beta {re, im}; A, B and C all row-major (unit
 * column step) or all column-major (unit row step), else
 * SK_VENDOR_UNSUPPORTED */
int sk_vendor_zgemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                    const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    const void *B, int64_t rsb, int64_t csb, const double *beta, void *C,
                    int64_t rsc, int64_t csc);
/* complex trsm / potrf / getrf (ztrsm / ctrsm by CBLAS, zpotrf / cpotrf,
 * zgetrf / cgetrf): dtype SK_C128 or SK_C64, trans 'N', 'T' or 'C', alpha
 * {re, im}; trsm takes A and B both row-major or both column-major (else
 * SK_VENDOR_UNSUPPORTED), potrf / getrf any strides (a column-major copy
 * as the real ones); SK_VENDOR_MISSING also when the library lacks them */
int sk_vendor_ztrsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                    int64_t n, const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    void *B, int64_t rsb, int64_t csb);
int sk_vendor_zpotrf(int dtype, char uplo, int64_t n, void *A, int64_t rs, int64_t cs,
                     int64_t *info);
int sk_vendor_zgetrf(int dtype, int64_t m, int64_t n, void *A, int64_t rs, int64_t cs,
                     int64_t *ipiv, int64_t *info);
/* complex trmm (as ztrsm), getrs (zgetrs_ / cgetrs_: trans 'N' 'T' 'C',
 * 0-based pivots, any strides), trtri, syrk (her 0: zsyrk, trans 'N' 'T',
 * alpha / beta {re, im}) and herk (her 1: zherk, trans 'N' 'C', alpha[0]
 * and beta[0] real); syrk / herk take A and C both row-major or both
 * column-major, else SK_VENDOR_UNSUPPORTED */
int sk_vendor_ztrmm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                    int64_t n, const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    void *B, int64_t rsb, int64_t csb);
int sk_vendor_zgetrs(int dtype, char trans, int64_t n, int64_t nrhs, const void *A,
                     int64_t rs, int64_t cs, const int64_t *ipiv, void *B, int64_t rsb,
                     int64_t csb);
int sk_vendor_ztrtri(int dtype, char uplo, char diag, int64_t n, void *A, int64_t rs,
                     int64_t cs, int64_t *info);
int sk_vendor_zsyrk(int dtype, int her, char uplo, char trans, int64_t n, int64_t k,
                    const double *alpha, const void *A, int64_t rsa, int64_t csa,
                    const double *beta, void *C, int64_t rsc, int64_t csc);
int sk_vendor_gemv(int dtype, char trans, int64_t m, int64_t n, double alpha,
                   const void *A, int64_t rsa, int64_t csa, const void *x, int64_t incx,
                   double beta, void *y, int64_t incy);
/* C (n x n, triangle 'uplo') = alpha op(A) op(A)^T + beta C; op(A) n x k */
int sk_vendor_syrk(int dtype, char uplo, char trans, int64_t n, int64_t k, double alpha,
                   const void *A, int64_t rsa, int64_t csa, double beta, void *C,
                   int64_t rsc, int64_t csc);
/* B (m x n) = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 ('R') */
int sk_vendor_trsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                   int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                   void *B, int64_t rsb, int64_t csb);
int sk_vendor_trmm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                   int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                   void *B, int64_t rsb, int64_t csb);
int sk_vendor_potrf(int dtype, char uplo, int64_t n, void *A, int64_t rs, int64_t cs,
                    int64_t *info);
int sk_vendor_getrf(int dtype, int64_t m, int64_t n, void *A, int64_t rs, int64_t cs,
                    int64_t *ipiv, int64_t *info);
/* B (n x nrhs) = A^-1 B with getrf's factors and pivots */
int sk_vendor_getrs(int dtype, int64_t n, int64_t nrhs, const void *A, int64_t rs,
                    int64_t cs, const int64_t *ipiv, void *B, int64_t rsb, int64_t csb);
int sk_vendor_trtri(int dtype, char uplo, char diag, int64_t n, void *A, int64_t rs,
                    int64_t cs, int64_t *info);

/* -- the GPU: its vendor BLAS ----------------------------------------------
 * the device back end's vendor BLAS (its table's 'blas' hook, queued in
 * its space's order), so it is ordered with speck's kernels and copies. The
 * pointers are device (or managed) memory; the same matrix conventions
 * and statuses as above. potrf / getrf / trtri have no entry there (the
 * vendor keeps them in its solver library): the native kernels run. */
int sk_vendor_gpu_available(void);
const char *sk_vendor_gpu_status(void);
int sk_vendor_gpu_gemm(int dtype, char ta, char tb, int64_t m, int64_t n, int64_t k,
                       double alpha, const void *A, int64_t rsa, int64_t csa,
                       const void *B, int64_t rsb, int64_t csb, double beta, void *C,
                       int64_t rsc, int64_t csc);
/* 'batch' products, matrix b of X at X + b * sX elements (strided batched) */
int sk_vendor_gpu_gemm_batched(int dtype, char ta, char tb, int64_t m, int64_t n,
                               int64_t k, double alpha, const void *A, int64_t rsa,
                               int64_t csa, int64_t sa, const void *B, int64_t rsb,
                               int64_t csb, int64_t sb, double beta, void *C, int64_t rsc,
                               int64_t csc, int64_t sc, int64_t batch);
int sk_vendor_gpu_trsm(int dtype, char side, char uplo, char trans, char diag, int64_t m,
                       int64_t n, double alpha, const void *A, int64_t rsa, int64_t csa,
                       void *B, int64_t rsb, int64_t csb);
int sk_vendor_gpu_syrk(int dtype, char uplo, char trans, int64_t n, int64_t k,
                       double alpha, const void *A, int64_t rsa, int64_t csa, double beta,
                       void *C, int64_t rsc, int64_t csc);

#endif
