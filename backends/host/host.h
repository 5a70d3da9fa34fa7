/* host.h: internals shared by the files of the host back ends. */
#ifndef SK_HOST_H
#define SK_HOST_H

#include "core/backend.h"

/* SPECK_THREADS, OMP_NUM_THREADS or the number of online cores; -1 with
 * a message naming the variable when the environment's value is bad */
int sk_host_default_threads(int *threads, char *err, size_t errlen);
/* TeamPolicy launches (team.c); 'pooled' 0 for serial */
int sk_host_launch_team(const sk_launch *l, int pooled, char *err,
                        size_t errlen);

/* Pieces between interrupt checks (host.c): the monotonic clock in
 * seconds; the size of the next piece after one of 'piece' items that
 * began at *t0 (set to now): doubled while pieces take under 1 ms,
 * halved (not below 'min') when one takes over 8 ms. */
double sk_host_now(void);
int64_t sk_host_next_piece(int64_t piece, int64_t min, double *t0);

/* host TeamPolicy limits: vector lanes run as a loop in one thread */
#define SK_HOST_VECTOR_MAX 64
#define SK_HOST_SCRATCH0_MAX (1LL << 20)
#define SK_HOST_SCRATCH1_MAX (1LL << 30)
void sk_host_team_limits(int pooled, sk_team_limits *lim);

#endif
