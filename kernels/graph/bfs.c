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
 * The host queues a round of levels without waiting; every level is three
 * launches, 'level' (bottom-up), 'top_down' and 'top_down_big' (bfs.sk
 * says what they do), with the level's number as their one changing
 * argument, and what a level tells the next -- its count and arcs, the
 * direction, done -- stays in device memory ('st', by the parity of the
 * level): each warp of the level launch closes the level before from its
 * counters itself, so no launch of one thread decides between the
 * steps (a launch of one warp that did, before the level launch, cost a
 * Kronecker scale-25 search 5 % on an H200, 2026-11-29). Both directions
 * keep the frontier's bitmap and the visited one (a top-down step marks what
 * it claims; a bottom-up step writes the next bitmap), and a top-down
 * step after bottom-up ones reads its frontier from the bitmap: a change
 * of direction needs no conversion launch (five launches a level before:
 * a decision, a conversion and three steps, most of them without work).
 * The host reads the last slot's state and counters once a round. */
#define DBFS_ST    1120 /* the state and counters; the chunks from there */
/* the chunks' sizes, which bfs.sk's bfs_device_init writes to 'st': a
 * vertex of 512 arcs or more goes top-down as chunks of 256 arcs, and in a
 * frontier of fewer than DBFS_SMALL_VERTICES vertices (and 2^20 arcs) one
 * of DBFS_SMALL arcs or more as chunks of DBFS_SMALL */
#define DBFS_SMALL          128
#define DBFS_SMALL_VERTICES 1024
/* the vertices of a bitmap word (a uint32_t) */
#define DBFS_WORD 32
static const sk_kbody k_dbfs_init = {.label = "graph.bfs_device_init",
                                     .body = sk_body_graph_bfs_device_init,
                                     .pattern = SK_FOR};
static const sk_kbody k_dbfs_seed = {.label = "graph.bfs_device_seed",
                                     .body = sk_body_graph_bfs_device_seed,
                                     .pattern = SK_FOR};
static const sk_kbody k_dbfs_seed1 = {.label = "graph.bfs_device_seed_one",
                                      .body = sk_body_graph_bfs_device_seed_one,
                                      .pattern = SK_FOR};
static const sk_kbody k_dbfs_level = {.label = "graph.bfs_device_level",
                                      .body = sk_body_graph_bfs_device_level,
                                      .pattern = SK_FOR};
static const sk_kbody k_dbfs_td = {.label = "graph.bfs_device_top_down",
                                   .body = sk_body_graph_bfs_device_top_down,
                                   .pattern = SK_FOR};
static const sk_kbody k_dbfs_td_big = {.label = "graph.bfs_device_top_down_big",
                                       .body = sk_body_graph_bfs_device_top_down_big,
                                       .pattern = SK_FOR};

/* the search's launches kept by this thread (sk_run_again: no spec or
 * look-up a launch; the general path when the kept one does not hold) */
static _Thread_local sk_lprep dbfs_kept[6];

static int dbfs_launch(int i, const sk_kbody *kb, const sk_policy *p, const sk_arg *a,
                       int na, char *err, size_t errlen) {
  int rc = sk_run_again(&dbfs_kept[i], kb, p, a, na, NULL, err, errlen);
  if (rc <= 0) return rc;
  sk_kdesc d;
  if (sk_kbody_desc(kb, NULL, &d, err, errlen) < 0) return -1;
  return sk_run_keep(&dbfs_kept[i], kb, &d, p, a, na, NULL, err, errlen);
}

/* graph.bfs without a visitor on a GPU back end, into 'level' and
 * 'parent' (int64, nv, not yet set). Top-down only for a directed graph or
 * without direction optimisation. */
static int bfs_device(const sk_graph *g, const sk_view *src, int64_t one, int directed,
                      int dopt, sk_view *level, sk_view *parent, int64_t *nlevels,
                      char *err, size_t errlen) {
  const int64_t nv = g->nv, nw = (nv + DBFS_WORD - 1) / DBFS_WORD;
  const int64_t ns = src ? src->extent[0] : 1;
  const int warp = sk_galgo_warp(err, errlen);
  if (warp < 0) return -1;
  /* Beamer's switch for these kernels (an H200, Kronecker scale 22):
   * bottom-up once the frontier's arcs pass 1/30 of those not reached,
   * back to top-down below nv / 200 vertices (beta: bfs_device_init) */
  const int64_t alpha = dopt && !directed ? 30 : 0;
  /* teams of 16 warps (the level: bottom-up) and 8 (top-down, the
   * chunks) over a fixed league: a level whose kernel has no work costs
   * its launch and a block per slot, not a block per 32 vertices (a
   * sweep on an H200: 1 and 4 warps a team over 8192 teams were 4-6 %
   * slower). The league is one wave of the level kernel's teams, three
   * resident a multiprocessor (40 registers a thread, ptxas for sm_90):
   * on an H200, 396 against the 1,056 of before, scale 22 138-147 GTEPS
   * against 124-128, scale 24 193-200 against 184-186 (528 and 792, part
   * of a second wave, between; docs/bench.md) */
  const int sms = sk_galgo_processors();
  const int64_t league = sms > 0 ? 3 * (int64_t)sms : 1056;
  const int tl = warp > 1 ? 16 : 1, tt = warp > 1 ? 8 : 1;
  /* the chunks a level queues: at most narcs / 256 + narcs / 512, or in a
   * small frontier narcs / DBFS_SMALL + DBFS_SMALL_VERTICES (a chunk per
   * DBFS_SMALL arcs of each vertex, one of them partial) */
  const int64_t nbq = g->narcs / DBFS_SMALL + DBFS_SMALL_VERTICES;
  int space = g->rowptr->space, rc = -1;
  sk_view q, fb, st;
  sk_view *all[] = {&q, &fb, &st};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&q, "queues", SK_I32, nv > 0 ? 2 * nv : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&fb, "bitmaps", SK_U32, nw > 0 ? 4 * nw : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&st, "BFS state", SK_I64, DBFS_ST + nbq, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("level", level), sk_arg_view("parent", parent),
                  sk_arg_view("fb", &fb),      sk_arg_view("st", &st),
                  sk_arg_i64("nv", nv),        sk_arg_i64("nw", nw),
                  sk_arg_i64("mu", g->narcs),  sk_arg_i64("alpha", alpha)};
    sk_policy p;
    sk_policy_init(&p, SK_POL_RANGE);
    p.end = nv > 4 * nw ? nv : 4 * nw;
    if (p.end < DBFS_ST) p.end = DBFS_ST;
    if (dbfs_launch(3, &k_dbfs_init, &p, a, NELEM(a), err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {src ? sk_arg_view("src", src) : sk_arg_i64("s0", one),
                  sk_arg_view("level", level), sk_arg_view("parent", parent),
                  sk_arg_view("q", &q), sk_arg_view("fb", &fb), sk_arg_view("st", &st)};
    sk_policy p;
    sk_policy_init(&p, SK_POL_RANGE);
    p.end = ns;
    if (dbfs_launch(src ? 4 : 5, src ? &k_dbfs_seed : &k_dbfs_seed1, &p, a, NELEM(a), err,
                    errlen) < 0)
      goto done;
  }
  sk_policy plv, ptd;
  sk_policy_init(&plv, SK_POL_TEAM);
  plv.league_size = league;
  plv.team_size = tl;
  plv.vector_length = warp;
  ptd = plv;
  ptd.team_size = tt;
  sk_arg a[] = {sk_arg_view("st", &st),         sk_arg_view("rowptr", g->rowptr),
                sk_arg_view("colidx", g->colidx), sk_arg_view("level", level),
                sk_arg_view("parent", parent),  sk_arg_view("q", &q),
                sk_arg_view("fb", &fb),         sk_arg_i64("kl", 0)};
  /* a Kronecker graph's search from its giant component takes 6 to 9
   * levels: a first round of 7 slots, then 2 at a time (a slot past the
   * end costs its three launches; a round, one wait). After a round the
   * host reads the last slot's state and counters in one copy: the search
   * is done when a slot's level launch found it so, or when the last slot
   * claimed nothing (the level launch of the slot after it would say so:
   * reading the counters saves that slot, three launches) */
  /* bfs.sk's layout of st: slot p's counters at CT + CS p, CW words */
  enum { CT = 64, CS = 528, CW = 16 + 8 * 63 + 2, RD = CT + CS + CW };
  int64_t done = 0, k = 0, rd[RD];
  for (int round = 7; !done; round = 2) {
    for (int r = 0; r < round; r++, k++) {
      a[NELEM(a) - 1].value.i64 = k;
      if (dbfs_launch(0, &k_dbfs_level, &plv, a, NELEM(a), err, errlen) < 0 ||
          dbfs_launch(1, &k_dbfs_td, &ptd, a, NELEM(a), err, errlen) < 0 ||
          dbfs_launch(2, &k_dbfs_td_big, &ptd, a, NELEM(a), err, errlen) < 0)
        goto done;
    }
    /* the state (done: 0, else the levels + 1) and the counters of the
     * last slot, from st(8 p) to its counters' end */
    const int64_t p = (k - 1) & 1, c = CT + CS * p - 8 * p;
    if (sk_sp_get_i64s(&st, 8 * p, c + CW, rd, err, errlen) < 0) goto done;
    done = rd[4];
    if (!done) {
      int64_t cnt = rd[c];
      for (int j = 0; j < 64; j++) cnt += rd[c + 16 + 8 * j];
      if (cnt == 0) done = k + 1;
    }
    if (!done && k > nv + 1) { /* cannot happen: a level reaches a vertex */
      sk_err(err, errlen, SK_E_GRAPH_BFS_NO, (long long)k);
      goto done;
    }
  }
  *nlevels = done - 1;
  rc = 0;
done:
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
                                      "source",
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
  const sk_view *src = NULL;
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
      sk_g_flag(args, nargs, "direction_optimizing", 1, &dopt, err, errlen) < 0)
    return -1;
  /* one source as a number ('source'): checked here, no view to read back */
  int64_t one = -1, nv = g.nv;
  if (sk_karg_find(args, nargs, "source")) {
    if (sk_karg_find(args, nargs, "sources")) {
      sk_err(err, errlen, SK_E_SOURCE_AND_SOURCES);
      return -1;
    }
    if (sk_karg_i64(args, nargs, "source", 0, 0, &one, err, errlen) < 0) return -1;
    if (one < 0 || one >= nv) {
      sk_err(err, errlen, SK_E_SOURCE_NOT_VERTEX, (long long)one, (long long)nv,
             (long long)nv - 1);
      return -1;
    }
  } else if (!(src = sk_karg_view(args, nargs, "sources", 1, err, errlen))) {
    return -1;
  }
  if (src && src->dtype != SK_I64) {
    sk_err(err, errlen, SK_E_SOURCES_MUST_INT64, sk_dtypes[src->dtype].name);
    return -1;
  }
  int64_t ns = src ? src->extent[0] : 1;
  if (src && ns > 0) {
    /* one source: read it (a launch and its result cost twice a read) */
    int64_t bad = INT64_MAX, s = 0;
    if (ns == 1) {
      if (sk_sp_get_i64(src, 0, &s, err, errlen) < 0) return -1;
      if (s < 0 || s >= nv) bad = 0;
    } else {
      sk_arg a[] = {sk_arg_view("v", src), sk_arg_i64("n", nv)};
      sk_result r;
      if (sk_sp_range(&k_firstbad, ns, a, NELEM(a), &r, err, errlen) < 0) return -1;
      bad = sk_result_i64(&r, 0);
    }
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
  sk_view level, parent, q, nq, cnt, srcv;
  sk_view *all[] = {&level, &parent, &q, &nq, &cnt, &srcv};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&level, "level", SK_I64, nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&parent, "parent", SK_I64, nv, space, 0, err, errlen) < 0)
    goto done;
  int64_t l = 0;
  const sk_backend *bk = sk_sp_backend(err, errlen);
  if (!bk) goto done;
  if (!vis.on && !sk_sp_host(bk)) {
    if (bfs_device(&g, src, one, directed, dopt, &level, &parent, &l, err, errlen) < 0)
      goto done;
    goto out;
  }
  /* the host's drivers and the visitor's seed take the source as a view */
  if (!src) {
    if (sk_sp_view(&srcv, "sources", SK_I64, 1, space, 0, err, errlen) < 0 ||
        sk_view_fill(&srcv, 0, one, err, errlen) < 0)
      goto done;
    src = &srcv;
  }
  if (sk_sp_view(&q, "queue", SK_I32, nv > 0 ? nv : 1, space, 0, err, errlen) < 0 ||
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
  "graph.bfs", "G_*, sources (or source) [, directed, direction_optimizing]", SK_KRES_NONE,
  bfs};

const sk_kbody *const sk_gbfs_bodies[] = {&k_bfs_bu_bits, &k_bfs_q2b,  &k_bfs_clr,
                                          &k_bfs_b2q,     &k_bfs_init, &k_bfs_seed,
                                          &k_bfs_td,      &k_firstbad, NULL};
