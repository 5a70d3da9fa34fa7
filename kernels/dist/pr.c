/* pr.c: speck.dist's PageRank driven from C (pr.h). An iteration, as
 * stdlib/speck/dist_graph.lua had it from Lua:
 *
 *   the shares y = x / out-degree travel to the ranks that read them
 *   (the in-arcs' halo plan, sk_dist_xchg_run);
 *   pr_step: x' = d (the in-neighbours' shares) + d dangling / N + (1 - d) / N,
 *   with the sum of |x' - x|;
 *   pr_contrib: the next shares and the rank of the vertices without
 *   out-arcs (dangling), at once, so the step's sum and the next
 *   iteration's dangling sum share one MPI_Allreduce (with a failure
 *   flag: a rank whose kernel fails still joins it, and every rank stops
 *   with the lowest failing rank's message).
 *
 * The bodies are kernels/dist/graph.sk's pr_contrib and pr_step; the sums
 * are the ones the Lua driver formed, so the ranks are the same.
 */
#include "pr.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "kbodies.h"
#include "kernels/kernels.h"

#define NELEM(a)  ((int)(sizeof(a) / sizeof((a)[0])))
#define F1(name)  " " name "=float64[1]"
#define I1(name)  " " name "=int64[1]"
#define I32(name) " " name "=int32[1]"

static const char *const sig_contrib[] = {"range" F1("x") F1("y") I1("deg"), NULL};
static const sk_kbody k_contrib = {.label = "dist.pr_contrib",
                                   .body = sk_body_dist_pr_contrib,
                                   .pattern = SK_REDUCE,
                                   .red_op = SK_RED_SUM,
                                   .sigs = sig_contrib};
static const char *const sig_step[] = {"range" F1("x") F1("xn") F1("y") F1("hy") I1("ip")
                                         I32("ic") I1("bp")
                                           I32("bc") " dn=float64 dd=float64",
                                       NULL};
static const sk_kbody k_step = {.label = "dist.pr_step",
                                .body = sk_body_dist_pr_step,
                                .pattern = SK_REDUCE,
                                .red_op = SK_RED_SUM,
                                .sigs = sig_step};

const sk_kbody *const sk_dist_pr_bodies[] = {&k_contrib, &k_step, NULL};

static int range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                 double *out, char *err, size_t errlen) {
  *out = 0.0;
  sk_result res;
  if (sk_kbody_range(kb, 0, n, args, nargs, &res, err, errlen) < 0) return -1;
  if (n > 0) *out = sk_result_f64(&res, 0);
  return 0;
}

/* the shares of x into y; *dang the rank without out-arcs here */
static int contrib(const sk_view *x, const sk_view *y, const sk_view *deg, double *dang,
                   char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view_ro("x", x), sk_arg_view("y", y), sk_arg_view_ro("deg", deg)};
  return range(&k_contrib, x->extent[0], a, NELEM(a), dang, err, errlen);
}

int sk_dist_pr_run(sk_dist_xchg *xb, const sk_dist_ccg *B, const sk_view *const x[2],
                   const sk_view *y, const sk_view *hy, const sk_view *deg, int64_t N,
                   double d, double tol, int64_t maxiter, int *which, int64_t *iters,
                   char *err, size_t errlen) {
  int cur = 0;
  double t[3] = {0, 0, 0};
  int failed = contrib(x[0], y, deg, &t[0], err, errlen) < 0;
  if (sk_dist_allsum_or_fail_f64(t, 1, failed, err, errlen) < 0) return -1;
  double dang = t[0];
  int64_t it = 0;
  while (it < maxiter) {
    it++;
    failed = sk_dist_xchg_run(xb, y, hy, err, errlen) < 0;
    double delta = 0.0, next = 0.0;
    if (!failed) {
      sk_arg a[] = {sk_arg_view_ro("x", x[cur]),
                    sk_arg_view("xn", x[cur ^ 1]),
                    sk_arg_view_ro("y", y),
                    sk_arg_view_ro("hy", hy),
                    sk_arg_view_ro("ip", B->ip),
                    sk_arg_view_ro("ic", B->ic),
                    sk_arg_view_ro("bp", B->bp),
                    sk_arg_view_ro("bc", B->bc),
                    sk_arg_f64("dn", d * dang / (double)N + (1.0 - d) / (double)N),
                    sk_arg_f64("dd", d)};
      failed = range(&k_step, x[0]->extent[0], a, NELEM(a), &delta, err, errlen) < 0;
    }
    cur ^= 1;
    /* the next iteration's shares and dangling sum, summed with this one's delta */
    if (!failed) failed = contrib(x[cur], y, deg, &next, err, errlen) < 0;
    t[0] = delta, t[1] = next;
    if (sk_dist_allsum_or_fail_f64(t, 2, failed, err, errlen) < 0) return -1;
    dang = t[1];
    if (t[0] < (double)N * tol) break;
  }
  *which = cur;
  *iters = it;
  return 0;
}
