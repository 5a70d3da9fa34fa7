/* vdict.c: a matrix's values as one-byte codes into a table of at most
 * SK_VDICT_MAX distinct values, where the matrix has that few (a stencil
 * of constant coefficients, a graph's unit weights): an SpMV then reads 1
 * byte an entry instead of 8 (with the compact index, 3 instead of 10:
 * Kourtis et al.'s CSR-VI, "value indexing"). The codes give every entry
 * its value bit for bit, so the sums are those of the plain form. The one
 * place that builds them; sparse.spmv and the host CG of speck.solve
 * (kernels/solve/krylov.c) read them, with the compact index (csr16.c).
 *
 * Kept with the matrix: a memo of the values array's allocation (core/
 * view.h), keyed by its place, length and write stamp, as csr16.c keys
 * the index (a launch that may write the values, a deep_copy, fill or
 * store from Lua, or a replayed capture makes it stale). Built once the
 * values have served SK_CSR16_USES SpMVs unchanged: the table from
 * SK_VDICT_SAMPLE values in SK_VDICT_WINDOWS windows spread over the
 * array (read to the host), then one pass that
 * codes every entry and tells whether the table lacked one -- then the
 * matrix has no codes (remembered until the values change: the pass is
 * not repeated). The pass reads the values once and writes a byte an
 * entry: about a third of an SpMV.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"

#define SK_VDICT_SAMPLE 4096
#define SK_VDICT_WINDOWS 16

#define CODE_SIG(VT) "range" R1("values", VT) R1("tab", VT) R1("code", "uint8") " nt=int64"
static const char *const sig_code[] = {CODE_SIG("float64"), CODE_SIG("float32"), NULL};
static const sk_kbody k_code = {.label = "sparse.vdict_code",
                                .body = sk_body_sparse_vdict_code,
                                .pattern = SK_REDUCE,
                                .sigs = sig_code,
                                .reds = "max:int64"};
const sk_kbody *const sk_vdict_bodies[] = {&k_code, NULL};

void sk_vdict_release(sk_vdict *d) {
  sk_view_release(&d->code);
  sk_view_release(&d->tab);
  memset(d, 0, sizeof *d);
}

/* the distinct values (bit patterns) of 'h' (host, n of them, dtype dt)
 * added to the nt already in t (at most SK_VDICT_MAX): their number, or -1
 * when more */
static int distinct(const sk_view *h, int64_t n, int dt, uint64_t *t, int nt) {
  for (int64_t i = 0; i < n; i++) {
    uint64_t b = 0;
    if (dt == SK_F64) memcpy(&b, (const double *)h->data + i * h->stride[0], 8);
    else memcpy(&b, (const float *)h->data + i * h->stride[0], 4);
    int j = 0;
    while (j < nt && t[j] != b) j++;
    if (j < nt) continue;
    if (nt == SK_VDICT_MAX) return -1;
    t[nt++] = b;
  }
  return nt;
}

int sk_vdict_build(const sk_view *values, sk_vdict *d, char *err, size_t errlen) {
  memset(d, 0, sizeof *d);
  const int64_t nnz = values->extent[0];
  const int dt = values->dtype;
  if (nnz < 1 || (dt != SK_F64 && dt != SK_F32)) return 0;
  /* the table: the sample's distinct values, the sample SK_VDICT_WINDOWS
   * windows spread evenly over the values, the first at entry 0 and the
   * last at the end (a matrix whose first rows are not like the rest, a
   * boundary's identity rows numbered first, still gets the rest's values) */
  const int64_t wlen = SK_VDICT_SAMPLE / SK_VDICT_WINDOWS;
  const int nw = nnz <= SK_VDICT_SAMPLE ? 1 : SK_VDICT_WINDOWS;
  const size_t esize = dt == SK_F64 ? 8 : 4;
  uint64_t bits[SK_VDICT_MAX];
  int nt = 0;
  for (int w = 0; w < nw && nt >= 0; w++) {
    sk_view sample = *values, h;
    const int64_t start = nw == 1 ? 0 : (nnz - wlen) * w / (nw - 1);
    sample.data = (char *)values->data + (size_t)start * esize;
    sample.extent[0] = nw == 1 ? nnz : wlen;
    if (sk_sp_host_copy(&sample, &h, err, errlen) < 0) return -1;
    nt = distinct(&h, sample.extent[0], dt, bits, nt);
    sk_view_release(&h);
  }
  if (nt < 0) return 0; /* too many in the sample alone */
  sk_view tab;
  if (sk_sp_view(&tab, "value table", dt, nt, SK_SPACE_HOST, 0, err, errlen) < 0) return -1;
  for (int j = 0; j < nt; j++)
    memcpy((char *)tab.data + (size_t)j * (dt == SK_F64 ? 8 : 4), &bits[j], dt == SK_F64 ? 8 : 4);
  if (sk_sp_view(&d->tab, "value table", dt, nt, values->space, 0, err, errlen) < 0 ||
      sk_view_deep_copy(&d->tab, &tab, err, errlen) < 0 ||
      sk_sp_view(&d->code, "value codes", SK_U8, nnz, values->space, 0, err, errlen) < 0) {
    sk_view_release(&tab);
    sk_vdict_release(d);
    return -1;
  }
  sk_view_release(&tab);
  sk_arg a[] = {sk_arg_view_ro("values", values), sk_arg_view_ro("tab", &d->tab),
                sk_arg_view("code", &d->code), sk_arg_i64("nt", nt)};
  sk_result res;
  if (sk_sp_range(&k_code, nnz, a, NELEM(a), &res, err, errlen) < 0) {
    sk_vdict_release(d);
    return -1;
  }
  if (sk_result_i64(&res, 0) > 0) { /* a value the sample did not have */
    sk_vdict_release(d);
    return 0;
  }
  d->ok = 1;
  return 0;
}

/* -- the memo ------------------------------------------------------------------- */
typedef struct vmemo {
  const void *data; /* the values' place and length */
  int64_t n;
  int dtype;
  uint64_t gen;  /* the write stamp it was keyed at */
  uint64_t made; /* the clock then (a later replay makes it stale) */
  int64_t uses;
  int built;
  sk_vdict d;
} vmemo;

static pthread_mutex_t vmemo_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 where 'values' can have kept codes (a contiguous float vector in
 * memory that keeps memos, outside a graph capture) */
static int could(const sk_view *values) {
  return !(sk_capture_mode() || values->rank != 1 || !sk_view_contiguous(values) ||
           (values->dtype != SK_F64 && values->dtype != SK_F32) ||
           !sk_alloc_memo_ok(values->alloc));
}

/* 1 when memo 'm' is keyed at 'values' as they are now (write stamp 'gen') */
static int keyed(const vmemo *m, const sk_view *values, uint64_t gen) {
  return m->data == values->data && m->n == values->extent[0] &&
         m->dtype == values->dtype && m->gen == gen && m->made > sk_alloc_replay_mark();
}

/* 'm' emptied and keyed at 'values' now */
static void rekey(vmemo *m, const sk_view *values, uint64_t gen) {
  sk_vdict_release(&m->d);
  memset(m, 0, sizeof *m);
  m->data = values->data;
  m->n = values->extent[0];
  m->dtype = values->dtype;
  m->gen = gen;
  m->made = sk_alloc_clock();
}

static void vmemo_free(void *p) {
  vmemo *m = p;
  sk_vdict_release(&m->d);
  free(m);
}

int sk_vdict_peek(const sk_view *values, sk_vdict *d) {
  memset(d, 0, sizeof *d);
  sk_alloc *a = values->alloc;
  if (!could(values)) return 0;
  pthread_mutex_lock(&vmemo_lock);
  vmemo *m = sk_alloc_memo(a, sizeof *m, vmemo_free);
  if (m && m->built && m->d.ok && keyed(m, values, sk_alloc_stamp(a))) {
    *d = m->d;
    sk_view_retain(&d->code);
    sk_view_retain(&d->tab);
  }
  pthread_mutex_unlock(&vmemo_lock);
  return d->ok;
}

int sk_vdict_adopt(const sk_view *values, const sk_vdict *d) {
  sk_alloc *a = values->alloc;
  if (!d->ok || !could(values) || d->code.extent[0] != values->extent[0] ||
      d->tab.dtype != values->dtype)
    return 0;
  pthread_mutex_lock(&vmemo_lock);
  vmemo *m = sk_alloc_memo(a, sizeof *m, vmemo_free);
  if (m) {
    rekey(m, values, sk_alloc_stamp(a));
    m->built = 1;
    m->d = *d;
    sk_view_retain(&m->d.code);
    sk_view_retain(&m->d.tab);
  }
  pthread_mutex_unlock(&vmemo_lock);
  return m != NULL;
}

int sk_vdict_get(const sk_view *values, int64_t uses, sk_vdict *d, char *err,
                 size_t errlen) {
  memset(d, 0, sizeof *d);
  sk_alloc *a = values->alloc;
  if (uses < 1 || !could(values)) return 0;
  pthread_mutex_lock(&vmemo_lock);
  int rc = 0;
  vmemo *m = sk_alloc_memo(a, sizeof *m, vmemo_free);
  if (!m) goto out; /* another facility's memo, or no memory */
  const uint64_t gen = sk_alloc_stamp(a);
  if (!keyed(m, values, gen)) rekey(m, values, gen);
  if (!m->built) {
    m->uses += uses;
    if (m->uses < SK_CSR16_USES) goto out;
    /* the pass only reads the values: their stamp stays */
    if (sk_vdict_build(values, &m->d, err, errlen) < 0) {
      rc = -1;
      goto out;
    }
    m->built = 1;
  }
  *d = m->d;
  if (d->ok) {
    sk_view_retain(&d->code);
    sk_view_retain(&d->tab);
  }
out:
  pthread_mutex_unlock(&vmemo_lock);
  return rc;
}
