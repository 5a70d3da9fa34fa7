/* amg.h: what the preconditioners' files of kernels/solve/ (cheby.c,
 * ilu.c, amg.c, amg_rap.c, amg_reg.c) share; internal.
 */
#ifndef SK_SOLVE_AMG_H
#define SK_SOLVE_AMG_H

#include "../sparse/sparse.h"
#include "kbodies.h"

#define PC_NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define PC_R1(name, dt) " " name "=" dt "[1]"
#define PC_MAT          PC_R1("rowptr", "int64") PC_R1("colidx", "int32") PC_R1("values", "float64")

/* a square float64 matrix 'p' ("A") from the arguments (sparse.h) */
int sk_pc_matrix(const sk_arg *args, int nargs, const char *p, sk_csr *A, char *err,
                 size_t errlen);
/* the float64 rank-1 view argument 'name' of 'n' entries in A's space */
const sk_view *sk_pc_vec(const sk_arg *args, int nargs, const char *name, int64_t n,
                         const sk_csr *A, char *err, size_t errlen);
/* an int64 flag view of one entry set to INT64_MAX (a body lowers it to a
 * failing row with atomic_min), and its value after the launches */
int sk_pc_flag(sk_view *bad, int space, char *err, size_t errlen);
int sk_pc_flag_read(const sk_view *bad, int64_t *row, char *err, size_t errlen);
/* the message for row 'r' of A without a nonzero diagonal entry: a zero
 * row or a zero (missing) diagonal; -1 */
int sk_pc_zero_diag(const sk_csr *A, int64_t r, char *err, size_t errlen);

/* Chebyshev (cheby.c), for amg.c too: dinv = D^-1 (a row without a
 * diagonal refused), and lambda_max of D^-1 A by 'iters' power steps */
int sk_pc_dinv(const sk_csr *A, const sk_view *dinv, char *err, size_t errlen);
int sk_pc_lambda_max(const sk_csr *A, const sk_view *dinv, int64_t iters, double *lmax,
                     char *err, size_t errlen);

extern const sk_kentry *const sk_pc_cheby_entries[], *const sk_pc_ilu_entries[],
  *const sk_pc_amg_entries[], *const sk_pc_rap_entries[];
extern const sk_kbody *const sk_pc_cheby_bodies[], *const sk_pc_ilu_bodies[],
  *const sk_pc_amg_bodies[], *const sk_pc_rap_bodies[];

#endif
