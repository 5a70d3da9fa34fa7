/* bmode.h: the batched functions' mode argument (batched.c), shared with
 * the complex ones (zbatched.c): Kokkos Kernels' batched levels. */
#ifndef SK_BATCHED_BMODE_H
#define SK_BATCHED_BMODE_H

#include "../blas/dense.h"

enum { SK_BMODE_SERIAL, SK_BMODE_TEAM, SK_BMODE_TEAMVECTOR, SK_BMODE_ROWS };

/* mode "serial" | "team" | "teamvector" | "auto" (with 'gemm' also
 * "rows") into *mode; auto chooses by the matrices' rows x cols and the
 * back end; anything else is refused naming the valid ones */
int sk_batched_mode(const sk_arg *args, int nargs, int64_t rows, int64_t cols, int *mode,
                    int gemm, char *err, size_t errlen);

#endif
