/* target.c: the one list of the JIT's code targets (target.h), and the
 * look-up that turns a back end's target name into its table.
 *
 * A new target is its generator file filling one 'sk_jit_target' and one
 * line here; nothing else in jit/ or exec/ names it.
 */
#include <string.h>

#include "target.h"

/* host C first: it is the default, and index 0 in kernel keys */
extern const sk_jit_target sk_jit_target_cuda; /* backends/cuda/codegen.c */
static const sk_jit_target *const targets[] = {&sk_jit_target_host, &sk_jit_target_cuda,
                                               NULL};

const sk_jit_target *const *sk_jit_targets(void) { return targets; }

const sk_jit_target *sk_jit_target_find(const char *name) {
  if (!name || !*name) return &sk_jit_target_host;
  for (int t = 0; targets[t]; t++)
    if (strcmp(targets[t]->name, name) == 0) return targets[t];
  return NULL;
}

const sk_jit_target *sk_jit_target_of(const sk_kspec *s) {
  return s->gen ? s->gen : &sk_jit_target_host;
}

int sk_jit_target_index(const sk_jit_target *t) {
  for (int i = 0; targets[i]; i++)
    if (targets[i] == t) return i;
  return 0;
}

/* A tier's name (speck.jit.stats): the image tier is named after the image
 * targets' compiler. */
const char *sk_jit_tier_name(int tier) {
  static const char *const names[SK_NTIER] = {"auto", "tcc", "cc", "image",
                                              "precompiled"};
  if (tier < 0 || tier >= SK_NTIER) return "?";
  if (tier == SK_TIER_IMAGE)
    for (int t = 0; targets[t]; t++)
      if (targets[t]->image && targets[t]->compiler) return targets[t]->compiler;
  return names[tier];
}
