/* cgdev.c: CG without a preconditioner with its scalars on the device
 * (issue 31): Chronopoulos and Gear's form as krylov.c's run_cg, each
 * iteration three launches -- the update of p, s, x and r (cgd_step),
 * w = A r over the compact index with the partial sums of r'r and w'r a
 * team (cgd_spmv), one team folding them in order and forming the next
 * alpha and beta or a stop code (cgd_fold) -- queued in batches of up to
 * SK_CGD_BATCH iterations with one host read a batch (the stop code, the
 * iterations done, r'r after each). Once a stop code is set the rest of
 * the batch does nothing, so the iterations, the history and x are those
 * of the host loop; only the dots' summation order differs. krylov.c
 * takes it on a device for a float64 matrix with a compact index
 * (kernels/sparse/csr16.c) and no preconditioner.
 */
#include <math.h>
#include <string.h>

#include "core/err.h"
#include "solve.h"
#include "kbodies.h"

static const char *const sig_init[] = {
  "range" R1("sc", "float64") " alpha=float64 gamma=float64 it=int64", NULL};
static const sk_kbody k_init = {.label = "solve.cgd_init",
                                .body = sk_body_solve_cgd_init,
                                .pattern = SK_FOR,
                                .sigs = sig_init};
static const char *const sig_step[] = {
  "range" R1("rv", "float64") R1("w", "float64") R1("p", "float64") R1("s", "float64")
    R1("x", "float64") R1("sc", "float64"),
  NULL};
static const sk_kbody k_step = {.label = "solve.cgd_step",
                                .body = sk_body_solve_cgd_step,
                                .pattern = SK_FOR,
                                .sigs = sig_step};
static const char *const sig_spmv[] = {
  "team" R1("rowptr", "int32") R1("off", "int16") R1("values", "float64") R1("rv", "float64")
    R1("w", "float64") R1("part", "float64") R1("sc", "float64") " rpt=int64",
  NULL};
static const sk_kbody k_spmv = {.label = "solve.cgd_spmv",
                                .body = sk_body_solve_cgd_spmv,
                                .pattern = SK_FOR,
                                .sigs = sig_spmv};
static const char *const sig_fold[] = {
  "team" R1("part", "float64") R1("sc", "float64")
  " np=int64 hb=int64 maxiter=int64 stop=float64",
  NULL};
static const sk_kbody k_fold = {.label = "solve.cgd_fold",
                                .body = sk_body_solve_cgd_fold,
                                .pattern = SK_FOR,
                                .sigs = sig_fold};
const sk_kbody *const sk_cgd_bodies[] = {&k_init, &k_step, &k_spmv, &k_fold, NULL};

/* the SpMV's team shape (spmv.c's for a device: lanes for about a quarter
 * of a row, 16 members) and rows a team: enough teams to fill a device,
 * few enough partials for one team to fold them quickly */
static void shape(const sk_backend *be, int64_t n, double avg, int *T, int *V, int64_t *rpt) {
  sk_team_limits lim;
  be->team_limits(&lim);
  int v = 1, t = sk_sp_host(be) ? 1 : 16;
  if (!sk_sp_host(be))
    while (v < 32 && 4 * v <= avg) v *= 2;
  if (v > lim.vector_length_max) v = lim.vector_length_max;
  if (t > lim.team_size_max) t = lim.team_size_max;
  if (t < 1) t = 1;
  *T = t, *V = v;
  /* 64 rows a member: 2,048 teams for 2^21 rows, about one wave of an
   * H200, whose partials a team of 1,024 threads folds in two loads each
   * (a warp folding 8,192 took 160 us an iteration: its loads one at a
   * time) */
  *rpt = sk_sp_host(be) ? (n + 63) / 64 : 64 * (int64_t)t;
  if (*rpt < 1) *rpt = 1;
}

int sk_cgd_open(sk_cgd *g, const sk_backend *be, int64_t n, double avg, int space, char *err,
                size_t errlen) {
  memset(g, 0, sizeof *g);
  g->be = be;
  shape(be, n, avg, &g->T, &g->V, &g->rpt);
  g->np = n > 0 ? (n + g->rpt - 1) / g->rpt : 1;
  if (sk_sp_view(&g->sc, "cg_state", SK_F64, 8 + SK_CGD_BATCH, space, 1, err, errlen) < 0 ||
      sk_sp_view(&g->part, "cg_partials", SK_F64, 2 * g->np, space, 1, err, errlen) < 0) {
    sk_cgd_close(g);
    return -1;
  }
  return 0;
}

void sk_cgd_close(sk_cgd *g) {
  sk_view_release(&g->sc);
  sk_view_release(&g->part);
  memset(g, 0, sizeof *g);
}

int sk_cgd_start(sk_cgd *g, double alpha, double gamma, int64_t it, char *err,
                 size_t errlen) {
  sk_arg a[] = {sk_arg_view("sc", &g->sc), sk_arg_f64("alpha", alpha),
                sk_arg_f64("gamma", gamma), sk_arg_i64("it", it)};
  return sk_solve_range(&k_init, 0, 1, a, NELEM(a), NULL, err, errlen);
}

int sk_cgd_batch(sk_cgd *g, int64_t nb, const sk_csr16 *c, const sk_view *values,
                 const sk_view *rv, const sk_view *w, const sk_view *p, const sk_view *s,
                 const sk_view *x, double stop, int64_t maxiter, sk_cgd_out *o, char *err,
                 size_t errlen) {
  int64_t n = rv->extent[0];
  if (nb > SK_CGD_BATCH) nb = SK_CGD_BATCH;
  sk_arg as[] = {sk_arg_view("rv", rv), sk_arg_view("w", w), sk_arg_view("p", p),
                 sk_arg_view("s", s),   sk_arg_view("x", x), sk_arg_view("sc", &g->sc)};
  sk_arg am[] = {sk_arg_view_ro("rowptr", &c->rowptr), sk_arg_view_ro("off", &c->off),
                 sk_arg_view("values", values),         sk_arg_view("rv", rv),
                 sk_arg_view("w", w),                   sk_arg_view("part", &g->part),
                 sk_arg_view("sc", &g->sc),             sk_arg_i64("rpt", g->rpt)};
  sk_arg af[] = {sk_arg_view("part", &g->part), sk_arg_view("sc", &g->sc),
                 sk_arg_i64("np", g->np),       sk_arg_i64("hb", SK_CGD_BATCH),
                 sk_arg_i64("maxiter", maxiter), sk_arg_f64("stop", stop)};
  sk_policy pm, pf;
  sk_policy_init(&pm, SK_POL_TEAM);
  pm.league_size = g->np;
  pm.team_size = g->T;
  pm.vector_length = g->V;
  sk_policy_init(&pf, SK_POL_TEAM);
  pf.league_size = 1;
  pf.team_size = pf.vector_length = 1;
  if (!sk_sp_host(g->be)) {
    sk_team_limits lim;
    g->be->team_limits(&lim);
    pf.team_size = lim.team_size_max < 32 ? lim.team_size_max : 32;
    pf.vector_length = lim.vector_length_max < 32 ? lim.vector_length_max : 32;
  }
  for (int64_t b = 0; b < nb; b++)
    if (sk_solve_range(&k_step, 0, n, as, NELEM(as), NULL, err, errlen) < 0 ||
        sk_kbody_launch(&k_spmv, &pm, am, NELEM(am), NULL, err, errlen) < 0 ||
        sk_kbody_launch(&k_fold, &pf, af, NELEM(af), NULL, err, errlen) < 0)
      return -1;
  /* the one read of the batch */
  sk_view h;
  if (sk_sp_host_copy(&g->sc, &h, err, errlen) < 0) return -1;
  const double *sc = (const double *)h.data;
  o->code = (int)sc[0];
  o->bad = sc[5];
  o->it = (int64_t)sc[4];
  for (int q = 0; q < SK_CGD_BATCH; q++) o->rr[q] = sc[8 + q];
  sk_view_release(&h);
  return 0;
}
