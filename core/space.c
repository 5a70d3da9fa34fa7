/* space.c: the memory spaces, as the back ends describe them
 * (core/backend.h: sk_space_desc), and their budgets.
 *
 * One table of descriptions by id. The built-in back ends' spaces are
 * registered at the first question (registry order, then the back ends
 * that register themselves later, whose spaces exist from the start); a
 * back end registered at run time brings its own (sk_backend_register).
 * Entries are only appended, under 'lock', and the count is published
 * after the entry, so readers need no lock. Every question a layer above
 * asks about a space -- its name, host access, spill space, default
 * layout, budget -- is answered from here.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/err.h"
#include "core/view.h"
#include "core/view_int.h"

/* -- the table ------------------------------------------------------------ */
static const sk_space_desc *table[SK_MAXSPACE];
static int count; /* 1 + the largest id in use */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int find_locked(const char *name) {
  for (int i = 0; i < count; i++)
    if (table[i] && strcmp(table[i]->name, name) == 0) return i;
  return -1;
}

static int register_locked(const sk_space_desc *d, char *err, size_t errlen) {
  int id = find_locked(d->name);
  if (id >= 0) return id;
  id = d->id;
  if (id < 0)
    for (id = 1; id < SK_MAXSPACE && table[id]; id++) {}
  if (id >= SK_MAXSPACE) {
    sk_err(err, errlen, SK_E_SK_SPACE_REGISTER, SK_MAXSPACE);
    return -1;
  }
  if (table[id]) {
    sk_err(err, errlen, SK_E_SK_SPACE_REGISTER_SPACE, id, table[id]->name, d->name);
    return -1;
  }
  table[id] = d;
  if (id + 1 > count) __atomic_store_n(&count, id + 1, __ATOMIC_RELEASE);
  return id;
}

static void add_spaces(const sk_backend *b) {
  char err[128];
  for (const sk_space_desc *d = b->spaces; d && d->name; d++)
    register_locked(d, err, sizeof err);
}

/* the built-in back ends' spaces, once */
static void init(void) {
  pthread_mutex_lock(&lock);
  for (const sk_backend *const *b = sk_backend_list(); *b; b++) add_spaces(*b);
  for (const sk_backend *const *b = sk_backend_dormant(); *b; b++) add_spaces(*b);
  pthread_mutex_unlock(&lock);
}

static inline void ready(void) { pthread_once(&once, init); }

int sk_space_register(const sk_space_desc *d, char *err, size_t errlen) {
  if (!d || !d->name) {
    sk_err(err, errlen, SK_E_SK_SPACE_REGISTER_SPACE_NEEDS);
    return -1;
  }
  ready();
  pthread_mutex_lock(&lock);
  int id = register_locked(d, err, errlen);
  pthread_mutex_unlock(&lock);
  return id;
}

const sk_space_desc *sk_space_desc_of(int space) {
  ready();
  int n = __atomic_load_n(&count, __ATOMIC_ACQUIRE);
  return space >= 0 && space < n ? table[space] : NULL;
}

int sk_space_count(void) {
  ready();
  return __atomic_load_n(&count, __ATOMIC_ACQUIRE);
}

/* -- questions ------------------------------------------------------------ */
int sk_space_parse(const char *s) {
  if (!s) return -1;
  int n = sk_space_count();
  for (int i = 0; i < n; i++) {
    const sk_space_desc *d = sk_space_desc_of(i);
    if (d && !d->local && strcmp(s, d->name) == 0) return i;
  }
  return -1;
}

const char *sk_space_name(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d ? d->name : "?";
}

const char *sk_space_tools_name(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d && d->tools_name ? d->tools_name : "Unknown";
}

void sk_space_names(char *buf, size_t n) {
  int ids[SK_MAXSPACE], k = 0, all = sk_space_count();
  for (int i = 0; i < all; i++) {
    const sk_space_desc *d = sk_space_desc_of(i);
    if (d && !d->local) ids[k++] = i;
  }
  size_t used = 0;
  if (n) buf[0] = '\0';
  for (int i = 0; i < k && used < n; i++) {
    const char *sep = i == 0 ? "" : i == k - 1 ? " or " : ", ";
    int w = snprintf(buf + used, n - used, "%s'%s'", sep, sk_space_name(ids[i]));
    if (w < 0) break;
    used += (size_t)w;
  }
}

int sk_space_remote(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d && d->local;
}

int sk_space_local(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d && d->local ? sk_space_parse(d->local) : space;
}

int sk_space_remote_over(int local) {
  const char *ln = sk_space_name(local);
  int n = sk_space_count();
  for (int i = 0; i < n; i++) {
    const sk_space_desc *d = sk_space_desc_of(i);
    if (d && d->local && strcmp(d->local, ln) == 0) return i;
  }
  return -1;
}

int sk_space_host_accessible(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d && d->host_accessible;
}

int sk_space_spill(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d && d->spill ? sk_space_parse(d->spill) : -1;
}

int sk_space_default_layout(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d ? d->default_layout : SK_RIGHT;
}

/* -- budgets ---------------------------------------------------------------- */
/* Bytes of live views this library allocated, per budget: the spaces of
 * one budget function share one count, kept at the first of them (host
 * and a device's page-locked memory count as host memory; device memory
 * under its back end's variable, a device's memory budget variable). With the
 * budget, a request that fits alone but not beside what is held is
 * refused before allocating (a 13-byte edge list once made the graph builder allocate
 * and touch 24 GB, one view at a time, until the kernel killed the
 * process). Approximate under concurrent allocation. */
static _Atomic int64_t held_bytes[SK_MAXSPACE];

_Atomic int64_t *sk_space_held(int space) {
  const sk_space_desc *d = sk_space_desc_of(space);
  if (!d || !d->budget) return NULL;
  for (int i = 0; i < space; i++) {
    const sk_space_desc *e = sk_space_desc_of(i);
    if (e && e->budget == d->budget) return &held_bytes[i];
  }
  return &held_bytes[space];
}

uint64_t sk_space_budget(int space, char *desc, size_t n) {
  const sk_space_desc *d = sk_space_desc_of(space);
  return d && d->budget ? d->budget(desc, n) : 0;
}

int64_t sk_view_host_bytes(void) { return atomic_load(sk_space_held(SK_SPACE_HOST)); }

int sk_host_room(uint64_t bytes, char *err, size_t errlen) {
  char desc[128];
  uint64_t most = sk_space_budget(SK_SPACE_HOST, desc, sizeof desc);
  int64_t held = sk_view_host_bytes();
  if (!most || bytes + (uint64_t)(held > 0 ? held : 0) <= most) return 0;
  return sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES_SPACE, (unsigned long long)bytes,
                "host", (long long)held, desc);
}

int64_t sk_space_room(int space) {
  char desc[128];
  int64_t room = -1;
  _Atomic int64_t *h = sk_space_held(space);
  uint64_t most = h ? sk_space_budget(space, desc, sizeof desc) : 0;
  if (most) {
    int64_t held = atomic_load(h);
    uint64_t h2 = held > 0 ? (uint64_t)held : 0;
    room = h2 >= most ? 0 : (int64_t)(most - h2);
  }
  const sk_backend *b = sk_backend_for_space(space);
  int64_t fr = b && b->room ? b->room(space) : -1;
  if (fr >= 0 && (room < 0 || fr < room)) room = fr;
  return room;
}

/* The budget variables the spaces declare, for sk_env_check: calls 'f'
 * once per distinct name, in registration order. */
int sk_space_budget_envs(int (*f)(const char *name, void *ctx), void *ctx) {
  int n = sk_space_count();
  for (int i = 0; i < n; i++) {
    const sk_space_desc *d = sk_space_desc_of(i);
    if (!d || !d->budget_env) continue;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) {
      const sk_space_desc *e = sk_space_desc_of(j);
      seen = e && e->budget_env && strcmp(e->budget_env, d->budget_env) == 0;
    }
    if (!seen && f(d->budget_env, ctx) < 0) return -1;
  }
  return 0;
}
