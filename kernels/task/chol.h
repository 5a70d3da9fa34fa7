/* chol.h: the sparse Cholesky of seed 003 ch. 5 (Tacho) on the task
 * scheduler: chol.c (symbolic analysis, numeric factorisation by
 * supernodes as a task DAG, solve) over chol_blocks.c (the dense block
 * operations and the AMD ordering, in one place so they can be re-routed).
 */
#ifndef SK_CHOL_H
#define SK_CHOL_H

#include <stddef.h>
#include <stdint.h>

/* -- chol_blocks.c ----------------------------------------------------- */
/* 0 when the block operations can be used, else -1 and why */
int sk_cb_available(char *err, size_t errlen);
/* AMD ordering of the n x n pattern (ap, ai) (CSC, both triangles):
 * perm[k] = the row that goes k-th. 0 or -1 */
int sk_cb_amd(int n, const int *ap, const int *ai, int *perm);
/* Cholesky of the leading k x k block of a (column major, lower): 0, or
 * the 1-based column whose pivot is not positive or not finite
 * (*nonfinite 1: NaN, 2: Inf, 0: not positive) */
int sk_cb_potrf(int k, double *a, int lda, int *nonfinite);
/* b (m x k) := b * l^-T, l k x k lower */
void sk_cb_trsm(int m, int k, const double *l, int ldl, double *b, int ldb);
/* c (m x m, lower) -= a a^T, a m x k */
void sk_cb_syrk(int m, int k, const double *a, int lda, double *c, int ldc);
/* c (n x n, lower) = a a^T, a n x k */
void sk_cb_syrk0(int n, int k, const double *a, int lda, double *c, int ldc);
/* c (m x n) = a b^T, a m x k, b n x k */
void sk_cb_gemm_nt(int m, int n, int k, const double *a, int lda, const double *b,
                   int ldb, double *c, int ldc);
/* y -= op(a) x, a m x n (trans: a^T) */
void sk_cb_gemv(int trans, int m, int n, const double *a, int lda, const double *x,
                double *y);
/* the block operations' own threads (1 while several tasks run) */
void sk_cb_threads(int n);
/* x := l^-1 x (trans: l^-T x), l k x k lower */
void sk_cb_trsv(int trans, int k, const double *l, int ldl, double *x);

/* -- chol.c -------------------------------------------------------------- */
typedef struct sk_chol sk_chol;
/* Factor the symmetric positive definite n x n matrix in CSR (both
 * triangles: the lower one is read, entry (i, j) with j <= i); 'threads'
 * the back end's (the DAG's workers). NULL with a message: a pivot that
 * is not positive names its row (0-based) of the matrix. */
sk_chol *sk_chol_factor(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                        const double *val, char *err, size_t errlen);
/* x = A^-1 b ('x' may be 'b') */
int sk_chol_solve(const sk_chol *c, const double *b, double *x, char *err, size_t errlen);
void sk_chol_free(sk_chol *c);
/* The factor L of P A P^T = L L^T as CSR (rows sorted; the supernodes'
 * blocks whole, the zeros of relaxed supernodes kept, so the supernodal
 * solve finds the same blocks): rowptr n + 1, colidx and val nnz entries
 * of the caller's arrays (sk_chol_lower_nnz gives nnz); perm[k] = the
 * matrix row that goes k-th. */
int64_t sk_chol_lower_nnz(const sk_chol *c);
int sk_chol_lower(sk_chol *c, int64_t *rowptr, int32_t *colidx, double *val,
                  int64_t *perm, char *err, size_t errlen);
typedef struct sk_chol_info {
  int64_t n, nnz_l, supernodes, max_front;
  double symbolic_s, numeric_s;
  /* the level-set schedule: its levels (0: the task DAG's factor), the
   * pivots static pivoting replaced (L D L^T), 1 for L D L^T */
  int64_t levels, static_pivots;
  int64_t gemm_updates; /* the level-set schedule's updates done by gemm */
  int ldl;
} sk_chol_info;
/* levels: the numeric phase by level sets of the supernodal tree on the
 * active back end (the device's where it is one: the factor stays there,
 * solves take views of its space); ldl: L D L^T with static pivoting (the
 * level-set schedule) */
typedef struct sk_chol_opts {
  int levels, ldl;
  /* levels: updates of at least this many multiply-adds by gemm (0: the
   * default of the space) */
  int64_t gemm_min;
} sk_chol_opts;
sk_chol *sk_chol_factor_ex(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                           const double *val, const sk_chol_opts *o, char *err,
                           size_t errlen);
/* The symbolic phase alone of the n x n pattern (rowptr, colidx: CSR, both
 * triangles, the lower one read) under the fill-reducing order 'perm'
 * (perm[k]: the row that goes k-th; the elimination tree's postorder is
 * folded in, as for a factorization): the supernodes, their rows and the
 * update lists, for a numeric phase of the caller's (speck.solve's LU on
 * the level-set schedule). NULL with a message. */
sk_chol *sk_chol_symbolic(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                          const int *perm, char *err, size_t errlen);
/* 1 when 'c' is the level-set schedule's (solve with sk_chol_solve_view) */
int sk_chol_levels(const sk_chol *c);
struct sk_view;
/* x = A^-1 b for the level-set factor: b, x float64 views of n entries in
 * the back end's space (x may be b) */
int sk_chol_solve_view(const sk_chol *c, const struct sk_view *b, struct sk_view *x,
                       char *err, size_t errlen);
void sk_chol_info_get(const sk_chol *c, sk_chol_info *i);

#endif
