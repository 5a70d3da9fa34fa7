/* amg.c: smoothed aggregation's setup steps that are not SpGEMM (MueLu's
 * algorithm, seed 000 sections 2.2.2 and 4.3): the near-null space as a
 * flat array, and the tentative prolongator of a set of aggregates (from
 * graph.coarsen_mis2): the rows of each aggregate gathered by a counting
 * sort, then one QR per aggregate of its block of the near-null space
 * (modified Gram-Schmidt): the block of P_tent is Q, the coarse level's
 * near-null space is R. Everything runs where the views live; speck/
 * precond_ml.lua strings the levels together (prolongator smoothing by
 * sparse.spgemm_jacobi, R A P by sparse.spgemm's two phases; on the host
 * amg_smooth below and amg_rap.c).
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "amg.h"

/* -- bodies -------------------------------------------------------------------- */
static const char *const sig_count[] = {"range" PC_R1("lab", "int64") PC_R1("cnt", "int64")
                                          PC_R1("rc", "int64") " nk=int64",
                                        NULL};
static const sk_kbody k_count = {.label = "solve.amg_count",
                                 .body = sk_body_solve_amg_count,
                                 .pattern = SK_FOR,
                                 .sigs = sig_count};
static const char *const sig_fill[] = {"range" PC_R1("lab", "int64") PC_R1("aptr", "int64")
                                         PC_R1("cur", "int64") PC_R1("arows", "int64"),
                                       NULL};
static const sk_kbody k_fill = {.label = "solve.amg_fill",
                                .body = sk_body_solve_amg_fill,
                                .pattern = SK_FOR,
                                .sigs = sig_fill};
static const char *const sig_flat[] = {"range V=float64[2] b=float64[1] nk=int64",
                                       "range V=float64[2,left] b=float64[1] nk=int64", NULL};
static const sk_kbody k_flat = {.label = "solve.amg_flat",
                                .body = sk_body_solve_amg_flat,
                                .pattern = SK_FOR,
                                .sigs = sig_flat};
static const char *const sig_qr[] = {
  "range" PC_R1("aptr", "int64") PC_R1("arows", "int64") PC_R1("bf", "float64")
    PC_R1("rp", "int64") PC_R1("pv", "float64") PC_R1("pc", "int32") PC_R1("bc", "float64")
      PC_R1("bad", "int64") " nk=int64",
  NULL};
static const sk_kbody k_qr = {.label = "solve.amg_qr",
                              .body = sk_body_solve_amg_qr,
                              .pattern = SK_FOR,
                              .sigs = sig_qr};
static const char *const sig_isokeep[] = {"range" PC_R1("rowptr", "int64")
                                            PC_R1("colidx", "int32") PC_R1("lab", "int64")
                                              PC_R1("keep", "int64"),
                                          NULL};
static const sk_kbody k_isokeep = {.label = "solve.amg_iso_keep",
                                   .body = sk_body_solve_amg_iso_keep,
                                   .pattern = SK_FOR,
                                   .sigs = sig_isokeep};
static const char *const sig_relabel[] = {"range" PC_R1("lab", "int64") PC_R1("keep", "int64")
                                            PC_R1("nid", "int64") PC_R1("out", "int64"),
                                          NULL};
static const sk_kbody k_relabel = {.label = "solve.amg_relabel",
                                   .body = sk_body_solve_amg_relabel,
                                   .pattern = SK_FOR,
                                   .sigs = sig_relabel};
static const char *const sig_nzcount[] = {"range" PC_MAT PC_R1("cnt", "int64"), NULL};
static const sk_kbody k_nzcount = {.label = "solve.amg_nz_count",
                                   .body = sk_body_solve_amg_nz_count,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_nzcount,
                                   .reds = "sum:int64"};
static const char *const sig_nzfill[] = {"range" PC_MAT PC_R1("bp", "int64") PC_R1("bc", "int32")
                                           PC_R1("bv", "float64"),
                                         NULL};
static const sk_kbody k_nzfill = {.label = "solve.amg_nz_fill",
                                  .body = sk_body_solve_amg_nz_fill,
                                  .pattern = SK_FOR,
                                  .sigs = sig_nzfill};
static const char *const sig_nzfillc[] = {"range" PC_MAT PC_R1("bp", "int64") PC_R1("bc", "int32")
                                            PC_R1("bv", "float64") PC_R1("vc", "uint8")
                                              PC_R1("bcode", "uint8"),
                                          NULL};
static const sk_kbody k_nzfillc = {.label = "solve.amg_nz_fill_coded",
                                   .body = sk_body_solve_amg_nz_fill_coded,
                                   .pattern = SK_FOR,
                                   .sigs = sig_nzfillc};
static const char *const sig_pdiff[] = {"range" PC_R1("ap", "int64") PC_R1("ac", "int32")
                                          PC_R1("bp", "int64") PC_R1("bc", "int32"),
                                        NULL};
static const sk_kbody k_pdiff = {.label = "solve.amg_pattern_diff",
                                 .body = sk_body_solve_amg_pattern_diff,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_pdiff,
                                 .reds = "sum:int64"};

static const char *const sig_fcount[] = {"range" PC_MAT PC_R1("dinv", "float64")
                                           PC_R1("cnt", "int64") " theta=float64 n=int64",
                                         NULL};
static const sk_kbody k_fcount = {.label = "solve.amg_filter_count",
                                  .body = sk_body_solve_amg_filter_count,
                                  .pattern = SK_FOR,
                                  .sigs = sig_fcount};
static const char *const sig_ffill[] = {"range" PC_MAT PC_R1("dinv", "float64")
                                          PC_R1("gp", "int64") PC_R1("gc", "int32")
                                            " theta=float64",
                                        NULL};
static const sk_kbody k_ffill = {.label = "solve.amg_filter_fill",
                                 .body = sk_body_solve_amg_filter_fill,
                                 .pattern = SK_FOR,
                                 .sigs = sig_ffill};

/* solve.amg_filter: A_*, dinv (float64, D^-1), theta -> G_rowptr,
 * G_colidx: the graph aggregation runs on (the diagonal and the entries
 * with |a_ij| > theta sqrt(|a_ii a_jj|)) */
static int amg_filter(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "dinv",     "theta",    NULL};
  sk_csr A;
  const sk_view *dinv;
  double theta;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      !(dinv = sk_pc_vec(args, nargs, "dinv", A.nrows, &A, err, errlen)) ||
      sk_karg_f64(args, nargs, "theta", &theta, err, errlen) < 0)
    return -1;
  if (!(theta >= 0)) {
    sk_err(err, errlen, SK_E_AMG_DROP_TOL, theta);
    return -1;
  }
  const int space = A.rowptr->space;
  int64_t nnz = 0;
  sk_view gp, gc;
  memset(&gc, 0, sizeof gc);
  if (sk_sp_view(&gp, "G rowptr", SK_I64, A.nrows + 1, space, 1, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                sk_arg_view_ro("values", A.values), sk_arg_view("dinv", dinv),
                sk_arg_view("cnt", &gp),         sk_arg_f64("theta", theta),
                sk_arg_i64("n", A.nrows)};
  sk_arg f[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                sk_arg_view_ro("values", A.values), sk_arg_view("dinv", dinv),
                sk_arg_view("gp", &gp),          sk_arg_view("gc", &gc),
                sk_arg_f64("theta", theta)};
  if ((A.nrows > 0 && sk_sp_range(&k_fcount, A.nrows, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
      sk_sp_scan(&gp, &gp, A.nrows, &nnz, err, errlen) < 0 ||
      sk_sp_view(&gc, "G colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
      (A.nrows > 0 && sk_sp_range(&k_ffill, A.nrows, f, PC_NELEM(f), NULL, err, errlen) < 0) ||
      sk_kout_view(out, "G_rowptr", &gp, err, errlen) < 0) {
    sk_view_release(&gp);
    sk_view_release(&gc);
    return -1;
  }
  return sk_kout_view(out, "G_colidx", &gc, err, errlen);
}

static const char *const sig_sym[] = {"range" PC_MAT " sorted=int64", NULL};
static const sk_kbody k_sym = {.label = "solve.amg_symmetry",
                               .body = sk_body_solve_amg_symmetry,
                               .pattern = SK_REDUCE,
                               .sigs = sig_sym,
                               .reds = "sum:float64 sum:float64 sum:float64 sum:float64"};

static const char *const sig_sym_dia[] = {"range" PC_R1("dc", "uint8") PC_R1("dtab", "float64")
                                            PC_R1("doff", "int64") " nd=int64 w=int64",
                                          NULL};
static const sk_kbody k_sym_dia = {.label = "solve.amg_symmetry_dia",
                                   .body = sk_body_solve_amg_symmetry_dia,
                                   .pattern = SK_REDUCE,
                                   .sigs = sig_sym_dia,
                                   .reds = "sum:float64 sum:float64"};

/* the symmetry sums over A's diagonal form (on the host, where sparse has
 * one for A or makes it now: 'uses', the SpMVs the caller will make with
 * A, counted toward sparse's memos, csr16.c): 1 done, 0 where A has none
 * (a device, no form, or values not float64) */
static int symmetry_dia(const sk_csr *A, int64_t uses, double *d, double *t, char *err,
                        size_t errlen) {
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (!sk_sp_host(be) || A->values->dtype != SK_F64 || A->nrows != A->ncols) return 0;
  sk_csr16 c16;
  sk_vdict vd;
  sk_dia dg;
  sk_view off;
  memset(&off, 0, sizeof off);
  int rc = sk_dia_memos(A, uses, &c16, &vd, &dg, err, errlen);
  if (rc == 0 && dg.ok && dg.tab.dtype == SK_F64 &&
      (rc = sk_dia_offsets(&dg, &off, err, errlen)) == 0) {
    sk_arg a[] = {sk_arg_view_ro("dc", &dg.code), sk_arg_view_ro("dtab", &dg.tab),
                  sk_arg_view_ro("doff", &off),  sk_arg_i64("nd", dg.nd),
                  sk_arg_i64("w", dg.width)};
    sk_result r;
    rc = sk_sp_range(&k_sym_dia, A->nrows, a, PC_NELEM(a), &r, err, errlen) < 0 ? -1 : 1;
    if (rc > 0) *d = sk_result_f64(&r, 0), *t = sk_result_f64(&r, 1);
  }
  sk_view_release(&off);
  sk_dia_release(&dg);
  sk_vdict_release(&vd);
  sk_csr16_release(&c16);
  return rc;
}

/* solve.amg_symmetry: A_* [, sorted = 0, uses = 1] -> diff = sum |a_ij -
 * a_ji|, total = sum |a_ij| (one pass, no transpose; over A's diagonal
 * form where it has one (symmetry_dia: 'uses' as there), else over the
 * rows: sorted, one bisection a pair of entries, amg.sk says how the lower
 * entries without a mirror are counted) */
static int amg_symmetry(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "sorted",   "uses",     NULL};
  sk_csr A;
  int64_t sorted, uses;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "sorted", 1, 0, &sorted, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "uses", 1, 1, &uses, err, errlen) < 0)
    return -1;
  double d = 0, t = 0;
  int dia = A.nrows > 0 ? symmetry_dia(&A, uses < 1 ? 1 : uses, &d, &t, err, errlen) : 0;
  if (dia < 0) return -1;
  if (A.nrows > 0 && !dia) {
    sk_arg a[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                  sk_arg_view_ro("values", A.values), sk_arg_i64("sorted", sorted != 0)};
    sk_result r;
    if (sk_sp_range(&k_sym, A.nrows, a, PC_NELEM(a), &r, err, errlen) < 0) return -1;
    d = sk_result_f64(&r, 0), t = sk_result_f64(&r, 1);
    /* (the count is exact: whole numbers below 2^53) */
    if (sorted && sk_result_f64(&r, 3) != 0) d += sk_result_f64(&r, 2);
  }
  if (sk_kout_num(out, "diff", d, err, errlen) < 0) return -1;
  return sk_kout_num(out, "total", t, err, errlen);
}

static const char *const sig_acount[] = {"range" PC_R1("rowptr", "int64")
                                           PC_R1("colidx", "int32") PC_R1("cnt", "int64")
                                             " nb=int64 n=int64",
                                         NULL};
static const sk_kbody k_acount = {.label = "solve.amg_amalg_count",
                                  .body = sk_body_solve_amg_amalg_count,
                                  .pattern = SK_FOR,
                                  .sigs = sig_acount};
static const char *const sig_afill[] = {"range" PC_R1("rowptr", "int64")
                                          PC_R1("colidx", "int32") PC_R1("gp", "int64")
                                            PC_R1("gc", "int32") " nb=int64",
                                        NULL};
static const sk_kbody k_afill = {.label = "solve.amg_amalg_fill",
                                 .body = sk_body_solve_amg_amalg_fill,
                                 .pattern = SK_FOR,
                                 .sigs = sig_afill};
static const char *const sig_expand[] = {
  "range" PC_R1("nlab", "int64") PC_R1("lab", "int64") " nb=int64", NULL};
static const sk_kbody k_expand = {.label = "solve.amg_expand",
                                  .body = sk_body_solve_amg_expand,
                                  .pattern = SK_FOR,
                                  .sigs = sig_expand};

/* solve.amg_amalgamate: G_rowptr, G_colidx (rows sorted), nb (1..16: the
 * unknowns a node, dividing the rows) -> N_rowptr, N_colidx: the graph of
 * the nodes */
static int amg_amalgamate(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                          size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "nb", NULL};
  const sk_view *rp, *ci;
  int64_t nb;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(rp = sk_karg_view(args, nargs, "G_rowptr", 1, err, errlen)) ||
      !(ci = sk_karg_view(args, nargs, "G_colidx", 1, err, errlen)) ||
      sk_karg_i64(args, nargs, "nb", 0, 0, &nb, err, errlen) < 0)
    return -1;
  const int64_t n = rp->extent[0] - 1;
  if (rp->dtype != SK_I64 || ci->dtype != SK_I32 || n < 0) {
    sk_err(err, errlen, SK_E_AMG_GRAPH);
    return -1;
  }
  if (nb < 1 || nb > 16 || n % nb != 0) {
    sk_err(err, errlen, SK_E_AMG_BLOCK_SIZE, (long long)nb, (long long)n);
    return -1;
  }
  const int64_t nn = n / nb;
  const int space = rp->space;
  int64_t nnz = 0;
  sk_view gp, gc;
  memset(&gc, 0, sizeof gc);
  if (sk_sp_view(&gp, "N rowptr", SK_I64, nn + 1, space, 1, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view_ro("rowptr", rp), sk_arg_view_ro("colidx", ci), sk_arg_view("cnt", &gp),
                sk_arg_i64("nb", nb), sk_arg_i64("n", nn)};
  sk_arg f[] = {sk_arg_view_ro("rowptr", rp), sk_arg_view_ro("colidx", ci), sk_arg_view("gp", &gp),
                sk_arg_view("gc", &gc), sk_arg_i64("nb", nb)};
  if ((nn > 0 && sk_sp_range(&k_acount, nn, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
      sk_sp_scan(&gp, &gp, nn, &nnz, err, errlen) < 0 ||
      sk_sp_view(&gc, "N colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
      (nn > 0 && sk_sp_range(&k_afill, nn, f, PC_NELEM(f), NULL, err, errlen) < 0) ||
      sk_kout_view(out, "N_rowptr", &gp, err, errlen) < 0) {
    sk_view_release(&gp);
    sk_view_release(&gc);
    return -1;
  }
  return sk_kout_view(out, "N_colidx", &gc, err, errlen);
}

/* solve.amg_expand: nlab (int64, the aggregate of each node), nb ->
 * labels (int64, nb entries a node: its unknowns') */
static int amg_expand(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"nlab", "nb", NULL};
  const sk_view *nl;
  int64_t nb;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(nl = sk_karg_view(args, nargs, "nlab", 1, err, errlen)) ||
      sk_karg_i64(args, nargs, "nb", 0, 0, &nb, err, errlen) < 0)
    return -1;
  if (nl->dtype != SK_I64 || nb < 1 || nb > 16) {
    sk_err(err, errlen, SK_E_AMG_BLOCK_SIZE, (long long)nb, (long long)(nl->extent[0] * nb));
    return -1;
  }
  const int64_t n = nl->extent[0] * nb;
  sk_view lab;
  if (sk_sp_view(&lab, "labels", SK_I64, n, nl->space, 0, err, errlen) < 0) return -1;
  sk_arg a[] = {sk_arg_view("nlab", nl), sk_arg_view("lab", &lab), sk_arg_i64("nb", nb)};
  if (n > 0 && sk_sp_range(&k_expand, n, a, PC_NELEM(a), NULL, err, errlen) < 0) {
    sk_view_release(&lab);
    return -1;
  }
  return sk_kout_view(out, "labels", &lab, err, errlen);
}

static const char *const sig_bns[] = {"range" PC_R1("b", "float64") " nb=int64", NULL};
static const sk_kbody k_bns = {.label = "solve.amg_block_ns",
                               .body = sk_body_solve_amg_block_ns,
                               .pattern = SK_FOR,
                               .sigs = sig_bns};

/* solve.amg_block_nullspace: b (float64, n*nb), nb: b = the nb constant
 * vectors of a system, one a component (flat, row-major n x nb) */
static int amg_block_nullspace(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                               size_t errlen) {
  static const char *const known[] = {"b", "nb", NULL};
  (void)out;
  const sk_view *b;
  int64_t nb;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(b = sk_karg_view(args, nargs, "b", 1, err, errlen)) ||
      sk_karg_i64(args, nargs, "nb", 0, 0, &nb, err, errlen) < 0)
    return -1;
  if (b->dtype != SK_F64 || nb < 1 || nb > 16 || b->extent[0] % (nb * nb) != 0) {
    sk_err(err, errlen, SK_E_AMG_BLOCK_SIZE, (long long)nb, (long long)(b->extent[0] / nb));
    return -1;
  }
  const int64_t n = b->extent[0] / nb;
  sk_arg a[] = {sk_arg_view("b", b), sk_arg_i64("nb", nb)};
  return n > 0 ? sk_sp_range(&k_bns, n, a, PC_NELEM(a), NULL, err, errlen) : 0;
}

/* solve.amg_nullspace: V (rank 2, float64, n x k) -> b (flat, n*k, V's
 * space), k */
static int amg_nullspace(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                         size_t errlen) {
  static const char *const known[] = {"V", NULL};
  const sk_view *V;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(V = sk_karg_view(args, nargs, "V", 2, err, errlen)))
    return -1;
  if (V->dtype != SK_F64) {
    sk_err(err, errlen, SK_E_PC_NOT_F64, "V", sk_dtypes[V->dtype].name);
    return -1;
  }
  const int64_t n = V->extent[0], k = V->extent[1];
  sk_view b;
  if (sk_sp_view(&b, "near-null space", SK_F64, n * k, V->space, 0, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("V", V), sk_arg_view("b", &b), sk_arg_i64("nk", k)};
  if ((n > 0 && sk_sp_range(&k_flat, n, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
      sk_kout_num(out, "k", (double)k, err, errlen) < 0) {
    sk_view_release(&b);
    return -1;
  }
  return sk_kout_view(out, "b", &b, err, errlen);
}

/* solve.amg_tentative: labels (int64, n: the aggregate of each row, 0 ..
 * nagg - 1), nagg, b (float64, n*k: the near-null space, flat), k ->
 * P_rowptr, P_colidx, P_values (n x nagg*k, k entries a row), bc (the
 * coarse near-null space, flat, nagg*k x k) */
static int amg_tentative(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                         size_t errlen) {
  static const char *const known[] = {"labels", "nagg", "b", "k", NULL};
  const sk_view *lab, *bf;
  int64_t nagg, k;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(lab = sk_karg_view(args, nargs, "labels", 1, err, errlen)) ||
      !(bf = sk_karg_view(args, nargs, "b", 1, err, errlen)) ||
      sk_karg_i64(args, nargs, "nagg", 0, 0, &nagg, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "k", 0, 0, &k, err, errlen) < 0)
    return -1;
  const int64_t n = lab->extent[0];
  if (lab->dtype != SK_I64 || bf->dtype != SK_F64 || k < 1 || nagg < 0 ||
      bf->extent[0] != n * k || bf->space != lab->space) {
    sk_err(err, errlen, SK_E_AMG_TENTATIVE_ARGS, (long long)n, (long long)k);
    return -1;
  }
  const int space = lab->space;
  int rc = -1;
  int64_t tot = 0, pn = 0, row = INT64_MAX;
  sk_view cnt, cur, arows, bad, v[4];
  sk_view *tmp[] = {&cnt, &cur, &arows, &bad};
  for (int q = 0; q < 4; q++) memset(tmp[q], 0, sizeof(sk_view)), memset(&v[q], 0, sizeof v[q]);
  if (sk_sp_view(&cnt, "aggregate pointers", SK_I64, nagg + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&cur, "aggregate cursors", SK_I64, nagg + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&arows, "aggregate rows", SK_I64, n, space, 0, err, errlen) < 0 ||
      sk_pc_flag(&bad, space, err, errlen) < 0 ||
      sk_sp_view(&v[0], "P rowptr", SK_I64, n + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&v[3], "coarse near-null space", SK_F64, nagg * k * k, space, 0, err,
                 errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("lab", lab), sk_arg_view("cnt", &cnt), sk_arg_view("rc", &v[0]),
                  sk_arg_i64("nk", k)};
    sk_arg f[] = {sk_arg_view("lab", lab), sk_arg_view("aptr", &cnt),
                  sk_arg_view("cur", &cur), sk_arg_view("arows", &arows)};
    if ((n > 0 && sk_sp_range(&k_count, n, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
        sk_sp_scan(&cnt, &cnt, nagg, &tot, err, errlen) < 0 ||
        sk_sp_scan(&v[0], &v[0], n, &pn, err, errlen) < 0 ||
        (n > 0 && sk_sp_range(&k_fill, n, f, PC_NELEM(f), NULL, err, errlen) < 0) ||
        sk_sp_view(&v[1], "P colidx", SK_I32, pn, space, 0, err, errlen) < 0 ||
        sk_sp_view(&v[2], "P values", SK_F64, pn, space, 0, err, errlen) < 0)
      goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("aptr", &cnt), sk_arg_view("arows", &arows),
                  sk_arg_view("bf", bf),     sk_arg_view("rp", &v[0]),
                  sk_arg_view("pv", &v[2]),  sk_arg_view("pc", &v[1]),
                  sk_arg_view("bc", &v[3]),  sk_arg_view("bad", &bad),
                  sk_arg_i64("nk", k)};
    if (nagg > 0 && sk_sp_range(&k_qr, nagg, a, PC_NELEM(a), NULL, err, errlen) < 0)
      goto done;
  }
  if (sk_pc_flag_read(&bad, &row, err, errlen) < 0) goto done;
  if (row != INT64_MAX) {
    int64_t b0, e0;
    if (sk_sp_get_i64(&cnt, row, &b0, err, errlen) < 0 ||
        sk_sp_get_i64(&cnt, row + 1, &e0, err, errlen) < 0)
      goto done;
    sk_err(err, errlen, SK_E_AMG_RANK, (long long)row, (long long)(e0 - b0), (long long)k);
    goto done;
  }
  static const char *const names[] = {"P_rowptr", "P_colidx", "P_values", "bc"};
  for (int q = 0; q < 4; q++)
    if (sk_kout_view(out, names[q], &v[q], err, errlen) < 0) goto done;
  rc = 0;
done:
  for (int q = 0; q < 4; q++) sk_view_release(tmp[q]);
  if (rc < 0)
    for (int q = 0; q < 4; q++) sk_view_release(&v[q]);
  return rc;
}

/* solve.amg_drop_isolated: G_rowptr, G_colidx, labels (int64, the
 * aggregate of each node), nagg -> labels, nagg: the aggregates whose
 * nodes have no neighbour in G (isolated: Dirichlet rows) dropped, their
 * nodes labelled -1 (no coarse unknown, a zero row of P), the others
 * renumbered in order; no labels given back where no aggregate is dropped */
static int amg_drop_isolated(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                             size_t errlen) {
  static const char *const known[] = {"G_rowptr", "G_colidx", "labels", "nagg", NULL};
  const sk_view *rp, *ci, *lab;
  int64_t nagg;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(rp = sk_karg_view(args, nargs, "G_rowptr", 1, err, errlen)) ||
      !(ci = sk_karg_view(args, nargs, "G_colidx", 1, err, errlen)) ||
      !(lab = sk_karg_view(args, nargs, "labels", 1, err, errlen)) ||
      sk_karg_i64(args, nargs, "nagg", 0, 0, &nagg, err, errlen) < 0)
    return -1;
  const int64_t n = rp->extent[0] - 1;
  if (rp->dtype != SK_I64 || ci->dtype != SK_I32 || n < 0) {
    sk_err(err, errlen, SK_E_AMG_GRAPH);
    return -1;
  }
  if (lab->dtype != SK_I64 || lab->extent[0] != n || nagg < 0) {
    sk_err(err, errlen, SK_E_AMG_TENTATIVE_ARGS, (long long)n, (long long)1);
    return -1;
  }
  const int space = rp->space;
  int rc = -1;
  int64_t kept = 0;
  sk_view keep, nid, nl;
  memset(&nid, 0, sizeof nid);
  memset(&nl, 0, sizeof nl);
  if (sk_sp_view(&keep, "kept aggregates", SK_I64, nagg + 1, space, 1, err, errlen) < 0)
    return -1;
  if (sk_sp_view(&nid, "new aggregate numbers", SK_I64, nagg + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view_ro("rowptr", rp), sk_arg_view_ro("colidx", ci),
                  sk_arg_view("lab", lab), sk_arg_view("keep", &keep)};
    if ((n > 0 && sk_sp_range(&k_isokeep, n, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
        sk_sp_scan(&keep, &nid, nagg, &kept, err, errlen) < 0)
      goto done;
  }
  if (kept < nagg) {
    sk_arg a[] = {sk_arg_view("lab", lab), sk_arg_view("keep", &keep), sk_arg_view("nid", &nid),
                  sk_arg_view("out", &nl)};
    if (sk_sp_view(&nl, "labels", SK_I64, n, space, 0, err, errlen) < 0 ||
        (n > 0 && sk_sp_range(&k_relabel, n, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
        sk_kout_view(out, "labels", &nl, err, errlen) < 0)
      goto done;
  }
  rc = sk_kout_num(out, "nagg", (double)kept, err, errlen);
done:
  sk_view_release(&keep);
  sk_view_release(&nid);
  sk_view_release(&nl);
  return rc;
}

/* solve.amg_compact: A_* -> zeros (the stored zeros off the diagonal),
 * and where there are any B_rowptr, B_colidx, B_values: A without them */
static int amg_compact(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols", NULL};
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0)
    return -1;
  const int space = A.rowptr->space;
  sk_result r;
  int64_t zeros = 0, nnz = 0;
  sk_view bp, v[3];
  sk_vdict vd; /* A's codes, which B's take (B's values are some of A's) */
  memset(v, 0, sizeof v);
  memset(&vd, 0, sizeof vd);
  if (sk_sp_view(&bp, "B rowptr", SK_I64, A.nrows + 1, space, 1, err, errlen) < 0) return -1;
  sk_arg c[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                sk_arg_view_ro("values", A.values), sk_arg_view("cnt", &bp)};
  if (A.nrows > 0) {
    if (sk_sp_range(&k_nzcount, A.nrows, c, PC_NELEM(c), &r, err, errlen) < 0) goto fail;
    zeros = sk_result_i64(&r, 0);
  }
  if (sk_kout_num(out, "zeros", (double)zeros, err, errlen) < 0) goto fail;
  /* A's compact index and value codes, the memos that the Krylov method's
   * SpMVs with A read (csr16.c, vdict.c), made here: inside the setup's
   * small-page scope their first touch costs a fraction of what it costs
   * on huge pages in CG's first iteration (docs/bench-solvers.md) */
  {
    sk_csr16 c16;
    sk_dia dg;
    const sk_backend *be = sk_sp_backend(err, errlen);
    if (!be) goto fail;
    int rc;
    if (sk_sp_host(be)) { /* (the diagonal form, then no index: dia.c) */
      rc = sk_dia_memos(&A, SK_CSR16_USES, &c16, &vd, &dg, err, errlen);
      sk_dia_release(&dg);
    } else {
      rc = sk_csr16_get(A.rowptr, A.colidx, SK_CSR16_USES, &c16, err, errlen);
      if (rc == 0 && c16.ok) rc = sk_vdict_get(A.values, SK_CSR16_USES, &vd, err, errlen);
    }
    sk_csr16_release(&c16);
    if (rc < 0) goto fail;
  }
  if (zeros == 0) {
    sk_view_release(&bp);
    sk_vdict_release(&vd);
    return 0;
  }
  {
    /* where A has codes, B's are A's of the entries kept (no coding pass
     * over B: its values are A's, the same table serves), kept as B's */
    sk_arg f[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                  sk_arg_view_ro("values", A.values), sk_arg_view("bp", &bp),
                  sk_arg_view("bc", &v[0]),        sk_arg_view("bv", &v[1]),
                  sk_arg_view_ro("vc", &vd.code),  sk_arg_view("bcode", &v[2])};
    if (sk_sp_scan(&bp, &bp, A.nrows, &nnz, err, errlen) < 0 ||
        sk_sp_view(&v[0], "B colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
        sk_sp_view(&v[1], "B values", SK_F64, nnz, space, 0, err, errlen) < 0 ||
        (vd.ok && sk_sp_view(&v[2], "value codes", SK_U8, nnz, space, 0, err, errlen) < 0))
      goto fail;
    if (A.nrows > 0 && (vd.ok ? sk_sp_range(&k_nzfillc, A.nrows, f, PC_NELEM(f), NULL, err, errlen)
                              : sk_sp_range(&k_nzfill, A.nrows, f, 6, NULL, err, errlen)) < 0)
      goto fail;
    if (vd.ok) {
      sk_vdict bd = {.code = v[2], .tab = vd.tab, .ok = 1};
      (void)sk_vdict_adopt(&v[1], &bd);
    }
  }
  if (sk_kout_view(out, "B_rowptr", &bp, err, errlen) < 0 ||
      sk_kout_view(out, "B_colidx", &v[0], err, errlen) < 0 ||
      sk_kout_view(out, "B_values", &v[1], err, errlen) < 0)
    goto fail;
  sk_view_release(&v[2]);
  sk_vdict_release(&vd);
  return 0;
fail:
  sk_view_release(&bp);
  for (int q = 0; q < 3; q++) sk_view_release(&v[q]);
  sk_vdict_release(&vd);
  return -1;
}

/* solve.amg_pattern_diff: A_rowptr, A_colidx, B_rowptr, B_colidx (as many
 * rows) -> rows (where the two patterns differ) */
static int amg_pattern_diff(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                            size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "B_rowptr", "B_colidx", NULL};
  const sk_view *ap, *ac, *bp, *bc;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(ap = sk_karg_view(args, nargs, "A_rowptr", 1, err, errlen)) ||
      !(ac = sk_karg_view(args, nargs, "A_colidx", 1, err, errlen)) ||
      !(bp = sk_karg_view(args, nargs, "B_rowptr", 1, err, errlen)) ||
      !(bc = sk_karg_view(args, nargs, "B_colidx", 1, err, errlen)))
    return -1;
  const int64_t n = ap->extent[0] - 1;
  if (ap->dtype != SK_I64 || bp->dtype != SK_I64 || ac->dtype != SK_I32 ||
      bc->dtype != SK_I32 || n < 0 || bp->extent[0] != n + 1) {
    sk_err(err, errlen, SK_E_AMG_GRAPH);
    return -1;
  }
  int64_t d = 0;
  if (ac->extent[0] != bc->extent[0]) {
    d = n > 0 ? n : 1;
  } else if (n > 0) {
    sk_arg a[] = {sk_arg_view("ap", ap), sk_arg_view("ac", ac), sk_arg_view("bp", bp),
                  sk_arg_view("bc", bc)};
    sk_result r;
    if (sk_sp_range(&k_pdiff, n, a, PC_NELEM(a), &r, err, errlen) < 0) return -1;
    d = sk_result_i64(&r, 0);
  }
  return sk_kout_num(out, "rows", (double)d, err, errlen);
}

static const char *const sig_scount[] = {"team" PC_R1("rowptr", "int64") PC_R1("colidx", "int32")
                                           PC_R1("prp", "int64") PC_R1("pci", "int32")
                                             PC_R1("cnt", "int64") PC_R1("bad", "int64")
                                               " nb=int64 rpt=int64",
                                         NULL};
static const sk_kbody k_scount = {.label = "solve.amg_smooth_count",
                                  .body = sk_body_solve_amg_smooth_count,
                                  .pattern = SK_FOR,
                                  .sigs = sig_scount};
static const char *const sig_sfill[] = {"team" PC_MAT PC_R1("prp", "int64") PC_R1("pci", "int32")
                                          PC_R1("pv", "float64") PC_R1("crp", "int64")
                                            PC_R1("cci", "int32") PC_R1("cv", "float64")
                                              PC_R1("bad", "int64")
                                                " nb=int64 rpt=int64 omega=float64",
                                        NULL};
static const sk_kbody k_sfill = {.label = "solve.amg_smooth_fill",
                                 .body = sk_body_solve_amg_smooth_fill,
                                 .pattern = SK_FOR,
                                 .sigs = sig_sfill};

/* aggregates up to which the host's dense accumulator is used (12 bytes
 * an aggregate a thread, as sparse.spgemm's) */
#define SMOOTH_DENSE_MAX ((int64_t)1 << 22)

/* the dense marker's teams (sparse.spgemm's dense_policy): blocks of
 * rows whose work pays the marker's reset eight times over, a multiple of
 * the threads, at most 16 a thread; 'bytes' of scratch an aggregate */
static void smooth_policy(const sk_backend *b, const sk_csr *A, int64_t nagg, int64_t bytes,
                          sk_policy *p, int64_t *rpt) {
  sk_policy_init(p, SK_POL_TEAM);
  p->team_size = 1;
  p->vector_length = 1;
  p->schedule = SK_DYNAMIC;
  p->scratch_thread[1] = bytes * nagg + 64;
  int64_t conc = b->concurrency ? b->concurrency() : 1;
  if (conc < 1) conc = 1;
  int64_t nnz = A->colidx->extent[0];
  int64_t L = nnz / (8 * (nagg + 1));
  if (L < conc) L = conc;
  if (L > 16 * conc) L = 16 * conc;
  L = (L + conc - 1) / conc * conc;
  *rpt = (A->nrows + L - 1) / L;
  if (*rpt < 1) *rpt = 1;
  p->league_size = (A->nrows + *rpt - 1) / *rpt;
}

/* solve.amg_smooth: omega, A_*, P_* (the tentative prolongator, at most
 * one entry a row) -> C_rowptr, C_colidx, C_values: (I - omega D^-1 A) P
 * in two passes over A (count with the columns only, fill), with no
 * bounds pass, no diagonal pass and no loop over P's rows; the same values
 * as sparse.spgemm_jacobi's host product, bit for bit (amg.sk). Gives back
 * only general = 1 off the host, past SMOOTH_DENSE_MAX aggregates, where
 * a row of P has more than one entry, or where a diagonal is zero: the
 * caller takes sparse.spgemm_jacobi then (which names a zero diagonal) */
static int amg_smooth(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols", "P_rowptr",
                                      "P_colidx", "P_values", "P_ncols",  "omega",   NULL};
  sk_csr A, P;
  double omega;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be || sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "P", 1, &P, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "omega", &omega, err, errlen) < 0)
    return -1;
  if (P.nrows != A.ncols || P.values->dtype != SK_F64 || P.rowptr->space != A.rowptr->space) {
    char sa[48], sp[48];
    sk_err(err, errlen, SK_E_AMG_SMOOTH_ARGS, sk_csr_shape(&P, sp, sizeof sp),
           sk_csr_shape(&A, sa, sizeof sa));
    return -1;
  }
  if (!sk_sp_host(be) || P.ncols > SMOOTH_DENSE_MAX)
    return sk_kout_num(out, "general", 1, err, errlen);
  const int space = A.rowptr->space;
  int rc = -1;
  int64_t row = INT64_MAX, nnz = 0, rpt;
  sk_view crp, bad, ci, cv;
  sk_policy pol;
  memset(&bad, 0, sizeof bad);
  memset(&ci, 0, sizeof ci);
  memset(&cv, 0, sizeof cv);
  if (sk_sp_view(&crp, "C rowptr", SK_I64, A.nrows + 1, space, 1, err, errlen) < 0) return -1;
  if (sk_pc_flag(&bad, space, err, errlen) < 0) goto done;
  smooth_policy(be, &A, P.ncols, 4, &pol, &rpt);
  {
    sk_arg a[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                  sk_arg_view_ro("prp", P.rowptr),    sk_arg_view_ro("pci", P.colidx),
                  sk_arg_view("cnt", &crp),           sk_arg_view("bad", &bad),
                  sk_arg_i64("nb", P.ncols),          sk_arg_i64("rpt", rpt)};
    if ((A.nrows > 0 && sk_kbody_launch(&k_scount, &pol, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
        sk_pc_flag_read(&bad, &row, err, errlen) < 0)
      goto done;
  }
  if (row != INT64_MAX) {
    rc = sk_kout_num(out, "general", 1, err, errlen);
    goto done;
  }
  if (sk_sp_scan(&crp, &crp, A.nrows, &nnz, err, errlen) < 0 ||
      sk_sp_view(&ci, "C_colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cv, "C_values", SK_F64, nnz, space, 0, err, errlen) < 0)
    goto done;
  smooth_policy(be, &A, P.ncols, 12, &pol, &rpt);
  {
    sk_arg f[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                  sk_arg_view_ro("values", A.values), sk_arg_view_ro("prp", P.rowptr),
                  sk_arg_view_ro("pci", P.colidx),    sk_arg_view_ro("pv", P.values),
                  sk_arg_view("crp", &crp),           sk_arg_view("cci", &ci),
                  sk_arg_view("cv", &cv),             sk_arg_view("bad", &bad),
                  sk_arg_i64("nb", P.ncols),          sk_arg_i64("rpt", rpt),
                  sk_arg_f64("omega", omega)};
    if ((A.nrows > 0 && sk_kbody_launch(&k_sfill, &pol, f, PC_NELEM(f), NULL, err, errlen) < 0) ||
        sk_pc_flag_read(&bad, &row, err, errlen) < 0)
      goto done;
  }
  if (row != INT64_MAX) {
    rc = sk_kout_num(out, "general", 1, err, errlen);
    goto done;
  }
  /* (sk_kout_view moves the reference: the views below are empty then) */
  if (sk_kout_view(out, "C_rowptr", &crp, err, errlen) < 0 ||
      sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0)
    goto done;
  rc = sk_kout_view(out, "C_values", &cv, err, errlen);
done:
  sk_view_release(&bad);
  sk_view_release(&crp);
  sk_view_release(&ci);
  sk_view_release(&cv);
  return rc;
}

/* solve.amg_resid: A_*, b, x, t: t = b - A x (a cycle's residual). On the
 * host by diagonals where A has the form (dia.c: one pass, no copy of b);
 * else a copy of b and sparse.spmv (alpha -1, beta 1): the same values */
static int amg_resid(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "b",        "x",        "t",        NULL};
  (void)out;
  sk_csr A;
  const sk_view *b, *x, *t;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      !(b = sk_pc_vec(args, nargs, "b", A.nrows, &A, err, errlen)) ||
      !(x = sk_pc_vec(args, nargs, "x", A.nrows, &A, err, errlen)) ||
      !(t = sk_pc_vec(args, nargs, "t", A.nrows, &A, err, errlen)))
    return -1;
  if (A.nrows == 0) return 0;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (sk_sp_host(be) && t != b && t != x && t->data != b->data && t->data != x->data) {
    sk_csr16 c16;
    sk_vdict vd;
    sk_dia dg;
    int rc = sk_dia_memos(&A, 1, &c16, &vd, &dg, err, errlen);
    if (rc == 0 && dg.ok) rc = sk_dia_resid(&dg, &A, b, x, t, err, errlen) < 0 ? -1 : 1;
    sk_dia_release(&dg);
    sk_vdict_release(&vd);
    sk_csr16_release(&c16);
    if (rc != 0) return rc < 0 ? -1 : 0;
  }
  sk_view tc = *t; /* the caller's view (deep_copy takes a mutable one) */
  if (sk_view_deep_copy(&tc, b, err, errlen) < 0) return -1;
  return sk_sp_spmv('N', -1.0, &A, x, 1.0, t, NULL, err, errlen);
}

static const sk_kentry e_nullspace = {"solve.amg_nullspace", "V (rank 2)", SK_KRES_NONE,
                                      amg_nullspace};
static const sk_kentry e_tentative = {"solve.amg_tentative", "labels, nagg, b, k",
                                      SK_KRES_NONE, amg_tentative};
static const sk_kentry e_filter = {"solve.amg_filter", "A_*, dinv, theta", SK_KRES_NONE,
                                   amg_filter};
static const sk_kentry e_symmetry = {"solve.amg_symmetry", "A_* [, sorted, uses]", SK_KRES_NONE,
                                     amg_symmetry};
static const sk_kentry e_amalgamate = {"solve.amg_amalgamate", "G_rowptr, G_colidx, nb",
                                       SK_KRES_NONE, amg_amalgamate};
static const sk_kentry e_expand = {"solve.amg_expand", "nlab, nb", SK_KRES_NONE, amg_expand};
static const sk_kentry e_block_ns = {"solve.amg_block_nullspace", "b, nb", SK_KRES_NONE,
                                     amg_block_nullspace};
static const sk_kentry e_drop_isolated = {"solve.amg_drop_isolated",
                                          "G_rowptr, G_colidx, labels, nagg", SK_KRES_NONE,
                                          amg_drop_isolated};
static const sk_kentry e_smooth = {"solve.amg_smooth", "omega, A_*, P_*", SK_KRES_NONE,
                                   amg_smooth};
static const sk_kentry e_compact = {"solve.amg_compact", "A_*", SK_KRES_NONE, amg_compact};
static const sk_kentry e_resid = {"solve.amg_resid", "A_*, b, x, t", SK_KRES_NONE, amg_resid};
static const sk_kentry e_pattern_diff = {"solve.amg_pattern_diff",
                                         "A_rowptr, A_colidx, B_rowptr, B_colidx", SK_KRES_NONE,
                                         amg_pattern_diff};
const sk_kentry *const sk_pc_amg_entries[] = {&e_nullspace, &e_tentative,  &e_filter,
                                              &e_symmetry,  &e_amalgamate, &e_expand,
                                              &e_block_ns,  &e_drop_isolated, &e_compact,
                                              &e_pattern_diff, &e_smooth, &e_resid, NULL};
const sk_kbody *const sk_pc_amg_bodies[] = {&k_count,   &k_fill,    &k_flat,    &k_qr,
                                            &k_fcount,  &k_ffill,   &k_sym,     &k_acount,
                                            &k_afill,   &k_expand,  &k_bns,     &k_isokeep,
                                            &k_relabel, &k_nzcount, &k_nzfill,  &k_pdiff,
                                            &k_scount,  &k_sfill,   &k_sym_dia, &k_nzfillc, NULL};
