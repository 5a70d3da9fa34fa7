/* test_pool.c: the host pool's claimed parts and the launch memo.
 *
 * Pool: every part of every launch runs exactly once, with its own index,
 * whether its worker or the caller (sk_pool_run_parts) runs it -- through
 * workers spinning, asleep (after a pause) and on 2 to 4 threads; a job
 * whose parts wait for each other (sk_pool_run) still gets all of them at
 * once. Memo: a body rewritten in place (same address, new text), a body
 * launched over captures of another dtype, and a launch after the cache
 * was cleared all get their own kernel, never a remembered one. Run under
 * 'make tsan' too. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/speck.h"
#include "backends/host/host.h"
#include "backends/host/pool.h"
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

/* -- pool ------------------------------------------------------------------ */
#define NT_MAX 4
static long seen[NT_MAX];     /* the launch each part last ran for */
static atomic_int runs;       /* parts run in this launch */
static atomic_int arrived;    /* sk_pool_run: parts that reached the wait */

static void part(void *arg, int tid, int nt) {
  long g = *(const long *)arg;
  if (tid >= 0 && tid < NT_MAX && nt <= NT_MAX) seen[tid] = g;
  atomic_fetch_add(&runs, 1);
}

/* every part waits until all have started: only a pool that runs them
 * all at once finishes this */
static void together(void *arg, int tid, int nt) {
  part(arg, tid, nt);
  atomic_fetch_add(&arrived, 1);
  while (atomic_load(&arrived) < nt) {
  }
}

static void test_pool(void) {
  char err[256];
  for (int nt = 2; nt <= NT_MAX; nt++) {
    CHECK(sk_pool_start(nt, err, sizeof err) == 0);
    int bad = 0;
    for (long g = 1; g <= 4000; g++) {
      atomic_store(&runs, 0);
      atomic_store(&arrived, 0);
      if (g % 3 == 0) sk_pool_run(together, &g);
      else sk_pool_run_parts(part, &g);
      if (atomic_load(&runs) != nt) bad++;
      for (int t = 0; t < nt; t++)
        if (seen[t] != g) bad++;
      if (g % 1000 == 0) usleep(5000); /* the workers fall asleep */
    }
    CHECK(bad == 0);
    sk_pool_stop();
  }
}

/* -- launch memo -------------------------------------------------------------- */
static void test_memo(void) {
  char err[4096];
  speck_runtime *rt = speck_runtime_open("serial", 0, err, sizeof err);
  CHECK(rt != NULL);
  if (!rt) return;
  /* one buffer, rewritten between launches: the same address each time */
  char body[64];
  double r = 0;
  snprintf(body, sizeof body, "acc += 1.0;");
  CHECK(speck_run_reduce(rt, "memo", 0, 10, NULL, 0, body, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 10.0);
  snprintf(body, sizeof body, "acc += 2.0;");
  CHECK(speck_run_reduce(rt, "memo", 0, 10, NULL, 0, body, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 20.0);
  /* the same text again, and a longer one at the same address */
  snprintf(body, sizeof body, "acc += 1.0;");
  CHECK(speck_run_reduce(rt, "memo", 0, 10, NULL, 0, body, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 10.0);
  snprintf(body, sizeof body, "acc += 1.0; acc += 3.0;");
  CHECK(speck_run_reduce(rt, "memo", 0, 10, NULL, 0, body, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 40.0);
  /* one body over a float64 and an int64 scalar: two kernels */
  const char *sbody = "acc += s * 0.5;";
  speck_arg a = speck_arg_f64("s", 3.0);
  CHECK(speck_run_reduce(rt, "memo2", 0, 4, &a, 1, sbody, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 6.0);
  a = speck_arg_i64("s", 3);
  CHECK(speck_run_reduce(rt, "memo2", 0, 4, &a, 1, sbody, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 6.0);
  /* after the cache is cleared (its kernels freed) the launch compiles */
  sk_cache_clear();
  CHECK(speck_run_reduce(rt, "memo2", 0, 4, &a, 1, sbody, "sum", &r, err, sizeof err) == 0);
  CHECK(r == 6.0);
  speck_runtime_close(rt);
}

/* -- tiny launches ------------------------------------------------------------ */
static void test_tiny_rule(void) {
  static const char a = 0, b = 0; /* two bodies' addresses */
  const void *fa = &a, *fb = &b;
  CHECK(!sk_host_tiny(fa, 1024, 2)); /* never measured */
  sk_host_tiny_note(fa, 1024, 512, 2, 20e-9); /* 512 items in 20 ns: tiny */
  CHECK(!sk_host_tiny(fa, 1024, 2)); /* once is not enough */
  sk_host_tiny_note(fa, 1024, 512, 2, 20e-9);
  CHECK(sk_host_tiny(fa, 1024, 2));
  CHECK(!sk_host_tiny(fa, 1024, 1));         /* one thread: nothing to wake */
  CHECK(!sk_host_tiny(fa, 1 << 20, 2));      /* the same body over more items */
  CHECK(!sk_host_tiny(fb, 1024, 2));         /* another body */
  sk_host_tiny_note(fa, 1024, 1024, 2, 5e-6); /* heavier: back to the pool */
  CHECK(!sk_host_tiny(fa, 1024, 2));
  sk_host_tiny_note(fa, 1024, 512, 2, 20e-9); /* light, heavy, light: stays */
  CHECK(!sk_host_tiny(fa, 1024, 2));
  sk_host_tiny_note(fa, 1024, 1024, 2, 5e-6);
  sk_host_tiny_note(fa, 1024, 512, 2, 20e-9);
  CHECK(!sk_host_tiny(fa, 1024, 2));
}

static void test_tiny_launches(void) {
  char err[4096];
  setenv("SPECK_POOL_TINY", "2", 1);
  speck_runtime *rt = speck_runtime_open("openmp", 2, err, sizeof err);
  CHECK(rt == NULL);
  CHECK(strstr(err, "SPECK_POOL_TINY=2: expected 0 (every launch of two or more parts on "
                    "the pool) or 1") != NULL);
  /* (the back end reads it once a process: on from here) */
  setenv("SPECK_POOL_TINY", "1", 1);
  rt = speck_runtime_open("openmp", 2, err, sizeof err);
  CHECK(rt != NULL);
  if (rt) {
    /* a sum whose bits depend on how it is split: the same in every
     * launch, the first two on the pool, the others (measured tiny) on
     * the calling thread or, on a slow or loaded machine, the pool */
    double want = 0, r;
    int same = 1;
    for (int k = 0; k < 8; k++) {
      r = 0;
      CHECK(speck_run_reduce(rt, "tiny_sum", 0, 64, NULL, 0, "acc += 1.0 / (i + 3.0);", "sum",
                             &r, err, sizeof err) == 0);
      if (k == 0) want = r;
      same &= r == want;
    }
    CHECK(same);
    speck_runtime_close(rt);
  }
  unsetenv("SPECK_POOL_TINY");
}

int main(void) {
  test_pool();
  test_memo();
  test_tiny_rule();
  test_tiny_launches();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
