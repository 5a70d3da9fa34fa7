/* lu.h: the internal interface of speck.solve's sparse LU with static
 * pivoting (lu_match.c: the matching and scaling; lu.c: ordering,
 * factorization, solves with iterative refinement, the entries; lu_ls.c:
 * the numeric phase and the solves by level sets of supernodes on the
 * active back end).
 */
#ifndef SK_SOLVE_LU_H
#define SK_SOLVE_LU_H

#include <stdint.h>

#include "../sparse/sparse.h"

/* The maximum-product perfect matching of the n x n matrix in CSC (cp, ci,
 * cx; explicit zeros are not edges): colmatch[j] = the row matched to
 * column j; dr, dc the row and column scalings (|dr_i a_ij dc_j| <= 1, = 1
 * on the matching). Returns 0; 1 when the matrix is structurally singular
 * (*bad_col a column no augmenting path reaches, *bad_row a row left
 * unmatched); -1 out of memory. */
int sk_lu_match(int64_t n, const int64_t *cp, const int32_t *ci, const double *cx,
                int32_t *colmatch, double *dr, double *dc, int64_t *bad_row,
                int64_t *bad_col);

/* The host analysis of lu.c's steps 1 and 2: A by columns (cp, ci, cx:
 * duplicates summed), the matching and scaling, the fill-reducing order:
 * position k of the order is A's row rperm[k] and column cperm[k]; cmax
 * the largest |dr_i a_ij dc_j|; amd 1 for AMD's order, 0 for RCM's. */
typedef struct sk_lu_prep {
  int64_t n, nnz;
  int64_t *cp, *rperm, *cperm;
  int32_t *ci;
  double *cx, *dr, *dc, cmax;
  int amd;
} sk_lu_prep;
/* 'ordering' of args ("auto" 0, "amd" 1, "rcm" 2) */
int sk_lu_order_arg(const sk_arg *args, int nargs, int *order, char *err, size_t errlen);
/* a solve's refinement options: 'refine' steps (>= 0, default 10) and
 * 'tol' (>= 0, default 1e-10) */
int sk_lu_refine_args(const sk_arg *args, int nargs, int64_t *refine, double *tol, char *err,
                      size_t errlen);
/* the error of a refinement that stopped above 'tol' after 'steps' steps
 * (backward error 'berr', worst row 'wbest'): with the static pivots
 * st[0] replaced (the first at row st[1], column st[2]) it names them;
 * returns -1 */
int sk_lu_refine_failed(double berr, double tol, int64_t steps, int64_t wbest,
                        const int64_t st[3], char *err, size_t errlen);
/* the matrix A_* of args (square, float, host copy) and its analysis;
 * 0, or -1 with a message (a structurally singular A names the row) */
int sk_lu_analyse(const sk_arg *args, int nargs, int order, sk_csr *A, sk_lu_prep *P,
                  char *err, size_t errlen);
void sk_lu_prep_free(sk_lu_prep *P);

/* lu_ls.c's entries and bodies */
extern const sk_kentry *const sk_lu_ls_entries[];
extern const sk_kbody *const sk_lu_ls_bodies[];

#endif
