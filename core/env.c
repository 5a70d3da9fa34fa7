/* env.c: the environment settings read below vm/, parsed in one place.
 *
 * Every malformed value is an error with one message format,
 * "NAME=value: what is wrong", never a silent default. A variable that is
 * unset or empty means "not given". The runtime checks them all when it
 * starts (sk_rt_initialize, first use) and the CLI at start-up, so a typo
 * is reported before any work is done.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/err.h"

/* the names of the jit tiers, in the order of jit.h's SK_TIER_AUTO, _TCC,
 * _CC */
static const char *const jit_words[] = {"auto", "tcc", "cc", NULL};

const char *sk_env_get(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* "NAME=value: " with the value cut to a readable length */
static size_t prefix(char *err, size_t errlen, const char *name, const char *v) {
  if (!err || !errlen) return 0;
  sk_err(err, errlen, SK_E_ENV_PREFIX, name, v, strlen(v) > 64 ? "..." : "");
  return strlen(err);
}

static void fail(char *err, size_t errlen, const char *name, const char *v,
                 const char *what) {
  size_t n = prefix(err, errlen, name, v);
  if (n + 1 < errlen) snprintf(err + n, errlen - n, "%s", what);
}

/* "NAME=value: " and message 'id' (a text without slots) */
static void fail_id(char *err, size_t errlen, const char *name, const char *v, int id) {
  size_t n = prefix(err, errlen, name, v);
  if (n + 1 < errlen) sk_err_(err + n, errlen - n, id);
  else sk_err_(NULL, 0, id);
}

/* Decimal digits only (no sign, no blanks), at most 'max'. */
static int parse_count(const char *v, int max, int *out) {
  long long n = 0;
  if (!*v) return -1;
  for (const char *p = v; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    n = n * 10 + (*p - '0');
    if (n > (long long)INT_MAX) return -2;
  }
  if (n < 1) return -1;
  if (n > max) return -2;
  *out = (int)n;
  return 0;
}

int sk_env_count(const char *name, int max, int *out, char *err, size_t errlen) {
  const char *v = sk_env_get(name);
  if (!v) return 0;
  int rc = parse_count(v, max, out);
  if (rc == -1) {
    fail_id(err, errlen, name, v, SK_E_NOT_POSITIVE_INTEGER);
    return -1;
  }
  if (rc == -2) {
    char what[64];
    sk_err(what, sizeof what, SK_E_MORE_THAN_INT, max);
    fail(err, errlen, name, v, what);
    return -1;
  }
  return 1;
}

int sk_env_threads(int *threads, char *err, size_t errlen) {
  int rc = sk_env_count("SPECK_THREADS", SK_THREADS_MAX, threads, err, errlen);
  if (rc != 0) return rc;
  /* OMP_NUM_THREADS may be a list ("4,2": one count per nesting level);
   * the first entry is the pool size */
  const char *v = sk_env_get("OMP_NUM_THREADS");
  if (!v) return 0;
  char first[32];
  size_t n = strcspn(v, ",");
  if (n >= sizeof first) n = sizeof first - 1;
  memcpy(first, v, n);
  first[n] = '\0';
  rc = parse_count(first, SK_THREADS_MAX, threads);
  if (rc == 0) return 1;
  char what[64];
  if (rc == -2) sk_err(what, sizeof what, SK_E_MORE_THAN_INT, SK_THREADS_MAX);
  else sk_err(what, sizeof what, SK_E_NOT_POSITIVE_INTEGER);
  fail(err, errlen, "OMP_NUM_THREADS", v, what);
  return -1;
}

int sk_env_jit(int *tier, char *err, size_t errlen) {
  const char *v = sk_env_get("SPECK_JIT");
  *tier = 0;
  if (!v) return 0;
  for (int t = 0; jit_words[t]; t++)
    if (strcmp(v, jit_words[t]) == 0) {
      *tier = t;
      return 1;
    }
  fail_id(err, errlen, "SPECK_JIT", v, SK_E_UNKNOWN_TIER_TCC);
  return -1;
}

const char *sk_env_jit_name(int tier) {
  return tier >= 0 && tier < 3 ? jit_words[tier] : "?";
}

/* "serial, openmp or ...": the registered back ends, then (with
 * 'memory') the memory spaces no back end is named after, for messages */
void sk_env_space_names(char *buf, size_t n, int memory) {
  const char *names[64];
  int count = 0;
  for (const sk_backend *const *b = sk_backend_list(); *b && count < 48; b++)
    names[count++] = (*b)->name;
  for (int ms = 0, nms = sk_space_count(); memory && ms < nms; ms++) {
    const char *m = sk_space_name(ms);
    if (m && sk_space_parse(m) == ms && !sk_backend_find(m)) names[count++] = m;
  }
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < count && used < n; i++) {
    const char *sep = i == 0 ? "" : i == count - 1 ? " or " : ", ";
    int w = snprintf(buf + used, n - used, "%s%s", sep, names[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
}

int sk_env_space(const char **space, char *err, size_t errlen) {
  const char *v = sk_env_get("SPECK_SPACE");
  *space = NULL;
  if (!v) return 0;
  if (!sk_backend_find(v)) {
    char names[256], what[300];
    sk_env_space_names(names, sizeof names, 0);
    sk_err(what, sizeof what, SK_E_UNKNOWN_SPACE_OF, names);
    fail(err, errlen, "SPECK_SPACE", v, what);
    return -1;
  }
  *space = v;
  return 1;
}

/* Decimal digits with an optional fraction ("0.5", "30"), no sign,
 * exponent or blanks; > 0 and at most 'max'. */
int sk_env_seconds(const char *name, double max, double *out, char *err, size_t errlen) {
  const char *v = sk_env_get(name);
  if (!v) return 0;
  double x = 0, scale = 1;
  int digits = 0;
  const char *p = v;
  for (; *p >= '0' && *p <= '9'; p++, digits++) x = x * 10 + (*p - '0');
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits++) x += (*p - '0') * (scale /= 10);
  if (!digits || *p || !(x > 0)) {
    fail_id(err, errlen, name, v, SK_E_NOT_POSITIVE_NUMBER);
    return -1;
  }
  if (x > max) {
    char what[64];
    sk_err(what, sizeof what, SK_E_MORE_THAN_SECONDS, max);
    fail(err, errlen, name, v, what);
    return -1;
  }
  *out = x;
  return 1;
}

int sk_env_cc_timeout(double *seconds, char *err, size_t errlen) {
  *seconds = SK_CC_TIMEOUT_DEFAULT;
  return sk_env_seconds("SPECK_CC_TIMEOUT", 86400, seconds, err, errlen);
}

struct size_check {
  char *err;
  size_t errlen;
};

static int check_size(const char *name, void *ctx) {
  struct size_check *c = ctx;
  const char *mx = sk_env_get(name);
  if (mx && sk_parse_size(mx) <= 0) {
    fail_id(c->err, c->errlen, name, mx, SK_E_NOT_SIZE_BYTES);
    return -1;
  }
  return 0;
}

int sk_env_check(char *err, size_t errlen) {
  const char *space;
  int n;
  double t;
  if (sk_env_space(&space, err, errlen) < 0) return -1;
  if (sk_env_threads(&n, err, errlen) < 0) return -1;
  if (sk_env_jit(&n, err, errlen) < 0) return -1;
  if (sk_env_cc_timeout(&t, err, errlen) < 0) return -1;
  /* the memory budgets the spaces declare (SPECK_MEMORY_MAX, a device's) */
  struct size_check c = {err, errlen};
  return sk_space_budget_envs(check_size, &c);
}

/* A memory budget variable a back end's spaces declare (sk_space_desc's
 * 'budget_env'): its bytes, 0 when unset (a malformed value reads as
 * unset here and is refused by sk_env_check at start-up), described in
 * 'desc' ("NAME's 2.00 GiB"). */
uint64_t sk_env_memory_max(const char *name, char *desc, size_t n) {
  const char *mx = sk_env_get(name);
  int64_t v = mx ? sk_parse_size(mx) : -1;
  if (v <= 0) {
    sk_err(desc, n, SK_E_NO_BUDGET, name);
    return 0;
  }
  if (v >= (int64_t)1 << 30) sk_err(desc, n, SK_E_GIB, name, (double)v / (1 << 30));
  else if (v >= (int64_t)1 << 20)
    sk_err(desc, n, SK_E_MIB_2, name, (double)v / (1 << 20));
  else sk_err(desc, n, SK_E_BYTES_2, name, (long long)v);
  return (uint64_t)v;
}

/* A size: decimal digits with an optional fraction, then nothing or one
 * of K, M, G (either case; powers of 1024). No sign, exponent, hex,
 * blanks or trailing text; at most 2^62 bytes. */
int64_t sk_parse_size(const char *s) {
  const char *p = s;
  double v = 0, scale = 1;
  int digits = 0;
  for (; *p >= '0' && *p <= '9'; p++, digits++) v = v * 10 + (*p - '0');
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits++) v += (*p - '0') * (scale /= 10);
  if (!digits) return -1;
  switch (*p) {
  case 'k':
  case 'K':
    v *= 1024;
    p++;
    break;
  case 'm':
  case 'M':
    v *= 1024.0 * 1024;
    p++;
    break;
  case 'g':
  case 'G':
    v *= 1024.0 * 1024 * 1024;
    p++;
    break;
  default: break;
  }
  if (*p || !isfinite(v) || v > 4611686018427387904.0) return -1;
  return (int64_t)v;
}
