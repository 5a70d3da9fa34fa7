/* registry.c: the one list of back ends, and launch dispatch. */
#include <string.h>

#include "backend.h"

static const sk_backend *const all[] = {&sk_backend_serial, &sk_backend_openmp,
                                        &sk_backend_cuda, NULL};

const sk_backend *const *sk_backend_list(void) { return all; }

const sk_backend *sk_backend_find(const char *name) {
  for (int i = 0; all[i]; i++)
    if (strcmp(all[i]->name, name) == 0) return all[i];
  return NULL;
}

/* Memory of a space is managed by the back end that owns the space; host
 * memory by the active host back end's table (both host tables share
 * allocation functions). */
const sk_backend *sk_backend_for_space(int space) {
  if (space == SK_SPACE_HOST) return &sk_backend_openmp;
  return &sk_backend_cuda;
}

int sk_backend_launch(const sk_backend *b, const sk_launch *l, char *err,
                      size_t errlen) {
  switch (l->policy->kind) {
  case SK_POL_TEAM: return b->launch_team(l, err, errlen);
  case SK_POL_MDRANGE:
    if (l->pattern == SK_FOR) return b->launch_mdrange(l, err, errlen);
    break;
  default:
    if (l->pattern == SK_FOR) return b->launch_range(l, err, errlen);
  }
  return l->pattern == SK_SCAN ? b->launch_scan(l, err, errlen)
                               : b->launch_reduce(l, err, errlen);
}
