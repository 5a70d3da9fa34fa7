/* gnames.c: vertex names -- the table graph.read fills with names = true
 * (tokens to ids 0..n-1 in order of first appearance), and the names of
 * a subgraph's vertices (graph.gather_names).
 *
 * A token that is an integer (an optional sign, decimal digits, in int64)
 * is keyed by its value, any other by its text: "7" and "07" are one
 * vertex's key, and since a vertex has one name, a second spelling of a
 * value already named is refused (gnames.h's SK_E_NAMES_SAME_INTEGER),
 * never merged silently. The names, as first spelled, are kept as one
 * byte array and offsets (int64, n + 1): a graph's 'names' property.
 * Open addressing with linear probing, FNV-1a hashes, the table doubled
 * at half full.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "gnames.h"

static uint64_t fnv(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

void sk_names_free(sk_names *t) {
  free(t->slot);
  free(t->bytes);
  free(t->off);
  free(t->keys);
  free(t->koff);
  free(t->line);
  memset(t, 0, sizeof *t);
}

static int push(char **a, int64_t *len, int64_t *cap, const char *s, size_t n) {
  if (*len + (int64_t)n > *cap) {
    int64_t c = *cap ? *cap : 4096;
    while (c < *len + (int64_t)n) c *= 2;
    char *b = realloc(*a, (size_t)c);
    if (!b) return -1;
    *a = b;
    *cap = c;
  }
  memcpy(*a + *len, s, n);
  *len += (int64_t)n;
  return 0;
}

static int grow_slots(sk_names *t) {
  int64_t ns = t->nslot ? 2 * t->nslot : 1024;
  int32_t *s = malloc((size_t)ns * sizeof *s);
  if (!s) return -1;
  for (int64_t i = 0; i < ns; i++) s[i] = -1;
  for (int64_t id = 0; id < t->n; id++) {
    const char *k = t->keys + t->koff[id];
    size_t kn = (size_t)(t->koff[id + 1] - t->koff[id]);
    uint64_t j = fnv(k, kn) & (uint64_t)(ns - 1);
    while (s[j] >= 0) j = (j + 1) & (uint64_t)(ns - 1);
    s[j] = (int32_t)id;
  }
  free(t->slot);
  t->slot = s;
  t->nslot = ns;
  return 0;
}

/* 1 when 'tok' is an integer of int64: its canonical text into 'buf';
 * 2 when 'tok' is that text already (the common case: no conversion) */
static int int_key(const char *tok, char *buf, size_t n) {
  const char *p = tok;
  if (*p == '+' || *p == '-') p++;
  if (*p < '0' || *p > '9') return 0;
  const char *d = p;
  while (*d >= '0' && *d <= '9') d++;
  if (*d) return 0;
  /* canonical: no '+', no leading zero, not "-0", short enough for int64 */
  if (*tok != '+' && (p[0] != '0' || d - p == 1) && !(*tok == '-' && p[0] == '0') &&
      d - p < 19)
    return 2;
  char *end;
  errno = 0;
  long long v = strtoll(tok, &end, 10);
  if (*end || errno == ERANGE) return 0;
  snprintf(buf, n, "%lld", v);
  return 1;
}

int64_t sk_names_intern(sk_names *t, const char *tok, int64_t lineno, int64_t *same) {
  char ibuf[32];
  size_t tn = strlen(tok);
  int isint = int_key(tok, ibuf, sizeof ibuf);
  const char *key = isint == 1 ? ibuf : tok;
  size_t kn = isint == 1 ? strlen(ibuf) : tn;
  if (2 * (t->n + 1) > t->nslot && grow_slots(t) < 0) return -1;
  uint64_t j = fnv(key, kn) & (uint64_t)(t->nslot - 1);
  for (; t->slot[j] >= 0; j = (j + 1) & (uint64_t)(t->nslot - 1)) {
    int32_t id = t->slot[j];
    if ((size_t)(t->koff[id + 1] - t->koff[id]) != kn ||
        memcmp(t->keys + t->koff[id], key, kn) != 0)
      continue;
    const char *nm = t->bytes + t->off[id];
    size_t nn = (size_t)(t->off[id + 1] - t->off[id]);
    if (isint && (nn != tn || memcmp(nm, tok, tn) != 0)) {
      *same = id;
      return -2;
    }
    return id;
  }
  if (t->n >= INT32_MAX - 1) return -1;
  if (t->n + 2 > t->cap_ids) {
    int64_t c = t->cap_ids ? 2 * t->cap_ids : 1024;
    int64_t *o = realloc(t->off, (size_t)c * sizeof *o);
    if (o) t->off = o;
    int64_t *ko = o ? realloc(t->koff, (size_t)c * sizeof *ko) : NULL;
    if (ko) t->koff = ko;
    int64_t *l = ko ? realloc(t->line, (size_t)c * sizeof *l) : NULL;
    if (l) t->line = l;
    if (!l) return -1;
    if (t->cap_ids == 0) t->off[0] = t->koff[0] = 0;
    t->cap_ids = c;
  }
  if (push(&t->bytes, &t->nbytes, &t->cap_bytes, tok, tn) < 0 ||
      push(&t->keys, &t->nkeys, &t->cap_keys, key, kn) < 0)
    return -1;
  int64_t id = t->n++;
  t->off[id + 1] = t->nbytes;
  t->koff[id + 1] = t->nkeys;
  t->line[id] = lineno;
  t->slot[j] = (int32_t)id;
  return id;
}

const char *sk_names_name(const sk_names *t, int64_t id, int *len) {
  *len = (int)(t->off[id + 1] - t->off[id]);
  return t->bytes + t->off[id];
}

int sk_names_out(sk_names *t, int space, sk_kvalue *out, char *err, size_t errlen) {
  (void)space;
  sk_view b, o;
  memset(&b, 0, sizeof b);
  memset(&o, 0, sizeof o);
  int64_t nb = t->nbytes, n = t->n;
  if (sk_sp_view(&b, "names", SK_U8, nb > 0 ? nb : 1, SK_SPACE_HOST, 0, err, errlen) < 0 ||
      sk_sp_view(&o, "name offsets", SK_I64, n + 1, SK_SPACE_HOST, 0, err, errlen) < 0) {
    sk_view_release(&b);
    return -1;
  }
  if (nb > 0) memcpy(b.data, t->bytes, (size_t)nb);
  int64_t *po = o.data;
  po[0] = 0;
  for (int64_t i = 1; i <= n; i++) po[i] = t->off[i];
  if (sk_kout_view(out, "names", &b, err, errlen) < 0) {
    sk_view_release(&o);
    return -1;
  }
  return sk_kout_view(out, "name_offsets", &o, err, errlen);
}

/* graph.gather_names: names (uint8), name_offsets (int64, n + 1), idx
 * (int64: the old vertex of each new one, any space) -> names,
 * name_offsets of the new vertices (host views) */
static int gather_names(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"names", "name_offsets", "idx", NULL};
  const sk_view *nb, *no, *idx;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(nb = sk_karg_view(args, nargs, "names", 1, err, errlen)) ||
      !(no = sk_karg_view(args, nargs, "name_offsets", 1, err, errlen)) ||
      !(idx = sk_karg_view(args, nargs, "idx", 1, err, errlen)))
    return -1;
  sk_view hi, b, o;
  memset(&b, 0, sizeof b);
  memset(&o, 0, sizeof o);
  if (sk_sp_host_copy(idx, &hi, err, errlen) < 0) return -1;
  const int64_t *ix = hi.data, *po = no->data;
  const char *pb = nb->data;
  int64_t m = hi.extent[0], total = 0, nn = no->extent[0] - 1;
  int rc = -1;
  for (int64_t i = 0; i < m; i++) {
    if (ix[i] < 0 || ix[i] >= nn) {
      sk_err(err, errlen, SK_E_SUBGRAPH_ID_OUTSIDE, (long long)i, (long long)ix[i],
             (long long)nn - 1);
      goto done;
    }
    total += po[ix[i] + 1] - po[ix[i]];
  }
  if (sk_sp_view(&b, "names", SK_U8, total > 0 ? total : 1, SK_SPACE_HOST, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&o, "name offsets", SK_I64, m + 1, SK_SPACE_HOST, 0, err, errlen) < 0)
    goto done;
  {
    int64_t *q = o.data, at = 0;
    char *d = b.data;
    q[0] = 0;
    for (int64_t i = 0; i < m; i++) {
      int64_t len = po[ix[i] + 1] - po[ix[i]];
      memcpy(d + at, pb + po[ix[i]], (size_t)len);
      at += len;
      q[i + 1] = at;
    }
  }
  if (sk_kout_view(out, "names", &b, err, errlen) < 0 ||
      sk_kout_view(out, "name_offsets", &o, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_view_release(&hi);
  sk_view_release(&b);
  sk_view_release(&o);
  return rc;
}

const sk_kentry sk_gnames_gather = {"graph.gather_names", "names, name_offsets, idx",
                                    SK_KRES_NONE, gather_names};
