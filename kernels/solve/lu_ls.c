/* lu_ls.c: speck.solve's sparse LU with static pivoting by level sets of
 * supernodes on the active back end (the device's where it is one: the
 * factor stays in its space, the solves and the refinement run there).
 *
 * Host (the analysis): lu.c's matching, scaling and fill-reducing order
 * (sk_lu_analyse); the symmetric pattern of the matched, ordered matrix
 * C + C^T goes through the sparse Cholesky's symbolic phase
 * (sk_chol_symbolic: elimination tree, postorder, supernodes, their rows
 * and update lists) and its level-set schedule (sk_chol_ls_plan): with
 * the matched diagonal and a symmetric pattern, L has the Cholesky
 * factor's pattern and U its transpose, so one schedule serves both.
 *
 * Device (the numeric phase): one range launch puts A's scaled entries
 * (read from A's own arrays) into the panels; per level of the tree
 * (leaves first) the small updates (one launch: an entry of a
 * descendant's Schur complement a thread, L's and U's, subtracted
 * atomically), the big ones (two gemms, L's rows times U's and U's times
 * L's, of the vendor layer or speck's dense gemm, and a scatter launch),
 * then the supernodes: those of at most NB columns one team each in one
 * launch (Crout's LU of the panel, no row exchange), a larger one blocked
 * by NB columns (the team LU of the diagonal block, three trsms for the L
 * rows below and the U columns right, two gemms for the trailing
 * columns). A pivot below tau = pivtol max|c_ij| is replaced by tau with
 * its sign and counted; one not finite or at most n eps max|c_ij| fails
 * and is named (flags read once at the end).
 *
 * Solve: the scaled, permuted b; L forward by levels (a team a supernode
 * for its unit diagonal block, the vendor's trsm for a wide one, a range
 * launch over the rows below subtracting from the ancestors' rows
 * atomically); U backward by levels from the root; x unpermuted and
 * scaled; iterative refinement as lu.c's (the residual, with its norms, a
 * reduction launch per step: one read back a step).
 *
 * Entries:
 *   solve.lu_levels: A_* [, pivtol, ordering, gemm_min] -> G_ip (int64,
 *     A's space: first, rp, lp (nsn + 1 each), order (nsn), the level
 *     prefixes of rows below and of columns (nsn + 1 each), ra, ca (n
 *     each: A's row and column at each position)), G_rows (int32), G_x
 *     (float64: lx, ux (nnz_panels each), dr, dc), G_plan (int64, host:
 *     n, nsn, nlev, nbig, nnz_panels, then the level pointers (nlev + 1),
 *     the prefixes (2 (nsn + 1)), the wide supernodes' level pointers
 *     (nlev + 1) and ids (nbig), first, rp, lp (nsn + 1 each)), G_info
 *     (float64, host: static pivots, the first one's row and column in A,
 *     tau, nnz(L), nnz(U), 1 AMD / 0 RCM, levels, supernodes, symbolic
 *     seconds, numeric seconds, gemm updates)
 *   solve.lu_levels_solve: A_*, G_*, b [, refine, tol] -> x, berr, steps,
 *     seconds
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "../blas/dense.h"
#include "../task/chol_int.h"
#include "solve.h"
#include "lu.h"
#include "kbodies.h"

#define NB             32 /* panel width: larger supernodes are blocked */
#define BIG_UPD_HOST   (32 * 32 * 8)
#define BIG_UPD_DEVICE (128 * 128 * 32)

/* -- bodies -------------------------------------------------------------------- */
#define KB(var, name, pat, sig) \
  static const char *const var##_sig[] = {sig, NULL}; \
  static const sk_kbody var = {.label = "solve." #name, \
                               .body = sk_body_solve_##name, \
                               .pattern = pat, \
                               .sigs = var##_sig}
#define KR(var, name, sig, r) \
  static const char *const var##_sig[] = {sig, NULL}; \
  static const sk_kbody var = {.label = "solve." #name, \
                               .body = sk_body_solve_##name, \
                               .pattern = SK_REDUCE, \
                               .sigs = var##_sig, \
                               .reds = r}
#define SN_ARGS \
  R1("first", "int64") R1("rp", "int64") R1("rows", "int32") R1("lp", "int64")
#define LUX  R1("lx", "float64") R1("ux", "float64")
#define AMAT R1("rowptr", "int64") R1("colidx", "int32") R1("values", "float64")
KB(k_assemble, lu_ls_assemble, SK_FOR,
   "range" AMAT R1("pinv", "int64") R1("qinv", "int64") R1("snof", "int64")
     SN_ARGS LUX R1("dr", "float64") R1("dc", "float64"));
KB(k_small, lu_ls_small, SK_FOR,
   "range" R1("sul", "int64") R1("pref", "int64") SN_ARGS LUX
   " q0=int64 q1=int64 p0=int64");
KB(k_scatter, lu_ls_scatter, SK_FOR,
   "range" R1("W", "float64") SN_ARGS LUX
   " s=int64 d=int64 j0=int64 nr=int64 wl=int64 wu=int64");
KB(k_panel, lu_ls_panel, SK_FOR,
   "team" R1("tk", "int64") LUX R1("bad", "int64") R1("npiv", "int64")
     R1("spiv", "int64") " t0=int64 tau=float64 zero=float64");
KB(k_gather, lu_ls_gather, SK_FOR,
   "range" R1("y", "float64") R1("b", "float64") R1("ra", "int64") R1("dr", "float64"));
KB(k_unperm, lu_ls_unperm, SK_FOR,
   "range" R1("x", "float64") R1("y", "float64") R1("ca", "int64") R1("dc", "float64"));
#define DIAG_SIG \
  "team" R1("order", "int64") R1("first", "int64") R1("rp", "int64") R1("lp", "int64") \
    R1("lx", "float64") R1("y", "float64") " q0=int64 kmax=int64"
KB(k_fdiag, lu_ls_fdiag, SK_FOR, DIAG_SIG);
KB(k_bdiag, lu_ls_bdiag, SK_FOR, DIAG_SIG);
KB(k_fbelow, lu_ls_fbelow, SK_FOR,
   "range" R1("order", "int64") R1("pref", "int64") SN_ARGS R1("lx", "float64")
     R1("y", "float64") " q0=int64 q1=int64 p0=int64");
KB(k_bbelow, lu_ls_bbelow, SK_FOR,
   "range" R1("order", "int64") R1("pref", "int64") SN_ARGS R1("ux", "float64")
     R1("y", "float64") " q0=int64 q1=int64 p0=int64");
KR(k_resid, lu_ls_resid,
   "range" AMAT R1("b", "float64") R1("x", "float64") R1("r", "float64"),
   "max:float64 max:float64 max:float64 sum:float64");
KR(k_anorm, lu_ls_anorm, "range" AMAT, "max:float64");
KR(k_moved, lu_ls_moved, "range" R1("d", "float64") R1("x", "float64"),
   "max:float64 max:float64 sum:float64");
KB(k_add, lu_ls_add, SK_FOR, "range" R1("x", "float64") R1("d", "float64"));

const sk_kbody *const sk_lu_ls_bodies[] = {
  &k_assemble, &k_small,  &k_scatter, &k_panel, &k_gather, &k_unperm, &k_fdiag, &k_bdiag,
  &k_fbelow,   &k_bbelow, &k_resid,   &k_anorm, &k_moved,  &k_add,    NULL};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* -- dense blocks --------------------------------------------------------------- */
/* 'n' elements of float64 / int64 'base' from 'off', as a rank-1 view (an
 * alias: never released) */
static void part(const sk_view *base, int64_t off, int64_t n, sk_view *o) {
  *o = *base;
  o->data = (char *)base->data + (size_t)off * sk_dtypes[base->dtype].size;
  o->extent[0] = n > 0 ? n : 1;
}

static int team(const sk_kbody *kb, int64_t league, const sk_arg *a, int na, char *err,
                size_t errlen) {
  if (league <= 0) return 0;
  return sk_dense_team(kb, league, 0, 0, a, na, err, errlen);
}

static int range(const sk_kbody *kb, int64_t n, const sk_arg *a, int na, char *err,
                 size_t errlen) {
  if (n <= 0) return 0;
  return sk_dense_range(kb, n, a, na, err, errlen);
}

/* -- the factor ------------------------------------------------------------------ */
/* the host plan (G_plan's layout) */
typedef struct {
  int64_t n, nsn, nlev, nbig, nnzp;
  const int64_t *lvp, *hbp, *hcp, *blv, *bsn, *first, *rp, *lp;
} plan_v;

static int64_t plan_len(int64_t nsn, int64_t nlev, int64_t nbig) {
  return 5 + 2 * (nlev + 1) + 5 * (nsn + 1) + nbig;
}

static void plan_set(const int64_t *h, plan_v *p) {
  p->n = h[0];
  p->nsn = h[1];
  p->nlev = h[2];
  p->nbig = h[3];
  p->nnzp = h[4];
  const int64_t *q = h + 5;
  p->lvp = q;
  q += p->nlev + 1;
  p->hbp = q;
  q += p->nsn + 1;
  p->hcp = q;
  q += p->nsn + 1;
  p->blv = q;
  q += p->nlev + 1;
  p->bsn = q;
  q += p->nbig;
  p->first = q;
  q += p->nsn + 1;
  p->rp = q;
  q += p->nsn + 1;
  p->lp = q;
}

/* the factor's device views (aliases of G_ip, G_rows, G_x) */
typedef struct {
  int space;
  sk_view first, rp, lp, order, bpref, cpref, ra, ca, rows, lx, ux, dr, dc;
} fac_v;

static void fac_set(const plan_v *p, const sk_view *ip, const sk_view *rows,
                    const sk_view *x, fac_v *f) {
  int64_t s1 = p->nsn + 1, o = 0;
  f->space = x->space;
  part(ip, o, s1, &f->first);
  part(ip, o += s1, s1, &f->rp);
  part(ip, o += s1, s1, &f->lp);
  part(ip, o += s1, p->nsn, &f->order);
  part(ip, o += p->nsn, s1, &f->bpref);
  part(ip, o += s1, s1, &f->cpref);
  part(ip, o += s1, p->n, &f->ra);
  part(ip, o += p->n, p->n, &f->ca);
  part(rows, 0, rows->extent[0], &f->rows);
  part(x, 0, p->nnzp, &f->lx);
  part(x, p->nnzp, p->nnzp, &f->ux);
  part(x, 2 * p->nnzp, p->n, &f->dr);
  part(x, 2 * p->nnzp + p->n, p->n, &f->dc);
}

static int64_t ip_len(int64_t n, int64_t nsn) { return 5 * (nsn + 1) + nsn + 2 * n; }

/* the symmetric pattern of C + C^T (C = A(rperm, cperm), entries by
 * position, explicit zeros left out; each row's columns once) as CSR */
static int sym_pattern(const sk_lu_prep *P, int64_t **rp_out, int32_t **ci_out) {
  int64_t n = P->n;
  int64_t *rinv = malloc(((size_t)n + 1) * sizeof *rinv),
          *cinv = malloc(((size_t)n + 1) * sizeof *cinv),
          *rp = calloc((size_t)n + 2, sizeof *rp),
          *mark = malloc(((size_t)n + 1) * sizeof *mark);
  int32_t *ci = NULL;
  if (!rinv || !cinv || !rp || !mark) goto oom;
  for (int64_t k = 0; k < n; k++) {
    rinv[P->rperm[k]] = k;
    cinv[P->cperm[k]] = k;
  }
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = P->cp[j]; p < P->cp[j + 1]; p++)
      if (P->cx[p] != 0) {
        rp[rinv[P->ci[p]] + 1]++;
        rp[cinv[j] + 1]++;
      }
  for (int64_t k = 0; k < n; k++) rp[k + 1] += rp[k];
  if (!(ci = malloc(((size_t)rp[n] + 1) * sizeof *ci))) goto oom;
  int64_t *next = mark;
  memcpy(next, rp, (size_t)n * sizeof *next);
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = P->cp[j]; p < P->cp[j + 1]; p++)
      if (P->cx[p] != 0) {
        int64_t a = rinv[P->ci[p]], b = cinv[j];
        ci[next[a]++] = (int32_t)b;
        ci[next[b]++] = (int32_t)a;
      }
  /* each row's columns once */
  for (int64_t k = 0; k < n; k++) mark[k] = -1;
  int64_t q = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t b = rp[k], e = rp[k + 1];
    rp[k] = q;
    for (int64_t p = b; p < e; p++)
      if (mark[ci[p]] != k) {
        mark[ci[p]] = k;
        ci[q++] = ci[p];
      }
  }
  rp[n] = q;
  free(rinv);
  free(cinv);
  free(mark);
  *rp_out = rp;
  *ci_out = ci;
  return 0;
oom:
  free(rinv);
  free(cinv);
  free(rp);
  free(mark);
  free(ci);
  return -1;
}

/* 'n' host float64 values into part [off, off + n) of view v (any space):
 * a view of them there, copied in by a launch */
static int put_at(const sk_view *v, int64_t off, const double *src, int64_t n, char *err,
                  size_t errlen) {
  if (n <= 0) return 0;
  sk_view d, t;
  part(v, off, n, &d);
  if (sk_chol_ls_put(&t, v->label, SK_F64, src, n, v->space, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view("x", &t), sk_arg_view("y", &d)};
  int rc = range(&sk_solve_k_copy, n, a, NELEM(a), err, errlen);
  sk_view_release(&t);
  return rc;
}

typedef struct {
  int64_t nstatic, scol, bad;
  double symbolic_s, numeric_s;
} num_out;

/* the numeric phase on the back end (c: the symbolic phase; D: its plan;
 * ntask panel tasks; f: the factor's views, lx and ux zero) */
static int numeric(const sk_chol *c, const struct sk_chol_dev *D, int64_t ntask,
                   const sk_csr *A, const int64_t *pinv, const int64_t *qinv,
                   const fac_v *f, double tau, double zero, num_out *no, char *err,
                   size_t errlen) {
  int sp = f->space, rc = -1, n = c->n, nsn = c->nsn;
  sk_view tk, sul, supref, W, bad, npiv, spiv, vpinv, vqinv, vsnof;
  sk_view *all[] = {&tk, &sul, &supref, &W, &bad, &npiv, &spiv, &vpinv, &vqinv, &vsnof};
  for (size_t k = 0; k < sizeof all / sizeof *all; k++) memset(all[k], 0, sizeof **all);
  int64_t wsize = 1, big = INT64_MAX, *snof = malloc(((size_t)n + 1) * sizeof *snof);
  if (!snof) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
    return -1;
  }
  for (int s = 0; s < nsn; s++)
    for (int j = c->first[s]; j < c->first[s + 1]; j++) snof[j] = s;
  for (int64_t x = 0; x < D->bulv[D->nlev]; x++)
    if (2 * D->bu[x].nr * D->bu[x].nc > wsize) wsize = 2 * D->bu[x].nr * D->bu[x].nc;
  int64_t nsm = D->sulv[D->nlev];
  if (sk_chol_ls_put(&tk, "lu tasks", SK_I64, D->htk, 5 * ntask, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&sul, "lu small updates", SK_I64, D->hsl, 5 * nsm, sp, err, errlen) <
        0 ||
      sk_chol_ls_put(&supref, "lu small prefix", SK_I64, D->hsp, nsm + 1, sp, err,
                     errlen) < 0 ||
      sk_chol_ls_put(&W, "lu work", SK_F64, NULL, wsize, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&bad, "lu bad", SK_I64, &big, 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&npiv, "lu pivots", SK_I64, NULL, 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&spiv, "lu first pivot", SK_I64, &big, 1, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&vpinv, "lu pinv", SK_I64, pinv, n, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&vqinv, "lu qinv", SK_I64, qinv, n, sp, err, errlen) < 0 ||
      sk_chol_ls_put(&vsnof, "lu snof", SK_I64, snof, n, sp, err, errlen) < 0)
    goto done;
  double t1 = now_s();
  if (sp == SK_SPACE_HOST) sk_vendor_host_threads(sk_rt_threads());
  sk_arg aa[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                 sk_arg_view("values", A->values), sk_arg_view("pinv", &vpinv),
                 sk_arg_view("qinv", &vqinv),      sk_arg_view("snof", &vsnof),
                 sk_arg_view("first", &f->first),  sk_arg_view("rp", &f->rp),
                 sk_arg_view("rows", &f->rows),    sk_arg_view("lp", &f->lp),
                 sk_arg_view("lx", &f->lx),        sk_arg_view("ux", &f->ux),
                 sk_arg_view("dr", &f->dr),        sk_arg_view("dc", &f->dc)};
  if (range(&k_assemble, n, aa, NELEM(aa), err, errlen) < 0) goto done;
  for (int64_t l = 0; l < D->nlev; l++) {
    const int64_t u0 = D->sulv[l], u1 = D->sulv[l + 1];
    sk_arg ma[] = {sk_arg_view("sul", &sul),
                   sk_arg_view("pref", &supref),
                   sk_arg_view("first", &f->first),
                   sk_arg_view("rp", &f->rp),
                   sk_arg_view("rows", &f->rows),
                   sk_arg_view("lp", &f->lp),
                   sk_arg_view("lx", &f->lx),
                   sk_arg_view("ux", &f->ux),
                   sk_arg_i64("q0", u0),
                   sk_arg_i64("q1", u1),
                   sk_arg_i64("p0", D->hsp[u0])};
    if (u1 > u0 &&
        range(&k_small, D->hsp[u1] - D->hsp[u0], ma, NELEM(ma), err, errlen) < 0)
      goto done;
    for (int64_t x = D->bulv[l]; x < D->bulv[l + 1]; x++) {
      const big_upd *u = &D->bu[x];
      int64_t L0 = c->lp[u->d] + u->j0, md = c->rp[u->d + 1] - c->rp[u->d];
      int64_t wu = u->nr * u->nc;
      /* W_L = L(rows j0.., :) U(:, rows j0..j0+nc); W_U = U^T(rows j0..) L^T */
      if (sk_dense_blk_gemm(sp, 'N', 'T', &f->lx, L0, md, &f->ux, L0, md, &W, 0, u->nr,
                            u->nr, u->nc, u->kd, 1.0, 0.0, err, errlen) < 0 ||
          sk_dense_blk_gemm(sp, 'N', 'T', &f->ux, L0, md, &f->lx, L0, md, &W, wu, u->nr,
                            u->nr, u->nc, u->kd, 1.0, 0.0, err, errlen) < 0)
        goto done;
      sk_arg sc[] = {sk_arg_view("W", &W),      sk_arg_view("first", &f->first),
                     sk_arg_view("rp", &f->rp), sk_arg_view("rows", &f->rows),
                     sk_arg_view("lp", &f->lp), sk_arg_view("lx", &f->lx),
                     sk_arg_view("ux", &f->ux), sk_arg_i64("s", u->s),
                     sk_arg_i64("d", u->d),     sk_arg_i64("j0", u->j0),
                     sk_arg_i64("nr", u->nr),   sk_arg_i64("wl", 0),
                     sk_arg_i64("wu", wu)};
      if (range(&k_scatter, u->nr * u->nc, sc, NELEM(sc), err, errlen) < 0) goto done;
    }
    sk_arg pa[] = {
      sk_arg_view("tk", &tk),      sk_arg_view("lx", &f->lx),  sk_arg_view("ux", &f->ux),
      sk_arg_view("bad", &bad),    sk_arg_view("npiv", &npiv), sk_arg_view("spiv", &spiv),
      sk_arg_i64("t0", D->tlv[l]), sk_arg_f64("tau", tau),     sk_arg_f64("zero", zero)};
    if (team(&k_panel, D->tlv[l + 1] - D->tlv[l], pa, NELEM(pa), err, errlen) < 0)
      goto done;
    for (int64_t x = D->blv[l]; x < D->blv[l + 1]; x++) {
      int s = (int)D->bsn[x];
      int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s],
              L0 = c->lp[s];
      for (int64_t k0 = 0, t = D->btask[x]; k0 < k; k0 += NB, t++) {
        int64_t nb = k - k0 < NB ? k - k0 : NB, kr = k - k0 - nb, mr = m - k0 - nb;
        sk_arg pb[] = {sk_arg_view("tk", &tk),     sk_arg_view("lx", &f->lx),
                       sk_arg_view("ux", &f->ux),  sk_arg_view("bad", &bad),
                       sk_arg_view("npiv", &npiv), sk_arg_view("spiv", &spiv),
                       sk_arg_i64("t0", t),        sk_arg_f64("tau", tau),
                       sk_arg_f64("zero", zero)};
        if (team(&k_panel, 1, pb, NELEM(pb), err, errlen) < 0) goto done;
        int64_t dg = L0 + k0 * m + k0;
        /* L's rows below: B U^-1; U's columns right: L^-1 B in the
         * diagonal block, B L^-T in ux (its transpose) */
        if (sk_dense_blk_trsm(sp, 'R', 'U', 'N', 'N', &f->lx, dg, m, &f->lx, dg + nb, m,
                              mr, nb, err, errlen) < 0 ||
            sk_dense_blk_trsm(sp, 'L', 'L', 'N', 'U', &f->lx, dg, m, &f->lx, dg + nb * m,
                              m, nb, kr, err, errlen) < 0 ||
            sk_dense_blk_trsm(sp, 'R', 'L', 'T', 'U', &f->lx, dg, m, &f->ux,
                              L0 + k0 * m + k, m, m - k, nb, err, errlen) < 0)
          goto done;
        if (kr == 0) continue;
        /* the trailing columns: lx[k0+nb:, k0+nb:k] -= L(k0+nb:, blk) U(blk, k0+nb:k);
         * ux[k:, k0+nb:k] -= U^T(k:, blk) L(k0+nb:k, blk)^T */
        if (sk_dense_blk_gemm(sp, 'N', 'N', &f->lx, dg + nb, m, &f->lx, dg + nb * m, m,
                              &f->lx, dg + nb * m + nb, m, mr, kr, nb, -1.0, 1.0, err,
                              errlen) < 0 ||
            sk_dense_blk_gemm(sp, 'N', 'T', &f->ux, L0 + k0 * m + k, m, &f->lx, dg + nb,
                              m, &f->ux, L0 + (k0 + nb) * m + k, m, m - k, kr, nb, -1.0,
                              1.0, err, errlen) < 0)
          goto done;
      }
    }
  }
  if (sk_dense_get_i64(&bad, 0, &no->bad, err, errlen) < 0 ||
      sk_dense_get_i64(&npiv, 0, &no->nstatic, err, errlen) < 0 ||
      sk_dense_get_i64(&spiv, 0, &no->scol, err, errlen) < 0)
    goto done;
  no->numeric_s = now_s() - t1;
  rc = 0;
done:
  if (sp == SK_SPACE_HOST) sk_vendor_host_threads(1);
  for (size_t k = 0; k < sizeof all / sizeof *all; k++)
    if (all[k]->data) sk_view_release(all[k]);
  free(snof);
  return rc;
}

static const char *const GNAMES[] = {"G_ip", "G_rows", "G_x", "G_plan", "G_info"};
static const int GDT[] = {SK_I64, SK_I32, SK_F64, SK_I64, SK_F64};

/* solve.lu_levels */
static int lu_levels(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "pivtol",   "ordering", "gemm_min", NULL};
  double pivtol = sqrt(DBL_EPSILON);
  int64_t gemm_min = 0;
  int order;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "pivtol") &&
       sk_karg_f64(args, nargs, "pivtol", &pivtol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "gemm_min", 1, 0, &gemm_min, err, errlen) < 0)
    return -1;
  if (!(pivtol >= 0) || !(pivtol < 1)) {
    sk_err(err, errlen, SK_E_LU_PIVTOL, pivtol);
    return -1;
  }
  if (sk_karg_find(args, nargs, "gemm_min") && gemm_min < 1) {
    sk_err(err, errlen, SK_E_LU_GEMM_MIN, (long long)gemm_min);
    return -1;
  }
  if (sk_lu_order_arg(args, nargs, &order, err, errlen) < 0) return -1;
  const sk_backend *be = sk_dense_backend(err, errlen);
  if (!be) return -1;
  sk_csr A;
  if (sk_csr_arg(args, nargs, "A", 1, &A, err, errlen) < 0) return -1;
  if (!be->reaches(A.values->space)) {
    sk_err(err, errlen, SK_E_LU_LEVELS_SPACE, sk_space_name(be->space),
           sk_space_name(A.values->space));
    return -1;
  }
  if (A.values->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_LU_LEVELS_DTYPE, "A_values", A.values->label,
           sk_dtypes[A.values->dtype].name);
    return -1;
  }
  double t0 = now_s();
  sk_lu_prep P;
  if (sk_lu_analyse(args, nargs, order, &A, &P, err, errlen) < 0) return -1;
  int64_t n = P.n;
  int rc = -1;
  int64_t *srp = NULL, *pinv = NULL, *qinv = NULL, *hord = NULL, *hip = NULL,
          *hplan = NULL;
  int32_t *sci = NULL;
  int *ident = NULL;
  sk_chol *c = NULL;
  struct sk_chol_dev *D = NULL;
  sk_view ip, rows, x, gplan, ginfo;
  sk_view *mine[] = {&ip, &rows, &x, &gplan, &ginfo};
  for (int k = 0; k < 5; k++) memset(mine[k], 0, sizeof ip);
  if (n == 0) {
    sk_err(err, errlen, SK_E_MATRIX_ROWS, (long long)n);
    goto done;
  }
  if (sym_pattern(&P, &srp, &sci) < 0 || !(ident = malloc((size_t)n * sizeof *ident)))
    goto oom;
  for (int64_t k = 0; k < n; k++) ident[k] = (int)k;
  if (!(c = sk_chol_symbolic(n, srp, sci, ident, err, errlen))) goto done;
  if (!(D = calloc(1, sizeof *D))) goto oom;
  int sp = A.values->space; /* the factor's space: A's (the back end's memory) */
  D->space = sp;
  D->big_upd = gemm_min > 0          ? gemm_min
               : sp == SK_SPACE_HOST ? BIG_UPD_HOST
                                     : BIG_UPD_DEVICE;
  int ntask = sk_chol_ls_plan(c, D, &hord);
  if (ntask < 0) goto oom;
  int64_t nsn = c->nsn, nlev = D->nlev, nbig = D->blv[nlev], nnzp = c->lp[nsn];
  /* positions: k of the order is C's c->perm[k], A's row rperm[] and column cperm[] */
  pinv = malloc((size_t)n * sizeof *pinv);
  qinv = malloc((size_t)n * sizeof *qinv);
  hip = malloc((size_t)ip_len(n, nsn) * sizeof *hip);
  hplan = malloc((size_t)plan_len(nsn, nlev, nbig) * sizeof *hplan);
  if (!pinv || !qinv || !hip || !hplan) goto oom;
  {
    int64_t *q = hip;
    for (int64_t s = 0; s <= nsn; s++) q[s] = c->first[s];
    q += nsn + 1;
    memcpy(q, c->rp, (size_t)(nsn + 1) * sizeof *q);
    q += nsn + 1;
    memcpy(q, c->lp, (size_t)(nsn + 1) * sizeof *q);
    q += nsn + 1;
    memcpy(q, hord, (size_t)nsn * sizeof *q);
    q += nsn;
    memcpy(q, D->hbp, (size_t)(nsn + 1) * sizeof *q);
    q += nsn + 1;
    memcpy(q, D->hcp, (size_t)(nsn + 1) * sizeof *q);
    q += nsn + 1;
    for (int64_t k = 0; k < n; k++) {
      q[k] = P.rperm[c->perm[k]];
      q[n + k] = P.cperm[c->perm[k]];
      pinv[q[k]] = k;
      qinv[q[n + k]] = k;
    }
  }
  {
    int64_t *h = hplan;
    h[0] = n;
    h[1] = nsn;
    h[2] = nlev;
    h[3] = nbig;
    h[4] = nnzp;
    int64_t *q = h + 5;
    memcpy(q, D->lvp, (size_t)(nlev + 1) * sizeof *q);
    q += nlev + 1;
    memcpy(q, D->hbp, (size_t)(nsn + 1) * sizeof *q);
    q += nsn + 1;
    memcpy(q, D->hcp, (size_t)(nsn + 1) * sizeof *q);
    q += nsn + 1;
    memcpy(q, D->blv, (size_t)(nlev + 1) * sizeof *q);
    q += nlev + 1;
    memcpy(q, D->bsn, (size_t)nbig * sizeof *q);
    q += nbig;
    memcpy(q, hip, (size_t)(3 * (nsn + 1)) * sizeof *q);
  }
  if (sk_chol_ls_put(&ip, "G_ip", SK_I64, hip, ip_len(n, nsn), sp, err, errlen) < 0 ||
      sk_chol_ls_put(&rows, "G_rows", SK_I32, c->rows, c->rp[nsn], sp, err, errlen) < 0 ||
      sk_chol_ls_put(&x, "G_x", SK_F64, NULL, 2 * nnzp + 2 * n, sp, err, errlen) < 0 ||
      put_at(&x, 2 * nnzp, P.dr, n, err, errlen) < 0 ||
      put_at(&x, 2 * nnzp + n, P.dc, n, err, errlen) < 0 ||
      sk_sp_view(&gplan, "G_plan", SK_I64, plan_len(nsn, nlev, nbig), SK_SPACE_HOST, 0,
                 err, errlen) < 0 ||
      sk_sp_view(&ginfo, "G_info", SK_F64, 11, SK_SPACE_HOST, 0, err, errlen) < 0)
    goto done;
  memcpy(gplan.data, hplan, (size_t)plan_len(nsn, nlev, nbig) * sizeof *hplan);
  plan_v pv;
  plan_set(gplan.data, &pv);
  fac_v f;
  fac_set(&pv, &ip, &rows, &x, &f);
  num_out no = {0, -1, INT64_MAX, now_s() - t0, 0};
  double tau = pivtol * P.cmax, zero = (double)n * DBL_EPSILON * P.cmax;
  if (numeric(c, D, ntask, &A, pinv, qinv, &f, tau, zero, &no, err, errlen) < 0)
    goto done;
  const int64_t *ra = hip + 5 * (nsn + 1) + nsn, *ca = ra + n;
  if (no.bad != INT64_MAX) {
    int64_t col = no.bad >> 2, kind = no.bad & 3;
    int s = 0;
    while (c->first[s + 1] <= col) s++;
    int64_t m = c->rp[s + 1] - c->rp[s], cc = col - c->first[s];
    double piv;
    if (sk_sp_get_f64(&x, c->lp[s] + cc * m + cc, &piv, err, errlen) < 0) goto done;
    if (kind)
      sk_err(err, errlen, SK_E_LU_PIVOT_NONFINITE, (long long)ra[col], (long long)ca[col],
             piv);
    else
      sk_err(err, errlen, SK_E_LU_ZERO_PIVOT, (long long)ra[col], (long long)ca[col], piv,
             zero);
    goto done;
  }
  double *gi = ginfo.data;
  gi[0] = (double)no.nstatic;
  gi[1] = no.nstatic ? (double)ra[no.scol] : -1;
  gi[2] = no.nstatic ? (double)ca[no.scol] : -1;
  gi[3] = tau;
  /* L's and U's entries: the panels' (their relaxed zeros kept), the
   * diagonal U's */
  int64_t nl = 0, nu = 0;
  for (int64_t s = 0; s < nsn; s++) {
    int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
    nl += k * (k - 1) / 2 + (m - k) * k;
    nu += k * (k + 1) / 2 + (m - k) * k;
  }
  gi[4] = (double)nl;
  gi[5] = (double)nu;
  gi[6] = P.amd;
  gi[7] = (double)nlev;
  gi[8] = (double)nsn;
  gi[9] = no.symbolic_s;
  gi[10] = no.numeric_s;
  /* the outputs own their views from here (a failed hand-over released it) */
  for (int k = 0; k < 5; k++) {
    int bad = sk_kout_view(out, GNAMES[k], mine[k], err, errlen);
    memset(mine[k], 0, sizeof ip);
    if (bad < 0) goto done;
  }
  if (sk_kout_num(out, "gemm_updates", (double)D->bulv[nlev], err, errlen) < 0) goto done;
  rc = 0;
  goto done;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
done:
  for (int k = 0; k < 5; k++)
    if (mine[k]->data) sk_view_release(mine[k]);
  sk_lu_prep_free(&P);
  sk_chol_ls_free(D);
  sk_chol_free(c);
  free(srp);
  free(sci);
  free(ident);
  free(pinv);
  free(qinv);
  free(hord);
  free(hip);
  free(hplan);
  return rc;
}

/* -- solves --------------------------------------------------------------------- */
/* one level of a triangular solve on y: 'fwd' L z = y (the diagonal
 * blocks first, then the rows below them), else U w = y (the rows below
 * first, then the diagonal blocks); the wide supernodes' diagonal blocks
 * by trsm */
static int solve_level(const plan_v *p, const fac_v *f, const sk_view *y, int64_t l, int fwd,
                       char *err, size_t errlen) {
  const int64_t q0 = p->lvp[l], q1 = p->lvp[l + 1];
  const int64_t *hp = fwd ? p->hbp : p->hcp;
  sk_arg da[] = {sk_arg_view("order", &f->order),
                 sk_arg_view("first", &f->first),
                 sk_arg_view("rp", &f->rp),
                 sk_arg_view("lp", &f->lp),
                 sk_arg_view("lx", &f->lx),
                 sk_arg_view("y", y),
                 sk_arg_i64("q0", q0),
                 sk_arg_i64("kmax", NB)};
  sk_arg ba[] = {sk_arg_view("order", &f->order),
                 sk_arg_view("pref", fwd ? &f->bpref : &f->cpref),
                 sk_arg_view("first", &f->first),
                 sk_arg_view("rp", &f->rp),
                 sk_arg_view("rows", &f->rows),
                 sk_arg_view("lp", &f->lp),
                 fwd ? sk_arg_view("lx", &f->lx) : sk_arg_view("ux", &f->ux),
                 sk_arg_view("y", y),
                 sk_arg_i64("q0", q0),
                 sk_arg_i64("q1", q1),
                 sk_arg_i64("p0", hp[q0])};
  if (!fwd && range(&k_bbelow, hp[q1] - hp[q0], ba, NELEM(ba), err, errlen) < 0) return -1;
  if (team(fwd ? &k_fdiag : &k_bdiag, q1 - q0, da, NELEM(da), err, errlen) < 0) return -1;
  for (int64_t b = p->blv[l]; b < p->blv[l + 1]; b++) {
    int64_t s = p->bsn[b], k = p->first[s + 1] - p->first[s], m = p->rp[s + 1] - p->rp[s];
    if (sk_dense_blk_trsm(f->space, 'L', fwd ? 'L' : 'U', 'N', fwd ? 'U' : 'N', &f->lx,
                          p->lp[s], m, y, p->first[s], k, k, 1, err, errlen) < 0)
      return -1;
  }
  if (fwd && range(&k_fbelow, hp[q1] - hp[q0], ba, NELEM(ba), err, errlen) < 0) return -1;
  return 0;
}

/* out = A^-1 v through the factor (v, out float64 of n in its space, y work) */
static int apply(const plan_v *p, const fac_v *f, const sk_view *v, const sk_view *y,
                 const sk_view *o, char *err, size_t errlen) {
  sk_arg ga[] = {sk_arg_view("y", y), sk_arg_view("b", v), sk_arg_view("ra", &f->ra),
                 sk_arg_view("dr", &f->dr)};
  if (range(&k_gather, p->n, ga, NELEM(ga), err, errlen) < 0) return -1;
  for (int64_t l = 0; l < p->nlev; l++) /* L z = P_r D_r b */
    if (solve_level(p, f, y, l, 1, err, errlen) < 0) return -1;
  for (int64_t l = p->nlev - 1; l >= 0; l--) /* U w = z */
    if (solve_level(p, f, y, l, 0, err, errlen) < 0) return -1;
  sk_arg ua[] = {sk_arg_view("x", o), sk_arg_view("y", y), sk_arg_view("ca", &f->ca),
                 sk_arg_view("dc", &f->dc)};
  return range(&k_unperm, p->n, ua, NELEM(ua), err, errlen);
}

/* r = b - A x; its backward error ||r|| / (||A|| ||x|| + ||b||) (infinity
 * norms; non-finite: INFINITY) */
static int backward_error(const sk_csr *A, int64_t n, double anorm, const sk_view *b,
                          const sk_view *x, const sk_view *r, double *e, char *err,
                          size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", A->rowptr),
                sk_arg_view("colidx", A->colidx),
                sk_arg_view("values", A->values),
                sk_arg_view("b", b),
                sk_arg_view("x", x),
                sk_arg_view("r", r)};
  sk_result res;
  if (sk_sp_range(&k_resid, n, a, NELEM(a), &res, err, errlen) < 0) return -1;
  double rn = sk_result_f64(&res, 0), xn = sk_result_f64(&res, 1),
         bn = sk_result_f64(&res, 2), bad = sk_result_f64(&res, 3);
  double d = anorm * xn + bn;
  *e = bad > 0 || !isfinite(rn) || !isfinite(xn) ? INFINITY : d > 0 ? rn / d : 0;
  return 0;
}

/* the row of r's largest |entry| (r read back: an error's message) */
static int worst_row(const sk_view *r, int64_t n, int64_t *w, char *err, size_t errlen) {
  double *h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
  sk_view hv;
  int64_t ext = n > 0 ? n : 1;
  if (!h) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
    return -1;
  }
  if (sk_view_create(&hv, "r", SK_F64, 1, &ext, SK_RIGHT, SK_SPACE_HOST, 0, h, err,
                     errlen) < 0 ||
      sk_view_deep_copy(&hv, r, err, errlen) < 0) {
    free(h);
    return -1;
  }
  sk_view_release(&hv);
  double best = 0;
  *w = 0;
  for (int64_t i = 0; i < n; i++)
    if (!(fabs(h[i]) <= best)) {
      best = fabs(h[i]);
      *w = i;
    }
  free(h);
  return 0;
}

/* solve.lu_levels_solve */
static int lu_levels_solve(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                           size_t errlen) {
  static const char *const known[] = {
    "A_rowptr", "A_colidx", "A_values", "A_ncols", "G_ip", "G_rows", "G_x",
    "G_plan",   "G_info",   "b",        "refine",  "tol",  NULL};
  int64_t refine;
  double tol;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_lu_refine_args(args, nargs, &refine, &tol, err, errlen) < 0)
    return -1;
  sk_csr A;
  if (sk_csr_arg(args, nargs, "A", 1, &A, err, errlen) < 0) return -1;
  const sk_view *b = sk_karg_view(args, nargs, "b", 1, err, errlen);
  if (!b) return -1;
  int sp = A.values->space;
  if (A.values->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_LU_LEVELS_DTYPE, "A_values", A.values->label,
           sk_dtypes[A.values->dtype].name);
    return -1;
  }
  const sk_view *g[5];
  for (int k = 0; k < 5; k++) {
    if (!(g[k] = sk_karg_view(args, nargs, GNAMES[k], 1, err, errlen))) return -1;
    int want = k >= 3 ? SK_SPACE_HOST : sp;
    if (g[k]->dtype != GDT[k] || g[k]->space != want || g[k]->stride[0] != 1) {
      sk_err(err, errlen, SK_E_LU_FACTOR_ARG, GNAMES[k], g[k]->label);
      return -1;
    }
  }
  const int64_t *h = g[3]->data;
  plan_v p;
  if (g[3]->extent[0] < 5 || h[0] != A.nrows || g[4]->extent[0] != 11 ||
      g[3]->extent[0] != plan_len(h[1], h[2], h[3]) ||
      g[0]->extent[0] != ip_len(h[0], h[1]) || g[2]->extent[0] != 2 * h[4] + 2 * h[0]) {
    sk_err(err, errlen, SK_E_LU_FACTOR_ARG, "G_plan", g[3]->label);
    return -1;
  }
  plan_set(h, &p);
  int64_t n = p.n;
  if (b->dtype != SK_F64 || b->stride[0] != 1 || b->extent[0] != n || b->space != sp) {
    sk_err(err, errlen, SK_E_LU_LEVELS_B, b->label, (long long)n, sk_space_name(sp));
    return -1;
  }
  fac_v f;
  fac_set(&p, g[0], g[1], g[2], &f);
  const double *fi = g[4]->data;
  int64_t st[3] = {(int64_t)fi[0], (int64_t)fi[1], (int64_t)fi[2]};
  double t0 = now_s();
  int rc = -1;
  sk_view y, xx, r, d, best;
  sk_view *all[] = {&y, &xx, &r, &d, &best};
  for (int k = 0; k < 5; k++) memset(all[k], 0, sizeof y);
  if (sk_sp_view(&y, "lu y", SK_F64, n, sp, 0, err, errlen) < 0 ||
      sk_sp_view(&xx, "lu x", SK_F64, n, sp, 0, err, errlen) < 0 ||
      sk_sp_view(&r, "lu r", SK_F64, n, sp, 0, err, errlen) < 0 ||
      sk_sp_view(&d, "lu d", SK_F64, n, sp, 0, err, errlen) < 0 ||
      sk_sp_view(&best, "x", SK_F64, n, sp, 0, err, errlen) < 0)
    goto done;
  sk_arg na[] = {sk_arg_view("rowptr", A.rowptr), sk_arg_view("colidx", A.colidx),
                 sk_arg_view("values", A.values)};
  sk_result res;
  if (sk_sp_range(&k_anorm, n, na, NELEM(na), &res, err, errlen) < 0) goto done;
  double anorm = sk_result_f64(&res, 0);
  if (apply(&p, &f, b, &y, &xx, err, errlen) < 0) goto done;
  double berr = INFINITY, last = INFINITY;
  int64_t steps = 0;
  sk_arg cpa[] = {sk_arg_view("x", &xx), sk_arg_view("y", &best)};
  sk_arg ada[] = {sk_arg_view("x", &xx), sk_arg_view("d", &d)};
  for (int64_t it = 0;; it++) {
    double e;
    if (backward_error(&A, n, anorm, b, &xx, &r, &e, err, errlen) < 0) goto done;
    if (e < berr) {
      berr = e;
      if (range(&sk_solve_k_copy, n, cpa, NELEM(cpa), err, errlen) < 0) goto done;
      steps = it;
    }
    if (!(e > 2 * DBL_EPSILON) || it >= refine || !(e < 0.5 * last)) break;
    last = e;
    if (apply(&p, &f, &r, &y, &d, err, errlen) < 0 ||
        range(&k_add, n, ada, NELEM(ada), err, errlen) < 0)
      goto done;
  }
  double e;
  int64_t wbest = 0;
  /* with replaced pivots one more correction must move x little (lu.c) */
  if (st[0] > 0 && berr <= tol) {
    if (backward_error(&A, n, anorm, b, &best, &r, &e, err, errlen) < 0 ||
        apply(&p, &f, &r, &y, &d, err, errlen) < 0)
      goto done;
    sk_arg ma[] = {sk_arg_view("d", &d), sk_arg_view("x", &best)};
    if (sk_sp_range(&k_moved, n, ma, NELEM(ma), &res, err, errlen) < 0) goto done;
    double dn = sk_result_f64(&res, 0), xn = sk_result_f64(&res, 1);
    double moved = sk_result_f64(&res, 2) > 0 ? INFINITY
                   : xn > 0                   ? dn / xn
                   : dn > 0                   ? INFINITY
                                              : 0;
    if (!(moved <= 1e-6)) {
      sk_err(err, errlen, SK_E_LU_STATIC_MOVES, moved, berr, (long long)st[0],
             (long long)st[1], (long long)st[2]);
      goto done;
    }
  }
  if (!(berr <= tol)) {
    if (backward_error(&A, n, anorm, b, &best, &r, &e, err, errlen) < 0 ||
        worst_row(&r, n, &wbest, err, errlen) < 0)
      goto done;
    sk_lu_refine_failed(berr, tol, steps, wbest, st, err, errlen);
    goto done;
  }
  double secs = now_s() - t0;
  int bad = sk_kout_view(out, "x", &best, err, errlen);
  memset(&best, 0, sizeof best);
  if (bad < 0 || sk_kout_num(out, "berr", berr, err, errlen) < 0 ||
      sk_kout_num(out, "steps", (double)steps, err, errlen) < 0 ||
      sk_kout_num(out, "seconds", secs, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int k = 0; k < 5; k++)
    if (all[k]->data) sk_view_release(all[k]);
  return rc;
}

static const sk_kentry e_lu_levels = {
  "solve.lu_levels", "A_* [, pivtol, ordering, gemm_min]", SK_KRES_NONE, lu_levels};
static const sk_kentry e_lu_levels_solve = {
  "solve.lu_levels_solve", "A_*, G_*, b [, refine, tol]", SK_KRES_NONE, lu_levels_solve};
const sk_kentry *const sk_lu_ls_entries[] = {&e_lu_levels, &e_lu_levels_solve, NULL};
