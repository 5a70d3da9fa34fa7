/* graph.h: the graph family's internal interface (kernels/graph/): graphs
 * as driver arguments, building a graph from edges, and the bodies each
 * file registers.
 *
 * A graph is the CSR of speck.sparse, shared, not copied: G_rowptr
 * (int64, nv + 1), G_colidx (int32, one entry per directed arc, rows
 * sorted) and optionally G_weights (float64, one per arc). An undirected
 * graph stores each edge {u, v} twice (u -> v and v -> u). Drivers check
 * shapes and dtypes (O(1)); the contents are what sk_g_build made. New
 * graphs come back as the output views G_rowptr, G_colidx, G_weights.
 */
#ifndef SK_GRAPH_H
#define SK_GRAPH_H

#include "../sparse/sparse.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"

typedef struct sk_graph {
  const sk_view *rowptr, *colidx, *weights; /* weights NULL: unweighted */
  int64_t nv, narcs;
} sk_graph;

/* the graph of arguments G_rowptr, G_colidx [, G_weights] */
int sk_g_arg(const sk_arg *args, int nargs, sk_graph *g, char *err, size_t errlen);

/* Options of building a graph from edges. */
typedef struct sk_gopts {
  int directed;   /* 0: each edge also stored reversed */
  int dedupe;     /* 1: repeated arcs merged (the last weight kept) */
  int self_loops; /* 0: arcs u -> u dropped */
  /* a reader's progress the build goes on stepping, from 'prog_from' to
   * 'prog_to' of its units (NULL: none) */
  struct sk_progress *prog;
  double prog_from, prog_to;
} sk_gopts;

/* Build a graph of 'nv' vertices from edges src(i) -> dst(i) (int64 or
 * int32 views of one space, ids already checked to be in [0, nv)) and
 * weights 'w' (float64 or NULL) into the outputs G_rowptr, G_colidx
 * [, G_weights] of 'out'. */
int sk_g_build(int64_t nv, const sk_view *src, const sk_view *dst, const sk_view *w,
               const sk_gopts *o, sk_kvalue *out, char *err, size_t errlen);
/* the first edge with an endpoint outside [0, nv) as a message; 1 when
 * one was found, 0 none, -1 error */
int sk_g_check_ids(int64_t nv, const sk_view *src, const sk_view *dst, char *err,
                   size_t errlen);
/* the build options from the arguments directed, dedupe, self_loops
 * (integers or booleans) */
int sk_g_opts(const sk_arg *args, int nargs, sk_gopts *o, char *err, size_t errlen);
/* a boolean or integer argument (0/1) */
int sk_g_flag(const sk_arg *args, int nargs, const char *name, int dflt, int *x,
              char *err, size_t errlen);
/* the source vertex of every arc of 'g' into new int32 view 'rows' */
int sk_g_arc_sources(const sk_graph *g, sk_view *rows, char *err, size_t errlen);
/* the default space (views of the library's results) */
int sk_g_space(char *err, size_t errlen);
/* Out of core (seed 003 4.7): the space for 'bytes' of a graph's arc
 * arrays whose vertex arrays live in 'space' -- 'space' when they fit in
 * its room (sk_space_room: free device memory, its budget variable),
 * else its spill space (device -> pinned host memory the GPU reads in
 * place), else 'space' (the allocation then says what does not fit) */
int sk_g_edge_space(int space, uint64_t bytes);
/* the space of a graph's vertex arrays when its arcs are in 'espace':
 * the default space when 'espace' is that space's spill space, else
 * 'espace' */
int sk_g_vertex_space(int espace);
/* set element 0 of int64 view 'v' to 'x' / read it */
int sk_g_set0(const sk_view *v, int64_t x, char *err, size_t errlen);

/* the dialect prelude: a counter-based random generator, the same
 * numbers on every back end (splitmix64 of a seed and a counter). It is
 * build.sk's text 'prelude': sk_body_graph_prelude (kbodies.h). */

extern const sk_kentry *const sk_gbuild_entries[],
  *const sk_gio_entries[], *const sk_galgo_entries[], *const sk_grecur_entries[],
                                                        *const sk_gmesh_entries[],
  *const sk_gvalues_entries[], *const sk_gread_entries[];
extern const sk_kbody *const sk_gbuild_bodies[],
  *const sk_galgo_bodies[], *const sk_grecur_bodies[], *const sk_gmesh_bodies[],
  *const sk_gvalues_bodies[];

#endif
