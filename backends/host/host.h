/* host.h: internals shared by the files of the host back ends. */
#ifndef SK_HOST_H
#define SK_HOST_H

#include "core/backend.h"

/* SPECK_THREADS, OMP_NUM_THREADS or the number of online cores; -1 with
 * a message naming the variable when the environment's value is bad */
int sk_host_default_threads(int *threads, char *err, size_t errlen);
/* TeamPolicy launches (team.c); 'pooled' 0 for serial */
int sk_host_launch_team(const sk_launch *l, int pooled, char *err, size_t errlen);

/* Pieces between interrupt checks (host.c): the monotonic clock in
 * seconds; the size of the next piece after one of 'piece' items that
 * began at *t0 (set to now): doubled while pieces take under 1 ms,
 * halved (not below 'min') when one takes over 8 ms. */
double sk_host_now(void);
int64_t sk_host_next_piece(int64_t piece, int64_t min, double *t0);

/* Launches too small to wake a worker for (tiny.c): SPECK_POOL_TINY read
 * at the pool's start; whether a launch of 'n' items of compiled body 'fn'
 * on 'nt' threads is to run on the calling thread; what a launch
 * measured: 'share' of its 'n' items took 'seconds' */
int sk_host_tiny_setup(char *err, size_t errlen);
int sk_host_tiny(const void *fn, int64_t n, int nt);
void sk_host_tiny_note(const void *fn, int64_t n, int64_t share, int nt, double seconds);

/* host TeamPolicy limits: vector lanes run as a loop in one thread */
#define SK_HOST_VECTOR_MAX   64
#define SK_HOST_SCRATCH0_MAX (1LL << 20)
#define SK_HOST_SCRATCH1_MAX (1LL << 30)
void sk_host_team_limits(int pooled, sk_team_limits *lim);

/* openmp's entries (host.c): serial's, run over the pool, allocating host
 * memory. SK_FROM_OPENMP is its table, the start of back ends that run
 * their kernels on the pool (remote), as SK_FROM_SERIAL is serial's. */
int sk_openmp_owns(int space);
int sk_openmp_init(int threads, int device, char *err, size_t errlen);
void sk_openmp_finalize(void);
int sk_openmp_concurrency(void);
void sk_openmp_first_touch(void *p, size_t bytes);
int sk_openmp_launch(const sk_launch *l, char *err, size_t errlen);
void sk_openmp_info(char *buf, size_t n);
void sk_openmp_team_limits(sk_team_limits *lim);
#define SK_FROM_OPENMP \
  SK_FROM_SERIAL, .name = "openmp", .owns = sk_openmp_owns, .init = sk_openmp_init, \
                  .finalize = sk_openmp_finalize, .concurrency = sk_openmp_concurrency, \
                  .first_touch = sk_openmp_first_touch, .launch = sk_openmp_launch, \
                  .info = sk_openmp_info, .team_limits = sk_openmp_team_limits

#endif
