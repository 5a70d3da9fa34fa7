/* build.c: graphs from edges, and the generators (Graph500 Kronecker,
 * grids, Erdos-Renyi), each step a dialect body run through sk_run, so a
 * graph is built the same way, with the same result, on every back end.
 *
 * Building: count the arcs each edge makes (none for a dropped self-loop,
 * two for an undirected edge), scan into offsets, write the arcs as COO
 * in edge order, and let speck.sparse's COO -> CSR build (rows sorted by
 * (column, COO position)) make the CSR; with 'dedupe' a last pass keeps
 * one arc per run of equal columns -- the last, so the weight kept is the
 * one given last (NetworkX's add_edge semantics). The CSR is the sparse
 * module's: a graph and its adjacency matrix share the same views.
 *
 * The generators draw from a counter-based generator (splitmix64 of the
 * seed and the edge's number), so edge i is the same on every back end
 * and thread count, and then build as above. Bodies: build.sk.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "graph.h"
#include "io/io.h"
#include "kbodies.h"

/* -- arguments ------------------------------------------------------------ */
int sk_g_arg(const sk_arg *args, int nargs, sk_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (!(g->rowptr = sk_karg_view(args, nargs, "G_rowptr", 1, err, errlen)) ||
      !(g->colidx = sk_karg_view(args, nargs, "G_colidx", 1, err, errlen)))
    return -1;
  if (sk_karg_find(args, nargs, "G_weights") &&
      !(g->weights = sk_karg_view(args, nargs, "G_weights", 1, err, errlen)))
    return -1;
  if (g->rowptr->dtype != SK_I64 || g->colidx->dtype != SK_I32 ||
      g->rowptr->extent[0] < 1) {
    sk_err(err, errlen, SK_E_GRAPH_ROWPTR_MUST, sk_dtypes[g->rowptr->dtype].name,
           (long long)g->rowptr->extent[0], sk_dtypes[g->colidx->dtype].name);
    return -1;
  }
  g->nv = g->rowptr->extent[0] - 1;
  g->narcs = g->colidx->extent[0];
  if (g->weights && (g->weights->dtype != SK_F64 || g->weights->extent[0] != g->narcs)) {
    sk_err(err, errlen, SK_E_GRAPH_WEIGHTS_MUST, (long long)g->narcs,
           sk_dtypes[g->weights->dtype].name, (long long)g->weights->extent[0]);
    return -1;
  }
  return 0;
}

int sk_g_flag(const sk_arg *args, int nargs, const char *name, int dflt, int *x,
              char *err, size_t errlen) {
  const sk_arg *a = sk_karg_find(args, nargs, name);
  if (!a) {
    *x = dflt;
    return 0;
  }
  if (!a->view && !a->str && a->dtype == SK_BOOL) {
    *x = a->value.u8 != 0;
    return 0;
  }
  int64_t v;
  if (sk_karg_i64(args, nargs, name, 0, 0, &v, err, errlen) < 0 || (v != 0 && v != 1)) {
    sk_err(err, errlen, SK_E_MUST_BOOLEAN, name);
    return -1;
  }
  *x = (int)v;
  return 0;
}

int sk_g_opts(const sk_arg *args, int nargs, sk_gopts *o, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  if (sk_g_flag(args, nargs, "directed", 0, &o->directed, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "dedupe", 1, &o->dedupe, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "self_loops", 0, &o->self_loops, err, errlen) < 0)
    return -1;
  return 0;
}

int sk_g_space(char *err, size_t errlen) { return sk_rt_default_space(err, errlen); }

int sk_g_edge_space(int space, uint64_t bytes) {
  int64_t room = sk_space_room(space);
  if (room < 0 || bytes <= (uint64_t)room) return space;
  int spill = sk_space_spill(space);
  return spill >= 0 ? spill : space;
}

int sk_g_vertex_space(int espace) {
  char err[256];
  int def = sk_g_space(err, sizeof err);
  return def >= 0 && sk_space_spill(def) == espace ? def : espace;
}

/* -- bodies ---------------------------------------------------------------- */
static const char *const sig_set0[] = {"range" R1("v", "int64") " x=int64", NULL};
static const sk_kbody k_set0 = {
  .label = "graph.set0", .body = sk_body_graph_set0, .pattern = SK_FOR, .sigs = sig_set0};

int sk_g_set0(const sk_view *v, int64_t x, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("v", v), sk_arg_i64("x", x)};
  return sk_sp_range(&k_set0, 1, a, NELEM(a), NULL, err, errlen);
}

#define IDS_SIG(IT) "range" R1("src", IT) R1("dst", IT) " nv=int64"
static const char *const sig_idcheck[] = {IDS_SIG("int64"), IDS_SIG("int32"), NULL};
/* the first edge with an endpoint out of range */
static const sk_kbody k_idcheck = {.label = "graph.id_check",
                                   .body = sk_body_graph_id_check,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_idcheck,
                                   .reds = "min:int64"};

#define CNT_SIG(IT) \
  "range" R1("src", IT) R1("dst", IT) \
    R1("cnt", "int64") " directed=int64 loops=int64 n=int64"
static const char *const sig_ecount[] = {CNT_SIG("int64"), CNT_SIG("int32"), NULL};
/* the arcs edge i makes (cnt has n + 1 entries for the scan) */
static const sk_kbody k_ecount = {.label = "graph.edge_count",
                                  .body = sk_body_graph_edge_count,
                                  .pattern = SK_FOR,
                                  .sigs = sig_ecount};

#define EXP_SIG(IT) \
  "range" R1("src", IT) R1("dst", IT) R1("off", "int64") R1("rows", "int32") \
    R1("cols", "int32")
#define EXPW_SIG(IT) EXP_SIG(IT) R1("w", "float64") R1("vals", "float64")
static const char *const sig_expand[] = {EXP_SIG("int64"), EXP_SIG("int32"), NULL};
static const char *const sig_expandw[] = {EXPW_SIG("int64"), EXPW_SIG("int32"), NULL};
/* edge i's arcs at off(i) .. off(i + 1) */
static const sk_kbody k_expand = {.label = "graph.expand",
                                  .body = sk_body_graph_expand,
                                  .pattern = SK_FOR,
                                  .sigs = sig_expand};
static const sk_kbody k_expandw = {.label = "graph.expand_w",
                                   .body = sk_body_graph_expand_w,
                                   .pattern = SK_FOR,
                                   .sigs = sig_expandw};

/* runs of equal columns per (sorted) row */
static const char *const sig_runs[] = {"range" R1("rowptr", "int64") R1("colidx", "int32")
                                         R1("cnt", "int64") " n=int64",
                                       NULL};
static const sk_kbody k_runs = {.label = "graph.dedupe_count",
                                .body = sk_body_graph_dedupe_count,
                                .pattern = SK_FOR,
                                .sigs = sig_runs};

#define DF_SIG \
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("rp", "int64") R1("ci", "int32")
static const char *const sig_dfill[] = {DF_SIG, NULL};
static const char *const sig_dfillw[] = {
  DF_SIG R1("values", "float64") R1("w", "float64"), NULL};
static const sk_kbody k_dfill = {.label = "graph.dedupe_fill",
                                 .body = sk_body_graph_dedupe_fill,
                                 .pattern = SK_FOR,
                                 .sigs = sig_dfill};
static const sk_kbody k_dfillw = {.label = "graph.dedupe_fill_w",
                                  .body = sk_body_graph_dedupe_fill_w,
                                  .pattern = SK_FOR,
                                  .sigs = sig_dfillw};

/* -- building ---------------------------------------------------------------- */
int sk_g_check_ids(int64_t nv, const sk_view *src, const sk_view *dst, char *err,
                   size_t errlen) {
  int64_t n = src->extent[0];
  if (n == 0) return 0;
  sk_arg a[] = {sk_arg_view("src", src), sk_arg_view("dst", dst), sk_arg_i64("nv", nv)};
  sk_result r;
  if (sk_sp_range(&k_idcheck, n, a, NELEM(a), &r, err, errlen) < 0) return -1;
  int64_t bad = sk_result_i64(&r, 0);
  if (bad == INT64_MAX) return 0;
  int64_t s = 0, d = 0;
  if (sk_sp_get_i64(src, bad, &s, err, errlen) < 0 ||
      sk_sp_get_i64(dst, bad, &d, err, errlen) < 0)
    return -1;
  sk_err(err, errlen, SK_E_EDGE_VERTEX_OUTSIDE, (long long)bad, (long long)s,
         (long long)d, (long long)(s < 0 || s >= nv ? s : d), (long long)nv - 1);
  return 1;
}

/* the reader's bar, 'f' of the way through the build */
static void build_step(const sk_gopts *o, double f) {
  if (o->prog) sk_progress_step(o->prog, o->prog_from + f * (o->prog_to - o->prog_from));
}

int sk_g_build(int64_t nv, const sk_view *src, const sk_view *dst, const sk_view *w,
               const sk_gopts *o, sk_kvalue *out, char *err, size_t errlen) {
  int64_t n = src->extent[0], narcs = 0;
  /* out of core: the arcs (and the build's arc-sized work) go to the
   * spill space when the builder's peak does not fit in the device's room
   * (about 100 bytes an edge: counts, offsets, COO arcs, the sort's keys,
   * the CSR), or when the edges given already lie there; the row arrays
   * stay in the vertex space (speck.sparse's COO -> CSR build keeps them
   * in device memory) */
  int vspace = sk_g_vertex_space(src->space);
  int space = src->space == vspace
                ? sk_g_edge_space(vspace, 16 * ((uint64_t)n + 1) + 88 * (uint64_t)n +
                                            (w ? 48 * (uint64_t)n : 0))
                : src->space;
  int rc = -1;
  sk_view cnt, off, rows, cols, vals, rp, ci, va, rp2, ci2, w2;
  sk_view *all[] = {&cnt, &off, &rows, &cols, &vals, &rp, &ci, &va, &rp2, &ci2, &w2};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  /* refused before anything is allocated when the builder's peak (three
   * arrays of row pointers, the arcs) does not fit beside the views held:
   * "0 2147483645" alone asks for 2^31 vertices (found by fuzz_edges; the
   * builder then touched 24 GB, one view at a time, until the process was
   * killed) */
  if (space == SK_SPACE_HOST) {
    uint64_t need = 3 * ((uint64_t)nv + 1) * 8 + 2 * (uint64_t)n * (w ? 16 : 8);
    char msg[512];
    if (sk_host_room(need, msg, sizeof msg) < 0) {
      sk_err(err, errlen, SK_E_GRAPH_VERTICES_EDGES, (long long)nv, (long long)n, msg);
      return -1;
    }
  }
  if (sk_sp_view(&cnt, "arc counts", SK_I64, n + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&off, "arc offsets", SK_I64, n + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("src", src),
                  sk_arg_view("dst", dst),
                  sk_arg_view("cnt", &cnt),
                  sk_arg_i64("directed", o->directed),
                  sk_arg_i64("loops", o->self_loops),
                  sk_arg_i64("n", n)};
    if (sk_sp_range(&k_ecount, n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&cnt, &off, n, &narcs, err, errlen) < 0) goto done;
  build_step(o, 0.1);
  sk_view_release(&cnt);
  if (sk_sp_view(&rows, "arc sources", SK_I32, narcs, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cols, "arc targets", SK_I32, narcs, space, 0, err, errlen) < 0 ||
      (w && sk_sp_view(&vals, "arc weights", SK_F64, narcs, space, 0, err, errlen) < 0))
    goto done;
  {
    sk_arg a[] = {sk_arg_view("src", src),    sk_arg_view("dst", dst),
                  sk_arg_view("off", &off),   sk_arg_view("rows", &rows),
                  sk_arg_view("cols", &cols), sk_arg_view("w", w ? w : src),
                  sk_arg_view("vals", &vals)};
    if (sk_sp_range(w ? &k_expandw : &k_expand, n, a, w ? 7 : 5, NULL, err, errlen) < 0)
      goto done;
  }
  sk_view_release(&off);
  build_step(o, 0.25);
  if (sk_sp_coo_to_csr(nv, nv, &rows, &cols, w ? &vals : NULL, SK_F64, 0, 1, space, &rp,
                       &ci, &va, err, errlen) < 0)
    goto done;
  sk_view_release(&rows);
  sk_view_release(&cols);
  sk_view_release(&vals);
  build_step(o, 0.8);
  if (o->dedupe) {
    int64_t m = 0;
    if (sk_sp_view(&cnt, "run counts", SK_I64, nv + 1, vspace, 1, err, errlen) < 0 ||
        sk_sp_view(&rp2, "rowptr", SK_I64, nv + 1, vspace, 0, err, errlen) < 0)
      goto done;
    {
      sk_arg a[] = {sk_arg_view("rowptr", &rp), sk_arg_view("colidx", &ci),
                    sk_arg_view("cnt", &cnt), sk_arg_i64("n", nv)};
      if (sk_sp_range(&k_runs, nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
    }
    if (sk_sp_scan(&cnt, &rp2, nv, &m, err, errlen) < 0 ||
        sk_sp_view(&ci2, "colidx", SK_I32, m, space, 0, err, errlen) < 0 ||
        (w && sk_sp_view(&w2, "weights", SK_F64, m, space, 0, err, errlen) < 0))
      goto done;
    {
      sk_arg a[] = {sk_arg_view("rowptr", &rp), sk_arg_view("colidx", &ci),
                    sk_arg_view("rp", &rp2),    sk_arg_view("ci", &ci2),
                    sk_arg_view("values", &va), sk_arg_view("w", &w2)};
      if (sk_sp_range(w ? &k_dfillw : &k_dfill, nv, a, w ? 6 : 4, NULL, err, errlen) < 0)
        goto done;
    }
    sk_view t;
    t = rp;
    rp = rp2;
    rp2 = t;
    t = ci;
    ci = ci2;
    ci2 = t;
    t = va;
    va = w2;
    w2 = t;
  }
  build_step(o, 1.0);
  if (sk_kout_view(out, "G_rowptr", &rp, err, errlen) < 0 ||
      sk_kout_view(out, "G_colidx", &ci, err, errlen) < 0 ||
      (w && sk_kout_view(out, "G_weights", &va, err, errlen) < 0))
    goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* an edge list argument: int64 or int32 rank-1 views of one length */
static int edge_views(const sk_arg *args, int nargs, const sk_view **src,
                      const sk_view **dst, const sk_view **w, char *err, size_t errlen) {
  if (!(*src = sk_karg_view(args, nargs, "src", 1, err, errlen)) ||
      !(*dst = sk_karg_view(args, nargs, "dst", 1, err, errlen)))
    return -1;
  *w = NULL;
  if (sk_karg_find(args, nargs, "weights") &&
      !(*w = sk_karg_view(args, nargs, "weights", 1, err, errlen)))
    return -1;
  const sk_view *s = *src, *d = *dst;
  if (s->dtype != d->dtype || (s->dtype != SK_I64 && s->dtype != SK_I32)) {
    sk_err(err, errlen, SK_E_SRC_VIEW_DST, s->label, sk_dtypes[s->dtype].name, d->label,
           sk_dtypes[d->dtype].name);
    return -1;
  }
  if (d->extent[0] != s->extent[0] || (*w && (*w)->extent[0] != s->extent[0])) {
    sk_err(err, errlen, SK_E_SRC_ENTRIES_DST, (long long)s->extent[0],
           (long long)d->extent[0], *w ? ", weights " : "");
    if (*w) {
      size_t l = strlen(err);
      snprintf(err + l, errlen - l, "%lld", (long long)(*w)->extent[0]);
    }
    return -1;
  }
  if (*w && (*w)->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_WEIGHTS_VIEW_MUST, (*w)->label, sk_dtypes[(*w)->dtype].name);
    return -1;
  }
  if (d->space != s->space || (*w && (*w)->space != s->space)) {
    sk_err(err, errlen, SK_E_SRC_DST_WEIGHTS);
    return -1;
  }
  return 0;
}

static int check_nv(int64_t nv, char *err, size_t errlen) {
  if (nv < 0 || nv > INT32_MAX - 1) {
    sk_err(err, errlen, SK_E_NV_GRAPH_VERTICES, (long long)nv, INT32_MAX - 1);
    return -1;
  }
  return 0;
}

/* graph.from_edges: nv, src, dst [, weights, directed, dedupe, self_loops]
 * -> G_rowptr, G_colidx [, G_weights] */
static int from_edges(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"nv",       "src",    "dst",        "weights",
                                      "directed", "dedupe", "self_loops", NULL};
  const sk_view *src, *dst, *w;
  int64_t nv;
  sk_gopts o;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nv", 0, 0, &nv, err, errlen) < 0 ||
      check_nv(nv, err, errlen) < 0 ||
      edge_views(args, nargs, &src, &dst, &w, err, errlen) < 0 ||
      sk_g_opts(args, nargs, &o, err, errlen) < 0)
    return -1;
  if (sk_g_check_ids(nv, src, dst, err, errlen) != 0) return -1;
  return sk_g_build(nv, src, dst, w, &o, out, err, errlen);
}

/* the row of each stored entry (a CSR matrix to an edge list) */
static const char *const sig_rows[] = {"range" R1("rowptr", "int64") R1("rows", "int32"),
                                       NULL};
static const sk_kbody k_rows = {.label = "graph.csr_rows",
                                .body = sk_body_graph_csr_rows,
                                .pattern = SK_FOR,
                                .sigs = sig_rows};

/* graph.from_csr: A_rowptr, A_colidx [, A_values] (a square matrix),
 * directed, dedupe, self_loops -> G_*: the matrix's entries as edges */
static int from_csr(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values",   "A_ncols",
                                      "directed", "dedupe",   "self_loops", NULL};
  sk_csr A;
  sk_gopts o;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 0, &A, err, errlen) < 0 ||
      sk_g_opts(args, nargs, &o, err, errlen) < 0)
    return -1;
  if (A.nrows != A.ncols) {
    sk_err(err, errlen, SK_E_MATRIX_X_ADJACENCY, (long long)A.nrows, (long long)A.ncols);
    return -1;
  }
  if (check_nv(A.nrows, err, errlen) < 0) return -1;
  if (A.values && A.values->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_MATRIX_VALUES_WEIGHTS, sk_dtypes[A.values->dtype].name);
    return -1;
  }
  sk_view rows;
  if (sk_sp_view(&rows, "rows", SK_I32, A.nnz, A.rowptr->space, 0, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", A.rowptr), sk_arg_view("rows", &rows)};
  int rc = sk_sp_range(&k_rows, A.nrows, a, NELEM(a), NULL, err, errlen);
  if (rc == 0) rc = sk_g_build(A.nrows, &rows, A.colidx, A.values, &o, out, err, errlen);
  sk_view_release(&rows);
  return rc;
}

/* graph.arc_sources: G_* -> src (int32: the row of every arc) */
static int arc_sources(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", NULL};
  sk_graph g;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0)
    return -1;
  sk_view rows;
  if (sk_g_arc_sources(&g, &rows, err, errlen) < 0) return -1;
  return sk_kout_view(out, "src", &rows, err, errlen);
}

/* graph.to: G_*, space [, edges] -> G_* copied: the vertex arrays
 * (rowptr) to 'space', the arcs (colidx, weights) to 'edges' -- 'space'
 * or its spill space (a GPU's pinned host memory) -- or, not
 * given, to 'space' when they fit in its room and to its spill space when
 * not (out of core, seed 003 4.7) */
static int to_space(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "space",
                                      "edges",    "directed", NULL};
  sk_graph g;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0)
    return -1;
  const char *sn = sk_karg_str(args, nargs, "space", NULL, err, errlen);
  if (!sn) return -1;
  const char *en = sk_karg_str(args, nargs, "edges", "", err, errlen);
  if (!en) return -1;
  int vspace = sk_space_parse(sn), spill = vspace >= 0 ? sk_space_spill(vspace) : -1;
  uint64_t ebytes = (uint64_t)g.narcs * (g.weights ? 12 : 4);
  int espace = vspace < 0 ? -1
               : en[0]    ? sk_space_parse(en)
                          : sk_g_edge_space(vspace, ebytes);
  if (espace < 0) {
    char names[256];
    sk_space_names(names, sizeof names);
    sk_err(err, errlen, SK_E_UNKNOWN_SPACE_EXPECTED_2, vspace < 0 ? "" : "edges ",
           vspace < 0 ? sn : en, names);
    return -1;
  }
  if (espace != vspace && espace != spill) {
    if (spill >= 0)
      sk_err(err, errlen, SK_E_EDGES_VERTICES_EDGES, en, sn, sn, sk_space_name(spill));
    else sk_err(err, errlen, SK_E_EDGES_VERTICES_EDGES_GRAPH, en, sn, sn, sn);
    return -1;
  }
  sk_view rp, ci, w;
  memset(&ci, 0, sizeof ci);
  memset(&w, 0, sizeof w);
  int rc = -1;
  if (sk_sp_view(&rp, "rowptr", SK_I64, g.nv + 1, vspace, 0, err, errlen) < 0) return -1;
  if (sk_view_deep_copy(&rp, g.rowptr, err, errlen) < 0 ||
      sk_sp_view(&ci, "colidx", SK_I32, g.narcs, espace, 0, err, errlen) < 0 ||
      sk_view_deep_copy(&ci, g.colidx, err, errlen) < 0 ||
      (g.weights &&
       (sk_sp_view(&w, "weights", SK_F64, g.narcs, espace, 0, err, errlen) < 0 ||
        sk_view_deep_copy(&w, g.weights, err, errlen) < 0)))
    goto done;
  if (sk_kout_view(out, "G_rowptr", &rp, err, errlen) < 0 ||
      sk_kout_view(out, "G_colidx", &ci, err, errlen) < 0 ||
      (g.weights && sk_kout_view(out, "G_weights", &w, err, errlen) < 0))
    goto done;
  rc = 0;
done:
  sk_view_release(&rp);
  sk_view_release(&ci);
  sk_view_release(&w);
  return rc;
}

int sk_g_arc_sources(const sk_graph *g, sk_view *rows, char *err, size_t errlen) {
  if (sk_sp_view(rows, "arc sources", SK_I32, g->narcs, g->rowptr->space, 0, err,
                 errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("rows", rows)};
  if (sk_sp_range(&k_rows, g->nv, a, NELEM(a), NULL, err, errlen) < 0) {
    sk_view_release(rows);
    return -1;
  }
  return 0;
}

/* -- generators -------------------------------------------------------------- */
/* Graph500's initiator A = 0.57, B = C = 0.19 (D = 0.05); the vertex ids
 * scrambled by a bijection of [0, 2^scale) (multiply by an odd constant,
 * xor-shift, multiply) as Graph500 permutes them */
static const char *const sig_kron[] = {
  "range" R1("src", "int32") R1("dst", "int32") " scale=int64 seed=int64", NULL};
static const sk_kbody k_kron = {.label = "graph.kronecker",
                                .body = sk_body_graph_kronecker,
                                .pattern = SK_FOR,
                                .sigs = sig_kron,
                                .prelude = sk_body_graph_prelude};

static const char *const sig_er[] = {
  "range" R1("src", "int32") R1("dst", "int32") " nv=int64 seed=int64", NULL};
static const sk_kbody k_er = {.label = "graph.erdos_renyi",
                              .body = sk_body_graph_erdos_renyi,
                              .pattern = SK_FOR,
                              .sigs = sig_er,
                              .prelude = sk_body_graph_prelude};

/* vertex i = x + nx*(y + ny*z) to its +x, +y, +z neighbours (itself where
 * none: a self-loop the build drops) */
static const char *const sig_grid[] = {
  "range" R1("src", "int32") R1("dst", "int32") " nx=int64 ny=int64 nz=int64", NULL};
static const sk_kbody k_grid = {
  .label = "graph.grid", .body = sk_body_graph_grid, .pattern = SK_FOR, .sigs = sig_grid};

/* refuse 'nedges' edges when building them would not fit in memory
 * (about 100 bytes an edge at the peak: edges, arcs, the sort's keys) */
static int check_memory(int64_t nedges, char *err, size_t errlen) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  double have = pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
  double need = (double)nedges * 100.0;
  if (nedges < 0 || (have > 0 && need > have)) {
    sk_err(err, errlen, SK_E_EDGES_NEED_ABOUT, (long long)nedges, need / 1e9, have / 1e9);
    return -1;
  }
  return 0;
}

static int gen_build(const sk_kbody *kb, int64_t nv, int64_t ne, sk_arg *extra,
                     int nextra, int loops, sk_kvalue *out, char *err, size_t errlen) {
  int space = sk_g_space(err, errlen);
  if (space < 0) return -1;
  /* the drawn edges with the build's peak (about 100 bytes an edge) out
   * of core when they do not fit in the device's room */
  space = sk_g_edge_space(space,
                          8 * (uint64_t)ne + 16 * ((uint64_t)ne + 1) + 88 * (uint64_t)ne);
  sk_view src, dst;
  memset(&dst, 0, sizeof dst);
  if (sk_sp_view(&src, "src", SK_I32, ne, space, 0, err, errlen) < 0) return -1;
  int rc = sk_sp_view(&dst, "dst", SK_I32, ne, space, 0, err, errlen);
  if (rc == 0) {
    sk_arg a[8] = {sk_arg_view("src", &src), sk_arg_view("dst", &dst)};
    for (int k = 0; k < nextra; k++) a[2 + k] = extra[k];
    int64_t n = kb == &k_grid ? nv : ne;
    rc = sk_sp_range(kb, n, a, 2 + nextra, NULL, err, errlen);
  }
  sk_gopts o = {.directed = 0, .dedupe = 1, .self_loops = loops};
  if (rc == 0) rc = sk_g_build(nv, &src, &dst, NULL, &o, out, err, errlen);
  sk_view_release(&src);
  sk_view_release(&dst);
  if (rc == 0) rc = sk_kout_num(out, "nv", (double)nv, err, errlen);
  return rc;
}

/* graph.kronecker: scale, edgefactor [, seed] -> G_*, nv */
static int kronecker(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  static const char *const known[] = {"scale", "edgefactor", "seed", NULL};
  int64_t scale, ef, seed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "scale", 0, 0, &scale, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "edgefactor", 0, 0, &ef, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "seed", 1, 1, &seed, err, errlen) < 0)
    return -1;
  if (scale < 0 || scale > 30) {
    sk_err(err, errlen, SK_E_SCALE_MUST_SCALE, (long long)scale);
    return -1;
  }
  if (ef < 0 || ef > ((int64_t)1 << 40)) {
    sk_err(err, errlen, SK_E_EDGEFACTOR_MUST_NON, (long long)ef);
    return -1;
  }
  int64_t nv = (int64_t)1 << scale, ne = ef * nv;
  if (check_memory(ne, err, errlen) < 0) return -1;
  sk_arg x[] = {sk_arg_i64("scale", scale), sk_arg_i64("seed", seed)};
  return gen_build(&k_kron, nv, ne, x, NELEM(x), 0, out, err, errlen);
}

/* graph.erdos_renyi: nv, nedges [, seed] -> G_*, nv */
static int erdos_renyi(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"nv", "nedges", "seed", NULL};
  int64_t nv, ne, seed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nv", 0, 0, &nv, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nedges", 0, 0, &ne, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "seed", 1, 1, &seed, err, errlen) < 0 ||
      check_nv(nv, err, errlen) < 0)
    return -1;
  if (ne < 0) {
    sk_err(err, errlen, SK_E_NEDGES_MUST_NON, (long long)ne);
    return -1;
  }
  if (ne > 0 && nv == 0) {
    sk_err(err, errlen, SK_E_EDGES_ASKED_GRAPH, (long long)ne);
    return -1;
  }
  if (check_memory(ne, err, errlen) < 0) return -1;
  sk_arg x[] = {sk_arg_i64("nv", nv), sk_arg_i64("seed", seed)};
  return gen_build(&k_er, nv, ne, x, NELEM(x), 0, out, err, errlen);
}

/* graph.grid: nx, ny, nz (>= 1 each; nz 1: a 2D grid) -> G_*, nv */
static int grid(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"nx", "ny", "nz", NULL};
  int64_t d[3];
  const char *nm[3] = {"nx", "ny", "nz"};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0) return -1;
  for (int k = 0; k < 3; k++) {
    if (sk_karg_i64(args, nargs, nm[k], 1, 1, &d[k], err, errlen) < 0) return -1;
    if (d[k] < 1 || d[k] > INT32_MAX) {
      sk_err(err, errlen, SK_E_MUST_POSITIVE_INTEGER, nm[k], (long long)d[k]);
      return -1;
    }
  }
  double nvd = (double)d[0] * (double)d[1] * (double)d[2];
  if (nvd > INT32_MAX - 1) {
    sk_err(err, errlen, SK_E_X_X_GRID, (long long)d[0], (long long)d[1], (long long)d[2],
           nvd, INT32_MAX - 1);
    return -1;
  }
  int64_t nv = d[0] * d[1] * d[2];
  if (check_memory(3 * nv, err, errlen) < 0) return -1;
  sk_arg x[] = {sk_arg_i64("nx", d[0]), sk_arg_i64("ny", d[1]), sk_arg_i64("nz", d[2])};
  return gen_build(&k_grid, nv, 3 * nv, x, NELEM(x), 0, out, err, errlen);
}

/* -- registration ------------------------------------------------------------ */
static const sk_kentry e_from_edges = {
  "graph.from_edges", "nv, src, dst [, weights, directed, dedupe, self_loops]",
  SK_KRES_NONE, from_edges};
static const sk_kentry e_from_csr = {
  "graph.from_csr", "A_* [, directed, dedupe, self_loops]", SK_KRES_NONE, from_csr};
static const sk_kentry e_arcsrc = {"graph.arc_sources", "G_*", SK_KRES_NONE, arc_sources};
static const sk_kentry e_kron = {"graph.kronecker", "scale, edgefactor [, seed]",
                                 SK_KRES_NONE, kronecker};
static const sk_kentry e_er = {"graph.erdos_renyi", "nv, nedges [, seed]", SK_KRES_NONE,
                               erdos_renyi};
static const sk_kentry e_grid = {"graph.grid", "nx, ny [, nz]", SK_KRES_NONE, grid};
static const sk_kentry e_to = {"graph.to", "G_*, space [, edges]", SK_KRES_NONE,
                               to_space};

const sk_kentry *const sk_gbuild_entries[] = {
  &e_from_edges, &e_from_csr, &e_arcsrc, &e_kron, &e_er, &e_grid, &e_to, NULL};
const sk_kbody *const sk_gbuild_bodies[] = {
  &k_set0,   &k_idcheck, &k_ecount, &k_expand, &k_expandw, &k_runs, &k_dfill,
  &k_dfillw, &k_rows,    &k_kron,   &k_er,     &k_grid,    NULL};
