/* dialect_src.h: the kernel dialect headers of dialect as C strings,
 * generated at build time into build/gen/dialect.c by scripts/embed.lua, so
 * that generated kernels compile without header files at run time.
 * A header that was absent at build time is the empty string. The shared
 * ones are here; a device back end's own headers (Makefile's DIALECT) are
 * declared by its code target's generator (jit/codegen_<target>.c). */
#ifndef SK_DIALECT_SRC_H
#define SK_DIALECT_SRC_H

extern const char sk_dialect_abi_h[];    /* dialect/abi.h */
extern const char sk_dialect_host_h[];   /* dialect/host.h */
extern const char sk_dialect_blocks_h[]; /* dialect/blocks.h (after a back end's header) */
extern const char sk_dialect_task_h[];   /* dialect/task.h */
extern const char sk_dialect_linalg_h[]; /* dialect/linalg.h (after a back end's header) */

#endif
