/* progress.c: the one rate limit of progress reports (io.h). The library
 * measures and decides when to report; what a report looks like is the
 * hook's business (vm/lio.c draws a bar on a terminal).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include "io.h"

static sk_progress_fn hook;
/* timings in microseconds, so they can be read and written atomically */
static long delay_us = 500000, interval_us = 100000;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void sk_progress_set_hook(sk_progress_fn fn) {
  __atomic_store_n(&hook, fn, __ATOMIC_RELEASE);
}

sk_progress_fn sk_progress_hook(void) { return __atomic_load_n(&hook, __ATOMIC_ACQUIRE); }

void sk_progress_set_timing(double delay, double interval) {
  if (delay >= 0)
    __atomic_store_n(&delay_us, (long)(delay * 1e6 + 0.5), __ATOMIC_RELAXED);
  if (interval >= 0)
    __atomic_store_n(&interval_us, (long)(interval * 1e6 + 0.5), __ATOMIC_RELAXED);
}

void sk_progress_get_timing(double *delay, double *interval) {
  if (delay) *delay = (double)__atomic_load_n(&delay_us, __ATOMIC_RELAXED) / 1e6;
  if (interval) *interval = (double)__atomic_load_n(&interval_us, __ATOMIC_RELAXED) / 1e6;
}

void sk_progress_begin(sk_progress *p, const char *what, double total) {
  snprintf(p->what, sizeof p->what, "%s", what ? what : "");
  p->total = total;
  p->t0 = p->last = now();
  p->shown = 0;
}

/* Report when the delay has passed since the start and the interval since
 * the last report. */
void sk_progress_step(sk_progress *p, double done) {
  sk_progress_fn fn = sk_progress_hook();
  if (!fn) return;
  double delay, interval, t = now();
  sk_progress_get_timing(&delay, &interval);
  if (t - p->t0 < delay || (p->shown && t - p->last < interval)) return;
  p->shown = 1;
  p->last = t;
  fn(p->what, done, p->total, t - p->t0, 0);
}

void sk_progress_end(sk_progress *p) {
  sk_progress_fn fn = sk_progress_hook();
  if (fn && p->shown) fn(p->what, p->total, p->total, now() - p->t0, 1);
  p->shown = 0;
}
