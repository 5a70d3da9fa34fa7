/* pool.c: a persistent pthread pool with a spin-then-futex wake-up.
 *
 * Workers wait on the 32-bit generation word 'gen': they spin for a while
 * (a launch right after another costs no system call) and then sleep in
 * futex_wait. The spin pauses only briefly and then yields: a long PAUSE
 * loop gets a virtual CPU descheduled by the hypervisor, and a spinning
 * thread that shares a CPU with the one it waits for must let it run
 * (both seen on these machines as launches of 1-2 ms instead of 1 us). A
 * launch publishes the job, moves 'gen' (release), wakes sleepers if there
 * are any, runs its own share as tid 0 and waits for each part's 'done'
 * word to reach the generation. For parts that wait for each other
 * (sk_pool_run) 'sleepers' and 'gen' are ordered seq_cst on both sides
 * (the launcher's fence between its store of 'gen' and its look at
 * 'sleepers'), so either the worker sees the new generation or the
 * launcher sees the sleeper and wakes it (no lost wake-up). Independent
 * parts (sk_pool_run_parts) need no fence: a part whose worker did not
 * wake is the launcher's (below), and the next launch wakes it.
 *
 * Parts are claimed: part t of generation g is run by whoever moves
 * claim[t] to g first (a CAS), its worker or -- in sk_pool_run_parts --
 * the launching thread once its own part is done. A loaded machine then
 * costs a launch nothing when a worker is late (descheduled, asleep, or
 * sharing the launcher's CPU: the scheduler keeps two spinning threads on
 * one CPU for seconds when the other is busy, and each launch then
 * waited for the worker's turn, 24 us instead of 1). A worker reads the
 * job only after its claim succeeded: generation g cannot end before a
 * claimed part is done, so the job it reads is g's. A worker that finds
 * itself on the CPU of the last launch yields at once instead of
 * spinning on it. Each part's claim and done words sit on lines of their
 * own: no counter of parts left is shared, and 'gen' moves by a plain
 * store (the launcher's only wait on another core is a claim).
 */
#define _GNU_SOURCE
#include "core/err.h"
#include "pool.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPIN_NS  2e6 /* idle workers stay awake 2 ms, */
#define PAUSE_NS 2e4 /* pausing for the first 20 us, then yielding */

/* a part's claim word and done word, each alone on its cache line */
typedef struct claim {
  _Alignas(64) atomic_uint gen; /* the generation that claimed it last */
  _Alignas(64) atomic_uint done; /* the last generation whose part ran */
} claim;

static struct {
  int n;
  pthread_t *tids;
  claim *claims; /* [n]; part 0 is always the launcher's */
  _Alignas(64) atomic_uint gen;
  sk_pool_fn fn; /* the job: written before 'gen' moves */
  void *arg;
  _Alignas(64) atomic_int sleepers;
  atomic_int stop;
  _Alignas(64) atomic_int cpu; /* the launching thread's CPU at the last launch */
} P;

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void futex_wait(atomic_uint *w, unsigned v) {
  syscall(SYS_futex, (unsigned *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *w) {
  syscall(SYS_futex, (unsigned *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Claim part t for generation g: 1 when this thread is to run it. The
 * comparison is modulo 2^32: a claim word never runs ahead of 'gen'. */
static int claim_part(int t, unsigned g) {
  unsigned cur = atomic_load_explicit(&P.claims[t].gen, memory_order_relaxed);
  return (int)(g - cur) > 0 &&
         atomic_compare_exchange_strong(&P.claims[t].gen, &cur, g);
}

static void *worker(void *p) {
  int tid = (int)(size_t)p;
  unsigned seen = 0;
  for (;;) {
    unsigned g = seen;
    /* spin (a short pause loop, then yielding) for about SPIN_NS before
     * sleeping: a launch soon after the last one finds us awake. On the
     * launcher's CPU, yield at once: spinning there only delays it. */
    double t0 = now_ns();
    for (int k = 0;; k++) {
      g = atomic_load_explicit(&P.gen, memory_order_acquire);
      if (g != seen) break;
      if ((k & 63) == 63) {
        double dt = now_ns() - t0;
        if (dt > SPIN_NS) break;
        if (dt > PAUSE_NS ||
            sched_getcpu() == atomic_load_explicit(&P.cpu, memory_order_relaxed))
          sched_yield();
      }
      cpu_relax();
    }
    if (g == seen) {
      atomic_fetch_add(&P.sleepers, 1);
      while ((g = atomic_load(&P.gen)) == seen) futex_wait(&P.gen, seen);
      atomic_fetch_sub(&P.sleepers, 1);
    }
    seen = g;
    if (atomic_load_explicit(&P.stop, memory_order_acquire)) return NULL;
    if (!claim_part(tid, g)) continue; /* the launcher ran it */
    P.fn(P.arg, tid, P.n);
    atomic_store_explicit(&P.claims[tid].done, g, memory_order_release);
  }
}

int sk_pool_start(int nthreads, char *err, size_t errlen) {
  if (P.n) sk_pool_stop();
  if (nthreads < 1) nthreads = 1;
  P.tids = calloc((size_t)nthreads, sizeof *P.tids);
  P.claims = aligned_alloc(64, (size_t)nthreads * sizeof *P.claims);
  if (!P.tids || !P.claims) {
    free(P.tids);
    free(P.claims);
    P.tids = NULL;
    P.claims = NULL;
    sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_THREAD);
    return -1;
  }
  for (int t = 0; t < nthreads; t++) {
    atomic_init(&P.claims[t].gen, 0);
    atomic_init(&P.claims[t].done, 0);
  }
  atomic_store(&P.cpu, -1);
  atomic_store(&P.gen, 0);
  atomic_store(&P.sleepers, 0);
  atomic_store(&P.stop, 0);
  P.n = nthreads;
  for (int t = 1; t < nthreads; t++) {
    int rc = pthread_create(&P.tids[t], NULL, worker, (void *)(size_t)t);
    if (rc != 0) {
      P.n = t;
      sk_pool_stop();
      sk_err(err, errlen, SK_E_CANNOT_START_POOL, t, strerror(rc));
      return -1;
    }
  }
  return 0;
}

void sk_pool_stop(void) {
  if (!P.n) return;
  pthread_mutex_lock(&run_lock);
  atomic_store_explicit(&P.stop, 1, memory_order_release);
  atomic_fetch_add(&P.gen, 1);
  futex_wake(&P.gen);
  for (int t = 1; t < P.n; t++) pthread_join(P.tids[t], NULL);
  free(P.tids);
  free(P.claims);
  P.tids = NULL;
  P.claims = NULL;
  P.n = 0;
  pthread_mutex_unlock(&run_lock);
}

int sk_pool_size(void) { return P.n; }

/* wait until part t of generation g is done: with 'steal', a part no
 * worker has claimed yet is run here instead */
static void wait_part(int t, unsigned g, int steal, sk_pool_fn fn, void *arg, int n) {
  if (steal && claim_part(t, g)) { /* no worker has started it: ours */
    fn(arg, t, n);
    return;
  }
  atomic_uint *done = &P.claims[t].done;
  for (unsigned k = 0; atomic_load_explicit(done, memory_order_acquire) != g; k++) {
    if (k < 64) cpu_relax();
    else sched_yield();
  }
}

static void run(sk_pool_fn fn, void *arg, int steal) {
  pthread_mutex_lock(&run_lock);
  int n = P.n;
  if (n <= 1) {
    fn(arg, 0, 1);
    pthread_mutex_unlock(&run_lock);
    return;
  }
  P.fn = fn;
  P.arg = arg;
  /* the launcher is the only writer of 'gen' (under run_lock) */
  unsigned g = atomic_load_explicit(&P.gen, memory_order_relaxed) + 1;
  atomic_store_explicit(&P.gen, g, memory_order_release);
  /* parts that wait for each other need every worker awake: the ordered
   * look at the sleepers; independent ones need none (a part whose
   * worker sleeps on is ours below), and the unordered look wakes a
   * sleeper in all but a racing case */
  if (!steal) atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&P.sleepers, memory_order_relaxed) > 0) futex_wake(&P.gen);
  fn(arg, 0, n);
  for (int t = 1; t < n; t++) wait_part(t, g, steal, fn, arg, n);
  int cpu = sched_getcpu();
  if (atomic_load_explicit(&P.cpu, memory_order_relaxed) != cpu)
    atomic_store_explicit(&P.cpu, cpu, memory_order_relaxed);
  pthread_mutex_unlock(&run_lock);
}

void sk_pool_run(sk_pool_fn fn, void *arg) { run(fn, arg, 0); }

void sk_pool_run_parts(sk_pool_fn fn, void *arg) { run(fn, arg, 1); }
