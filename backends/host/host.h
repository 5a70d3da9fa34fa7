/* host.h: internals shared by the files of the host back ends. */
#ifndef SK_HOST_H
#define SK_HOST_H

#include "../backend.h"

/* SPECK_THREADS, OMP_NUM_THREADS or the number of online cores; -1 with
 * a message naming the variable when the environment's value is bad */
int sk_host_default_threads(int *threads, char *err, size_t errlen);
/* TeamPolicy launches (team.c); 'pooled' 0 for serial */
int sk_host_launch_team(const sk_launch *l, int pooled, char *err,
                        size_t errlen);

/* host TeamPolicy limits: vector lanes run as a loop in one thread */
#define SK_HOST_VECTOR_MAX 64
#define SK_HOST_SCRATCH0_MAX (1LL << 20)
#define SK_HOST_SCRATCH1_MAX (1LL << 30)
void sk_host_team_limits(int pooled, sk_team_limits *lim);

#endif
