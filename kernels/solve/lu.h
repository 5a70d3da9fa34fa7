/* lu.h: the internal interface of speck.solve's sparse LU with static
 * pivoting (lu_match.c: the matching and scaling; lu.c: ordering,
 * factorization, solves with iterative refinement, the entries).
 */
#ifndef SK_SOLVE_LU_H
#define SK_SOLVE_LU_H

#include <stdint.h>

/* The maximum-product perfect matching of the n x n matrix in CSC (cp, ci,
 * cx; explicit zeros are not edges): colmatch[j] = the row matched to
 * column j; dr, dc the row and column scalings (|dr_i a_ij dc_j| <= 1, = 1
 * on the matching). Returns 0; 1 when the matrix is structurally singular
 * (*bad_col a column no augmenting path reaches, *bad_row a row left
 * unmatched); -1 out of memory. */
int sk_lu_match(int64_t n, const int64_t *cp, const int32_t *ci, const double *cx,
                int32_t *colmatch, double *dr, double *dc, int64_t *bad_row,
                int64_t *bad_col);

#endif
