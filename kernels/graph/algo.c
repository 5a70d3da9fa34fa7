/* algo.c: graph algorithms as multi-phase drivers over sk_run: BFS
 * (level-synchronous, direction-optimising), connected components
 * (Shiloach-Vishkin hooking with pointer jumping, and Afforest's
 * sampling), PageRank (NetworkX's semantics), triangle counting and
 * distance-1 coloring (vertex-based, speculative). Every body is written
 * once in the dialect and runs on every back end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "kbodies.h"

#define G3 R1("rowptr", "int64") R1("colidx", "int32")

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
/* A range over vertices whose work follows their degrees (power-law
 * graphs: a few rows hold most arcs): on the host claimed in chunks of 256
 * by the threads that are free; a GPU back end's launch as before */
static int degree_range_chunk(const sk_kbody *kb, int64_t n, int64_t chunk,
                              const sk_arg *args, int nargs, sk_result *res, char *err,
                              size_t errlen) {
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) return -1;
  if (be->code == SK_CODE_HOST) {   /* (a GPU's chunk would be its block size) */
    p.schedule = SK_DYNAMIC;
    p.chunk = chunk;
  }
  return sk_kbody_launch(kb, &p, args, nargs, res, err, errlen);
}
static int degree_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                        sk_result *res, char *err, size_t errlen) {
  return degree_range_chunk(kb, n, 256, args, nargs, res, err, errlen);
}

static const char *const sig_bfs_init[] = {
  "range" R1("level", "int64") R1("parent", "int64"), NULL};
static const sk_kbody k_bfs_init = {
  .label = "graph.bfs_init", .body = sk_body_graph_bfs_init, .pattern = SK_FOR,
  .sigs = sig_bfs_init};

static const char *const sig_bfs_seed[] = {
  "range" R1("src", "int64") R1("level", "int64") R1("parent", "int64")
  R1("q", "int32") R1("cnt", "int64"), NULL};
static const sk_kbody k_bfs_seed = {
  .label = "graph.bfs_seed", .body = sk_body_graph_bfs_seed, .pattern = SK_FOR,
  .sigs = sig_bfs_seed};

static const char *const sig_bfs_td[] = {
  "range" G3 R1("level", "int64") R1("parent", "int64") R1("q", "int32")
  R1("nq", "int32") R1("cnt", "int64") " l1=int64", NULL};
static const sk_kbody k_bfs_td = {
  .label = "graph.bfs_top_down", .body = sk_body_graph_bfs_top_down,
  .pattern = SK_REDUCE, .sigs = sig_bfs_td, .reds = "sum:int64"};


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
  R1("next", "int64") R1("done", "int64") " l1=int64 nv=int64", NULL};
static const sk_kbody k_bfs_bu_bits = {
  .label = "graph.bfs_bottom_up_bitmap", .body = sk_body_graph_bfs_bottom_up_bitmap,
  .pattern = SK_REDUCE, .sigs = sig_bfs_bub, .reds = "sum:int64 sum:int64"};

/* the frontier's bitmap from its queue (the bitmap cleared before) */
static const char *const sig_bfs_q2b[] = {"range" R1("q", "int32") R1("front", "int64"), NULL};
static const sk_kbody k_bfs_q2b = {
  .label = "graph.bfs_queue_to_bitmap", .body = sk_body_graph_bfs_queue_to_bitmap,
  .pattern = SK_FOR, .sigs = sig_bfs_q2b};
static const char *const sig_bfs_clr[] = {"range" R1("front", "int64"), NULL};
static const sk_kbody k_bfs_clr = {
  .label = "graph.bfs_bitmap_clear", .body = sk_body_graph_bfs_bitmap_clear,
  .pattern = SK_FOR, .sigs = sig_bfs_clr};
/* the queue from the bitmap (a word a work item) */
static const char *const sig_bfs_b2q[] = {
  "range" R1("front", "int64") R1("q", "int32") R1("cnt", "int64"), NULL};
static const sk_kbody k_bfs_b2q = {
  .label = "graph.bfs_bitmap_to_queue", .body = sk_body_graph_bfs_bitmap_to_queue,
  .pattern = SK_FOR, .sigs = sig_bfs_b2q};

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
  if (sk_sp_view(&front, "frontier bitmap", SK_I64, nw, level->space, 0, err, errlen) < 0 ||
      sk_sp_view(&next, "frontier bitmap", SK_I64, nw, level->space, 0, err, errlen) < 0 ||
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
      sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                    sk_arg_view("level", level), sk_arg_view("parent", parent),
                    sk_arg_view("front", &front), sk_arg_view("next", &next),
                    sk_arg_view("done", &dn), sk_arg_i64("l1", l + 1), sk_arg_i64("nv", nv)};
      if (degree_range_chunk(&k_bfs_bu_bits, nw, 4, a, NELEM(a), &r, err, errlen) < 0)
        goto done;
      qn = sk_result_i64(&r, 0);
      mf = sk_result_i64(&r, 1);
      sk_view t = front;
      front = next;
      next = t;
    } else {
      sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                    sk_arg_view("level", level), sk_arg_view("parent", parent),
                    sk_arg_view("q", q), sk_arg_view("nq", nq),
                    sk_arg_view("cnt", cnt), sk_arg_i64("l1", l + 1)};
      if (sk_g_set0(cnt, 0, err, errlen) < 0 ||
          degree_range(&k_bfs_td, qn, a, NELEM(a), &r, err, errlen) < 0 ||
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
static const sk_kbody k_firstbad = {
  .label = "graph.first_bad_id", .body = sk_body_graph_first_bad_id,
  .pattern = SK_REDUCE, .sigs = sig_firstbad, .reds = "min:int64"};

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
    *dst[k] = sk_karg_find(args, nargs, names[k]) ? sk_karg_str(args, nargs, names[k],
                                                               NULL, err, errlen)
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
#define DBFS_ST (16 + 64 * 8)
#define DBFS_BIG 512   /* 256 / 512 / 1024: level within noise on an H200 */
#define DBFS_CHUNK 256
static const sk_kbody k_dbfs_st = {
  .label = "graph.bfs_device_state", .body = sk_body_graph_bfs_device_state,
  .pattern = SK_FOR};
static const sk_kbody k_dbfs_seed = {
  .label = "graph.bfs_device_seed", .body = sk_body_graph_bfs_device_seed,
  .pattern = SK_FOR};
static const sk_kbody k_dbfs_decide = {
  .label = "graph.bfs_device_decide", .body = sk_body_graph_bfs_device_decide,
  .pattern = SK_FOR};
static const sk_kbody k_dbfs_convert = {
  .label = "graph.bfs_device_convert", .body = sk_body_graph_bfs_device_convert,
  .pattern = SK_FOR};
static const sk_kbody k_dbfs_td = {
  .label = "graph.bfs_device_top_down", .body = sk_body_graph_bfs_device_top_down,
  .pattern = SK_FOR};
static const sk_kbody k_dbfs_td_big = {
  .label = "graph.bfs_device_top_down_big",
  .body = sk_body_graph_bfs_device_top_down_big, .pattern = SK_FOR};
static const sk_kbody k_dbfs_bu = {
  .label = "graph.bfs_device_bottom_up", .body = sk_body_graph_bfs_device_bottom_up,
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
  const int64_t nv = g->nv, nw = (nv + 31) / 32, ns = src->extent[0];
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
  if (sk_sp_view(&fb0, "frontier bitmap", SK_U32, nw > 0 ? nw : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&fb1, "next bitmap", SK_U32, nw > 0 ? nw : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&vis, "visited bitmap", SK_U32, nw > 0 ? nw : 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&bq, "big vertices' chunks", SK_I64, nbq, space, 0, err, errlen) < 0 ||
      sk_sp_view(&st, "BFS state", SK_I64, DBFS_ST, space, 0, err, errlen) < 0)
    goto done;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("level", level), sk_arg_view("parent", parent),
                sk_arg_view("q0", q), sk_arg_view("q1", nq), sk_arg_view("fb0", &fb0),
                sk_arg_view("fb1", &fb1), sk_arg_view("vis", &vis), sk_arg_view("bq", &bq),
                sk_arg_view("st", &st),
                sk_arg_view("src", src), sk_arg_i64("nv", nv), sk_arg_i64("nw", nw),
                sk_arg_i64("alpha", alpha), sk_arg_i64("beta", beta),
                sk_arg_i64("big", DBFS_BIG), sk_arg_i64("chunk", DBFS_CHUNK),
                sk_arg_i64("mu", g->narcs)};
  const int na = NELEM(a);
  sk_arg ast[2], asd[5], adc[4], acv[10], atd[10], abu[10];
  const int nst = dbfs_pick(a, na, "st mu", ast),
            nsd = dbfs_pick(a, na, "src level parent q0 st", asd),
            ndc = dbfs_pick(a, na, "st nv alpha beta", adc),
            ncv = dbfs_pick(a, na, "st rowptr level fb0 fb1 vis q0 q1 nv nw", acv),
            ntd = dbfs_pick(a, na, "st rowptr colidx level parent q0 q1 bq big chunk", atd),
            nbu = dbfs_pick(a, na, "st rowptr colidx level parent fb0 fb1 vis nv nw", abu);
  if (sk_sp_range(&k_dbfs_st, DBFS_ST, ast, nst, NULL, err, errlen) < 0 ||
      sk_sp_range(&k_dbfs_seed, ns, asd, nsd, NULL, err, errlen) < 0)
    goto done;
  sk_policy pdc, ptd, pbu;
  sk_policy_init(&pdc, SK_POL_TEAM);
  pdc.league_size = 1;
  pdc.team_size = 2;
  pdc.vector_length = 32;
  sk_policy_init(&ptd, SK_POL_TEAM);
  ptd.league_size = lt;
  ptd.team_size = tt;
  ptd.vector_length = 32;
  sk_policy_init(&pbu, SK_POL_TEAM);
  pbu.league_size = lb;
  pbu.team_size = tb;
  pbu.vector_length = 32;
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
    if (!done && queued > nv + 1) {   /* cannot happen: a level reaches a vertex */
      snprintf(err, errlen, "graph.bfs: no end after %lld levels", (long long)queued);
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
static int bfs(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
               size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "sources",
                                      "directed", "direction_optimizing",
                                      "visit_examine_edge", "visit_filter",
                                      "visit_tree_edge", "visit_discover_vertex", NULL};
  static const char *const taken[] = {"rowptr", "colidx", "level", "parent", "q", "nq",
                                      "cnt", "l1", "src", NULL};
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
        snprintf(err, errlen, "the visitor's capture '%s' is a name the BFS kernel uses "
                 "(rowptr, colidx, level, parent, q, nq, cnt, l1, src)", args[k].name);
        return -1;
      }
    if (args[k].str) {
      snprintf(err, errlen, "the visitor's capture '%s' is a string", args[k].name);
      return -1;
    }
    if (nuser >= SK_MAXCAP - 12) {
      snprintf(err, errlen, "the visitor has more than %d captures", SK_MAXCAP - 12);
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
    snprintf(err, errlen, "sources must be int64, got %s", sk_dtypes[src->dtype].name);
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
      snprintf(err, errlen, "source %lld is not a vertex (the graph has %lld: 0..%lld)",
               (long long)s, (long long)nv, (long long)nv - 1);
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
      snprintf(err, errlen, "out of memory");
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
    if (bfs_device(&g, src, directed, dopt, &level, &parent, &q, &nq, &l, err, errlen) < 0)
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
    sk_arg a[SK_MAXCAP] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                           sk_arg_view("level", &level), sk_arg_view("parent", &parent),
                           sk_arg_view("q", &q), sk_arg_view("nq", &nq),
                           sk_arg_view("cnt", &cnt), sk_arg_i64("l1", l + 1)};
    int na = 8;
    for (int k = 0; k < nuser; k++) a[na++] = user[k];
    sk_result r;
    if (sk_g_set0(&cnt, 0, err, errlen) < 0 ||
        degree_range(&ktd, qn, a, na, &r, err, errlen) < 0 ||
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

/* -- connected components ---------------------------------------------------
 * lab(v) <= v always names a vertex of v's component; hooking links the
 * roots of an arc's ends (the larger under the smaller, atomic_min), and
 * pointer jumping flattens the trees. A pass that changes nothing proves
 * every arc joins equal roots, so the labels are the components, each
 * labelled by its smallest vertex (deterministic). Afforest first links
 * each vertex's first two neighbours, finds the most frequent label on a
 * sample, and then skips the vertices of that (giant) component. */
static const char *const sig_cc_init[] = {"range" R1("lab", "int64"), NULL};
static const sk_kbody k_cc_init = {
  .label = "graph.cc_init", .body = sk_body_graph_cc_init, .pattern = SK_FOR,
  .sigs = sig_cc_init};

static const char *const sig_cc_hook[] = {
  "range" G3 R1("lab", "int64") " lo=int64 hi=int64 skip=int64", NULL};
static const sk_kbody k_cc_hook = {
  .label = "graph.cc_hook", .body = sk_body_graph_cc_hook, .pattern = SK_REDUCE,
  .sigs = sig_cc_hook, .reds = "sum:int64"};

/* Afforest's link (Sutton et al., as GAP's cc.cc): the ends' trees
 * joined, the larger root under the smaller, by a compare-and-swap that
 * retries when another thread moved a root first -- no link is lost, so
 * one pass over the arcs is enough. Arcs [lo, hi) of each row (hi < 0:
 * to its end), rows whose root is 'skip' left out. The labels are int32
 * (vertex ids fit: colidx is int32), half the bytes of the int64 output
 * the last pass writes. */
static const char *const sig_cc_link[] = {
  "range" G3 R1("lab", "int32") " lo=int64 hi=int64 skip=int64", NULL};
static const sk_kbody k_cc_link = {
  .label = "graph.cc_link", .body = sk_body_graph_cc_link, .pattern = SK_FOR,
  .sigs = sig_cc_link};

/* the last linking pass, with the compress folded in: each vertex walks
 * up to its root, or to 'skip' (the giant component's root when it was
 * sampled: every vertex of that component has it on its path, even after
 * it was hooked under a smaller root), points its label there (only a
 * vertex that is no root: roots are what the compare-and-swaps change),
 * and, outside the giant component, links its arcs from 'lo' on */
static const char *const sig_cc_final[] = {
  "range" G3 R1("lab", "int32") " lo=int64 skip=int64", NULL};
static const sk_kbody k_cc_final = {
  .label = "graph.cc_link_final", .body = sk_body_graph_cc_link_final, .pattern = SK_FOR,
  .sigs = sig_cc_final};
/* the roots of 1024 vertices drawn by a fixed hash (no compress pass
 * before: each walks to its root) */
static const char *const sig_cc_sample[] = {
  "range" R1("lab", "int32") R1("s", "int64") " nv=int64", NULL};
static const sk_kbody k_cc_sample = {
  .label = "graph.cc_sample", .body = sk_body_graph_cc_sample, .pattern = SK_FOR,
  .sigs = sig_cc_sample, .prelude = sk_graph_prelude};

static const char *const sig_cc_init32[] = {"range" R1("lab", "int32"), NULL};
static const sk_kbody k_cc_init32 = {
  .label = "graph.cc_init32", .body = sk_body_graph_cc_init32, .pattern = SK_FOR,
  .sigs = sig_cc_init32};
/* the last pass: each vertex's root into the int64 output, the roots
 * counted (the labels are not written: only reads, no pass after it) */
static const char *const sig_cc_out[] = {
  "range" R1("lab", "int32") R1("out", "int64"), NULL};
static const sk_kbody k_cc_out = {
  .label = "graph.cc_out", .body = sk_body_graph_cc_out, .pattern = SK_REDUCE,
  .sigs = sig_cc_out, .reds = "sum:int64"};

static const sk_kbody k_cc_compress = {
  .label = "graph.cc_compress", .body = sk_body_graph_cc_compress, .pattern = SK_FOR,
  .sigs = sig_cc_init};

static const sk_kbody k_cc_count = {
  .label = "graph.cc_count", .body = sk_body_graph_cc_count, .pattern = SK_REDUCE,
  .sigs = sig_cc_init, .reds = "sum:int64"};

static int cc_hook(const sk_graph *g, const sk_view *lab, int64_t lo, int64_t hi,
                   int64_t skip, int64_t *changes, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("lab", lab), sk_arg_i64("lo", lo), sk_arg_i64("hi", hi),
                sk_arg_i64("skip", skip)};
  sk_result r;
  if (degree_range(&k_cc_hook, g->nv, a, NELEM(a), &r, err, errlen) < 0) return -1;
  sk_arg c[] = {sk_arg_view("lab", lab)};
  if (sk_sp_range(&k_cc_compress, g->nv, c, 1, NULL, err, errlen) < 0) return -1;
  *changes = sk_result_i64(&r, 0);
  return 0;
}

/* link the arcs [lo, hi) of the rows not in component 'skip' (int32
 * labels) */
static int cc_link(const sk_graph *g, const sk_view *lab, int64_t lo, int64_t hi,
                   int64_t skip, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("lab", lab), sk_arg_i64("lo", lo), sk_arg_i64("hi", hi),
                sk_arg_i64("skip", skip)};
  return degree_range(&k_cc_link, g->nv, a, NELEM(a), NULL, err, errlen);
}

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* the most frequent root among 1024 vertices drawn by a fixed hash (the
 * smallest of those tied) */
static int cc_sample(const sk_view *lab, int64_t nv, int64_t *mode, char *err,
                     size_t errlen) {
  enum { NS = 1024 };
  int64_t s[NS];
  sk_view sv;
  if (sk_sp_view(&sv, "samples", SK_I64, NS, lab->space, 0, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view("lab", lab), sk_arg_view("s", &sv), sk_arg_i64("nv", nv)};
  int rc = sk_sp_range(&k_cc_sample, NS, a, NELEM(a), NULL, err, errlen);
  for (int k = 0; k < NS && rc == 0; k++) rc = sk_sp_get_i64(&sv, k, &s[k], err, errlen);
  sk_view_release(&sv);
  if (rc < 0) return -1;
  qsort(s, NS, sizeof s[0], cmp_i64);
  int best = 0;
  *mode = -1;
  for (int k = 0, j; k < NS; k = j) {
    for (j = k + 1; j < NS && s[j] == s[k]; j++) {}
    if (j - k > best) {
      best = j - k;
      *mode = s[k];
    }
  }
  return 0;
}

/* graph.connected_components: G_* [, directed, algorithm "afforest" | "sv"]
 * -> labels (int64: the smallest vertex of each one's component), ncomp;
 * a directed graph's weak components */
static int components(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "algorithm", NULL};
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  const char *alg = sk_karg_str(args, nargs, "algorithm", "afforest", err, errlen);
  if (!alg) return -1;
  int afforest = strcmp(alg, "afforest") == 0;
  if (!afforest && strcmp(alg, "sv") != 0) {
    snprintf(err, errlen, "algorithm '%s' is not afforest or sv", alg);
    return -1;
  }
  sk_view lab, lab32;
  memset(&lab32, 0, sizeof lab32);
  if (sk_sp_view(&lab, "labels", SK_I64, g.nv, g.rowptr->space, 0, err, errlen) < 0)
    return -1;
  int rc = -1;
  int64_t changes = 1, skip = -1, ncomp = 0;
  sk_arg a[] = {sk_arg_view("lab", &lab)};
  /* Afforest (GAP's cc.cc), on int32 labels: link each vertex's first and
   * second arcs (one pass: GAP's two rounds, each with its own compress,
   * join the same pairs; one pass reads each row's cache line of colidx
   * once), guess the giant component from a sample, then link the other
   * arcs of the vertices outside it, once (the compress folded into that
   * pass); the last pass writes each root into the int64 labels and
   * counts the roots: four passes over the vertices where GAP makes six.
   * The skipping needs every arc in both rows: undirected only (a
   * directed graph links every arc once). */
  if (afforest && g.nv > 0) {
    if (sk_sp_view(&lab32, "labels (int32)", SK_I32, g.nv, g.rowptr->space, 0, err,
                   errlen) < 0)
      goto done;
    sk_arg a32[] = {sk_arg_view("lab", &lab32)};
    if (sk_sp_range(&k_cc_init32, g.nv, a32, 1, NULL, err, errlen) < 0) goto done;
    if (!directed && (cc_link(&g, &lab32, 0, 2, -1, err, errlen) < 0 ||
                      cc_sample(&lab32, g.nv, &skip, err, errlen) < 0))
      goto done;
    sk_arg f[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("lab", &lab32), sk_arg_i64("lo", directed ? 0 : 2),
                  sk_arg_i64("skip", skip)};
    if (degree_range(&k_cc_final, g.nv, f, NELEM(f), NULL, err, errlen) < 0) goto done;
    sk_result r;
    sk_arg o[] = {sk_arg_view("lab", &lab32), sk_arg_view("out", &lab)};
    if (sk_sp_range(&k_cc_out, g.nv, o, NELEM(o), &r, err, errlen) < 0) goto done;
    ncomp = sk_result_i64(&r, 0);
  } else {
    if (sk_sp_range(&k_cc_init, g.nv, a, 1, NULL, err, errlen) < 0) goto done;
    for (changes = 1; changes > 0;)
      if (cc_hook(&g, &lab, 0, -1, skip, &changes, err, errlen) < 0) goto done;
    sk_result r;
    if (sk_sp_range(&k_cc_count, g.nv, a, 1, &r, err, errlen) < 0) goto done;
    ncomp = sk_result_i64(&r, 0);
  }
  if (sk_kout_num(out, "ncomp", (double)ncomp, err, errlen) < 0 ||
      sk_kout_view(out, "labels", &lab, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  sk_view_release(&lab32);
  sk_view_release(&lab);
  return rc;
}

/* -- PageRank -----------------------------------------------------------------
 * NetworkX's power iteration: x = 1/N; each step x'(v) = d * sum over arcs
 * u -> v of x(u) w(u,v) / W(u) + (d * (sum of x over vertices without
 * out-arcs) + 1 - d) / N, until sum |x' - x| < N * tol. Pulled along the
 * in-arcs: the graph itself when undirected, its transpose (speck.sparse's)
 * when directed. */
static const char *const sig_pr_outw[] = {
  "range" R1("rowptr", "int64") R1("outw", "float64"),
  "range" R1("rowptr", "int64") R1("outw", "float64") R1("w", "float64"), NULL};
static const sk_kbody k_pr_deg = {
  .label = "graph.pr_outdeg", .body = sk_body_graph_pr_outdeg, .pattern = SK_FOR,
  .sigs = sig_pr_outw};
static const sk_kbody k_pr_outw = {
  .label = "graph.pr_outweight", .body = sk_body_graph_pr_outweight, .pattern = SK_FOR,
  .sigs = sig_pr_outw + 1};

/* the first contributions c = x / W and the dangling rank. Ranks and
 * contributions are float64, or float32 with dtype = "float32" (half the
 * gathers' bytes, GAP's choice; the ranks then sum to 1 within about
 * 1e-7): the bodies compute in double either way, the views' type sets
 * what is stored */
static const char *const sig_pr_contrib[] = {
  "range" R1("x", "float64") R1("outw", "float64") R1("c", "float64"),
  "range" R1("x", "float32") R1("outw", "float64") R1("c", "float32"), NULL};
static const sk_kbody k_pr_contrib = {
  .label = "graph.pr_contrib", .body = sk_body_graph_pr_contrib, .pattern = SK_REDUCE,
  .sigs = sig_pr_contrib, .reds = "sum:float64"};

/* one iteration: the new ranks, their contributions for the next one,
 * the change sum |x' - x| and the new dangling rank */
#define PULL_SIG "range" R1("rowptr", "int64") R1("colidx", "int32") \
  R1("c", "float64") R1("x", "float64") R1("xn", "float64") R1("outw", "float64") \
  R1("cn", "float64") " d=float64 base=float64"
#define PULL_SIG32 "range" R1("rowptr", "int64") R1("colidx", "int32") \
  R1("c", "float32") R1("x", "float32") R1("xn", "float32") R1("outw", "float64") \
  R1("cn", "float32") " d=float64 base=float64"
static const char *const sig_pr_pull[] = {PULL_SIG, PULL_SIG32, NULL};
static const char *const sig_pr_pullw[] = {PULL_SIG R1("w", "float64"),
                                           PULL_SIG32 R1("w", "float64"), NULL};
static const sk_kbody k_pr_pull = {
  .label = "graph.pr_pull", .body = sk_body_graph_pr_pull, .pattern = SK_REDUCE,
  .sigs = sig_pr_pull, .reds = "sum:float64 sum:float64"};
/* an undirected unweighted graph: the out-degree is the row's length
 * (no out-weight array read), the ranks updated in place (each vertex
 * writes its own), and the sum in four partial sums (the gathers are
 * independent, not one chain of dependent adds) */
static const char *const sig_pr_pull_u[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("c", "float64")
  R1("x", "float64") R1("cn", "float64") " d=float64 base=float64 big=int64",
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("c", "float32")
  R1("x", "float32") R1("cn", "float32") " d=float64 base=float64 big=int64", NULL};
/* (rows of 'big' arcs or more are skipped: a GPU sums them in chunks, see
 * k_pr_heavy_list; the host passes INT64_MAX, and its rows then follow
 * one another in chunks of 256 claimed by free threads) */
static const sk_kbody k_pr_pull_u = {
  .label = "graph.pr_pull_undirected", .body = sk_body_graph_pr_pull_undirected,
  .pattern = SK_REDUCE, .sigs = sig_pr_pull_u, .reds = "sum:float64 sum:float64"};
static const sk_kbody k_pr_pullw = {
  .label = "graph.pr_pull_w", .body = sk_body_graph_pr_pull_w, .pattern = SK_REDUCE,
  .sigs = sig_pr_pullw, .reds = "sum:float64 sum:float64"};

/* the same pulls on a GPU: a warp a row (its lanes over the row's arcs,
 * a tree sum), so a hub's 10^5 in-arcs are not one thread's walk (a
 * thread a row: 19 ms an iteration at Kronecker scale 22) */
static const sk_kbody k_pr_pull_team = {
  .label = "graph.pr_pull_team", .body = sk_body_graph_pr_pull_team,
  .pattern = SK_REDUCE, .reds = "sum:float64 sum:float64"};
static const sk_kbody k_pr_pullw_team = {
  .label = "graph.pr_pull_w_team", .body = sk_body_graph_pr_pull_w_team,
  .pattern = SK_REDUCE, .reds = "sum:float64 sum:float64"};
/* A thread a row leaves a hub's 10^5 arcs to one thread (19 ms an
 * iteration at Kronecker scale 22, longer than all the other rows
 * together), a warp a row to 3,000 steps of one warp (8 ms). The rows of
 * PR_BIG arcs or more are cut into chunks of at most PR_CHUNK arcs (hq:
 * row << 32 | chunk, listed once per call), a warp sums a chunk into the
 * row's slot of 'hs' (atomically), and a last kernel finishes those rows
 * (hr: their list) and clears their slots. An H200 at scale 22: 1.8 ms an
 * iteration (PR_BIG 64; 128, 256 and 512 with 2 or 4 lanes a light row:
 * 2.0-3.1 ms). */
#define PR_BIG 64
#define PR_CHUNK 1024
static const sk_kbody k_pr_heavy_list = {
  .label = "graph.pr_heavy_list", .body = sk_body_graph_pr_heavy_list,
  .pattern = SK_FOR};
static const sk_kbody k_pr_heavy_sum = {
  .label = "graph.pr_heavy_sum", .body = sk_body_graph_pr_heavy_sum, .pattern = SK_FOR};
static const sk_kbody k_pr_heavy_end = {
  .label = "graph.pr_heavy_end", .body = sk_body_graph_pr_heavy_end,
  .pattern = SK_REDUCE, .reds = "sum:float64"};

/* a warp per item of n (teams of 8 warps) */
static void pr_warps(sk_policy *p, int64_t n) {
  sk_policy_init(p, SK_POL_TEAM);
  p->team_size = 8;
  p->vector_length = 32;
  p->league_size = (n + p->team_size - 1) / p->team_size;
}

/* one pull of a directed or weighted graph: a thread a row (chunks of 256
 * rows claimed by free threads) on the host, 'dev' a warp a row on a GPU;
 * a[na] is free for 'n' */
static int pr_pull(const sk_kbody *host, const sk_kbody *dev, int64_t n, sk_arg *a, int na,
                   sk_result *r, char *err, size_t errlen) {
  const sk_backend *be = sk_rt_backend(err, errlen);
  if (!be) return -1;
  if (be->code == SK_CODE_HOST) return degree_range(host, n, a, na, r, err, errlen);
  sk_policy p;
  pr_warps(&p, n);
  a[na] = sk_arg_i64("n", n);
  return sk_kbody_launch(dev, &p, a, na + 1, r, err, errlen);
}

/* the heavy rows' chunks and their end (see k_pr_heavy_list), after the
 * light rows' pull: their sum |x' - x| into *change */
static int pr_heavy(const sk_view *rowptr, const sk_view *colidx, const sk_view *c,
                    const sk_view *x, const sk_view *cn, const sk_view *hq, const sk_view *hr,
                    const sk_view *hs, int64_t nq, int64_t nh, double d, double base,
                    double *change, char *err, size_t errlen) {
  sk_policy p;
  pr_warps(&p, nq);
  sk_arg a[] = {sk_arg_view("rowptr", rowptr), sk_arg_view("colidx", colidx),
                sk_arg_view("c", c), sk_arg_view("hq", hq), sk_arg_view("hs", hs),
                sk_arg_i64("nq", nq), sk_arg_i64("chunk", PR_CHUNK)};
  sk_arg e[] = {sk_arg_view("rowptr", rowptr), sk_arg_view("hr", hr),
                sk_arg_view("hs", hs), sk_arg_view("x", x), sk_arg_view("cn", cn),
                sk_arg_f64("d", d), sk_arg_f64("base", base)};
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
/* a vertex's group, the highest degrees first: d >= 64 by floor(log2 d)
 * (30 and more .. 6: groups 0 .. 24), d = 63 .. 0 a group each (25 ..
 * 88: no arcs last); 'slot': its counter in a chunk of 'cs' vertices */
/* hist(group * nch + chunk): how many of the chunk's vertices are in
 * the group */
static const char *const sig_prg_hist[] = {
  "range" R1("rowptr", "int64") R1("hist", "int64") " n=int64 cs=int64 nch=int64", NULL};
static const sk_kbody k_prg_hist = {
  .label = "graph.pr_order_count", .body = sk_body_graph_pr_order_count,
  .pattern = SK_FOR, .sigs = sig_prg_hist};
/* each vertex's new id from the scanned counts, and its degree there */
static const char *const sig_prg_perm[] = {
  "range" R1("rowptr", "int64") R1("off", "int64") R1("perm", "int32") R1("deg", "int64")
  " n=int64 cs=int64 nch=int64", NULL};
static const sk_kbody k_prg_perm = {
  .label = "graph.pr_order_place", .body = sk_body_graph_pr_order_place,
  .pattern = SK_FOR, .sigs = sig_prg_perm};
/* row i's arcs, renamed, at its new place (the rows read in order: the
 * reads stream, the writes go to a new place a row) */
static const char *const sig_prg_fill[] = {
  "range" G3 R1("perm", "int32") R1("rp2", "int64") R1("ci2", "int32"), NULL};
static const sk_kbody k_prg_fill = {
  .label = "graph.pr_order_arcs", .body = sk_body_graph_pr_order_arcs, .pattern = SK_FOR,
  .sigs = sig_prg_fill};
/* the first ranks and contributions of the vertices with arcs */
static const char *const sig_prg_init[] = {
  "range" R1("rp2", "int64") R1("x", "float64") R1("c", "float64") " x0=float64",
  "range" R1("rp2", "int64") R1("x", "float32") R1("c", "float32") " x0=float64", NULL};
static const sk_kbody k_prg_init = {
  .label = "graph.pr_order_init", .body = sk_body_graph_pr_order_init, .pattern = SK_FOR,
  .sigs = sig_prg_init};
/* the ranks in the graph's order; the vertices without arcs: 'tail' */
static const char *const sig_prg_out[] = {
  "range" R1("perm", "int32") R1("x", "float64") R1("rank", "float64")
  " nz=int64 tail=float64",
  "range" R1("perm", "int32") R1("x", "float32") R1("rank", "float32")
  " nz=int64 tail=float64", NULL};
static const sk_kbody k_prg_out = {
  .label = "graph.pr_order_out", .body = sk_body_graph_pr_order_out, .pattern = SK_FOR,
  .sigs = sig_prg_out};

/* PageRank of an undirected unweighted graph (n = g->nv > 0) on the host
 * over the reordered copy: the ranks into 'rank' (dtype rdt, n), the
 * iterations' count into '*iters'. The iteration is NetworkX's (Jacobi),
 * as graph.pr_pull_undirected's. */
static int pagerank_ordered(const sk_graph *g, int rdt, double d, double tol,
                            int64_t maxiter, sk_view *rank, int64_t *iters, char *err,
                            size_t errlen) {
  const int64_t n = g->nv;
  /* chunks of at least 4096 vertices, at most 1024 of them */
  const int64_t cs = n / 1024 + 1 > 4096 ? n / 1024 + 1 : 4096, nch = (n + cs - 1) / cs;
  const int space = g->rowptr->space;
  int rc = -1;
  sk_view hist, off, perm, deg, rp2, ci2, x, c, cn;
  sk_view *all[] = {&hist, &off, &perm, &deg, &rp2, &ci2, &x, &c, &cn};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  int64_t nz = 0, m2 = 0;
  if (sk_sp_view(&hist, "group counts", SK_I64, PRG_GROUPS * nch, space, 1, err, errlen) < 0 ||
      sk_sp_view(&off, "group offsets", SK_I64, PRG_GROUPS * nch + 1, space, 0, err,
                 errlen) < 0 ||
      sk_sp_view(&perm, "new ids", SK_I32, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&deg, "degrees", SK_I64, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&rp2, "rowptr", SK_I64, n + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("hist", &hist),
                  sk_arg_i64("n", n), sk_arg_i64("cs", cs), sk_arg_i64("nch", nch)};
    sk_arg b[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("off", &off),
                  sk_arg_view("perm", &perm), sk_arg_view("deg", &deg), sk_arg_i64("n", n),
                  sk_arg_i64("cs", cs), sk_arg_i64("nch", nch)};
    /* the vertices with arcs: the groups before the last */
    if (sk_sp_range(&k_prg_hist, nch, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&hist, &off, PRG_GROUPS * nch, NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&off, (PRG_GROUPS - 1) * nch, &nz, err, errlen) < 0 ||
        sk_sp_range(&k_prg_perm, nch, b, NELEM(b), NULL, err, errlen) < 0 ||
        sk_sp_scan(&deg, &rp2, nz, &m2, err, errlen) < 0)
      goto done;
  }
  sk_view_release(&deg);
  sk_view_release(&hist);
  sk_view_release(&off);
  if (sk_sp_view(&ci2, "colidx", SK_I32, m2, space, 0, err, errlen) < 0 ||
      sk_sp_view(&x, "rank", rdt, nz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&c, "contributions", rdt, nz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cn, "contributions", rdt, nz, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                  sk_arg_view("perm", &perm), sk_arg_view("rp2", &rp2),
                  sk_arg_view("ci2", &ci2)};
    sk_arg b[] = {sk_arg_view("rp2", &rp2), sk_arg_view("x", &x), sk_arg_view("c", &c),
                  sk_arg_f64("x0", 1.0 / (double)n)};
    if (degree_range(&k_prg_fill, n, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_prg_init, nz, b, NELEM(b), NULL, err, errlen) < 0)
      goto done;
  }
  /* the vertices without arcs all have one rank: 'prev' as stored (in
   * the views' type), 'base' as computed; all are dangling */
  const double niso = (double)(n - nz);
  double prev = rdt == SK_F32 ? (double)(float)(1.0 / (double)n) : 1.0 / (double)n, base = 0;
  double dangling = niso * prev;
  int64_t it;
  for (it = 1; it <= maxiter; it++) {
    sk_result r;
    base = (d * dangling + 1 - d) / (double)n;
    double delta = 0;
    if (nz > 0) {
      sk_arg pu[] = {sk_arg_view("rowptr", &rp2), sk_arg_view("colidx", &ci2),
                     sk_arg_view("c", &c), sk_arg_view("x", &x), sk_arg_view("cn", &cn),
                     sk_arg_f64("d", d), sk_arg_f64("base", base),
                     sk_arg_i64("big", INT64_MAX)};
      if (degree_range(&k_pr_pull_u, nz, pu, NELEM(pu), &r, err, errlen) < 0) goto done;
      delta = sk_result_f64(&r, 0);
    }
    delta += niso * fabs(base - prev);   /* the new rank against the stored one */
    prev = rdt == SK_F32 ? (double)(float)base : base;
    dangling = niso * base;
    sk_view t = c;
    c = cn;
    cn = t;
    if (delta < (double)n * tol) break;
  }
  *iters = it > maxiter ? maxiter : it;
  {
    sk_arg a[] = {sk_arg_view("perm", &perm), sk_arg_view("x", &x),
                  sk_arg_view("rank", rank), sk_arg_i64("nz", nz), sk_arg_f64("tail", base)};
    if (sk_sp_range(&k_prg_out, n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* graph.pagerank: G_* [, directed, damping, tol, maxiter, dtype "float64"
 * | "float32"] -> rank (of that dtype), iters */
static int pagerank(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "damping", "tol", "maxiter", "dtype", NULL};
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
      (sk_karg_find(args, nargs, "tol") && sk_karg_f64(args, nargs, "tol", &tol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "maxiter", 1, 100, &maxiter, err, errlen) < 0 ||
      !(dts = sk_karg_str(args, nargs, "dtype", "float64", err, errlen)))
    return -1;
  if (strcmp(dts, "float64") != 0 && strcmp(dts, "float32") != 0) {
    snprintf(err, errlen, "dtype '%s' is not float64 or float32", dts);
    return -1;
  }
  const int rdt = strcmp(dts, "float32") == 0 ? SK_F32 : SK_F64;
  if (!(d >= 0 && d <= 1)) {
    snprintf(err, errlen, "damping is %g, must be in [0, 1]", d);
    return -1;
  }
  if (!(tol > 0)) {
    snprintf(err, errlen, "tol is %g, must be positive", tol);
    return -1;
  }
  if (maxiter < 1) {
    snprintf(err, errlen, "maxiter is %lld, must be at least 1", (long long)maxiter);
    return -1;
  }
  int64_t n = g.nv;
  int space = g.rowptr->space, rc = -1;
  sk_view outw, x, xn, c, cn, ones, hcnt, hq, hr, hs;
  sk_kvalue tv;
  memset(&tv, 0, sizeof tv);
  sk_view *all[] = {&outw, &x, &xn, &c, &cn, &ones, &hcnt, &hq, &hr, &hs};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  int64_t it = 0;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) goto done;
  /* the host, undirected and unweighted: over a copy in degree order */
  if (!directed && !g.weights && n > 0 && sk_sp_host(be)) {
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
  const int heavy = !sk_sp_host(be) && !directed && !tw && n > 0;
  int64_t nq = 0, nh = 0;
  if (heavy) {
    const int64_t mh = g.narcs / PR_BIG + 1;
    if (sk_sp_view(&hcnt, "heavy rows' count", SK_I64, 2, space, 1, err, errlen) < 0 ||
        sk_sp_view(&hq, "heavy rows' chunks", SK_I64, g.narcs / PR_CHUNK + mh, space, 0, err,
                   errlen) < 0 ||
        sk_sp_view(&hr, "heavy rows", SK_I64, mh, space, 0, err, errlen) < 0 ||
        sk_sp_view(&hs, "heavy rows' sums", SK_F64, n, space, 1, err, errlen) < 0)
      goto done;
    sk_arg a[] = {sk_arg_view("rowptr", trp), sk_arg_view("cnt", &hcnt),
                  sk_arg_view("hq", &hq), sk_arg_view("hr", &hr), sk_arg_i64("big", PR_BIG),
                  sk_arg_i64("chunk", PR_CHUNK)};
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
    /* (a slot more for pr_pull's n) */
    sk_arg p[] = {sk_arg_view("rowptr", trp), sk_arg_view("colidx", tci),
                  sk_arg_view("c", &c), sk_arg_view("x", &x), sk_arg_view("xn", &xn),
                  sk_arg_view("outw", &outw), sk_arg_view("cn", &cn),
                  sk_arg_f64("d", d), sk_arg_f64("base", base),
                  sk_arg_view("w", tw ? tw : &x), sk_arg_i64("n", n)};
    sk_arg pu[] = {sk_arg_view("rowptr", trp), sk_arg_view("colidx", tci),
                   sk_arg_view("c", &c), sk_arg_view("x", &x), sk_arg_view("cn", &cn),
                   sk_arg_f64("d", d), sk_arg_f64("base", base),
                   sk_arg_i64("big", heavy ? PR_BIG : INT64_MAX)};
    double change = 0;
    if (!directed && !tw) {
      if (degree_range(&k_pr_pull_u, n, pu, NELEM(pu), &r, err, errlen) < 0 ||
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

/* -- triangles ---------------------------------------------------------------
 * Vertices ranked by (degree, id); each vertex keeps its neighbours of
 * higher rank (in id order: an oriented copy of the graph, as GAP's tc),
 * and each triangle is found once, at its lowest-ranked corner u, by
 * merging u's and v's kept lists for every kept v; its three corners are
 * counted (atomics). On the host the intersections are bit tests instead
 * of merges (below). */
static const char *const sig_tri_cnt[] = {"range" G3 R1("cnt", "int64") " n=int64", NULL};
static const sk_kbody k_tri_cnt = {
  .label = "graph.tri_count", .body = sk_body_graph_tri_count, .pattern = SK_FOR,
  .sigs = sig_tri_cnt};

static const char *const sig_tri_fill[] = {"range" G3 R1("op", "int64") R1("oc", "int32"), NULL};
static const sk_kbody k_tri_fill = {
  .label = "graph.tri_orient", .body = sk_body_graph_tri_orient, .pattern = SK_FOR,
  .sigs = sig_tri_fill};

/* Each triangle is found once, at its lowest-ranked corner u: for every
 * kept v of u, the kept lists of u and v are merged. On a GPU a thread
 * per kept arc (u, v) (osrc: the arcs' u) -- a thread per vertex left the
 * hubs' merges to a few threads (1.14 s at Kronecker scale 22); an arc's
 * merge is bounded by two kept lists. */
static const sk_kbody k_tri_arc_total = {
  .label = "graph.triangles_arcs", .body = sk_body_graph_triangles_arcs,
  .pattern = SK_REDUCE, .reds = "sum:int64"};
static const sk_kbody k_tri_arc = {
  .label = "graph.triangles_arcs_per_vertex",
  .body = sk_body_graph_triangles_arcs_per_vertex, .pattern = SK_REDUCE,
  .reds = "sum:int64"};
static const sk_kbody k_tri_src = {
  .label = "graph.triangles_arc_sources", .body = sk_body_graph_triangles_arc_sources,
  .pattern = SK_FOR};

/* the total on the host: each vertex u marks its kept neighbours in a
 * bitmap in thread scratch (nv bits), then every kept v of u counts the
 * marked vertices of v's kept list: no merge, one bit test per pair
 * (Kronecker scale 20: the bitmap is 128 KB, in cache). A league rank
 * takes a block of 'chunk' vertices, scheduled dynamically. */
static const char *const sig_tri_bits[] = {
  "team" R1("op", "int64") R1("oc", "int32") " nv=int64 chunk=int64", NULL};
static const char *const sig_tri_bitsv[] = {
  "team" R1("op", "int64") R1("oc", "int32") R1("tri", "int64") " nv=int64 chunk=int64",
  NULL};
static const sk_kbody k_tri_bits = {
  .label = "graph.triangles_bitmap", .body = sk_body_graph_triangles_bitmap,
  .pattern = SK_REDUCE, .sigs = sig_tri_bits, .reds = "sum:int64"};
static const sk_kbody k_tri_bitsv = {
  .label = "graph.triangles_bitmap_per_vertex",
  .body = sk_body_graph_triangles_bitmap_per_vertex, .pattern = SK_REDUCE,
  .sigs = sig_tri_bitsv, .reds = "sum:int64"};

/* graph.triangles: G_* (undirected) [, per_vertex (default 1)] -> total,
 * per_vertex (when asked) */
static int triangles(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "per_vertex", NULL};
  sk_graph g;
  int directed, per;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "per_vertex", 1, &per, err, errlen) < 0)
    return -1;
  if (directed) {
    snprintf(err, errlen, "the graph is directed: triangles are counted on undirected graphs");
    return -1;
  }
  int space = g.rowptr->space, rc = -1;
  int64_t m = 0;
  sk_view tri, cnt, op, oc, osrc;
  sk_view *all[] = {&tri, &cnt, &op, &oc, &osrc};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if ((per && sk_sp_view(&tri, "triangles", SK_I64, g.nv, space, 1, err, errlen) < 0) ||
      sk_sp_view(&cnt, "higher", SK_I64, g.nv + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&op, "oriented rowptr", SK_I64, g.nv + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("cnt", &cnt), sk_arg_i64("n", g.nv)};
    if (sk_sp_range(&k_tri_cnt, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&cnt, &op, g.nv, &m, err, errlen) < 0 ||
      sk_sp_view(&oc, "oriented colidx", SK_I32, m, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("op", &op), sk_arg_view("oc", &oc)};
    if (sk_sp_range(&k_tri_fill, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_result r;
    const sk_backend *b = sk_sp_backend(err, errlen);
    if (!b) goto done;
    if (sk_sp_host(b) && g.nv > 0) {
      /* the bitmap kernel (a block of vertices per league rank, 16 per thread) */
      int64_t conc = b->concurrency ? b->concurrency() : 1;
      if (conc < 1) conc = 1;
      int64_t chunk = (g.nv + 64 * conc - 1) / (64 * conc);
      sk_policy p;
      sk_policy_init(&p, SK_POL_TEAM);
      p.league_size = (g.nv + chunk - 1) / chunk;
      p.team_size = 1;
      p.schedule = SK_DYNAMIC;
      p.scratch_thread[1] = ((g.nv + 63) / 64) * 8 + 64;
      sk_arg t[] = {sk_arg_view("op", &op), sk_arg_view("oc", &oc), sk_arg_i64("nv", g.nv),
                    sk_arg_i64("chunk", chunk), sk_arg_view("tri", &tri)};
      if (sk_kbody_launch(per ? &k_tri_bitsv : &k_tri_bits, &p, t, per ? 5 : 4, &r, err,
                          errlen) < 0)
        goto done;
    } else if (g.nv > 0) {
      /* a GPU: a thread per kept arc */
      sk_arg s1[] = {sk_arg_view("op", &op), sk_arg_view("osrc", &osrc)};
      sk_arg t[] = {sk_arg_view("op", &op), sk_arg_view("oc", &oc), sk_arg_view("osrc", &osrc),
                    sk_arg_view("tri", &tri)};
      if (sk_sp_view(&osrc, "kept arcs' sources", SK_I32, m > 0 ? m : 1, space, 0, err,
                     errlen) < 0 ||
          sk_sp_range(&k_tri_src, g.nv, s1, NELEM(s1), NULL, err, errlen) < 0 ||
          sk_sp_range(per ? &k_tri_arc : &k_tri_arc_total, m, t, per ? 4 : 3, &r, err,
                      errlen) < 0)
        goto done;
    }
    if (sk_kout_num(out, "total", (double)(g.nv > 0 ? sk_result_i64(&r, 0) : 0), err,
                    errlen) < 0 ||
        (per && sk_kout_view(out, "per_vertex", &tri, err, errlen) < 0))
      goto done;
  }
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- miniTri ---------------------------------------------------------------------
 * Seed 003 chapter 6: every triangle of an undirected graph gets the
 * largest k with min over its corners t_v >= (k-1 choose 2) and min over
 * its edges t_e >= k - 2 (t_v: triangles at a vertex, t_e: triangles on
 * an edge); the result is the histogram of k. t_e is counted per arc by
 * merging the two rows (self-loops skipped); triangles are enumerated at
 * their smallest corner u < v < w by merging rows u and v above v. */
static const char *const sig_mt_te[] = {"range" G3 R1("te", "int64"), NULL};
static const sk_kbody k_mt_te = {
  .label = "graph.minitri_edges", .body = sk_body_graph_minitri_edges, .pattern = SK_FOR,
  .sigs = sig_mt_te};

static const char *const sig_mt_hist[] = {
  "range" G3 R1("tv", "int64") R1("te", "int64") R1("hist", "int64"), NULL};
static const sk_kbody k_mt_hist = {
  .label = "graph.minitri_hist", .body = sk_body_graph_minitri_hist, .pattern = SK_FOR,
  .sigs = sig_mt_hist};

static const char *const sig_maxdeg[] = {"range" R1("rowptr", "int64"), NULL};
static const sk_kbody k_maxdeg = {
  .label = "graph.max_degree", .body = sk_body_graph_max_degree, .pattern = SK_REDUCE,
  .sigs = sig_maxdeg, .reds = "max:int64"};

/* graph.minitri: G_* (undirected) -> hist (int64: hist(k) triangles of
 * value k, k in 0..maxdeg + 2) */
static int minitri(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  sk_kvalue tv;
  memset(&tv, 0, sizeof tv);
  sk_graph g;
  int directed;
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  if (directed) {
    snprintf(err, errlen, "the graph is directed: miniTri needs an undirected graph");
    return -1;
  }
  sk_arg ta[] = {sk_arg_view("G_rowptr", g.rowptr), sk_arg_view("G_colidx", g.colidx)};
  if (triangles(ta, 2, &tv, err, errlen) < 0) {
    sk_kout_release(&tv);
    return -1;
  }
  const sk_view *tvv = NULL;
  for (int k = 0; k < tv.nout; k++)
    if (tv.out[k].is_view) tvv = &tv.out[k].view;
  int space = g.rowptr->space, rc = -1;
  sk_view te, hist;
  memset(&te, 0, sizeof te);
  memset(&hist, 0, sizeof hist);
  int64_t maxdeg = 0;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr)};
    sk_result r;
    if (g.nv > 0) {
      if (sk_sp_range(&k_maxdeg, g.nv, a, 1, &r, err, errlen) < 0) goto done;
      maxdeg = sk_result_i64(&r, 0);
    }
  }
  if (sk_sp_view(&te, "edge triangles", SK_I64, g.narcs, space, 0, err, errlen) < 0 ||
      sk_sp_view(&hist, "k histogram", SK_I64, maxdeg + 3, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("te", &te)};
    if (sk_sp_range(&k_mt_te, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("tv", tvv), sk_arg_view("te", &te), sk_arg_view("hist", &hist)};
    if (sk_sp_range(&k_mt_hist, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_kout_view(out, "hist", &hist, err, errlen) < 0) goto done;
  rc = 0;
done:
  sk_kout_release(&tv);
  sk_view_release(&te);
  sk_view_release(&hist);
  return rc;
}

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
static const char *const sig_col_assign[] = {
  "range" G3 R1("color", "int32") R1("work", "int32") R1("sus", "int32")
  R1("scnt", "int64"), NULL};
static const sk_kbody k_col_assign = {
  .label = "graph.color_assign", .body = sk_body_graph_color_assign, .pattern = SK_FOR,
  .sigs = sig_col_assign};

static const char *const sig_col_fix[] = {
  "range" G3 R1("color", "int32") R1("sus", "int32") R1("next", "int32")
  R1("cnt", "int64"), NULL};
static const sk_kbody k_col_fix = {
  .label = "graph.color_conflicts", .body = sk_body_graph_color_conflicts,
  .pattern = SK_FOR, .sigs = sig_col_fix};

static const char *const sig_iota[] = {"range" R1("work", "int32"), NULL};
static const sk_kbody k_iota = {
  .label = "graph.iota", .body = sk_body_graph_iota, .pattern = SK_FOR,
  .sigs = sig_iota};

/* the vertices of degree >= t by decreasing degree, roughly: in buckets
 * of floor(log2(degree)), the highest first (a count, offsets, a scatter;
 * within a bucket in no particular order) */
static const char *const sig_col_hcount[] = {
  "range" R1("rowptr", "int64") R1("cnt", "int64") " t=int64", NULL};
static const sk_kbody k_col_hcount = {
  .label = "graph.color_heavy_count", .body = sk_body_graph_color_heavy_count,
  .pattern = SK_FOR, .sigs = sig_col_hcount};
/* (one index) cnt(q) becomes bucket q's offset, cnt(47) the total */
static const char *const sig_col_hscan[] = {"range" R1("cnt", "int64"), NULL};
static const sk_kbody k_col_hscan = {
  .label = "graph.color_heavy_offsets", .body = sk_body_graph_color_heavy_offsets,
  .pattern = SK_FOR, .sigs = sig_col_hscan};
static const char *const sig_col_hfill[] = {
  "range" R1("rowptr", "int64") R1("cnt", "int64") R1("work", "int32") " t=int64", NULL};
static const sk_kbody k_col_hfill = {
  .label = "graph.color_heavy_fill", .body = sk_body_graph_color_heavy_fill,
  .pattern = SK_FOR, .sigs = sig_col_hfill};

/* the heavy vertices on a GPU: one team takes them one after another in
 * the list's order (a sequential greedy over the hubs, each hub's arcs
 * over the whole team), the colors its neighbours hold gathered into a
 * 512-color mask in scratch. The hubs of a power-law graph are nearly a
 * clique: colored in parallel, every round settled one of them (one
 * thread's scan of 10^4-10^5 arcs a round), which took seconds. */
static const sk_kbody k_col_heavy = {
  .label = "graph.color_heavy_team", .body = sk_body_graph_color_heavy_team,
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
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = 1;
  p.team_size = 32;
  p.vector_length = 32;
  p.scratch_team[0] = 64;
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                sk_arg_view("color", col), sk_arg_view("work", work), sk_arg_i64("nh", nh)};
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
static const char *const sig_eb_forbid[] = {
  "range" R1("src", "int32") R1("colidx", "int32") R1("color", "int32")
  R1("base", "int32") R1("forb", "int64"), NULL};
static const sk_kbody k_eb_forbid = {
  .label = "graph.color_eb_forbid", .body = sk_body_graph_color_eb_forbid,
  .pattern = SK_FOR, .sigs = sig_eb_forbid};

static const char *const sig_eb_fix[] = {
  "range" R1("src", "int32") R1("colidx", "int32") R1("color", "int32"), NULL};
static const sk_kbody k_eb_fix = {
  .label = "graph.color_eb_conflicts", .body = sk_body_graph_color_eb_conflicts,
  .pattern = SK_FOR, .sigs = sig_eb_fix};

/* the worklist's arcs: degrees (scanned into offsets), then each worklist
 * vertex writes its arcs (source, target) at its offset */
static const char *const sig_ebw_deg[] = {
  "range" R1("rowptr", "int64") R1("work", "int32") R1("cnt", "int64"), NULL};
static const sk_kbody k_ebw_deg = {
  .label = "graph.color_eb_degrees", .body = sk_body_graph_color_eb_degrees,
  .pattern = SK_FOR, .sigs = sig_ebw_deg};
static const char *const sig_ebw_fill[] = {
  "range" G3 R1("work", "int32") R1("ptr", "int64") R1("asrc", "int32")
  R1("adst", "int32"), NULL};
static const sk_kbody k_ebw_fill = {
  .label = "graph.color_eb_arcs", .body = sk_body_graph_color_eb_arcs, .pattern = SK_FOR,
  .sigs = sig_ebw_fill};
/* the pick over the worklist */
static const char *const sig_ebw_pick[] = {
  "range" R1("color", "int32") R1("base", "int32") R1("forb", "int64") R1("work", "int32"),
  NULL};
static const sk_kbody k_ebw_pick = {
  .label = "graph.color_eb_pick_work", .body = sk_body_graph_color_eb_pick_work,
  .pattern = SK_FOR, .sigs = sig_ebw_pick};
/* the uncolored vertices of the worklist into the next one */
static const char *const sig_ebw_next[] = {
  "range" R1("color", "int32") R1("work", "int32") R1("next", "int32") R1("cnt", "int64"),
  NULL};
static const sk_kbody k_ebw_next = {
  .label = "graph.color_eb_next", .body = sk_body_graph_color_eb_next, .pattern = SK_FOR,
  .sigs = sig_ebw_next};


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
    int bad = sk_sp_view(&hcnt, "degree buckets", SK_I64, 48, space, 1, err, errlen) < 0 ||
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
      sk_view t = work;
      work = next;
      next = t;
      (*rounds)++;
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
                  sk_arg_view("work", &work), sk_arg_view("ptr", &ptr),
                  sk_arg_view("asrc", &asrc), sk_arg_view("adst", &adst)};
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
    sk_view t = work;
    work = next;
    next = t;
    (*rounds)++;
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
#define D2SIG                                                                 \
  "range" R1("rp1", "int64") R1("ci1", "int32") R1("rp2", "int64")            \
  R1("ci2", "int32") R1("color", "int32") R1("work", "int32")
static const char *const sig_d2_assign[] = {D2SIG " closed=int64", NULL};
static const sk_kbody k_d2_assign = {
  .label = "graph.color_d2_assign", .body = sk_body_graph_color_d2_assign,
  .pattern = SK_FOR, .sigs = sig_d2_assign};

static const char *const sig_d2_fix[] = {
  D2SIG R1("next", "int32") R1("cnt", "int64") " closed=int64", NULL};
static const sk_kbody k_d2_fix = {
  .label = "graph.color_d2_conflicts", .body = sk_body_graph_color_d2_conflicts,
  .pattern = SK_FOR, .sigs = sig_d2_fix};

static const char *const sig_nb_gather[] = {
  "range" R1("rp2", "int64") R1("ci2", "int32") R1("color", "int32") R1("mask", "int64")
  " base=int64 closed=int64", NULL};
static const sk_kbody k_nb_gather = {
  .label = "graph.color_nb_gather", .body = sk_body_graph_color_nb_gather,
  .pattern = SK_FOR, .sigs = sig_nb_gather};

static const char *const sig_nb_assign[] = {
  "range" R1("rp1", "int64") R1("ci1", "int32") R1("color", "int32") R1("work", "int32")
  R1("mask", "int64") " base=int64", NULL};
static const sk_kbody k_nb_assign = {
  .label = "graph.color_nb_assign", .body = sk_body_graph_color_nb_assign,
  .pattern = SK_REDUCE, .sigs = sig_nb_assign, .reds = "sum:int64"};

static const char *const sig_maxc[] = {"range" R1("color", "int32"), NULL};
static const sk_kbody k_maxc = {
  .label = "graph.max_color", .body = sk_body_graph_max_color, .pattern = SK_REDUCE,
  .sigs = sig_maxc, .reds = "max:int64"};

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
    sk_arg a[] = {sk_arg_view("rp1", nt->rp1), sk_arg_view("ci1", nt->ci1),
                  sk_arg_view("rp2", nt->rp2), sk_arg_view("ci2", nt->ci2),
                  sk_arg_view("color", col), sk_arg_view("work", &work),
                  sk_arg_i64("closed", nt->closed), sk_arg_view("next", &next),
                  sk_arg_view("cnt", &cnt)};
    if (nb) {
      sk_arg g[] = {sk_arg_view("rp2", nt->rp2), sk_arg_view("ci2", nt->ci2),
                    sk_arg_view("color", col), sk_arg_view("mask", &mask),
                    sk_arg_i64("base", base), sk_arg_i64("closed", nt->closed)};
      sk_arg s[] = {sk_arg_view("rp1", nt->rp1), sk_arg_view("ci1", nt->ci1),
                    sk_arg_view("color", col), sk_arg_view("work", &work),
                    sk_arg_view("mask", &mask), sk_arg_i64("base", base)};
      sk_result r;
      if (sk_sp_range(&k_nb_gather, nt->nnets, g, NELEM(g), NULL, err, errlen) < 0 ||
          sk_sp_range(&k_nb_assign, wn, s, NELEM(s), &r, err, errlen) < 0)
        goto done;
      if (sk_result_i64(&r, 0) == 0) base += 64;   /* every one's window is full */
    } else if (sk_sp_range(&k_d2_assign, wn, a, 7, NULL, err, errlen) < 0) {
      goto done;
    }
    if (sk_g_set0(&cnt, 0, err, errlen) < 0 ||
        sk_sp_range(&k_d2_fix, wn, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&cnt, 0, &wn, err, errlen) < 0)
      goto done;
    sk_view t = work;
    work = next;
    next = t;
    (*rounds)++;
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
                  sk_arg_view("color", col), sk_arg_view("work", cur),
                  sk_arg_view("sus", sus), sk_arg_view("scnt", scnt)};
    sk_arg f[] = {sk_arg_view("rowptr", g->rowptr), sk_arg_view("colidx", g->colidx),
                  sk_arg_view("color", col), sk_arg_view("sus", sus),
                  sk_arg_view("next", buf[b]), sk_arg_view("cnt", cnt)};
    if (sk_g_set0(scnt, 0, err, errlen) < 0 ||
        degree_range_chunk(&k_col_assign, wn, chunk, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_get_i64(scnt, 0, &ns, err, errlen) < 0 ||
        sk_g_set0(cnt, 0, err, errlen) < 0 ||
        (ns > 0 &&
         degree_range_chunk(&k_col_fix, ns, chunk, f, NELEM(f), NULL, err, errlen) < 0) ||
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
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "algorithm", "distance", "order", NULL};
  sk_graph g;
  int directed;
  int64_t dist;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "distance", 1, 1, &dist, err, errlen) < 0)
    return -1;
  if (dist != 1 && dist != 2) {
    snprintf(err, errlen, "distance is %lld, must be 1 or 2", (long long)dist);
    return -1;
  }
  const char *alg = sk_karg_str(args, nargs, "algorithm", "vb", err, errlen);
  if (!alg) return -1;
  const char *other = dist == 1 ? "eb" : "nb";
  if (strcmp(alg, "vb") != 0 && strcmp(alg, other) != 0) {
    snprintf(err, errlen, "algorithm '%s' is not a distance-%lld coloring (vb, %s)", alg,
             (long long)dist, other);
    return -1;
  }
  int alt = strcmp(alg, "vb") != 0;
  const char *order = sk_karg_str(args, nargs, "order", "largest_first", err, errlen);
  if (!order) return -1;
  int largest_first = strcmp(order, "largest_first") == 0;
  if (!largest_first && strcmp(order, "natural") != 0) {
    snprintf(err, errlen, "order '%s' is not largest_first or natural", order);
    return -1;
  }
  if (directed) {
    snprintf(err, errlen, "the graph is directed: coloring needs an undirected graph");
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
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "T_rowptr", "T_colidx", "T_values", "T_ncols",
                                      "algorithm", NULL};
  sk_csr A, T;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 0, &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "T", 0, &T, err, errlen) < 0)
    return -1;
  if (T.nrows != A.ncols || T.ncols != A.nrows || T.nnz != A.nnz) {
    char a[64], t[64];
    snprintf(err, errlen, "T must be A's transpose: A is %s with %lld entries, T %s with %lld",
             sk_csr_shape(&A, a, sizeof a), (long long)A.nnz, sk_csr_shape(&T, t, sizeof t),
             (long long)T.nnz);
    return -1;
  }
  const char *alg = sk_karg_str(args, nargs, "algorithm", "nb", err, errlen);
  if (!alg) return -1;
  if (strcmp(alg, "vb") != 0 && strcmp(alg, "nb") != 0) {
    snprintf(err, errlen, "algorithm '%s' is not a bipartite coloring (vb, nb)", alg);
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

/* -- MIS-2 --------------------------------------------------------------------
 * Bell, Dalton and Olson's distance-2 maximal independent set, as Kokkos
 * Kernels runs it (seed 000 §4.3), deterministic: each round every vertex
 * gets the tuple (state, priority, id) in one int64 (state 2 in the set,
 * 1 undecided, 0 out; the priority a hash of (round, id), so re-drawn each
 * round), two max-passes over closed neighbourhoods give each vertex the
 * largest tuple within distance 2, and an undecided vertex joins when that
 * tuple is its own and leaves when it belongs to a set member. */
static const char *const sig_mis_tuple[] = {
  "range" R1("state", "int32") R1("t", "int64") " pass=int64", NULL};
static const sk_kbody k_mis_tuple = {
  .label = "graph.mis2_tuple", .body = sk_body_graph_mis2_tuple, .pattern = SK_FOR,
  .sigs = sig_mis_tuple, .prelude = sk_graph_prelude};

static const char *const sig_mis_max[] = {
  "range" G3 R1("t", "int64") R1("m", "int64"), NULL};
static const sk_kbody k_mis_max = {
  .label = "graph.mis2_max", .body = sk_body_graph_mis2_max, .pattern = SK_FOR,
  .sigs = sig_mis_max};

static const char *const sig_mis_decide[] = {
  "range" R1("state", "int32") R1("m", "int64"), NULL};
static const sk_kbody k_mis_decide = {
  .label = "graph.mis2_decide", .body = sk_body_graph_mis2_decide, .pattern = SK_REDUCE,
  .sigs = sig_mis_decide, .reds = "sum:int64"};

static const char *const sig_mis_out[] = {"range" R1("state", "int32"), NULL};
static const sk_kbody k_mis_out = {
  .label = "graph.mis2_members", .body = sk_body_graph_mis2_members,
  .pattern = SK_REDUCE, .sigs = sig_mis_out, .reds = "sum:int64"};
static const sk_kbody k_mis_init = {
  .label = "graph.mis2_init", .body = sk_body_graph_mis2_init, .pattern = SK_FOR,
  .sigs = sig_mis_out};

/* graph.mis2: G_* (undirected) -> members (int32: 1 in the set), count, rounds */
static int mis2(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  if (directed) {
    snprintf(err, errlen, "the graph is directed: MIS-2 needs an undirected graph");
    return -1;
  }
  int space = g.rowptr->space, rc = -1;
  sk_view st, t, m;
  sk_view *all[] = {&st, &t, &m};
  for (int k = 0; k < NELEM(all); k++) memset(all[k], 0, sizeof *all[k]);
  if (sk_sp_view(&st, "members", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&t, "tuples", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&m, "maxima", SK_I64, g.nv, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("state", &st)};
    if (sk_sp_range(&k_mis_init, g.nv, a, 1, NULL, err, errlen) < 0) goto done;
  }
  int64_t left = g.nv, round = 0;
  while (left > 0) {
    sk_arg a[] = {sk_arg_view("state", &st), sk_arg_view("t", &t), sk_arg_i64("pass", round)};
    sk_arg b1[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                   sk_arg_view("t", &t), sk_arg_view("m", &m)};
    sk_arg b2[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                   sk_arg_view("t", &m), sk_arg_view("m", &t)};
    sk_arg c[] = {sk_arg_view("state", &st), sk_arg_view("m", &t)};
    sk_result r;
    if (sk_sp_range(&k_mis_tuple, g.nv, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_mis_max, g.nv, b1, NELEM(b1), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_mis_max, g.nv, b2, NELEM(b2), NULL, err, errlen) < 0 ||
        sk_sp_range(&k_mis_decide, g.nv, c, NELEM(c), &r, err, errlen) < 0)
      goto done;
    left = sk_result_i64(&r, 0);
    round++;
  }
  {
    sk_arg a[] = {sk_arg_view("state", &st)};
    sk_result r;
    if (sk_sp_range(&k_mis_out, g.nv, a, 1, &r, err, errlen) < 0 ||
        sk_kout_num(out, "count", (double)(g.nv > 0 ? sk_result_i64(&r, 0) : 0), err,
                    errlen) < 0 ||
        sk_kout_num(out, "rounds", (double)round, err, errlen) < 0 ||
        sk_kout_view(out, "members", &st, err, errlen) < 0)
      goto done;
  }
  rc = 0;
done:
  for (int k = 0; k < NELEM(all); k++) sk_view_release(all[k]);
  return rc;
}

/* -- MIS-2 coarsening ----------------------------------------------------------
 * Each MIS-2 root starts an aggregate (numbered by a scan of the roots);
 * a vertex next to roots joins the smallest-numbered one, and the rest
 * (two edges from a root: every vertex is, by maximality) join the
 * smallest aggregate among their neighbours of the first pass. */
static const char *const sig_cm_count[] = {
  "range" R1("members", "int32") R1("cnt", "int64") " n=int64", NULL};
static const sk_kbody k_cm_count = {
  .label = "graph.coarsen_count", .body = sk_body_graph_coarsen_count, .pattern = SK_FOR,
  .sigs = sig_cm_count};

static const char *const sig_cm_root[] = {
  "range" R1("members", "int32") R1("ptr", "int64") R1("lab", "int64"), NULL};
static const sk_kbody k_cm_root = {
  .label = "graph.coarsen_roots", .body = sk_body_graph_coarsen_roots, .pattern = SK_FOR,
  .sigs = sig_cm_root};

static const char *const sig_cm_join[] = {
  "range" G3 R1("lab", "int64") R1("nlab", "int64"), NULL};
/* an unlabelled vertex takes the smallest label among its labelled
 * neighbours (double-buffered: the first pass sees only the roots') */
static const sk_kbody k_cm_join = {
  .label = "graph.coarsen_join", .body = sk_body_graph_coarsen_join, .pattern = SK_FOR,
  .sigs = sig_cm_join};

/* graph.coarsen_mis2: G_*, members (int32, from graph.mis2) -> labels
 * (int64, 0..ncoarse-1), ncoarse */
static int coarsen_mis2(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      "members", NULL};
  sk_graph g;
  const sk_view *mem;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      !(mem = sk_karg_view(args, nargs, "members", 1, err, errlen)))
    return -1;
  if (mem->dtype != SK_I32 || mem->extent[0] != g.nv) {
    snprintf(err, errlen, "members must be int32 with %lld entries, got %s[%lld]",
             (long long)g.nv, sk_dtypes[mem->dtype].name, (long long)mem->extent[0]);
    return -1;
  }
  int space = g.rowptr->space, rc = -1;
  int64_t nc = 0;
  sk_view cnt, ptr, lab, nlab;
  sk_view *all[] = {&cnt, &ptr, &lab, &nlab};
  for (int k = 0; k < NELEM(all); k++) memset(all[k], 0, sizeof *all[k]);
  if (sk_sp_view(&cnt, "roots", SK_I64, g.nv + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&ptr, "root numbers", SK_I64, g.nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&lab, "labels", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&nlab, "labels", SK_I64, g.nv, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("members", mem), sk_arg_view("cnt", &cnt),
                  sk_arg_i64("n", g.nv)};
    if (sk_sp_range(&k_cm_count, g.nv, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&cnt, &ptr, g.nv, &nc, err, errlen) < 0)
      goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("members", mem), sk_arg_view("ptr", &ptr),
                  sk_arg_view("lab", &lab)};
    if (sk_sp_range(&k_cm_root, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  for (int pass = 0; pass < 2; pass++) {
    sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("lab", &lab), sk_arg_view("nlab", &nlab)};
    if (sk_sp_range(&k_cm_join, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
    sk_view t = lab;
    lab = nlab;
    nlab = t;
  }
  if (sk_kout_view(out, "labels", &lab, err, errlen) < 0 ||
      sk_kout_num(out, "ncoarse", (double)nc, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int k = 0; k < NELEM(all); k++) sk_view_release(all[k]);
  return rc;
}

/* -- misc ----------------------------------------------------------------------- */
static const char *const sig_loops[] = {"range" G3, NULL};
static const sk_kbody k_loops = {
  .label = "graph.count_loops", .body = sk_body_graph_count_loops, .pattern = SK_REDUCE,
  .sigs = sig_loops, .reds = "sum:int64"};

/* graph.count_loops: G_* -> the number of arcs u -> u */
static int count_loops(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx)};
  sk_result r;
  if (sk_sp_range(&k_loops, g.nv, a, NELEM(a), &r, err, errlen) < 0) return -1;
  out->i64 = g.nv > 0 ? sk_result_i64(&r, 0) : 0;
  return 0;
}

/* -- registration -------------------------------------------------------------- */
static const sk_kentry e_bfs = {"graph.bfs",
  "G_*, sources [, directed, direction_optimizing]", SK_KRES_NONE, bfs};
static const sk_kentry e_cc = {"graph.connected_components",
  "G_* [, directed, algorithm]", SK_KRES_NONE, components};
static const sk_kentry e_pr = {"graph.pagerank",
  "G_* [, directed, damping, tol, maxiter]", SK_KRES_NONE, pagerank};
static const sk_kentry e_tri = {"graph.triangles", "G_*", SK_KRES_NONE, triangles};
static const sk_kentry e_color = {"graph.color", "G_* [, algorithm, distance]", SK_KRES_NONE,
                                  color};
static const sk_kentry e_color_bip = {"graph.color_bipartite", "A_*, T_* [, algorithm]",
                                      SK_KRES_NONE, color_bipartite};
static const sk_kentry e_minitri = {"graph.minitri", "G_*", SK_KRES_NONE, minitri};
static const sk_kentry e_coarsen = {"graph.coarsen_mis2", "G_*, members", SK_KRES_NONE,
                                    coarsen_mis2};
static const sk_kentry e_mis2 = {"graph.mis2", "G_*", SK_KRES_NONE, mis2};
static const sk_kentry e_loops = {"graph.count_loops", "G_*", SK_KRES_I64, count_loops};

const sk_kentry *const sk_galgo_entries[] = {&e_bfs, &e_cc, &e_pr, &e_tri, &e_color, &e_color_bip,
                                             &e_loops, &e_mis2, &e_minitri, &e_coarsen, NULL};
/* (bfs_device's bodies run on GPUs only: compiled there, not here) */
const sk_kbody *const sk_galgo_bodies[] = {
  &k_bfs_bu_bits, &k_bfs_q2b, &k_bfs_clr, &k_bfs_b2q,
  &k_bfs_init, &k_bfs_seed, &k_bfs_td, &k_firstbad,
  &k_cc_init, &k_cc_hook, &k_cc_compress, &k_cc_count, &k_pr_deg, &k_pr_outw,
  &k_pr_contrib, &k_pr_pull, &k_pr_pullw, &k_tri_cnt, &k_tri_fill, &k_tri_bits, &k_tri_bitsv, &k_col_assign, &k_col_fix, &k_col_hcount, &k_col_hscan, &k_col_hfill, &k_cc_link, &k_pr_pull_u,
  &k_prg_hist, &k_prg_perm, &k_prg_fill, &k_prg_init, &k_prg_out,
  &k_cc_init32, &k_cc_out, &k_cc_final, &k_cc_sample,
  &k_d2_assign, &k_d2_fix, &k_nb_gather, &k_nb_assign, &k_eb_forbid, &k_eb_fix, &k_ebw_deg, &k_ebw_fill, &k_ebw_pick,
  &k_ebw_next, &k_iota, &k_maxc, &k_loops, &k_mis_tuple, &k_mis_max,
  &k_mis_decide, &k_mis_out, &k_mis_init, &k_mt_te, &k_mt_hist, &k_maxdeg, &k_cm_count, &k_cm_root, &k_cm_join, NULL};
