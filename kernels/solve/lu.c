/* lu.c: speck.solve's direct solve of a nonsymmetric sparse system -- LU
 * with static pivoting, as SuperLU_DIST and Tacho do:
 *   1. a maximum-product matching with row and column scaling (MC64 job 5,
 *      lu_match.c) puts entries of modulus 1 on the diagonal and makes
 *      every other entry at most 1;
 *   2. SuiteSparse's AMD orders the matched matrix's A + A^T pattern (the
 *      fill-reducing order, applied symmetrically so the matched diagonal
 *      stays the diagonal); where libamd cannot be loaded, reverse
 *      Cuthill-McKee on the same pattern (more fill, the same answers);
 *   3. a left-looking LU (Gilbert-Peierls: each column a sparse triangular
 *      solve with L, its pattern from a depth-first search) with no row
 *      exchange: a pivot below pivtol * max|c_ij| (sqrt(eps) by default)
 *      is replaced by that threshold with its sign, and counted; one at
 *      or below n eps max|c_ij| (zero to working precision: A is
 *      numerically singular) is an error naming it;
 *   4. solves: x from the factors, then iterative refinement against the
 *      original A until the normwise backward error ||b - A x|| / (||A||
 *      ||x|| + ||b||) (infinity norms) reaches eps or stops improving; a
 *      result above 'tol' is an error naming the first replaced pivot,
 *      never a returned x; with replaced pivots one more correction must
 *      move x by at most 1e-6 relative (a singular A's x keeps moving).
 * The factorization and the solves run on the host; a matrix or b in a
 * device space is copied to the host and x copied back (kernels/solve
 * has no device LU). Nothing dense of size n x n is ever formed.
 *
 * Entries:
 *   solve.lu: A_* [, pivtol, ordering ("auto" | "amd" | "rcm")] -> the factor as four host views: F_ip (int64:
 *     Lp, Up (n + 1 each; L unit lower, its strict part by columns, U's
 *     strict upper part by columns), rperm, cperm (the row / column of A
 *     at each position)), F_ii (int32: Li, Ui), F_x (float64: Lx, Ux, Ud
 *     (U's diagonal), dr, dc (the scalings, by A's rows / columns)),
 *     F_info (float64: static pivots, the first one's row and column in
 *     A (-1: none), tau, nnz(L), nnz(U), 1 for AMD's order or 0 for RCM's)
 *   solve.lu_solve: A_*, F_*, b [, refine (10), tol (1e-10)] -> x (b's
 *     space, A's dtype), berr, steps
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "solve.h"
#include "lu.h"
#include "../task/chol.h"

/* -- host copies of the arguments ---------------------------------------------- */
typedef struct {
  int64_t n, nnz;
  sk_view rp, ci, cv; /* host copies (retained aliases on the host) */
  const int64_t *rowptr;
  const int32_t *colidx;
  double *val; /* float64 copy (owned) */
} hmat;

static void hmat_free(hmat *m) {
  sk_view_release(&m->rp);
  sk_view_release(&m->ci);
  sk_view_release(&m->cv);
  free(m->val);
  memset(m, 0, sizeof *m);
}

static double vget(const sk_view *v, int64_t i) {
  const char *p = (const char *)v->data + (size_t)(i * v->stride[0]) * sk_dtypes[v->dtype].size;
  return v->dtype == SK_F32 ? (double)*(const float *)p : *(const double *)p;
}

static void vset(const sk_view *v, int64_t i, double x) {
  char *p = (char *)v->data + (size_t)(i * v->stride[0]) * sk_dtypes[v->dtype].size;
  if (v->dtype == SK_F32)
    *(float *)p = (float)x;
  else
    *(double *)p = x;
}

/* A square float matrix, its host copy */
static int host_matrix(const sk_arg *args, int nargs, sk_csr *A, hmat *m, char *err,
                       size_t errlen) {
  memset(m, 0, sizeof *m);
  if (sk_csr_arg(args, nargs, "A", 1, A, err, errlen) < 0) return -1;
  char sh[64];
  if (A->nrows != A->ncols) {
    sk_err(err, errlen, SK_E_SOLVE_NEEDS_SQUARE, sk_csr_shape(A, sh, sizeof sh));
    return -1;
  }
  if (!sk_sp_is_float(A->values->dtype)) {
    sk_err(err, errlen, SK_E_SOLVE_ARG_DTYPE, "A_values", A->values->label,
           "float64 or float32", sk_dtypes[A->values->dtype].name);
    return -1;
  }
  if (A->nrows > INT32_MAX - 1) {
    sk_err(err, errlen, SK_E_LU_TOO_LARGE, (long long)A->nrows);
    return -1;
  }
  m->n = A->nrows;
  if (sk_sp_host_copy(A->rowptr, &m->rp, err, errlen) < 0 ||
      sk_sp_host_copy(A->colidx, &m->ci, err, errlen) < 0 ||
      sk_sp_host_copy(A->values, &m->cv, err, errlen) < 0)
    goto fail;
  m->rowptr = (const int64_t *)m->rp.data;
  m->colidx = (const int32_t *)m->ci.data;
  m->nnz = m->rowptr[m->n];
  if (!(m->val = malloc(((size_t)m->nnz + 1) * sizeof *m->val))) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
    goto fail;
  }
  for (int64_t p = 0; p < m->nnz; p++) {
    m->val[p] = vget(&m->cv, p);
    if (!isfinite(m->val[p])) {
      int64_t r = 0;
      while (m->rowptr[r + 1] <= p) r++;
      sk_err(err, errlen, SK_E_LU_NONFINITE, m->val[p], (long long)r,
             (long long)m->colidx[p]);
      goto fail;
    }
  }
  return 0;
fail:
  hmat_free(m);
  return -1;
}

/* -- the factor ------------------------------------------------------------------ */
typedef struct {
  int64_t n;
  int64_t *Lp, *Up, *rperm, *cperm;
  int32_t *Li, *Ui;
  double *Lx, *Ux, *Ud, *dr, *dc;
  int64_t lcap, ucap;
} lu_f;

static void luf_free(lu_f *f) {
  free(f->Lp);
  free(f->Up);
  free(f->rperm);
  free(f->cperm);
  free(f->Li);
  free(f->Ui);
  free(f->Lx);
  free(f->Ux);
  free(f->Ud);
  free(f->dr);
  free(f->dc);
  memset(f, 0, sizeof *f);
}

static int grow(int32_t **i, double **x, int64_t *cap, int64_t need) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap : 1024;
  while (c < need) c *= 2;
  int32_t *ni = realloc(*i, (size_t)c * sizeof *ni);
  if (!ni) return -1;
  *i = ni;
  double *nx = realloc(*x, (size_t)c * sizeof *nx);
  if (!nx) return -1;
  *x = nx;
  *cap = c;
  return 0;
}

/* depth-first search from node j over L's columns (< jlim): the nodes
 * reached, in reverse postorder, end at xi[top..) (CSparse's cs_dfs) */
static int64_t dfs(int64_t j, const lu_f *f, int64_t jlim, int64_t top, int64_t *xi,
                   int64_t *ps, int64_t *mark, int64_t col) {
  int64_t head = 0;
  xi[0] = j;
  while (head >= 0) {
    j = xi[head];
    int64_t end = j < jlim ? f->Lp[j + 1] : 0;
    if (mark[j] != col) {
      mark[j] = col;
      ps[head] = j < jlim ? f->Lp[j] : 0;
    }
    int done = 1;
    for (int64_t p = ps[head]; p < end; p++) {
      int64_t i = f->Li[p];
      if (mark[i] == col) continue;
      ps[head] = p + 1;
      xi[++head] = i;
      done = 0;
      break;
    }
    if (done) {
      head--;
      xi[--top] = j;
    }
  }
  return top;
}

typedef struct {
  int64_t nstatic, srow, scol;
  double tau;
  int amd; /* 1: AMD's order, 0: RCM's (no libamd) */
} lu_stats;

/* factor C (CSC, permuted and scaled) into f's L, U */
static int numeric(lu_f *f, const int64_t *cp, const int32_t *ci, const double *cx,
                   double tau, double zero, lu_stats *st, char *err, size_t errlen) {
  int64_t n = f->n;
  int rc = -1;
  double *x = calloc((size_t)n + 1, sizeof *x);
  int64_t *xi = malloc(((size_t)n + 1) * sizeof *xi), *ps = malloc(((size_t)n + 1) * sizeof *ps);
  int64_t *mark = malloc(((size_t)n + 1) * sizeof *mark);
  if (!x || !xi || !ps || !mark) goto oom;
  for (int64_t i = 0; i < n; i++) mark[i] = -1;
  f->Lp[0] = f->Up[0] = 0;
  st->nstatic = 0;
  st->srow = st->scol = -1;
  for (int64_t j = 0; j < n; j++) {
    int64_t top = n;
    for (int64_t p = cp[j]; p < cp[j + 1]; p++)
      if (mark[ci[p]] != j) top = dfs(ci[p], f, j, top, xi, ps, mark, j);
    for (int64_t p = cp[j]; p < cp[j + 1]; p++) x[ci[p]] = cx[p];
    int64_t nu = f->Up[j], nl = f->Lp[j];
    if (grow(&f->Ui, &f->Ux, &f->ucap, nu + (n - top)) < 0 ||
        grow(&f->Li, &f->Lx, &f->lcap, nl + (n - top)) < 0)
      goto oom;
    for (int64_t px = top; px < n; px++) {
      int64_t k = xi[px];
      if (k >= j) continue;
      double xk = x[k];
      f->Ui[nu] = (int32_t)k;
      f->Ux[nu++] = xk;
      for (int64_t p = f->Lp[k]; p < f->Lp[k + 1]; p++) x[f->Li[p]] -= f->Lx[p] * xk;
    }
    double piv = x[j];
    if (!isfinite(piv)) {
      sk_err(err, errlen, SK_E_LU_PIVOT_NONFINITE, (long long)f->rperm[j],
             (long long)f->cperm[j], piv);
      goto out;
    }
    if (fabs(piv) <= zero) {
      sk_err(err, errlen, SK_E_LU_ZERO_PIVOT, (long long)f->rperm[j], (long long)f->cperm[j],
             piv, zero);
      goto out;
    }
    if (fabs(piv) < tau) {
      if (st->nstatic++ == 0) {
        st->srow = f->rperm[j];
        st->scol = f->cperm[j];
      }
      piv = piv < 0 ? -tau : tau;
    }
    f->Ud[j] = piv;
    for (int64_t px = top; px < n; px++) {
      int64_t k = xi[px];
      if (k > j && x[k] != 0) {
        f->Li[nl] = (int32_t)k;
        f->Lx[nl++] = x[k] / piv;
      }
      x[k] = 0;
    }
    x[j] = 0;
    f->Up[j + 1] = nu;
    f->Lp[j + 1] = nl;
  }
  rc = 0;
  goto out;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
out:
  free(x);
  free(xi);
  free(ps);
  free(mark);
  return rc;
}

/* Reverse Cuthill-McKee on the pattern of B + B^T (B by columns: ap, ai),
 * the order when SuiteSparse's AMD cannot be loaded: each component from a
 * pseudo-peripheral vertex (two breadth-first sweeps from one of least
 * degree), neighbours by increasing degree, the whole order reversed.
 * perm[k] = the vertex eliminated k-th. 0, or -1 out of memory. */
static int rcm_order(int64_t n, const int *ap, const int *ai, int *perm) {
  int64_t nnz = ap[n];
  int64_t *xp = calloc((size_t)n + 1, sizeof *xp);
  int *adj = malloc(((size_t)2 * nnz + 1) * sizeof *adj), *deg = calloc((size_t)n + 1, sizeof *deg);
  int *lev = malloc(((size_t)n + 1) * sizeof *lev), *q = malloc(((size_t)n + 1) * sizeof *q);
  int rc = -1;
  if (!xp || !adj || !deg || !lev || !q) goto out;
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = ap[j]; p < ap[j + 1]; p++)
      if (ai[p] != j) deg[ai[p]]++, deg[j]++;
  for (int64_t i = 0; i < n; i++) xp[i + 1] = xp[i] + deg[i];
  for (int64_t i = 0; i < n; i++) deg[i] = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = ap[j]; p < ap[j + 1]; p++) {
      int i = ai[p];
      if (i == j) continue;
      adj[xp[i] + deg[i]++] = (int)j;
      adj[xp[j] + deg[j]++] = i;
    }
  for (int64_t i = 0; i < n; i++) lev[i] = -1;
  int64_t head = 0;
  for (;;) {
    /* an unvisited vertex of least degree */
    int s = -1;
    for (int64_t i = 0; i < n; i++)
      if (lev[i] < 0 && (s < 0 || deg[i] < deg[s])) s = (int)i;
    if (s < 0) break;
    /* two sweeps toward a pseudo-peripheral vertex (levels marked -2) */
    for (int sweep = 0; sweep < 2; sweep++) {
      int64_t qh = 0, qt = 0;
      q[qt++] = s;
      lev[s] = -2;
      int last = s;
      while (qh < qt) {
        int v = q[qh++];
        last = v;
        for (int64_t p = xp[v]; p < xp[v + 1]; p++)
          if (lev[adj[p]] == -1) lev[adj[p]] = -2, q[qt++] = adj[p];
      }
      for (int64_t t = 0; t < qt; t++) lev[q[t]] = -1;
      s = last;
    }
    /* Cuthill-McKee from s into perm[head..] */
    int64_t qh = head, qt = head;
    perm[qt++] = s;
    lev[s] = 0;
    while (qh < qt) {
      int v = perm[qh++];
      int64_t first = qt;
      for (int64_t p = xp[v]; p < xp[v + 1]; p++)
        if (lev[adj[p]] < 0) lev[adj[p]] = 0, perm[qt++] = adj[p];
      /* insertion sort of the new ones by degree */
      for (int64_t a = first + 1; a < qt; a++) {
        int x = perm[a];
        int64_t b = a;
        while (b > first && deg[perm[b - 1]] > deg[x]) perm[b] = perm[b - 1], b--;
        perm[b] = x;
      }
    }
    head = qt;
  }
  for (int64_t a = 0, b = n - 1; a < b; a++, b--) {
    int t = perm[a];
    perm[a] = perm[b];
    perm[b] = t;
  }
  rc = 0;
out:
  free(xp);
  free(adj);
  free(deg);
  free(lev);
  free(q);
  return rc;
}

/* steps 1 and 2 on the host matrix m ('order' 0: AMD where libamd loads,
 * else RCM; 1: AMD; 2: RCM): P's arrays allocated and set */
static int prepare(const hmat *m, int order, sk_lu_prep *P, char *err, size_t errlen) {
  int64_t n = m->n, nnz = m->nnz;
  int rc = -1;
  memset(P, 0, sizeof *P);
  P->n = n;
  int64_t *cp = calloc((size_t)n + 2, sizeof *cp);
  int32_t *ci = malloc(((size_t)nnz + 1) * sizeof *ci), *cm = NULL;
  double *cx = malloc(((size_t)nnz + 1) * sizeof *cx);
  int *ap = NULL, *ai = NULL, *perm = NULL;
  int64_t *rinv = NULL;
  P->cp = cp;
  P->ci = ci;
  P->cx = cx;
  P->rperm = malloc(((size_t)n + 1) * sizeof *P->rperm);
  P->cperm = malloc(((size_t)n + 1) * sizeof *P->cperm);
  P->dr = malloc(((size_t)n + 1) * sizeof *P->dr);
  P->dc = malloc(((size_t)n + 1) * sizeof *P->dc);
  if (!cp || !ci || !cx || !P->rperm || !P->cperm || !P->dr || !P->dc) goto oom;
  /* A by columns */
  for (int64_t p = 0; p < nnz; p++) cp[m->colidx[p] + 1]++;
  for (int64_t j = 0; j < n; j++) cp[j + 1] += cp[j];
  for (int64_t r = 0; r < n; r++)
    for (int64_t p = m->rowptr[r]; p < m->rowptr[r + 1]; p++) {
      int64_t q = cp[m->colidx[p]]++;
      ci[q] = (int32_t)r;
      cx[q] = m->val[p];
    }
  for (int64_t j = n; j > 0; j--) cp[j] = cp[j - 1];
  cp[0] = 0;
  /* duplicates (a CrsMatrix may hold them) are adjacent in a column: sum */
  int64_t q = 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t b = cp[j], e = cp[j + 1];
    cp[j] = q;
    for (int64_t p = b; p < e; p++) {
      if (q > cp[j] && ci[q - 1] == ci[p]) {
        cx[q - 1] += cx[p];
      } else {
        ci[q] = ci[p];
        cx[q++] = cx[p];
      }
    }
  }
  cp[n] = q;
  nnz = q;
  P->nnz = nnz;
  /* 1. matching and scaling */
  if (!(cm = malloc(((size_t)n + 1) * sizeof *cm))) goto oom;
  int64_t brow, bcol;
  int mr = sk_lu_match(n, cp, ci, cx, cm, P->dr, P->dc, &brow, &bcol);
  if (mr < 0) goto oom;
  if (mr > 0) {
    sk_err(err, errlen, SK_E_LU_STRUCT_SINGULAR, (long long)brow, (long long)bcol);
    goto out;
  }
  /* 2. AMD on the matched pattern (row cm[j] moved to position j) */
  rinv = malloc(((size_t)n + 1) * sizeof *rinv);
  ap = malloc(((size_t)n + 1) * sizeof *ap);
  ai = malloc(((size_t)nnz + 1) * sizeof *ai);
  perm = malloc(((size_t)n + 1) * sizeof *perm);
  if (!rinv || !ap || !ai || !perm) goto oom;
  for (int64_t j = 0; j < n; j++) rinv[cm[j]] = j;
  for (int64_t j = 0; j <= n; j++) ap[j] = (int)cp[j];
  for (int64_t p = 0; p < nnz; p++) ai[p] = (int)rinv[ci[p]];
  char why[512];
  P->amd = order != 2 && sk_cb_available(why, sizeof why) == 0;
  if (order == 1 && !P->amd) {
    sk_err(err, errlen, SK_E_MSG, why);
    goto out;
  }
  if (n > 0 && P->amd && sk_cb_amd((int)n, ap, ai, perm) < 0) {
    sk_err(err, errlen, SK_E_AMD_ORDERING_FAILED);
    goto out;
  }
  if (n > 0 && !P->amd && rcm_order(n, ap, ai, perm) < 0) goto oom;
  for (int64_t k = 0; k < n; k++) {
    P->cperm[k] = perm[k];
    P->rperm[k] = cm[perm[k]];
  }
  P->cmax = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = cp[j]; p < cp[j + 1]; p++) {
      double v = fabs(P->dr[ci[p]] * cx[p] * P->dc[j]);
      if (v > P->cmax) P->cmax = v;
    }
  rc = 0;
  goto out;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
out:
  free(cm);
  free(rinv);
  free(ap);
  free(ai);
  free(perm);
  if (rc < 0) sk_lu_prep_free(P);
  return rc;
}

void sk_lu_prep_free(sk_lu_prep *P) {
  free(P->cp);
  free(P->ci);
  free(P->cx);
  free(P->rperm);
  free(P->cperm);
  free(P->dr);
  free(P->dc);
  memset(P, 0, sizeof *P);
}

int sk_lu_order_arg(const sk_arg *args, int nargs, int *order, char *err, size_t errlen) {
  const char *os = sk_karg_str(args, nargs, "ordering", "auto", err, errlen);
  if (!os) return -1;
  *order = strcmp(os, "auto") == 0 ? 0 : strcmp(os, "amd") == 0 ? 1
         : strcmp(os, "rcm") == 0  ? 2 : -1;
  if (*order < 0) {
    sk_err(err, errlen, SK_E_LU_ORDERING, os);
    return -1;
  }
  return 0;
}

int sk_lu_analyse(const sk_arg *args, int nargs, int order, sk_csr *A, sk_lu_prep *P,
                  char *err, size_t errlen) {
  hmat m;
  if (host_matrix(args, nargs, A, &m, err, errlen) < 0) return -1;
  int rc = prepare(&m, order, P, err, errlen);
  hmat_free(&m);
  return rc;
}

/* the whole factorization of the host matrix m (see prepare for 'order') */
static int factor(const hmat *m, double pivtol, int order, lu_f *f, lu_stats *st, char *err,
                  size_t errlen) {
  int64_t n = m->n;
  int rc = -1;
  memset(f, 0, sizeof *f);
  f->n = n;
  sk_lu_prep P;
  if (prepare(m, order, &P, err, errlen) < 0) return -1;
  st->amd = P.amd;
  int64_t nnz = P.nnz, *cp = P.cp, *cp2 = NULL, *rinv = NULL;
  const int32_t *ci = P.ci;
  const double *cx = P.cx;
  int32_t *ci2 = NULL;
  double *cx2 = NULL;
  f->rperm = P.rperm;
  f->cperm = P.cperm;
  f->dr = P.dr;
  f->dc = P.dc;
  P.rperm = P.cperm = NULL;
  P.dr = P.dc = NULL;
  f->Lp = malloc(((size_t)n + 1) * sizeof *f->Lp);
  f->Up = malloc(((size_t)n + 1) * sizeof *f->Up);
  f->Ud = malloc(((size_t)n + 1) * sizeof *f->Ud);
  rinv = malloc(((size_t)n + 1) * sizeof *rinv);
  if (!f->Lp || !f->Up || !f->Ud || !rinv) goto oom;
  /* 3. C = scaled A(rperm, cperm) by columns */
  for (int64_t k = 0; k < n; k++) rinv[f->rperm[k]] = k;
  cp2 = malloc(((size_t)n + 1) * sizeof *cp2);
  ci2 = malloc(((size_t)nnz + 1) * sizeof *ci2);
  cx2 = malloc(((size_t)nnz + 1) * sizeof *cx2);
  if (!cp2 || !ci2 || !cx2) goto oom;
  double cmax = 0;
  cp2[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t j = f->cperm[k], q = cp2[k];
    for (int64_t p = cp[j]; p < cp[j + 1]; p++) {
      if (cx[p] == 0) continue;
      ci2[q] = (int32_t)rinv[ci[p]];
      cx2[q] = f->dr[ci[p]] * cx[p] * f->dc[j];
      if (fabs(cx2[q]) > cmax) cmax = fabs(cx2[q]);
      q++;
    }
    cp2[k + 1] = q;
  }
  st->tau = pivtol * cmax;
  /* a pivot at or below n eps max|c_ij| is zero to working precision:
   * A is numerically singular, which no static pivot repairs */
  if (numeric(f, cp2, ci2, cx2, st->tau, (double)n * DBL_EPSILON * cmax, st, err, errlen) < 0)
    goto out;
  rc = 0;
  goto out;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
out:
  sk_lu_prep_free(&P);
  free(cp2);
  free(ci2);
  free(cx2);
  free(rinv);
  if (rc < 0) luf_free(f);
  return rc;
}

/* solve.lu */
static int lu(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "pivtol", "ordering", NULL};
  sk_csr A;
  hmat m;
  double pivtol = sqrt(DBL_EPSILON);
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "pivtol") &&
       sk_karg_f64(args, nargs, "pivtol", &pivtol, err, errlen) < 0))
    return -1;
  if (!(pivtol >= 0) || !(pivtol < 1)) {
    sk_err(err, errlen, SK_E_LU_PIVTOL, pivtol);
    return -1;
  }
  int order;
  if (sk_lu_order_arg(args, nargs, &order, err, errlen) < 0) return -1;
  if (host_matrix(args, nargs, &A, &m, err, errlen) < 0) return -1;
  lu_f f;
  lu_stats st = {0, -1, -1, 0, 0};
  int rc = factor(&m, pivtol, order, &f, &st, err, errlen);
  hmat_free(&m);
  if (rc < 0) return -1;
  int64_t n = f.n, ln = f.Lp[n], un = f.Up[n];
  rc = -1;
  sk_view ip, ii, fx, fi;
  memset(&ii, 0, sizeof ii);
  memset(&fx, 0, sizeof fx);
  memset(&fi, 0, sizeof fi);
  if (sk_sp_view(&ip, "F_ip", SK_I64, 4 * n + 2, SK_SPACE_HOST, 0, err, errlen) < 0)
    goto done;
  if (sk_sp_view(&ii, "F_ii", SK_I32, ln + un, SK_SPACE_HOST, 0, err, errlen) < 0 ||
      sk_sp_view(&fx, "F_x", SK_F64, ln + un + 3 * n, SK_SPACE_HOST, 0, err, errlen) < 0 ||
      sk_sp_view(&fi, "F_info", SK_F64, 7, SK_SPACE_HOST, 0, err, errlen) < 0) {
    sk_view_release(&ip);
    sk_view_release(&ii);
    sk_view_release(&fx);
    goto done;
  }
  int64_t *pi = ip.data;
  memcpy(pi, f.Lp, (size_t)(n + 1) * sizeof *pi);
  memcpy(pi + n + 1, f.Up, (size_t)(n + 1) * sizeof *pi);
  memcpy(pi + 2 * n + 2, f.rperm, (size_t)n * sizeof *pi);
  memcpy(pi + 3 * n + 2, f.cperm, (size_t)n * sizeof *pi);
  int32_t *pii = ii.data;
  if (ln) memcpy(pii, f.Li, (size_t)ln * sizeof *pii);
  if (un) memcpy(pii + ln, f.Ui, (size_t)un * sizeof *pii);
  double *px = fx.data;
  if (ln) memcpy(px, f.Lx, (size_t)ln * sizeof *px);
  if (un) memcpy(px + ln, f.Ux, (size_t)un * sizeof *px);
  memcpy(px + ln + un, f.Ud, (size_t)n * sizeof *px);
  memcpy(px + ln + un + n, f.dr, (size_t)n * sizeof *px);
  memcpy(px + ln + un + 2 * n, f.dc, (size_t)n * sizeof *px);
  double *pf = fi.data;
  pf[0] = (double)st.nstatic;
  pf[1] = (double)st.srow;
  pf[2] = (double)st.scol;
  pf[3] = st.tau;
  pf[4] = (double)ln;
  pf[5] = (double)un;
  pf[6] = st.amd;
  if (sk_kout_view(out, "F_ip", &ip, err, errlen) < 0 ||
      sk_kout_view(out, "F_ii", &ii, err, errlen) < 0 ||
      sk_kout_view(out, "F_x", &fx, err, errlen) < 0 ||
      sk_kout_view(out, "F_info", &fi, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  luf_free(&f);
  return rc;
}

/* -- solves --------------------------------------------------------------------- */
typedef struct {
  int64_t n;
  const int64_t *Lp, *Up, *rperm, *cperm;
  const int32_t *Li, *Ui;
  const double *Lx, *Ux, *Ud, *dr, *dc;
  double *w;
} lu_v;

/* x = A^-1 b through the factors (b and x of n, may not alias) */
static void lu_apply(const lu_v *F, const double *b, double *x) {
  int64_t n = F->n;
  double *w = F->w;
  for (int64_t i = 0; i < n; i++) w[i] = F->dr[F->rperm[i]] * b[F->rperm[i]];
  for (int64_t j = 0; j < n; j++) {
    double wj = w[j];
    if (wj != 0)
      for (int64_t p = F->Lp[j]; p < F->Lp[j + 1]; p++) w[F->Li[p]] -= F->Lx[p] * wj;
  }
  for (int64_t j = n - 1; j >= 0; j--) {
    double wj = w[j] /= F->Ud[j];
    if (wj != 0)
      for (int64_t p = F->Up[j]; p < F->Up[j + 1]; p++) w[F->Ui[p]] -= F->Ux[p] * wj;
  }
  for (int64_t j = 0; j < n; j++) x[F->cperm[j]] = F->dc[F->cperm[j]] * w[j];
}

static const char *const FNAMES[] = {"F_ip", "F_ii", "F_x", "F_info"};
static const int FDT[] = {SK_I64, SK_I32, SK_F64, SK_F64};

/* the factor's views (host, contiguous, shapes consistent with n) */
static int factor_arg(const sk_arg *args, int nargs, int64_t n, lu_v *F, int64_t *st,
                      char *err, size_t errlen) {
  const sk_view *v[4];
  for (int k = 0; k < 4; k++) {
    if (!(v[k] = sk_karg_view(args, nargs, FNAMES[k], 1, err, errlen))) return -1;
    if (v[k]->dtype != FDT[k] || v[k]->space != SK_SPACE_HOST || v[k]->stride[0] != 1) {
      sk_err(err, errlen, SK_E_LU_FACTOR_ARG, FNAMES[k], v[k]->label);
      return -1;
    }
  }
  const double *fi = v[3]->data;
  int64_t ln = v[3]->extent[0] == 7 ? (int64_t)fi[4] : -1;
  int64_t un = ln >= 0 ? (int64_t)fi[5] : -1;
  int64_t ext[4] = {4 * n + 2, ln + un, ln + un + 3 * n, 7};
  for (int k = 0; k < 4; k++)
    if (ln < 0 || un < 0 || v[k]->extent[0] != ext[k]) {
      sk_err(err, errlen, SK_E_LU_FACTOR_ARG, FNAMES[k], v[k]->label);
      return -1;
    }
  const int64_t *ip = v[0]->data;
  const int32_t *ii = v[1]->data;
  const double *x = v[2]->data;
  F->n = n;
  F->Lp = ip;
  F->Up = ip + n + 1;
  F->rperm = ip + 2 * n + 2;
  F->cperm = ip + 3 * n + 2;
  F->Li = ii;
  F->Ui = ii + ln;
  F->Lx = x;
  F->Ux = x + ln;
  F->Ud = x + ln + un;
  F->dr = x + ln + un + n;
  F->dc = x + ln + un + 2 * n;
  if (F->Lp[n] != ln || F->Up[n] != un) {
    sk_err(err, errlen, SK_E_LU_FACTOR_ARG, "F_ip", v[0]->label);
    return -1;
  }
  st[0] = (int64_t)fi[0];
  st[1] = (int64_t)fi[1];
  st[2] = (int64_t)fi[2];
  return 0;
}

/* ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf); r = b - A x */
static double backward_error(const hmat *m, double anorm, const double *b, const double *x,
                             double *r, int64_t *worst) {
  double rn = 0, xn = 0, bn = 0;
  *worst = 0;
  for (int64_t i = 0; i < m->n; i++) {
    long double s = b[i];
    for (int64_t p = m->rowptr[i]; p < m->rowptr[i + 1]; p++)
      s -= (long double)m->val[p] * x[m->colidx[p]];
    r[i] = (double)s;
    if (!(fabs(r[i]) <= rn)) {
      rn = fabs(r[i]);
      *worst = i;
    }
    if (fabs(x[i]) > xn || !isfinite(x[i])) xn = fabs(x[i]);
    if (fabs(b[i]) > bn) bn = fabs(b[i]);
  }
  double d = anorm * xn + bn;
  if (!isfinite(rn) || !isfinite(xn)) return INFINITY;
  return d > 0 ? rn / d : 0;
}

int sk_lu_refine_args(const sk_arg *args, int nargs, int64_t *refine, double *tol, char *err,
                      size_t errlen) {
  *refine = 10;
  *tol = 1e-10;
  if (sk_karg_i64(args, nargs, "refine", 1, 10, refine, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "tol") && sk_karg_f64(args, nargs, "tol", tol, err, errlen) < 0))
    return -1;
  if (*refine < 0) return sk_err(err, errlen, SK_E_LU_REFINE_STEPS, (long long)*refine);
  if (!(*tol >= 0)) return sk_err(err, errlen, SK_E_SOLVE_TOL, *tol);
  return 0;
}

int sk_lu_refine_failed(double berr, double tol, int64_t steps, int64_t wbest,
                        const int64_t st[3], char *err, size_t errlen) {
  if (st[0] > 0)
    return sk_err(err, errlen, SK_E_LU_STATIC_FAILED, berr, tol, (long long)steps,
                  (long long)wbest, (long long)st[0], (long long)st[1], (long long)st[2]);
  return sk_err(err, errlen, SK_E_LU_REFINE_FAILED, berr, tol, (long long)steps,
                (long long)wbest);
}

/* solve.lu_solve */
static int lu_solve(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "F_ip",     "F_ii",     "F_x",      "F_info",
                                      "b",        "refine",   "tol",      NULL};
  sk_csr A;
  hmat m;
  int64_t refine, st[3];
  double tol;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_lu_refine_args(args, nargs, &refine, &tol, err, errlen) < 0)
    return -1;
  const sk_view *b = sk_karg_view(args, nargs, "b", 1, err, errlen);
  if (!b) return -1;
  if (host_matrix(args, nargs, &A, &m, err, errlen) < 0) return -1;
  int64_t n = m.n;
  int rc = -1;
  sk_view hb, hx, x;
  memset(&hb, 0, sizeof hb);
  memset(&hx, 0, sizeof hx);
  memset(&x, 0, sizeof x);
  double *bb = NULL, *xx = NULL, *r = NULL, *d = NULL, *best = NULL;
  lu_v F;
  F.w = NULL;
  if (b->extent[0] != n) {
    sk_err(err, errlen, SK_E_SOLVE_VEC_ROWS, (long long)n, "b", b->label,
           (long long)b->extent[0]);
    goto done;
  }
  if (b->space != A.values->space) {
    sk_err(err, errlen, SK_E_SOLVE_VEC_SPACE, sk_space_name(A.values->space), "b",
           b->label, sk_space_name(b->space));
    goto done;
  }
  if (!sk_sp_is_float(b->dtype)) {
    sk_err(err, errlen, SK_E_SOLVE_ARG_DTYPE, "b", b->label, "float64 or float32",
           sk_dtypes[b->dtype].name);
    goto done;
  }
  if (factor_arg(args, nargs, n, &F, st, err, errlen) < 0) goto done;
  if (sk_sp_host_copy(b, &hb, err, errlen) < 0) goto done;
  bb = malloc(((size_t)n + 1) * sizeof *bb);
  xx = malloc(((size_t)n + 1) * sizeof *xx);
  r = malloc(((size_t)n + 1) * sizeof *r);
  d = malloc(((size_t)n + 1) * sizeof *d);
  best = malloc(((size_t)n + 1) * sizeof *best);
  F.w = malloc(((size_t)n + 1) * sizeof *F.w);
  if (!bb || !xx || !r || !d || !best || !F.w) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
    goto done;
  }
  double anorm = 0;
  for (int64_t i = 0; i < n; i++) {
    double s = 0;
    for (int64_t p = m.rowptr[i]; p < m.rowptr[i + 1]; p++) s += fabs(m.val[p]);
    if (s > anorm) anorm = s;
    bb[i] = vget(&hb, i);
  }
  lu_apply(&F, bb, xx);
  double berr = INFINITY, last = INFINITY;
  int64_t steps = 0, wbest = 0;
  for (int64_t it = 0;; it++) {
    int64_t w;
    double e = backward_error(&m, anorm, bb, xx, r, &w);
    if (e < berr) {
      berr = e;
      wbest = w;
      memcpy(best, xx, (size_t)n * sizeof *xx);
      steps = it;
    }
    if (!(e > 2 * DBL_EPSILON) || it >= refine || !(e < 0.5 * last)) break;
    last = e;
    lu_apply(&F, r, d);
    for (int64_t i = 0; i < n; i++) xx[i] += d[i];
  }
  /* with replaced pivots, x must also be determined: one more correction
   * moves it little (a singular A's huge x keeps moving along the null
   * space, however small its backward error looks) */
  double moved = 0;
  if (st[0] > 0 && berr <= tol) {
    int64_t w;
    backward_error(&m, anorm, bb, best, r, &w);
    lu_apply(&F, r, d);
    double dn = 0, xn = 0;
    for (int64_t i = 0; i < n; i++) {
      if (!(fabs(d[i]) <= dn)) dn = fabs(d[i]);
      if (fabs(best[i]) > xn) xn = fabs(best[i]);
    }
    moved = xn > 0 ? dn / xn : (dn > 0 ? INFINITY : 0);
    if (!(moved <= 1e-6)) {
      sk_err(err, errlen, SK_E_LU_STATIC_MOVES, moved, berr, (long long)st[0],
             (long long)st[1], (long long)st[2]);
      goto done;
    }
  }
  if (!(berr <= tol)) {
    sk_lu_refine_failed(berr, tol, steps, wbest, st, err, errlen);
    goto done;
  }
  if (sk_sp_view(&hx, "x", A.values->dtype, n, SK_SPACE_HOST, 0, err, errlen) < 0) goto done;
  for (int64_t i = 0; i < n; i++) vset(&hx, i, best[i]);
  if (b->space == SK_SPACE_HOST) {
    x = hx;
    memset(&hx, 0, sizeof hx);
  } else if (sk_sp_view(&x, "x", A.values->dtype, n, b->space, 0, err, errlen) < 0 ||
             sk_view_deep_copy(&x, &hx, err, errlen) < 0) {
    goto done;
  }
  if (sk_kout_view(out, "x", &x, err, errlen) < 0 ||
      sk_kout_num(out, "berr", berr, err, errlen) < 0 ||
      sk_kout_num(out, "steps", (double)steps, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  if (rc < 0 && x.alloc) sk_view_release(&x);
  sk_view_release(&hx);
  sk_view_release(&hb);
  hmat_free(&m);
  free(bb);
  free(xx);
  free(r);
  free(d);
  free(best);
  free(F.w);
  return rc;
}

static const sk_kentry e_lu = {"solve.lu", "A_* [, pivtol, ordering]", SK_KRES_NONE, lu};
static const sk_kentry e_lu_solve = {"solve.lu_solve", "A_*, F_*, b [, refine, tol]",
                                     SK_KRES_NONE, lu_solve};
const sk_kentry *const sk_lu_entries[] = {&e_lu, &e_lu_solve, NULL};
const sk_kbody *const sk_lu_bodies[] = {NULL};
