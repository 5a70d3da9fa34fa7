/* registry.c: the one list of back ends.
 *
 * Adding a back end is one folder under backends/ that defines its
 * 'struct sk_backend' (starting from serial's, SK_FROM_SERIAL) and one
 * line here. Its spaces come with its table (core/space.c registers
 * them). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/err.h"

/* the built-in tables, each in its own folder */
extern const sk_backend sk_backend_cuda;   /* backends/cuda */
extern const sk_backend sk_backend_remote; /* backends/remote */

#define SK_MAXBACKEND 16

/* The built-in back ends, then those registered at run time. Entries are
 * only ever appended (under 'lock'), and the count is published after the
 * entry, so readers need no lock. */
static const sk_backend *all[SK_MAXBACKEND + 1] = {&sk_backend_serial, &sk_backend_openmp,
                                                   &sk_backend_cuda, NULL};
static int nall = 3;
/* back ends that register themselves when started (remote: speck.remote
 * starts MPI); their spaces exist from the first use */
static const sk_backend *const dormant[] = {&sk_backend_remote, NULL};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const sk_backend *const *sk_backend_list(void) { return all; }
const sk_backend *const *sk_backend_dormant(void) { return dormant; }

const sk_backend *sk_backend_find(const char *name) {
  int n = __atomic_load_n(&nall, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (strcmp(all[i]->name, name) == 0) return all[i];
  return NULL;
}

int sk_backend_register(const sk_backend *b, char *err, size_t errlen) {
  if (!b || !b->name || !b->launch || !b->reaches || !b->owns || !b->init ||
      !b->available) {
    sk_err(err, errlen, SK_E_SK_BACKEND_REGISTER);
    return -1;
  }
  for (const sk_space_desc *d = b->spaces; d && d->name; d++)
    if (sk_space_register(d, err, errlen) < 0) return -1;
  pthread_mutex_lock(&lock);
  int rc = 0;
  if (sk_backend_find(b->name)) {
    sk_err(err, errlen, SK_E_SK_BACKEND_REGISTER_BACK, b->name);
    rc = -1;
  } else if (nall >= SK_MAXBACKEND) {
    sk_err(err, errlen, SK_E_SK_BACKEND_REGISTER_MORE, SK_MAXBACKEND);
    rc = -1;
  } else {
    all[nall] = b;
    __atomic_store_n(&nall, nall + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

/* Memory of a space is allocated by the first back end that owns it (the
 * host tables share their allocation functions). */
const sk_backend *sk_backend_for_space(int space) {
  int n = __atomic_load_n(&nall, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (all[i]->owns && all[i]->owns(space)) return all[i];
  return NULL;
}

const sk_backend *sk_backend_blas_for(int space) {
  int n = __atomic_load_n(&nall, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (all[i]->blas && all[i]->reaches(space)) return all[i];
  return NULL;
}
