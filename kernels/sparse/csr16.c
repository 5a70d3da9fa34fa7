/* csr16.c: a CSR matrix's compact index -- the row pointers as int32 and
 * each column as an int16 offset from its row, where every column lies
 * within 32767 of its row and the entries fit int32: 6 bytes a row and 2
 * an entry fewer for an SpMV to read (5-point rows: 74 bytes instead of
 * 84 with x and y). The one place that builds it; sparse.spmv, the CG of
 * sparse.cg and speck.solve (kernels/solve/krylov.c) and speck.dist's CG
 * (kernels/dist/cg.c) read it.
 *
 * Kept with the matrix: the index is a memo of the column-index array's
 * allocation (core/view.h), keyed by the row-pointer view (its
 * allocation, retained, its place and length) and both allocations'
 * write stamps: a launch that does not promise to only read them, a
 * deep_copy or fill into them, a store from Lua gives a new stamp, and
 * the memo is then stale and made anew; a replayed capture makes every
 * memo stale; memory wrapped from outside (never freed by speck) or
 * handed out as a raw pointer gets none. Built once the matrix's pattern
 * has served SK_CSR16_USES SpMVs unchanged (CG asks for all its
 * iterations at once): the build, one pass (rowptr and colidx read, the
 * two arrays written, about half an SpMV on the 5-point matrix), pays
 * back after a few SpMVs (docs/bench.md). Inside a capture the memo is
 * neither built nor used (a replay could outlive it).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"


static const char *const sig_make[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("rp32", "int32") R1("off", "int16")
  " n=int64",
  NULL};
static const sk_kbody k_make = {.label = "sparse.csr16_make",
                                .body = sk_body_sparse_csr16_make,
                                .pattern = SK_REDUCE,
                                .sigs = sig_make,
                                .reds = "max:int64 max:int64"};
const sk_kbody *const sk_csr16_bodies[] = {&k_make, NULL};

void sk_csr16_release(sk_csr16 *c) {
  sk_view_release(&c->rowptr);
  sk_view_release(&c->off);
  memset(c, 0, sizeof *c);
}

int sk_csr16_build(const sk_view *rowptr, const sk_view *colidx, sk_csr16 *c, char *err,
                   size_t errlen) {
  memset(c, 0, sizeof *c);
  int64_t n = rowptr->extent[0] - 1, nnz = 0;
  if (n < 0) return 0;
  if (sk_sp_get_i64(rowptr, n, &nnz, err, errlen) < 0) return -1;
  int64_t n1 = n + 1, nz = nnz > 0 ? nnz : 1;
  if (sk_view_create(&c->rowptr, "rowptr32", SK_I32, 1, &n1, SK_RIGHT, colidx->space, 0,
                     NULL, err, errlen) < 0)
    return -1;
  if (sk_view_create(&c->off, "column_offsets", SK_I16, 1, &nz, SK_RIGHT, colidx->space, 0,
                     NULL, err, errlen) < 0) {
    sk_csr16_release(c);
    return -1;
  }
  sk_arg a[] = {sk_arg_view_ro("rowptr", rowptr), sk_arg_view_ro("colidx", colidx),
                sk_arg_view("rp32", &c->rowptr), sk_arg_view("off", &c->off),
                sk_arg_i64("n", n)};
  sk_result res;
  if (sk_sp_range(&k_make, n + 1, a, NELEM(a), &res, err, errlen) < 0) {
    sk_csr16_release(c);
    return -1;
  }
  int64_t right = sk_result_i64(&res, 0), left = sk_result_i64(&res, 1);
  int fits = right <= 32767 && left <= 32767 && nnz <= 2147483647;
  if (!fits) {
    sk_view_release(&c->rowptr);
    sk_view_release(&c->off);
  }
  c->right = right > 0 ? right : 0;
  c->left = left > 0 ? left : 0;
  c->ok = fits;
  return 0;
}

/* -- the memo ------------------------------------------------------------------- */
typedef struct memo {
  sk_pattern_key key; /* the pattern it was made of (core/view.h) */
  int64_t uses;       /* SpMVs seen of this pattern */
  int built;
  sk_csr16 c;
} memo;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static void memo_clear(memo *m) {
  sk_pattern_key_clear(&m->key);
  sk_csr16_release(&m->c);
  memset(m, 0, sizeof *m);
}

static void memo_free(void *p) {
  memo_clear(p);
  free(p);
}



int sk_csr16_could(const sk_view *rowptr, const sk_view *colidx) {
  return !(sk_capture_mode() || rowptr->rank != 1 || colidx->rank != 1 ||
           rowptr->dtype != SK_I64 || colidx->dtype != SK_I32 || !sk_view_contiguous(rowptr) ||
           !sk_view_contiguous(colidx) || !sk_alloc_memo_ok(colidx->alloc) ||
           !sk_alloc_memo_ok(rowptr->alloc) || rowptr->extent[0] < 1);
}

int sk_csr16_get(const sk_view *rowptr, const sk_view *colidx, int64_t uses, sk_csr16 *c,
                 char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  sk_alloc *ca = colidx->alloc;
  if (uses < 1 || !sk_csr16_could(rowptr, colidx)) return 0;
  pthread_mutex_lock(&memo_lock);
  int rc = 0;
  memo *m = sk_alloc_memo(ca, sizeof *m, memo_free);
  if (!m) goto out; /* another facility's memo, or no memory */
  if (!sk_pattern_key_same(&m->key, rowptr, colidx)) {
    memo_clear(m);
    sk_pattern_key_set(&m->key, rowptr, colidx);
  }
  if (!m->built) {
    m->uses += uses;
    if (m->uses < SK_CSR16_USES) goto out;
    /* the build only reads rowptr and colidx: their stamps stay */
    if (sk_csr16_build(rowptr, colidx, &m->c, err, errlen) < 0) {
      rc = -1;
      goto out;
    }
    m->built = 1;
  }
  *c = m->c;
  if (c->ok) {
    sk_view_retain(&c->rowptr);
    sk_view_retain(&c->off);
  }
out:
  pthread_mutex_unlock(&memo_lock);
  return rc;
}
