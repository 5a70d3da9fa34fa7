/* triangles.c: graph.triangles (each triangle counted once, at its
 * lowest-ranked corner) and graph.minitri. Bodies: triangles.sk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- triangles ---------------------------------------------------------------
 * Vertices ranked by (degree, id); each vertex keeps its neighbours of
 * higher rank (in id order: an oriented copy of the graph, as GAP's tc),
 * and each triangle is found once, at its lowest-ranked corner u, by
 * merging u's and v's kept lists for every kept v; its three corners are
 * counted (atomics). On the host the intersections are bit tests instead
 * of merges (below). */
static const char *const sig_tri_cnt[] = {"range" G3 R1("cnt", "int64") " n=int64", NULL};
static const sk_kbody k_tri_cnt = {.label = "graph.tri_count",
                                   .body = sk_body_graph_tri_count,
                                   .pattern = SK_FOR,
                                   .sigs = sig_tri_cnt};

static const char *const sig_tri_fill[] = {"range" G3 R1("op", "int64") R1("oc", "int32"),
                                           NULL};
static const sk_kbody k_tri_fill = {.label = "graph.tri_orient",
                                    .body = sk_body_graph_tri_orient,
                                    .pattern = SK_FOR,
                                    .sigs = sig_tri_fill};

/* Each triangle is found once, at its lowest-ranked corner u: for every
 * kept v of u, the kept lists of u and v are merged. On a GPU a thread
 * per kept arc (u, v) (osrc: the arcs' u) -- a thread per vertex left the
 * hubs' merges to a few threads (1.14 s at Kronecker scale 22); an arc's
 * merge is bounded by two kept lists. */
static const sk_kbody k_tri_arc_total = {.label = "graph.triangles_arcs",
                                         .body = sk_body_graph_triangles_arcs,
                                         .pattern = SK_REDUCE,
                                         .reds = "sum:int64"};
static const sk_kbody k_tri_arc = {.label = "graph.triangles_arcs_per_vertex",
                                   .body = sk_body_graph_triangles_arcs_per_vertex,
                                   .pattern = SK_REDUCE,
                                   .reds = "sum:int64"};
static const sk_kbody k_tri_src = {.label = "graph.triangles_arc_sources",
                                   .body = sk_body_graph_triangles_arc_sources,
                                   .pattern = SK_FOR};

/* the total on the host: each vertex u marks its kept neighbours in a
 * bitmap in thread scratch (nv bits), then every kept v of u counts the
 * marked vertices of v's kept list: no merge, one bit test per pair
 * (Kronecker scale 20: the bitmap is 128 KB, in cache). A league rank
 * takes a block of 'chunk' vertices, scheduled dynamically. */
static const char *const sig_tri_bits[] = {
  "team" R1("op", "int64") R1("oc", "int32") " nv=int64 chunk=int64", NULL};
static const char *const sig_tri_bitsv[] = {"team" R1("op", "int64") R1("oc", "int32")
                                              R1("tri", "int64") " nv=int64 chunk=int64",
                                            NULL};
static const sk_kbody k_tri_bits = {.label = "graph.triangles_bitmap",
                                    .body = sk_body_graph_triangles_bitmap,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_tri_bits,
                                    .reds = "sum:int64"};
static const sk_kbody k_tri_bitsv = {.label = "graph.triangles_bitmap_per_vertex",
                                     .body = sk_body_graph_triangles_bitmap_per_vertex,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_tri_bitsv,
                                     .reds = "sum:int64"};

/* graph.triangles: G_* (undirected) [, per_vertex (default 1)] -> total,
 * per_vertex (when asked) */
static int triangles(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx",   "G_weights",
                                      "directed", "per_vertex", NULL};
  sk_graph g;
  int directed, per;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "per_vertex", 1, &per, err, errlen) < 0)
    return -1;
  if (directed) {
    sk_err(err, errlen, SK_E_GRAPH_DIRECTED_TRIANGLES);
    return -1;
  }
  int space = g.rowptr->space, rc = -1;
  int64_t m = 0;
  sk_view tri, cnt, op, oc, osrc;
  sk_view *all[] = {&tri, &cnt, &op, &oc, &osrc};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if ((per && sk_sp_view(&tri, "triangles", SK_I64, g.nv, space, 1, err, errlen) < 0) ||
      sk_sp_view(&cnt, "higher", SK_I64, g.nv + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&op, "oriented rowptr", SK_I64, g.nv + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("cnt", &cnt), sk_arg_i64("n", g.nv)};
    if (sk_sp_range(&k_tri_cnt, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&cnt, &op, g.nv, &m, err, errlen) < 0 ||
      sk_sp_view(&oc, "oriented colidx", SK_I32, m, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("op", &op), sk_arg_view("oc", &oc)};
    if (sk_sp_range(&k_tri_fill, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_result r;
    const sk_backend *b = sk_sp_backend(err, errlen);
    if (!b) goto done;
    if (sk_sp_host(b) && g.nv > 0) {
      /* the bitmap kernel (a block of vertices per league rank, 16 per thread) */
      int64_t conc = b->concurrency ? b->concurrency() : 1;
      if (conc < 1) conc = 1;
      int64_t chunk = (g.nv + 64 * conc - 1) / (64 * conc);
      sk_policy p;
      sk_policy_init(&p, SK_POL_TEAM);
      p.league_size = (g.nv + chunk - 1) / chunk;
      p.team_size = 1;
      p.schedule = SK_DYNAMIC;
      p.scratch_thread[1] = ((g.nv + 63) / 64) * 8 + 64;
      sk_arg t[] = {sk_arg_view("op", &op), sk_arg_view("oc", &oc),
                    sk_arg_i64("nv", g.nv), sk_arg_i64("chunk", chunk),
                    sk_arg_view("tri", &tri)};
      if (sk_kbody_launch(per ? &k_tri_bitsv : &k_tri_bits, &p, t, per ? 5 : 4, &r, err,
                          errlen) < 0)
        goto done;
    } else if (g.nv > 0) {
      /* a GPU: a thread per kept arc */
      sk_arg s1[] = {sk_arg_view("op", &op), sk_arg_view("osrc", &osrc)};
      sk_arg t[] = {sk_arg_view("op", &op), sk_arg_view("oc", &oc),
                    sk_arg_view("osrc", &osrc), sk_arg_view("tri", &tri)};
      if (sk_sp_view(&osrc, "kept arcs' sources", SK_I32, m > 0 ? m : 1, space, 0, err,
                     errlen) < 0 ||
          sk_sp_range(&k_tri_src, g.nv, s1, NELEM(s1), NULL, err, errlen) < 0 ||
          sk_sp_range(per ? &k_tri_arc : &k_tri_arc_total, m, t, per ? 4 : 3, &r, err,
                      errlen) < 0)
        goto done;
    }
    if (sk_kout_num(out, "total", (double)(g.nv > 0 ? sk_result_i64(&r, 0) : 0), err,
                    errlen) < 0 ||
        (per && sk_kout_view(out, "per_vertex", &tri, err, errlen) < 0))
      goto done;
  }
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- miniTri ---------------------------------------------------------------------
 * Seed 003 chapter 6: every triangle of an undirected graph gets the
 * largest k with min over its corners t_v >= (k-1 choose 2) and min over
 * its edges t_e >= k - 2 (t_v: triangles at a vertex, t_e: triangles on
 * an edge); the result is the histogram of k. t_e is counted per arc by
 * merging the two rows (self-loops skipped); triangles are enumerated at
 * their smallest corner u < v < w by merging rows u and v above v. */
static const char *const sig_mt_te[] = {"range" G3 R1("te", "int64"), NULL};
static const sk_kbody k_mt_te = {.label = "graph.minitri_edges",
                                 .body = sk_body_graph_minitri_edges,
                                 .pattern = SK_FOR,
                                 .sigs = sig_mt_te};

static const char *const sig_mt_hist[] = {
  "range" G3 R1("tv", "int64") R1("te", "int64") R1("hist", "int64"), NULL};
static const sk_kbody k_mt_hist = {.label = "graph.minitri_hist",
                                   .body = sk_body_graph_minitri_hist,
                                   .pattern = SK_FOR,
                                   .sigs = sig_mt_hist};

static const char *const sig_maxdeg[] = {"range" R1("rowptr", "int64"), NULL};
static const sk_kbody k_maxdeg = {.label = "graph.max_degree",
                                  .body = sk_body_graph_max_degree,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_maxdeg,
                                  .reds = "max:int64"};

/* graph.minitri: G_* (undirected) -> hist (int64: hist(k) triangles of
 * value k, k in 0..maxdeg + 2) */
static int minitri(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  sk_kvalue tv;
  memset(&tv, 0, sizeof tv);
  sk_graph g;
  int directed;
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  if (directed) {
    sk_err(err, errlen, SK_E_GRAPH_DIRECTED_MINITRI);
    return -1;
  }
  sk_arg ta[] = {sk_arg_view("G_rowptr", g.rowptr), sk_arg_view("G_colidx", g.colidx)};
  if (triangles(ta, 2, &tv, err, errlen) < 0) {
    sk_kout_release(&tv);
    return -1;
  }
  const sk_view *tvv = NULL;
  for (int k = 0; k < tv.nout; k++)
    if (tv.out[k].is_view) tvv = &tv.out[k].view;
  int space = g.rowptr->space, rc = -1;
  sk_view te, hist;
  memset(&te, 0, sizeof te);
  memset(&hist, 0, sizeof hist);
  int64_t maxdeg = 0;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr)};
    sk_result r;
    if (g.nv > 0) {
      if (sk_sp_range(&k_maxdeg, g.nv, a, 1, &r, err, errlen) < 0) goto done;
      maxdeg = sk_result_i64(&r, 0);
    }
  }
  if (sk_sp_view(&te, "edge triangles", SK_I64, g.narcs, space, 0, err, errlen) < 0 ||
      sk_sp_view(&hist, "k histogram", SK_I64, maxdeg + 3, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("te", &te)};
    if (sk_sp_range(&k_mt_te, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("tv", tvv), sk_arg_view("te", &te),
                  sk_arg_view("hist", &hist)};
    if (sk_sp_range(&k_mt_hist, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_kout_view(out, "hist", &hist, err, errlen) < 0) goto done;
  rc = 0;
done:
  sk_kout_release(&tv);
  sk_view_release(&te);
  sk_view_release(&hist);
  return rc;
}

/* -- registration --------------------------------------------------------- */
const sk_kentry sk_galgo_tri = {"graph.triangles", "G_*", SK_KRES_NONE, triangles};
const sk_kentry sk_galgo_minitri = {"graph.minitri", "G_*", SK_KRES_NONE, minitri};

const sk_kbody *const sk_gtri_bodies[] = {&k_tri_cnt,   &k_tri_fill, &k_tri_bits,
                                          &k_tri_bitsv, &k_mt_te,    &k_mt_hist,
                                          &k_maxdeg,    NULL};
