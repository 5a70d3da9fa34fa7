/* test_task.c: the task scheduler and the memory pool from C, under
 * threads (make tsan runs it): the pool hammered by four pthreads with
 * patterns written into every block (no overlap, no leak, exhaustion is a
 * NULL), and the scheduler's fib and a task-body pool user on the openmp
 * back end with 2 threads, both queue kinds. Prints 'N passed, M failed'. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/task/task.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* -- the pool under threads ------------------------------------------------ */
static sk_mpool *pool;
#define ITERS 50000
#define LIVE  8

static void *hammer(void *arg) {
  long id = (long)arg, bad = 0;
  uint64_t *p[LIVE] = {0};
  int64_t n[LIVE] = {0};
  uint64_t r = 88172645463325252ULL * (uint64_t)(id + 1);
  for (long it = 0; it < ITERS; it++) {
    int k = (int)(it % LIVE);
    if (p[k]) {
      for (int64_t q = 0; q < n[k]; q++)
        bad += p[k][q] != (uint64_t)(id * 1000003 + it - LIVE);
      bad += sk_mpool_release(pool, p[k]) != 0;
    }
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    n[k] = 1 + (int64_t)(r % 200);
    p[k] = sk_mpool_alloc(pool, n[k] * 8);
    if (!p[k]) {
      bad++;
      continue;
    }
    for (int64_t q = 0; q < n[k]; q++) p[k][q] = (uint64_t)(id * 1000003 + it);
  }
  for (int k = 0; k < LIVE; k++)
    if (p[k]) bad += sk_mpool_release(pool, p[k]) != 0;
  return (void *)bad;
}

static void test_pool(void) {
  char err[512];
  pool = sk_mpool_new(2 << 20, 0, err, sizeof err);
  CHECK(pool != NULL);
  if (!pool) return;
  pthread_t t[4];
  for (long k = 0; k < 4; k++) pthread_create(&t[k], NULL, hammer, (void *)k);
  long bad = 0;
  for (int k = 0; k < 4; k++) {
    void *r;
    pthread_join(t[k], &r);
    bad += (long)r;
  }
  CHECK(bad == 0);
  sk_mpool_stats st;
  sk_mpool_stats_get(pool, &st);
  CHECK(st.in_use == 0);
  CHECK(st.high_water > 0 && st.high_water <= st.capacity);
  /* a freed block is no longer one; a stray pointer is refused */
  void *b = sk_mpool_alloc(pool, 100);
  CHECK(sk_mpool_block_size(pool, b) == 128);
  CHECK(sk_mpool_release(pool, b) == 0);
  CHECK(sk_mpool_release(pool, b) == -1);
  CHECK(sk_mpool_release(pool, &st) == -1);
  /* exhaustion: NULL, then room again after frees */
  void *all[4096];
  int n = 0;
  while (n < 4096 && (all[n] = sk_mpool_alloc(pool, 4096)) != NULL) n++;
  CHECK(n == 512);
  CHECK(sk_mpool_alloc(pool, 16) == NULL);
  for (int k = 0; k < n; k++) sk_mpool_release(pool, all[k]);
  CHECK(sk_mpool_alloc(pool, 16) != NULL);
  sk_mpool_free(pool);
  CHECK(sk_mpool_new(0, 0, err, sizeof err) == NULL && strstr(err, "not positive"));
}

/* -- the scheduler --------------------------------------------------------------- */
static const char *FIB = "if (self.n < 2) task_return(self.n);\n"
                         "if (future_is_null(self.f1)) {\n"
                         "  self.f1 = task_spawn(fib, {.n = self.n - 1});\n"
                         "  self.f2 = task_spawn(fib, {.n = self.n - 2}, TASK_HIGH);\n"
                         "  task_respawn(when_all(self.f1, self.f2));\n"
                         "  return;\n"
                         "}\n"
                         "int64_t *p = (int64_t *)pool_alloc(32);\n"
                         "p[0] = future_get(self.f1); p[1] = future_get(self.f2);\n"
                         "int64_t r = p[0] + p[1];\n"
                         "pool_free(p);\n"
                         "task_return(r);\n";

static void test_sched(int queue) {
  char err[4096];
  sk_sched *s = sk_sched_new(NULL, 8 << 20, queue, err, sizeof err);
  CHECK(s != NULL);
  if (!s) {
    printf("%s\n", err);
    return;
  }
  sk_tfunctor f;
  memset(&f, 0, sizeof f);
  snprintf(f.label, sizeof f.label, "fib");
  f.nfields = 3;
  snprintf(f.fields[0].name, 48, "f1");
  f.fields[0].kind = SK_TF_FUTURE;
  snprintf(f.fields[1].name, 48, "f2");
  f.fields[1].kind = SK_TF_FUTURE;
  snprintf(f.fields[2].name, 48, "n");
  f.fields[2].kind = SK_TF_SCALAR;
  f.fields[2].dtype = SK_I64;
  f.ret = SK_I64;
  f.body = (char *)FIB;
  CHECK(sk_sched_functor(s, &f, err, sizeof err) == 0);
  CHECK(sk_sched_compile(s, err, sizeof err) == 0);
  for (int n = 0; n <= 22; n += 11) {
    unsigned char fields[64] = {0};
    int64_t nn = n;
    memcpy(fields + sk_sched_field_offset(s, 0, 2), &nn, 8);
    struct sk_task *t = sk_sched_spawn(s, 0, fields, SK_PRIO_REGULAR, 0, err, sizeof err);
    CHECK(t != NULL);
    CHECK(sk_sched_wait(s, err, sizeof err) == 0);
    sk_slot v;
    int dt;
    CHECK(sk_sched_result(s, t, &v, &dt, err, sizeof err) == 0);
    int64_t a = 0, b = 1;
    for (int k = 0; k < n; k++) {
      int64_t c = a + b;
      a = b;
      b = c;
    }
    CHECK(dt == SK_I64 && v.i64 == a);
    sk_sched_release(s, t);
  }
  sk_sched_stats st;
  sk_sched_stats_get(s, &st);
  CHECK(st.tasks == 1 + 287 + 57313);
  sk_mpool_stats ps;
  sk_mpool_stats_get(sk_sched_pool(s), &ps);
  CHECK(ps.in_use == 0); /* every task and block returned */
  sk_sched_free(s);
}

/* A dependence cycle can only be built behind the API's back (a task
 * cannot name its own future and futures are immutable): 'a' reads the
 * future of 'b' from memory the test fills after both are spawned, and
 * 'b' waits on 'a'. The wait must report the deadlock, not hang, and the
 * scheduler must work afterwards. */
static int64_t cell;

static void test_deadlock(void) {
  char err[4096];
  sk_sched *s = sk_sched_new(NULL, 1 << 20, SK_QUEUE_MULTIPLE, err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  sk_tfunctor f;
  memset(&f, 0, sizeof f);
  snprintf(f.label, sizeof f.label, "cyc");
  f.nfields = 3;
  snprintf(f.fields[0].name, 48, "cell");
  f.fields[0].kind = SK_TF_SCALAR;
  f.fields[0].dtype = SK_I64;
  snprintf(f.fields[1].name, 48, "dep");
  f.fields[1].kind = SK_TF_FUTURE;
  snprintf(f.fields[2].name, 48, "w");
  f.fields[2].kind = SK_TF_SCALAR;
  f.fields[2].dtype = SK_I64;
  f.ret = SK_I64;
  f.body = (char *)"if (self.w) task_return(1);\n"
                   "self.w = 1;\n"
                   "if (self.cell) task_respawn(*(future *)self.cell);\n"
                   "else task_respawn(self.dep);\n";
  CHECK(sk_sched_functor(s, &f, err, sizeof err) == 0);
  CHECK(sk_sched_compile(s, err, sizeof err) == 0);
  unsigned char fa[64] = {0}, fb[64] = {0};
  int64_t addr = (int64_t)(intptr_t)&cell;
  memcpy(fa + sk_sched_field_offset(s, 0, 0), &addr, 8);
  struct sk_task *a = sk_sched_spawn(s, 0, fa, SK_PRIO_REGULAR, 0, err, sizeof err);
  memcpy(fb + sk_sched_field_offset(s, 0, 1), &a, sizeof a);
  struct sk_task *b = sk_sched_spawn(s, 0, fb, SK_PRIO_REGULAR, 0, err, sizeof err);
  cell = (int64_t)(intptr_t)b;
  CHECK(a && b);
  CHECK(sk_sched_wait(s, err, sizeof err) < 0);
  CHECK(strstr(err, "deadlock: 2 tasks wait on dependences that never complete") != NULL);
  if (!strstr(err, "deadlock")) printf("%s\n", err);
  /* afterwards: a task without a dependence runs */
  unsigned char fc[64] = {0};
  struct sk_task *c = sk_sched_spawn(s, 0, fc, SK_PRIO_REGULAR, 0, err, sizeof err);
  CHECK(sk_sched_wait(s, err, sizeof err) == 0);
  sk_slot v;
  int dt;
  CHECK(sk_sched_result(s, c, &v, &dt, err, sizeof err) == 0 && v.i64 == 1);
  sk_sched_free(s);
}

int main(void) {
  char err[512];
  if (sk_rt_initialize("openmp", 2, 0, err, sizeof err) < 0) {
    printf("%s\n", err);
    return 1;
  }
  test_pool();
  test_sched(SK_QUEUE_MULTIPLE);
  test_sched(SK_QUEUE_SINGLE);
  test_deadlock();
  sk_rt_finalize();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
