/* bc.c: graph.betweenness: betweenness centrality by Brandes' algorithm
 * (unweighted: shortest paths count arcs, as GAP's bc.cc), level-
 * synchronous on every back end with the levels in device memory. Bodies:
 * bc.sk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- Brandes ---------------------------------------------------------------
 * For each source s in turn: a breadth-first search by levels appends the
 * vertices to 'order' level after level (the level starts kept here) and
 * counts the shortest paths sigma(v) (pushed along the arcs into the next
 * level, atomically); then the levels backwards from the last but one,
 * each vertex u pulling delta(u) = sum over its successors v of
 * sigma(u) / sigma(v) (1 + delta(v)) -- no atomics -- and adding it to
 * bc(u) ('delta' keeps each vertex's term (1 + delta(v)) / sigma(v), made
 * once a vertex, the last level's by k_leaves, in two rows of nv by the
 * level's parity: see bc_backward). The vertices reached are reset from
 * 'order' for the next source.
 * The sum over sources is then scaled as NetworkX's betweenness_centrality
 * (and betweenness_centrality_subset, the same factor): normalized,
 * 1 / ((n - 1)(n - 2)) (n > 2); not normalized, 1/2 on an undirected
 * graph (each pair was counted from both ends), 1 on a directed one. */
static const char *const sig_init[] = {
  "range" R1("depth", "int32") R1("sigma", "float64") R1("delta", "float64") " nv=int64",
  NULL};
static const sk_kbody k_init = {.label = "graph.bc_init",
                                .body = sk_body_graph_bc_init,
                                .pattern = SK_FOR,
                                .sigs = sig_init};
static const char *const sig_seed[] = {"range" R1("depth", "int32") R1("sigma", "float64")
                                         R1("order", "int32") R1("cnt", "int64") " s=int64",
                                       NULL};
static const sk_kbody k_seed = {.label = "graph.bc_seed",
                                .body = sk_body_graph_bc_seed,
                                .pattern = SK_FOR,
                                .sigs = sig_seed};
static const char *const sig_fwd[] = {"range" G3 R1("depth", "int32") R1("sigma", "float64")
                                        R1("order", "int32") R1("cnt", "int64")
                                          " lb=int64 l=int64",
                                      NULL};
static const sk_kbody k_fwd = {.label = "graph.bc_forward",
                               .body = sk_body_graph_bc_forward,
                               .pattern = SK_REDUCE,
                               .sigs = sig_fwd,
                               .reds = "sum:int64"};
/* the host's bottom-up level: 64 vertices a work item */
static const char *const sig_fwd_pull[] = {
  "range" G3 R1("depth", "int32") R1("sigma", "float64") R1("order", "int32")
    R1("cnt", "int64") " l=int64 nv=int64",
  NULL};
static const sk_kbody k_fwd_pull = {.label = "graph.bc_forward_pull",
                                    .body = sk_body_graph_bc_forward_pull,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_fwd_pull,
                                    .reds = "sum:int64"};
/* the device's: a warp a vertex (teams of 8), its arcs over the lanes;
 * a heavy vertex's pieces (hd arcs) a team each */
static const char *const sig_fwd_dev[] = {
  "team" G3 R1("depth", "int32") R1("sigma", "float64") R1("order", "int32")
    R1("cnt", "int64") R1("heavy", "int32") " lb=int64 l=int64 n=int64 hd=int64 hc=int64",
  NULL};
static const char *const sig_fwd_heavy[] = {
  "team" G3 R1("depth", "int32") R1("sigma", "float64") R1("order", "int32")
    R1("cnt", "int64") R1("heavy", "int32") " l=int64 hd=int64 hc=int64",
  NULL};
static const sk_kbody k_fwd_heavy = {.label = "graph.bc_forward_heavy",
                                     .body = sk_body_graph_bc_forward_heavy,
                                     .pattern = SK_FOR,
                                     .sigs = sig_fwd_heavy};
static const sk_kbody k_fwd_dev = {.label = "graph.bc_forward_dev",
                                   .body = sk_body_graph_bc_forward_dev,
                                   .pattern = SK_FOR,
                                   .sigs = sig_fwd_dev};
static const char *const sig_bwd[] = {
  "range" G3 R1("sigma", "float64") R1("delta", "float64") R1("order", "int32")
    R1("bc", "float64") " lb=int64 s=int64 ro=int64 wo=int64",
  NULL};
static const sk_kbody k_bwd = {.label = "graph.bc_backward",
                               .body = sk_body_graph_bc_backward,
                               .pattern = SK_FOR,
                               .sigs = sig_bwd};
static const char *const sig_bwd_dev[] = {
  "team" G3 R1("sigma", "float64") R1("delta", "float64") R1("order", "int32")
    R1("bc", "float64") R1("cnt", "int64") R1("heavy", "int32")
      " lb=int64 s=int64 ro=int64 wo=int64 n=int64 hd=int64 hc=int64",
  NULL};
static const char *const sig_bwd_heavy[] = {
  "team" G3 R1("delta", "float64") R1("cnt", "int64") R1("heavy", "int32")
    R1("hsum", "float64") " ro=int64 hd=int64 hc=int64",
  NULL};
static const sk_kbody k_bwd_heavy = {.label = "graph.bc_backward_heavy",
                                     .body = sk_body_graph_bc_backward_heavy,
                                     .pattern = SK_FOR,
                                     .sigs = sig_bwd_heavy};
static const char *const sig_bwd_hend[] = {
  "range" R1("sigma", "float64") R1("delta", "float64") R1("bc", "float64")
    R1("cnt", "int64") R1("heavy", "int32") R1("hsum", "float64")
      " s=int64 wo=int64 hc=int64 m=int64",
  NULL};
static const sk_kbody k_bwd_hend = {.label = "graph.bc_backward_heavy_end",
                                    .body = sk_body_graph_bc_backward_heavy_end,
                                    .pattern = SK_FOR,
                                    .sigs = sig_bwd_hend};
static const sk_kbody k_bwd_dev = {.label = "graph.bc_backward_dev",
                                   .body = sk_body_graph_bc_backward_dev,
                                   .pattern = SK_FOR,
                                   .sigs = sig_bwd_dev};
/* the last level's terms (bc_backward keeps a vertex's term, not its
 * dependency, in 'delta') */
static const char *const sig_leaves[] = {
  "range" R1("order", "int32") R1("sigma", "float64") R1("delta", "float64")
    " lb=int64 wo=int64",
  NULL};
static const sk_kbody k_leaves = {.label = "graph.bc_leaves",
                                  .body = sk_body_graph_bc_leaves,
                                  .pattern = SK_FOR,
                                  .sigs = sig_leaves};
static const char *const sig_reset[] = {"range" R1("order", "int32") R1("depth", "int32")
                                          R1("sigma", "float64") R1("delta", "float64")
                                            " nv=int64",
                                        NULL};
static const sk_kbody k_reset = {.label = "graph.bc_reset",
                                 .body = sk_body_graph_bc_reset,
                                 .pattern = SK_FOR,
                                 .sigs = sig_reset};
static const char *const sig_scale[] = {"range" R1("bc", "float64") " f=float64", NULL};
static const sk_kbody k_scale = {.label = "graph.bc_scale",
                                 .body = sk_body_graph_bc_scale,
                                 .pattern = SK_FOR,
                                 .sigs = sig_scale};

/* -- many sources on the host --------------------------------------------------
 * With many sources (every vertex, say) the levels of one search are too
 * small to share among threads, and their launches cost more than their
 * work: L slots (four a thread) each run whole searches, one source after
 * another (sources i, i + L, ...), in their own rows of L x nv arrays,
 * adding into their own row of 'part'; bc(v) is then the sum of v's
 * column in slot order (the same for a thread count, no atomics). Used
 * on the host when there are at least 2 L sources and the rows take at
 * most 1 GiB. */
#define R2(name, dt) " " name "=" dt "[2]"
static const char *const sig_bysrc[] = {
  "range" G3 R2("dep", "int32") R2("sig", "float64") R2("del", "float64")
    R2("que", "int32") R2("part", "float64") R1("srcs", "int64") " ns=int64 all=int64",
  NULL};
static const sk_kbody k_bysrc = {.label = "graph.bc_by_source",
                                 .body = sk_body_graph_bc_by_source,
                                 .pattern = SK_FOR,
                                 .sigs = sig_bysrc};
static const char *const sig_sum_parts[] = {
  "range" R2("part", "float64") R1("bc", "float64") " f=float64", NULL};
static const sk_kbody k_sum_parts = {.label = "graph.bc_sum_parts",
                                     .body = sk_body_graph_bc_sum_parts,
                                     .pattern = SK_FOR,
                                     .sigs = sig_sum_parts};
static const char *const sig_init_slots[] = {
  "range" R2("dep", "int32") R2("sig", "float64") R2("del", "float64") R2("part", "float64"),
  NULL};
static const sk_kbody k_init_slots = {.label = "graph.bc_init_slots",
                                      .body = sk_body_graph_bc_init_slots,
                                      .pattern = SK_FOR,
                                      .sigs = sig_init_slots};

/* the slots' rows: 'rows' rows of nv each (queues only with 'que'), and
 * an empty source list 'none' where no sources view is given */
typedef struct bc_slots {
  sk_view dep, sig, del, que, part, none;
} bc_slots;

static void bc_slots_release(bc_slots *s) {
  sk_view *all[] = {&s->dep, &s->sig, &s->del, &s->que, &s->part, &s->none};
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
}

static int bc_slots_make(bc_slots *s, const sk_graph *g, int64_t rows, int que, int none,
                         char *err, size_t errlen) {
  const int64_t ext[2] = {rows, g->nv > 0 ? g->nv : 1};
  const int space = g->rowptr->space;
  memset(s, 0, sizeof *s);
  if (sk_view_create(&s->dep, "depths", SK_I32, 2, ext, SK_RIGHT, space, 0, NULL, err,
                     errlen) < 0 ||
      sk_view_create(&s->sig, "path counts", SK_F64, 2, ext, SK_RIGHT, space, 0, NULL, err,
                     errlen) < 0 ||
      sk_view_create(&s->del, "dependencies", SK_F64, 2, ext, SK_RIGHT, space, 0, NULL, err,
                     errlen) < 0 ||
      (que && sk_view_create(&s->que, "queues", SK_I32, 2, ext, SK_RIGHT, space, 0, NULL, err,
                             errlen) < 0) ||
      sk_view_create(&s->part, "parts", SK_F64, 2, ext, SK_RIGHT, space, 0, NULL, err,
                     errlen) < 0 ||
      (none && sk_sp_view(&s->none, "sources", SK_I64, 1, space, 1, err, errlen) < 0)) {
    bc_slots_release(s);
    return -1;
  }
  return 0;
}

/* bc (nv, zeroed) = f x the sum over sources hs[0..ns) (NULL: 0..ns-1)
 * of their dependencies, 'nsl' slots */
static int bc_by_source(const sk_graph *g, const sk_view *hsrc, int64_t ns, int64_t nsl,
                        double f, sk_view *bc, char *err, size_t errlen) {
  const int64_t nv = g->nv;
  bc_slots sl;
  if (bc_slots_make(&sl, g, nsl, 1, !hsrc, err, errlen) < 0) return -1;
  sk_view *dep = &sl.dep, *sig = &sl.sig, *del = &sl.del, *que = &sl.que, *part = &sl.part;
  int rc = -1;
  {
    sk_arg a[] = {sk_arg_view("dep", dep), sk_arg_view("sig", sig),
                  sk_arg_view("del", del), sk_arg_view("part", part)};
    sk_arg b[] = {sk_arg_view("rowptr", g->rowptr),
                  sk_arg_view("colidx", g->colidx),
                  sk_arg_view("dep", dep),
                  sk_arg_view("sig", sig),
                  sk_arg_view("del", del),
                  sk_arg_view("que", que),
                  sk_arg_view("part", part),
                  sk_arg_view("srcs", hsrc ? hsrc : &sl.none),
                  sk_arg_i64("ns", ns),
                  sk_arg_i64("all", !hsrc)};
    sk_arg c[] = {sk_arg_view("part", part), sk_arg_view("bc", bc), sk_arg_f64("f", f)};
    if (sk_sp_range(&k_init_slots, nv, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_galgo_degree_range_chunk(&k_bysrc, nsl, 1, b, NELEM(b), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_sum_parts, nv, c, NELEM(c), NULL, err, errlen) < 0)
      goto done;
  }
  rc = 0;
done:
  bc_slots_release(&sl);
  return rc;
}

/* -- many sources on the device --------------------------------------------------
 * A device's searches of one source launch a few kernels and read one
 * count a level: on a small graph, launches and reads are all there is.
 * With many sources, B of them (B rows of nv, at most 2^24 entries) run
 * level by level together: a level is one launch over B x nv work items
 * and one count, then the levels backwards, one launch each; bc(v) adds
 * the slots' dependencies in slot order (the same sums for any thread
 * count). Taken on a device (or with device_bodies) for at least two
 * sources on a graph of at most 65,536 vertices, or with by_source = 1;
 * by_source = 0 keeps one search a source. */
static const char *const sig_mfwd[] = {
  "range" G3 R2("dep", "int32") R2("sig", "float64") " nv=int64 l=int64", NULL};
static const sk_kbody k_mfwd = {.label = "graph.bc_multi_forward",
                                .body = sk_body_graph_bc_multi_forward,
                                .pattern = SK_REDUCE,
                                .sigs = sig_mfwd,
                                .reds = "sum:int64"};
static const char *const sig_mbwd[] = {"range" G3 R2("dep", "int32") R2("sig", "float64")
                                         R2("del", "float64") R2("part", "float64")
                                           " nv=int64 l=int64",
                                       NULL};
static const sk_kbody k_mbwd = {.label = "graph.bc_multi_backward",
                                .body = sk_body_graph_bc_multi_backward,
                                .pattern = SK_FOR,
                                .sigs = sig_mbwd};
static const char *const sig_mseed[] = {"range" R2("dep", "int32") R2("sig", "float64")
                                          R1("srcs", "int64") " base=int64 ns=int64 all=int64",
                                        NULL};
static const sk_kbody k_mseed = {.label = "graph.bc_multi_seed",
                                 .body = sk_body_graph_bc_multi_seed,
                                 .pattern = SK_FOR,
                                 .sigs = sig_mseed};
static const char *const sig_madd[] = {"range" R2("part", "float64") R1("bc", "float64"),
                                       NULL};
static const sk_kbody k_madd = {.label = "graph.bc_multi_add",
                                .body = sk_body_graph_bc_multi_add,
                                .pattern = SK_FOR,
                                .sigs = sig_madd};

#define BC_MULTI_NV 65536
#define BC_MULTI_ENTRIES ((int64_t)1 << 24)

/* bc (nv, zeroed) += the dependencies of sources src[0..ns) (NULL:
 * 0..ns-1, else a view in the graph's space), B at a time (batch, or
 * as many as 2^24 entries hold); unscaled */
static int bc_multi(const sk_graph *g, const sk_view *src, int64_t ns, int64_t batch,
                    sk_view *bc, char *err, size_t errlen) {
  const int64_t nv = g->nv;
  int64_t nb = batch > 0 ? batch : BC_MULTI_ENTRIES / (nv > 0 ? nv : 1);
  if (nb > ns) nb = ns;
  if (nb < 1) nb = 1;
  bc_slots sl;
  if (bc_slots_make(&sl, g, nb, 0, !src, err, errlen) < 0) return -1;
  sk_view *dep = &sl.dep, *sig = &sl.sig, *del = &sl.del, *part = &sl.part;
  int rc = -1;
  for (int64_t base = 0; base < ns; base += nb) {
    sk_arg a[] = {sk_arg_view("dep", dep), sk_arg_view("sig", sig),
                  sk_arg_view("del", del), sk_arg_view("part", part)};
    sk_arg sd[] = {sk_arg_view("dep", dep),           sk_arg_view("sig", sig),
                   sk_arg_view("srcs", src ? src : &sl.none), sk_arg_i64("base", base),
                   sk_arg_i64("ns", ns),               sk_arg_i64("all", !src)};
    if (sk_sp_range(&k_init_slots, nv, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_mseed, nb, sd, NELEM(sd), NULL, err, errlen) < 0)
      goto done;
    /* forward: level l's vertices claim level l + 1's, until none */
    int64_t l = 0;
    for (;; l++) {
      sk_arg f[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                    sk_arg_view("dep", dep),         sk_arg_view("sig", sig),
                    sk_arg_i64("nv", nv),             sk_arg_i64("l", l)};
      sk_result r;
      if (sk_sp_range(&k_mfwd, nb * nv, f, NELEM(f), &r, err, errlen) < 0) goto done;
      if (sk_result_i64(&r, 0) == 0) break;
    }
    /* l is the deepest level; backward from it down to 1 */
    for (; l >= 1; l--) {
      sk_arg w[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                    sk_arg_view("dep", dep),         sk_arg_view("sig", sig),
                    sk_arg_view("del", del),         sk_arg_view("part", part),
                    sk_arg_i64("nv", nv),             sk_arg_i64("l", l)};
      if (sk_sp_range(&k_mbwd, nb * nv, w, NELEM(w), NULL, err, errlen) < 0) goto done;
    }
    sk_arg s[] = {sk_arg_view("part", part), sk_arg_view("bc", bc)};
    if (sk_sp_range(&k_madd, nv, s, NELEM(s), NULL, err, errlen) < 0) goto done;
  }
  rc = 0;
done:
  bc_slots_release(&sl);
  return rc;
}

typedef struct bc_state {
  const sk_graph *g;
  sk_view *depth, *sigma, *delta, *order, *cnt, *bc;
  sk_view *heavy, *hsum; /* the device's heavy pieces and their sums */
  int64_t hd;            /* a vertex of more arcs is heavy, cut in pieces of hd */
  int64_t *lstart; /* level l: order(lstart[l] .. lstart[l + 1]) */
  int host;        /* the host's bodies (1) or the device's (0) */
  int warp;
  int pull; /* the host on an undirected graph: levels may be pulled */
} bc_state;

/* level l's body 'kh' (host: a vertex a work item, following the
 * degrees) or 'kd' (device: a warp a vertex, then the heavy vertices'
 * pieces a team each: forward 'kf', or backward 'kb' and 'ke') over n
 * vertices; a[na..na + 3] are free */
static int bc_level(const bc_state *st, const sk_kbody *kh, const sk_kbody *kd, int fwd,
                    int64_t l, int64_t n, sk_arg *a, int na, char *err, size_t errlen) {
  if (st->host) return sk_galgo_degree_range(kh, n, a, na, NULL, err, errlen);
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.team_size = st->warp > 1 ? 8 : 1;
  p.vector_length = st->warp;
  p.league_size = (n + p.team_size - 1) / p.team_size;
  const int64_t hc = 1 + (l & 1);
  a[na] = sk_arg_i64("n", n);
  a[na + 1] = sk_arg_view("heavy", st->heavy);
  a[na + 2] = sk_arg_i64("hd", st->hd);
  a[na + 3] = sk_arg_i64("hc", hc);
  if (sk_kbody_launch(kd, &p, a, na + 4, NULL, err, errlen) < 0) return -1;
  /* the pieces: about a resident grid of teams */
  const int64_t lg = (st->g->nv + 7) / 8;
  p.league_size = lg < 1 ? 1 : lg > 1024 ? 1024 : lg;
  if (fwd) {
    sk_arg h[] = {a[0], a[1], a[2], a[3], a[4], a[5], sk_arg_view("heavy", st->heavy),
                  sk_arg_i64("l", l), sk_arg_i64("hd", st->hd), sk_arg_i64("hc", hc)};
    return sk_kbody_launch(&k_fwd_heavy, &p, h, NELEM(h), NULL, err, errlen);
  }
  /* backward: a = rowptr, colidx, sigma, delta, order, bc, lb, s, ro, wo */
  sk_arg h[] = {a[0], a[1], a[3], sk_arg_view("cnt", st->cnt), sk_arg_view("heavy", st->heavy),
                sk_arg_view("hsum", st->hsum), a[8], sk_arg_i64("hd", st->hd),
                sk_arg_i64("hc", hc)};
  const int64_t m = 65536;
  sk_arg e[] = {a[2], a[3], a[5], sk_arg_view("cnt", st->cnt), sk_arg_view("heavy", st->heavy),
                sk_arg_view("hsum", st->hsum), a[7], a[9], sk_arg_i64("hc", hc),
                sk_arg_i64("m", m)};
  return sk_kbody_launch(&k_bwd_heavy, &p, h, NELEM(h), NULL, err, errlen) < 0 ||
             sk_sp_range(&k_bwd_hend, m, e, NELEM(e), NULL, err, errlen) < 0
           ? -1
           : 0;
}

/* one source's dependencies added to bc */
static int bc_source(bc_state *st, int64_t s, char *err, size_t errlen) {
  const sk_graph *g = st->g;
  sk_arg sa[] = {sk_arg_view("depth", st->depth), sk_arg_view("sigma", st->sigma),
                 sk_arg_view("order", st->order), sk_arg_view("cnt", st->cnt),
                 sk_arg_i64("s", s)};
  if (sk_sp_range(&k_seed, 1, sa, NELEM(sa), NULL, err, errlen) < 0) return -1;
  int64_t nl = 0, end = 1;
  st->lstart[0] = 0;
  st->lstart[1] = 1;
  /* forward: level nl is order(lstart[nl] .. lstart[nl + 1]). The host
   * pulls (bottom-up) a level whose frontier's arcs mf reach half the
   * arcs mu of the vertices not reached: a pushed arc costs an atomic
   * add, a pulled one a load, and a pull reads the arcs of every vertex
   * not reached. mf, mu: from the source's degree, then the levels' sums
   * (a directed graph's levels, and the device's, are pushed: pulling
   * needs the in-arcs) */
  int64_t mf = 0, mu = g->narcs;
  if (st->pull) {
    if (sk_sp_get_i64(g->rowptr, s + 1, &mf, err, errlen) < 0 ||
        sk_sp_get_i64(g->rowptr, s, &mu, err, errlen) < 0)
      return -1;
    mf -= mu;
    mu = g->narcs - mf;
  }
  while (end > st->lstart[nl]) {
    const int64_t lb = st->lstart[nl], n = end - lb;
    sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                  sk_arg_view("colidx", g->colidx),
                  sk_arg_view("depth", st->depth),
                  sk_arg_view("sigma", st->sigma),
                  sk_arg_view("order", st->order),
                  sk_arg_view("cnt", st->cnt),
                  sk_arg_i64("lb", lb),
                  sk_arg_i64("l", nl),
                  {0},
                  {0},
                  {0},
                  {0}};
    if (st->host) {
      sk_result r;
      int rcl;
      if (st->pull && 2 * mf >= mu) {
        sk_arg b[] = {a[0], a[1], a[2], a[3], a[4], a[5], a[7], sk_arg_i64("nv", g->nv)};
        rcl = sk_galgo_degree_range_chunk(&k_fwd_pull, (g->nv + 63) / 64, 4, b, NELEM(b),
                                          &r, err, errlen);
      } else {
        rcl = sk_galgo_degree_range(&k_fwd, n, a, NELEM(a) - 4, &r, err, errlen);
      }
      if (rcl < 0) return -1;
      mf = sk_result_i64(&r, 0);
      mu -= mf;
    } else if (bc_level(st, &k_fwd, &k_fwd_dev, 1, nl, n, a, NELEM(a) - 4, err, errlen) < 0) {
      return -1;
    }
    if (sk_sp_get_i64(st->cnt, 0, &end, err, errlen) < 0) return -1;
    nl++;
    st->lstart[nl + 1] = end;
  }
  /* levels 0 .. nl - 1 are not empty; the last level's terms, then
   * backward from nl - 2 down to 1 */
  if (nl >= 3) {
    sk_arg a[] = {sk_arg_view("order", st->order), sk_arg_view("sigma", st->sigma),
                  sk_arg_view("delta", st->delta), sk_arg_i64("lb", st->lstart[nl - 1]),
                  sk_arg_i64("wo", ((nl - 1) & 1) * g->nv)};
    if (sk_sp_range(&k_leaves, end - st->lstart[nl - 1], a, NELEM(a), NULL, err, errlen) <
        0)
      return -1;
  }
  for (int64_t l = nl - 2; l >= 1; l--) {
    const int64_t lb = st->lstart[l], n = st->lstart[l + 1] - lb;
    sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                  sk_arg_view("colidx", g->colidx),
                  sk_arg_view("sigma", st->sigma),
                  sk_arg_view("delta", st->delta),
                  sk_arg_view("order", st->order),
                  sk_arg_view("bc", st->bc),
                  sk_arg_i64("lb", lb),
                  sk_arg_i64("s", s),
                  sk_arg_i64("ro", ((l + 1) & 1) * g->nv),
                  sk_arg_i64("wo", (l & 1) * g->nv),
                  {0},
                  {0},
                  {0},
                  {0},
                  {0}};
    /* (the device's body takes cnt too: a[10]; the host's stops at wo) */
    int na = 10;
    if (!st->host) a[na++] = sk_arg_view("cnt", st->cnt);
    if (bc_level(st, &k_bwd, &k_bwd_dev, 0, l, n, a, na, err, errlen) < 0) return -1;
  }
  sk_arg ra[] = {sk_arg_view("order", st->order), sk_arg_view("depth", st->depth),
                 sk_arg_view("sigma", st->sigma), sk_arg_view("delta", st->delta),
                 sk_arg_i64("nv", g->nv)};
  return sk_sp_range(&k_reset, end, ra, NELEM(ra), NULL, err, errlen);
}

/* graph.betweenness: G_* [, sources (int64 view), normalized, directed]
 * -> bc (float64 per vertex) */
static int betweenness(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  /* device_bodies, by_source, heavy_degree, batch: for the specs (the
   * device's bodies run on the host; the searches one source a slot, or
   * on a device many level by level together (1), or one source at a
   * time level by level (0); the degree past which the device cuts a
   * vertex's arcs into pieces, a team a piece: 2048, a team's 8 passes;
   * the sources a device runs together) */
  static const char *const known[] = {"G_rowptr",      "G_colidx",  "G_weights",
                                      "directed",      "sources",   "normalized",
                                      "device_bodies", "by_source", "heavy_degree",
                                      "batch",         NULL};
  sk_graph g;
  int directed, normalized, devb;
  int64_t bysrc, hdeg, batch;
  const sk_view *src = NULL;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "normalized", 1, &normalized, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "device_bodies", 0, &devb, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "by_source", 1, -1, &bysrc, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "heavy_degree", 1, 2048, &hdeg, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "batch", 1, 0, &batch, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "sources") &&
       !(src = sk_karg_view(args, nargs, "sources", 1, err, errlen))))
    return -1;
  const int64_t nv = g.nv;
  int64_t ns = nv, *hs = NULL;
  unsigned char *seen = NULL;
  sk_view hsrc;
  memset(&hsrc, 0, sizeof hsrc);
  if (src) {
    if (src->dtype != SK_I64) {
      sk_err(err, errlen, SK_E_SOURCES_MUST_INT64, sk_dtypes[src->dtype].name);
      return -1;
    }
    ns = src->extent[0];
    if (ns == 0) {
      sk_err(err, errlen, SK_E_BC_SOURCES_EMPTY);
      return -1;
    }
    /* the sources on the host: the driver runs them one after another */
    if (sk_sp_host_copy(src, &hsrc, err, errlen) < 0) return -1;
    hs = (int64_t *)hsrc.data;
    if (!(seen = calloc((size_t)nv + 1, 1))) {
      sk_view_release(&hsrc);
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    for (int64_t k = 0; k < ns; k++) {
      const int64_t s = hs[k];
      if (s < 0 || s >= nv) {
        sk_err(err, errlen, SK_E_SOURCE_NOT_VERTEX, (long long)s, (long long)nv,
               (long long)nv - 1);
        goto bad;
      }
      if (seen[s]) {
        sk_err(err, errlen, SK_E_BC_SOURCE_TWICE, (long long)s);
        goto bad;
      }
      seen[s] = 1;
    }
    free(seen);
    seen = NULL;
  }
  const int space = g.rowptr->space;
  int rc = -1;
  sk_view depth, sigma, delta, order, cnt, bc, heavy, hsum;
  sk_view *all[] = {&depth, &sigma, &delta, &order, &cnt, &bc, &heavy, &hsum};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  bc_state st = {.g = &g,
                 .depth = &depth,
                 .sigma = &sigma,
                 .delta = &delta,
                 .order = &order,
                 .cnt = &cnt,
                 .bc = &bc,
                 .heavy = &heavy,
                 .hsum = &hsum,
                 .hd = hdeg < 1 ? 1 : hdeg,
                 .lstart = NULL,
                 .host = 1,
                 .warp = 1,
                 .pull = 0};
  {
    const sk_backend *be = sk_sp_backend(err, errlen);
    if (!be || (st.warp = sk_galgo_warp(err, errlen)) < 0) goto done;
    st.host = sk_sp_host(be) && !devb;
    st.pull = st.host && !directed;
  }
  if (!(st.lstart = malloc(((size_t)nv + 3) * sizeof *st.lstart))) {
    sk_err(err, errlen, SK_E_NOMEM);
    goto done;
  }
  if (sk_sp_view(&depth, "depth", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&sigma, "path counts", SK_F64, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&delta, "dependencies", SK_F64, 2 * nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&order, "search order", SK_I32, nv > 0 ? nv : 1, space, 0, err, errlen) <
        0 ||
      sk_sp_view(&cnt, "counts", SK_I64, 3, space, 1, err, errlen) < 0 ||
      (!st.host &&
       (sk_sp_view(&heavy, "heavy vertices' pieces", SK_I32,
                   2 * (nv + g.narcs / st.hd + 1), space, 0, err, errlen) < 0 ||
        sk_sp_view(&hsum, "heavy vertices' sums", SK_F64, nv > 0 ? nv : 1, space, 1, err,
                   errlen) < 0)) ||
      sk_sp_view(&bc, "bc", SK_F64, nv, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("depth", &depth), sk_arg_view("sigma", &sigma),
                  sk_arg_view("delta", &delta), sk_arg_i64("nv", nv)};
    if (sk_sp_range(&k_init, nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    const double f = normalized ? (nv > 2 ? 1.0 / ((double)(nv - 1) * (double)(nv - 2)) : 1.0)
                                : (directed ? 1.0 : 0.5);
    const sk_backend *be = sk_sp_backend(err, errlen);
    if (!be) goto done;
    const int64_t nsl = 4 * (int64_t)(be->concurrency ? be->concurrency() : 1);
    const int slots = st.host && (bysrc == 1 || (bysrc < 0 && ns >= 2 * nsl &&
                                                   (double)nsl * (double)nv * 32 <= 1 << 30));
    const int multi = !st.host && ns >= 2 &&
                      (bysrc == 1 || (bysrc < 0 && nv <= BC_MULTI_NV));
    if (slots) {
      if (bc_by_source(&g, src ? &hsrc : NULL, ns, nsl, f, &bc, err, errlen) < 0) goto done;
    } else if (multi) {
      /* the sources where the graph lives */
      sk_view dsrc;
      memset(&dsrc, 0, sizeof dsrc);
      const sk_view *ms = src;
      if (src && src->space != space) {
        ms = &dsrc;
        if (sk_sp_view(&dsrc, "sources", SK_I64, ns, space, 0, err, errlen) < 0 ||
            sk_view_deep_copy(&dsrc, &hsrc, err, errlen) < 0) {
          sk_view_release(&dsrc);
          goto done;
        }
      }
      sk_arg a[] = {sk_arg_view("bc", &bc), sk_arg_f64("f", f)};
      const int mrc = bc_multi(&g, ms, ns, batch, &bc, err, errlen);
      sk_view_release(&dsrc);
      if (mrc < 0 ||
          (f != 1.0 && sk_sp_range(&k_scale, nv, a, NELEM(a), NULL, err, errlen) < 0))
        goto done;
    } else {
      for (int64_t k = 0; k < ns; k++)
        if (bc_source(&st, hs ? hs[k] : k, err, errlen) < 0) goto done;
      sk_arg a[] = {sk_arg_view("bc", &bc), sk_arg_f64("f", f)};
      if (f != 1.0 && sk_sp_range(&k_scale, nv, a, NELEM(a), NULL, err, errlen) < 0)
        goto done;
    }
  }
  if (sk_kout_view(out, "bc", &bc, err, errlen) < 0) goto done;
  rc = 0;
done:
  free(st.lstart);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  sk_view_release(&hsrc);
  return rc;
bad:
  free(seen);
  sk_view_release(&hsrc);
  return -1;
}

/* -- registration ------------------------------------------------------------ */
const sk_kentry sk_galgo_bc = {"graph.betweenness",
                               "G_* [, sources, normalized, directed]", SK_KRES_NONE,
                               betweenness};

const sk_kbody *const sk_gbc_bodies[] = {
  &k_init,    &k_seed,    &k_fwd,   &k_bwd,       &k_reset,      &k_scale,
  &k_fwd_dev, &k_bwd_dev, &k_bysrc, &k_sum_parts, &k_init_slots, &k_leaves,
  &k_fwd_pull, &k_fwd_heavy, &k_bwd_heavy, &k_bwd_hend, &k_mfwd,     &k_mbwd,
  &k_mseed,    &k_madd,     NULL};
