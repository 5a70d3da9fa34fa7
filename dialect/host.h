/* host.h: the kernel dialect for the host back ends (libtcc and cc tiers).
 *
 * Every type and builtin a kernel body may use is defined here, so the
 * generated source includes no system header. Under libtcc (__TINYC__)
 * math and atomics are external functions the runtime registers with
 * tcc_add_symbol; under gcc/clang (the cc tier) they are builtins and
 * inline functions. backends/host/atomics.c compiles this header with
 * SK_DIALECT_RUNTIME to provide the tcc tier's atomics.
 */
#ifndef SK_DIALECT_HOST_H
#define SK_DIALECT_HOST_H

#include "abi.h"

/* -- types ------------------------------------------------------------- */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef unsigned long size_t;
typedef _Bool bool;
#define true 1
#define false 0
#ifndef NULL
#define NULL ((void *)0)
#endif

#define SK_RESTRICT restrict
#ifdef __TINYC__
#define SPECK_FN static
#define SK_INLINE static
#define INFINITY (1.0f / 0.0f)
#define NAN (0.0f / 0.0f)
#else
#define SPECK_FN static inline __attribute__((unused))
#define SK_INLINE static inline __attribute__((always_inline, unused))
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#endif

/* -- math (double precision; float arguments promote) ------------------- */
#define SK_MATH1(X) X(sqrt) X(exp) X(log) X(fabs) X(floor) X(ceil) X(sin) \
  X(cos) X(tan) X(tanh) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(log2)    \
  X(log10) X(exp2) X(cbrt) X(round) X(trunc) X(erf)
#define SK_MATH2(X) X(pow) X(fmin) X(fmax) X(atan2) X(fmod) X(hypot)
#define SK__DECL1(f) double f(double);
#define SK__DECL2(f) double f(double, double);
SK_MATH1(SK__DECL1)
SK_MATH2(SK__DECL2)
#undef SK__DECL1
#undef SK__DECL2

/* -- atomics ------------------------------------------------------------ */
/* sk_atomic_<op>_<tag>(p, v) returns the old value. Types: */
#define SK_ATOMIC_TYPES(X) X(double, f64) X(float, f32) X(int64_t, i64)   \
  X(int32_t, i32) X(int16_t, i16) X(int8_t, i8) X(uint64_t, u64)          \
  X(uint32_t, u32) X(uint16_t, u16) X(uint8_t, u8) X(bool, b8)
#define SK_ATOMIC_INT_TYPES(X) X(int64_t, i64) X(int32_t, i32)            \
  X(int16_t, i16) X(int8_t, i8) X(uint64_t, u64) X(uint32_t, u32)          \
  X(uint16_t, u16) X(uint8_t, u8) X(bool, b8)

#if defined(__TINYC__)
#define SK__AT_PROTO(T, t)                                                  \
  T sk_atomic_add_##t(T *, T); T sk_atomic_sub_##t(T *, T);                \
  T sk_atomic_min_##t(T *, T); T sk_atomic_max_##t(T *, T);                \
  T sk_atomic_xchg_##t(T *, T); T sk_atomic_cas_##t(T *, T, T);
#define SK__AT_IPROTO(T, t)                                                 \
  T sk_atomic_and_##t(T *, T); T sk_atomic_or_##t(T *, T);                 \
  T sk_atomic_xor_##t(T *, T);
SK_ATOMIC_TYPES(SK__AT_PROTO)
SK_ATOMIC_INT_TYPES(SK__AT_IPROTO)
#else
#ifdef SK_DIALECT_RUNTIME
#define SK__ATF
#else
#define SK__ATF static inline __attribute__((unused))
#endif
#define SK__RELAXED __ATOMIC_RELAXED
/* compare-and-swap loop computing new = EXPR(old, v) */
#define SK__AT_LOOP(T, t, name, EXPR)                                       \
  SK__ATF T sk_atomic_##name##_##t(T *p, T v) {                             \
    T o, n;                                                                 \
    __atomic_load(p, &o, SK__RELAXED);                                      \
    do { n = (T)(EXPR); }                                                   \
    while (!__atomic_compare_exchange(p, &o, &n, 1, __ATOMIC_ACQ_REL,       \
                                      SK__RELAXED));                        \
    return o;                                                               \
  }
#define SK__AT_DEF(T, t)                                                    \
  SK__AT_LOOP(T, t, add, o + v)                                             \
  SK__AT_LOOP(T, t, sub, o - v)                                             \
  SK__AT_LOOP(T, t, min, v < o ? v : o)                                     \
  SK__AT_LOOP(T, t, max, v > o ? v : o)                                     \
  SK__ATF T sk_atomic_xchg_##t(T *p, T v) {                                 \
    T o;                                                                    \
    __atomic_exchange(p, &v, &o, __ATOMIC_ACQ_REL);                         \
    return o;                                                               \
  }                                                                         \
  SK__ATF T sk_atomic_cas_##t(T *p, T e, T d) {                             \
    __atomic_compare_exchange(p, &e, &d, 0, __ATOMIC_ACQ_REL, SK__RELAXED); \
    return e;                                                               \
  }
#define SK__AT_IDEF(T, t)                                                   \
  SK__AT_LOOP(T, t, and, o & v)                                             \
  SK__AT_LOOP(T, t, or, o | v)                                              \
  SK__AT_LOOP(T, t, xor, o ^ v)
SK_ATOMIC_TYPES(SK__AT_DEF)
SK_ATOMIC_INT_TYPES(SK__AT_IDEF)
#endif

#define SK__AT_SEL(op, p)                                                   \
  _Generic(*(p), double: sk_atomic_##op##_f64, float: sk_atomic_##op##_f32, \
           int64_t: sk_atomic_##op##_i64, int32_t: sk_atomic_##op##_i32,    \
           int16_t: sk_atomic_##op##_i16, int8_t: sk_atomic_##op##_i8,      \
           uint64_t: sk_atomic_##op##_u64, uint32_t: sk_atomic_##op##_u32,  \
           uint16_t: sk_atomic_##op##_u16, uint8_t: sk_atomic_##op##_u8,    \
           bool: sk_atomic_##op##_b8)
#define SK__AT_ISEL(op, p)                                                  \
  _Generic(*(p), int64_t: sk_atomic_##op##_i64,                             \
           int32_t: sk_atomic_##op##_i32, int16_t: sk_atomic_##op##_i16,    \
           int8_t: sk_atomic_##op##_i8, uint64_t: sk_atomic_##op##_u64,     \
           uint32_t: sk_atomic_##op##_u32, uint16_t: sk_atomic_##op##_u16,  \
           uint8_t: sk_atomic_##op##_u8, bool: sk_atomic_##op##_b8)

#define atomic_fetch_add(p, v) (SK__AT_SEL(add, p)((p), (v)))
#define atomic_fetch_sub(p, v) (SK__AT_SEL(sub, p)((p), (v)))
#define atomic_fetch_min(p, v) (SK__AT_SEL(min, p)((p), (v)))
#define atomic_fetch_max(p, v) (SK__AT_SEL(max, p)((p), (v)))
#define atomic_fetch_and(p, v) (SK__AT_ISEL(and, p)((p), (v)))
#define atomic_fetch_or(p, v) (SK__AT_ISEL(or, p)((p), (v)))
#define atomic_fetch_xor(p, v) (SK__AT_ISEL(xor, p)((p), (v)))
#define atomic_exchange(p, v) (SK__AT_SEL(xchg, p)((p), (v)))
#define atomic_cas(p, e, d) (SK__AT_SEL(cas, p)((p), (e), (d)))
/* a counter many threads bump (a queue's tail): one thread at a time here */
#define atomic_fetch_add_combined(p, v) atomic_fetch_add(p, v)
#define atomic_add(p, v) ((void)atomic_fetch_add(p, v))
#define atomic_sub(p, v) ((void)atomic_fetch_sub(p, v))
#define atomic_min(p, v) ((void)atomic_fetch_min(p, v))
#define atomic_max(p, v) ((void)atomic_fetch_max(p, v))
#define atomic_and(p, v) ((void)atomic_fetch_and(p, v))
#define atomic_or(p, v) ((void)atomic_fetch_or(p, v))
#define atomic_xor(p, v) ((void)atomic_fetch_xor(p, v))

/* -- bounds-check mode ---------------------------------------------------
 * Each index goes through sk__bc: in range it is returned, out of range
 * the first such access is recorded for the launch to report and 0 is
 * used instead, so the kernel never touches memory outside the view. */
#if defined(__TINYC__)
void sk_oob_report(const sk_ctx *ctx, int c, int d, sk_i64 i, sk_i64 n);
#else
SK__ATF void sk_oob_report(const sk_ctx *ctx, int c, int d, sk_i64 i, sk_i64 n) {
  sk_oob *o = ctx->oob;
  if (!o || __atomic_exchange_n(&o->hit, 1, __ATOMIC_ACQ_REL)) return;
  o->capture = c;
  o->dim = d;
  o->index = i;
  o->extent = n;
}
#endif
SK_INLINE sk_i64 sk__bc(sk_i64 i, sk_i64 n, int c, int d, const sk_ctx *ctx) {
  if ((sk_u64)i < (sk_u64)n) return i;
  sk_oob_report(ctx, c, d, i, n);
  return 0;
}

/* -- teams (TeamPolicy kernels) ------------------------------------------
 * A team is a group of pool threads; vector lanes are a plain loop in one
 * thread (written so the cc tier can vectorise it). The body sees the
 * handle 'team'; the nested constructs below refer to it by that name. */
typedef struct sk__team_t {
  sk_i64 league_rank, league_size;
  int team_rank, team_size, vector_length;
  sk_team_ctx *ctx_;
} sk__team_t;

#if defined(__TINYC__)
void sk_team_barrier(sk_team_ctx *t);
void *sk_team_alloc(sk_team_ctx *c, int thread, sk_i64 level, sk_i64 bytes);
#else
int sched_yield(void);
/* Seed 003, Figure 3.7: each member writes one byte of a shared 64-bit
 * word (alternating between two words, the byte value flipping every
 * other call) and spins until the whole word holds the expected pattern. */
SK__ATF void sk_team_barrier(sk_team_ctx *t) {
  int n = t->team_size;
  if (n <= 1) return;
  unsigned step = t->bar_step++;
  unsigned char val = ((step >> 1) & 1) ? 2 : 1;
  sk_u64 *sync = t->bar->sync[step & 1];
  __atomic_store_n((unsigned char *)sync + t->team_rank, val, __ATOMIC_RELEASE);
  for (int w = 0; w < (n + 7) / 8; w++) {
    int m = n - 8 * w > 8 ? 8 : n - 8 * w;
    sk_u64 pat = m == 8 ? 0x0101010101010101UL : ((1UL << (8 * m)) - 1) / 255;
    pat *= val;
    /* spin, then yield: with more threads than cores the member we wait
     * for may need this core */
    for (unsigned spin = 0; __atomic_load_n(&sync[w], __ATOMIC_ACQUIRE) != pat; spin++) {
      if (spin < 2048) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        sched_yield();
      }
    }
  }
}
void *malloc(size_t);
void free(void *);
/* Bump allocation of 'bytes' from the team's (thread == 0) or this
 * member's scratch of 'level', 64-byte aligned. A request that cannot be
 * served (a level other than 0 and 1, a negative size, or more than is
 * left; the arithmetic is done so that no size wraps) is recorded, the
 * first one per thread, for the launch to report, and is served from a
 * private heap block so the kernel finishes instead of writing through
 * NULL or out of the arena. */
SK__ATF void *sk_team_alloc(sk_team_ctx *c, int thread, sk_i64 level,
                            sk_i64 bytes) {
  int why = SK_SCRATCH_OK;
  if (level != 0 && level != 1) {
    why = SK_SCRATCH_LEVEL;
  } else if (bytes < 0) {
    why = SK_SCRATCH_NEGATIVE;
  } else {
    sk_i64 *off = thread ? &c->thread_off[level] : &c->team_off[level];
    sk_i64 cap = thread ? c->thread_scratch_bytes[level] : c->team_scratch_bytes[level];
    char *base = thread ? c->thread_scratch[level] : c->team_scratch[level];
    sk_u64 o = ((sk_u64)*off + 63) & ~(sk_u64)63;   /* *off <= cap: no wrap */
    if (o <= (sk_u64)cap && (sk_u64)bytes <= (sk_u64)cap - o) {
      *off = (sk_i64)(o + (sk_u64)bytes);
      return base + o;
    }
    why = SK_SCRATCH_FULL;
  }
  if (!c->scratch_why) {
    c->scratch_why = why;
    c->scratch_thread = thread;
    c->scratch_level = level;
    c->scratch_bytes = bytes;
  }
  if (why != SK_SCRATCH_FULL) bytes = 0;
  if (bytes > (sk_i64)1 << 40) bytes = (sk_i64)1 << 40;   /* a stand-in, not a promise */
  if (bytes + 64 > c->overflow_bytes) {
    free(c->overflow);
    c->overflow = malloc((size_t)bytes + 64);
    c->overflow_bytes = c->overflow ? bytes + 64 : 0;
  }
  return c->overflow;
}
#endif

#define team_barrier(tm) sk_team_barrier((tm).ctx_)
#define team_scratch(tm, level, bytes)                                       \
  sk_team_alloc((tm).ctx_, 0, (sk_i64)(level), (sk_i64)(bytes))
#define thread_scratch(tm, level, bytes)                                     \
  sk_team_alloc((tm).ctx_, 1, (sk_i64)(level), (sk_i64)(bytes))
#define SINGLE_TEAM(tm) if ((tm).team_rank == 0)
#define SINGLE_THREAD(tm) if (((void)(tm), 1))
#define TEAM_BROADCAST(tm, var)                                              \
  do {                                                                       \
    __typeof__(var) *sk__bb = (__typeof__(var) *)(tm).ctx_->shared;          \
    if ((tm).team_rank == 0) *sk__bb = (var);                                \
    sk_team_barrier((tm).ctx_);                                              \
    (var) = *sk__bb;                                                         \
    sk_team_barrier((tm).ctx_);                                              \
  } while (0)

/* the largest / smallest value of var's type */
#define SK__TMAX(v)                                                          \
  _Generic((v), double: (double)INFINITY, float: (float)INFINITY,            \
           int64_t: 9223372036854775807L, int32_t: 2147483647,               \
           int16_t: (int16_t)32767, int8_t: (int8_t)127,                     \
           long long: 9223372036854775807LL,                                 \
           unsigned long long: 18446744073709551615ULL,                      \
           uint64_t: 18446744073709551615UL, uint32_t: 4294967295U,          \
           uint16_t: (uint16_t)65535, uint8_t: (uint8_t)255, bool: 1)
#define SK__TMIN(v)                                                          \
  _Generic((v), double: -(double)INFINITY, float: -(float)INFINITY,          \
           int64_t: (-9223372036854775807L - 1), int32_t: (-2147483647 - 1), \
           int16_t: (int16_t)-32768, int8_t: (int8_t)-128, uint64_t: 0UL,    \
           long long: (-9223372036854775807LL - 1), unsigned long long: 0ULL, \
           uint32_t: 0U, uint16_t: (uint16_t)0, uint8_t: (uint8_t)0, bool: 0)
#define SK__RID_sum(v) 0
#define SK__RID_prod(v) 1
#define SK__RID_min(v) SK__TMAX(v)
#define SK__RID_max(v) SK__TMIN(v)
#define SK__RID_land(v) 1
#define SK__RID_lor(v) 0
#define SK__RID_band(v) ((__typeof__(v))~(__typeof__(v))0)
#define SK__RID_bor(v) 0
#define SK__RJ_sum(d, s) ((d) += (s))
#define SK__RJ_prod(d, s) ((d) *= (s))
#define SK__RJ_min(d, s) ((s) < (d) ? (void)((d) = (s)) : (void)0)
#define SK__RJ_max(d, s) ((s) > (d) ? (void)((d) = (s)) : (void)0)
#define SK__RJ_land(d, s) ((d) = (d) && (s))
#define SK__RJ_lor(d, s) ((d) = (d) || (s))
#define SK__RJ_band(d, s) ((d) &= (s))
#define SK__RJ_bor(d, s) ((d) |= (s))

/* this member's contiguous slice of [b, e) */
#define SK__SLO(b, e) ((b) + ((e) - (b)) * team.team_rank / team.team_size)
#define SK__SHI(b, e) ((b) + ((e) - (b)) * (team.team_rank + 1) / team.team_size)

/* combine var over the team in rank order; every member gets the total */
#define SK__TJOIN(op, var)                                                   \
  ({                                                                         \
    sk_team_ctx *sk__c = team.ctx_;                                          \
    if (sk__c->team_size > 1) {                                              \
      __typeof__(var) *sk__rb = (__typeof__(var) *)sk__c->shared;            \
      sk__rb[sk__c->team_rank] = (var);                                      \
      sk_team_barrier(sk__c);                                                \
      (var) = sk__rb[0];                                                     \
      for (int sk__r = 1; sk__r < sk__c->team_size; sk__r++)                 \
        SK__RJ_##op((var), sk__rb[sk__r]);                                   \
      sk_team_barrier(sk__c);                                                \
    }                                                                        \
    0;                                                                       \
  })

/* after pass 0 var becomes this member's exclusive prefix; after pass 1
 * (var = prefix + own slice) every member gets the team total */
#define SK__TSCAN(var, p)                                                    \
  ({                                                                         \
    sk_team_ctx *sk__c = team.ctx_;                                          \
    if (sk__c->team_size > 1) {                                              \
      __typeof__(var) *sk__sb = (__typeof__(var) *)sk__c->shared;            \
      sk__sb[sk__c->team_rank] = (var);                                      \
      sk_team_barrier(sk__c);                                                \
      if ((p) == 0) {                                                        \
        __typeof__(var) sk__pre = 0;                                         \
        for (int sk__r = 0; sk__r < sk__c->team_rank; sk__r++)               \
          sk__pre += sk__sb[sk__r];                                          \
        (var) = sk__pre;                                                     \
      } else {                                                               \
        (var) = sk__sb[sk__c->team_size - 1];                                \
      }                                                                      \
      sk_team_barrier(sk__c);                                                \
    } else if ((p) == 0) {                                                   \
      (var) = 0;                                                             \
    }                                                                        \
    (p) + 1;                                                                 \
  })

#define TEAM_FOR(j, b, e)                                                    \
  for (sk_i64 sk__lo = SK__SLO((sk_i64)(b), (sk_i64)(e)),                    \
              sk__hi = SK__SHI((sk_i64)(b), (sk_i64)(e)), j = sk__lo;        \
       j < sk__hi; ++j)
#define TEAM_VECTOR_FOR(j, b, e) TEAM_FOR(j, b, e)
#define VECTOR_FOR(k, b, e)                                                  \
  for (sk_i64 sk__ve = (sk_i64)(e), k = (sk_i64)(b); k < sk__ve; ++k)
#define TEAM_REDUCE(op, j, b, e, var)                                        \
  for (int sk__tr = ((var) = SK__RID_##op(var), 1); sk__tr;                  \
       sk__tr = 0, SK__TJOIN(op, var))                                       \
    TEAM_FOR(j, b, e)
#define TEAM_VECTOR_REDUCE(op, j, b, e, var) TEAM_REDUCE(op, j, b, e, var)
#define VECTOR_REDUCE(op, k, b, e, var)                                      \
  for (int sk__vr = ((var) = SK__RID_##op(var), 1); sk__vr; sk__vr = 0)      \
    VECTOR_FOR(k, b, e)
#define TEAM_SCAN(j, b, e, var)                                              \
  for (int sk__sp = ((var) = 0, 0); sk__sp < 2;                              \
       sk__sp = SK__TSCAN(var, sk__sp))                                      \
    for (bool final = sk__sp == 1, sk__o1 = 1; sk__o1; sk__o1 = 0)           \
      TEAM_FOR(j, b, e)
#define VECTOR_SCAN(k, b, e, var)                                            \
  for (bool final = 1, sk__o2 = ((var) = 0, 1); sk__o2; sk__o2 = 0)          \
    VECTOR_FOR(k, b, e)

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
    int32_t f = atomic_fetch_add(&flags[s], (int32_t)0);
    if (f == 0) {
      f = atomic_cas(&flags[s], (int32_t)0, (int32_t)1);
      if (f == 0) {
        keys[s] = key;
        atomic_exchange(&flags[s], (int32_t)2);
        atomic_add(&meta[0], (int64_t)1);
        return s;
      }
    }
    while (f == 1) f = atomic_fetch_add(&flags[s], (int32_t)0);
    if (keys[s] == key) return -2 - s;
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
 * (serial on the host); _atomic: any threads. hashmap_reset empties all
 * buckets, hashmap_clear only the used ones (one inserter);
 * hashmap_clear_slot / _bucket let a member's lanes share the clearing.
 * vector_barrier(team): the lanes of this member wait for each other (a
 * no-op on the host); vector_atomic_add: an add the lanes may race on. */
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
  int32_t u = h->used[0];
  return u < h->capacity ? u : h->capacity;
}
/* 1 when a full map turned keys away (then clear every bucket) */
SK_INLINE int32_t hashmap_marked(const hashmap *h) { return h->used[1]; }
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
    int32_t k = h->tkeys[b];
    if (k == key) return h->tslot[b] >= 0 ? h->tslot[b] : -1;
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
#if defined(__TINYC__)
int32_t sk_hashmap_insert_atomic(hashmap *h, int32_t key);
#else
/* lock-free: a bucket is claimed by CAS on its key, then gets its slot
 * (or -2: the map was full, the key belongs to the next level) */
SK__ATF int32_t sk_hashmap_insert_atomic(hashmap *h, int32_t key) {
  int32_t b = hashmap_bucket(h, key);
  for (int32_t p = 0; p <= h->mask; p++, b = (b + 1) & h->mask) {
    int32_t k = __atomic_load_n(&h->tkeys[b], __ATOMIC_ACQUIRE);
    if (k < 0) {
      int32_t expect = -1;
      if (__atomic_compare_exchange_n(&h->tkeys[b], &expect, key, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
        int32_t s = __atomic_fetch_add(&h->used[0], 1, __ATOMIC_RELAXED);
        if (s >= h->capacity) {
          __atomic_fetch_add(&h->used[1], 1, __ATOMIC_RELAXED);
          __atomic_store_n(&h->tslot[b], -2, __ATOMIC_RELEASE);
          return -1;
        }
        h->keys[s] = key;
        h->bidx[s] = b;
        __atomic_store_n(&h->tslot[b], s, __ATOMIC_RELEASE);
        return s;
      }
      k = expect;
    }
    if (k == key) {
      int32_t t;
      while ((t = __atomic_load_n(&h->tslot[b], __ATOMIC_ACQUIRE)) == -1) {
      }
      return t >= 0 ? t : -1;
    }
  }
  return -1;
}
#endif
#define hashmap_insert_atomic(h, key) sk_hashmap_insert_atomic((h), (key))
#define hashmap_insert_vector(h, key) hashmap_insert((h), (key))
#define vector_barrier(tm) ((void)(tm))
#define vector_atomic_add(p, v) ((void)(*(p) += (v)))

#endif
