/* registry.c: the one list of back ends, and launch dispatch. */
#include <stdio.h>
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

int sk_team_resolve(const sk_policy *p, const sk_team_limits *lim, int *T,
                    int *V, char *err, size_t errlen) {
  *T = p->team_size > 0 ? p->team_size : lim->team_size_recommended;
  *V = p->vector_length > 0 ? p->vector_length : 1;
  if (*T > lim->team_size_max) {
    snprintf(err, errlen, "team size %d exceeds the maximum %d of this back end", *T,
             lim->team_size_max);
    return -1;
  }
  if (*V > lim->vector_length_max) {
    snprintf(err, errlen, "vector length %d exceeds the maximum %d", *V,
             lim->vector_length_max);
    return -1;
  }
  for (int lv = 0; lv < 2; lv++) {
    int64_t need = p->scratch_team[lv] + (int64_t)*T * p->scratch_thread[lv];
    if (need > lim->scratch_max[lv]) {
      snprintf(err, errlen,
               "scratch level %d asks %lld bytes per team (%lld per team + %d x "
               "%lld per thread), at most %lld",
               lv, (long long)need, (long long)p->scratch_team[lv], *T,
               (long long)p->scratch_thread[lv], (long long)lim->scratch_max[lv]);
      return -1;
    }
  }
  return 0;
}

int sk_backend_launch(const sk_backend *b, const sk_launch *l, char *err,
                      size_t errlen) {
  switch (l->policy->kind) {
  case SK_POL_TEAM:
    if (l->pattern == SK_SCAN) {
      snprintf(err, errlen, "parallel_scan does not take a TeamPolicy (as in Kokkos)");
      return -1;
    }
    return b->launch_team(l, err, errlen);
  case SK_POL_MDRANGE:
    if (l->pattern == SK_FOR) return b->launch_mdrange(l, err, errlen);
    break;
  default:
    if (l->pattern == SK_FOR) return b->launch_range(l, err, errlen);
  }
  return l->pattern == SK_SCAN ? b->launch_scan(l, err, errlen)
                               : b->launch_reduce(l, err, errlen);
}
