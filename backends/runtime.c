/* runtime.c: which back end is active; initialise / finalise.
 *
 * The first use initialises from the environment (SPECK_SPACE, then
 * SPECK_THREADS / OMP_NUM_THREADS). initialize may be called again after
 * finalize in the same process.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static const sk_backend *active;
static int active_threads;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int init_locked(const char *space, int threads, int device, char *err,
                       size_t errlen) {
  if (!space || !*space) space = getenv("SPECK_SPACE");
  if (!space || !*space) space = "openmp";
  const sk_backend *b = sk_backend_find(space);
  if (!b) {
    snprintf(err, errlen,
             "unknown space '%s' (expected serial, openmp or cuda)", space);
    return -1;
  }
  char why[512] = "";
  if (!b->available(why, sizeof why)) {
    snprintf(err, errlen, "space '%s' is not available: %s", space, why);
    return -1;
  }
  if (b->init(threads, device, err, errlen) < 0) return -1;
  active_threads = b->concurrency();
  __atomic_store_n(&active, b, __ATOMIC_RELEASE);
  return 0;
}

int sk_rt_initialize(const char *space, int threads, int device, char *err,
                     size_t errlen) {
  pthread_mutex_lock(&lock);
  if (active) {
    active->finalize();
    __atomic_store_n(&active, NULL, __ATOMIC_RELEASE);
  }
  int rc = init_locked(space, threads, device, err, errlen);
  pthread_mutex_unlock(&lock);
  return rc;
}

void sk_rt_finalize(void) {
  pthread_mutex_lock(&lock);
  if (active) active->finalize();
  __atomic_store_n(&active, NULL, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

int sk_rt_initialized(void) { return __atomic_load_n(&active, __ATOMIC_ACQUIRE) != NULL; }

const sk_backend *sk_rt_backend(char *err, size_t errlen) {
  const sk_backend *b = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
  if (b) return b;
  pthread_mutex_lock(&lock);
  if (!active) init_locked(NULL, 0, 0, err, errlen);
  b = active;
  pthread_mutex_unlock(&lock);
  return b;
}

/* The memory space of new views: the active back end's, except that
 * SPECK_CUDA_UVM=1 makes CUDA's default managed memory (cuda_uvm, as
 * Kokkos built with CUDA_UVM), so scripts can read results from Lua. */
int sk_rt_default_space(char *err, size_t errlen) {
  const sk_backend *b = sk_rt_backend(err, errlen);
  if (!b) return -1;
  if (b->space == SK_SPACE_CUDA) {
    const char *u = getenv("SPECK_CUDA_UVM");
    if (u && *u && strcmp(u, "0") != 0) return SK_SPACE_CUDA_UVM;
  }
  return b->space;
}

int sk_rt_threads(void) { return active ? active_threads : 0; }
