/* cuda.h: the kernel dialect for the CUDA back end (NVRTC, C++17).
 *
 * The same vocabulary as host.h, spelled for device code: NVRTC compiles
 * C++, so type dispatch uses overloads and templates where host.h has
 * _Generic and statement expressions. Nothing here includes a header;
 * NVRTC predefines size_t, the math functions and the intrinsics.
 *
 * The first part (sk_cuctx) is plain C: the CUDA back end includes it to
 * fill the launch context that every generated kernel receives by value.
 *
 * Team mapping (seed 003, fig. 3.8): a team is one block, or a slice of
 * a warp when team_size x vector_length divides 32; vector lane =
 * threadIdx.x, team rank = threadIdx.y, team within the block =
 * threadIdx.z. Level-0 scratch is dynamic shared memory, level-1 scratch
 * a slice of a device pool per team.
 */
#ifndef SK_DIALECT_CUDA_H
#define SK_DIALECT_CUDA_H

#include "../../dialect/abi.h"

/* -- launch context (C and C++) ----------------------------------------- */
typedef struct sk_cuctx {
  sk_i64 b, e;                   /* range [b, e); team: league [0, e) */
  sk_i64 md_lo[SK_MAXMD], md_hi[SK_MAXMD];
  sk_i64 scratch_team[2];        /* bytes per team, levels 0 and 1 */
  sk_i64 scratch_thread[2];      /* bytes per team member */
  sk_i64 l1_team_bytes;          /* level-1 pool bytes per team */
  sk_i64 smem_team_bytes;        /* dynamic shared bytes per team */
  char *l1_pool;                 /* level-1 scratch: one slice per team */
  void *partial;                 /* reduce / scan: one value per block */
  void *result;                  /* reduce / scan: the joined value */
  unsigned *counter;             /* reduce: blocks finished */
  sk_i64 *flag;                  /* scratch requests that did not fit */
  sk_i64 chunk;                  /* scan: work items per block */
  sk_i64 md_oy, md_oz;           /* MDRange for: this launch's y/z offset */
  sk_oob *oob;                   /* bounds-check mode: first bad index */
  int pass;                      /* scan: 0 up-sweep, 1 final */
  int team_size, vector_length, teams_per_block;
  const volatile int *stop;      /* the interrupt word (host-mapped) or NULL */
} sk_cuctx;

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
/* device code (C++, vector lanes are threads): what the shared headers
 * after this one test (linalg.h) */
#define SK__DEVICE 1

/* -- types --------------------------------------------------------------- */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
#ifndef NULL
#define NULL 0
#endif
#define restrict __restrict__
#define SK_RESTRICT __restrict__
#define SPECK_FN static __device__ inline
#define SK_DEV static __device__ __forceinline__
/* before a loop the compiler should keep rolled: grid-stride loops (their
 * trip count needs a 64-bit division, and unrolled copies of the body
 * roughly double a new kernel's NVRTC time for no gain in a memory-bound
 * loop at full occupancy) and the shuffle steps of the block reductions */
#define SK__ROLLED _Pragma("unroll 1")
/* The back-edge poll of a user body's loops (jit/check.c sk_body_polls:
 * "SK__GO() && (c)"): every 65536th iteration of a thread reads the stop
 * word, host memory mapped into the device (sk_cuctx.stop; the host's
 * interrupt sets it). Each read crosses the bus: every 4096th iteration
 * put two million reads on it in a 2^20-thread kernel of 8192 steps,
 * which queued behind a copy engine's transfer on another stream and
 * serialised kernel and copy (instance_spec's overlap). Once the word is
 * set every loop of the body ends --
 * the thread finishes its body and the kernel its work (block reductions
 * and barriers outside the loops still meet); the launch then reports
 * the interrupt. 'sk__polls' is the kernel's per-thread counter. */
#define SK__GO()                                                             \
  (!sk__C.stop || (++sk__polls & 65535u) != 0 || !(*sk__C.stop & 1))
/* GNU C's __typeof__ (bodies use it): the type without the reference
 * decltype adds to an lvalue */
template <class T> struct sk__rr { typedef T t; };
template <class T> struct sk__rr<T &> { typedef T t; };
#define __typeof__(x) typename sk__rr<decltype(x)>::t
#define typeof(x) typename sk__rr<decltype(x)>::t
#define INFINITY (__int_as_float(0x7f800000))
#define NAN (__int_as_float(0x7fffffff))

/* -- math: double precision, float arguments promote (as on the host) --- */
#define SK__CM1(f) SK_DEV double sk_m_##f(double x) { return ::f(x); }
#define SK__CM2(f) SK_DEV double sk_m_##f(double x, double y) { return ::f(x, y); }
SK__CM1(sqrt) SK__CM1(exp) SK__CM1(log) SK__CM1(fabs) SK__CM1(floor)
SK__CM1(ceil) SK__CM1(sin) SK__CM1(cos) SK__CM1(tan) SK__CM1(tanh)
SK__CM1(asin) SK__CM1(acos) SK__CM1(atan) SK__CM1(sinh) SK__CM1(cosh)
SK__CM1(log2) SK__CM1(log10) SK__CM1(exp2) SK__CM1(cbrt) SK__CM1(round)
SK__CM1(trunc) SK__CM1(erf)
SK__CM2(pow) SK__CM2(fmin) SK__CM2(fmax) SK__CM2(atan2) SK__CM2(fmod)
SK__CM2(hypot)
#undef SK__CM1
#undef SK__CM2
/* SK__LEAN (backends/cuda/nvrtc.c: kernels that need none of it) leaves out
 * complex numbers and the atomics */
#ifndef SK__LEAN
/* -- complex (complex64, complex128) ------------------------------------
 * The same words as host.h's, where the host compiler has C99 _Complex:
 * a class of two parts {re, im} (the views' layout) with its operators;
 * a real operand converts. Trivially constructible, so it can live in
 * shared memory and reducers. */
template <class F> struct sk_cplx;
template <bool B, class T = int> struct sk__en {};
template <class T> struct sk__en<true, T> { typedef T type; };
template <class T> struct sk__isc { enum { v = 0 }; typedef T P; };
template <class F> struct sk__isc<sk_cplx<F> > { enum { v = 1 }; typedef F P; };
template <class F> struct sk_cplx {
  F re, im;
  sk_cplx() = default;
  __device__ __forceinline__ sk_cplx(double r) : re((F)r), im((F)0) {}
  __device__ __forceinline__ sk_cplx(F r, F i) : re(r), im(i) {}
  template <class G> __device__ __forceinline__ sk_cplx(const sk_cplx<G> &z)
    : re((F)z.re), im((F)z.im) {}
  template <class B> __device__ __forceinline__ sk_cplx &operator+=(const B &b);
  template <class B> __device__ __forceinline__ sk_cplx &operator-=(const B &b);
  template <class B> __device__ __forceinline__ sk_cplx &operator*=(const B &b);
  template <class B> __device__ __forceinline__ sk_cplx &operator/=(const B &b);
};
typedef sk_cplx<double> sk_c128;
typedef sk_cplx<float> sk_c64;
/* binary operators: at least one complex operand; the result's part type
 * follows C's usual conversions of the parts (float with an integer stays
 * float, anything with double is double) */
#define SK__CXT(A, B)                                                         \
  sk_cplx<decltype(typename sk__isc<A>::P() + typename sk__isc<B>::P())>
#define SK__CXOP(op, ...)                                                     \
  template <class A, class B,                                                 \
            typename sk__en<sk__isc<A>::v || sk__isc<B>::v>::type = 0>        \
  SK_DEV SK__CXT(A, B) operator op(const A &a_, const B &b_) {                \
    typedef SK__CXT(A, B) C;                                                  \
    typedef decltype(C().re) P;                                               \
    const C a(a_), b(b_);                                                     \
    __VA_ARGS__                                                               \
  }
SK__CXOP(+, return C(a.re + b.re, a.im + b.im);)
SK__CXOP(-, return C(a.re - b.re, a.im - b.im);)
SK__CXOP(*, return C(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);)
/* Smith's algorithm: no overflow of |b|^2 */
SK__CXOP(/, if (sk_m_fabs(b.re) >= sk_m_fabs(b.im)) {
  P r = b.im / b.re, d = b.re + b.im * r;
  return C((a.re + a.im * r) / d, (a.im - a.re * r) / d);
} else {
  P r = b.re / b.im, d = b.re * r + b.im;
  return C((a.re * r + a.im) / d, (a.im * r - a.re) / d);
})
#undef SK__CXOP
template <class A, class B, typename sk__en<sk__isc<A>::v || sk__isc<B>::v>::type = 0>
SK_DEV bool operator==(const A &a_, const B &b_) {
  const SK__CXT(A, B) a(a_), b(b_);
  return a.re == b.re && a.im == b.im;
}
template <class A, class B, typename sk__en<sk__isc<A>::v || sk__isc<B>::v>::type = 0>
SK_DEV bool operator!=(const A &a, const B &b) { return !(a == b); }
#undef SK__CXT
template <class F> SK_DEV sk_cplx<F> operator-(const sk_cplx<F> &a) {
  return sk_cplx<F>(-a.re, -a.im); }
template <class F> SK_DEV sk_cplx<F> operator+(const sk_cplx<F> &a) { return a; }
template <class F> template <class B>
__device__ __forceinline__ sk_cplx<F> &sk_cplx<F>::operator+=(const B &b) {
  return *this = sk_cplx<F>(*this + b); }
template <class F> template <class B>
__device__ __forceinline__ sk_cplx<F> &sk_cplx<F>::operator-=(const B &b) {
  return *this = sk_cplx<F>(*this - b); }
template <class F> template <class B>
__device__ __forceinline__ sk_cplx<F> &sk_cplx<F>::operator*=(const B &b) {
  return *this = sk_cplx<F>(*this * b); }
template <class F> template <class B>
__device__ __forceinline__ sk_cplx<F> &sk_cplx<F>::operator/=(const B &b) {
  return *this = sk_cplx<F>(*this / b); }
SK_DEV sk_c128 cmplx(double re, double im) { return sk_c128(re, im); }
template <class F> SK_DEV sk_cplx<F> conj(sk_cplx<F> z) { return sk_cplx<F>(z.re, -z.im); }
SK_DEV sk_c128 conj(double x) { return sk_c128(x); }
template <class F> SK_DEV F real(sk_cplx<F> z) { return z.re; }
SK_DEV double real(double x) { return x; }
template <class F> SK_DEV F imag(sk_cplx<F> z) { return z.im; }
SK_DEV double imag(double x) { return 0.0 * x; }
template <class F> SK_DEV F cabs(sk_cplx<F> z) { return (F)sk_m_hypot(z.re, z.im); }
SK_DEV double cabs(double x) { return sk_m_fabs(x); }
template <class F> SK_DEV sk_cplx<F> cexp(sk_cplx<F> z) {
  double e = sk_m_exp(z.re);
  return sk_cplx<F>((F)(e * sk_m_cos(z.im)), (F)(e * sk_m_sin(z.im)));
}
SK_DEV sk_c128 cexp(double x) { return cexp(sk_c128(x)); }
/* the principal root (C99's csqrt): re >= 0, im with the sign of z.im */
template <class F> SK_DEV sk_cplx<F> csqrt(sk_cplx<F> z) {
  double a = z.re, b = z.im;
  if (a == 0 && b == 0) return sk_cplx<F>((F)0, (F)b);
  double t = sk_m_sqrt(0.5 * (sk_m_fabs(a) + sk_m_hypot(a, b)));
  if (a >= 0) return sk_cplx<F>((F)t, (F)(b / (2 * t)));
  /* copysign, not b < 0: on the negative real axis -0.0 gives -t i */
  return sk_cplx<F>((F)(sk_m_fabs(b) / (2 * t)), (F)::copysign(t, b));
}
SK_DEV sk_c128 csqrt(double x) { return csqrt(sk_c128(x)); }
/* the element types' names in bodies */
typedef sk_c128 complex128_t;
typedef sk_c64 complex64_t;

#define sqrt(x) sk_m_sqrt((double)(x))
#define exp(x) sk_m_exp((double)(x))
#define log(x) sk_m_log((double)(x))
#define fabs(x) sk_m_fabs((double)(x))
#define floor(x) sk_m_floor((double)(x))
#define ceil(x) sk_m_ceil((double)(x))
#define sin(x) sk_m_sin((double)(x))
#define cos(x) sk_m_cos((double)(x))
#define tan(x) sk_m_tan((double)(x))
#define tanh(x) sk_m_tanh((double)(x))
#define asin(x) sk_m_asin((double)(x))
#define acos(x) sk_m_acos((double)(x))
#define atan(x) sk_m_atan((double)(x))
#define sinh(x) sk_m_sinh((double)(x))
#define cosh(x) sk_m_cosh((double)(x))
#define log2(x) sk_m_log2((double)(x))
#define log10(x) sk_m_log10((double)(x))
#define exp2(x) sk_m_exp2((double)(x))
#define cbrt(x) sk_m_cbrt((double)(x))
#define round(x) sk_m_round((double)(x))
#define trunc(x) sk_m_trunc((double)(x))
#define erf(x) sk_m_erf((double)(x))
#define pow(x, y) sk_m_pow((double)(x), (double)(y))
#define fmin(x, y) sk_m_fmin((double)(x), (double)(y))
#define fmax(x, y) sk_m_fmax((double)(x), (double)(y))
#define atan2(x, y) sk_m_atan2((double)(x), (double)(y))
#define fmod(x, y) sk_m_fmod((double)(x), (double)(y))
#define hypot(x, y) sk_m_hypot((double)(x), (double)(y))

/* -- atomics ---------------------------------------------------------------
 * Hardware atomics where the GPU has them (add: f64 f32 i32 u32 i64 u64;
 * min/max and bit operations on 32/64-bit integers; exchange and CAS on
 * 32/64-bit words); everything else is a compare-and-swap loop on the
 * aligned word that holds the value (8- and 16-bit types, bool, float
 * min/max, ...). All return the old value. */
template <class T, class F> SK_DEV T sk__at_loop(T *p, F f) {
  if constexpr (sizeof(T) == 8) {
    unsigned long long *w = (unsigned long long *)p, a, n;
    unsigned long long o = *(volatile unsigned long long *)w;
    T ov, nv;
    do {
      a = o;
      memcpy(&ov, &a, 8);
      nv = f(ov);
      memcpy(&n, &nv, 8);
      o = atomicCAS(w, a, n);
    } while (o != a);
    return ov;
  } else if constexpr (sizeof(T) == 4) {
    unsigned *w = (unsigned *)p, a, n;
    unsigned o = *(volatile unsigned *)w;
    T ov, nv;
    do {
      a = o;
      memcpy(&ov, &a, 4);
      nv = f(ov);
      memcpy(&n, &nv, 4);
      o = atomicCAS(w, a, n);
    } while (o != a);
    return ov;
  } else {
    unsigned *w = (unsigned *)((unsigned long)p & ~3ul);
    unsigned sh = (unsigned)((unsigned long)p & 3ul) * 8u;
    unsigned m = (sizeof(T) == 1 ? 0xffu : 0xffffu) << sh;
    unsigned o = *(volatile unsigned *)w, a;
    T ov, nv;
    do {
      a = o;
      unsigned bits = (a & m) >> sh, nb = 0;
      memcpy(&ov, &bits, sizeof(T));
      nv = f(ov);
      memcpy(&nb, &nv, sizeof(T));
      o = atomicCAS(w, a, (a & ~m) | ((nb << sh) & m));
    } while (o != a);
    return ov;
  }
}

#define SK__AT_GEN(name, EXPR)                                                \
  template <class T> SK_DEV T sk__at_##name(T *p, T v) {                     \
    return sk__at_loop(p, [=](T o) { return (T)(EXPR); });                   \
  }
SK__AT_GEN(add, o + v)
SK__AT_GEN(sub, o - v)
SK__AT_GEN(min, v < o ? v : o)
SK__AT_GEN(max, v > o ? v : o)
SK__AT_GEN(and, o & v)
SK__AT_GEN(or, o | v)
SK__AT_GEN(xor, o ^ v)
SK__AT_GEN(xchg, v)
#undef SK__AT_GEN

typedef unsigned long long sk__ull;
typedef long long sk__ll;
/* hardware paths (exact overloads beat the templates above) */
SK_DEV double sk__at_add(double *p, double v) { return atomicAdd(p, v); }
SK_DEV float sk__at_add(float *p, float v) { return atomicAdd(p, v); }
SK_DEV int sk__at_add(int *p, int v) { return atomicAdd(p, v); }
SK_DEV unsigned sk__at_add(unsigned *p, unsigned v) { return atomicAdd(p, v); }
SK_DEV long sk__at_add(long *p, long v) {
  return (long)atomicAdd((sk__ull *)p, (sk__ull)v);
}
SK_DEV unsigned long sk__at_add(unsigned long *p, unsigned long v) {
  return (unsigned long)atomicAdd((sk__ull *)p, (sk__ull)v);
}
SK_DEV int sk__at_sub(int *p, int v) { return atomicSub(p, v); }
SK_DEV unsigned sk__at_sub(unsigned *p, unsigned v) { return atomicSub(p, v); }
SK_DEV long sk__at_sub(long *p, long v) {
  return (long)atomicAdd((sk__ull *)p, (sk__ull)(-v));
}
SK_DEV unsigned long sk__at_sub(unsigned long *p, unsigned long v) {
  return (unsigned long)atomicAdd((sk__ull *)p, (sk__ull)(0ul - v));
}
#define SK__AT_HW(name, fn)                                                   \
  SK_DEV int sk__at_##name(int *p, int v) { return fn(p, v); }               \
  SK_DEV unsigned sk__at_##name(unsigned *p, unsigned v) { return fn(p, v); } \
  SK_DEV unsigned long sk__at_##name(unsigned long *p, unsigned long v) {     \
    return (unsigned long)fn((sk__ull *)p, (sk__ull)v);                       \
  }
SK__AT_HW(min, atomicMin)
SK__AT_HW(max, atomicMax)
SK__AT_HW(and, atomicAnd)
SK__AT_HW(or, atomicOr)
SK__AT_HW(xor, atomicXor)
#undef SK__AT_HW
SK_DEV long sk__at_min(long *p, long v) {
  return (long)atomicMin((sk__ll *)p, (sk__ll)v);
}
SK_DEV long sk__at_max(long *p, long v) {
  return (long)atomicMax((sk__ll *)p, (sk__ll)v);
}
SK_DEV long sk__at_and(long *p, long v) {
  return (long)atomicAnd((sk__ull *)p, (sk__ull)v);
}
SK_DEV long sk__at_or(long *p, long v) {
  return (long)atomicOr((sk__ull *)p, (sk__ull)v);
}
SK_DEV long sk__at_xor(long *p, long v) {
  return (long)atomicXor((sk__ull *)p, (sk__ull)v);
}
SK_DEV int sk__at_xchg(int *p, int v) { return atomicExch(p, v); }
SK_DEV unsigned sk__at_xchg(unsigned *p, unsigned v) { return atomicExch(p, v); }
SK_DEV float sk__at_xchg(float *p, float v) { return atomicExch(p, v); }
SK_DEV long sk__at_xchg(long *p, long v) {
  return (long)atomicExch((sk__ull *)p, (sk__ull)v);
}
SK_DEV unsigned long sk__at_xchg(unsigned long *p, unsigned long v) {
  return (unsigned long)atomicExch((sk__ull *)p, (sk__ull)v);
}
SK_DEV double sk__at_xchg(double *p, double v) {
  return __longlong_as_double(
      (sk__ll)atomicExch((sk__ull *)p, (sk__ull)__double_as_longlong(v)));
}
/* complex: the real and the imaginary part each added atomically -- two
 * atomic operations, not one (another thread may see one part added) */
SK_DEV sk_c128 sk__at_add(sk_c128 *p, sk_c128 v) {
  double *q = (double *)p;
  double r = atomicAdd(q, v.re), i = atomicAdd(q + 1, v.im);
  return sk_c128(r, i);
}
SK_DEV sk_c64 sk__at_add(sk_c64 *p, sk_c64 v) {
  float *q = (float *)p;
  float r = atomicAdd(q, v.re), i = atomicAdd(q + 1, v.im);
  return sk_c64(r, i);
}
SK_DEV sk_c128 sk__at_sub(sk_c128 *p, sk_c128 v) { return sk__at_add(p, -v); }
SK_DEV sk_c64 sk__at_sub(sk_c64 *p, sk_c64 v) { return sk__at_add(p, -v); }
/* CAS compares bytes (as the host's __atomic_compare_exchange) */
template <class T> SK_DEV bool sk__same(const T &a, const T &b) {
  const unsigned char *x = (const unsigned char *)&a, *y = (const unsigned char *)&b;
  for (int q = 0; q < (int)sizeof(T); q++)
    if (x[q] != y[q]) return false;
  return true;
}
template <class T> SK_DEV T sk__at_cas(T *p, T e, T d) {
  return sk__at_loop(p, [=](T o) { return sk__same(o, e) ? d : o; });
}
SK_DEV int sk__at_cas(int *p, int e, int d) { return atomicCAS(p, e, d); }
SK_DEV unsigned sk__at_cas(unsigned *p, unsigned e, unsigned d) {
  return atomicCAS(p, e, d);
}
SK_DEV long sk__at_cas(long *p, long e, long d) {
  return (long)atomicCAS((sk__ull *)p, (sk__ull)e, (sk__ull)d);
}
SK_DEV unsigned long sk__at_cas(unsigned long *p, unsigned long e,
                                unsigned long d) {
  return (unsigned long)atomicCAS((sk__ull *)p, (sk__ull)e, (sk__ull)d);
}

/* the dialect's spellings: the value converts to the pointee's type.
 * The empty asm with a memory clobber stops the compiler from keeping a
 * plain load of the same element across the atomic (the hardware op may
 * go through a word of another type, which type-based alias analysis
 * would otherwise take as unrelated: a CAS retry loop would spin on a
 * stale value). */
#define SK__AT_API(api, name)                                                 \
  template <class T, class V> SK_DEV T api(T *p, V v) {                      \
    T r = sk__at_##name(p, (T)v);                                            \
    asm volatile("" ::: "memory");                                           \
    return r;                                                                \
  }
SK__AT_API(atomic_fetch_add, add)
SK__AT_API(atomic_fetch_sub, sub)
SK__AT_API(atomic_fetch_min, min)
SK__AT_API(atomic_fetch_max, max)
SK__AT_API(atomic_fetch_and, and)
SK__AT_API(atomic_fetch_or, or)
SK__AT_API(atomic_fetch_xor, xor)
SK__AT_API(atomic_exchange, xchg)
#undef SK__AT_API
template <class T, class E, class D> SK_DEV T atomic_cas(T *p, E e, D d) {
  T r = sk__at_cas(p, (T)e, (T)d);
  asm volatile("" ::: "memory");
  return r;
}
#define atomic_add(p, v) ((void)atomic_fetch_add(p, v))
#define atomic_sub(p, v) ((void)atomic_fetch_sub(p, v))
#define atomic_min(p, v) ((void)atomic_fetch_min(p, v))
#define atomic_max(p, v) ((void)atomic_fetch_max(p, v))
#define atomic_and(p, v) ((void)atomic_fetch_and(p, v))
#define atomic_or(p, v) ((void)atomic_fetch_or(p, v))
#define atomic_xor(p, v) ((void)atomic_fetch_xor(p, v))

/* atomic_fetch_add on a counter many threads bump at once (a queue's
 * tail): the lanes of a warp adding to the same address make one atomic
 * (the lowest lane's, of their sum) and each gets the old value plus the
 * adds of the lower lanes -- as if they had added in lane order. Integer
 * counters; a hot counter costs one atomic per warp instead of 32. */
template <class T, class V> SK_DEV T atomic_fetch_add_combined(T *p, V v) {
  const unsigned m = __activemask();
  const unsigned g = __match_any_sync(m, (unsigned long long)p);
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  const int first = __ffs(g) - 1;
  long long pre = 0, tot = 0;
  for (unsigned r = g; r; r &= r - 1) {
    const int src = __ffs(r) - 1;
    const long long x = __shfl_sync(g, (long long)(T)v, src);
    if ((unsigned)src < lane) pre += x;
    tot += x;
  }
  long long base = 0;
  if ((int)lane == first) base = (long long)atomic_fetch_add(p, (T)tot);
  base = __shfl_sync(g, base, first);
  return (T)(base + pre);
}
#endif /* SK__LEAN */

/* -- bounds-check mode: an index out of range is recorded (first one
 * wins) and replaced by 0, so no memory outside the view is touched */
SK_DEV sk_i64 sk__bc(sk_i64 i, sk_i64 n, int c, int d, sk_oob *o) {
  if ((sk_u64)i < (sk_u64)n) return i;
  if (o && atomicExch(&o->hit, 1) == 0) {
    o->capture = c;
    o->dim = d;
    o->index = i;
    o->extent = n;
  }
  return 0;
}

/* -- view access traits ----------------------------------------------------
 * random_access: loads through the read-only (non-coherent) cache;
 * atomic: the element is a proxy whose every store is an atomic update. */
template <class T> SK_DEV T sk__ldg(const T *p) { return *p; }
#define SK__LDG(T)                                                            \
  SK_DEV T sk__ldg(const T *p) { return __ldg(p); }
SK__LDG(double) SK__LDG(float) SK__LDG(int) SK__LDG(unsigned) SK__LDG(long)
SK__LDG(unsigned long) SK__LDG(short) SK__LDG(unsigned short)
SK__LDG(signed char) SK__LDG(unsigned char) SK__LDG(char)
#undef SK__LDG

/* SK__LEAN (backends/cuda/nvrtc.c: kernels that need none of it) leaves out
 * the atomic views' proxy */
#ifndef SK__LEAN
template <class T> struct sk__aref {
  T *p;
  __device__ operator T() const { return *(volatile T *)p; }
  __device__ T *operator&() const { return p; }
  __device__ T operator=(T v) const {
    sk__at_xchg(p, v);
    return v;
  }
  __device__ T operator=(const sk__aref &o) const { return *this = (T)o; }
  __device__ T operator+=(T v) const { return (T)(sk__at_add(p, v) + v); }
  __device__ T operator-=(T v) const { return (T)(sk__at_sub(p, v) - v); }
  __device__ T operator*=(T v) const {
    return (T)(sk__at_loop(p, [=](T o) { return (T)(o * v); }) * v);
  }
  __device__ T operator/=(T v) const {
    return (T)(sk__at_loop(p, [=](T o) { return (T)(o / v); }) / v);
  }
  __device__ T operator&=(T v) const { return (T)(sk__at_and(p, v) & v); }
  __device__ T operator|=(T v) const { return (T)(sk__at_or(p, v) | v); }
  __device__ T operator^=(T v) const { return (T)(sk__at_xor(p, v) ^ v); }
  __device__ T operator++() const { return (T)(sk__at_add(p, (T)1) + 1); }
  __device__ T operator--() const { return (T)(sk__at_sub(p, (T)1) - 1); }
  __device__ T operator++(int) const { return sk__at_add(p, (T)1); }
  __device__ T operator--(int) const { return sk__at_sub(p, (T)1); }
};
#endif /* SK__LEAN */

/* -- shuffles of any trivially copyable value ------------------------------ */
#define SK__SHFL(name, call)                                                  \
  template <class T>                                                         \
  SK_DEV T name(T v, int d, unsigned mask, int width = 32) {                 \
    int w[(sizeof(T) + 3) / 4];                                              \
    memcpy(w, &v, sizeof(T));                                                \
    for (int q = 0; q < (int)((sizeof(T) + 3) / 4); q++) w[q] = call;        \
    T r;                                                                     \
    memcpy(&r, w, sizeof(T));                                                \
    return r;                                                                \
  }
SK__SHFL(sk__shfl_down, __shfl_down_sync(mask, w[q], d, width))
SK__SHFL(sk__shfl_up, __shfl_up_sync(mask, w[q], d, width))
SK__SHFL(sk__shfl_xor, __shfl_xor_sync(mask, w[q], d, width))
SK__SHFL(sk__shfl_idx, __shfl_sync(mask, w[q], d, width))
#undef SK__SHFL

/* -- whole-block reductions and scans (range and MDRange kernels) ----------
 * R: a reducer type with T, init(T *) and join(T *dst, const T *src).
 * Fixed combination order for a fixed launch configuration, so results
 * are bitwise reproducible run to run. */
SK_DEV int sk__tid() {
  return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
SK_DEV int sk__nthreads() { return (int)(blockDim.x * blockDim.y * blockDim.z); }
SK_DEV unsigned sk__warp_mask(int warp, int nthr) {
  int n = nthr - 32 * warp;
  return n >= 32 ? 0xffffffffu : ((1u << n) - 1u);
}

/* thread 0 of the block gets the join of every thread's 'v' */
template <class R>
SK_DEV void sk__block_reduce(typename R::T &v, typename R::T *wsum) {
  typedef typename R::T T;
  int tid = sk__tid(), nthr = sk__nthreads();
  int lane = tid & 31, warp = tid >> 5, nwarp = (nthr + 31) >> 5;
  int wn = nthr - 32 * warp < 32 ? nthr - 32 * warp : 32;
  unsigned mask = sk__warp_mask(warp, nthr);
  SK__ROLLED for (int off = 16; off > 0; off >>= 1) {
    T o = sk__shfl_down(v, off, mask);
    if (lane + off < wn) R::join(&v, &o);
  }
  if (nwarp == 1) return;
  __syncthreads();
  if (lane == 0) wsum[warp] = v;
  __syncthreads();
  if (warp == 0) {
    if (lane < nwarp) v = wsum[lane]; else R::init(&v);
    SK__ROLLED for (int off = 16; off > 0; off >>= 1) {
      T o = sk__shfl_down(v, off, mask);
      if (lane + off < nwarp) R::join(&v, &o);
    }
  }
}

/* another block's partial, past the L1 (it was written with a fence):
 * whole words where the size allows (elements of an array of T are then
 * aligned to them) */
template <class T> SK_DEV void sk__vload(T *dst, const T *src) {
  if (sizeof(T) % 8 == 0) {
    for (int q = 0; q < (int)(sizeof(T) / 8); q++)
      ((unsigned long long *)dst)[q] = __ldcg((const unsigned long long *)src + q);
  } else if (sizeof(T) % 4 == 0) {
    for (int q = 0; q < (int)(sizeof(T) / 4); q++)
      ((unsigned *)dst)[q] = __ldcg((const unsigned *)src + q);
  } else {
    const volatile char *s = (const volatile char *)src;
    char *d = (char *)dst;
    for (int q = 0; q < (int)sizeof(T); q++) d[q] = s[q];
  }
}

/* Reduce 'v' over the grid: each block writes its partial, the last
 * block to finish joins the partials in block order into C.result. The
 * block's reduction is written once for both rounds (the block's partial,
 * then the last block's join of them): two inlined copies cost NVRTC
 * about 5 ms more a reduction kernel (docs/bench.md). */
template <class R> SK_DEV void sk__reduce_finish(typename R::T v, const sk_cuctx &C) {
  typedef typename R::T T;
  __shared__ T wsum[32];
  __shared__ int last;
  int tid = sk__tid(), nthr = sk__nthreads();
  unsigned nblk = gridDim.x * gridDim.y * gridDim.z;
  unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  T *part = (T *)C.partial;
  SK__ROLLED for (int round = 0;; round++) {
    sk__block_reduce<R>(v, wsum);
    if (round) break;
    if (tid == 0) {
      part[bid] = v;
      __threadfence();
      last = atomicAdd(C.counter, 1u) == nblk - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    T q;
    R::init(&v);
    for (unsigned p = tid; p < nblk; p += nthr) {
      sk__vload(&q, &part[p]);
      R::join(&v, &q);
    }
    __syncthreads();
  }
  if (tid == 0) {
    *(T *)C.result = v;
    *C.counter = 0;
  }
}

/* Exclusive scan of 'v' over the block (thread order); 'total' gets the
 * block's join. Every thread returns. */
template <class R>
SK_DEV typename R::T sk__block_exscan(typename R::T v, typename R::T &total,
                                      typename R::T *wsum) {
  typedef typename R::T T;
  int tid = sk__tid(), nthr = sk__nthreads();
  int lane = tid & 31, warp = tid >> 5, nwarp = (nthr + 31) >> 5;
  int wn = nthr - 32 * warp < 32 ? nthr - 32 * warp : 32;
  unsigned mask = sk__warp_mask(warp, nthr);
  T inc = v;
  SK__ROLLED for (int d = 1; d < 32; d <<= 1) {
    T o = sk__shfl_up(inc, d, mask);
    if (lane >= d && lane < wn) {
      R::join(&o, &inc);
      inc = o;
    }
  }
  T ex = sk__shfl_up(inc, 1, mask);
  if (lane == 0) R::init(&ex);
  __syncthreads();
  if (lane == wn - 1) wsum[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    T w;
    if (lane < nwarp) w = wsum[lane]; else R::init(&w);
    SK__ROLLED for (int d = 1; d < 32; d <<= 1) {
      T o = sk__shfl_up(w, d, mask);
      if (lane >= d && lane < nwarp) {
        R::join(&o, &w);
        w = o;
      }
    }
    __syncwarp(mask);
    if (lane < nwarp) wsum[lane] = w;
  }
  __syncthreads();
  total = wsum[nwarp - 1];
  if (warp > 0) {
    T pre = wsum[warp - 1];
    R::join(&pre, &ex);
    ex = pre;
  }
  __syncthreads();
  return ex;
}

/* The join of the partials of blocks [0, nb) (every thread gets it). */
template <class R>
SK_DEV typename R::T sk__block_prefix(const sk_cuctx &C, unsigned nb,
                                      typename R::T *wsum) {
  typedef typename R::T T;
  __shared__ T bcast;
  int tid = sk__tid(), nthr = sk__nthreads();
  T a, q;
  R::init(&a);
  const T *part = (const T *)C.partial;
  for (unsigned p = tid; p < nb; p += nthr) {
    q = part[p];
    R::join(&a, &q);
  }
  sk__block_reduce<R>(a, wsum);
  if (tid == 0) bcast = a;
  __syncthreads();
  a = bcast;
  __syncthreads();
  return a;
}

/* SK__LEAN (backends/cuda/nvrtc.c: kernels that need none of it) leaves out
 * teams and the building blocks' words */
#ifndef SK__LEAN
/* -- teams (TeamPolicy kernels) ---------------------------------------- */
struct sk__vptr {   /* team_scratch's result converts to any pointer */
  void *p;
  template <class T> __device__ operator T *() const { return (T *)p; }
  __device__ bool operator!() const { return !p; }
  __device__ operator bool() const { return p != 0; }
};

typedef struct sk__team_t {
  sk_i64 league_rank, league_size;
  int team_rank, team_size, vector_length;
  int lane;              /* vector lane (threadIdx.x) */
  unsigned mask;         /* the team's warp lanes; 0: the team is the block */
  char *shared;          /* team_size * vector_length * 16 bytes */
  char *scr[2], *tscr[2];
  sk_i64 scr_bytes[2], tscr_bytes[2], off[2], toff[2];
  sk_i64 *flag;
} sk__team_t;

#define SK__SLOT 16
SK_DEV void sk__team_barrier(const sk__team_t &t) {
  if (t.mask) __syncwarp(t.mask);
  else __syncthreads();
}
/* Bump allocation as on the host (dialect/host.h's sk_team_alloc): the
 * level is checked before it indexes anything and the end is computed
 * without wrapping; a failed request sets the launch's flag and gets NULL. */
SK_DEV sk__vptr sk__scratch(sk__team_t &t, int thread, sk_i64 level, sk_i64 bytes) {
  sk__vptr r;
  r.p = 0;
  if (level == 0 || level == 1) {
    sk_i64 *off = thread ? &t.toff[level] : &t.off[level];
    sk_i64 cap = thread ? t.tscr_bytes[level] : t.scr_bytes[level];
    char *base = thread ? t.tscr[level] : t.scr[level];
    sk_u64 o = ((sk_u64)*off + 63) & ~(sk_u64)63;
    if (bytes >= 0 && o <= (sk_u64)cap && (sk_u64)bytes <= (sk_u64)cap - o) {
      *off = (sk_i64)(o + (sk_u64)bytes);
      r.p = base + o;
      return r;
    }
  }
  if (t.flag) atomicMax((long long *)t.flag, (long long)(bytes > 0 ? bytes : 1));
  return r;
}
#define team_barrier(tm) sk__team_barrier(tm)
#define team_scratch(tm, level, bytes) sk__scratch((tm), 0, (sk_i64)(level), (sk_i64)(bytes))
#define thread_scratch(tm, level, bytes) sk__scratch((tm), 1, (sk_i64)(level), (sk_i64)(bytes))
#define SINGLE_TEAM(tm) if ((tm).team_rank == 0 && (tm).lane == 0)
#define SINGLE_THREAD(tm) if ((tm).lane == 0)

template <class T> SK_DEV void sk__team_bcast(const sk__team_t &t, T &var) {
  static_assert(sizeof(T) <= SK__SLOT, "TEAM_BROADCAST of a value over 16 bytes");
  T *b = (T *)t.shared;
  sk__team_barrier(t);
  if (t.team_rank == 0 && t.lane == 0) *b = var;
  sk__team_barrier(t);
  var = *b;
  sk__team_barrier(t);
}
#define TEAM_BROADCAST(tm, var) sk__team_bcast((tm), (var))

/* identities and joins of the nested reductions */
template <class T> SK_DEV T sk__tmax() { return (T)~(T)0; }   /* unsigned */
template <> __device__ __forceinline__ double sk__tmax<double>() { return (double)INFINITY; }
template <> __device__ __forceinline__ float sk__tmax<float>() { return INFINITY; }
template <> __device__ __forceinline__ long sk__tmax<long>() { return 9223372036854775807L; }
template <> __device__ __forceinline__ int sk__tmax<int>() { return 2147483647; }
template <> __device__ __forceinline__ short sk__tmax<short>() { return 32767; }
template <> __device__ __forceinline__ signed char sk__tmax<signed char>() { return 127; }
template <> __device__ __forceinline__ bool sk__tmax<bool>() { return true; }
template <class T> SK_DEV T sk__tmin() { return (T)0; }
template <> __device__ __forceinline__ double sk__tmin<double>() { return -(double)INFINITY; }
template <> __device__ __forceinline__ float sk__tmin<float>() { return -INFINITY; }
template <> __device__ __forceinline__ long sk__tmin<long>() { return -9223372036854775807L - 1; }
template <> __device__ __forceinline__ int sk__tmin<int>() { return -2147483647 - 1; }
template <> __device__ __forceinline__ short sk__tmin<short>() { return -32768; }
template <> __device__ __forceinline__ signed char sk__tmin<signed char>() { return -128; }

struct sk__op_sum {
  template <class T> static __device__ void id(T &v) { v = 0; }
  template <class T> static __device__ void join(T &d, const T &s) { d += s; }
};
struct sk__op_prod {
  template <class T> static __device__ void id(T &v) { v = 1; }
  template <class T> static __device__ void join(T &d, const T &s) { d *= s; }
};
struct sk__op_min {
  template <class T> static __device__ void id(T &v) { v = sk__tmax<T>(); }
  template <class T> static __device__ void join(T &d, const T &s) { if (s < d) d = s; }
};
struct sk__op_max {
  template <class T> static __device__ void id(T &v) { v = sk__tmin<T>(); }
  template <class T> static __device__ void join(T &d, const T &s) { if (s > d) d = s; }
};
struct sk__op_land {
  template <class T> static __device__ void id(T &v) { v = 1; }
  template <class T> static __device__ void join(T &d, const T &s) { d = d && s; }
};
struct sk__op_lor {
  template <class T> static __device__ void id(T &v) { v = 0; }
  template <class T> static __device__ void join(T &d, const T &s) { d = d || s; }
};
struct sk__op_band {
  template <class T> static __device__ void id(T &v) { v = (T)~(T)0; }
  template <class T> static __device__ void join(T &d, const T &s) { d &= s; }
};
template <> __device__ __forceinline__ void sk__op_band::id<bool>(bool &v) { v = true; }
struct sk__op_bor {
  template <class T> static __device__ void id(T &v) { v = 0; }
  template <class T> static __device__ void join(T &d, const T &s) { d |= s; }
};

/* join over the vector lanes of this member (butterfly: all lanes get it) */
template <class Op, class T> SK_DEV void sk__vjoin(const sk__team_t &t, T &var) {
  int vl = t.vector_length;
  if (vl <= 1) return;
  /* only this member's lanes: members may be in different loop trips */
  int base = (sk__tid() & 31) & ~(vl - 1);
  unsigned mask = (vl >= 32 ? 0xffffffffu : ((1u << vl) - 1u)) << base;
  for (int m = 1; m < vl; m <<= 1) {
    T o = sk__shfl_xor(var, m, mask, vl);
    /* fixed order: the lower lane's value on the left */
    if (t.lane & m) { Op::join(o, var); var = o; } else Op::join(var, o);
  }
}

/* join over the team ranks, lane by lane, in rank order (all get it) */
template <class Op, class T> SK_DEV void sk__tjoin(const sk__team_t &t, T &var) {
  static_assert(sizeof(T) <= SK__SLOT, "team reduction of a value over 16 bytes");
  if (t.team_size <= 1) return;
  char *b = t.shared;
  sk__team_barrier(t);
  *(T *)(b + SK__SLOT * (t.team_rank * t.vector_length + t.lane)) = var;
  sk__team_barrier(t);
  var = *(T *)(b + SK__SLOT * t.lane);
  for (int r = 1; r < t.team_size; r++)
    Op::join(var, *(T *)(b + SK__SLOT * (r * t.vector_length + t.lane)));
  sk__team_barrier(t);
}

/* TEAM_SCAN: after pass 0 var becomes this member's exclusive prefix;
 * after pass 1 every member gets the team total. */
template <class T> SK_DEV int sk__tscan(const sk__team_t &t, T &var, int pass) {
  static_assert(sizeof(T) <= SK__SLOT, "team scan of a value over 16 bytes");
  if (t.team_size <= 1) {
    if (pass == 0) var = 0;
    return pass + 1;
  }
  char *b = t.shared;
  sk__team_barrier(t);
  *(T *)(b + SK__SLOT * (t.team_rank * t.vector_length + t.lane)) = var;
  sk__team_barrier(t);
  if (pass == 0) {
    T pre = 0;
    for (int r = 0; r < t.team_rank; r++)
      pre += *(T *)(b + SK__SLOT * (r * t.vector_length + t.lane));
    var = pre;
  } else {
    var = *(T *)(b + SK__SLOT * ((t.team_size - 1) * t.vector_length + t.lane));
  }
  sk__team_barrier(t);
  return pass + 1;
}

#define SK__SLO(b, e) ((b) + ((e) - (b)) * team.team_rank / team.team_size)
#define SK__SHI(b, e) ((b) + ((e) - (b)) * (team.team_rank + 1) / team.team_size)

#define TEAM_FOR(j, b, e)                                                    \
  for (sk_i64 sk__te = (sk_i64)(e), j = (sk_i64)(b) + team.team_rank;       \
       j < sk__te; j += team.team_size)
#define VECTOR_FOR(k, b, e)                                                  \
  for (sk_i64 sk__ve = (sk_i64)(e), k = (sk_i64)(b) + team.lane;            \
       k < sk__ve; k += team.vector_length)
#define TEAM_VECTOR_FOR(j, b, e)                                             \
  for (sk_i64 sk__tve = (sk_i64)(e),                                         \
              j = (sk_i64)(b) + team.team_rank * team.vector_length + team.lane; \
       j < sk__tve; j += (sk_i64)team.team_size * team.vector_length)
#define TEAM_REDUCE(op, j, b, e, var)                                        \
  for (int sk__tr = (sk__op_##op::id(var), 1); sk__tr;                       \
       sk__tr = 0, sk__tjoin<sk__op_##op>(team, var))                        \
    TEAM_FOR(j, b, e)
#define VECTOR_REDUCE(op, k, b, e, var)                                      \
  for (int sk__vr = (sk__op_##op::id(var), 1); sk__vr;                       \
       sk__vr = 0, sk__vjoin<sk__op_##op>(team, var))                        \
    VECTOR_FOR(k, b, e)
#define TEAM_VECTOR_REDUCE(op, j, b, e, var)                                 \
  for (int sk__tvr = (sk__op_##op::id(var), 1); sk__tvr;                     \
       sk__tvr = 0, sk__vjoin<sk__op_##op>(team, var),                       \
           sk__tjoin<sk__op_##op>(team, var))                                \
    TEAM_VECTOR_FOR(j, b, e)
#define TEAM_SCAN(j, b, e, var)                                              \
  for (int sk__sp = ((var) = 0, 0); sk__sp < 2;                              \
       sk__sp = sk__tscan(team, var, sk__sp))                                \
    for (bool final = sk__sp == 1, sk__o1 = 1; sk__o1; sk__o1 = 0)           \
      for (sk_i64 sk__lo = SK__SLO((sk_i64)(b), (sk_i64)(e)),                \
                  sk__hi = SK__SHI((sk_i64)(b), (sk_i64)(e)), j = sk__lo;    \
           j < sk__hi; ++j)
/* vector lanes scan redundantly, each one the whole range in order */
#define VECTOR_SCAN(k, b, e, var)                                            \
  for (bool final = 1, sk__o2 = ((var) = 0, 1); sk__o2; sk__o2 = 0)          \
    for (sk_i64 sk__vse = (sk_i64)(e), k = (sk_i64)(b); k < sk__vse; ++k)


/* -- the building blocks (blocks.h) -----------------------------------------
 * Their words for memory other threads of the kernel use at once: the
 * vector lanes of a member race within a warp, so loads and stores are
 * volatile; the atomics are relaxed, so a fence orders what they
 * publish. */
template <class T> SK_DEV T sk__vld(const T &x) { return *(const volatile T *)&x; }
template <class T, class V> SK_DEV void sk__vst(T &x, V v) { *(volatile T *)&x = (T)v; }
#define SK__VLD(x) sk__vld(x)
#define SK__VST(x, v) sk__vst((x), (v))
#define SK__FENCE() __threadfence()
#define SK__ACQ_LD(x) sk__vld(x)
#define SK__REL_ST(x, v) (__threadfence(), sk__vst((x), (v)))
#define SK_INLINE SK_DEV
#define SK__ATF SK_DEV
#define hashmap_insert_vector(h, key) hashmap_insert_atomic((h), (key))
#define sk_thread_index() ((sk_i64)blockIdx.x * blockDim.x * blockDim.y * blockDim.z + sk__tid())
#define SK__RAND_HINT(lk, n) sk_thread_index()
SK_DEV void sk__vbarrier(const sk__team_t &t) {
  int vl = t.vector_length;
  if (vl <= 1) return;
  int base = (sk__tid() & 31) & ~(vl - 1);
  unsigned mask = (vl >= 32 ? 0xffffffffu : ((1u << vl) - 1u)) << base;
  __syncwarp(mask);
}
#define vector_barrier(tm) sk__vbarrier(tm)
#define vector_atomic_add(p, v) atomic_add((p), (v))
#define prefetch_read(p) ((void)(p))

#endif /* SK__LEAN */
#include "../../dialect/blocks.h"
#endif /* device code */
#endif
