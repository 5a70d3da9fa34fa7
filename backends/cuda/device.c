/* device.c: the CUDA device in use: selection, primary context, the
 * space instance's stream, error mapping and device descriptions.
 *
 * Nothing happens before first use: speck --info loads libcuda and asks
 * for the device count (cuInit), the first allocation, launch or
 * speck.initialize{space = "cuda"} retains the device's primary context
 * (one per device, shared with any other CUDA user in the process) and
 * creates one non-blocking stream, where every kernel and copy of the
 * space runs in order (the default instance; work on a speck.Instance
 * runs on that instance's own stream: instance.c).
 *
 * A kernel that faults (illegal address, ...) leaves the context unusable;
 * the back end then answers every call with a message naming the kernel
 * whose launch came last, and the process stays able to report it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "cuda_int.h"

sk_cuda_dev sk_cuda;
const sk_cu_api *sk_cu;
pthread_mutex_t sk_cuda_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t sk_cuda_launch_lock = PTHREAD_MUTEX_INITIALIZER;
static int want_device = -1;
static _Thread_local CUcontext thread_ctx;
/* the latest launch's label: 'last_ptr' under sk_cuda_launch_lock (every
 * caller of sk_cuda_set_last holds it), the copy under 'last_lock' */
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static char last_label[128];
static const char *last_ptr;

/* per launch: copies only when the label changes (cheap in a loop) */
void sk_cuda_set_last(const char *label) {
  if (label == last_ptr) return;
  last_ptr = label;
  pthread_mutex_lock(&last_lock);
  snprintf(last_label, sizeof last_label, "%s", label ? label : "");
  pthread_mutex_unlock(&last_lock);
}

/* A sticky error marks the context dead once, naming the kernel ('label',
 * else the latest launch's: the fault shows at a later call). */
int sk_cuda_fail(CUresult rc, const char *what, const char *label, char *err,
                 size_t errlen) {
  char e[256];
  sk_cu_errstr(rc, e, sizeof e);
  if (sk_cu_sticky(rc)) {
    pthread_mutex_lock(&last_lock);
    if (!sk_cuda.dead) {
      sk_err(sk_cuda.dead_msg, sizeof sk_cuda.dead_msg, SK_E_KERNEL_FAULTED_DEVICE,
             label && *label ? label : last_label, sk_cuda.index, e);
      __atomic_store_n(&sk_cuda.dead, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&last_lock);
    sk_err(err, errlen, SK_E_MSG, sk_cuda.dead_msg);
    return -1;
  }
  sk_err(err, errlen, SK_E_PREFIX, what, e);
  return -1;
}

int sk_cuda_select(int device, char *err, size_t errlen) {
  pthread_mutex_lock(&sk_cuda_lock);
  if (sk_cuda.ready && device >= 0 && sk_cuda.index != device) {
    pthread_mutex_unlock(&sk_cuda_lock);
    sk_err(err, errlen, SK_E_DEVICE_WAS_ASKED, device, sk_cuda.index);
    return -1;
  }
  if (!sk_cuda.ready) want_device = device; /* -1: the default */
  pthread_mutex_unlock(&sk_cuda_lock);
  return 0;
}

static int attr(int a) {
  int v = 0;
  sk_cu->cuDeviceGetAttribute(&v, a, sk_cuda.dev);
  return v;
}

/* SPECK_CUDA_SYNC: how a thread waiting for the device (a fence, a
 * result read back) waits -- "spin" on its core (the least latency),
 * "yield" its core to other threads between polls, "block" asleep until
 * the device signals; unset, the driver's choice (spin while a process
 * has fewer contexts than the machine has cores). Many processes sharing
 * one GPU (a test suite's jobs) spin a core each while their kernels
 * wait their turn: "yield" hands those cores to the compiles. 0 (unset),
 * a CU_CTX_SCHED_* flag, or -1 with the message. */
static int sync_flags(char *err, size_t errlen) {
  static const struct { const char *name; int flag; } modes[] = {
    {"spin", CU_CTX_SCHED_SPIN}, {"yield", CU_CTX_SCHED_YIELD},
    {"block", CU_CTX_SCHED_BLOCKING_SYNC}};
  const char *e = getenv("SPECK_CUDA_SYNC");
  if (!e || !*e) return 0;
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
    if (!strcmp(e, modes[i].name)) return modes[i].flag;
  sk_err(err, errlen, SK_E_CUDA_SYNC_VALUE, e);
  return -1;
}

static int open_device(char *err, size_t errlen) {
  char why[1024];
  sk_cu = sk_cu_load(why, sizeof why);
  if (!sk_cu) {
    sk_err(err, errlen, SK_E_CUDA_NOT_AVAILABLE, why);
    return -1;
  }
  int idx = want_device;
  int count = 0;
  sk_cu->cuDeviceGetCount(&count);
  if (idx < 0) {
    const char *e = getenv("SPECK_CUDA_DEVICE");
    idx = e && *e ? atoi(e) : 0;
    /* an MPI job: the rank's place on its node picks its GPU (round
     * robin), as Kokkos does, so one rank per GPU needs no setting */
    static const char *const local_rank[] = {
      "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK",
      "SLURM_LOCALID", NULL};
    for (int i = 0; !(e && *e) && local_rank[i] && count > 0; i++) {
      const char *lr = getenv(local_rank[i]);
      if (lr && *lr) {
        idx = atoi(lr) % count;
        break;
      }
    }
  }
  if (idx < 0 || idx >= count) {
    sk_err(err, errlen, SK_E_DEVICE_OUT_RANGE, idx, count, count == 1 ? "" : "s");
    return -1;
  }
  int sched = sync_flags(err, errlen);
  if (sched < 0) return -1;
  CUresult rc = sk_cu->cuDeviceGet(&sk_cuda.dev, idx);
  if (rc) return sk_cuda_fail(rc, "cuDeviceGet", NULL, err, errlen);
  if (sched) {
    rc = sk_cu->cuDevicePrimaryCtxSetFlags_v2(sk_cuda.dev, (unsigned)sched);
    if (rc) return sk_cuda_fail(rc, "cuDevicePrimaryCtxSetFlags", NULL, err, errlen);
  }
  rc = sk_cu->cuDevicePrimaryCtxRetain(&sk_cuda.ctx, sk_cuda.dev);
  if (rc) return sk_cuda_fail(rc, "cuDevicePrimaryCtxRetain", NULL, err, errlen);
  rc = sk_cu->cuCtxSetCurrent(sk_cuda.ctx);
  if (rc) return sk_cuda_fail(rc, "cuCtxSetCurrent", NULL, err, errlen);
  rc = sk_cu->cuStreamCreate(&sk_cuda.stream, CU_STREAM_NON_BLOCKING);
  if (rc) return sk_cuda_fail(rc, "cuStreamCreate", NULL, err, errlen);
  sk_cuda.index = idx;
  sk_cu->cuDeviceGetName(sk_cuda.name, sizeof sk_cuda.name, sk_cuda.dev);
  sk_cu->cuDeviceTotalMem_v2(&sk_cuda.total, sk_cuda.dev);
  sk_cuda.major = attr(CU_DEV_ATTR_COMPUTE_CAPABILITY_MAJOR);
  sk_cuda.minor = attr(CU_DEV_ATTR_COMPUTE_CAPABILITY_MINOR);
  sk_cuda.sms = attr(CU_DEV_ATTR_MULTIPROCESSOR_COUNT);
  sk_cuda.warp = attr(CU_DEV_ATTR_WARP_SIZE);
  sk_cuda.max_threads = attr(CU_DEV_ATTR_MAX_THREADS_PER_BLOCK);
  sk_cuda.max_threads_sm = attr(CU_DEV_ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
  sk_cuda.smem_block = attr(CU_DEV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK);
  sk_cuda.smem_optin = attr(CU_DEV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  sk_cuda.grid_y = attr(CU_DEV_ATTR_MAX_GRID_DIM_Y);
  sk_cuda.grid_z = attr(CU_DEV_ATTR_MAX_GRID_DIM_Z);
  if (sk_cuda.smem_optin < sk_cuda.smem_block) sk_cuda.smem_optin = sk_cuda.smem_block;
  if (sk_cuda.warp != 32) {
    sk_err(err, errlen, SK_E_DEVICE_WARPS_THREADS, idx, sk_cuda.warp);
    return -1;
  }
  snprintf(sk_cuda.arch, sizeof sk_cuda.arch, "sm_%d%d", sk_cuda.major, sk_cuda.minor);
  /* the interrupt word (kept for the process, as the context): without
   * it kernels run to their end */
  void *sw = NULL;
  if (sk_cu->cuMemHostAlloc(&sw, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) ==
      0) {
    memset(sw, 0, 64);
    sk_cuda.stop_word = sw;
    sk_body_flag_mirror(sw);
  }
  thread_ctx = sk_cuda.ctx;
  __atomic_store_n(&sk_cuda.ready, 1, __ATOMIC_RELEASE);
  return 0;
}

int sk_cuda_ensure(char *err, size_t errlen) {
  if (sk_cuda_ready()) {
    if (sk_cuda_dead()) {
      sk_err(err, errlen, SK_E_MSG, sk_cuda.dead_msg);
      return -1;
    }
    if (thread_ctx != sk_cuda.ctx) {
      CUresult rc = sk_cu->cuCtxSetCurrent(sk_cuda.ctx);
      if (rc) return sk_cuda_fail(rc, "cuCtxSetCurrent", NULL, err, errlen);
      thread_ctx = sk_cuda.ctx;
    }
    return 0;
  }
  pthread_mutex_lock(&sk_cuda_lock);
  int rc = sk_cuda.ready ? 0 : open_device(err, errlen);
  pthread_mutex_unlock(&sk_cuda_lock);
  if (rc < 0) return -1;
  return sk_cuda_ensure(err, errlen);
}

int sk_cuda_sync(const char *what, char *err, size_t errlen) {
  /* recording: the stream's order is the wait (graph.c) */
  if (!sk_cuda_ready() || sk_cuda_recording()) return 0;
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  sk_interruptible_enter(); /* Ctrl-C stops the kernels' loops */
  CUresult rc = sk_cu->cuStreamSynchronize(sk_cuda.stream);
  sk_interruptible_leave();
  if (rc) return sk_cuda_fail(rc, what, NULL, err, errlen);
  /* a kernel waited for here had its loops ended by an interrupt */
  if (sk_cuda.stop_word && (__atomic_load_n(sk_cuda.stop_word, __ATOMIC_RELAXED) & 1)) {
    sk_interrupt_reported();
    sk_err(err, errlen, SK_E_INTERRUPTED);
    return -1;
  }
  return 0;
}

/* -- for the layers above ---------------------------------------------------- */
/* The table's 'arch': "sm_XY" of the device in use (made usable here, as
 * the kernel will run on it), or 0 when there is none (the JIT then
 * compiles only). Which of those NVRTC can make a cubin for is the JIT's
 * business. */
int sk_cuda_arch(char *buf, size_t n) {
  char err[256];
  /* per launch (the spec carries it): one string copy once ready */
  if (!sk_cuda_ready() && (!sk_cu_load(NULL, 0) || sk_cuda_ensure(err, sizeof err) < 0))
    return 0;
  size_t len = strlen(sk_cuda.arch);
  if (len >= n) return 0;
  memcpy(buf, sk_cuda.arch, len + 1);
  return 1;
}

int sk_cuda_device_count(void) {
  const sk_cu_api *cu = sk_cu_load(NULL, 0);
  int n = 0;
  if (cu && cu->cuDeviceGetCount(&n) != 0) n = 0;
  return n;
}

int sk_cuda_device_info(int i, sk_cuda_devinfo *d) {
  const sk_cu_api *cu = sk_cu_load(NULL, 0);
  memset(d, 0, sizeof *d);
  CUdevice dev;
  if (!cu || cu->cuDeviceGet(&dev, i) != 0) return -1;
  cu->cuDeviceGetName(d->name, sizeof d->name, dev);
  cu->cuDeviceTotalMem_v2(&d->total, dev);
  int v;
#define A(field, a) (cu->cuDeviceGetAttribute(&v, a, dev), d->field = v)
  A(major, CU_DEV_ATTR_COMPUTE_CAPABILITY_MAJOR);
  A(minor, CU_DEV_ATTR_COMPUTE_CAPABILITY_MINOR);
  A(sms, CU_DEV_ATTR_MULTIPROCESSOR_COUNT);
  A(max_threads, CU_DEV_ATTR_MAX_THREADS_PER_BLOCK);
  A(warp, CU_DEV_ATTR_WARP_SIZE);
  A(smem_block, CU_DEV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK);
  A(smem_optin, CU_DEV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
#undef A
  /* free memory only for the device in use (no context elsewhere) */
  if (sk_cuda_ready() && !sk_cuda_dead() && sk_cuda.index == i) {
    char err[64];
    size_t fr = 0, tot = 0;
    if (sk_cuda_ensure(err, sizeof err) == 0 && sk_cu->cuMemGetInfo_v2(&fr, &tot) == 0)
      d->free = fr;
  }
  return 0;
}

int sk_cuda_driver_version(void) {
  return sk_cu_load(NULL, 0) ? sk_cu_driver_version() : 0;
}

void *sk_cuda_stream(char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return NULL;
  return (void *)sk_cuda.stream;
}
