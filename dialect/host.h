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

/* -- complex (complex64, complex128) -------------------------------------
 * The cc tier's compiler has C99 _Complex: + - * / and the words below are
 * native (the GPU dialect spells the same words over a class). libtcc has
 * no _Complex: a kernel that uses complex values or these words is built
 * by the cc tier only (jit.c); under libtcc the types are plain pairs, for
 * the host half of a device kernel's complex reduction. Layout {re, im}. */
#if defined(__TINYC__)
typedef struct sk_c128 { double re, im; } sk_c128;
typedef struct sk_c64 { float re, im; } sk_c64;
#else
typedef double _Complex sk_c128;
typedef float _Complex sk_c64;
#define cmplx(re, im) __builtin_complex((double)(re), (double)(im))
#define real(z) (__real__(z))
#define imag(z) (__imag__(z))
#define conj(z) (_Generic((z), sk_c64: __builtin_conjf, float: __builtin_conjf, \
                          default: __builtin_conj)(z))
#define cabs(z) (_Generic((z), sk_c64: __builtin_cabsf, float: __builtin_cabsf, \
                          default: __builtin_cabs)(z))
#define cexp(z) (_Generic((z), sk_c64: __builtin_cexpf, float: __builtin_cexpf, \
                          default: __builtin_cexp)(z))
#define csqrt(z) (_Generic((z), sk_c64: __builtin_csqrtf, float: __builtin_csqrtf, \
                           default: __builtin_csqrt)(z))
#endif
/* the element types' names in bodies */
typedef sk_c128 complex128_t;
typedef sk_c64 complex64_t;

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
/* complex add / sub: each part added atomically -- two atomic operations,
 * not one (another thread may see one part added); the old value is the
 * pair of the parts' old values */
#define SK__AT_CPLX(T, P, t, pt)                                            \
  SK__ATF T sk_atomic_add_##t(T *p, T v) {                                  \
    P *q = (P *)p;                                                          \
    P r = sk_atomic_add_##pt(q, __real__ v), i = sk_atomic_add_##pt(q + 1, __imag__ v); \
    return __builtin_complex(r, i);                                         \
  }                                                                         \
  SK__ATF T sk_atomic_sub_##t(T *p, T v) { return sk_atomic_add_##t(p, -v); }
SK__AT_CPLX(sk_c128, double, c128, f64)
SK__AT_CPLX(sk_c64, float, c64, f32)
#define SK__AT_CSEL(op, p)                                                  \
  _Generic(*(p), sk_c128: sk_atomic_##op##_c128, sk_c64: sk_atomic_##op##_c64, \
           double: sk_atomic_##op##_f64, float: sk_atomic_##op##_f32,       \
           int64_t: sk_atomic_##op##_i64, int32_t: sk_atomic_##op##_i32,    \
           int16_t: sk_atomic_##op##_i16, int8_t: sk_atomic_##op##_i8,      \
           uint64_t: sk_atomic_##op##_u64, uint32_t: sk_atomic_##op##_u32,  \
           uint16_t: sk_atomic_##op##_u16, uint8_t: sk_atomic_##op##_u8,    \
           bool: sk_atomic_##op##_b8)
#endif
#if defined(__TINYC__)
#define SK__AT_CSEL(op, p) SK__AT_SEL(op, p)
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

#define atomic_fetch_add(p, v) (SK__AT_CSEL(add, p)((p), (v)))
#define atomic_fetch_sub(p, v) (SK__AT_CSEL(sub, p)((p), (v)))
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
/* The poll on the back edges of a user body's loops (jit/check.c
 * rewrites their conditions to "SK__GO() && (c)"): one load of the
 * launch's stop word; when it is set, sk_ctx.poll leaves the body (a jump
 * to the launch's guard) or returns, and SK__GO is 1. 'sk__stop' is the
 * chunk function's copy of sk__ctx->stop (gcc keeps it in a register). */
#if defined(__TINYC__) && defined(SK_KICKED)
/* libtcc's code of a user's body, left from the outside by a signal
 * (backends/host/guard.c "kicks"): no poll at all */
#define SK__GO() 1
#elif defined(__TINYC__)
/* libtcc's code: the word itself by name (one load fewer, tcc keeps no
 * local in a register) */
extern volatile int sk_body_stop_word;
static int sk__go_slow(const sk_ctx *c) {
  if (c->poll) c->poll();
  return 1;
}
#define SK__GO() (!sk_body_stop_word || sk__go_slow(sk__ctx))
#else
#define SK__GO()                                                             \
  (__builtin_expect(*sk__stop != 0, 0) ? (sk__ctx->poll(), 1) : 1)
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
        /* a member that faulted or was interrupted never comes: leave
         * through the launch's poll (dialect/abi.h) */
        if (t->stop && __atomic_load_n(t->stop, __ATOMIC_RELAXED) && t->poll) t->poll();
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

/* -- the building blocks (blocks.h) -----------------------------------------
 * Their words for memory other threads of the kernel use at once: the
 * vector lanes of a member are one thread's loop and members meet at
 * team barriers, so loads and stores stay plain; the atomics are
 * acquire-release, so no fence. libtcc has no atomic builtins: an add of
 * 0 is its acquire load, and the run-time functions are the runtime's
 * (backends/host/symbols.c). */
#define SK__VLD(x) (x)
#define SK__VST(x, v) ((x) = (v))
#define SK__FENCE() ((void)0)
#if defined(__TINYC__)
#define SK__ACQ_LD(x) atomic_fetch_add(&(x), 0)
#define SK__REL_ST(x, v) ((void)atomic_exchange(&(x), (v)))
#define SK__RT_EXTERN 1
#else
#define SK__ACQ_LD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define SK__REL_ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#endif
#define hashmap_insert_vector(h, key) hashmap_insert((h), (key))
#define SK__RAND_HINT(lk, n) atomic_fetch_add(&(lk)[n], (int32_t)1)
#define sk_thread_index() (sk__ctx->thread)
#define vector_barrier(tm) ((void)(tm))
#define vector_atomic_add(p, v) ((void)(*(p) += (v)))
/* a hint: the line at p will be read soon (gcc, clang; nothing under tcc) */
#if defined(__TINYC__)
#define prefetch_read(p) ((void)(p))
#else
#define prefetch_read(p) __builtin_prefetch((const void *)(p), 0, 3)
#endif

#include "blocks.h"
#endif
