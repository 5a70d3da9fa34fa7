/* cache.c: the in-memory kernel cache.
 *
 * Kernels are keyed by the byte string that encodes their spec (jit.c);
 * the table maps hash -> chain of kernels with full key comparison, and
 * keeps every kernel on a newest-first list for stats and label lookup.
 * Kernels live until sk_cache_clear (finalize of the last VM is not a
 * reason to drop them: a re-initialised runtime reuses them), so a
 * pointer handed out stays valid while VMs run. One mutex guards the
 * table, the list and the label table; kernels' own fields are not
 * touched under it except their immutable key and label.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

#define NBUCKET 4096

static sk_kernel *bucket[NBUCKET];
static sk_kernel *newest;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* bumped by sk_cache_clear: pointers to kernels kept outside the cache
 * (jit.c's launch memo) are stale once it changes */
static unsigned epoch = 1;

unsigned sk_cache_epoch(void) { return __atomic_load_n(&epoch, __ATOMIC_ACQUIRE); }

/* -- labels -------------------------------------------------------------
 * The same body and signature launched under a new label is one kernel;
 * speck.jit.source(label) wants the kernel most recently launched under
 * 'label'. Labels other than a kernel's first live in a fixed table
 * ('nsets' sets of 'nways', least recently used dropped), so a program
 * inventing labels ('step' .. i) uses bounded memory. Once any alias is
 * recorded, launches under a kernel's first label update the table too
 * (the label may name another kernel by then). Guarded by 'lock'. */
#define ALIAS_SETS 256
#define ALIAS_WAYS 4

typedef struct alias {
  uint64_t h; /* sk_hash of the label; label NULL = free slot */
  char *label;
  sk_kernel *k;
  uint64_t used; /* 'alias_clock' at the latest launch */
} alias;
static alias aliases[ALIAS_SETS][ALIAS_WAYS];
static uint64_t alias_clock;
static int alias_any; /* atomic: an alias was recorded since the last clear */

/* the slot of 'label' (hash 'h') or NULL; 'lock' held */
static alias *alias_find(uint64_t h, const char *label) {
  alias *set = aliases[h % ALIAS_SETS];
  for (int w = 0; w < ALIAS_WAYS; w++)
    if (set[w].label && set[w].h == h && strcmp(set[w].label, label) == 0) return &set[w];
  return NULL;
}

static uint64_t label_hash(const char *label) {
  return sk_hash(label, strlen(label), 0x1abe1);
}

sk_kernel *sk_cache_find(uint64_t hash, const char *key, size_t keylen) {
  pthread_mutex_lock(&lock);
  sk_kernel *k = bucket[hash % NBUCKET];
  while (k &&
         !(k->hash == hash && k->keylen == keylen && memcmp(k->key, key, keylen) == 0))
    k = k->next;
  pthread_mutex_unlock(&lock);
  return k;
}

sk_kernel *sk_cache_insert(sk_kernel *k) {
  uint64_t lh = label_hash(k->label);
  pthread_mutex_lock(&lock);
  sk_kernel **b = &bucket[k->hash % NBUCKET];
  for (sk_kernel *o = *b; o; o = o->next)
    if (o->hash == k->hash && o->keylen == k->keylen &&
        memcmp(o->key, k->key, k->keylen) == 0) {
      pthread_mutex_unlock(&lock);
      return o;
    }
  k->next = *b;
  *b = k;
  k->older = newest;
  newest = k;
  alias *a = alias_find(lh, k->label);
  if (a) {
    a->k = k;
    a->used = ++alias_clock;
  }
  pthread_mutex_unlock(&lock);
  return k;
}

void sk_cache_label(const char *label, sk_kernel *k) {
  int own = strcmp(label, k->label) == 0;
  if (own && !__atomic_load_n(&alias_any, __ATOMIC_ACQUIRE)) return;
  uint64_t h = label_hash(label);
  pthread_mutex_lock(&lock);
  alias *a = alias_find(h, label);
  if (!a && !own) {
    /* a free way, else the least recently used one */
    alias *set = aliases[h % ALIAS_SETS];
    a = &set[0];
    for (int w = 0; w < ALIAS_WAYS && a->label; w++)
      if (!set[w].label || set[w].used < a->used) a = &set[w];
    size_t n = strlen(label) + 1;
    char *copy = malloc(n);
    if (copy) {
      memcpy(copy, label, n);
      free(a->label);
      a->label = copy;
      a->h = h;
      __atomic_store_n(&alias_any, 1, __ATOMIC_RELEASE);
    } else {
      a = NULL; /* out of memory: the label is not remembered */
    }
  }
  if (a) {
    a->k = k;
    a->used = ++alias_clock;
  }
  pthread_mutex_unlock(&lock);
}

sk_kernel *sk_cache_last(const char *label) {
  uint64_t h = label_hash(label);
  pthread_mutex_lock(&lock);
  alias *a = alias_find(h, label);
  sk_kernel *k = a ? a->k : newest;
  while (!a && k && strcmp(k->label, label) != 0) k = k->older;
  pthread_mutex_unlock(&lock);
  return k;
}

sk_kernel *sk_cache_next(sk_kernel *prev) {
  pthread_mutex_lock(&lock);
  sk_kernel *k = prev ? prev->older : newest;
  pthread_mutex_unlock(&lock);
  return k;
}

/* Totals over every kernel; the counters are read as the atomics other
 * threads update them with (sk_jit_kstats). */
void sk_cache_totals(sk_jit_totals *t) {
  memset(t, 0, sizeof *t);
  pthread_mutex_lock(&lock);
  for (sk_kernel *k = newest; k; k = k->older) {
    double cs;
    t->kernels++;
    for (int i = 0; i < SK_NTIER; i++)
      t->compiles += __atomic_load_n(&k->compiles[i], __ATOMIC_RELAXED);
    t->hits += __atomic_load_n(&k->hits, __ATOMIC_RELAXED);
    t->tierups += __atomic_load_n(&k->tierups, __ATOMIC_RELAXED);
    __atomic_load(&k->compile_seconds, &cs, __ATOMIC_RELAXED);
    t->compile_seconds += cs;
  }
  pthread_mutex_unlock(&lock);
}

/* Drop and free every kernel (tests). Background compiles are waited for
 * first: the compiler thread holds kernels it was given. */
void sk_cache_clear(void) {
  sk_jit_drain();
  pthread_mutex_lock(&lock);
  sk_kernel *k = newest;
  newest = NULL;
  __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
  memset(bucket, 0, sizeof bucket);
  for (int i = 0; i < ALIAS_SETS; i++)
    for (int w = 0; w < ALIAS_WAYS; w++) free(aliases[i][w].label);
  memset(aliases, 0, sizeof aliases);
  alias_clock = 0;
  __atomic_store_n(&alias_any, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
  while (k) {
    sk_kernel *o = k->older;
    sk_kernel_free(k);
    k = o;
  }
}
