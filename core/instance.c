/* instance.c: deep_copy on an execution-space instance (speck.Instance;
 * speck.deep_copy(dst, src, {instance = inst})).
 *
 * As Kokkos' deep_copy(exec, dst, src): the copy is queued on the
 * instance, after the work queued there before it, and the call may
 * return before the bytes arrive (fence the instance before reading
 * them). That holds for the one form a back end copies as a block: both
 * views dense with the same index map, neither tiled nor remote, the
 * device side in memory of the instance's back end; the back end's
 * 'copy_async' says when it is synchronous anyway (a GPU's, with pageable
 * host memory). Every other form (layouts that differ, subviews with
 * gaps, host-only views, a default instance) waits for the instance and
 * is the ordinary deep_copy, done when it returns; so do its errors.
 */
#include <string.h>

#include "core/backend.h"
#include "core/err.h"
#include "core/tools.h"
#include "core/view.h"
#include "core/view_int.h"

static int same_backend(const sk_backend *a, const sk_backend *b) {
  return a && b && (a == b || strcmp(a->name, b->name) == 0);
}

/* the block-copy form on 'b': 1 yes, 0 no (then the ordinary path) */
static int block_form(const sk_view *dst, const sk_view *src, const sk_backend *b) {
  if (dst->dtype != src->dtype || dst->agg != src->agg || dst->agg_n != src->agg_n ||
      dst->rank != src->rank)
    return 0;
  for (int d = 0; d < dst->rank; d++)
    if (dst->extent[d] != src->extent[d]) return 0;
  if (sk_view_size(dst) <= 0 || !dst->data || !src->data) return 0;
  if (sk_layout_tiled(dst->layout) || sk_layout_tiled(src->layout)) return 0;
  if (sk_space_remote(dst->space) || sk_space_remote(src->space)) return 0;
  if (!sk_view_contiguous(dst) || !sk_view_contiguous(src) || !sk_view_same_map(dst, src))
    return 0;
  /* the device side, as sk_view_deep_copy picks the copying back end */
  int sp = dst->space != SK_SPACE_HOST ? dst->space : src->space;
  return same_backend(sk_backend_for_space(sp), b);
}

int sk_view_deep_copy_on(sk_view *dst, const sk_view *src, const sk_instance *inst,
                         char *err, size_t errlen) {
  if (inst && sk_capture_mode()) return sk_err(err, errlen, SK_E_CAPTURE_INSTANCE, "deep_copy");
  if (!inst || !inst->handle) return sk_view_deep_copy(dst, src, err, errlen);
  const sk_backend *b = inst->backend;
  if (!b->copy_async || !block_form(dst, src, b)) {
    if (sk_rt_instance_fence(inst, err, errlen) < 0) return -1;
    return sk_view_deep_copy(dst, src, err, errlen);
  }
  size_t bytes = (size_t)sk_view_size(dst) * sk_dtypes[dst->dtype].size;
  int tools = sk_tools_active();
  if (tools) sk_tools_begin_copy(dst, src, (uint64_t)bytes);
  int rc = b->copy_async(dst->data, dst->space, src->data, src->space, bytes,
                         inst->handle, err, errlen);
  if (tools) sk_tools_end_copy();
  return rc;
}
