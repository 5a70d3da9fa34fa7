/* blocks.h: building blocks of the dialect written once, in its own
 * vocabulary, for every back end: the team bitonic sort, the unordered
 * map (speck.UnorderedMap) and the hashmap accumulator. Each back end's
 * header (host.h, ...) defines the vocabulary first and includes this
 * file at its end, so it is pasted after that header in generated
 * source (jit/: the code target's dialect list) and compiled as part of
 * it by the precompiled kernels.
 *
 * Besides the dialect's own words (team_barrier, TEAM_VECTOR_FOR,
 * atomic_cas, atomic_fetch_add, atomic_exchange, atomic_add, SK_INLINE,
 * __typeof__) the blocks use a few words each back end spells for its
 * memory model, for memory other threads of the kernel read or write at
 * the same time:
 *   SK__VLD(x), SK__VST(x, v)  a load / store of such an lvalue that the
 *                              compiler may not cache or merge (a GPU's
 *                              vector lanes race within one warp: volatile;
 *                              the host: plain -- lanes are one thread's
 *                              loop and members meet at team barriers)
 *   SK__FENCE()                the fence between a relaxed atomic and the
 *                              plain accesses it publishes (a GPU's
 *                              atomics are relaxed; the host's are
 *                              acquire-release and need none)
 *   SK__ACQ_LD(x)              a load that later loads cannot pass (the
 *                              host: an acquire atomic; a GPU: volatile)
 *   SK__REL_ST(x, v)           a store that earlier stores cannot pass
 *                              (the host: a release atomic; a GPU: a
 *                              fence, then a volatile store)
 *   SK__ATF                    a run-time function's qualifiers (the host
 *                              builds one external copy for libtcc code)
 *   SK__RT_EXTERN              defined when such functions are external
 *                              (libtcc kernels link the runtime's copy)
 */
#ifndef SK_DIALECT_BLOCKS_H
#define SK_DIALECT_BLOCKS_H

/* -- team bitonic sort (seed 000 section 5) ---------------------------------
 * TEAM_SORT(team, keys, n, before): sort keys[0 .. n) (a pointer: team
 * scratch, or &x(0) of a contiguous view) in place, by the C expression
 * 'before' over 'a' and 'b' ("a comes before b": a < b ascending); with
 * TEAM_SORT_KV the values vals[] move with their keys, and 'before' may
 * also use va and vb, the values of a and b (a tie-break on them makes it
 * stable). A collective: every member calls it with the same arguments;
 * the keys are read and written after team barriers. The network is
 * Batcher's bitonic one in its always-ascending form (every block's first
 * step compares mirrored pairs), so positions past n act as +infinity and
 * any n works: log2(N) (log2(N) + 1) / 2 steps of N/2 compare-exchanges
 * (N: n rounded up to a power of two) spread over the team's threads and
 * lanes. Not stable. */
#define SK__BITONIC(tm, K, V, n, before)                                     \
  do {                                                                       \
    const sk_i64 sk__sn = (sk_i64)(n);                                       \
    sk_i64 sk__sN = 1;                                                       \
    while (sk__sN < sk__sn) sk__sN <<= 1;                                    \
    team_barrier(tm);                                                        \
    for (sk_i64 sk__sk = 2; sk__sk <= sk__sN; sk__sk <<= 1)                  \
      for (sk_i64 sk__sj = sk__sk >> 1; sk__sj > 0; sk__sj >>= 1) {          \
        TEAM_VECTOR_FOR(sk__st, 0, sk__sN >> 1) {                            \
          const sk_i64 sk__p =                                               \
            ((sk__st & ~(sk__sj - 1)) << 1) | (sk__st & (sk__sj - 1));       \
          const sk_i64 sk__q =                                               \
            sk__sj == (sk__sk >> 1) ? (sk__p ^ (sk__sk - 1)) : sk__p + sk__sj; \
          if (sk__q < sk__sn) {                                              \
            const __typeof__((K)[0]) a = (K)[sk__q], b = (K)[sk__p];         \
            const __typeof__((V)[0]) va = (V)[sk__q], vb = (V)[sk__p];       \
            (void)va;                                                        \
            (void)vb;                                                        \
            if (before) {                                                    \
              (K)[sk__p] = a;                                                \
              (K)[sk__q] = b;                                                \
              (V)[sk__p] = va;                                               \
              (V)[sk__q] = vb;                                               \
            }                                                                \
          }                                                                  \
        }                                                                    \
        team_barrier(tm);                                                    \
      }                                                                      \
    if (sk__sN < 2) team_barrier(tm);                                        \
  } while (0)
#define TEAM_SORT(tm, keys, n, before) SK__BITONIC(tm, keys, keys, n, before)
#define TEAM_SORT_KV(tm, keys, vals, n, before) SK__BITONIC(tm, keys, vals, n, before)

/* -- unordered map (seed 002; speck.UnorderedMap) ---------------------------
 * A lock-free open-addressing map (linear probing) over the views a map
 * capture 'm' expands to: m_keys (int64, capacity a power of two),
 * m_flags (int32: 0 empty, 1 being written, 2 full), m_vals (the values)
 * and m_meta (int64[2]: the size, the failed inserts). umap_insert(m, key)
 * claims an empty slot by CAS on its flag, writes the key and publishes
 * it: r >= 0 a new key at slot r, r <= -2 a key already there (at slot
 * umap_slot(r)), -1 the map is full (counted in the failed inserts: the
 * driver rehashes into a larger map and runs the inserts again).
 * Values start at 0; the inserting thread sets umap_value(m, r), or any
 * thread adds to it atomically. umap_find(m, key): the slot or -1 (in a
 * kernel after the inserts). */
SK_INLINE uint64_t sk_umap_hash(int64_t k) {
  uint64_t z = (uint64_t)k + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
SK_INLINE sk_i64 sk_umap_insert(int64_t *keys, int32_t *flags, int64_t *meta, sk_i64 cap,
                                int64_t key) {
  sk_i64 mask = cap - 1, s = (sk_i64)(sk_umap_hash(key) & (uint64_t)mask);
  for (sk_i64 p = 0; p < cap; p++, s = (s + 1) & mask) {
    int32_t f = SK__ACQ_LD(flags[s]);
    if (f == 0) {
      f = atomic_cas(&flags[s], (int32_t)0, (int32_t)1);
      if (f == 0) {
        SK__VST(keys[s], key);
        SK__FENCE();
        atomic_exchange(&flags[s], (int32_t)2);
        atomic_add(&meta[0], (int64_t)1);
        return s;
      }
    }
    while (f == 1) f = SK__ACQ_LD(flags[s]);
    SK__FENCE();
    if (SK__VLD(keys[s]) == key) return -2 - s;
  }
  atomic_add(&meta[1], (int64_t)1);
  return -1;
}
SK_INLINE sk_i64 sk_umap_find(const int64_t *keys, const int32_t *flags, sk_i64 cap,
                              int64_t key) {
  sk_i64 mask = cap - 1, s = (sk_i64)(sk_umap_hash(key) & (uint64_t)mask);
  for (sk_i64 p = 0; p < cap; p++, s = (s + 1) & mask) {
    if (flags[s] == 0) return -1;
    if (flags[s] == 2 && keys[s] == key) return s;
  }
  return -1;
}
#define umap_insert(M, key)                                                  \
  sk_umap_insert(&M##_keys(0), &M##_flags(0), &M##_meta(0),                  \
                 (sk_i64)M##_keys.extent[0], (int64_t)(key))
#define umap_find(M, key)                                                    \
  sk_umap_find(&M##_keys(0), &M##_flags(0), (sk_i64)M##_keys.extent[0], (int64_t)(key))
#define umap_exists(M, key) (umap_find(M, key) >= 0)
#define umap_capacity(M) ((sk_i64)M##_keys.extent[0])
#define umap_valid_at(M, s) (M##_flags(s) == 2)
#define umap_key(M, s) M##_keys(s)
#define umap_value(M, s) M##_vals(s)
#define umap_inserted(r) ((r) >= 0)
#define umap_existing(r) ((r) <= -2)
#define umap_failed(r) ((r) == -1)
#define umap_slot(r) ((r) >= 0 ? (r) : -2 - (r))

/* -- hashmap accumulator (seed 000 section 2.2.1) --------------------------
 * int32 keys (>= 0) in an open-addressing table (linear probing, Fibonacci
 * hashing) over memory the caller provides (hashmap_bytes(size,
 * capacity): scratch, a view's data): 'size' buckets (a power of two,
 * larger than 'capacity') and 'capacity' entries, stored densely: slot s <
 * hashmap_count(&h) holds h.keys[s]. Values live in the caller's arrays,
 * indexed by the slot an insert returns; -1 means the map is full (insert
 * into a second, larger level then: a key that did not fit never will).
 * hashmap_insert: one inserter; _vector: the lanes of one VECTOR_FOR
 * (serial on the host, atomic on a GPU: the back end's header defines
 * it); _atomic: any threads. hashmap_reset empties all
 * buckets, hashmap_clear only the used ones (one inserter);
 * hashmap_clear_slot / _bucket let a member's lanes share the clearing.
 * vector_barrier(team): the lanes of this member wait for each other (a
 * no-op on the host); vector_atomic_add: an add the lanes may race on
 * (both from the back end's header). */
typedef struct hashmap {
  int32_t *tkeys, *tslot, *keys, *bidx, *used;
  int32_t mask, capacity, shift;
} hashmap;
SK_INLINE sk_i64 hashmap_bytes(sk_i64 size, sk_i64 capacity) {
  return 16 + 8 * (size + capacity);
}
/* the map over 'mem' (nothing written: hashmap_reset before first use) */
SK_INLINE hashmap hashmap_make(void *mem, sk_i64 size, sk_i64 capacity) {
  hashmap h;
  h.used = (int32_t *)mem;                /* [0] entries, [1] marked buckets */
  h.tkeys = (int32_t *)((char *)mem + 16);
  h.tslot = h.tkeys + size;
  h.keys = h.tslot + size;
  h.bidx = h.keys + capacity;
  h.mask = (int32_t)(size - 1);
  h.capacity = (int32_t)capacity;
  h.shift = 32;
  for (sk_i64 z = size; z > 1; z >>= 1) h.shift--;
  return h;
}
/* the home bucket of 'key': Fibonacci hashing, so that keys a power of
 * two apart (the rows of a stencil) do not collide */
SK_INLINE int32_t hashmap_bucket(const hashmap *h, int32_t key) {
  return h->shift >= 32 ? 0 : (int32_t)(((uint32_t)key * 2654435769u) >> h->shift);
}
SK_INLINE int32_t hashmap_count(const hashmap *h) {
  int32_t u = SK__VLD(h->used[0]);
  return u < h->capacity ? u : h->capacity;
}
/* 1 when a full map turned keys away (then clear every bucket) */
SK_INLINE int32_t hashmap_marked(const hashmap *h) { return SK__VLD(h->used[1]); }
SK_INLINE void hashmap_clear_bucket(hashmap *h, int32_t b) {
  h->tkeys[b] = -1;
  h->tslot[b] = -1;
}
SK_INLINE void hashmap_clear_slot(hashmap *h, int32_t s) {
  hashmap_clear_bucket(h, h->bidx[s]);
}
SK_INLINE void hashmap_reset(hashmap *h) {
  for (int32_t b = 0; b <= h->mask; b++) hashmap_clear_bucket(h, b);
  h->used[0] = h->used[1] = 0;
}
SK_INLINE void hashmap_clear(hashmap *h) {
  if (h->used[1]) {
    hashmap_reset(h);
    return;
  }
  int32_t n = hashmap_count(h);
  for (int32_t s = 0; s < n; s++) hashmap_clear_slot(h, s);
  h->used[0] = 0;
}
SK_INLINE int32_t hashmap_find(const hashmap *h, int32_t key) {
  int32_t b = hashmap_bucket(h, key);
  for (int32_t p = 0; p <= h->mask; p++, b = (b + 1) & h->mask) {
    int32_t k = SK__VLD(h->tkeys[b]);
    if (k == key) return SK__VLD(h->tslot[b]) >= 0 ? SK__VLD(h->tslot[b]) : -1;
    if (k < 0) return -1;
  }
  return -1;
}
SK_INLINE int32_t hashmap_insert(hashmap *h, int32_t key) {
  int32_t b = hashmap_bucket(h, key);
  for (int32_t p = 0; p <= h->mask; p++, b = (b + 1) & h->mask) {
    int32_t k = h->tkeys[b];
    if (k == key) return h->tslot[b] >= 0 ? h->tslot[b] : -1;
    if (k < 0) {
      int32_t s = h->used[0];
      if (s >= h->capacity) return -1;
      h->used[0] = s + 1;
      h->tkeys[b] = key;
      h->tslot[b] = s;
      h->keys[s] = key;
      h->bidx[s] = b;
      return s;
    }
  }
  return -1;
}
#if defined(SK__RT_EXTERN)
int32_t sk_hashmap_insert_atomic(hashmap *h, int32_t key);
#else
/* lock-free: a bucket is claimed by CAS on its key, then gets its slot
 * (or -2: the map was full, the key belongs to the next level) */
SK__ATF int32_t sk_hashmap_insert_atomic(hashmap *h, int32_t key) {
  int32_t b = hashmap_bucket(h, key);
  for (int32_t p = 0; p <= h->mask; p++, b = (b + 1) & h->mask) {
    int32_t k = SK__ACQ_LD(h->tkeys[b]);
    if (k < 0) {
      k = atomic_cas(&h->tkeys[b], (int32_t)-1, key);
      if (k == -1) {
        int32_t s = atomic_fetch_add(&h->used[0], (int32_t)1);
        if (s >= h->capacity) {
          atomic_add(&h->used[1], (int32_t)1);
          SK__REL_ST(h->tslot[b], -2);
          return -1;
        }
        h->keys[s] = key;
        h->bidx[s] = b;
        SK__REL_ST(h->tslot[b], s);
        return s;
      }
    }
    if (k == key) {
      int32_t t;
      while ((t = SK__ACQ_LD(h->tslot[b])) == -1) {
      }
      return t >= 0 ? t : -1;
    }
  }
  return -1;
}
#endif
#define hashmap_insert_atomic(h, key) sk_hashmap_insert_atomic((h), (key))

#endif
