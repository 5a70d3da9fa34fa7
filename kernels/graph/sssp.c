/* sssp.c: graph.sssp: single-source shortest paths by delta-stepping
 * (Meyer and Sanders; GAP's sssp.cc) or Bellman-Ford, bucket-synchronous
 * with the frontiers in device memory on every back end; on the host,
 * integer weights (and none) take the bucket lists (bins, below: a round
 * a bucket, bin fusion). Bodies: sssp.sk. */
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
 * one lowered past it goes on a pile with its bucket (GAP keeps a bin a
 * bucket a thread; here two piles in the graph's space, an entry a vertex
 * and the bucket it was pushed for): the near pile holds the buckets of a
 * window [.., lim), the far pile those from lim. When b's frontier is
 * empty, the next bucket is the smallest pushed near (each round and
 * split reduces it): the near entries pushed for it whose vertex is still
 * in it become the frontier, the later ones a new near pile (copied, not
 * read: no distance loaded), the rest -- stale: their vertex fell since,
 * and was pushed again -- are dropped. When the near pile is empty, the
 * far pile is split so, the window moved to [bsel, bsel + win): an entry
 * is copied about win / 2 times near and (how far ahead it landed) / win
 * times far, where one pile would copy it once a bucket. A vertex is
 * pushed once a bucket (pbk: the smallest bucket it was pushed for), so
 * the live entries are at most nv; a round that overflows a pile's 2 nv
 * entries (its pushes past the end are counted, not stored) has the
 * piles made again from the distances. Every arc is relaxed (GAP's
 * choice: no light/heavy split, whose extra pass costs more than the few
 * heavy relaxations it saves on graphs of short weights). The host's
 * bodies buffer their pushes (an atomic a buffer of 64) and take several
 * frontier vertices or 512 pile entries a work item; the device's give a
 * frontier vertex a warp (its arcs over the lanes) and reserve with
 * atomic_fetch_add_combined (an atomic a warp).
 *
 * Bellman-Ford is the same loop with one bucket (delta = the largest
 * distance): rounds until no distance falls; a frontier still active after
 * nv rounds means a negative cycle reachable from the source. */
enum { KIND_I, KIND_U, KIND_F }; /* int weights, none (1), float weights */

#define SIG_VS R1("nmark", "int32") R1("pbk", "int64")
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
/* integer distances beside their pushed buckets (dp: 2 nv) */
static const char *const sig_init_p[] = {
  "range" R1("dp", "int64") R1("nmark", "int32") " inf=int64", NULL};
static const sk_kbody k_init_p = {.label = "graph.sssp_init_p",
                                  .body = sk_body_graph_sssp_init_p,
                                  .pattern = SK_FOR,
                                  .sigs = sig_init_p};
static const char *const sig_seed_p[] = {
  "range" R1("dp", "int64") R1("nmark", "int32") R1("q", "int32") R1("cnt", "int64")
    " s=int64",
  NULL};
static const sk_kbody k_seed_p = {.label = "graph.sssp_seed_p",
                                  .body = sk_body_graph_sssp_seed_p,
                                  .pattern = SK_FOR,
                                  .sigs = sig_seed_p};
static const char *const sig_dout[] = {"range" R1("dist", "int64") R1("dp", "int64"), NULL};
static const sk_kbody k_dout = {.label = "graph.sssp_dist_out",
                                .body = sk_body_graph_sssp_dist_out,
                                .pattern = SK_FOR,
                                .sigs = sig_dout};
static const char *const sig_setc[] = {
  "range" R1("cnt", "int64") " c0=int64 c1=int64 c4=int64", NULL};
static const sk_kbody k_setc = {.label = "graph.sssp_set_counts",
                                .body = sk_body_graph_sssp_set_counts,
                                .pattern = SK_FOR,
                                .sigs = sig_setc};

/* a round's relaxation on the host (ch vertices a work item, pushes
 * buffered); by kind */
#define RELAX_TAIL                                                                  \
  R1("nmark", "int32") R1("pbk", "int64") R1("q", "int32") R1("nq", "int32")        \
    R1("pv", "int32") R1("pb", "int64") R1("pvf", "int32") R1("pbf", "int64")       \
      R1("cnt", "int64")
/* (integer kinds: the pushed buckets in dp) */
#define RELAX_TAIL_P                                                                \
  R1("nmark", "int32") R1("q", "int32") R1("nq", "int32") R1("pv", "int32")         \
    R1("pb", "int64") R1("pvf", "int32") R1("pbf", "int64") R1("cnt", "int64")
#define RELAX_SC_I " delta=int64 b=int64 r=int64 cap=int64 lim=int64"
#define RELAX_SC_F " delta=float64 b=int64 r=int64 cap=int64 lim=int64"
static const char *const sig_relax_ih[] = {
  "range" G3 R1("w", "int32") R1("dp", "int64") RELAX_TAIL_P RELAX_SC_I " qn=int64 ch=int64",
  "range" G3 R1("w", "int64") R1("dp", "int64") RELAX_TAIL_P RELAX_SC_I " qn=int64 ch=int64",
  NULL};
static const char *const sig_relax_uh[] = {
  "range" G3 R1("dp", "int64") RELAX_TAIL_P RELAX_SC_I " qn=int64 ch=int64", NULL};
static const char *const sig_relax_fh[] = {"range" G3 R1("w", "float64") R1(
                                             "dist", "float64") RELAX_TAIL RELAX_SC_F
                                           " qn=int64 ch=int64",
                                           NULL};
#define RELAX_K(name, sig)                                                              \
  {                                                                                     \
    .label = "graph." #name, .body = sk_body_graph_##name, .pattern = SK_REDUCE,        \
    .sigs = sig, .reds = "sum:int64 min:int64 min:int64", .host_only = 1                \
  }
static const sk_kbody k_relax[3] = {RELAX_K(sssp_relax_host_i, sig_relax_ih),
                                    RELAX_K(sssp_relax_host_u, sig_relax_uh),
                                    RELAX_K(sssp_relax_host_f, sig_relax_fh)};

/* the device's loop (sssp.sk's sssp_dl_*): a round, its end, a split,
 * its end, the control set from the host; the piles and frontiers all
 * given, ctl choosing */
#define DL_PILES                                                                    \
  R1("q", "int32") R1("nq", "int32") R1("pv", "int32") R1("pb", "int64")            \
    R1("pv2", "int32") R1("pb2", "int64") R1("pvf", "int32") R1("pbf", "int64")     \
      R1("pvf2", "int32") R1("pbf2", "int64") R1("ctl", "int64")
#define DL_HEAVY R1("heavy", "int32")
static const char *const sig_dl_relax_i[] = {
  "team" G3 R1("w", "int32") R1("dp", "int64") R1("nmark", "int32") DL_PILES DL_HEAVY
  " delta=int64 cap=int64 hd=int64",
  "team" G3 R1("w", "int64") R1("dp", "int64") R1("nmark", "int32") DL_PILES DL_HEAVY
  " delta=int64 cap=int64 hd=int64",
  NULL};
static const char *const sig_dl_relax_u[] = {"team" G3 R1("dp", "int64") R1(
                                               "nmark", "int32") DL_PILES DL_HEAVY
                                             " delta=int64 cap=int64 hd=int64",
                                             NULL};
static const char *const sig_dl_relax_f[] = {
  "team" G3 R1("w", "float64") R1("dist", "float64") R1("nmark", "int32") R1("pbk", "int64")
    DL_PILES DL_HEAVY " delta=float64 cap=int64 hd=int64",
  NULL};
#undef DL_HEAVY
#define DL_K(name, sig)                                                                 \
  {.label = "graph." #name, .body = sk_body_graph_##name, .pattern = SK_FOR, .sigs = sig}
static const sk_kbody k_dl_relax[3] = {DL_K(sssp_dl_relax_i, sig_dl_relax_i),
                                       DL_K(sssp_dl_relax_u, sig_dl_relax_u),
                                       DL_K(sssp_dl_relax_f, sig_dl_relax_f)};
static const char *const sig_dl_split_i[] = {
  "range" R1("dp", "int64") DL_PILES " delta=int64 m=int64", NULL};
static const char *const sig_dl_split_f[] = {
  "range" R1("dist", "float64") DL_PILES " delta=float64 m=int64", NULL};
/* (the heavy vertices' pieces: the round's signatures) */
static const sk_kbody k_dl_heavy[3] = {DL_K(sssp_dl_heavy_i, sig_dl_relax_i),
                                       DL_K(sssp_dl_heavy_u, sig_dl_relax_u),
                                       DL_K(sssp_dl_heavy_f, sig_dl_relax_f)};
static const sk_kbody k_dl_split[2] = {DL_K(sssp_dl_split_i, sig_dl_split_i),
                                       DL_K(sssp_dl_split_f, sig_dl_split_f)};
static const char *const sig_dl_rend[] = {
  "range" R1("ctl", "int64") " cap=int64 bf=int64 nv=int64 win=int64", NULL};
static const char *const sig_dl_send[] = {"range" R1("ctl", "int64"), NULL};
static const char *const sig_dl_set[] = {
  "range" R1("ctl", "int64") " nn=int64 minn=int64 fn=int64 minf=int64 qn=int64 b=int64"
  " lim=int64 r=int64 qs=int64 ns=int64 fs=int64 rounds=int64",
  NULL};
static const sk_kbody k_dl_rend = DL_K(sssp_dl_round_end, sig_dl_rend);
static const sk_kbody k_dl_send = DL_K(sssp_dl_split_end, sig_dl_send);
static const sk_kbody k_dl_set = DL_K(sssp_dl_set, sig_dl_set);
#undef DL_K
#undef DL_PILES

/* the next bucket's frontier from the pile on the host (512 entries a
 * work item); int or float */
#define SPLIT_TAIL                                                                  \
  R1("q", "int32") R1("iv", "int32") R1("ib", "int64") R1("ov", "int32")           \
    R1("ob", "int64") R1("xv", "int32") R1("xb", "int64") R1("cnt", "int64")
static const char *const sig_split_ih[] = {"range" R1("rowptr", "int64") R1(
                                             "dp", "int64") SPLIT_TAIL
                                           " delta=int64 bsel=int64 lim=int64 n=int64",
                                           NULL};
static const char *const sig_split_fh[] = {"range" R1("rowptr", "int64") R1(
                                             "dist", "float64") SPLIT_TAIL
                                           " delta=float64 bsel=int64 lim=int64 n=int64",
                                           NULL};
#define SPLIT_K(name, sig)                                                              \
  {                                                                                     \
    .label = "graph." #name, .body = sk_body_graph_##name, .pattern = SK_REDUCE,        \
    .sigs = sig, .reds = "sum:int64 min:int64 min:int64", .host_only = 1                \
  }
static const sk_kbody k_split[2] = {SPLIT_K(sssp_split_host_i, sig_split_ih),
                                    SPLIT_K(sssp_split_host_f, sig_split_fh)};

#define REBUILD_SIG(dt)                                                                  \
  "range" R1("dist", dt) R1("pbk", "int64") R1("pv", "int32") R1("pb", "int64")        \
    R1("pvf", "int32") R1("pbf", "int64") R1("cnt", "int64") " inf=" dt " delta=" dt \
    " b=int64 lim=int64"
static const char *const sig_rebuild_i[] = {
  "range" R1("dp", "int64") R1("pv", "int32") R1("pb", "int64") R1("pvf", "int32")
    R1("pbf", "int64") R1("cnt", "int64") " inf=int64 delta=int64 b=int64 lim=int64",
  NULL};
static const char *const sig_rebuild_f[] = {REBUILD_SIG("float64"), NULL};
#undef REBUILD_SIG
static const sk_kbody k_rebuild[2] = {{.label = "graph.sssp_rebuild_i",
                                       .body = sk_body_graph_sssp_rebuild_i,
                                       .pattern = SK_REDUCE,
                                       .sigs = sig_rebuild_i,
                                       .reds = "min:int64 min:int64"},
                                      {.label = "graph.sssp_rebuild_f",
                                       .body = sk_body_graph_sssp_rebuild_f,
                                       .pattern = SK_REDUCE,
                                       .sigs = sig_rebuild_f,
                                       .reds = "min:int64 min:int64"}};

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

/* the host's bucket lists (integer kinds): a round a bucket, lanes with
 * blocks of their own (sssp.sk's bins) */
#define BINS_TAIL R1("pool", "int32") R1("bm", "int32") R1("bnx", "int32") R1("lo", "int32") \
  R1("gs", "int64")
#define BINS_SC " delta=int64 b=int64 nr=int64 ls=int64 bs=int64 nb=int64"
#define BR(name, sig)                                                                   \
  {                                                                                     \
    .label = "graph." #name, .body = sk_body_graph_##name, .pattern = SK_REDUCE,        \
    .sigs = sig, .reds = "min:int64 max:int64"                                          \
  }
#define B32 R1("dq", "int32")
static const char *const sig_bround_i[] = {
  "range" G3 R1("w", "int32") R1("dp", "int64") BINS_TAIL BINS_SC,
  "range" G3 R1("w", "int64") R1("dp", "int64") BINS_TAIL BINS_SC, NULL};
static const char *const sig_bround_j[] = {"range" G3 R1("w", "int32") B32 BINS_TAIL BINS_SC,
                                           "range" G3 R1("w", "int64") B32 BINS_TAIL BINS_SC,
                                           NULL};
static const char *const sig_bround_v[] = {"range" G3 B32 BINS_TAIL BINS_SC, NULL};
/* [0] int64 distances (dp), [1] int32, [2] int32 unweighted */
static const sk_kbody k_bround[3] = {BR(sssp_bins_round_i, sig_bround_i),
                                     BR(sssp_bins_round_j, sig_bround_j),
                                     BR(sssp_bins_round_v, sig_bround_v)};
static const char *const sig_bfill_i[] = {
  "range" R1("dp", "int64") BINS_TAIL BINS_SC " inf=int64 nv=int64 nl=int64", NULL};
static const char *const sig_bfill_j[] = {
  "range" B32 BINS_TAIL BINS_SC " inf=int64 nv=int64 nl=int64", NULL};
static const sk_kbody k_bfill[2] = {BR(sssp_bins_fill_i, sig_bfill_i),
                                    BR(sssp_bins_fill_j, sig_bfill_j)};
#undef BR
static const char *const sig_breset[] = {
  "range" R1("lo", "int32") R1("gs", "int64") " nlo=int64 ngs=int64", NULL};
static const sk_kbody k_breset = {.label = "graph.sssp_bins_reset",
                                  .body = sk_body_graph_sssp_bins_reset,
                                  .pattern = SK_FOR,
                                  .sigs = sig_breset};
static const char *const sig_binit[] = {"range" R1("dp", "int64") " inf=int64", NULL};
static const char *const sig_binit_j[] = {"range" B32 " inf=int64", NULL};
static const sk_kbody k_binit[2] = {{.label = "graph.sssp_bins_init",
                                     .body = sk_body_graph_sssp_bins_init,
                                     .pattern = SK_FOR,
                                     .sigs = sig_binit},
                                    {.label = "graph.sssp_bins_init_j",
                                     .body = sk_body_graph_sssp_bins_init_j,
                                     .pattern = SK_FOR,
                                     .sigs = sig_binit_j}};
#define SEED_TAIL R1("lo", "int32") R1("pool", "int32") R1("bm", "int32") R1("gs", "int64") \
  " s=int64"
static const char *const sig_bseed[] = {"range" R1("dp", "int64") SEED_TAIL, NULL};
static const char *const sig_bseed_j[] = {"range" R1("dq", "int32") SEED_TAIL, NULL};
#undef SEED_TAIL
static const sk_kbody k_bseed[2] = {{.label = "graph.sssp_bins_seed",
                                     .body = sk_body_graph_sssp_bins_seed,
                                     .pattern = SK_FOR,
                                     .sigs = sig_bseed},
                                    {.label = "graph.sssp_bins_seed_j",
                                     .body = sk_body_graph_sssp_bins_seed_j,
                                     .pattern = SK_FOR,
                                     .sigs = sig_bseed_j}};
static const char *const sig_bdout_j[] = {"range" R1("dist", "int64") R1("dq", "int32"),
                                          NULL};
static const sk_kbody k_bdout_j = {.label = "graph.sssp_bins_dist_out_j",
                                   .body = sk_body_graph_sssp_bins_dist_out_j,
                                   .pattern = SK_FOR,
                                   .sigs = sig_bdout_j};
#undef B32
#undef BINS_TAIL
#undef BINS_SC

/* -- the loop ------------------------------------------------------------------ */
typedef struct sssp_state {
  const sk_graph *g;
  const sk_view *w; /* NULL: unweighted */
  int kind;         /* KIND_* */
  int host;         /* the host's bodies (1) or the device's (0) */
  int threads;      /* the back end's concurrency */
  int warp;         /* its warp (the device's vector length) */
  int64_t idelta;   /* the bucket width (integer kinds) */
  int64_t maxw;     /* the largest weight (integer kinds; 1 unweighted) */
  int small;        /* pile_capacity given: the bucket lists' pool smallest */
  int narrow;       /* the bucket lists with int32 distances (dq) */
  int autod;        /* delta chosen here (not given) */
  sk_view *d32;     /* dq: int32 distances beside their pushed buckets */
  double fdelta;    /* (float kind) */
  int64_t cap;      /* each pile's entries */
  int64_t win;      /* the near piles' buckets */
  int pair;         /* integer kinds: the distances and pushed buckets in dp */
  int64_t heavy;    /* the device's loop: a vertex of more arcs is relaxed by all */
  sk_view *dist, *nmark, *pbk, *q, *nq, *cnt, *dp;
  sk_view *pv, *pb, *pv2, *pb2, *pvf, *pbf, *pvf2, *pbf2; /* near, far (and their next) */
  /* where the search is: bucket b; near pile below lim, far from it;
   * their sizes and smallest buckets pushed */
  int64_t b, lim, qn, nn, fn, farcs, minn, minf;
} sssp_state;

static sk_arg delta_arg(const sssp_state *st) {
  return st->kind == KIND_F ? sk_arg_f64("delta", st->fdelta)
                            : sk_arg_i64("delta", st->idelta);
}

static int set_counts(const sssp_state *st, int64_t c0, int64_t c1, int64_t c4, char *err,
                      size_t errlen) {
  sk_arg a[] = {sk_arg_view("cnt", st->cnt), sk_arg_i64("c0", c0), sk_arg_i64("c1", c1),
                sk_arg_i64("c4", c4)};
  return sk_sp_range(&k_setc, 1, a, NELEM(a), NULL, err, errlen);
}

/* the six counts (frontier, near pile, the frontier's arcs, the smallest
 * bucket pushed near, far pile, the smallest bucket pushed far) in one
 * copy (on the host, the view itself) */
static int get_counts(const sssp_state *st, int64_t c[6], char *err, size_t errlen) {
  sk_view h;
  memset(&h, 0, sizeof h);
  if (sk_sp_host_copy(st->cnt, &h, err, errlen) < 0) return -1;
  memcpy(c, h.data, 6 * sizeof *c);
  sk_view_release(&h);
  return 0;
}

static void swap_views(sk_view *a, sk_view *b) {
  sk_view t = *a;
  *a = *b;
  *b = t;
}

/* piles that overflowed made again from the distances (at most nv
 * entries together) */
static int rebuild(sssp_state *st, char *err, size_t errlen) {
  const int fl = st->kind == KIND_F;
  sk_arg a[12];
  int na = 0;
  if (st->pair) {
    a[na++] = sk_arg_view("dp", st->dp);
  } else {
    a[na++] = sk_arg_view("dist", st->dist);
    a[na++] = sk_arg_view("pbk", st->pbk);
  }
  a[na++] = sk_arg_view("pv", st->pv);
  a[na++] = sk_arg_view("pb", st->pb);
  a[na++] = sk_arg_view("pvf", st->pvf);
  a[na++] = sk_arg_view("pbf", st->pbf);
  a[na++] = sk_arg_view("cnt", st->cnt);
  a[na++] = fl ? sk_arg_f64("inf", HUGE_VAL) : sk_arg_i64("inf", INT64_MAX);
  a[na++] = delta_arg(st);
  a[na++] = sk_arg_i64("b", st->b);
  a[na++] = sk_arg_i64("lim", st->lim);
  sk_result res;
  int64_t c[6];
  if (set_counts(st, 0, 0, 0, err, errlen) < 0 ||
      sk_sp_range(&k_rebuild[fl], st->g->nv, a, na, &res, err, errlen) < 0 ||
      get_counts(st, c, err, errlen) < 0)
    return -1;
  st->nn = c[1];
  st->fn = c[4];
  st->minn = sk_result_i64(&res, 0);
  st->minf = sk_result_i64(&res, 1);
  return 0;
}

/* the graph and the distances a relaxation reads (the weights when there
 * are any; the distance-bucket pairs or the distances and pushed buckets),
 * into a; returns how many */
static int graph_dist_args(const sssp_state *st, sk_arg *a) {
  const sk_graph *g = st->g;
  int na = 0;
  a[na++] = sk_arg_view("rowptr", g->rowptr);
  a[na++] = sk_arg_view("colidx", g->colidx);
  if (st->w) a[na++] = sk_arg_view("w", st->w);
  if (st->pair) {
    a[na++] = sk_arg_view("dp", st->dp);
    a[na++] = sk_arg_view("nmark", st->nmark);
  } else {
    a[na++] = sk_arg_view("dist", st->dist);
    a[na++] = sk_arg_view("nmark", st->nmark);
    a[na++] = sk_arg_view("pbk", st->pbk);
  }
  return na;
}

/* a round on the host: the frontier relaxed in bucket b (stamp r): the
 * next frontier, the piles grown */
static int relax(sssp_state *st, int64_t r, char *err, size_t errlen) {
  sk_arg a[24];
  int na = graph_dist_args(st, a);
  a[na++] = sk_arg_view("q", st->q);
  a[na++] = sk_arg_view("nq", st->nq);
  a[na++] = sk_arg_view("pv", st->pv);
  a[na++] = sk_arg_view("pb", st->pb);
  a[na++] = sk_arg_view("pvf", st->pvf);
  a[na++] = sk_arg_view("pbf", st->pbf);
  a[na++] = sk_arg_view("cnt", st->cnt);
  a[na++] = delta_arg(st);
  a[na++] = sk_arg_i64("b", st->b);
  a[na++] = sk_arg_i64("r", r);
  a[na++] = sk_arg_i64("cap", st->cap);
  a[na++] = sk_arg_i64("lim", st->lim);
  a[na++] = sk_arg_i64("qn", st->qn);
  int64_t mn, mf;
  if (set_counts(st, 0, st->nn, st->fn, err, errlen) < 0) return -1;
  /* ch vertices a work item: about 64 items a thread, at most 64 each */
  int64_t ch = st->qn / (64 * (int64_t)st->threads);
  ch = ch < 1 ? 1 : ch > 64 ? 64 : ch;
  a[na++] = sk_arg_i64("ch", ch);
  sk_result res;
  int64_t c[6];
  if (sk_galgo_degree_range_chunk(&k_relax[st->kind], (st->qn + ch - 1) / ch, 2, a, na, &res,
                                  err, errlen) < 0 ||
      get_counts(st, c, err, errlen) < 0)
    return -1;
  st->qn = c[0];
  st->nn = c[1];
  st->fn = c[4];
  st->farcs = sk_result_i64(&res, 0);
  mn = sk_result_i64(&res, 1);
  mf = sk_result_i64(&res, 2);
  if (mn < st->minn) st->minn = mn;
  if (mf < st->minf) st->minf = mf;
  swap_views(st->q, st->nq);
  return st->nn > st->cap || st->fn > st->cap ? rebuild(st, err, errlen) : 0;
}

/* the next bucket bsel from the near pile, or (it empty) from the far one,
 * whose split moves the window to [bsel, bsel + win): the entries of bsel
 * still in it to the frontier, the later ones to new piles */
static int split(sssp_state *st, char *err, size_t errlen) {
  const int near = st->nn > 0 && st->minn != INT64_MAX;
  const int64_t bsel = near ? st->minn : st->minf, n = near ? st->nn : st->fn;
  if (!near) st->lim = bsel + st->win > bsel ? bsel + st->win : INT64_MAX;
  /* near: into the other near pile, far entries appended to the far pile
   * (none: the near ones are below lim); far: into the near pile (empty)
   * and the other far pile */
  sk_view *ov = near ? st->pv2 : st->pv, *ob = near ? st->pb2 : st->pb;
  sk_view *xv = near ? st->pvf : st->pvf2, *xb = near ? st->pbf : st->pbf2;
  sk_arg a[] = {sk_arg_view("rowptr", st->g->rowptr),
                st->pair ? sk_arg_view("dp", st->dp) : sk_arg_view("dist", st->dist),
                sk_arg_view("q", st->q),
                sk_arg_view("iv", near ? st->pv : st->pvf),
                sk_arg_view("ib", near ? st->pb : st->pbf),
                sk_arg_view("ov", ov),
                sk_arg_view("ob", ob),
                sk_arg_view("xv", xv),
                sk_arg_view("xb", xb),
                sk_arg_view("cnt", st->cnt),
                delta_arg(st),
                sk_arg_i64("bsel", bsel),
                sk_arg_i64("lim", st->lim),
                sk_arg_i64("n", n)};
  const int fl = st->kind == KIND_F;
  sk_result res;
  int64_t c[6];
  if (set_counts(st, 0, 0, near ? st->fn : 0, err, errlen) < 0 ||
      sk_sp_range(&k_split[fl], (n + 511) / 512, a, NELEM(a), &res, err, errlen) < 0 ||
      get_counts(st, c, err, errlen) < 0)
    return -1;
  st->qn = c[0];
  st->nn = c[1];
  st->fn = c[4];
  st->farcs = sk_result_i64(&res, 0);
  st->minn = sk_result_i64(&res, 1);
  const int64_t mf = sk_result_i64(&res, 2);
  if (near) {
    swap_views(st->pv, st->pv2);
    swap_views(st->pb, st->pb2);
    if (mf < st->minf) st->minf = mf;
  } else {
    swap_views(st->pvf, st->pvf2);
    swap_views(st->pbf, st->pbf2);
    st->minf = mf;
  }
  st->b = bsel;
  return 0;
}

/* the search from the seeded frontier on the host; 'bf': Bellman-Ford
 * (one bucket, negative cycles detected) from 'source' */
static int sssp_loop(sssp_state *st, int bf, int64_t source, char *err, size_t errlen) {
  const sk_graph *g = st->g;
  const int64_t nv = g->nv;
  int64_t r = 0, rounds = 0, r0;
  st->b = 0;
  st->lim = st->win;
  st->qn = 1;
  st->nn = st->fn = 0;
  st->minn = st->minf = INT64_MAX;
  if (sk_sp_get_i64(g->rowptr, source + 1, &st->farcs, err, errlen) < 0 ||
      sk_sp_get_i64(g->rowptr, source, &r0, err, errlen) < 0)
    return -1;
  st->farcs -= r0;
  for (;;) {
    while (st->qn > 0) {
      if (bf && rounds >= nv) {
        sk_err(err, errlen, SK_E_SSSP_NEGATIVE_CYCLE, (long long)source);
        return -1;
      }
      if (relax(st, ++r, err, errlen) < 0) return -1;
      rounds++;
    }
    /* the next bucket: the smallest pushed (its entries may all be stale:
     * then the split finds no frontier and the next one is tried) */
    if ((st->nn == 0 || st->minn == INT64_MAX) && (st->fn == 0 || st->minf == INT64_MAX))
      break;
    if (split(st, err, errlen) < 0) return -1;
  }
  return 0;
}

/* -- the device's loop -------------------------------------------------------
 * The same search with its control on the device (sssp.sk's sssp_dl_*):
 * the host queues steps (a round, its end, a split, its end), each
 * kernel reading from ctl whether it is its turn, and reads ctl back
 * only after a batch of steps, the batches growing (DL_FIRST, doubling
 * to DL_MOST): a round no longer waits for a copy to the host. The
 * steps' launches are the same every time (every choice is ctl's), so
 * where the back end records launch sequences a batch of DL_REC steps
 * is recorded once, after a first batch has compiled the kernels, and
 * replayed (a failed recording: the steps queued one by one). A pile
 * that overflowed stops the device; the host makes the piles again
 * from the distances (rebuild) and sets ctl again. */
enum { DL_FIRST = 4, DL_MOST = 64, DL_REC = 4, DL_CTL = 24 };

typedef struct dl_run {
  sssp_state *st;
  int bf;
  int64_t league; /* the round's teams */
  int64_t m;      /* the split's work items */
  int64_t hd;     /* a vertex of more arcs is heavy, cut in pieces of hd */
  sk_view ctl, heavy;
} dl_run;

static int dl_set(dl_run *d, const int64_t c[DL_CTL], char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("ctl", &d->ctl), sk_arg_i64("nn", c[1]),
                sk_arg_i64("minn", c[3]),    sk_arg_i64("fn", c[4]),
                sk_arg_i64("minf", c[5]),    sk_arg_i64("qn", c[6]),
                sk_arg_i64("b", c[7]),       sk_arg_i64("lim", c[8]),
                sk_arg_i64("r", c[9]),       sk_arg_i64("qs", c[10]),
                sk_arg_i64("ns", c[11]),     sk_arg_i64("fs", c[12]),
                sk_arg_i64("rounds", c[18])};
  return sk_sp_range(&k_dl_set, 1, a, NELEM(a), NULL, err, errlen);
}

/* one step's five launches (the round's teams for the heavy pieces) */
static int dl_step(dl_run *d, char *err, size_t errlen) {
  sssp_state *st = d->st;
  const sk_graph *g = st->g;
  sk_arg a[24];
  int na = graph_dist_args(st, a);
  const int np = na; /* the piles from here */
  a[na++] = sk_arg_view("q", st->q);
  a[na++] = sk_arg_view("nq", st->nq);
  a[na++] = sk_arg_view("pv", st->pv);
  a[na++] = sk_arg_view("pb", st->pb);
  a[na++] = sk_arg_view("pv2", st->pv2);
  a[na++] = sk_arg_view("pb2", st->pb2);
  a[na++] = sk_arg_view("pvf", st->pvf);
  a[na++] = sk_arg_view("pbf", st->pbf);
  a[na++] = sk_arg_view("pvf2", st->pvf2);
  a[na++] = sk_arg_view("pbf2", st->pbf2);
  a[na++] = sk_arg_view("ctl", &d->ctl);
  a[na++] = sk_arg_view("heavy", &d->heavy);
  a[na++] = delta_arg(st);
  a[na++] = sk_arg_i64("cap", st->cap);
  a[na++] = sk_arg_i64("hd", d->hd);
  /* a warp a frontier vertex, teams of 8 */
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.team_size = st->warp > 1 ? 8 : 1;
  p.vector_length = st->warp;
  p.league_size = d->league;
  if (sk_kbody_launch(&k_dl_relax[st->kind], &p, a, na, NULL, err, errlen) < 0 ||
      sk_kbody_launch(&k_dl_heavy[st->kind], &p, a, na, NULL, err, errlen) < 0)
    return -1;
  sk_arg e[] = {sk_arg_view("ctl", &d->ctl), sk_arg_i64("cap", st->cap),
                sk_arg_i64("bf", d->bf), sk_arg_i64("nv", g->nv), sk_arg_i64("win", st->win)};
  if (sk_sp_range(&k_dl_rend, 1, e, NELEM(e), NULL, err, errlen) < 0) return -1;
  /* the split: the distances, the piles, delta and m */
  sk_arg s[16];
  int ns = 0;
  s[ns++] = st->pair ? sk_arg_view("dp", st->dp) : sk_arg_view("dist", st->dist);
  for (int k = np; k < np + 11; k++) s[ns++] = a[k];
  s[ns++] = delta_arg(st);
  s[ns++] = sk_arg_i64("m", d->m);
  if (sk_sp_range(&k_dl_split[st->kind == KIND_F], d->m, s, ns, NULL, err, errlen) < 0)
    return -1;
  return sk_sp_range(&k_dl_send, 1, e, 1, NULL, err, errlen);
}

/* the piles made again after an overflow: the host's rebuild on the
 * piles ctl names, its counts into ctl */
static int dl_rebuild(dl_run *d, int64_t c[DL_CTL], char *err, size_t errlen) {
  sssp_state *st = d->st;
  sk_view *pv = st->pv, *pb = st->pb, *pvf = st->pvf, *pbf = st->pbf;
  if (c[11]) {
    st->pv = st->pv2;
    st->pb = st->pb2;
  }
  if (c[12]) {
    st->pvf = st->pvf2;
    st->pbf = st->pbf2;
  }
  st->b = c[7];
  st->lim = c[8];
  const int rc = rebuild(st, err, errlen);
  st->pv = pv;
  st->pb = pb;
  st->pvf = pvf;
  st->pbf = pbf;
  if (rc < 0) return -1;
  c[1] = st->nn;
  c[3] = st->minn;
  c[4] = st->fn;
  c[5] = st->minf;
  return dl_set(d, c, err, errlen);
}

static int dev_loop(sssp_state *st, int bf, int64_t source, char *err, size_t errlen) {
  const int64_t nv = st->g->nv;
  dl_run d;
  memset(&d, 0, sizeof d);
  d.st = st;
  d.bf = bf;
  {
    /* about a resident grid: 1024 teams of 8 warps, 4 x 2^16 entries a
     * split pass (fewer for small graphs) */
    const int64_t tsz = st->warp > 1 ? 8 : 1;
    d.league = (nv + tsz - 1) / tsz < 1024 ? (nv + tsz - 1) / tsz : 1024;
    d.m = 2 * nv < 262144 ? 2 * nv : 262144;
    if (d.league < 1) d.league = 1;
    if (d.m < 1) d.m = 1;
  }
  d.hd = st->heavy;
  if (sk_sp_view(&d.ctl, "search control", SK_I64, DL_CTL, st->g->rowptr->space, 1, err,
                 errlen) < 0 ||
      sk_sp_view(&d.heavy, "heavy vertices' pieces", SK_I32,
                 2 * (nv + st->g->narcs / (d.hd > 0 ? d.hd : 1) + 1), st->g->rowptr->space, 0,
                 err, errlen) < 0) {
    sk_view_release(&d.ctl);
    return -1;
  }
  int rc = -1;
  sk_launch_graph *rec = NULL;
  int64_t c[DL_CTL];
  memset(c, 0, sizeof c);
  c[3] = c[5] = INT64_MAX;
  c[6] = 1; /* the source, in q */
  c[8] = st->win;
  c[9] = 1;
  if (dl_set(&d, c, err, errlen) < 0) goto done;
  int norec = 0; /* a recorded batch that did nothing: queue the steps */
  for (int64_t batch = DL_FIRST, first = 1;; first = 0) {
    if (!first && !rec && !norec && sk_capture_records()) {
      /* record DL_REC steps once; a back end that cannot: queue them */
      int ok = sk_capture_begin(1, err, errlen) == 0;
      for (int k = 0; ok && k < DL_REC; k++) ok = dl_step(&d, err, errlen) == 0;
      if (!ok || sk_capture_end(!ok, &rec, err, errlen) < 0 || (rec && !rec->seq)) {
        if (!ok) sk_capture_end(1, NULL, NULL, 0);
        sk_capture_free(rec);
        rec = NULL;
        err[0] = 0;
      }
    }
    if (rec) {
      if (sk_capture_replay(rec, (batch + DL_REC - 1) / DL_REC, err, errlen) < 0) goto done;
    } else {
      for (int64_t k = 0; k < batch; k++)
        if (dl_step(&d, err, errlen) < 0) goto done;
    }
    sk_view h;
    memset(&h, 0, sizeof h);
    const int64_t r0 = c[9], b0 = c[7];
    if (sk_sp_host_copy(&d.ctl, &h, err, errlen) < 0) goto done;
    memcpy(c, h.data, sizeof c);
    sk_view_release(&h);
    if (rec && c[13] == 0 && c[9] == r0 && c[7] == b0) {
      /* every step runs a round or moves b: the replays ran nothing */
      sk_capture_free(rec);
      rec = NULL;
      norec = 1;
    }
    if (c[13] == 1) break;
    if (c[13] == 3) {
      sk_err(err, errlen, SK_E_SSSP_NEGATIVE_CYCLE, (long long)source);
      goto done;
    }
    if (c[13] == 2 && dl_rebuild(&d, c, err, errlen) < 0) goto done;
    batch = batch * 2 < DL_MOST ? batch * 2 : DL_MOST;
  }
  rc = 0;
done:
  sk_capture_free(rec);
  sk_view_release(&d.ctl);
  sk_view_release(&d.heavy);
  return rc;
}

/* -- the host's bucket lists ---------------------------------------------------
 * Integer kinds on the host: a round works one bucket to its end (GAP's
 * thread-local bins with bin fusion, in sssp.sk's form): nr slots, a
 * lane a thread, blocks of BINS_BS vertices from a pool of nb blocks
 * (twice the vertices, plus the lanes' own blocks: the lists made again
 * from the distances, at most nv entries, always fit). The round's
 * reduction is the next bucket (the lanes' votes) and whether the pool
 * ran out, which has the lists made again from the distances. */
enum { BINS_BS = 256 };

typedef struct bins {
  sk_view pool, bm, bnx, lo, gs;
  int64_t nr, ls, nb, lanes; /* slots, a lane's stride in lo, blocks, lanes */
} bins;

static int bins_reset(const sssp_state *st, bins *bn, char *err, size_t errlen) {
  const int64_t nlo = bn->lanes * bn->ls, ngs = 3 + 3 * bn->nr;
  sk_arg a[] = {sk_arg_view("lo", &bn->lo), sk_arg_view("gs", &bn->gs), sk_arg_i64("nlo", nlo),
                sk_arg_i64("ngs", ngs)};
  (void)st;
  return sk_sp_range(&k_breset, nlo > ngs ? nlo : ngs, a, NELEM(a), NULL, err, errlen);
}

/* a round of bucket b (fill: the lists made from the distances): the
 * next bucket (INT64_MAX: none) and whether the pool ran out */
static int bins_pass(const sssp_state *st, bins *bn, int fill, int64_t b, int64_t *next,
                     int64_t *out, char *err, size_t errlen) {
  const sk_graph *g = st->g;
  sk_arg a[20];
  int na = 0;
  if (!fill) {
    a[na++] = sk_arg_view("rowptr", g->rowptr);
    a[na++] = sk_arg_view("colidx", g->colidx);
    if (st->w) a[na++] = sk_arg_view("w", st->w);
  }
  if (st->narrow) {
    a[na++] = sk_arg_view("dq", st->d32);
  } else {
    a[na++] = sk_arg_view("dp", st->dp);
  }
  a[na++] = sk_arg_view("pool", &bn->pool);
  a[na++] = sk_arg_view("bm", &bn->bm);
  a[na++] = sk_arg_view("bnx", &bn->bnx);
  a[na++] = sk_arg_view("lo", &bn->lo);
  a[na++] = sk_arg_view("gs", &bn->gs);
  a[na++] = sk_arg_i64("delta", st->idelta);
  a[na++] = sk_arg_i64("b", b);
  a[na++] = sk_arg_i64("nr", bn->nr);
  a[na++] = sk_arg_i64("ls", bn->ls);
  a[na++] = sk_arg_i64("bs", BINS_BS);
  a[na++] = sk_arg_i64("nb", bn->nb);
  if (fill) {
    a[na++] = sk_arg_i64("inf", st->narrow ? INT32_MAX : INT64_MAX);
    a[na++] = sk_arg_i64("nv", g->nv);
    a[na++] = sk_arg_i64("nl", bn->lanes);
  }
  sk_result res;
  const sk_kbody *kb = fill ? &k_bfill[st->narrow]
                            : &k_bround[!st->narrow ? 0 : st->kind == KIND_U ? 2 : 1];
  if (sk_sp_range(kb, bn->lanes, a, na, &res, err, errlen) < 0)
    return -1;
  *next = sk_result_i64(&res, 0);
  *out = sk_result_i64(&res, 1);
  return 0;
}

/* the search from 'source' in dp (made here, infinite but the source) */
static int bins_loop(sssp_state *st, int64_t source, char *err, size_t errlen) {
  const int64_t nv = st->g->nv;
  bins bn;
  memset(&bn, 0, sizeof bn);
  bn.nr = st->maxw / st->idelta + 3;
  bn.ls = (bn.nr + 15) / 16 * 16;
  bn.lanes = st->threads;
  /* (pile_capacity, for the specs: the fewest blocks that hold the lists
   * made from the distances, so that the pool runs out) */
  bn.nb = (st->small ? nv : 2 * nv + BINS_BS - 1) / BINS_BS + bn.lanes * bn.nr + 2;
  const int space = st->g->rowptr->space;
  int rc = -1;
  if (sk_sp_view(&bn.pool, "bucket blocks", SK_I32, bn.nb * BINS_BS, space, 0, err, errlen) <
        0 ||
      sk_sp_view(&bn.bm, "bucket block bounds", SK_I32, 16 * bn.nb, space, 0, err, errlen) < 0 ||
      sk_sp_view(&bn.bnx, "bucket block links", SK_I32, bn.nb, space, 0, err, errlen) < 0 ||
      sk_sp_view(&bn.lo, "lanes' blocks", SK_I32, bn.lanes * bn.ls, space, 0, err, errlen) <
        0 ||
      sk_sp_view(&bn.gs, "bucket lists", SK_I64, 3 + 3 * bn.nr, space, 0, err, errlen) < 0)
    goto done;
  {
    const int n32 = st->narrow;
    sk_arg ai[] = {n32 ? sk_arg_view("dq", st->d32) : sk_arg_view("dp", st->dp),
                   sk_arg_i64("inf", INT64_MAX)};
    sk_arg as[] = {n32 ? sk_arg_view("dq", st->d32) : sk_arg_view("dp", st->dp),
                   sk_arg_view("lo", &bn.lo),
                   sk_arg_view("pool", &bn.pool),
                   sk_arg_view("bm", &bn.bm),
                   sk_arg_view("gs", &bn.gs),
                   sk_arg_i64("s", source)};
    if (sk_sp_range(&k_binit[n32], nv, ai, NELEM(ai), NULL, err, errlen) < 0 ||
        bins_reset(st, &bn, err, errlen) < 0 ||
        sk_sp_range(&k_bseed[n32], 1, as, NELEM(as), NULL, err, errlen) < 0)
      goto done;
  }
  for (int64_t b = 0; b != INT64_MAX;) {
    int64_t next, ran_out;
    if (bins_pass(st, &bn, 0, b, &next, &ran_out, err, errlen) < 0) goto done;
    if (ran_out && (bins_reset(st, &bn, err, errlen) < 0 ||
                    bins_pass(st, &bn, 1, b, &next, &ran_out, err, errlen) < 0))
      goto done;
    b = next;
  }
  rc = 0;
done:
  sk_view_release(&bn.pool);
  sk_view_release(&bn.bm);
  sk_view_release(&bn.bnx);
  sk_view_release(&bn.lo);
  sk_view_release(&bn.gs);
  return rc;
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

/* the weights checked (>= 0) and the bucket width: 'delta' given, or the
 * automatic rule -- the largest weight over the mean out-degree (Meyer
 * and Sanders' Theta(1 / degree) for weights scaled to [0, 1]): a
 * vertex's arcs then put about one neighbour a bucket; integer weights:
 * rounded up, at least 1 */
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
  }
  const double deg = g->nv > 0 ? (double)g->narcs / (double)g->nv : 1;
  st->maxw = 1;
  if (!st->w || g->narcs == 0) {
    if (!darg) {
      st->idelta = 1;
      st->fdelta = 1;
      st->win = 2; /* pushes land one bucket ahead */
    }
    return 0;
  }
  /* one pass over the weights: the smallest (a negative one is refused,
   * named) and the largest */
  sk_arg a[] = {sk_arg_view("w", st->w)};
  sk_result res;
  if (sk_sp_range(&k_wrange[st->kind == KIND_F], g->narcs, a, 1, &res, err, errlen) < 0)
    return -1;
  if (st->kind == KIND_F ? sk_result_f64(&res, 0) < 0 : sk_result_i64(&res, 0) < 0) {
    sk_result r1;
    if (sk_sp_range(&k_fneg, g->narcs, a, 1, &r1, err, errlen) < 0) return -1;
    return negative_weight(g, st->w, sk_result_i64(&r1, 0), err, errlen);
  }
  if (st->kind != KIND_F) st->maxw = sk_result_i64(&res, 1);
  if (darg) return 0;
  st->autod = 1;
  double ahead; /* how many buckets past b a push can land */
  if (st->kind == KIND_F) {
    const double mx = sk_result_f64(&res, 1);
    st->fdelta = mx > 0 && isfinite(mx) ? mx / (deg > 1 ? deg : 1) : 1;
    ahead = mx > 0 && isfinite(mx) ? mx / st->fdelta : 1;
  } else {
    const int64_t mx = sk_result_i64(&res, 1);
    const double d = ceil((double)mx / (deg > 1 ? deg : 1));
    st->idelta = d >= 1 ? (int64_t)d : 1;
    ahead = (double)mx / (double)st->idelta;
  }
  /* the near window: an entry is copied about win / 2 times near and
   * ahead / win times far, least at win = sqrt(2 ahead) */
  const double wn = ceil(sqrt(2 * (ahead + 1)));
  st->win = wn < 2 ? 2 : wn > 64 ? 64 : (int64_t)wn;
  return 0;
}

/* graph.sssp: G_*, source [, delta, predecessors, algorithm] -> dist
 * (int64 for integer or no weights, float64 for float weights), pred
 * (int64) with predecessors */
static int sssp(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  /* pile_capacity, device_bodies, heavy_degree: for the specs (a pile
   * that overflows; the device's bodies run on the host; the degree past
   * which the device's loop relaxes a vertex with every work item) */
  static const char *const known[] = {"G_rowptr",     "G_colidx",      "G_weights",
                                      "directed",     "source",        "delta",
                                      "predecessors", "algorithm",     "pile_capacity",
                                      "device_bodies", "heavy_degree", NULL};
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
  st.win = 8; /* the near window with a given delta (no pass over the weights) */
  /* a warp's 64 passes of 32 arcs; a team's 8 passes of 256 a piece */
  if (sk_karg_i64(args, nargs, "heavy_degree", 1, 2048, &st.heavy, err, errlen) < 0) return -1;
  if (st.heavy < 1) st.heavy = 1;
  const sk_arg *darg = sk_karg_find(args, nargs, "delta");
  if (bf) {
    st.idelta = INT64_MAX;
    st.fdelta = DBL_MAX;
  } else {
    if (choose_delta(&st, darg, err, errlen) < 0) return -1;
  }
  const int64_t nv = g.nv;
  const int space = g.rowptr->space, fl = st.kind == KIND_F;
  int rc = -1;
  sk_view dist, nmark, pbk, q, nq, pv, pb, pv2, pb2, pvf, pbf, pvf2, pbf2, cnt, pred;
  sk_view *all[] = {&dist, &nmark, &pbk, &q,    &nq,   &pv,  &pb,  &pv2,
                    &pb2,  &pvf,   &pbf, &pvf2, &pbf2, &cnt, &pred};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  /* integer kinds: 'pbk' holds dp, the distances beside the buckets */
  const int pair = !fl;
  {
    const sk_backend *be = sk_sp_backend(err, errlen);
    if (!be) goto done;
    int devb;
    if (sk_g_flag(args, nargs, "device_bodies", 0, &devb, err, errlen) < 0) goto done;
    st.host = sk_sp_host(be) && !devb;
    if ((st.warp = sk_galgo_warp(err, errlen)) < 0) goto done;
    st.threads = be->concurrency ? be->concurrency() : 1;
    if (st.threads < 1) st.threads = 1;
    st.small = sk_karg_find(args, nargs, "pile_capacity") != NULL;
  }
  /* the host's bucket lists: integer kinds, delta-stepping, a ring of
   * slots not too long (a given delta far below the weights: the piles) */
  const int use_bins = st.host && !bf && pair && st.maxw / st.idelta < 65536;
  if (use_bins) {
    /* the automatic delta a quarter of the piles' (the largest weight
     * over four times the mean out-degree, rounded, at least 1): a bucket
     * costs a round here, no split, and a narrower one relaxes fewer arcs
     * twice -- on the Kronecker graph of scale 20 with weights 1..255
     * (mean degree 30) delta 2, GAP's, against 9; 1 to 3 about the same,
     * 4 and up slower */
    if (st.autod && st.w && g.nv > 0) {
      const double dq = floor((double)st.maxw / (4.0 * g.narcs / g.nv) + 0.5);
      const int64_t d = dq >= 1 ? (int64_t)dq : 1;
      if (st.maxw / d < 65536) st.idelta = d;
    }
    /* int32 distances when any path's length fits (nv arcs of the largest
     * weight) */
    st.narrow = (double)st.maxw * (double)(nv + 1) < (double)INT32_MAX;
    st.pair = 1;
    st.dist = &dist;
    st.dp = &pbk;
    st.d32 = &nmark;
    if (sk_sp_view(&dist, "dist", SK_I64, nv, space, 0, err, errlen) < 0 ||
        (st.narrow
           ? sk_sp_view(&nmark, "distances and pushed buckets", SK_I32, 2 * nv, space, 0, err,
                        errlen) < 0
           : sk_sp_view(&pbk, "distances and pushed buckets", SK_I64, 2 * nv, space, 0, err,
                        errlen) < 0) ||
        bins_loop(&st, source, err, errlen) < 0)
      goto done;
    if (st.narrow) {
      sk_arg a[] = {sk_arg_view("dist", &dist), sk_arg_view("dq", &nmark)};
      if (sk_sp_range(&k_bdout_j, nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
      goto found;
    }
    goto found_pair;
  }
  if (sk_sp_view(&dist, "dist", fl ? SK_F64 : SK_I64, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nmark, "frontier stamps", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pbk, pair ? "distances and pushed buckets" : "pushed buckets", SK_I64,
                 pair ? 2 * nv : nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&q, "frontier", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nq, "next frontier", SK_I32, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pv, "near pile", SK_I32, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pb, "near pile buckets", SK_I64, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pv2, "near pile", SK_I32, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pb2, "near pile buckets", SK_I64, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pvf, "far pile", SK_I32, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pbf, "far pile buckets", SK_I64, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pvf2, "far pile", SK_I32, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&pbf2, "far pile buckets", SK_I64, 2 * nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt, "counts", SK_I64, 6, space, 1, err, errlen) < 0)
    goto done;
  st.pair = pair;
  st.dist = &dist;
  st.nmark = &nmark;
  st.pbk = pair ? NULL : &pbk;
  st.dp = pair ? &pbk : NULL;
  st.q = &q;
  st.nq = &nq;
  st.pv = &pv;
  st.pb = &pb;
  st.pv2 = &pv2;
  st.pb2 = &pb2;
  st.pvf = &pvf;
  st.pbf = &pbf;
  st.pvf2 = &pvf2;
  st.pbf2 = &pbf2;
  st.cnt = &cnt;
  st.cap = 2 * nv > 0 ? 2 * nv : 1;
  {
    int64_t pcap;
    if (sk_karg_i64(args, nargs, "pile_capacity", 1, st.cap, &pcap, err, errlen) < 0)
      goto done;
    if (pcap >= 1 && pcap < st.cap) st.cap = pcap;
  }
  {
    sk_arg a[] = {sk_arg_view("dist", &dist), sk_arg_view("nmark", &nmark),
                  sk_arg_view("pbk", &pbk),
                  fl ? sk_arg_f64("inf", HUGE_VAL) : sk_arg_i64("inf", INT64_MAX)};
    sk_arg s[] = {sk_arg_view("dist", &dist), sk_arg_view("nmark", &nmark),
                  sk_arg_view("q", &q), sk_arg_view("cnt", &cnt),
                  sk_arg_i64("s", source)};
    sk_arg ap[] = {sk_arg_view("dp", &pbk), sk_arg_view("nmark", &nmark),
                   sk_arg_i64("inf", INT64_MAX)};
    sk_arg sp[] = {sk_arg_view("dp", &pbk), sk_arg_view("nmark", &nmark),
                   sk_arg_view("q", &q), sk_arg_view("cnt", &cnt), sk_arg_i64("s", source)};
    if (pair ? sk_sp_range(&k_init_p, nv, ap, NELEM(ap), NULL, err, errlen) < 0 ||
                 sk_sp_range(&k_seed_p, 1, sp, NELEM(sp), NULL, err, errlen) < 0
             : sk_sp_range(&k_init, nv, a, NELEM(a), NULL, err, errlen) < 0 ||
                 sk_sp_range(&k_seed, 1, s, NELEM(s), NULL, err, errlen) < 0)
      goto done;
  }
  if ((st.host ? sssp_loop(&st, bf, source, err, errlen)
               : dev_loop(&st, bf, source, err, errlen)) < 0)
    goto done;
found_pair:
  if (pair) {
    sk_arg a[] = {sk_arg_view("dist", &dist), sk_arg_view("dp", &pbk)};
    if (sk_sp_range(&k_dout, nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
found:
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
  &k_init_p,     &k_seed_p,     &k_dout,       &k_init,       &k_seed,
  &k_setc,       &k_relax[0],   &k_relax[1],   &k_relax[2],   &k_split[0],
  &k_split[1],   &k_dl_relax[0], &k_dl_relax[1], &k_dl_relax[2], &k_dl_heavy[0], &k_dl_heavy[1], &k_dl_heavy[2], &k_dl_split[0],
  &k_dl_split[1], &k_dl_rend,   &k_dl_send,    &k_dl_set,     &k_rebuild[0],
  &k_rebuild[1], &k_pred[0],    &k_pred[1],    &k_pred[2],    &k_pred_init,
  &k_wrange[0],  &k_wrange[1],  &k_fneg,       &k_bround[0],  &k_bround[1],
  &k_bround[2],  &k_bfill[0],   &k_bfill[1],   &k_breset,     &k_binit[0],
  &k_binit[1],   &k_bseed[0],   &k_bseed[1],   &k_bdout_j,    NULL};
