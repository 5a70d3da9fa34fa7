/* cg.c: speck.dist's fused CG sweep (cg.h) -- Chronopoulos and Gear's
 * CG, whose one reduction an iteration lets the vector update and the
 * SpMV run in one sweep over the rows:
 *
 *   1. cg_pack forms the u = d r that the other ranks need as the update
 *      will leave it, and the halo exchange starts (the plan's
 *      MPI_Ineighbor_alltoallv);
 *   2. the update (p, s, x, r; r'u, r'r) and the interior block's SpMV
 *      (w = A u, w'u) run in blocks of rows, the update 'reach' rows
 *      ahead of the SpMV (the farthest interior column right of a row),
 *      so the SpMV reads u = d r of rows the update just wrote, from
 *      cache: one pass over the vectors and the matrix instead of two.
 *      On the host a block's SpMV writes w only (by diagonals where the
 *      interior is a stencil's: cg.h's dia), then one launch (cg_upddot)
 *      sums its w'u and updates the rows the next block reads, 64 rows a
 *      launch index in vectorised loops; the update stores u for the
 *      SpMV, or where d is one number (Jacobi of a constant diagonal, no
 *      preconditioner) the bodies form u = dd r where they read it. An
 *      MPI_Test behind each block moves the exchange on (MPI progresses
 *      a nonblocking collective only inside its calls). On a device the
 *      update, then the SpMV with w'u, each over all rows;
 *   3. the exchange completes and the boundary rows add the halo's part
 *      of w and w'u;
 *   4. r'u, w'u and r'r in one MPI_Allreduce.
 *
 * The bodies are kernels/dist/cg.sk. Each launch covers whole rows and
 * no row depends on another of the same launch, so every back end runs
 * them as they are; the blocks are the host's cache blocking (one block
 * on a device).
 */
#include "cg.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "kbodies.h"
#include "kernels/kernels.h"
#include "../sparse/sparse.h"
#include "../../backends/remote/remote.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define F1(name)     R1(name, "float64")

/* -- bodies ------------------------------------------------------------------ */
static const char *const sig_update[] = {"range" F1("d") F1("x") F1("r") F1("p") F1("s")
                                           F1("w") " alpha=float64 beta=float64",
                                         NULL};
static const sk_kbody k_update = {.label = "dist.cg_update",
                                  .body = sk_body_dist_cg_update,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_update,
                                  .reds = "sum:float64 sum:float64"};
static const char *const sig_upddot[] = {
  "range" F1("d") F1("x") F1("r") F1("p") F1("s") F1("w")
    F1("u") " alpha=float64 beta=float64"
            " db=int64 nd=int64 ub=int64 nu=int64",
  NULL};
static const sk_kbody k_upddot = {.label = "dist.cg_upddot",
                                  .body = sk_body_dist_cg_upddot,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_upddot,
                                  .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_upddot1[] = {
  "range" F1("x") F1("r") F1("p") F1("s") F1("w") " dd=float64 alpha=float64 beta=float64"
                                                  " db=int64 nd=int64 ub=int64 nu=int64",
  NULL};
static const sk_kbody k_upddot1 = {.label = "dist.cg_upddot1",
                                   .body = sk_body_dist_cg_upddot1,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_upddot1,
                                   .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_dsame[] = {"range" F1("d") " d0=float64", NULL};
static const sk_kbody k_dsame = {.label = "dist.cg_dsame",
                                 .body = sk_body_dist_cg_dsame,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_dsame,
                                 .reds = "sum:int64"};
static const char *const sig_w[] = {
  "range" R1("ip", "int64") R1("ic", "int32") F1("iv") F1("u") F1("w"), NULL};
static const sk_kbody k_w = {
  .label = "dist.cg_w", .body = sk_body_dist_cg_w, .pattern = SK_FOR, .sigs = sig_w};
static const char *const sig_w16[] = {
  "range" R1("ip", "int32") R1("io", "int16") F1("iv") F1("u") F1("w"), NULL};
static const sk_kbody k_w16 = {.label = "dist.cg_w16",
                               .body = sk_body_dist_cg_w16,
                               .pattern = SK_FOR,
                               .sigs = sig_w16};
static const char *const sig_w16v[] = {"range" R1("ip", "int32") R1("io", "int16")
                                         R1("vcode", "uint8") F1("vtab") F1("u") F1("w"),
                                       NULL};
static const sk_kbody k_w16v = {.label = "dist.cg_w16v",
                                .body = sk_body_dist_cg_w16v,
                                .pattern = SK_FOR,
                                .sigs = sig_w16v};
static const char *const sig_w16v1[] = {"range" R1("ip", "int32") R1("io", "int16")
                                          R1("vcode", "uint8") F1("vtab") F1("r")
                                            F1("w") " dd=float64",
                                        NULL};
static const sk_kbody k_w16v1 = {.label = "dist.cg_w16v1",
                                 .body = sk_body_dist_cg_w16v1,
                                 .pattern = SK_FOR,
                                 .sigs = sig_w16v1};
#define DOV R1("doff", "int64") F1("dval")
static const char *const sig_wdia[] = {
  "range" R1("dc", "uint8") F1("u") F1("w") DOV " rb=int64 re=int64", NULL};
static const sk_kbody k_wdia5 = {.label = "dist.cg_wdia5",
                                 .body = sk_body_dist_cg_wdia5,
                                 .pattern = SK_FOR,
                                 .sigs = sig_wdia};
static const sk_kbody k_wdia7 = {.label = "dist.cg_wdia7",
                                 .body = sk_body_dist_cg_wdia7,
                                 .pattern = SK_FOR,
                                 .sigs = sig_wdia};
static const char *const sig_wdia_1[] = {
  "range" R1("dc", "uint8") F1("r") F1("w") DOV " dd=float64 rb=int64 re=int64", NULL};
static const sk_kbody k_wdia5_1 = {.label = "dist.cg_wdia5_1",
                                   .body = sk_body_dist_cg_wdia5_1,
                                   .pattern = SK_FOR,
                                   .sigs = sig_wdia_1};
static const sk_kbody k_wdia7_1 = {.label = "dist.cg_wdia7_1",
                                   .body = sk_body_dist_cg_wdia7_1,
                                   .pattern = SK_FOR,
                                   .sigs = sig_wdia_1};
static const char *const sig_wdiat[] = {
  "range" R1("dc", "uint8") F1("dtab") F1("u") F1("w") R1("doff", "int64"), NULL};
static const sk_kbody k_wdia5t = {.label = "dist.cg_wdia5t",
                                  .body = sk_body_dist_cg_wdia5t,
                                  .pattern = SK_FOR,
                                  .sigs = sig_wdiat};
static const sk_kbody k_wdia7t = {.label = "dist.cg_wdia7t",
                                  .body = sk_body_dist_cg_wdia7t,
                                  .pattern = SK_FOR,
                                  .sigs = sig_wdiat};
static const char *const sig_spmv_team[] = {"team" R1("ip", "int64") R1("ic", "int32")
                                              F1("iv") F1("d") F1("r") F1("w") " n=int64",
                                            NULL};
static const sk_kbody k_spmv_team = {.label = "dist.cg_spmv_team",
                                     .body = sk_body_dist_cg_spmv_team,
                                     .pattern = SK_REDUCE,
                                     .red_op = SK_RED_SUM,
                                     .sigs = sig_spmv_team};
static const char *const sig_spmv16_team[] = {
  "team" R1("ip", "int32") R1("io", "int16") F1("iv") F1("d") F1("r") F1("w") " n=int64",
  NULL};
static const sk_kbody k_spmv16_team = {.label = "dist.cg_spmv16_team",
                                       .body = sk_body_dist_cg_spmv16_team,
                                       .pattern = SK_REDUCE,
                                       .red_op = SK_RED_SUM,
                                       .sigs = sig_spmv16_team};
static const char *const sig_spmv16v_team[] = {"team" R1("ip", "int32") R1("io", "int16")
                                                 R1("vcode", "uint8") F1("vtab") F1("d")
                                                   F1("r") F1("w") " n=int64",
                                               NULL};
static const sk_kbody k_spmv16v_team = {.label = "dist.cg_spmv16v_team",
                                        .body = sk_body_dist_cg_spmv16v_team,
                                        .pattern = SK_REDUCE,
                                        .red_op = SK_RED_SUM,
                                        .sigs = sig_spmv16v_team};
static const char *const sig_pack[] = {"range" R1("sl", "int64") F1("d") F1("r") F1("w")
                                         F1("s") F1("buf") " alpha=float64 beta=float64",
                                       NULL};
static const sk_kbody k_pack = {.label = "dist.cg_pack",
                                .body = sk_body_dist_cg_pack,
                                .pattern = SK_FOR,
                                .sigs = sig_pack};
static const sk_kbody k_put = {
  .label = "dist.cg_put", .body = sk_body_dist_cg_put, .pattern = SK_FOR};
static const char *const sig_halo[] = {"range" R1("br", "int64") R1("bp", "int64")
                                         R1("bc", "int32") F1("bv") F1("hu") F1("d")
                                           F1("r") F1("w"),
                                       NULL};
static const sk_kbody k_halo = {.label = "dist.cg_halo",
                                .body = sk_body_dist_cg_halo,
                                .pattern = SK_REDUCE,
                                .red_op = SK_RED_SUM,
                                .sigs = sig_halo};
static const char *const sig_bcount[] = {"range" R1("bp", "int64"), NULL};
static const sk_kbody k_bcount = {.label = "dist.cg_bcount",
                                  .body = sk_body_dist_cg_bcount,
                                  .pattern = SK_REDUCE,
                                  .sigs = sig_bcount,
                                  .reds = "sum:int64"};
static const char *const sig_brows[] = {"range" R1("bp", "int64") R1("br", "int64"),
                                        NULL};
static const sk_kbody k_brows = {.label = "dist.cg_brows",
                                 .body = sk_body_dist_cg_brows,
                                 .pattern = SK_SCAN,
                                 .sigs = sig_brows,
                                 .reds = "int64"};

const sk_kbody *const sk_dist_bodies[] = {
  &k_update,    &k_upddot,      &k_upddot1,      &k_dsame, &k_w,       &k_w16,
  &k_w16v,      &k_w16v1,       &k_wdia5,        &k_wdia7, &k_wdia5_1, &k_wdia7_1,
  &k_wdia5t,    &k_wdia7t,      &k_pack,         &k_halo,  &k_bcount,  &k_brows,
  &k_spmv_team, &k_spmv16_team, &k_spmv16v_team, NULL};

/* -- set-up ------------------------------------------------------------------ */
/* rows a block of the sweep: at least the reach (a block's SpMV then needs
 * the update of at most two blocks ahead), tens of thousands of rows a
 * thread: on this project's 2-core host, one thread a rank, 32768 rows
 * a block took 0.85-0.95 of 16384's time and 0.8 of 8192's on both
 * Poisson matrices (longer streams for the prefetchers, fewer launches);
 * 131072 timed as 32768 or slower; a device runs each pass over all rows
 * at once */
#define SK_DIST_CG_MINBLOCK 32768

/* the interior by diagonals (cg.h's dia; host views, the value codes
 * built): kernels/sparse/dia.c's form of the interior block (its offsets,
 * at most 7 here, its codes with empty diagonals after them up to the
 * body's width); none (c->dia 0) where the block has no such form or no
 * row lies whole in the rank. Costs about a third of an SpMV, once a
 * matrix. */
static int dia_build(sk_dist_cg *c, int64_t nnz, char *err, size_t errlen) {
  const int64_t n = c->n;
  if (n < 1 || c->lo >= c->hi) return 0;
  const sk_csr A = {.rowptr = c->ip,
                    .colidx = c->ic,
                    .values = c->iv,
                    .nrows = n,
                    .ncols = n,
                    .nnz = nnz};
  sk_dia d;
  if (sk_dia_build(&A, &c->vd, 5, &d, err, errlen) < 0) return -1;
  if (d.ok && d.width == 6) { /* the body of width 7 */
    sk_dia_release(&d);
    if (sk_dia_build(&A, &c->vd, 7, &d, err, errlen) < 0) return -1;
  }
  if (!d.ok || d.width > 7) {
    sk_dia_release(&d);
    return 0;
  }
  c->dc = d.code;
  c->dtab = d.tab;
  /* the offsets, and one value a diagonal (a stencil of constant
   * coefficients: the group bodies; else every value from dtab) */
  const uint32_t all = ((uint32_t)1 << d.nd) - 1;
  c->duni = (d.uni & all) == all;
  int64_t seven = 7;
  if (sk_view_create(&c->doffv, "cg_dia_offsets", SK_I64, 1, &seven, SK_RIGHT,
                     SK_SPACE_HOST, 0, NULL, err, errlen) < 0 ||
      sk_view_create(&c->dvalv, "cg_dia_values", SK_F64, 1, &seven, SK_RIGHT,
                     SK_SPACE_HOST, 0, NULL, err, errlen) < 0) {
    sk_view_release(&d.dv);
    return -1;
  }
  for (int q = 0; q < 7; q++) {
    ((int64_t *)c->doffv.data)[q] = q < d.nd ? d.off[q] : 0;
    ((double *)c->dvalv.data)[q] =
      c->duni && q < d.nd ? ((const double *)d.dv.data)[q] : 0.0;
  }
  sk_view_release(&d.dv);
  c->dia = d.width;
  return 0;
}

int sk_dist_cg_init(sk_dist_cg *c, sk_dist_plan *plan, const sk_view *const v[7],
                    int stage, int nodia, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  c->plan = plan;
  c->ip = v[0], c->ic = v[1], c->iv = v[2], c->bp = v[3], c->bc = v[4], c->bv = v[5];
  c->hu = v[6];
  c->n = c->ip->extent[0] - 1;
  sk_result res;
  /* the compact index where it fits (kernels/sparse/csr16.c), and how far
   * right of its diagonal the interior block reaches: the index kept with
   * the matrix (sparse.spmv's, which dist.spmv and the solvers' residuals
   * then find made, not built inside a solve), else one of its own */
  if (sk_csr16_get(c->ip, c->ic, SK_CSR16_USES, &c->c16, err, errlen) < 0) return -1;
  if (!c->c16.ok && sk_csr16_build(c->ip, c->ic, &c->c16, err, errlen) < 0) return -1;
  c->reach = c->c16.right;
  /* and the interior values' codes where they have few distinct ones (kept
   * alike) */
  if (c->c16.ok && (sk_vdict_get(c->iv, SK_CSR16_USES, &c->vd, err, errlen) < 0 ||
                    (!c->vd.ok && sk_vdict_build(c->iv, &c->vd, err, errlen) < 0))) {
    sk_dist_cg_free(c);
    return -1;
  }
  int64_t nnz = 0;
  if (sk_sp_get_i64(c->ip, c->n, &nnz, err, errlen) < 0) {
    sk_dist_cg_free(c);
    return -1;
  }
  sk_arg ba[] = {sk_arg_view("bp", c->bp)};
  if (sk_kbody_range(&k_bcount, 0, c->n, ba, NELEM(ba), &res, err, errlen) < 0) {
    sk_dist_cg_free(c);
    return -1;
  }
  c->nbr = sk_result_i64(&res, 0);
  int64_t one = 1, nbr = c->nbr > 0 ? c->nbr : 1, ns = plan->nsend > 0 ? plan->nsend : 1;
  c->stage = stage || !sk_space_host_accessible(c->iv->space);
  if (sk_view_create(&c->br, "boundary_rows", SK_I64, 1, &nbr, SK_RIGHT, c->iv->space, 0,
                     NULL, err, errlen) < 0 ||
      sk_view_create(&c->sbuf, "halo_send", SK_F64, 1, &ns, SK_RIGHT, c->iv->space, 0,
                     NULL, err, errlen) < 0 ||
      sk_view_create(&c->slid, "halo_send_ids", SK_I64, 1, plan->nsend > 0 ? &ns : &one,
                     SK_RIGHT, SK_SPACE_HOST, 0, plan->slid, err, errlen) < 0) {
    sk_dist_cg_free(c);
    return -1;
  }
  if (c->stage) {
    /* the send list beside the matrix, host buffers for the exchange */
    sk_view hs = c->slid;
    memset(&c->slid, 0, sizeof c->slid);
    int64_t nh = c->hu->extent[0];
    int rc = sk_view_create(&c->slid, "halo_send_ids", SK_I64, 1, &hs.extent[0], SK_RIGHT,
                            c->iv->space, 0, NULL, err, errlen);
    if (rc == 0) rc = sk_view_deep_copy(&c->slid, &hs, err, errlen);
    sk_view_release(&hs);
    if (rc == 0)
      rc = sk_view_create(&c->hsbuf, "halo_send_host", SK_F64, 1, &ns, SK_RIGHT,
                          SK_SPACE_HOST, 0, NULL, err, errlen);
    if (rc == 0)
      rc = sk_view_create(&c->hhu, "halo_host", SK_F64, 1, &nh, SK_RIGHT, SK_SPACE_HOST,
                          0, NULL, err, errlen);
    if (rc < 0) {
      sk_dist_cg_free(c);
      return -1;
    }
  }
  sk_arg bra[] = {sk_arg_view("bp", c->bp), sk_arg_view("br", &c->br)};
  if (c->nbr > 0 &&
      sk_kbody_range(&k_brows, 0, c->n, bra, NELEM(bra), &res, err, errlen) < 0) {
    sk_dist_cg_free(c);
    return -1;
  }
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) {
    sk_dist_cg_free(c);
    return -1;
  }
  int64_t nth = be->concurrency ? be->concurrency() : 1;
  c->block = SK_DIST_CG_MINBLOCK * (nth > 1 ? nth : 1);
  if (c->reach > c->block) c->block = c->reach;
  if (!sk_sp_host(be)) {
    /* a device: one pass over all rows; the SpMV a row a team member,
     * vector lanes for about a quarter of a row's entries (the library's
     * GPU SpMV's shape, kernels/sparse/spmv.c), 16 rows a team */
    c->block = c->n;
    sk_team_limits lim;
    be->team_limits(&lim);
    double avg = c->n > 0 ? (double)nnz / (double)c->n : 1;
    int v = 1;
    while (v < 32 && 4 * v <= avg) v *= 2;
    if (v > lim.vector_length_max) v = lim.vector_length_max;
    int t = 16;
    if (t > lim.team_size_max) t = lim.team_size_max;
    c->team_size = t < 1 ? 1 : t;
    c->vector_length = v < 1 ? 1 : v;
  } else {
    /* the host: the rows whose columns all lie in the rank (lo <= i < hi)
     * apart in each block; by diagonals where they fit */
    c->lo = c->c16.left < c->n ? c->c16.left : c->n;
    c->hi = c->n - c->c16.right > c->lo ? c->n - c->c16.right : c->lo;
    /* and u = d r stored by the update for the SpMV */
    int64_t nu = c->n > 0 ? c->n : 1;
    if (sk_view_create(&c->u, "cg_u", SK_F64, 1, &nu, SK_RIGHT, c->iv->space, 0, NULL,
                       err, errlen) < 0) {
      sk_dist_cg_free(c);
      return -1;
    }
  }
  if (c->team_size == 0 && c->c16.ok && c->vd.ok && c->iv->dtype == SK_F64 && !nodia &&
      dia_build(c, nnz, err, errlen) < 0) {
    sk_dist_cg_free(c);
    return -1;
  }
  return 0;
}

void sk_dist_cg_onesided(sk_dist_cg *c, const sk_view *rb0, const sk_view *rb1,
                         const sk_view *pe, const sk_view *off) {
  c->onesided = 1;
  c->turn = 0;
  c->rb[0] = rb0, c->rb[1] = rb1, c->pe = pe, c->off = off;
}

int64_t sk_dist_cg_bytes(const sk_dist_cg *c) {
  const sk_view *v[] = {&c->br,     &c->sbuf,  &c->c16.rowptr, &c->c16.off, &c->vd.code,
                        &c->vd.tab, &c->hsbuf, &c->hhu,        &c->dc,      &c->dtab,
                        &c->u,      &c->doffv, &c->dvalv};
  int64_t b = 0;
  for (int i = 0; i < NELEM(v); i++)
    if (v[i]->alloc) b += (int64_t)v[i]->alloc->bytes;
  return b;
}

void sk_dist_cg_free(sk_dist_cg *c) {
  sk_view_release(&c->br);
  sk_view_release(&c->sbuf);
  sk_view_release(&c->slid);
  sk_csr16_release(&c->c16);
  sk_vdict_release(&c->vd);
  sk_view_release(&c->hsbuf);
  sk_view_release(&c->hhu);
  sk_view_release(&c->dc);
  sk_view_release(&c->dtab);
  sk_view_release(&c->u);
  sk_view_release(&c->doffv);
  sk_view_release(&c->dvalv);
  memset(c, 0, sizeof *c);
}

/* -- the sweep --------------------------------------------------------------- */
/* a device's sweep: the update over all rows, then the SpMV (a row a team
 * member) with w'u; g, rr, dl its sums */
static int sweep_device(sk_dist_cg *c, const sk_view *const v[6], double alpha,
                        double beta, double *g, double *rr, double *dl, char *err,
                        size_t errlen) {
  sk_arg ua[] = {sk_arg_view("d", v[0]),     sk_arg_view("x", v[1]),
                 sk_arg_view("r", v[2]),     sk_arg_view("p", v[3]),
                 sk_arg_view("s", v[4]),     sk_arg_view("w", v[5]),
                 sk_arg_f64("alpha", alpha), sk_arg_f64("beta", beta)};
  const int lean = c->c16.ok, coded = lean && c->vd.ok;
  sk_arg ta[9];
  int ns = 0;
  ta[ns++] = lean ? sk_arg_view_ro("ip", &c->c16.rowptr) : sk_arg_view_ro("ip", c->ip);
  ta[ns++] = lean ? sk_arg_view_ro("io", &c->c16.off) : sk_arg_view_ro("ic", c->ic);
  if (coded) {
    ta[ns++] = sk_arg_view_ro("vcode", &c->vd.code);
    ta[ns++] = sk_arg_view_ro("vtab", &c->vd.tab);
  } else {
    ta[ns++] = sk_arg_view_ro("iv", c->iv);
  }
  ta[ns++] = sk_arg_view("d", v[0]);
  ta[ns++] = sk_arg_view("r", v[2]);
  ta[ns++] = sk_arg_view("w", v[5]);
  ta[ns++] = sk_arg_i64("n", c->n);
  sk_result res;
  if (c->n <= 0) return 0;
  if (sk_kbody_range(&k_update, 0, c->n, ua, NELEM(ua), &res, err, errlen) < 0) return -1;
  *g += sk_result_f64(&res, 0);
  *rr += sk_result_f64(&res, 1);
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.team_size = c->team_size;
  p.vector_length = c->vector_length;
  p.league_size = (c->n + c->team_size - 1) / c->team_size;
  const sk_kbody *tk = coded ? &k_spmv16v_team : lean ? &k_spmv16_team : &k_spmv_team;
  if (sk_kbody_launch(tk, &p, ta, ns, &res, err, errlen) < 0) return -1;
  *dl += sk_result_f64(&res, 0);
  return 0;
}

/* the host's sweep: its vectors, and u = d r stored (d1 0) or formed as
 * dd * r (d1 1: every entry of d the number dd) */
typedef struct hsweep {
  const sk_dist_cg *c;
  const sk_view *const *v;
  int d1;
  double dd;
} hsweep;

/* the host's w = A u of interior rows [b, e) by the index (none where
 * e <= b) */
static int wpart(const hsweep *h, int64_t b, int64_t e, char *err, size_t errlen) {
  if (e <= b) return 0;
  const sk_dist_cg *c = h->c;
  const int lean = c->c16.ok, coded = lean && c->vd.ok;
  sk_arg a[7];
  int na = 0;
  a[na++] = lean ? sk_arg_view_ro("ip", &c->c16.rowptr) : sk_arg_view_ro("ip", c->ip);
  a[na++] = lean ? sk_arg_view_ro("io", &c->c16.off) : sk_arg_view_ro("ic", c->ic);
  if (coded) {
    a[na++] = sk_arg_view_ro("vcode", &c->vd.code);
    a[na++] = sk_arg_view_ro("vtab", &c->vd.tab);
  } else {
    a[na++] = sk_arg_view_ro("iv", c->iv);
  }
  a[na++] = sk_arg_view("w", h->v[5]);
  if (h->d1) { /* (only with the codes: sk_dist_cg_sweep) */
    a[na++] = sk_arg_view_ro("r", h->v[2]);
    a[na++] = sk_arg_f64("dd", h->dd);
    return sk_kbody_range(&k_w16v1, b, e, a, na, NULL, err, errlen);
  }
  a[na++] = sk_arg_view_ro("u", &c->u);
  return sk_kbody_range(coded  ? &k_w16v
                        : lean ? &k_w16
                               : &k_w,
                        b, e, a, na, NULL, err, errlen);
}

/* the same by diagonals (rows lo <= i < hi): groups of 64 rows with one
 * value a diagonal, else a row a launch index by the table */
static int wdia(const hsweep *h, int64_t b, int64_t e, char *err, size_t errlen) {
  if (e <= b) return 0;
  const sk_dist_cg *c = h->c;
  const int w7 = c->dia == 7;
  sk_arg a[8];
  int na = 0;
  a[na++] = sk_arg_view_ro("dc", &c->dc);
  a[na++] = h->d1 ? sk_arg_view_ro("r", h->v[2]) : sk_arg_view_ro("u", &c->u);
  a[na++] = sk_arg_view("w", h->v[5]);
  a[na++] = sk_arg_view_ro("doff", &c->doffv);
  if (!c->duni) {
    a[na++] = sk_arg_view_ro("dtab", &c->dtab);
    return sk_kbody_range(w7 ? &k_wdia7t : &k_wdia5t, b, e, a, na, NULL, err, errlen);
  }
  a[na++] = sk_arg_view_ro("dval", &c->dvalv);
  a[na++] = sk_arg_i64("rb", b);
  a[na++] = sk_arg_i64("re", e);
  if (h->d1) a[na++] = sk_arg_f64("dd", h->dd);
  const sk_kbody *kb = h->d1 ? (w7 ? &k_wdia7_1 : &k_wdia5_1) : w7 ? &k_wdia7 : &k_wdia5;
  return sk_kbody_range(kb, b >> 6, ((e - 1) >> 6) + 1, a, na, NULL, err, errlen);
}

/* the host's update of rows [ub, ub + nu) and w'u of rows [db, db + nd)
 * (cg_upddot); g, dl, rr its sums */
static int upddot(const hsweep *h, double alpha, double beta, int64_t db, int64_t nd,
                  int64_t ub, int64_t nu, double *g, double *dl, double *rr, char *err,
                  size_t errlen) {
  const int64_t m = nd > nu ? nd : nu;
  if (m <= 0) return 0;
  const sk_view *const *v = h->v;
  sk_arg a[14];
  int na = 0;
  a[na++] = sk_arg_view("x", v[1]);
  a[na++] = sk_arg_view("r", v[2]);
  a[na++] = sk_arg_view("p", v[3]);
  a[na++] = sk_arg_view("s", v[4]);
  a[na++] = sk_arg_view("w", v[5]);
  a[na++] = sk_arg_f64("alpha", alpha);
  a[na++] = sk_arg_f64("beta", beta);
  a[na++] = sk_arg_i64("db", db);
  a[na++] = sk_arg_i64("nd", nd);
  a[na++] = sk_arg_i64("ub", ub);
  a[na++] = sk_arg_i64("nu", nu);
  if (h->d1) {
    a[na++] = sk_arg_f64("dd", h->dd);
  } else {
    a[na++] = sk_arg_view("d", v[0]);
    a[na++] = sk_arg_view("u", (sk_view *)&h->c->u);
  }
  sk_result res;
  if (sk_kbody_range(h->d1 ? &k_upddot1 : &k_upddot, 0, (m + 63) >> 6, a, na, &res, err,
                     errlen) < 0)
    return -1;
  *g += sk_result_f64(&res, 0);
  *dl += sk_result_f64(&res, 1);
  *rr += sk_result_f64(&res, 2);
  return 0;
}

/* whether every entry of d is the number d(0) (c->d1, c->dd), looked at
 * again for a solve's first sweep (alpha = beta = 0) and for another d:
 * then u = dd r is formed where it is read, not stored and loaded (the
 * diagonals by one value a diagonal, the index with its codes only) */
static int d_once(sk_dist_cg *c, const sk_view *d, double alpha, double beta, char *err,
                  size_t errlen) {
  if (!c->dia || !c->duni || !c->c16.ok || !c->vd.ok) {
    c->d1 = 0;
    return 0;
  }
  if (!(alpha == 0 && beta == 0) && d->data == c->dseen) return 0;
  c->dseen = d->data;
  c->dd = ((const double *)d->data)[0];
  sk_arg a[] = {sk_arg_view_ro("d", d), sk_arg_f64("d0", c->dd)};
  sk_result res;
  if (sk_kbody_range(&k_dsame, 0, c->n, a, NELEM(a), &res, err, errlen) < 0) return -1;
  c->d1 = sk_result_i64(&res, 0) == 0;
  return 0;
}

/* the host's interior sweep, block by block: the update runs 'reach'
 * rows ahead of the SpMV (w only), and each block's w'u goes with the
 * update of the rows the next block needs (one reduction, the same for
 * the index and the diagonals); g, rr, dl its sums */
static int sweep(sk_dist_cg *c, const sk_view *const v[6], double alpha, double beta,
                 double *g, double *rr, double *dl, char *err, size_t errlen) {
  if (c->team_size > 0)
    return sweep_device(c, v, alpha, beta, g, rr, dl, err, errlen) < 0 ||
               (!c->onesided && sk_dist_plan_progress(c->plan, err, errlen) < 0)
             ? -1
             : 0;
  const int64_t n = c->n, B = c->block, R = c->reach;
  if (n <= 0) return 0;
  if (d_once(c, v[0], alpha, beta, err, errlen) < 0) return -1;
  const hsweep h = {.c = c, .v = v, .d1 = c->d1, .dd = c->dd};
  int64_t done = (B < n ? B : n) + R < n ? (B < n ? B : n) + R : n;
  if (upddot(&h, alpha, beta, 0, 0, 0, done, g, dl, rr, err, errlen) < 0) return -1;
  for (int64_t b0 = 0; b0 < n; b0 += B) {
    const int64_t b1 = b0 + B < n ? b0 + B : n;
    if (c->dia) {
      /* the rows below lo and from hi on by the index, between them by
       * diagonals */
      const int64_t m0 = b0 > c->lo ? b0 : c->lo < b1 ? c->lo : b1;
      const int64_t m1 = b1 < c->hi ? b1 : c->hi > m0 ? c->hi : m0;
      if (wpart(&h, b0, m0, err, errlen) < 0 || wdia(&h, m0, m1, err, errlen) < 0 ||
          wpart(&h, m1, b1, err, errlen) < 0)
        return -1;
    } else if (wpart(&h, b0, b1, err, errlen) < 0) {
      return -1;
    }
    /* this block's w'u, and the update of the rows the next one reads */
    const int64_t nb1 = b1 + B < n ? b1 + B : n;
    const int64_t need = nb1 + R < n ? nb1 + R : n;
    const int64_t nu = need > done ? need - done : 0;
    if (upddot(&h, alpha, beta, b0, b1 - b0, done, nu, g, dl, rr, err, errlen) < 0)
      return -1;
    done += nu;
    /* the halo exchange moved on behind each block (MPI progresses it
     * only inside its calls): done by the end, the wait is the other
     * rank's lateness alone */
    if (!c->onesided && sk_dist_plan_progress(c->plan, err, errlen) < 0) return -1;
  }
  return 0;
}

int sk_dist_cg_sweep(sk_dist_cg *c, const sk_view *const v[6], double alpha, double beta,
                     double out[3], char *err, size_t errlen) {
  sk_dist_plan *pl = c->plan;
  double t0 = sk_dist_wtime(), t1;
  if (pl->nsend > 0) {
    sk_arg pa[] = {sk_arg_view("sl", &c->slid), sk_arg_view("d", v[0]),
                   sk_arg_view("r", v[2]),      sk_arg_view("w", v[5]),
                   sk_arg_view("s", v[4]),      sk_arg_view("buf", &c->sbuf),
                   sk_arg_f64("alpha", alpha),  sk_arg_f64("beta", beta)};
    if (sk_kbody_range(&k_pack, 0, pl->nsend, pa, NELEM(pa), NULL, err, errlen) < 0)
      return -1;
  }
  if (c->onesided) {
    /* one-sided: the packed values stored into the receivers' buffer */
    if (pl->nsend > 0) {
      sk_arg ua[] = {sk_arg_view("rb", c->rb[c->turn]), sk_arg_view("pe", c->pe),
                     sk_arg_view("off", c->off), sk_arg_view("buf", &c->sbuf)};
      if (sk_kbody_range(&k_put, 0, pl->nsend, ua, NELEM(ua), NULL, err, errlen) < 0)
        return -1;
    }
  } else {
    /* staged: the packed values to the host, the halo arrives there */
    if (c->stage && pl->nsend > 0 &&
        sk_view_deep_copy(&c->hsbuf, &c->sbuf, err, errlen) < 0)
      return -1;
    if (sk_dist_plan_start_packed(pl, c->stage ? c->hsbuf.data : c->sbuf.data,
                                  c->stage ? c->hhu.data : c->hu->data, err, errlen) < 0)
      return -1;
  }
  t1 = sk_dist_wtime();
  c->phase[0] += t1 - t0, t0 = t1;
  double g = 0, rr = 0, dl = 0;
  int rc = sweep(c, v, alpha, beta, &g, &rr, &dl, err, errlen);
  t1 = sk_dist_wtime();
  c->phase[1] += t1 - t0, t0 = t1;
  /* the exchange completes whatever happened: the other ranks wait on it */
  char werr[512];
  if ((c->onesided ? sk_remote_fence(werr, sizeof werr)
                   : sk_dist_plan_wait(pl, werr, sizeof werr)) < 0 &&
      rc == 0) {
    snprintf(err, errlen, "%s", werr);
    return -1;
  }
  if (rc < 0) return -1;
  t1 = sk_dist_wtime();
  c->phase[2] += t1 - t0, t0 = t1;
  if (c->onesided && pl->nhalo > 0) {
    /* this rank's part of the buffer (its first nhalo values) into the halo */
    sk_view lv, part;
    if (sk_remote_local_view(&lv, c->rb[c->turn], err, errlen) < 0) return -1;
    part = lv;
    part.extent[0] = pl->nhalo;
    int cr = sk_view_deep_copy((sk_view *)c->hu, &part, err, errlen);
    sk_view_release(&lv);
    if (cr < 0) return -1;
  }
  if (c->onesided) c->turn ^= 1;
  if (!c->onesided && c->stage && pl->nhalo > 0 &&
      sk_view_deep_copy((sk_view *)c->hu, &c->hhu, err, errlen) < 0)
    return -1;
  if (c->nbr > 0) {
    sk_arg ha[] = {sk_arg_view("br", &c->br), sk_arg_view("bp", c->bp),
                   sk_arg_view("bc", c->bc),  sk_arg_view("bv", c->bv),
                   sk_arg_view("hu", c->hu),  sk_arg_view("d", v[0]),
                   sk_arg_view("r", v[2]),    sk_arg_view("w", v[5])};
    sk_result res;
    if (sk_kbody_range(&k_halo, 0, c->nbr, ha, NELEM(ha), &res, err, errlen) < 0)
      return -1;
    dl += sk_result_f64(&res, 0);
  }
  t1 = sk_dist_wtime();
  c->phase[3] += t1 - t0, t0 = t1;
  out[0] = g, out[1] = dl, out[2] = rr;
  int ar = sk_dist_allreduce_sum_f64(out, 3, err, errlen);
  c->phase[4] += sk_dist_wtime() - t0;
  c->sweeps++;
  return ar;
}
