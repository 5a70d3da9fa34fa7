/* louvain.c: graph.louvain, community detection by modularity (Blondel
 * et al.) in its parallel form: a vertex-move phase whose sweeps move
 * every vertex at once to its best neighbouring community, then the
 * communities aggregated into a coarse graph, repeated. Bodies:
 * louvain.sk.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "comm.h"

/* -- the sweeps -------------------------------------------------------------------
 * Each level's vertices are split into independent classes
 * (Jones-Plassmann, seeded; no two vertices of a class adjacent), and a
 * sweep moves the classes in turn, each class's vertices in parallel, as
 * Grappolo does (Lu, Halappanavar and Kalyanaraman): a vertex's best
 * community is computed from its neighbours' communities, which no vertex
 * of its class changes, and the community degrees at the class's start;
 * then the class's moves are applied. The community degrees are summed in
 * fixed point (int64, 2m scaled under 2^52), so the atomic sums come out
 * the same in any order: the result depends on the graph and the seed
 * (the classes' priorities and the ties between equal gains) -- not the
 * thread count, not the back end. A vertex is weighed again only when a
 * neighbour moved since its last weighing (pruning: Ryu and Kim; Leiden's
 * queue). The phase ends when a sweep moves nothing or gains under 1e-7
 * of modularity. */
#define LV_W R1("rowptr", "int64") R1("colidx", "int32") R1("w", "float64")
static const char *const sig_lv_wcheck[] = {"range" R1("w", "float64"), NULL};
static const sk_kbody k_lv_wcheck = {.label = "graph.louvain_weights",
                                     .body = sk_body_graph_lv_wcheck,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_lv_wcheck,
                                     .reds = "min:int64"};
static const sk_kbody k_lv_ones = {.label = "graph.louvain_ones",
                                   .body = sk_body_graph_lv_ones,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lv_wcheck};
static const char *const sig_lv_iota[] = {"range" R1("fin", "int32"), NULL};
static const sk_kbody k_lv_iota = {.label = "graph.louvain_iota",
                                   .body = sk_body_graph_lv_iota,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lv_iota};
static const char *const sig_lv_deg[] = {
  "range" LV_W R1("kdeg", "float64") R1("kfix", "int64") " lf=float64 scale=float64", NULL};
static const sk_kbody k_lv_deg = {.label = "graph.louvain_degree",
                                  .body = sk_body_graph_lv_deg,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_lv_deg,
                                  .reds = "sum:float64"};
static const char *const sig_lv_init[] = {
  "range" R1("comm", "int32") R1("stot", "int64") R1("kfix", "int64"), NULL};
static const char *const sig_lv_init_a[] = {
  "range" R1("comm", "int32") R1("stot", "int64") R1("kfix", "int64") R1("act", "int32"),
  NULL};
static const sk_kbody k_lv_init = {.label = "graph.louvain_init",
                                   .body = sk_body_graph_lv_init,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lv_init_a};
static const char *const sig_lv_zero[] = {"range" R1("stot", "int64"), NULL};
static const sk_kbody k_lv_zero = {.label = "graph.louvain_zero",
                                   .body = sk_body_graph_lv_zero,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lv_zero};
static const sk_kbody k_lv_stot = {.label = "graph.louvain_totals",
                                   .body = sk_body_graph_lv_stot,
                                   .pattern = SK_FOR,
                                   .sigs = sig_lv_init};
static const char *const sig_lv_q[] = {
  "range" LV_W R1("comm", "int32") R1("stot", "int64") " lf=float64 iscale=float64", NULL};
static const sk_kbody k_lv_q = {.label = "graph.louvain_modularity",
                                .body = sk_body_graph_lv_q,
                                .pattern = SK_REDUCE,
                                .sigs = sig_lv_q,
                                .reds = "sum:float64 sum:float64"};
static const char *const sig_lv_move[] = {
  "range" LV_W R1("comm", "int32") R1("nxt", "int32") R1("kdeg", "float64")
    R1("stot", "int64") R1("keys", "int32") R1("vals", "float64") R1("q", "int32")
      R1("act", "int32") " gamma=float64 iscale=float64 inv2m=float64 base=int64 seed=int64",
  NULL};
static const sk_kbody k_lv_move = {.label = "graph.louvain_move",
                                   .body = sk_body_graph_lv_move,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_lv_move,
                                   .prelude = sk_body_sparse_prelude,
                                   .reds = "sum:int64"};
static const char *const sig_lv_apply[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("comm", "int32") R1("nxt", "int32")
    R1("stot", "int64") R1("kfix", "int64") R1("q", "int32") R1("act", "int32") " base=int64",
  NULL};
static const sk_kbody k_lv_apply = {.label = "graph.louvain_apply",
                                    .body = sk_body_graph_lv_apply,
                                    .pattern = SK_FOR,
                                    .sigs = sig_lv_apply};
static const char *const sig_lv_coo[] = {"range" LV_W R1("cid", "int32") R1("rows", "int32")
                                           R1("cols", "int32") R1("vals", "float64")
                                             " lf=float64",
                                         NULL};
static const sk_kbody k_lv_coo = {.label = "graph.louvain_coarsen",
                                  .body = sk_body_graph_lv_coo,
                                  .pattern = SK_FOR,
                                  .sigs = sig_lv_coo};
static const char *const sig_lv_map[] = {"range" R1("fin", "int32") R1("cid", "int32"),
                                         NULL};
static const sk_kbody k_lv_map = {.label = "graph.louvain_map",
                                  .body = sk_body_graph_lv_map,
                                  .pattern = SK_FOR,
                                  .sigs = sig_lv_map};

/* one level's graph: the user's (weights or ones, self-loops twice) or a
 * coarse one (owned, its diagonal the weight inside each vertex) */
typedef struct lv_level {
  sk_view rp, ci, w;
  const sk_view *rowptr, *colidx, *wt;
  int64_t nv;
  double lf;
} lv_level;

typedef struct lv_state {
  sk_view comm, nxt, kdeg, kfix, stot, keys, vals, col, q, cnt, act;
  int64_t *off;
  double two_m, scale, iscale, gamma;
  int64_t seed;
} lv_state;

static int lv_totals(const lv_level *L, lv_state *S, const sk_view *comm, char *err,
                     size_t errlen) {
  sk_arg z[] = {sk_arg_view("stot", &S->stot)};
  sk_arg a[] = {sk_arg_view("comm", comm), sk_arg_view("stot", &S->stot),
                sk_arg_view("kfix", &S->kfix)};
  if (sk_sp_range(&k_lv_zero, L->nv, z, 1, NULL, err, errlen) < 0) return -1;
  return sk_sp_range(&k_lv_stot, L->nv, a, NELEM(a), NULL, err, errlen);
}

/* the modularity of partition 'comm' (its totals in S->stot) */
static int lv_modularity(const lv_level *L, const lv_state *S, const sk_view *comm,
                         double *q, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", L->rowptr), sk_arg_view("colidx", L->colidx),
                sk_arg_view("w", L->wt),          sk_arg_view("comm", comm),
                sk_arg_view("stot", &S->stot),    sk_arg_f64("lf", L->lf),
                sk_arg_f64("iscale", S->iscale)};
  sk_result r;
  if (sk_galgo_degree_range(&k_lv_q, L->nv, a, NELEM(a), &r, err, errlen) < 0) return -1;
  *q = sk_result_f64(&r, 0) / S->two_m -
       S->gamma * sk_result_f64(&r, 1) / (S->two_m * S->two_m);
  return 0;
}

/* the degrees of level L, 2m and its fixed-point scale */
static int lv_degrees(const lv_level *L, lv_state *S, char *err, size_t errlen) {
  sk_result r;
  /* 2m first in float64 for the scale, then again into kfix */
  for (int pass = 0; pass < 2; pass++) {
    sk_arg a[] = {sk_arg_view("rowptr", L->rowptr), sk_arg_view("colidx", L->colidx),
                  sk_arg_view("w", L->wt),          sk_arg_view("kdeg", &S->kdeg),
                  sk_arg_view("kfix", &S->kfix),    sk_arg_f64("lf", L->lf),
                  sk_arg_f64("scale", S->scale)};
    if (sk_galgo_degree_range(&k_lv_deg, L->nv, a, NELEM(a), &r, err, errlen) < 0)
      return -1;
    S->two_m = sk_result_f64(&r, 0);
    if (pass == 0) {
      int ex = 0;
      if (S->two_m > 0) frexp(S->two_m, &ex); /* 2m < 2^ex */
      S->scale = ldexp(1.0, 52 - ex);
      S->iscale = 1.0 / S->scale;
    }
  }
  return 0;
}

/* the move phase on level L from singletons; *moved: a vertex moved */
static int lv_phase(const lv_level *L, lv_state *S, int level, int *moved, char *err,
                    size_t errlen) {
  sk_arg in[] = {sk_arg_view("comm", &S->comm), sk_arg_view("stot", &S->stot),
                 sk_arg_view("kfix", &S->kfix), sk_arg_view("act", &S->act)};
  /* unsigned: the mix wraps (a signed overflow would be undefined) */
  const int64_t seed = (int64_t)((uint64_t)S->seed + 0x632BE59BD9B4E019ULL * (uint64_t)level);
  double q;
  int64_t nclass = 0;
  *moved = 0;
  if (sk_sp_range(&k_lv_init, L->nv, in, NELEM(in), NULL, err, errlen) < 0 ||
      lv_modularity(L, S, &S->comm, &q, err, errlen) < 0 ||
      sk_gcomm_classes(L->rowptr, L->colidx, L->nv, seed, &S->col, &S->q, &S->cnt, S->off,
                       &nclass, err, errlen) < 0)
    return -1;
  for (int sweep = 0; sweep < 1000; sweep++) {
    int64_t moves = 0;
    for (int64_t c = 0; c < nclass; c++) {
      const int64_t len = S->off[c + 1] - S->off[c];
      sk_arg a[] = {sk_arg_view("rowptr", L->rowptr), sk_arg_view("colidx", L->colidx),
                    sk_arg_view("w", L->wt),          sk_arg_view("comm", &S->comm),
                    sk_arg_view("nxt", &S->nxt),      sk_arg_view("kdeg", &S->kdeg),
                    sk_arg_view("stot", &S->stot),    sk_arg_view("keys", &S->keys),
                    sk_arg_view("vals", &S->vals),    sk_arg_view("q", &S->q),
                    sk_arg_view("act", &S->act),      sk_arg_f64("gamma", S->gamma),    sk_arg_f64("iscale", S->iscale),
                    sk_arg_f64("inv2m", 1.0 / S->two_m), sk_arg_i64("base", S->off[c]),
                    sk_arg_i64("seed", seed)};
      sk_arg p[] = {sk_arg_view("rowptr", L->rowptr), sk_arg_view("colidx", L->colidx),
                    sk_arg_view("comm", &S->comm),    sk_arg_view("nxt", &S->nxt),
                    sk_arg_view("stot", &S->stot),    sk_arg_view("kfix", &S->kfix),
                    sk_arg_view("q", &S->q),          sk_arg_view("act", &S->act),
                    sk_arg_i64("base", S->off[c])};
      sk_result r;
      if (sk_galgo_degree_range_chunk(&k_lv_move, len, 64, a, NELEM(a), &r, err, errlen) <
            0 ||
          sk_sp_range(&k_lv_apply, len, p, NELEM(p), NULL, err, errlen) < 0)
        return -1;
      moves += sk_result_i64(&r, 0);
    }
    if (moves == 0) break;
    *moved = 1;
    double q1;
    if (lv_modularity(L, S, &S->comm, &q1, err, errlen) < 0) return -1;
    const double gain = q1 - q;
    q = q1;
    if (gain < 1e-7) break;
  }
  return 0;
}

/* the first arc with a weight that is negative or not finite, as a
 * message: 1 when one was found */
static int lv_check_weights(const sk_graph *g, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("w", g->weights)};
  sk_result r;
  if (g->narcs == 0) return 0;
  if (sk_sp_range(&k_lv_wcheck, g->narcs, a, 1, &r, err, errlen) < 0) return -1;
  const int64_t k = sk_result_i64(&r, 0);
  if (k >= g->narcs || k < 0) return 0;
  int64_t lo = 0, hi = g->nv, x; /* the row holding arc k: rowptr(lo) <= k < rowptr(lo+1) */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (sk_sp_get_i64(g->rowptr, mid, &x, err, errlen) < 0) return -1;
    if (x <= k) lo = mid; else hi = mid;
  }
  double wk;
  if (sk_sp_get_i64(g->colidx, k, &x, err, errlen) < 0 ||
      sk_sp_get_f64(g->weights, k, &wk, err, errlen) < 0)
    return -1;
  if (wk != wk) sk_err(err, errlen, SK_E_GCOMM_WEIGHT_NAN, (long long)lo, (long long)x);
  else sk_err(err, errlen, SK_E_GCOMM_WEIGHT, wk, (long long)lo, (long long)x);
  return 1;
}

/* graph.louvain: G_* [, seed, resolution] -> comm (int32, 0..k-1 by first
 * vertex), q (the modularity of comm), k */
static int louvain(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "seed",     "resolution", NULL};
  sk_graph g;
  int directed;
  lv_state S;
  memset(&S, 0, sizeof S);
  S.gamma = 1.0;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "seed", 1, 1, &S.seed, err, errlen) < 0)
    return -1;
  if (sk_karg_find(args, nargs, "resolution") &&
      sk_karg_f64(args, nargs, "resolution", &S.gamma, err, errlen) < 0)
    return -1;
  if (directed) {
    sk_err(err, errlen, SK_E_GCOMM_DIRECTED, "Louvain");
    return -1;
  }
  if (!(S.gamma > 0 && S.gamma <= 1e300)) {
    sk_err(err, errlen, SK_E_GCOMM_RESOLUTION, S.gamma);
    return -1;
  }
  if (g.weights) {
    int bad = lv_check_weights(&g, err, errlen);
    if (bad != 0) return -1;
  }
  const int space = g.rowptr->space, espace = g.colidx->space;
  lv_level L;
  memset(&L, 0, sizeof L);
  sk_view fin, res, ones;
  sk_view *tmp[] = {&S.comm, &S.nxt, &S.kdeg, &S.kfix, &S.stot, &S.keys, &S.vals, &S.col,
                    &S.q,    &S.cnt, &S.act, &fin,    &ones,   &L.rp,   &L.ci,   &L.w,    &res};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  int rc = -1;
  int64_t ncomm = 0;
  double q = 0;
  const int64_t na = g.narcs > 0 ? g.narcs : 1, nv1 = g.nv > 0 ? g.nv : 1;
  if (sk_sp_view(&res, "communities", SK_I32, g.nv, space, 0, err, errlen) < 0) goto done;
  if (g.nv == 0) goto ok;
  if (sk_sp_view(&fin, "communities (vertex ids)", SK_I32, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.comm, "community", SK_I32, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.nxt, "next community", SK_I32, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.kdeg, "degrees", SK_F64, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.kfix, "degrees (fixed point)", SK_I64, nv1, space, 0, err, errlen) <
        0 ||
      sk_sp_view(&S.stot, "community degrees", SK_I64, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.keys, "neighbour communities", SK_I32, na, espace, 0, err, errlen) <
        0 ||
      sk_sp_view(&S.vals, "neighbour weights", SK_F64, na, espace, 0, err, errlen) < 0 ||
      sk_sp_view(&S.col, "classes", SK_I64, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.q, "class lists", SK_I32, nv1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&S.cnt, "class count", SK_I64, 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&S.act, "active", SK_I32, nv1, space, 0, err, errlen) < 0)
    goto done;
  S.off = malloc(sizeof *S.off * (size_t)(g.nv + 1));
  if (!S.off) {
    sk_err(err, errlen, SK_E_NOMEM);
    goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("fin", &fin)};
    if (sk_sp_range(&k_lv_iota, g.nv, a, 1, NULL, err, errlen) < 0) goto done;
  }
  const sk_view *w0 = g.weights;
  if (!w0) {
    if (sk_sp_view(&ones, "weights (ones)", SK_F64, na, espace, 0, err, errlen) < 0)
      goto done;
    sk_arg a[] = {sk_arg_view("w", &ones)};
    if (sk_sp_range(&k_lv_ones, na, a, 1, NULL, err, errlen) < 0) goto done;
    w0 = &ones;
  }
  L.rowptr = g.rowptr;
  L.colidx = g.colidx;
  L.wt = w0;
  L.nv = g.nv;
  L.lf = 2.0;
  for (int level = 0;; level++) {
    if (lv_degrees(&L, &S, err, errlen) < 0) goto done;
    if (!(S.two_m > 0)) break; /* no edges: every vertex its own community */
    int moved;
    if (lv_phase(&L, &S, level, &moved, err, errlen) < 0) goto done;
    if (!moved) break;
    /* the communities renumbered 0..K-1, the user's vertices mapped, and
     * the coarse graph: one arc per pair of communities (weights summed
     * in input order: deterministic), its diagonal the inside weight */
    sk_view cid, rows, cols, vals, rp, ci, va;
    sk_view *t2[] = {&cid, &rows, &cols, &vals};
    for (int t = 0; t < NELEM(t2); t++) memset(t2[t], 0, sizeof *t2[t]);
    int64_t K, narcs = 0;
    int bad = 1;
    if (sk_sp_get_i64(L.rowptr, L.nv, &narcs, err, errlen) < 0 ||
        sk_sp_view(&cid, "community ids", SK_I32, L.nv, space, 0, err, errlen) < 0 ||
        sk_gcomm_canon(&S.comm, L.nv, &cid, &K, err, errlen) < 0)
      goto level_done;
    {
      sk_arg a[] = {sk_arg_view("fin", &fin), sk_arg_view("cid", &cid)};
      if (sk_sp_range(&k_lv_map, g.nv, a, NELEM(a), NULL, err, errlen) < 0)
        goto level_done;
    }
    if (K == L.nv) {
      bad = 0;
      goto level_done;
    }
    if (sk_sp_view(&rows, "coarse rows", SK_I32, narcs, espace, 0, err, errlen) < 0 ||
        sk_sp_view(&cols, "coarse columns", SK_I32, narcs, espace, 0, err, errlen) < 0 ||
        sk_sp_view(&vals, "coarse weights", SK_F64, narcs, espace, 0, err, errlen) < 0)
      goto level_done;
    {
      sk_arg a[] = {sk_arg_view("rowptr", L.rowptr), sk_arg_view("colidx", L.colidx),
                    sk_arg_view("w", L.wt),          sk_arg_view("cid", &cid),
                    sk_arg_view("rows", &rows),      sk_arg_view("cols", &cols),
                    sk_arg_view("vals", &vals),      sk_arg_f64("lf", L.lf)};
      if (sk_galgo_degree_range(&k_lv_coo, L.nv, a, NELEM(a), NULL, err, errlen) < 0)
        goto level_done;
    }
    if (sk_sp_coo_to_csr(K, K, &rows, &cols, &vals, SK_F64, 1, 1, espace, &rp, &ci, &va,
                         err, errlen) < 0)
      goto level_done;
    sk_view_release(&L.rp);
    sk_view_release(&L.ci);
    sk_view_release(&L.w);
    L.rp = rp;
    L.ci = ci;
    L.w = va;
    L.rowptr = &L.rp;
    L.colidx = &L.ci;
    L.wt = &L.w;
    L.nv = K;
    L.lf = 1.0;
    bad = -1;
  level_done:
    for (int t = 0; t < NELEM(t2); t++) sk_view_release(t2[t]);
    if (bad == 1) goto done;
    if (bad == 0) break;
  }
  /* the modularity of the final partition on the user's graph */
  L.rowptr = g.rowptr;
  L.colidx = g.colidx;
  L.wt = w0;
  L.nv = g.nv;
  L.lf = 2.0;
  if (lv_degrees(&L, &S, err, errlen) < 0) goto done;
  if (S.two_m > 0 && (lv_totals(&L, &S, &fin, err, errlen) < 0 ||
                      lv_modularity(&L, &S, &fin, &q, err, errlen) < 0))
    goto done;
  if (sk_gcomm_canon(&fin, g.nv, &res, &ncomm, err, errlen) < 0) goto done;
ok:
  if (sk_kout_num(out, "q", q, err, errlen) < 0 ||
      sk_kout_num(out, "ncomm", (double)ncomm, err, errlen) < 0 ||
      sk_kout_view(out, "comm", &res, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  free(S.off);
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  return rc;
}

const sk_kentry sk_gcomm_louvain = {"graph.louvain", "G_* [, seed, resolution]",
                                    SK_KRES_NONE, louvain};

const sk_kbody *const sk_glouvain_bodies[] = {
  &k_lv_wcheck, &k_lv_ones, &k_lv_iota, &k_lv_deg, &k_lv_init, &k_lv_zero,
  &k_lv_stot,   &k_lv_q,    &k_lv_move, &k_lv_apply, &k_lv_coo, &k_lv_map, NULL};

/* -- the family's list (comm.h) --------------------------------------------------- */
const sk_kentry *const sk_gcomm_entries[] = {&sk_gcomm_kcore, &sk_gcomm_scc, &sk_gcomm_wcc,
                                             &sk_gcomm_louvain, &sk_gcomm_lpa, NULL};
