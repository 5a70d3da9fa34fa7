/* view.h: views (multidimensional arrays with a layout and a memory space)
 * and their reference-counted allocations. No Lua here: vm/lview.c binds
 * these to Lua userdata.
 *
 * Invariants: 'extent[d]' >= 0 for d < 'rank'; strides are in elements;
 * for layout 'right' stride[rank-1] == 1, for 'left' stride[0] == 1; a
 * strided view (subview) has layout SK_STRIDE. Unused dimensions have
 * extent 1 and stride 0. 'alloc' is shared by every view of the same
 * memory (shallow copies, subviews) and freed when the last one goes.
 */
#ifndef SK_VIEW_H
#define SK_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "dialect/abi.h"

typedef enum sk_dtype {
  SK_F64,
  SK_F32,
  SK_I64,
  SK_I32,
  SK_I16,
  SK_I8,
  SK_U64,
  SK_U32,
  SK_U8,
  SK_BOOL,
  SK_C128, /* complex128: two float64, real part first (C99 double _Complex) */
  SK_C64,  /* complex64: two float32 */
  SK_NDTYPE
} sk_dtype;

/* SK_TILED_RIGHT / SK_TILED_LEFT (Kokkos LayoutTiled, seed 004 Fig. 5):
 * rank 2 or 3, power-of-two tiles of 'tile_log2[d]' bits per dimension;
 * the tiles are ordered right (last dimension fastest) or left, and so are
 * the elements inside a tile. Extents need not be multiples of the tile:
 * the allocation is padded to whole tiles. 'stride[d]' of a tiled view is
 * the distance in elements between consecutive tiles along d (a multiple
 * of the tile's volume), so element (i0, i1, ..) lies at
 *   sum_d (i_d >> tile_log2[d]) * stride[d] + (in-tile offset),
 * the in-tile offset being the right (left) layout of (i_d & (t_d - 1))
 * inside the tile: constant shifts and masks. */
typedef enum sk_layout {
  SK_RIGHT,
  SK_LEFT,
  SK_STRIDE,
  SK_TILED_RIGHT,
  SK_TILED_LEFT
} sk_layout;
#define SK_MAXTILERANK    3
#define SK_MAXTILELOG2    16 /* tiles of at most 2^16 elements per dimension */
#define SK_MAXTILEVOLLOG2 20 /* and at most 2^20 elements in all */

/* Memory spaces are described by the back ends that bring them
 * (core/backend.h: sk_space_desc) and numbered as they are registered
 * (core/space.c); 'host', serial's, is always 0. Code outside a back end
 * asks the table (sk_space_host_accessible, sk_space_spill, ...), never
 * a space's name or number. */
enum { SK_SPACE_HOST = 0 };
#define SK_MAXSPACE 16

/* memory traits */
enum {
  SK_TRAIT_ATOMIC = 1,
  SK_TRAIT_RANDOM = 2,
  SK_TRAIT_RESTRICT = 4,
  SK_TRAIT_UNMANAGED = 8
};

typedef struct sk_dtype_info {
  const char *name;  /* "float64" */
  const char *alias; /* "double" or NULL */
  const char *ctype; /* C spelling in the dialect: "double" */
  const char *tag;   /* short tag for signatures: "f64" */
  size_t size;
  int is_float, is_signed, is_bool;
  int is_complex; /* complex64/128: is_float too; 'size' holds both parts */
} sk_dtype_info;

extern const sk_dtype_info sk_dtypes[SK_NDTYPE];

#define SK_LABEL_MAX 128

/* memos an allocation keeps, of different kinds (sk_alloc_memo) */
#define SK_ALLOC_MEMOS 3

typedef struct sk_alloc {
  long refs;                /* atomic */
  char label[SK_LABEL_MAX]; /* the first view's, for tools' events */
  void *ptr;
  size_t bytes;
  int space;
  int owned;    /* 0: wrapped external memory, never freed */
  void *handle; /* the space's handle (remote: the sk_rwin), or NULL */
  /* writes and memos (sk_alloc_written below): the writes the library
   * saw (a count), 1 once a raw pointer to the memory was handed
   * out, and data derived from the contents kept with them (freed by
   * memo_free with the allocation; a kind a slot) */
  uint64_t wgen;
  int exposed;
  void *memo[SK_ALLOC_MEMOS];
  void (*memo_free[SK_ALLOC_MEMOS])(void *memo);
} sk_alloc;

typedef struct sk_view {
  void *data;
  sk_alloc *alloc;
  int dtype, rank, layout, space;
  unsigned traits;
  int64_t extent[SK_MAXRANK];
  int64_t stride[SK_MAXRANK];
  int tile_log2[SK_MAXTILERANK]; /* tiled layouts only, else 0 */
  int agg, agg_n;                /* aggregate element type (SK_AGG_*) and its N */
  char label[SK_LABEL_MAX];
} sk_view;

/* Aggregate scalar types (seed 004 §3.3): a forward-mode AD number with N
 * derivatives (value first, then the N derivatives) and an ensemble of N
 * values, both of float64 components. A view of them, of user rank r, is
 * stored as a float64 view of rank r + 1 whose last ("hidden") dimension
 * holds the components: extent = the width, stride 1 (the components of
 * one element are contiguous), the user dimensions in layout right. */
enum { SK_AGG_NONE, SK_AGG_FAD, SK_AGG_ENS };
#define SK_AGG_MAXN 64
/* components of one element: N + 1 for fad, N for an ensemble */
int sk_agg_width(int agg, int n);
/* Parse "fad(N)" / "ensemble(N)": 0 with *agg and *n set, -1 if 's' is
 * not of that form, -2 if N is out of range [1, SK_AGG_MAXN]. */
int sk_agg_parse(const char *s, int *agg, int *n);
/* "fad(8)" etc. into 'buf' (the dtype's name for plain views) */
const char *sk_view_dtype_name(const sk_view *v, char *buf, size_t n);

/* 1 for SK_TILED_RIGHT / SK_TILED_LEFT */
int sk_layout_tiled(int layout);
/* The order of a layout's tiles and of the elements inside them
 * (SK_RIGHT / SK_LEFT); a plain layout is its own order. */
int sk_layout_order(int layout);

/* dtype / layout / space names; return -1 when unknown */
int sk_dtype_parse(const char *s);
int sk_layout_parse(const char *s);
int sk_space_parse(const char *s);
const char *sk_layout_name(int layout);
const char *sk_space_name(int space);

/* Fill strides for 'layout' (right or left) from extents. */
void sk_view_layout_strides(int rank, int layout, const int64_t *ext, int64_t *stride);
/* Number of elements (product of extents); -1 on overflow. */
/* (Tiled views: sk_view_span is the padded allocation, sk_view_contiguous
 * is 1 when there is no padding, sk_view_offset is the tiled map.) */
int64_t sk_view_size(const sk_view *v);
/* 1 if elements form one dense block in memory. */
int sk_view_contiguous(const sk_view *v);
/* Element offset (in elements) of 'idx'; no checks. */
int64_t sk_view_offset(const sk_view *v, const int64_t *idx);

/* Create: allocate (64-byte aligned, zero-filled when 'init', first touched
 * in parallel by the host back end), or wrap 'ext_data' (unmanaged).
 * Returns 0 or a negative status with 'err' filled. */
int sk_view_create(sk_view *v, const char *label, int dtype, int rank, const int64_t *ext,
                   int layout, int space, int init, void *ext_data, char *err,
                   size_t errlen);
/* A view of the given strides (in elements, >= 1) over one new block of
 * its span; two indices sharing an element or a span past int64 are
 * refused. Its layout is SK_STRIDE. */
int sk_view_create_strided(sk_view *v, const char *label, int dtype, int rank,
                           const int64_t *ext, const int64_t *stride, int space, int init,
                           char *err, size_t errlen);
/* Create a tiled view: 'order' SK_RIGHT or SK_LEFT, 'tile[d]' for each of
 * the 'rank' (2 or 3) dimensions a power of two >= 1 and <= 2^16, at most
 * 2^20 elements per tile; a tile larger than its extent is allowed (the
 * allocation holds whole tiles).
 * Memory is always allocated (no external data). */
int sk_view_create_tiled(sk_view *v, const char *label, int dtype, int rank,
                         const int64_t *ext, int order, const int64_t *tile, int space,
                         int init, char *err, size_t errlen);
/* 'dst' becomes tile 'ti' ('n' == rank indices, each below the number of
 * tiles along its dimension) of the tiled view 'src': a dense view of the
 * tile's extents in the order of 'src' (right or left), sharing and
 * retaining the allocation. Tiles at the upper edges include the padding
 * elements beyond the extents of 'src'. */
int sk_view_tile_subview(sk_view *dst, const sk_view *src, const int64_t *ti, int n,
                         char *err, size_t errlen);
/* Number of tiles along dimension d of a tiled view. */
int64_t sk_view_ntiles(const sk_view *v, int d);
/* Writes the library sees: every launch that captures a view (unless
 * the capture is marked read-only, exec.h's sk_arg_view_ro), deep_copy
 * and fill into it, a store from Lua. Each gives the allocation a new
 * stamp from one clock (sk_alloc_written), so data derived from the
 * contents (a memo) is known stale when the stamp it was made at is not
 * the allocation's any more. A raw pointer handed out (view:data(),
 * speck_view_data) makes later writes unseen: the allocation is
 * 'exposed' from then on (sk_alloc_expose), and memos are not kept for
 * it. C code that stores into an existing view's memory directly (not
 * through a launch, deep_copy or fill) calls sk_alloc_written itself.
 * A replayed capture (a GPU graph) writes without passing here:
 * sk_alloc_replayed moves the clock's replay mark, and a memo made before
 * it is stale too. */
void sk_alloc_written(sk_alloc *a);
void sk_alloc_expose(sk_alloc *a);
void sk_alloc_replayed(void);
/* the clock now (a stamp no write has yet) and at the last replay */
uint64_t sk_alloc_clock(void);
uint64_t sk_alloc_replay_mark(void);
/* Memos of an allocation (at most SK_ALLOC_MEMOS kinds a block, one memo
 * a kind: kernels/sparse's compact index of a column array, value codes
 * and the diagonal form of a values array). The stamp a memo is keyed
 * at; whether one may be kept at all (owned memory whose pointer was
 * never handed out, not remote); and the block's memo of the kind
 * 'memo_free' frees -- made zeroed, 'size' bytes, if it has none; NULL
 * when its slots hold other kinds' or memory is short. The caller keeps
 * its kind's memos under its own lock. */
uint64_t sk_alloc_stamp(const sk_alloc *a);
int sk_alloc_memo_ok(const sk_alloc *a);
void *sk_alloc_memo(sk_alloc *a, size_t size, void (*memo_free)(void *memo));
void sk_view_retain(sk_view *v);
void sk_view_release(sk_view *v); /* drops the allocation reference */
/* A memo's key on a CRS pattern, kept in the column indices' memo
 * (kernels/sparse/csr16.c's compact index, kernels/graph/pagerank.c's
 * segmented copy): the row pointers' view (held unless it shares the
 * column indices' allocation), the column indices' place and length,
 * both allocations' write stamps and the clock when it was set (a later
 * replay makes it stale). 'same': set on rowptr and colidx as they are
 * now; 'set' clears it first. */
typedef struct sk_pattern_key {
  sk_view rp;
  int rp_own;
  const void *ci_data;
  int64_t ci_n;
  uint64_t ci_gen, rp_gen, made;
} sk_pattern_key;
int sk_pattern_key_same(const sk_pattern_key *k, const sk_view *rowptr, const sk_view *colidx);
void sk_pattern_key_set(sk_pattern_key *k, const sk_view *rowptr, const sk_view *colidx);
void sk_pattern_key_clear(sk_pattern_key *k);

/* deep_copy between any spaces and layouts of equal extents and equal
 * dtype (it never converts: a dtype mismatch is an error). Dense views
 * whose index maps agree take one back-end 'copy'; anything else is copied
 * element by element through host staging where a side is device memory.
 * Overlapping distinct views of one allocation give unspecified results.
 * fill: a scalar given as double and as int64 (the dtype picks: floats use
 * 'd', integers 'i', bool 'i != 0'). */
int sk_view_deep_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen);
/* deep_copy on an execution-space instance (core/instance.c): dense views
 * of one index map whose device side belongs to the instance's back end
 * take that back end's 'copy_async' on the instance (it may return before
 * the bytes arrive: fence the instance); anything else waits for the
 * instance and is sk_view_deep_copy. NULL or a default instance: the
 * plain deep_copy. */
struct sk_instance;
int sk_view_deep_copy_on(sk_view *dst, const sk_view *src, const struct sk_instance *inst,
                         char *err, size_t errlen);
int sk_view_fill(sk_view *v, double d, int64_t i, char *err, size_t errlen);

/* element load/store as double / int64 (host-accessible views) */
double sk_view_get_f(const sk_view *v, int64_t off);
int64_t sk_view_get_i(const sk_view *v, int64_t off);
void sk_view_set_f(sk_view *v, int64_t off, double x);
void sk_view_set_i(sk_view *v, int64_t off, int64_t x);
/* complex element load/store (re, im); on a real view get gives im = 0
 * and set stores re (im must then be 0: callers check) */
void sk_view_get_c(const sk_view *v, int64_t off, double *re, double *im);
void sk_view_set_c(sk_view *v, int64_t off, double re, double im);
/* fill with re + im*i (any dtype: a real view takes re) */
int sk_view_fill_c(sk_view *v, double re, double im, char *err, size_t errlen);

/* -- spaces (space.c): what the back ends' tables say ------------------- */
/* 1 if the CPU can load and store the space's memory directly (host, and
 * a device's page-locked or managed memory); 0 for device memory */
int sk_space_host_accessible(int space);
/* 1 for the spaces of remote views: elements are global indices, reached
 * through the window of backends/remote */
int sk_space_remote(int space);
/* the space a remote space's parts live in; any other space itself */
int sk_space_local(int space);
/* the remote space whose parts live in 'local', -1 when none */
int sk_space_remote_over(int local);
/* The layout a space gets when none is asked for: 'left' where a device
 * reads coalesced, 'right' on the host. */
int sk_space_default_layout(int space);
/* The space that takes what does not fit in device memory 'space': host
 * memory its back end's kernels read in place (page-locked and mapped
 * into the device's address space); -1 when there is none (a host space) */
int sk_space_spill(int space);
/* Kokkos Tools' name of the space ("Host"; "Unknown") */
const char *sk_space_tools_name(int space);
/* the user-visible names of the spaces a user can ask for by name, in
 * registration order, quoted and joined: "'host', 'x' or 'y'" */
void sk_space_names(char *buf, size_t n);

/* Elements from the first to one past the last element (the memory the
 * view touches); 0 when the view is empty. For a dense view == size. */
int64_t sk_view_span(const sk_view *v);
/* "[3][4]" ("" for rank 0) into 'buf'; returns 'buf'. */
char *sk_view_format_extents(const sk_view *v, char *buf, size_t n);

/* One slice of sk_view_subview: an index (drops the dimension), a
 * half-open range [b, e) or the whole dimension. */
enum { SK_SLICE_ALL, SK_SLICE_INDEX, SK_SLICE_RANGE };
typedef struct sk_slice {
  int kind;
  int64_t b, e;
} sk_slice;

/* 'dst' becomes a view of 'src' (sharing, and retaining, its allocation)
 * through one slice per dimension of 'src' ('n' must equal its rank).
 * Its layout stays that of 'src' (or becomes 'right'/'left' for a strided
 * 'src') when the result is dense in that layout, else SK_STRIDE; the
 * label and traits are kept. 'dst' may not be 'src'. */
int sk_view_subview(sk_view *dst, const sk_view *src, const sk_slice *s, int n, char *err,
                    size_t errlen);

/* Replace the allocation of 'v' with a new, zero-filled one of extents
 * 'ext' (same rank, dtype, space and label; layout 'right' if 'v' was
 * strided), copying the overlapping elements when 'keep' (resize) and not
 * (realloc). On error 'v' is unchanged. */
int sk_view_resize(sk_view *v, const int64_t *ext, int keep, char *err, size_t errlen);

#endif
