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

#include "../graph/graph.h"   /* sk_g_flag; sparse.h: views and launches */
#include "kbodies.h"
/* the block of the bitonic sort (keys per team) */
#define BS 1024

/* -- bodies ---------------------------------------------------------------
 * Each body is a macro of its comparator expression E: the precompiled
 * ones get "a < b" / "b < a", the template "@E@" (replaced by the user's
 * expression at run time; no body holds a '@' otherwise). */
#define CMP(var, X, Y, E)                                                     \
  "{ const KT a = (" X "), b = (" Y "); " var " = (" E "); }"
#define CMPX(var, X, Y, XI, YI, E)                                            \
  "{ const KT a = (" X "), b = (" Y "); const int64_t va = (" XI "), vb = (" YI "); " \
  "(void)va; (void)vb; " var " = (" E "); }"
/* keys with positions: ties broken by the position (stable) */
#define STABLE(E, ER) "(" E ") || (!(" ER ") && va < vb)"

/* one device-level step (distance jj of block size kk) over pair i */
#define STEP_HEAD                                                             \
  "typedef __typeof__(v(0)) KT;\n"                                            \
  "const int64_t p = ((i & ~(jj - 1)) << 1) | (i & (jj - 1));\n"              \
  "const int64_t q = jj == (kk >> 1) ? (p ^ (kk - 1)) : p + jj;\n"
#define STEP(E)                                                               \
  STEP_HEAD                                                                   \
  "if (q < n) {\n"                                                            \
  "  int sw;\n"                                                               \
  "  " CMP("sw", "v(q)", "v(p)", E) "\n"                                      \
  "  if (sw) { const KT t = v(p); v(p) = v(q); v(q) = t; }\n"                 \
  "}"
#define STEPX(E)                                                              \
  STEP_HEAD                                                                   \
  "if (q < n) {\n"                                                            \
  "  int sw;\n"                                                               \
  "  " CMPX("sw", "v(q)", "v(p)", "x(q)", "x(p)", E) "\n"                     \
  "  if (sw) { const KT t = v(p); v(p) = v(q); v(q) = t;\n"                   \
  "            const int64_t y = x(p); x(p) = x(q); x(q) = y; }\n"            \
  "}"

/* a block of bs keys sorted in team scratch by TEAM_SORT */
#define BLOCK_HEAD                                                            \
  "typedef __typeof__(v(0)) KT;\n"                                            \
  "const int64_t lo = team.league_rank * bs;\n"                               \
  "const int64_t m = n - lo < bs ? n - lo : bs;\n"                            \
  "KT *s = (KT *)team_scratch(team, 0, bs * (int64_t)sizeof(KT));\n"
#define BLOCK(E)                                                              \
  BLOCK_HEAD                                                                  \
  "TEAM_VECTOR_FOR(t, 0, m) { s[t] = v(lo + t); }\n"                          \
  "TEAM_SORT(team, s, m, " E ");\n"                                           \
  "TEAM_VECTOR_FOR(t, 0, m) { v(lo + t) = s[t]; }"
#define BLOCKX(E)                                                             \
  BLOCK_HEAD                                                                  \
  "int64_t *sx = (int64_t *)team_scratch(team, 0, bs * (int64_t)sizeof(int64_t));\n" \
  "TEAM_VECTOR_FOR(t, 0, m) { s[t] = v(lo + t); sx[t] = x(lo + t); }\n"        \
  "TEAM_SORT_KV(team, s, sx, m, " E ");\n"                                    \
  "TEAM_VECTOR_FOR(t, 0, m) { v(lo + t) = s[t]; x(lo + t) = sx[t]; }"

/* the steps of distance < bs inside each block, in scratch */
#define LOCAL_LOOP(SWAP)                                                      \
  "team_barrier(team);\n"                                                     \
  "for (int64_t h = bs >> 1; h > 0; h >>= 1) {\n"                             \
  "  TEAM_VECTOR_FOR(t, 0, bs >> 1) {\n"                                      \
  "    const int64_t p = ((t & ~(h - 1)) << 1) | (t & (h - 1)), q = p + h;\n" \
  "    if (q < m) {\n"                                                        \
  "      int sw;\n"                                                           \
  SWAP                                                                        \
  "    }\n"                                                                   \
  "  }\n"                                                                     \
  "  team_barrier(team);\n"                                                   \
  "}\n"
#define LOCAL(E)                                                              \
  BLOCK_HEAD                                                                  \
  "TEAM_VECTOR_FOR(t, 0, m) { s[t] = v(lo + t); }\n"                          \
  LOCAL_LOOP("      " CMP("sw", "s[q]", "s[p]", E) "\n"                       \
             "      if (sw) { const KT w = s[p]; s[p] = s[q]; s[q] = w; }\n") \
  "TEAM_VECTOR_FOR(t, 0, m) { v(lo + t) = s[t]; }"
#define LOCALX(E)                                                             \
  BLOCK_HEAD                                                                  \
  "int64_t *sx = (int64_t *)team_scratch(team, 0, bs * (int64_t)sizeof(int64_t));\n" \
  "TEAM_VECTOR_FOR(t, 0, m) { s[t] = v(lo + t); sx[t] = x(lo + t); }\n"        \
  LOCAL_LOOP("      " CMPX("sw", "s[q]", "s[p]", "sx[q]", "sx[p]", E) "\n"     \
             "      if (sw) { const KT w = s[p]; s[p] = s[q]; s[q] = w;\n"    \
             "                const int64_t y = sx[p]; sx[p] = sx[q]; sx[q] = y; }\n") \
  "TEAM_VECTOR_FOR(t, 0, m) { v(lo + t) = s[t]; x(lo + t) = sx[t]; }"

/* merge path: chunk i of cs keys merge-sorted sequentially (with the
 * values u when KV), ping-ponging with the temporaries tv (tu) */
#define CHUNK_HEAD                                                            \
  "typedef __typeof__(v(0)) KT;\n"                                            \
  "const int64_t lo = i * cs, hi = lo + cs < n ? lo + cs : n;\n"              \
  "KT *A = &v(0), *T = &tv(0);\n"
#define CHUNK(E, VDECL, VTMP, VMOVE_X, VSET_Y, VTAKE_R, VTAKE_L, VSWAP, VCOPY) \
  CHUNK_HEAD VDECL                                                            \
  "for (int64_t r0 = lo; r0 < hi; r0 += 16) {\n"                              \
  "  const int64_t e0 = r0 + 16 < hi ? r0 + 16 : hi;\n"                       \
  "  for (int64_t c = r0 + 1; c < e0; c++) {\n"                               \
  "    const KT key = A[c];\n" VTMP                                           \
  "    int64_t y = c;\n"                                                      \
  "    while (y > r0) {\n"                                                    \
  "      int sw;\n"                                                           \
  "      " CMP("sw", "key", "A[y - 1]", E) "\n"                               \
  "      if (!sw) break;\n"                                                   \
  "      A[y] = A[y - 1];" VMOVE_X " y--;\n"                                  \
  "    }\n"                                                                   \
  "    A[y] = key;" VSET_Y "\n"                                               \
  "  }\n"                                                                     \
  "}\n"                                                                       \
  "KT *src = A, *dst = T;\n"                                                  \
  "for (int64_t w = 16; w < hi - lo; w <<= 1) {\n"                            \
  "  for (int64_t s0 = lo; s0 < hi; s0 += 2 * w) {\n"                         \
  "    const int64_t m = s0 + w < hi ? s0 + w : hi;\n"                        \
  "    const int64_t e = s0 + 2 * w < hi ? s0 + 2 * w : hi;\n"                \
  "    int64_t l = s0, r = m, o = s0;\n"                                      \
  "    while (l < m && r < e) {\n"                                            \
  "      int sw;\n"                                                           \
  "      " CMP("sw", "src[r]", "src[l]", E) "\n"                              \
  "      if (sw) { dst[o] = src[r];" VTAKE_R " o++; r++; }\n"                 \
  "      else { dst[o] = src[l];" VTAKE_L " o++; l++; }\n"                    \
  "    }\n"                                                                   \
  "    while (l < m) { dst[o] = src[l];" VTAKE_L " o++; l++; }\n"             \
  "    while (r < e) { dst[o] = src[r];" VTAKE_R " o++; r++; }\n"             \
  "  }\n"                                                                     \
  "  KT *sp = src; src = dst; dst = sp;" VSWAP "\n"                           \
  "}\n"                                                                       \
  "if (src != A) for (int64_t c = lo; c < hi; c++) { A[c] = src[c];" VCOPY " }"
#define CHUNK1(E) CHUNK(E, "", "", "", "", "", "", "", "")
#define CHUNKV(E)                                                             \
  CHUNK(E,                                                                    \
        "typedef __typeof__(u(0)) VT;\n"                                      \
        "VT *U = &u(0), *TU = &tu(0), *usrc = U, *udst = TU;\n",              \
        "    const VT val = U[c];\n", " U[y] = U[y - 1];", " U[y] = val;",    \
        " udst[o] = usrc[r];", " udst[o] = usrc[l];",                         \
        " VT *up = usrc; usrc = udst; udst = up;", " U[c] = usrc[c];")

/* merge path: segment i (sl outputs) of the merges of pairs of runs of
 * width w (s -> d; su -> du the values): where it starts in each run by a
 * binary search (the co-rank), then a sequential stable merge */
#define MERGE(E, VB, VA)                                                      \
  "typedef __typeof__(s(0)) KT;\n"                                            \
  "const int64_t oe = (i + 1) * sl < n ? (i + 1) * sl : n;\n"                 \
  "int64_t o = i * sl;\n"                                                     \
  "while (o < oe) {\n"                                                        \
  "  const int64_t a0 = (o / (2 * w)) * (2 * w);\n"                           \
  "  const int64_t a1 = a0 + w < n ? a0 + w : n, b1 = a0 + 2 * w < n ? a0 + 2 * w : n;\n" \
  "  const int64_t na = a1 - a0, nb = b1 - a1, end = b1 < oe ? b1 : oe, k0 = o - a0;\n" \
  "  int64_t L = k0 - nb > 0 ? k0 - nb : 0, H = k0 < na ? k0 : na;\n"         \
  "  while (L < H) {\n"                                                       \
  "    const int64_t I = (L + H) >> 1, J = k0 - I;\n"                         \
  "    int sw;\n"                                                             \
  "    " CMP("sw", "s(a1 + J - 1)", "s(a0 + I)", E) "\n"                      \
  "    if (!sw) L = I + 1; else H = I;\n"                                     \
  "  }\n"                                                                     \
  "  int64_t ia = a0 + L, ib = a1 + (k0 - L);\n"                              \
  "  for (; o < end; o++) {\n"                                                \
  "    int tb;\n"                                                             \
  "    if (ia >= a1) tb = 1;\n"                                               \
  "    else if (ib >= b1) tb = 0;\n"                                          \
  "    else " CMP("tb", "s(ib)", "s(ia)", E) "\n"                             \
  "    if (tb) { d(o) = s(ib);" VB " ib++; } else { d(o) = s(ia);" VA " ia++; }\n" \
  "  }\n"                                                                     \
  "}"
#define MERGE1(E) MERGE(E, "", "")
#define MERGEV(E) MERGE(E, " du(o) = su(ib);", " du(o) = su(ia);")

/* -- the kinds of body and their precompiled signatures ------------------ */
enum { K_STEP, K_STEPX, K_BLOCK, K_BLOCKX, K_LOCAL, K_LOCALX, K_CHUNK, K_CHUNKV,
       K_MERGE, K_MERGEV, NKIND };

/* the template of each kind (the comparator as "@E@") */
static const char *const kind_tmpl[NKIND] = {
  STEP("@E@"), STEPX("@E@"), BLOCK("@E@"), BLOCKX("@E@"), LOCAL("@E@"), LOCALX("@E@"),
  CHUNK1("@E@"), CHUNKV("@E@"), MERGE1("@E@"), MERGEV("@E@")};

#define SIG_STEP(T) "range" R1("v", T) " n=int64 kk=int64 jj=int64"
#define SIG_STEPX(T) "range" R1("v", T) R1("x", "int64") " n=int64 kk=int64 jj=int64"
#define SIG_BLOCK(T) "team" R1("v", T) " n=int64 bs=int64"
#define SIG_BLOCKX(T) "team" R1("v", T) R1("x", "int64") " n=int64 bs=int64"
#define SIG_CHUNK(T) "range" R1("v", T) R1("tv", T) " n=int64 cs=int64"
#define SIG_CHUNKV(T, V) "range" R1("v", T) R1("tv", T) R1("u", V) R1("tu", V) " n=int64 cs=int64"
#define SIG_MERGE(T) "range" R1("s", T) R1("d", T) " n=int64 w=int64 sl=int64"
#define SIG_MERGEV(T, V) "range" R1("s", T) R1("d", T) R1("su", V) R1("du", V) " n=int64 w=int64 sl=int64"
#define FOUR(M) M("float64"), M("float32"), M("int64"), M("int32")
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

#define ASC "a < b"
#define DESC "b < a"
#define BODIES(SFX, E, ER)                                                    \
  static const sk_kbody k_step_##SFX = {"sort.bitonic_step", STEP(E), SK_FOR, 0,  \
    {NULL}, {NULL}, sig_step, NULL, NULL};                                    \
  static const sk_kbody k_stepx_##SFX = {"sort.bitonic_step_kv",              \
    STEPX(STABLE(E, ER)), SK_FOR, 0, {NULL}, {NULL}, sig_stepx, NULL, NULL};  \
  static const sk_kbody k_block_##SFX = {"sort.bitonic_block", BLOCK(E), SK_FOR, \
    0, {NULL}, {NULL}, sig_block, NULL, NULL};                                \
  static const sk_kbody k_blockx_##SFX = {"sort.bitonic_block_kv",            \
    BLOCKX(STABLE(E, ER)), SK_FOR, 0, {NULL}, {NULL}, sig_blockx, NULL, NULL}; \
  static const sk_kbody k_local_##SFX = {"sort.bitonic_local", LOCAL(E), SK_FOR, \
    0, {NULL}, {NULL}, sig_block, NULL, NULL};                                \
  static const sk_kbody k_localx_##SFX = {"sort.bitonic_local_kv",            \
    LOCALX(STABLE(E, ER)), SK_FOR, 0, {NULL}, {NULL}, sig_blockx, NULL, NULL}; \
  static const sk_kbody k_chunk_##SFX = {"sort.merge_chunk", CHUNK1(E), SK_FOR, \
    0, {NULL}, {NULL}, sig_chunk, NULL, NULL};                                \
  static const sk_kbody k_chunkv_##SFX = {"sort.merge_chunk_kv", CHUNKV(E),   \
    SK_FOR, 0, {NULL}, {NULL}, sig_chunkv, NULL, NULL};                       \
  static const sk_kbody k_merge_##SFX = {"sort.merge_pass", MERGE1(E), SK_FOR, \
    0, {NULL}, {NULL}, sig_merge, NULL, NULL};                                \
  static const sk_kbody k_mergev_##SFX = {"sort.merge_pass_kv", MERGEV(E),    \
    SK_FOR, 0, {NULL}, {NULL}, sig_mergev, NULL, NULL};                       \
  static const sk_kbody *const kinds_##SFX[NKIND] = {                         \
    &k_step_##SFX, &k_stepx_##SFX, &k_block_##SFX, &k_blockx_##SFX,           \
    &k_local_##SFX, &k_localx_##SFX, &k_chunk_##SFX, &k_chunkv_##SFX,         \
    &k_merge_##SFX, &k_mergev_##SFX};

BODIES(asc, ASC, DESC)
BODIES(desc, DESC, ASC)

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
    snprintf(err, errlen, "comparator must be a C expression over a and b (1 to 2000 "
             "characters), got %zu characters", n);
    return -1;
  }
  for (size_t k = 0; k < n && depth >= 0; k++) {
    char c = e[k];
    if (c == ';' || c == '{' || c == '}' || c == '@' || c == '#' || c == '\\') {
      snprintf(err, errlen, "comparator must be one C expression over a and b, got "
               "'%s' (it holds '%c')", e, c);
      return -1;
    }
    depth += (c == '(') - (c == ')');
  }
  if (depth != 0) {
    snprintf(err, errlen, "comparator '%s' has unbalanced parentheses", e);
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
    snprintf(err, errlen, "out of memory");
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
    sk_arg a[] = {sk_arg_view("v", v), sk_arg_view("tv", &tv), sk_arg_i64("n", n),
                  sk_arg_i64("cs", cs), sk_arg_view("u", u ? u : v),
                  sk_arg_view("tu", u ? &tu : &tv)};
    if (sk_sp_range(&bd->k[u ? K_CHUNKV : K_CHUNK], P, a, u ? 6 : 4, NULL, err,
                    errlen) < 0)
      goto done;
  }
  const sk_view *src = v, *dst = &tv, *usrc = u, *udst = &tu;
  int64_t conc = b->concurrency ? b->concurrency() : 1;
  int64_t sl = (n + 8 * conc - 1) / (8 * conc);
  if (sl < 4096) sl = 4096;
  for (int64_t w = cs; w < n; w *= 2) {
    sk_arg a[] = {sk_arg_view("s", src), sk_arg_view("d", dst), sk_arg_i64("n", n),
                  sk_arg_i64("w", w), sk_arg_i64("sl", sl),
                  sk_arg_view("su", u ? usrc : src), sk_arg_view("du", u ? udst : dst)};
    if (sk_sp_range(&bd->k[u ? K_MERGEV : K_MERGE], (n + sl - 1) / sl, a, u ? 7 : 5,
                    NULL, err, errlen) < 0)
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
    snprintf(err, errlen, "%s (view '%s') holds %s elements: only plain numbers sort",
             what, v->label, v->agg == SK_AGG_FAD ? "fad" : "ensemble");
    return -1;
  }
  if (v->rank != 1) {
    snprintf(err, errlen, "%s (view '%s') is rank %d, expected rank 1", what, v->label,
             v->rank);
    return -1;
  }
  return 0;
}

/* sort.sort: keys [, values, descending, comparator, algorithm] */
static int do_sort(const sk_arg *args, int nargs, int kv, char *err, size_t errlen) {
  static const char *const known1[] = {"keys", "descending", "comparator", "algorithm",
                                       NULL};
  static const char *const known2[] = {"keys", "values", "descending", "comparator",
                                       "algorithm", NULL};
  const sk_view *v, *u = NULL;
  int desc = 0;
  if (sk_karg_known(args, nargs, kv ? known2 : known1, err, errlen) < 0 ||
      !(v = sk_karg_view(args, nargs, "keys", -1, err, errlen)) ||
      (kv && !(u = sk_karg_view(args, nargs, "values", -1, err, errlen))) ||
      sk_g_flag(args, nargs, "descending", 0, &desc, err, errlen) < 0 ||
      sortable(v, "keys", err, errlen) < 0 || (u && sortable(u, "values", err, errlen) < 0))
    return -1;
  const char *alg = sk_karg_str(args, nargs, "algorithm", "auto", err, errlen);
  if (!alg) return -1;
  if (strcmp(alg, "auto") != 0 && strcmp(alg, "bitonic") != 0 &&
      strcmp(alg, "merge") != 0) {
    snprintf(err, errlen, "algorithm must be \"auto\", \"bitonic\" or \"merge\", got \"%s\"",
             alg);
    return -1;
  }
  const char *cmp = NULL;
  if (sk_karg_find(args, nargs, "comparator")) {
    if (!(cmp = sk_karg_str(args, nargs, "comparator", NULL, err, errlen))) return -1;
    if (check_comparator(cmp, err, errlen) < 0) return -1;
  }
  if (u && u->extent[0] != v->extent[0]) {
    snprintf(err, errlen, "keys (view '%s') has %lld entries, values (view '%s') %lld",
             v->label, (long long)v->extent[0], u->label, (long long)u->extent[0]);
    return -1;
  }
  if (u && u->space != v->space) {
    snprintf(err, errlen, "keys (view '%s') and values (view '%s') are in different "
             "memory spaces", v->label, u->label);
    return -1;
  }
  if (u && u->alloc && u->alloc == v->alloc) {
    snprintf(err, errlen, "keys and values are views of one allocation ('%s')", v->label);
    return -1;
  }
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  int contiguous = v->stride[0] == 1 && (!u || u->stride[0] == 1);
  int use_merge = strcmp(alg, "merge") == 0 || (strcmp(alg, "auto") == 0 && sk_sp_host(b));
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
         (u && sk_sp_view(&cu, "sort values", u->dtype, n, u->space, 0, err, errlen) < 0) ||
         sk_sp_range(&k_copy, n, a, 2, NULL, err, errlen) < 0 ||
         (u && sk_sp_range(&k_copy, n, c, 2, NULL, err, errlen) < 0) ||
         merge(&bd, b, &t, u ? &cu : NULL, err, errlen) < 0 ||
         sk_sp_range(&k_copy, n, ab, 2, NULL, err, errlen) < 0 ||
         (u && sk_sp_range(&k_copy, n, cb, 2, NULL, err, errlen) < 0)
           ? -1 : 0;
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

static const sk_kentry e_sort = {"sort.sort",
  "keys [, descending, comparator, algorithm]", SK_KRES_NONE, sort1};
static const sk_kentry e_sort_kv = {"sort.sort_by_key",
  "keys, values [, descending, comparator, algorithm]", SK_KRES_NONE, sort2};

const sk_kentry *const sk_sort_entries[] = {&e_sort, &e_sort_kv, NULL};
const sk_kbody *const sk_sort_bodies[] = {
  &k_step_asc, &k_stepx_asc, &k_block_asc, &k_blockx_asc, &k_local_asc, &k_localx_asc,
  &k_chunk_asc, &k_chunkv_asc, &k_merge_asc, &k_mergev_asc,
  &k_step_desc, &k_stepx_desc, &k_block_desc, &k_blockx_desc, &k_local_desc,
  &k_localx_desc, &k_chunk_desc, &k_chunkv_desc, &k_merge_desc, &k_mergev_desc,
  &k_iota, NULL};
