/* cuda_api.h: what the CUDA back end tells the layers above it beyond its
 * table (core/backend.h): the devices, for speck.info().
 *
 * Kernels reach the back end only through the table: the JIT's image
 * (sk_image) goes in through 'load', the launchable object comes back
 * as sk_launch.fn. Nothing here describes what a compiler made.
 */
#ifndef SK_CUDA_API_H
#define SK_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

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

/* The space's stream (a CUstream) with its primary context current on
 * this thread, for vendor libraries that run on it (kernels/blas/
 * vendor.c: cuBLAS); NULL with a message when CUDA cannot start. */
void *sk_cuda_stream(char *err, size_t errlen);

/* the driver's CUDA version, 1000 * major + 10 * minor (0: no driver) */
int sk_cuda_driver_version(void);

/* NVSHMEM (nvshmem.c): the symmetric heap under remote views in GPU
 * memory (backends/remote). available: its host library loads (else 0
 * and why). start: collective over the 'nranks' ranks of the remote back
 * end, which gives 'bcast' (rank 0's bytes to all; 0 or -1). malloc and
 * free are collective (the same size everywhere); malloc zeroes. ptr:
 * PE 'pe''s copy of symmetric 'p' as this GPU addresses it, NULL when it
 * cannot load from it. */
int sk_nvshmem_available(char *why, size_t n);
int sk_nvshmem_started(void);
int sk_nvshmem_start(int me, int nranks, int (*bcast)(void *buf, int bytes), char *err,
                     size_t errlen);
void *sk_nvshmem_malloc(size_t bytes, char *err, size_t errlen);
void sk_nvshmem_free(void *p);
void *sk_nvshmem_ptr(void *p, int pe);
void sk_nvshmem_quiet(void);
void sk_nvshmem_barrier(void);
void sk_nvshmem_stop(void);
void sk_nvshmem_info(char *buf, size_t n);

#endif
