/* team.c: TeamPolicy on the host back ends. */
#include <stdio.h>

#include "host.h"

void sk_team_barrier(const sk_team_ctx *t) { (void)t; }

int sk_host_launch_team(const sk_launch *l, int pooled, char *err,
                        size_t errlen) {
  (void)l;
  (void)pooled;
  snprintf(err, errlen, "TeamPolicy launches are not implemented yet");
  return -1;
}
