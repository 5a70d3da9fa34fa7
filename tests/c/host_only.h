/* host_only.h: the compile checks' test of a host fast path (a body with
 * host_only): its compile for device back end 'b' is refused with
 * registry.c's message (core/errmsg.h, KBODY_HOST_ONLY). For test_dense.c
 * and test_graph.c. */
#ifndef SK_TEST_HOST_ONLY_H
#define SK_TEST_HOST_ONLY_H

#include <stdio.h>
#include <string.h>

#include "core/backend.h"

static inline int refused_host_only(int rc, const char *err, const sk_backend *b) {
  char want[128];
  snprintf(want, sizeof want, "is a host fast path: not compiled for the '%s' back end", b->name);
  return rc < 0 && strstr(err, want) != NULL;
}
#endif
