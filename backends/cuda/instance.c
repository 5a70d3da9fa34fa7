/* instance.c: execution-space instances on the device (speck.Instance),
 * each a non-blocking stream of its own beside the space's stream
 * (sk_cuda.stream, the default instance, where launches without an
 * instance, allocations and frees run).
 *
 * Order across the streams, kept with events (never a wait on the host):
 *   - an instance's work starts after what the default stream holds when
 *     it is queued (the views it reads were allocated, zeroed or written
 *     there): each launch or copy on an instance records 'ev_in' on the
 *     default stream and makes the instance's stream wait for it;
 *   - memory goes back only after every instance's earlier work: before a
 *     stream-ordered free, each instance with work queued since it was
 *     last waited for records 'ev_out' on its stream and the default
 *     stream waits for it (sk_cuda_inst_drain), so a view dropped while an
 *     instance still reads it stays valid until that work ends; frees that
 *     do not go through the stream (page-locked and managed memory, the
 *     kept scratch) wait for every stream first (sk_cuda_inst_sync_all);
 *   - deep_copy's pack kernels and copies without an instance follow
 *     every instance's earlier work (deep_copy is fenced, as Kokkos' two
 *     argument form), and fence (speck.fence, the host's view of device
 *     memory) waits for every stream.
 * Two instances are unordered with each other: their copies and kernels
 * overlap. An event wait costs the device nothing when the work it names
 * is done. The list of instances is read without the lock only to see
 * that it is empty: a program without instances pays one atomic load per
 * free.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "cuda_int.h"

typedef struct sk_cuda_inst {
  CUstream stream;
  CUevent ev_in, ev_out;
  int dirty; /* work queued since the default stream last waited for it */
  struct sk_cuda_inst *next, *prev;
} sk_cuda_inst;

/* the live instances; taken after sk_cuda_launch_lock, never before it */
static pthread_mutex_t inst_lock = PTHREAD_MUTEX_INITIALIZER;
static sk_cuda_inst *head;

int sk_cuda_inst_any(void) { return __atomic_load_n(&head, __ATOMIC_ACQUIRE) != NULL; }

void *sk_cuda_inst_create(char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return NULL;
  sk_cuda_inst *in = calloc(1, sizeof *in);
  if (!in) {
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  CUresult rc = sk_cu->cuStreamCreate(&in->stream, CU_STREAM_NON_BLOCKING);
  if (rc) {
    free(in);
    sk_cuda_fail(rc, "cuStreamCreate (Instance)", NULL, err, errlen);
    return NULL;
  }
  rc = sk_cu->cuEventCreate(&in->ev_in, CU_EVENT_DISABLE_TIMING);
  if (!rc) {
    rc = sk_cu->cuEventCreate(&in->ev_out, CU_EVENT_DISABLE_TIMING);
    if (rc) sk_cu->cuEventDestroy_v2(in->ev_in);
  }
  if (rc) {
    sk_cu->cuStreamDestroy_v2(in->stream);
    free(in);
    sk_cuda_fail(rc, "cuEventCreate (Instance)", NULL, err, errlen);
    return NULL;
  }
  pthread_mutex_lock(&inst_lock);
  in->next = head;
  if (head) head->prev = in;
  __atomic_store_n(&head, in, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&inst_lock);
  return in;
}

/* the default stream waits for the work queued on 'in' (inst_lock held) */
static void drain_one(sk_cuda_inst *in) {
  if (!in->dirty) return;
  if (sk_cu->cuEventRecord(in->ev_out, in->stream) != CUDA_SUCCESS ||
      sk_cu->cuStreamWaitEvent(sk_cuda.stream, in->ev_out, 0) != CUDA_SUCCESS)
    sk_cu->cuStreamSynchronize(in->stream); /* cannot order it: wait for it here */
  in->dirty = 0;
}

/* Given back: later frees on the default stream must still follow its
 * work, so the default stream waits for it first; the stream and its
 * events are released by the driver once that work is done. */
void sk_cuda_inst_destroy(void *h) {
  sk_cuda_inst *in = h;
  if (!in) return;
  char err[128];
  int live = sk_cuda_ready() && !sk_cuda_dead() && sk_cuda_ensure(err, sizeof err) == 0;
  pthread_mutex_lock(&inst_lock);
  if (live) drain_one(in);
  if (in->prev) in->prev->next = in->next;
  else __atomic_store_n(&head, in->next, __ATOMIC_RELEASE);
  if (in->next) in->next->prev = in->prev;
  pthread_mutex_unlock(&inst_lock);
  if (live) {
    sk_cu->cuEventDestroy_v2(in->ev_in);
    sk_cu->cuEventDestroy_v2(in->ev_out);
    sk_cu->cuStreamDestroy_v2(in->stream);
  }
  free(in);
}

/* The stream a launch or copy on 'h' runs on (NULL: the default stream),
 * ordered after what the default stream holds now. 0 or -1. */
int sk_cuda_inst_stream(void *h, CUstream *s, const char *label, char *err,
                        size_t errlen) {
  sk_cuda_inst *in = h;
  if (!in) {
    *s = sk_cuda.stream;
    return 0;
  }
  pthread_mutex_lock(&inst_lock);
  CUresult rc = sk_cu->cuEventRecord(in->ev_in, sk_cuda.stream);
  if (!rc) rc = sk_cu->cuStreamWaitEvent(in->stream, in->ev_in, 0);
  if (!rc) in->dirty = 1;
  pthread_mutex_unlock(&inst_lock);
  if (rc) return sk_cuda_fail(rc, "ordering the Instance after the default stream", label,
                              err, errlen);
  *s = in->stream;
  return 0;
}

void sk_cuda_inst_drain(void) {
  /* recording: the instances were waited for when it began (graph.c) */
  if (!sk_cuda_inst_any() || sk_cuda_recording()) return;
  pthread_mutex_lock(&inst_lock);
  for (sk_cuda_inst *in = head; in; in = in->next) drain_one(in);
  pthread_mutex_unlock(&inst_lock);
}

/* every instance's stream synchronised; the first error mapped ('err'
 * may be NULL: frees, which have no one to tell) */
int sk_cuda_inst_sync_all(const char *what, char *err, size_t errlen) {
  if (!sk_cuda_inst_any()) return 0;
  int st = 0;
  pthread_mutex_lock(&inst_lock);
  for (sk_cuda_inst *in = head; in; in = in->next) {
    CUresult rc = sk_cu->cuStreamSynchronize(in->stream);
    if (rc == CUDA_SUCCESS) in->dirty = 0;
    else if (st == 0 && err) st = sk_cuda_fail(rc, what, NULL, err, errlen);
  }
  pthread_mutex_unlock(&inst_lock);
  return st;
}

int sk_cuda_inst_fence(void *h, char *err, size_t errlen) {
  sk_cuda_inst *in = h;
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  CUresult rc = sk_cu->cuStreamSynchronize(in->stream);
  if (rc) return sk_cuda_fail(rc, "Instance fence", NULL, err, errlen);
  return 0;
}

/* A copy queued on instance 'h': it returns at once for device, managed
 * and page-locked memory (the bytes are in place after a fence of the
 * instance); with pageable host memory (space "host") it returns once
 * the bytes arrived, as the driver cannot copy pageable memory without
 * the host. */
int sk_cuda_copy_async(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                       void *h, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  if (!bytes) return 0;
  CUstream s;
  if (sk_cuda_inst_stream(h, &s, "deep_copy", err, errlen) < 0) return -1;
  CUresult rc = sk_cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                                     (CUdeviceptr)(uintptr_t)src, bytes, s);
  if (rc) {
    char what[96];
    sk_err(what, sizeof what, SK_E_COPY, sk_space_name(sspace), sk_space_name(dspace));
    return sk_cuda_fail(rc, what, "deep_copy", err, errlen);
  }
  int pageable = (dspace != SK_SPACE_CUDA && dspace != SK_SPACE_CUDA_PINNED &&
                  dspace != SK_SPACE_CUDA_UVM) ||
                 (sspace != SK_SPACE_CUDA && sspace != SK_SPACE_CUDA_PINNED &&
                  sspace != SK_SPACE_CUDA_UVM);
  if (!pageable) return 0;
  rc = sk_cu->cuStreamSynchronize(s);
  if (rc) return sk_cuda_fail(rc, "copy", "deep_copy", err, errlen);
  return 0;
}
