/* cc.c: speck.dist's connected components driven from C (cc.h) --
 * min-label propagation: every vertex starts with its own id and takes
 * the smallest label among itself and its neighbours (the halo's labels by
 * the graph's plan; a directed graph's in-arcs too, for the weak
 * components) until no label changes. An iteration: the exchange, the
 * step's kernels (kernels/dist/graph.sk's cc_step, cc_step_in), one
 * MPI_Allreduce of {labels changed, failed}; no Lua between iterations.
 * The halo exchange (sk_dist_xchg) is dist.lua's xstart / xwait in C: a
 * rank whose kernel or copy fails still takes part in the exchange's
 * collective steps, and its failure travels in the iteration's
 * allreduce, so every rank stops with the lowest failing rank's message.
 */
#include "cc.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "kbodies.h"
#include "kernels/kernels.h"
#include "../../backends/remote/remote.h"

#define NELEM(a)  ((int)(sizeof(a) / sizeof((a)[0])))
#define I1(name)  " " name "=int64[1]"
#define I32(name) " " name "=int32[1]"

/* -- bodies (kernels/dist/graph.sk) -------------------------------------------- */
static const char *const sig_pack[] = {"range" I1("buf") I1("sl") I1("v"),
                                       "range buf=float64[1]" I1("sl") " v=float64[1]",
                                       NULL};
static const sk_kbody k_pack = {.label = "dist.xchg_pack",
                                .body = sk_body_dist_xchg_pack,
                                .pattern = SK_FOR,
                                .sigs = sig_pack};
/* (rb is a remote view at run time, compiled then; the signature keeps the
 * build's precompiler from guessing one) */
static const char *const sig_put[] = {
  "range rb=int64[2]" I1("pe") I1("off") I1("sl") I1("v"),
  "range rb=float64[2]" I1("pe") I1("off") I1("sl") " v=float64[1]", NULL};
static const sk_kbody k_put = {.label = "dist.xchg_put",
                               .body = sk_body_dist_xchg_put,
                               .pattern = SK_FOR,
                               .sigs = sig_put};
static const char *const sig_iota[] = {"range" I1("lab") " base=int64", NULL};
static const sk_kbody k_iota = {.label = "dist.cc_init",
                                .body = sk_body_dist_cc_init,
                                .pattern = SK_FOR,
                                .sigs = sig_iota};
static const char *const sig_step[] = {
  "range" I1("cur") I1("nxt") I1("hl") I1("ip") I32("ic") I1("bp") I32("bc"), NULL};
static const sk_kbody k_step = {.label = "dist.cc_step",
                                .body = sk_body_dist_cc_step,
                                .pattern = SK_REDUCE,
                                .sigs = sig_step,
                                .reds = "sum:int64"};
static const char *const sig_step_in[] = {
  "range" I1("cur") I1("hl") I1("ip") I32("ic") I1("bp") I32("bc"), NULL};
static const sk_kbody k_step_in = {.label = "dist.cc_step_in",
                                   .body = sk_body_dist_cc_step_in,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_step_in,
                                   .reds = "sum:int64"};
static const char *const sig_roots[] = {"range" I1("v") " b=int64", NULL};
static const sk_kbody k_roots = {.label = "dist.cc_roots",
                                 .body = sk_body_dist_cc_roots,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_roots,
                                 .reds = "sum:int64"};

const sk_kbody *const sk_dist_cc_bodies[] = {&k_pack,    &k_put,   &k_iota, &k_step,
                                             &k_step_in, &k_roots, NULL};

/* -- the exchange ------------------------------------------------------------ */
static int xstart(sk_dist_xchg *x, const sk_view *v, const sk_view *halo, char *err,
                  size_t errlen) {
  int rc = 0;
  char e2[512];
  if (x->mode == SK_XCHG_MPI)
    return sk_dist_plan_start(x->plan, v->data, halo->data, err, errlen);
  if (x->mode == SK_XCHG_ONESIDED) {
    x->turn = x->turn == 1 ? 2 : 1;
    if (x->nsend > 0) {
      sk_arg a[] = {sk_arg_view("rb", x->rb[x->turn - 1]), sk_arg_view_ro("pe", x->pe),
                    sk_arg_view_ro("off", x->off), sk_arg_view_ro("sl", x->slid),
                    sk_arg_view_ro("v", v)};
      rc = sk_kbody_range(&k_put, 0, x->nsend, a, NELEM(a), NULL, err, errlen);
    }
    /* the fence whatever happened: the other ranks wait on it */
    if (sk_remote_fence(e2, sizeof e2) < 0 && rc == 0) {
      snprintf(err, errlen, "%s", e2);
      rc = -1;
    }
    return rc;
  }
  if (x->nsend > 0) {
    sk_arg a[] = {sk_arg_view("buf", x->sbuf), sk_arg_view_ro("sl", x->slid),
                  sk_arg_view_ro("v", v)};
    rc = sk_kbody_range(&k_pack, 0, x->nsend, a, NELEM(a), NULL, err, errlen);
    if (rc == 0) rc = sk_view_deep_copy((sk_view *)x->hsbuf, x->sbuf, err, errlen);
  }
  if (sk_dist_plan_start_packed(x->plan, x->hsbuf->data, x->hhalo->data, e2, sizeof e2) <
        0 &&
      rc == 0) {
    snprintf(err, errlen, "%s", e2);
    rc = -1;
  }
  return rc;
}

static int xwait(sk_dist_xchg *x, const sk_view *halo, char *err, size_t errlen) {
  if (x->mode == SK_XCHG_ONESIDED) {
    if (x->nhalo == 0) return 0;
    sk_view lv, part;
    if (sk_remote_local_view(&lv, x->rb[x->turn - 1], err, errlen) < 0) return -1;
    part = lv;
    part.extent[0] = x->nhalo;
    int rc = sk_view_deep_copy((sk_view *)halo, &part, err, errlen);
    sk_view_release(&lv);
    return rc;
  }
  if (sk_dist_plan_wait(x->plan, err, errlen) < 0) return -1;
  if (x->mode == SK_XCHG_STAGED && x->nhalo > 0)
    return sk_view_deep_copy((sk_view *)halo, x->hhalo, err, errlen);
  return 0;
}

int sk_dist_xchg_run(sk_dist_xchg *x, const sk_view *v, const sk_view *halo, char *err,
                     size_t errlen) {
  int rc = xstart(x, v, halo, err, errlen);
  char e2[512];
  if (xwait(x, halo, rc < 0 ? e2 : err, rc < 0 ? sizeof e2 : errlen) < 0 && rc == 0)
    rc = -1;
  return rc;
}

/* -- the components ---------------------------------------------------------- */
int sk_dist_cc_run(sk_dist_xchg *xa, sk_dist_xchg *xb, const sk_dist_ccg *A,
                   const sk_dist_ccg *B, const sk_view *const lab[2], const sk_view *hl,
                   const sk_view *hli, int64_t base, int *which, int64_t *ncomp,
                   char *err, size_t errlen) {
  const int64_t n = lab[0]->extent[0];
  int cur = 0, failed = 0;
  sk_result res;
  sk_arg ia[] = {sk_arg_view("lab", lab[0]), sk_arg_i64("base", base)};
  failed = sk_kbody_range(&k_iota, 0, n, ia, NELEM(ia), NULL, err, errlen) < 0;
  for (;;) {
    const sk_view *c = lab[cur], *nx = lab[cur ^ 1];
    int64_t t[2] = {0, 0};
    char e2[512];
    /* the exchanges run whatever failed here: the other ranks wait on them */
    if (sk_dist_xchg_run(xa, c, hl, failed ? e2 : err, failed ? sizeof e2 : errlen) < 0)
      failed = 1;
    if (xb &&
        sk_dist_xchg_run(xb, c, hli, failed ? e2 : err, failed ? sizeof e2 : errlen) < 0)
      failed = 1;
    if (!failed) {
      sk_arg sa[] = {sk_arg_view_ro("cur", c),    sk_arg_view("nxt", nx),
                     sk_arg_view_ro("hl", hl),    sk_arg_view_ro("ip", A->ip),
                     sk_arg_view_ro("ic", A->ic), sk_arg_view_ro("bp", A->bp),
                     sk_arg_view_ro("bc", A->bc)};
      failed = sk_kbody_range(&k_step, 0, n, sa, NELEM(sa), &res, err, errlen) < 0;
      if (!failed) t[0] = sk_result_i64(&res, 0);
    }
    if (!failed && xb) {
      /* a directed graph's components are weak: the in-arcs too, in place */
      sk_arg sb[] = {sk_arg_view("cur", nx),      sk_arg_view_ro("hl", hli),
                     sk_arg_view_ro("ip", B->ip), sk_arg_view_ro("ic", B->ic),
                     sk_arg_view_ro("bp", B->bp), sk_arg_view_ro("bc", B->bc)};
      failed = sk_kbody_range(&k_step_in, 0, n, sb, NELEM(sb), &res, err, errlen) < 0;
      if (!failed) t[0] += sk_result_i64(&res, 0);
    }
    if (sk_dist_allsum_or_fail_i64(t, 1, failed, err, errlen) < 0) return -1;
    cur ^= 1;
    if (t[0] == 0) break;
  }
  /* the vertices that are their component's label */
  sk_arg ra[] = {sk_arg_view_ro("v", lab[cur]), sk_arg_i64("b", base)};
  int64_t t[2] = {0, 0};
  failed = sk_kbody_range(&k_roots, 0, n, ra, NELEM(ra), &res, err, errlen) < 0;
  if (!failed) t[0] = sk_result_i64(&res, 0);
  if (sk_dist_allsum_or_fail_i64(t, 1, failed, err, errlen) < 0) return -1;
  *which = cur;
  *ncomp = t[0];
  return 0;
}
