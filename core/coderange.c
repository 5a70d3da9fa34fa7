/* coderange.c: where JIT-compiled user bodies' machine code lies (see
 * runtime.h "code ranges").
 *
 * A fixed table of [lo, hi) ranges: added and removed under a mutex,
 * read without one from a signal handler (each slot's two words are
 * atomic; a slot being filled has hi = 0 until lo is stored, a slot being
 * emptied loses hi first), so a reader sees a whole range or none. 'used'
 * only grows: the reader scans the slots ever used. A full table adds
 * nothing -- that kernel's code is then left only at piece boundaries and
 * polls, as any other code.
 */
#include <pthread.h>

#include "core/runtime.h"

#define NRANGES 8192

static struct {
  uintptr_t lo, hi;
  void *owner;
} ranges[NRANGES];
static int (*line_of)(void *owner, uintptr_t pc); /* atomic */
static int used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int sk_code_range_add(const void *lo, size_t n, void *owner) {
  if (!lo || !n) return 0;
  pthread_mutex_lock(&lock);
  int k = 0;
  while (k < NRANGES && __atomic_load_n(&ranges[k].hi, __ATOMIC_RELAXED)) k++;
  if (k < NRANGES) {
    __atomic_store_n(&ranges[k].lo, (uintptr_t)lo, __ATOMIC_RELAXED);
    ranges[k].owner = owner;
    __atomic_store_n(&ranges[k].hi, (uintptr_t)lo + n, __ATOMIC_RELEASE);
    if (k >= used) __atomic_store_n(&used, k + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return k < NRANGES;
}

void sk_code_range_remove(const void *lo) {
  if (!lo) return;
  pthread_mutex_lock(&lock);
  for (int k = 0; k < used; k++)
    if (__atomic_load_n(&ranges[k].lo, __ATOMIC_RELAXED) == (uintptr_t)lo &&
        __atomic_load_n(&ranges[k].hi, __ATOMIC_RELAXED)) {
      __atomic_store_n(&ranges[k].hi, 0, __ATOMIC_RELEASE);
      break;
    }
  pthread_mutex_unlock(&lock);
}

int sk_code_range_has(uintptr_t pc) {
  int n = __atomic_load_n(&used, __ATOMIC_ACQUIRE);
  for (int k = 0; k < n; k++) {
    uintptr_t hi = __atomic_load_n(&ranges[k].hi, __ATOMIC_ACQUIRE);
    if (hi && pc < hi && pc >= __atomic_load_n(&ranges[k].lo, __ATOMIC_RELAXED)) return 1;
  }
  return 0;
}

void sk_code_line_resolver(int (*fn)(void *owner, uintptr_t pc)) {
  __atomic_store_n(&line_of, fn, __ATOMIC_RELEASE);
}

int sk_code_line(uintptr_t pc) {
  int (*fn)(void *, uintptr_t) = __atomic_load_n(&line_of, __ATOMIC_ACQUIRE);
  if (!fn || !pc) return 0;
  void *owner = NULL;
  pthread_mutex_lock(&lock);
  for (int k = 0; k < used && !owner; k++) {
    uintptr_t hi = __atomic_load_n(&ranges[k].hi, __ATOMIC_RELAXED);
    if (hi && pc < hi && pc >= ranges[k].lo) owner = ranges[k].owner;
  }
  pthread_mutex_unlock(&lock);
  return owner ? fn(owner, pc) : 0;
}
