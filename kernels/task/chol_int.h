/* chol_int.h: the sparse Cholesky's factor as chol.c (symbolic phase, the
 * task DAG's numeric phase, the host solve) and chol_ls.c (the level-set
 * numeric phase and solve on the active back end: the device's) share it.
 */
#ifndef SK_CHOL_INT_H
#define SK_CHOL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "chol.h"
#include "core/view.h"

#define UB_CLASSES 40

struct sk_chol_dev; /* chol_ls.c: the factor in the back end's space */

struct sk_chol {
  int n;
  int *perm; /* perm[k]: the matrix row that goes k-th */
  int nsn;
  int *first;  /* supernode s: columns [first[s], first[s+1]) */
  int64_t *rp; /* rows of s: rows[rp[s] .. rp[s+1]), its columns first */
  int *rows;
  int64_t *lp; /* its L block (m x k, column major) at lx + lp[s] */
  double *lx;
  int *parent;
  int64_t *kp, *kids;   /* children of s: kids[kp[s] .. kp[s+1]) */
  unsigned char *trunk; /* 1: s runs alone (the root and only children above) */
  int threads;
  /* the updates supernode s takes from its descendants: entries
   * ud[up[s] .. up[s+1]) -- descendant d's rows [i1, i2) are s's columns */
  int64_t *up;
  struct upd_ent {
    int d, i1, i2;
  } * ud;
  /* numeric: the permuted lower triangle */
  int64_t *cp;
  int *ci;
  double *cx;
  _Atomic int bad; /* 4 * (1 + the column whose pivot failed) + (0 not
                      positive, 1 NaN, 2 Inf); -1: no memory */
  sk_chol_info info;
  /* the level-set schedule (chol_ls.c): NULL for the task DAG's factor */
  struct sk_chol_dev *dev;
  int ldl; /* 1: L D L^T (unit L; D on L's diagonal) */
  int64_t gemm_min; /* chol_ls.c: updates by gemm from this size (0: default) */
  /* work blocks done with, by size class (ub_get / ub_put): a
   * free block's first word links the list */
  pthread_mutex_t ub_mu;
  void *ub_free[UB_CLASSES];
};

/* chol_ls.c's schedule of the level-set numeric phase (host arrays; the
 * views in the back end's space are chol_ls.c's own) */
typedef struct big_upd {
  int64_t s, d, j0, nr, nc, kd;
} big_upd;

struct sk_chol_dev {
  int space;
  sk_view first, rp, rows, lp, lx, cp, ci, cx, up, ud, order, ppref, bpref, cpref, tk, dd,
    perm, W, bad, npiv;
  int64_t nlev, *lvp;         /* level l: order[lvp[l] .. lvp[l+1]) */
  int64_t *hpp, *hbp, *hcp;   /* the prefixes over 'order' (host) */
  int64_t *htk, *tlv;         /* panel tasks; level l's batched ones [tlv[l], tlv[l+1]) */
  int64_t *bsn, *blv, *btask; /* level l's blocked supernodes bsn[blv[l] .. blv[l+1]),
                                  each's first task */
  big_upd *bu; /* level l's big updates bu[bulv[l] .. bulv[l+1]) */
  int64_t *bulv;
  int64_t *hsl, *hsp, *sulv; /* level l's small updates [sulv[l], sulv[l+1]): s, d,
                                j0, nr, nc each (hsl), prefix of nr * nc (hsp) */
  int64_t wsize, big_upd;
};

/* the schedule of c's supernodes (D->big_upd set: updates of at least that
 * many multiply-adds are big ones): levels, prefixes, panel tasks (5 each:
 * offset, leading dimension, rows, columns, first column), big and small
 * updates; *order_out (malloc'd) the supernodes level by level. The number
 * of panel tasks, or -1 (no memory) */
int sk_chol_ls_plan(sk_chol *c, struct sk_chol_dev *D, int64_t **order_out);
/* a view of 'n' (at least 1) elements of 'dtype' in 'space' holding 'src'
 * (NULL: zeros); 0, or -1 with a message */
int sk_chol_ls_put(struct sk_view *v, const char *label, int dtype, const void *src,
                   int64_t n, int space, char *err, size_t errlen);

/* chol_ls.c: the numeric phase by level sets of the supernodal tree on the
 * active back end (c's symbolic arrays set, c->lx not used); 0, or -1 with
 * a message (a pivot names its row and column) */
int sk_chol_ls_numeric(sk_chol *c, char *err, size_t errlen);
/* x = A^-1 b, b and x views of n float64 in the back end's space */
int sk_chol_ls_solve(const sk_chol *c, const struct sk_view *b, struct sk_view *x,
                     char *err, size_t errlen);
/* the factor's values into c->lx (host), for sk_chol_lower */
int sk_chol_ls_fetch(sk_chol *c, char *err, size_t errlen);
void sk_chol_ls_free(struct sk_chol_dev *d);

#endif
