/* tiny.c: launches too small to wake a worker for.
 *
 * Handing a share of a launch to a worker and learning that it finished
 * is a cross-core round trip: 0.1-0.6 us on the 2-vCPU VMs of
 * docs/bench.md ("The launch floor"), more than an empty or near-empty
 * body's whole work (a range for of 1,024 empty indices: 0.2 us on one
 * thread against 0.3-0.8 us on two). So the openmp back end measures what
 * a compiled body costs an index -- the calling thread's own share of a
 * launch on the pool, or the whole of one on the calling thread -- and a
 * range launch whose workers' shares would together take less than
 * TINY_NS by that measure runs on the calling thread instead. The caller
 * (host.c) keeps the launch's blocks and their order, so a reduction
 * gives the same bits either way. A body goes to the calling thread only
 * after two launches in a row measured tiny, and every launch there is
 * measured again: a body that turns heavier (its loops longer for other
 * arguments) goes back to the pool at its next launch, and one whose
 * launches alternate between light and heavy stays on the pool. A
 * launch of a body not measured yet, or of a dynamic schedule, runs on
 * the pool.
 *
 * The costs sit in a small table by the compiled function's address; two
 * bodies that share a slot take turns (the newer one's cost wins), and an
 * update lost between two threads only delays a switch.
 * SPECK_POOL_TINY=0 turns it off (every launch of two or more parts on the
 * pool, as before); 1, the default, on.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/env.h"
#include "core/err.h"
#include "host.h"

/* the workers' shares' work below which a launch stays on the calling
 * thread: about the round trip's cost in the fast case, so a launch that
 * would gain from the pool is never kept off it by much */
#define TINY_NS 200.0
#define SLOTS   256

typedef struct slot {
  _Atomic(uintptr_t) fn;
  _Atomic(uint32_t) ps;     /* picoseconds an index (saturating), 0: not measured */
  _Atomic(uint32_t) streak; /* launches in a row measured tiny (at most 2) */
} slot;

static slot tab[SLOTS];
static int on = 1;

int sk_host_tiny_setup(char *err, size_t errlen) {
  const char *v = sk_env_get("SPECK_POOL_TINY");
  if (!v || strcmp(v, "1") == 0) on = 1;
  else if (strcmp(v, "0") == 0) on = 0;
  else {
    sk_err(err, errlen, SK_E_POOL_TINY_VALUE, v);
    return -1;
  }
  return 0;
}

static int tiny_for(double ps, int64_t n, int nt) {
  /* the workers' shares: (nt - 1) / nt of the launch */
  return 1e-3 * ps * (double)n * (nt - 1) / nt < TINY_NS;
}

static slot *slot_of(const void *fn) {
  uint64_t h = (uint64_t)(uintptr_t)fn * 0x9E3779B97F4A7C15ull;
  return &tab[h >> 56];
}

int sk_host_tiny(const void *fn, int64_t n, int nt) {
  if (!on || nt < 2) return 0;
  slot *s = slot_of(fn);
  if (atomic_load_explicit(&s->fn, memory_order_relaxed) != (uintptr_t)fn) return 0;
  uint32_t ps = atomic_load_explicit(&s->ps, memory_order_relaxed);
  return ps > 0 && atomic_load_explicit(&s->streak, memory_order_relaxed) >= 2 &&
         tiny_for(ps, n, nt);
}

void sk_host_tiny_note(const void *fn, int64_t n, int64_t share, int nt, double seconds) {
  if (!on || share <= 0 || seconds < 0) return;
  double ps = 1e12 * seconds / (double)share;
  uint32_t v = ps < 1 ? 1 : ps > 4e9 ? 4000000000u : (uint32_t)ps;
  slot *s = slot_of(fn);
  uint32_t k = 0;
  if (atomic_load_explicit(&s->fn, memory_order_relaxed) == (uintptr_t)fn)
    k = atomic_load_explicit(&s->streak, memory_order_relaxed);
  k = tiny_for(v, n, nt) ? (k < 2 ? k + 1 : 2) : 0;
  atomic_store_explicit(&s->ps, v, memory_order_relaxed);
  atomic_store_explicit(&s->streak, k, memory_order_relaxed);
  atomic_store_explicit(&s->fn, (uintptr_t)fn, memory_order_relaxed);
}
