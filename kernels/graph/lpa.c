/* lpa.c: graph.label_propagation, communities by semi-synchronous label
 * propagation (Cordasco and Gargano, networkx's
 * label_propagation_communities): the vertices split into independent
 * classes (Jones-Plassmann with seeded priorities), each class updated in
 * parallel in turn. Bodies: lpa.sk.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "comm.h"

/* -- the classes ---------------------------------------------------------------------
 * Round r puts in class r every vertex without a class whose priority
 * (splitmix64 of the seed and its id, then its id) beats
 * those of its neighbours without a class when the round starts: an
 * independent set. The vertices without a class are listed again after
 * each round, so a round visits only them.
 * The classes are listed one after the other in q, class r at
 * q[off[r] .. off[r + 1]). */
static const char *const sig_lp_init[] = {"range" R1("lab", "int64") R1("col", "int64"),
                                          NULL};
static const sk_kbody k_lp_init = {.label = "graph.lpa_init",
                                   .body = sk_body_graph_lp_init,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lp_init};
static const char *const sig_lp_jp[] = {
  "range" G3 R1("col", "int64") R1("rem", "int32") R1("rem2", "int32") R1("q", "int32")
    R1("cnt", "int64") R1("cnt2", "int64") " r=int64 seed=int64",
  NULL};
static const sk_kbody k_lp_jp = {.label = "graph.lpa_classes",
                                 .body = sk_body_graph_lp_jp,
                                 .pattern = SK_FOR,
                                 .sigs = sig_lp_jp};

static const char *const sig_lp_iota[] = {"range" R1("rem", "int32") R1("col", "int64"),
                                          NULL};
static const sk_kbody k_lp_iota = {.label = "graph.lpa_classes_init",
                                   .body = sk_body_graph_lp_iota,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lp_iota};

int sk_gcomm_classes(const sk_view *rowptr, const sk_view *colidx, int64_t nv, int64_t seed,
                     const sk_view *col, const sk_view *q, const sk_view *cnt, int64_t *off,
                     int64_t *nclass, char *err, size_t errlen) {
  sk_view rem, rem2, cnt2;
  sk_view *tmp[] = {&rem, &rem2, &cnt2};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  int rc = -1;
  const int space = col->space;
  if (sk_sp_view(&rem, "classless vertices", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&rem2, "classless vertices", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt2, "classless count", SK_I64, 1, space, 1, err, errlen) < 0)
    goto done;
  sk_arg c[] = {sk_arg_view("rem", &rem), sk_arg_view("col", col)};
  if (sk_sp_range(&k_lp_iota, nv, c, NELEM(c), NULL, err, errlen) < 0 ||
      sk_g_set0(cnt, 0, err, errlen) < 0)
    goto done;
  int64_t r = 0, left = nv;
  sk_view *rl = &rem, *rn = &rem2;
  off[0] = 0;
  while (left > 0) {
    sk_arg a[] = {sk_arg_view("rowptr", rowptr), sk_arg_view("colidx", colidx),
                  sk_arg_view("col", col),       sk_arg_view("rem", rl),
                  sk_arg_view("rem2", rn),       sk_arg_view("q", q),
                  sk_arg_view("cnt", cnt),       sk_arg_view("cnt2", &cnt2),
                  sk_arg_i64("r", r),            sk_arg_i64("seed", seed)};
    if (sk_g_set0(&cnt2, 0, err, errlen) < 0 ||
        sk_galgo_degree_range(&k_lp_jp, left, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(cnt, 0, &off[r + 1], err, errlen) < 0 ||
        sk_sp_get_i64(&cnt2, 0, &left, err, errlen) < 0)
      goto done;
    sk_view *t = rl;
    rl = rn;
    rn = t;
    r++;
  }
  *nclass = r;
  rc = 0;
done:
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  return rc;
}

/* -- the updates ---------------------------------------------------------------------
 * A class's vertices (no two adjacent: each reads only other classes'
 * labels, so the result is the same for any order or thread count) each
 * take a most frequent label among their neighbours' -- their own when it
 * is one, else the one of those whose hash with the seed is smallest.
 * A vertex changes its label only to one strictly more frequent among its
 * neighbours, so the arcs whose ends share a label grow with every change:
 * the sweeps end, and at the end every vertex's label is among the most
 * frequent of its neighbours' (a vertex without neighbours keeps its
 * own). */
static const char *const sig_lp_up[] = {"range" G3 R1("lab", "int64") R1("q", "int32")
                                          R1("buf", "int64") " base=int64 seed=int64",
                                        NULL};
static const sk_kbody k_lp_up = {.label = "graph.lpa_update",
                                 .body = sk_body_graph_lp_update,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_lp_up,
                                 .prelude = sk_body_sparse_prelude,
                                 .reds = "sum:int64"};

/* graph.label_propagation: G_* [, seed] -> labels (int64, 0..n-1 by first
 * vertex), n */
static int lpa(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights",
                                      "directed", "seed",     NULL};
  sk_graph g;
  int directed;
  int64_t seed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "seed", 1, 1, &seed, err, errlen) < 0)
    return -1;
  if (directed) {
    sk_err(err, errlen, SK_E_GCOMM_DIRECTED, "label propagation");
    return -1;
  }
  const int space = g.rowptr->space;
  sk_view lab, col, q, cnt, buf, labels;
  sk_view *tmp[] = {&lab, &col, &q, &cnt, &buf, &labels};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  int64_t *off = NULL, n = 0;
  int rc = -1;
  if (sk_sp_view(&labels, "labels", SK_I64, g.nv, space, 0, err, errlen) < 0) goto done;
  if (g.nv == 0) goto ok;
  if (sk_sp_view(&lab, "labels (vertex ids)", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&col, "classes", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&q, "class lists", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt, "class count", SK_I64, 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&buf, "neighbour labels", SK_I64, g.narcs > 0 ? g.narcs : 1,
                 g.colidx->space, 0, err, errlen) < 0)
    goto done;
  off = malloc(sizeof *off * (size_t)(g.nv + 1));
  if (!off) {
    sk_err(err, errlen, SK_E_NOMEM);
    goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("lab", &lab), sk_arg_view("col", &col)};
    if (sk_sp_range(&k_lp_init, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  int64_t nclass = 0;
  if (sk_gcomm_classes(g.rowptr, g.colidx, g.nv, seed, &col, &q, &cnt, off, &nclass, err,
                        errlen) < 0)
    goto done;
  for (int64_t changes = 1; changes > 0;) {
    changes = 0;
    for (int64_t c = 0; c < nclass; c++) {
      sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                    sk_arg_view("lab", &lab),        sk_arg_view("q", &q),
                    sk_arg_view("buf", &buf),        sk_arg_i64("base", off[c]),
                    sk_arg_i64("seed", seed)};
      sk_result r;
      if (sk_galgo_degree_range_chunk(&k_lp_up, off[c + 1] - off[c], 64, a, NELEM(a), &r,
                                      err, errlen) < 0)
        goto done;
      changes += sk_result_i64(&r, 0);
    }
  }
  if (sk_gcomm_canon(&lab, g.nv, &labels, &n, err, errlen) < 0) goto done;
ok:
  if (sk_kout_num(out, "n", (double)n, err, errlen) < 0 ||
      sk_kout_view(out, "labels", &labels, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  free(off);
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  return rc;
}

const sk_kentry sk_gcomm_lpa = {"graph.label_propagation", "G_* [, seed]", SK_KRES_NONE,
                                lpa};

const sk_kbody *const sk_glpa_bodies[] = {&k_lp_init, &k_lp_iota, &k_lp_jp, &k_lp_up,
                                          NULL};
