/* krylov.c: the preconditioned Krylov methods of speck.solve -- CG,
 * BiCGStab and restarted GMRES -- on one interface (solve.h: the operator
 * a CRS matrix or a user body, any preconditioner).
 *
 * Each iteration is a few fused launches and as few host reads as the
 * method allows (a reduction's value is the host's one wait on a GPU):
 *   CG      Chronopoulos and Gear's form: one update launch (p, s = A p,
 *           x, r), the preconditioner, then w = A u fused with r'u, w'u
 *           and r'r (on the host one launch over sparse.spmv's merge-path
 *           runs of rows; on a GPU the SpMV then one reduction): one read
 *           per iteration. sparse.cg is this CG without a
 *           preconditioner (sk_solve_cg_plain).
 *   BiCGStab  right-preconditioned; one read per iteration: rhat'v stays
 *           on the device (chunked partial sums folded in order, read by
 *           the launch that forms s), the read brings t's and s's five
 *           dots and rhat'v together; the next rho and ||r|| follow.
 *   GMRES   right-preconditioned, restarted; Arnoldi by classical
 *           Gram-Schmidt whose dots and ||w||^2 come from one team
 *           reduction (one read); a second pass (DGKS: when the new
 *           vector lost more than 1 - 1/sqrt(2) of its norm) reads again;
 *           Givens rotations on the host.
 * A recurrence residual at the tolerance is checked against the true one
 * (b - A x) before the method stops; if it is not there yet the method
 * continues from the true residual. info: iters, the true relative
 * residual at exit, the reason (0 converged, 1 maxiter, 2 breakdown) and
 * the history of relative residuals (iteration 0 first; the
 * recurrence's, GMRES' estimate).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "solve.h"
#include "kbodies.h"

/* -- bodies ------------------------------------------------------------------ */
#define VEC3(a, b, c) R1(a, "float64") R1(b, "float64") R1(c, "float64")

static const char *const sig_cg_sd[] = {
  "range rowptr=int64[1] colidx=int32[1] values=float64[1]" VEC3("u", "w", "rv")
  " nchunk=int64",
  NULL};
static const sk_kbody k_cg_spmv_dots = {.label = "solve.cg_spmv_dots",
                                        .body = sk_body_solve_cg_spmv_dots,
                                        .prelude = sk_body_sparse_row_split,
                                        .pattern = SK_REDUCE,
                                        .sigs = sig_cg_sd,
                                        .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_cg16_sd[] = {
  "range rowptr=int32[1] off=int16[1] values=float64[1]" VEC3("u", "w", "rv") " nchunk=int64",
  NULL};
static const sk_kbody k_cg16_spmv_dots = {.label = "solve.cg_spmv16_dots",
                                          .body = sk_body_solve_cg_spmv16_dots,
                                          .prelude = sk_body_sparse_row_split,
                                          .pattern = SK_REDUCE,
                                          .sigs = sig_cg16_sd,
                                          .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_cg16v_sd[] = {
  "range rowptr=int32[1] off=int16[1] vcode=uint8[1] vtab=float64[1]" VEC3("u", "w", "rv")
  " nchunk=int64",
  NULL};
static const sk_kbody k_cg16v_spmv_dots = {.label = "solve.cg_spmv16v_dots",
                                           .body = sk_body_solve_cg_spmv16v_dots,
                                           .prelude = sk_body_sparse_row_split,
                                           .pattern = SK_REDUCE,
                                           .sigs = sig_cg16v_sd,
                                           .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_cg_dots[] = {"range" VEC3("rv", "u", "w"), NULL};
static const sk_kbody k_cg_dots = {.label = "solve.cg_dots",
                                   .body = sk_body_solve_cg_dots,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_cg_dots,
                                   .reds = "sum:float64 sum:float64 sum:float64"};
static const char *const sig_cg_step[] = {
  "range" VEC3("u", "w", "p") VEC3("s", "x", "rv") " alpha=float64 beta=float64", NULL};
static const sk_kbody k_cg_step = {.label = "solve.cg_step",
                                   .body = sk_body_solve_cg_step,
                                   .pattern = SK_FOR,
                                   .sigs = sig_cg_step};

static const char *const sig_dot[] = {"range" R1("u", "float64") R1("v", "float64"), NULL};
static const sk_kbody k_dot = {.label = "solve.dot",
                               .body = sk_body_solve_dot,
                               .pattern = SK_REDUCE,
                               .red_op = SK_RED_SUM,
                               .sigs = sig_dot};
static const char *const sig_resid[] = {"range" VEC3("b", "w", "rv"), NULL};
static const sk_kbody k_resid = {.label = "solve.resid",
                                 .body = sk_body_solve_resid,
                                 .pattern = SK_REDUCE,
                                 .red_op = SK_RED_SUM,
                                 .sigs = sig_resid};
static const char *const sig_copy[] = {"range" R1("x", "float64") R1("y", "float64"), NULL};
const sk_kbody sk_solve_k_copy = {.label = "solve.copy",
                                  .body = sk_body_solve_copy,
                                  .pattern = SK_FOR,
                                  .sigs = sig_copy};
static const char *const sig_zero[] = {"range" R1("z", "float64"), NULL};
const sk_kbody sk_solve_k_zero = {.label = "solve.zero",
                                  .body = sk_body_solve_zero,
                                  .pattern = SK_FOR,
                                  .sigs = sig_zero};
static const char *const sig_axpy[] = {
  "range" R1("x", "float64") R1("y", "float64") " a=float64", NULL};
static const sk_kbody k_axpy = {.label = "solve.axpy",
                                .body = sk_body_solve_axpy,
                                .pattern = SK_FOR,
                                .sigs = sig_axpy};

static const char *const sig_bi_p[] = {
  "range" VEC3("p", "rv", "v") " beta=float64 omega=float64", NULL};
static const sk_kbody k_bi_p = {.label = "solve.bicg_p",
                                .body = sk_body_solve_bicg_p,
                                .pattern = SK_FOR,
                                .sigs = sig_bi_p};
static const char *const sig_bi_s[] = {
  "range" R1("rv", "float64") R1("v", "float64") R1("sc", "float64") " rho=float64", NULL};
static const sk_kbody k_bi_s = {.label = "solve.bicg_s",
                                .body = sk_body_solve_bicg_s,
                                .pattern = SK_FOR,
                                .sigs = sig_bi_s};
static const char *const sig_bi_dots[] = {"range" VEC3("t", "rv", "rh") R1("sc", "float64"),
                                          NULL};
static const sk_kbody k_bi_dots = {
  .label = "solve.bicg_dots",
  .body = sk_body_solve_bicg_dots,
  .pattern = SK_REDUCE,
  .sigs = sig_bi_dots,
  .reds = "sum:float64 sum:float64 sum:float64 sum:float64 sum:float64 sum:float64"};
static const char *const sig_bi_up[] = {
  "range" VEC3("x", "ph", "sh") R1("rv", "float64") R1("t", "float64")
  " alpha=float64 omega=float64",
  NULL};
static const sk_kbody k_bi_update = {.label = "solve.bicg_update",
                                     .body = sk_body_solve_bicg_update,
                                     .pattern = SK_FOR,
                                     .sigs = sig_bi_up};

static const char *const sig_gm_mdot[] = {
  "team" R2("V", "float64") R1("part", "float64") " j1=int64 nch=int64", NULL};
static const sk_kbody k_gm_mdot = {.label = "solve.gmres_mdot",
                                   .body = sk_body_solve_gmres_mdot,
                                   .pattern = SK_FOR,
                                   .sigs = sig_gm_mdot};
static const char *const sig_pdot[] = {
  "team" R1("u", "float64") R1("v", "float64") R1("part", "float64") " nch=int64", NULL};
static const sk_kbody k_pdot = {.label = "solve.pdot",
                                .body = sk_body_solve_pdot,
                                .pattern = SK_FOR,
                                .sigs = sig_pdot};
static const char *const sig_fold[] = {
  "range" R1("part", "float64") R1("out", "float64") " nch=int64", NULL};
static const sk_kbody k_fold = {.label = "solve.fold",
                                .body = sk_body_solve_fold,
                                .pattern = SK_FOR,
                                .sigs = sig_fold};
static const char *const sig_gm_orth[] = {
  "range" R2("V", "float64") R1("h", "float64") " j1=int64 scale=float64", NULL};
static const sk_kbody k_gm_orth = {.label = "solve.gmres_orth",
                                   .body = sk_body_solve_gmres_orth,
                                   .pattern = SK_FOR,
                                   .sigs = sig_gm_orth};
static const char *const sig_gm_scale[] = {
  "range" R2("V", "float64") R1("rv", "float64") " scale=float64", NULL};
static const sk_kbody k_gm_scale = {.label = "solve.gmres_scale",
                                    .body = sk_body_solve_gmres_scale,
                                    .pattern = SK_FOR,
                                    .sigs = sig_gm_scale};
static const char *const sig_gm_comb[] = {
  "range" R2("V", "float64") R1("y", "float64") R1("u", "float64") " m=int64", NULL};
static const sk_kbody k_gm_comb = {.label = "solve.gmres_comb",
                                   .body = sk_body_solve_gmres_comb,
                                   .pattern = SK_FOR,
                                   .sigs = sig_gm_comb};

int sk_solve_range(const sk_kbody *kb, int64_t b, int64_t e, const sk_arg *args, int nargs,
                   sk_result *res, char *err, size_t errlen) {
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.begin = b;
  p.end = e;
  return sk_kbody_launch(kb, &p, args, nargs, res, err, errlen);
}

/* -- the common part ------------------------------------------------------------ */
enum { R_CONVERGED, R_MAXITER, R_BREAKDOWN };
enum { M_CG, M_BICGSTAB, M_GMRES };

typedef struct kry {
  int method;
  sk_solve_op op;
  sk_precond P;
  const sk_view *b, *x0;
  double tol, bn, stop;
  int64_t maxiter, restart, n, it;
  int space, dt, reason;
  const sk_backend *be;
  sk_view x;
  double *hist;
  int64_t nhist, caphist;
  sk_csr16 c16; /* CG's: the matrix's compact index (kernels/sparse/csr16.c) */
  sk_vdict vd;  /* and its value codes (kernels/sparse/vdict.c) */
  sk_dia dia;   /* and its diagonal form, a stencil's (kernels/sparse/dia.c) */
} kry;

static int push(kry *k, double rel, char *err, size_t errlen) {
  if (k->nhist == k->caphist) {
    int64_t c = k->caphist ? 2 * k->caphist : 64;
    double *h = realloc(k->hist, (size_t)c * sizeof *h);
    if (!h) {
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    k->hist = h, k->caphist = c;
  }
  k->hist[k->nhist++] = rel;
  return 0;
}

static const sk_csr *op_matrix(const kry *k) { return k->op.is_body ? NULL : &k->op.A; }

/* a non-finite reduction: the message naming its source; -1 */
static int nonfinite(const kry *k, const char *what, double v, char *err, size_t errlen) {
  return sk_sp_cg_nonfinite(op_matrix(k), k->b, k->x0, what, v, k->it, err, errlen);
}

static int vec(const kry *k, sk_view *v, const char *label, char *err, size_t errlen) {
  return sk_sp_view(v, label, k->dt, k->n, k->space, 1, err, errlen);
}

/* z = M^-1 r, a callback's failure named */
static int precond(const kry *k, const sk_view *r, const sk_view *z, char *err,
                   size_t errlen) {
  if (sk_precond_apply(&k->P, r, z, err, errlen) == 0) return 0;
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", err);
  sk_err(err, errlen, SK_E_SOLVE_PRECOND_FAILED, sk_precond_name(&k->P), (long long)k->it,
         msg);
  return -1;
}

/* rv = b - A x (w a temporary), *rr = rv'rv */
static int true_resid(kry *k, const sk_view *w, const sk_view *rv, double *rr, char *err,
                      size_t errlen) {
  if (sk_solve_op_apply(&k->op, &k->x, w, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view("b", k->b), sk_arg_view("w", w), sk_arg_view("rv", rv)};
  sk_result res;
  if (sk_solve_range(&k_resid, 0, k->n, a, NELEM(a), &res, err, errlen) < 0) return -1;
  *rr = sk_result_f64(&res, 0);
  if (!isfinite(*rr)) return nonfinite(k, "r'r", *rr, err, errlen);
  return 0;
}

static int dot(const sk_view *u, const sk_view *v, int64_t n, double *d, char *err,
               size_t errlen) {
  sk_arg a[] = {sk_arg_view("u", u), sk_arg_view("v", v)};
  sk_result r;
  if (sk_solve_range(&k_dot, 0, n, a, NELEM(a), &r, err, errlen) < 0) return -1;
  *d = sk_result_f64(&r, 0);
  return 0;
}

/* the arguments of every method */
static int setup(kry *k, int method, const sk_arg *args, int nargs, char *err,
                 size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "op_body",  "op_n",     "b",        "x0",
                                      "tol",      "maxiter",  "restart",  SK_SOLVE_PC_ARGS,
                                      NULL};
  memset(k, 0, sizeof *k);
  k->method = method;
  k->tol = 1e-8;
  if (sk_solve_known(args, nargs, known, err, errlen) < 0 ||
      sk_solve_op_arg(args, nargs, &k->op, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "tol") &&
       sk_karg_f64(args, nargs, "tol", &k->tol, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "maxiter", 1, 1000, &k->maxiter, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "restart", 1, 30, &k->restart, err, errlen) < 0)
    return -1;
  if (method != M_GMRES && sk_karg_find(args, nargs, "restart")) {
    sk_err(err, errlen, SK_E_SOLVE_RESTART_GMRES);
    return -1;
  }
  if (!(k->b = sk_karg_view(args, nargs, "b", 1, err, errlen))) return -1;
  if (sk_karg_find(args, nargs, "x0") &&
      !(k->x0 = sk_karg_view(args, nargs, "x0", 1, err, errlen)))
    return -1;
  if (sk_precond_arg(args, nargs, &k->P, err, errlen) < 0) return -1;
  k->n = k->op.n;
  if (k->b->extent[0] != k->n) {
    sk_err(err, errlen, SK_E_SOLVE_VEC_ROWS, (long long)k->n, "b", k->b->label,
           (long long)k->b->extent[0]);
    return -1;
  }
  if (k->x0 && k->x0->extent[0] != k->n) {
    sk_err(err, errlen, SK_E_SOLVE_VEC_ROWS, (long long)k->n, "x0", k->x0->label,
           (long long)k->x0->extent[0]);
    return -1;
  }
  for (int t = 0; t < 2 && !k->op.is_body; t++) {
    const sk_view *v = t ? k->x0 : k->b;
    if (v && v->space != k->op.A.values->space) {
      sk_err(err, errlen, SK_E_SOLVE_VEC_SPACE, sk_space_name(k->op.A.values->space),
             t ? "x0" : "b", v->label, sk_space_name(v->space));
      return -1;
    }
  }
  k->dt = k->op.is_body ? k->b->dtype : k->op.A.values->dtype;
  if (!sk_sp_is_float(k->dt)) {
    sk_err(err, errlen, SK_E_SOLVE_ARG_DTYPE, "b", k->b->label, "float64 or float32",
           sk_dtypes[k->dt].name);
    return -1;
  }
  const sk_view *vs[2] = {k->b, k->x0};
  const char *vn[2] = {"b", "x0"};
  for (int t = 0; t < 2; t++)
    if (vs[t] && vs[t]->dtype != k->dt) {
      sk_err(err, errlen, SK_E_SOLVE_VEC_DTYPE, sk_dtypes[k->dt].name, vn[t], vs[t]->label,
             sk_dtypes[vs[t]->dtype].name);
      return -1;
    }
  if (!(k->tol >= 0) || !isfinite(k->tol)) {
    sk_err(err, errlen, SK_E_SOLVE_TOL, k->tol);
    return -1;
  }
  if (k->maxiter < 1) {
    sk_err(err, errlen, SK_E_SOLVE_MAXITER, (long long)k->maxiter);
    return -1;
  }
  if (k->restart < 1) {
    sk_err(err, errlen, SK_E_SOLVE_RESTART, (long long)k->restart);
    return -1;
  }
  if (k->P.n >= 0 && k->P.n != k->n) {
    sk_err(err, errlen, SK_E_SOLVE_PRECOND_ROWS, sk_precond_name(&k->P), (long long)k->P.n,
           (long long)k->n);
    return -1;
  }
  if (!(k->be = sk_sp_backend(err, errlen))) return -1;
  k->space = k->b->space;
  if (vec(k, &k->x, "x", err, errlen) < 0) return -1;
  if (k->x0 && sk_view_deep_copy(&k->x, k->x0, err, errlen) < 0) return -1;
  double bb;
  if (dot(k->b, k->b, k->n, &bb, err, errlen) < 0) return -1;
  if (!isfinite(bb)) return nonfinite(k, "b'b", bb, err, errlen);
  k->bn = sqrt(bb);
  k->stop = k->tol * k->bn;
  return 0;
}

/* the outputs; *rr the final true ||r||^2 */
static int finish(kry *k, double rr, sk_kvalue *out, char *err, size_t errlen) {
  double rel = k->bn > 0 ? sqrt(rr) / k->bn : 0;
  sk_view h;
  if (sk_sp_view(&h, "history", SK_F64, k->nhist, SK_SPACE_HOST, 0, err, errlen) < 0)
    return -1;
  if (k->nhist) memcpy(h.data, k->hist, (size_t)k->nhist * sizeof(double));
  if (sk_kout_view(out, "x", &k->x, err, errlen) < 0 ||
      sk_kout_num(out, "iters", (double)k->it, err, errlen) < 0 ||
      sk_kout_num(out, "resid", rel, err, errlen) < 0 ||
      sk_kout_num(out, "reason", k->reason, err, errlen) < 0 ||
      sk_kout_view(out, "history", &h, err, errlen) < 0) {
    sk_view_release(&h);
    return -1;
  }
  return 0;
}

/* w = A u with r'u, w'u, r'r into d[3]: on the host one launch over a
 * matrix (the compact index where the matrix has one); on a device, and
 * for a user body, the SpMV (sparse.spmv's, the compact index there too)
 * then the dots -- a team launch doing both measured slower on an H200
 * (385 against 354 us an iteration on the 27-point 128^3 matrix: its
 * three sums a row cost more than the second pass over r, u and w); by
 * diagonals where the matrix has them (kernels/sparse/dia.c), one launch
 * on both, a thread a row on a device */
static int spmv_dots(kry *k, const sk_view *u, const sk_view *w, const sk_view *rv,
                     double d[3], char *err, size_t errlen) {
  sk_result res;
  if (k->dia.ok) /* by diagonals, host and device: one launch */
    return sk_dia_cg_dots(&k->dia, &k->op.A, u, w, rv, d, err, errlen);
  if (!k->op.is_body && sk_sp_host(k->be) && k->n > 0) {
    const sk_csr *A = &k->op.A;
    const int lean = k->c16.ok;
    int64_t nchunk = k->be->concurrency ? k->be->concurrency() : 1;
    if (nchunk < 1) nchunk = 1;
    if (nchunk > k->n) nchunk = k->n;
    const int coded = lean && k->vd.ok;
    sk_arg a[8];
    int na = 0;
    a[na++] = sk_arg_view_ro("rowptr", lean ? &k->c16.rowptr : A->rowptr);
    a[na++] = lean ? sk_arg_view_ro("off", &k->c16.off) : sk_arg_view_ro("colidx", A->colidx);
    if (coded) {
      a[na++] = sk_arg_view_ro("vcode", &k->vd.code);
      a[na++] = sk_arg_view_ro("vtab", &k->vd.tab);
    } else {
      a[na++] = sk_arg_view_ro("values", A->values);
    }
    a[na++] = sk_arg_view("u", u);
    a[na++] = sk_arg_view("w", w);
    a[na++] = sk_arg_view("rv", rv);
    a[na++] = sk_arg_i64("nchunk", nchunk);
    const sk_kbody *kb = coded ? &k_cg16v_spmv_dots : lean ? &k_cg16_spmv_dots : &k_cg_spmv_dots;
    if (sk_solve_range(kb, 0, nchunk, a, na, &res, err, errlen) < 0) return -1;
  } else {
    if (sk_solve_op_apply(&k->op, u, w, err, errlen) < 0) return -1;
    sk_arg a[] = {sk_arg_view("rv", rv), sk_arg_view("u", u), sk_arg_view("w", w)};
    if (sk_solve_range(&k_cg_dots, 0, k->n, a, NELEM(a), &res, err, errlen) < 0) return -1;
  }
  for (int t = 0; t < 3; t++) d[t] = sk_result_f64(&res, t);
  return 0;
}

/* chunks of a device-side dot product: about 64k elements on a GPU, one
 * per thread on the host (at most 256) */
static int64_t nchunks(const kry *k) {
  int64_t nch = sk_sp_host(k->be) ? (k->be->concurrency ? k->be->concurrency() : 1)
                                  : (k->n + 65535) / 65536;
  if (nch > 256) nch = 256;
  if (nch > k->n) nch = k->n;
  return nch < 1 ? 1 : nch;
}

/* out(0) = u . v, on the device (no host read): pdot's partial sums, then
 * fold's ordered total */
static int dev_dot(const kry *k, const sk_view *u, const sk_view *v, const sk_view *part,
                   const sk_view *out, char *err, size_t errlen) {
  int64_t nch = nchunks(k);
  sk_arg a[] = {sk_arg_view("u", u), sk_arg_view("v", v), sk_arg_view("part", part),
                sk_arg_i64("nch", nch)};
  sk_arg f[] = {sk_arg_view("part", part), sk_arg_view("out", out), sk_arg_i64("nch", nch)};
  sk_policy pol;
  sk_policy_init(&pol, SK_POL_TEAM);
  pol.league_size = nch;
  if (sk_kbody_launch(&k_pdot, &pol, a, NELEM(a), NULL, err, errlen) < 0) return -1;
  return sk_solve_range(&k_fold, 0, 1, f, NELEM(f), NULL, err, errlen);
}

/* -- CG ---------------------------------------------------------------------------- */
static int run_cg(kry *k, double *rr_out, char *err, size_t errlen) {
  sk_view rv, u, w, p, s;
  sk_view *all[] = {&rv, &u, &w, &p, &s};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  int rc = -1, none = k->P.kind == SK_PC_NONE;
  double rr;
  if (vec(k, &rv, "r", err, errlen) < 0 || vec(k, &w, "w", err, errlen) < 0 ||
      vec(k, &p, "p", err, errlen) < 0 || vec(k, &s, "s", err, errlen) < 0 ||
      (!none && vec(k, &u, "u", err, errlen) < 0))
    goto done;
  const sk_view *uu = none ? &rv : &u;
  /* the compact index for all the iterations' SpMVs, kept with the matrix
   * (on the host the diagonal form instead where A has one: dia.c) */
  if (!k->op.is_body && sk_sp_host(k->be) && k->n > 0) {
    if (sk_dia_memos(&k->op.A, k->maxiter, &k->c16, &k->vd, &k->dia, err, errlen) < 0) goto done;
  } else if (!k->op.is_body &&
             (sk_csr16_get(k->op.A.rowptr, k->op.A.colidx, k->maxiter, &k->c16, err, errlen) < 0 ||
              (k->c16.ok && sk_vdict_get(k->op.A.values, k->maxiter, &k->vd, err, errlen) < 0) ||
              (k->vd.ok && k->n > 0 && sk_dia_get(&k->op.A, &k->vd, &k->dia, err, errlen) < 0)))
    goto done;
  if (true_resid(k, &w, &rv, &rr, err, errlen) < 0 || push(k, sqrt(rr) / k->bn, err, errlen) < 0)
    goto done;
  int fresh = 1;
  double gamma = 0, delta = 0, gamma_old = 0, alpha = 0;
  while (sqrt(rr) > k->stop) {
    if (fresh) {
      double d[3];
      if ((!none && precond(k, &rv, uu, err, errlen) < 0) ||
          spmv_dots(k, uu, &w, &rv, d, err, errlen) < 0)
        goto done;
      gamma = d[0], delta = d[1];
    }
    if (k->it >= k->maxiter) {
      k->reason = R_MAXITER;
      break;
    }
    if (!isfinite(gamma)) {
      nonfinite(k, "r'z", gamma, err, errlen);
      goto done;
    }
    if (!isfinite(delta)) {
      nonfinite(k, "z'Az", delta, err, errlen);
      goto done;
    }
    if (gamma < 0) {
      sk_err(err, errlen, SK_E_SOLVE_PRECOND_NOT_SPD, gamma, (long long)k->it + 1);
      goto done;
    }
    double beta = 0, denom = delta;
    if (!fresh) {
      beta = gamma / gamma_old;
      denom = delta - beta * gamma / alpha;
    }
    if (gamma == 0 || denom == 0) {
      k->reason = R_BREAKDOWN;
      break;
    }
    if (denom < 0) {
      sk_err(err, errlen, SK_E_P_AP_ITERATION, denom, (long long)k->it + 1);
      goto done;
    }
    alpha = gamma / denom;
    sk_arg a[] = {sk_arg_view("u", uu),     sk_arg_view("w", &w),      sk_arg_view("p", &p),
                  sk_arg_view("s", &s),     sk_arg_view("x", &k->x),   sk_arg_view("rv", &rv),
                  sk_arg_f64("alpha", alpha), sk_arg_f64("beta", beta)};
    if (sk_solve_range(&k_cg_step, 0, k->n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
    k->it++;
    fresh = 0;
    gamma_old = gamma;
    double d[3];
    if ((!none && precond(k, &rv, uu, err, errlen) < 0) ||
        spmv_dots(k, uu, &w, &rv, d, err, errlen) < 0)
      goto done;
    gamma = d[0], delta = d[1], rr = d[2];
    if (!isfinite(rr)) {
      nonfinite(k, "r'r", rr, err, errlen);
      goto done;
    }
    if (push(k, sqrt(rr) / k->bn, err, errlen) < 0) goto done;
    if (sqrt(rr) <= k->stop) {
      /* the true residual decides; short of it, CG starts again from it */
      if (true_resid(k, &w, &rv, &rr, err, errlen) < 0) goto done;
      fresh = 1;
    }
  }
  *rr_out = rr;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  sk_csr16_release(&k->c16);
  sk_vdict_release(&k->vd);
  sk_dia_release(&k->dia);
  return rc;
}

/* -- BiCGStab ---------------------------------------------------------------------- */
static int run_bicgstab(kry *k, double *rr_out, char *err, size_t errlen) {
  sk_view rv, rh, p, v, t, ph, sh, part, sc;
  sk_view *all[] = {&rv, &rh, &p, &v, &t, &ph, &sh, &part, &sc};
  for (int q = 0; q < NELEM(all); q++) memset(all[q], 0, sizeof *all[q]);
  int rc = -1, none = k->P.kind == SK_PC_NONE;
  double rr;
  if (vec(k, &rv, "r", err, errlen) < 0 || vec(k, &rh, "rhat", err, errlen) < 0 ||
      vec(k, &p, "p", err, errlen) < 0 || vec(k, &v, "v", err, errlen) < 0 ||
      vec(k, &t, "t", err, errlen) < 0 ||
      sk_sp_view(&part, "part", SK_F64, nchunks(k), k->space, 1, err, errlen) < 0 ||
      sk_sp_view(&sc, "rhat'v", SK_F64, 1, k->space, 1, err, errlen) < 0 ||
      (!none && (vec(k, &ph, "phat", err, errlen) < 0 || vec(k, &sh, "shat", err, errlen) < 0)))
    goto done;
  const sk_view *php = none ? &p : &ph, *shp = none ? &rv : &sh;
  if (true_resid(k, &t, &rv, &rr, err, errlen) < 0 || push(k, sqrt(rr) / k->bn, err, errlen) < 0)
    goto done;
  int fresh = 1;
  double rho = 0, rho_old = 1, alpha = 1, omega = 1;
  while (sqrt(rr) > k->stop) {
    if (k->it >= k->maxiter) {
      k->reason = R_MAXITER;
      break;
    }
    double beta = 0;
    if (fresh) {
      sk_arg a[] = {sk_arg_view("x", &rv), sk_arg_view("y", &rh)};
      if (sk_solve_range(&sk_solve_k_copy, 0, k->n, a, 2, NULL, err, errlen) < 0) goto done;
      rho = rr;
      omega = 0;
    } else {
      beta = (rho / rho_old) * (alpha / omega);
    }
    fresh = 0;
    sk_arg ap[] = {sk_arg_view("p", &p), sk_arg_view("rv", &rv), sk_arg_view("v", &v),
                   sk_arg_f64("beta", beta), sk_arg_f64("omega", omega)};
    if (sk_solve_range(&k_bi_p, 0, k->n, ap, NELEM(ap), NULL, err, errlen) < 0 ||
        (!none && precond(k, &p, php, err, errlen) < 0) ||
        sk_solve_op_apply(&k->op, php, &v, err, errlen) < 0)
      goto done;
    /* rhat'v stays on the device: s = r - (rho / rhat'v) v reads it there */
    sk_arg as[] = {sk_arg_view("rv", &rv), sk_arg_view("v", &v), sk_arg_view("sc", &sc),
                   sk_arg_f64("rho", rho)};
    if (dev_dot(k, &rh, &v, &part, &sc, err, errlen) < 0 ||
        sk_solve_range(&k_bi_s, 0, k->n, as, NELEM(as), NULL, err, errlen) < 0 ||
        (!none && precond(k, &rv, shp, err, errlen) < 0) ||
        sk_solve_op_apply(&k->op, shp, &t, err, errlen) < 0)
      goto done;
    /* the iteration's one read: t's and s's dots, and rhat'v */
    sk_arg ad[] = {sk_arg_view("t", &t), sk_arg_view("rv", &rv), sk_arg_view("rh", &rh),
                   sk_arg_view("sc", &sc)};
    sk_result res;
    if (sk_solve_range(&k_bi_dots, 0, k->n, ad, NELEM(ad), &res, err, errlen) < 0) goto done;
    double ts = sk_result_f64(&res, 0), tt = sk_result_f64(&res, 1),
           ss = sk_result_f64(&res, 2), rhs = sk_result_f64(&res, 3),
           rht = sk_result_f64(&res, 4), rhv = sk_result_f64(&res, 5);
    if (!isfinite(rhv)) {
      nonfinite(k, "rhat'v", rhv, err, errlen);
      goto done;
    }
    if (rhv == 0) {
      /* s is not formed (r / 0): x stays the last iterate */
      k->reason = R_BREAKDOWN;
      break;
    }
    alpha = rho / rhv;
    k->it++;
    if (!isfinite(ts + tt + ss + rhs + rht)) {
      nonfinite(k, "s's", !isfinite(ss) ? ss : ts + tt + rhs + rht, err, errlen);
      goto done;
    }
    if (sqrt(ss) <= k->stop || tt == 0) {
      /* converged at the half step (or t = 0: A s = 0): x += alpha phat */
      sk_arg ax[] = {sk_arg_view("x", php), sk_arg_view("y", &k->x), sk_arg_f64("a", alpha)};
      if (sk_solve_range(&k_axpy, 0, k->n, ax, NELEM(ax), NULL, err, errlen) < 0 ||
          push(k, sqrt(ss) / k->bn, err, errlen) < 0)
        goto done;
      if (tt == 0 && sqrt(ss) > k->stop) {
        rr = ss;
        k->reason = R_BREAKDOWN;
        break;
      }
      if (true_resid(k, &t, &rv, &rr, err, errlen) < 0) goto done;
      fresh = 1;
      continue;
    }
    omega = ts / tt;
    sk_arg au[] = {sk_arg_view("x", &k->x),    sk_arg_view("ph", php),
                   sk_arg_view("sh", shp),     sk_arg_view("rv", &rv),
                   sk_arg_view("t", &t),       sk_arg_f64("alpha", alpha),
                   sk_arg_f64("omega", omega)};
    if (sk_solve_range(&k_bi_update, 0, k->n, au, NELEM(au), NULL, err, errlen) < 0)
      goto done;
    rho_old = rho;
    rho = rhs - omega * rht;
    rr = ss - 2 * omega * ts + omega * omega * tt;
    if (rr < 0) rr = 0;
    if (push(k, sqrt(rr) / k->bn, err, errlen) < 0) goto done;
    if (sqrt(rr) <= k->stop) {
      if (true_resid(k, &t, &rv, &rr, err, errlen) < 0) goto done;
      fresh = 1;
    } else if (omega == 0 || rho == 0) {
      k->reason = R_BREAKDOWN;
      break;
    }
  }
  *rr_out = rr;
  rc = 0;
done:
  for (int q = 0; q < NELEM(all); q++) sk_view_release(all[q]);
  return rc;
}

/* -- GMRES ------------------------------------------------------------------------- */
/* row j of V as a rank-1 view */
static int vrow(const sk_view *V, int64_t j, sk_view *r, char *err, size_t errlen) {
  sk_slice s[2] = {{SK_SLICE_INDEX, j, 0}, {SK_SLICE_ALL, 0, 0}};
  return sk_view_subview(r, V, s, 2, err, errlen);
}

/* h = V(0..j1, :) . V(j1, :), on the host in hh (j1 + 1 values): a team
 * per vector and chunk of the columns into 'part', fold's totals into h,
 * one read */
static int mdot(kry *k, const sk_view *V, const sk_view *part, const sk_view *h,
                const sk_view *hv, int64_t j1, double *hh, char *err, size_t errlen) {
  int64_t nch = nchunks(k);
  sk_arg a[] = {sk_arg_view("V", V), sk_arg_view("part", part), sk_arg_i64("j1", j1),
                sk_arg_i64("nch", nch)};
  sk_arg f[] = {sk_arg_view("part", part), sk_arg_view("out", h), sk_arg_i64("nch", nch)};
  sk_policy pol;
  sk_policy_init(&pol, SK_POL_TEAM);
  pol.league_size = (j1 + 1) * nch;
  if (sk_kbody_launch(&k_gm_mdot, &pol, a, NELEM(a), NULL, err, errlen) < 0 ||
      sk_solve_range(&k_fold, 0, j1 + 1, f, NELEM(f), NULL, err, errlen) < 0)
    return -1;
  const sk_view *src = h;
  if (hv != h) {
    if (sk_view_deep_copy((sk_view *)hv, h, err, errlen) < 0) return -1;
    src = hv;
  } else {
    const sk_backend *b = sk_backend_for_space(h->space);
    if (h->space != SK_SPACE_HOST && b && b->fence && b->fence(err, errlen) < 0) return -1;
  }
  for (int64_t q = 0; q <= j1; q++) hh[q] = ((const double *)src->data)[q];
  return 0;
}

static int run_gmres(kry *k, double *rr_out, char *err, size_t errlen) {
  int64_t m = k->restart;
  if (m > k->maxiter) m = k->maxiter;
  int none = k->P.kind == SK_PC_NONE, rc = -1;
  sk_view V, rv, w, z, u, h, hv, y, yh, vj, vj1, part;
  sk_view *all[] = {&V, &rv, &w, &z, &u, &h, &hv, &y, &yh, &vj, &vj1, &part};
  for (int q = 0; q < NELEM(all); q++) memset(all[q], 0, sizeof *all[q]);
  double *H = calloc((size_t)((m + 1) * m + 4 * (m + 2)), sizeof(double));
  if (!H) {
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  double *cs = H + (m + 1) * m, *sn = cs + m + 2, *g = sn + m + 2, *hh = g + m + 2;
  int64_t ext[2] = {m + 1, k->n};
  int host = sk_space_host_accessible(k->space) && k->space == SK_SPACE_HOST;
  if (sk_view_create(&V, "V", k->dt, 2, ext, SK_RIGHT, k->space, 1, NULL, err, errlen) < 0 ||
      vec(k, &rv, "r", err, errlen) < 0 || vec(k, &w, "w", err, errlen) < 0 ||
      vec(k, &u, "u", err, errlen) < 0 || (!none && vec(k, &z, "z", err, errlen) < 0) ||
      sk_sp_view(&h, "h", SK_F64, m + 2, k->space, 1, err, errlen) < 0 ||
      sk_sp_view(&part, "part", SK_F64, (m + 2) * nchunks(k), k->space, 1, err, errlen) < 0 ||
      sk_sp_view(&y, "y", SK_F64, m + 1, k->space, 1, err, errlen) < 0 ||
      (!host && (sk_sp_view(&hv, "h", SK_F64, m + 2, SK_SPACE_HOST, 1, err, errlen) < 0 ||
                 sk_sp_view(&yh, "y", SK_F64, m + 1, SK_SPACE_HOST, 1, err, errlen) < 0)))
    goto done;
  const sk_view *hvp = host ? &h : &hv, *yhp = host ? &y : &yh;
  double rr;
  if (true_resid(k, &w, &rv, &rr, err, errlen) < 0 || push(k, sqrt(rr) / k->bn, err, errlen) < 0)
    goto done;
  while (sqrt(rr) > k->stop) {
    if (k->it >= k->maxiter) {
      k->reason = R_MAXITER;
      break;
    }
    double beta = sqrt(rr);
    sk_arg as[] = {sk_arg_view("V", &V), sk_arg_view("rv", &rv),
                   sk_arg_f64("scale", 1.0 / beta)};
    if (sk_solve_range(&k_gm_scale, 0, k->n, as, NELEM(as), NULL, err, errlen) < 0) goto done;
    for (int64_t q = 0; q < m + 2; q++) g[q] = 0;
    g[0] = beta;
    int64_t j = 0, ncol = 0;
    int lucky = 0;
    for (; j < m && k->it < k->maxiter; j++) {
      sk_view_release(&vj);
      sk_view_release(&vj1);
      if (vrow(&V, j, &vj, err, errlen) < 0 || vrow(&V, j + 1, &vj1, err, errlen) < 0)
        goto done;
      const sk_view *zz = &vj;
      if (!none) {
        if (precond(k, &vj, &z, err, errlen) < 0) goto done;
        zz = &z;
      }
      if (sk_solve_op_apply(&k->op, zz, &vj1, err, errlen) < 0 ||
          mdot(k, &V, &part, &h, hvp, j + 1, hh, err, errlen) < 0)
        goto done;
      double ww = hh[j + 1], hs = 0;
      if (!isfinite(ww)) {
        nonfinite(k, "w'w", ww, err, errlen);
        goto done;
      }
      for (int64_t q = 0; q <= j; q++) H[q * m + j] = hh[q], hs += hh[q] * hh[q];
      double hn2 = ww - hs, scale;
      if (!(hn2 > 0.5 * ww)) {
        /* lost more than 1 - 1/sqrt(2) of the norm: orthogonalize again */
        sk_arg ao[] = {sk_arg_view("V", &V), sk_arg_view("h", &h), sk_arg_i64("j1", j + 1),
                       sk_arg_f64("scale", 1.0)};
        if (sk_solve_range(&k_gm_orth, 0, k->n, ao, NELEM(ao), NULL, err, errlen) < 0 ||
            mdot(k, &V, &part, &h, hvp, j + 1, hh, err, errlen) < 0)
          goto done;
        hs = 0;
        for (int64_t q = 0; q <= j; q++) H[q * m + j] += hh[q], hs += hh[q] * hh[q];
        hn2 = hh[j + 1] - hs;
      }
      double hn = hn2 > 0 ? sqrt(hn2) : 0;
      k->it++;
      ncol = j + 1;
      if (hn <= 1e-14 * sqrt(ww)) {
        hn = 0;
        lucky = 1; /* the Krylov space is invariant: the solution is in it */
      }
      scale = hn > 0 ? 1.0 / hn : 0.0;
      sk_arg ao[] = {sk_arg_view("V", &V), sk_arg_view("h", &h), sk_arg_i64("j1", j + 1),
                     sk_arg_f64("scale", scale)};
      if (!lucky &&
          sk_solve_range(&k_gm_orth, 0, k->n, ao, NELEM(ao), NULL, err, errlen) < 0)
        goto done;
      /* the earlier rotations on column j, then its own */
      for (int64_t q = 0; q < j; q++) {
        double a = H[q * m + j], b2 = H[(q + 1) * m + j];
        H[q * m + j] = cs[q] * a + sn[q] * b2;
        H[(q + 1) * m + j] = -sn[q] * a + cs[q] * b2;
      }
      double a = H[j * m + j], r = hypot(a, hn);
      if (r == 0) {
        /* a singular Hessenberg column: the residual stays where it was */
        if (push(k, fabs(g[j]) / k->bn, err, errlen) < 0) goto done;
        k->reason = R_BREAKDOWN;
        ncol = j;
        break;
      }
      cs[j] = a / r, sn[j] = hn / r;
      H[j * m + j] = r;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      if (push(k, fabs(g[j + 1]) / k->bn, err, errlen) < 0) goto done;
      if (fabs(g[j + 1]) <= k->stop || lucky) {
        j++;
        break;
      }
    }
    /* y = H^-1 g; x += M^-1 (V y) */
    if (ncol > 0) {
      double *yy = (double *)yhp->data;
      for (int64_t q = ncol - 1; q >= 0; q--) {
        double s = g[q];
        for (int64_t c = q + 1; c < ncol; c++) s -= H[q * m + c] * yy[c];
        yy[q] = s / H[q * m + q];
      }
      if (!host && sk_view_deep_copy(&y, yhp, err, errlen) < 0) goto done;
      sk_arg ac[] = {sk_arg_view("V", &V), sk_arg_view("y", &y), sk_arg_view("u", &u),
                     sk_arg_i64("m", ncol)};
      if (sk_solve_range(&k_gm_comb, 0, k->n, ac, NELEM(ac), NULL, err, errlen) < 0)
        goto done;
      const sk_view *uz = &u;
      if (!none) {
        if (precond(k, &u, &z, err, errlen) < 0) goto done;
        uz = &z;
      }
      sk_arg ax[] = {sk_arg_view("x", uz), sk_arg_view("y", &k->x), sk_arg_f64("a", 1.0)};
      if (sk_solve_range(&k_axpy, 0, k->n, ax, NELEM(ax), NULL, err, errlen) < 0) goto done;
    }
    if (true_resid(k, &w, &rv, &rr, err, errlen) < 0) goto done;
    if (k->reason == R_BREAKDOWN) break;
  }
  *rr_out = rr;
  rc = 0;
done:
  for (int q = 0; q < NELEM(all); q++) sk_view_release(all[q]);
  free(H);
  return rc;
}

/* -- sparse.cg's iteration ---------------------------------------------------------- */
int sk_solve_cg_plain(const sk_csr *A, const sk_view *b, const sk_view *x0, double tol,
                      int64_t maxiter, sk_view *x, int64_t *iters, double *rnorm,
                      int *reason, char *err, size_t errlen) {
  kry k;
  memset(&k, 0, sizeof k);
  memset(x, 0, sizeof *x);
  k.method = M_CG;
  k.op.A = *A;
  k.op.n = k.n = A->nrows;
  k.P.kind = SK_PC_NONE;
  k.P.n = -1;
  k.b = b, k.x0 = x0, k.tol = tol, k.maxiter = maxiter;
  k.dt = A->values->dtype;
  k.space = b->space;
  double bb, rr = 0;
  int rc = -1;
  if (!(k.be = sk_sp_backend(err, errlen)) || vec(&k, &k.x, "x", err, errlen) < 0 ||
      (x0 && sk_view_deep_copy(&k.x, x0, err, errlen) < 0) ||
      dot(b, b, k.n, &bb, err, errlen) < 0)
    goto done;
  if (!isfinite(bb)) {
    nonfinite(&k, "b'b", bb, err, errlen);
    goto done;
  }
  k.bn = sqrt(bb);
  k.stop = tol * k.bn;
  if (run_cg(&k, &rr, err, errlen) < 0) goto done;
  if (k.reason == R_CONVERGED && sqrt(rr) > k.stop) k.reason = R_MAXITER;
  if (k.reason != R_CONVERGED) {
    sk_view w, rv;
    memset(&w, 0, sizeof w);
    memset(&rv, 0, sizeof rv);
    int bad = vec(&k, &w, "w", err, errlen) < 0 || vec(&k, &rv, "r", err, errlen) < 0 ||
              true_resid(&k, &w, &rv, &rr, err, errlen) < 0;
    sk_view_release(&w);
    sk_view_release(&rv);
    if (bad) goto done;
  }
  *x = k.x;
  memset(&k.x, 0, sizeof k.x);
  *iters = k.it, *rnorm = sqrt(rr), *reason = k.reason;
  rc = 0;
done:
  sk_view_release(&k.x);
  free(k.hist);
  return rc;
}

/* -- entries ------------------------------------------------------------------------- */
static int krylov(int method, const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  kry k;
  double rr = 0;
  int rc = setup(&k, method, args, nargs, err, errlen);
  if (rc == 0 && k.bn == 0) {
    /* b = 0: x = 0 */
    sk_arg a[] = {sk_arg_view("z", &k.x)};
    rc = sk_solve_range(&sk_solve_k_zero, 0, k.n, a, 1, NULL, err, errlen);
    if (rc == 0) rc = push(&k, 0, err, errlen);
  } else if (rc == 0) {
    rc = method == M_CG         ? run_cg(&k, &rr, err, errlen)
         : method == M_BICGSTAB ? run_bicgstab(&k, &rr, err, errlen)
                                : run_gmres(&k, &rr, err, errlen);
    if (rc == 0 && k.reason == R_CONVERGED && sqrt(rr) > k.stop) k.reason = R_MAXITER;
    if (rc == 0 && k.reason != R_CONVERGED) {
      /* resid is that of the x returned, also when the method stopped short */
      sk_view w, rv;
      memset(&w, 0, sizeof w);
      memset(&rv, 0, sizeof rv);
      rc = vec(&k, &w, "w", err, errlen) < 0 || vec(&k, &rv, "r", err, errlen) < 0 ||
               true_resid(&k, &w, &rv, &rr, err, errlen) < 0
             ? -1
             : 0;
      sk_view_release(&w);
      sk_view_release(&rv);
    }
  }
  if (rc == 0) rc = finish(&k, rr, out, err, errlen);
  sk_view_release(&k.x);
  free(k.hist);
  return rc;
}

static int cg(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  return krylov(M_CG, args, nargs, out, err, errlen);
}
static int bicgstab(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  return krylov(M_BICGSTAB, args, nargs, out, err, errlen);
}
static int gmres(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  return krylov(M_GMRES, args, nargs, out, err, errlen);
}

#define USAGE "A_* | op_body, op_n, op_*; b [, x0, tol, maxiter, precond, M_*]"
static const sk_kentry e_cg = {"solve.cg", USAGE, SK_KRES_NONE, cg};
static const sk_kentry e_bicgstab = {"solve.bicgstab", USAGE, SK_KRES_NONE, bicgstab};
static const sk_kentry e_gmres = {"solve.gmres", USAGE " [, restart]", SK_KRES_NONE, gmres};
const sk_kentry *const sk_krylov_entries[] = {&e_cg, &e_bicgstab, &e_gmres, NULL};
const sk_kbody *const sk_krylov_bodies[] = {
  &k_cg_spmv_dots, &k_cg16_spmv_dots, &k_cg16v_spmv_dots, &k_cg_dots, &k_cg_step,
  &k_dot,          &k_resid,          &sk_solve_k_copy,
  &sk_solve_k_zero, &k_axpy,   &k_bi_p,    &k_bi_s,      &k_bi_dots,  &k_bi_update,
  &k_gm_mdot,      &k_gm_orth, &k_gm_scale, &k_gm_comb,  &k_pdot,     &k_fold,
  NULL};

