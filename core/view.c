/* view.c: views and their reference-counted allocations (see view.h).
 *
 * Everything here is plain C over 'struct sk_view': the dtype table, the
 * layout arithmetic, allocation through the back end that owns the space,
 * deep_copy, fill and element access. Tiled views are in tiled.c, the
 * memory spaces and their budgets in space.c. Nothing raises or prints: functions
 * return 0 or a negative status and write a message into 'err'. The Lua
 * bindings (vm/lview.c) prefix the messages with the operation and label.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/err.h"
#include "core/tools.h"
#include "core/view.h"
#include "core/view_int.h"

/* -- dtypes and layouts ----------------------------------------------- */
const sk_dtype_info sk_dtypes[SK_NDTYPE] = {
  /* name       alias     ctype       tag    size fl sg bo cx */
  {"float64", "double", "double", "f64", 8, 1, 1, 0, 0},
  {"float32", "float", "float", "f32", 4, 1, 1, 0, 0},
  {"int64", NULL, "int64_t", "i64", 8, 0, 1, 0, 0},
  {"int32", NULL, "int32_t", "i32", 4, 0, 1, 0, 0},
  {"int16", NULL, "int16_t", "i16", 2, 0, 1, 0, 0},
  {"int8", NULL, "int8_t", "i8", 1, 0, 1, 0, 0},
  {"uint64", NULL, "uint64_t", "u64", 8, 0, 0, 0, 0},
  {"uint32", NULL, "uint32_t", "u32", 4, 0, 0, 0, 0},
  {"uint8", NULL, "uint8_t", "u8", 1, 0, 0, 0, 0},
  {"bool", NULL, "bool", "b8", 1, 0, 0, 1, 0},
  /* complex: sk_c128 / sk_c64 are the dialect's types (double _Complex
   * under the cc tier, a class of two parts on a GPU), laid out {re, im} */
  {"complex128", NULL, "sk_c128", "c128", 16, 1, 1, 0, 1},
  {"complex64", NULL, "sk_c64", "c64", 8, 1, 1, 0, 1},
};

static const char *const layout_names[] = {"right", "left", "stride", "tiled_right",
                                           "tiled_left"};

int sk_dtype_parse(const char *s) {
  if (!s) return -1;
  for (int i = 0; i < SK_NDTYPE; i++)
    if (strcmp(s, sk_dtypes[i].name) == 0 ||
        (sk_dtypes[i].alias && strcmp(s, sk_dtypes[i].alias) == 0))
      return i;
  return -1;
}

int sk_layout_parse(const char *s) {
  if (!s) return -1;
  for (int i = 0; i < 3; i++)
    if (strcmp(s, layout_names[i]) == 0) return i;
  return -1;
}

const char *sk_layout_name(int layout) {
  return layout >= 0 && layout < 5 ? layout_names[layout] : "?";
}

int sk_agg_width(int agg, int n) {
  return agg == SK_AGG_FAD ? n + 1 : agg == SK_AGG_ENS ? n : 1;
}

int sk_agg_parse(const char *s, int *agg, int *n) {
  const char *p;
  if (!s) return -1;
  if (strncmp(s, "fad(", 4) == 0) {
    *agg = SK_AGG_FAD;
    p = s + 4;
  } else if (strncmp(s, "ensemble(", 9) == 0) {
    *agg = SK_AGG_ENS;
    p = s + 9;
  } else return -1;
  char *end;
  long x = strtol(p, &end, 10);
  if (end == p || strcmp(end, ")") != 0) return -1;
  if (x < 1 || x > SK_AGG_MAXN) return -2;
  *n = (int)x;
  return 0;
}

const char *sk_view_dtype_name(const sk_view *v, char *buf, size_t n) {
  if (v->agg == SK_AGG_FAD) snprintf(buf, n, "fad(%d)", v->agg_n);
  else if (v->agg == SK_AGG_ENS) snprintf(buf, n, "ensemble(%d)", v->agg_n);
  else snprintf(buf, n, "%s", sk_dtypes[v->dtype].name);
  return buf;
}

int sk_layout_tiled(int layout) {
  return layout == SK_TILED_RIGHT || layout == SK_TILED_LEFT;
}

int sk_layout_order(int layout) {
  if (layout == SK_TILED_RIGHT) return SK_RIGHT;
  if (layout == SK_TILED_LEFT) return SK_LEFT;
  return layout;
}

/* -- layout arithmetic ------------------------------------------------- */
/* Strides are products of extents. The products are formed in unsigned
 * arithmetic so that a caller probing absurd extents gets wrapped values
 * instead of undefined behaviour; sk_view_create rejects such extents
 * (through sk_view_size) before they are used. */
void sk_view_layout_strides(int rank, int layout, const int64_t *ext, int64_t *stride) {
  uint64_t s = 1;
  if (rank < 0) rank = 0;
  if (rank > SK_MAXRANK) rank = SK_MAXRANK;
  for (int d = rank; d < SK_MAXRANK; d++) stride[d] = 0;
  if (layout == SK_LEFT) {
    for (int d = 0; d < rank; d++) {
      stride[d] = (int64_t)s;
      s *= (uint64_t)ext[d];
    }
  } else {
    for (int d = rank - 1; d >= 0; d--) {
      stride[d] = (int64_t)s;
      s *= (uint64_t)ext[d];
    }
  }
}

int64_t sk_view_size(const sk_view *v) {
  int64_t n = 1;
  for (int d = 0; d < v->rank; d++) {
    if (v->extent[d] < 0) return -1;
    if (__builtin_mul_overflow(n, v->extent[d], &n)) return -1;
  }
  return n;
}

int64_t sk_view_span(const sk_view *v) {
  if (sk_layout_tiled(v->layout)) return sk_tiled_span(v);
  int64_t s = 1;
  for (int d = 0; d < v->rank; d++) {
    if (v->extent[d] == 0) return 0;
    s += (v->extent[d] - 1) * v->stride[d];
  }
  return s;
}

/* Our views never map two indices to one element (strides come from a
 * layout, subviews only select), so dense <=> size == span. */
int sk_view_contiguous(const sk_view *v) {
  int64_t n = sk_view_size(v);
  return n == 0 || n == sk_view_span(v);
}

int64_t sk_view_offset(const sk_view *v, const int64_t *idx) {
  int64_t o = 0;
  if (sk_layout_tiled(v->layout)) {
    int64_t in[SK_MAXRANK];
    sk_tiled_inner_strides(v, in);
    for (int d = 0; d < v->rank; d++) {
      int sh = v->tile_log2[d];
      o += (idx[d] >> sh) * v->stride[d] + (idx[d] & (((int64_t)1 << sh) - 1)) * in[d];
    }
    return o;
  }
  for (int d = 0; d < v->rank; d++) o += idx[d] * v->stride[d];
  return o;
}

char *sk_view_format_extents(const sk_view *v, char *buf, size_t n) {
  size_t k = 0;
  if (n) buf[0] = 0;
  /* an aggregate view's hidden dimension is not shown */
  for (int d = 0; d < v->rank - (v->agg ? 1 : 0) && k < n; d++) {
    int w = snprintf(buf + k, n - k, "[%lld]", (long long)v->extent[d]);
    if (w < 0) break;
    k += (size_t)w;
  }
  return buf;
}

/* 1 if 'a' and 'b' (equal rank and extents) put every index at the same
 * element offset; dimensions of extent 1 do not matter. */
int sk_view_same_map(const sk_view *a, const sk_view *b) {
  if (sk_layout_tiled(a->layout) || sk_layout_tiled(b->layout)) {
    if (a->layout != b->layout) return 0;
    for (int d = 0; d < a->rank; d++)
      if (a->tile_log2[d] != b->tile_log2[d]) return 0;
  }
  for (int d = 0; d < a->rank; d++)
    if (a->extent[d] > 1 && a->stride[d] != b->stride[d]) return 0;
  return 1;
}

/* -- allocation and reference counts ---------------------------------- */
void sk_view_set_label(sk_view *v, const char *label) {
  snprintf(v->label, sizeof v->label, "%s", label ? label : "");
}

int sk_view_create(sk_view *v, const char *label, int dtype, int rank, const int64_t *ext,
                   int layout, int space, int init, void *ext_data, char *err,
                   size_t errlen) {
  memset(v, 0, sizeof *v);
  sk_view_set_label(v, label);
  if (dtype < 0 || dtype >= SK_NDTYPE)
    return sk_err(err, errlen, SK_E_UNKNOWN_DTYPE_NUM, dtype);
  if (rank < 0) return sk_err(err, errlen, SK_E_RANK_NEGATIVE, rank);
  if (rank > SK_MAXRANK)
    return sk_err(err, errlen, SK_E_RANK_EXCEEDS_MAXIMUM, rank, SK_MAXRANK);
  if (layout == SK_STRIDE)
    return sk_err(err, errlen, SK_E_LAYOUT_ONLY_SUBVIEWS, sk_layout_name(layout));
  if (layout != SK_RIGHT && layout != SK_LEFT)
    return sk_err(err, errlen, SK_E_UNKNOWN_LAYOUT, layout);
  if (!sk_space_desc_of(space)) return sk_err(err, errlen, SK_E_UNKNOWN_SPACE_NUM, space);
  for (int d = 0; d < rank; d++)
    if (ext[d] < 0)
      return sk_err(err, errlen, SK_E_EXTENT_MUST_NON, d, (long long)ext[d]);

  v->dtype = dtype;
  v->rank = rank;
  v->layout = layout;
  v->space = space;
  for (int d = 0; d < SK_MAXRANK; d++) v->extent[d] = d < rank ? ext[d] : 1;

  int64_t n = sk_view_size(v);
  size_t es = sk_dtypes[dtype].size, bytes = 0;
  if (n < 0 || __builtin_mul_overflow((size_t)n, es, &bytes)) {
    char dims[SK_MAXRANK * 24];
    return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_SIZE,
                  sk_view_format_extents(v, dims, sizeof dims), sk_dtypes[dtype].name);
  }
  sk_view_layout_strides(rank, layout, v->extent, v->stride);

  sk_alloc *a = malloc(sizeof *a);
  if (!a) return sk_err(err, errlen, SK_E_OUT_MEMORY_ALLOCATION);
  a->refs = 1;
  a->wgen = 0;
  a->exposed = 0;
  for (int m = 0; m < SK_ALLOC_MEMOS; m++) {
    a->memo[m] = NULL;
    a->memo_free[m] = NULL;
  }
  a->handle = NULL;
  a->bytes = bytes;
  a->space = space;
  if (ext_data) {
    a->ptr = ext_data;
    a->owned = 0;
    v->traits |= SK_TRAIT_UNMANAGED;
  } else {
    const sk_backend *b = sk_backend_for_space(space);
    char why[256] = "";
    if (sk_capture_mode()) { /* (the text formatted only then: sk_err sets err_last) */
      char what[SK_LABEL_MAX + 32];
      sk_err(what, sizeof what, SK_E_CAPTURE_WHAT_ALLOC, v->label);
      sk_capture_refuse(what, "a replay reuses the capture's memory: allocate before it", err,
                        errlen);
      free(a);
      return -1;
    }
    if (!b || !b->alloc) {
      free(a);
      return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_NO, bytes,
                    sk_space_name(space));
    }
    /* no C object may exceed PTRDIFF_MAX bytes: such a request fails here,
     * without asking an allocator (sanitizers abort on them) */
    void *p = NULL;
    /* past the space's budget (host memory alone too large: the host back
     * end says so; beside what is held: here) */
    _Atomic int64_t *h = sk_space_held(space);
    if (h && bytes <= (size_t)PTRDIFF_MAX &&
        (space != SK_SPACE_HOST || atomic_load(h) > 0)) {
      char desc[128];
      uint64_t most = sk_space_budget(space, desc, sizeof desc);
      int64_t held = atomic_load(h);
      if (most && (space != SK_SPACE_HOST || bytes <= most) &&
          bytes + (uint64_t)(held > 0 ? held : 0) > most) {
        free(a);
        return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_SPACE,
                      (unsigned long long)bytes, sk_space_name(space), (long long)held,
                      desc);
      }
    }
    if (bytes <= (size_t)PTRDIFF_MAX) /* 0 bytes: still a freeable block */
      p = b->alloc(bytes ? bytes : 64, space, why, sizeof why);
    if (!p) {
      free(a);
      if (!why[0]) return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES, bytes);
      return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_IN_SPACE, bytes,
                    sk_space_name(space), why);
    }
    if (init && bytes && b->first_touch) b->first_touch(p, bytes);
    if (h) atomic_fetch_add(h, (int64_t)bytes);
    a->ptr = p;
    a->owned = 1;
    snprintf(a->label, sizeof a->label, "%s", v->label);
    sk_tools_alloc(space, a->label, p, bytes);
  }
  v->alloc = a;
  v->data = a->ptr;
  return 0;
}

/* A view with the given strides (LayoutStride built directly): one block
 * of span elements holding every index, refused when two indices would
 * share an element (taken in increasing stride, each dimension's stride at
 * least the span of those before it -- the same test Kokkos' layouts pass)
 * or the span does not fit. Extents of 0 or 1 place no constraint. */
int sk_view_create_strided(sk_view *v, const char *label, int dtype, int rank,
                           const int64_t *ext, const int64_t *stride, int space, int init,
                           char *err, size_t errlen) {
  int ord[SK_MAXRANK], n = 0;
  if (rank < 1 || rank > SK_MAXRANK)
    return sk_err(err, errlen, SK_E_RANK_EXCEEDS_MAXIMUM, rank, SK_MAXRANK);
  for (int d = 0; d < rank; d++) {
    if (stride[d] < 1) return sk_err(err, errlen, SK_E_STRIDE_MUST_POSITIVE, d + 1,
                                     (long long)stride[d]);
    if (ext[d] < 0) return sk_err(err, errlen, SK_E_EXTENT_MUST_NON, d, (long long)ext[d]);
    if (ext[d] > 1) ord[n++] = d;
  }
  for (int i = 1; i < n; i++) /* insertion sort by stride (rank <= 8) */
    for (int j = i; j > 0 && stride[ord[j]] < stride[ord[j - 1]]; j--) {
      int t = ord[j];
      ord[j] = ord[j - 1];
      ord[j - 1] = t;
    }
  int64_t span = 1;
  for (int i = 0; i < n; i++) {
    int d = ord[i];
    if (stride[d] < span)
      return sk_err(err, errlen, SK_E_STRIDE_OVERLAP, d + 1, (long long)stride[d],
                    ord[i - 1] + 1, (long long)span);
    int64_t add;
    if (__builtin_mul_overflow(ext[d] - 1, stride[d], &add) ||
        __builtin_add_overflow(span, add, &span))
      return sk_err(err, errlen, SK_E_STRIDE_SPAN_OVERFLOW, d + 1, (long long)stride[d],
                    (long long)ext[d]);
  }
  for (int d = 0; d < rank; d++)
    if (ext[d] == 0) span = 0;
  if (sk_view_create(v, label, dtype, 1, &span, SK_RIGHT, space, init, NULL, err, errlen) < 0)
    return -1;
  v->rank = rank;
  v->layout = SK_STRIDE;
  for (int d = 0; d < SK_MAXRANK; d++) {
    v->extent[d] = d < rank ? ext[d] : 1;
    v->stride[d] = d < rank ? stride[d] : 0;
  }
  return 0;
}

/* -- write stamps ------------------------------------------------------ */
/* A block's stamp counts its writes (a memo compares the one it was made
 * at: the block's own counter is enough, and a launch's mark touches no
 * line shared between threads); the clock orders replays against the
 * memos' making */
static _Atomic uint64_t wclock = 1, wreplay = 0;

void sk_alloc_written(sk_alloc *a) {
  if (a) __atomic_fetch_add(&a->wgen, 1, __ATOMIC_RELEASE);
}

void sk_alloc_expose(sk_alloc *a) {
  if (!a) return;
  __atomic_store_n(&a->exposed, 1, __ATOMIC_RELEASE);
  sk_alloc_written(a);
}

void sk_alloc_replayed(void) {
  atomic_store(&wreplay, atomic_fetch_add(&wclock, 1) + 1);
}

uint64_t sk_alloc_clock(void) { return atomic_load_explicit(&wclock, memory_order_acquire); }

uint64_t sk_alloc_replay_mark(void) { return atomic_load(&wreplay); }

uint64_t sk_alloc_stamp(const sk_alloc *a) { return __atomic_load_n(&a->wgen, __ATOMIC_ACQUIRE); }

int sk_alloc_memo_ok(const sk_alloc *a) {
  return a && a->owned && !__atomic_load_n(&a->exposed, __ATOMIC_ACQUIRE) &&
         !sk_space_remote(a->space);
}

/* the slots are taken under one lock (each kind's memo under its own) */
static pthread_mutex_t memo_slots = PTHREAD_MUTEX_INITIALIZER;

void *sk_alloc_memo(sk_alloc *a, size_t size, void (*memo_free)(void *memo)) {
  pthread_mutex_lock(&memo_slots);
  void *m = NULL;
  int s = 0;
  while (s < SK_ALLOC_MEMOS && a->memo[s] && a->memo_free[s] != memo_free) s++;
  if (s < SK_ALLOC_MEMOS) {
    if (!a->memo[s] && (a->memo[s] = calloc(1, size)) != NULL) a->memo_free[s] = memo_free;
    m = a->memo[s];
  }
  pthread_mutex_unlock(&memo_slots);
  return m;
}

int sk_pattern_key_same(const sk_pattern_key *k, const sk_view *rowptr, const sk_view *colidx) {
  return k->rp.alloc == rowptr->alloc && k->rp.data == rowptr->data &&
         k->rp.extent[0] == rowptr->extent[0] && k->ci_data == colidx->data &&
         k->ci_n == colidx->extent[0] && k->ci_gen == sk_alloc_stamp(colidx->alloc) &&
         k->rp_gen == sk_alloc_stamp(rowptr->alloc) && k->made > sk_alloc_replay_mark();
}

void sk_pattern_key_clear(sk_pattern_key *k) {
  if (k->rp_own) sk_view_release(&k->rp);
  memset(k, 0, sizeof *k);
}

void sk_pattern_key_set(sk_pattern_key *k, const sk_view *rowptr, const sk_view *colidx) {
  sk_pattern_key_clear(k);
  k->rp = *rowptr;
  if (rowptr->alloc != colidx->alloc) {
    sk_view_retain(&k->rp);
    k->rp_own = 1;
  }
  k->ci_data = colidx->data;
  k->ci_n = colidx->extent[0];
  k->ci_gen = sk_alloc_stamp(colidx->alloc);
  k->rp_gen = sk_alloc_stamp(rowptr->alloc);
  k->made = sk_alloc_clock();
}

void sk_view_retain(sk_view *v) {
  if (v->alloc)
    atomic_fetch_add_explicit((_Atomic long *)&v->alloc->refs, 1, memory_order_relaxed);
}

/* The last reference frees the memory through the back end that gave it
 * (acq_rel: every store through any view happens before the free). */
void sk_view_release(sk_view *v) {
  sk_alloc *a = v->alloc;
  v->alloc = NULL;
  v->data = NULL;
  if (!a) return;
  if (atomic_fetch_sub_explicit((_Atomic long *)&a->refs, 1, memory_order_acq_rel) != 1)
    return;
  if (a->owned && a->ptr) {
    sk_tools_dealloc(a->space, a->label, a->ptr, a->bytes);
    const sk_backend *b = sk_backend_for_space(a->space);
    if (b && b->free) b->free(a->ptr, a->space);
    _Atomic int64_t *h = sk_space_held(a->space);
    if (h) atomic_fetch_sub(h, (int64_t)a->bytes);
  }
  for (int m = 0; m < SK_ALLOC_MEMOS; m++)
    if (a->memo[m] && a->memo_free[m]) a->memo_free[m](a->memo[m]);
  free(a);
}

/* -- element access ---------------------------------------------------- */
/* Conversions that are defined for every input: NaN and out-of-range
 * doubles saturate instead of invoking undefined behaviour. */
static int64_t d2i64(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)x;
}

static uint64_t d2u64(double x) {
  if (x != x || x <= 0) return x <= -1 ? (uint64_t)d2i64(x) : 0;
  if (x >= 18446744073709551615.0) return UINT64_MAX;
  return (uint64_t)x;
}

#define ELEM(T) (((T *)v->data)[off])
/* part k of a complex element of part type T */
#define CPART(T, k) (((T *)v->data)[2 * off + (k)])

double sk_view_get_f(const sk_view *v, int64_t off) {
  switch (v->dtype) {
  case SK_F64: return ELEM(double);
  case SK_F32: return ELEM(float);
  case SK_I64: return (double)ELEM(int64_t);
  case SK_I32: return ELEM(int32_t);
  case SK_I16: return ELEM(int16_t);
  case SK_I8: return ELEM(int8_t);
  case SK_U64: return (double)ELEM(uint64_t);
  case SK_U32: return ELEM(uint32_t);
  case SK_U8: return ELEM(uint8_t);
  case SK_BOOL: return ELEM(uint8_t) != 0;
  case SK_C128: return CPART(double, 0);
  case SK_C64: return CPART(float, 0);
  }
  return 0;
}

int64_t sk_view_get_i(const sk_view *v, int64_t off) {
  switch (v->dtype) {
  case SK_F64: return d2i64(ELEM(double));
  case SK_F32: return d2i64(ELEM(float));
  case SK_I64: return ELEM(int64_t);
  case SK_I32: return ELEM(int32_t);
  case SK_I16: return ELEM(int16_t);
  case SK_I8: return ELEM(int8_t);
  case SK_U64: return (int64_t)ELEM(uint64_t);
  case SK_U32: return ELEM(uint32_t);
  case SK_U8: return ELEM(uint8_t);
  case SK_BOOL: return ELEM(uint8_t) != 0;
  case SK_C128: return d2i64(CPART(double, 0));
  case SK_C64: return d2i64(CPART(float, 0));
  }
  return 0;
}

void sk_view_set_f(sk_view *v, int64_t off, double x) {
  switch (v->dtype) {
  case SK_F64: ELEM(double) = x; break;
  case SK_F32: ELEM(float) = (float)x; break;
  case SK_I64: ELEM(int64_t) = d2i64(x); break;
  case SK_I32: ELEM(int32_t) = (int32_t)d2i64(x); break;
  case SK_I16: ELEM(int16_t) = (int16_t)d2i64(x); break;
  case SK_I8: ELEM(int8_t) = (int8_t)d2i64(x); break;
  case SK_U64: ELEM(uint64_t) = d2u64(x); break;
  case SK_U32: ELEM(uint32_t) = (uint32_t)d2u64(x); break;
  case SK_U8: ELEM(uint8_t) = (uint8_t)d2u64(x); break;
  case SK_BOOL: ELEM(uint8_t) = x != 0; break;
  case SK_C128: CPART(double, 0) = x; CPART(double, 1) = 0; break;
  case SK_C64: CPART(float, 0) = (float)x; CPART(float, 1) = 0; break;
  }
}

void sk_view_set_i(sk_view *v, int64_t off, int64_t x) {
  switch (v->dtype) {
  case SK_F64: ELEM(double) = (double)x; break;
  case SK_F32: ELEM(float) = (float)x; break;
  case SK_I64: ELEM(int64_t) = x; break;
  case SK_I32: ELEM(int32_t) = (int32_t)x; break;
  case SK_I16: ELEM(int16_t) = (int16_t)x; break;
  case SK_I8: ELEM(int8_t) = (int8_t)x; break;
  case SK_U64: ELEM(uint64_t) = (uint64_t)x; break;
  case SK_U32: ELEM(uint32_t) = (uint32_t)x; break;
  case SK_U8: ELEM(uint8_t) = (uint8_t)x; break;
  case SK_BOOL: ELEM(uint8_t) = x != 0; break;
  case SK_C128: CPART(double, 0) = (double)x; CPART(double, 1) = 0; break;
  case SK_C64: CPART(float, 0) = (float)x; CPART(float, 1) = 0; break;
  }
}

void sk_view_get_c(const sk_view *v, int64_t off, double *re, double *im) {
  if (v->dtype == SK_C128) {
    *re = CPART(double, 0);
    *im = CPART(double, 1);
  } else if (v->dtype == SK_C64) {
    *re = CPART(float, 0);
    *im = CPART(float, 1);
  } else {
    *re = sk_view_get_f(v, off);
    *im = 0;
  }
}

void sk_view_set_c(sk_view *v, int64_t off, double re, double im) {
  if (v->dtype == SK_C128) {
    CPART(double, 0) = re;
    CPART(double, 1) = im;
  } else if (v->dtype == SK_C64) {
    CPART(float, 0) = (float)re;
    CPART(float, 1) = (float)im;
  } else {
    sk_view_set_f(v, off, re);
  }
}

#undef ELEM
#undef CPART

/* -- strided walks ----------------------------------------------------- */
/* A walk visits every index of 'n' dimensions (outermost first) and hands
 * runs along the innermost one to a copy or fill loop. Dimensions of
 * extent 1 are dropped and the rest ordered by the destination's stride,
 * largest first, so the inner loop runs along its smallest stride. */
void sk_walk_init(sk_walk *w, const sk_view *dst, const sk_view *src) {
  w->n = 0;
  for (int d = 0; d < dst->rank; d++) {
    if (dst->extent[d] == 1) continue;
    int k = w->n++;
    /* insertion by descending |dst stride| */
    while (k > 0 && w->a[k - 1] < dst->stride[d]) {
      w->ext[k] = w->ext[k - 1];
      w->a[k] = w->a[k - 1];
      w->b[k] = w->b[k - 1];
      k--;
    }
    w->ext[k] = dst->extent[d];
    w->a[k] = dst->stride[d];
    w->b[k] = src ? src->stride[d] : 0;
  }
}

static void copy_run(char *d, int64_t ds, const char *s, int64_t ss, int64_t n,
                     size_t es) {
  ds *= (int64_t)es;
  ss *= (int64_t)es;
  switch (es) {
  case 16: /* complex128 */
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, 16);
    break;
  case 8:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, 8);
    break;
  case 4:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, 4);
    break;
  case 2:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, 2);
    break;
  default:
    for (int64_t k = 0; k < n; k++) d[k * ds] = s[k * ss];
    break;
  }
}

static void fill_run(char *d, int64_t ds, const void *x, int64_t n, size_t es) {
  ds *= (int64_t)es;
  switch (es) {
  case 16: /* complex128 */
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, x, 16);
    break;
  case 8:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, x, 8);
    break;
  case 4:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, x, 4);
    break;
  case 2:
    for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, x, 2);
    break;
  default:
    for (int64_t k = 0; k < n; k++) d[k * ds] = *(const char *)x;
    break;
  }
}

/* Copy (src != NULL) or fill (x != NULL) every element of a non-empty
 * index space described by 'w'. */
void sk_walk_run(const sk_walk *w, char *dst, const char *src, const void *x, size_t es) {
  int64_t idx[SK_MAXRANK] = {0};
  int in = w->n - 1;
  if (w->n == 0) { /* one element */
    if (src) memcpy(dst, src, es);
    else memcpy(dst, x, es);
    return;
  }
  for (;;) {
    int64_t oa = 0, ob = 0;
    for (int k = 0; k < in; k++) {
      oa += idx[k] * w->a[k];
      ob += idx[k] * w->b[k];
    }
    if (src)
      copy_run(dst + oa * (int64_t)es, w->a[in], src + ob * (int64_t)es, w->b[in],
               w->ext[in], es);
    else fill_run(dst + oa * (int64_t)es, w->a[in], x, w->ext[in], es);
    int k = in - 1;
    while (k >= 0 && ++idx[k] == w->ext[k]) idx[k--] = 0;
    if (k < 0) break;
  }
}

/* -- host staging for device memory ----------------------------------- */
/* A host image of a view: the view itself when host accessible; otherwise
 * the bytes of its span copied (when 'load') into host memory from the
 * host back end, with the same strides. 'flush' writes the span back. */
int sk_stage_fence(int space, char *err, size_t errlen) {
  if (space == SK_SPACE_HOST) return 0;
  const sk_backend *b = sk_backend_for_space(space);
  return b && b->fence ? b->fence(err, errlen) : 0;
}

int sk_stage_open(sk_stage *s, const sk_view *v, int load, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->h = *v;
  if (sk_stage_fence(v->space, err, errlen) < 0) return -1;
  if (sk_space_host_accessible(v->space)) return 0;
  size_t es = sk_dtypes[v->dtype].size;
  s->bytes = (size_t)sk_view_span(v) * es;
  s->host = sk_backend_for_space(SK_SPACE_HOST);
  s->dev = sk_backend_for_space(v->space);
  if (!s->host || !s->dev || !s->dev->copy)
    return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_NO, s->bytes,
                  sk_space_name(v->space));
  char why[256] = "";
  s->buf = s->host->alloc(s->bytes ? s->bytes : 64, SK_SPACE_HOST, why, sizeof why);
  if (!s->buf) return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_HOST, s->bytes);
  s->h.data = s->buf;
  s->h.space = SK_SPACE_HOST;
  if (load && s->bytes &&
      s->dev->copy(s->buf, SK_SPACE_HOST, v->data, v->space, s->bytes, err, errlen) < 0) {
    s->host->free(s->buf, SK_SPACE_HOST);
    s->buf = NULL;
    return -1;
  }
  return 0;
}

/* Write the staged span back (when 'store') and free the staging. */
int sk_stage_close(sk_stage *s, const sk_view *v, int store, char *err, size_t errlen) {
  int st = 0;
  if (!s->buf) return 0;
  if (store && s->bytes)
    st = s->dev->copy(v->data, v->space, s->buf, SK_SPACE_HOST, s->bytes, err, errlen);
  s->host->free(s->buf, SK_SPACE_HOST);
  s->buf = NULL;
  return st;
}

/* -- deep_copy and fill ------------------------------------------------ */
int sk_view_check_memory(const sk_view *v, char *err, size_t errlen) {
  if (!v->data && sk_view_size(v) > 0)
    return sk_err(err, errlen, SK_E_VIEW_NO_MEMORY, v->label);
  return 0;
}

/* -- deep_copy with device-only memory ------------------------------------
 * 'D' is the side in device-only memory, 'H' the host side. The
 * host side is used in place when dense, else packed into (or unpacked
 * from) a dense host image by a host sk_walk over host memory only. The
 * device side takes one memcpy when it is dense with the image's index
 * map; otherwise the image goes to a dense device temporary and a pack
 * kernel moves the elements (copy_view). No host loop touches device
 * memory. */
int sk_view_dense_like(sk_view *out, const sk_view *like, int layout, int space,
                       char *err, size_t errlen) {
  if (layout != SK_LEFT && layout != SK_RIGHT) layout = SK_RIGHT;
  int64_t ext[SK_MAXRANK];
  for (int d = 0; d < like->rank; d++) ext[d] = like->extent[d];
  return sk_view_create(out, "deep_copy staging", like->dtype, like->rank, ext, layout,
                        space, 0, NULL, err, errlen);
}

static int device_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen) {
  int to_dev = !sk_space_host_accessible(dst->space);
  const sk_view *D = to_dev ? dst : src, *Hs = to_dev ? src : dst;
  const sk_backend *b = sk_backend_for_space(D->space);
  size_t es = sk_dtypes[D->dtype].size;
  if (!b || !b->copy || !b->copy_view)
    return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_NO,
                  (size_t)sk_view_size(D) * es, sk_space_name(D->space));
  if (sk_stage_fence(D->space, err, errlen) < 0) return -1;
  /* the host image: the host view itself when dense */
  sk_view H = *Hs, tmpH;
  int have_tmpH = 0, rc = 0;
  if (!sk_view_contiguous(Hs)) {
    int lay = D->layout == SK_STRIDE ? SK_RIGHT : D->layout;
    if (sk_view_dense_like(&tmpH, Hs, lay, SK_SPACE_HOST, err, errlen) < 0) return -1;
    have_tmpH = 1;
    H = tmpH;
    if (to_dev) { /* pack the host source */
      sk_walk w;
      sk_walk_init(&w, &H, Hs);
      sk_walk_run(&w, H.data, Hs->data, NULL, es);
    }
  }
  /* the device image: D itself when dense with H's map */
  sk_view T = *D, tmpT;
  int have_tmpT = 0;
  if (!(sk_view_contiguous(D) && sk_view_same_map(D, &H))) {
    if (sk_view_dense_like(&tmpT, D, 0, D->space, err, errlen) < 0) {
      rc = -1;
      goto out;
    }
    /* give the temporary H's strides (both dense, same extents) */
    for (int d = 0; d < SK_MAXRANK; d++) tmpT.stride[d] = H.stride[d];
    tmpT.layout = H.layout;
    have_tmpT = 1;
    T = tmpT;
  }
  size_t bytes = (size_t)sk_view_size(D) * es;
  if (to_dev) {
    rc = b->copy(T.data, T.space, H.data, SK_SPACE_HOST, bytes, err, errlen);
    if (rc == 0 && have_tmpT) rc = b->copy_view(D, &T, err, errlen);
  } else {
    if (have_tmpT) rc = b->copy_view(&T, D, err, errlen);
    if (rc == 0) rc = b->copy(H.data, SK_SPACE_HOST, T.data, T.space, bytes, err, errlen);
    if (rc == 0 && have_tmpH) { /* unpack into the host destination */
      sk_walk w;
      sk_walk_init(&w, dst, &H);
      sk_walk_run(&w, dst->data, H.data, NULL, es);
    }
  }
out:
  if (have_tmpT) {
    if (rc == 0) rc = sk_stage_fence(D->space, err, errlen);
    sk_view_release(&tmpT);
  }
  if (have_tmpH) sk_view_release(&tmpH);
  return rc;
}
/* deep_copy between the tools' begin and end events */
int sk_view_deep_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen) {
  sk_alloc_written(dst->alloc);
  if (!sk_tools_active()) return sk_view_copy(dst, src, err, errlen);
  int64_t n = sk_view_size(src);
  sk_tools_begin_copy(dst, src, (uint64_t)(n > 0 ? n : 0) * sk_dtypes[src->dtype].size);
  int rc = sk_view_copy(dst, src, err, errlen);
  sk_tools_end_copy();
  return rc;
}

/* A capture runs: the copy or fill must stay on the device the active back
 * end records (memory its kernels reach, no remote view); counted */
static int capture_reach(const sk_view *a, const sk_view *b, char *err, size_t errlen) {
  if (!sk_capture_mode()) return 0;
  char e[64];
  const sk_backend *act = sk_rt_backend(e, sizeof e);
  const sk_view *v[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    if (!v[k]) continue;
    int sp = v[k]->space;
    if (sk_space_remote(sp) || !act || !act->reaches(sp)) {
      char what[SK_LABEL_MAX + 96];
      sk_err(what, sizeof what, SK_E_CAPTURE_WHAT_COPY, b ? "a deep_copy with" : "a fill of",
             v[k]->label, sk_space_name(sp));
      return sk_capture_refuse(what, "the replay runs on the back end alone", err,
                               errlen);
    }
  }
  sk_capture_note(0);
  return 0;
}

int sk_view_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen) {
  if (dst->agg != src->agg || dst->agg_n != src->agg_n) {
    char a[32], b[32];
    return sk_err(err, errlen, SK_E_DTYPES_DIFFER_DEEP, dst->label,
                  sk_view_dtype_name(dst, a, sizeof a), src->label,
                  sk_view_dtype_name(src, b, sizeof b));
  }
  if (dst->dtype != src->dtype)
    return sk_err(err, errlen, SK_E_DTYPES_DIFFER_DEEP, dst->label,
                  sk_dtypes[dst->dtype].name, src->label, sk_dtypes[src->dtype].name);
  int same = dst->rank == src->rank;
  for (int d = 0; same && d < dst->rank; d++) same = dst->extent[d] == src->extent[d];
  if (!same) {
    char a[SK_MAXRANK * 24], b[SK_MAXRANK * 24];
    sk_view_format_extents(dst, a, sizeof a);
    sk_view_format_extents(src, b, sizeof b);
    return sk_err(err, errlen, SK_E_EXTENTS_DIFFER, dst->label, a[0] ? a : "[]",
                  src->label, b[0] ? b : "[]");
  }
  int64_t n = sk_view_size(dst);
  if (capture_reach(dst, src, err, errlen) < 0) return -1;
  if (n == 0) return 0;
  if (sk_view_check_memory(dst, err, errlen) < 0 ||
      sk_view_check_memory(src, err, errlen) < 0)
    return -1;
  if (dst->data == src->data && sk_view_same_map(dst, src)) return 0;
  size_t es = sk_dtypes[dst->dtype].size;
  if (sk_layout_tiled(dst->layout) || sk_layout_tiled(src->layout))
    return sk_tiled_copy(dst, src, err, errlen);

  /* one block copy when both are dense with the same index map */
  if (sk_view_contiguous(dst) && sk_view_contiguous(src) && sk_view_same_map(dst, src)) {
    /* the remote side's owner (it knows where the elements are), else
     * the device side's */
    int sp = sk_space_remote(src->space)   ? src->space
             : dst->space != SK_SPACE_HOST ? dst->space
                                           : src->space;
    const sk_backend *b = sk_backend_for_space(sp);
    if (sk_stage_fence(src->space, err, errlen) < 0 ||
        sk_stage_fence(dst->space, err, errlen) < 0)
      return -1;
    if (b && b->copy)
      return b->copy(dst->data, dst->space, src->data, src->space, (size_t)n * es, err,
                     errlen);
    if (sk_space_host_accessible(dst->space) && sk_space_host_accessible(src->space)) {
      memcpy(dst->data, src->data, (size_t)n * es);
      return 0;
    }
    return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_NO, (size_t)n * es,
                  sk_space_name(sp));
  }

  /* both sides reachable by a device back end's kernels (device, pinned,
   * managed): one pack kernel, no host sk_walk over device memory */
  /* (a remote view's elements are reached through its owner's copy
   * only: staged below, never a kernel over its addresses) */
  int remote = sk_space_remote(dst->space) || sk_space_remote(src->space);
  const sk_backend *db =
    dst->space != SK_SPACE_HOST ? sk_backend_for_space(dst->space) : NULL;
  if (!remote && db && db->copy_view && src->space != SK_SPACE_HOST)
    return db->copy_view(dst, src, err, errlen);
  /* host <-> device-only memory: through a dense host image and, when
   * the device side's map differs, a dense device image and a kernel */
  if (!remote &&
      (!sk_space_host_accessible(dst->space) || !sk_space_host_accessible(src->space)))
    return device_copy(dst, src, err, errlen);

  /* element-wise through host images; a dense device destination need
   * not be loaded first, every element of its span is written */
  sk_stage ss, ds;
  if (sk_stage_open(&ss, src, 1, err, errlen) < 0) return -1;
  if (sk_stage_open(&ds, dst, !sk_view_contiguous(dst), err, errlen) < 0) {
    sk_stage_close(&ss, src, 0, NULL, 0);
    return -1;
  }
  sk_walk w;
  sk_walk_init(&w, &ds.h, &ss.h);
  sk_walk_run(&w, ds.h.data, ss.h.data, NULL, es);
  sk_stage_close(&ss, src, 0, NULL, 0);
  return sk_stage_close(&ds, dst, 1, err, errlen);
}

static int fill_cell(sk_view *v, const void *cell, char *err, size_t errlen);

int sk_view_fill(sk_view *v, double d, int64_t i, char *err, size_t errlen) {
  sk_alloc_written(v->alloc);
  int64_t n = sk_view_size(v);
  if (n == 0) return 0;
  if (v->agg == SK_AGG_FAD) { /* the value d, derivatives 0 */
    sk_view all = *v, val;
    all.agg = 0;
    if (sk_view_fill(&all, 0, 0, err, errlen) < 0) return -1;
    sk_slice sl[SK_MAXRANK];
    for (int k = 0; k < v->rank; k++) sl[k].kind = SK_SLICE_ALL;
    sl[v->rank - 1].kind = SK_SLICE_INDEX;
    sl[v->rank - 1].b = 0;
    if (sk_view_subview(&val, &all, sl, v->rank, err, errlen) < 0) return -1;
    int st = sk_view_fill(&val, d, i, err, errlen);
    sk_view_release(&val);
    return st;
  }
  if (sk_view_check_memory(v, err, errlen) < 0) return -1;
  /* the value, converted once, in a one-element scratch view */
  uint64_t cell[2] = {0, 0};
  sk_view one = *v;
  one.data = cell;
  if (sk_dtypes[v->dtype].is_float) sk_view_set_f(&one, 0, d);
  else sk_view_set_i(&one, 0, i);
  return fill_cell(v, cell, err, errlen);
}

int sk_view_fill_c(sk_view *v, double re, double im, char *err, size_t errlen) {
  sk_alloc_written(v->alloc);
  if (!sk_dtypes[v->dtype].is_complex || v->agg) return sk_view_fill(v, re, 0, err, errlen);
  if (sk_view_size(v) == 0) return 0;
  if (sk_view_check_memory(v, err, errlen) < 0) return -1;
  uint64_t cell[2] = {0, 0};
  sk_view one = *v;
  one.data = cell;
  sk_view_set_c(&one, 0, re, im);
  return fill_cell(v, cell, err, errlen);
}

/* fill 'v' with the element 'cell' (its dtype's bytes) */
static int fill_cell(sk_view *v, const void *cell, char *err, size_t errlen) {
  if (!sk_layout_tiled(v->layout) && capture_reach(v, NULL, err, errlen) < 0) return -1;
  size_t es = sk_dtypes[v->dtype].size;
  if (sk_layout_tiled(v->layout)) { /* the whole span, padding included */
    sk_view flat = *v;
    flat.layout = SK_RIGHT;
    flat.rank = 1;
    for (int k = 0; k < SK_MAXRANK; k++) {
      flat.extent[k] = k ? 1 : sk_view_span(v);
      flat.stride[k] = k ? 0 : 1;
    }
    for (int k = 0; k < SK_MAXTILERANK; k++) flat.tile_log2[k] = 0;
    return fill_cell(&flat, cell, err, errlen);
  }
  if (!sk_space_host_accessible(v->space)) {
    const sk_backend *b = sk_backend_for_space(v->space);
    if (b && b->fill_view) return b->fill_view(v, cell, err, errlen);
  }
  if (sk_capture_mode()) { /* host-accessible memory a device fills: its kernel, recorded */
    char e[64];
    const sk_backend *act = sk_rt_backend(e, sizeof e);
    if (act && act->fill_view && act->reaches(v->space))
      return act->fill_view(v, cell, err, errlen);
  }
  sk_stage s;
  if (sk_stage_open(&s, v, !sk_view_contiguous(v), err, errlen) < 0) return -1;
  sk_walk w;
  sk_walk_init(&w, &s.h, NULL);
  sk_walk_run(&w, s.h.data, NULL, cell, es);
  return sk_stage_close(&s, v, 1, err, errlen);
}

/* -- subviews and resize ----------------------------------------------- */
/* Give 'v' the layout 'layout' (with its canonical strides) if its
 * elements sit exactly where that layout would put them. */
static int adopt_layout(sk_view *v, int layout) {
  int64_t st[SK_MAXRANK];
  if (layout != SK_RIGHT && layout != SK_LEFT) return 0;
  sk_view_layout_strides(v->rank, layout, v->extent, st);
  if (sk_view_size(v) > 0)
    for (int d = 0; d < v->rank; d++)
      if (v->extent[d] > 1 && st[d] != v->stride[d]) return 0;
  v->layout = layout;
  memcpy(v->stride, st, sizeof st);
  return 1;
}

int sk_view_subview(sk_view *dst, const sk_view *src, const sk_slice *s, int n, char *err,
                    size_t errlen) {
  sk_view r = *src;
  int64_t off = 0;
  if (sk_layout_tiled(src->layout))
    return sk_err(err, errlen, SK_E_VIEW_TILED_LAYOUT, src->label);
  if (n != src->rank)
    return sk_err(err, errlen, SK_E_RANK_GIVEN_SLICE, src->rank, n, n == 1 ? "" : "s");
  r.rank = 0;
  for (int d = 0; d < n; d++) {
    int64_t e = src->extent[d];
    switch (s[d].kind) {
    case SK_SLICE_INDEX:
      if (s[d].b < 0 || s[d].b >= e)
        return sk_err(err, errlen, SK_E_SLICE_OUT_RANGE, d, (long long)s[d].b,
                      (long long)e);
      off += s[d].b * src->stride[d];
      break;
    case SK_SLICE_RANGE:
      if (s[d].b < 0 || s[d].b > s[d].e || s[d].e > e)
        return sk_err(err, errlen, SK_E_SLICE_OUT_RANGE_EXTENT, d, (long long)s[d].b,
                      (long long)s[d].e, (long long)e, (long long)e);
      /* an empty range keeps the pointer in bounds of the allocation */
      if (s[d].e > s[d].b) off += s[d].b * src->stride[d];
      r.extent[r.rank] = s[d].e - s[d].b;
      r.stride[r.rank++] = src->stride[d];
      break;
    case SK_SLICE_ALL:
      r.extent[r.rank] = e;
      r.stride[r.rank++] = src->stride[d];
      break;
    default: return sk_err(err, errlen, SK_E_SLICE_UNKNOWN_KIND, d, s[d].kind);
    }
  }
  for (int d = r.rank; d < SK_MAXRANK; d++) {
    r.extent[d] = 1;
    r.stride[d] = 0;
  }
  if (sk_view_size(&r) > 0 && src->data)
    r.data = (char *)src->data + off * (int64_t)sk_dtypes[src->dtype].size;
  r.layout = SK_STRIDE;
  if (src->layout == SK_STRIDE) {
    if (!adopt_layout(&r, SK_RIGHT)) adopt_layout(&r, SK_LEFT);
  } else {
    adopt_layout(&r, src->layout);
  }
  *dst = r;
  sk_view_retain(dst);
  return 0;
}

int sk_view_resize(sk_view *v, const int64_t *ext, int keep, char *err, size_t errlen) {
  sk_view nv;
  int layout = v->layout == SK_STRIDE ? SK_RIGHT : v->layout;
  if (sk_layout_tiled(v->layout))
    return sk_err(err, errlen, SK_E_VIEW_TILED_LAYOUT_RESIZE, v->label);
  if (sk_view_create(&nv, v->label, v->dtype, v->rank, ext, layout, v->space, 1, NULL,
                     err, errlen) < 0)
    return -1;
  nv.traits = v->traits & ~(unsigned)SK_TRAIT_UNMANAGED;
  nv.agg = v->agg;
  nv.agg_n = v->agg_n;
  if (keep) {
    sk_slice sl[SK_MAXRANK];
    sk_view a, b;
    for (int d = 0; d < v->rank; d++) {
      sl[d].kind = SK_SLICE_RANGE;
      sl[d].b = 0;
      sl[d].e = ext[d] < v->extent[d] ? ext[d] : v->extent[d];
    }
    int st = sk_view_subview(&a, &nv, sl, v->rank, err, errlen);
    if (st == 0) {
      st = sk_view_subview(&b, v, sl, v->rank, err, errlen);
      if (st == 0) {
        st = sk_view_deep_copy(&a, &b, err, errlen);
        sk_view_release(&b);
      }
      sk_view_release(&a);
    }
    if (st < 0) {
      sk_view_release(&nv);
      return -1;
    }
  }
  sk_view_release(v);
  *v = nv;
  return 0;
}
