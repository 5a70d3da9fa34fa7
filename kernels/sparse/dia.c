/* dia.c: a stencil matrix by diagonals -- where every row's columns are
 * the row's index plus offsets from one set of at most SK_DIA_MAX (a
 * stencil's: 5, 7, 9, 27 points), the matrix as one byte a row and
 * diagonal: the value code (vdict.c) of row i's entry at column
 * i + off[q] plus one, 0 where the row lacks that column, in blocks of
 * SK_DIA_BLOCK rows (a diagonal's codes of a block contiguous: one
 * stream on the host, a warp's rows' codes together on a device). An SpMV
 * then reads no index at all (1 byte an entry against the coded CSR's 3,
 * plus the row pointers): a thread a row runs a straight line over the
 * offsets (constants in the text, dia.sk's templates filled here and
 * compiled once per offset set), its code and x loads coalesced on a
 * device. A diagonal whose entries all have one value (a stencil of
 * constant coefficients: every one) reads it from dv, not the table: no
 * gather, so a host compiler vectorises a block's interior rows. The
 * terms come in the row's column order and a lacking entry adds nothing
 * (not 0.0 * x): the CSR sums bit for bit, for any x. The one place that
 * builds the form; sparse.spmv (spmv.c) and the CG of speck.solve and
 * sparse.cg (kernels/solve/krylov.c) read it, and speck.dist's CG
 * (kernels/dist/cg.c) builds its interior's with it.
 *
 * When: only a matrix that has value codes (vdict.c: through sparse.spmv
 * the compact index too; a host solver's sk_dia_memos makes the codes and
 * the form without the index, which the form's passes do not read), square, int64 row pointers and int32 columns, whose offsets (a
 * sample of SK_DIA_WINDOWS windows of SK_DIA_WROWS rows spread over the
 * matrix, read to the host) number at most SK_DIA_MAX and whose fill
 * nd * n is at most SK_DIA_FILL times its entries (the boundary rows of
 * a 27-point box of 8^3 lack about a quarter of their diagonals; a
 * banded matrix with a few far entries does not qualify). One pass codes
 * every row and tells whether a row had a column off the set or out of
 * ascending order: then the matrix keeps its CSR paths, remembered until
 * its pattern or values change. SPECK_SPARSE_NODIA=1 keeps every matrix
 * on its CSR paths (to compare).
 *
 * Kept with the matrix: a memo of the values' allocation (core/view.h,
 * beside vdict.c's codes) keyed by the values' place, length and write
 * stamp and by the row pointers and columns (retained, their places,
 * lengths and stamps), as vdict.c and csr16.c key theirs: a launch that
 * may write them, a deep_copy, fill or store from Lua, a replayed
 * capture make it stale.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"

/* the offsets' sample: windows of rows spread over the matrix (all rows
 * of a matrix of at most SK_DIA_WINDOWS * SK_DIA_WROWS) */
#define SK_DIA_WINDOWS 16
#define SK_DIA_WROWS   64

static const char *const sig_code[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("vcode", "uint8") R1("doff", "int64")
    R1("dc", "uint8") " nd=int64 w=int64",
  NULL};
static const sk_kbody k_code = {.label = "sparse.dia_code",
                                .body = sk_body_sparse_dia_code,
                                .pattern = SK_REDUCE,
                                .sigs = sig_code,
                                .reds = "max:int64 bor:int64"};
const sk_kbody *const sk_dia_bodies[] = {&k_code, NULL};

/* SPECK_SPARSE_NODIA, read once (every SpMV with value codes asks) */
int sk_dia_disabled(void) {
  static int off = -1;
  int v = __atomic_load_n(&off, __ATOMIC_RELAXED);
  if (v < 0) {
    const char *e = getenv("SPECK_SPARSE_NODIA");
    v = e && *e && strcmp(e, "0") != 0;
    __atomic_store_n(&off, v, __ATOMIC_RELAXED);
  }
  return v;
}

void sk_dia_release(sk_dia *d) {
  sk_view_release(&d->code);
  sk_view_release(&d->tab);
  sk_view_release(&d->dv);
  memset(d, 0, sizeof *d);
}

/* the offsets of rows [r0, r1) (host copies of their slices) added to the
 * nd in off (unsorted, at most SK_DIA_MAX), with cand[j] the code plus
 * one that every sampled entry of offset off[j] has (-1: two differ):
 * their number, -1 when more */
static int sample(const sk_csr *A, const sk_vdict *vd, int64_t r0, int64_t r1, int64_t *off,
                  int64_t *cand, int nd, char *err, size_t errlen, int *rc) {
  sk_view rp = *A->rowptr, hrp, ci, hci, vc, hvc;
  rp.data = (char *)A->rowptr->data + (size_t)r0 * sizeof(int64_t);
  rp.extent[0] = r1 - r0 + 1;
  *rc = 0;
  if (sk_sp_host_copy(&rp, &hrp, err, errlen) < 0) {
    *rc = -1;
    return nd;
  }
  const int64_t *p = hrp.data;
  const int64_t k0 = p[0], k1 = p[r1 - r0];
  if (k1 <= k0) {
    sk_view_release(&hrp);
    return nd;
  }
  ci = *A->colidx;
  ci.data = (char *)A->colidx->data + (size_t)k0 * sizeof(int32_t);
  ci.extent[0] = k1 - k0;
  vc = vd->code;
  vc.data = (char *)vd->code.data + (size_t)k0;
  vc.extent[0] = k1 - k0;
  if (sk_sp_host_copy(&ci, &hci, err, errlen) < 0) {
    sk_view_release(&hrp);
    *rc = -1;
    return nd;
  }
  if (sk_sp_host_copy(&vc, &hvc, err, errlen) < 0) {
    sk_view_release(&hci);
    sk_view_release(&hrp);
    *rc = -1;
    return nd;
  }
  const int32_t *c = hci.data;
  const uint8_t *v = hvc.data;
  for (int64_t r = r0; r < r1 && nd >= 0; r++)
    for (int64_t k = p[r - r0]; k < p[r - r0 + 1]; k++) {
      const int64_t o = (int64_t)c[k - k0] - r, code = (int64_t)v[k - k0] + 1;
      int j = 0;
      while (j < nd && off[j] != o) j++;
      if (j < nd) {
        if (cand[j] != code) cand[j] = -1;
        continue;
      }
      if (nd == SK_DIA_MAX) {
        nd = -1;
        break;
      }
      cand[nd] = code;
      off[nd++] = o;
    }
  sk_view_release(&hvc);
  sk_view_release(&hci);
  sk_view_release(&hrp);
  return nd;
}

/* offsets with their candidate codes, sorted by offset */
typedef struct ocand {
  int64_t off, cand;
} ocand;
static int cmp_off(const void *a, const void *b) {
  const int64_t x = ((const ocand *)a)->off, y = ((const ocand *)b)->off;
  return x < y ? -1 : x > y;
}

/* The diagonals (not of one code) whose entries have exactly two codes (a
 * stencil's value and the zeros a Dirichlet boundary keeps as entries:
 * miniFE's matrix): d->two's bits, k1 < k2 their codes plus one. Read
 * where the codes are in host memory (a device's form keeps its table
 * loads): one pass marking each diagonal's codes. */
static int two_codes(sk_dia *d, int nd, int w, int64_t nb, const int64_t *cand, int64_t mix,
                     int64_t *k1, int64_t *k2, char *err, size_t errlen) {
  uint32_t want = 0;
  for (int q = 0; q < nd; q++)
    if (!(cand[q] > 0 && !((mix >> q) & 1))) want |= (uint32_t)1 << q;
  if (!want || !sk_space_host_accessible(d->code.space)) return 0;
  sk_view hc;
  if (sk_sp_host_copy(&d->code, &hc, err, errlen) < 0) return -1;
  unsigned char *seen = calloc((size_t)nd * 256, 1);
  if (!seen) {
    sk_view_release(&hc);
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  const uint8_t *c = hc.data;
  for (int64_t b = 0; b < nb; b++)
    for (int q = 0; q < nd; q++) {
      if (!((want >> q) & 1)) continue;
      const uint8_t *p = c + (size_t)b * SK_DIA_BLOCK * (size_t)w + (size_t)q * SK_DIA_BLOCK;
      unsigned char *sq = seen + (size_t)q * 256;
      for (int l = 0; l < SK_DIA_BLOCK; l++) sq[p[l]] = 1;
    }
  for (int q = 0; q < nd; q++) {
    if (!((want >> q) & 1)) continue;
    int k = 0;
    for (int v = 1; v < 256; v++)
      if (seen[(size_t)q * 256 + v]) {
        if (k == 0) k1[q] = v;
        else if (k == 1) k2[q] = v;
        k++;
      }
    if (k == 2) d->two |= (uint32_t)1 << q;
  }
  free(seen);
  sk_view_release(&hc);
  return 0;
}

int sk_dia_build(const sk_csr *A, const sk_vdict *vd, int width, sk_dia *d, char *err,
                 size_t errlen) {
  memset(d, 0, sizeof *d);
  const int64_t n = A->nrows, nnz = A->nnz;
  if (!vd->ok || n < 1 || nnz < 1 || A->ncols != n || A->rowptr->dtype != SK_I64 ||
      A->colidx->dtype != SK_I32 || !sk_view_contiguous(A->rowptr) ||
      !sk_view_contiguous(A->colidx))
    return 0;
  /* the offsets: a sample of the rows */
  int64_t off[SK_DIA_MAX], cand[SK_DIA_MAX];
  int nd = 0, rc = 0;
  const int nw = n <= (int64_t)SK_DIA_WINDOWS * SK_DIA_WROWS ? 1 : SK_DIA_WINDOWS;
  for (int w = 0; w < nw && nd >= 0; w++) {
    const int64_t r0 = nw == 1 ? 0 : (n - SK_DIA_WROWS) * w / (nw - 1);
    const int64_t r1 = nw == 1 ? n : r0 + SK_DIA_WROWS;
    nd = sample(A, vd, r0, r1, off, cand, nd, err, errlen, &rc);
    if (rc < 0) return -1;
  }
  if (nd < 1 || (double)nd * (double)n > SK_DIA_FILL * (double)nnz) return 0;
  ocand oc[SK_DIA_MAX];
  for (int q = 0; q < nd; q++) oc[q].off = off[q], oc[q].cand = cand[q];
  qsort(oc, (size_t)nd, sizeof oc[0], cmp_off);
  for (int q = 0; q < nd; q++) off[q] = oc[q].off, cand[q] = oc[q].cand;
  const int w = width > nd ? width : nd;
  const int64_t nb = (n + SK_DIA_BLOCK - 1) / SK_DIA_BLOCK;
  /* the value table with a slot 0 before it (code 0: no entry) */
  const int dt = vd->tab.dtype;
  const size_t es = dt == SK_F64 ? 8 : 4;
  const int64_t nt = vd->tab.extent[0];
  sk_view ht, hd, hoff, doff;
  memset(&doff, 0, sizeof doff);
  if (sk_sp_host_copy(&vd->tab, &ht, err, errlen) < 0) return -1;
  if (sk_sp_view(&hd, "dia values", dt, nt + 1, SK_SPACE_HOST, 1, err, errlen) < 0) {
    sk_view_release(&ht);
    return -1;
  }
  memcpy((char *)hd.data + es, ht.data, (size_t)nt * es);
  sk_view_release(&ht);
  /* the offsets, then the sample's code of each diagonal */
  if (sk_sp_view(&hoff, "dia offsets", SK_I64, 2 * nd, SK_SPACE_HOST, 0, err, errlen) < 0) {
    sk_view_release(&hd);
    return -1;
  }
  memcpy(hoff.data, off, (size_t)nd * sizeof off[0]);
  memcpy((int64_t *)hoff.data + nd, cand, (size_t)nd * sizeof cand[0]);
  if (sk_sp_view(&doff, "dia offsets", SK_I64, 2 * nd, A->values->space, 0, err, errlen) < 0 ||
      sk_view_deep_copy(&doff, &hoff, err, errlen) < 0 ||
      sk_sp_view(&d->tab, "dia values", dt, nt + 1, A->values->space, 0, err, errlen) < 0 ||
      sk_view_deep_copy(&d->tab, &hd, err, errlen) < 0 ||
      sk_sp_view(&d->code, "dia codes", SK_U8, nb * SK_DIA_BLOCK * w, A->values->space, 1,
                 err, errlen) < 0) {
    sk_view_release(&hd);
    sk_view_release(&hoff);
    sk_view_release(&doff);
    sk_dia_release(d);
    return -1;
  }
  sk_view_release(&hoff);
  sk_arg a[] = {sk_arg_view_ro("rowptr", A->rowptr), sk_arg_view_ro("colidx", A->colidx),
                sk_arg_view_ro("vcode", &vd->code), sk_arg_view_ro("doff", &doff),
                sk_arg_view("dc", &d->code),        sk_arg_i64("nd", nd),
                sk_arg_i64("w", w)};
  sk_result res;
  rc = sk_sp_range(&k_code, n, a, NELEM(a), &res, err, errlen);
  sk_view_release(&doff);
  if (rc < 0 || sk_result_i64(&res, 0) > 0) { /* a row off the set: no form */
    sk_view_release(&hd);
    sk_dia_release(d);
    return rc;
  }
  /* the diagonals whose entries share one code: their value (dv) */
  const int64_t mix = sk_result_i64(&res, 1);
  int64_t k1[SK_DIA_MAX], k2[SK_DIA_MAX];
  if (two_codes(d, nd, w, nb, cand, mix, k1, k2, err, errlen) < 0) {
    sk_view_release(&hd);
    sk_dia_release(d);
    return -1;
  }
  sk_view hv;
  if (sk_sp_view(&hv, "dia diagonal values", dt, 3 * nd, SK_SPACE_HOST, 1, err, errlen) < 0) {
    sk_view_release(&hd);
    sk_dia_release(d);
    return -1;
  }
  char *hvp = hv.data;
  for (int q = 0; q < nd; q++)
    if (cand[q] > 0 && !((mix >> q) & 1)) {
      d->uni |= (uint32_t)1 << q;
      memcpy(hvp + (size_t)q * es, (char *)hd.data + (size_t)cand[q] * es, es);
    } else if ((d->two >> q) & 1) { /* the values of codes k1 and k2, then k1 */
      memcpy(hvp + (size_t)q * es, (char *)hd.data + (size_t)k1[q] * es, es);
      memcpy(hvp + (size_t)(nd + q) * es, (char *)hd.data + (size_t)k2[q] * es, es);
      if (dt == SK_F64) ((double *)hvp)[2 * nd + q] = (double)k1[q];
      else ((float *)hvp)[2 * nd + q] = (float)k1[q];
    }
  sk_view_release(&hd);
  rc = sk_sp_view(&d->dv, "dia diagonal values", dt, 3 * nd, A->values->space, 0, err, errlen);
  if (rc == 0) rc = sk_view_deep_copy(&d->dv, &hv, err, errlen);
  sk_view_release(&hv);
  if (rc < 0) {
    sk_dia_release(d);
    return -1;
  }
  d->nd = nd;
  d->width = w;
  memcpy(d->off, off, (size_t)nd * sizeof off[0]);
  d->ok = 1;
  return 0;
}

/* -- the memo ------------------------------------------------------------------- */
typedef struct dmemo {
  const void *data; /* the values' place, length and dtype */
  int64_t n;
  int dtype;
  uint64_t gen;    /* the values' write stamp it was keyed at */
  sk_view rp, ci;  /* the pattern (retained) and its stamps */
  uint64_t rp_gen, ci_gen;
  uint64_t made;   /* the clock then (a later replay makes it stale) */
  int built;
  sk_dia d;
} dmemo;

static pthread_mutex_t dmemo_lock = PTHREAD_MUTEX_INITIALIZER;

static void dmemo_clear(dmemo *m) {
  sk_view_release(&m->rp);
  sk_view_release(&m->ci);
  sk_dia_release(&m->d);
  memset(m, 0, sizeof *m);
}

static void dmemo_free(void *p) {
  dmemo_clear(p);
  free(p);
}

static int same_view(const sk_view *k, const sk_view *v, uint64_t gen) {
  return k->alloc == v->alloc && k->data == v->data && k->extent[0] == v->extent[0] &&
         gen == sk_alloc_stamp(v->alloc);
}

int sk_dia_get(const sk_csr *A, const sk_vdict *vd, sk_dia *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  const sk_view *v = A->values;
  sk_alloc *a = v ? v->alloc : NULL;
  if (!vd->ok || !v || sk_dia_disabled() || sk_capture_mode() || v->rank != 1 ||
      !sk_view_contiguous(v) || (v->dtype != SK_F64 && v->dtype != SK_F32) ||
      !sk_alloc_memo_ok(a) || !A->rowptr->alloc || !A->colidx->alloc ||
      A->rowptr->alloc == a || A->colidx->alloc == a) /* the memo would hold its own block */
    return 0;
  pthread_mutex_lock(&dmemo_lock);
  int rc = 0;
  dmemo *m = sk_alloc_memo(a, sizeof *m, dmemo_free);
  if (!m) goto out; /* the block's slots are full, or no memory */
  const uint64_t gen = sk_alloc_stamp(a);
  if (m->data != v->data || m->n != v->extent[0] || m->dtype != v->dtype || m->gen != gen ||
      !same_view(&m->rp, A->rowptr, m->rp_gen) || !same_view(&m->ci, A->colidx, m->ci_gen) ||
      m->made <= sk_alloc_replay_mark()) {
    dmemo_clear(m);
    m->data = v->data;
    m->n = v->extent[0];
    m->dtype = v->dtype;
    m->gen = gen;
    m->rp = *A->rowptr;
    m->ci = *A->colidx;
    sk_view_retain(&m->rp);
    sk_view_retain(&m->ci);
    m->rp_gen = sk_alloc_stamp(A->rowptr->alloc);
    m->ci_gen = sk_alloc_stamp(A->colidx->alloc);
    m->made = sk_alloc_clock();
  }
  if (!m->built) {
    /* the pass only reads the matrix: its stamps stay */
    if (sk_dia_build(A, vd, 0, &m->d, err, errlen) < 0) {
      rc = -1;
      goto out;
    }
    m->built = 1;
  }
  *d = m->d;
  if (d->ok) {
    sk_view_retain(&d->code);
    sk_view_retain(&d->tab);
    sk_view_retain(&d->dv);
  }
out:
  pthread_mutex_unlock(&dmemo_lock);
  return rc;
}

/* the form serves only where the compact index would fit as well (every
 * offset within int16, the entries within int32): where the chain of
 * sk_csr16_get, sk_vdict_get, sk_dia_get gives it */
static int index_fits(const sk_csr *A, const sk_dia *d) {
  if (A->nnz > 2147483647) return 0;
  for (int q = 0; q < d->nd; q++)
    if (d->off[q] > 32767 || d->off[q] < -32767) return 0;
  return 1;
}

int sk_dia_memos(const sk_csr *A, int64_t uses, sk_csr16 *c16, sk_vdict *vd, sk_dia *dg,
                 char *err, size_t errlen) {
  memset(c16, 0, sizeof *c16);
  memset(vd, 0, sizeof *vd);
  memset(dg, 0, sizeof *dg);
  if (uses < 1 || !A->values || !sk_csr16_could(A->rowptr, A->colidx)) return 0;
  if (sk_vdict_get(A->values, uses, vd, err, errlen) < 0 ||
      (vd->ok && sk_dia_get(A, vd, dg, err, errlen) < 0))
    goto fail;
  if (dg->ok && index_fits(A, dg)) return 0;
  sk_dia_release(dg);
  if (sk_csr16_get(A->rowptr, A->colidx, uses, c16, err, errlen) < 0) goto fail;
  if (!c16->ok) sk_vdict_release(vd); /* the coded rows read the index */
  return 0;
fail:
  sk_dia_release(dg);
  sk_vdict_release(vd);
  sk_csr16_release(c16);
  return -1;
}

int sk_dia_offsets(const sk_dia *d, sk_view *v, char *err, size_t errlen) {
  if (sk_sp_view(v, "dia offsets", SK_I64, 2 * d->nd, SK_SPACE_HOST, 0, err, errlen) < 0)
    return -1;
  int64_t *o = v->data;
  for (int q = 0; q < d->nd; q++) {
    o[q] = d->off[q];
    o[d->nd + q] = -1;
    for (int p = 0; p < d->nd; p++)
      if (d->off[p] == -d->off[q]) o[d->nd + q] = p;
  }
  return 0;
}

int sk_dia_kept(const sk_csr *A, sk_dia *dg, char *err, size_t errlen) {
  memset(dg, 0, sizeof *dg);
  sk_vdict vd;
  if (!A->values || !sk_vdict_peek(A->values, &vd)) return 0;
  int rc = sk_dia_get(A, &vd, dg, err, errlen);
  sk_vdict_release(&vd);
  if (rc == 0 && dg->ok && !index_fits(A, dg)) sk_dia_release(dg);
  return rc;
}

/* -- the bodies for an offset set ------------------------------------------------
 * dia.sk's templates with one term a diagonal, made once per form and
 * offset set and kept for the process (a program meets few stencils). A
 * form's text may hold @TERMS@ (dia_term a diagonal), @TERMS_IN@
 * (dia_term_in), @TERMS_FULL@ (dia_term_full) and @TERMS_ANY@
 * (dia_term_any); @ND@ the codes' width, @NDIAG@ the diagonals, @LO@ and
 * @HI@ the rows at either end whose columns may leave the matrix. In the
 * terms @X@ is the form's vector, @XV@ its value at the term's column
 * (the form's xv with @I@ the index), @S@ the partial sum of a full
 * row's entry (Chebyshev's four, dia_term_full) */
enum { F_SPMV, F_SPMV_ROW, F_CG, F_CG_ROW, F_CHEBY, F_CHEBY1, F_RESID, F_NFORMS };
typedef struct dform {
  const char *label, *text, *x, *xv, *reds;
  int runs; /* 1: host runs of rows (SK_ROW_SPLIT's prelude) */
} dform;
#define SUM3 "sum:float64 sum:float64 sum:float64"
static const dform forms[F_NFORMS] = {
  {"sparse.spmv_dia", sk_body_sparse_dia_spmv, "x", "x(@I@)", NULL, 1},
  {"sparse.spmv_dia_row", sk_body_sparse_dia_spmv_row, "x", "x(@I@)", NULL, 0},
  {"sparse.cg_dia_dots", sk_body_sparse_dia_cg_dots, "u", "u(@I@)", SUM3, 1},
  {"sparse.cg_dia_dots_row", sk_body_sparse_dia_cg_dots_row, "u", "u(@I@)", SUM3, 0},
  {"solve.cheby_dia", sk_body_sparse_dia_cheby, "z", "z(@I@)", NULL, 1},
  {"solve.cheby_dia_first", sk_body_sparse_dia_cheby_first, "rv",
   "dinv(@I@) * rv(@I@) * c0", NULL, 1},
  {"solve.amg_resid_dia", sk_body_sparse_dia_resid, "x", "x(@I@)", NULL, 1},
};

typedef struct gen_body {
  struct gen_body *next;
  int form, nd, width;
  uint32_t uni, two;
  int64_t off[SK_DIA_MAX];
  sk_kbody kb;
} gen_body;

static gen_body *gens;
static pthread_mutex_t gen_lock = PTHREAD_MUTEX_INITIALIZER;

/* n bytes of s appended to 'out' (at *len, capacity *cap); -1 when memory
 * is short */
static int put(char **out, size_t *len, size_t *cap, const char *s, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t c = (*cap ? *cap : 1024);
    while (*len + n + 1 > c) c *= 2;
    char *p = realloc(*out, c);
    if (!p) return -1;
    *out = p, *cap = c;
  }
  memcpy(*out + *len, s, n);
  *len += n;
  (*out)[*len] = '\0';
  return 0;
}

/* 'text' with its placeholders @K@ (keys[j]) replaced by vals[j] */
static int fill(char **out, size_t *len, size_t *cap, const char *text, int nk,
                const char *const *keys, const char *const *vals) {
  for (const char *p = text; *p;) {
    const char *at = strchr(p, '@');
    if (!at) return put(out, len, cap, p, strlen(p));
    if (put(out, len, cap, p, (size_t)(at - p)) < 0) return -1;
    int j = 0;
    size_t kl = 0;
    for (; j < nk; j++) {
      kl = strlen(keys[j]);
      if (strncmp(at + 1, keys[j], kl) == 0 && at[1 + kl] == '@') break;
    }
    if (j == nk) { /* not a placeholder: the character itself */
      if (put(out, len, cap, at, 1) < 0) return -1;
      p = at + 1;
      continue;
    }
    if (put(out, len, cap, vals[j], strlen(vals[j])) < 0) return -1;
    p = at + kl + 2;
  }
  return 0;
}

/* the terms of kind t (0 dia_term, 1 dia_term_in, 2 dia_term_full, 3
 * dia_term_any) of form f for d's diagonals, one a line, appended to *out */
static int terms_of(const dform *f, const sk_dia *d, int t, char **out, size_t *len,
                    size_t *cap) {
  const char *tt = t == 0   ? sk_body_sparse_dia_term
                   : t == 1 ? sk_body_sparse_dia_term_in
                   : t == 2 ? sk_body_sparse_dia_term_full
                            : sk_body_sparse_dia_term_any;
  const int full = d->nd - d->nd % 4; /* a full row's entries in turn into s0..s3 */
  for (int q = 0; q < d->nd; q++) {
    char qs[24], os[24], ss[8], idx[160], val[128], valf[160];
    const long long o = (long long)d->off[q];
    snprintf(qs, sizeof qs, "%d", q);
    snprintf(os, sizeof os, "%lld", o);
    snprintf(ss, sizeof ss, "%d", q < full ? q % 4 : 0);
    /* the column: in range (the rows of a block inside), or clamped into
     * [0, nrow) (the one bound the sign needs). On a device, the row's own
     * x where it lacks the column and the value from the table: a load
     * chain a term, 32 registers a thread. With the loads independent of
     * the code (clamped) and the diagonals' values (dv), the compiler
     * issues a row's 27 loads at once and keeps them: 95 registers, 31 %
     * of the warps active, the 27-point SpMV 144-155 us against 80 and CG
     * 264 us against 144 (an H200, 2026-11-29) */
    const int host = f->runs;
    if (t == 1 || t == 2) snprintf(idx, sizeof idx, "r + (%lld)", o);
    else if (!host) snprintf(idx, sizeof idx, "c_ ? r + (%lld) : r", o);
    else if (o < 0) snprintf(idx, sizeof idx, "r + (%lld) < 0 ? 0 : r + (%lld)", o, o);
    else if (o > 0) snprintf(idx, sizeof idx, "r + %lld < nrow ? r + %lld : nrow - 1", o, o);
    else snprintf(idx, sizeof idx, "r");
    /* the value: on the host the diagonal's own where its entries share
     * one code */
    if (host && (d->uni >> q) & 1) {
      snprintf(val, sizeof val, "dv(%d)", q);
      snprintf(valf, sizeof valf, "dv(%d)", q);
    } else if (host && (d->two >> q) & 1) {
      /* of two codes: a compare, no table load (both values loaded on
       * every row, so that a host compiler hoists them and vectorises) */
      snprintf(val, sizeof val,
               "({ const __typeof__(dv(0)) a_ = dv(%d), b_ = dv(%d); "
               "c_ == (int)dv(%d) ? a_ : b_; })",
               q, d->nd + q, 2 * d->nd + q);
      snprintf(valf, sizeof valf,
               "({ const __typeof__(dv(0)) a_ = dv(%d), b_ = dv(%d); "
               "(int)dc(bb_ + %d * 64 + l_) == (int)dv(%d) ? a_ : b_; })",
               q, d->nd + q, q, 2 * d->nd + q);
    } else {
      snprintf(val, sizeof val, "dtab(c_)");
      snprintf(valf, sizeof valf, "dtab((int)dc(bb_ + %d * 64 + l_))", q);
    }
    /* x's value at the column */
    char *xv = NULL;
    size_t xl = 0, xc = 0;
    const char *ik[] = {"I"}, *iv[] = {idx};
    if (fill(&xv, &xl, &xc, f->xv, 1, ik, iv) < 0) return -1;
    const char *keys[] = {"Q", "O", "X", "IDX", "VAL", "VALF", "S", "XV"},
               *vals[] = {qs, os, f->x, idx, val, valf, ss, xv};
    const int bad = fill(out, len, cap, tt, 8, keys, vals) < 0 || put(out, len, cap, "\n", 1) < 0;
    free(xv);
    if (bad) return -1;
  }
  return 0;
}

/* the body of 'form' for d's offsets (kept; NULL with a message) */
static const sk_kbody *body_for(int form, const sk_dia *d, char *err, size_t errlen) {
  pthread_mutex_lock(&gen_lock);
  gen_body *g = gens;
  while (g && !(g->form == form && g->nd == d->nd && g->width == d->width && g->uni == d->uni &&
                g->two == d->two &&
                memcmp(g->off, d->off, (size_t)d->nd * sizeof d->off[0]) == 0))
    g = g->next;
  if (g) {
    pthread_mutex_unlock(&gen_lock);
    return &g->kb;
  }
  const dform *f = &forms[form];
  static const char *const tkeys[4] = {"@TERMS@", "@TERMS_IN@", "@TERMS_FULL@", "@TERMS_ANY@"};
  char *terms[4] = {NULL, NULL, NULL, NULL}, *body = NULL;
  int bad = 0;
  for (int t = 0; t < 4 && !bad; t++) {
    size_t tl = 0, tc = 0;
    if (strstr(f->text, tkeys[t])) bad = terms_of(f, d, t, &terms[t], &tl, &tc) < 0;
  }
  /* the rows whose columns all lie in [0, nrow): [lo, nrow - hi) */
  char nds[24], ndg[24], los[24], his[24];
  snprintf(nds, sizeof nds, "%d", d->width);
  snprintf(ndg, sizeof ndg, "%d", d->nd);
  snprintf(los, sizeof los, "%lld", (long long)(d->off[0] < 0 ? -d->off[0] : 0));
  snprintf(his, sizeof his, "%lld",
           (long long)(d->off[d->nd - 1] > 0 ? d->off[d->nd - 1] : 0));
  const char *keys[] = {"TERMS", "TERMS_IN", "TERMS_FULL", "TERMS_ANY", "ND", "NDIAG", "LO", "HI"},
             *vals[] = {terms[0] ? terms[0] : "", terms[1] ? terms[1] : "",
                        terms[2] ? terms[2] : "", terms[3] ? terms[3] : "",
                        nds, ndg, los, his};
  size_t bl = 0, bc = 0;
  g = bad ? NULL : calloc(1, sizeof *g);
  if (!g || fill(&body, &bl, &bc, f->text, 8, keys, vals) < 0) {
    for (int t = 0; t < 4; t++) free(terms[t]);
    free(body);
    free(g);
    pthread_mutex_unlock(&gen_lock);
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  for (int t = 0; t < 4; t++) free(terms[t]);
  g->form = form;
  g->nd = d->nd;
  g->width = d->width;
  g->uni = d->uni;
  g->two = d->two;
  memcpy(g->off, d->off, (size_t)d->nd * sizeof d->off[0]);
  g->kb.label = f->label;
  g->kb.body = body;
  g->kb.prelude = f->runs ? sk_body_sparse_row_split : NULL;
  g->kb.pattern = f->reds ? SK_REDUCE : SK_FOR;
  g->kb.reds = f->reds;
  g->kb.lasting = 1; /* never freed nor changed: its launches kept */
  g->next = gens;
  gens = g;
  pthread_mutex_unlock(&gen_lock);
  return &g->kb;
}

/* Host forms of a large matrix ask for the cc tier at once (where the
 * default tier is auto): libtcc's code of a 27-term body runs at about a
 * fifth of its speed, and its cc compile (seconds on a loaded host) would
 * often finish only after the calls that wanted it; then disk-cached.
 * Device forms and small matrices take the JIT's usual path. */
#define SK_DIA_CC_NNZ (1 << 20)

static int launch(const sk_kbody *kb, int64_t n, const sk_arg *a, int na, int cc,
                  sk_result *res, char *err, size_t errlen) {
  if (!cc || sk_jit_default_tier() != SK_TIER_AUTO)
    return sk_sp_range(kb, n, a, na, res, err, errlen);
  sk_kdesc d;
  if (sk_kbody_desc(kb, NULL, &d, err, errlen) < 0) return -1;
  d.tier = SK_TIER_CC;
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return sk_run(&d, &p, a, na, res, err, errlen);
}

/* runs of rows for the host forms: one a thread (sparse.spmv's) */
static int64_t host_chunks(const sk_backend *b, int64_t n) {
  int64_t c = b->concurrency ? b->concurrency() : 1;
  if (c < 1) c = 1;
  return c > n ? n : c;
}

int sk_dia_spmv(const sk_dia *d, const sk_csr *A, double alpha, const sk_view *x, double beta,
                const sk_view *y, char *err, size_t errlen) {
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  const int host = sk_sp_host(b);
  const sk_kbody *kb = body_for(host ? F_SPMV : F_SPMV_ROW, d, err, errlen);
  if (!kb) return -1;
  sk_arg a[10];
  int n = 0;
  a[n++] = sk_arg_view_ro("dc", &d->code);
  a[n++] = sk_arg_view_ro("dtab", &d->tab);
  a[n++] = sk_arg_view_ro("dv", &d->dv);
  a[n++] = sk_arg_view("x", x);
  a[n++] = sk_arg_view("y", y);
  a[n++] = sk_arg_f64("alpha", alpha);
  a[n++] = sk_arg_f64("beta", beta);
  if (!host) return sk_sp_range(kb, A->nrows, a, n, NULL, err, errlen);
  const int64_t nchunk = host_chunks(b, A->nrows);
  a[n++] = sk_arg_view_ro("rowptr", A->rowptr);
  a[n++] = sk_arg_i64("nchunk", nchunk);
  return launch(kb, nchunk, a, n, A->nnz >= SK_DIA_CC_NNZ, NULL, err, errlen);
}

int sk_dia_cg_dots(const sk_dia *d, const sk_csr *A, const sk_view *u, const sk_view *w,
                   const sk_view *rv, double out[3], char *err, size_t errlen) {
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  const int host = sk_sp_host(b);
  const sk_kbody *kb = body_for(host ? F_CG : F_CG_ROW, d, err, errlen);
  if (!kb) return -1;
  sk_arg a[9];
  int n = 0;
  a[n++] = sk_arg_view_ro("dc", &d->code);
  a[n++] = sk_arg_view_ro("dtab", &d->tab);
  a[n++] = sk_arg_view_ro("dv", &d->dv);
  a[n++] = sk_arg_view("u", u);
  a[n++] = sk_arg_view("w", w);
  a[n++] = sk_arg_view("rv", rv);
  int64_t len = A->nrows;
  if (host) {
    len = host_chunks(b, A->nrows);
    a[n++] = sk_arg_view_ro("rowptr", A->rowptr);
    a[n++] = sk_arg_i64("nchunk", len);
  }
  sk_result res;
  if (launch(kb, len, a, n, host && A->nnz >= SK_DIA_CC_NNZ, &res, err, errlen) < 0) return -1;
  for (int t = 0; t < 3; t++) out[t] = sk_result_f64(&res, t);
  return 0;
}

int sk_dia_cheby(const sk_dia *d, const sk_csr *A, const sk_view *z, const sk_view *zn,
                 const sk_view *dd, const sk_view *rv, const sk_view *dinv, double c0,
                 double c1, double c2, int keep_d, char *err, size_t errlen) {
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  const sk_kbody *kb = body_for(z ? F_CHEBY : F_CHEBY1, d, err, errlen);
  if (!kb) return -1;
  const int64_t nchunk = host_chunks(b, A->nrows);
  sk_arg a[14];
  int n = 0;
  a[n++] = sk_arg_view_ro("dc", &d->code);
  a[n++] = sk_arg_view_ro("dtab", &d->tab);
  a[n++] = sk_arg_view_ro("dv", &d->dv);
  a[n++] = sk_arg_view_ro("rowptr", A->rowptr);
  if (z) a[n++] = sk_arg_view_ro("z", z);
  a[n++] = sk_arg_view("zn", zn);
  a[n++] = sk_arg_view("d", dd);
  a[n++] = sk_arg_view_ro("rv", rv);
  a[n++] = sk_arg_view_ro("dinv", dinv);
  a[n++] = sk_arg_i64("nchunk", nchunk);
  if (!z) {
    a[n++] = sk_arg_f64("c0", c0);
    a[n++] = sk_arg_i64("wd", keep_d != 0);
  }
  a[n++] = sk_arg_f64("c1", c1);
  a[n++] = sk_arg_f64("c2", c2);
  return launch(kb, nchunk, a, n, A->nnz >= SK_DIA_CC_NNZ, NULL, err, errlen);
}

int sk_dia_resid(const sk_dia *d, const sk_csr *A, const sk_view *b, const sk_view *x,
                 const sk_view *t, char *err, size_t errlen) {
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  const sk_kbody *kb = body_for(F_RESID, d, err, errlen);
  if (!kb) return -1;
  const int64_t nchunk = host_chunks(be, A->nrows);
  sk_arg a[] = {sk_arg_view_ro("dc", &d->code),     sk_arg_view_ro("dtab", &d->tab),
                sk_arg_view_ro("dv", &d->dv),       sk_arg_view_ro("rowptr", A->rowptr),
                sk_arg_view_ro("x", x),             sk_arg_view_ro("bv", b),
                sk_arg_view("y", t),                sk_arg_i64("nchunk", nchunk)};
  return launch(kb, nchunk, a, NELEM(a), A->nnz >= SK_DIA_CC_NNZ, NULL, err, errlen);
}
