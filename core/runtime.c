/* runtime.c: which back end is active; initialise / finalise; fence.
 *
 * The first use initialises from the environment (SPECK_SPACE, then
 * SPECK_THREADS / OMP_NUM_THREADS), after checking every setting the
 * environment gives (env.c). While a back end runs, initialising again is
 * a check: every setting the call names must equal the running one (a
 * different one is an error naming both), as Kokkos allows one
 * initialisation at a time. initialize may be called again after finalize
 * in the same process, with any settings.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/err.h"
#include "core/tools.h"

/* -- interrupts ------------------------------------------------------------ */
/* lock-free: stored from signal handlers, read between launch pieces and
 * by loops in bodies. 'body_flag': bit 0 the interrupt request, 2 per
 * launch abandoned after a fault; 'running': launches in flight */
int sk_body_stop_word; /* the flag itself: libtcc-compiled bodies read it by name */
#define body_flag sk_body_stop_word
static int running;
_Static_assert(__atomic_always_lock_free(sizeof(int), 0), "int atomics");

/* a copy of bit 0 that a device back end's kernels read (host memory
 * mapped into the device: the GPU dialect's SK__GO) */
static int *body_mirror;

void sk_body_flag_mirror(int *word) {
  if (word) *word = __atomic_load_n(&body_flag, __ATOMIC_RELAXED) & 1;
  __atomic_store_n(&body_mirror, word, __ATOMIC_RELEASE);
}

/* the host guard's kick (sk_body_kick_hook) */
static void (*kick_hook)(void);

void sk_body_kick_hook(void (*kick)(void)) {
  __atomic_store_n(&kick_hook, kick, __ATOMIC_RELEASE);
}

int sk_body_kicks(void) { return __atomic_load_n(&kick_hook, __ATOMIC_ACQUIRE) != NULL; }

static void kick(void) {
  void (*k)(void) = __atomic_load_n(&kick_hook, __ATOMIC_ACQUIRE);
  if (k) k();
}

int sk_interrupt_request(void) {
  __atomic_or_fetch(&body_flag, 1, __ATOMIC_RELAXED);
  int *m = __atomic_load_n(&body_mirror, __ATOMIC_ACQUIRE);
  if (m) __atomic_store_n(m, 1, __ATOMIC_RELAXED);
  kick();
  return __atomic_load_n(&running, __ATOMIC_RELAXED) > 0;
}

void sk_interruptible_enter(void) { __atomic_add_fetch(&running, 1, __ATOMIC_RELAXED); }
void sk_interruptible_leave(void) { __atomic_sub_fetch(&running, 1, __ATOMIC_RELAXED); }
void sk_interrupt_clear(void) {
  __atomic_and_fetch(&body_flag, ~1, __ATOMIC_RELAXED);
  int *m = __atomic_load_n(&body_mirror, __ATOMIC_ACQUIRE);
  if (m) __atomic_store_n(m, 0, __ATOMIC_RELAXED);
}
int sk_interrupted(void) { return __atomic_load_n(&body_flag, __ATOMIC_RELAXED) & 1; }
void sk_interrupt_reported(void) { sk_interrupt_clear(); }
const int *sk_body_flag(void) { return &body_flag; }
void sk_body_fault_mark(int delta) {
  __atomic_add_fetch(&body_flag, 2 * delta, __ATOMIC_RELAXED);
  if (delta > 0) kick();
}

/* -- the active back end ------------------------------------------------------ */
static const sk_backend *active;
static int active_threads;
static int running_threads, running_device; /* as asked, or the defaults */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Start the back end 's' names (or the environment's, or openmp) after
 * checking every environment setting; records the settings as running.
 * Called with 'lock' held and no back end active. */
static int init_locked(const sk_rt_settings *s, char *err, size_t errlen) {
  if (sk_env_check(err, errlen) < 0) return -1;
  const char *space = s->space;
  if (!space || !*space) sk_env_space(&space, err, errlen);
  if (!space || !*space) space = "openmp";
  const sk_backend *b = sk_backend_find(space);
  if (!b) {
    char names[256];
    sk_env_space_names(names, sizeof names, 0);
    sk_err(err, errlen, SK_E_UNKNOWN_SPACE_EXPECTED, space, names);
    return -1;
  }
  char why[512] = "";
  if (!b->available(why, sizeof why)) {
    sk_err(err, errlen, SK_E_SPACE_NOT_AVAILABLE, space, why);
    return -1;
  }
  /* -1 (not asked): the back end's default (a GPU's: its device variable, or
   * the rank's GPU on its node in an MPI job) */
  int device = s->device < 0 ? 0 : s->device;
  if (b->init(s->threads, s->device, err, errlen) < 0) return -1;
  active_threads = b->concurrency();
  running_threads = s->threads > 0 ? s->threads : active_threads;
  running_device = device;
  __atomic_store_n(&active, b, __ATOMIC_RELEASE);
  sk_tools_start();
  return 0;
}

/* The running back end against the settings 's' names: 0 when they all
 * agree, else -1 with the first that differs. */
static int same_locked(const sk_rt_settings *s, char *err, size_t errlen) {
  static const char fix[] = "call speck.finalize() first";
  if (s->space && *s->space && !sk_backend_find(s->space)) {
    char names[256];
    sk_env_space_names(names, sizeof names, 0);
    sk_err(err, errlen, SK_E_UNKNOWN_SPACE_EXPECTED, s->space, names);
    return -1;
  }
  if (s->space && *s->space && strcmp(s->space, active->name) != 0) {
    sk_err(err, errlen, SK_E_ALREADY_RUNNING_SPACE, active->name, s->space, fix);
    return -1;
  }
  if (s->threads > 0 && s->threads != running_threads) {
    sk_err(err, errlen, SK_E_ALREADY_RUNNING_THREADS, running_threads, s->threads, fix);
    return -1;
  }
  if (s->device >= 0 && s->device != running_device) {
    sk_err(err, errlen, SK_E_ALREADY_RUNNING_DEVICE, running_device, s->device, fix);
    return -1;
  }
  return 0;
}

int sk_rt_start(const sk_rt_settings *s, char *err, size_t errlen) {
  pthread_mutex_lock(&lock);
  int rc = active ? same_locked(s, err, errlen) : init_locked(s, err, errlen);
  pthread_mutex_unlock(&lock);
  return rc;
}

int sk_rt_initialize(const char *space, int threads, int device, char *err,
                     size_t errlen) {
  sk_rt_settings s = {space, threads, device};
  return sk_rt_start(&s, err, errlen);
}

void sk_rt_finalize(void) {
  pthread_mutex_lock(&lock);
  sk_tools_stop(); /* tools may run before the first launch */
  if (active) active->finalize();
  __atomic_store_n(&active, NULL, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

int sk_rt_initialized(void) { return __atomic_load_n(&active, __ATOMIC_ACQUIRE) != NULL; }

const sk_backend *sk_rt_backend(char *err, size_t errlen) {
  const sk_backend *b = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
  if (b) return b;
  pthread_mutex_lock(&lock);
  if (!active) {
    sk_rt_settings s = {NULL, 0, -1};
    init_locked(&s, err, errlen);
  }
  b = active;
  pthread_mutex_unlock(&lock);
  return b;
}

/* The memory space of new views: the active back end's, or the one its
 * 'default_space' picks (a GPU back end's managed memory when its
 * variable asks for it, as Kokkos built with UVM), so scripts can read
 * results from Lua. */
int sk_rt_default_space(char *err, size_t errlen) {
  const sk_backend *b = sk_rt_backend(err, errlen);
  if (!b) return -1;
  return b->default_space ? b->default_space() : b->space;
}

int sk_rt_threads(void) { return active ? active_threads : 0; }

/* -- fence -------------------------------------------------------------- */
/* A back end's name fences that back end (its fence has nothing to wait
 * for when it does not run); a memory space's name fences the back end
 * that owns that memory. Unknown names are an error listing both kinds. */
static int fence(const sk_backend *b, char *err, size_t errlen) {
  uint64_t id = sk_tools_begin_fence("speck.fence");
  int rc = b->fence(err, errlen);
  sk_tools_end_fence(id);
  return rc;
}

/* the back end 'space' names (NULL: the active one), NULL with a message */
static const sk_backend *named(const char *space, char *err, size_t errlen) {
  if (!space) return sk_rt_backend(err, errlen);
  const sk_backend *b = sk_backend_find(space);
  if (!b) { /* a memory space: the active back end when it reaches it */
    int ms = sk_space_parse(space);
    char e[256];
    const sk_backend *a = ms >= 0 ? sk_rt_backend(e, sizeof e) : NULL;
    b = a && a->reaches(ms) ? a : ms >= 0 ? sk_backend_for_space(ms) : NULL;
  }
  if (b) return b;
  char names[512];
  sk_env_space_names(names, sizeof names, 1);
  sk_err(err, errlen, SK_E_UNKNOWN_SPACE_NAMED_OF, space, names);
  return NULL;
}

int sk_rt_fence(const char *space, char *err, size_t errlen) {
  if (sk_capture_refuse("speck.fence()", "it waits for the device's work", err, errlen) < 0)
    return -1;
  const sk_backend *b = named(space, err, errlen);
  return b ? fence(b, err, errlen) : -1;
}

/* -- execution-space instances ------------------------------------------- */
/* A back end without instance entries has its default instance only: its
 * launches and copies are finished when they return. */
int sk_rt_instance_create(const char *space, sk_instance *out, char *err,
                          size_t errlen) {
  out->backend = NULL;
  out->handle = NULL;
  const sk_backend *b = named(space, err, errlen);
  if (!b) return -1;
  if (b->instance_create && !(out->handle = b->instance_create(err, errlen))) return -1;
  out->backend = b;
  return 0;
}

int sk_rt_instance_fence(const sk_instance *inst, char *err, size_t errlen) {
  if (sk_capture_refuse("Instance:fence()", "it waits for the device's work", err,
                        errlen) < 0)
    return -1;
  if (!inst->handle || !inst->backend->instance_fence) return 0;
  uint64_t id = sk_tools_begin_fence("speck.Instance:fence");
  int rc = inst->backend->instance_fence(inst->handle, err, errlen);
  sk_tools_end_fence(id);
  return rc;
}

void sk_rt_instance_release(sk_instance *inst) {
  if (inst->handle && inst->backend && inst->backend->instance_destroy)
    inst->backend->instance_destroy(inst->handle);
  inst->handle = NULL;
}
