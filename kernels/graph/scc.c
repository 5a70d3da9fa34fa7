/* scc.c: graph.scc (strongly connected components of a directed graph:
 * trimming and coloring, as GPU libraries run it) and graph.wcc (weakly
 * connected components: graph.connected_components' kernels), both with
 * canonical labels; the canonical relabelling the community algorithms
 * share. Bodies: scc.sk.
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "comm.h"

/* -- canonical labels ------------------------------------------------------------
 * minv(c): the smallest vertex labelled c (atomic_min); a vertex that is
 * its class's smallest is flagged, the flags scanned: the class's number,
 * 0..n-1 in the order of the smallest vertices. */
#define CN_LAB(T) R1("lab", T)
static const char *const sig_cn_init[] = {"range" R1("minv", "int64") " nv=int64", NULL};
static const sk_kbody k_cn_init = {.label = "graph.canon_init",
                                   .body = sk_body_graph_cn_init,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cn_init};
static const char *const sig_cn_min[] = {"range" CN_LAB("int64") R1("minv", "int64"),
                                         "range" CN_LAB("int32") R1("minv", "int64"), NULL};
static const sk_kbody k_cn_min = {.label = "graph.canon_min",
                                  .body = sk_body_graph_cn_min,
                                  .pattern = SK_FOR,
                                  .sigs = sig_cn_min};
static const char *const sig_cn_mark[] = {
  "range" CN_LAB("int64") R1("minv", "int64") R1("cnt", "int64") " nv=int64",
  "range" CN_LAB("int32") R1("minv", "int64") R1("cnt", "int64") " nv=int64", NULL};
static const sk_kbody k_cn_mark = {.label = "graph.canon_mark",
                                   .body = sk_body_graph_cn_mark,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cn_mark};
static const char *const sig_cn_out[] = {
  "range" CN_LAB("int64") R1("minv", "int64") R1("ptr", "int64") R1("out", "int64"),
  "range" CN_LAB("int32") R1("minv", "int64") R1("ptr", "int64") R1("out", "int32"),
  "range" CN_LAB("int64") R1("minv", "int64") R1("ptr", "int64") R1("out", "int32"),
  NULL};
static const sk_kbody k_cn_out = {.label = "graph.canon_out",
                                  .body = sk_body_graph_cn_out,
                                  .pattern = SK_FOR,
                                  .sigs = sig_cn_out};

int sk_gcomm_canon(const sk_view *lab, int64_t nv, const sk_view *out, int64_t *n,
                   char *err, size_t errlen) {
  sk_view minv, cnt;
  memset(&cnt, 0, sizeof cnt);
  *n = 0;
  if (nv == 0) return 0;
  if (sk_sp_view(&minv, "smallest vertex", SK_I64, nv, lab->space, 0, err, errlen) < 0)
    return -1;
  int rc = -1;
  if (sk_sp_view(&cnt, "class starts", SK_I64, nv + 1, lab->space, 0, err, errlen) < 0)
    goto done;
  sk_arg a[] = {sk_arg_view("minv", &minv), sk_arg_i64("nv", nv)};
  sk_arg b[] = {sk_arg_view("lab", lab), sk_arg_view("minv", &minv)};
  sk_arg c[] = {sk_arg_view("lab", lab), sk_arg_view("minv", &minv),
                sk_arg_view("cnt", &cnt), sk_arg_i64("nv", nv)};
  sk_arg d[] = {sk_arg_view("lab", lab), sk_arg_view("minv", &minv),
                sk_arg_view("ptr", &cnt), sk_arg_view("out", out)};
  if (sk_sp_range(&k_cn_init, nv, a, NELEM(a), NULL, err, errlen) < 0 ||
      sk_sp_range(&k_cn_min, nv, b, NELEM(b), NULL, err, errlen) < 0 ||
      sk_sp_range(&k_cn_mark, nv, c, NELEM(c), NULL, err, errlen) < 0 ||
      sk_sp_scan(&cnt, &cnt, nv, n, err, errlen) < 0 ||
      sk_sp_range(&k_cn_out, nv, d, NELEM(d), NULL, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_view_release(&cnt);
  sk_view_release(&minv);
  return rc;
}

/* -- weakly connected components ---------------------------------------------------
 * graph.connected_components (Afforest; a directed graph's arcs linked
 * once each, so its weak components), relabelled canonically. */
static int wcc_labels(const sk_graph *g, int directed, sk_view *labels, int64_t *n,
                      char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("G_rowptr", g->rowptr), sk_arg_view("G_colidx", g->colidx),
                sk_arg_i64("directed", directed)};
  sk_kvalue v;
  memset(&v, 0, sizeof v);
  if (sk_kernel_call_raw("graph.connected_components", a, NELEM(a), &v, NULL, err,
                         errlen) < 0)
    return -1;
  int rc = -1;
  sk_view *cc = NULL;
  for (int i = 0; i < v.nout; i++)
    if (v.out[i].is_view && strcmp(v.out[i].name, "labels") == 0) cc = &v.out[i].view;
  if (!cc) {
    sk_err(err, errlen, SK_E_GCOMM_NO_OUTPUT, "graph.connected_components", "labels");
    goto done;
  }
  if (sk_sp_view(labels, "labels", SK_I64, g->nv, g->rowptr->space, 0, err, errlen) < 0)
    goto done;
  if (sk_gcomm_canon(cc, g->nv, labels, n, err, errlen) < 0) {
    sk_view_release(labels);
    goto done;
  }
  rc = 0;
done:
  sk_kout_release(&v);
  return rc;
}

/* graph.wcc: G_* [, directed] -> labels (int64, 0..n-1 by first vertex), n */
static int wcc(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  sk_view labels;
  int64_t n;
  if (wcc_labels(&g, directed, &labels, &n, err, errlen) < 0) return -1;
  if (sk_kout_num(out, "n", (double)n, err, errlen) < 0 ||
      sk_kout_view(out, "labels", &labels, err, errlen) < 0) {
    sk_view_release(&labels);
    return -1;
  }
  sk_view_release(&labels);
  return 0;
}

/* -- strongly connected components -----------------------------------------------
 * lab(v) = -1 while v is left. A round: trimming passes (a vertex left
 * without an arc in or out among the vertices left is its own component)
 * until one removes under 1/16 of the vertices left; then coloring (each
 * vertex left takes the largest id that reaches it through vertices left,
 * atomic_max pushed along the arcs until nothing changes: a color's
 * vertices are those its root, the vertex of that id, reaches); then each
 * root's component: the vertices of its color that reach it, found
 * backwards by pulling along out-arcs (a vertex of color c with an arc to
 * a member is a member) until nothing changes. Every round settles at
 * least the component of the largest vertex left; the components are
 * unique, so the order of the atomics does not change them. Only the
 * out-arcs are read: no transpose. */
#define SCC_G G3 R1("lab", "int64")
static const char *const sig_scc_lab[] = {"range" R1("lab", "int64"), NULL};
static const sk_kbody k_scc_init = {.label = "graph.scc_init",
                                    .body = sk_body_graph_scc_init,
                                    .pattern = SK_FOR,
                                    .sigs = sig_scc_lab};
static const char *const sig_scc_zero[] = {"range" R1("indeg", "int64"), NULL};
static const sk_kbody k_scc_zero = {.label = "graph.scc_zero",
                                    .body = sk_body_graph_scc_zero,
                                    .pattern = SK_FOR,
                                    .sigs = sig_scc_zero};
static const char *const sig_scc_deg[] = {"range" SCC_G R1("indeg", "int64"), NULL};
static const sk_kbody k_scc_indeg = {.label = "graph.scc_indegree",
                                     .body = sk_body_graph_scc_indeg,
                                     .pattern = SK_FOR,
                                     .sigs = sig_scc_deg};
static const sk_kbody k_scc_trim = {.label = "graph.scc_trim",
                                    .body = sk_body_graph_scc_trim,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_scc_deg,
                                    .reds = "sum:int64"};
static const char *const sig_scc_ci[] = {"range" R1("lab", "int64") R1("color", "int64"),
                                         NULL};
static const sk_kbody k_scc_cinit = {.label = "graph.scc_color_init",
                                     .body = sk_body_graph_scc_color_init,
                                     .pattern = SK_FOR,
                                     .sigs = sig_scc_ci};
static const sk_kbody k_scc_roots = {.label = "graph.scc_roots",
                                     .body = sk_body_graph_scc_roots,
                                     .pattern = SK_FOR,
                                     .sigs = sig_scc_ci};
static const char *const sig_scc_col[] = {"range" SCC_G R1("color", "int64"), NULL};
static const sk_kbody k_scc_color = {.label = "graph.scc_color",
                                     .body = sk_body_graph_scc_color,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_scc_col,
                                     .reds = "sum:int64"};
static const sk_kbody k_scc_back = {.label = "graph.scc_back",
                                    .body = sk_body_graph_scc_back,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_scc_col,
                                    .reds = "sum:int64"};
static const sk_kbody k_scc_settle = {.label = "graph.scc_settle",
                                      .body = sk_body_graph_scc_settle,
                                      .pattern = SK_REDUCE,
                                      .sigs = sig_scc_lab,
                                      .reds = "sum:int64"};

/* the rows of 'g' with 'lab' and 'extra' (a[4]) */
static int scc_pass(const sk_kbody *kb, const sk_graph *g, const sk_view *lab,
                    const char *xname, const sk_view *extra, int64_t *res, char *err,
                    size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("lab", lab), sk_arg_view(xname, extra)};
  sk_result r;
  if (sk_galgo_degree_range(kb, g->nv, a, NELEM(a), res ? &r : NULL, err, errlen) < 0)
    return -1;
  if (res) *res = sk_result_i64(&r, 0);
  return 0;
}

static int scc_labels(const sk_graph *g, sk_view *lab, char *err, size_t errlen) {
  sk_view aux;
  const int space = g->rowptr->space;
  if (sk_sp_view(&aux, "in-degrees / colors", SK_I64, g->nv, space, 0, err, errlen) < 0)
    return -1;
  int rc = -1;
  sk_arg l[] = {sk_arg_view("lab", lab)};
  sk_arg la[] = {sk_arg_view("lab", lab), sk_arg_view("color", &aux)};
  sk_arg z[] = {sk_arg_view("indeg", &aux)};
  sk_result r;
  if (sk_sp_range(&k_scc_init, g->nv, l, 1, NULL, err, errlen) < 0) goto done;
  for (int64_t left = g->nv; left > 0;) {
    for (int64_t trimmed = left; trimmed > 0 && trimmed * 16 >= left; left -= trimmed) {
      if (sk_sp_range(&k_scc_zero, g->nv, z, 1, NULL, err, errlen) < 0 ||
          scc_pass(&k_scc_indeg, g, lab, "indeg", &aux, NULL, err, errlen) < 0 ||
          scc_pass(&k_scc_trim, g, lab, "indeg", &aux, &trimmed, err, errlen) < 0)
        goto done;
    }
    if (left == 0) break;
    int64_t ch = 1;
    if (sk_sp_range(&k_scc_cinit, g->nv, la, NELEM(la), NULL, err, errlen) < 0) goto done;
    while (ch > 0)
      if (scc_pass(&k_scc_color, g, lab, "color", &aux, &ch, err, errlen) < 0) goto done;
    if (sk_sp_range(&k_scc_roots, g->nv, la, NELEM(la), NULL, err, errlen) < 0) goto done;
    for (ch = 1; ch > 0;)
      if (scc_pass(&k_scc_back, g, lab, "color", &aux, &ch, err, errlen) < 0) goto done;
    if (sk_sp_range(&k_scc_settle, g->nv, l, 1, &r, err, errlen) < 0) goto done;
    left = sk_result_i64(&r, 0);
  }
  rc = 0;
done:
  sk_view_release(&aux);
  return rc;
}

/* graph.scc: G_* [, directed] -> labels (int64, 0..n-1 by first vertex), n;
 * an undirected graph's strong components are its connected components */
static int scc(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  sk_view labels, lab;
  int64_t n = 0;
  if (!directed) {
    if (wcc_labels(&g, 0, &labels, &n, err, errlen) < 0) return -1;
  } else {
    if (sk_sp_view(&lab, "root labels", SK_I64, g.nv, g.rowptr->space, 0, err, errlen) < 0)
      return -1;
    if (sk_sp_view(&labels, "labels", SK_I64, g.nv, g.rowptr->space, 0, err, errlen) < 0) {
      sk_view_release(&lab);
      return -1;
    }
    int rc = scc_labels(&g, &lab, err, errlen);
    if (rc == 0) rc = sk_gcomm_canon(&lab, g.nv, &labels, &n, err, errlen);
    sk_view_release(&lab);
    if (rc < 0) {
      sk_view_release(&labels);
      return -1;
    }
  }
  if (sk_kout_num(out, "n", (double)n, err, errlen) < 0 ||
      sk_kout_view(out, "labels", &labels, err, errlen) < 0) {
    sk_view_release(&labels);
    return -1;
  }
  sk_view_release(&labels);
  return 0;
}

const sk_kentry sk_gcomm_scc = {"graph.scc", "G_* [, directed]", SK_KRES_NONE, scc};
const sk_kentry sk_gcomm_wcc = {"graph.wcc", "G_* [, directed]", SK_KRES_NONE, wcc};

const sk_kbody *const sk_gscc_bodies[] = {
  &k_cn_init,   &k_cn_min,   &k_cn_mark,  &k_cn_out,   &k_scc_init,
  &k_scc_zero,  &k_scc_indeg, &k_scc_trim, &k_scc_cinit, &k_scc_color,
  &k_scc_roots, &k_scc_back, &k_scc_settle, NULL};
