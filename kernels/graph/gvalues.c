/* gvalues.c: graphs as values -- induced subgraphs (graph.subgraph),
 * edges kept by a dialect predicate (graph.filter_edges), edge lists
 * reversed and combined (graph.combine: reverse, to_undirected,
 * symmetrize, union), properties gathered through a renumbering
 * (graph.gather) and the mask of the largest component
 * (graph.largest_mask). Every step is a dialect body (gvalues.sk) run
 * through sk_run, so the same text runs on every back end; the
 * compactions are prefix sums (sk_sp_scan) over counts.
 *
 * A subgraph: 1 per kept vertex, scanned into the new ids (rows kept in
 * increasing old id), the map old -> new (-1: dropped) and new -> old
 * ('orig'); then per new vertex the arcs whose other end is kept,
 * scanned into the new row pointers, and the arcs renumbered with the
 * old arc of each ('amap': the weights and edge properties follow it).
 * The map keeps the order of the ids, so the rows stay sorted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- bodies ---------------------------------------------------------------- */
static const char *const sig_badid[] = {"range" R1("ids", "int64") " nv=int64", NULL};
static const sk_kbody k_badid = {.label = "graph.sub_badid",
                                 .body = sk_body_graph_sub_badid,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_badid,
                                 .reds = "min:int64"};
static const char *const sig_mark[] = {"range" R1("ids", "int64") R1("keep", "int32"),
                                       NULL};
static const sk_kbody k_mark = {.label = "graph.sub_mark",
                                .body = sk_body_graph_sub_mark,
                                .pattern = SK_FOR,
                                .sigs = sig_mark};
static const char *const sig_count[] = {"range" R1("keep", "int32") R1("cnt", "int64")
                                          " n=int64",
                                        NULL};
static const sk_kbody k_count = {.label = "graph.sub_count",
                                 .body = sk_body_graph_sub_count,
                                 .pattern = SK_FOR,
                                 .sigs = sig_count};
static const char *const sig_map[] = {"range" R1("keep", "int32") R1("off", "int64")
                                        R1("map", "int32") R1("orig", "int64"),
                                      NULL};
static const sk_kbody k_map = {
  .label = "graph.sub_map", .body = sk_body_graph_sub_map, .pattern = SK_FOR, .sigs = sig_map};
static const char *const sig_acount[] = {"range" G3 R1("map", "int32") R1("orig", "int64")
                                           R1("cnt", "int64") " n=int64",
                                         NULL};
static const sk_kbody k_acount = {.label = "graph.sub_acount",
                                  .body = sk_body_graph_sub_acount,
                                  .pattern = SK_FOR,
                                  .sigs = sig_acount};
static const char *const sig_fill[] = {"range" G3 R1("map", "int32") R1("orig", "int64")
                                         R1("rp", "int64") R1("ci", "int32")
                                           R1("amap", "int64"),
                                       NULL};
static const sk_kbody k_fill = {.label = "graph.sub_fill",
                                .body = sk_body_graph_sub_fill,
                                .pattern = SK_FOR,
                                .sigs = sig_fill};
#define GATHER_SIG(T) "range" R1("src", T) R1("idx", "int64") R1("out", T)
static const char *const sig_gather[] = {GATHER_SIG("float64"), GATHER_SIG("int64"),
                                         GATHER_SIG("int32"), NULL};
static const sk_kbody k_gather = {.label = "graph.gather",
                                  .body = sk_body_graph_gather,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gather};
/* the filter's bodies are formats: compiled by the JIT per predicate */
static const sk_kbody k_fcount = {.label = "graph.filter_count", .pattern = SK_FOR};
static const sk_kbody k_ffill = {.label = "graph.filter_fill", .pattern = SK_FOR};
static const char *const sig_expand[] = {"range" G3 R1("src", "int32") R1("dst", "int32")
                                           " off=int64 rev=int64",
                                         NULL};
static const sk_kbody k_expand = {.label = "graph.comb_expand",
                                  .body = sk_body_graph_comb_expand,
                                  .pattern = SK_FOR,
                                  .sigs = sig_expand};
static const char *const sig_copy[] = {
  "range" R1("src", "float64") R1("dst", "float64") " off=int64", NULL};
static const sk_kbody k_copy = {.label = "graph.comb_copy",
                                .body = sk_body_graph_comb_copy,
                                .pattern = SK_FOR,
                                .sigs = sig_copy};
static const char *const sig_lcount[] = {"range" R1("labels", "int64") R1("cnt", "int64"),
                                         NULL};
static const sk_kbody k_lcount = {.label = "graph.lc_count",
                                  .body = sk_body_graph_lc_count,
                                  .pattern = SK_FOR,
                                  .sigs = sig_lcount};
static const char *const sig_lbest[] = {"range" R1("cnt", "int64") " n=int64", NULL};
static const sk_kbody k_lbest = {.label = "graph.lc_best",
                                 .body = sk_body_graph_lc_best,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_lbest,
                                 .reds = "max:int64"};
static const char *const sig_lmask[] = {
  "range" R1("labels", "int64") R1("keep", "int32") " best=int64", NULL};
static const sk_kbody k_lmask = {.label = "graph.lc_mask",
                                 .body = sk_body_graph_lc_mask,
                                 .pattern = SK_FOR,
                                 .sigs = sig_lmask};

/* out = src(idx) into a new view of src's dtype in idx's space */
static int gather(const sk_view *src, const sk_view *idx, const char *label, sk_view *out,
                  char *err, size_t errlen) {
  if (sk_sp_view(out, label, src->dtype, idx->extent[0], idx->space, 0, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("src", src), sk_arg_view("idx", idx), sk_arg_view("out", out)};
  if (sk_sp_range(&k_gather, idx->extent[0], a, NELEM(a), NULL, err, errlen) < 0) {
    sk_view_release(out);
    return -1;
  }
  return 0;
}

/* -- graph.subgraph -------------------------------------------------------- */
/* the mask of 'vertices' into 'keep': an int32 view of length nv is the
 * mask itself (retained), an int64 view a list of ids (checked, marked) */
static int sub_mask(const sk_graph *g, const sk_view *vs, sk_view *keep, char *err,
                    size_t errlen) {
  if (vs->dtype == SK_I32) {
    if (vs->extent[0] != g->nv) {
      sk_err(err, errlen, SK_E_SUBGRAPH_MASK_LENGTH, vs->label, (long long)vs->extent[0],
             (long long)g->nv);
      return -1;
    }
    *keep = *vs;
    sk_view_retain(keep);
    return 0;
  }
  if (vs->dtype != SK_I64) {
    sk_err(err, errlen, SK_E_SUBGRAPH_VERTICES_DTYPE, vs->label, sk_dtypes[vs->dtype].name,
           (long long)g->nv);
    return -1;
  }
  int64_t n = vs->extent[0];
  if (n > 0) {
    sk_arg a[] = {sk_arg_view("ids", vs), sk_arg_i64("nv", g->nv)};
    sk_result r;
    if (sk_sp_range(&k_badid, n, a, NELEM(a), &r, err, errlen) < 0) return -1;
    int64_t bad = sk_result_i64(&r, 0), x = 0;
    if (bad != INT64_MAX) {
      if (sk_sp_get_i64(vs, bad, &x, err, errlen) < 0) return -1;
      sk_err(err, errlen, SK_E_SUBGRAPH_ID_OUTSIDE, (long long)bad, (long long)x,
             (long long)g->nv - 1);
      return -1;
    }
  }
  if (sk_sp_view(keep, "mask", SK_I32, g->nv, g->rowptr->space, 1, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("ids", vs), sk_arg_view("keep", keep)};
  if (sk_sp_range(&k_mark, n, a, NELEM(a), NULL, err, errlen) < 0) {
    sk_view_release(keep);
    return -1;
  }
  return 0;
}

/* graph.subgraph: G_*, vertices (int32 mask of length nv, or int64 ids)
 * -> G_rowptr, G_colidx [, G_weights], orig (int64: the old id of each
 * new vertex), amap (int64: the old arc of each new arc), nv */
static int subgraph(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "vertices", NULL};
  sk_graph g;
  const sk_view *vs;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      !(vs = sk_karg_view(args, nargs, "vertices", 1, err, errlen)))
    return -1;
  if (vs->space != g.rowptr->space) {
    sk_err(err, errlen, SK_E_SUBGRAPH_VERTICES_SPACE, vs->label);
    return -1;
  }
  int space = g.rowptr->space, espace = g.colidx->space, rc = -1;
  int64_t m = 0, na = 0;
  sk_view keep, cnt, off, map, orig, rp, ci, amap, w;
  sk_view *all[] = {&keep, &cnt, &off, &map, &orig, &rp, &ci, &amap, &w};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sub_mask(&g, vs, &keep, err, errlen) < 0) return -1;
  if (sk_sp_view(&cnt, "counts", SK_I64, g.nv + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&off, "new ids", SK_I64, g.nv + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("keep", &keep), sk_arg_view("cnt", &cnt),
                  sk_arg_i64("n", g.nv)};
    if (sk_sp_range(&k_count, g.nv, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&cnt, &off, g.nv, &m, err, errlen) < 0)
      goto done;
  }
  if (sk_sp_view(&map, "old to new", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&orig, "original ids", SK_I64, m, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("keep", &keep), sk_arg_view("off", &off),
                  sk_arg_view("map", &map), sk_arg_view("orig", &orig)};
    if (sk_sp_range(&k_map, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  sk_view_release(&cnt);
  if (sk_sp_view(&cnt, "arc counts", SK_I64, m + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&rp, "rowptr", SK_I64, m + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("map", &map),        sk_arg_view("orig", &orig),
                  sk_arg_view("cnt", &cnt),        sk_arg_i64("n", m)};
    if (sk_galgo_degree_range(&k_acount, m, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&cnt, &rp, m, &na, err, errlen) < 0)
      goto done;
  }
  if (sk_sp_view(&ci, "colidx", SK_I32, na, espace, 0, err, errlen) < 0 ||
      sk_sp_view(&amap, "arc map", SK_I64, na, espace, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("map", &map),        sk_arg_view("orig", &orig),
                  sk_arg_view("rp", &rp),          sk_arg_view("ci", &ci),
                  sk_arg_view("amap", &amap)};
    if (sk_galgo_degree_range(&k_fill, m, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (g.weights && gather(g.weights, &amap, "weights", &w, err, errlen) < 0) goto done;
  if (sk_kout_view(out, "G_rowptr", &rp, err, errlen) < 0 ||
      sk_kout_view(out, "G_colidx", &ci, err, errlen) < 0 ||
      (g.weights && sk_kout_view(out, "G_weights", &w, err, errlen) < 0) ||
      sk_kout_view(out, "orig", &orig, err, errlen) < 0 ||
      sk_kout_view(out, "amap", &amap, err, errlen) < 0 ||
      sk_kout_num(out, "nv", (double)m, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- graph.filter_edges ---------------------------------------------------- */
/* 'fmt' with the weight's expression and the predicate; NULL: no memory.
 * '*line' the body line the predicate starts on. */
static char *filter_body(const char *fmt, const char *wexpr, const char *pred, int *line) {
  const char *p = strstr(fmt, "%s");
  p = p ? strstr(p + 2, "%s") : NULL;
  *line = 1;
  for (const char *q = fmt; p && q < p; q++) *line += *q == '\n';
  int n = snprintf(NULL, 0, fmt, wexpr, pred);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b) snprintf(b, (size_t)n + 1, fmt, wexpr, pred);
  return b;
}

/* a compiler's message about the body as one about the predicate: "body
 * line N" -> "predicate line N - line + 1" (the predicate's own lines, at
 * most 'nlines': an expression cut short is seen at the parenthesis that
 * closes it, on the line after), in place */
static void predicate_lines(char *err, size_t errlen, int line, int nlines) {
  if (sk_err_last() != SK_E_BODY_NOT_COMPILE) return;
  char pre[64];
  sk_err(pre, sizeof pre, SK_E_BODY_NOT_COMPILE, "");
  char *out = malloc(errlen), *msg = malloc(errlen);
  if (!out || !msg) {
    free(out);
    free(msg);
    return;
  }
  char key[32];
  sk_err(key, sizeof key, SK_E_DIAG_BODY, "");
  size_t kl = strlen(key), o = 0; /* "body line " */
  const char *p = strncmp(err, pre, strlen(pre)) == 0 ? err + strlen(pre) : err;
  while (*p && o + 1 < errlen) {
    char *end;
    if (strncmp(p, key, kl) == 0) {
      long n = strtol(p + kl, &end, 10);
      if (end != p + kl) {
        char t[48];
        long pl = n - line + 1;
        sk_err(t, sizeof t, SK_E_PREDICATE_LINE, pl < 1 ? 1 : pl > nlines ? (long)nlines : pl);
        size_t tl = strlen(t);
        if (o + tl + 1 >= errlen) break;
        memcpy(out + o, t, tl);
        o += tl;
        p = end;
        continue;
      }
    }
    out[o++] = *p++;
  }
  out[o] = '\0';
  snprintf(msg, errlen, "%s", out);
  sk_err(err, errlen, SK_E_PREDICATE_NOT_COMPILE, msg);
  free(out);
  free(msg);
}

/* graph.filter_edges: G_*, directed, pred (an expression of the dialect
 * in u, v, w, e) [, the predicate's captures] -> G_rowptr, G_colidx
 * [, G_weights], amap (the old arc of each kept arc) */
static int filter_edges(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "pred",     NULL};
  static const char *const taken[] = {"rowptr", "colidx", "weights", "cnt", "rp", "ci",
                                      "amap",   "n",      "u",       "v",   "w",  "e",
                                      "i",      "k",      "c",       "o",   "a",  "b",
                                      NULL};
  sk_arg a[SK_MAXCAP];
  int na = 0;
  for (int k = 0; k < nargs; k++) {
    int mine = 0;
    for (int j = 0; known[j] && !mine; j++) mine = strcmp(args[k].name, known[j]) == 0;
    if (mine) continue;
    for (int j = 0; taken[j]; j++)
      if (strcmp(args[k].name, taken[j]) == 0) {
        sk_err(err, errlen, SK_E_FILTER_CAPTURE_NAME, args[k].name);
        return -1;
      }
    if (args[k].str) {
      sk_err(err, errlen, SK_E_FILTER_CAPTURE_STRING, args[k].name);
      return -1;
    }
    if (na >= SK_MAXCAP - 10) {
      sk_err(err, errlen, SK_E_FILTER_MORE_THAN, SK_MAXCAP - 10);
      return -1;
    }
    a[na++] = args[k];
  }
  sk_graph g;
  int directed;
  const char *pred;
  if (sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      !(pred = sk_karg_str(args, nargs, "pred", NULL, err, errlen)))
    return -1;
  int space = g.rowptr->space, espace = g.colidx->space, rc = -1, lc = 1, lf = 1;
  const char *wexpr = g.weights ? "weights(k)" : "1.0";
  int nlines = 1;
  for (const char *q = pred; *q; q++) nlines += *q == '\n';
  char *bc = filter_body(sk_body_graph_filter_count_fmt, wexpr, pred, &lc);
  char *bf = filter_body(sk_body_graph_filter_fill_fmt, wexpr, pred, &lf);
  sk_kbody kc = k_fcount, kf = k_ffill;
  kc.body = bc;
  kf.body = bf;
  int64_t nk = 0;
  sk_view cnt, rp, ci, amap, w;
  sk_view *all[] = {&cnt, &rp, &ci, &amap, &w};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (!bc || !bf) {
    sk_err(err, errlen, SK_E_NOMEM);
    goto done;
  }
  if (sk_sp_view(&cnt, "arc counts", SK_I64, g.nv + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&rp, "rowptr", SK_I64, g.nv + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    int n0 = na;
    a[na++] = sk_arg_view("rowptr", g.rowptr);
    a[na++] = sk_arg_view("colidx", g.colidx);
    if (g.weights) a[na++] = sk_arg_view("weights", g.weights);
    a[na++] = sk_arg_i64("directed", directed);
    int nb = na;
    a[na++] = sk_arg_view("cnt", &cnt);
    a[na++] = sk_arg_i64("n", g.nv);
    if (sk_galgo_degree_range(&kc, g.nv, a, na, NULL, err, errlen) < 0) {
      predicate_lines(err, errlen, lc, nlines);
      goto done;
    }
    if (sk_sp_scan(&cnt, &rp, g.nv, &nk, err, errlen) < 0 ||
        sk_sp_view(&ci, "colidx", SK_I32, nk, espace, 0, err, errlen) < 0 ||
        sk_sp_view(&amap, "arc map", SK_I64, nk, espace, 0, err, errlen) < 0)
      goto done;
    na = nb;
    a[na++] = sk_arg_view("rp", &rp);
    a[na++] = sk_arg_view("ci", &ci);
    a[na++] = sk_arg_view("amap", &amap);
    if (sk_galgo_degree_range(&kf, g.nv, a, na, NULL, err, errlen) < 0) {
      predicate_lines(err, errlen, lf, nlines);
      goto done;
    }
    (void)n0;
  }
  if (g.weights && gather(g.weights, &amap, "weights", &w, err, errlen) < 0) goto done;
  if (sk_kout_view(out, "G_rowptr", &rp, err, errlen) < 0 ||
      sk_kout_view(out, "G_colidx", &ci, err, errlen) < 0 ||
      (g.weights && sk_kout_view(out, "G_weights", &w, err, errlen) < 0) ||
      sk_kout_view(out, "amap", &amap, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  free(bc);
  free(bf);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- graph.combine ------------------------------------------------------------ */
/* the arcs of 'g' (reversed when 'rev') as edges at 'off' of src, dst, w */
static int expand(const sk_graph *g, int rev, int64_t off, const sk_view *src,
                  const sk_view *dst, const sk_view *w, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("src", src),          sk_arg_view("dst", dst),
                sk_arg_i64("off", off),           sk_arg_i64("rev", rev)};
  if (sk_galgo_degree_range(&k_expand, g->nv, a, NELEM(a), NULL, err, errlen) < 0)
    return -1;
  if (!w) return 0;
  sk_arg c[] = {sk_arg_view("src", g->weights), sk_arg_view("dst", w),
                sk_arg_i64("off", off)};
  return sk_sp_range(&k_copy, g->narcs, c, NELEM(c), NULL, err, errlen);
}

/* the graph of arguments H_rowptr, H_colidx [, H_weights] */
static int h_arg(const sk_arg *args, int nargs, sk_graph *h, char *err, size_t errlen) {
  sk_arg t[3];
  int n = 0;
  static const char *const from[] = {"H_rowptr", "H_colidx", "H_weights"};
  static const char *const to[] = {"G_rowptr", "G_colidx", "G_weights"};
  for (int j = 0; j < 3; j++) {
    const sk_arg *x = sk_karg_find(args, nargs, from[j]);
    if (x) {
      t[n] = *x;
      t[n++].name = to[j];
    }
  }
  return sk_g_arg(t, n, h, err, errlen);
}

/* graph.combine: G_* [, H_*], nv, g_rev, h_rev, directed, dedupe -> G_*:
 * the arcs of G (reversed when g_rev) then those of H (h_rev) as the
 * edges of a new graph of nv vertices (built as graph.from_edges with
 * self-loops kept: 'directed' 0 stores each arc both ways; with 'dedupe'
 * a repeated arc keeps the weight given last) */
static int combine(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "H_rowptr",
                                      "H_colidx", "H_weights", "nv",       "g_rev",
                                      "h_rev",    "directed",  "dedupe",   NULL};
  sk_graph g, h;
  int two = sk_karg_find(args, nargs, "H_rowptr") != NULL, grev, hrev;
  int64_t nv;
  sk_gopts o = {.directed = 0, .dedupe = 1, .self_loops = 1};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      (two && h_arg(args, nargs, &h, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "nv", 0, 0, &nv, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "g_rev", 0, &grev, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "h_rev", 0, &hrev, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 1, &o.directed, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "dedupe", 1, &o.dedupe, err, errlen) < 0)
    return -1;
  if (nv < g.nv || (two && nv < h.nv)) {
    sk_err(err, errlen, SK_E_COMBINE_NV, (long long)nv);
    return -1;
  }
  int weighted = g.weights != NULL;
  if (two && (h.weights != NULL) != weighted) {
    sk_err(err, errlen, SK_E_COMBINE_WEIGHTS, weighted ? "" : "not ", weighted ? "not " : "");
    return -1;
  }
  int64_t n = g.narcs + (two ? h.narcs : 0);
  int space = g.colidx->space, rc = -1;
  sk_view src, dst, w;
  sk_view *all[] = {&src, &dst, &w};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&src, "src", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&dst, "dst", SK_I32, n, space, 0, err, errlen) < 0 ||
      (weighted && sk_sp_view(&w, "weights", SK_F64, n, space, 0, err, errlen) < 0) ||
      expand(&g, grev, 0, &src, &dst, weighted ? &w : NULL, err, errlen) < 0 ||
      (two && expand(&h, hrev, g.narcs, &src, &dst, weighted ? &w : NULL, err, errlen) < 0))
    goto done;
  rc = sk_g_build(nv, &src, &dst, weighted ? &w : NULL, &o, out, err, errlen);
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- graph.gather / graph.largest_mask ------------------------------------------ */
/* graph.gather: src, idx (int64) -> out = src(idx) */
static int gather_entry(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"src", "idx", NULL};
  const sk_view *src, *idx;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(src = sk_karg_view(args, nargs, "src", 1, err, errlen)) ||
      !(idx = sk_karg_view(args, nargs, "idx", 1, err, errlen)))
    return -1;
  sk_view o;
  if (gather(src, idx, src->label, &o, err, errlen) < 0) return -1;
  return sk_kout_view(out, "out", &o, err, errlen);
}

/* graph.largest_mask: labels (int64, each vertex's component named by a
 * vertex of it) -> keep (int32 mask of the largest component; ties: the
 * smallest label), size */
static int largest_mask(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"labels", NULL};
  const sk_view *lab;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(lab = sk_karg_view(args, nargs, "labels", 1, err, errlen)))
    return -1;
  int64_t n = lab->extent[0], best = -1, size = 0;
  sk_view cnt, keep;
  memset(&keep, 0, sizeof keep);
  if (sk_sp_view(&cnt, "counts", SK_I64, n > 0 ? n : 1, lab->space, 1, err, errlen) < 0)
    return -1;
  int rc = -1;
  if (n > 0) {
    sk_arg a[] = {sk_arg_view("labels", lab), sk_arg_view("cnt", &cnt)};
    sk_arg b[] = {sk_arg_view("cnt", &cnt), sk_arg_i64("n", n)};
    sk_result r;
    if (sk_sp_range(&k_lcount, n, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_lbest, n, b, NELEM(b), &r, err, errlen) < 0)
      goto done;
    int64_t key = sk_result_i64(&r, 0);
    best = n - 1 - key % n;
    size = key / n;
  }
  if (sk_sp_view(&keep, "mask", SK_I32, n, lab->space, 0, err, errlen) < 0) goto done;
  {
    sk_arg a[] = {sk_arg_view("labels", lab), sk_arg_view("keep", &keep),
                  sk_arg_i64("best", best)};
    if (sk_sp_range(&k_lmask, n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_kout_view(out, "keep", &keep, err, errlen) < 0 ||
      sk_kout_num(out, "size", (double)size, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_view_release(&cnt);
  sk_view_release(&keep);
  return rc;
}

/* -- registration ---------------------------------------------------------- */
static const sk_kentry e_sub = {"graph.subgraph", "G_*, vertices", SK_KRES_NONE, subgraph};
static const sk_kentry e_filter = {"graph.filter_edges", "G_*, pred [, captures]",
                                   SK_KRES_NONE, filter_edges};
static const sk_kentry e_comb = {"graph.combine",
                                 "G_* [, H_*], nv, g_rev, h_rev, directed, dedupe",
                                 SK_KRES_NONE, combine};
static const sk_kentry e_gather = {"graph.gather", "src, idx", SK_KRES_NONE, gather_entry};
static const sk_kentry e_lmask = {"graph.largest_mask", "labels", SK_KRES_NONE,
                                  largest_mask};
const sk_kentry *const sk_gvalues_entries[] = {&e_sub,    &e_filter, &e_comb,
                                               &e_gather, &e_lmask,  NULL};
const sk_kbody *const sk_gvalues_bodies[] = {&k_badid,  &k_mark,   &k_count,  &k_map,
                                             &k_acount, &k_fill,   &k_gather, &k_expand,
                                             &k_copy,   &k_lcount, &k_lbest,  &k_lmask,
                                             NULL};
