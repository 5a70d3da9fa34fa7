/* cc.c: graph.connected_components: Shiloach-Vishkin hooking with
 * pointer jumping, and Afforest's sampling. Bodies: cc.sk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "algo.h"

/* -- connected components ---------------------------------------------------
 * lab(v) <= v always names a vertex of v's component; hooking links the
 * roots of an arc's ends (the larger under the smaller, atomic_min), and
 * pointer jumping flattens the trees. A pass that changes nothing proves
 * every arc joins equal roots, so the labels are the components, each
 * labelled by its smallest vertex (deterministic). Afforest first links
 * each vertex's first two neighbours, finds the most frequent label on a
 * sample, and then skips the vertices of that (giant) component. */
static const char *const sig_cc_init[] = {"range" R1("lab", "int64"), NULL};
static const sk_kbody k_cc_init = {.label = "graph.cc_init",
                                   .body = sk_body_graph_cc_init,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cc_init};

static const char *const sig_cc_hook[] = {
  "range" G3 R1("lab", "int64") " lo=int64 hi=int64 skip=int64", NULL};
static const sk_kbody k_cc_hook = {.label = "graph.cc_hook",
                                   .body = sk_body_graph_cc_hook,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_cc_hook,
                                   .reds = "sum:int64"};

/* Afforest's link (Sutton et al., as GAP's cc.cc): the ends' trees
 * joined, the larger root under the smaller, by a compare-and-swap that
 * retries when another thread moved a root first -- no link is lost, so
 * one pass over the arcs is enough. Arcs [lo, hi) of each row (hi < 0:
 * to its end), rows whose root is 'skip' left out. The labels are int32
 * (vertex ids fit: colidx is int32), half the bytes of the int64 output
 * the last pass writes. */
static const char *const sig_cc_link[] = {
  "range" G3 R1("lab", "int32") " lo=int64 hi=int64 skip=int64", NULL};
static const sk_kbody k_cc_link = {.label = "graph.cc_link",
                                   .body = sk_body_graph_cc_link,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cc_link};

/* the last linking pass, with the compress folded in: each vertex walks
 * up to its root, or to 'skip' (the giant component's root when it was
 * sampled: every vertex of that component has it on its path, even after
 * it was hooked under a smaller root), points its label there (only a
 * vertex that is no root: roots are what the compare-and-swaps change),
 * and, outside the giant component, links its arcs from 'lo' on */
static const char *const sig_cc_final[] = {
  "range" G3 R1("lab", "int32") " lo=int64 skip=int64", NULL};
/* the host's first pass (cc_link_plain in cc.sk): the first arc of each
 * row linked with plain stores; the last pass then links every arc (lo 0)
 * of the vertices outside the giant component. Whatever links a plain
 * store lost, every arc is then honoured: an arc with an end outside the
 * giant component is linked from that end's row, and two ends inside it
 * share its root. A C copy of the passes at Kronecker scale 20 (one
 * thread, the sum over chunks of each chunk's best time in 10 runs): two
 * arcs a row linked by compare-and-swap then the last pass from arc 2
 * 36.0 + 9.4 ms; one arc, compare-and-swap, from arc 1 18.3 + 11.7 ms;
 * one arc, plain stores, from arc 0 14.8 + 11.9 ms (the same 402,459
 * components). A GPU keeps two arcs and the compare-and-swap. */
static const sk_kbody k_cc_link_plain = {.label = "graph.cc_link_plain",
                                         .body = sk_body_graph_cc_link_plain,
                                         .pattern = SK_FOR,
                                         .sigs = sig_cc_link};
static const sk_kbody k_cc_final = {.label = "graph.cc_link_final",
                                    .body = sk_body_graph_cc_link_final,
                                    .pattern = SK_FOR,
                                    .sigs = sig_cc_final};
/* the roots of 1024 vertices drawn by a fixed hash (no compress pass
 * before: each walks to its root) */
static const char *const sig_cc_sample[] = {
  "range" R1("lab", "int32") R1("s", "int64") " nv=int64", NULL};
static const sk_kbody k_cc_sample = {.label = "graph.cc_sample",
                                     .body = sk_body_graph_cc_sample,
                                     .pattern = SK_FOR,
                                     .sigs = sig_cc_sample,
                                     .prelude = sk_body_graph_prelude};

static const char *const sig_cc_init32[] = {"range" R1("lab", "int32"), NULL};
static const sk_kbody k_cc_init32 = {.label = "graph.cc_init32",
                                     .body = sk_body_graph_cc_init32,
                                     .pattern = SK_FOR,
                                     .sigs = sig_cc_init32};
/* the last pass: each vertex's root into the int64 output, the roots
 * counted (the labels are not written: only reads, no pass after it) */
static const char *const sig_cc_out[] = {"range" R1("lab", "int32") R1("out", "int64"),
                                         NULL};
static const sk_kbody k_cc_out = {.label = "graph.cc_out",
                                  .body = sk_body_graph_cc_out,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_cc_out,
                                  .reds = "sum:int64"};

static const sk_kbody k_cc_compress = {.label = "graph.cc_compress",
                                       .body = sk_body_graph_cc_compress,
                                       .pattern = SK_FOR,
                                       .sigs = sig_cc_init};

static const sk_kbody k_cc_count = {.label = "graph.cc_count",
                                    .body = sk_body_graph_cc_count,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_cc_init,
                                    .reds = "sum:int64"};

static int cc_hook(const sk_graph *g, const sk_view *lab, int64_t lo, int64_t hi,
                   int64_t skip, int64_t *changes, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                sk_arg_view("colidx", g->colidx),
                sk_arg_view("lab", lab),
                sk_arg_i64("lo", lo),
                sk_arg_i64("hi", hi),
                sk_arg_i64("skip", skip)};
  sk_result r;
  if (sk_galgo_degree_range(&k_cc_hook, g->nv, a, NELEM(a), &r, err, errlen) < 0)
    return -1;
  sk_arg c[] = {sk_arg_view("lab", lab)};
  if (sk_sp_range(&k_cc_compress, g->nv, c, 1, NULL, err, errlen) < 0) return -1;
  *changes = sk_result_i64(&r, 0);
  return 0;
}

/* link the arcs [lo, hi) of the rows not in component 'skip' (int32
 * labels) */
static int cc_link(const sk_kbody *kb, const sk_graph *g, const sk_view *lab, int64_t lo,
                   int64_t hi, int64_t skip, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rowptr", g->rowptr),
                sk_arg_view("colidx", g->colidx),
                sk_arg_view("lab", lab),
                sk_arg_i64("lo", lo),
                sk_arg_i64("hi", hi),
                sk_arg_i64("skip", skip)};
  return sk_galgo_degree_range(kb, g->nv, a, NELEM(a), NULL, err, errlen);
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
  static const char *const known[] = {"G_rowptr", "G_colidx",  "G_weights",
                                      "directed", "algorithm", NULL};
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
    sk_err(err, errlen, SK_E_ALGORITHM_NOT_AFFOREST, alg);
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
   * once; the host links the first arc only, by plain stores: see
   * k_cc_link_plain), guess the giant component from a sample, then link the other
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
    const sk_backend *be = sk_rt_backend(err, errlen);
    if (!be) goto done;
    const int host = be->code == SK_CODE_HOST;
    if (!directed && (cc_link(host ? &k_cc_link_plain : &k_cc_link, &g, &lab32, 0,
                              host ? 1 : 2, -1, err, errlen) < 0 ||
                      cc_sample(&lab32, g.nv, &skip, err, errlen) < 0))
      goto done;
    sk_arg f[] = {sk_arg_view("rowptr", g.rowptr), sk_arg_view("colidx", g.colidx),
                  sk_arg_view("lab", &lab32), sk_arg_i64("lo", directed || host ? 0 : 2),
                  sk_arg_i64("skip", skip)};
    if (sk_galgo_degree_range(&k_cc_final, g.nv, f, NELEM(f), NULL, err, errlen) < 0)
      goto done;
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

/* -- registration --------------------------------------------------------- */
const sk_kentry sk_galgo_cc = {"graph.connected_components",
                               "G_* [, directed, algorithm]", SK_KRES_NONE, components};

const sk_kbody *const sk_gcc_bodies[] = {
  &k_cc_init,   &k_cc_hook, &k_cc_compress, &k_cc_count,  &k_cc_link,
  &k_cc_init32, &k_cc_out,  &k_cc_final,    &k_cc_sample, &k_cc_link_plain, NULL};
