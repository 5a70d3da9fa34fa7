/* pool.h: the persistent host thread pool behind the openmp back end. */
#ifndef SK_HOST_POOL_H
#define SK_HOST_POOL_H

#include <stddef.h>

/* 'tid' in [0, nthreads); the calling thread is tid 0 */
typedef void (*sk_pool_fn)(void *arg, int tid, int nthreads);

/* Start 'nthreads' - 1 workers (the caller is the first thread). */
int sk_pool_start(int nthreads, char *err, size_t errlen);
void sk_pool_stop(void);
int sk_pool_size(void); /* 0 when not started */
/* Run fn on every thread and return when all are done. Launches from
 * several host threads are serialised. */
void sk_pool_run(sk_pool_fn fn, void *arg);
/* sk_pool_run for a job whose parts are independent (no part waits for
 * another): a part no worker has started when the caller's own part is
 * done is run by the caller (tid as given), so a late worker (asleep,
 * descheduled, sharing the caller's CPU) does not delay the launch. */
void sk_pool_run_parts(sk_pool_fn fn, void *arg);

#endif
