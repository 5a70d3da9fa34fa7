/* cc.h: speck.dist's connected components driven from C
 * (kernels/dist/cc.c) -- min-label propagation over a distributed graph's
 * halo plans, an iteration a halo exchange (or two: a directed graph's
 * in-arcs too), the step's kernels and one MPI_Allreduce, with no Lua
 * between iterations; and the halo exchange it runs (sk_dist_xchg), the
 * same three ways as stdlib/speck/dist.lua's xstart / xwait. The Lua side
 * (stdlib/speck/dist_graph.lua) checks the arguments and hands the
 * exchange's buffers over. */
#ifndef SK_DIST_CC_H
#define SK_DIST_CC_H

#include <stddef.h>
#include <stdint.h>

#include "core/view.h"
#include "../../backends/dist/dist.h"

enum { SK_XCHG_MPI, SK_XCHG_STAGED, SK_XCHG_ONESIDED };

/* a matrix's halo exchange of 8-byte values: 'mode' SK_XCHG_MPI (the plan
 * straight from the vectors: host memory), SK_XCHG_STAGED (slid's values
 * packed into sbuf by a kernel, copied to hsbuf, exchanged by the plan
 * into hhalo, copied to the halo) or SK_XCHG_ONESIDED (each value stored
 * by a kernel into its receiver's part of remote view rb[turn] at rank
 * pe, place off, then a remote fence; 'turn' (1 or 2, 0 before the
 * first) alternates as dist.lua's does, so the caller keeps it) */
typedef struct sk_dist_xchg {
  sk_dist_plan *plan;
  int mode, turn;
  int64_t nsend, nhalo;
  const sk_view *slid, *sbuf, *hsbuf, *hhalo, *rb[2], *pe, *off;
} sk_dist_xchg;

/* v's values the other ranks read into 'halo' (nhalo, this rank's).
 * Collective; a failing kernel or copy still leaves the collective steps
 * done (returns -1 after them). */
int sk_dist_xchg_run(sk_dist_xchg *x, const sk_view *v, const sk_view *halo, char *err,
                     size_t errlen);

/* The graph's blocks for the components: ip, ic, bp, bc (int64 row
 * pointers, int32 columns; bc: halo positions) of the out-arcs (A) and,
 * for a directed graph, of the in-arcs (B). */
typedef struct sk_dist_ccg {
  const sk_view *ip, *ic, *bp, *bc;
} sk_dist_ccg;

/* Connected components (collective): lab[0] and lab[1] (int64, nloc) the
 * two label vectors, hl / hli the halos of A and B (B NULL: undirected);
 * 'base' this rank's first vertex. *which: the lab[] holding the labels
 * (each vertex its component's smallest id), *ncomp the components over
 * the ranks. A failing rank's step fails every rank with the lowest
 * failing rank's message. */
int sk_dist_cc_run(sk_dist_xchg *xa, sk_dist_xchg *xb, const sk_dist_ccg *A,
                   const sk_dist_ccg *B, const sk_view *const lab[2], const sk_view *hl,
                   const sk_view *hli, int64_t base, int *which, int64_t *ncomp,
                   char *err, size_t errlen);
#endif
