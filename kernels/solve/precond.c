/* precond.c: the point preconditioners and smoothers of speck.solve --
 * Jacobi and l1-Jacobi, Gauss-Seidel / SOR in row order (one index runs a
 * whole sweep: the host's sequential form) and multicolor (colors from
 * graph.color on A's symmetrized pattern, the rows of each color one
 * launch: the parallel form of Kokkos Kernels, the same text on every back
 * end), symmetric (forward then backward) -- and how a Krylov method
 * reads and applies any preconditioner (solve.h). Bodies: solve.sk.
 *
 * As a preconditioner, Gauss-Seidel starts from z = 0: one forward sweep
 * is z = (D/omega + L)^-1 r; the symmetric form adds the backward sweep
 * (SSOR, symmetric: the one for CG).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "solve.h"
#include "kbodies.h"

/* -- bodies ------------------------------------------------------------------- */
#define MAT " rowptr=int64[1] colidx=int32[1] values=float64[1]"

static const char *const sig_jdiag[] = {"range" MAT R1("dinv", "float64")
                                        " l1=int64 omega=float64",
                                        NULL};
static const sk_kbody k_jdiag = {.label = "solve.jacobi_diag",
                                 .body = sk_body_solve_jacobi_diag,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_jdiag,
                                 .reds = "min:int64"};

static const char *const sig_japply[] = {
  "range" R1("dinv", "float64") R1("rv", "float64") R1("z", "float64"), NULL};
static const sk_kbody k_japply = {.label = "solve.jacobi_apply",
                                  .body = sk_body_solve_jacobi_apply,
                                  .pattern = SK_FOR,
                                  .sigs = sig_japply};

#define GS_SIG MAT R1("dinv", "float64") R1("rv", "float64") R1("z", "float64") " omega=float64"
static const char *const sig_gseq[] = {"range" GS_SIG " back=int64", NULL};
static const sk_kbody k_gs_seq = {.label = "solve.gs_seq",
                                  .body = sk_body_solve_gs_seq,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gseq};
static const char *const sig_gcolor[] = {"range" GS_SIG R1("perm", "int64"), NULL};
static const sk_kbody k_gs_color = {.label = "solve.gs_color",
                                    .body = sk_body_solve_gs_color,
                                    .pattern = SK_FOR,
                                    .sigs = sig_gcolor};

static const char *const sig_psym[] = {"range rowptr=int64[1] colidx=int32[1]", NULL};
static const sk_kbody k_pattern_sym = {.label = "solve.pattern_sym",
                                       .body = sk_body_solve_pattern_sym,
                                       .pattern = SK_REDUCE,
                                       .sigs = sig_psym,
                                       .reds = "sum:int64"};

static const sk_kbody k_gs_unsorted = {.label = "solve.gs_unsorted",
                                       .body = sk_body_solve_gs_unsorted,
                                       .pattern = SK_REDUCE,
                                       .sigs = sig_psym,
                                       .reds = "sum:int64"};
static const char *const sig_union[] = {"range rowptr=int64[1] colidx=int32[1] tp=int64[1]"
                                        " tc=int32[1] gp=int64[1] gc=int32[1] fill=int64",
                                        NULL};
static const sk_kbody k_gs_union = {.label = "solve.gs_union",
                                    .body = sk_body_solve_gs_union,
                                    .pattern = SK_FOR,
                                    .sigs = sig_union};

/* -- the callback ---------------------------------------------------------------- */
static _Thread_local sk_solve_cb cb_fn;
static _Thread_local void *cb_ctx;

void sk_solve_set_callback(sk_solve_cb fn, void *ctx) {
  cb_fn = fn;
  cb_ctx = fn ? ctx : NULL;
}

void sk_solve_get_callback(sk_solve_cb *fn, void **ctx) {
  *fn = cb_fn;
  *ctx = cb_ctx;
}

/* -- arguments ------------------------------------------------------------------- */
static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

int sk_solve_known(const sk_arg *args, int nargs, const char *const *known, char *err,
                   size_t errlen) {
  int op_body = sk_karg_find(args, nargs, "op_body") != NULL;
  int m_body = sk_karg_find(args, nargs, "M_body") != NULL;
  sk_arg rest[SK_MAXCAP];
  int n = 0;
  for (int k = 0; k < nargs && n < SK_MAXCAP; k++) {
    if ((op_body && has_prefix(args[k].name, "op_")) ||
        (m_body && has_prefix(args[k].name, "M_")))
      continue;
    rest[n++] = args[k];
  }
  return sk_karg_known(rest, n, known, err, errlen);
}

/* the user body 'p'body ("op_body"), 'p'n and the captures 'p'<name> */
static int body_arg(const sk_arg *args, int nargs, const char *p, sk_solve_body *ub,
                    char *err, size_t errlen) {
  char bname[16], nname[16];
  snprintf(bname, sizeof bname, "%sbody", p);
  snprintf(nname, sizeof nname, "%sn", p);
  memset(ub, 0, sizeof *ub);
  if (!(ub->body = sk_karg_str(args, nargs, bname, NULL, err, errlen))) return -1;
  if (!sk_karg_find(args, nargs, nname)) {
    sk_err(err, errlen, SK_E_SOLVE_BODY_NEEDS_N, bname, nname);
    return -1;
  }
  if (sk_karg_i64(args, nargs, nname, 0, 0, &ub->n, err, errlen) < 0) return -1;
  if (ub->n < 0) {
    sk_err(err, errlen, SK_E_SOLVE_BODY_N_NEGATIVE, nname, (long long)ub->n);
    return -1;
  }
  size_t pl = strlen(p);
  for (int k = 0; k < nargs; k++) {
    const char *nm = args[k].name;
    if (!has_prefix(nm, p) || strcmp(nm, bname) == 0 || strcmp(nm, nname) == 0) continue;
    if (ub->ncap >= SK_SOLVE_MAXCAP || strlen(nm + pl) >= sizeof ub->names[0]) {
      sk_err(err, errlen, SK_E_SOLVE_BODY_CAPTURES, bname, SK_SOLVE_MAXCAP);
      return -1;
    }
    snprintf(ub->names[ub->ncap], sizeof ub->names[0], "%s", nm + pl);
    ub->caps[ub->ncap] = args[k];
    ub->caps[ub->ncap].name = ub->names[ub->ncap];
    ub->ncap++;
  }
  return 0;
}

/* run user body 'ub' over [0, n) with its captures and 'a1', 'a2' */
static int body_run(const sk_solve_body *ub, const char *label, sk_arg a1, sk_arg a2,
                    char *err, size_t errlen) {
  sk_arg a[SK_SOLVE_MAXCAP + 2];
  int n = 0;
  for (int k = 0; k < ub->ncap; k++) a[n++] = ub->caps[k];
  a[n++] = a1;
  a[n++] = a2;
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = label;
  d.body = ub->body;
  d.pattern = SK_FOR;
  d.bounds = -1;
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = ub->n;
  return sk_run(&d, &p, a, n, NULL, err, errlen);
}

int sk_solve_op_arg(const sk_arg *args, int nargs, sk_solve_op *op, char *err,
                    size_t errlen) {
  memset(op, 0, sizeof *op);
  if (sk_karg_find(args, nargs, "op_body")) {
    if (sk_karg_find(args, nargs, "A_rowptr")) {
      sk_err(err, errlen, SK_E_SOLVE_OP_TWICE);
      return -1;
    }
    op->is_body = 1;
    if (body_arg(args, nargs, "op_", &op->ub, err, errlen) < 0) return -1;
    op->n = op->ub.n;
    return 0;
  }
  if (sk_csr_arg(args, nargs, "A", 1, &op->A, err, errlen) < 0) return -1;
  if (op->A.nrows != op->A.ncols) {
    char sh[64];
    sk_err(err, errlen, SK_E_SOLVE_NEEDS_SQUARE, sk_csr_shape(&op->A, sh, sizeof sh));
    return -1;
  }
  op->n = op->A.nrows;
  return 0;
}

int sk_solve_op_apply(const sk_solve_op *op, const sk_view *x, const sk_view *y, char *err,
                      size_t errlen) {
  if (op->is_body)
    return body_run(&op->ub, "solve.operator", sk_arg_view("x", x), sk_arg_view("y", y),
                    err, errlen);
  return sk_sp_spmv('N', 1.0, &op->A, x, 0.0, y, NULL, err, errlen);
}

/* the first argument of 'n' in 'names' present, NULL if none */
static const char *first_present(const sk_arg *args, int nargs, const char *const *names) {
  for (int k = 0; names[k]; k++)
    if (sk_karg_find(args, nargs, names[k])) return names[k];
  return NULL;
}

int sk_precond_arg(const sk_arg *args, int nargs, sk_precond *P, char *err,
                   size_t errlen) {
  memset(P, 0, sizeof *P);
  P->n = -1;
  const char *kind = sk_karg_str(args, nargs, "precond", "none", err, errlen);
  if (!kind) return -1;
  static const char *const gs_only[] = {"M_rowptr", "M_omega",     "M_sweeps",
                                        "M_perm",   "M_symmetric", NULL};
  if (strcmp(kind, "none") == 0) {
    P->kind = SK_PC_NONE;
    return 0;
  }
  if (strcmp(kind, "callback") == 0) {
    if (!cb_fn) {
      sk_err(err, errlen, SK_E_SOLVE_NO_CALLBACK);
      return -1;
    }
    P->kind = SK_PC_CALLBACK;
    P->cb = cb_fn;
    P->cb_ctx = cb_ctx;
    return 0;
  }
  if (strcmp(kind, "body") == 0) {
    P->kind = SK_PC_BODY;
    if (body_arg(args, nargs, "M_", &P->ub, err, errlen) < 0) return -1;
    P->n = P->ub.n;
    return 0;
  }
  if (strcmp(kind, "jacobi") != 0 && strcmp(kind, "gs") != 0) {
    sk_err(err, errlen, SK_E_SOLVE_PRECOND_UNKNOWN, kind);
    return -1;
  }
  if (!(P->dinv = sk_karg_view(args, nargs, "M_dinv", 1, err, errlen))) return -1;
  P->n = P->dinv->extent[0];
  if (P->dinv->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_SOLVE_ARG_DTYPE, "M_dinv", P->dinv->label, "float64",
           sk_dtypes[P->dinv->dtype].name);
    return -1;
  }
  if (kind[0] == 'j') {
    const char *extra = first_present(args, nargs, gs_only);
    if (extra) {
      sk_err(err, errlen, SK_E_SOLVE_PRECOND_ARG, extra, kind);
      return -1;
    }
    P->kind = SK_PC_JACOBI;
    return 0;
  }
  P->kind = SK_PC_GS;
  P->omega = 1.0;
  int64_t sym = 0;
  if (sk_csr_arg(args, nargs, "M", 1, &P->M, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "M_omega") &&
       sk_karg_f64(args, nargs, "M_omega", &P->omega, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "M_sweeps", 1, 1, &P->sweeps, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "M_symmetric", 1, 0, &sym, err, errlen) < 0)
    return -1;
  P->symmetric = sym != 0;
  if (!(P->omega > 0 && P->omega < 2)) {
    sk_err(err, errlen, SK_E_SOLVE_OMEGA_GS, P->omega);
    return -1;
  }
  if (P->sweeps < 1) {
    sk_err(err, errlen, SK_E_SOLVE_SWEEPS, (long long)P->sweeps);
    return -1;
  }
  if (P->M.nrows != P->n || P->M.ncols != P->n || !sk_sp_is_float(P->M.values->dtype)) {
    char sh[64];
    sk_err(err, errlen, SK_E_SOLVE_GS_MATRIX, sk_csr_shape(&P->M, sh, sizeof sh),
           (long long)P->n);
    return -1;
  }
  if (sk_karg_find(args, nargs, "M_perm")) {
    if (!(P->perm = sk_karg_view(args, nargs, "M_perm", 1, err, errlen)) ||
        !(P->colorptr = sk_karg_view(args, nargs, "M_colorptr", 1, err, errlen)))
      return -1;
    if (P->perm->dtype != SK_I64 || P->perm->extent[0] != P->n ||
        P->colorptr->dtype != SK_I64 || P->colorptr->space != SK_SPACE_HOST ||
        P->colorptr->extent[0] < 1) {
      sk_err(err, errlen, SK_E_SOLVE_GS_COLORS, (long long)P->n);
      return -1;
    }
  }
  return 0;
}

const char *sk_precond_name(const sk_precond *P) {
  static const char *const names[] = {"none", "jacobi", "gauss_seidel", "body", "callback"};
  return names[P->kind];
}

/* one Gauss-Seidel sweep of z for r, forward or backward */
static int gs_sweep(const sk_precond *P, const sk_view *r, const sk_view *z, int back,
                    char *err, size_t errlen) {
  /* A's index arrays only read: its compact index (sparse.spmv's, CG's) stays */
  sk_arg a[9] = {sk_arg_view_ro("rowptr", P->M.rowptr), sk_arg_view_ro("colidx", P->M.colidx),
                 sk_arg_view("values", P->M.values), sk_arg_view("dinv", P->dinv),
                 sk_arg_view("rv", r),                sk_arg_view("z", z),
                 sk_arg_f64("omega", P->omega)};
  if (!P->perm) {
    a[7] = sk_arg_i64("back", back);
    return sk_solve_range(&k_gs_seq, 0, 1, a, 8, NULL, err, errlen);
  }
  a[7] = sk_arg_view("perm", P->perm);
  const int64_t *cp = (const int64_t *)P->colorptr->data;
  int64_t nc = P->colorptr->extent[0] - 1;
  for (int64_t q = 0; q < nc; q++) {
    int64_t c = back ? nc - 1 - q : q;
    if (cp[c + 1] > cp[c] &&
        sk_solve_range(&k_gs_color, cp[c], cp[c + 1], a, 8, NULL, err, errlen) < 0)
      return -1;
  }
  return 0;
}

int sk_precond_apply(const sk_precond *P, const sk_view *r, const sk_view *z, char *err,
                     size_t errlen) {
  int64_t n = r->extent[0];
  switch (P->kind) {
  case SK_PC_NONE: {
    sk_arg a[] = {sk_arg_view("x", r), sk_arg_view("y", z)};
    return sk_solve_range(&sk_solve_k_copy, 0, n, a, NELEM(a), NULL, err, errlen);
  }
  case SK_PC_JACOBI: {
    sk_arg a[] = {sk_arg_view("dinv", P->dinv), sk_arg_view("rv", r), sk_arg_view("z", z)};
    return sk_solve_range(&k_japply, 0, n, a, NELEM(a), NULL, err, errlen);
  }
  case SK_PC_GS: {
    sk_arg a[] = {sk_arg_view("z", z)};
    if (sk_solve_range(&sk_solve_k_zero, 0, n, a, 1, NULL, err, errlen) < 0) return -1;
    for (int64_t s = 0; s < P->sweeps; s++) {
      if (gs_sweep(P, r, z, 0, err, errlen) < 0) return -1;
      if (P->symmetric && gs_sweep(P, r, z, 1, err, errlen) < 0) return -1;
    }
    return 0;
  }
  case SK_PC_BODY:
    return body_run(&P->ub, "solve.precond", sk_arg_view("rv", r), sk_arg_view("z", z),
                    err, errlen);
  default: return P->cb(P->cb_ctx, r, z, err, errlen);
  }
}

/* -- entries ---------------------------------------------------------------------- */
/* the square float64 or float32 matrix "A" of 'args' */
static int square_float(const sk_arg *args, int nargs, sk_csr *A, char *err, size_t errlen) {
  if (sk_csr_arg(args, nargs, "A", 1, A, err, errlen) < 0) return -1;
  char sh[64];
  if (A->nrows != A->ncols) {
    sk_err(err, errlen, SK_E_SOLVE_NEEDS_SQUARE, sk_csr_shape(A, sh, sizeof sh));
    return -1;
  }
  if (!sk_sp_is_float(A->values->dtype)) {
    sk_err(err, errlen, SK_E_SOLVE_ARG_DTYPE, "A_values", A->values->label,
           "float64 or float32", sk_dtypes[A->values->dtype].name);
    return -1;
  }
  return 0;
}

/* dinv = omega / (the diagonal, or l1: the row's sum of |a_ij|) */
static int make_dinv(const sk_csr *A, int l1, double omega, sk_view *dinv, char *err,
                     size_t errlen) {
  if (sk_sp_view(dinv, "dinv", SK_F64, A->nrows, A->values->space, 0, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                sk_arg_view("values", A->values), sk_arg_view("dinv", dinv),
                sk_arg_i64("l1", l1),               sk_arg_f64("omega", omega)};
  sk_result res;
  if (sk_solve_range(&k_jdiag, 0, A->nrows, a, NELEM(a), &res, err, errlen) < 0) {
    sk_view_release(dinv);
    return -1;
  }
  int64_t bad = A->nrows > 0 ? sk_result_i64(&res, 0) : INT64_MAX;
  if (bad >= 0 && bad < A->nrows) {
    /* the divisor again, for the message */
    double d = 0;
    int64_t b, e, c;
    if (sk_sp_get_i64(A->rowptr, bad, &b, err, errlen) == 0 &&
        sk_sp_get_i64(A->rowptr, bad + 1, &e, err, errlen) == 0) {
      for (int64_t k = b; k < e; k++) {
        double v;
        if (sk_sp_get_i64(A->colidx, k, &c, err, errlen) < 0 ||
            sk_sp_get_f64(A->values, k, &v, err, errlen) < 0)
          break;
        if (l1) d += fabs(v);
        else if (c == bad) d += v;
      }
    }
    sk_err(err, errlen, SK_E_SOLVE_DIAG_BAD, l1 ? "l1 row sum" : "diagonal", (long long)bad,
           d);
    sk_view_release(dinv);
    return -1;
  }
  return 0;
}

/* solve.jacobi: A_* [, l1 (0), omega (1)] -> M_dinv */
static int jacobi(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "l1",       "omega",    NULL};
  sk_csr A;
  int64_t l1 = 0;
  double omega = 1.0;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      square_float(args, nargs, &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "l1", 1, 0, &l1, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "omega") &&
       sk_karg_f64(args, nargs, "omega", &omega, err, errlen) < 0))
    return -1;
  if (!(omega > 0) || !isfinite(omega)) {
    sk_err(err, errlen, SK_E_SOLVE_OMEGA_JACOBI, omega);
    return -1;
  }
  sk_view dinv;
  if (make_dinv(&A, l1 != 0, omega, &dinv, err, errlen) < 0) return -1;
  return sk_kout_view(out, "M_dinv", &dinv, err, errlen);
}

/* the pattern of A + A^T (rows ascending) into gp, gc: A's transpose
 * (sparse.transpose, a counting sort) merged row by row with A; A's rows
 * ascending */
static int sym_pattern(const sk_csr *A, sk_view *gp, sk_view *gc, char *err, size_t errlen) {
  sk_arg ta[] = {sk_arg_view("A_rowptr", A->rowptr), sk_arg_view("A_colidx", A->colidx),
                 sk_arg_view("A_values", A->values), sk_arg_i64("A_ncols", A->ncols)};
  sk_kvalue t;
  memset(&t, 0, sizeof t);
  memset(gc, 0, sizeof *gc);
  if (sk_kernel_call("sparse.transpose", ta, NELEM(ta), &t, NULL, err, errlen) < 0) return -1;
  const sk_view *tp = NULL, *tc = NULL;
  for (int k = 0; k < t.nout; k++) {
    if (strcmp(t.out[k].name, "C_rowptr") == 0) tp = &t.out[k].view;
    if (strcmp(t.out[k].name, "C_colidx") == 0) tc = &t.out[k].view;
  }
  const int64_t n = A->nrows;
  const int space = A->rowptr->space;
  int64_t nnz = 0;
  int rc = -1;
  if (!tp || !tc) {
    sk_err(err, errlen, SK_E_AMG_GRAPH);
    goto done;
  }
  if (sk_sp_view(gp, "G rowptr", SK_I64, n + 1, space, 1, err, errlen) < 0) goto done;
  {
    /* the count pass writes no column: tc stands in for gc */
    sk_arg c[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                  sk_arg_view("tp", tp), sk_arg_view("tc", tc), sk_arg_view("gp", gp),
                  sk_arg_view("gc", tc), sk_arg_i64("fill", 0)};
    sk_arg f[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                  sk_arg_view("tp", tp), sk_arg_view("tc", tc), sk_arg_view("gp", gp),
                  sk_arg_view("gc", gc), sk_arg_i64("fill", 1)};
    if ((n > 0 && sk_solve_range(&k_gs_union, 0, n, c, NELEM(c), NULL, err, errlen) < 0) ||
        sk_sp_scan(gp, gp, n, &nnz, err, errlen) < 0 ||
        sk_sp_view(gc, "G colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
        (n > 0 && sk_solve_range(&k_gs_union, 0, n, f, NELEM(f), NULL, err, errlen) < 0)) {
      sk_view_release(gp);
      sk_view_release(gc);
      goto done;
    }
  }
  rc = 0;
done:
  sk_kout_release(&t);
  return rc;
}

/* rows ordered by color (host counting sort of graph.color's colors) */
static int color_order(const sk_csr *A, sk_view *perm, sk_view *cptr, int64_t *ncolors,
                       char *err, size_t errlen) {
  sk_arg ga[] = {sk_arg_view("A_rowptr", A->rowptr), sk_arg_view("A_colidx", A->colidx),
                 sk_arg_i64("A_ncols", A->ncols), sk_arg_i64("directed", 0), sk_arg_i64("self_loops", 0),
                 sk_arg_i64("dedupe", 1)};
  sk_kvalue g, c;
  memset(&g, 0, sizeof g);
  memset(&c, 0, sizeof c);
  int rc = -1;
  sk_view hc, hp;
  memset(&hc, 0, sizeof hc);
  memset(&hp, 0, sizeof hp);
  /* a symmetric pattern with sorted rows is a graph as it is (graph.color
   * skips the diagonal); else graph.from_csr symmetrizes it */
  sk_arg pa[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx)};
  sk_result pr;
  if (sk_solve_range(&k_pattern_sym, 0, A->nrows, pa, NELEM(pa), &pr, err, errlen) < 0)
    return -1;
  sk_arg ca[2] = {sk_arg_view("G_rowptr", A->rowptr), sk_arg_view("G_colidx", A->colidx)};
  sk_view sp, sc;
  memset(&sp, 0, sizeof sp);
  memset(&sc, 0, sizeof sc);
  if (A->nrows > 0 && sk_result_i64(&pr, 0) > 0) {
    /* rows ascending: A + A^T by a transpose and a merge (linear); else
     * graph.from_csr (sorts every edge) */
    if (sk_solve_range(&k_gs_unsorted, 0, A->nrows, pa, NELEM(pa), &pr, err, errlen) < 0)
      return -1;
    if (sk_result_i64(&pr, 0) == 0) {
      if (sym_pattern(A, &sp, &sc, err, errlen) < 0) return -1;
      ca[0] = sk_arg_view("G_rowptr", &sp);
      ca[1] = sk_arg_view("G_colidx", &sc);
    } else {
      if (sk_kernel_call("graph.from_csr", ga, NELEM(ga), &g, NULL, err, errlen) < 0)
        return -1;
      for (int k = 0, m = 0; k < g.nout; k++)
        if (g.out[k].is_view && m < 2) ca[m++] = sk_arg_view(g.out[k].name, &g.out[k].view);
    }
  }
  if (sk_kernel_call("graph.color", ca, 2, &c, NULL, err, errlen) < 0) goto done;
  const sk_view *col = NULL;
  double nc = 0;
  for (int k = 0; k < c.nout; k++) {
    if (strcmp(c.out[k].name, "colors") == 0) col = &c.out[k].view;
    if (strcmp(c.out[k].name, "ncolors") == 0) nc = c.out[k].num;
  }
  *ncolors = (int64_t)nc;
  int64_t n = A->nrows;
  if (sk_sp_host_copy(col, &hc, err, errlen) < 0 ||
      sk_sp_view(cptr, "colorptr", SK_I64, *ncolors + 1, SK_SPACE_HOST, 1, err, errlen) < 0)
    goto done;
  if (sk_sp_view(&hp, "perm", SK_I64, n, SK_SPACE_HOST, 0, err, errlen) < 0) goto done;
  int64_t *cp = (int64_t *)cptr->data, *pp = (int64_t *)hp.data;
  const int32_t *cv = (const int32_t *)hc.data;
  for (int64_t i = 0; i < n; i++) cp[cv[i]]++;
  for (int64_t k = 0; k < *ncolors; k++) cp[k + 1] += cp[k];
  for (int64_t i = 0; i < n; i++) pp[cp[cv[i] - 1]++] = i;
  for (int64_t k = *ncolors; k > 0; k--) cp[k] = cp[k - 1];
  cp[0] = 0;
  if (A->rowptr->space == SK_SPACE_HOST) {
    *perm = hp;
    memset(&hp, 0, sizeof hp);
  } else if (sk_sp_view(perm, "perm", SK_I64, n, A->rowptr->space, 0, err, errlen) < 0 ||
             sk_view_deep_copy(perm, &hp, err, errlen) < 0) {
    goto done;
  }
  rc = 0;
done:
  if (rc < 0 && cptr->alloc) sk_view_release(cptr);
  sk_view_release(&hc);
  sk_view_release(&hp);
  sk_view_release(&sp);
  sk_view_release(&sc);
  sk_kout_release(&g);
  sk_kout_release(&c);
  return rc;
}

/* solve.gauss_seidel: A_* [, multicolor (0)] -> M_dinv (1 / diagonal) and,
 * multicolor, M_perm, M_colorptr, ncolors */
static int gauss_seidel(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "multicolor", NULL};
  sk_csr A;
  int64_t mc = 0;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      square_float(args, nargs, &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "multicolor", 1, 0, &mc, err, errlen) < 0)
    return -1;
  sk_view dinv, perm, cptr;
  memset(&perm, 0, sizeof perm);
  memset(&cptr, 0, sizeof cptr);
  if (make_dinv(&A, 0, 1.0, &dinv, err, errlen) < 0) return -1;
  int64_t nc = 0;
  if (mc && color_order(&A, &perm, &cptr, &nc, err, errlen) < 0) {
    sk_view_release(&dinv);
    return -1;
  }
  if (sk_kout_view(out, "M_dinv", &dinv, err, errlen) < 0) goto fail;
  if (mc && (sk_kout_view(out, "M_perm", &perm, err, errlen) < 0 ||
             sk_kout_view(out, "M_colorptr", &cptr, err, errlen) < 0 ||
             sk_kout_num(out, "ncolors", (double)nc, err, errlen) < 0))
    goto fail;
  return 0;
fail:
  sk_view_release(&perm);
  sk_view_release(&cptr);
  return -1;
}

/* solve.precond_apply: precond, M_* (as a Krylov method takes them), r, z:
 * z = M^-1 r */
static int precond_apply(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                         size_t errlen) {
  (void)out;
  static const char *const known[] = {SK_SOLVE_PC_ARGS, "r", "z", NULL};
  sk_precond P;
  if (sk_solve_known(args, nargs, known, err, errlen) < 0 ||
      sk_precond_arg(args, nargs, &P, err, errlen) < 0)
    return -1;
  const sk_view *r = sk_karg_view(args, nargs, "r", 1, err, errlen), *z;
  if (!r || !(z = sk_karg_view(args, nargs, "z", 1, err, errlen))) return -1;
  if (r->extent[0] != z->extent[0] || (P.n >= 0 && r->extent[0] != P.n)) {
    sk_err(err, errlen, SK_E_SOLVE_APPLY_ROWS, sk_precond_name(&P), (long long)P.n,
           r->label, (long long)r->extent[0], z->label, (long long)z->extent[0]);
    return -1;
  }
  if (r->data == z->data) {
    sk_err(err, errlen, SK_E_ARG_VIEW_SHARE_MEMORY, "z", z->label, "r", r->label);
    return -1;
  }
  return sk_precond_apply(&P, r, z, err, errlen);
}

static const sk_kentry e_jacobi = {"solve.jacobi", "A_* [, l1, omega]", SK_KRES_NONE,
                                   jacobi};
static const sk_kentry e_gs = {"solve.gauss_seidel", "A_* [, multicolor]", SK_KRES_NONE,
                               gauss_seidel};
static const sk_kentry e_apply = {"solve.precond_apply", "precond, M_*, r, z",
                                  SK_KRES_NONE, precond_apply};
const sk_kentry *const sk_precond_entries[] = {&e_jacobi, &e_gs, &e_apply, NULL};
const sk_kbody *const sk_precond_bodies[] = {&k_jdiag,       &k_japply,      &k_gs_seq,
                                             &k_gs_color,    &k_pattern_sym, &k_gs_unsorted,
                                             &k_gs_union,    NULL};
