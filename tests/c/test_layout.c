/* test_layout.c: unit tests of the view arithmetic in core/view.c:
 * layout strides, size (with overflow), span, offsets, contiguity,
 * subviews (extents, strides, layouts, errors), dtype/layout/space names,
 * and element access on wrapped (external) memory, tiled views (which
 * allocate through the host back end) and aggregate dtype names. Other
 * views wrap a local array.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/view.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

#define CHECK_STR(a, b) \
  do { \
    const char *a_ = (a), *b_ = (b); \
    if (strcmp(a_, b_) == 0) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: '%s' != '%s'\n", __FILE__, __LINE__, a_, b_); \
    } \
  } while (0)

static double buf[4096];

/* wrap 'buf' as a view of the given shape */
static sk_view wrap(int dtype, int rank, const int64_t *ext, int layout) {
  sk_view v;
  char err[256];
  int st = sk_view_create(&v, "w", dtype, rank, ext, layout, SK_SPACE_HOST, 0, buf, err,
                          sizeof err);
  if (st != 0) printf("create failed: %s\n", err);
  CHECK(st == 0);
  return v;
}

static void test_names(void) {
  CHECK(sk_dtype_parse("float64") == SK_F64);
  CHECK(sk_dtype_parse("double") == SK_F64);
  CHECK(sk_dtype_parse("float") == SK_F32);
  CHECK(sk_dtype_parse("bool") == SK_BOOL);
  CHECK(sk_dtype_parse("uint8") == SK_U8);
  CHECK(sk_dtype_parse("float65") == -1);
  CHECK(sk_dtype_parse(NULL) == -1);
  CHECK(sk_layout_parse("right") == SK_RIGHT);
  CHECK(sk_layout_parse("left") == SK_LEFT);
  CHECK(sk_layout_parse("stride") == SK_STRIDE);
  CHECK(sk_layout_parse("diag") == -1);
  /* the spaces, as the back ends' tables describe them */
  int dev = sk_space_parse("cuda"), pinned = sk_space_parse("cuda_pinned"),
      uvm = sk_space_parse("cuda_uvm");
  CHECK(sk_space_parse("host") == SK_SPACE_HOST);
  CHECK(dev > 0 && pinned > 0 && uvm > 0);
  CHECK(sk_space_parse("gpu") == -1);
  CHECK(sk_space_parse("remote") == -1); /* made by remote.View only */
  CHECK_STR(sk_layout_name(SK_LEFT), "left");
  CHECK_STR(sk_space_name(pinned), "cuda_pinned");
  CHECK(sk_space_host_accessible(SK_SPACE_HOST));
  CHECK(!sk_space_host_accessible(dev));
  CHECK(sk_space_host_accessible(uvm) && sk_space_host_accessible(pinned));
  CHECK(sk_space_default_layout(dev) == SK_LEFT);
  CHECK(sk_space_default_layout(uvm) == SK_LEFT);
  CHECK(sk_space_default_layout(pinned) == SK_RIGHT);
  CHECK(sk_space_default_layout(SK_SPACE_HOST) == SK_RIGHT);
  CHECK(sk_space_spill(dev) == pinned && sk_space_spill(uvm) == pinned);
  CHECK(sk_space_spill(SK_SPACE_HOST) == -1 && sk_space_spill(pinned) == -1);
  CHECK(sk_space_remote_over(SK_SPACE_HOST) > 0);
  CHECK(sk_space_local(sk_space_remote_over(SK_SPACE_HOST)) == SK_SPACE_HOST);
  CHECK(sk_space_local(sk_space_remote_over(dev)) == dev);
  CHECK(sk_space_remote(sk_space_remote_over(dev)));
  CHECK(!sk_space_remote(dev) && sk_space_local(dev) == dev);
  CHECK_STR(sk_space_tools_name(pinned), "CudaHostPinned");
  CHECK_STR(sk_space_tools_name(99), "Unknown");
  {
    char names[128];
    sk_space_names(names, sizeof names);
    CHECK_STR(names, "'host', 'cuda', 'cuda_pinned' or 'cuda_uvm'");
  }
  size_t sizes[SK_NDTYPE] = {8, 4, 8, 4, 2, 1, 8, 4, 1, 1, 16, 8};
  const char *tags[SK_NDTYPE] = {"f64", "f32", "i64", "i32", "i16",  "i8",
                                 "u64", "u32", "u8",  "b8",  "c128", "c64"};
  for (int t = 0; t < SK_NDTYPE; t++) {
    CHECK(sk_dtypes[t].size == sizes[t]);
    CHECK_STR(sk_dtypes[t].tag, tags[t]);
    CHECK(sk_dtype_parse(sk_dtypes[t].name) == t);
  }
  CHECK_STR(sk_dtypes[SK_I32].ctype, "int32_t");
  CHECK(sk_dtypes[SK_F32].is_float && !sk_dtypes[SK_I8].is_float);
  CHECK(sk_dtypes[SK_I8].is_signed && !sk_dtypes[SK_U8].is_signed);
  CHECK(sk_dtypes[SK_BOOL].is_bool);
  CHECK(sk_dtypes[SK_C128].is_complex && sk_dtypes[SK_C64].is_complex &&
        !sk_dtypes[SK_F64].is_complex);
}

static void test_strides(void) {
  int64_t ext[SK_MAXRANK] = {3, 4, 5, 6, 2, 2, 2, 2}, st[SK_MAXRANK];
  sk_view_layout_strides(3, SK_RIGHT, ext, st);
  CHECK(st[0] == 20 && st[1] == 5 && st[2] == 1 && st[3] == 0);
  sk_view_layout_strides(3, SK_LEFT, ext, st);
  CHECK(st[0] == 1 && st[1] == 3 && st[2] == 12 && st[7] == 0);
  sk_view_layout_strides(8, SK_RIGHT, ext, st);
  CHECK(st[7] == 1 && st[0] == 4 * 5 * 6 * 16);
  sk_view_layout_strides(8, SK_LEFT, ext, st);
  CHECK(st[0] == 1 && st[7] == 3 * 4 * 5 * 6 * 8);
  sk_view_layout_strides(0, SK_RIGHT, ext, st);
  for (int d = 0; d < SK_MAXRANK; d++) CHECK(st[d] == 0);
  sk_view_layout_strides(1, SK_LEFT, ext, st);
  CHECK(st[0] == 1);
}

static void test_size_offset(void) {
  int64_t e2[2] = {3, 4};
  sk_view r = wrap(SK_F64, 2, e2, SK_RIGHT), l = wrap(SK_F64, 2, e2, SK_LEFT);
  CHECK(sk_view_size(&r) == 12 && sk_view_span(&r) == 12);
  CHECK(sk_view_contiguous(&r) && sk_view_contiguous(&l));
  CHECK(r.extent[2] == 1 && r.stride[2] == 0); /* unused dims */
  int64_t idx[2] = {2, 1};
  CHECK(sk_view_offset(&r, idx) == 9);
  CHECK(sk_view_offset(&l, idx) == 5);
  char b[64];
  CHECK_STR(sk_view_format_extents(&r, b, sizeof b), "[3][4]");
  CHECK(r.traits & SK_TRAIT_UNMANAGED);
  CHECK(r.alloc && r.alloc->owned == 0 && r.alloc->refs == 1);
  sk_view_release(&r);
  sk_view_release(&l);
  CHECK(r.alloc == NULL && r.data == NULL);

  sk_view s = wrap(SK_F64, 0, NULL, SK_RIGHT); /* rank 0: one element */
  CHECK(sk_view_size(&s) == 1 && sk_view_span(&s) == 1);
  CHECK(sk_view_offset(&s, idx) == 0);
  CHECK_STR(sk_view_format_extents(&s, b, sizeof b), "");
  sk_view_release(&s);

  int64_t e0[3] = {3, 0, 4};
  sk_view z = wrap(SK_F64, 3, e0, SK_RIGHT);
  CHECK(sk_view_size(&z) == 0 && sk_view_span(&z) == 0);
  CHECK(sk_view_contiguous(&z));
  sk_view_release(&z);

  /* overflow: product of extents, then bytes */
  sk_view big;
  memset(&big, 0, sizeof big);
  big.rank = 3;
  big.extent[0] = big.extent[1] = big.extent[2] = (int64_t)1 << 30;
  CHECK(sk_view_size(&big) == -1);
  big.rank = 2;
  CHECK(sk_view_size(&big) == (int64_t)1 << 60);

  char err[256];
  int64_t huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
  CHECK(sk_view_create(&big, "big", SK_F64, 2, huge, SK_RIGHT, SK_SPACE_HOST, 1, NULL,
                       err, sizeof err) < 0);
  CHECK_STR(err, "cannot allocate [1099511627776][1099511627776] float64: "
                 "the size overflows 64 bits");
  int64_t e61[1] = {(int64_t)1 << 61};
  CHECK(sk_view_create(&big, "big", SK_F64, 1, e61, SK_RIGHT, SK_SPACE_HOST, 1, NULL, err,
                       sizeof err) < 0);
  CHECK(strstr(err, "overflows") != NULL);
  CHECK(big.alloc == NULL);

  /* argument errors */
  int64_t neg[2] = {3, -3};
  CHECK(sk_view_create(&big, "A", SK_F64, 2, neg, SK_RIGHT, SK_SPACE_HOST, 1, buf, err,
                       sizeof err) < 0);
  CHECK_STR(err, "extent 1 is -3 (must be a non-negative integer)");
  CHECK(sk_view_create(&big, "A", SK_F64, 9, e2, SK_RIGHT, SK_SPACE_HOST, 1, buf, err,
                       sizeof err) < 0);
  CHECK_STR(err, "rank 9 exceeds the maximum 8");
  CHECK(sk_view_create(&big, "A", SK_F64, 2, e2, SK_STRIDE, SK_SPACE_HOST, 1, buf, err,
                       sizeof err) < 0);
  CHECK(sk_view_create(&big, "A", SK_NDTYPE, 2, e2, SK_RIGHT, SK_SPACE_HOST, 1, buf, err,
                       sizeof err) < 0);
}

static void test_subview(void) {
  char err[256];
  int64_t e2[2] = {3, 4};
  sk_view a = wrap(SK_F64, 2, e2, SK_RIGHT), s;
  for (int k = 0; k < 12; k++) buf[k] = k;
  CHECK(a.alloc->refs == 1);

  /* a row of a right view: dense, stays 'right' */
  sk_slice row[2] = {{SK_SLICE_INDEX, 1, 0}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &a, row, 2, err, sizeof err) == 0);
  CHECK(s.rank == 1 && s.extent[0] == 4 && s.stride[0] == 1);
  CHECK(s.layout == SK_RIGHT && sk_view_contiguous(&s));
  CHECK(s.data == &buf[4] && a.alloc->refs == 2);
  CHECK(sk_view_get_f(&s, 3) == 7);
  CHECK(s.extent[1] == 1 && s.stride[1] == 0);
  sk_view_release(&s);
  CHECK(a.alloc->refs == 1);

  /* a column: strided */
  sk_slice col[2] = {{SK_SLICE_ALL, 0, 0}, {SK_SLICE_INDEX, 2, 0}};
  CHECK(sk_view_subview(&s, &a, col, 2, err, sizeof err) == 0);
  CHECK(s.rank == 1 && s.extent[0] == 3 && s.stride[0] == 4);
  CHECK(s.layout == SK_STRIDE && !sk_view_contiguous(&s));
  CHECK(sk_view_span(&s) == 9);
  CHECK(sk_view_get_f(&s, 2 * s.stride[0]) == 10);
  sk_view_release(&s);

  /* a block of rows: dense; a block of columns: strided */
  sk_slice rows[2] = {{SK_SLICE_RANGE, 1, 3}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &a, rows, 2, err, sizeof err) == 0);
  CHECK(s.extent[0] == 2 && s.extent[1] == 4 && s.layout == SK_RIGHT);
  CHECK(s.data == &buf[4]);
  sk_view_release(&s);
  sk_slice cols[2] = {{SK_SLICE_ALL, 0, 0}, {SK_SLICE_RANGE, 1, 3}};
  CHECK(sk_view_subview(&s, &a, cols, 2, err, sizeof err) == 0);
  CHECK(s.layout == SK_STRIDE && s.stride[0] == 4 && s.stride[1] == 1);
  CHECK(sk_view_size(&s) == 6 && sk_view_span(&s) == 10);
  sk_view_release(&s);

  /* a single column of width 1 in a right view is not dense ... */
  sk_slice c1[2] = {{SK_SLICE_ALL, 0, 0}, {SK_SLICE_RANGE, 1, 2}};
  CHECK(sk_view_subview(&s, &a, c1, 2, err, sizeof err) == 0);
  CHECK(s.layout == SK_STRIDE);
  sk_view_release(&s);
  /* ... but a one-row block is, with canonical strides */
  sk_slice r1[2] = {{SK_SLICE_RANGE, 2, 3}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &a, r1, 2, err, sizeof err) == 0);
  CHECK(s.layout == SK_RIGHT && s.stride[0] == 4 && s.stride[1] == 1);
  sk_view_release(&s);

  /* left: a column is dense */
  sk_view l = wrap(SK_F64, 2, e2, SK_LEFT);
  CHECK(sk_view_subview(&s, &l, col, 2, err, sizeof err) == 0);
  CHECK(s.layout == SK_LEFT && s.stride[0] == 1 && s.data == &buf[6]);
  sk_view_release(&s);
  CHECK(sk_view_subview(&s, &l, row, 2, err, sizeof err) == 0);
  CHECK(s.layout == SK_STRIDE && s.stride[0] == 3);
  sk_view_release(&s);

  /* every index dropped: rank 0 */
  sk_slice pt[2] = {{SK_SLICE_INDEX, 2, 0}, {SK_SLICE_INDEX, 3, 0}};
  CHECK(sk_view_subview(&s, &a, pt, 2, err, sizeof err) == 0);
  CHECK(s.rank == 0 && s.data == &buf[11] && sk_view_get_f(&s, 0) == 11);
  sk_view_release(&s);

  /* empty ranges are fine, at either end */
  sk_slice em[2] = {{SK_SLICE_RANGE, 3, 3}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &a, em, 2, err, sizeof err) == 0);
  CHECK(sk_view_size(&s) == 0 && sk_view_contiguous(&s));
  sk_view_release(&s);

  /* a strided view's dense subview becomes 'right' */
  sk_view t;
  CHECK(sk_view_subview(&t, &a, cols, 2, err, sizeof err) == 0);
  sk_slice trow[2] = {{SK_SLICE_INDEX, 1, 0}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &t, trow, 2, err, sizeof err) == 0);
  CHECK(s.layout == SK_RIGHT && s.extent[0] == 2 && s.data == &buf[5]);
  sk_view_release(&s);
  sk_view_release(&t);

  /* errors */
  sk_slice bad[2] = {{SK_SLICE_INDEX, 3, 0}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &a, bad, 2, err, sizeof err) < 0);
  CHECK_STR(err, "slice 0 is 3, out of range [0, 3)");
  sk_slice badr[2] = {{SK_SLICE_ALL, 0, 0}, {SK_SLICE_RANGE, 2, 5}};
  CHECK(sk_view_subview(&s, &a, badr, 2, err, sizeof err) < 0);
  CHECK_STR(err, "slice 1 is {2, 5}, out of range for extent 4 "
                 "(need 0 <= b <= e <= 4)");
  sk_slice rev[2] = {{SK_SLICE_RANGE, 2, 1}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&s, &a, rev, 2, err, sizeof err) < 0);
  CHECK(sk_view_subview(&s, &a, row, 1, err, sizeof err) < 0);
  CHECK_STR(err, "rank 2, given 1 slice");
  CHECK(a.alloc->refs == 1);

  /* rank 8, left, a slice in the middle */
  int64_t e8[8] = {2, 2, 2, 2, 2, 2, 2, 2};
  sk_view h = wrap(SK_F32, 8, e8, SK_LEFT);
  CHECK(sk_view_size(&h) == 256 && h.stride[7] == 128);
  sk_slice s8[8];
  for (int d = 0; d < 8; d++) s8[d] = (sk_slice){SK_SLICE_ALL, 0, 0};
  s8[7] = (sk_slice){SK_SLICE_INDEX, 1, 0};
  CHECK(sk_view_subview(&s, &h, s8, 8, err, sizeof err) == 0);
  CHECK(s.rank == 7 && s.layout == SK_LEFT);
  CHECK((char *)s.data == (char *)buf + 128 * 4);
  sk_view_release(&s);
  s8[7] = (sk_slice){SK_SLICE_ALL, 0, 0};
  s8[0] = (sk_slice){SK_SLICE_INDEX, 1, 0};
  CHECK(sk_view_subview(&s, &h, s8, 8, err, sizeof err) == 0);
  CHECK(s.rank == 7 && s.layout == SK_STRIDE && s.stride[0] == 2);
  sk_view_release(&s);

  sk_view_release(&h);
  sk_view_release(&l);
  sk_view_release(&a);
}

static void test_elements(void) {
  int64_t e[1] = {4};
  char err[256];
  for (int t = 0; t < SK_NDTYPE; t++) {
    memset(buf, 0, 64);
    sk_view v = wrap(t, 1, e, SK_RIGHT);
    sk_view_set_i(&v, 1, 1);
    sk_view_set_f(&v, 2, 1.0);
    CHECK(sk_view_get_i(&v, 1) == 1 && sk_view_get_f(&v, 2) == 1.0);
    CHECK(sk_view_get_i(&v, 0) == 0 && sk_view_get_i(&v, 3) == 0);
    CHECK(sk_view_fill(&v, 1.0, 1, err, sizeof err) == 0);
    for (int k = 0; k < 4; k++) CHECK(sk_view_get_f(&v, k) == 1.0);
    sk_view_release(&v);
  }
  sk_view v = wrap(SK_I8, 1, e, SK_RIGHT);
  sk_view_set_i(&v, 0, -5);
  CHECK(sk_view_get_i(&v, 0) == -5 && sk_view_get_f(&v, 0) == -5.0);
  sk_view_release(&v);
  v = wrap(SK_U64, 1, e, SK_RIGHT);
  sk_view_set_i(&v, 0, -1);
  CHECK((uint64_t)sk_view_get_i(&v, 0) == UINT64_MAX);
  sk_view_set_f(&v, 1, 1e300); /* saturates, no UB */
  CHECK((uint64_t)sk_view_get_i(&v, 1) == UINT64_MAX);
  sk_view_release(&v);
  v = wrap(SK_F32, 1, e, SK_RIGHT);
  sk_view_set_f(&v, 0, 0.5);
  CHECK(sk_view_get_f(&v, 0) == 0.5 && sk_view_get_i(&v, 0) == 0);
  sk_view_release(&v);
}

/* deep_copy on wrapped host memory: layouts, strides, errors */
static void test_deep_copy(void) {
  static double a[12], b[12];
  char err[256];
  int64_t e2[2] = {3, 4}, e3[2] = {4, 3};
  sk_view r, l, t;
  CHECK(sk_view_create(&r, "r", SK_F64, 2, e2, SK_RIGHT, SK_SPACE_HOST, 0, a, err,
                       sizeof err) == 0);
  CHECK(sk_view_create(&l, "l", SK_F64, 2, e2, SK_LEFT, SK_SPACE_HOST, 0, b, err,
                       sizeof err) == 0);
  for (int k = 0; k < 12; k++) a[k] = k;
  CHECK(sk_view_deep_copy(&l, &r, err, sizeof err) == 0);
  int ok = 1;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) ok &= b[i + 3 * j] == a[4 * i + j];
  CHECK(ok);
  CHECK(sk_view_create(&t, "t", SK_F64, 2, e3, SK_RIGHT, SK_SPACE_HOST, 0, b, err,
                       sizeof err) == 0);
  CHECK(sk_view_deep_copy(&t, &r, err, sizeof err) < 0);
  CHECK_STR(err, "extents differ: 't' is [4][3], 'r' is [3][4]");
  sk_view_release(&t);
  CHECK(sk_view_create(&t, "t", SK_F32, 2, e2, SK_RIGHT, SK_SPACE_HOST, 0, b, err,
                       sizeof err) == 0);
  CHECK(sk_view_deep_copy(&t, &r, err, sizeof err) < 0);
  CHECK_STR(err, "dtypes differ: 't' is float32, 'r' is float64 "
                 "(deep_copy does not convert)");
  sk_view_release(&t);

  /* column 1 of r into row 2 of l (strided both ways) */
  sk_view c, w;
  sk_slice col[2] = {{SK_SLICE_ALL, 0, 0}, {SK_SLICE_INDEX, 1, 0}};
  sk_slice row[2] = {{SK_SLICE_INDEX, 2, 0}, {SK_SLICE_RANGE, 1, 4}};
  CHECK(sk_view_subview(&c, &r, col, 2, err, sizeof err) == 0);
  CHECK(sk_view_subview(&w, &l, row, 2, err, sizeof err) == 0);
  CHECK(sk_view_deep_copy(&w, &c, err, sizeof err) == 0);
  CHECK(b[2 + 3 * 1] == 1 && b[2 + 3 * 2] == 5 && b[2 + 3 * 3] == 9);
  CHECK(b[2] == 8); /* l(2, 0) untouched */
  CHECK(sk_view_fill(&w, 7.0, 7, err, sizeof err) == 0);
  CHECK(b[2 + 3 * 1] == 7 && b[2 + 3 * 3] == 7 && b[2] == 8);
  sk_view_release(&c);
  sk_view_release(&w);
  sk_view_release(&l);
  sk_view_release(&r);
}

/* tiled views: the map (against the reference formula), spans, tile
 * subviews, deep_copy both ways, errors; aggregate dtype names */
static void test_tiled(void) {
  char err[256];
  int64_t e[2] = {5, 7}, t[2] = {2, 4}, tb[2] = {3, 4}, t3[3] = {2, 2, 4};
  sk_view A, R, T;
  CHECK(sk_view_create_tiled(&A, "A", SK_I64, 2, e, SK_RIGHT, t, SK_SPACE_HOST, 1, err,
                             sizeof err) == 0);
  CHECK(A.layout == SK_TILED_RIGHT);
  CHECK(sk_view_span(&A) == 6 * 8);
  CHECK(!sk_view_contiguous(&A));
  CHECK(A.stride[0] == 16 && A.stride[1] == 8);
  int ok = 1;
  for (int64_t i = 0; i < 5; i++)
    for (int64_t j = 0; j < 7; j++) {
      int64_t idx[2] = {i, j};
      int64_t want = ((i / 2) * 2 + j / 4) * 8 + (i % 2) * 4 + j % 4;
      ok &= sk_view_offset(&A, idx) == want;
      sk_view_set_i(&A, sk_view_offset(&A, idx), 10 * i + j);
    }
  CHECK(ok);
  /* to and from layout left */
  CHECK(sk_view_create(&R, "R", SK_I64, 2, e, SK_LEFT, SK_SPACE_HOST, 1, NULL, err,
                       sizeof err) == 0);
  CHECK(sk_view_deep_copy(&R, &A, err, sizeof err) == 0);
  ok = 1;
  for (int64_t i = 0; i < 5; i++)
    for (int64_t j = 0; j < 7; j++) ok &= sk_view_get_i(&R, i + 5 * j) == 10 * i + j;
  CHECK(ok);
  CHECK(sk_view_fill(&A, 0, 0, err, sizeof err) == 0);
  CHECK(sk_view_deep_copy(&A, &R, err, sizeof err) == 0);
  int64_t at[2] = {4, 6};
  CHECK(sk_view_get_i(&A, sk_view_offset(&A, at)) == 46);
  /* tile (1, 1): a dense 2x4 right view sharing the memory */
  int64_t ti[2] = {1, 1};
  CHECK(sk_view_tile_subview(&T, &A, ti, 2, err, sizeof err) == 0);
  CHECK(T.layout == SK_RIGHT && T.extent[0] == 2 && T.extent[1] == 4);
  CHECK(T.data == (int64_t *)A.data + 24);
  CHECK(sk_view_get_i(&T, 1 * 4 + 2) == 36);
  sk_view_release(&T);
  ti[0] = 3;
  CHECK(sk_view_tile_subview(&T, &A, ti, 2, err, sizeof err) < 0);
  CHECK_STR(err, "tile index 0 is 3, out of range [0, 3)");
  CHECK(sk_view_tile_subview(&T, &R, ti, 2, err, sizeof err) < 0);
  CHECK_STR(err, "view 'R' has layout 'left', not a tiled layout");
  sk_slice sl[2] = {{SK_SLICE_ALL, 0, 0}, {SK_SLICE_ALL, 0, 0}};
  CHECK(sk_view_subview(&T, &A, sl, 2, err, sizeof err) < 0);
  CHECK_STR(err, "view 'A' has a tiled layout: take tiles with tile_subview "
                 "(subview does not slice tiled views)");
  sk_view_release(&R);
  sk_view_release(&A);
  /* errors */
  CHECK(sk_view_create_tiled(&A, "A", SK_F64, 2, e, SK_RIGHT, tb, SK_SPACE_HOST, 1, err,
                             sizeof err) < 0);
  CHECK_STR(err, "tile size 3 of dimension 0 is not a power of two between 1 "
                 "and 65536");
  CHECK(sk_view_create_tiled(&A, "A", SK_F64, 1, e, SK_RIGHT, t, SK_SPACE_HOST, 1, err,
                             sizeof err) < 0);
  CHECK_STR(err, "a tiled layout needs rank 2 or 3, the view has rank 1");
  CHECK(sk_view_create_tiled(&A, "A", SK_F64, 2, e, SK_STRIDE, t, SK_SPACE_HOST, 1, err,
                             sizeof err) < 0);
  CHECK_STR(err, "unknown tile order 2 (expected right or left)");
  /* rank 3, left: the map */
  int64_t e3[3] = {3, 5, 6};
  CHECK(sk_view_create_tiled(&A, "A", SK_F64, 3, e3, SK_LEFT, t3, SK_SPACE_HOST, 1, err,
                             sizeof err) == 0);
  CHECK(A.stride[0] == 16 && A.stride[1] == 32 && A.stride[2] == 96);
  int64_t i3[3] = {2, 3, 5};
  CHECK(sk_view_offset(&A, i3) == 1 * 16 + 1 * 32 + 1 * 96 + (0 + 1 * 2 + 1 * 4));
  sk_view_release(&A);
}

static void test_agg_names(void) {
  int agg = -1, n = -1;
  CHECK(sk_agg_parse("fad(8)", &agg, &n) == 0 && agg == SK_AGG_FAD && n == 8);
  CHECK(sk_agg_parse("ensemble(64)", &agg, &n) == 0 && agg == SK_AGG_ENS && n == 64);
  CHECK(sk_agg_parse("fad(0)", &agg, &n) == -2);
  CHECK(sk_agg_parse("ensemble(65)", &agg, &n) == -2);
  CHECK(sk_agg_parse("fad(8", &agg, &n) == -1);
  CHECK(sk_agg_parse("fad()", &agg, &n) == -1);
  CHECK(sk_agg_parse("float64", &agg, &n) == -1);
  CHECK(sk_agg_width(SK_AGG_FAD, 8) == 9 && sk_agg_width(SK_AGG_ENS, 8) == 8);
}

int main(void) {
  test_names();
  test_strides();
  test_size_offset();
  test_subview();
  test_elements();
  test_deep_copy();
  test_tiled();
  test_agg_names();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
