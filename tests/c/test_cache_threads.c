/* test_cache_threads.c: the kernel cache and the tiers under several
 * threads, without a VM: concurrent first compiles of one key (one kernel
 * survives), look-ups, label aliases, statistics and the background
 * tier-up racing launches that call the code they got from sk_jit_entry;
 * and the bound on remembered labels. Meant for ThreadSanitizer too
 * (make tsan). The disk cache goes to a temporary directory. */
#define _GNU_SOURCE
#include <ftw.h>
#include <pthread.h>
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

/* in the threads: count what went wrong, CHECKed once at the end */
static int bad;
#define EXPECT(c) \
  do { \
    if (!(c)) { \
      __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED); \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

enum { NTHREAD = 4, NKERNEL = 6, ROUNDS = 40, N = 64 };

static sk_capture cap_x;

/* kernel 'm': for (m odd) x(i) = m * i, else the reduction sum of x(i) */
static const char *body_of(int m, char *buf, size_t n) {
  if (m % 2) snprintf(buf, n, "x(i) = %d.0 * (double)i;", m);
  else snprintf(buf, n, "acc += x(i) + %d;", m);
  return buf;
}

static sk_kspec spec_of(int m, const char *label, const char *body, sk_reducer *red,
                        int tier) {
  sk_kspec s;
  memset(&s, 0, sizeof s);
  s.label = label;
  s.body = body;
  s.body_len = strlen(body);
  s.pattern = m % 2 ? SK_FOR : SK_REDUCE;
  s.policy_kind = SK_POL_RANGE;
  s.ncap = 1;
  s.caps = &cap_x;
  if (!(m % 2)) {
    memset(red, 0, sizeof *red);
    red->op = SK_RED_SUM;
    red->dtype = SK_F64;
    s.nred = 1;
    s.reds = red;
  }
  s.target = "serial";
  s.tier = tier;
  return s;
}

/* one launch of kernel 'm' on 'data', run on this thread; checks it */
static void launch(int m, int tid, int round, double *data) {
  char body[128], label[64], err[2048];
  sk_reducer red;
  /* kernel 0 also goes by labels of this thread and round (aliases) */
  if (m == 0) snprintf(label, sizeof label, "k0_%d_%d", tid, round);
  else snprintf(label, sizeof label, "k%d", m);
  /* kernel 2 asks for libtcc code on odd rounds, the default otherwise */
  int tier = m == 2 && round % 2 ? SK_TIER_TCC : SK_TIER_AUTO;
  sk_kspec s = spec_of(m, label, body_of(m, body, sizeof body), &red, tier);
  sk_kernel *k = NULL;
  if (sk_jit_get(&s, &k, err, sizeof err) < 0) {
    printf("%s\n", err);
    EXPECT(0);
    return;
  }
  void *fn;
  sk_init_fn init;
  sk_join_fn join;
  if (sk_jit_entry(k, &fn, &init, &join, err, sizeof err) < 0) {
    printf("%s\n", err);
    EXPECT(0);
    return;
  }
  sk_slot arg;
  memset(&arg, 0, sizeof arg);
  arg.v.data = data;
  arg.v.rank = 1;
  arg.v.extent[0] = N;
  arg.v.stride[0] = 1;
  sk_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (m % 2) {
    ((sk_chunk_fn)fn)(&arg, 0, N, NULL, &ctx);
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= data[i] == (double)m * i;
    EXPECT(ok);
  } else {
    _Alignas(64) char acc[256];
    EXPECT(k->acc_size <= sizeof acc);
    init(acc);
    for (int i = 0; i < N; i++) data[i] = i;
    ((sk_chunk_fn)fn)(&arg, 0, N, acc, &ctx);
    double got;
    memcpy(&got, acc + k->acc_off[0], sizeof got);
    EXPECT(got == N * (N - 1) / 2.0 + (double)m * N);
  }
  sk_jit_after_launch(k, 1e-6);
  if (m == 0) EXPECT(sk_cache_last(label) == k);
}

static pthread_barrier_t start;

static void *work(void *arg) {
  int tid = (int)(intptr_t)arg;
  double data[N];
  pthread_barrier_wait(&start);
  for (int r = 0; r < ROUNDS; r++) {
    for (int j = 0; j < NKERNEL; j++) launch((j + tid) % NKERNEL, tid, r, data);
    if (r == ROUNDS / 2) sk_jit_drain();
    /* statistics while the others launch */
    sk_jit_totals t;
    sk_cache_totals(&t);
    EXPECT(t.kernels >= 1 && t.kernels <= NKERNEL);
    for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) {
      sk_kstats ks;
      sk_jit_kstats(k, &ks);
      EXPECT(ks.launches >= 1 && ks.launches <= NTHREAD * ROUNDS);
    }
  }
  return NULL;
}

static void test_threads(void) {
  cap_x.name = "x";
  cap_x.kind = SK_CAP_VIEW;
  cap_x.dtype = SK_F64;
  cap_x.rank = 1;
  cap_x.layout = SK_RIGHT;
  pthread_barrier_init(&start, NULL, NTHREAD);
  pthread_t t[NTHREAD];
  for (int i = 0; i < NTHREAD; i++)
    CHECK(pthread_create(&t[i], NULL, work, (void *)(intptr_t)i) == 0);
  for (int i = 0; i < NTHREAD; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  CHECK(bad == 0); /* every launch's result, look-up and stats */
  sk_jit_drain();
  /* one kernel per key, every launch counted, one tier-up at most */
  sk_jit_totals tot;
  sk_cache_totals(&tot);
  CHECK(tot.kernels == NKERNEL);
  for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) {
    sk_kstats ks;
    sk_jit_kstats(k, &ks);
    CHECK(ks.launches == NTHREAD * ROUNDS);
    CHECK(ks.hits == NTHREAD * ROUNDS - 1);
    CHECK(ks.compiles[SK_TIER_TCC] == 1);
    CHECK(ks.tierups <= 1);
    if (sk_cc_available() && k->label[1] != '2') {
      CHECK(ks.tier == SK_TIER_CC && ks.tierups == 1);
      if (ks.warning[0]) printf("warning: %s\n", ks.warning);
      CHECK(ks.warning[0] == '\0');
    }
  }
  sk_cache_clear();
}

/* Labels other than a kernel's first are remembered in a table of fixed
 * size: the newest are found, old ones dropped; memory stays bounded. */
static void test_label_bound(void) {
  sk_kernel *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  a->key = strdup("key-a");
  a->keylen = 5;
  a->hash = 7;
  a->label = strdup("a");
  b->key = strdup("key-b");
  b->keylen = 5;
  b->hash = 8;
  b->label = strdup("b");
  CHECK(sk_cache_insert(a) == a);
  CHECK(sk_cache_insert(b) == b);
  /* the same key again: the cached kernel is returned, nothing added */
  sk_kernel dup = *a;
  dup.next = dup.older = NULL;
  CHECK(sk_cache_insert(&dup) == a);
  enum { NLABEL = 100000 };
  char label[32];
  for (int i = 0; i < NLABEL; i++) {
    snprintf(label, sizeof label, "step%d", i);
    sk_cache_label(label, i % 2 ? b : a);
  }
  int found = 0, recent = 0, wrong = 0;
  for (int i = 0; i < NLABEL; i++) {
    snprintf(label, sizeof label, "step%d", i);
    sk_kernel *k = sk_cache_last(label);
    found += k != NULL;
    wrong += k && k != (i % 2 ? b : a);
    recent += k && i >= NLABEL - 100;
  }
  CHECK(wrong == 0);
  CHECK(found <= 1024);
  CHECK(found >= 512);
  CHECK(recent >= 95);
  snprintf(label, sizeof label, "step%d", NLABEL - 1);
  CHECK(sk_cache_last(label) == b);
  /* a first label launched again takes its name back from an alias */
  sk_cache_label("a", b);
  CHECK(sk_cache_last("a") == b);
  sk_cache_label("a", a);
  CHECK(sk_cache_last("a") == a);
  CHECK(sk_cache_last("b") == b);
  sk_cache_clear();
  CHECK(sk_cache_last("a") == NULL);
  CHECK(sk_cache_last(label) == NULL);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st;
  (void)flag;
  (void)f;
  return remove(path);
}

int main(int argc, char **argv) {
  (void)argc;
  /* libtcc1.a of the build this program belongs to:
   * <build>/tests/c/<name> -> <build>/lib/speck/tcc */
  char libdir[4096];
  const char *env = getenv("SPECK_TCC_LIBDIR");
  const char *slash = strstr(argv[0], "/tests/c/");
  if (env && *env) snprintf(libdir, sizeof libdir, "%s", env);
  else if (slash)
    snprintf(libdir, sizeof libdir, "%.*s/lib/speck/tcc", (int)(slash - argv[0]),
             argv[0]);
  else snprintf(libdir, sizeof libdir, "build/lib/speck/tcc");
  sk_tcc_set_libdir(libdir);
  char dir[] = "/tmp/speck-cache-threads-XXXXXX";
  if (!mkdtemp(dir)) {
    printf("cannot create a temporary directory\n0 passed, 1 failed\n");
    return 1;
  }
  setenv("SPECK_CACHE_DIR", dir, 1);
  unsetenv("SPECK_CACHE");
  unsetenv("SPECK_CACHE_MAX");
  unsetenv("SPECK_JIT");
  test_threads();
  test_label_bound();
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
