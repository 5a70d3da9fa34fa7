/* symbols.h: runtime functions that libtcc-compiled kernels call by name
 * (math, atomics, team runtime). */
#ifndef SK_HOST_SYMBOLS_H
#define SK_HOST_SYMBOLS_H

typedef struct sk_host_symbol {
  const char *name;
  const void *addr;
} sk_host_symbol;

/* NULL-terminated table */
const sk_host_symbol *sk_host_symbols(void);

#endif
