/* props.c: graph properties and similarity -- graph.clustering (local
 * clustering coefficients and transitivity, from graph.triangles'
 * per-vertex counts), graph.similarity (Jaccard and overlap of vertex
 * pairs or of every arc), graph.degrees (degree histogram and
 * statistics) and graph.hits (hubs and authorities). Bodies: props.sk.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- clustering and transitivity ---------------------------------------------
 * NetworkX's clustering and transitivity of an undirected graph (weights
 * ignored, self-loops not neighbours): c(v) = 2 T(v) / (d(v) (d(v) - 1)),
 * transitivity = 3 * triangles / connected triples = sum 2 T(v) / sum
 * d(v) (d(v) - 1). T(v) comes from graph.triangles. */
static const char *const sig_clust[] = {"range" G3 R1("tri", "int64") R1("c", "float64"),
                                        NULL};
static const sk_kbody k_clust = {.label = "graph.clustering",
                                 .body = sk_body_graph_clustering,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_clust,
                                 .reds = "sum:int64 sum:int64"};

/* a directed graph's clustering (NetworkX's): from its rows and its
 * reverse's (R_*), a thread a vertex */
static const char *const sig_dclust[] = {
  "range" G3 R1("rrowptr", "int64") R1("rcolidx", "int32") R1("c", "float64"), NULL};
static const sk_kbody k_dclust = {.label = "graph.clustering_directed",
                                  .body = sk_body_graph_clustering_directed,
                                  .pattern = SK_FOR,
                                  .sigs = sig_dclust};

static int clustering_directed(const sk_graph *g, const sk_arg *args, int nargs,
                               sk_kvalue *out, char *err, size_t errlen) {
  const sk_view *rp = sk_karg_view(args, nargs, "R_rowptr", 1, err, errlen);
  const sk_view *rc = rp ? sk_karg_view(args, nargs, "R_colidx", 1, err, errlen) : NULL;
  if (!rc) return -1;
  sk_view c;
  memset(&c, 0, sizeof c);
  if (sk_sp_view(&c, "clustering", SK_F64, g->nv, g->rowptr->space, 0, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("rrowptr", rp),       sk_arg_view("rcolidx", rc),
                sk_arg_view("c", &c)};
  int r = (g->nv > 0 && sk_sp_range(&k_dclust, g->nv, a, NELEM(a), NULL, err, errlen) < 0) ||
          sk_kout_view(out, "clustering", &c, err, errlen) < 0 ? -1 : 0;
  sk_view_release(&c);
  return r;
}

/* graph.clustering: G_* [, what (for the message); R_* (the reverse) for a
 * directed graph's clustering] -> clustering (float64 per vertex),
 * transitivity (undirected) */
static int clustering(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "what",     "R_rowptr", "R_colidx",  NULL};
  sk_graph g;
  int directed;
  const char *what;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      !(what = sk_karg_str(args, nargs, "what", "clustering", err, errlen)))
    return -1;
  if (directed && strcmp(what, "clustering") == 0)
    return clustering_directed(&g, args, nargs, out, err, errlen);
  if (directed) {
    sk_err(err, errlen, SK_E_GRAPH_DIRECTED_CLUSTERING, what);
    return -1;
  }
  sk_kvalue tv;
  memset(&tv, 0, sizeof tv);
  sk_arg ta[] = {sk_arg_view("G_rowptr", g.rowptr), sk_arg_view("G_colidx", g.colidx)};
  if (sk_kernel_call("graph.triangles", ta, NELEM(ta), &tv, NULL, err, errlen) < 0) {
    sk_kout_release(&tv);
    return -1;
  }
  const sk_view *tri = NULL;
  for (int k = 0; k < tv.nout; k++)
    if (tv.out[k].is_view) tri = &tv.out[k].view;
  int rc = -1;
  sk_view c;
  memset(&c, 0, sizeof c);
  double trans = 0;
  if (sk_sp_view(&c, "clustering", SK_F64, g.nv, g.rowptr->space, 0, err, errlen) < 0)
    goto done;
  if (g.nv > 0) {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("tri", tri), sk_arg_view("c", &c)};
    sk_result r;
    if (sk_sp_range(&k_clust, g.nv, a, NELEM(a), &r, err, errlen) < 0) goto done;
    const int64_t t = sk_result_i64(&r, 0), pairs = sk_result_i64(&r, 1);
    trans = t > 0 ? (double)(2 * t) / (double)pairs : 0.0;
  }
  if (sk_kout_view(out, "clustering", &c, err, errlen) < 0 ||
      sk_kout_num(out, "transitivity", trans, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_view_release(&c);
  sk_kout_release(&tv);
  return rc;
}

/* -- Jaccard and overlap similarity ----------------------------------------------
 * A pair (u, v) is scored from the sorted rows of u and v (their
 * out-neighbours; an undirected graph's neighbours), a thread a pair
 * (a merge, or binary searches of a row 16 times longer than the other),
 * and the distinct neighbours of every vertex (one pass over the arcs);
 * every arc of an undirected graph on the host: bitmaps (k_sim_bits):
 * Jaccard |N(u) & N(v)| / |N(u) | N(v)| (NetworkX's jaccard_coefficient),
 * overlap |N(u) & N(v)| / min(|N(u)|, |N(v)|) (cuGraph's); 0 where the
 * denominator is 0. Every arc: the pairs (src(k), colidx(k)). */
static const char *const sig_pairs_bad[] = {
  "range" R1("us", "int64") R1("vs", "int64") " n=int64", NULL};
static const sk_kbody k_pairs_bad = {.label = "graph.pairs_first_bad",
                                     .body = sk_body_graph_pairs_first_bad,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_pairs_bad,
                                     .reds = "min:int64"};
static const char *const sig_dd[] = {"range" G3 R1("dd", "int64"), NULL};
static const sk_kbody k_dd = {.label = "graph.distinct_degree",
                              .body = sk_body_graph_distinct_degree,
                              .pattern = SK_REDUCE,
                              .sigs = sig_dd,
                              .reds = "sum:int64"};
/* every arc's on the host, an undirected graph without repeated arcs:
 * a bitmap of N(u) per vertex and bit tests of the lower-ranked
 * neighbour's row (see props.sk); a league rank takes 'chunk' vertices */
static const char *const sig_sim_bits[] = {
  "team" G3 R1("s", "float64") " nv=int64 chunk=int64 overlap=int64", NULL};
static const sk_kbody k_sim_bits = {.label = "graph.similarity_arcs_bitmap",
                                    .body = sk_body_graph_similarity_arcs_bitmap,
                                    .pattern = SK_FOR,
                                    .sigs = sig_sim_bits};
static const char *const sig_sim[] = {
  "range" G3 R1("dd", "int64") R1("us", "int64") R1("vs", "int64")
    R1("s", "float64") " overlap=int64",
  /* every arc: vs is colidx */
  "range" R1("rowptr", "int64") " colidx=int32[1]!" R1("dd", "int64")
    R1("us", "int32") " vs=int32[1]!" R1("s", "float64") " overlap=int64",
  NULL};
static const sk_kbody k_sim = {.label = "graph.similarity",
                               .body = sk_body_graph_similarity,
                               .pattern = SK_FOR,
                               .sigs = sig_sim};

/* an int64 or int32 rank-1 view argument */
static const sk_view *pair_view(const sk_arg *args, int nargs, const char *name,
                                char *err, size_t errlen) {
  const sk_view *v = sk_karg_view(args, nargs, name, 1, err, errlen);
  if (v && v->dtype != SK_I64 && v->dtype != SK_I32) {
    sk_err(err, errlen, SK_E_PAIRS_MUST_INTEGER, name, sk_dtypes[v->dtype].name);
    return NULL;
  }
  return v;
}

/* graph.similarity: G_*, measure "jaccard" | "overlap" [, us, vs (int64
 * or int32 views of one length)] -> s (float64 per pair; without pairs
 * per arc) */
static int similarity(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "measure",  "us",       "vs",        NULL};
  sk_graph g;
  const char *measure;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      !(measure = sk_karg_str(args, nargs, "measure", "jaccard", err, errlen)))
    return -1;
  const int overlap = strcmp(measure, "overlap") == 0;
  if (!overlap && strcmp(measure, "jaccard") != 0) {
    sk_err(err, errlen, SK_E_SIMILARITY_MEASURE, measure);
    return -1;
  }
  const sk_view *us = NULL, *vs = NULL;
  const int pairs = sk_karg_find(args, nargs, "us") || sk_karg_find(args, nargs, "vs");
  if (pairs) {
    if (!(us = pair_view(args, nargs, "us", err, errlen)) ||
        !(vs = pair_view(args, nargs, "vs", err, errlen)))
      return -1;
    if (us->extent[0] != vs->extent[0]) {
      sk_err(err, errlen, SK_E_PAIRS_LENGTHS_DIFFER, (long long)us->extent[0],
             (long long)vs->extent[0]);
      return -1;
    }
    const int64_t np = us->extent[0];
    if (np > 0) {
      sk_arg a[] = {sk_arg_view("us", us), sk_arg_view("vs", vs), sk_arg_i64("n", g.nv)};
      sk_result r;
      if (sk_sp_range(&k_pairs_bad, np, a, NELEM(a), &r, err, errlen) < 0) return -1;
      const int64_t bad = sk_result_i64(&r, 0);
      if (bad != INT64_MAX) {
        int64_t u = 0, v = 0;
        if (sk_sp_get_i64(us, bad, &u, err, errlen) < 0 ||
            sk_sp_get_i64(vs, bad, &v, err, errlen) < 0)
          return -1;
        sk_err(err, errlen, SK_E_PAIR_NOT_VERTEX, (long long)bad, (long long)u,
               (long long)v, (long long)(u < 0 || u >= g.nv ? u : v), (long long)g.nv,
               (long long)g.nv - 1);
        return -1;
      }
    }
  }
  int rc = -1;
  sk_view src, s, dd;
  memset(&src, 0, sizeof src);
  memset(&s, 0, sizeof s);
  memset(&dd, 0, sizeof dd);
  const int64_t np = pairs ? us->extent[0] : g.narcs;
  if (sk_sp_view(&s, measure, SK_F64, np, g.rowptr->space, 0, err, errlen) < 0) goto done;
  if (np > 0) {
    sk_arg d[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("dd", &dd)};
    sk_result r;
    if (sk_sp_view(&dd, "distinct degrees", SK_I64, g.nv, g.rowptr->space, 0, err,
                   errlen) < 0 ||
        sk_galgo_degree_range(&k_dd, g.nv, d, NELEM(d), &r, err, errlen) < 0)
      goto done;
    const int64_t repeats = sk_result_i64(&r, 0);
    const sk_backend *be = sk_sp_backend(err, errlen);
    if (!be) goto done;
    if (!pairs && !directed && repeats == 0 && sk_sp_host(be)) {
      /* the bitmap kernel (a block of vertices per league rank, 16 per
       * thread, as graph.triangles') */
      int64_t conc = be->concurrency ? be->concurrency() : 1;
      if (conc < 1) conc = 1;
      const int64_t chunk = (g.nv + 64 * conc - 1) / (64 * conc);
      sk_policy p;
      sk_policy_init(&p, SK_POL_TEAM);
      p.league_size = (g.nv + chunk - 1) / chunk;
      p.team_size = 1;
      p.schedule = SK_DYNAMIC;
      p.scratch_thread[1] = ((g.nv + 63) / 64) * 8 + 64;
      sk_arg a[] = {sk_arg_view("rowptr", g.rowptr),
                    sk_arg_view("colidx", g.colidx),
                    sk_arg_view("s", &s),
                    sk_arg_i64("nv", g.nv),
                    sk_arg_i64("chunk", chunk),
                    sk_arg_i64("overlap", overlap)};
      if (sk_kbody_launch(&k_sim_bits, &p, a, NELEM(a), NULL, err, errlen) < 0) goto done;
    } else {
      if (!pairs) {
        if (sk_g_arc_sources(&g, &src, err, errlen) < 0) goto done;
        us = &src;
        vs = g.colidx;
      }
      sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                    sk_arg_view("dd", &dd),          sk_arg_view("us", us),
                    sk_arg_view("vs", vs),           sk_arg_view("s", &s),
                    sk_arg_i64("overlap", overlap)};
      if (sk_sp_range(&k_sim, np, a, NELEM(a), NULL, err, errlen) < 0) goto done;
    }
  }
  if (sk_kout_view(out, "s", &s, err, errlen) < 0) goto done;
  rc = 0;
done:
  sk_view_release(&src);
  sk_view_release(&s);
  sk_view_release(&dd);
  return rc;
}

/* -- degrees --------------------------------------------------------------------
 * Every vertex's degree (NetworkX's: an undirected self-loop counts
 * twice; a directed graph's in-, out- or total degree), their histogram
 * (networkx.degree_histogram: hist(k) vertices of degree k, k in
 * 0..max) and, from the histogram on the host, min, max, mean, the
 * standard deviation (population: numpy.std's) and the median
 * (numpy.median's: the mean of the two middle degrees when n is even). */
static const char *const sig_deg[] = {
  "range" G3 R1("deg", "int64") " directed=int64 mode=int64", NULL};
static const sk_kbody k_deg = {.label = "graph.degrees",
                               .body = sk_body_graph_degrees,
                               .pattern = SK_FOR,
                               .sigs = sig_deg};
static const char *const sig_deg_range[] = {"range" R1("deg", "int64"), NULL};
static const sk_kbody k_deg_range = {.label = "graph.degree_range",
                                     .body = sk_body_graph_degree_range,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_deg_range,
                                     .reds = "min:int64 max:int64 sum:int64"};
static const char *const sig_deg_count[] = {
  "range" R1("deg", "int64") R1("hist", "int64"), NULL};
static const sk_kbody k_deg_count = {.label = "graph.degree_count",
                                     .body = sk_body_graph_degree_count,
                                     .pattern = SK_FOR,
                                     .sigs = sig_deg_count};

/* degree number j (from 0) in increasing order, from histogram h[0..nh) */
static int64_t hist_at(const int64_t *h, int64_t nh, int64_t j) {
  int64_t cum = 0;
  for (int64_t k = 0; k < nh; k++) {
    cum += h[k];
    if (cum > j) return k;
  }
  return nh - 1;
}

/* graph.degrees: G_* [, directed, mode "total" | "in" | "out"] -> hist
 * (int64 view), and with vertices min, max, mean, stddev, median */
static int degrees(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights",
                                      "directed", "mode",     NULL};
  sk_graph g;
  int directed;
  const char *ms;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      !(ms = sk_karg_str(args, nargs, "mode", "total", err, errlen)))
    return -1;
  const int mode = strcmp(ms, "out") == 0 ? 0 : strcmp(ms, "in") == 0 ? 1 : 2;
  if (mode == 2 && strcmp(ms, "total") != 0) {
    sk_err(err, errlen, SK_E_DEGREE_MODE, ms);
    return -1;
  }
  const int64_t n = g.nv;
  const int space = g.rowptr->space;
  int rc = -1;
  sk_view deg, hist, hh;
  memset(&deg, 0, sizeof deg);
  memset(&hist, 0, sizeof hist);
  memset(&hh, 0, sizeof hh);
  int64_t dmin = 0, dmax = -1, dsum = 0;
  if (sk_sp_view(&deg, "degrees", SK_I64, n, space, 1, err, errlen) < 0) goto done;
  if (n > 0) {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("deg", &deg), sk_arg_i64("directed", directed),
                  sk_arg_i64("mode", mode)};
    sk_arg b[] = {sk_arg_view("deg", &deg)};
    sk_result r;
    if (sk_galgo_degree_range(&k_deg, n, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_deg_range, n, b, NELEM(b), &r, err, errlen) < 0)
      goto done;
    dmin = sk_result_i64(&r, 0);
    dmax = sk_result_i64(&r, 1);
    dsum = sk_result_i64(&r, 2);
  }
  if (sk_sp_view(&hist, "degree histogram", SK_I64, dmax + 1, space, 1, err, errlen) < 0)
    goto done;
  if (n > 0) {
    sk_arg a[] = {sk_arg_view("deg", &deg), sk_arg_view("hist", &hist)};
    if (sk_sp_range(&k_deg_count, n, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_host_copy(&hist, &hh, err, errlen) < 0)
      goto done;
    const int64_t *h = hh.data;
    const double mean = (double)dsum / (double)n;
    double var = 0;
    for (int64_t k = 0; k <= dmax; k++)
      if (h[k]) var += (double)h[k] * ((double)k - mean) * ((double)k - mean);
    var /= (double)n;
    const double med = n % 2 ? (double)hist_at(h, dmax + 1, n / 2)
                             : ((double)hist_at(h, dmax + 1, n / 2 - 1) +
                                (double)hist_at(h, dmax + 1, n / 2)) /
                                 2;
    if (sk_kout_num(out, "min", (double)dmin, err, errlen) < 0 ||
        sk_kout_num(out, "max", (double)dmax, err, errlen) < 0 ||
        sk_kout_num(out, "mean", mean, err, errlen) < 0 ||
        sk_kout_num(out, "stddev", sqrt(var), err, errlen) < 0 ||
        sk_kout_num(out, "median", med, err, errlen) < 0)
      goto done;
  }
  if (sk_kout_view(out, "hist", &hist, err, errlen) < 0) goto done;
  rc = 0;
done:
  sk_view_release(&deg);
  sk_view_release(&hist);
  sk_view_release(&hh);
  return rc;
}

/* -- HITS -------------------------------------------------------------------------
 * NetworkX's power iteration (its reference _hits_python): h = 1/n; each
 * step a = A^T h (over the in-arcs), h' = A a (the out-arcs), both
 * scaled by 1 / their largest entry, until sum |h' - h| < tol; then each
 * divided by its sum. Weights count when the graph has them (A's
 * entries). A graph whose products vanish (no arcs) gives 1/n each. */
static const char *const sig_hits[] = {"range" G3 R1("x", "float64") R1("y", "float64"),
                                       NULL};
static const char *const sig_hits_w[] = {
  "range" G3 R1("x", "float64") R1("y", "float64") R1("w", "float64"), NULL};
static const sk_kbody k_hits = {.label = "graph.hits_pull",
                                .body = sk_body_graph_hits_pull,
                                .pattern = SK_REDUCE,
                                .sigs = sig_hits,
                                .reds = "max:float64"};
static const sk_kbody k_hits_w = {.label = "graph.hits_pull_w",
                                  .body = sk_body_graph_hits_pull_w,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_hits_w,
                                  .reds = "max:float64"};
/* on a GPU a warp a row (a hub's arcs are not one thread's walk) */
static const sk_kbody k_hits_team = {.label = "graph.hits_pull_team",
                                     .body = sk_body_graph_hits_pull_team,
                                     .pattern = SK_REDUCE,
                                     .reds = "max:float64"};
static const sk_kbody k_hits_w_team = {.label = "graph.hits_pull_w_team",
                                       .body = sk_body_graph_hits_pull_w_team,
                                       .pattern = SK_REDUCE,
                                       .reds = "max:float64"};
static const char *const sig_hits_scale[] = {
  "range" R1("hn", "float64") R1("h", "float64")
    R1("a", "float64") " sh=float64 sa=float64",
  NULL};
static const sk_kbody k_hits_scale = {.label = "graph.hits_scale",
                                      .body = sk_body_graph_hits_scale,
                                      .pattern = SK_REDUCE,
                                      .sigs = sig_hits_scale,
                                      .reds = "sum:float64"};
static const char *const sig_hits_norm[] = {
  "range" R1("h", "float64") R1("a", "float64") " sh=float64 sa=float64", NULL};
static const sk_kbody k_hits_norm = {.label = "graph.hits_norm",
                                     .body = sk_body_graph_hits_norm,
                                     .pattern = SK_FOR,
                                     .sigs = sig_hits_norm};
static const char *const sig_hits_sums[] = {"range" R1("h", "float64") R1("a", "float64"),
                                            NULL};
static const sk_kbody k_hits_sums = {.label = "graph.hits_sums",
                                     .body = sk_body_graph_hits_sums,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_hits_sums,
                                     .reds = "sum:float64 sum:float64"};

/* y = rows' sums of x (max into *mx): a thread a row on the host
 * (chunks claimed by free threads), a warp a row (teams of 8 warps) on a
 * GPU */
static int hits_pull(const sk_view *rp, const sk_view *ci, const sk_view *w,
                     const sk_view *x, const sk_view *y, int64_t n, double *mx, char *err,
                     size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", rp), sk_arg_view("colidx", ci),
                sk_arg_view("x", x),       sk_arg_view("y", y),
                sk_arg_i64("n", n),        sk_arg_view("w", w ? w : x)};
  const int na = w ? 6 : 5;
  sk_result r;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (sk_sp_host(be)) {
    a[4] = a[5]; /* (no n) */
    if (sk_galgo_degree_range(w ? &k_hits_w : &k_hits, n, a, na - 1, &r, err, errlen) < 0)
      return -1;
  } else {
    const int warp = sk_galgo_warp(err, errlen);
    if (warp < 0) return -1;
    sk_policy p;
    sk_policy_init(&p, SK_POL_TEAM);
    p.team_size = 8;
    p.vector_length = warp;
    p.league_size = (n + p.team_size - 1) / p.team_size;
    if (sk_kbody_launch(w ? &k_hits_w_team : &k_hits_team, &p, a, na, &r, err, errlen) <
        0)
      return -1;
  }
  *mx = sk_result_f64(&r, 0);
  return 0;
}

/* graph.hits: G_* [, directed, tol (1e-8), maxiter (100)] -> hubs,
 * authorities (float64 per vertex), iters */
static int hits(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "tol",      "maxiter",  NULL};
  sk_graph g;
  int directed;
  double tol = 1e-8;
  int64_t maxiter;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "tol") &&
       sk_karg_f64(args, nargs, "tol", &tol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "maxiter", 1, 100, &maxiter, err, errlen) < 0)
    return -1;
  if (!(tol > 0)) {
    sk_err(err, errlen, SK_E_TOL_MUST_POSITIVE, tol);
    return -1;
  }
  if (maxiter < 1) {
    sk_err(err, errlen, SK_E_MAXITER_MUST_LEAST, (long long)maxiter);
    return -1;
  }
  const int64_t n = g.nv;
  const int space = g.rowptr->space;
  int rc = -1;
  sk_view h, a, hn, ones;
  sk_view *all[] = {&h, &a, &hn, &ones};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  sk_kvalue tv;
  memset(&tv, 0, sizeof tv);
  int64_t it = 0;
  if (sk_sp_view(&h, "hubs", SK_F64, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&a, "authorities", SK_F64, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&hn, "hubs", SK_F64, n, space, 0, err, errlen) < 0)
    goto done;
  if (n > 0) {
    if (sk_view_fill(&h, 1.0 / (double)n, 0, err, errlen) < 0) goto done;
    /* the in-arcs: the graph itself when undirected, else its transpose */
    const sk_view *trp = g.rowptr, *tci = g.colidx, *tw = g.weights;
    if (directed) {
      const sk_view *vals = g.weights;
      if (!vals) {
        if (sk_sp_view(&ones, "ones", SK_F64, g.narcs, space, 0, err, errlen) < 0 ||
            (g.narcs > 0 && sk_view_fill(&ones, 1.0, 1, err, errlen) < 0))
          goto done;
        vals = &ones;
      }
      sk_arg ta[] = {sk_arg_view("A_rowptr", g.rowptr), sk_arg_view("A_colidx", g.colidx),
                     sk_arg_view("A_values", vals), sk_arg_i64("A_ncols", n)};
      if (sk_kernel_call("sparse.transpose", ta, NELEM(ta), &tv, NULL, err, errlen) < 0)
        goto done;
      trp = &tv.out[0].view;
      tci = &tv.out[1].view;
      tw = g.weights ? &tv.out[2].view : NULL;
    }
    int degenerate = 0;
    for (it = 1; it <= maxiter; it++) {
      double ma = 0, mh = 0;
      if (hits_pull(trp, tci, tw, &h, &a, n, &ma, err, errlen) < 0 ||
          hits_pull(g.rowptr, g.colidx, g.weights, &a, &hn, n, &mh, err, errlen) < 0)
        goto done;
      if (!(ma > 0) || !(mh > 0)) {
        degenerate = 1;
        break;
      }
      sk_arg sa[] = {sk_arg_view("hn", &hn), sk_arg_view("h", &h), sk_arg_view("a", &a),
                     sk_arg_f64("sh", 1.0 / mh), sk_arg_f64("sa", 1.0 / ma)};
      sk_result r;
      if (sk_sp_range(&k_hits_scale, n, sa, NELEM(sa), &r, err, errlen) < 0) goto done;
      if (sk_result_f64(&r, 0) < tol) break;
    }
    if (it > maxiter) it = maxiter;
    if (degenerate) {
      if (sk_view_fill(&h, 1.0 / (double)n, 0, err, errlen) < 0 ||
          sk_view_fill(&a, 1.0 / (double)n, 0, err, errlen) < 0)
        goto done;
    } else {
      sk_arg sa[] = {sk_arg_view("h", &h), sk_arg_view("a", &a)};
      sk_result r;
      if (sk_sp_range(&k_hits_sums, n, sa, NELEM(sa), &r, err, errlen) < 0) goto done;
      sk_arg na[] = {sk_arg_view("h", &h), sk_arg_view("a", &a),
                     sk_arg_f64("sh", 1.0 / sk_result_f64(&r, 0)),
                     sk_arg_f64("sa", 1.0 / sk_result_f64(&r, 1))};
      if (sk_sp_range(&k_hits_norm, n, na, NELEM(na), NULL, err, errlen) < 0) goto done;
    }
  }
  if (sk_kout_view(out, "hubs", &h, err, errlen) < 0 ||
      sk_kout_view(out, "authorities", &a, err, errlen) < 0 ||
      sk_kout_num(out, "iters", (double)it, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_kout_release(&tv);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- registration --------------------------------------------------------- */
static const sk_kentry e_clust = {"graph.clustering", "G_* [, what; R_* when directed]", SK_KRES_NONE,
                                  clustering};
static const sk_kentry e_sim = {"graph.similarity", "G_*, measure [, us, vs]",
                                SK_KRES_NONE, similarity};
static const sk_kentry e_deg = {"graph.degrees", "G_* [, directed, mode]", SK_KRES_NONE,
                                degrees};
static const sk_kentry e_hits = {"graph.hits", "G_* [, directed, tol, maxiter]",
                                 SK_KRES_NONE, hits};

const sk_kentry *const sk_gprops_entries[] = {&e_clust, &e_sim, &e_deg, &e_hits, NULL};
const sk_kbody *const sk_gprops_bodies[] = {
  &k_clust,      &k_dclust,    &k_pairs_bad, &k_dd,   &k_sim,  &k_sim_bits,
  &k_deg,        &k_deg_range, &k_deg_count, &k_hits, &k_hits_w,
  &k_hits_scale, &k_hits_norm, &k_hits_sums, NULL};
