/* cuda.c: the CUDA back end's table (core/backend.h).
 *
 * The pieces: loader.c (dlopen of libcuda), device.c (device, primary
 * context, stream, errors, the architecture to compile for), memory.c
 * (the cuda, cuda_pinned and cuda_uvm spaces), pack.c (device-side
 * strided copies and fills), launch.c (loading the JIT's images, grids
 * and launches). Its code target is CUDA C: the JIT compiles kernels for
 * the architecture 'arch' names into images that 'load' takes; the back
 * end itself compiles nothing. Nothing is loaded until first use; without
 * a driver every entry fails with the reason.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cuda_int.h"

/* 1 when kernels can run: libcuda loads and a device exists (whether
 * they can also be compiled here is the JIT's to say: NVRTC) */
static int cuda_available(char *why, size_t n) {
  char w[1600];
  if (!sk_cu_load(w, sizeof w)) {
    snprintf(why, n, "%s", w);
    return 0;
  }
  return 1;
}

static int cuda_init(int threads, int device, char *err, size_t errlen) {
  (void)threads;
  if (sk_cuda_select(device, err, errlen) < 0) return -1;
  return sk_cuda_ensure(err, errlen);
}

/* Views may outlive finalize: the context and the stream stay; pending
 * work is waited for. */
static void cuda_finalize(void) {
  char err[256];
  sk_cuda_sync("finalize", err, sizeof err);
}

static int cuda_concurrency(void) {
  return sk_cuda_ready() ? sk_cuda.sms * sk_cuda.max_threads_sm : 1;
}

static int cuda_fence(char *err, size_t errlen) {
  if (!sk_cuda_ready()) return 0;
  if (sk_cuda_dead()) {
    snprintf(err, errlen, "%s", sk_cuda.dead_msg);
    return -1;
  }
  return sk_cuda_sync("fence", err, errlen);
}

static void cuda_info(char *buf, size_t n) {
  char why[1600];
  if (!cuda_available(why, sizeof why)) {
    snprintf(buf, n, "cuda: not available (%s)", why);
    return;
  }
  sk_cuda_devinfo d;
  int dev = sk_cuda_ready() ? sk_cuda.index : 0;
  sk_cuda_device_info(dev, &d);
  int dv = sk_cuda_driver_version();
  snprintf(buf, n,
           "cuda: device %d of %d, %s (sm_%d%d, %d SMs, %.1f GiB), driver CUDA "
           "%d.%d",
           dev, sk_cuda_device_count(), d.name, d.major, d.minor, d.sms,
           (double)d.total / (1 << 30), dv / 1000, dv % 1000 / 10);
}

/* CUDA kernels reach every space but plain host memory; the back end
 * allocates all three CUDA spaces */
static int cuda_reaches(int space) {
  return space != SK_SPACE_HOST && space != SK_SPACE_REMOTE;
}

static int cuda_owns(int space) {
  return space == SK_SPACE_CUDA || space == SK_SPACE_CUDA_PINNED ||
         space == SK_SPACE_CUDA_UVM;
}

static int cuda_stack(size_t bytes, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  size_t cur = 0;
  if (sk_cu->cuCtxGetLimit(&cur, CU_LIMIT_STACK_SIZE) == 0 && cur >= bytes) return 0;
  CUresult rc = sk_cu->cuCtxSetLimit(CU_LIMIT_STACK_SIZE, bytes);
  if (rc) return sk_cuda_fail(rc, "cuCtxSetLimit (stack size)", NULL, err, errlen);
  return 0;
}

const sk_backend sk_backend_cuda = {
  .name = "cuda",
  .space = SK_SPACE_CUDA,
  .code = SK_CODE_IMAGE, .target = "cuda",
  .arch = sk_cuda_arch,
  .load = sk_cuda_load,
  .unload = sk_cuda_unload,
  .reaches = cuda_reaches,
  .owns = cuda_owns,
  .init = cuda_init,
  .finalize = cuda_finalize,
  .available = cuda_available,
  .concurrency = cuda_concurrency,
  .alloc = sk_cuda_alloc,
  .free = sk_cuda_free,
  .copy = sk_cuda_copy,
  .first_touch = sk_cuda_first_touch,
  .fence = cuda_fence,
  .launch_range = sk_cuda_launch,
  .launch_mdrange = sk_cuda_launch,
  .launch_team = sk_cuda_launch,
  .launch_reduce = sk_cuda_launch,
  .launch_scan = sk_cuda_launch,
  .info = cuda_info,
  .team_limits = sk_cuda_team_limits,
  .copy_view = sk_cuda_copy_view,
  .fill_view = sk_cuda_fill_view,
  .room = sk_cuda_room,
  .stack = cuda_stack,
};
