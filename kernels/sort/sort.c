/* sort.c: sorting a rank-1 view in place (speck.sort) and keys with
 * values (speck.sort_by_key), with a comparator in the dialect compiled
 * into the sort (seed 000 section 5).
 *
 * Two algorithms over the same comparator text:
 *  - bitonic, the GPU algorithm: blocks of BS keys sorted in team scratch
 *    by the dialect's TEAM_SORT (dialect/host.h), then for every larger
 *    power-of-two size k the steps with distance >= BS as range launches
 *    over the pairs (device level) and the rest inside each block in
 *    scratch again. Positions past n act as +infinity, so any n works.
 *    Keys with values: the keys carry their positions (a tie-break on
 *    them makes it stable) and the values are gathered at the end.
 *  - merge, the host's fast path: the keys cut into one chunk per thread,
 *    each merge-sorted sequentially (insertion-sorted runs of 16, then
 *    merges), then pairs of runs merged in parallel, every element
 *    finding its place by a binary search in the other run. Stable.
 * "auto" takes merge on a host back end (strided views sorted in
 * contiguous copies) and bitonic elsewhere. The comparator is a C expression over 'a' and 'b' that is
 * true when a comes before b ("a < b" by default); descending swaps a and
 * b in it. The default comparators' bodies are precompiled for the usual
 * dtypes; any other comparator or dtype is compiled by the JIT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

#include "../graph/graph.h" /* sk_g_flag; sparse.h: views and launches */
#include "kbodies.h"
/* the block of the bitonic sort (keys per team) */
#define BS 1024

/* -- bodies ---------------------------------------------------------------
 * Each body is a template of its comparator expression E (sort.sk): the
 * precompiled ones have "a < b" / "b < a", the template "@E@" (replaced
 * by the user's expression at run time; no body holds a '@' otherwise). */
/* keys with positions: ties broken by the position (stable) */
#define STABLE(E, ER) "(" E ") || (!(" ER ") && va < vb)"

/* -- the kinds of body and their precompiled signatures ------------------ */
enum {
  K_STEP,
  K_STEPX,
  K_BLOCK,
  K_BLOCKX,
  K_LOCAL,
  K_LOCALX,
  K_CHUNK,
  K_CHUNKV,
  K_MERGE,
  K_MERGEV,
  NKIND
};

/* the template of each kind (the comparator as "@E@") */
static const char *const kind_tmpl[NKIND] = {
  sk_body_sort_step,  sk_body_sort_step_kv,  sk_body_sort_block, sk_body_sort_block_kv,
  sk_body_sort_local, sk_body_sort_local_kv, sk_body_sort_chunk, sk_body_sort_chunk_kv,
  sk_body_sort_merge, sk_body_sort_merge_kv};

#define SIG_STEP(T)   "range" R1("v", T) " n=int64 kk=int64 jj=int64"
#define SIG_STEPX(T)  "range" R1("v", T) R1("x", "int64") " n=int64 kk=int64 jj=int64"
#define SIG_BLOCK(T)  "team" R1("v", T) " n=int64 bs=int64"
#define SIG_BLOCKX(T) "team" R1("v", T) R1("x", "int64") " n=int64 bs=int64"
#define SIG_CHUNK(T)  "range" R1("v", T) R1("tv", T) " n=int64 cs=int64"
#define SIG_CHUNKV(T, V) \
  "range" R1("v", T) R1("tv", T) R1("u", V) R1("tu", V) " n=int64 cs=int64"
#define SIG_MERGE(T) "range" R1("s", T) R1("d", T) " n=int64 w=int64 sl=int64"
#define SIG_MERGEV(T, V) \
  "range" R1("s", T) R1("d", T) R1("su", V) R1("du", V) " n=int64 w=int64 sl=int64"
#define FOUR(M)     M("float64"), M("float32"), M("int64"), M("int32")
#define FOURV(M, V) M("float64", V), M("float32", V), M("int64", V), M("int32", V)

static const char *const sig_step[] = {SIG_STEP("float64"), NULL};
static const char *const sig_stepx[] = {SIG_STEPX("float64"), NULL};
static const char *const sig_block[] = {SIG_BLOCK("float64"), NULL};
static const char *const sig_blockx[] = {SIG_BLOCKX("float64"), NULL};
static const char *const sig_chunk[] = {FOUR(SIG_CHUNK), NULL};
static const char *const sig_chunkv[] = {FOURV(SIG_CHUNKV, "int64"),
                                         FOURV(SIG_CHUNKV, "float64"), NULL};
static const char *const sig_merge[] = {FOUR(SIG_MERGE), NULL};
static const char *const sig_mergev[] = {FOURV(SIG_MERGEV, "int64"),
                                         FOURV(SIG_MERGEV, "float64"), NULL};

/* the precompiled bodies of one direction (sort.sk: <kind>_asc, _desc) */
#define KBODY(K, SFX, LABEL, SIGS) \
  static const sk_kbody k_##K##_##SFX = { \
    .label = LABEL, .body = sk_body_sort_##K##_##SFX, .pattern = SK_FOR, .sigs = SIGS};
#define BODIES(SFX) \
  KBODY(step, SFX, "sort.bitonic_step", sig_step) \
  KBODY(step_kv, SFX, "sort.bitonic_step_kv", sig_stepx) \
  KBODY(block, SFX, "sort.bitonic_block", sig_block) \
  KBODY(block_kv, SFX, "sort.bitonic_block_kv", sig_blockx) \
  KBODY(local, SFX, "sort.bitonic_local", sig_block) \
  KBODY(local_kv, SFX, "sort.bitonic_local_kv", sig_blockx) \
  KBODY(chunk, SFX, "sort.merge_chunk", sig_chunk) \
  KBODY(chunk_kv, SFX, "sort.merge_chunk_kv", sig_chunkv) \
  KBODY(merge, SFX, "sort.merge_pass", sig_merge) \
  KBODY(merge_kv, SFX, "sort.merge_pass_kv", sig_mergev) \
  static const sk_kbody *const kinds_##SFX[NKIND] = { \
    &k_step_##SFX,  &k_step_kv_##SFX,  &k_block_##SFX, &k_block_kv_##SFX, \
    &k_local_##SFX, &k_local_kv_##SFX, &k_chunk_##SFX, &k_chunk_kv_##SFX, \
    &k_merge_##SFX, &k_merge_kv_##SFX};

BODIES(asc)
BODIES(desc)

static const sk_kbody k_copy = {
  .label = "sort.copy", .body = sk_body_sort_copy, .pattern = SK_FOR};
static const char *const sig_iota[] = {"range" R1("x", "int64"), NULL};
static const sk_kbody k_iota = {
  .label = "sort.iota", .body = sk_body_sort_iota, .pattern = SK_FOR, .sigs = sig_iota};
static const sk_kbody k_gather = {
  .label = "sort.gather", .body = sk_body_sort_gather, .pattern = SK_FOR};

/* -- comparators ---------------------------------------------------------- */
/* a user comparator: an expression (no statements), refused otherwise */
static int check_comparator(const char *e, char *err, size_t errlen) {
  size_t n = strlen(e);
  int depth = 0;
  if (n == 0 || n > 2000) {
    sk_err(err, errlen, SK_E_COMPARATOR_MUST_C, n);
    return -1;
  }
  for (size_t k = 0; k < n && depth >= 0; k++) {
    char c = e[k];
    if (c == ';' || c == '{' || c == '}' || c == '@' || c == '#' || c == '\\') {
      sk_err(err, errlen, SK_E_COMPARATOR_MUST_ONE, e, c);
      return -1;
    }
    depth += (c == '(') - (c == ')');
  }
  if (depth != 0) {
    sk_err(err, errlen, SK_E_COMPARATOR_UNBALANCED_PARENTHESES, e);
    return -1;
  }
  return 0;
}

/* 'e' with the identifiers a and b exchanged (descending order) */
static void swap_ab(const char *e, char *out) {
  size_t n = strlen(e), o = 0;
  for (size_t k = 0; k < n; k++) {
    char c = e[k];
    int prev_id = k > 0 && ((e[k - 1] >= 'a' && e[k - 1] <= 'z') ||
                            (e[k - 1] >= 'A' && e[k - 1] <= 'Z') || e[k - 1] == '_' ||
                            (e[k - 1] >= '0' && e[k - 1] <= '9') || e[k - 1] == '.' ||
                            (e[k - 1] == '>' && k > 1 && e[k - 2] == '-'));
    int next_id = k + 1 < n && ((e[k + 1] >= 'a' && e[k + 1] <= 'z') ||
                                (e[k + 1] >= 'A' && e[k + 1] <= 'Z') || e[k + 1] == '_' ||
                                (e[k + 1] >= '0' && e[k + 1] <= '9'));
    if ((c == 'a' || c == 'b') && !prev_id && !next_id) c = c == 'a' ? 'b' : 'a';
    out[o++] = c;
  }
  out[o] = '\0';
}

/* template 't' with every "@E@" replaced by 'e' (malloc'd; NULL: out of
 * memory) */
static char *subst(const char *t, const char *e) {
  size_t cnt = 0, el = strlen(e);
  for (const char *p = t; (p = strstr(p, "@E@")); p += 3) cnt++;
  char *b = malloc(strlen(t) + cnt * el + 1);
  if (!b) return NULL;
  char *o = b;
  for (const char *p = t;;) {
    const char *q = strstr(p, "@E@");
    size_t len = q ? (size_t)(q - p) : strlen(p);
    memcpy(o, p, len);
    o += len;
    if (!q) break;
    memcpy(o, e, el);
    o += el;
    p = q + 3;
  }
  *o = '\0';
  return b;
}

/* The bodies of one sort: the precompiled ones for the default
 * comparators, else made from the templates (freed by bodies_free). */
typedef struct bodies {
  sk_kbody k[NKIND];
  char *text[NKIND];
} bodies;

static void bodies_free(bodies *b) {
  for (int t = 0; t < NKIND; t++) free(b->text[t]);
}

static int bodies_make(bodies *b, const char *cmp, int desc, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  if (!cmp) {
    const sk_kbody *const *src = desc ? kinds_desc : kinds_asc;
    for (int t = 0; t < NKIND; t++) b->k[t] = *src[t];
    return 0;
  }
  size_t n = strlen(cmp);
  char *e = malloc(n + 1), *er = malloc(n + 1), *ex = malloc(4 * n + 64);
  int rc = -1;
  if (!e || !er || !ex) goto oom;
  if (desc) {
    swap_ab(cmp, e);
    strcpy(er, cmp);
  } else {
    strcpy(e, cmp);
    swap_ab(cmp, er);
  }
  snprintf(ex, 4 * n + 64, STABLE("%s", "%s"), e, er);
  for (int t = 0; t < NKIND; t++) {
    int stable = t == K_STEPX || t == K_BLOCKX || t == K_LOCALX;
    b->k[t] = *kinds_asc[t];
    b->k[t].sigs = NULL;
    if (!(b->text[t] = subst(kind_tmpl[t], stable ? ex : e))) goto oom;
    b->k[t].body = b->text[t];
  }
  rc = 0;
oom:
  if (rc < 0) {
    sk_err(err, errlen, SK_E_NOMEM);
    bodies_free(b);
  }
  free(e);
  free(er);
  free(ex);
  return rc;
}

/* -- drivers --------------------------------------------------------------- */
static int64_t pow2_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

static int launch_team(const sk_kbody *kb, const sk_backend *b, int64_t league,
                       int64_t scratch, const sk_arg *a, int na, char *err,
                       size_t errlen) {
  sk_team_limits lim;
  b->team_limits(&lim);
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = league;
  if (!sk_sp_host(b)) {
    p.team_size = lim.team_size_max < 256 ? lim.team_size_max : 256;
    p.vector_length = 1;
  }
  p.scratch_team[0] = scratch;
  return sk_kbody_launch(kb, &p, a, na, NULL, err, errlen);
}

/* bitonic: keys 'v' (with positions 'x' when non-NULL) */
static int bitonic(const bodies *bd, const sk_backend *b, const sk_view *v,
                   const sk_view *x, char *err, size_t errlen) {
  int64_t n = v->extent[0], N = pow2_at_least(n), bs = N < BS ? N : BS;
  int64_t league = (n + bs - 1) / bs;
  int64_t scratch = bs * (int64_t)sk_dtypes[v->dtype].size + 64 + (x ? bs * 8 + 64 : 0);
  sk_arg a[] = {sk_arg_view("v", v), sk_arg_i64("n", n), sk_arg_i64("bs", bs),
                sk_arg_view("x", x ? x : v)};
  int na = x ? 4 : 3;
  if (launch_team(&bd->k[x ? K_BLOCKX : K_BLOCK], b, league, scratch, a, na, err,
                  errlen) < 0)
    return -1;
  for (int64_t kk = 2 * bs; kk <= N; kk <<= 1) {
    for (int64_t jj = kk >> 1; jj >= bs; jj >>= 1) {
      sk_arg s[] = {sk_arg_view("v", v), sk_arg_i64("n", n), sk_arg_i64("kk", kk),
                    sk_arg_i64("jj", jj), sk_arg_view("x", x ? x : v)};
      if (sk_sp_range(&bd->k[x ? K_STEPX : K_STEP], N / 2, s, x ? 5 : 4, NULL, err,
                      errlen) < 0)
        return -1;
    }
    if (launch_team(&bd->k[x ? K_LOCALX : K_LOCAL], b, league, scratch, a, na, err,
                    errlen) < 0)
      return -1;
  }
  return 0;
}

/* merge: keys 'v' (values 'u' when non-NULL), contiguous (the caller
 * copies strided views) */
static int merge(const bodies *bd, const sk_backend *b, const sk_view *v,
                 const sk_view *u, char *err, size_t errlen) {
  int64_t n = v->extent[0];
  int64_t P = b->concurrency ? b->concurrency() : 1;
  if (P < 1) P = 1;
  if (n < 8192) P = 1;
  int64_t cs = (n + P - 1) / P;
  P = (n + cs - 1) / cs;
  sk_view tv, tu;
  memset(&tv, 0, sizeof tv);
  memset(&tu, 0, sizeof tu);
  int rc = -1;
  if (sk_sp_view(&tv, "sort keys", v->dtype, n, v->space, 0, err, errlen) < 0 ||
      (u && sk_sp_view(&tu, "sort values", u->dtype, n, u->space, 0, err, errlen) < 0))
    goto done;
  {
    sk_arg a[] = {sk_arg_view("v", v),         sk_arg_view("tv", &tv),
                  sk_arg_i64("n", n),          sk_arg_i64("cs", cs),
                  sk_arg_view("u", u ? u : v), sk_arg_view("tu", u ? &tu : &tv)};
    if (sk_sp_range(&bd->k[u ? K_CHUNKV : K_CHUNK], P, a, u ? 6 : 4, NULL, err, errlen) <
        0)
      goto done;
  }
  const sk_view *src = v, *dst = &tv, *usrc = u, *udst = &tu;
  int64_t conc = b->concurrency ? b->concurrency() : 1;
  int64_t sl = (n + 8 * conc - 1) / (8 * conc);
  if (sl < 4096) sl = 4096;
  for (int64_t w = cs; w < n; w *= 2) {
    sk_arg a[] = {sk_arg_view("s", src),
                  sk_arg_view("d", dst),
                  sk_arg_i64("n", n),
                  sk_arg_i64("w", w),
                  sk_arg_i64("sl", sl),
                  sk_arg_view("su", u ? usrc : src),
                  sk_arg_view("du", u ? udst : dst)};
    if (sk_sp_range(&bd->k[u ? K_MERGEV : K_MERGE], (n + sl - 1) / sl, a, u ? 7 : 5, NULL,
                    err, errlen) < 0)
      goto done;
    const sk_view *t = src;
    src = dst;
    dst = t;
    t = usrc;
    usrc = udst;
    udst = t;
  }
  if (src != v) {
    sk_arg a[] = {sk_arg_view("d", v), sk_arg_view("s", src)};
    if (sk_sp_range(&k_copy, n, a, 2, NULL, err, errlen) < 0) goto done;
    if (u) {
      sk_arg c[] = {sk_arg_view("d", u), sk_arg_view("s", usrc)};
      if (sk_sp_range(&k_copy, n, c, 2, NULL, err, errlen) < 0) goto done;
    }
  }
  rc = 0;
done:
  sk_view_release(&tv);
  sk_view_release(&tu);
  return rc;
}

static int sortable(const sk_view *v, const char *what, char *err, size_t errlen) {
  if (v->agg) {
    sk_err(err, errlen, SK_E_VIEW_HOLDS_ELEMENTS, what, v->label,
           v->agg == SK_AGG_FAD ? "fad" : "ensemble");
    return -1;
  }
  if (v->rank != 1) {
    sk_err(err, errlen, SK_E_VIEW_RANK_EXPECTED_RANK, what, v->label, v->rank);
    return -1;
  }
  if (sk_dtypes[v->dtype].is_complex && strcmp(what, "keys") == 0) { /* no order */
    sk_err(err, errlen, SK_E_COMPLEX_NOT_REAL, what, v->label, sk_dtypes[v->dtype].name);
    return -1;
  }
  return 0;
}

/* sort.sort: keys [, values, descending, comparator, algorithm] */
static int do_sort(const sk_arg *args, int nargs, int kv, char *err, size_t errlen) {
  static const char *const known1[] = {"keys", "descending", "comparator", "algorithm",
                                       NULL};
  static const char *const known2[] = {"keys",       "values",    "descending",
                                       "comparator", "algorithm", NULL};
  const sk_view *v, *u = NULL;
  int desc = 0;
  if (sk_karg_known(args, nargs, kv ? known2 : known1, err, errlen) < 0 ||
      !(v = sk_karg_view(args, nargs, "keys", -1, err, errlen)) ||
      (kv && !(u = sk_karg_view(args, nargs, "values", -1, err, errlen))) ||
      sk_g_flag(args, nargs, "descending", 0, &desc, err, errlen) < 0 ||
      sortable(v, "keys", err, errlen) < 0 ||
      (u && sortable(u, "values", err, errlen) < 0))
    return -1;
  const char *alg = sk_karg_str(args, nargs, "algorithm", "auto", err, errlen);
  if (!alg) return -1;
  if (strcmp(alg, "auto") != 0 && strcmp(alg, "bitonic") != 0 &&
      strcmp(alg, "merge") != 0) {
    sk_err(err, errlen, SK_E_ALGORITHM_MUST_AUTO, alg);
    return -1;
  }
  const char *cmp = NULL;
  if (sk_karg_find(args, nargs, "comparator")) {
    if (!(cmp = sk_karg_str(args, nargs, "comparator", NULL, err, errlen))) return -1;
    if (check_comparator(cmp, err, errlen) < 0) return -1;
  }
  if (u && u->extent[0] != v->extent[0]) {
    sk_err(err, errlen, SK_E_KEYS_VIEW_ENTRIES, v->label, (long long)v->extent[0],
           u->label, (long long)u->extent[0]);
    return -1;
  }
  if (u && u->space != v->space) {
    sk_err(err, errlen, SK_E_KEYS_VIEW_VALUES, v->label, u->label);
    return -1;
  }
  if (u && u->alloc && u->alloc == v->alloc) {
    sk_err(err, errlen, SK_E_KEYS_VALUES_VIEWS, v->label);
    return -1;
  }
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  int contiguous = v->stride[0] == 1 && (!u || u->stride[0] == 1);
  int use_merge =
    strcmp(alg, "merge") == 0 || (strcmp(alg, "auto") == 0 && sk_sp_host(b));
  int64_t n = v->extent[0];
  if (n < 2) return 0;
  bodies bd;
  if (bodies_make(&bd, cmp, desc != 0, err, errlen) < 0) return -1;
  int rc = -1;
  sk_view x, t;
  memset(&x, 0, sizeof x);
  memset(&t, 0, sizeof t);
  if (use_merge && !contiguous) {
    /* strided views: merge-sorted in contiguous copies, copied back */
    sk_view cu;
    memset(&cu, 0, sizeof cu);
    sk_arg a[] = {sk_arg_view("d", &t), sk_arg_view("s", v)};
    sk_arg c[] = {sk_arg_view("d", &cu), sk_arg_view("s", u ? u : v)};
    sk_arg ab[] = {sk_arg_view("d", v), sk_arg_view("s", &t)};
    sk_arg cb[] = {sk_arg_view("d", u ? u : v), sk_arg_view("s", &cu)};
    rc = sk_sp_view(&t, "sort keys", v->dtype, n, v->space, 0, err, errlen) < 0 ||
             (u && sk_sp_view(&cu, "sort values", u->dtype, n, u->space, 0, err, errlen) <
                     0) ||
             sk_sp_range(&k_copy, n, a, 2, NULL, err, errlen) < 0 ||
             (u && sk_sp_range(&k_copy, n, c, 2, NULL, err, errlen) < 0) ||
             merge(&bd, b, &t, u ? &cu : NULL, err, errlen) < 0 ||
             sk_sp_range(&k_copy, n, ab, 2, NULL, err, errlen) < 0 ||
             (u && sk_sp_range(&k_copy, n, cb, 2, NULL, err, errlen) < 0)
           ? -1
           : 0;
    sk_view_release(&cu);
  } else if (use_merge) {
    rc = merge(&bd, b, v, u, err, errlen);
  } else if (!u) {
    rc = bitonic(&bd, b, v, NULL, err, errlen);
  } else {
    /* keys with their positions, then the values gathered by position */
    sk_arg a[] = {sk_arg_view("x", &x)};
    if (sk_sp_view(&x, "sort positions", SK_I64, n, v->space, 0, err, errlen) < 0 ||
        sk_sp_view(&t, "sort values", u->dtype, n, u->space, 0, err, errlen) < 0 ||
        sk_sp_range(&k_iota, n, a, 1, NULL, err, errlen) < 0 ||
        bitonic(&bd, b, v, &x, err, errlen) < 0)
      goto done;
    sk_arg g[] = {sk_arg_view("d", &t), sk_arg_view("s", u), sk_arg_view("x", &x)};
    sk_arg c[] = {sk_arg_view("d", u), sk_arg_view("s", &t)};
    if (sk_sp_range(&k_gather, n, g, 3, NULL, err, errlen) < 0 ||
        sk_sp_range(&k_copy, n, c, 2, NULL, err, errlen) < 0)
      goto done;
    rc = 0;
  }
done:
  sk_view_release(&x);
  sk_view_release(&t);
  bodies_free(&bd);
  return rc;
}

static int sort1(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  (void)out;
  return do_sort(args, nargs, 0, err, errlen);
}

static int sort2(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  (void)out;
  return do_sort(args, nargs, 1, err, errlen);
}

static const sk_kentry e_sort = {
  "sort.sort", "keys [, descending, comparator, algorithm]", SK_KRES_NONE, sort1};
static const sk_kentry e_sort_kv = {"sort.sort_by_key",
                                    "keys, values [, descending, comparator, algorithm]",
                                    SK_KRES_NONE, sort2};

const sk_kentry *const sk_sort_entries[] = {&e_sort, &e_sort_kv, NULL};
const sk_kbody *const sk_sort_bodies[] = {&k_step_asc,   &k_step_kv_asc,
                                          &k_block_asc,  &k_block_kv_asc,
                                          &k_local_asc,  &k_local_kv_asc,
                                          &k_chunk_asc,  &k_chunk_kv_asc,
                                          &k_merge_asc,  &k_merge_kv_asc,
                                          &k_step_desc,  &k_step_kv_desc,
                                          &k_block_desc, &k_block_kv_desc,
                                          &k_local_desc, &k_local_kv_desc,
                                          &k_chunk_desc, &k_chunk_kv_desc,
                                          &k_merge_desc, &k_merge_kv_desc,
                                          &k_iota,       NULL};
