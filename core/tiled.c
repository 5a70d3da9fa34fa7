/* tiled.c: tiled views (Kokkos LayoutTiled, seed 004 Fig. 5; see view.h):
 * their span and in-tile strides, creation, tiles as subviews, and
 * deep_copy where a side is tiled. Split from view.c; the helpers they
 * share (walks, host staging) are declared in view_int.h. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/backend.h"
#include "core/view.h"
#include "core/view_int.h"

/* -- layout arithmetic ------------------------------------------------- */
int64_t sk_view_ntiles(const sk_view *v, int d) {
  if (!sk_layout_tiled(v->layout) || d < 0 || d >= v->rank) return 1;
  int64_t t = (int64_t)1 << v->tile_log2[d];
  return (v->extent[d] + t - 1) >> v->tile_log2[d];
}

/* The tiled allocation: whole tiles (0 when the view is empty). */
int64_t sk_tiled_span(const sk_view *v) {
  int64_t s = 1;
  for (int d = 0; d < v->rank; d++) {
    if (v->extent[d] == 0) return 0;
    s *= sk_view_ntiles(v, d) << v->tile_log2[d];
  }
  return s;
}

/* In-tile strides of a tiled view (the right or left layout of a tile). */
void sk_tiled_inner_strides(const sk_view *v, int64_t *st) {
  int64_t t[SK_MAXRANK];
  for (int d = 0; d < v->rank; d++) t[d] = (int64_t)1 << v->tile_log2[d];
  sk_view_layout_strides(v->rank, sk_layout_order(v->layout), t, st);
}

/* -- creation and tiles ------------------------------------------------ */
/* A tiled view is allocated as a rank-1 view of its padded span whose
 * fields are then set to the tiled map. */
int sk_view_create_tiled(sk_view *v, const char *label, int dtype, int rank,
                         const int64_t *ext, int order, const int64_t *tile, int space,
                         int init, char *err, size_t errlen) {
  memset(v, 0, sizeof *v);
  sk_view_set_label(v, label);
  if (dtype < 0 || dtype >= SK_NDTYPE)
    return sk_err(err, errlen, SK_E_UNKNOWN_DTYPE_NUM, dtype);
  if (rank < 2 || rank > SK_MAXTILERANK)
    return sk_err(err, errlen, SK_E_TILED_LAYOUT_NEEDS, rank);
  if (order != SK_RIGHT && order != SK_LEFT)
    return sk_err(err, errlen, SK_E_UNKNOWN_TILE_ORDER, order);
  int lg[SK_MAXTILERANK] = {0};
  for (int d = 0; d < rank; d++) {
    int64_t t = tile[d];
    if (t < 1 || t > ((int64_t)1 << SK_MAXTILELOG2) || (t & (t - 1)))
      return sk_err(err, errlen, SK_E_TILE_SIZE_DIMENSION, (long long)t, d,
                    (long long)1 << SK_MAXTILELOG2);
    while (((int64_t)1 << lg[d]) < t) lg[d]++;
  }
  if (lg[0] + lg[1] + lg[2] > SK_MAXTILEVOLLOG2)
    return sk_err(err, errlen, SK_E_TILE_ELEMENTS_EXCEEDS,
                  (long long)1 << (lg[0] + lg[1] + lg[2]),
                  (long long)1 << SK_MAXTILEVOLLOG2);
  for (int d = 0; d < rank; d++)
    if (ext[d] < 0)
      return sk_err(err, errlen, SK_E_EXTENT_MUST_NON, d, (long long)ext[d]);
  /* the padded span, with overflow checks */
  sk_view t = *v;
  t.rank = rank;
  t.dtype = dtype;
  t.layout = order == SK_RIGHT ? SK_TILED_RIGHT : SK_TILED_LEFT;
  for (int d = 0; d < SK_MAXRANK; d++) t.extent[d] = d < rank ? ext[d] : 1;
  for (int d = 0; d < rank; d++) t.tile_log2[d] = lg[d];
  int64_t span = 1, nt[SK_MAXRANK];
  int empty = 0;
  for (int d = 0; d < rank; d++) {
    nt[d] = sk_view_ntiles(&t, d);
    empty |= ext[d] == 0;
    if (span >= 0 && (__builtin_mul_overflow(span, nt[d] << lg[d], &span) || span < 0))
      span = -1;
  }
  size_t es = sk_dtypes[dtype].size, bytes;
  if (span < 0 || __builtin_mul_overflow((size_t)span, es, &bytes)) {
    char dims[SK_MAXRANK * 24];
    return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_SIZE,
                  sk_view_format_extents(&t, dims, sizeof dims), sk_dtypes[dtype].name);
  }
  int64_t n1 = empty ? 0 : span;
  if (sk_view_create(v, label, dtype, 1, &n1, SK_RIGHT, space, init, NULL, err, errlen) <
      0)
    return -1;
  sk_alloc *a = v->alloc;
  void *data = v->data;
  *v = t;
  v->alloc = a;
  v->data = data;
  v->space = space;
  /* tile strides: the tile's volume times the tiles of the faster
   * dimensions */
  int64_t vol = (int64_t)1 << (lg[0] + lg[1] + lg[2]);
  for (int d = rank; d < SK_MAXRANK; d++) v->stride[d] = 0;
  int64_t s = vol;
  if (order == SK_RIGHT) {
    for (int d = rank - 1; d >= 0; d--) {
      v->stride[d] = s;
      s *= nt[d];
    }
  } else {
    for (int d = 0; d < rank; d++) {
      v->stride[d] = s;
      s *= nt[d];
    }
  }
  return 0;
}

int sk_view_tile_subview(sk_view *dst, const sk_view *src, const int64_t *ti, int n,
                         char *err, size_t errlen) {
  if (!sk_layout_tiled(src->layout))
    return sk_err(err, errlen, SK_E_VIEW_LAYOUT_NOT, src->label,
                  sk_layout_name(src->layout));
  if (n != src->rank)
    return sk_err(err, errlen, SK_E_VIEW_RANK_GIVEN, src->label, src->rank, n,
                  n == 1 ? "ex" : "ices");
  int64_t off = 0;
  for (int d = 0; d < n; d++) {
    int64_t nt = sk_view_ntiles(src, d);
    if (ti[d] < 0 || ti[d] >= nt)
      return sk_err(err, errlen, SK_E_TILE_INDEX_OUT, d, (long long)ti[d], (long long)nt);
    off += ti[d] * src->stride[d];
  }
  sk_view r = *src;
  r.layout = sk_layout_order(src->layout);
  for (int d = 0; d < SK_MAXRANK; d++)
    r.extent[d] = d < n ? (int64_t)1 << src->tile_log2[d] : 1;
  for (int d = 0; d < SK_MAXTILERANK; d++) r.tile_log2[d] = 0;
  sk_view_layout_strides(n, r.layout, r.extent, r.stride);
  r.data =
    src->data ? (char *)src->data + off * (int64_t)sk_dtypes[src->dtype].size : NULL;
  *dst = r;
  sk_view_retain(dst);
  return 0;
}

/* -- tiled views ---------------------------------------------------------
 * Host images only: a tiled side is staged whole (its padded span), an
 * untiled side in device-only memory goes through a dense host copy. The
 * elements then move tile by tile: a tile of the tiled side, clipped to
 * the extents, is a dense (right or left) block and the matching piece of
 * the other side a strided one, so each tile is one walk. Two tiled views
 * of different tilings are copied element by element. */
static void tiled_piece(sk_view *p, const sk_view *v, const int64_t *t0,
                        const int64_t *len) {
  int64_t off = 0;
  *p = *v;
  p->layout = SK_STRIDE;
  if (sk_layout_tiled(v->layout)) {
    /* t0 is a corner of one of v's tiles */
    int64_t in[SK_MAXRANK];
    sk_tiled_inner_strides(v, in);
    for (int d = 0; d < v->rank; d++) {
      off += (t0[d] >> v->tile_log2[d]) * v->stride[d];
      p->stride[d] = in[d];
    }
  } else {
    for (int d = 0; d < v->rank; d++) off += t0[d] * v->stride[d];
  }
  for (int d = 0; d < v->rank; d++) p->extent[d] = len[d];
  p->data = (char *)v->data + off * (int64_t)sk_dtypes[v->dtype].size;
}

static void tiled_copy_host(sk_view *dst, const sk_view *src, size_t es) {
  const sk_view *T = sk_layout_tiled(dst->layout) ? dst : src;
  int r = dst->rank;
  int other_tiled = sk_layout_tiled(dst->layout) && sk_layout_tiled(src->layout);
  if (other_tiled && !sk_view_same_map(dst, src)) { /* element by element */
    int64_t idx[SK_MAXRANK] = {0};
    for (;;) {
      memcpy((char *)dst->data + sk_view_offset(dst, idx) * (int64_t)es,
             (const char *)src->data + sk_view_offset(src, idx) * (int64_t)es, es);
      int d = r - 1;
      while (d >= 0 && ++idx[d] == dst->extent[d]) idx[d--] = 0;
      if (d < 0) return;
    }
  }
  int64_t nt[SK_MAXRANK], ti[SK_MAXRANK] = {0}, t0[SK_MAXRANK], len[SK_MAXRANK];
  for (int d = 0; d < r; d++) nt[d] = sk_view_ntiles(T, d);
  for (;;) {
    for (int d = 0; d < r; d++) {
      int64_t t = (int64_t)1 << T->tile_log2[d];
      t0[d] = ti[d] * t;
      len[d] = T->extent[d] - t0[d] < t ? T->extent[d] - t0[d] : t;
    }
    sk_view pd, ps;
    tiled_piece(&pd, dst, t0, len);
    tiled_piece(&ps, src, t0, len);
    sk_walk w;
    sk_walk_init(&w, &pd, &ps);
    sk_walk_run(&w, pd.data, ps.data, NULL, es);
    int d = r - 1;
    while (d >= 0 && ++ti[d] == nt[d]) ti[d--] = 0;
    if (d < 0) return;
  }
}

int sk_tiled_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen) {
  size_t es = sk_dtypes[dst->dtype].size;
  /* the same tiling: one copy of the span */
  if (sk_view_same_map(dst, src)) {
    int sp = dst->space != SK_SPACE_HOST ? dst->space : src->space;
    const sk_backend *b = sk_backend_for_space(sp);
    size_t bytes = (size_t)sk_view_span(dst) * es;
    if (sk_stage_fence(src->space, err, errlen) < 0 ||
        sk_stage_fence(dst->space, err, errlen) < 0)
      return -1;
    if (b && b->copy)
      return b->copy(dst->data, dst->space, src->data, src->space, bytes, err, errlen);
    memcpy(dst->data, src->data, bytes);
    return 0;
  }
  /* host images: tiled sides staged, untiled device sides densely copied */
  sk_view hs = *src, hd = *dst, tmps, tmpd;
  int have_s = 0, have_d = 0, rc = 0;
  sk_stage ss, ds;
  memset(&ss, 0, sizeof ss);
  memset(&ds, 0, sizeof ds);
  if (sk_layout_tiled(src->layout)) {
    if (sk_stage_open(&ss, src, 1, err, errlen) < 0) return -1;
    hs = ss.h;
  } else if (!sk_space_host_accessible(src->space)) {
    if (sk_view_dense_like(&tmps, src, SK_RIGHT, SK_SPACE_HOST, err, errlen) < 0)
      return -1;
    have_s = 1;
    rc = sk_view_copy(&tmps, src, err, errlen);
    hs = tmps;
  } else if (sk_stage_fence(src->space, err, errlen) < 0) {
    return -1;
  }
  if (rc == 0 && sk_layout_tiled(dst->layout)) {
    /* padding is written back as it was: load the span first */
    rc = sk_stage_open(&ds, dst, 1, err, errlen);
    hd = ds.h;
  } else if (rc == 0 && !sk_space_host_accessible(dst->space)) {
    rc = sk_view_dense_like(&tmpd, dst, SK_RIGHT, SK_SPACE_HOST, err, errlen);
    have_d = rc == 0;
    hd = tmpd;
  } else if (rc == 0) {
    rc = sk_stage_fence(dst->space, err, errlen);
  }
  if (rc == 0) {
    tiled_copy_host(&hd, &hs, es);
    if (sk_layout_tiled(dst->layout)) rc = sk_stage_close(&ds, dst, 1, err, errlen);
    else if (have_d) rc = sk_view_copy(dst, &tmpd, err, errlen);
  } else if (sk_layout_tiled(dst->layout)) {
    sk_stage_close(&ds, dst, 0, NULL, 0);
  }
  if (have_d) sk_view_release(&tmpd);
  if (have_s) sk_view_release(&tmps);
  sk_stage_close(&ss, src, 0, NULL, 0);
  return rc;
}
