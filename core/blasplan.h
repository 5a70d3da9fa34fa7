/* blasplan.h: strided matrices as column-major BLAS operands, shared by
 * the vendor BLAS on the host (kernels/blas/vendor.c) and a device back
 * end's (its table's 'blas'). Header only. */
#ifndef SK_BLASPLAN_H
#define SK_BLASPLAN_H

#include <limits.h>
#include <stdint.h>

static inline int sk_cm_fits(int64_t x) { return x >= 0 && x <= INT_MAX; }

/* A rows x cols matrix of strides rs, cs as a column-major one: *t = 0
 * (itself) or 1 (its transpose is), *ld; -1 when neither */
static inline int sk_cm_as(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *t,
                           int *ld) {
  if (!sk_cm_fits(rows) || !sk_cm_fits(cols)) return -1;
  int64_t l;
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= (rows > 1 ? rows : 1))) {
    l = cols <= 1 ? (rows > 1 ? rows : 1) : cs;
    *t = 0;
  } else if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= (cols > 1 ? cols : 1))) {
    l = rows <= 1 ? (cols > 1 ? cols : 1) : rs;
    *t = 1;
  } else {
    return -1;
  }
  if (!sk_cm_fits(l)) return -1;
  *ld = (int)l;
  return 0;
}

static inline int sk_cm_flag(char c) { return !(c == 'N' || c == 'n'); }
static inline int sk_cm_low(char c) { return c == 'L' || c == 'l'; }

/* gemm as a column-major call: C^T = op(B)^T op(A)^T when C is stored
 * transposed; -1 when some matrix has no unit stride */
typedef struct sk_cm_plan {
  const void *X, *Y;
  int fx, fy, ldx, ldy, ldc, m, n, k, swap;
} sk_cm_plan;

static inline int sk_cm_gemm_plan(char ta, char tb, int64_t m, int64_t n, int64_t k,
                                  const void *A, int64_t rsa, int64_t csa, const void *B,
                                  int64_t rsb, int64_t csb, int64_t rsc, int64_t csc,
                                  sk_cm_plan *p) {
  int fa = sk_cm_flag(ta), fb = sk_cm_flag(tb), sa, sb, sc, lda, ldb, ldc;
  if (!sk_cm_fits(k) || sk_cm_as(fa ? k : m, fa ? m : k, rsa, csa, &sa, &lda) < 0 ||
      sk_cm_as(fb ? n : k, fb ? k : n, rsb, csb, &sb, &ldb) < 0 ||
      sk_cm_as(m, n, rsc, csc, &sc, &ldc) < 0)
    return -1;
  fa ^= sa;
  fb ^= sb;
  p->swap = sc;
  p->X = sc ? B : A;
  p->Y = sc ? A : B;
  p->fx = sc ? !fb : fa;
  p->fy = sc ? !fa : fb;
  p->ldx = sc ? ldb : lda;
  p->ldy = sc ? lda : ldb;
  p->ldc = ldc;
  p->m = (int)(sc ? n : m);
  p->n = (int)(sc ? m : n);
  p->k = (int)k;
  return 0;
}
#endif
