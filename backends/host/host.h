/* host.h: internals shared by the files of the host back ends. */
#ifndef SK_HOST_H
#define SK_HOST_H

#include "../backend.h"

/* SPECK_THREADS, OMP_NUM_THREADS or the number of online cores */
int sk_host_default_threads(void);
/* TeamPolicy launches (team.c); 'pooled' 0 for serial */
int sk_host_launch_team(const sk_launch *l, int pooled, char *err,
                        size_t errlen);

#endif
