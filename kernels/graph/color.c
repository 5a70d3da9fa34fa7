/* color.c: graph.color and graph.color_bipartite: vertex-based and
 * edge-based distance-1 coloring (speculative), distance-2 and bipartite
 * partial coloring. Bodies: color.sk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- coloring -----------------------------------------------------------------
 * Vertex-based speculative distance-1 coloring (seed 000 §4.1): every
 * vertex of the worklist takes the smallest color none of its neighbours
 * has (256 colors a window), then of two adjacent vertices of one color the
 * larger id gives its color up and goes to the next worklist (found by
 * scanning each row up to the vertex itself: rows are sorted by id).
 * The order is largest first in part (option order = "largest_first",
 * the default; "natural" is id order): first-fit gives a vertex of
 * degree d a color <= d + 1, so only the vertices of high degree can
 * drive the count up, and they are colored first, by decreasing degree
 * (color_vb), then every other vertex in id order (the already colored
 * ones skipped). On a Kronecker graph of scale 20 that is 185-192
 * colors, against 239-248 in id order. */
static const char *const sig_col_assign[] = {"range" G3 R1("color", "int32")
                                               R1("work", "int32") R1("sus", "int32")
                                                 R1("scnt", "int64"),
                                             NULL};
static const sk_kbody k_col_assign = {.label = "graph.color_assign",
                                      .body = sk_body_graph_color_assign,
                                      .pattern = SK_FOR,
                                      .sigs = sig_col_assign};

static const char *const sig_col_fix[] = {"range" G3 R1("color", "int32")
                                            R1("sus", "int32") R1("next", "int32")
                                              R1("cnt", "int64"),
                                          NULL};
static const sk_kbody k_col_fix = {.label = "graph.color_conflicts",
                                   .body = sk_body_graph_color_conflicts,
                                   .pattern = SK_FOR,
                                   .sigs = sig_col_fix};

static const char *const sig_iota[] = {"range" R1("work", "int32"), NULL};
static const sk_kbody k_iota = {
  .label = "graph.iota", .body = sk_body_graph_iota, .pattern = SK_FOR, .sigs = sig_iota};

/* the vertices of degree >= t by decreasing degree, roughly: in buckets
 * of floor(log2(degree)), the highest first (a count, offsets, a scatter;
 * within a bucket in no particular order) */
static const char *const sig_col_hcount[] = {
  "range" R1("rowptr", "int64") R1("cnt", "int64") " t=int64", NULL};
static const sk_kbody k_col_hcount = {.label = "graph.color_heavy_count",
                                      .body = sk_body_graph_color_heavy_count,
                                      .pattern = SK_FOR,
                                      .sigs = sig_col_hcount};
/* (one index) cnt(q) becomes bucket q's offset, cnt(47) the total */
static const char *const sig_col_hscan[] = {"range" R1("cnt", "int64"), NULL};
static const sk_kbody k_col_hscan = {.label = "graph.color_heavy_offsets",
                                     .body = sk_body_graph_color_heavy_offsets,
                                     .pattern = SK_FOR,
                                     .sigs = sig_col_hscan};
static const char *const sig_col_hfill[] = {
  "range" R1("rowptr", "int64") R1("cnt", "int64") R1("work", "int32") " t=int64", NULL};
static const sk_kbody k_col_hfill = {.label = "graph.color_heavy_fill",
                                     .body = sk_body_graph_color_heavy_fill,
                                     .pattern = SK_FOR,
                                     .sigs = sig_col_hfill};

/* the heavy vertices on a GPU: one team takes them one after another in
 * the list's order (a sequential greedy over the hubs, each hub's arcs
 * over the whole team), the colors its neighbours hold gathered into a
 * 512-color mask in scratch. The hubs of a power-law graph are nearly a
 * clique: colored in parallel, every round settled one of them (one
 * thread's scan of 10^4-10^5 arcs a round), which took seconds. */
static const sk_kbody k_col_heavy = {.label = "graph.color_heavy_team",
                                     .body = sk_body_graph_color_heavy_team,
                                     .pattern = SK_FOR};

/* the vertices of degree >= VB_HEAVY times the mean (and >= 32) into
 * 'work', bucket by bucket of floor(log2(degree)), the highest first; hcnt
 * (48) then holds where each bucket ends, *nh the count */
#define VB_HEAVY 64
static int color_hubs_list(const sk_graph *g, const sk_view *work, const sk_view *hcnt,
                           int64_t *nh, char *err, size_t errlen) {
  int64_t t = VB_HEAVY * (g->narcs / g->nv);
  if (t < 32) t = 32;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("cnt", hcnt),
                sk_arg_i64("t", t), sk_arg_view("work", work)};
  if (sk_sp_range(&k_col_hcount, g->nv, a, 3, NULL, err, errlen) < 0 ||
      sk_sp_range(&k_col_hscan, 1, a + 1, 1, NULL, err, errlen) < 0 ||
      sk_sp_get_i64(hcnt, 47, nh, err, errlen) < 0 ||
      (*nh > 0 && sk_sp_range(&k_col_hfill, g->nv, a, NELEM(a), NULL, err, errlen) < 0))
    return -1;
  return 0;
}

/* on a GPU: the first nh vertices of 'work' colored by one team of 1,024,
 * one after another (see k_col_heavy) */
static int color_hubs_team(const sk_graph *g, const sk_view *col, const sk_view *work,
                           int64_t nh, char *err, size_t errlen) {
  const int warp = sk_galgo_warp(err, errlen);
  if (warp < 0) return -1;
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = 1;
  p.team_size = warp < 1024 ? 1024 / warp : 1; /* 1,024 threads, a warp's lanes each */
  p.vector_length = warp;
  p.scratch_team[0] = 64;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("color", col), sk_arg_view("work", work),
                sk_arg_i64("nh", nh)};
  return sk_kbody_launch(&k_col_heavy, &p, a, NELEM(a), NULL, err, errlen);
}

/* -- edge-based distance-1 coloring (seed 000 §4.1) ----------------------
 * One thread per arc: each arc of an uncolored vertex u ORs its other
 * end's color into u's forbidden mask (64 colors from u's window base,
 * atomically), then every uncolored vertex takes the smallest color not
 * forbidden (a full window moves its base on by 64), then every arc
 * between two like colors uncolors its larger end. Repeated until no
 * vertex is uncolored: of each conflict the smaller end keeps its color.
 * (The sk_sp_scan of degrees needs the worklist's count array to have
 * one more entry than the worklist.) */
static const char *const sig_eb_forbid[] = {"range" R1("src", "int32")
                                              R1("colidx", "int32") R1("color", "int32")
                                                R1("base", "int32") R1("forb", "int64"),
                                            NULL};
static const sk_kbody k_eb_forbid = {.label = "graph.color_eb_forbid",
                                     .body = sk_body_graph_color_eb_forbid,
                                     .pattern = SK_FOR,
                                     .sigs = sig_eb_forbid};

static const char *const sig_eb_fix[] = {
  "range" R1("src", "int32") R1("colidx", "int32") R1("color", "int32"), NULL};
static const sk_kbody k_eb_fix = {.label = "graph.color_eb_conflicts",
                                  .body = sk_body_graph_color_eb_conflicts,
                                  .pattern = SK_FOR,
                                  .sigs = sig_eb_fix};

/* the worklist's arcs: degrees (scanned into offsets), then each worklist
 * vertex writes its arcs (source, target) at its offset */
static const char *const sig_ebw_deg[] = {
  "range" R1("rowptr", "int64") R1("work", "int32") R1("cnt", "int64"), NULL};
static const sk_kbody k_ebw_deg = {.label = "graph.color_eb_degrees",
                                   .body = sk_body_graph_color_eb_degrees,
                                   .pattern = SK_FOR,
                                   .sigs = sig_ebw_deg};
static const char *const sig_ebw_fill[] = {"range" G3 R1("work", "int32")
                                             R1("ptr", "int64") R1("asrc", "int32")
                                               R1("adst", "int32"),
                                           NULL};
static const sk_kbody k_ebw_fill = {.label = "graph.color_eb_arcs",
                                    .body = sk_body_graph_color_eb_arcs,
                                    .pattern = SK_FOR,
                                    .sigs = sig_ebw_fill};
/* the pick over the worklist */
static const char *const sig_ebw_pick[] = {"range" R1("color", "int32")
                                             R1("base", "int32") R1("forb", "int64")
                                               R1("work", "int32"),
                                           NULL};
static const sk_kbody k_ebw_pick = {.label = "graph.color_eb_pick_work",
                                    .body = sk_body_graph_color_eb_pick_work,
                                    .pattern = SK_FOR,
                                    .sigs = sig_ebw_pick};
/* the uncolored vertices of the worklist into the next one */
static const char *const sig_ebw_next[] = {
  "range" R1("color", "int32") R1("work", "int32") R1("next", "int32") R1("cnt", "int64"),
  NULL};
static const sk_kbody k_ebw_next = {.label = "graph.color_eb_next",
                                    .body = sk_body_graph_color_eb_next,
                                    .pattern = SK_FOR,
                                    .sigs = sig_ebw_next};

/* the next round: its worklist is what this one put in 'next' ('work'
 * and 'next' swap) */
static void next_round(sk_view *work, sk_view *next, int64_t *rounds) {
  sk_view t = *work;
  *work = *next;
  *next = t;
  (*rounds)++;
}

/* each round over the arcs of the uncolored vertices only (a worklist of
 * vertices, its arcs laid out by a scan of their degrees): the rounds
 * number about the colors on power-law graphs (a dense core picks one
 * color a round), so the core's arcs, not all arcs, are what repeats */
static int color_eb(const sk_graph *g, const sk_view *col, int64_t *rounds, char *err,
                    size_t errlen) {
  int space = g->rowptr->space, rc = -1;
  int64_t n = g->nv;
  sk_view base, forb, work, next, cnt, ptr, asrc, adst, qc;
  sk_view *all[] = {&base, &forb, &work, &next, &cnt, &ptr, &asrc, &adst, &qc};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  int64_t na0 = g->narcs > 0 ? g->narcs : 1;
  if (sk_sp_view(&base, "color bases", SK_I32, n, space, 1, err, errlen) < 0 ||
      sk_sp_view(&forb, "forbidden colors", SK_I64, n, space, 1, err, errlen) < 0 ||
      sk_sp_view(&work, "worklist", SK_I32, n > 0 ? n : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&next, "worklist", SK_I32, n > 0 ? n : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt, "degrees", SK_I64, n + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&ptr, "arc offsets", SK_I64, n + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&asrc, "arc sources", SK_I32, na0, space, 0, err, errlen) < 0 ||
      sk_sp_view(&adst, "arc targets", SK_I32, na0, space, 0, err, errlen) < 0 ||
      sk_sp_view(&qc, "count", SK_I64, 1, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("work", &work)};
    if (sk_sp_range(&k_iota, n, a, 1, NULL, err, errlen) < 0) goto done;
  }
  int64_t wn = n;
  *rounds = 0;
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) goto done;
  if (be->code != SK_CODE_HOST && n > 0) {
    /* a GPU: the hubs first, by one team as in VB (their near-clique took
     * a round per color: 4.7 s at Kronecker scale 22), then the rounds
     * over the others (the worklist: the uncolored vertices) */
    int64_t nh = 0;
    sk_view hcnt;
    memset(&hcnt, 0, sizeof hcnt);
    int bad =
      sk_sp_view(&hcnt, "degree buckets", SK_I64, 48, space, 1, err, errlen) < 0 ||
      color_hubs_list(g, &next, &hcnt, &nh, err, errlen) < 0 ||
      (nh > 0 && color_hubs_team(g, col, &next, nh, err, errlen) < 0);
    sk_view_release(&hcnt);
    if (bad) goto done;
    if (nh > 0) {
      sk_arg x[] = {sk_arg_view("color", col), sk_arg_view("work", &work),
                    sk_arg_view("next", &next), sk_arg_view("cnt", &qc)};
      if (sk_g_set0(&qc, 0, err, errlen) < 0 ||
          sk_sp_range(&k_ebw_next, n, x, NELEM(x), NULL, err, errlen) < 0 ||
          sk_sp_get_i64(&qc, 0, &wn, err, errlen) < 0)
        goto done;
      next_round(&work, &next, rounds);
    }
  }
  while (wn > 0) {
    int64_t na = 0;
    sk_arg d[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("work", &work),
                  sk_arg_view("cnt", &cnt)};
    if (sk_sp_range(&k_ebw_deg, wn, d, NELEM(d), NULL, err, errlen) < 0 ||
        sk_sp_scan(&cnt, &ptr, wn, &na, err, errlen) < 0)
      goto done;
    sk_arg f[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                  sk_arg_view("work", &work),       sk_arg_view("ptr", &ptr),
                  sk_arg_view("asrc", &asrc),       sk_arg_view("adst", &adst)};
    sk_arg a[] = {sk_arg_view("src", &asrc), sk_arg_view("colidx", &adst),
                  sk_arg_view("color", col), sk_arg_view("base", &base),
                  sk_arg_view("forb", &forb)};
    sk_arg p[] = {sk_arg_view("color", col), sk_arg_view("base", &base),
                  sk_arg_view("forb", &forb), sk_arg_view("work", &work)};
    sk_arg x[] = {sk_arg_view("color", col), sk_arg_view("work", &work),
                  sk_arg_view("next", &next), sk_arg_view("cnt", &qc)};
    if (sk_sp_range(&k_ebw_fill, wn, f, NELEM(f), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_eb_forbid, na, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_ebw_pick, wn, p, NELEM(p), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_eb_fix, na, a, 3, NULL, err, errlen) < 0 ||
        sk_g_set0(&qc, 0, err, errlen) < 0 ||
        sk_sp_range(&k_ebw_next, wn, x, NELEM(x), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&qc, 0, &wn, err, errlen) < 0)
      goto done;
    next_round(&work, &next, rounds);
  }
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- distance-2 and bipartite partial coloring (seed 000 §4.2) -------------
 * Both in terms of nets: a vertex v belongs to the nets ci1[rp1(v) ..
 * rp1(v + 1)), net n has the members ci2[rp2(n) .. rp2(n + 1)), and two
 * vertices sharing a net conflict. Distance 2 on an undirected graph: the
 * nets of v are its neighbours, net n's members its neighbours and, with
 * 'closed', n itself (so neighbours conflict too). Bipartite partial
 * coloring of the rows of A: the nets of row r are its columns, the
 * members of column c the rows of A^T's row c.
 * VB: each vertex of the worklist looks at the members of its nets
 * (nested loops), 64 colors a window. NB (Taş et al.): every net first
 * gathers the colors of its members into a 64-bit mask (the window at
 * 'base', common to all), then each vertex ORs the masks of its nets:
 * two gathers, no nested loop; a vertex whose window is full waits for
 * the next window (base + 64, taken when a round colors nobody). Then in
 * both a worklist vertex that shares a net with a smaller vertex of its
 * color gives the color up and goes to the next worklist. */
#define D2SIG \
  "range" R1("rp1", "int64") R1("ci1", "int32") R1("rp2", "int64") R1("ci2", "int32") \
    R1("color", "int32") R1("work", "int32")
static const char *const sig_d2_assign[] = {D2SIG " closed=int64", NULL};
static const sk_kbody k_d2_assign = {.label = "graph.color_d2_assign",
                                     .body = sk_body_graph_color_d2_assign,
                                     .pattern = SK_FOR,
                                     .sigs = sig_d2_assign};

static const char *const sig_d2_fix[] = {
  D2SIG R1("next", "int32") R1("cnt", "int64") " closed=int64", NULL};
static const sk_kbody k_d2_fix = {.label = "graph.color_d2_conflicts",
                                  .body = sk_body_graph_color_d2_conflicts,
                                  .pattern = SK_FOR,
                                  .sigs = sig_d2_fix};

static const char *const sig_nb_gather[] = {
  "range" R1("rp2", "int64") R1("ci2", "int32") R1("color", "int32")
    R1("mask", "int64") " base=int64 closed=int64",
  NULL};
static const sk_kbody k_nb_gather = {.label = "graph.color_nb_gather",
                                     .body = sk_body_graph_color_nb_gather,
                                     .pattern = SK_FOR,
                                     .sigs = sig_nb_gather};

static const char *const sig_nb_assign[] = {"range" R1("rp1", "int64") R1("ci1", "int32")
                                              R1("color", "int32") R1("work", "int32")
                                                R1("mask", "int64") " base=int64",
                                            NULL};
static const sk_kbody k_nb_assign = {.label = "graph.color_nb_assign",
                                     .body = sk_body_graph_color_nb_assign,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_nb_assign,
                                     .reds = "sum:int64"};

static const char *const sig_maxc[] = {"range" R1("color", "int32"), NULL};
static const sk_kbody k_maxc = {.label = "graph.max_color",
                                .body = sk_body_graph_max_color,
                                .pattern = SK_REDUCE,
                                .sigs = sig_maxc,
                                .reds = "max:int64"};

/* the nets of a distance-2 or bipartite coloring (see above) */
typedef struct nets {
  const sk_view *rp1, *ci1, *rp2, *ci2;
  int64_t nverts, nnets;
  int closed;
} nets;

/* color the vertices of 'nt' into 'col' (zeroed), by VB or NB */
static int color_nets(const nets *nt, int nb, const sk_view *col, int64_t *rounds,
                      char *err, size_t errlen) {
  int64_t n = nt->nverts;
  int space = col->space, rc = -1;
  sk_view work, next, cnt, mask;
  sk_view *all[] = {&work, &next, &cnt, &mask};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&work, "worklist", SK_I32, n > 0 ? n : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&next, "worklist", SK_I32, n > 0 ? n : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cnt, "count", SK_I64, 1, space, 1, err, errlen) < 0 ||
      (nb && sk_sp_view(&mask, "net colors", SK_I64, nt->nnets > 0 ? nt->nnets : 1, space,
                        0, err, errlen) < 0))
    goto done;
  {
    sk_arg a[] = {sk_arg_view("work", &work)};
    if (sk_sp_range(&k_iota, n, a, 1, NULL, err, errlen) < 0) goto done;
  }
  int64_t wn = n, base = 0;
  *rounds = 0;
  while (wn > 0) {
    sk_arg a[] = {sk_arg_view("rp1", nt->rp1),      sk_arg_view("ci1", nt->ci1),
                  sk_arg_view("rp2", nt->rp2),      sk_arg_view("ci2", nt->ci2),
                  sk_arg_view("color", col),        sk_arg_view("work", &work),
                  sk_arg_i64("closed", nt->closed), sk_arg_view("next", &next),
                  sk_arg_view("cnt", &cnt)};
    if (nb) {
      sk_arg g[] = {sk_arg_view("rp2", nt->rp2), sk_arg_view("ci2", nt->ci2),
                    sk_arg_view("color", col),   sk_arg_view("mask", &mask),
                    sk_arg_i64("base", base),    sk_arg_i64("closed", nt->closed)};
      sk_arg s[] = {sk_arg_view("rp1", nt->rp1), sk_arg_view("ci1", nt->ci1),
                    sk_arg_view("color", col),   sk_arg_view("work", &work),
                    sk_arg_view("mask", &mask),  sk_arg_i64("base", base)};
      sk_result r;
      if (sk_sp_range(&k_nb_gather, nt->nnets, g, NELEM(g), NULL, err, errlen) < 0 ||
          sk_sp_range(&k_nb_assign, wn, s, NELEM(s), &r, err, errlen) < 0)
        goto done;
      if (sk_result_i64(&r, 0) == 0) base += 64; /* every one's window is full */
    } else if (sk_sp_range(&k_d2_assign, wn, a, 7, NULL, err, errlen) < 0) {
      goto done;
    }
    if (sk_g_set0(&cnt, 0, err, errlen) < 0 ||
        sk_sp_range(&k_d2_fix, wn, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&cnt, 0, &wn, err, errlen) < 0)
      goto done;
    next_round(&work, &next, rounds);
  }
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* colors, ncolors, rounds into 'out' ('col' moves there) */
static int color_out(sk_view *col, int64_t n, int64_t rounds, sk_kvalue *out, char *err,
                     size_t errlen) {
  sk_arg a[] = {sk_arg_view("color", col)};
  sk_result r;
  if (sk_sp_range(&k_maxc, n, a, 1, &r, err, errlen) < 0) return -1;
  int64_t nc = n > 0 ? sk_result_i64(&r, 0) : 0;
  if (sk_kout_num(out, "ncolors", (double)nc, err, errlen) < 0 ||
      sk_kout_num(out, "rounds", (double)rounds, err, errlen) < 0 ||
      sk_kout_view(out, "colors", col, err, errlen) < 0)
    return -1;
  return 0;
}

/* rounds of VB from the worklist 'list' (wn vertices; the conflicts of a
 * round go to s1, then s2, s1, ...) until no conflict is left; the
 * vertices to check for conflicts go to 'sus' */
static int color_vb_rounds(const sk_graph *g, const sk_view *col, const sk_view *list,
                           const sk_view *s1, const sk_view *s2, const sk_view *sus,
                           const sk_view *cnt, const sk_view *scnt, int64_t wn,
                           int64_t chunk, int64_t *rounds, char *err, size_t errlen) {
  const sk_view *buf[2] = {s1, s2}, *cur = list;
  for (int b = 0; wn > 0; b ^= 1) {
    int64_t ns = 0;
    sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                  sk_arg_view("color", col),        sk_arg_view("work", cur),
                  sk_arg_view("sus", sus),          sk_arg_view("scnt", scnt)};
    sk_arg f[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                  sk_arg_view("color", col),        sk_arg_view("sus", sus),
                  sk_arg_view("next", buf[b]),      sk_arg_view("cnt", cnt)};
    if (sk_g_set0(scnt, 0, err, errlen) < 0 ||
        sk_galgo_degree_range_chunk(&k_col_assign, wn, chunk, a, NELEM(a), NULL, err,
                                    errlen) < 0 ||
        sk_sp_get_i64(scnt, 0, &ns, err, errlen) < 0 ||
        sk_g_set0(cnt, 0, err, errlen) < 0 ||
        (ns > 0 && sk_galgo_degree_range_chunk(&k_col_fix, ns, chunk, f, NELEM(f), NULL,
                                               err, errlen) < 0) ||
        sk_sp_get_i64(cnt, 0, &wn, err, errlen) < 0)
      return -1;
    cur = buf[b];
    (*rounds)++;
  }
  return 0;
}

/* VB distance-1 coloring of 'g' into 'col' (zeroed): the vertices of
 * degree >= VB_HEAVY times the mean (and >= 32) by decreasing degree,
 * bucket by bucket of equal floor(log2(degree)) (each one's conflicts
 * resolved before the next: a loser recolored late takes a high color),
 * then the rest in id order (see k_col_assign) */
static int color_vb(const sk_graph *g, int largest_first, const sk_view *col,
                    int64_t *rounds, char *err, size_t errlen) {
  int64_t n = g->nv, nh = 0;
  int space = g->rowptr->space, rc = -1;
  sk_view work, next, redo, sus, cnt, scnt, hcnt;
  sk_view *all[] = {&work, &next, &redo, &sus, &cnt, &scnt, &hcnt};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  *rounds = 0;
  if (n == 0) return 0;
  if (sk_sp_view(&work, "worklist", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&next, "worklist", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&redo, "worklist", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&sus, "worklist", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&scnt, "count", SK_I64, 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&hcnt, "degree buckets", SK_I64, 48, space, 1, err, errlen) < 0 ||
      sk_sp_view(&cnt, "count", SK_I64, 1, space, 1, err, errlen) < 0 ||
      (largest_first && color_hubs_list(g, &work, &hcnt, &nh, err, errlen) < 0))
    goto done;
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) goto done;
  if (nh > 0 && be->code != SK_CODE_HOST) {
    /* a GPU: the hubs by one team; the host's threads settle a bucket's
     * conflicts in a few cheap rounds instead */
    if (color_hubs_team(g, col, &work, nh, err, errlen) < 0) goto done;
    nh = 0;
    (*rounds)++;
  }
  /* after the fill, hcnt(q) is where bucket q ends */
  for (int64_t q = 0, lo = 0; q < 47 && lo < nh; q++) {
    int64_t hi;
    if (sk_sp_get_i64(&hcnt, q, &hi, err, errlen) < 0) goto done;
    if (hi == lo) continue;
    sk_view b = work;
    b.data = (int32_t *)work.data + lo;
    b.extent[0] = hi - lo;
    if (color_vb_rounds(g, col, &b, &next, &redo, &sus, &cnt, &scnt, hi - lo, 8, rounds,
                        err, errlen) < 0)
      goto done;
    lo = hi;
  }
  {
    sk_arg a[] = {sk_arg_view("work", &work)};
    if (sk_sp_range(&k_iota, n, a, 1, NULL, err, errlen) < 0) goto done;
  }
  if (color_vb_rounds(g, col, &work, &next, &redo, &sus, &cnt, &scnt, n, 256, rounds, err,
                      errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int k = 0; k < NELEM(all); k++) sk_view_release(all[k]);
  return rc;
}

/* graph.color: G_* (undirected) [, algorithm "vb" | "eb" (distance 1),
 * "vb" | "nb" (distance 2), distance 1 | 2, order "largest_first" |
 * "natural" (distance-1 VB: see color_vb; natural = id order)] -> colors (int32,
 * 1..ncolors), ncolors, rounds */
static int color(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  static const char *const known[] = {"G_rowptr",  "G_colidx", "G_weights", "directed",
                                      "algorithm", "distance", "order",     NULL};
  sk_graph g;
  int directed;
  int64_t dist;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "distance", 1, 1, &dist, err, errlen) < 0)
    return -1;
  if (dist != 1 && dist != 2) {
    sk_err(err, errlen, SK_E_DISTANCE_MUST, (long long)dist);
    return -1;
  }
  const char *alg = sk_karg_str(args, nargs, "algorithm", "vb", err, errlen);
  if (!alg) return -1;
  const char *other = dist == 1 ? "eb" : "nb";
  if (strcmp(alg, "vb") != 0 && strcmp(alg, other) != 0) {
    sk_err(err, errlen, SK_E_ALGORITHM_NOT_DISTANCE, alg, (long long)dist, other);
    return -1;
  }
  int alt = strcmp(alg, "vb") != 0;
  const char *order = sk_karg_str(args, nargs, "order", "largest_first", err, errlen);
  if (!order) return -1;
  int largest_first = strcmp(order, "largest_first") == 0;
  if (!largest_first && strcmp(order, "natural") != 0) {
    sk_err(err, errlen, SK_E_ORDER_NOT_LARGEST, order);
    return -1;
  }
  if (directed) {
    sk_err(err, errlen, SK_E_GRAPH_DIRECTED_COLORING);
    return -1;
  }
  int64_t n = g.nv, rounds = 0;
  int space = g.rowptr->space, rc = -1;
  sk_view col;
  memset(&col, 0, sizeof col);
  if (sk_sp_view(&col, "colors", SK_I32, n, space, 1, err, errlen) < 0) goto done;
  if (dist == 2) {
    nets nt = {g.rowptr, g.colidx, g.rowptr, g.colidx, n, n, 1};
    if (color_nets(&nt, alt, &col, &rounds, err, errlen) < 0) goto done;
  } else if (alt) {
    if (color_eb(&g, &col, &rounds, err, errlen) < 0) goto done;
  } else if (color_vb(&g, largest_first, &col, &rounds, err, errlen) < 0) {
    goto done;
  }
  if (color_out(&col, n, rounds, out, err, errlen) < 0) goto done;
  rc = 0;
done:
  sk_view_release(&col);
  return rc;
}

/* graph.color_bipartite: A_* (the rows' nets: their columns), T_* (A's
 * transpose: each column's rows) [, algorithm "vb" | "nb"] -> colors of
 * A's rows (int32, 1..ncolors; two rows sharing a column differ),
 * ncolors, rounds */
static int color_bipartite(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                           size_t errlen) {
  static const char *const known[] = {"A_rowptr",  "A_colidx", "A_values", "A_ncols",
                                      "T_rowptr",  "T_colidx", "T_values", "T_ncols",
                                      "algorithm", NULL};
  sk_csr A, T;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 0, &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "T", 0, &T, err, errlen) < 0)
    return -1;
  if (T.nrows != A.ncols || T.ncols != A.nrows || T.nnz != A.nnz) {
    char a[64], t[64];
    sk_err(err, errlen, SK_E_T_MUST_TRANSPOSE, sk_csr_shape(&A, a, sizeof a),
           (long long)A.nnz, sk_csr_shape(&T, t, sizeof t), (long long)T.nnz);
    return -1;
  }
  const char *alg = sk_karg_str(args, nargs, "algorithm", "nb", err, errlen);
  if (!alg) return -1;
  if (strcmp(alg, "vb") != 0 && strcmp(alg, "nb") != 0) {
    sk_err(err, errlen, SK_E_ALGORITHM_NOT_BIPARTITE, alg);
    return -1;
  }
  sk_view col;
  int64_t rounds = 0;
  if (sk_sp_view(&col, "colors", SK_I32, A.nrows, A.rowptr->space, 1, err, errlen) < 0)
    return -1;
  nets nt = {A.rowptr, A.colidx, T.rowptr, T.colidx, A.nrows, A.ncols, 0};
  if (color_nets(&nt, strcmp(alg, "nb") == 0, &col, &rounds, err, errlen) < 0 ||
      color_out(&col, A.nrows, rounds, out, err, errlen) < 0) {
    sk_view_release(&col);
    return -1;
  }
  return 0;
}

/* -- registration --------------------------------------------------------- */
const sk_kentry sk_galgo_color = {"graph.color", "G_* [, algorithm, distance]",
                                  SK_KRES_NONE, color};
const sk_kentry sk_galgo_color_bip = {"graph.color_bipartite", "A_*, T_* [, algorithm]",
                                      SK_KRES_NONE, color_bipartite};

const sk_kbody *const sk_gcolor_bodies[] = {
  &k_col_assign, &k_col_fix,   &k_col_hcount, &k_col_hscan, &k_col_hfill, &k_d2_assign,
  &k_d2_fix,     &k_nb_gather, &k_nb_assign,  &k_eb_forbid, &k_eb_fix,    &k_ebw_deg,
  &k_ebw_fill,   &k_ebw_pick,  &k_ebw_next,   &k_iota,      &k_maxc,      NULL};
