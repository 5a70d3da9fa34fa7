/* chol.c: sparse Cholesky by supernodes on the task scheduler (seed 003
 * ch. 5, Tacho's supernodes; the numeric phase left-looking as CHOLMOD's).
 *
 * Symbolic: AMD ordering (SuiteSparse, chol_blocks.c), the elimination
 * tree (Liu's algorithm with path compression), its postorder folded into
 * the ordering, column counts by row subtrees, supernodes (columns j, j+1
 * with parent(j) = j + 1 and the same structure, relaxed up to RELAX
 * columns), each supernode's row structure (its columns, then the rows
 * below from the matrix and from its children).
 *
 * Numeric: one task per supernode in a DAG that is the supernodal tree: a
 * task spawns its children and respawns on when_all of them; then it
 * assembles its panel in place in the factor, left-looking (the matrix's
 * columns, then the updates of the descendants whose rows meet its
 * columns: syrk and gemm, scattered), factors the diagonal block (potrf)
 * and solves the block below (trsm). The dense block operations are
 * chol_blocks.c's. The task body is dialect code that calls this file's C
 * through a function pointer field (library text, never a user's).
 *
 * Solve: forward and backward substitution by supernodes (trsv, gemv).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "core/err.h"
#include "chol.h"
#include "chol_int.h"
#include "task.h"
#include "kbodies.h"

#define RELAX 8 /* supernodes may take columns with other structures up to this size */
/* Work blocks (the products of an update, the row map) come from a cache
 * of blocks by power-of-two size class (2^UB_MIN_LOG doubles and up) that
 * keeps every block for the whole factorisation: a block malloc'd and
 * freed per supernode would be a fresh mapping each time (page faults, the
 * kernel's zeroing) and an munmap whose TLB shootdown interrupts the other
 * threads. */
#define UB_MIN_LOG 9
/* Blocks of at least HUGE_MIN bytes (the factor, large work blocks) are
 * 2 MiB-aligned and offered transparent huge pages: their first touch then
 * takes 512 times fewer page faults, which on a virtual machine cost a
 * trip to the host each (the 27-point 40^3 factor is 457 MB: its numeric
 * phase was 2x faster with them there). */
#define HUGE_MIN ((size_t)4 << 20)


static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 'bytes' of memory, huge pages offered when large; free() releases it */
static void *big_alloc(size_t bytes) {
  if (bytes < HUGE_MIN) return malloc(bytes);
  size_t r = (bytes + HUGE_MIN - 1) & ~(HUGE_MIN - 1);
  void *p = NULL;
  if (r < bytes || posix_memalign(&p, (size_t)2 << 20, r) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  (void)madvise(p, r, MADV_HUGEPAGE); /* a refusal changes nothing */
#endif
  return p;
}

static int ub_class(size_t n) {
  int e = UB_MIN_LOG;
  while (((size_t)1 << e) < n) e++;
  return e;
}

/* A block: a header of UB_HEAD doubles (its class, the free list's
 * link), then the caller's part. */
#define UB_HEAD 8
typedef struct ub_head {
  int64_t cls;
  void *next;
} ub_head;

/* a block of at least n doubles (its contents undefined), NULL: no memory */
static double *ub_get(sk_chol *c, size_t n) {
  int e = ub_class(n);
  if (e - UB_MIN_LOG >= UB_CLASSES) return NULL;
  ub_head *h = NULL;
  pthread_mutex_lock(&c->ub_mu);
  /* a kept block of this class, else of the next two (their pages were
   * touched already, where a new block's would each be a fault) */
  for (int x = e; !h && x < UB_MIN_LOG + UB_CLASSES && x <= e + 2; x++)
    if ((h = c->ub_free[x - UB_MIN_LOG])) c->ub_free[x - UB_MIN_LOG] = h->next;
  pthread_mutex_unlock(&c->ub_mu);
  if (!h) {
    h = big_alloc((((size_t)1 << e) + UB_HEAD) * sizeof(double));
    if (!h) return NULL;
    h->cls = e;
  }
  return (double *)(void *)h + UB_HEAD;
}

/* block p (from ub_get) is done with: kept for the next one */
static void ub_put(sk_chol *c, double *p) {
  if (!p) return;
  ub_head *h = (ub_head *)(void *)(p - UB_HEAD);
  pthread_mutex_lock(&c->ub_mu);
  h->next = c->ub_free[h->cls - UB_MIN_LOG];
  c->ub_free[h->cls - UB_MIN_LOG] = h;
  pthread_mutex_unlock(&c->ub_mu);
}

static void ub_drop_all(sk_chol *c) {
  for (int k = 0; k < UB_CLASSES; k++)
    while (c->ub_free[k]) {
      ub_head *h = c->ub_free[k];
      c->ub_free[k] = h->next;
      free(h);
    }
}

void sk_chol_free(sk_chol *c) {
  if (!c) return;
  sk_chol_ls_free(c->dev);
  ub_drop_all(c);
  free(c->perm);
  free(c->first);
  free(c->rp);
  free(c->rows);
  free(c->lp);
  free(c->lx);
  free(c->parent);
  free(c->kp);
  free(c->kids);
  free(c->trunk);
  free(c->up);
  free(c->ud);
  free(c->cp);
  free(c->ci);
  free(c->cx);
  free(c);
}

void sk_chol_info_get(const sk_chol *c, sk_chol_info *i) { *i = c->info; }

int64_t sk_chol_lower_nnz(const sk_chol *c) {
  int64_t nnz = 0;
  for (int s = 0; s < c->nsn; s++) {
    int64_t k = c->first[s + 1] - c->first[s], m = c->rp[s + 1] - c->rp[s];
    nnz += m * k - k * (k - 1) / 2;
  }
  return nnz;
}

int sk_chol_lower(sk_chol *c, int64_t *rowptr, int32_t *colidx, double *val,
                  int64_t *perm, char *err, size_t errlen) {
  if (c->dev && sk_chol_ls_fetch(c, err, errlen) < 0) return -1;
  int n = c->n;
  for (int i = 0; i <= n; i++) rowptr[i] = 0;
  for (int s = 0; s < c->nsn; s++) {
    int f = c->first[s], k = c->first[s + 1] - f, m = (int)(c->rp[s + 1] - c->rp[s]);
    const int *R = c->rows + c->rp[s];
    for (int j = 0; j < k; j++)
      for (int i = j; i < m; i++) rowptr[R[i] + 1]++;
  }
  for (int i = 0; i < n; i++) rowptr[i + 1] += rowptr[i];
  /* columns ascend with the supernodes and their columns: rows come sorted */
  for (int s = 0; s < c->nsn; s++) {
    int f = c->first[s], k = c->first[s + 1] - f, m = (int)(c->rp[s + 1] - c->rp[s]);
    const int *R = c->rows + c->rp[s];
    const double *L = c->lx + c->lp[s];
    for (int j = 0; j < k; j++)
      for (int i = j; i < m; i++) {
        int64_t q = rowptr[R[i]]++;
        colidx[q] = f + j;
        val[q] = L[(size_t)j * (size_t)m + (size_t)i];
      }
  }
  for (int i = n; i > 0; i--) rowptr[i] = rowptr[i - 1];
  rowptr[0] = 0;
  for (int k = 0; k < n; k++) perm[k] = c->perm[k];
  return 0;
}

/* The rows of the lower triangle of the matrix's lower entries under the
 * permutation whose inverse is 'pinv', as CSR (rowp, rowc: row r's columns
 * <= r), for the elimination tree. 0 or -1 (no memory). */
static int permute_rows(int n, const int64_t *rowptr, const int32_t *colidx,
                        const int *pinv, int64_t **rowp_out, int **rowc_out) {
  int64_t *rcnt = calloc((size_t)n + 1, sizeof *rcnt);
  if (!rcnt) return -1;
  for (int i = 0; i < n; i++)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      int j = colidx[p];
      if (j > i) continue;
      int a = pinv[i], b = pinv[j];
      rcnt[(a > b ? a : b) + 1]++;
    }
  for (int k = 0; k < n; k++) rcnt[k + 1] += rcnt[k];
  int *rowc = malloc((size_t)rcnt[n] * sizeof *rowc + 1);
  int64_t *rnext = malloc((size_t)n * sizeof *rnext);
  if (!rowc || !rnext) {
    free(rowc);
    free(rnext);
    free(rcnt);
    return -1;
  }
  memcpy(rnext, rcnt, (size_t)n * sizeof *rnext);
  for (int i = 0; i < n; i++)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      int j = colidx[p];
      if (j > i) continue;
      int a = pinv[i], b = pinv[j];
      rowc[rnext[a > b ? a : b]++] = a > b ? b : a;
    }
  free(rnext);
  *rowp_out = rcnt;
  *rowc_out = rowc;
  return 0;
}

/* The permuted lower triangle (CSC: cp, ci, cx) of the matrix's lower
 * entries under c->perm (inverse 'pinv'). 0 or -1 (no memory). */
static int permute(sk_chol *c, const int64_t *rowptr, const int32_t *colidx,
                   const double *val, const int *pinv) {
  int n = c->n;
  int64_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
  if (!cnt) return -1;
  for (int i = 0; i < n; i++)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      int j = colidx[p];
      if (j > i) continue;
      int a = pinv[i], b = pinv[j];
      cnt[(a > b ? b : a) + 1]++;
    }
  for (int k = 0; k < n; k++) cnt[k + 1] += cnt[k];
  free(c->cp);
  free(c->ci);
  free(c->cx);
  c->cp = cnt;
  c->ci = malloc((size_t)cnt[n] * sizeof *c->ci + 1);
  c->cx = malloc((size_t)cnt[n] * sizeof *c->cx + 1);
  int64_t *next = malloc((size_t)n * sizeof *next);
  if (!c->ci || !c->cx || !next) {
    free(next);
    return -1;
  }
  memcpy(next, cnt, (size_t)n * sizeof *next);
  for (int i = 0; i < n; i++)
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; p++) {
      int j = colidx[p];
      if (j > i) continue;
      int a = pinv[i], b = pinv[j];
      int64_t q = next[a > b ? b : a]++;
      c->ci[q] = a > b ? a : b;
      c->cx[q] = val ? val[p] : 0;
    }
  free(next);
  return 0;
}

/* Column counts of L (the diagonal included) from the lower triangle's
 * columns (cp, ci) and its elimination tree, whose order is a postorder:
 * Gilbert, Ng and Peyton's skeleton-matrix algorithm (as CSparse's
 * cs_counts), O(nnz(A) alpha) where walking the row subtrees is
 * O(nnz(L)). Work: four arrays of n. */
static void col_counts(int n, const int64_t *cp, const int *ci, const int *parent,
                       int *cc, int *first, int *maxfirst, int *prevleaf, int *anc) {
  for (int j = 0; j < n; j++) first[j] = maxfirst[j] = prevleaf[j] = -1;
  for (int k = 0; k < n; k++) {
    cc[k] = first[k] == -1; /* 1 at a leaf */
    for (int j = k; j != -1 && first[j] == -1; j = parent[j]) first[j] = k;
  }
  for (int i = 0; i < n; i++) anc[i] = i;
  for (int j = 0; j < n; j++) {
    if (parent[j] != -1) cc[parent[j]]--;
    for (int64_t p = cp[j]; p < cp[j + 1]; p++) {
      int i = ci[p];
      /* is j a leaf of row i's subtree? (i > j, first[j] beyond the
       * subtree's last seen leaf) */
      if (i <= j || first[j] <= maxfirst[i]) continue;
      maxfirst[i] = first[j];
      int jprev = prevleaf[i];
      prevleaf[i] = j;
      cc[j]++;
      if (jprev == -1) continue;
      /* a later leaf: the overlap at the least common ancestor of jprev
       * and j is counted once */
      int q = jprev;
      while (q != anc[q]) q = anc[q];
      for (int t = jprev, tp; t != q; t = tp) { /* path compression */
        tp = anc[t];
        anc[t] = q;
      }
      cc[q]--;
    }
    if (parent[j] != -1) anc[j] = parent[j];
  }
  for (int j = 0; j < n; j++)
    if (parent[j] != -1) cc[parent[j]] += cc[j];
}

/* Liu's elimination tree from the rows of the lower triangle */
static void etree(int n, const int64_t *rowp, const int *rowc, int *parent, int *anc) {
  for (int k = 0; k < n; k++) {
    parent[k] = -1;
    anc[k] = -1;
    for (int64_t p = rowp[k]; p < rowp[k + 1]; p++) {
      int i = rowc[p];
      while (i != -1 && i < k) {
        int inext = anc[i];
        anc[i] = k;
        if (inext == -1) parent[i] = k;
        i = inext;
      }
    }
  }
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* position of row 'r' in supernode s's rows (r is one of them) */
static int find_row(const int *R, int k, int m, int f, int r) {
  if (r < f + k) return r - f;
  int lo = k, hi = m - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (R[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* -- the numeric work of one supernode (called by its task) -------------
 * Left-looking, as CHOLMOD: the panel (the supernode's k columns, m x k)
 * is assembled in place in the factor -- the matrix's entries, then the
 * products L_d(rows from i1) L_d(rows [i1, i2))^T of every descendant d
 * whose rows [i1, i2) are the supernode's columns (syrk and gemm into a
 * work block, scattered through the rows' positions) -- then potrf
 * factors its diagonal block and trsm the block below. Every descendant
 * is in the supernode's subtree, done before its task runs; no update
 * matrix is kept (the multifrontal form's stack of them touched as much
 * memory again as the factor). */
#define UPD_DIRECT 4096 /* products of fewer multiply-adds: a loop, no BLAS call */
/* A supernode whose updates take at least PART_WORK multiply-adds has
 * them done by one task per thread, each on its own columns of the panel
 * (about equal work: no two write the same entry); the root's updates
 * are a third of the 40^3 factorisation's work. At most PART_MAX parts. */
#define PART_WORK 20000000.0
#define PART_MAX  62
/* OpenBLAS's threads synchronise where ThreadSanitizer cannot see (an
 * uninstrumented library): under it the blocks keep one thread, else its
 * workers' writes to a block read after the call are reported as races */
#if defined(__SANITIZE_THREAD__)
#define BLAS_THREADS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BLAS_THREADS 0
#endif
#endif
#ifndef BLAS_THREADS
#define BLAS_THREADS 1
#endif

static void sn_assemble(sk_chol *c, int s) {
  int f = c->first[s], k = c->first[s + 1] - f;
  const int *R = c->rows + c->rp[s];
  int m = (int)(c->rp[s + 1] - c->rp[s]);
  double *P = c->lx + c->lp[s];
  memset(P, 0, (size_t)m * (size_t)k * sizeof *P);
  for (int j = f; j < f + k; j++)
    for (int64_t p = c->cp[j]; p < c->cp[j + 1]; p++)
      P[(size_t)find_row(R, k, m, f, c->ci[p]) + (size_t)(j - f) * (size_t)m] += c->cx[p];
}

/* the multiply-adds of supernode s's updates */
static double sn_work(const sk_chol *c, int s) {
  double w = 0;
  for (int64_t q = c->up[s]; q < c->up[s + 1]; q++) {
    const struct upd_ent *e = &c->ud[q];
    int d = e->d;
    double nr = (double)(c->rp[d + 1] - c->rp[d] - e->i1), nc = e->i2 - e->i1;
    w += (nr - (nc - 1) / 2) * nc * (c->first[d + 1] - c->first[d]);
  }
  return w;
}

/* the first position in Rd[lo, hi) (ascending) whose row is >= r */
static int lower_bound(const int *Rd, int lo, int hi, int r) {
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (Rd[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* cut[0..parts]: supernode s's panel columns in 'parts' ranges of about
 * equal update work. 0 or -1 (no memory) */
static int sn_cuts(sk_chol *c, int s, int parts, int *cut) {
  int f = c->first[s], k = c->first[s + 1] - f;
  double *cw = ub_get(c, (size_t)k);
  if (!cw) return -1;
  memset(cw, 0, (size_t)k * sizeof *cw);
  for (int64_t q = c->up[s]; q < c->up[s + 1]; q++) {
    const struct upd_ent *e = &c->ud[q];
    int d = e->d, md = (int)(c->rp[d + 1] - c->rp[d]), kd = c->first[d + 1] - c->first[d];
    const int *Rd = c->rows + c->rp[d];
    for (int i = e->i1; i < e->i2; i++) cw[Rd[i] - f] += (double)(md - i) * kd;
  }
  double total = 0;
  for (int j = 0; j < k; j++) total += cw[j];
  cut[0] = 0;
  double acc = 0;
  int j = 0;
  for (int p = 1; p < parts; p++) {
    while (j < k && acc + cw[j] <= total * p / parts) acc += cw[j++];
    cut[p] = j;
  }
  cut[parts] = k;
  ub_put(c, cw);
  return 0;
}

/* the updates of supernode s into its panel's columns [c0, c1): 0, or -1
 * (no memory) */
static int sn_update(sk_chol *c, int s, int c0, int c1) {
  int f = c->first[s];
  const int *R = c->rows + c->rp[s];
  int m = (int)(c->rp[s + 1] - c->rp[s]);
  double *P = c->lx + c->lp[s], *W = NULL;
  int64_t u0 = c->up[s], u1 = c->up[s + 1];
  if (u1 == u0) return 0;
  /* the work block: the largest product of a BLAS call */
  size_t need = 0;
  for (int64_t q = u0; q < u1; q++) {
    const struct upd_ent *e = &c->ud[q];
    int d = e->d;
    size_t nr = (size_t)(c->rp[d + 1] - c->rp[d] - e->i1), nc = (size_t)(e->i2 - e->i1);
    size_t kd = (size_t)(c->first[d + 1] - c->first[d]);
    if (nr * nc * kd >= UPD_DIRECT && nr * nc > need) need = nr * nc;
  }
  /* map: row r of the matrix -> its position in the supernode (only the
   * supernode's rows are set; only they are looked up) */
  int *map = (int *)ub_get(c, ((size_t)c->n + 1) / 2 + (size_t)m / 2 + 1);
  if (!map) return -1;
  int *rel = map + c->n;
  if (need && !(W = ub_get(c, need))) {
    ub_put(c, (double *)map);
    return -1;
  }
  for (int i = 0; i < m; i++) map[R[i]] = i;
  for (int64_t q = u0; q < u1; q++) {
    const struct upd_ent *e = &c->ud[q];
    int d = e->d;
    int kd = c->first[d + 1] - c->first[d], md = (int)(c->rp[d + 1] - c->rp[d]);
    const int *Rd0 = c->rows + c->rp[d];
    /* d's rows that are the columns [c0, c1) */
    int j0 = lower_bound(Rd0, e->i1, e->i2, f + c0),
        j1 = lower_bound(Rd0, j0, e->i2, f + c1);
    if (j0 == j1) continue;
    int nr = md - j0, nc = j1 - j0;
    const int *Rd = Rd0 + j0;
    const double *Ld = c->lx + c->lp[d] + j0; /* row j0 of d's block, ld md */
    for (int i = 0; i < nr; i++) rel[i] = map[Rd[i]];
    if ((size_t)nr * (size_t)nc * (size_t)kd < UPD_DIRECT) {
      for (int t = 0; t < kd; t++) {
        const double *lt = Ld + (size_t)t * (size_t)md;
        for (int j = 0; j < nc; j++) {
          double *col = P + (size_t)(Rd[j] - f) * (size_t)m, ljt = lt[j];
          for (int i = j; i < nr; i++) col[rel[i]] -= lt[i] * ljt;
        }
      }
      continue;
    }
    sk_cb_syrk0(nc, kd, Ld, md, W, nr);
    if (nr > nc) sk_cb_gemm_nt(nr - nc, nc, kd, Ld + nc, md, Ld, md, W + nc, nr);
    for (int j = 0; j < nc; j++) {
      double *col = P + (size_t)(Rd[j] - f) * (size_t)m;
      const double *w = W + (size_t)j * (size_t)nr;
      for (int i = j; i < nr; i++) col[rel[i]] -= w[i];
    }
  }
  ub_put(c, W);
  ub_put(c, (double *)map);
  return 0;
}

static void sn_factor(sk_chol *c, int s) {
  int f = c->first[s], k = c->first[s + 1] - f;
  int m = (int)(c->rp[s + 1] - c->rp[s]);
  double *P = c->lx + c->lp[s];
  int nonfinite;
  int info = sk_cb_potrf(k, P, m, &nonfinite);
  if (info) {
    int expect = 0;
    atomic_compare_exchange_strong(&c->bad, &expect, 4 * (f + info) + nonfinite);
  } else {
    sk_cb_trsm(m - k, k, P, m, P + k, m);
  }
}

static void set_bad(sk_chol *c, int v) {
  int expect = 0;
  atomic_compare_exchange_strong(&c->bad, &expect, v);
}

static int sn_parts(const sk_chol *c) {
  return c->threads < PART_MAX ? c->threads : PART_MAX;
}

/* What supernode s's task calls: op = 64 s + code; code 0: assemble,
 * then either everything else (returns 0) or nothing more (returns the
 * number of parts the updates are cut in); 1 .. PART_MAX: that part's
 * updates; 63: the factorisation of the assembled panel. */
static sk_i64 numeric(sk_i64 ctx, sk_i64 op) {
  sk_chol *c = (sk_chol *)(intptr_t)ctx;
  int s = (int)(op >> 6), code = (int)(op & 63);
  if (atomic_load(&c->bad)) return 0;
  /* on the trunk no other task runs: the blocks take every thread */
  int on_trunk = BLAS_THREADS && c->trunk[s] && c->threads > 1;
  if (code == 0) {
    sn_assemble(c, s);
    if (c->threads > 1 && sn_work(c, s) >= PART_WORK) return sn_parts(c);
    if (on_trunk) sk_cb_threads(c->threads);
    if (sn_update(c, s, 0, c->first[s + 1] - c->first[s]) < 0) set_bad(c, -1);
    else sn_factor(c, s);
    if (on_trunk) sk_cb_threads(1);
  } else if (code == 63) {
    if (on_trunk) sk_cb_threads(c->threads);
    sn_factor(c, s);
    if (on_trunk) sk_cb_threads(1);
  } else {
    int parts = sn_parts(c), cut[PART_MAX + 1];
    if (sn_cuts(c, s, parts, cut) < 0 || sn_update(c, s, cut[code - 1], cut[code]) < 0)
      set_bad(c, -1);
  }
  return 0;
}

static int run_dag(sk_chol *c, char *err, size_t errlen) {
  sk_sched *s = sk_sched_new(NULL, 256 << 20, SK_QUEUE_MULTIPLE, err, errlen);
  if (!s) return -1;
  c->threads = sk_sched_threads(s);
  sk_tfunctor f;
  memset(&f, 0, sizeof f);
  snprintf(f.label, sizeof f.label, "chol_sn");
  static const char *const names[] = {"ctx", "fn", "kids", "kp", "sn", "w"};
  f.nfields = 6;
  for (int k = 0; k < 6; k++) {
    snprintf(f.fields[k].name, sizeof f.fields[k].name, "%s", names[k]);
    f.fields[k].kind = SK_TF_SCALAR;
    f.fields[k].dtype = k == 5 ? SK_I32 : SK_I64;
  }
  f.ret = -1;
  f.body = (char *)sk_body_task_chol_sn; /* chol.sk */
  int rc =
    sk_sched_functor(s, &f, err, errlen) < 0 || sk_sched_compile(s, err, errlen) < 0 ? -1
                                                                                     : 0;
  int64_t v[5] = {(int64_t)(intptr_t)c, (int64_t)(intptr_t)numeric,
                  (int64_t)(intptr_t)c->kids, (int64_t)(intptr_t)c->kp, 0};
  for (int r = 0; rc == 0 && r < c->nsn; r++) {
    if (c->parent[r] >= 0) continue;
    unsigned char fields[128] = {0};
    v[4] = r;
    for (int k = 0; k < 5; k++) memcpy(fields + sk_sched_field_offset(s, 0, k), &v[k], 8);
    struct sk_task *t = sk_sched_spawn(s, 0, fields, SK_PRIO_REGULAR, 0, err, errlen);
    if (!t) rc = -1;
    else sk_sched_release(s, t);
  }
  if (rc == 0) rc = sk_sched_wait(s, err, errlen);
  sk_sched_free(s);
  return rc;
}

/* free each of 'n' blocks (the symbolic phase's work arrays) */
static void free_all(void *const *p, int n) {
  for (int i = 0; i < n; i++) free(p[i]);
}

sk_chol *sk_chol_factor(int64_t n64, const int64_t *rowptr, const int32_t *colidx,
                        const double *val, char *err, size_t errlen) {
  sk_chol_opts o = {0, 0, 0};
  return sk_chol_factor_ex(n64, rowptr, colidx, val, &o, err, errlen);
}

static sk_chol *factor_ex(int64_t n64, const int64_t *rowptr, const int32_t *colidx,
                          const double *val, const sk_chol_opts *opt, const int *given,
                          int symbolic, char *err, size_t errlen);

sk_chol *sk_chol_factor_ex(int64_t n64, const int64_t *rowptr, const int32_t *colidx,
                           const double *val, const sk_chol_opts *opt, char *err,
                           size_t errlen) {
  return factor_ex(n64, rowptr, colidx, val, opt, NULL, 0, err, errlen);
}

sk_chol *sk_chol_symbolic(int64_t n, const int64_t *rowptr, const int32_t *colidx,
                          const int *perm, char *err, size_t errlen) {
  sk_chol_opts o = {1, 0, 0};
  return factor_ex(n, rowptr, colidx, NULL, &o, perm, 1, err, errlen);
}

/* the factorization; 'given' (NULL: AMD's) the fill-reducing order;
 * 'symbolic': stop after the symbolic phase (the update lists kept) */
static sk_chol *factor_ex(int64_t n64, const int64_t *rowptr, const int32_t *colidx,
                          const double *val, const sk_chol_opts *opt, const int *given,
                          int symbolic, char *err, size_t errlen) {
  if (n64 <= 0 || n64 >= ((int64_t)1 << 30)) {
    sk_err(err, errlen, SK_E_MATRIX_ROWS, (long long)n64);
    return NULL;
  }
  if (rowptr[n64] >= ((int64_t)1 << 31)) {
    sk_err(err, errlen, SK_E_MATRIX_ENTRIES_MOST, (long long)rowptr[n64]);
    return NULL;
  }
  if (!given && sk_cb_available(err, errlen) < 0) return NULL;
  if (!given) sk_cb_threads(1); /* a block a thread: the parallelism is the task DAG's */
  double t0 = now_s();
  int n = (int)n64;
  sk_chol *c = calloc(1, sizeof *c);
  if (c) pthread_mutex_init(&c->ub_mu, NULL);
  int *ap = malloc(((size_t)n + 1) * sizeof *ap), *anc = malloc((size_t)n * sizeof *anc);
  int *par = malloc((size_t)n * sizeof *par), *cc = calloc((size_t)n, sizeof *cc);
  int *post = malloc((size_t)n * sizeof *post), *head = malloc((size_t)n * sizeof *head);
  int *nxt = malloc((size_t)n * sizeof *nxt), *stack = malloc((size_t)n * sizeof *stack);
  int64_t *rowp = NULL;
  int *rowc = NULL;
  if (!c || !ap || !anc || !par || !cc || !post || !head || !nxt || !stack) goto oom;
  c->n = n;
  c->ldl = opt->ldl;
  c->gemm_min = opt->gemm_min;
  c->perm = malloc((size_t)n * sizeof *c->perm);
  if (!c->perm) goto oom;
  for (int i = 0; i <= n; i++) ap[i] = (int)rowptr[i];
  if (given) {
    memcpy(c->perm, given, (size_t)n * sizeof *c->perm);
  } else if (sk_cb_amd(n, ap, colidx, c->perm) < 0) {
    sk_err(err, errlen, SK_E_AMD_ORDERING_FAILED);
    goto fail;
  }
  /* the elimination tree, its postorder folded into the ordering (the
   * tree relabelled, not recomputed) */
  for (int k = 0; k < n; k++) cc[c->perm[k]] = k; /* cc: the inverse, for now */
  if (permute_rows(n, rowptr, colidx, cc, &rowp, &rowc) < 0) goto oom;
  etree(n, rowp, rowc, par, anc);
  free(rowp);
  free(rowc);
  rowp = NULL;
  rowc = NULL;
  for (int j = 0; j < n; j++) head[j] = -1;
  for (int j = n - 1; j >= 0; j--)
    if (par[j] >= 0) {
      nxt[j] = head[par[j]];
      head[par[j]] = j;
    }
  int np = 0;
  for (int r = 0; r < n; r++) {
    if (par[r] >= 0) continue;
    int top = 0;
    stack[top++] = r;
    while (top) {
      int j = stack[top - 1];
      if (head[j] >= 0) { /* descend into the next child */
        int ch = head[j];
        head[j] = nxt[ch];
        stack[top++] = ch;
      } else {
        top--;
        post[np++] = j;
      }
    }
  }
  for (int k = 0; k < n; k++) {
    anc[k] = c->perm[post[k]];
    nxt[post[k]] = k; /* nxt: the postorder's inverse */
  }
  memcpy(c->perm, anc, (size_t)n * sizeof *anc);
  for (int k = 0; k < n; k++) anc[k] = par[post[k]] < 0 ? -1 : nxt[par[post[k]]];
  memcpy(par, anc, (size_t)n * sizeof *anc);
  for (int k = 0; k < n; k++) cc[c->perm[k]] = k;
  if (permute(c, rowptr, colidx, val, cc) < 0) goto oom;
  col_counts(n, c->cp, c->ci, par, cc, anc, head, nxt, stack);
  /* supernodes */
  c->first = malloc(((size_t)n + 1) * sizeof *c->first);
  int *snof = post; /* reused */
  if (!c->first) goto oom;
  c->nsn = 0;
  c->first[0] = 0;
  for (int j = 0; j < n; j++) {
    int start = c->first[c->nsn];
    if (j > start &&
        !(par[j - 1] == j && (cc[j - 1] == cc[j] + 1 || j - start < RELAX))) {
      c->nsn++;
      c->first[c->nsn] = j;
    }
    snof[j] = c->nsn;
  }
  c->nsn++;
  c->first[c->nsn] = n;
  int nsn = c->nsn;
  c->parent = malloc((size_t)nsn * sizeof *c->parent);
  c->kp = calloc((size_t)nsn + 1, sizeof *c->kp);
  c->kids = malloc((size_t)nsn * sizeof *c->kids + 1);
  c->rp = malloc(((size_t)nsn + 1) * sizeof *c->rp);
  c->lp = malloc(((size_t)nsn + 1) * sizeof *c->lp);
  c->up = calloc((size_t)nsn + 1, sizeof *c->up);
  if (!c->parent || !c->kp || !c->kids || !c->rp || !c->lp || !c->up) goto oom;
  for (int s = 0; s < nsn; s++) {
    int last = c->first[s + 1] - 1;
    c->parent[s] = par[last] >= 0 ? snof[par[last]] : -1;
    if (c->parent[s] >= 0) c->kp[c->parent[s] + 1]++;
  }
  for (int s = 0; s < nsn; s++) c->kp[s + 1] += c->kp[s];
  for (int s = 0; s < nsn; s++) head[s] = (int)c->kp[s];
  for (int s = 0; s < nsn; s++)
    if (c->parent[s] >= 0) c->kids[head[c->parent[s]]++] = s;
  /* the trunk: a single root, and each only child of a trunk node */
  c->trunk = calloc((size_t)nsn, 1);
  if (!c->trunk) goto oom;
  int roots = 0;
  for (int s = 0; s < nsn; s++) roots += c->parent[s] < 0;
  for (int s = nsn - 1; s >= 0; s--) { /* parents come after their children */
    int p = c->parent[s];
    c->trunk[s] = p < 0 ? roots == 1 : c->trunk[p] && c->kp[p + 1] - c->kp[p] == 1;
  }
  /* each supernode's rows: its columns, then the rows below */
  int64_t cap = 4 * (int64_t)n + 16, used = 0;
  c->rows = malloc((size_t)cap * sizeof *c->rows);
  if (!c->rows) goto oom;
  for (int j = 0; j < n; j++) anc[j] = -1; /* mark: the supernode that took j */
  int64_t nnz_l = 0, maxf = 0;
  for (int s = 0; s < nsn; s++) {
    int f = c->first[s], l = c->first[s + 1];
    c->rp[s] = used;
    int64_t need = used + (l - f);
    for (int j = f; j < l; j++) need += c->cp[j + 1] - c->cp[j];
    for (int64_t q = c->kp[s]; q < c->kp[s + 1]; q++) {
      int ch = (int)c->kids[q];
      need += c->rp[ch + 1] - c->rp[ch];
    }
    if (need > cap) {
      while (cap < need) cap *= 2;
      int *r = realloc(c->rows, (size_t)cap * sizeof *r);
      if (!r) goto oom;
      c->rows = r;
    }
    for (int j = f; j < l; j++) {
      c->rows[used++] = j;
      anc[j] = s;
    }
    int64_t below = used;
    for (int j = f; j < l; j++)
      for (int64_t p = c->cp[j]; p < c->cp[j + 1]; p++) {
        int r = c->ci[p];
        if (anc[r] != s) {
          anc[r] = s;
          c->rows[used++] = r;
        }
      }
    for (int64_t q = c->kp[s]; q < c->kp[s + 1]; q++) {
      int ch = (int)c->kids[q], kc = c->first[ch + 1] - c->first[ch];
      for (int64_t p = c->rp[ch] + kc; p < c->rp[ch + 1]; p++) {
        int r = c->rows[p];
        if (anc[r] != s) {
          anc[r] = s;
          c->rows[used++] = r;
        }
      }
    }
    qsort(c->rows + below, (size_t)(used - below), sizeof *c->rows, cmp_int);
    c->rp[s + 1] = used;
    int64_t m = used - c->rp[s];
    c->lp[s] = nnz_l;
    nnz_l += m * (l - f);
    if (m > maxf) maxf = m;
  }
  c->lp[nsn] = nnz_l;
  /* the updates: descendant d's rows below its columns, in runs by the
   * supernode that owns them (rows ascend, a supernode's columns are
   * consecutive), each run an update of that supernode */
  for (int pass = 0; pass < 2; pass++) {
    for (int d = 0; d < nsn; d++) {
      int kd = c->first[d + 1] - c->first[d], md = (int)(c->rp[d + 1] - c->rp[d]);
      const int *Rd = c->rows + c->rp[d];
      for (int i = kd; i < md;) {
        int t = snof[Rd[i]], i1 = i;
        while (i < md && snof[Rd[i]] == t) i++;
        if (pass == 0) {
          c->up[t + 1]++;
        } else {
          struct upd_ent *e = &c->ud[head[t]++];
          e->d = d;
          e->i1 = i1;
          e->i2 = i;
        }
      }
    }
    if (pass == 0) {
      for (int t = 0; t < nsn; t++) c->up[t + 1] += c->up[t];
      c->ud = malloc((size_t)c->up[nsn] * sizeof *c->ud + 1);
      if (!c->ud) goto oom;
      for (int t = 0; t < nsn; t++) head[t] = (int)c->up[t];
    }
  }
  c->info.n = n;
  c->info.nnz_l = nnz_l;
  c->info.supernodes = nsn;
  c->info.max_front = maxf;
  c->info.ldl = opt->ldl;
  free_all((void *[]){ap, anc, par, cc, post, head, nxt, stack, rowp, rowc}, 10);
  ap = anc = par = cc = post = head = nxt = stack = rowc = NULL;
  rowp = NULL;
  if (symbolic) { /* sk_chol_symbolic: the update lists stay */
    c->info.symbolic_s = now_s() - t0;
    free(c->cp);
    free(c->ci);
    free(c->cx);
    c->cp = NULL;
    c->ci = NULL;
    c->cx = NULL;
    return c;
  }
  if (opt->levels || opt->ldl) { /* the level-set schedule (chol_ls.c) */
    double t1 = now_s();
    c->info.symbolic_s = t1 - t0;
    if (sk_chol_ls_numeric(c, err, errlen) < 0) goto fail;
    c->info.numeric_s = now_s() - t1;
    goto done;
  }
  if (sk_host_room((uint64_t)nnz_l * 8, err, errlen) < 0) goto fail;
  c->lx = big_alloc((size_t)nnz_l * sizeof *c->lx + 1);
  if (!c->lx) goto oom;
  double t1 = now_s();
  c->info.symbolic_s = t1 - t0;
  int dag = run_dag(c, err, errlen);
  ub_drop_all(c);
  if (dag < 0) goto fail;
  int bad = atomic_load(&c->bad);
  if (bad > 0) {
    int col = (bad >> 2) - 1;
    if (bad & 3)
      sk_err(err, errlen, SK_E_MATRIX_PIVOT_NONFINITE, c->perm[col],
             (bad & 3) == 1 ? "NaN" : "Inf", col);
    else sk_err(err, errlen, SK_E_MATRIX_NOT_POSITIVE, c->perm[col], col);
    goto fail;
  }
  if (bad < 0) goto oom;
  c->info.numeric_s = now_s() - t1;
done:
  free(c->cp);
  free(c->ci);
  free(c->cx);
  free(c->up);
  free(c->ud);
  c->cp = NULL;
  c->ci = NULL;
  c->cx = NULL;
  c->up = NULL;
  c->ud = NULL;
  return c;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_FACTORISATION);
fail:
  free_all((void *[]){ap, anc, par, cc, post, head, nxt, stack, rowp, rowc}, 10);
  sk_chol_free(c);
  return NULL;
}

int sk_chol_solve(const sk_chol *c, const double *b, double *x, char *err,
                  size_t errlen) {
  int n = c->n;
  double *y = malloc((size_t)n * sizeof *y),
         *t = malloc((size_t)(c->info.max_front + 1) * sizeof *t);
  if (!y || !t) {
    free(y);
    free(t);
    sk_err(err, errlen, SK_E_OUT_MEMORY_SOLVE);
    return -1;
  }
  for (int k = 0; k < n; k++) y[k] = b[c->perm[k]];
  for (int s = 0; s < c->nsn; s++) { /* L y = b */
    int f = c->first[s], k = c->first[s + 1] - f, m = (int)(c->rp[s + 1] - c->rp[s]);
    const double *L = c->lx + c->lp[s];
    const int *R = c->rows + c->rp[s];
    sk_cb_trsv(0, k, L, m, y + f);
    if (m > k) {
      memset(t, 0, (size_t)(m - k) * sizeof *t);
      sk_cb_gemv(0, m - k, k, L + k, m, y + f, t);
      for (int a = 0; a < m - k; a++) y[R[k + a]] += t[a];
    }
  }
  for (int s = c->nsn - 1; s >= 0; s--) { /* L^T x = y */
    int f = c->first[s], k = c->first[s + 1] - f, m = (int)(c->rp[s + 1] - c->rp[s]);
    const double *L = c->lx + c->lp[s];
    const int *R = c->rows + c->rp[s];
    if (m > k) {
      for (int a = 0; a < m - k; a++) t[a] = y[R[k + a]];
      sk_cb_gemv(1, m - k, k, L + k, m, t, y + f);
    }
    sk_cb_trsv(1, k, L, m, y + f);
  }
  for (int k = 0; k < n; k++) x[c->perm[k]] = y[k];
  free(y);
  free(t);
  return 0;
}
