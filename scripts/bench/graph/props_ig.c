/* props_ig.c: igraph (Debian's libigraph-dev 0.10, one thread) on the
 * graph props.lua wrote: local clustering coefficients
 * (igraph_transitivity_local_undirected, 0 for degree < 2 as NetworkX),
 * transitivity (igraph_transitivity_undirected) and the Jaccard
 * similarity of every edge (igraph_similarity_jaccard_es: m pairs, speck
 * scores each edge's two arcs: 2m). usage: props_ig EDGEFILE -- records as
 * props.lua's */
#include <igraph.h>

#include "snap.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: props_ig EDGEFILE\n");
    return 2;
  }
  snap g;
  snap_read(argv[1], &g);
  double t0 = now();
  igraph_vector_int_t ev;
  igraph_vector_int_init(&ev, 0);
  igraph_vector_int_reserve(&ev, 2 * g.m);
  for (int64_t e = 0; e < g.m; e++) {
    if (g.u[e] == g.v[e]) continue;
    igraph_vector_int_push_back(&ev, g.u[e]);
    igraph_vector_int_push_back(&ev, g.v[e]);
  }
  igraph_t G;
  if (igraph_create(&G, &ev, g.n, IGRAPH_UNDIRECTED) != IGRAPH_SUCCESS) return 1;
  igraph_vector_int_destroy(&ev);
  char extra[128];
  snprintf(extra, sizeof extra, "%lld edges", (long long)igraph_ecount(&G));
  record("generate", "igraph", now() - t0, extra);

  igraph_vector_t res;
  igraph_vector_init(&res, 0);
  t0 = now();
  igraph_transitivity_local_undirected(&G, &res, igraph_vss_all(), IGRAPH_TRANSITIVITY_ZERO);
  record("clustering", "igraph", now() - t0, NULL);

  igraph_real_t tr = 0;
  t0 = now();
  igraph_transitivity_undirected(&G, &tr, IGRAPH_TRANSITIVITY_ZERO);
  snprintf(extra, sizeof extra, "%.6f", (double)tr);
  record("transitivity", "igraph", now() - t0, extra);

  t0 = now();
  igraph_similarity_jaccard_es(&G, &res, igraph_ess_all(IGRAPH_EDGEORDER_ID), IGRAPH_ALL, 0);
  snprintf(extra, sizeof extra, "%lld pairs", (long long)igraph_ecount(&G));
  record("jaccard_edges", "igraph", now() - t0, extra);
  igraph_vector_destroy(&res);
  igraph_destroy(&G);
  return 0;
}
