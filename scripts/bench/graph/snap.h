/* snap.h: the SNAP edge list bench.lua writes (read by the C peers
 * gb_peer.c and ig_peer.c): '# Nodes: N' among the comments, then one
 * 'u v' line per undirected edge; and the 16 BFS sources beside it
 * (EDGEFILE.sources). Records are printed as bench.lua's. */
#ifndef SNAP_H
#define SNAP_H
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  int64_t n, m;   /* vertices, edges */
  int64_t *u, *v; /* the edges */
  int64_t src[16];
  int nsrc;
} snap;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void record(const char *op, const char *impl, double t, const char *extra) {
  printf("R\t%s\t%s\t%.6e\t%s\n", op, impl, t, extra ? extra : "");
  fflush(stdout);
}

static void snap_read(const char *path, snap *g) {
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    exit(1);
  }
  char line[256];
  int64_t cap = 1 << 20, maxid = -1;
  memset(g, 0, sizeof *g);
  g->n = -1;
  g->u = malloc(cap * sizeof *g->u);
  g->v = malloc(cap * sizeof *g->v);
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') {
      char *p = strstr(line, "Nodes:");
      if (p) g->n = strtoll(p + 6, NULL, 10);
      continue;
    }
    long long a, b;
    if (sscanf(line, "%lld %lld", &a, &b) != 2) continue;
    if (g->m == cap) {
      cap *= 2;
      g->u = realloc(g->u, cap * sizeof *g->u);
      g->v = realloc(g->v, cap * sizeof *g->v);
    }
    g->u[g->m] = a;
    g->v[g->m++] = b;
    if (a > maxid) maxid = a;
    if (b > maxid) maxid = b;
  }
  fclose(f);
  if (g->n < maxid + 1) g->n = maxid + 1;
  char sp[4096];
  snprintf(sp, sizeof sp, "%s.sources", path);
  f = fopen(sp, "r");
  if (!f) {
    perror(sp);
    exit(1);
  }
  long long s;
  while (g->nsrc < 16 && fscanf(f, "%lld", &s) == 1) g->src[g->nsrc++] = s;
  fclose(f);
}
#endif
