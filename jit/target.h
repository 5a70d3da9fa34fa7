/* target.h: the JIT's code targets: what a back end's kernels are made
 * of, as one table per target -- its code generator, the compiler tier(s)
 * behind it, its dialect headers, whether it makes a device image, its
 * warm-up hook and the spellings the generators' shared pieces need.
 *
 * A back end names its target in its table (sk_backend.target; NULL is
 * host C); exec/ resolves the name here and hands the table to the JIT in
 * the kernel spec (sk_kspec.gen), so neither exec/ nor the JIT's front
 * (jit.c) branches on a device. Each target's table is filled by its
 * generator file (codegen_host.c, ...); target.c is the one list of them.
 */
#ifndef SK_TARGET_H
#define SK_TARGET_H

#include <stddef.h>

#include "spec.h"

typedef struct sk_jit_target {
  const char *name; /* what a back end's 'target' says */
  /* -- what it makes, and with what -------------------------------------- */
  /* 0: host entry points (the tcc tier, then the cc tier in the
   * background); 1: a device image (sk_image) made by 'build', which the
   * back end loads ('load' of its table) */
  int image;
  /* the kernel's source for 'spec' (malloc'd), NULL with 'err' filled */
  char *(*codegen)(const sk_kspec *spec, char *err, size_t errlen);
  /* image targets: compile 'source' into an image for spec->arch through
   * the disk cache (*from_disk tells which); messages name body lines */
  int (*build)(const sk_kspec *spec, const char *source, sk_image **out, int *from_disk,
               char *err, size_t errlen);
  /* optional: start the compiler's one-time set-up (a back end of this
   * target is starting; 'arch' is the architecture its kernels will be
   * compiled for, as spec->arch, NULL if unknown) */
  void (*warm)(const char *arch);
  /* optional: wait for that set-up's compile at work and start no other
   * (sk_jit_shutdown: no thread of the JIT's may run after it) */
  void (*quiesce)(void);
  /* image targets: the compiler's name among speck.info's compilers and
   * its status: 1 usable (its version in 'buf'), else 0 (why in 'buf') */
  const char *compiler;
  int (*status)(char *buf, size_t n);
  /* the dialect headers every kernel source starts with, in order
   * (NULL-terminated; '#include' lines are dropped: sk_cg_header) */
  const char *const *dialect;
  /* -- spellings of the pieces the generators share (codegen.c, agg.c,
   * kernels/task/functor.c) -------------------------------------------- */
  const char *fn_qual; /* a generated helper function's qualifiers */
  /* NULL: the accumulator's identity and join are the host ABI's C
   * functions (sk__init, sk__join, sk__layout); else static members of a
   * reducer type 'sk__R' with these qualifiers */
  const char *acc_qual;
  /* 1: the dialect is C++: aggregate operations are overloads (fad_add),
   * a spawn's fields are assigned one by one (no C99 designated
   * initialisers) and its priority is a default argument */
  int cxx;
  /* task functors (kernels/task/functor.c): the task dialect and the
   * line that selects its generated-code part */
  const char *task_dialect;
  const char *task_mode;
} sk_jit_target;

/* The target called 'name' (NULL or "": host C), or NULL when no target
 * has that name. */
const sk_jit_target *sk_jit_target_find(const char *name);
/* every target, in target.c's order, NULL-terminated */
const sk_jit_target *const *sk_jit_targets(void);
/* a tier's name for speck.jit.stats ("tcc", "cc", the image compiler's) */
const char *sk_jit_tier_name(int tier);
/* the target of a spec (its 'gen'; NULL: host C) */
const sk_jit_target *sk_jit_target_of(const sk_kspec *spec);
/* its place in the list (0: host C): the kernel key's first byte */
int sk_jit_target_index(const sk_jit_target *t);
/* host C: what the host back ends run, and what the accumulator of an
 * image target's reductions is compiled as (codegen_host.c) */
extern const sk_jit_target sk_jit_target_host;

#endif
