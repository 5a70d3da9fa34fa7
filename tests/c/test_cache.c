/* test_cache.c: unit tests of the JIT's front half: the hash, the kernel
 * cache (find, insert, label look-up and aliases), key canonicality
 * (the same spec is one kernel, any signature change is another), the
 * spec checks (capture names, index counts, team words) and a compile
 * through libtcc with the chunk function called directly. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

static sk_kspec spec(const char *label, const char *body, sk_capture *caps, int ncap) {
  sk_kspec s;
  memset(&s, 0, sizeof s);
  s.label = label;
  s.body = body;
  s.body_len = strlen(body);
  s.pattern = SK_FOR;
  s.policy_kind = SK_POL_RANGE;
  s.ncap = ncap;
  s.caps = caps;
  s.target = "serial";
  s.tier = SK_TIER_TCC;
  return s;
}

static sk_capture view_cap(const char *name, int rank) {
  sk_capture c;
  memset(&c, 0, sizeof c);
  c.name = name;
  c.kind = SK_CAP_VIEW;
  c.dtype = SK_F64;
  c.rank = rank;
  c.layout = SK_RIGHT;
  return c;
}

static void test_hash(void) {
  CHECK(sk_hash("abc", 3, 0) == sk_hash("abc", 3, 0));
  CHECK(sk_hash("abc", 3, 0) != sk_hash("abd", 3, 0));
  CHECK(sk_hash("abc", 3, 0) != sk_hash("abc", 3, 1));
  CHECK(sk_hash("", 0, 0) != 0);
}

static void test_cache_table(void) {
  sk_kernel *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  a->key = strdup("key-a");
  a->keylen = 5;
  a->hash = 42;
  a->label = strdup("first");
  b->key = strdup("key-b");
  b->keylen = 5;
  b->hash = 42; /* same bucket and hash: the key decides */
  b->label = strdup("second");
  sk_cache_insert(a);
  sk_cache_insert(b);
  CHECK(sk_cache_find(42, "key-a", 5) == a);
  CHECK(sk_cache_find(42, "key-b", 5) == b);
  CHECK(sk_cache_find(42, "key-c", 5) == NULL);
  CHECK(sk_cache_find(43, "key-a", 5) == NULL);
  CHECK(sk_cache_last("first") == a);
  CHECK(sk_cache_last("second") == b);
  CHECK(sk_cache_last("none") == NULL);
  sk_cache_label("alias", a);
  CHECK(sk_cache_last("alias") == a);
  sk_cache_label("alias", b);
  CHECK(sk_cache_last("alias") == b);
  CHECK(sk_cache_next(NULL) == b); /* newest first */
  CHECK(sk_cache_next(b) == a);
  sk_jit_totals t;
  sk_cache_totals(&t);
  CHECK(t.kernels == 2);
  sk_cache_clear();
  CHECK(sk_cache_find(42, "key-a", 5) == NULL);
  CHECK(sk_cache_last("alias") == NULL);
}

static void test_checks(void) {
  char err[512];
  sk_capture c[2] = {view_cap("x", 2), view_cap("for", 1)};
  sk_kspec s = spec("k", "x(i, 0) = 1;", c, 1);
  CHECK(sk_jit_check(&s, err, sizeof err) == 0);
  s = spec("k", "x(i) = 1;", c, 1);
  CHECK(sk_jit_check(&s, err, sizeof err) < 0);
  CHECK(strstr(err, "view 'x' is rank 2, body indexes it with 1 index") != NULL);
  s = spec("k", "/* x(i) */ x(i, (1, 2)) = 1; y.x(3);", c, 1);
  CHECK(sk_jit_check(&s, err, sizeof err) == 0);
  s = spec("k", "", c + 1, 1);
  CHECK(sk_jit_check(&s, err, sizeof err) < 0);
  CHECK(strstr(err, "collides with a word of the kernel dialect") != NULL);
  sk_capture bad = view_cap("1x", 1);
  s = spec("k", "", &bad, 1);
  CHECK(sk_jit_check(&s, err, sizeof err) < 0);
  CHECK(strstr(err, "not a C identifier") != NULL);
  s = spec("k", "TEAM_FOR(j, 0, 4) {}", NULL, 0);
  CHECK(sk_jit_check(&s, err, sizeof err) < 0);
  CHECK(strstr(err, "'TEAM_FOR' is a team construct") != NULL);
  s.policy_kind = SK_POL_TEAM;
  s.body = "VECTOR_FOR(k, 0, 4) { team_barrier(team); }";
  s.body_len = strlen(s.body);
  CHECK(sk_jit_check(&s, err, sizeof err) < 0);
  CHECK(strstr(err, "team_barrier inside VECTOR_FOR") != NULL);
  CHECK(sk_codegen_reserved("acc3") && sk_codegen_reserved("i5") &&
        sk_codegen_reserved("sk_x") && !sk_codegen_reserved("acc_x") &&
        !sk_codegen_reserved("alpha"));
}

/* the same spec twice is one kernel; a changed signature is another */
static void test_keys_and_compile(void) {
  char err[2048];
  sk_capture c = view_cap("x", 1);
  sk_kspec s = spec("fill", "x(i) = 2 * i;", &c, 1);
  sk_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
  CHECK(sk_jit_get(&s, &k1, err, sizeof err) == 0);
  CHECK(sk_jit_get(&s, &k2, err, sizeof err) == 0);
  CHECK(k1 && k1 == k2);
  CHECK(k1 && k1->compiles[SK_TIER_TCC] == 1 && k1->hits == 1);
  c.layout = SK_LEFT;
  CHECK(sk_jit_get(&s, &k3, err, sizeof err) == 0);
  CHECK(k3 && k3 != k1);
  if (k1 && k1->fn) {
    double data[8] = {0};
    sk_slot arg;
    memset(&arg, 0, sizeof arg);
    arg.v.data = data;
    arg.v.rank = 1;
    arg.v.extent[0] = 8;
    arg.v.stride[0] = 1;
    sk_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ((sk_chunk_fn)k1->fn)(&arg, 2, 6, NULL, &ctx);
    CHECK(data[1] == 0 && data[2] == 4 && data[5] == 10 && data[6] == 0);
  }
  sk_kspec bad = spec("bad", "x(i) = nope;", &c, 1);
  sk_kernel *kb = NULL;
  CHECK(sk_jit_get(&bad, &kb, err, sizeof err) < 0);
  CHECK(strstr(err, "body line 1") != NULL);
  sk_cache_clear();
}

int main(void) {
  const char *dir = getenv("SPECK_TCC_LIBDIR");
  sk_tcc_set_libdir(dir ? dir : "build/lib/speck/tcc");
  test_hash();
  test_cache_table();
  test_checks();
  test_keys_and_compile();
  printf("test_cache: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
