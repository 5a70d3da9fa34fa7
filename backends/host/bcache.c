/* bcache.c: the host back ends' cache of freed large blocks.
 *
 * A large block (from HUGE_ADVISE_MIN, 4 MiB: host.c) comes from mmap, and
 * glibc gives it back with munmap when it is freed; the next one of its
 * size is mapped afresh and its first touch faults every page in, the
 * kernel zeroing each one (a library call's scratch, an SpGEMM's
 * temporaries, an AMG setup's levels: 40 % of an AMG-PCG run's CPU time
 * was system time). A freed large block is kept here instead, at most
 * CACHE_BLOCKS of them and min(1/16 of the memory the process may have,
 * 1 GiB) in all, and the next request it fits (its usable size at most a
 * quarter above the request plus one huge page) takes it: no fault, the
 * huge-page advice kept. A request nothing fits, or a block that would
 * pass the cap, goes to the allocator as before; an allocation that fails
 * empties the cache and tries again. The view layer zeroes what it must
 * (first touch), as it does for fresh memory: a view made without
 * initialisation holds what the block held.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "bcache.h"

#define CACHE_BLOCKS 32
#define CACHE_MOST   ((size_t)1 << 30)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  void *p;
  size_t bytes; /* its usable size */
} blocks[CACHE_BLOCKS];
static int nblocks;
static size_t held;

void *sk_bcache_take(size_t bytes) {
  void *p = NULL;
  pthread_mutex_lock(&mu);
  int best = -1;
  size_t most = bytes + bytes / 4 + ((size_t)2 << 20);
  for (int i = 0; i < nblocks; i++)
    if (blocks[i].bytes >= bytes && blocks[i].bytes <= most &&
        (best < 0 || blocks[i].bytes < blocks[best].bytes))
      best = i;
  if (best >= 0) {
    p = blocks[best].p;
    held -= blocks[best].bytes;
    blocks[best] = blocks[--nblocks];
  }
  pthread_mutex_unlock(&mu);
  return p;
}

int sk_bcache_put(void *p, size_t bytes, uint64_t memory) {
  size_t cap = memory ? (size_t)(memory / 16) : CACHE_MOST;
  if (cap > CACHE_MOST) cap = CACHE_MOST;
  int kept = 0;
  pthread_mutex_lock(&mu);
  if (nblocks < CACHE_BLOCKS && held + bytes <= cap) {
    blocks[nblocks].p = p;
    blocks[nblocks].bytes = bytes;
    nblocks++;
    held += bytes;
    kept = 1;
  }
  pthread_mutex_unlock(&mu);
  return kept;
}

int sk_bcache_flush(void) {
  pthread_mutex_lock(&mu);
  int n = nblocks;
  for (int i = 0; i < nblocks; i++) free(blocks[i].p);
  nblocks = 0;
  held = 0;
  pthread_mutex_unlock(&mu);
  return n;
}
