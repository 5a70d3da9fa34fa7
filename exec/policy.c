/* policy.c: execution policies, checked in one place.
 *
 * Every front end (the Lua constructors and launches, the C kernel API,
 * the library's drivers) fills an sk_policy and calls sk_policy_check
 * before anything is compiled or allocated; a back end then sees only
 * policies it can run, with "auto" team sizes resolved from its limits.
 * Iteration counts and scratch sizes are computed without overflow: a
 * policy whose count does not fit in int64 is refused, never wrapped.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "exec.h"

void sk_policy_init(sk_policy *p, int kind) {
  const sk_policy init = SK_POLICY_INIT(kind);
  *p = init;
}

static int check_range(const sk_policy *p, char *err, size_t errlen) {
  if (p->end < p->begin) {
    if (p->begin == 0)
      return sk_err(err, errlen, SK_E_RANGE_END_NEGATIVE, (long long)p->end);
    return sk_err(err, errlen, SK_E_RANGE_END_BEFORE, (long long)p->end,
                  (long long)p->begin);
  }
  int64_t n;
  if (__builtin_sub_overflow(p->end, p->begin, &n))
    return sk_err(err, errlen, SK_E_RANGEPOLICY_MORE_THAN, (long long)p->begin,
                  (long long)p->end);
  return 0;
}

static int check_mdrange(const sk_policy *p, char *err, size_t errlen) {
  if (p->md_rank < 2 || p->md_rank > SK_MAXMD)
    return sk_err(err, errlen, SK_E_MDRANGEPOLICY_NEEDS_LOWER);
  int64_t count = 1;
  int over = 0, empty = 0;
  for (int d = 0; d < p->md_rank; d++) {
    if (p->md_hi[d] < p->md_lo[d])
      return sk_err(err, errlen, SK_E_MDRANGE_DIMENSION_UPPER, (long long)d,
                    (long long)p->md_hi[d], (long long)p->md_lo[d]);
    int64_t n;
    if (__builtin_sub_overflow(p->md_hi[d], p->md_lo[d], &n))
      return sk_err(err, errlen, SK_E_MDRANGE_DIMENSION_MORE, (long long)d,
                    (long long)p->md_lo[d], (long long)p->md_hi[d]);
    if (!over && __builtin_mul_overflow(count, n, &count)) over = 1;
    if (n == 0) empty = 1;
    if (p->md_tiled && p->md_tile[d] < 1)
      return sk_err(err, errlen, SK_E_MDRANGE_TILE_MUST, (long long)d,
                    (long long)p->md_tile[d]);
  }
  if (over && !empty)
    return sk_err(err, errlen, SK_E_MDRANGEPOLICY_RANK_MORE, (long long)p->md_rank);
  return 0;
}

/* sizes of a TeamPolicy, before the back end is known */
static int check_team_shape(const sk_policy *p, char *err, size_t errlen) {
  if (p->league_size < 0)
    return sk_err(err, errlen, SK_E_LEAGUE_SIZE_NEGATIVE, (long long)p->league_size);
  if (p->team_size < 0 && p->team_size != SK_AUTO)
    return sk_err(err, errlen, SK_E_TEAM_SIZE_NEGATIVE, (long long)p->team_size);
  if (p->team_size == 0) return sk_err(err, errlen, SK_E_TEAM_SIZE_NOT);
  if (p->vector_length == 0) return sk_err(err, errlen, SK_E_VECTOR_LENGTH_NOT);
  if (p->vector_length < 0 && p->vector_length != SK_AUTO)
    return sk_err(err, errlen, SK_E_VECTOR_LENGTH_NOT_POWER, (long long)p->vector_length);
  if (p->vector_length > 0 && (p->vector_length & (p->vector_length - 1)))
    return sk_err(err, errlen, SK_E_VECTOR_LENGTH_NOT_POWER, (long long)p->vector_length);
  for (int l = 0; l < 2; l++)
    if (p->scratch_team[l] < 0 || p->scratch_thread[l] < 0)
      return sk_err(err, errlen, SK_E_NEGATIVE_SCRATCH_REQUEST);
  return 0;
}

/* team size, vector length and scratch against back end 'b' */
static int resolve_team(sk_policy *p, const sk_backend *b, char *err, size_t errlen) {
  sk_team_limits lim;
  b->team_limits(&lim);
  int T = p->team_size > 0 ? p->team_size : lim.team_size_recommended;
  int V = p->vector_length > 0 ? p->vector_length : 1;
  if (T > lim.team_size_max)
    return sk_err(err, errlen, SK_E_TEAM_SIZE_EXCEEDS_MAXIMUM, (long long)T,
                  (long long)lim.team_size_max);
  if (V > lim.vector_length_max)
    return sk_err(err, errlen, SK_E_VECTOR_LENGTH_EXCEEDS, (long long)V,
                  (long long)lim.vector_length_max);
  for (int lv = 0; lv < 2; lv++) {
    int64_t per = 0, need = 0;
    int over = __builtin_mul_overflow((int64_t)T, p->scratch_thread[lv], &per) ||
               __builtin_add_overflow(p->scratch_team[lv], per, &need);
    if (over || need > lim.scratch_max[lv]) {
      char what[64];
      if (over) sk_err(what, sizeof what, SK_E_MORE_THAN_INT64);
      else snprintf(what, sizeof what, "%lld", (long long)need);
      sk_err(err, errlen, SK_E_SCRATCH_LEVEL_ASKS, lv, what,
             (long long)p->scratch_team[lv], T, (long long)p->scratch_thread[lv],
             (long long)lim.scratch_max[lv]);
      return -1;
    }
  }
  p->team_size = T;
  p->vector_length = V;
  return 0;
}

/* sk_policy_check's checks, before a TeamPolicy's sizes are resolved */
static int check_fixed(const sk_policy *p, int pattern, const sk_backend *b, char *err,
                       size_t errlen) {
  if (p->chunk < 0) return sk_err(err, errlen, SK_E_CHUNK_NEGATIVE, (long long)p->chunk);
  /* an instance runs work of its own back end only */
  if (b && p->instance && p->instance->backend != b &&
      strcmp(p->instance->backend->name, b->name) != 0)
    return sk_err(err, errlen, SK_E_INSTANCE_OTHER_SPACE, p->instance->backend->name,
                  b->name);
  switch (p->kind) {
  case SK_POL_RANGE: return check_range(p, err, errlen);
  case SK_POL_MDRANGE:
    if (check_mdrange(p, err, errlen) < 0) return -1;
    if (pattern == SK_SCAN && b && !(b->features & SK_FEAT_MDRANGE_SCAN)) {
      sk_err(err, errlen, SK_E_PARALLEL_SCAN_OVER, b->name);
      return -1;
    }
    return 0;
  case SK_POL_TEAM:
    if (pattern == SK_SCAN) {
      sk_err(err, errlen, SK_E_PARALLEL_SCAN_DOES);
      return -1;
    }
    return check_team_shape(p, err, errlen);
  default: return sk_err(err, errlen, SK_E_UNKNOWN_POLICY_KIND_NUM, (long long)p->kind);
  }
}

int sk_policy_check(sk_policy *p, int pattern, const sk_backend *b, char *err,
                    size_t errlen) {
  if (check_fixed(p, pattern, b, err, errlen) < 0) return -1;
  return p->kind == SK_POL_TEAM && b ? resolve_team(p, b, err, errlen) : 0;
}

int sk_policy_check_const(const sk_policy *p, int pattern, const sk_backend *b,
                          char *err, size_t errlen) {
  return check_fixed(p, pattern, b, err, errlen);
}

int sk_policy_launch(const sk_backend *b, const sk_launch *l, char *err, size_t errlen) {
  return b->launch(l, err, errlen);
}
