/* symbols.c: the runtime side of the host dialect for the tcc tier.
 *
 * Compiles dialect/host.h with SK_DIALECT_RUNTIME so the atomics get
 * external definitions (gcc builtins inside), and lists every symbol a
 * libtcc-compiled kernel may need. No system headers: host.h defines the
 * types, and the math prototypes match libm's.
 */
#define SK_DIALECT_RUNTIME
#include "../../dialect/host.h"
#include "symbols.h"

/* prototypes for -Wmissing-prototypes-clean external definitions */
#define SK__NAME(T, t) \
  {"sk_atomic_add_" #t, (const void *)sk_atomic_add_##t}, \
    {"sk_atomic_sub_" #t, (const void *)sk_atomic_sub_##t}, \
    {"sk_atomic_min_" #t, (const void *)sk_atomic_min_##t}, \
    {"sk_atomic_max_" #t, (const void *)sk_atomic_max_##t}, \
    {"sk_atomic_xchg_" #t, (const void *)sk_atomic_xchg_##t}, \
    {"sk_atomic_cas_" #t, (const void *)sk_atomic_cas_##t},
#define SK__INAME(T, t) \
  {"sk_atomic_and_" #t, (const void *)sk_atomic_and_##t}, \
    {"sk_atomic_or_" #t, (const void *)sk_atomic_or_##t}, \
    {"sk_atomic_xor_" #t, (const void *)sk_atomic_xor_##t},
#define SK__M(f) {#f, (const void *)f},

/* dialect/linalg.h's sk_fma under libtcc: libm's, rounded once as the
 * gcc-compiled kernels' fused instructions are */
double fma(double, double, double);
float fmaf(float, float, float);

/* the word loops in bodies poll (core/runtime.c; dialect/host.h SK__GO) */
extern int sk_body_stop_word;

/* libtcc emits calls to these for struct copies and initialisers */
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);

static const sk_host_symbol table[] = {
  SK_ATOMIC_TYPES(SK__NAME) SK_ATOMIC_INT_TYPES(SK__INAME) SK_MATH1(SK__M)
    SK_MATH2(SK__M){"sk_team_barrier", (const void *)sk_team_barrier},
  {"sk_team_alloc", (const void *)sk_team_alloc},
  {"sk_oob_report", (const void *)sk_oob_report},
  {"sk_body_stop_word", (const void *)&sk_body_stop_word},
  {"sk_hashmap_insert_atomic", (const void *)sk_hashmap_insert_atomic},
  {"fma", (const void *)fma},
  {"fmaf", (const void *)fmaf},
  {"memcpy", (const void *)memcpy},
  {"memmove", (const void *)memmove},
  {"memset", (const void *)memset},
  {NULL, NULL}};

const sk_host_symbol *sk_host_symbols(void) { return table; }
