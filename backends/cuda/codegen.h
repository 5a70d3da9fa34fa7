/* codegen.h: the CUDA generator (codegen.c), for the CUDA code
 * target's compiler (nvrtc.c) and the tests; the JIT reaches it through
 * the target's table (target.h).
 */
#ifndef SK_CODEGEN_CUDA_H
#define SK_CODEGEN_CUDA_H

#include "jit/spec.h"

/* the CUDA source (NVRTC, C++) of 'spec' (malloc'd), NULL with 'err' */
char *sk_codegen_cuda(const sk_kspec *spec, char *err, size_t errlen);
/* MDRange dimensions in thread order, fastest (threadIdx.x) first */
void sk_codegen_cuda_perm(const sk_kspec *spec, int *perm);
/* The dialect text every source of sk_codegen_cuda has after its title
 * line, in the order pasted: part 0 (abi.h, cuda.h), part 1 (blocks.h),
 * part 2 (linalg.h); NULL when out of memory. Built once, kept. */
const char *sk_codegen_cuda_dialect(int part);

#endif
