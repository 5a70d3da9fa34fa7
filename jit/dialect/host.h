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
#define atomic_add(p, v) ((void)atomic_fetch_add(p, v))
#define atomic_sub(p, v) ((void)atomic_fetch_sub(p, v))
#define atomic_min(p, v) ((void)atomic_fetch_min(p, v))
#define atomic_max(p, v) ((void)atomic_fetch_max(p, v))
#define atomic_and(p, v) ((void)atomic_fetch_and(p, v))
#define atomic_or(p, v) ((void)atomic_fetch_or(p, v))
#define atomic_xor(p, v) ((void)atomic_fetch_xor(p, v))

/* -- teams (TeamPolicy kernels) ------------------------------------------
 * The host maps a team to a group of pool threads; the constructs are
 * defined by the team section of the generated source (codegen.c) on top
 * of these runtime entry points. */
void sk_team_barrier(const sk_team_ctx *t);

#endif
