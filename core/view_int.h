/* view_int.h: what view.c, tiled.c and space.c share and nothing else
 * sees: the strided walks, host staging for device memory,
 * the tiled map's helpers and the spaces' held bytes. */
#ifndef SK_VIEW_INT_H
#define SK_VIEW_INT_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/backend.h"
#include "core/err.h"
#include "core/view.h"

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
void sk_walk_run(const sk_walk *w, char *dst, const char *src, const void *x, size_t es);

/* A host image of a view: the view itself when host accessible; otherwise
 * the bytes of its span copied (when 'load') into host memory from the
 * host back end, with the same strides. sk_stage_close writes the span
 * back (when 'store'). */
typedef struct sk_stage {
  sk_view h; /* host-accessible view of the same elements */
  void *buf; /* staging memory, NULL when none */
  size_t bytes;
  const sk_backend *dev, *host;
} sk_stage;
int sk_stage_fence(int space, char *err, size_t errlen);
int sk_stage_open(sk_stage *s, const sk_view *v, int load, char *err, size_t errlen);
int sk_stage_close(sk_stage *s, const sk_view *v, int store, char *err, size_t errlen);

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
