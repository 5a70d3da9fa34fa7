/* algo.c: what the graph algorithms share (a range whose work follows
 * the vertices' degrees) and graph.count_loops. The algorithms live in a
 * file each (bfs.c, cc.c, pagerank.c, triangles.c, color.c, mis2.c), their
 * bodies in the .sk file of the same name; graph.c lists them.
 */
#include <string.h>

#include "algo.h"

/* -- ranges over vertices (algo.h) -------------------------------------- */
int sk_galgo_degree_range_chunk(const sk_kbody *kb, int64_t n, int64_t chunk,
                                const sk_arg *args, int nargs, sk_result *res, char *err,
                                size_t errlen) {
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) return -1;
  if (be->code == SK_CODE_HOST) { /* (a GPU's chunk would be its block size) */
    p.schedule = SK_DYNAMIC;
    p.chunk = chunk;
  }
  return sk_kbody_launch(kb, &p, args, nargs, res, err, errlen);
}
int sk_galgo_degree_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                          sk_result *res, char *err, size_t errlen) {
  return sk_galgo_degree_range_chunk(kb, n, 256, args, nargs, res, err, errlen);
}

/* the active back end's team limits, zeroed where it leaves one unset;
 * -1 with a message when there is no back end */
static int galgo_limits(sk_team_limits *lim, char *err, size_t errlen) {
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) return -1;
  memset(lim, 0, sizeof *lim);
  be->team_limits(lim);
  return 0;
}

int sk_galgo_warp(char *err, size_t errlen) {
  sk_team_limits lim;
  if (galgo_limits(&lim, err, errlen) < 0) return -1;
  return lim.warp > 0 ? lim.warp : 1;
}

int sk_galgo_processors(void) {
  char err[64];
  sk_team_limits lim;
  return galgo_limits(&lim, err, sizeof err) < 0 ? 0 : lim.processors;
}

/* -- graph.count_loops ----------------------------------------------------- */
static const char *const sig_loops[] = {"range" G3, NULL};
static const sk_kbody k_loops = {.label = "graph.count_loops",
                                 .body = sk_body_graph_count_loops,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_loops,
                                 .reds = "sum:int64"};

/* graph.count_loops: G_* -> the number of arcs u -> u */
static int count_loops(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx)};
  sk_result r;
  if (sk_sp_range(&k_loops, g.nv, a, NELEM(a), &r, err, errlen) < 0) return -1;
  out->i64 = g.nv > 0 ? sk_result_i64(&r, 0) : 0;
  return 0;
}

/* -- registration ---------------------------------------------------------- */
static const sk_kentry e_loops = {"graph.count_loops", "G_*", SK_KRES_I64, count_loops};

const sk_kentry *const sk_galgo_entries[] = {
  &sk_galgo_bfs,     &sk_galgo_cc,        &sk_galgo_pr, &sk_galgo_tri,
  &sk_galgo_color,   &sk_galgo_color_bip, &e_loops,     &sk_galgo_mis2,
  &sk_galgo_minitri, &sk_galgo_coarsen,   &sk_galgo_sssp, &sk_galgo_bc, NULL};
const sk_kbody *const sk_galgo_bodies[] = {&k_loops, NULL};
