/* pagerank.c: graph.pagerank with NetworkX's semantics: pulls over the
 * in-arcs, on the host over a degree-ordered copy of the graph. Bodies:
 * pagerank.sk.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- PageRank -----------------------------------------------------------------
 * NetworkX's power iteration: x = 1/N; each step x'(v) = d * sum over arcs
 * u -> v of x(u) w(u,v) / W(u) + (d * (sum of x over vertices without
 * out-arcs) + 1 - d) / N, until sum |x' - x| < N * tol. Pulled along the
 * in-arcs: the graph itself when undirected, its transpose (speck.sparse's)
 * when directed. */
static const char *const sig_pr_outw[] = {
  "range" R1("rowptr", "int64") R1("outw", "float64"),
  "range" R1("rowptr", "int64") R1("outw", "float64") R1("w", "float64"), NULL};
static const sk_kbody k_pr_deg = {.label = "graph.pr_outdeg",
                                  .body = sk_body_graph_pr_outdeg,
                                  .pattern = SK_FOR,
                                  .sigs = sig_pr_outw};
static const sk_kbody k_pr_outw = {.label = "graph.pr_outweight",
                                   .body = sk_body_graph_pr_outweight,
                                   .pattern = SK_FOR,
                                   .sigs = sig_pr_outw + 1};

/* the first contributions c = x / W and the dangling rank. Ranks and
 * contributions are float64, or float32 with dtype = "float32" (half the
 * gathers' bytes, GAP's choice; the ranks then sum to 1 within about
 * 1e-7): the bodies compute in double either way, the views' type sets
 * what is stored */
static const char *const sig_pr_contrib[] = {
  "range" R1("x", "float64") R1("outw", "float64") R1("c", "float64"),
  "range" R1("x", "float32") R1("outw", "float64") R1("c", "float32"), NULL};
static const sk_kbody k_pr_contrib = {.label = "graph.pr_contrib",
                                      .body = sk_body_graph_pr_contrib,
                                      .pattern = SK_REDUCE,
                                      .sigs = sig_pr_contrib,
                                      .reds = "sum:float64"};

/* one iteration: the new ranks, their contributions for the next one,
 * the change sum |x' - x| and the new dangling rank */
#define PULL_SIG \
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("c", "float64") \
    R1("x", "float64") R1("xn", "float64") R1("outw", "float64") \
      R1("cn", "float64") " d=float64 base=float64"
#define PULL_SIG32 \
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("c", "float32") \
    R1("x", "float32") R1("xn", "float32") R1("outw", "float64") \
      R1("cn", "float32") " d=float64 base=float64"
static const char *const sig_pr_pull[] = {PULL_SIG, PULL_SIG32, NULL};
static const char *const sig_pr_pullw[] = {PULL_SIG R1("w", "float64"),
                                           PULL_SIG32 R1("w", "float64"), NULL};
static const sk_kbody k_pr_pull = {.label = "graph.pr_pull",
                                   .body = sk_body_graph_pr_pull,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_pr_pull,
                                   .reds = "sum:float64 sum:float64"};
/* an undirected unweighted graph: the out-degree is the row's length
 * (no out-weight array read), the ranks updated in place (each vertex
 * writes its own), and the sum in four partial sums (the gathers are
 * independent, not one chain of dependent adds) */
static const char *const sig_pr_pull_u[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("c", "float64")
    R1("x", "float64") R1("cn", "float64") " d=float64 base=float64 big=int64",
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("c", "float32")
    R1("x", "float32") R1("cn", "float32") " d=float64 base=float64 big=int64",
  NULL};
/* (rows of 'big' arcs or more are skipped: a GPU sums them in chunks, see
 * k_pr_heavy_list; the host passes INT64_MAX, and its rows then follow
 * one another in chunks of 256 claimed by free threads) */
static const sk_kbody k_pr_pull_u = {.label = "graph.pr_pull_undirected",
                                     .body = sk_body_graph_pr_pull_undirected,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_pr_pull_u,
                                     .reds = "sum:float64 sum:float64"};
static const sk_kbody k_pr_pullw = {.label = "graph.pr_pull_w",
                                    .body = sk_body_graph_pr_pull_w,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_pr_pullw,
                                    .reds = "sum:float64 sum:float64"};

/* the same pulls on a GPU: a warp a row (its lanes over the row's arcs,
 * a tree sum), so a hub's 10^5 in-arcs are not one thread's walk (a
 * thread a row: 19 ms an iteration at Kronecker scale 22) */
static const sk_kbody k_pr_pull_team = {.label = "graph.pr_pull_team",
                                        .body = sk_body_graph_pr_pull_team,
                                        .pattern = SK_REDUCE,
                                        .reds = "sum:float64 sum:float64"};
static const sk_kbody k_pr_pullw_team = {.label = "graph.pr_pull_w_team",
                                         .body = sk_body_graph_pr_pull_w_team,
                                         .pattern = SK_REDUCE,
                                         .reds = "sum:float64 sum:float64"};
/* A thread a row leaves a hub's 10^5 arcs to one thread (19 ms an
 * iteration at Kronecker scale 22, longer than all the other rows
 * together), a warp a row to 3,000 steps of one warp (8 ms). The rows of
 * PR_BIG arcs or more are cut into chunks of at most PR_CHUNK arcs (hq:
 * row << 32 | chunk, listed once per call), a warp sums a chunk into the
 * row's slot of 'hs' (atomically), and a last kernel finishes those rows
 * (hr: their list) and clears their slots. An H200 at scale 22: 1.8 ms an
 * iteration (PR_BIG 64; 128, 256 and 512 with 2 or 4 lanes a light row:
 * 2.0-3.1 ms). */
#define PR_BIG   64
#define PR_CHUNK 1024
static const sk_kbody k_pr_heavy_list = {
  .label = "graph.pr_heavy_list", .body = sk_body_graph_pr_heavy_list, .pattern = SK_FOR};
static const sk_kbody k_pr_heavy_sum = {
  .label = "graph.pr_heavy_sum", .body = sk_body_graph_pr_heavy_sum, .pattern = SK_FOR};
static const sk_kbody k_pr_heavy_end = {.label = "graph.pr_heavy_end",
                                        .body = sk_body_graph_pr_heavy_end,
                                        .pattern = SK_REDUCE,
                                        .reds = "sum:float64"};

/* personalized PageRank: the same pulls with the teleport and the
 * dangling rank going to the personalization p (normalised to sum 1):
 * x'(v) = d * sum + (d * dangling + 1 - d) * p(v) */
static const char *const sig_ppr_pull[] = {PULL_SIG R1("p", "float64"), NULL};
static const char *const sig_ppr_pullw[] = {
  PULL_SIG R1("w", "float64") R1("p", "float64"), NULL};
static const sk_kbody k_ppr_pull = {.label = "graph.ppr_pull",
                                    .body = sk_body_graph_ppr_pull,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_ppr_pull,
                                    .reds = "sum:float64 sum:float64"};
static const sk_kbody k_ppr_pullw = {.label = "graph.ppr_pull_w",
                                     .body = sk_body_graph_ppr_pull_w,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_ppr_pullw,
                                     .reds = "sum:float64 sum:float64"};
static const sk_kbody k_ppr_pull_team = {.label = "graph.ppr_pull_team",
                                         .body = sk_body_graph_ppr_pull_team,
                                         .pattern = SK_REDUCE,
                                         .reds = "sum:float64 sum:float64"};
static const sk_kbody k_ppr_pullw_team = {.label = "graph.ppr_pull_w_team",
                                          .body = sk_body_graph_ppr_pull_w_team,
                                          .pattern = SK_REDUCE,
                                          .reds = "sum:float64 sum:float64"};
/* the personalization's first bad weight and its sum; its normalised copy */
static const char *const sig_ppr_check[] = {"range" R1("p", "float64"), NULL};
static const sk_kbody k_ppr_check = {.label = "graph.ppr_check",
                                     .body = sk_body_graph_ppr_check,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_ppr_check,
                                     .reds = "min:int64 sum:float64"};
static const char *const sig_ppr_scale[] = {
  "range" R1("p", "float64") R1("q", "float64") " sc=float64", NULL};
static const sk_kbody k_ppr_scale = {.label = "graph.ppr_scale",
                                     .body = sk_body_graph_ppr_scale,
                                     .pattern = SK_FOR,
                                     .sigs = sig_ppr_scale};

/* the personalization 'p' of a graph of n vertices checked (float64, n
 * entries, finite, non-negative, not all 0) and normalised into new view
 * 'q' (p / its sum, as NetworkX divides) */
static int ppr_vector(const sk_view *p, int64_t n, int space, sk_view *q, char *err,
                      size_t errlen) {
  if (p->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_PPR_PERSONALIZATION_DTYPE, sk_dtypes[p->dtype].name);
    return -1;
  }
  if (p->extent[0] != n) {
    sk_err(err, errlen, SK_E_PPR_PERSONALIZATION_LENGTH, (long long)p->extent[0],
           (long long)n);
    return -1;
  }
  if (n == 0) return sk_sp_view(q, "personalization", SK_F64, 0, space, 0, err, errlen);
  sk_result r;
  sk_arg a[] = {sk_arg_view("p", p)};
  if (sk_sp_range(&k_ppr_check, n, a, NELEM(a), &r, err, errlen) < 0) return -1;
  const int64_t bad = sk_result_i64(&r, 0);
  const double sum = sk_result_f64(&r, 1);
  if (bad != INT64_MAX) {
    double x = 0;
    if (sk_sp_get_f64(p, bad, &x, err, errlen) < 0) return -1;
    sk_err(err, errlen, SK_E_PPR_PERSONALIZATION_NEGATIVE, (long long)bad, x);
    return -1;
  }
  if (!(sum > 0)) {
    sk_err(err, errlen, SK_E_PPR_PERSONALIZATION_ZERO);
    return -1;
  }
  if (!(sum <= 1.7976931348623157e308)) {
    sk_err(err, errlen, SK_E_PPR_PERSONALIZATION_SUM, sum);
    return -1;
  }
  if (sk_sp_view(q, "personalization", SK_F64, n, space, 0, err, errlen) < 0) return -1;
  sk_arg b[] = {sk_arg_view("p", p), sk_arg_view("q", q), sk_arg_f64("sc", sum)};
  if (sk_sp_range(&k_ppr_scale, n, b, NELEM(b), NULL, err, errlen) < 0) {
    sk_view_release(q);
    return -1;
  }
  return 0;
}

/* a warp per item of n (teams of 8 warps; 'warp' lanes each) */
static void pr_warps(sk_policy *p, int64_t n, int warp) {
  sk_policy_init(p, SK_POL_TEAM);
  p->team_size = 8;
  p->vector_length = warp;
  p->league_size = (n + p->team_size - 1) / p->team_size;
}

/* one pull of a directed or weighted graph: a thread a row (chunks of 256
 * rows claimed by free threads) on the host, 'dev' a warp a row on a GPU;
 * a[na] is free for 'n' */
static int pr_pull(const sk_kbody *host, const sk_kbody *dev, int64_t n, sk_arg *a,
                   int na, sk_result *r, char *err, size_t errlen) {
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) return -1;
  if (be->code == SK_CODE_HOST)
    return sk_galgo_degree_range(host, n, a, na, r, err, errlen);
  const int warp = sk_galgo_warp(err, errlen);
  if (warp < 0) return -1;
  sk_policy p;
  pr_warps(&p, n, warp);
  a[na] = sk_arg_i64("n", n);
  return sk_kbody_launch(dev, &p, a, na + 1, r, err, errlen);
}

/* the heavy rows' chunks and their end (see k_pr_heavy_list), after the
 * light rows' pull: their sum |x' - x| into *change */
static int pr_heavy(const sk_view *rowptr, const sk_view *colidx, const sk_view *c,
                    const sk_view *x, const sk_view *cn, const sk_view *hq,
                    const sk_view *hr, const sk_view *hs, int64_t nq, int64_t nh,
                    double d, double base, double *change, char *err, size_t errlen) {
  const int warp = sk_galgo_warp(err, errlen);
  if (warp < 0) return -1;
  sk_policy p;
  pr_warps(&p, nq, warp);
  sk_arg a[] = {sk_arg_view("rowptr", rowptr), sk_arg_view("colidx", colidx),
                sk_arg_view("c", c),           sk_arg_view("hq", hq),
                sk_arg_view("hs", hs),         sk_arg_i64("nq", nq),
                sk_arg_i64("chunk", PR_CHUNK)};
  sk_arg e[] = {sk_arg_view("rowptr", rowptr), sk_arg_view("hr", hr),
                sk_arg_view("hs", hs),         sk_arg_view("x", x),
                sk_arg_view("cn", cn),         sk_arg_f64("d", d),
                sk_arg_f64("base", base)};
  sk_result re;
  if (sk_kbody_launch(&k_pr_heavy_sum, &p, a, NELEM(a), NULL, err, errlen) < 0 ||
      sk_sp_range(&k_pr_heavy_end, nh, e, NELEM(e), &re, err, errlen) < 0)
    return -1;
  *change = sk_result_f64(&re, 0);
  return 0;
}

/* The host's PageRank of an undirected unweighted graph runs over a
 * relabelled copy of the graph: the vertices ordered by decreasing
 * degree (exact below 64, by floor(log2 d) from 64 on; by id among
 * equals), those without arcs last and out of the loop. In a C copy of
 * the loops at scale 20 an iteration over the copy took 12-13 ms where one
 * over the graph took 19-20 (2 threads; inside speck the whole call is
 * 4-5 % faster, the copy's build included): rows of one length follow
 * each other, so the row loop's branches repeat instead of mispredicting
 * at most rows; the 40 % of a
 * Kronecker graph's vertices that have no arcs are not visited (all have
 * the rank 'base' and are all the dangling rank); and the hubs'
 * contributions, which most arcs read, share a few cache lines (the top
 * 12,000 vertices are read by half the arcs). The copy costs a pass over
 * the arcs (its ids renamed: a gather per arc) and about twice an
 * iteration's time, made again by every call. Each row keeps its arcs'
 * order, so every rank is summed as on the graph itself. These bodies
 * run on the host only; a GPU runs its own pulls over the graph as it is
 * (k_pr_pull_u under PR_BIG arcs, and the heavy rows' chunks). */
#define PRG_GROUPS 89
/* hist(group * nch + chunk): how many of the chunk's vertices are in
 * the group */
static const char *const sig_prg_hist[] = {
  "range" R1("rowptr", "int64") R1("hist", "int64") " n=int64 cs=int64 nch=int64", NULL};
static const sk_kbody k_prg_hist = {.label = "graph.pr_order_count",
                                    .body = sk_body_graph_pr_order_count,
                                    .pattern = SK_FOR,
                                    .sigs = sig_prg_hist};
/* each vertex's new id from the scanned counts, and its degree there */
static const char *const sig_prg_perm[] = {
  "range" R1("rowptr", "int64") R1("off", "int64") R1("perm", "int32")
    R1("deg", "int64") " n=int64 cs=int64 nch=int64",
  NULL};
static const sk_kbody k_prg_perm = {.label = "graph.pr_order_place",
                                    .body = sk_body_graph_pr_order_place,
                                    .pattern = SK_FOR,
                                    .sigs = sig_prg_perm};
/* row i's arcs, renamed, at its new place (the rows read in order: the
 * reads stream, the writes go to a new place a row) */
static const char *const sig_prg_fill[] = {
  "range" G3 R1("perm", "int32") R1("rp2", "int64") R1("ci2", "int32"), NULL};
static const sk_kbody k_prg_fill = {.label = "graph.pr_order_arcs",
                                    .body = sk_body_graph_pr_order_arcs,
                                    .pattern = SK_FOR,
                                    .sigs = sig_prg_fill};
/* the first ranks and contributions of the vertices with arcs */
static const char *const sig_prg_init[] = {
  "range" R1("rp2", "int64") R1("x", "float64") R1("c", "float64") " x0=float64",
  "range" R1("rp2", "int64") R1("x", "float32") R1("c", "float32") " x0=float64", NULL};
static const sk_kbody k_prg_init = {.label = "graph.pr_order_init",
                                    .body = sk_body_graph_pr_order_init,
                                    .pattern = SK_FOR,
                                    .sigs = sig_prg_init};
/* the ranks in the graph's order; the vertices without arcs: 'tail' */
static const char *const sig_prg_out[] = {
  "range" R1("perm", "int32") R1("x", "float64")
    R1("rank", "float64") " nz=int64 tail=float64",
  "range" R1("perm", "int32") R1("x", "float32")
    R1("rank", "float32") " nz=int64 tail=float64",
  NULL};
static const sk_kbody k_prg_out = {.label = "graph.pr_order_out",
                                   .body = sk_body_graph_pr_order_out,
                                   .pattern = SK_FOR,
                                   .sigs = sig_prg_out};

/* -- the segmented copy ---------------------------------------------------------
 * The pulls over the ordered copy gather the contributions at random;
 * those of the sources past the first 65536 (8 MiB of float64 at
 * Kronecker scale 20: more than a core's 2 MiB L2) then come from L3.
 * The copy's arcs are therefore stored by segments of 65536 sources,
 * each arc as its source's low 16 bits (int16, half colidx's bytes):
 * segment 0 (the hubs: 81 % of the arcs at scale 20) a pair a row,
 * rowptr-like; segments 1.. a list of pairs (a row with arcs there, its
 * arcs). An iteration pulls segments ns-1 .. 1 into partial sums (a launch
 * each: the segment's 512 KiB of contributions stay in each core's L2,
 * a pair's rows are its own), then segment 0 with the update of every
 * row. Pairs are few (1.6 M for 0.65 M rows at scale 20). A C copy of
 * the loops (one thread, the sum over chunks of each chunk's best time
 * in 40 iterations): 26.1 ms an iteration against 32.9 ms over the
 * ordered copy with int32 ids (float32 contributions there: 27 ms);
 * segments of 16384 / 32768 sources or int32 ids: 40 / 34 / 35 ms;
 * wider segments for the sources past 65536: within 1 ms.
 *
 * Kept with the graph: a memo of the column-index array's allocation,
 * keyed like kernels/sparse/csr16.c's (the row-pointer view, both
 * allocations' write stamps, replays), so the copy (the ordering and
 * three passes over the arcs: at scale 20 a first call with one
 * iteration took 0.41-0.67 s against 0.04-0.05 s for the next ones,
 * loaded, about seven iterations' time; main's copy made by every call
 * 0.13-0.21 s) is made once per graph; where no memo can be kept (memory from outside, a capture,
 * another facility's memo) it is made for the call. It holds n * 4 +
 * nz * 8 + pairs * 12 + arcs * 2 bytes and 8 KiB a segment (the pieces
 * below; at scale 20: 84 MB beside the graph's 134 MB). */
#define PRS_SHIFT 16
/* Each segment's launch runs over pieces of its pairs (segment 0: its
 * rows) of about one cost each: the arcs, and PRS_PAIR (segment 0:
 * PRS_ROW, the update's) arcs' worth a pair; at most PRS_PIECES pieces a
 * segment, their bounds at bnd(q * (PRS_PIECES + 1)). Over the pairs
 * themselves the hubs' rows, first, made the first chunks the heaviest
 * (a reduction's blocks are runs of equal counts of items: segment 0's
 * first block of 16 held most of its arcs), and 2 threads took 0.23 s of
 * a call's 0.34 s in segment 0 where one thread took 0.36 s. */
#define PRS_PIECES 1024
#define PRS_ROW    4
#define PRS_PAIR   8
typedef struct prs {
  sk_view perm, rp2, off, rows, c16, bnd;
  int64_t nz, ns, np, *segp; /* segp: segment s's pairs [segp[s], segp[s + 1]) */
} prs;

/* segment q's pieces */
static int64_t prs_pieces(const prs *s, int64_t q) {
  const int64_t np = s->segp[q + 1] - s->segp[q];
  return np < PRS_PIECES ? np : PRS_PIECES;
}

static void prs_release(prs *s) {
  sk_view_release(&s->perm);
  sk_view_release(&s->rp2);
  sk_view_release(&s->off);
  sk_view_release(&s->rows);
  sk_view_release(&s->c16);
  sk_view_release(&s->bnd);
  free(s->segp);
  memset(s, 0, sizeof *s);
}

/* per chunk of rows, per segment: the arcs and the pairs */
static const char *const sig_prs_count[] = {
  "range" R1("rp2", "int64") R1("ci2", "int32") R1("acnt", "int64") R1("pcnt", "int64")
    R1("last", "int64") " nz=int64 cs=int64 nch=int64",
  NULL};
static const sk_kbody k_prs_count = {.label = "graph.pr_seg_count",
                                     .body = sk_body_graph_pr_seg_count,
                                     .pattern = SK_FOR,
                                     .sigs = sig_prs_count};
static const char *const sig_prs_place[] = {
  "range" R1("rp2", "int64") R1("ci2", "int32") R1("aoff", "int64") R1("poff", "int64")
    R1("last", "int64") R1("rows", "int32") R1("off", "int64") R1("c16", "int16")
      " nz=int64 cs=int64 nch=int64 np=int64 na=int64",
  NULL};
static const sk_kbody k_prs_place = {.label = "graph.pr_seg_place",
                                     .body = sk_body_graph_pr_seg_place,
                                     .pattern = SK_FOR,
                                     .sigs = sig_prs_place};
static const char *const sig_prs_pull[] = {
  "range" R1("bnd", "int64") R1("off", "int64") R1("rows", "int32") R1("c16", "int16")
    R1("c", "float64") R1("ps", "float64") " o=int64 cb=int64 nz=int64",
  "range" R1("bnd", "int64") R1("off", "int64") R1("rows", "int32") R1("c16", "int16")
    R1("c", "float32") R1("ps", "float64") " o=int64 cb=int64 nz=int64",
  NULL};
static const sk_kbody k_prs_pull = {.label = "graph.pr_seg_pull",
                                    .body = sk_body_graph_pr_seg_pull,
                                    .pattern = SK_FOR,
                                    .sigs = sig_prs_pull};
static const char *const sig_prs_bounds[] = {
  "range" R1("off", "int64") R1("bnd", "int64") " p0=int64 p1=int64 nb=int64 o=int64 w=int64",
  NULL};
static const sk_kbody k_prs_bounds = {.label = "graph.pr_seg_bounds",
                                      .body = sk_body_graph_pr_seg_bounds,
                                      .pattern = SK_FOR,
                                      .sigs = sig_prs_bounds};
static const char *const sig_prs_last[] = {
  "range" R1("bnd", "int64") R1("off", "int64") R1("c16", "int16") R1("c", "float64")
    R1("ps", "float64") R1("x", "float64") R1("cn", "float64")
      R1("rp2", "int64") " d=float64 base=float64",
  "range" R1("bnd", "int64") R1("off", "int64") R1("c16", "int16") R1("c", "float32")
    R1("ps", "float64") R1("x", "float32") R1("cn", "float32")
      R1("rp2", "int64") " d=float64 base=float64",
  NULL};
static const sk_kbody k_prs_last = {.label = "graph.pr_seg_last",
                                    .body = sk_body_graph_pr_seg_last,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_prs_last,
                                    .reds = "sum:float64 sum:float64"};

/* the segmented copy of g (undirected, unweighted, n = g->nv > 0) */
static int prs_build(const sk_graph *g, prs *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  const int64_t n = g->nv;
  /* chunks of at least 4096 vertices, at most 1024 of them */
  const int64_t cs = n / 1024 + 1 > 4096 ? n / 1024 + 1 : 4096, nch = (n + cs - 1) / cs;
  const int space = g->rowptr->space;
  int rc = -1;
  sk_view hist, off, deg, ci2, acnt, pcnt, aoff, poff, last;
  sk_view *tmp[] = {&hist, &off, &deg, &ci2, &acnt, &pcnt, &aoff, &poff, &last};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  int64_t nz = 0, m2 = 0;
  if (sk_sp_view(&hist, "group counts", SK_I64, PRG_GROUPS * nch, space, 1, err, errlen) <
        0 ||
      sk_sp_view(&off, "group offsets", SK_I64, PRG_GROUPS * nch + 1, space, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&s->perm, "new ids", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&deg, "degrees", SK_I64, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&s->rp2, "rowptr", SK_I64, n + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view_ro("rowptr", g->rowptr), sk_arg_view("hist", &hist),
                  sk_arg_i64("n", n), sk_arg_i64("cs", cs), sk_arg_i64("nch", nch)};
    sk_arg b[] = {sk_arg_view_ro("rowptr", g->rowptr),
                  sk_arg_view("off", &off),
                  sk_arg_view("perm", &s->perm),
                  sk_arg_view("deg", &deg),
                  sk_arg_i64("n", n),
                  sk_arg_i64("cs", cs),
                  sk_arg_i64("nch", nch)};
    /* the vertices with arcs: the groups before the last */
    if (sk_sp_range(&k_prg_hist, nch, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&hist, &off, PRG_GROUPS * nch, NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&off, (PRG_GROUPS - 1) * nch, &nz, err, errlen) < 0 ||
        sk_sp_range(&k_prg_perm, nch, b, NELEM(b), NULL, err, errlen) < 0 ||
        sk_sp_scan(&deg, &s->rp2, nz, &m2, err, errlen) < 0)
      goto done;
  }
  sk_view_release(&deg);
  sk_view_release(&hist);
  sk_view_release(&off);
  if (sk_sp_view(&ci2, "colidx", SK_I32, m2, space, 0, err, errlen) < 0) goto done;
  {
    sk_arg a[] = {sk_arg_view_ro("rowptr", g->rowptr), sk_arg_view_ro("colidx", g->colidx),
                  sk_arg_view("perm", &s->perm), sk_arg_view("rp2", &s->rp2),
                  sk_arg_view("ci2", &ci2)};
    if (sk_galgo_degree_range(&k_prg_fill, n, a, NELEM(a), NULL, err, errlen) < 0)
      goto done;
  }
  s->nz = nz;
  if (nz == 0) {
    rc = 0;
    goto done;
  }
  /* the segments: chunks of at least 256 rows, at most 4096 of them (the
   * hubs' rows come first: small chunks spread them) */
  const int64_t ns = ((nz - 1) >> PRS_SHIFT) + 1;
  const int64_t rcs = nz / 4096 + 1 > 256 ? nz / 4096 + 1 : 256, rch = (nz + rcs - 1) / rcs;
  const int64_t nslot = ns * rch;
  int64_t np = 0, na = 0;
  if (sk_sp_view(&acnt, "segment arcs", SK_I64, nslot + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&pcnt, "segment pairs", SK_I64, nslot + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&aoff, "segment arcs' offsets", SK_I64, nslot + 1, space, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&poff, "segment pairs' offsets", SK_I64, nslot + 1, space, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&last, "last rows", SK_I64, nslot, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rp2", &s->rp2), sk_arg_view("ci2", &ci2),
                  sk_arg_view("acnt", &acnt),  sk_arg_view("pcnt", &pcnt),
                  sk_arg_view("last", &last),  sk_arg_i64("nz", nz),
                  sk_arg_i64("cs", rcs),       sk_arg_i64("nch", rch)};
    if (sk_galgo_degree_range_chunk(&k_prs_count, rch, 1, a, NELEM(a), NULL, err, errlen) <
          0 ||
        sk_sp_scan(&acnt, &aoff, nslot, &na, err, errlen) < 0 ||
        sk_sp_scan(&pcnt, &poff, nslot, &np, err, errlen) < 0)
      goto done;
  }
  if (!(s->segp = malloc((size_t)(ns + 1) * sizeof *s->segp))) {
    sk_err(err, errlen, SK_E_NOMEM);
    goto done;
  }
  for (int64_t q = 0; q < ns; q++)
    if (sk_sp_get_i64(&poff, q * rch, &s->segp[q], err, errlen) < 0) goto done;
  s->segp[ns] = np;
  if (sk_sp_view(&s->off, "pair offsets", SK_I64, np + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&s->rows, "pair rows", SK_I32, np - nz > 0 ? np - nz : 1, space, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&s->c16, "arcs", SK_I16, na > 0 ? na : 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rp2", &s->rp2),   sk_arg_view("ci2", &ci2),
                  sk_arg_view("aoff", &aoff),    sk_arg_view("poff", &poff),
                  sk_arg_view("last", &last),    sk_arg_view("rows", &s->rows),
                  sk_arg_view("off", &s->off),   sk_arg_view("c16", &s->c16),
                  sk_arg_i64("nz", nz),          sk_arg_i64("cs", rcs),
                  sk_arg_i64("nch", rch),        sk_arg_i64("np", np),
                  sk_arg_i64("na", na)};
    if (sk_galgo_degree_range_chunk(&k_prs_place, rch, 1, a, NELEM(a), NULL, err, errlen) <
        0)
      goto done;
  }
  if (sk_sp_view(&s->bnd, "pieces", SK_I64, ns * (PRS_PIECES + 1), space, 0, err,
                 errlen) < 0)
    goto done;
  for (int64_t q = 0; q < ns; q++) {
    const int64_t nb = prs_pieces(s, q);
    sk_arg a[] = {sk_arg_view("off", &s->off),      sk_arg_view("bnd", &s->bnd),
                  sk_arg_i64("p0", s->segp[q]),     sk_arg_i64("p1", s->segp[q + 1]),
                  sk_arg_i64("nb", nb),             sk_arg_i64("o", q * (PRS_PIECES + 1)),
                  sk_arg_i64("w", q ? PRS_PAIR : PRS_ROW)};
    if (nb > 0 && sk_sp_range(&k_prs_bounds, nb + 1, a, NELEM(a), NULL, err, errlen) < 0)
      goto done;
  }
  s->ns = ns;
  s->np = np;
  rc = 0;
done:
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  if (rc < 0) prs_release(s);
  return rc;
}

/* -- the memo (as csr16.c's) */
typedef struct prs_memo {
  sk_pattern_key key; /* the pattern it was made of (core/view.h) */
  int built;
  prs s;
} prs_memo;

static pthread_mutex_t prs_lock = PTHREAD_MUTEX_INITIALIZER;

static void prs_memo_clear(prs_memo *m) {
  sk_pattern_key_clear(&m->key);
  prs_release(&m->s);
  memset(m, 0, sizeof *m);
}

static void prs_memo_free(void *p) {
  prs_memo_clear(p);
  free(p);
}


/* a copy of the memo's prs (views retained, segp its own) */
static int prs_copy(const prs *from, prs *to, char *err, size_t errlen) {
  *to = *from;
  to->segp = NULL;
  sk_view *v[] = {&to->perm, &to->rp2, &to->off, &to->rows, &to->c16, &to->bnd};
  for (int t = 0; t < NELEM(v); t++) sk_view_retain(v[t]);
  if (from->segp) {
    if (!(to->segp = malloc((size_t)(from->ns + 1) * sizeof *to->segp))) {
      prs_release(to);
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    memcpy(to->segp, from->segp, (size_t)(from->ns + 1) * sizeof *to->segp);
  }
  return 0;
}

/* g's segmented copy into 's' (released by the caller): the memo's, made
 * when missing or stale, or made for this call */
static int prs_get(const sk_graph *g, prs *s, char *err, size_t errlen) {
  const sk_view *rowptr = g->rowptr, *colidx = g->colidx;
  sk_alloc *ca = colidx->alloc, *ra = rowptr->alloc;
  if (sk_capture_mode() || rowptr->rank != 1 || colidx->rank != 1 ||
      !sk_view_contiguous(rowptr) || !sk_view_contiguous(colidx) || !sk_alloc_memo_ok(ca) ||
      !sk_alloc_memo_ok(ra))
    return prs_build(g, s, err, errlen);
  pthread_mutex_lock(&prs_lock);
  int rc = -1;
  prs_memo *m = sk_alloc_memo(ca, sizeof *m, prs_memo_free);
  if (!m) { /* another facility's memo, or no memory */
    pthread_mutex_unlock(&prs_lock);
    return prs_build(g, s, err, errlen);
  }
  if (!sk_pattern_key_same(&m->key, rowptr, colidx)) {
    prs_memo_clear(m);
    sk_pattern_key_set(&m->key, rowptr, colidx);
  }
  /* the build only reads rowptr and colidx: their stamps stay */
  if (!m->built) {
    if (prs_build(g, &m->s, err, errlen) < 0) goto out;
    m->built = 1;
  }
  rc = prs_copy(&m->s, s, err, errlen);
out:
  pthread_mutex_unlock(&prs_lock);
  return rc;
}

/* PageRank of an undirected unweighted graph (n = g->nv > 0) on the host
 * over the segmented copy: the ranks into 'rank' (dtype rdt, n), the
 * iterations' count into '*iters'. The iteration is NetworkX's (Jacobi),
 * as graph.pr_pull_undirected's. */
static int pagerank_ordered(const sk_graph *g, int rdt, double d, double tol,
                            int64_t maxiter, sk_view *rank, int64_t *iters, char *err,
                            size_t errlen) {
  const int64_t n = g->nv;
  const int space = g->rowptr->space;
  int rc = -1;
  prs s;
  memset(&s, 0, sizeof s);
  sk_view x, c, cn, acc;
  sk_view *all[] = {&x, &c, &cn, &acc};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (prs_get(g, &s, err, errlen) < 0) goto done;
  const int64_t nz = s.nz;
  if (sk_sp_view(&x, "rank", rdt, nz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&c, "contributions", rdt, nz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cn, "contributions", rdt, nz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&acc, "partial sums", SK_F64, nz, space, 1, err, errlen) < 0)
    goto done;
  if (nz > 0) {
    sk_arg b[] = {sk_arg_view("rp2", &s.rp2), sk_arg_view("x", &x), sk_arg_view("c", &c),
                  sk_arg_f64("x0", 1.0 / (double)n)};
    if (sk_sp_range(&k_prg_init, nz, b, NELEM(b), NULL, err, errlen) < 0) goto done;
  }
  /* the vertices without arcs all have one rank: 'prev' as stored (in
   * the views' type), 'base' as computed; all are dangling */
  const double niso = (double)(n - nz);
  double prev = rdt == SK_F32 ? (double)(float)(1.0 / (double)n) : 1.0 / (double)n,
         base = 0;
  double dangling = niso * prev;
  int64_t it;
  for (it = 1; it <= maxiter; it++) {
    sk_result r;
    base = (d * dangling + 1 - d) / (double)n;
    double delta = 0;
    if (nz > 0) {
      for (int64_t q = s.ns - 1; q >= 1; q--) {
        const int64_t nb = prs_pieces(&s, q);
        if (nb == 0) continue;
        sk_arg a[] = {sk_arg_view("bnd", &s.bnd),
                      sk_arg_view("off", &s.off),
                      sk_arg_view("rows", &s.rows),
                      sk_arg_view("c16", &s.c16),
                      sk_arg_view("c", &c),
                      sk_arg_view("ps", &acc),
                      sk_arg_i64("o", q * (PRS_PIECES + 1)),
                      sk_arg_i64("cb", q << PRS_SHIFT),
                      sk_arg_i64("nz", nz)};
        if (sk_galgo_degree_range_chunk(&k_prs_pull, nb, 1, a, NELEM(a), NULL, err,
                                        errlen) < 0)
          goto done;
      }
      sk_arg a[] = {sk_arg_view("bnd", &s.bnd), sk_arg_view("off", &s.off),
                    sk_arg_view("c16", &s.c16), sk_arg_view("c", &c),
                    sk_arg_view("ps", &acc),    sk_arg_view("x", &x),
                    sk_arg_view("cn", &cn),     sk_arg_view("rp2", &s.rp2),
                    sk_arg_f64("d", d),         sk_arg_f64("base", base)};
      if (sk_galgo_degree_range_chunk(&k_prs_last, prs_pieces(&s, 0), 1, a, NELEM(a), &r,
                                      err, errlen) < 0)
        goto done;
      delta = sk_result_f64(&r, 0);
    }
    delta += niso * fabs(base - prev); /* the new rank against the stored one */
    prev = rdt == SK_F32 ? (double)(float)base : base;
    dangling = niso * base;
    sk_view t = c;
    c = cn;
    cn = t;
    if (delta < (double)n * tol) break;
  }
  *iters = it > maxiter ? maxiter : it;
  {
    sk_arg a[] = {sk_arg_view("perm", &s.perm), sk_arg_view("x", &x),
                  sk_arg_view("rank", rank), sk_arg_i64("nz", nz),
                  sk_arg_f64("tail", base)};
    if (sk_sp_range(&k_prg_out, n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  rc = 0;
done:
  prs_release(&s);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}
/* graph.pagerank: G_* [, directed, damping, tol, maxiter, dtype "float64"
 * | "float32"] -> rank (of that dtype), iters */
static int pagerank(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {
    "G_rowptr", "G_colidx", "G_weights", "directed",        "damping",
    "tol",      "maxiter",  "dtype",     "personalization", NULL};
  sk_graph g;
  int directed;
  double d = 0.85, tol = 1e-6;
  const char *dts;
  int64_t maxiter;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "damping") &&
       sk_karg_f64(args, nargs, "damping", &d, err, errlen) < 0) ||
      (sk_karg_find(args, nargs, "tol") &&
       sk_karg_f64(args, nargs, "tol", &tol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "maxiter", 1, 100, &maxiter, err, errlen) < 0 ||
      !(dts = sk_karg_str(args, nargs, "dtype", "float64", err, errlen)))
    return -1;
  if (strcmp(dts, "float64") != 0 && strcmp(dts, "float32") != 0) {
    sk_err(err, errlen, SK_E_DTYPE_NOT_FLOAT64, dts);
    return -1;
  }
  const int rdt = strcmp(dts, "float32") == 0 ? SK_F32 : SK_F64;
  if (!(d >= 0 && d <= 1)) {
    sk_err(err, errlen, SK_E_DAMPING_MUST, d);
    return -1;
  }
  if (!(tol > 0)) {
    sk_err(err, errlen, SK_E_TOL_MUST_POSITIVE, tol);
    return -1;
  }
  if (maxiter < 1) {
    sk_err(err, errlen, SK_E_MAXITER_MUST_LEAST, (long long)maxiter);
    return -1;
  }
  const sk_view *pers = NULL;
  if (sk_karg_find(args, nargs, "personalization") &&
      !(pers = sk_karg_view(args, nargs, "personalization", 1, err, errlen)))
    return -1;
  int64_t n = g.nv;
  int space = g.rowptr->space, rc = -1;
  sk_view outw, x, xn, c, cn, ones, hcnt, hq, hr, hs, pq;
  sk_kvalue tv;
  memset(&tv, 0, sizeof tv);
  sk_view *all[] = {&outw, &x, &xn, &c, &cn, &ones, &hcnt, &hq, &hr, &hs, &pq};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  int64_t it = 0;
  if (pers && ppr_vector(pers, n, space, &pq, err, errlen) < 0) return -1;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) goto done;
  /* the host, undirected and unweighted: over a copy in degree order */
  if (!pers && !directed && !g.weights && n > 0 && sk_sp_host(be)) {
    if (sk_sp_view(&x, "rank", rdt, n, space, 0, err, errlen) < 0 ||
        pagerank_ordered(&g, rdt, d, tol, maxiter, &x, &it, err, errlen) < 0)
      goto done;
    goto out;
  }
  if (sk_sp_view(&outw, "out weight", SK_F64, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&x, "rank", rdt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&xn, "rank", rdt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&c, "contributions", rdt, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cn, "contributions", rdt, n, space, 0, err, errlen) < 0 ||
      (n > 0 && sk_view_fill(&x, 1.0 / (double)n, 0, err, errlen) < 0))
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("outw", &outw),
                  sk_arg_view("w", g.weights ? g.weights : g.rowptr)};
    if (sk_sp_range(g.weights ? &k_pr_outw : &k_pr_deg, n, a, g.weights ? 3 : 2, NULL,
                    err, errlen) < 0)
      goto done;
  }
  /* the in-arcs */
  const sk_view *trp = g.rowptr, *tci = g.colidx, *tw = g.weights;
  if (directed) {
    const sk_view *vals = g.weights;
    if (!vals) {
      if (sk_sp_view(&ones, "ones", SK_F64, g.narcs, space, 0, err, errlen) < 0 ||
          (g.narcs > 0 && sk_view_fill(&ones, 1.0, 1, err, errlen) < 0))
        goto done;
      vals = &ones;
    }
    sk_arg a[] = {sk_arg_view("A_rowptr", g.rowptr), sk_arg_view("A_colidx", g.colidx),
                  sk_arg_view("A_values", vals), sk_arg_i64("A_ncols", n)};
    if (sk_kernel_call("sparse.transpose", a, NELEM(a), &tv, NULL, err, errlen) < 0)
      goto done;
    trp = &tv.out[0].view;
    tci = &tv.out[1].view;
    tw = g.weights ? &tv.out[2].view : NULL;
  }
  /* a GPU, undirected and unweighted: the rows of PR_BIG arcs or more in
   * chunks (see k_pr_heavy_list) */
  const int heavy = !pers && !sk_sp_host(be) && !directed && !tw && n > 0;
  int64_t nq = 0, nh = 0;
  if (heavy) {
    const int64_t mh = g.narcs / PR_BIG + 1;
    if (sk_sp_view(&hcnt, "heavy rows' count", SK_I64, 2, space, 1, err, errlen) < 0 ||
        sk_sp_view(&hq, "heavy rows' chunks", SK_I64, g.narcs / PR_CHUNK + mh, space, 0,
                   err, errlen) < 0 ||
        sk_sp_view(&hr, "heavy rows", SK_I64, mh, space, 0, err, errlen) < 0 ||
        sk_sp_view(&hs, "heavy rows' sums", SK_F64, n, space, 1, err, errlen) < 0)
      goto done;
    sk_arg a[] = {sk_arg_view("rowptr", trp), sk_arg_view("cnt", &hcnt),
                  sk_arg_view("hq", &hq),     sk_arg_view("hr", &hr),
                  sk_arg_i64("big", PR_BIG),  sk_arg_i64("chunk", PR_CHUNK)};
    if (sk_sp_range(&k_pr_heavy_list, n, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&hcnt, 0, &nq, err, errlen) < 0 ||
        sk_sp_get_i64(&hcnt, 1, &nh, err, errlen) < 0)
      goto done;
  }
  double dangling = 0;
  if (n > 0) {
    sk_result r;
    sk_arg a[] = {sk_arg_view("x", &x), sk_arg_view("outw", &outw), sk_arg_view("c", &c)};
    if (sk_sp_range(&k_pr_contrib, n, a, NELEM(a), &r, err, errlen) < 0) goto done;
    dangling = sk_result_f64(&r, 0);
  }
  for (it = 1; it <= maxiter && n > 0; it++) {
    sk_result r;
    double base = (d * dangling + 1 - d) / (double)n;
    if (pers) base = d * dangling + 1 - d; /* times p(v) */
    /* (a slot more for pr_pull's n) */
    sk_arg p[] = {sk_arg_view("rowptr", trp), sk_arg_view("colidx", tci),
                  sk_arg_view("c", &c),       sk_arg_view("x", &x),
                  sk_arg_view("xn", &xn),     sk_arg_view("outw", &outw),
                  sk_arg_view("cn", &cn),     sk_arg_f64("d", d),
                  sk_arg_f64("base", base),   sk_arg_view("w", tw ? tw : &x),
                  sk_arg_i64("n", n)};
    sk_arg pu[] = {
      sk_arg_view("rowptr", trp), sk_arg_view("colidx", tci),
      sk_arg_view("c", &c),       sk_arg_view("x", &x),
      sk_arg_view("cn", &cn),     sk_arg_f64("d", d),
      sk_arg_f64("base", base),   sk_arg_i64("big", heavy ? PR_BIG : INT64_MAX)};
    double change = 0;
    if (pers) {
      /* (p before pr_pull's n) */
      sk_arg q[] = {sk_arg_view("rowptr", trp), sk_arg_view("colidx", tci),
                    sk_arg_view("c", &c),       sk_arg_view("x", &x),
                    sk_arg_view("xn", &xn),     sk_arg_view("outw", &outw),
                    sk_arg_view("cn", &cn),     sk_arg_f64("d", d),
                    sk_arg_f64("base", base),   sk_arg_view("w", tw ? tw : &x),
                    sk_arg_view("p", &pq),      sk_arg_i64("n", n)};
      if (!tw) q[9] = q[10];
      if (pr_pull(tw ? &k_ppr_pullw : &k_ppr_pull,
                  tw ? &k_ppr_pullw_team : &k_ppr_pull_team, n, q, tw ? 11 : 10, &r, err,
                  errlen) < 0)
        goto done;
      sk_view t = x;
      x = xn;
      xn = t;
    } else if (!directed && !tw) {
      if (sk_galgo_degree_range(&k_pr_pull_u, n, pu, NELEM(pu), &r, err, errlen) < 0 ||
          (heavy && nh > 0 &&
           pr_heavy(trp, tci, &c, &x, &cn, &hq, &hr, &hs, nq, nh, d, base, &change, err,
                    errlen) < 0))
        goto done;
    } else {
      if (pr_pull(tw ? &k_pr_pullw : &k_pr_pull, tw ? &k_pr_pullw_team : &k_pr_pull_team,
                  n, p, tw ? 10 : 9, &r, err, errlen) < 0)
        goto done;
      sk_view t = x;
      x = xn;
      xn = t;
    }
    sk_view t = c;
    c = cn;
    cn = t;
    dangling = sk_result_f64(&r, 1);
    if (sk_result_f64(&r, 0) + change < (double)n * tol) break;
  }
  if (it > maxiter) it = maxiter;
out:
  if (sk_kout_view(out, "rank", &x, err, errlen) < 0 ||
      sk_kout_num(out, "iters", (double)(n > 0 ? it : 0), err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_kout_release(&tv);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- registration --------------------------------------------------------- */
const sk_kentry sk_galgo_pr = {
  "graph.pagerank", "G_* [, directed, damping, tol, maxiter, dtype, personalization]",
  SK_KRES_NONE, pagerank};

const sk_kbody *const sk_gpr_bodies[] = {
  &k_pr_deg,    &k_pr_outw,   &k_pr_contrib, &k_pr_pull,  &k_pr_pullw, &k_pr_pull_u,
  &k_prg_hist,  &k_prg_perm,  &k_prg_fill,   &k_prg_init, &k_prg_out,  &k_ppr_pull,
  &k_ppr_pullw, &k_ppr_check, &k_ppr_scale,  &k_prs_count, &k_prs_place,
  &k_prs_pull,  &k_prs_bounds, &k_prs_last, NULL};
