/* cache.c: the in-memory kernel cache.
 *
 * Kernels are keyed by the byte string that encodes their spec (jit.c);
 * the table maps hash -> chain of kernels with full key comparison, and
 * keeps every kernel on a newest-first list for stats and label lookup.
 * Kernels live until sk_cache_clear (finalize of the last VM is not a
 * reason to drop them: a re-initialised runtime reuses them).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

#define NBUCKET 4096

static sk_kernel *bucket[NBUCKET];
static sk_kernel *newest;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a, 64 bit */
uint64_t sk_hash(const void *p, size_t n, uint64_t seed) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* Labels under which a cached kernel was launched other than its first:
 * the same body and signature under a new label is one kernel. */
typedef struct alias {
  char *label;
  sk_kernel *k;
  struct alias *next;
} alias;
static alias *aliases;

sk_kernel *sk_cache_find(uint64_t hash, const char *key, size_t keylen) {
  pthread_mutex_lock(&lock);
  sk_kernel *k = bucket[hash % NBUCKET];
  while (k && !(k->hash == hash && k->keylen == keylen &&
                memcmp(k->key, key, keylen) == 0))
    k = k->next;
  pthread_mutex_unlock(&lock);
  return k;
}

void sk_cache_insert(sk_kernel *k) {
  pthread_mutex_lock(&lock);
  sk_kernel **b = &bucket[k->hash % NBUCKET];
  k->next = *b;
  *b = k;
  k->older = newest;
  newest = k;
  for (alias *a = aliases; a; a = a->next)
    if (strcmp(a->label, k->label) == 0) a->k = k;
  pthread_mutex_unlock(&lock);
}

void sk_cache_label(const char *label, sk_kernel *k) {
  pthread_mutex_lock(&lock);
  alias *a = aliases;
  while (a && strcmp(a->label, label) != 0) a = a->next;
  if (!a && (a = calloc(1, sizeof *a)) != NULL) {
    size_t n = strlen(label) + 1;
    a->label = malloc(n);
    if (!a->label) {
      free(a);
      a = NULL;
    } else {
      memcpy(a->label, label, n);
      a->next = aliases;
      aliases = a;
    }
  }
  if (a) a->k = k;
  pthread_mutex_unlock(&lock);
}

sk_kernel *sk_cache_last(const char *label) {
  pthread_mutex_lock(&lock);
  for (alias *a = aliases; a; a = a->next)
    if (strcmp(a->label, label) == 0) {
      sk_kernel *k = a->k;
      pthread_mutex_unlock(&lock);
      return k;
    }
  sk_kernel *k = newest;
  while (k && strcmp(k->label, label) != 0) k = k->older;
  pthread_mutex_unlock(&lock);
  return k;
}

sk_kernel *sk_cache_next(sk_kernel *prev) {
  pthread_mutex_lock(&lock);
  sk_kernel *k = prev ? prev->older : newest;
  pthread_mutex_unlock(&lock);
  return k;
}

void sk_cache_totals(sk_jit_totals *t) {
  memset(t, 0, sizeof *t);
  pthread_mutex_lock(&lock);
  for (sk_kernel *k = newest; k; k = k->older) {
    t->kernels++;
    for (int i = 0; i < SK_NTIER; i++) t->compiles += k->compiles[i];
    t->hits += k->hits;
    t->tierups += k->tierups;
    t->compile_seconds += k->compile_seconds;
  }
  pthread_mutex_unlock(&lock);
}

void sk_cache_clear(void) {
  pthread_mutex_lock(&lock);
  sk_kernel *k = newest;
  newest = NULL;
  memset(bucket, 0, sizeof bucket);
  while (aliases) {
    alias *a = aliases;
    aliases = a->next;
    free(a->label);
    free(a);
  }
  pthread_mutex_unlock(&lock);
  while (k) {
    sk_kernel *o = k->older;
    sk_kernel_free(k);
    k = o;
  }
}
