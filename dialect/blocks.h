/* blocks.h: building blocks of the dialect written once, in its own
 * vocabulary, for every back end: the team bitonic sort, the unordered
 * map (speck.UnorderedMap), the hashmap accumulator and the random pools
 * (speck.random.Pool). Each back end's
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
 *   sk_thread_index()          the running thread's index (the host: in
 *                              [0, threads), from the chunk's context; a
 *                              GPU: its global index) -- a ScatterView's
 *                              copy on the host
 *   SK__RAND_HINT(lk, n)       where a thread starts looking for a free
 *                              random state among n (the host: a ticket
 *                              from the counter lk[n]; a GPU: its global
 *                              thread index)
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

/* -- random pools (speck.random.Pool; Kokkos' Random_XorShift64_Pool and
 * Random_XorShift1024_Pool) ------------------------------------------------
 * A pool captured as P is the views P_st (uint64: n states of w words,
 * w = 1 for xorshift64*, 17 for xorshift1024*: 16 words and the index p)
 * and P_lk (int32: a lock per state, then the host's ticket counter).
 * rand_get_state(P) takes a free state (spinning on its lock, looking on
 * from SK__RAND_HINT), rand_free_state(P, st) stores it back and frees
 * it. The generators are Vigna's xorshift64* and xorshift1024*, as
 * Kokkos' pools; doubles take the top 53 bits; normal() is Marsaglia's
 * polar method. The Lua front end turns Kokkos' spelling
 * (auto st = rp.get_state(); st.drand(lo, hi); rp.free_state(st)) into
 * these words (stdlib/speck/random.lua). */
typedef struct rand_state {
  uint64_t s[16];
  int p, w;
  sk_i64 idx;
} rand_state;

SK_INLINE void sk_rand_load(rand_state *r, const uint64_t *st, sk_i64 i, sk_i64 w) {
  r->idx = i;
  r->w = (int)w;
  r->p = 0;
  if (w == 1) {
    r->s[0] = st[i];
    return;
  }
  for (int k = 0; k < 16; k++) r->s[k] = st[i * 17 + k];
  r->p = (int)(st[i * 17 + 16] & 15);
}

SK_INLINE rand_state sk_rand_get(uint64_t *st, int32_t *lk, sk_i64 n, sk_i64 w,
                                 sk_i64 hint) {
  rand_state r;
  sk_i64 i = (sk_i64)((uint64_t)hint % (uint64_t)n);
  while (atomic_cas(&lk[i], (int32_t)0, (int32_t)1) != 0) i = i + 1 == n ? 0 : i + 1;
  SK__FENCE();
  sk_rand_load(&r, st, i, w);
  return r;
}

SK_INLINE void sk_rand_store(const rand_state *r, uint64_t *st) {
  if (r->w == 1) {
    st[r->idx] = r->s[0];
    return;
  }
  for (int k = 0; k < 16; k++) st[r->idx * 17 + k] = r->s[k];
  st[r->idx * 17 + 16] = (uint64_t)r->p;
}

SK_INLINE void sk_rand_free(uint64_t *st, int32_t *lk, const rand_state *r) {
  sk_rand_store(r, st);
  SK__REL_ST(lk[r->idx], (int32_t)0);
}

SK_INLINE uint64_t rand_urand64(rand_state *r) {
  if (r->w == 1) {
    uint64_t x = r->s[0];
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s[0] = x;
    return x * (uint64_t)2685821657736338717ull;
  }
  uint64_t s0 = r->s[r->p];
  r->p = (r->p + 1) & 15;
  uint64_t s1 = r->s[r->p];
  s1 ^= s1 << 31;
  r->s[r->p] = s1 ^ s0 ^ (s1 >> 11) ^ (s0 >> 30);
  return r->s[r->p] * (uint64_t)1181783497276652981ull;
}

/* [0, 1): the top 53 bits */
SK_INLINE double rand_drand0(rand_state *r) {
  return (double)(sk_i64)(rand_urand64(r) >> 11) * (1.0 / 9007199254740992.0);
}
SK_INLINE double rand_drand1(rand_state *r, double hi) { return hi * rand_drand0(r); }
SK_INLINE double rand_drand2(rand_state *r, double lo, double hi) {
  return lo + (hi - lo) * rand_drand0(r);
}
SK_INLINE float rand_frand2(rand_state *r, float lo, float hi) {
  return lo + (hi - lo) * (float)(sk_i64)(rand_urand64(r) >> 40) * (1.0f / 16777216.0f);
}
/* Kokkos' rand(): an int in [0, 2^31 - 1); rand(hi), rand(lo, hi) in [lo, hi) */
SK_INLINE int32_t rand_rand0(rand_state *r) {
  return (int32_t)((rand_urand64(r) >> 33) % 2147483647u);
}
SK_INLINE sk_i64 rand_rand2(rand_state *r, sk_i64 lo, sk_i64 hi) {
  uint64_t span = (uint64_t)(hi - lo);
  return span ? lo + (sk_i64)(rand_urand64(r) % span) : lo;
}
SK_INLINE sk_i64 rand_rand1(rand_state *r, sk_i64 hi) { return rand_rand2(r, 0, hi); }
SK_INLINE double rand_normal2(rand_state *r, double mean, double sd) {
  double u, v, q;
  do {
    u = 2.0 * rand_drand0(r) - 1.0;
    v = 2.0 * rand_drand0(r) - 1.0;
    q = u * u + v * v;
  } while (q >= 1.0 || q == 0.0);
  return mean + sd * u * sqrt(-2.0 * log(q) / q);
}
SK_INLINE double rand_normal0(rand_state *r) { return rand_normal2(r, 0.0, 1.0); }

#define rand_get_state(P)                                                    \
  sk_rand_get(&P##_st(0), &P##_lk(0), (sk_i64)P##_lk.extent[0] - 1,          \
              (sk_i64)P##_st.extent[0] / ((sk_i64)P##_lk.extent[0] - 1),    \
              SK__RAND_HINT(&P##_lk(0), (sk_i64)P##_lk.extent[0] - 1))
#define rand_free_state(P, r) sk_rand_free(&P##_st(0), &P##_lk(0), &(r))
#define rand_num_states(P) ((sk_i64)P##_lk.extent[0] - 1)

#endif
