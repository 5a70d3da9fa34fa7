/* tools.h: Kokkos Tools hooks (tools.c), called by the runtime, views,
 * deep copies (backends/), launches and fences (exec/) and profile
 * regions (vm/, the C API). Every event function is a no-op, one relaxed
 * load, when no tool is active.
 */
#ifndef SK_TOOLS_H
#define SK_TOOLS_H

#include <stdint.h>

#include "core/view.h"

/* load the libraries of KOKKOS_TOOLS_LIBS / SPECK_TOOLS_LIBS (once) */
void sk_tools_load(void);
/* kokkosp_init_library of each (when the runtime starts) / finalize */
void sk_tools_start(void);
void sk_tools_stop(void);
int sk_tools_active(void);
/* why a named library was skipped ("" when none), and the loaded ones */
const char *sk_tools_warning(void);
const char *sk_tools_names(void);

/* kernels: kind 0 parallel_for, 1 parallel_reduce, 2 parallel_scan
 * (sk_pattern's order); begin returns the id to end with */
uint64_t sk_tools_begin(int kind, const char *label);
void sk_tools_end(int kind, uint64_t id);
uint64_t sk_tools_begin_fence(const char *name);
void sk_tools_end_fence(uint64_t id);
void sk_tools_push_region(const char *name);
void sk_tools_pop_region(void);
/* memory */
void sk_tools_alloc(int space, const char *label, const void *p, uint64_t bytes);
void sk_tools_dealloc(int space, const char *label, const void *p, uint64_t bytes);
void sk_tools_begin_copy(const sk_view *dst, const sk_view *src, uint64_t bytes);
void sk_tools_end_copy(void);

#endif
