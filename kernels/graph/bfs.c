/* bfs.c: graph.bfs: level-synchronous breadth-first search, direction-
 * optimising (Beamer) on the host and driven from the device on a GPU
 * back end, with visitors spliced into its top-down body. Bodies:
 * bfs.sk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- BFS -------------------------------------------------------------------
 * level(v) -1 until reached; a top-down step expands the queue 'q' (each
 * vertex claimed once by a compare-and-swap of its level), a bottom-up
 * step has every unreached vertex look for a parent on the last level.
 * Beamer's switch: bottom-up when the frontier's edges exceed the
 * unexplored ones / 15, back when the frontier is below nv / 18 vertices
 * (undirected graphs: bottom-up needs in-edges). Three drivers: bfs_host
 * (direction-optimising on the host), bfs_device (a GPU, no visitor) and
 * the top-down loop of bfs() (a visitor, a directed graph, or direction
 * optimisation off). */
static const char *const sig_bfs_init[] = {
  "range" R1("level", "int64") R1("parent", "int64"), NULL};
static const sk_kbody k_bfs_init = {.label = "graph.bfs_init",
                                    .body = sk_body_graph_bfs_init,
                                    .pattern = SK_FOR,
                                    .sigs = sig_bfs_init};

static const char *const sig_bfs_seed[] = {"range" R1("src", "int64") R1("level", "int64")
                                             R1("parent", "int64") R1("q", "int32")
                                               R1("cnt", "int64"),
                                           NULL};
static const sk_kbody k_bfs_seed = {.label = "graph.bfs_seed",
                                    .body = sk_body_graph_bfs_seed,
                                    .pattern = SK_FOR,
                                    .sigs = sig_bfs_seed};

static const char *const sig_bfs_td[] = {
  "range" G3 R1("level", "int64") R1("parent", "int64") R1("q", "int32") R1("nq", "int32")
    R1("cnt", "int64") " l1=int64",
  NULL};
static const sk_kbody k_bfs_td = {.label = "graph.bfs_top_down",
                                  .body = sk_body_graph_bfs_top_down,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_bfs_td,
                                  .reds = "sum:int64"};

/* The host's bottom-up step (Beamer's, as GAP's bfs.cc): the frontier
 * is a bitmap (a bit a vertex, 128 KB at a million vertices: it stays in
 * cache, where the int64 levels are 8 MB), one work item a word of 64
 * vertices: each unreached vertex looks for a neighbour in the frontier,
 * and the word of the next frontier is built in a register and stored
 * once (no atomics, no clearing). 'done' marks the vertices a bottom-up
 * step need not look at again (reached, or without arcs): a later step
 * skips a word whose vertices are all done without reading their levels
 * and rows. Words are int64 views. */
static const char *const sig_bfs_bub[] = {
  "range" G3 R1("level", "int64") R1("parent", "int64") R1("front", "int64")
    R1("next", "int64") R1("done", "int64") " l1=int64 nv=int64",
  NULL};
static const sk_kbody k_bfs_bu_bits = {.label = "graph.bfs_bottom_up_bitmap",
                                       .body = sk_body_graph_bfs_bottom_up_bitmap,
                                       .pattern = SK_REDUCE,
                                       .sigs = sig_bfs_bub,
                                       .reds = "sum:int64 sum:int64"};

/* the frontier's bitmap from its queue (the bitmap cleared before) */
static const char *const sig_bfs_q2b[] = {"range" R1("q", "int32") R1("front", "int64"),
                                          NULL};
static const sk_kbody k_bfs_q2b = {.label = "graph.bfs_queue_to_bitmap",
                                   .body = sk_body_graph_bfs_queue_to_bitmap,
                                   .pattern = SK_FOR,
                                   .sigs = sig_bfs_q2b};
static const char *const sig_bfs_clr[] = {"range" R1("front", "int64"), NULL};
static const sk_kbody k_bfs_clr = {.label = "graph.bfs_bitmap_clear",
                                   .body = sk_body_graph_bfs_bitmap_clear,
                                   .pattern = SK_FOR,
                                   .sigs = sig_bfs_clr};
/* the queue from the bitmap (a word a work item) */
static const char *const sig_bfs_b2q[] = {
  "range" R1("front", "int64") R1("q", "int32") R1("cnt", "int64"), NULL};
static const sk_kbody k_bfs_b2q = {.label = "graph.bfs_bitmap_to_queue",
                                   .body = sk_body_graph_bfs_bitmap_to_queue,
                                   .pattern = SK_FOR,
                                   .sigs = sig_bfs_b2q};

/* Direction-optimising BFS on the host (undirected, no visitor): the
 * levels from the seeded queue 'q' (qn vertices), top-down steps as
 * everywhere, bottom-up steps over a frontier bitmap; Beamer's switches
 * (alpha 15, beta 18) as the general loop. '*nl': the levels' count. */
static int bfs_host(const sk_graph *g, sk_view *level, sk_view *parent, sk_view *q,
                    sk_view *nq, const sk_view *cnt, int64_t qn, int64_t *nl, char *err,
                    size_t errlen) {
  const int64_t nv = g->nv, nw = (nv + 63) / 64, alpha = 15;
  sk_view front, next, dn;
  memset(&front, 0, sizeof front);
  memset(&next, 0, sizeof next);
  memset(&dn, 0, sizeof dn);
  int rc = -1, bottom_up = 0;
  int64_t l = 0, mf = 0, mu = g->narcs;
  if (sk_sp_view(&front, "frontier bitmap", SK_I64, nw, level->space, 0, err, errlen) <
        0 ||
      sk_sp_view(&next, "frontier bitmap", SK_I64, nw, level->space, 0, err, errlen) <
        0 ||
      sk_sp_view(&dn, "done bitmap", SK_I64, nw, level->space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg c[] = {sk_arg_view("front", &dn)};
    if (sk_sp_range(&k_bfs_clr, nw, c, 1, NULL, err, errlen) < 0) goto done;
  }
  while (qn > 0) {
    sk_result r;
    if (!bottom_up && mf > mu / alpha) {
      bottom_up = 1;
      sk_arg c[] = {sk_arg_view("front", &front)};
      sk_arg a[] = {sk_arg_view("q", q), sk_arg_view("front", &front)};
      if (sk_sp_range(&k_bfs_clr, nw, c, 1, NULL, err, errlen) < 0 ||
          sk_sp_range(&k_bfs_q2b, qn, a, NELEM(a), NULL, err, errlen) < 0)
        goto done;
    } else if (bottom_up && qn < nv / 18) {
      bottom_up = 0;
      sk_arg a[] = {sk_arg_view("front", &front), sk_arg_view("q", q),
                    sk_arg_view("cnt", cnt)};
      if (sk_g_set0(cnt, 0, err, errlen) < 0 ||
          sk_sp_range(&k_bfs_b2q, nw, a, NELEM(a), NULL, err, errlen) < 0)
        goto done;
    }
    if (bottom_up) {
      sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                    sk_arg_view("colidx", g->colidx),
                    sk_arg_view("level", level),
                    sk_arg_view("parent", parent),
                    sk_arg_view("front", &front),
                    sk_arg_view("next", &next),
                    sk_arg_view("done", &dn),
                    sk_arg_i64("l1", l + 1),
                    sk_arg_i64("nv", nv)};
      if (sk_galgo_degree_range_chunk(&k_bfs_bu_bits, nw, 4, a, NELEM(a), &r, err,
                                      errlen) < 0)
        goto done;
      qn = sk_result_i64(&r, 0);
      mf = sk_result_i64(&r, 1);
      sk_view t = front;
      front = next;
      next = t;
    } else {
      sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                    sk_arg_view("colidx", g->colidx),
                    sk_arg_view("level", level),
                    sk_arg_view("parent", parent),
                    sk_arg_view("q", q),
                    sk_arg_view("nq", nq),
                    sk_arg_view("cnt", cnt),
                    sk_arg_i64("l1", l + 1)};
      if (sk_g_set0(cnt, 0, err, errlen) < 0 ||
          sk_galgo_degree_range(&k_bfs_td, qn, a, NELEM(a), &r, err, errlen) < 0 ||
          sk_sp_get_i64(cnt, 0, &qn, err, errlen) < 0)
        goto done;
      mf = sk_result_i64(&r, 0);
      sk_view t = *q;
      *q = *nq;
      *nq = t;
    }
    mu -= mf;
    l++;
  }
  *nl = l;
  rc = 0;
done:
  sk_view_release(&front);
  sk_view_release(&next);
  sk_view_release(&dn);
  return rc;
}

static const char *const sig_firstbad[] = {"range" R1("v", "int64") " n=int64", NULL};
static const sk_kbody k_firstbad = {.label = "graph.first_bad_id",
                                    .body = sk_body_graph_first_bad_id,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_firstbad,
                                    .reds = "min:int64"};

/* -- visitors -----------------------------------------------------------------
 * A BFS visitor (seed 003 Table 4.2) is dialect code compiled into the
 * BFS kernels by the JIT, never called through a pointer: the top-down
 * body with the snippets spliced in. In the snippets 'u' is the vertex
 * expanded, 'v' the neighbour, 'e' the arc, 'lv' v's level when
 * discovered; the user's captures are captures of the kernel. examine_edge
 * runs on every arc of an expanded vertex, filter (an expression: 0 skips
 * the arc) before the arc is followed, tree_edge and discover_vertex when
 * v is reached (a source: discover_vertex with u = v). */
typedef struct bfs_visitor {
  const char *examine, *filter, *tree, *discover;
  int on;
} bfs_visitor;

static int visitor_arg(const sk_arg *args, int nargs, bfs_visitor *vis, char *err,
                       size_t errlen) {
  const char *names[4] = {"visit_examine_edge", "visit_filter", "visit_tree_edge",
                          "visit_discover_vertex"};
  const char **dst[4] = {&vis->examine, &vis->filter, &vis->tree, &vis->discover};
  memset(vis, 0, sizeof *vis);
  for (int k = 0; k < 4; k++) {
    *dst[k] = sk_karg_find(args, nargs, names[k])
                ? sk_karg_str(args, nargs, names[k], NULL, err, errlen)
                : "";
    if (!*dst[k]) return -1;
    vis->on |= **dst[k] != '\0';
  }
  return 0;
}

/* the body of 'base' with the visitor's code spliced in; NULL when out of
 * memory */
static char *visit_body(const char *fmt, const bfs_visitor *v) {
  const char *filter = *v->filter ? v->filter : "1";
  int n = snprintf(NULL, 0, fmt, v->examine, filter, v->tree, v->discover);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b) snprintf(b, (size_t)n + 1, fmt, v->examine, filter, v->tree, v->discover);
  return b;
}

/* the seed: the same arguments as the spliced format, the first three unused */

/* -- BFS on a GPU: the levels driven from the device ------------------------
 * The host queues a round of levels without waiting; every level is the
 * same five launches, and the state 'st' in device memory says which of
 * them have work: 'decide' (one thread) closes the last level (its count
 * and arcs from the counters), stops the search when nothing was found
 * and picks the direction by Beamer's rule (one team of 64); 'convert' rebuilds the
 * frontier for a new direction (levels -> bitmap and the visited bitmap,
 * bitmap -> queue); the top-down step runs a warp per queued vertex, four
 * arcs a lane a step, and queues the vertices of DBFS_BIG arcs or more as
 * chunks of DBFS_CHUNK arcs for 'top_down_big', a warp per chunk (a hub's
 * arcs spread over the whole device; one grid walking the big vertices
 * one after another took 0.84 ms on a level with hundreds of them); the
 * bottom-up step has a warp per 32 vertices (a lane each) look for a
 * parent in the frontier's bitmap and writes the next bitmap a word per
 * warp, skipping the words whose vertices the visited bitmap 'vis' says
 * are all reached or without arcs (after the largest level, most words).
 * The host reads 'done' once a round.
 * st: 0 level, 1 frontier size, 2 direction (1 bottom-up), 3 arcs not yet
 * reached, 4 done, 5 levels, 8 top-down count (the queue's tail), 10
 * conversion (1 to bitmap, 2 to queue), 12 conversion tail, 13 chunks
 * queued (bq: vertex << 32 | chunk); 16 + 8 k (k < 64): counters spread over cache lines (count,
 * arcs), so the warps' adds do not queue on one word. */
#define DBFS_ST    (16 + 64 * 8)
#define DBFS_BIG   512 /* 256 / 512 / 1024: level within noise on an H200 */
#define DBFS_CHUNK 256
/* the vertices of a bitmap word (a uint32_t: fb0, fb1, vis) */
#define DBFS_WORD 32
static const sk_kbody k_dbfs_st = {.label = "graph.bfs_device_state",
                                   .body = sk_body_graph_bfs_device_state,
                                   .pattern = SK_FOR};
static const sk_kbody k_dbfs_seed = {.label = "graph.bfs_device_seed",
                                     .body = sk_body_graph_bfs_device_seed,
                                     .pattern = SK_FOR};
static const sk_kbody k_dbfs_decide = {.label = "graph.bfs_device_decide",
                                       .body = sk_body_graph_bfs_device_decide,
                                       .pattern = SK_FOR};
static const sk_kbody k_dbfs_convert = {.label = "graph.bfs_device_convert",
                                        .body = sk_body_graph_bfs_device_convert,
                                        .pattern = SK_FOR};
static const sk_kbody k_dbfs_td = {.label = "graph.bfs_device_top_down",
                                   .body = sk_body_graph_bfs_device_top_down,
                                   .pattern = SK_FOR};
static const sk_kbody k_dbfs_td_big = {.label = "graph.bfs_device_top_down_big",
                                       .body = sk_body_graph_bfs_device_top_down_big,
                                       .pattern = SK_FOR};
static const sk_kbody k_dbfs_bu = {.label = "graph.bfs_device_bottom_up",
                                   .body = sk_body_graph_bfs_device_bottom_up,
                                   .pattern = SK_FOR};

/* the captures of 'a' that 'names' (space-separated) lists, into 'out':
 * each launch passes only what its body reads (a launch's cost grows with
 * its captures) */
static int dbfs_pick(const sk_arg *a, int na, const char *names, sk_arg *out) {
  int n = 0;
  for (int k = 0; k < na; k++) {
    const char *p = strstr(names, a[k].name);
    size_t len = strlen(a[k].name);
    while (p && ((p > names && p[-1] != ' ') || (p[len] != ' ' && p[len] != '\0')))
      p = strstr(p + 1, a[k].name);
    if (p) out[n++] = a[k];
  }
  return n;
}

/* graph.bfs without a visitor on a GPU back end; 'q' and 'nq' (int32, nv)
 * are the two queues. Top-down only for a directed graph or without
 * direction optimisation. */
static int bfs_device(const sk_graph *g, const sk_view *src, int directed, int dopt,
                      sk_view *level, sk_view *parent, sk_view *q, sk_view *nq,
                      int64_t *nlevels, char *err, size_t errlen) {
  const int64_t nv = g->nv, nw = (nv + DBFS_WORD - 1) / DBFS_WORD, ns = src->extent[0];
  const int warp = sk_galgo_warp(err, errlen);
  if (warp < 0) return -1;
  /* Beamer's switch for this kernel pair (an H200, Kronecker scale 22):
   * bottom-up once the frontier's arcs pass 1/30 of those not reached,
   * back to top-down below nv / 200 vertices */
  const int64_t alpha = dopt && !directed ? 30 : 0, beta = 200;
  /* teams of 8 warps (top-down) and 16 (bottom-up, convert) over a
   * fixed league: a level whose kernel has no work costs its launch and
   * a block per slot, not a block per 32 vertices (a sweep on an H200:
   * 1 and 4 warps a team over 8192 teams were 4-6 % slower) */
  const int64_t lt = 1056, lb = 1056;
  const int tt = 8, tb = 16;
  /* a chunk per DBFS_CHUNK arcs of each vertex of DBFS_BIG or more */
  const int64_t nbq = g->narcs / DBFS_CHUNK + g->narcs / DBFS_BIG + 1;
  int space = g->rowptr->space, rc = -1;
  sk_view fb0, fb1, vis, bq, st;
  sk_view *all[] = {&fb0, &fb1, &vis, &bq, &st};
  sk_prepared *ph[5] = {NULL, NULL, NULL, NULL, NULL};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&fb0, "frontier bitmap", SK_U32, nw > 0 ? nw : 1, space, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&fb1, "next bitmap", SK_U32, nw > 0 ? nw : 1, space, 0, err, errlen) <
        0 ||
      sk_sp_view(&vis, "visited bitmap", SK_U32, nw > 0 ? nw : 1, space, 0, err, errlen) <
        0 ||
      sk_sp_view(&bq, "big vertices' chunks", SK_I64, nbq, space, 0, err, errlen) < 0 ||
      sk_sp_view(&st, "BFS state", SK_I64, DBFS_ST, space, 0, err, errlen) < 0)
    goto done;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                sk_arg_view("colidx", g->colidx),
                sk_arg_view("level", level),
                sk_arg_view("parent", parent),
                sk_arg_view("q0", q),
                sk_arg_view("q1", nq),
                sk_arg_view("fb0", &fb0),
                sk_arg_view("fb1", &fb1),
                sk_arg_view("vis", &vis),
                sk_arg_view("bq", &bq),
                sk_arg_view("st", &st),
                sk_arg_view("src", src),
                sk_arg_i64("nv", nv),
                sk_arg_i64("nw", nw),
                sk_arg_i64("alpha", alpha),
                sk_arg_i64("beta", beta),
                sk_arg_i64("big", DBFS_BIG),
                sk_arg_i64("chunk", DBFS_CHUNK),
                sk_arg_i64("mu", g->narcs)};
  const int na = NELEM(a);
  sk_arg ast[2], asd[5], adc[4], acv[10], atd[10], abu[10];
  const int nst = dbfs_pick(a, na, "st mu", ast),
            nsd = dbfs_pick(a, na, "src level parent q0 st", asd),
            ndc = dbfs_pick(a, na, "st nv alpha beta", adc),
            ncv = dbfs_pick(a, na, "st rowptr level fb0 fb1 vis q0 q1 nv nw", acv),
            ntd =
              dbfs_pick(a, na, "st rowptr colidx level parent q0 q1 bq big chunk", atd),
            nbu =
              dbfs_pick(a, na, "st rowptr colidx level parent fb0 fb1 vis nv nw", abu);
  if (sk_sp_range(&k_dbfs_st, DBFS_ST, ast, nst, NULL, err, errlen) < 0 ||
      sk_sp_range(&k_dbfs_seed, ns, asd, nsd, NULL, err, errlen) < 0)
    goto done;
  sk_policy pdc, ptd, pbu;
  sk_policy_init(&pdc, SK_POL_TEAM);
  pdc.league_size = 1;
  pdc.team_size = warp < 64 ? 64 / warp : 1; /* a team of 64 threads (decide) */
  pdc.vector_length = warp;
  sk_policy_init(&ptd, SK_POL_TEAM);
  ptd.league_size = lt;
  ptd.team_size = tt;
  ptd.vector_length = warp;
  sk_policy_init(&pbu, SK_POL_TEAM);
  pbu.league_size = lb;
  pbu.team_size = tb;
  pbu.vector_length = warp;
  /* the level's kernels found once per search and launched by handle (a
   * launch by description encodes and looks up its kernel every time) */
  const sk_kbody *const kbs[5] = {&k_dbfs_decide, &k_dbfs_convert, &k_dbfs_td,
                                  &k_dbfs_td_big, &k_dbfs_bu};
  const sk_policy *const pols[5] = {&pdc, &pbu, &ptd, &ptd, &pbu};
  const sk_arg *const kas[5] = {adc, acv, atd, atd, abu};
  const int kns[5] = {ndc, ncv, ntd, ntd, nbu}, nk = alpha > 0 ? 5 : 4;
  for (int i = 0; i < nk; i++) {
    sk_kdesc d;
    if (sk_kbody_desc(kbs[i], NULL, &d, err, errlen) < 0 ||
        !(ph[i] = sk_prepare(&d, pols[i]->kind, 0, kas[i], kns[i], 0, err, errlen)))
      goto done;
  }
  /* a Kronecker graph's search from its giant component takes 6 to 9
   * levels: a first round of 8, then 2 at a time (a level queued past the
   * end costs its five launches; a round, one wait) */
  int64_t done = 0, queued = 0;
  for (int round = 8; !done; round = 2) {
    for (int k = 0; k < round; k++)
      for (int i = 0; i < nk; i++)
        if (sk_run_prepared(ph[i], pols[i], kas[i], kns[i], NULL, err, errlen) < 0)
          goto done;
    queued += round;
    if (sk_sp_get_i64(&st, 4, &done, err, errlen) < 0) goto done;
    if (!done && queued > nv + 1) { /* cannot happen: a level reaches a vertex */
      sk_err(err, errlen, SK_E_GRAPH_BFS_NO, (long long)queued);
      goto done;
    }
  }
  if (sk_sp_get_i64(&st, 5, nlevels, err, errlen) < 0) goto done;
  rc = 0;
done:
  for (int i = 0; i < 5; i++)
    if (ph[i]) sk_prepared_free(ph[i]);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* graph.bfs: G_*, sources (int64 view) [, directed, direction_optimizing,
 * visit_examine_edge, visit_filter, visit_tree_edge, visit_discover_vertex
 * and the visitor's captures (any other view or number)] -> level, parent
 * (int64 views), nlevels. A visitor turns direction optimisation off. */
static int bfs(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr",
                                      "G_colidx",
                                      "G_weights",
                                      "sources",
                                      "directed",
                                      "direction_optimizing",
                                      "visit_examine_edge",
                                      "visit_filter",
                                      "visit_tree_edge",
                                      "visit_discover_vertex",
                                      NULL};
  static const char *const taken[] = {"rowptr", "colidx", "level", "parent", "q",
                                      "nq",     "cnt",    "l1",    "src",    NULL};
  sk_graph g;
  int directed, dopt;
  const sk_view *src;
  bfs_visitor vis;
  if (visitor_arg(args, nargs, &vis, err, errlen) < 0) return -1;
  /* with a visitor, the arguments not named above are its captures */
  sk_arg user[SK_MAXCAP];
  int nuser = 0;
  for (int k = 0; k < nargs && vis.on; k++) {
    int mine = 0;
    for (int j = 0; known[j] && !mine; j++) mine = strcmp(args[k].name, known[j]) == 0;
    if (mine) continue;
    for (int j = 0; taken[j]; j++)
      if (strcmp(args[k].name, taken[j]) == 0) {
        sk_err(err, errlen, SK_E_VISITOR_CAPTURE_NAME, args[k].name);
        return -1;
      }
    if (args[k].str) {
      sk_err(err, errlen, SK_E_VISITOR_CAPTURE_STRING, args[k].name);
      return -1;
    }
    if (nuser >= SK_MAXCAP - 12) {
      sk_err(err, errlen, SK_E_VISITOR_MORE_THAN, SK_MAXCAP - 12);
      return -1;
    }
    user[nuser++] = args[k];
  }
  if ((!vis.on && sk_karg_known(args, nargs, known, err, errlen) < 0) ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "direction_optimizing", 1, &dopt, err, errlen) < 0 ||
      !(src = sk_karg_view(args, nargs, "sources", 1, err, errlen)))
    return -1;
  if (src->dtype != SK_I64) {
    sk_err(err, errlen, SK_E_SOURCES_MUST_INT64, sk_dtypes[src->dtype].name);
    return -1;
  }
  int64_t ns = src->extent[0], nv = g.nv;
  if (ns > 0) {
    sk_arg a[] = {sk_arg_view("v", src), sk_arg_i64("n", nv)};
    sk_result r;
    if (sk_sp_range(&k_firstbad, ns, a, NELEM(a), &r, err, errlen) < 0) return -1;
    int64_t bad = sk_result_i64(&r, 0), s = 0;
    if (bad != INT64_MAX) {
      if (sk_sp_get_i64(src, bad, &s, err, errlen) < 0) return -1;
      sk_err(err, errlen, SK_E_SOURCE_NOT_VERTEX, (long long)s, (long long)nv,
             (long long)nv - 1);
      return -1;
    }
  }
  int space = g.rowptr->space, rc = -1;
  sk_kbody kseed = k_bfs_seed, ktd = k_bfs_td;
  char *seed_body = NULL, *td_body = NULL;
  sk_view level, parent, q, nq, cnt;
  sk_view *all[] = {&level, &parent, &q, &nq, &cnt};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&level, "level", SK_I64, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&parent, "parent", SK_I64, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&q, "queue", SK_I32, nv > 0 ? nv : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nq, "next queue", SK_I32, nv > 0 ? nv : 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("level", &level), sk_arg_view("parent", &parent)};
    if (sk_sp_range(&k_bfs_init, nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (vis.on) {
    dopt = 0;
    if (!(seed_body = visit_body(sk_body_graph_visit_seed_fmt, &vis)) ||
        !(td_body = visit_body(sk_body_graph_visit_td_fmt, &vis))) {
      sk_err(err, errlen, SK_E_NOMEM);
      goto done;
    }
    kseed.body = seed_body;
    ktd.body = td_body;
    kseed.label = "graph.bfs_seed_visitor";
    ktd.label = "graph.bfs_top_down_visitor";
    kseed.sigs = ktd.sigs = NULL;
  }
  int64_t l = 0;
  const sk_backend *bk = sk_sp_backend(err, errlen);
  if (!bk) goto done;
  if (!vis.on && !sk_sp_host(bk)) {
    if (bfs_device(&g, src, directed, dopt, &level, &parent, &q, &nq, &l, err, errlen) <
        0)
      goto done;
    goto out;
  }
  /* the queue's tail (zeroed: a wait; bfs_device keeps its own) */
  if (sk_sp_view(&cnt, "count", SK_I64, 1, space, 1, err, errlen) < 0) goto done;
  {
    sk_arg a[SK_MAXCAP] = {sk_arg_view("src", src), sk_arg_view("level", &level),
                           sk_arg_view("parent", &parent), sk_arg_view("q", &q),
                           sk_arg_view("cnt", &cnt)};
    int na = 5;
    for (int k = 0; k < nuser; k++) a[na++] = user[k];
    if (sk_sp_range(&kseed, ns, a, na, NULL, err, errlen) < 0) goto done;
  }
  int64_t qn = 0;
  if (sk_sp_get_i64(&cnt, 0, &qn, err, errlen) < 0) goto done;
  /* the host, direction-optimising: bottom-up over a frontier bitmap */
  if (!vis.on && dopt && !directed) {
    if (bfs_host(&g, &level, &parent, &q, &nq, &cnt, qn, &l, err, errlen) < 0) goto done;
    goto out;
  }
  /* top-down only: a visitor, a directed graph, or no direction optimising */
  for (; qn > 0; l++) {
    sk_arg a[SK_MAXCAP] = {sk_arg_view("rowptr", g.rowptr),
                           sk_arg_view("colidx", g.colidx),
                           sk_arg_view("level", &level),
                           sk_arg_view("parent", &parent),
                           sk_arg_view("q", &q),
                           sk_arg_view("nq", &nq),
                           sk_arg_view("cnt", &cnt),
                           sk_arg_i64("l1", l + 1)};
    int na = 8;
    for (int k = 0; k < nuser; k++) a[na++] = user[k];
    sk_result r;
    if (sk_g_set0(&cnt, 0, err, errlen) < 0 ||
        sk_galgo_degree_range(&ktd, qn, a, na, &r, err, errlen) < 0 ||
        sk_sp_get_i64(&cnt, 0, &qn, err, errlen) < 0)
      goto done;
    sk_view t = q;
    q = nq;
    nq = t;
  }
out:
  if (sk_kout_view(out, "level", &level, err, errlen) < 0 ||
      sk_kout_view(out, "parent", &parent, err, errlen) < 0 ||
      sk_kout_num(out, "nlevels", (double)l, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  free(seed_body);
  free(td_body);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- registration --------------------------------------------------------- */
const sk_kentry sk_galgo_bfs = {
  "graph.bfs", "G_*, sources [, directed, direction_optimizing]", SK_KRES_NONE, bfs};

const sk_kbody *const sk_gbfs_bodies[] = {&k_bfs_bu_bits, &k_bfs_q2b,  &k_bfs_clr,
                                          &k_bfs_b2q,     &k_bfs_init, &k_bfs_seed,
                                          &k_bfs_td,      &k_firstbad, NULL};
