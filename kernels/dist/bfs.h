/* bfs.h: speck.dist's BFS driver (kernels/dist/bfs.c) -- a search's
 * levels run in C over the exec layer: level-synchronous, top-down or
 * bottom-up a level (Beamer's switch), the frontier a bitmap replicated
 * on every rank and gathered a level (MPI_Allgatherv of each rank's
 * words, the level's counts riding along: one collective a level), as
 * the Graph500 reference's replicated-bitmap BFS. The Lua side
 * (stdlib/speck/dist_graph.lua's dist.bfs) checks the arguments. */
#ifndef SK_DIST_BFS_H
#define SK_DIST_BFS_H

#include <stddef.h>
#include <stdint.h>

#include "core/view.h"
#include "../../backends/dist/dist.h"

typedef struct sk_dist_bfs {
  int np, me;
  int64_t nv, nloc, nhalo, nw; /* nw: this rank's words, ceil(nloc / 64) */
  int64_t lo;                  /* this rank's first vertex */
  int64_t m_total;             /* the arcs of all ranks (degree sum) */
  /* every rank's block of the gathered buffer: its nw words then three
   * counters (found, their degrees, a failure flag); blk[r] its length,
   * at[r] where it starts (words) */
  int64_t *blk, *at, nall;
  /* the graph's views (alive while this is; one space): ap, ac the
   * out-arcs between this rank's vertices; ip, ic its in-arcs from them
   * (ap, ac again when undirected); bp, bc its in-arcs from the halo
   * (columns: halo positions); deg the out-degrees */
  const sk_view *ap, *ac, *ip, *ic, *bp, *bc, *deg;
  int space, stage;
  int team_size, lanes; /* a device's team bodies (lanes 0: the range bodies) */
  sk_view tp, tc;       /* bp, bc transposed: by halo vertex, this rank's vertices */
  sk_view hp;           /* the halo vertices' bits in the gathered bitmap */
  sk_view done;         /* this rank's vertices visited (or never reachable), nw words */
  sk_view nxt; /* this rank's new frontier words (unstaged: nw + 3, the send buffer) */
  sk_view fr;  /* the gathered frontier, nall words */
  sk_view hs, hfr; /* stage: the host copies of nxt (nw + 3) and fr */
  char *dirs;      /* the last search's directions, "T"/"B" a level */
  size_t ndirs, capdirs;
} sk_dist_bfs;

/* Set 'b' up for a graph over contiguous map 'm' (its blocks in m->off):
 * views ap, ac, ip, ic, bp, bc, deg (see the struct; one space, a
 * device's on GPU ranks), halo_ids (the halo's global ids, host) and the
 * arcs' total m_total; 'stage' (forced where the views are not host
 * memory): the frontier travels through host buffers. Not collective. */
int sk_dist_bfs_init(sk_dist_bfs *b, const sk_dist_map *m, const sk_view *const views[7],
                     const sk_view *halo_ids, int64_t m_total, int stage, char *err,
                     size_t errlen);
/* The bytes 'b' holds besides the graph's views. */
int64_t sk_dist_bfs_bytes(const sk_dist_bfs *b);
/* One search (collective) from global vertex 'source' into 'lev' (int64,
 * nloc, in the graph's space): hops, -1 unreached; 'source' is a
 * vertex (the caller checked it). 'dir' 0 auto
 * (Beamer's switch: top-down while the frontier's arcs are at most 1/14
 * of the unvisited vertices', bottom-up while the frontier holds at least
 * nv / 24 vertices), 1 top-down, 2 bottom-up. b->dirs holds a letter a
 * level. A failure on any rank fails every rank with the lowest failing
 * rank's message. */
int sk_dist_bfs_run(sk_dist_bfs *b, const sk_view *lev, int64_t source, int dir,
                    char *err, size_t errlen);
void sk_dist_bfs_free(sk_dist_bfs *b);
#endif
