/* algo.h: what the graph algorithms' files (kernels/graph/: bfs.c, cc.c,
 * pagerank.c, triangles.c, color.c, mis2.c, algo.c) share; internal.
 */
#ifndef SK_GRAPH_ALGO_H
#define SK_GRAPH_ALGO_H

#include "graph.h"
#include "kbodies.h"

#define G3 R1("rowptr", "int64") R1("colidx", "int32")

/* Launch 'kb' over a range of n vertices whose work follows their degrees
 * (power-law graphs: a few rows hold most arcs): on the host claimed in
 * chunks of 'chunk' (256) by the threads that are free; a GPU back end's
 * launch as any range. */
int sk_galgo_degree_range_chunk(const sk_kbody *kb, int64_t n, int64_t chunk,
                                const sk_arg *args, int nargs, sk_result *res, char *err,
                                size_t errlen);
int sk_galgo_degree_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                          sk_result *res, char *err, size_t errlen);

/* the active back end's warp (sk_team_limits.warp: the threads that run
 * in lockstep, 32 on a GPU, 1 on the host), -1 with a message when there
 * is no back end: a kernel that gives a warp a row or a word sizes its
 * vector loops by it */
int sk_galgo_warp(char *err, size_t errlen);
/* the active back end's processors that run teams at once (a GPU's
 * multiprocessors), 0 when unknown or on the host */
int sk_galgo_processors(void);

/* the entries, each in its file, listed by algo.c in one order (the
 * order of the family in messages), and one list of bodies per file
 * (graph.c registers them) */
extern const sk_kentry sk_galgo_bfs, sk_galgo_cc, sk_galgo_pr, sk_galgo_tri,
  sk_galgo_color, sk_galgo_color_bip, sk_galgo_mis2, sk_galgo_minitri, sk_galgo_coarsen;
/* shortest paths and betweenness (sssp.c, bc.c) */
extern const sk_kentry sk_galgo_sssp, sk_galgo_bc;
extern const sk_kbody *const sk_gsssp_bodies[];
extern const sk_kbody *const sk_gbc_bodies[];
extern const sk_kbody *const sk_gbfs_bodies[];
extern const sk_kbody *const sk_gcc_bodies[];
extern const sk_kbody *const sk_gpr_bodies[];
extern const sk_kbody *const sk_gtri_bodies[];
extern const sk_kbody *const sk_gcolor_bodies[];
extern const sk_kbody *const sk_gmis_bodies[];
/* graph properties and similarity (props.c): a list of entries of its own */
extern const sk_kentry *const sk_gprops_entries[];
extern const sk_kbody *const sk_gprops_bodies[];

#endif
