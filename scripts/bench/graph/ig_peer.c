/* ig_peer.c: igraph (Debian's libigraph-dev 0.10, one thread) on the graph
 * bench.lua wrote: BFS from the same 16 sources (igraph_bfs_simple),
 * connected components, PageRank (PRPACK: solved to convergence, not 20
 * iterations), triangles (igraph_adjacent_triangles summed / 3), greedy
 * coloring (COLORED_NEIGHBORS). usage: ig_peer EDGEFILE -- records as
 * bench.lua's */
#include <igraph.h>

#include "snap.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ig_peer EDGEFILE\n");
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

  igraph_vector_int_t order, layers, parents;
  igraph_vector_int_init(&order, 0);
  igraph_vector_int_init(&layers, 0);
  igraph_vector_int_init(&parents, 0);
  igraph_bfs_simple(&G, g.src[0], IGRAPH_ALL, &order, &layers, &parents);
  double tb = 0;
  for (int s = 0; s < g.nsrc; s++) {
    t0 = now();
    igraph_bfs_simple(&G, g.src[s], IGRAPH_ALL, &order, &layers, &parents);
    tb += now() - t0;
  }
  record("bfs", "igraph", tb / g.nsrc, NULL);

  igraph_vector_int_t memb, csize;
  igraph_integer_t nc;
  igraph_vector_int_init(&memb, 0);
  igraph_vector_int_init(&csize, 0);
  t0 = now();
  igraph_connected_components(&G, &memb, &csize, &nc, IGRAPH_WEAK);
  snprintf(extra, sizeof extra, "%lld components", (long long)nc);
  record("cc", "igraph", now() - t0, extra);

  igraph_vector_t pr;
  igraph_real_t val;
  igraph_vector_init(&pr, 0);
  t0 = now();
  igraph_pagerank(&G, IGRAPH_PAGERANK_ALGO_PRPACK, &pr, &val, igraph_vss_all(), 0, 0.85,
                  NULL, NULL);
  record("pagerank", "igraph", now() - t0, "PRPACK, to convergence");

  igraph_vector_t tri;
  igraph_vector_init(&tri, 0);
  t0 = now();
  igraph_adjacent_triangles(&G, &tri, igraph_vss_all());
  double tsum = 0;
  for (igraph_integer_t i = 0; i < igraph_vector_size(&tri); i++) tsum += VECTOR(tri)[i];
  snprintf(extra, sizeof extra, "%.0f triangles", tsum / 3);
  record("triangles", "igraph", now() - t0, extra);

  igraph_vector_int_t col;
  igraph_vector_int_init(&col, 0);
  t0 = now();
  igraph_vertex_coloring_greedy(&G, &col, IGRAPH_COLORING_GREEDY_COLORED_NEIGHBORS);
  igraph_integer_t ncol = 0;
  for (igraph_integer_t i = 0; i < igraph_vector_int_size(&col); i++)
    if (VECTOR(col)[i] + 1 > ncol) ncol = VECTOR(col)[i] + 1;
  snprintf(extra, sizeof extra, "%lld colors", (long long)ncol);
  record("color", "igraph", now() - t0, extra);
  igraph_destroy(&G);
  return 0;
}
