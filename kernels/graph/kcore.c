/* kcore.c: graph.kcore, the core number of every vertex (networkx's
 * core_number) by parallel peeling, level-synchronous as the GPU k-core
 * codes run it; and the transpose the directed algorithms share. Bodies:
 * kcore.sk.
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "comm.h"

/* -- peeling --------------------------------------------------------------------
 * deg(v) starts at v's degree (self-loops left out; a directed graph:
 * in- plus out-degree, networkx's degree of a DiGraph, its arcs taken
 * both ways). Level k: every vertex left with deg <= k gets core k and
 * forms the frontier; each frontier vertex takes one off the degree of
 * each neighbour still above k, and the neighbour whose degree drops to k
 * (the one decrement that sees k + 1: exactly one) gets core k and joins
 * the next frontier; the level ends when a frontier is empty, and the
 * next level is the smallest degree left. The vertices left are listed
 * (rem), the list made again after each level, so a level's passes visit
 * the vertices left, not all (most of a skewed graph's vertices leave at
 * the first levels). The core numbers are unique, so the result does not
 * depend on the order of the atomics. */
static const char *const sig_kc_deg[] = {
  "range" G3 R1("trp", "int64") R1("tci", "int32") R1("deg", "int64") R1("core", "int32")
    R1("rem", "int32") " two=int64",
  NULL};
static const sk_kbody k_kc_deg = {.label = "graph.kcore_degree",
                                  .body = sk_body_graph_kc_deg,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_kc_deg,
                                  .reds = "min:int64"};
static const char *const sig_kc_scan[] = {
  "range" R1("deg", "int64") R1("core", "int32") R1("rem", "int32") R1("q", "int32")
    R1("cnt", "int64") " lvl=int64",
  NULL};
static const sk_kbody k_kc_scan = {.label = "graph.kcore_scan",
                                   .body = sk_body_graph_kc_scan,
                                   .pattern = SK_FOR,
                                   .sigs = sig_kc_scan};
static const char *const sig_kc_peel[] = {
  "range" G3 R1("trp", "int64") R1("tci", "int32") R1("deg", "int64") R1("core", "int32")
    R1("q", "int32") R1("nq", "int32") R1("cnt", "int64") " two=int64 lvl=int64",
  NULL};
static const sk_kbody k_kc_peel = {.label = "graph.kcore_peel",
                                   .body = sk_body_graph_kc_peel,
                                   .pattern = SK_FOR,
                                   .sigs = sig_kc_peel};
static const char *const sig_kc_left[] = {
  "range" R1("deg", "int64") R1("core", "int32") R1("rem", "int32") R1("rem2", "int32")
    R1("cnt", "int64"),
  NULL};
static const sk_kbody k_kc_left = {.label = "graph.kcore_left",
                                   .body = sk_body_graph_kc_left,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_kc_left,
                                   .reds = "min:int64"};

int sk_gcomm_transpose(const sk_graph *g, sk_view *trp, sk_view *tci, char *err,
                       size_t errlen) {
  sk_view src, va;
  memset(&va, 0, sizeof va);
  if (sk_g_arc_sources(g, &src, err, errlen) < 0) return -1;
  int rc = sk_sp_coo_to_csr(g->nv, g->nv, g->colidx, &src, NULL, SK_F32, 0, 1,
                            g->colidx->space, trp, tci, &va, err, errlen);
  sk_view_release(&src);
  sk_view_release(&va);
  return rc;
}

/* graph.kcore: G_* [, directed] -> core (int32, the core number of each
 * vertex) */
static int kcore(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  const int space = g.rowptr->space;
  sk_view core, deg, q, nq, cnt, trp, tci, rem, rem2;
  sk_view *tmp[] = {&deg, &q, &nq, &cnt, &trp, &tci, &rem, &rem2};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  if (sk_sp_view(&core, "core", SK_I32, g.nv, space, 0, err, errlen) < 0) return -1;
  int rc = -1;
  if (g.nv == 0) goto ok;
  if (directed) {
    if (sk_gcomm_transpose(&g, &trp, &tci, err, errlen) < 0) goto done;
  }
  if (sk_sp_view(&deg, "degrees", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&q, "frontier", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nq, "next frontier", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&rem, "vertices left", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&rem2, "vertices left", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt, "frontier count", SK_I64, 1, space, 1, err, errlen) < 0)
    goto done;
  const sk_view *trv = directed ? &trp : g.rowptr, *tcv = directed ? &tci : g.colidx;
  sk_result r;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("trp", trv),         sk_arg_view("tci", tcv),
                  sk_arg_view("deg", &deg),        sk_arg_view("core", &core),
                  sk_arg_view("rem", &rem),        sk_arg_i64("two", directed)};
    if (sk_galgo_degree_range(&k_kc_deg, g.nv, a, NELEM(a), &r, err, errlen) < 0)
      goto done;
  }
  int64_t k = sk_result_i64(&r, 0), left = g.nv;
  sk_view *rl = &rem, *rn = &rem2;
  while (left > 0) {
    int64_t n;
    if (sk_g_set0(&cnt, 0, err, errlen) < 0) goto done;
    sk_arg s[] = {sk_arg_view("deg", &deg), sk_arg_view("core", &core),
                  sk_arg_view("rem", rl),   sk_arg_view("q", &q),
                  sk_arg_view("cnt", &cnt), sk_arg_i64("lvl", k)};
    if (sk_sp_range(&k_kc_scan, left, s, NELEM(s), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&cnt, 0, &n, err, errlen) < 0)
      goto done;
    for (int flip = 0; n > 0; flip ^= 1) {
      const sk_view *cur = flip ? &nq : &q, *nxt = flip ? &q : &nq;
      if (sk_g_set0(&cnt, 0, err, errlen) < 0) goto done;
      sk_arg p[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                    sk_arg_view("trp", trv),         sk_arg_view("tci", tcv),
                    sk_arg_view("deg", &deg),        sk_arg_view("core", &core),
                    sk_arg_view("q", cur),           sk_arg_view("nq", nxt),
                    sk_arg_view("cnt", &cnt),        sk_arg_i64("two", directed),
                    sk_arg_i64("lvl", k)};
      if (sk_galgo_degree_range_chunk(&k_kc_peel, n, 16, p, NELEM(p), NULL, err,
                                      errlen) < 0 ||
          sk_sp_get_i64(&cnt, 0, &n, err, errlen) < 0)
        goto done;
    }
    if (sk_g_set0(&cnt, 0, err, errlen) < 0) goto done;
    sk_arg l[] = {sk_arg_view("deg", &deg), sk_arg_view("core", &core),
                  sk_arg_view("rem", rl),   sk_arg_view("rem2", rn),
                  sk_arg_view("cnt", &cnt)};
    if (sk_sp_range(&k_kc_left, left, l, NELEM(l), &r, err, errlen) < 0 ||
        sk_sp_get_i64(&cnt, 0, &left, err, errlen) < 0)
      goto done;
    k = sk_result_i64(&r, 0);
    sk_view *t = rl;
    rl = rn;
    rn = t;
  }
ok:
  if (sk_kout_view(out, "core", &core, err, errlen) < 0) goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  sk_view_release(&core);
  return rc;
}

const sk_kentry sk_gcomm_kcore = {"graph.kcore", "G_* [, directed]", SK_KRES_NONE, kcore};

const sk_kbody *const sk_gkcore_bodies[] = {&k_kc_deg, &k_kc_scan, &k_kc_peel, &k_kc_left,
                                            NULL};
