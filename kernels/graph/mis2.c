/* mis2.c: graph.mis2 (a distance-2 maximal independent set) and
 * graph.coarsen_mis2 (aggregates around it). Bodies: mis2.sk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"
#include "../sparse/sparse.h"

/* -- MIS-2 --------------------------------------------------------------------
 * Bell, Dalton and Olson's distance-2 maximal independent set, as Kokkos
 * Kernels runs it (seed 000 §4.3), deterministic: each round every vertex
 * gets the tuple (state, priority, id) in one int64 (state 2 in the set,
 * 1 undecided, 0 out; the priority a hash of (round, id), so re-drawn each
 * round), two max-passes over closed neighbourhoods give each vertex the
 * largest tuple within distance 2, and an undecided vertex joins when that
 * tuple is its own and leaves when it belongs to a set member. Work shrinks
 * with the rounds: the second pass runs for the undecided vertices only,
 * the first skips the vertices with no undecided one in reach (mis2.sk). */
static const char *const sig_mis_tuple[] = {
  "range" R1("state", "int32") R1("t", "int64") " pass=int64", NULL};
static const sk_kbody k_mis_tuple = {.label = "graph.mis2_tuple",
                                     .body = sk_body_graph_mis2_tuple,
                                     .pattern = SK_FOR,
                                     .sigs = sig_mis_tuple,
                                     .prelude = sk_body_graph_prelude};

static const char *const sig_mis_max[] = {
  "range" G3 R1("t", "int64") R1("m", "int64") R1("dead", "int32"), NULL};
static const sk_kbody k_mis_max = {.label = "graph.mis2_max",
                                   .body = sk_body_graph_mis2_max,
                                   .pattern = SK_FOR,
                                   .sigs = sig_mis_max};

static const char *const sig_mis_max2[] = {
  "range" G3 R1("state", "int32") R1("t", "int64") R1("m", "int64"), NULL};
static const sk_kbody k_mis_max2 = {.label = "graph.mis2_max2",
                                    .body = sk_body_graph_mis2_max2,
                                    .pattern = SK_FOR,
                                    .sigs = sig_mis_max2};
static const char *const sig_mis_dia[] = {
  "range" R1("dc", "uint8") R1("doff", "int64") R1("state", "int32") R1("dead", "int32")
    R1("t", "int64") R1("m", "int64") " nd=int64 w=int64 two=int64",
  NULL};
static const sk_kbody k_mis_dia = {.label = "graph.mis2_max_dia",
                                   .body = sk_body_graph_mis2_max_dia,
                                   .pattern = SK_FOR,
                                   .sigs = sig_mis_dia};

/* A weighted graph's stencil form, where it has one: on the host, the
 * diagonal form that sparse keeps for the matrix (G_rowptr, G_colidx,
 * G_weights) -- built already where the matrix has served as many SpMVs
 * as sparse asks (speck.solve.amg's Chebyshev bounds have run on it), else
 * this use counted (csr16.c, vdict.c, dia.c) -- and its offsets as a view:
 * the neighbour scans of MIS-2 and of the coarsening then read a byte a
 * neighbour and no index, and visit the same neighbours. ok 0: none (the
 * CSR bodies) */
typedef struct stencil {
  sk_dia d;
  sk_view off;  /* sk_dia_offsets' (the bodies read the first nd) */
  int64_t nblk; /* blocks of SK_DIA_BLOCK rows: the bodies' range */
  int ok;
} stencil;

static void stencil_release(stencil *s) {
  sk_dia_release(&s->d);
  sk_view_release(&s->off);
  memset(s, 0, sizeof *s);
}

static int stencil_get(const sk_graph *g, stencil *s, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (!g->weights || g->nv < 1 || !sk_sp_host(be)) return 0;
  sk_csr A = {.rowptr = g->rowptr, .colidx = g->colidx, .values = g->weights,
              .nrows = g->nv, .ncols = g->nv, .nnz = g->narcs};
  sk_csr16 c16;
  sk_vdict vd;
  int rc = sk_dia_memos(&A, 1, &c16, &vd, &s->d, err, errlen);
  sk_vdict_release(&vd);
  sk_csr16_release(&c16);
  if (rc == 0 && s->d.ok && (rc = sk_dia_offsets(&s->d, &s->off, err, errlen)) == 0) {
    s->nblk = (g->nv + SK_DIA_BLOCK - 1) / SK_DIA_BLOCK;
    s->ok = 1;
  }
  if (!s->ok) sk_dia_release(&s->d);
  return rc < 0 ? -1 : 0;
}

static const char *const sig_mis_decide[] = {
  "range" R1("state", "int32") R1("m", "int64"), NULL};
static const sk_kbody k_mis_decide = {.label = "graph.mis2_decide",
                                      .body = sk_body_graph_mis2_decide,
                                      .pattern = SK_REDUCE,
                                      .sigs = sig_mis_decide,
                                      .reds = "sum:int64"};

static const char *const sig_mis_out[] = {"range" R1("state", "int32"), NULL};
static const sk_kbody k_mis_out = {.label = "graph.mis2_members",
                                   .body = sk_body_graph_mis2_members,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_mis_out,
                                   .reds = "sum:int64"};
static const sk_kbody k_mis_init = {.label = "graph.mis2_init",
                                    .body = sk_body_graph_mis2_init,
                                    .pattern = SK_FOR,
                                    .sigs = sig_mis_out};

/* graph.mis2: G_* (undirected) -> members (int32: 1 in the set), count, rounds */
static int mis2(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights", "directed",
                                      NULL};
  sk_graph g;
  int directed;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      sk_g_flag(args, nargs, "directed", 0, &directed, err, errlen) < 0)
    return -1;
  if (directed) {
    sk_err(err, errlen, SK_E_GRAPH_DIRECTED_MIS);
    return -1;
  }
  int space = g.rowptr->space, rc = -1;
  sk_view st, t, m, dead;
  sk_view *all[] = {&st, &t, &m, &dead};
  for (int k = 0; k < NELEM(all); k++) memset(all[k], 0, sizeof *all[k]);
  stencil sc;
  if (stencil_get(&g, &sc, err, errlen) < 0) return -1;
  if (sk_sp_view(&st, "members", SK_I32, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&t, "tuples", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&m, "maxima", SK_I64, g.nv, space, 0, err, errlen) < 0 ||
      sk_sp_view(&dead, "dead", SK_I32, g.nv, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("state", &st)};
    if (sk_sp_range(&k_mis_init, g.nv, a, 1, NULL, err, errlen) < 0) goto done;
  }
  int64_t left = g.nv, round = 0;
  while (left > 0) {
    sk_arg a[] = {sk_arg_view("state", &st), sk_arg_view("t", &t),
                  sk_arg_i64("pass", round)};
    sk_arg b1[] = {sk_arg_view_ro("rowptr", g.rowptr), sk_arg_view_ro("colidx", g.colidx),
                   sk_arg_view("t", &t), sk_arg_view("m", &m), sk_arg_view("dead", &dead)};
    sk_arg b2[] = {sk_arg_view_ro("rowptr", g.rowptr), sk_arg_view_ro("colidx", g.colidx),
                   sk_arg_view("state", &st), sk_arg_view("t", &m), sk_arg_view("m", &t)};
    sk_arg c[] = {sk_arg_view("state", &st), sk_arg_view("m", &t)};
    sk_result r;
    if (sk_sp_range(&k_mis_tuple, g.nv, a, NELEM(a), NULL, err, errlen) < 0) goto done;
    if (sc.ok) {
      for (int two = 0; two < 2; two++) {
        sk_arg d[] = {sk_arg_view_ro("dc", &sc.d.code), sk_arg_view_ro("doff", &sc.off),
                      sk_arg_view("state", &st),        sk_arg_view("dead", &dead),
                      sk_arg_view("t", two ? &m : &t),  sk_arg_view("m", two ? &t : &m),
                      sk_arg_i64("nd", sc.d.nd),        sk_arg_i64("w", sc.d.width),
                      sk_arg_i64("two", two)};
        if (sk_sp_range(&k_mis_dia, sc.nblk, d, NELEM(d), NULL, err, errlen) < 0) goto done;
      }
    } else if (sk_sp_range(&k_mis_max, g.nv, b1, NELEM(b1), NULL, err, errlen) < 0 ||
               sk_sp_range(&k_mis_max2, g.nv, b2, NELEM(b2), NULL, err, errlen) < 0) {
      goto done;
    }
    if (sk_sp_range(&k_mis_decide, g.nv, c, NELEM(c), &r, err, errlen) < 0) goto done;
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
  stencil_release(&sc);
  return rc;
}

/* -- MIS-2 coarsening ----------------------------------------------------------
 * Each MIS-2 root starts an aggregate (numbered by a scan of the roots);
 * a vertex next to roots joins the smallest-numbered one, and the rest
 * (two edges from a root: every vertex is, by maximality) join the
 * smallest aggregate among their neighbours of the first pass. */
static const char *const sig_cm_count[] = {
  "range" R1("members", "int32") R1("cnt", "int64") " n=int64", NULL};
static const sk_kbody k_cm_count = {.label = "graph.coarsen_count",
                                    .body = sk_body_graph_coarsen_count,
                                    .pattern = SK_FOR,
                                    .sigs = sig_cm_count};

static const char *const sig_cm_root[] = {
  "range" R1("members", "int32") R1("ptr", "int64") R1("lab", "int64"), NULL};
static const sk_kbody k_cm_root = {.label = "graph.coarsen_roots",
                                   .body = sk_body_graph_coarsen_roots,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cm_root};

static const char *const sig_cm_join[] = {
  "range" G3 R1("lab", "int64") R1("nlab", "int64"), NULL};
/* an unlabelled vertex takes the smallest label among its labelled
 * neighbours (double-buffered: the first pass sees only the roots') */
static const sk_kbody k_cm_join = {.label = "graph.coarsen_join",
                                   .body = sk_body_graph_coarsen_join,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cm_join};
/* the same over a stencil's form (a block of 64 rows a thread) */
static const char *const sig_cm_join_dia[] = {
  "range" R1("dc", "uint8") R1("doff", "int64") R1("lab", "int64") R1("nlab", "int64")
    " nd=int64 w=int64",
  NULL};
static const sk_kbody k_cm_join_dia = {.label = "graph.coarsen_join_dia",
                                       .body = sk_body_graph_coarsen_join_dia,
                                       .pattern = SK_FOR,
                                       .sigs = sig_cm_join_dia};

/* graph.coarsen_mis2: G_*, members (int32, from graph.mis2) -> labels
 * (int64, 0..ncoarse-1), ncoarse */
static int coarsen_mis2(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "G_weights",
                                      "directed", "members",  NULL};
  sk_graph g;
  const sk_view *mem;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_g_arg(args, nargs, &g, err, errlen) < 0 ||
      !(mem = sk_karg_view(args, nargs, "members", 1, err, errlen)))
    return -1;
  if (mem->dtype != SK_I32 || mem->extent[0] != g.nv) {
    sk_err(err, errlen, SK_E_MEMBERS_MUST_INT32, (long long)g.nv,
           sk_dtypes[mem->dtype].name, (long long)mem->extent[0]);
    return -1;
  }
  int space = g.rowptr->space, rc = -1;
  int64_t nc = 0;
  sk_view cnt, ptr, lab, nlab;
  sk_view *all[] = {&cnt, &ptr, &lab, &nlab};
  for (int k = 0; k < NELEM(all); k++) memset(all[k], 0, sizeof *all[k]);
  stencil sc;
  if (stencil_get(&g, &sc, err, errlen) < 0) return -1;
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
    sk_arg a[] = {sk_arg_view_ro("rowptr", g.rowptr), sk_arg_view_ro("colidx", g.colidx),
                  sk_arg_view("lab", &lab), sk_arg_view("nlab", &nlab)};
    sk_arg d[] = {sk_arg_view_ro("dc", &sc.d.code), sk_arg_view_ro("doff", &sc.off),
                  sk_arg_view("lab", &lab),         sk_arg_view("nlab", &nlab),
                  sk_arg_i64("nd", sc.d.nd),        sk_arg_i64("w", sc.d.width)};
    if (sc.ok ? sk_sp_range(&k_cm_join_dia, sc.nblk, d,
                            NELEM(d), NULL, err, errlen) < 0
              : sk_sp_range(&k_cm_join, g.nv, a, NELEM(a), NULL, err, errlen) < 0)
      goto done;
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
  stencil_release(&sc);
  return rc;
}

/* -- registration --------------------------------------------------------- */
const sk_kentry sk_galgo_mis2 = {"graph.mis2", "G_*", SK_KRES_NONE, mis2};
const sk_kentry sk_galgo_coarsen = {"graph.coarsen_mis2", "G_*, members", SK_KRES_NONE,
                                    coarsen_mis2};

const sk_kbody *const sk_gmis_bodies[] = {&k_mis_tuple, &k_mis_max,  &k_mis_max2, &k_mis_decide,
                                          &k_mis_out,   &k_mis_init, &k_cm_count,
                                          &k_cm_root,   &k_cm_join,  &k_mis_dia,
                                          &k_cm_join_dia, NULL};
