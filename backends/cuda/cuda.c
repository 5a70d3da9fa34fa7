/* cuda.c: the CUDA back end's table (core/backend.h).
 *
 * The pieces: loader.c (dlopen of libcuda), device.c (device, primary
 * context, stream, errors, the architecture to compile for), memory.c
 * (the cuda, cuda_pinned and cuda_uvm spaces), pack.c (device-side
 * strided copies and fills), launch.c (loading the JIT's images, grids
 * and launches), instance.c (speck.Instance: a stream each), graph.c
 * (speck.graph_capture: stream capture into graphs, replayed), nvshmem.c (symmetric memory for remote views), blas.c
 * (cuBLAS). Its spaces, devices, vendor BLAS and symmetric memory are
 * all in the table: no layer above names CUDA. Its code target is CUDA C: the JIT compiles kernels for
 * the architecture 'arch' names into images that 'load' takes; the back
 * end itself compiles nothing. Nothing is loaded until first use; without
 * a driver every entry fails with the reason.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
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
  sk_cuda_inst_sync_all("finalize", NULL, 0);
}

static int cuda_concurrency(void) {
  return sk_cuda_ready() ? sk_cuda.sms * sk_cuda.max_threads_sm : 1;
}

static int cuda_fence(char *err, size_t errlen) {
  /* recording (graph.c): a fence inside a copy is the stream's order; a
   * user's fence was refused above */
  if (!sk_cuda_ready() || sk_cuda_recording()) return 0;
  if (sk_cuda_dead()) {
    sk_err(err, errlen, SK_E_MSG, sk_cuda.dead_msg);
    return -1;
  }
  /* every instance too: speck.fence() waits for all the space's work */
  if (sk_cuda_sync("fence", err, errlen) < 0) return -1;
  return sk_cuda_inst_sync_all("fence", err, errlen);
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

/* CUDA kernels reach the three CUDA spaces and the remote space over
 * device memory; the back end allocates the three */
static int cuda_owns(int space) {
  return space == SK_SPACE_CUDA || space == SK_SPACE_CUDA_PINNED ||
         space == SK_SPACE_CUDA_UVM;
}

static int cuda_reaches(int space) { return cuda_owns(sk_space_local(space)); }

/* SPECK_CUDA_UVM=1: new views in managed memory (cuda_uvm, as Kokkos
 * built with CUDA_UVM), so scripts can read results from Lua */
static int cuda_default_space(void) {
  const char *u = getenv("SPECK_CUDA_UVM");
  return u && *u && strcmp(u, "0") != 0 ? SK_SPACE_CUDA_UVM : SK_SPACE_CUDA;
}

/* SPECK_CUDA_MEMORY_MAX: a budget for the views in device memory (cuda
 * and cuda_uvm) below the device's own size; 0 when unset */
static uint64_t cuda_budget(char *desc, size_t n) {
  return sk_env_memory_max("SPECK_CUDA_MEMORY_MAX", desc, n);
}

/* the devices, for speck.info() (none without a driver) */
static int cuda_devices(sk_device *out, int max) {
  int k = 0;
  for (int d = 0, nd = sk_cuda_device_count(); d < nd && k < max; d++) {
    sk_cuda_devinfo di;
    if (sk_cuda_device_info(d, &di) < 0) continue;
    sk_device *o = &out[k++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", di.name);
    snprintf(o->arch, sizeof o->arch, "sm_%d%d", di.major, di.minor);
    o->multiprocessors = di.sms;
    o->memory = di.total;
    o->free = di.free;
    o->shared_per_block = di.smem_optin;
  }
  return k;
}

/* the spaces: views in device memory spill to page-locked host memory the
 * kernels read in place; device and managed memory default to 'left'
 * (coalesced) and count against SPECK_CUDA_MEMORY_MAX, page-locked memory
 * against the host's budget */
static const sk_space_desc cuda_spaces[] = {
  {.name = "cuda",
   .id = SK_SPACE_CUDA,
   .default_layout = SK_LEFT,
   .spill = "cuda_pinned",
   .budget = cuda_budget,
   .budget_env = "SPECK_CUDA_MEMORY_MAX",
   .tools_name = "Cuda"},
  {.name = "cuda_pinned",
   .id = SK_SPACE_CUDA_PINNED,
   .host_accessible = 1,
   .default_layout = SK_RIGHT,
   .budget = sk_host_memory,
   .tools_name = "CudaHostPinned"},
  {.name = "cuda_uvm",
   .id = SK_SPACE_CUDA_UVM,
   .host_accessible = 1,
   .default_layout = SK_LEFT,
   .spill = "cuda_pinned",
   .budget = cuda_budget,
   .budget_env = "SPECK_CUDA_MEMORY_MAX",
   .tools_name = "CudaUVM"},
  {.name = "remote_cuda",
   .id = SK_SPACE_REMOTE_CUDA,
   .default_layout = SK_RIGHT,
   .local = "cuda",
   .tools_name = "NVSHMEMSpace"},
  {.name = NULL},
};

/* NVSHMEM (nvshmem.c): symmetric memory for remote views in device memory */
static const sk_symmetric cuda_symmetric = {
  .available = sk_nvshmem_available,
  .started = sk_nvshmem_started,
  .start = sk_nvshmem_start,
  .malloc = sk_nvshmem_malloc,
  .free = sk_nvshmem_free,
  .ptr = sk_nvshmem_ptr,
  .quiet = sk_nvshmem_quiet,
  .stop = sk_nvshmem_stop,
  .info = sk_nvshmem_info,
};

static int cuda_stack(size_t bytes, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  size_t cur = 0;
  if (sk_cu->cuCtxGetLimit(&cur, CU_LIMIT_STACK_SIZE) == 0 && cur >= bytes) return 0;
  CUresult rc = sk_cu->cuCtxSetLimit(CU_LIMIT_STACK_SIZE, bytes);
  if (rc) return sk_cuda_fail(rc, "cuCtxSetLimit (stack size)", NULL, err, errlen);
  return 0;
}

/* serial's table, with what CUDA does differently: all but the reference
 * entries are overridden */
SK_FROM_SERIAL_BEGIN
const sk_backend sk_backend_cuda = {
  SK_FROM_SERIAL,
  .name = "cuda",
  .env = "SPECK_CUDA_DEVICE, SPECK_CUDA_MEMORY_MAX, SPECK_CUDA_SYNC, SPECK_CUDA_UVM, SPECK_NVSHMEM_LIB",
  .space = SK_SPACE_CUDA,
  .code = SK_CODE_IMAGE,
  .target = "cuda",
  .features = 0,
  .spaces = cuda_spaces,
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
  .launch = sk_cuda_launch,
  .info = cuda_info,
  .team_limits = sk_cuda_team_limits,
  .copy_view = sk_cuda_copy_view,
  .fill_view = sk_cuda_fill_view,
  .room = sk_cuda_room,
  .stack = cuda_stack,
  .default_space = cuda_default_space,
  .devices = cuda_devices,
  .blas = &sk_cuda_blas,
  .symmetric = &cuda_symmetric,
  .tasks = &sk_cuda_tasks,
  .instance_create = sk_cuda_inst_create,
  .instance_destroy = sk_cuda_inst_destroy,
  .instance_fence = sk_cuda_inst_fence,
  .copy_async = sk_cuda_copy_async,
  .capture_begin = sk_cuda_capture_begin,
  .capture_end = sk_cuda_capture_end,
  .replay = sk_cuda_replay,
  .replay_free = sk_cuda_replay_free,
};
SK_FROM_SERIAL_END
