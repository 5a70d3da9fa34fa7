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

#include "exec.h"

void sk_policy_init(sk_policy *p, int kind) {
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->team_size = SK_AUTO;
  p->vector_length = SK_AUTO;
}

static int fail(char *err, size_t errlen, const char *fmt, long long a,
                long long b, long long c) {
  snprintf(err, errlen, fmt, a, b, c);
  return -1;
}

static int check_range(const sk_policy *p, char *err, size_t errlen) {
  if (p->end < p->begin) {
    if (p->begin == 0)
      return fail(err, errlen, "range end %lld is negative", (long long)p->end,
                  0, 0);
    return fail(err, errlen, "range end %lld is before begin %lld",
                (long long)p->end, (long long)p->begin, 0);
  }
  int64_t n;
  if (__builtin_sub_overflow(p->end, p->begin, &n))
    return fail(err, errlen,
                "RangePolicy(%lld, %lld) has more than 2^63 - 1 iterations",
                (long long)p->begin, (long long)p->end, 0);
  return 0;
}

static int check_mdrange(const sk_policy *p, char *err, size_t errlen) {
  if (p->md_rank < 2 || p->md_rank > SK_MAXMD)
    return fail(err, errlen,
                "MDRangePolicy needs lower and upper bounds of equal rank 2..6",
                0, 0, 0);
  int64_t count = 1;
  int over = 0, empty = 0;
  for (int d = 0; d < p->md_rank; d++) {
    if (p->md_hi[d] < p->md_lo[d])
      return fail(err, errlen, "MDRange dimension %lld: upper %lld < lower %lld",
                  d, (long long)p->md_hi[d], (long long)p->md_lo[d]);
    int64_t n;
    if (__builtin_sub_overflow(p->md_hi[d], p->md_lo[d], &n))
      return fail(err, errlen,
                  "MDRange dimension %lld: [%lld, %lld) has more than 2^63 - 1 "
                  "iterations",
                  d, (long long)p->md_lo[d], (long long)p->md_hi[d]);
    if (!over && __builtin_mul_overflow(count, n, &count)) over = 1;
    if (n == 0) empty = 1;
    if (p->md_tiled && p->md_tile[d] < 1)
      return fail(err, errlen, "MDRange tile %lld is %lld (must be >= 1)", d,
                  (long long)p->md_tile[d], 0);
  }
  if (over && !empty)
    return fail(err, errlen,
                "MDRangePolicy of rank %lld has more than 2^63 - 1 iterations "
                "(the product of its extents overflows int64)",
                p->md_rank, 0, 0);
  return 0;
}

/* sizes of a TeamPolicy, before the back end is known */
static int check_team_shape(const sk_policy *p, char *err, size_t errlen) {
  if (p->league_size < 0)
    return fail(err, errlen, "league size %lld is negative",
                (long long)p->league_size, 0, 0);
  if (p->team_size < 0 && p->team_size != SK_AUTO)
    return fail(err, errlen, "team size %lld is negative", p->team_size, 0, 0);
  if (p->team_size == 0)
    return fail(err, errlen,
                "team size 0 is not positive (a size >= 1, or \"auto\")", 0, 0, 0);
  if (p->vector_length == 0)
    return fail(err, errlen,
                "vector length 0 is not positive (a power of two, or \"auto\")",
                0, 0, 0);
  if (p->vector_length < 0 && p->vector_length != SK_AUTO)
    return fail(err, errlen, "vector length %lld is not a power of two",
                p->vector_length, 0, 0);
  if (p->vector_length > 0 && (p->vector_length & (p->vector_length - 1)))
    return fail(err, errlen, "vector length %lld is not a power of two",
                p->vector_length, 0, 0);
  for (int l = 0; l < 2; l++)
    if (p->scratch_team[l] < 0 || p->scratch_thread[l] < 0)
      return fail(err, errlen, "negative scratch request", 0, 0, 0);
  return 0;
}

/* team size, vector length and scratch against back end 'b' */
static int resolve_team(sk_policy *p, const sk_backend *b, char *err,
                        size_t errlen) {
  sk_team_limits lim;
  b->team_limits(&lim);
  int T = p->team_size > 0 ? p->team_size : lim.team_size_recommended;
  int V = p->vector_length > 0 ? p->vector_length : 1;
  if (T > lim.team_size_max)
    return fail(err, errlen, "team size %lld exceeds the maximum %lld of this back end",
                T, lim.team_size_max, 0);
  if (V > lim.vector_length_max)
    return fail(err, errlen, "vector length %lld exceeds the maximum %lld", V,
                lim.vector_length_max, 0);
  for (int lv = 0; lv < 2; lv++) {
    int64_t per = 0, need = 0;
    int over = __builtin_mul_overflow((int64_t)T, p->scratch_thread[lv], &per) ||
               __builtin_add_overflow(p->scratch_team[lv], per, &need);
    if (over || need > lim.scratch_max[lv]) {
      char what[64];
      if (over)
        snprintf(what, sizeof what, "more than 2^63 - 1");
      else
        snprintf(what, sizeof what, "%lld", (long long)need);
      snprintf(err, errlen,
               "scratch level %d asks %s bytes per team (%lld per team + %d x "
               "%lld per thread), at most %lld",
               lv, what, (long long)p->scratch_team[lv], T,
               (long long)p->scratch_thread[lv], (long long)lim.scratch_max[lv]);
      return -1;
    }
  }
  p->team_size = T;
  p->vector_length = V;
  return 0;
}

int sk_policy_check(sk_policy *p, int pattern, const sk_backend *b, char *err,
                    size_t errlen) {
  if (p->chunk < 0)
    return fail(err, errlen, "chunk %lld is negative", (long long)p->chunk, 0, 0);
  switch (p->kind) {
  case SK_POL_RANGE:
    return check_range(p, err, errlen);
  case SK_POL_MDRANGE:
    if (check_mdrange(p, err, errlen) < 0) return -1;
    if (pattern == SK_SCAN && b && !(b->features & SK_FEAT_MDRANGE_SCAN)) {
      snprintf(err, errlen,
               "parallel_scan over an MDRangePolicy is not supported on %s (use "
               "a RangePolicy over the flattened index)",
               b->name);
      return -1;
    }
    return 0;
  case SK_POL_TEAM:
    if (pattern == SK_SCAN) {
      snprintf(err, errlen, "parallel_scan does not take a TeamPolicy (as in Kokkos)");
      return -1;
    }
    if (check_team_shape(p, err, errlen) < 0) return -1;
    return b ? resolve_team(p, b, err, errlen) : 0;
  default:
    return fail(err, errlen, "unknown policy kind %lld", p->kind, 0, 0);
  }
}

int sk_policy_launch(const sk_backend *b, const sk_launch *l, char *err,
                     size_t errlen) {
  return b->launch(l, err, errlen);
}
