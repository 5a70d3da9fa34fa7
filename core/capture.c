/* capture.c: the state of a capture (speck.graph_capture) that every layer
 * asks: is one running, and refuse what needs the host while it does.
 *
 * exec/capture.c starts and ends captures; the core (fence, deep_copy,
 * fill, allocation), exec/ (reductions, scans, launches on an instance)
 * and vm/ (element access from Lua) call sk_capture_refuse where they
 * would need the host. One capture at a time in a process: the mode is a
 * process-wide word (captures do not nest).
 */
#include <stdint.h>

#include "core/err.h"
#include "core/runtime.h"

static int mode;
static int64_t n_launch, n_copy;

int sk_capture_mode(void) { return __atomic_load_n(&mode, __ATOMIC_ACQUIRE); }

void sk_capture_set_mode(int m) {
  if (m != SK_CAPTURE_OFF) {
    __atomic_store_n(&n_launch, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&n_copy, 0, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&mode, m, __ATOMIC_RELEASE);
}

void sk_capture_note(int launch) {
  if (!sk_capture_mode()) return;
  __atomic_add_fetch(launch ? &n_launch : &n_copy, 1, __ATOMIC_RELAXED);
}

void sk_capture_counted(int64_t *launches, int64_t *copies) {
  *launches = __atomic_load_n(&n_launch, __ATOMIC_RELAXED);
  *copies = __atomic_load_n(&n_copy, __ATOMIC_RELAXED);
}

int sk_capture_refuse(const char *what, const char *why, char *err, size_t errlen) {
  if (!sk_capture_mode()) return 0;
  return sk_err(err, errlen, SK_E_CAPTURE_NEEDS_HOST, what, why);
}
