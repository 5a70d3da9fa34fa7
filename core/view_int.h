/* view_int.h: what view.c, tiled.c and space.c share and nothing else
 * sees: the messages, the strided walks, host staging for device memory,
 * the tiled map's helpers and the spaces' held bytes. */
#ifndef SK_VIEW_INT_H
#define SK_VIEW_INT_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/backend.h"
#include "core/view.h"

/* -- messages ---------------------------------------------------------- */
/* Every message view.c produces, in one place. The Lua layer prefixes
 * them with "speck.<function> 'label': ". */
#define VE_DTYPE      "unknown dtype %d"
#define VE_RANK       "rank %d exceeds the maximum %d"
#define VE_NEGRANK    "rank %d is negative"
#define VE_EXTENT     "extent %d is %lld (must be a non-negative integer)"
#define VE_LAYOUT     "layout '%s' is only for subviews (use 'right' or 'left')"
#define VE_BADLAYOUT  "unknown layout %d"
#define VE_SPACE      "unknown space %d"
#define VE_OVERFLOW   "cannot allocate %s %s: the size overflows 64 bits"
#define VE_NOBACKEND  "cannot allocate %zu bytes: no back end for space '%s'"
#define VE_ALLOC      "cannot allocate %zu bytes"
#define VE_ALLOCIN    "cannot allocate %zu bytes in space '%s' (%s)"
#define VE_HELD       "cannot allocate %llu bytes in space '%s' (with %lld bytes of " \
                      "views held, more than %s)"
#define VE_NOMEM      "out of memory for the allocation record"
#define VE_DTYPES     "dtypes differ: '%s' is %s, '%s' is %s (deep_copy does not convert)"
#define VE_EXTENTS    "extents differ: '%s' is %s, '%s' is %s"
#define VE_RELEASED   "view '%s' has no memory (released)"
#define VE_STAGE      "cannot allocate %zu bytes of host staging memory"
#define VE_NSLICE     "rank %d, given %d slice%s"
#define VE_SLICEIDX   "slice %d is %lld, out of range [0, %lld)"
#define VE_SLICERANGE \
  "slice %d is {%lld, %lld}, out of range for extent %lld (need 0 <= b <= e <= %lld)"
#define VE_SLICEKIND  "slice %d has an unknown kind %d"
#define VE_TILERANK   "a tiled layout needs rank 2 or 3, the view has rank %d"
#define VE_TILEORDER  "unknown tile order %d (expected right or left)"
#define VE_TILESIZE   "tile size %lld of dimension %d is not a power of two between 1 and %lld"
#define VE_TILEVOL    "a tile of %lld elements exceeds the maximum %lld"
#define VE_TILEDSUB   "view '%s' has a tiled layout: take tiles with tile_subview " \
                      "(subview does not slice tiled views)"
#define VE_TILEDRESIZE "view '%s' has a tiled layout (resize and realloc keep " \
                       "right or left views only)"
#define VE_NOTTILED   "view '%s' has layout '%s', not a tiled layout"
#define VE_NTILE      "view '%s' has rank %d, given %d tile ind%s"
#define VE_TILEIDX    "tile index %d is %lld, out of range [0, %lld)"

static int fail(char *err, size_t n, const char *fmt, ...)
  __attribute__((format(printf, 3, 4), unused));

static int fail(char *err, size_t n, const char *fmt, ...) {
  if (err && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* -- view.c ------------------------------------------------------------ */
/* A walk visits every index of 'n' dimensions (outermost first); see
 * view.c. */
typedef struct sk_walk {
  int n;
  int64_t ext[SK_MAXRANK], a[SK_MAXRANK], b[SK_MAXRANK];
} sk_walk;
void sk_walk_init(sk_walk *w, const sk_view *dst, const sk_view *src);
/* Copy (src != NULL) or fill (x != NULL) every element of a non-empty
 * index space described by 'w'. */
void sk_walk_run(const sk_walk *w, char *dst, const char *src, const void *x,
                 size_t es);

/* A host image of a view: the view itself when host accessible; otherwise
 * the bytes of its span copied (when 'load') into host memory from the
 * host back end, with the same strides. sk_stage_close writes the span
 * back (when 'store'). */
typedef struct sk_stage {
  sk_view h;          /* host-accessible view of the same elements */
  void *buf;          /* staging memory, NULL when none */
  size_t bytes;
  const sk_backend *dev, *host;
} sk_stage;
int sk_stage_fence(int space, char *err, size_t errlen);
int sk_stage_open(sk_stage *s, const sk_view *v, int load, char *err,
                  size_t errlen);
int sk_stage_close(sk_stage *s, const sk_view *v, int store, char *err,
                   size_t errlen);

void sk_view_set_label(sk_view *v, const char *label);
/* 1 if 'a' and 'b' (equal rank and extents) put every index at the same
 * element offset */
int sk_view_same_map(const sk_view *a, const sk_view *b);
/* a dense view of the extents of 'like' in 'layout' and 'space' */
int sk_view_dense_like(sk_view *out, const sk_view *like, int layout, int space,
                       char *err, size_t errlen);
/* deep_copy without the tools' events */
int sk_view_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen);

/* -- tiled.c ----------------------------------------------------------- */
/* the padded span of a tiled view (whole tiles; 0 when empty) */
int64_t sk_tiled_span(const sk_view *v);
/* in-tile strides (the right or left layout of one tile) */
void sk_tiled_inner_strides(const sk_view *v, int64_t *st);
/* deep_copy where a side is tiled */
int sk_tiled_copy(sk_view *dst, const sk_view *src, char *err, size_t errlen);

/* -- space.c ----------------------------------------------------------- */
/* the bytes held by live views under the budget of 'space' (shared by
 * the spaces of one budget), NULL when it has none */
_Atomic int64_t *sk_space_held(int space);
/* the budget of 'space' (0: none), described in 'desc' */
uint64_t sk_space_budget(int space, char *desc, size_t n);
#endif
