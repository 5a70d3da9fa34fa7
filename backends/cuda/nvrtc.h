/* nvrtc.h: the CUDA code target's compiler tier (nvrtc.c): NVRTC turns
 * the CUDA source of a kernel (codegen.c) into an image; the target
 * table (sk_jit_target_cuda, codegen.c) points at these.
 */
#ifndef SK_NVRTC_H
#define SK_NVRTC_H

#include "jit/tier.h"

/* Compile 'source' (the CUDA source of 'spec') into an image for
 * spec->arch (a cubin; PTX when no architecture is given or NVRTC does
 * not know it), through the disk cache; *from_disk tells which. Errors
 * name the body's lines. */
int sk_nvrtc_build(const sk_kspec *spec, const char *source, sk_image **out,
                   int *from_disk, char *err, size_t errlen);
/* Start NVRTC's one-time set-up, and the dialect's precompiled header
 * for 'arch' (as spec->arch; NULL: compile only), on a thread of its own
 * (once per process; nothing when NVRTC is missing), so that the first
 * kernel compiles at the warm speed: the CUDA target's warm-up hook,
 * called by exec/ when a back end of that target starts. */
void sk_nvrtc_warm(const char *arch);
/* wait for the warm-up's compile at work; no other starts after it */
void sk_nvrtc_quiesce(void);
/* NVRTC status for speck.info(): 1 usable, with "NVRTC 13.0 (path)" in
 * buf, else 0 and the reason */
int sk_nvrtc_status(char *buf, size_t n);

#endif
