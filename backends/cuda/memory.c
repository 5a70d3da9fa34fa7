/* memory.c: the CUDA memory spaces.
 *
 *   cuda         device memory (cuMemAlloc)
 *   cuda_pinned  page-locked host memory mapped into the device's address
 *                space (cuMemHostAlloc, portable + device-mapped)
 *   cuda_uvm     managed memory (cuMemAllocManaged). A request larger
 *                than the device's free memory is refused before asking
 *                the driver: oversubscribed managed memory can stall the
 *                GPU for everyone on it.
 *
 * Device memory ('cuda') comes from the device's default memory pool in
 * the order of the space's stream (cuMemAllocAsync / cuMemFreeAsync), the
 * pool keeping what is freed for the next request (a view of a graph's
 * size costs microseconds, not a cuMemAlloc and a synchronising cuMemFree
 * each); what it keeps is returned to the driver when a request would not
 * fit otherwise and before free memory is asked (sk_cuda_room).
 * SPECK_CUDA_POOL=0, or a device without memory pools: cuMemAlloc.
 *
 * Out of memory names the bytes asked and free; the view layer adds the
 * view's label. Copies run on the space's stream; they return when the
 * bytes are in place (deep_copy is blocking, as Kokkos' two-argument
 * form), except device-to-device copies, which stay ordered on the stream.
 * Copies on an instance's stream (speck.deep_copy's {instance = inst})
 * are instance.c's. Frees wait for the instances' earlier work there.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "core/err.h"
#include "cuda_int.h"

static void free_info(char *buf, size_t n) {
  size_t fr = 0, tot = 0;
  if (sk_cu->cuMemGetInfo_v2(&fr, &tot) == 0)
    sk_err(buf, n, SK_E_BYTES_FREE_DEVICE, fr, tot, sk_cuda.index);
  else sk_err(buf, n, SK_E_FREE_MEMORY_UNKNOWN);
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static CUmemoryPool pool;
static int pool_on;

static void pool_start(void) {
  const char *e = getenv("SPECK_CUDA_POOL");
  int ok = 0;
  unsigned long long keep = ~0ull;
  if ((e && strcmp(e, "0") == 0) ||
      sk_cu->cuDeviceGetAttribute(&ok, CU_DEV_ATTR_MEMORY_POOLS_SUPPORTED, sk_cuda.dev) ||
      !ok || sk_cu->cuDeviceGetDefaultMemPool(&pool, sk_cuda.dev) ||
      sk_cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep))
    return;
  pool_on = 1;
}

/* the pool's kept blocks back to the driver (after the stream's frees) */
void sk_cuda_pool_trim(void) {
  if (!pool_on || sk_cuda_recording()) return;
  sk_cu->cuStreamSynchronize(sk_cuda.stream);
  sk_cu->cuMemPoolTrimTo(pool, 0);
}

static CUresult device_alloc(CUdeviceptr *p, size_t bytes) {
  pthread_once(&pool_once, pool_start);
  if (!pool_on) return sk_cu->cuMemAlloc_v2(p, bytes);
  CUresult rc = sk_cu->cuMemAllocAsync(p, bytes, sk_cuda.stream);
  if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
    sk_cuda_pool_trim();
    rc = sk_cu->cuMemAllocAsync(p, bytes, sk_cuda.stream);
  }
  return rc;
}

void *sk_cuda_alloc(size_t bytes, int space, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return NULL;
  CUresult rc;
  char info[160];
  if (space == SK_SPACE_CUDA) {
    CUdeviceptr p = 0;
    rc = device_alloc(&p, bytes);
    if (rc == CUDA_SUCCESS) return (void *)(uintptr_t)p;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
      free_info(info, sizeof info);
      sk_err(err, errlen, SK_E_OUT_DEVICE_MEMORY, bytes, info);
      return NULL;
    }
  } else if (space == SK_SPACE_CUDA_PINNED) {
    void *p = NULL;
    rc = sk_cu->cuMemHostAlloc(&p, bytes,
                               CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (rc == CUDA_SUCCESS) return p;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
      sk_err(err, errlen, SK_E_OUT_PINNED_HOST, bytes);
      return NULL;
    }
  } else if (space == SK_SPACE_CUDA_UVM) {
    size_t fr = 0, tot = 0;
    sk_cuda_pool_trim();
    rc = sk_cu->cuMemGetInfo_v2(&fr, &tot);
    if (rc) {
      sk_cuda_fail(rc, "cuMemGetInfo", NULL, err, errlen);
      return NULL;
    }
    if (bytes > fr) {
      sk_err(err, errlen, SK_E_REFUSED_BYTES_MANAGED, bytes, fr, tot, sk_cuda.index);
      return NULL;
    }
    CUdeviceptr p = 0;
    rc = sk_cu->cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL);
    if (rc == CUDA_SUCCESS) return (void *)(uintptr_t)p;
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
      free_info(info, sizeof info);
      sk_err(err, errlen, SK_E_OUT_MANAGED_MEMORY, bytes, info);
      return NULL;
    }
  } else {
    sk_err(err, errlen, SK_E_SPACE_NOT_CUDA, sk_space_name(space));
    return NULL;
  }
  sk_cuda_fail(rc, "allocation", NULL, err, errlen);
  return NULL;
}

/* free device memory now, for sk_space_room (cuda and cuda_uvm); -1 when
 * the device cannot be asked (no GPU) or for pinned host memory */
int64_t sk_cuda_room(int space) {
  char err[128];
  size_t fr = 0, tot = 0;
  if ((space != SK_SPACE_CUDA && space != SK_SPACE_CUDA_UVM) ||
      sk_cuda_ensure(err, sizeof err) < 0)
    return -1;
  sk_cuda_pool_trim();
  if (sk_cu->cuMemGetInfo_v2(&fr, &tot) != 0) return -1;
  return (int64_t)fr;
}

/* Frees asked for while the stream records (a view collected during a
 * capture) are held back: a free in stream order would be recorded, and
 * nothing may wait for the stream. Done when the recording ends. */
typedef struct held { void *p; int space; } held;
static held *held_v;
static size_t held_n, held_cap;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

void sk_cuda_free_held(void) {
  pthread_mutex_lock(&held_lock);
  held *v = held_v;
  size_t n = held_n;
  held_v = NULL;
  held_n = held_cap = 0;
  pthread_mutex_unlock(&held_lock);
  for (size_t i = 0; i < n; i++) sk_cuda_free(v[i].p, v[i].space);
  free(v);
}

void sk_cuda_free(void *p, int space) {
  if (!p || !sk_cuda_ready() || sk_cuda_dead()) return;
  if (sk_cuda_recording()) {
    pthread_mutex_lock(&held_lock);
    if (held_n == held_cap) {
      size_t cap = held_cap ? 2 * held_cap : 16;
      held *nv = realloc(held_v, cap * sizeof *nv);
      if (!nv) { /* no room to remember it: the memory stays allocated */
        pthread_mutex_unlock(&held_lock);
        return;
      }
      held_v = nv;
      held_cap = cap;
    }
    held_v[held_n++] = (held){p, space};
    pthread_mutex_unlock(&held_lock);
    return;
  }
  char err[128];
  if (sk_cuda_ensure(err, sizeof err) < 0) return;
  /* pool memory is freed in stream order; otherwise kernels still queued
   * may use the memory */
  if (space == SK_SPACE_CUDA && pool_on) {
    sk_cuda_inst_drain(); /* after the instances' work too (instance.c) */
    sk_cu->cuMemFreeAsync((CUdeviceptr)(uintptr_t)p, sk_cuda.stream);
    return;
  }
  sk_cu->cuStreamSynchronize(sk_cuda.stream);
  sk_cuda_inst_sync_all("free", NULL, 0);
  if (space == SK_SPACE_CUDA_PINNED) sk_cu->cuMemFreeHost(p);
  else sk_cu->cuMemFree_v2((CUdeviceptr)(uintptr_t)p);
}

/* memory the device reaches: device, page-locked, managed */
static int cuda_space(int s) {
  return s == SK_SPACE_CUDA || s == SK_SPACE_CUDA_PINNED || s == SK_SPACE_CUDA_UVM;
}

int sk_cuda_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                 char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  if (sk_cuda_recording() && (!cuda_space(dspace) || !cuda_space(sspace))) {
    char what[96];
    sk_err(what, sizeof what, SK_E_COPY, sk_space_name(sspace), sk_space_name(dspace));
    return sk_err(err, errlen, SK_E_CAPTURE_NEEDS_HOST, what,
                  "the device cannot replay a copy of host memory");
  }
  if (!bytes) return 0;
  CUresult rc = sk_cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                                     (CUdeviceptr)(uintptr_t)src, bytes, sk_cuda.stream);
  if (rc) {
    char what[96];
    sk_err(what, sizeof what, SK_E_COPY, sk_space_name(sspace), sk_space_name(dspace));
    return sk_cuda_fail(rc, what, NULL, err, errlen);
  }
  int device_only = (dspace == SK_SPACE_CUDA || dspace == SK_SPACE_CUDA_UVM) &&
                    (sspace == SK_SPACE_CUDA || sspace == SK_SPACE_CUDA_UVM);
  if (device_only && dspace == SK_SPACE_CUDA) return 0;
  return sk_cuda_sync("copy", err, errlen);
}

/* Zero fill of fresh memory: on the stream, then waited for, since the
 * host may read pinned or managed memory at once. */
void sk_cuda_first_touch(void *p, size_t bytes) {
  char err[128];
  if (sk_cuda_ensure(err, sizeof err) < 0) return;
  sk_cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)p, 0, bytes, sk_cuda.stream);
  sk_cu->cuStreamSynchronize(sk_cuda.stream);
}

/* -- kept scratch ------------------------------------------------------------
 * Grown, never shrunk; callers hold sk_cuda_launch_lock (launch.c), so no
 * launch can hold a pointer that another one frees while growing. While
 * recorded graphs exist (graph.c) a grown-out buffer is parked, not freed:
 * their kernels keep its address; parked buffers go when the last graph
 * does. While the stream records, scratch cannot grow (the warm run
 * before the recording grew it). */
static void *scr[SK_NSCR];
static size_t scr_cap[SK_NSCR];
static void **parked;
static size_t nparked;

void sk_cuda_scratch_unpark(void) {
  pthread_mutex_lock(&sk_cuda_launch_lock);
  if (nparked && !sk_cuda_graphs_live()) {
    sk_cu->cuStreamSynchronize(sk_cuda.stream);
    for (size_t i = 0; i < nparked; i++)
      sk_cu->cuMemFree_v2((CUdeviceptr)(uintptr_t)parked[i]);
    free(parked);
    parked = NULL;
    nparked = 0;
  }
  pthread_mutex_unlock(&sk_cuda_launch_lock);
}

void *sk_cuda_scratch(int which, size_t bytes, char *err, size_t errlen) {
  if (bytes <= scr_cap[which] && scr[which]) return scr[which];
  if (sk_cuda_recording()) {
    sk_err(err, errlen, SK_E_CAPTURE_SCRATCH_GROWS, bytes);
    return NULL;
  }
  if (scr[which] && sk_cuda_graphs_live()) { /* graphs hold its address */
    void **np = realloc(parked, (nparked + 1) * sizeof *np);
    if (np) {
      parked = np;
      parked[nparked++] = scr[which];
      scr[which] = NULL;
      scr_cap[which] = 0;
    }
  }
  if (scr[which]) { /* launches on every stream may still use it */
    sk_cu->cuStreamSynchronize(sk_cuda.stream);
    sk_cuda_inst_sync_all("free", NULL, 0);
    sk_cu->cuMemFree_v2((CUdeviceptr)(uintptr_t)scr[which]);
    scr[which] = NULL;
    scr_cap[which] = 0;
  }
  size_t want = bytes < 4096 ? 4096 : bytes + bytes / 4;
  CUdeviceptr p = 0;
  CUresult rc = sk_cu->cuMemAlloc_v2(&p, want);
  if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
    sk_cuda_pool_trim();
    rc = sk_cu->cuMemAlloc_v2(&p, want);
  }
  if (rc) {
    char info[160];
    free_info(info, sizeof info);
    sk_err(err, errlen, SK_E_OUT_DEVICE_MEMORY_LAUNCH, want, info);
    return NULL;
  }
  /* zeroed: the reduction counter lives at the start of RESULT; waited
   * for while instances exist, as the launch that asked may run on an
   * instance's stream, ordered after the default stream before this */
  sk_cu->cuMemsetD8Async(p, 0, want, sk_cuda.stream);
  if (sk_cuda_inst_any()) sk_cu->cuStreamSynchronize(sk_cuda.stream);
  scr[which] = (void *)(uintptr_t)p;
  scr_cap[which] = want;
  return scr[which];
}

void *sk_cuda_pinned_result(size_t bytes, char *err, size_t errlen) {
  static void *p;
  static size_t cap;
  if (bytes <= cap && p) return p;
  if (p) sk_cu->cuMemFreeHost(p);
  p = NULL;
  cap = 0;
  size_t want = bytes < 4096 ? 4096 : bytes;
  CUresult rc = sk_cu->cuMemHostAlloc(&p, want, CU_MEMHOSTALLOC_PORTABLE);
  if (rc) {
    p = NULL;
    sk_cuda_fail(rc, "pinned result buffer", NULL, err, errlen);
    return NULL;
  }
  cap = want;
  return p;
}
