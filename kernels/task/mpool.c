/* mpool.c: the thread-scalable memory pool of seed 003 §3.4.
 *
 * The pool is 'nsb' superblocks of 2^'sb_log2' bytes. A superblock serves
 * blocks of one size class 2^L (L from 4, 16 bytes, to sb_log2) at a time.
 * Its 32-bit state word holds the class (top 8 bits) and the number of
 * blocks handed out (low 24); its bitset marks which blocks are.
 *
 * alloc: find a superblock whose state is (L, count < capacity) or
 *        (anything, 0) -- starting at the class's hint -- and CAS its
 *        state to (L, count + 1): that reserves a block, so the search of
 *        the bitset that follows (fetch-or on a clear bit) must succeed.
 * free:  clear the block's bit (fetch-and), then decrement the count.
 *
 * Invariant: count == 0 implies every bit of the superblock is clear (a
 * free clears its bit before it decrements), so a superblock may change
 * class only when its count is 0, and the CAS that changes it is also the
 * one that reserves the first block. No lock anywhere; a full pool is a
 * NULL, never a wait. Threads start their searches at their own hints, so
 * two threads seldom share a superblock; the only counter shared by all is
 * the number of superblocks in use (touched when one fills from empty or
 * empties), which gives the high-water mark in superblocks.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "task.h"

#define CLS_SHIFT   24
#define CNT_MASK    0xffffffu
#define MIN_LOG2    4
#define MAX_CLASSES 32
#define HINTS       8

struct sk_mpool {
  sk_mpool_head head; /* first: what kernels capture */
  char *base;
  int sb_log2, nsb, wps; /* words of bitset per superblock */
  _Atomic uint32_t *state;
  _Atomic uint64_t *bits;
  _Atomic uint32_t hint[MAX_CLASSES][HINTS];
  _Atomic int64_t used_sb, high_sb, failures; /* superblocks in use */
};

/* Each thread searches from its own hint per class, so that threads
 * allocate from different superblocks (no cache line shared on the fast
 * path); 'rot' spreads a thread's bit searches. */
static _Thread_local unsigned rot, slot = ~0u;
static _Atomic unsigned next_slot;

static unsigned my_slot(void) {
  if (slot == ~0u) slot = atomic_fetch_add(&next_slot, 1) % HINTS;
  return slot;
}

static int ceil_log2(int64_t n) {
  int l = 0;
  while (((int64_t)1 << l) < n) l++;
  return l;
}

static void *head_alloc(sk_mpool_head *h, sk_i64 bytes) {
  return sk_mpool_alloc((sk_mpool *)h, bytes);
}
static void head_free(sk_mpool_head *h, void *ptr) {
  sk_mpool_release((sk_mpool *)h, ptr);
}

sk_mpool *sk_mpool_new(int64_t bytes, int64_t sb_bytes, char *err, size_t errlen) {
  if (bytes <= 0) {
    sk_err(err, errlen, SK_E_MEMORY_POOL_SIZE, (long long)bytes);
    return NULL;
  }
  int sb_log2;
  if (sb_bytes > 0) {
    sb_log2 = ceil_log2(sb_bytes);
  } else { /* about 32 superblocks, 4 KiB to 1 MiB each */
    sb_log2 = ceil_log2(bytes / 32 > 0 ? bytes / 32 : 1);
    if (sb_log2 < 12) sb_log2 = 12;
    if (sb_log2 > 20) sb_log2 = 20;
  }
  if (sb_log2 < MIN_LOG2 + 2 || sb_log2 > 20) {
    sk_err(err, errlen, SK_E_MEMORY_POOL_SUPERBLOCK, (long long)sb_bytes);
    return NULL;
  }
  int64_t sb = (int64_t)1 << sb_log2;
  int64_t nsb = (bytes + sb - 1) / sb;
  if (nsb > ((int64_t)1 << 30)) {
    sk_err(err, errlen, SK_E_MEMORY_POOL_BYTES, (long long)bytes);
    return NULL;
  }
  if (sk_host_room((uint64_t)(nsb * sb), err, errlen) < 0) return NULL;
  sk_mpool *p = calloc(1, sizeof *p);
  int wps = (int)((sb >> MIN_LOG2) + 63) / 64;
  if (!p) goto oom;
  p->sb_log2 = sb_log2;
  p->nsb = (int)nsb;
  p->wps = wps;
  p->state = calloc((size_t)nsb, sizeof *p->state);
  p->bits = calloc((size_t)nsb * (size_t)wps, sizeof *p->bits);
  if (posix_memalign((void **)&p->base, 4096, (size_t)(nsb * sb)) != 0) p->base = NULL;
  if (!p->state || !p->bits || !p->base) goto oom;
  for (int L = 0; L < MAX_CLASSES; L++)
    for (int h = 0; h < HINTS; h++)
      atomic_store(&p->hint[L][h], (uint32_t)((int64_t)h * nsb / HINTS));
  p->head.self = &p->head;
  p->head.magic = SK_MPOOL_MAGIC;
  p->head.alloc = head_alloc;
  p->head.free = head_free;
  return p;
oom:
  sk_mpool_free(p);
  sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_MEMORY, (long long)bytes);
  return NULL;
}

void sk_mpool_free(sk_mpool *p) {
  if (!p) return;
  free(p->base);
  free((void *)p->state);
  free((void *)p->bits);
  free(p);
}

sk_mpool_head *sk_mpool_head_of(sk_mpool *p) { return &p->head; }

/* a superblock went from empty to used (+1) or back (-1) */
static void account(sk_mpool *p, int64_t delta) {
  int64_t now =
    atomic_fetch_add_explicit(&p->used_sb, delta, memory_order_relaxed) + delta;
  if (delta <= 0) return;
  int64_t hw = atomic_load_explicit(&p->high_sb, memory_order_relaxed);
  while (now > hw && !atomic_compare_exchange_weak_explicit(&p->high_sb, &hw, now,
                                                            memory_order_relaxed,
                                                            memory_order_relaxed)) {}
}

/* reserve a block of class L in some superblock: its index, -1 if none */
static int reserve(sk_mpool *p, int L, uint32_t cap, uint32_t *cnt_out) {
  int nsb = p->nsb;
  unsigned h = my_slot();
  int start = (int)atomic_load_explicit(&p->hint[L][h], memory_order_relaxed);
  if (start >= nsb) start = 0;
  for (int k = 0; k < nsb; k++) {
    int s = start + k < nsb ? start + k : start + k - nsb;
    uint32_t st = atomic_load_explicit(&p->state[s], memory_order_relaxed);
    for (;;) {
      uint32_t cls = st >> CLS_SHIFT, cnt = st & CNT_MASK;
      if (!(cnt == 0 || (cls == (uint32_t)L && cnt < cap))) break;
      uint32_t nst = ((uint32_t)L << CLS_SHIFT) | (cnt + 1);
      if (atomic_compare_exchange_weak_explicit(
            &p->state[s], &st, nst, memory_order_acquire, memory_order_relaxed)) {
        if (s != start)
          atomic_store_explicit(&p->hint[L][h], (uint32_t)s, memory_order_relaxed);
        if (cnt == 0) account(p, 1);
        *cnt_out = cnt;
        return s;
      }
    }
  }
  return -1;
}

void *sk_mpool_alloc(sk_mpool *p, int64_t bytes) {
  if (bytes < 1) bytes = 1;
  int L = ceil_log2(bytes);
  if (L < MIN_LOG2) L = MIN_LOG2;
  if (L > p->sb_log2) {
    atomic_fetch_add_explicit(&p->failures, 1, memory_order_relaxed);
    return NULL;
  }
  uint32_t cap = 1u << (p->sb_log2 - L), cnt;
  int s = reserve(p, L, cap, &cnt);
  if (s < 0) {
    atomic_fetch_add_explicit(&p->failures, 1, memory_order_relaxed);
    return NULL;
  }
  int words = (int)((cap + 63) / 64);
  _Atomic uint64_t *bits = p->bits + (size_t)s * (size_t)p->wps;
  int w = (int)((cnt / 64 + rot++) % (unsigned)words);
  for (;; w = w + 1 < words ? w + 1 : 0) {
    uint64_t valid = cap - (uint32_t)w * 64 >= 64
                       ? ~(uint64_t)0
                       : (((uint64_t)1 << (cap - (uint32_t)w * 64)) - 1);
    uint64_t x = atomic_load_explicit(&bits[w], memory_order_relaxed);
    uint64_t fr = ~x & valid;
    while (fr) {
      int b = __builtin_ctzll(fr);
      uint64_t m = (uint64_t)1 << b;
      uint64_t old = atomic_fetch_or_explicit(&bits[w], m, memory_order_acquire);
      if (!(old & m)) {
        return p->base + ((size_t)s << p->sb_log2) + ((size_t)(w * 64 + b) << L);
      }
      fr = ~old & valid;
    }
  }
}

/* the superblock, class and bit of a block, -1 if 'ptr' cannot be one */
static int locate(const sk_mpool *p, const void *ptr, int *s, int *L, int *w,
                  uint64_t *m) {
  const char *c = ptr;
  if (!c || c < p->base || c >= p->base + ((size_t)p->nsb << p->sb_log2)) return -1;
  size_t off = (size_t)(c - p->base);
  *s = (int)(off >> p->sb_log2);
  uint32_t st = atomic_load_explicit(&p->state[*s], memory_order_relaxed);
  if ((st & CNT_MASK) == 0) return -1;
  *L = (int)(st >> CLS_SHIFT);
  size_t in = off & (((size_t)1 << p->sb_log2) - 1);
  if (in & (((size_t)1 << *L) - 1)) return -1;
  size_t idx = in >> *L;
  *w = (int)(idx / 64);
  *m = (uint64_t)1 << (idx % 64);
  return 0;
}

int sk_mpool_release(sk_mpool *p, void *ptr) {
  int s, L, w;
  uint64_t m;
  if (locate(p, ptr, &s, &L, &w, &m) < 0) return -1;
  uint64_t old = atomic_fetch_and_explicit(
    &p->bits[(size_t)s * (size_t)p->wps + (size_t)w], ~m, memory_order_release);
  if (!(old & m)) return -1; /* freed twice at once: only one counts */
  if ((atomic_fetch_sub_explicit(&p->state[s], 1, memory_order_release) & CNT_MASK) == 1)
    account(p, -1);
  return 0;
}

int64_t sk_mpool_block_size(const sk_mpool *p, const void *ptr) {
  int s, L, w;
  uint64_t m;
  if (locate(p, ptr, &s, &L, &w, &m) < 0) return 0;
  uint64_t x = atomic_load_explicit(&p->bits[(size_t)s * (size_t)p->wps + (size_t)w],
                                    memory_order_relaxed);
  if (!(x & m)) return 0;
  return (int64_t)1 << L;
}

void sk_mpool_reset(sk_mpool *p) {
  for (int s = 0; s < p->nsb; s++) atomic_store(&p->state[s], 0);
  for (size_t k = 0; k < (size_t)p->nsb * (size_t)p->wps; k++)
    atomic_store(&p->bits[k], 0);
  atomic_store(&p->used_sb, 0);
}

void sk_mpool_stats_get(const sk_mpool *p, sk_mpool_stats *st) {
  memset(st, 0, sizeof *st);
  st->superblock = (int64_t)1 << p->sb_log2;
  st->capacity = st->superblock * p->nsb;
  /* bytes in live blocks: the superblocks' counts times their classes */
  for (int s = 0; s < p->nsb; s++) {
    uint32_t x = atomic_load(&((sk_mpool *)p)->state[s]);
    st->in_use += (int64_t)(x & CNT_MASK) << (x >> CLS_SHIFT);
  }
  st->high_water = atomic_load(&((sk_mpool *)p)->high_sb) * st->superblock;
  st->failures = atomic_load(&((sk_mpool *)p)->failures);
}

static const char *human(int64_t b, char *buf, size_t n) {
  if (b >= (1 << 20)) sk_err(buf, n, SK_E_MIB, (double)b / (1 << 20));
  else if (b >= 1024) sk_err(buf, n, SK_E_KIB, (double)b / 1024);
  else sk_err(buf, n, SK_E_BYTES, (long long)b);
  return buf;
}

void sk_mpool_describe(const sk_mpool *p, int64_t asked, char *buf, size_t n) {
  sk_mpool_stats st;
  sk_mpool_stats_get(p, &st);
  char a[32], c[32], u[32], s[32];
  if (asked > st.superblock)
    sk_err(buf, n, SK_E_MEMORY_POOL_BLOCK, human(asked, a, sizeof a),
           human(st.superblock, s, sizeof s));
  else
    sk_err(buf, n, SK_E_MEMORY_POOL_EXHAUSTED, human(st.capacity, c, sizeof c),
           human(asked, a, sizeof a), human(st.in_use, u, sizeof u));
}
