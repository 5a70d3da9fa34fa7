/* sssp.c: graph.sssp: single-source shortest paths by delta-stepping
 * (Meyer and Sanders; GAP's sssp.cc) or Bellman-Ford, bucket-synchronous
 * with the frontiers in device memory on every back end. Bodies: sssp.sk.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- delta-stepping ------------------------------------------------------------
 * dist(v) starts at infinity (int64: INT64_MAX), dist(source) = 0. Bucket
 * k holds the vertices whose distance is in [k delta, (k + 1) delta). The
 * current bucket b is worked in rounds: each round relaxes every arc of
 * the frontier q; a vertex lowered into bucket b joins the next frontier,
 * one lowered past it joins the pile of later buckets (GAP keeps one bin a
 * bucket a thread; here one pile in device memory, its entries' buckets
 * read from dist when the bucket is chosen). When b's frontier is empty,
 * the next bucket is the smallest bucket of a pile entry past b; the
 * entries of that bucket become the frontier, those past it a compacted
 * pile, those at or below b (lowered since, and settled) are dropped.
 * Every arc is relaxed (GAP's choice: no light/heavy split, whose extra
 * pass costs more than the few heavy relaxations it saves on graphs of
 * short weights). A vertex enters the frontier and the pile at most once
 * a round (stamps nmark, pmark), so a round adds at most nv entries to the
 * pile: a pile of 2 nv entries compacted when it could overflow never does.
 *
 * Bellman-Ford is the same loop with one bucket (delta = the largest
 * distance): rounds until no distance falls; a frontier still active after
 * nv rounds means a negative cycle reachable from the source. */
enum { KIND_I, KIND_U, KIND_F }; /* int weights, none (1), float weights */

#define SIG_VS R1("nmark", "int32") R1("pmark", "int32")
static const char *const sig_init[] = {
  "range" R1("dist", "int64") SIG_VS " inf=int64",
  "range" R1("dist", "float64") SIG_VS " inf=float64", NULL};
static const sk_kbody k_init = {.label = "graph.sssp_init",
                                .body = sk_body_graph_sssp_init,
                                .pattern = SK_FOR,
                                .sigs = sig_init};
static const char *const sig_seed[] = {
  "range" R1("dist", "int64") R1("nmark", "int32") R1("q", "int32") R1("cnt", "int64")
    " s=int64",
  "range" R1("dist", "float64") R1("nmark", "int32") R1("q", "int32") R1("cnt", "int64")
    " s=int64",
  NULL};
static const sk_kbody k_seed = {.label = "graph.sssp_seed",
                                .body = sk_body_graph_sssp_seed,
                                .pattern = SK_FOR,
                                .sigs = sig_seed};
static const char *const sig_setc[] = {"range" R1("cnt", "int64") " c0=int64 c1=int64",
                                       NULL};
static const sk_kbody k_setc = {.label = "graph.sssp_set_counts",
                                .body = sk_body_graph_sssp_set_counts,
                                .pattern = SK_FOR,
                                .sigs = sig_setc};

#define RELAX_TAIL \
  R1("nmark", "int32") R1("pmark", "int32") R1("q", "int32") R1("nq", "int32") \
    R1("pile", "int32") R1("cnt", "int64")
static const char *const sig_relax_i[] = {
  "range" G3 R1("w", "int32") R1("dist", "int64") RELAX_TAIL " delta=int64 b=int64 r=int64",
  "range" G3 R1("w", "int64") R1("dist", "int64") RELAX_TAIL " delta=int64 b=int64 r=int64",
  NULL};
static const char *const sig_relax_u[] = {
  "range" G3 R1("dist", "int64") RELAX_TAIL " delta=int64 b=int64 r=int64", NULL};
static const char *const sig_relax_f[] = {"range" G3 R1("w", "float64") R1(
                                            "dist", "float64") RELAX_TAIL
                                          " delta=float64 b=int64 r=int64",
                                          NULL};
static const sk_kbody k_relax[3] = {{.label = "graph.sssp_relax_i",
                                     .body = sk_body_graph_sssp_relax_i,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_relax_i,
                                     .reds = "sum:int64"},
                                    {.label = "graph.sssp_relax_u",
                                     .body = sk_body_graph_sssp_relax_u,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_relax_u,
                                     .reds = "sum:int64"},
                                    {.label = "graph.sssp_relax_f",
                                     .body = sk_body_graph_sssp_relax_f,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_relax_f,
                                     .reds = "sum:int64"}};

static const char *const sig_minb_i[] = {
  "range" R1("dist", "int64") R1("pile", "int32") " delta=int64 b=int64", NULL};
static const char *const sig_minb_f[] = {
  "range" R1("dist", "float64") R1("pile", "int32") " delta=float64 b=int64", NULL};
static const sk_kbody k_minb[2] = {{.label = "graph.sssp_min_bucket_i",
                                    .body = sk_body_graph_sssp_min_bucket_i,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_minb_i,
                                    .reds = "min:int64"},
                                   {.label = "graph.sssp_min_bucket_f",
                                    .body = sk_body_graph_sssp_min_bucket_f,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_minb_f,
                                    .reds = "min:int64"}};

#define SPLIT_TAIL \
  R1("nmark", "int32") R1("pmark", "int32") R1("q", "int32") R1("pile", "int32") \
    R1("pile2", "int32") R1("cnt", "int64")
static const char *const sig_split_i[] = {"range" R1("rowptr", "int64") R1(
                                            "dist", "int64") SPLIT_TAIL
                                          " delta=int64 b=int64 bsel=int64 r=int64",
                                          NULL};
static const char *const sig_split_f[] = {"range" R1("rowptr", "int64") R1(
                                            "dist", "float64") SPLIT_TAIL
                                          " delta=float64 b=int64 bsel=int64 r=int64",
                                          NULL};
static const sk_kbody k_split[2] = {{.label = "graph.sssp_split_i",
                                     .body = sk_body_graph_sssp_split_i,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_split_i,
                                     .reds = "sum:int64"},
                                    {.label = "graph.sssp_split_f",
                                     .body = sk_body_graph_sssp_split_f,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_split_f,
                                     .reds = "sum:int64"}};

#define PRED_TAIL R1("pred", "int64") " inf=int64 s=int64"
static const char *const sig_pred_i[] = {
  "range" G3 R1("w", "int32") R1("dist", "int64") PRED_TAIL,
  "range" G3 R1("w", "int64") R1("dist", "int64") PRED_TAIL, NULL};
static const char *const sig_pred_u[] = {"range" G3 R1("dist", "int64") PRED_TAIL, NULL};
static const char *const sig_pred_f[] = {"range" G3 R1("w", "float64") R1("dist", "float64")
                                           R1("pred", "int64") " inf=float64 s=int64",
                                         NULL};
static const sk_kbody k_pred[3] = {{.label = "graph.sssp_pred_i",
                                    .body = sk_body_graph_sssp_pred_i,
                                    .pattern = SK_FOR,
                                    .sigs = sig_pred_i},
                                   {.label = "graph.sssp_pred_u",
                                    .body = sk_body_graph_sssp_pred_u,
                                    .pattern = SK_FOR,
                                    .sigs = sig_pred_u},
                                   {.label = "graph.sssp_pred_f",
                                    .body = sk_body_graph_sssp_pred_f,
                                    .pattern = SK_FOR,
                                    .sigs = sig_pred_f}};
static const char *const sig_pred_init[] = {"range" R1("pred", "int64"), NULL};
static const sk_kbody k_pred_init = {.label = "graph.sssp_pred_init",
                                     .body = sk_body_graph_sssp_pred_init,
                                     .pattern = SK_FOR,
                                     .sigs = sig_pred_init};

static const char *const sig_wrange_i[] = {"range" R1("w", "int32"), "range" R1("w", "int64"),
                                           NULL};
static const char *const sig_wrange_f[] = {"range" R1("w", "float64"), NULL};
static const sk_kbody k_wrange[2] = {{.label = "graph.sssp_wrange_i",
                                      .body = sk_body_graph_sssp_wrange_i,
                                      .pattern = SK_REDUCE,
                                      .sigs = sig_wrange_i,
                                      .reds = "min:int64 max:int64"},
                                     {.label = "graph.sssp_wrange_f",
                                      .body = sk_body_graph_sssp_wrange_f,
                                      .pattern = SK_REDUCE,
                                      .sigs = sig_wrange_f,
                                      .reds = "min:float64 max:float64"}};
static const char *const sig_fneg[] = {"range" R1("w", "int32"), "range" R1("w", "int64"),
                                       "range" R1("w", "float64"), NULL};
static const sk_kbody k_fneg = {.label = "graph.sssp_first_negative",
                                .body = sk_body_graph_sssp_first_negative,
                                .pattern = SK_REDUCE,
                                .sigs = sig_fneg,
                                .reds = "min:int64"};

/* -- the loop ------------------------------------------------------------------ */
typedef struct sssp_state {
  const sk_graph *g;
  const sk_view *w; /* NULL: unweighted */
  int kind;         /* KIND_* */
  int64_t idelta;   /* the bucket width (integer kinds) */
  double fdelta;    /* (float kind) */
  sk_view *dist, *nmark, *pmark, *q, *nq, *pile, *pile2, *cnt;
} sssp_state;

static sk_arg delta_arg(const sssp_state *st) {
  return st->kind == KIND_F ? sk_arg_f64("delta", st->fdelta)
                            : sk_arg_i64("delta", st->idelta);
}

static int set_counts(const sssp_state *st, int64_t c0, int64_t c1, char *err,
                      size_t errlen) {
  sk_arg a[] = {sk_arg_view("cnt", st->cnt), sk_arg_i64("c0", c0), sk_arg_i64("c1", c1)};
  return sk_sp_range(&k_setc, 1, a, NELEM(a), NULL, err, errlen);
}

/* pile entries of bucket 'bsel' to the frontier (bsel -1: none), those
 * past 'b' to a new pile; '*qn', '*pn', '*farcs' the new sizes and the
 * frontier's arcs */
static int split(sssp_state *st, int64_t pn, int64_t b, int64_t bsel, int64_t r,
                 int64_t *qn, int64_t *npn, int64_t *farcs, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", st->g->rowptr),
                sk_arg_view("dist", st->dist),
                sk_arg_view("nmark", st->nmark),
                sk_arg_view("pmark", st->pmark),
                sk_arg_view("q", st->q),
                sk_arg_view("pile", st->pile),
                sk_arg_view("pile2", st->pile2),
                sk_arg_view("cnt", st->cnt),
                delta_arg(st),
                sk_arg_i64("b", b),
                sk_arg_i64("bsel", bsel),
                sk_arg_i64("r", r)};
  sk_result res;
  if (set_counts(st, 0, 0, err, errlen) < 0 ||
      sk_sp_range(&k_split[st->kind == KIND_F], pn, a, NELEM(a), &res, err, errlen) < 0 ||
      sk_sp_get_i64(st->cnt, 0, qn, err, errlen) < 0 ||
      sk_sp_get_i64(st->cnt, 1, npn, err, errlen) < 0)
    return -1;
  *farcs = sk_result_i64(&res, 0);
  sk_view t = *st->pile;
  *st->pile = *st->pile2;
  *st->pile2 = t;
  return 0;
}

/* the search from the seeded frontier; 'bf': Bellman-Ford (one bucket,
 * negative cycles detected) from 'source' */
static int sssp_loop(sssp_state *st, int bf, int64_t source, char *err, size_t errlen) {
  const sk_graph *g = st->g;
  const int64_t nv = g->nv, cap = 2 * nv;
  int64_t qn = 1, pn = 0, b = 0, r = 0, farcs = 0, rounds = 0;
  if (sk_sp_get_i64(g->rowptr, source + 1, &farcs, err, errlen) < 0) return -1;
  {
    int64_t r0;
    if (sk_sp_get_i64(g->rowptr, source, &r0, err, errlen) < 0) return -1;
    farcs -= r0;
  }
  for (;;) {
    while (qn > 0) {
      if (bf && rounds >= nv) {
        sk_err(err, errlen, SK_E_SSSP_NEGATIVE_CYCLE, (long long)source);
        return -1;
      }
      /* a round adds at most min(farcs, nv) pile entries */
      if (pn + (farcs < nv ? farcs : nv) > cap) {
        int64_t q0, f0;
        if (split(st, pn, b, -1, ++r, &q0, &pn, &f0, err, errlen) < 0) return -1;
      }
      r++;
      rounds++;
      int na = 0;
      sk_arg a[16];
      a[na++] = sk_arg_view("rowptr", g->rowptr);
      a[na++] = sk_arg_view("colidx", g->colidx);
      if (st->w) a[na++] = sk_arg_view("w", st->w);
      a[na++] = sk_arg_view("dist", st->dist);
      a[na++] = sk_arg_view("nmark", st->nmark);
      a[na++] = sk_arg_view("pmark", st->pmark);
      a[na++] = sk_arg_view("q", st->q);
      a[na++] = sk_arg_view("nq", st->nq);
      a[na++] = sk_arg_view("pile", st->pile);
      a[na++] = sk_arg_view("cnt", st->cnt);
      a[na++] = delta_arg(st);
      a[na++] = sk_arg_i64("b", b);
      a[na++] = sk_arg_i64("r", r);
      sk_result res;
      if (set_counts(st, 0, pn, err, errlen) < 0 ||
          sk_galgo_degree_range(&k_relax[st->kind], qn, a, na, &res, err, errlen) < 0 ||
          sk_sp_get_i64(st->cnt, 0, &qn, err, errlen) < 0 ||
          sk_sp_get_i64(st->cnt, 1, &pn, err, errlen) < 0)
        return -1;
      farcs = sk_result_i64(&res, 0);
      sk_view t = *st->q;
      *st->q = *st->nq;
      *st->nq = t;
    }
    if (pn == 0) break;
    /* the next bucket: the smallest of a pile entry past b */
    sk_arg a[] = {sk_arg_view("dist", st->dist), sk_arg_view("pile", st->pile),
                  delta_arg(st), sk_arg_i64("b", b)};
    sk_result res;
    if (sk_sp_range(&k_minb[st->kind == KIND_F], pn, a, NELEM(a), &res, err, errlen) < 0)
      return -1;
    const int64_t bsel = sk_result_i64(&res, 0);
    if (bsel == INT64_MAX) break; /* every entry settled */
    if (split(st, pn, b, bsel, ++r, &qn, &pn, &farcs, err, errlen) < 0) return -1;
    b = bsel;
  }
  return 0;
}

/* the first arc of negative (or NaN) weight as the message */
static int negative_weight(const sk_graph *g, const sk_view *w, int64_t k, char *err,
                           size_t errlen) {
  int64_t lo = 0, hi = g->nv; /* the row u with rowptr(u) <= k < rowptr(u + 1) */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    int64_t x;
    if (sk_sp_get_i64(g->rowptr, mid, &x, err, errlen) < 0) return -1;
    if (x <= k)
      lo = mid;
    else
      hi = mid;
  }
  int64_t v;
  char ws[64];
  if (sk_sp_get_i64(g->colidx, k, &v, err, errlen) < 0) return -1;
  if (w->dtype == SK_F64) {
    double x;
    if (sk_sp_get_f64(w, k, &x, err, errlen) < 0) return -1;
    snprintf(ws, sizeof ws, "%.17g", x);
  } else {
    int64_t x;
    if (sk_sp_get_i64(w, k, &x, err, errlen) < 0) return -1;
    snprintf(ws, sizeof ws, "%lld", (long long)x);
  }
  sk_err(err, errlen, SK_E_SSSP_NEGATIVE_WEIGHT, (long long)lo, (long long)v, ws);
  return -1;
}

/* the bucket width: 'delta' given, or the automatic rule -- the largest
 * weight over the mean out-degree (Meyer and Sanders' Theta(1 / degree)
 * for weights scaled to [0, 1]): a vertex's arcs then put about one
 * neighbour a bucket; integer weights: rounded up, at least 1 */
static int choose_delta(sssp_state *st, const sk_arg *darg, char *err, size_t errlen) {
  const sk_graph *g = st->g;
  char xs[64];
  if (darg) {
    double d;
    if (sk_karg_f64(darg, 1, darg->name, &d, err, errlen) < 0) return -1;
    snprintf(xs, sizeof xs, "%.17g", d);
    if (st->kind == KIND_F) {
      if (!(d > 0) || !isfinite(d)) {
        sk_err(err, errlen, SK_E_SSSP_DELTA_FLOAT, xs);
        return -1;
      }
      st->fdelta = d;
    } else {
      if (!(d >= 1) || d != floor(d) || d > 9.2e18) {
        sk_err(err, errlen, SK_E_SSSP_DELTA_INT, xs);
        return -1;
      }
      st->idelta = (int64_t)d;
    }
    return 0;
  }
  const double deg = g->nv > 0 ? (double)g->narcs / (double)g->nv : 1;
  if (!st->w || g->narcs == 0) {
    st->idelta = 1;
    st->fdelta = 1;
    return 0;
  }
  sk_arg a[] = {sk_arg_view("w", st->w)};
  sk_result res;
  if (sk_sp_range(&k_wrange[st->kind == KIND_F], g->narcs, a, 1, &res, err, errlen) < 0)
    return -1;
  if (st->kind == KIND_F) {
    const double mx = sk_result_f64(&res, 1);
    st->fdelta = mx > 0 && isfinite(mx) ? mx / (deg > 1 ? deg : 1) : 1;
  } else {
    const int64_t mx = sk_result_i64(&res, 1);
    const double d = ceil((double)mx / (deg > 1 ? deg : 1));
    st->idelta = d >= 1 ? (int64_t)d : 1;
  }
  return 0;
}

/* graph.sssp: G_*, source [, delta, predecessors, algorithm] -> dist
 * (int64 for integer or no weights, float64 for float weights), pred
 * (int64) with predecessors */
static int sssp(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr",     "G_colidx",  "G_weights",
                                      "directed",     "source",    "delta",
                                      "predecessors", "algorithm", NULL};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0) return -1;
  /* the graph without its weights (any of three dtypes here) */
  sk_arg ga[16];
  int nga = 0;
  for (int k = 0; k < nargs && nga < 16; k++)
    if (strcmp(args[k].name, "G_weights") != 0) ga[nga++] = args[k];
  sk_graph g;
  const sk_view *w = NULL;
  int64_t source;
  int preds;
  const char *alg;
  if (sk_g_arg(ga, nga, &g, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "G_weights") &&
       !(w = sk_karg_view(args, nargs, "G_weights", 1, err, errlen))) ||
      sk_karg_i64(args, nargs, "source", 0, 0, &source, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "predecessors", 0, &preds, err, errlen) < 0 ||
      !(alg = sk_karg_str(args, nargs, "algorithm", "delta", err, errlen)))
    return -1;
  if (w && ((w->dtype != SK_I32 && w->dtype != SK_I64 && w->dtype != SK_F64) ||
            w->extent[0] != g.narcs)) {
    sk_err(err, errlen, SK_E_SSSP_WEIGHTS_MUST, (long long)g.narcs,
           sk_dtypes[w->dtype].name, (long long)w->extent[0]);
    return -1;
  }
  const int bf = strcmp(alg, "bellman_ford") == 0;
  if (!bf && strcmp(alg, "delta") != 0) {
    sk_err(err, errlen, SK_E_SSSP_ALGORITHM, alg);
    return -1;
  }
  if (source < 0 || source >= g.nv) {
    sk_err(err, errlen, SK_E_SOURCE_NOT_VERTEX, (long long)source, (long long)g.nv,
           (long long)g.nv - 1);
    return -1;
  }
  sssp_state st;
  memset(&st, 0, sizeof st);
  st.g = &g;
  st.w = w;
  st.kind = !w ? KIND_U : w->dtype == SK_F64 ? KIND_F : KIND_I;
  const sk_arg *darg = sk_karg_find(args, nargs, "delta");
  if (bf) {
    st.idelta = INT64_MAX;
    st.fdelta = DBL_MAX;
  } else {
    if (darg && choose_delta(&st, darg, err, errlen) < 0) return -1;
    if (w && g.narcs > 0) {
      sk_arg a[] = {sk_arg_view("w", w)};
      sk_result res;
      if (sk_sp_range(&k_fneg, g.narcs, a, 1, &res, err, errlen) < 0) return -1;
      const int64_t k = sk_result_i64(&res, 0);
      if (k != INT64_MAX) return negative_weight(&g, w, k, err, errlen);
    }
    if (!darg && choose_delta(&st, NULL, err, errlen) < 0) return -1;
  }
  const int64_t nv = g.nv;
  const int space = g.rowptr->space, fl = st.kind == KIND_F;
  int rc = -1;
  sk_view dist, nmark, pmark, q, nq, pile, pile2, cnt, pred;
  sk_view *all[] = {&dist, &nmark, &pmark, &q, &nq, &pile, &pile2, &cnt, &pred};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&dist, "dist", fl ? SK_F64 : SK_I64, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nmark, "frontier stamps", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pmark, "pile stamps", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&q, "frontier", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nq, "next frontier", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pile, "pile", SK_I32, 2 * nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pile2, "pile", SK_I32, 2 * nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt, "counts", SK_I64, 2, space, 1, err, errlen) < 0)
    goto done;
  st.dist = &dist;
  st.nmark = &nmark;
  st.pmark = &pmark;
  st.q = &q;
  st.nq = &nq;
  st.pile = &pile;
  st.pile2 = &pile2;
  st.cnt = &cnt;
  {
    sk_arg a[] = {sk_arg_view("dist", &dist), sk_arg_view("nmark", &nmark),
                  sk_arg_view("pmark", &pmark),
                  fl ? sk_arg_f64("inf", HUGE_VAL) : sk_arg_i64("inf", INT64_MAX)};
    sk_arg s[] = {sk_arg_view("dist", &dist), sk_arg_view("nmark", &nmark),
                  sk_arg_view("q", &q), sk_arg_view("cnt", &cnt),
                  sk_arg_i64("s", source)};
    if (sk_sp_range(&k_init, nv, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_seed, 1, s, NELEM(s), NULL, err, errlen) < 0)
      goto done;
  }
  if (sssp_loop(&st, bf, source, err, errlen) < 0) goto done;
  if (preds) {
    if (sk_sp_view(&pred, "pred", SK_I64, nv, space, 0, err, errlen) < 0) goto done;
    int na = 0;
    sk_arg a[8];
    a[na++] = sk_arg_view("rowptr", g.rowptr);
    a[na++] = sk_arg_view("colidx", g.colidx);
    if (w) a[na++] = sk_arg_view("w", w);
    a[na++] = sk_arg_view("dist", &dist);
    a[na++] = sk_arg_view("pred", &pred);
    a[na++] = fl ? sk_arg_f64("inf", HUGE_VAL) : sk_arg_i64("inf", INT64_MAX);
    a[na++] = sk_arg_i64("s", source);
    sk_arg p[] = {sk_arg_view("pred", &pred)};
    if (sk_sp_range(&k_pred_init, nv, p, 1, NULL, err, errlen) < 0 ||
        sk_galgo_degree_range(&k_pred[st.kind], nv, a, na, NULL, err, errlen) < 0)
      goto done;
  }
  if (sk_kout_view(out, "dist", &dist, err, errlen) < 0 ||
      (preds && sk_kout_view(out, "pred", &pred, err, errlen) < 0) ||
      (!bf &&
       sk_kout_num(out, "delta", fl ? st.fdelta : (double)st.idelta, err, errlen) < 0))
    goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- registration ------------------------------------------------------------ */
const sk_kentry sk_galgo_sssp = {
  "graph.sssp", "G_*, source [, delta, predecessors, algorithm]", SK_KRES_NONE, sssp};

const sk_kbody *const sk_gsssp_bodies[] = {
  &k_init,     &k_seed,     &k_setc,     &k_relax[0], &k_relax[1], &k_relax[2],
  &k_minb[0],  &k_minb[1],  &k_split[0], &k_split[1], &k_pred[0],  &k_pred[1],
  &k_pred[2],  &k_pred_init, &k_wrange[0], &k_wrange[1], &k_fneg,   NULL};
