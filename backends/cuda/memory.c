/* memory.c: the CUDA memory spaces.
 *
 *   cuda         device memory (cuMemAlloc)
 *   cuda_pinned  page-locked host memory mapped into the device's address
 *                space (cuMemHostAlloc, portable + device-mapped)
 *   cuda_uvm     managed memory (cuMemAllocManaged). A request larger
 *                than the device's free memory is refused before asking
 *                the driver: oversubscribed managed memory can stall the
 *                GPU for everyone on it. Blocks of up to 1 MiB are kept
 *                when freed, for the next request of their size class
 *                (below: "kept managed blocks").
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

/* -- kept managed blocks ------------------------------------------------
 * A managed view's cuMemAllocManaged and cuMemFree, with the free-memory
 * check before the allocation (the stream waited for, the pool trimmed,
 * cuMemGetInfo), cost a view of a few KB about 0.3 ms more than device
 * memory in one process and 0.9 ms with 16 processes on one GPU under MPS
 * (docs/bench.md); a test suite makes and drops tens of thousands. So a
 * request of up to 1 MiB gets a block of its size class (a power of two
 * from 4 KiB), and a freed one is kept, at most UVM_KEEP_MOST bytes in
 * all, for the next request of its class: no driver call, no check (the
 * driver itself still refuses what it cannot give). A free waits for the
 * stream and the instances as before, so a kept block is idle; the view
 * layer zeroes what it must (first touch), as for fresh memory. The
 * pool's trim (before a larger request's check, sk_cuda_room, out of
 * memory) gives them back to the driver. The class of every such block
 * the driver gave is in 'uvm_live' (pointer -> class, open addressing). */
#define UVM_MIN_SHIFT 12 /* 4 KiB */
#define UVM_CLASSES   9  /* .. 1 MiB */
#define UVM_KEEP_MOST ((size_t)64 << 20)
static pthread_mutex_t uvm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  void **p;
  int n, cap;
} uvm_kept[UVM_CLASSES];
static size_t uvm_kept_bytes;
typedef struct {
  uintptr_t p; /* 0: empty */
  int cls;
} uvm_ent;
static uvm_ent *uvm_live;
static size_t uvm_live_cap, uvm_live_n; /* cap: 0 or a power of two */

/* the class of a request of 'bytes' (-1: larger than the largest) */
static int uvm_class(size_t bytes) {
  for (int c = 0; c < UVM_CLASSES; c++)
    if (bytes <= (size_t)1 << (UVM_MIN_SHIFT + c)) return c;
  return -1;
}

static size_t uvm_home(uintptr_t p) {
  return (size_t)(((uint64_t)p >> UVM_MIN_SHIFT) * 0x9E3779B97F4A7C15ull >> 16) &
         (uvm_live_cap - 1);
}

/* record block 'p' of class 'cls' (uvm_lock held); -1 out of memory */
static int uvm_live_put(uintptr_t p, int cls) {
  if ((uvm_live_n + 1) * 2 > uvm_live_cap) {
    size_t ocap = uvm_live_cap, ncap = ocap ? 2 * ocap : 256;
    uvm_ent *old = uvm_live, *nv = calloc(ncap, sizeof *nv);
    if (!nv) return -1;
    uvm_live = nv;
    uvm_live_cap = ncap;
    uvm_live_n = 0;
    for (size_t i = 0; i < ocap; i++)
      if (old[i].p) (void)uvm_live_put(old[i].p, old[i].cls);
    free(old);
  }
  size_t i = uvm_home(p);
  while (uvm_live[i].p) i = (i + 1) & (uvm_live_cap - 1);
  uvm_live[i] = (uvm_ent){p, cls};
  uvm_live_n++;
  return 0;
}

/* the slot of block 'p' (uvm_lock held); -1 when not recorded */
static long uvm_live_find(uintptr_t p) {
  if (!uvm_live_cap) return -1;
  for (size_t i = uvm_home(p);; i = (i + 1) & (uvm_live_cap - 1)) {
    if (uvm_live[i].p == p) return (long)i;
    if (!uvm_live[i].p) return -1;
  }
}

/* forget slot 'i' (uvm_lock held): the entries after it move up where
 * their probe passes it */
static void uvm_live_drop(size_t i) {
  const size_t mask = uvm_live_cap - 1;
  for (size_t j = (i + 1) & mask; uvm_live[j].p; j = (j + 1) & mask) {
    size_t k = uvm_home(uvm_live[j].p);
    if (((i - k) & mask) < ((j - k) & mask)) {
      uvm_live[i] = uvm_live[j];
      i = j;
    }
  }
  uvm_live[i].p = 0;
  uvm_live_n--;
}

/* a kept block of class 'cls', or NULL */
static void *uvm_take(int cls) {
  void *p = NULL;
  pthread_mutex_lock(&uvm_lock);
  if (uvm_kept[cls].n > 0) {
    p = uvm_kept[cls].p[--uvm_kept[cls].n];
    uvm_kept_bytes -= (size_t)1 << (UVM_MIN_SHIFT + cls);
  }
  pthread_mutex_unlock(&uvm_lock);
  return p;
}

/* a new block of class 'cls' from the driver, recorded */
static CUresult uvm_new(int cls, CUdeviceptr *p) {
  CUresult rc = sk_cu->cuMemAllocManaged(p, (size_t)1 << (UVM_MIN_SHIFT + cls),
                                         CU_MEM_ATTACH_GLOBAL);
  if (rc != CUDA_SUCCESS) return rc;
  /* one left unrecorded (no memory for the table) is freed as any */
  pthread_mutex_lock(&uvm_lock);
  (void)uvm_live_put((uintptr_t)*p, cls);
  pthread_mutex_unlock(&uvm_lock);
  return CUDA_SUCCESS;
}

/* keep freed managed block 'p' (1), or leave it to the caller (0) */
static int uvm_keep(void *p) {
  int kept = 0;
  pthread_mutex_lock(&uvm_lock);
  long i = uvm_live_find((uintptr_t)p);
  if (i >= 0) {
    int c = uvm_live[i].cls;
    size_t sz = (size_t)1 << (UVM_MIN_SHIFT + c);
    if (uvm_kept_bytes + sz <= UVM_KEEP_MOST) {
      if (uvm_kept[c].n == uvm_kept[c].cap) {
        int ncap = uvm_kept[c].cap ? 2 * uvm_kept[c].cap : 16;
        void **nv = realloc(uvm_kept[c].p, (size_t)ncap * sizeof *nv);
        if (nv) uvm_kept[c].p = nv, uvm_kept[c].cap = ncap;
      }
      if (uvm_kept[c].n < uvm_kept[c].cap) {
        uvm_kept[c].p[uvm_kept[c].n++] = p;
        uvm_kept_bytes += sz;
        kept = 1;
      }
    }
    if (!kept) uvm_live_drop((size_t)i);
  }
  pthread_mutex_unlock(&uvm_lock);
  return kept;
}

/* the kept blocks back to the driver (they are idle: see sk_cuda_free) */
static void uvm_release(void) {
  pthread_mutex_lock(&uvm_lock);
  for (int c = 0; c < UVM_CLASSES; c++) {
    for (int k = 0; k < uvm_kept[c].n; k++) {
      long i = uvm_live_find((uintptr_t)uvm_kept[c].p[k]);
      if (i >= 0) uvm_live_drop((size_t)i);
      sk_cu->cuMemFree_v2((CUdeviceptr)(uintptr_t)uvm_kept[c].p[k]);
    }
    uvm_kept[c].n = 0;
  }
  uvm_kept_bytes = 0;
  pthread_mutex_unlock(&uvm_lock);
}

/* the pool's kept blocks back to the driver (after the stream's frees),
 * and the kept managed blocks */
void sk_cuda_pool_trim(void) {
  if (sk_cuda_recording()) return;
  uvm_release();
  if (!pool_on) return;
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
    CUdeviceptr p = 0;
    const int cls = uvm_class(bytes);
    if (cls >= 0) { /* a small block: a kept one, else a new one of its class */
      void *kept = uvm_take(cls);
      if (kept) return kept;
      rc = uvm_new(cls, &p);
      if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
        sk_cuda_pool_trim();
        rc = uvm_new(cls, &p);
      }
      if (rc == CUDA_SUCCESS) return (void *)(uintptr_t)p;
    } else {
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
      rc = sk_cu->cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL);
      if (rc == CUDA_SUCCESS) return (void *)(uintptr_t)p;
    }
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
  else if (space != SK_SPACE_CUDA_UVM || !uvm_keep(p))
    sk_cu->cuMemFree_v2((CUdeviceptr)(uintptr_t)p);
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
