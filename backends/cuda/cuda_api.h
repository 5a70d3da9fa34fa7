/* cuda_api.h: what the CUDA back end offers the layers above it (the JIT's
 * NVRTC tier and the VM's info table), beyond the back-end table.
 *
 * A CUDA kernel is an 'sk_cuda_code': the compiled image (cubin or PTX)
 * made by jit/nvrtc.c plus the launch facts the generator decided; the
 * back end loads it into the device's context on first launch.
 */
#ifndef SK_CUDA_API_H
#define SK_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "../../dialect/abi.h"

typedef struct sk_cuda_code {
  /* set by the JIT */
  char *image;           /* cubin or NUL-terminated PTX (malloc'd) */
  size_t size;
  int is_cubin;
  char arch[24];         /* "sm_90" or "compute_90" */
  int pattern, policy_kind, md_rank;
  int md_perm[SK_MAXMD]; /* MDRange dims, fastest (threadIdx.x) first */
  int nargs;             /* capture slots the kernel reads */
  int host_visible;      /* 1: a capture may be read by the host right after */
  int bounds;            /* compiled in bounds-check mode */
  /* set by the back end on first launch */
  void *mod, *fn;
  int loaded, block, grid1;   /* occupancy: block size, blocks for 1 wave */
  int maxthreads, regs;
} sk_cuda_code;

/* unload the module (if loaded) and free 'c' */
void sk_cuda_code_free(sk_cuda_code *c);

/* The architecture to compile for: 1 and the device's compute capability
 * when a device can be used, else 0 (compile-only: PTX for a default). */
int sk_cuda_target_arch(int *major, int *minor);

/* Devices, for speck.info(): count (0 when the driver is unusable) and
 * one device's description. */
typedef struct sk_cuda_devinfo {
  char name[256];
  int major, minor, sms, max_threads, warp;
  size_t total, free;
  int64_t smem_block, smem_optin;
} sk_cuda_devinfo;
int sk_cuda_device_count(void);
int sk_cuda_device_info(int dev, sk_cuda_devinfo *d);

/* Driver and NVRTC status lines for speck.info() */
int sk_cuda_nvrtc_status(char *buf, size_t n);   /* 1 usable (version in buf) */
int sk_cuda_driver_version(void);                /* 1000*major + 10*minor */

#endif
