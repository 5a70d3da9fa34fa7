/* chol_ls.c: the sparse Cholesky's numeric phase and solve by level sets
 * of the supernodal tree, on the active back end (seed 003 ch. 5: Tacho's
 * supernodes on the GPU; the factor stays in the back end's space).
 *
 * The symbolic phase is chol.c's (host). Its arrays go to the back end's
 * space once; then per level of the tree (leaves first; a supernode's
 * level one more than its highest child's), every supernode of the level
 * at once:
 *   assemble: one range launch over the level's panel entries (the
 *     matrix's entries);
 *   small updates: one range launch over the entries of the level's
 *     small updates (a product of two of a descendant's rows, subtracted
 *     atomically from the ancestor's entry);
 *   big updates (at least gemm_min multiply-adds, BIG_UPD_* by default):
 *     a gemm of the descendant's rows (the vendor layer: the device back
 *     end's vendor BLAS, OpenBLAS on the host; else speck's dense gemm) into a work
 *     block and a scatter launch;
 *   factor: the supernodes of at most NB columns in one team launch (one
 *     team a panel: potrf of the diagonal block and the rows below,
 *     left-looking by columns); a larger one blocked by NB columns (the
 *     team potrf of the diagonal block, the vendor's trsm of the rows
 *     below, the trailing columns by gemm).
 * The pivots are checked once at the end (one read of a flag). L D L^T
 * (ldl) is the same schedule with the pivots in D and static pivoting as
 * Tacho's: a pivot smaller in magnitude than sqrt(eps) max|A| is replaced
 * by that size with its sign, and counted; a zero one fails.
 *
 * Solve: the permutation, then forward by levels (a team a supernode for
 * its diagonal block, the vendor's trsm for one of more than NB columns,
 * a range launch over the rows below that subtracts
 * from the ancestors' rows atomically), D^-1 for L D L^T, backward by
 * levels from the root (a range launch over the level's columns gathering
 * from the ancestors, then the diagonal blocks). Bodies: chol_ls.sk.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "../blas/dense.h"
#include "chol_int.h"
#include "kbodies.h"

#define NB 32 /* panel width: larger supernodes are blocked */
/* updates of at least this many multiply-adds go to gemm (the host's
 * vendor library is quick at small sizes; on the device a launch costs
 * more than a small product: only large ones) */
#define BIG_UPD_HOST   (32 * 32 * 8)
#define BIG_UPD_DEVICE (128 * 128 * 32)
#define NELEM(a)       ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(n, dt)      " " n "=" dt "[1]"

/* -- bodies -------------------------------------------------------------------- */
#define KB(var, name, sig) \
  static const char *const var##_sig[] = {sig, NULL}; \
  static const sk_kbody var = {.label = "task." #name, \
                               .body = sk_body_task_##name, \
                               .pattern = SK_FOR, \
                               .sigs = var##_sig}
#define PREF_ARGS \
  R1("order", "int64") R1("pref", "int64") R1("first", "int64") R1("rp", "int64")
KB(k_assemble, chol_ls_assemble,
   "range" PREF_ARGS R1("rows", "int32") R1("lp", "int64") R1("lx", "float64")
     R1("cp", "int64") R1("ci", "int32") R1("cx", "float64") " q0=int64 q1=int64 p0=int64");
KB(k_small, chol_ls_small,
   "range" R1("sul", "int64") R1("pref", "int64") R1("first", "int64") R1("rp", "int64")
     R1("rows", "int32") R1("lp", "int64") R1("lx", "float64") R1("dd", "float64")
       " q0=int64 q1=int64 p0=int64 ldl=int64");
KB(k_scatter, chol_ls_scatter,
   "range" R1("W", "float64") R1("rows", "int32") R1("rp", "int64") R1("first", "int64")
     R1("lp", "int64") R1("lx", "float64") " s=int64 d=int64 j0=int64 nr=int64");
KB(k_scale, chol_ls_scale,
   "range" R1("W", "float64") R1("lx", "float64")
     R1("dd", "float64") " off=int64 ld=int64 nr=int64 c0=int64");
KB(k_dcols, chol_ls_dcols,
   "range" R1("lx", "float64")
     R1("dd", "float64") " off=int64 ld=int64 nr=int64 c0=int64");
KB(k_panel, chol_ls_panel,
   "team" R1("tk", "int64") R1("lx", "float64") R1("dd", "float64") R1("bad", "int64")
     R1("npiv", "int64") " t0=int64 ldl=int64 tol=float64");
KB(k_gather, chol_ls_gather,
   "range" R1("y", "float64") R1("b", "float64") R1("perm", "int64"));
KB(k_unperm, chol_ls_unperm,
   "range" R1("x", "float64") R1("y", "float64") R1("perm", "int64"));
KB(k_dscale, chol_ls_dscale, "range" R1("y", "float64") R1("dd", "float64"));
#define DIAG_SIG \
  "team" R1("order", "int64") R1("first", "int64") R1("rp", "int64") R1("lp", "int64") \
    R1("lx", "float64") R1("y", "float64") " q0=int64 unit=int64 kmax=int64"
KB(k_fdiag, chol_ls_fdiag, DIAG_SIG);
KB(k_bdiag, chol_ls_bdiag, DIAG_SIG);
#define BELOW_SIG \
  "range" PREF_ARGS R1("rows", "int32") R1("lp", "int64") R1("lx", "float64") \
    R1("y", "float64") " q0=int64 q1=int64 p0=int64"
KB(k_fbelow, chol_ls_fbelow, BELOW_SIG);
KB(k_bbelow, chol_ls_bbelow, BELOW_SIG);

const sk_kbody *const sk_chol_bodies[] = {
  &k_assemble, &k_small, &k_scatter, &k_scale, &k_dcols,  &k_panel,  &k_gather, &k_unperm,
  &k_dscale,   &k_fdiag,   &k_bdiag, &k_fbelow, &k_bbelow, NULL};

/* -- the factor in the back end's space ---------------------------------------- */
static void dev_views(struct sk_chol_dev *d, sk_view **v) {
  sk_view *all[] = {&d->first, &d->rp,    &d->rows,  &d->lp,    &d->lx,
                    &d->cp,    &d->ci,    &d->cx,    &d->up,    &d->ud,
                    &d->order, &d->ppref, &d->bpref, &d->cpref, &d->tk,
                    &d->dd,    &d->perm,  &d->W,     &d->bad,   &d->npiv};
  memcpy(v, all, sizeof all);
}
#define NDEV 20

/* release 'v' (once: it is left empty) */
static void drop(sk_view *v) {
  if (v->data) sk_view_release(v);
  memset(v, 0, sizeof *v);
}

void sk_chol_ls_free(struct sk_chol_dev *d) {
  if (!d) return;
  sk_view *v[NDEV];
  dev_views(d, v);
  for (int k = 0; k < NDEV; k++) drop(v[k]);
  free(d->lvp);
  free(d->hpp);
  free(d->hbp);
  free(d->hcp);
  free(d->htk);
  free(d->tlv);
  free(d->bsn);
  free(d->blv);
  free(d->btask);
  free(d->bu);
  free(d->bulv);
  free(d->hsl);
  free(d->hsp);
  free(d->sulv);
  free(d);
}

int sk_chol_levels(const sk_chol *c) { return c->dev != NULL; }

int sk_chol_ls_put(sk_view *v, const char *label, int dtype, const void *src, int64_t n,
               int space, char *err, size_t errlen) {
  int64_t ext = n > 0 ? n : 1;
  if (sk_view_create(v, label, dtype, 1, &ext, SK_RIGHT, space, 1, NULL, err, errlen) < 0)
    return -1;
  if (!src || n == 0) return 0;
  sk_view h;
  if (sk_view_create(&h, label, dtype, 1, &ext, SK_RIGHT, SK_SPACE_HOST, 0, (void *)src,
                     err, errlen) < 0)
    return -1;
  int rc = sk_view_deep_copy(v, &h, err, errlen);
  sk_view_release(&h);
  return rc;
}

/* int -> int64 copies for the views */
static int64_t *wide(const int *a, int64_t n) {
  int64_t *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
  if (w)
    for (int64_t k = 0; k < n; k++) w[k] = a[k];
  return w;
}

static int team(const sk_kbody *kb, int64_t league, const sk_arg *a, int na, char *err,
                size_t errlen) {
  return sk_dense_team(kb, league, 0, 0, a, na, err, errlen);
}

int sk_chol_ls_plan(sk_chol *c, struct sk_chol_dev *D, int64_t **order_out) {
  int nsn = c->nsn;
  int64_t *lev = calloc((size_t)nsn, sizeof *lev);
  int64_t *order = malloc((size_t)nsn * sizeof *order + 8);
  if (!lev || !order) goto oom;
  int64_t nlev = 0;
  for (int s = 0; s < nsn; s++) { /* children come before their parents */
    if (c->parent[s] >= 0 && lev[c->parent[s]] < lev[s] + 1)
      lev[c->parent[s]] = lev[s] + 1;
    if (lev[s] + 1 > nlev) nlev = lev[s] + 1;
  }
  D->nlev = nlev;
  D->lvp = calloc((size_t)nlev + 1, sizeof *D->lvp);
  D->hpp = malloc(((size_t)nsn + 1) * sizeof *D->hpp);
  D->hbp = malloc(((size_t)nsn + 1) * sizeof *D->hbp);
  D->hcp = malloc(((size_t)nsn + 1) * sizeof *D->hcp);
  D->tlv = calloc((size_t)nlev + 1, sizeof *D->tlv);
  D->blv = calloc((size_t)nlev + 1, sizeof *D->blv);
  D->bulv = calloc((size_t)nlev + 1, sizeof *D->bulv);
  if (!D->lvp || !D->hpp || !D->hbp || !D->hcp || !D->tlv || !D->blv || !D->bulv)
    goto oom;
  for (int s = 0; s < nsn; s++) D->lvp[lev[s] + 1]++;
  for (int64_t l = 0; l < nlev; l++) D->lvp[l + 1] += D->lvp[l];
  {
    int64_t *next = malloc((size_t)nlev * sizeof *next + 8);
    if (!next) goto oom;
    memcpy(next, D->lvp, (size_t)nlev * sizeof *next);
    for (int s = 0; s < nsn; s++) order[next[lev[s]]++] = s;
    free(next);
  }
  /* prefixes over the order: panel entries, rows below, columns */
  D->hpp[0] = D->hbp[0] = D->hcp[0] = 0;
  int64_t ntask = 0, nbig = 0, nbu = 0, nsm = 0;
  for (int q = 0; q < nsn; q++) {
    int s = (int)order[q];
    int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
    D->hpp[q + 1] = D->hpp[q] + m * k;
    D->hbp[q + 1] = D->hbp[q] + (m - k);
    D->hcp[q + 1] = D->hcp[q] + k;
    if (k > NB) {
      nbig++;
      ntask += (k + NB - 1) / NB;
    } else {
      ntask++;
    }
    for (int64_t e = c->up[s]; e < c->up[s + 1]; e++) {
      const struct upd_ent *u = &c->ud[e];
      int64_t md = c->rp[u->d + 1] - c->rp[u->d],
              kd = c->first[u->d + 1] - c->first[u->d];
      if ((md - u->i1) * (u->i2 - u->i1) * kd >= D->big_upd) nbu++;
      else nsm++;
    }
  }
  D->htk = malloc((size_t)(5 * ntask + 1) * sizeof *D->htk);
  D->bsn = malloc((size_t)(nbig + 1) * sizeof *D->bsn);
  D->btask = malloc((size_t)(nbig + 1) * sizeof *D->btask);
  D->bu = malloc((size_t)(nbu + 1) * sizeof *D->bu);
  D->hsl = malloc((size_t)(5 * nsm + 1) * sizeof *D->hsl);
  D->hsp = malloc((size_t)(nsm + 1) * sizeof *D->hsp);
  D->sulv = calloc((size_t)nlev + 1, sizeof *D->sulv);
  if (!D->htk || !D->bsn || !D->btask || !D->bu || !D->hsl || !D->hsp || !D->sulv)
    goto oom;
  /* batched tasks level by level, then the blocked supernodes' tasks */
  int64_t t = 0, b = 0, u = 0, v = 0;
  D->hsp[0] = 0;
  for (int64_t l = 0; l < nlev; l++) {
    D->tlv[l] = t;
    for (int64_t q = D->lvp[l]; q < D->lvp[l + 1]; q++) {
      int s = (int)order[q];
      int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
      if (k > NB) continue;
      int64_t *T = D->htk + 5 * t++;
      T[0] = c->lp[s];
      T[1] = m;
      T[2] = m;
      T[3] = k;
      T[4] = c->first[s];
    }
  }
  D->tlv[nlev] = t;
  for (int64_t l = 0; l < nlev; l++) {
    D->blv[l] = b;
    D->bulv[l] = u;
    D->sulv[l] = v;
    for (int64_t q = D->lvp[l]; q < D->lvp[l + 1]; q++) {
      int s = (int)order[q];
      int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
      for (int64_t e = c->up[s]; e < c->up[s + 1]; e++) {
        const struct upd_ent *ue = &c->ud[e];
        int64_t md = c->rp[ue->d + 1] - c->rp[ue->d],
                kd = c->first[ue->d + 1] - c->first[ue->d];
        int64_t nr = md - ue->i1, nc = ue->i2 - ue->i1;
        if (nr * nc * kd < D->big_upd) { /* one launch a level: an entry a thread */
          int64_t *S = D->hsl + 5 * v;
          S[0] = s;
          S[1] = ue->d;
          S[2] = ue->i1;
          S[3] = nr;
          S[4] = nc;
          D->hsp[v + 1] = D->hsp[v] + nr * nc;
          v++;
          continue;
        }
        D->bu[u++] = (big_upd){s, ue->d, ue->i1, nr, nc, kd};
        /* W: (L D L^T) the scaled rows (nr x kd), then the product */
        int64_t need = (c->ldl ? nr * kd : 0) + nr * nc;
        if (need > D->wsize) D->wsize = need;
      }
      if (k <= NB) continue;
      D->bsn[b] = s;
      D->btask[b++] = t;
      for (int64_t k0 = 0; k0 < k; k0 += NB) {
        int64_t nb = k - k0 < NB ? k - k0 : NB;
        int64_t *T = D->htk + 5 * t++;
        T[0] = c->lp[s] + k0 * m + k0; /* the diagonal block; trsm the rows below */
        T[1] = m;
        T[2] = nb;
        T[3] = nb;
        T[4] = c->first[s] + k0;
        if (c->ldl && (m - k0 - nb) * nb > D->wsize) D->wsize = (m - k0 - nb) * nb;
      }
    }
  }
  D->blv[nlev] = b;
  D->bulv[nlev] = u;
  D->sulv[nlev] = v;
  free(lev);
  *order_out = order;
  return (int)t;
oom:
  free(lev);
  free(order);
  return -1;
}

int sk_chol_ls_numeric(sk_chol *c, char *err, size_t errlen) {
  const sk_backend *be = sk_dense_backend(err, errlen);
  if (!be) return -1;
  struct sk_chol_dev *D = calloc(1, sizeof *D);
  int64_t *order = NULL, *w = NULL;
  if (!D) goto oom;
  c->dev = D;
  D->space = be->space;
  D->big_upd = c->gemm_min > 0                 ? c->gemm_min
               : D->space == SK_SPACE_HOST ? BIG_UPD_HOST
                                           : BIG_UPD_DEVICE;
  int ntask = sk_chol_ls_plan(c, D, &order);
  if (ntask < 0) goto oom;
  int n = c->n, nsn = c->nsn;
  /* the arrays into the back end's space */
  int sp = D->space;
  if (!(w = wide(c->first, nsn + 1)) ||
      sk_chol_ls_put(&D->first, "chol first", SK_I64, w, nsn + 1, sp, err, errlen) < 0)
    goto fail;
  free(w);
  w = NULL;
  if (!(w = wide(c->perm, n)) ||
      sk_chol_ls_put(&D->perm, "chol perm", SK_I64, w, n, sp, err, errlen) < 0)
    goto fail;
  free(w);
  w = NULL;
  /* static pivoting's size: sqrt(eps) times the largest entry */
  double amax = 0;
  for (int64_t p = 0; p < c->cp[n]; p++)
    if (fabs(c->cx[p]) > amax) amax = fabs(c->cx[p]);
  const double tol = sqrt(DBL_EPSILON) * amax;
  int64_t nsm = D->sulv[D->nlev];
  if (sk_chol_ls_put(&D->ud, "chol small updates", SK_I64, D->hsl, 5 * nsm, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->up, "chol small prefix", SK_I64, D->hsp, nsm + 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->rp, "chol rp", SK_I64, c->rp, nsn + 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->rows, "chol rows", SK_I32, c->rows, c->rp[nsn], sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->lp, "chol lp", SK_I64, c->lp, nsn + 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->cp, "chol cp", SK_I64, c->cp, n + 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->ci, "chol ci", SK_I32, c->ci, c->cp[n], sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->cx, "chol cx", SK_F64, c->cx, c->cp[n], sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->order, "chol order", SK_I64, order, nsn, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->ppref, "chol panel prefix", SK_I64, D->hpp, nsn + 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->bpref, "chol below prefix", SK_I64, D->hbp, nsn + 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->cpref, "chol column prefix", SK_I64, D->hcp, nsn + 1, sp, err, errlen) <
        0 ||
      sk_chol_ls_put(&D->tk, "chol tasks", SK_I64, D->htk, 5 * (int64_t)ntask, sp, err, errlen) <
        0 ||
      sk_chol_ls_put(&D->dd, "chol D", SK_F64, NULL, n, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->W, "chol work", SK_F64, NULL, D->wsize, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&D->npiv, "chol pivots", SK_I64, NULL, 1, sp, err, errlen) < 0)
    goto fail;
  free(w);
  w = NULL;
  int64_t big = INT64_MAX;
  if (sk_chol_ls_put(&D->bad, "chol bad", SK_I64, &big, 1, sp, err, errlen) < 0) goto fail;
  if (sk_chol_ls_put(&D->lx, "chol L", SK_F64, NULL, c->lp[nsn], sp, err, errlen) < 0) goto fail;
  if (sp == SK_SPACE_HOST) sk_vendor_host_threads(sk_rt_threads());
  const int64_t ldl = c->ldl;
  for (int64_t l = 0; l < D->nlev; l++) {
    const int64_t q0 = D->lvp[l], q1 = D->lvp[l + 1];
    sk_arg aa[] = {sk_arg_view("order", &D->order),
                   sk_arg_view("pref", &D->ppref),
                   sk_arg_view("first", &D->first),
                   sk_arg_view("rp", &D->rp),
                   sk_arg_view("rows", &D->rows),
                   sk_arg_view("lp", &D->lp),
                   sk_arg_view("lx", &D->lx),
                   sk_arg_view("cp", &D->cp),
                   sk_arg_view("ci", &D->ci),
                   sk_arg_view("cx", &D->cx),
                   sk_arg_i64("q0", q0),
                   sk_arg_i64("q1", q1),
                   sk_arg_i64("p0", D->hpp[q0])};
    if (sk_dense_range(&k_assemble, D->hpp[q1] - D->hpp[q0], aa, NELEM(aa), err, errlen) <
        0)
      goto fail;
    const int64_t u0 = D->sulv[l], u1 = D->sulv[l + 1];
    sk_arg ma[] = {sk_arg_view("sul", &D->ud),     sk_arg_view("pref", &D->up),
                   sk_arg_view("first", &D->first), sk_arg_view("rp", &D->rp),
                   sk_arg_view("rows", &D->rows),   sk_arg_view("lp", &D->lp),
                   sk_arg_view("lx", &D->lx),       sk_arg_view("dd", &D->dd),
                   sk_arg_i64("q0", u0),            sk_arg_i64("q1", u1),
                   sk_arg_i64("p0", D->hsp[u0]),    sk_arg_i64("ldl", ldl)};
    if (u1 > u0 &&
        sk_dense_range(&k_small, D->hsp[u1] - D->hsp[u0], ma, NELEM(ma), err, errlen) < 0)
      goto fail;
    for (int64_t x = D->bulv[l]; x < D->bulv[l + 1]; x++) {
      const big_upd *u = &D->bu[x];
      int64_t L0 = c->lp[u->d], md = c->rp[u->d + 1] - c->rp[u->d];
      int64_t wo = 0; /* LD: W holds the scaled rows first (nr x kd), the product after */
      const sk_view *A = &D->lx;
      int64_t aoff = L0 + u->j0, lda = md;
      if (ldl) {
        sk_arg sa[] = {sk_arg_view("W", &D->W),
                       sk_arg_view("lx", &D->lx),
                       sk_arg_view("dd", &D->dd),
                       sk_arg_i64("off", L0 + u->j0),
                       sk_arg_i64("ld", md),
                       sk_arg_i64("nr", u->nr),
                       sk_arg_i64("c0", c->first[u->d])};
        if (sk_dense_range(&k_scale, u->nr * u->kd, sa, NELEM(sa), err, errlen) < 0)
          goto fail;
        A = &D->W;
        aoff = 0;
        lda = u->nr;
        wo = u->nr * u->kd;
      }
      if (sk_dense_blk_gemm(D->space, 'N', 'T', A, aoff, lda, &D->lx, L0 + u->j0, md, &D->W,
                            wo, u->nr, u->nr, u->nc, u->kd, 1.0, 0.0, err, errlen) < 0)
        goto fail;
      sk_view wv = D->W;
      wv.data = (double *)D->W.data + wo;
      wv.extent[0] = u->nr * u->nc;
      sk_arg sc[] = {sk_arg_view("W", &wv),     sk_arg_view("rows", &D->rows),
                     sk_arg_view("rp", &D->rp), sk_arg_view("first", &D->first),
                     sk_arg_view("lp", &D->lp), sk_arg_view("lx", &D->lx),
                     sk_arg_i64("s", u->s),     sk_arg_i64("d", u->d),
                     sk_arg_i64("j0", u->j0),   sk_arg_i64("nr", u->nr)};
      if (sk_dense_range(&k_scatter, u->nr * u->nc, sc, NELEM(sc), err, errlen) < 0)
        goto fail;
    }
    sk_arg pa[] = {sk_arg_view("tk", &D->tk),     sk_arg_view("lx", &D->lx),
                   sk_arg_view("dd", &D->dd),     sk_arg_view("bad", &D->bad),
                   sk_arg_view("npiv", &D->npiv), sk_arg_i64("t0", D->tlv[l]),
                   sk_arg_i64("ldl", ldl),        sk_arg_f64("tol", tol)};
    if (team(&k_panel, D->tlv[l + 1] - D->tlv[l], pa, NELEM(pa), err, errlen) < 0)
      goto fail;
    for (int64_t x = D->blv[l]; x < D->blv[l + 1]; x++) {
      int s = (int)D->bsn[x];
      int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
      int64_t L0 = c->lp[s];
      for (int64_t k0 = 0, t = D->btask[x]; k0 < k; k0 += NB, t++) {
        int64_t nb = k - k0 < NB ? k - k0 : NB, kr = k - k0 - nb, mr = m - k0 - nb;
        sk_arg pb[] = {sk_arg_view("tk", &D->tk),     sk_arg_view("lx", &D->lx),
                       sk_arg_view("dd", &D->dd),     sk_arg_view("bad", &D->bad),
                       sk_arg_view("npiv", &D->npiv), sk_arg_i64("t0", t),
                       sk_arg_i64("ldl", ldl),        sk_arg_f64("tol", tol)};
        if (team(&k_panel, 1, pb, NELEM(pb), err, errlen) < 0) goto fail;
        /* the rows below the diagonal block: B L^-T (L D L^T: B L^-T D^-1) */
        int64_t dg = L0 + k0 * m + k0;
        if (sk_dense_blk_trsm(D->space, 'R', 'L', 'T', ldl ? 'U' : 'N', &D->lx, dg, m, &D->lx,
                              dg + nb, m, mr, nb, err, errlen) < 0)
          goto fail;
        if (ldl) {
          sk_arg ca[] = {sk_arg_view("lx", &D->lx),  sk_arg_view("dd", &D->dd),
                         sk_arg_i64("off", dg + nb), sk_arg_i64("ld", m),
                         sk_arg_i64("nr", mr),       sk_arg_i64("c0", c->first[s] + k0)};
          if (sk_dense_range(&k_dcols, mr * nb, ca, NELEM(ca), err, errlen) < 0)
            goto fail;
        }
        if (kr == 0) continue;
        /* the trailing columns: P[k0+nb:, k0+nb:k] -= P[k0+nb:, blk] (D) P[k0+nb:k, blk]^T */
        const sk_view *A = &D->lx;
        int64_t aoff = L0 + k0 * m + k0 + nb, lda = m;
        if (ldl) {
          sk_arg sa[] = {sk_arg_view("W", &D->W),
                         sk_arg_view("lx", &D->lx),
                         sk_arg_view("dd", &D->dd),
                         sk_arg_i64("off", aoff),
                         sk_arg_i64("ld", m),
                         sk_arg_i64("nr", mr),
                         sk_arg_i64("c0", c->first[s] + k0)};
          if (sk_dense_range(&k_scale, mr * nb, sa, NELEM(sa), err, errlen) < 0)
            goto fail;
          A = &D->W;
          aoff = 0;
          lda = mr;
        }
        if (sk_dense_blk_gemm(D->space, 'N', 'T', A, aoff, lda, &D->lx, L0 + k0 * m + k0 + nb,
                              m, &D->lx, L0 + (k0 + nb) * m + k0 + nb, m, mr, kr, nb, -1.0,
                              1.0, err, errlen) < 0)
          goto fail;
      }
    }
  }
  if (sp == SK_SPACE_HOST) sk_vendor_host_threads(1);
  int64_t bad, npiv;
  if (sk_dense_get_i64(&D->bad, 0, &bad, err, errlen) < 0 ||
      sk_dense_get_i64(&D->npiv, 0, &npiv, err, errlen) < 0)
    goto fail;
  if (bad != INT64_MAX) {
    int col = (int)(bad >> 2), kind = (int)(bad & 3);
    if (kind == 3) sk_err(err, errlen, SK_E_CHOL_LDL_SINGULAR, c->perm[col], col);
    else if (kind)
      sk_err(err, errlen, SK_E_MATRIX_PIVOT_NONFINITE, c->perm[col],
             kind == 1 ? "NaN" : "Inf", col);
    else sk_err(err, errlen, SK_E_MATRIX_NOT_POSITIVE, c->perm[col], col);
    goto fail;
  }
  c->info.levels = D->nlev;
  c->info.static_pivots = npiv;
  c->info.gemm_updates = D->bulv[D->nlev];
  /* the solve reads only these */
  drop(&D->cp);
  drop(&D->ci);
  drop(&D->cx);
  drop(&D->ud);
  drop(&D->up);
  drop(&D->W);
  drop(&D->tk);
  free(order);
  return 0;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_FACTORISATION);
fail:
  if (c->dev && c->dev->space == SK_SPACE_HOST) sk_vendor_host_threads(1);
  free(order);
  free(w);
  return -1;
}

/* -- solve --------------------------------------------------------------------- */
/* the diagonal blocks of level l's supernodes of more than NB columns:
 * y_s = op(L_ss)^-1 y_s by the vendor's trsm */
static int big_diag(const sk_chol *c, int64_t l, char trans, sk_view *y, char *err,
                    size_t errlen) {
  const struct sk_chol_dev *D = c->dev;
  for (int64_t x = D->blv[l]; x < D->blv[l + 1]; x++) {
    int s = (int)D->bsn[x];
    int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
    if (sk_dense_blk_trsm(D->space, 'L', 'L', trans, c->ldl ? 'U' : 'N', &D->lx, c->lp[s], m,
                          y, c->first[s], k, k, 1, err, errlen) < 0)
      return -1;
  }
  return 0;
}

int sk_chol_ls_solve(const sk_chol *c, const sk_view *b, sk_view *x, char *err,
                     size_t errlen) {
  const struct sk_chol_dev *D = c->dev;
  sk_view y;
  if (sk_chol_ls_put(&y, "chol y", SK_F64, NULL, c->n, D->space, err, errlen) < 0) return -1;
  const int64_t unit = c->ldl;
  int rc = -1;
  sk_arg ga[] = {sk_arg_view("y", &y), sk_arg_view("b", b),
                 sk_arg_view("perm", &D->perm)};
  if (sk_dense_range(&k_gather, c->n, ga, NELEM(ga), err, errlen) < 0) goto done;
  for (int64_t l = 0; l < D->nlev; l++) { /* L z = P b */
    const int64_t q0 = D->lvp[l], q1 = D->lvp[l + 1];
    sk_arg da[] = {sk_arg_view("order", &D->order),
                   sk_arg_view("first", &D->first),
                   sk_arg_view("rp", &D->rp),
                   sk_arg_view("lp", &D->lp),
                   sk_arg_view("lx", &D->lx),
                   sk_arg_view("y", &y),
                   sk_arg_i64("q0", q0),
                   sk_arg_i64("unit", unit),
                   sk_arg_i64("kmax", NB)};
    sk_arg ba[] = {sk_arg_view("order", &D->order),
                   sk_arg_view("pref", &D->bpref),
                   sk_arg_view("first", &D->first),
                   sk_arg_view("rp", &D->rp),
                   sk_arg_view("rows", &D->rows),
                   sk_arg_view("lp", &D->lp),
                   sk_arg_view("lx", &D->lx),
                   sk_arg_view("y", &y),
                   sk_arg_i64("q0", q0),
                   sk_arg_i64("q1", q1),
                   sk_arg_i64("p0", D->hbp[q0])};
    if (team(&k_fdiag, q1 - q0, da, NELEM(da), err, errlen) < 0 ||
        big_diag(c, l, 'N', &y, err, errlen) < 0 ||
        sk_dense_range(&k_fbelow, D->hbp[q1] - D->hbp[q0], ba, NELEM(ba), err, errlen) <
          0)
      goto done;
  }
  if (unit) {
    sk_arg sa[] = {sk_arg_view("y", &y), sk_arg_view("dd", &D->dd)};
    if (sk_dense_range(&k_dscale, c->n, sa, NELEM(sa), err, errlen) < 0) goto done;
  }
  for (int64_t l = D->nlev - 1; l >= 0; l--) { /* L^T w = z */
    const int64_t q0 = D->lvp[l], q1 = D->lvp[l + 1];
    sk_arg ba[] = {sk_arg_view("order", &D->order),
                   sk_arg_view("pref", &D->cpref),
                   sk_arg_view("first", &D->first),
                   sk_arg_view("rp", &D->rp),
                   sk_arg_view("rows", &D->rows),
                   sk_arg_view("lp", &D->lp),
                   sk_arg_view("lx", &D->lx),
                   sk_arg_view("y", &y),
                   sk_arg_i64("q0", q0),
                   sk_arg_i64("q1", q1),
                   sk_arg_i64("p0", D->hcp[q0])};
    sk_arg da[] = {sk_arg_view("order", &D->order),
                   sk_arg_view("first", &D->first),
                   sk_arg_view("rp", &D->rp),
                   sk_arg_view("lp", &D->lp),
                   sk_arg_view("lx", &D->lx),
                   sk_arg_view("y", &y),
                   sk_arg_i64("q0", q0),
                   sk_arg_i64("unit", unit),
                   sk_arg_i64("kmax", NB)};
    if (sk_dense_range(&k_bbelow, D->hcp[q1] - D->hcp[q0], ba, NELEM(ba), err, errlen) <
          0 ||
        team(&k_bdiag, q1 - q0, da, NELEM(da), err, errlen) < 0 ||
        big_diag(c, l, 'T', &y, err, errlen) < 0)
      goto done;
  }
  sk_arg ua[] = {sk_arg_view("x", x), sk_arg_view("y", &y),
                 sk_arg_view("perm", &D->perm)};
  rc = sk_dense_range(&k_unperm, c->n, ua, NELEM(ua), err, errlen);
done:
  sk_view_release(&y);
  return rc;
}

int sk_chol_solve_view(const sk_chol *c, const sk_view *b, sk_view *x, char *err,
                       size_t errlen) {
  return sk_chol_ls_solve(c, b, x, err, errlen);
}

/* the factor's values to the host (c->lx), once */
int sk_chol_ls_fetch(sk_chol *c, char *err, size_t errlen) {
  if (c->lx) return 0;
  int64_t nnz = c->lp[c->nsn];
  double *h = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *h);
  if (!h) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_FACTORISATION);
    return -1;
  }
  sk_view hv;
  int64_t ext = nnz > 0 ? nnz : 1;
  if (sk_view_create(&hv, "chol L", SK_F64, 1, &ext, SK_RIGHT, SK_SPACE_HOST, 0, h, err,
                     errlen) < 0 ||
      sk_view_deep_copy(&hv, &c->dev->lx, err, errlen) < 0) {
    free(h);
    return -1;
  }
  sk_view_release(&hv);
  c->lx = h;
  return 0;
}
