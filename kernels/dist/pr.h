/* pr.h: speck.dist's PageRank driven from C (kernels/dist/pr.c) -- the
 * iteration of graph.pagerank (NetworkX's) over a distributed graph's
 * in-arcs, an iteration a halo exchange of the shares, the step's and the
 * next shares' kernels and one MPI_Allreduce, with no Lua between
 * iterations. The Lua side (stdlib/speck/dist_graph.lua) checks the
 * options and hands the exchange's buffers over (kernels/dist/cc.h). */
#ifndef SK_DIST_PR_H
#define SK_DIST_PR_H

#include <stddef.h>
#include <stdint.h>

#include "cc.h"

/* PageRank (collective): x[0] (float64, nloc) holds the start (1/N each),
 * x[1] and y (float64, nloc) are scratch, hy the halo of y over B (the
 * in-arcs: ip, ic, bp, bc), deg the out-degrees; N the vertices, d the
 * damping; at most 'maxiter' iterations, stopping when the sum over the
 * ranks of |x' - x| is below N * tol. *which: the x[] holding the ranks,
 * *iters the iterations run. */
int sk_dist_pr_run(sk_dist_xchg *xb, const sk_dist_ccg *B, const sk_view *const x[2],
                   const sk_view *y, const sk_view *hy, const sk_view *deg, int64_t N,
                   double d, double tol, int64_t maxiter, int *which, int64_t *iters,
                   char *err, size_t errlen);
#endif
