/* bmode.h: the batched functions' mode argument (batched.c), shared with
 * the complex ones (zbatched.c): Kokkos Kernels' batched levels; and the
 * trsm / trmm and factorisation drivers both use. */
#ifndef SK_BATCHED_BMODE_H
#define SK_BATCHED_BMODE_H

#include "../blas/dense.h"

enum { SK_BMODE_SERIAL, SK_BMODE_TEAM, SK_BMODE_TEAMVECTOR, SK_BMODE_ROWS };

/* mode "serial" | "team" | "teamvector" | "auto" (with 'gemm' also
 * "rows") into *mode; auto chooses by the matrices' rows x cols and the
 * back end; anything else is refused naming the valid ones */
int sk_batched_mode(const sk_arg *args, int nargs, int64_t rows, int64_t cols, int *mode,
                    int gemm, char *err, size_t errlen);

/* the drivers of batched.c shared with zbatched.c: trsm (mm 0) / trmm (mm
 * 1) and the factorisations (op 0 trtri, 1 lu, 3 gesv; 'pivot' makes lu
 * op 2), real (cx 0) or complex (cx 1: complex views, alpha as alpha_re /
 * alpha_im), run by the kernels ks (mode serial) and kt (team,
 * teamvector), whose captures are batched.c's TRI / FAC signatures */
int sk_batched_tri(int mm, int cx, const sk_kbody *ks, const sk_kbody *kt,
                   const sk_arg *args, int nargs, char *err, size_t errlen);
int sk_batched_fac(int op, int cx, const sk_kbody *ks, const sk_kbody *kt,
                   const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen);

#endif
