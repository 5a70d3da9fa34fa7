/* spmv.c: y = beta*y + alpha*op(A)*x for op N, T, C, H and rank-1 or
 * rank-2 (multivector) x and y (seed 000 section 2.1), and the structured
 * SpMV of section 2.1.1 for 3, 5, 7, 9 and 27-point stencils on a box.
 *
 * Behind the one entry point are specialised kernels: plain single
 * vector, plain multivector, transpose single vector, transpose
 * multivector; the plain single-vector kernel has a host form with one
 * level of parallelism (the rows cut into one run per thread of equal
 * entries-plus-rows, each run a plain CSR loop) and a team form for the
 * GPU (seed 002's team SpMV: a team per block of rows, a thread per row,
 * vector lanes over the row's entries). Values are real, so C is N and H
 * is T. The transpose kernels scatter with atomic adds (after y = beta*y).
 * BLAS rules: beta = 0 overwrites y (NaN included); alpha = 0 does not
 * read A or x. A stencil's matrix with value codes takes its diagonal
 * form instead (dia.c: no index read, the same sums).
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define R2(name, dt) " " name "=" dt "[2]"
#define MAT(VT)      R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT)
/* the compact index's (csr16.c) */
#define MAT16(VT)    R1("rowptr", "int32") R1("off", "int16") R1("values", VT)
/* and the value codes' (vdict.c) */
#define MAT16V(VT)   R1("rowptr", "int32") R1("off", "int16") R1("vcode", "uint8") R1("vtab", VT)

/* -- bodies ------------------------------------------------------------------ */
/* host, plain, one vector: chunk i of 'nchunk' runs of rows */
/* the signatures take the matrix's form: MAT (plain) or MAT16 (compact) */
#define HN_SIG(M, VT) \
  "range" M(VT) R1("x", VT) R1("y", VT) " alpha=float64 beta=float64 nchunk=int64"
static const char *const sig_hn[] = {HN_SIG(MAT, "float64"), HN_SIG(MAT, "float32"), NULL};
static const sk_kbody k_spmv_host = {.label = "sparse.spmv",
                                     .body = sk_body_sparse_spmv,
                                     .prelude = sk_body_sparse_row_split,
                                     .pattern = SK_FOR,
                                     .sigs = sig_hn};

static const char *const sig_hn16[] = {HN_SIG(MAT16, "float64"), HN_SIG(MAT16, "float32"),
                                       NULL};
static const sk_kbody k_spmv16_host = {.label = "sparse.spmv16",
                                       .body = sk_body_sparse_spmv16,
                                       .prelude = sk_body_sparse_row_split,
                                       .pattern = SK_FOR,
                                       .sigs = sig_hn16};

static const char *const sig_hn16v[] = {HN_SIG(MAT16V, "float64"), HN_SIG(MAT16V, "float32"),
                                        NULL};
static const sk_kbody k_spmv16v_host = {.label = "sparse.spmv16v",
                                        .body = sk_body_sparse_spmv16v,
                                        .prelude = sk_body_sparse_row_split,
                                        .pattern = SK_FOR,
                                        .sigs = sig_hn16v};

/* GPU form (also runs on the host): a team per 'rpt' rows */
#define TN_SIG(M, VT) \
  "team" M(VT) R1("x", VT) R1("y", VT) " alpha=float64 beta=float64 rpt=int64"
static const char *const sig_tn[] = {TN_SIG(MAT, "float64"), NULL};
static const sk_kbody k_spmv_team = {.label = "sparse.spmv_team",
                                     .body = sk_body_sparse_spmv_team,
                                     .pattern = SK_FOR,
                                     .sigs = sig_tn};
static const char *const sig_tn16[] = {TN_SIG(MAT16, "float64"), NULL};
static const sk_kbody k_spmv16_team = {.label = "sparse.spmv16_team",
                                       .body = sk_body_sparse_spmv16_team,
                                       .pattern = SK_FOR,
                                       .sigs = sig_tn16};

static const char *const sig_tn16v[] = {TN_SIG(MAT16V, "float64"), NULL};
static const sk_kbody k_spmv16v_team = {.label = "sparse.spmv16v_team",
                                        .body = sk_body_sparse_spmv16v_team,
                                        .pattern = SK_FOR,
                                        .sigs = sig_tn16v};

/* plain, multivector: a row per index */
#define MN_SIG(VT) "range" MAT(VT) R2("x", VT) R2("y", VT) " alpha=float64 beta=float64"
static const char *const sig_mn[] = {MN_SIG("float64"), MN_SIG("float32"), NULL};
static const sk_kbody k_spmv_mv = {.label = "sparse.spmv_mv",
                                   .body = sk_body_sparse_spmv_mv,
                                   .pattern = SK_FOR,
                                   .sigs = sig_mn};

/* transpose, one vector: row i scatters alpha*x(i)*A(i,:) into y */
#define HT_SIG(M, VT) "range" M(VT) R1("x", VT) R1("y", VT) " alpha=float64"
static const char *const sig_ht[] = {HT_SIG(MAT, "float64"), HT_SIG(MAT, "float32"), NULL};
static const sk_kbody k_spmv_t = {.label = "sparse.spmv_t",
                                  .body = sk_body_sparse_spmv_t,
                                  .pattern = SK_FOR,
                                  .sigs = sig_ht};
static const char *const sig_ht16[] = {HT_SIG(MAT16, "float64"), HT_SIG(MAT16, "float32"),
                                       NULL};
static const sk_kbody k_spmv16_t = {.label = "sparse.spmv16_t",
                                    .body = sk_body_sparse_spmv16_t,
                                    .pattern = SK_FOR,
                                    .sigs = sig_ht16};

#define MT_SIG(VT) "range" MAT(VT) R2("x", VT) R2("y", VT) " alpha=float64"
static const char *const sig_mt[] = {MT_SIG("float64"), MT_SIG("float32"), NULL};
static const sk_kbody k_spmv_mv_t = {.label = "sparse.spmv_mv_t",
                                     .body = sk_body_sparse_spmv_mv_t,
                                     .pattern = SK_FOR,
                                     .sigs = sig_mt};

/* y = beta*y (beta = 0: zeros), a row per index */
static const char *const sig_scale[] = {"range" R1("y", "float64") " beta=float64",
                                        "range" R1("y", "float32") " beta=float64", NULL};
static const sk_kbody k_scale = {.label = "sparse.scale",
                                 .body = sk_body_sparse_scale,
                                 .pattern = SK_FOR,
                                 .sigs = sig_scale};
static const char *const sig_scale2[] = {"range" R2("y", "float64") " beta=float64",
                                         "range" R2("y", "float32") " beta=float64",
                                         NULL};
static const sk_kbody k_scale2 = {.label = "sparse.scale_mv",
                                  .body = sk_body_sparse_scale_mv,
                                  .pattern = SK_FOR,
                                  .sigs = sig_scale2};

/* -- the driver ------------------------------------------------------------- */
static int scale(const sk_view *y, double beta, char *err, size_t errlen) {
  if (beta == 1) return 0;
  sk_arg a[] = {sk_arg_view("y", y), sk_arg_f64("beta", beta)};
  return sk_sp_range(y->rank == 1 ? &k_scale : &k_scale2, y->extent[0], a, NELEM(a), NULL,
                     err, errlen);
}

/* vector lanes for rows of 'avg' entries, and the team shape */
static void team_shape(const sk_backend *b, double avg, int *T, int *V, int64_t *rpt) {
  sk_team_limits lim;
  b->team_limits(&lim);
  int v = 1;
  if (sk_sp_host(b))
    while (v < 32 && v < avg) v *= 2;
  else /* lanes for about a quarter of the row: measured on an H200, 2 for
        * the 5-point matrix (5 entries a row), 8 for the 27-point */
    while (v < 32 && 4 * v <= avg) v *= 2;
  if (v > lim.vector_length_max) v = lim.vector_length_max;
  int t = sk_sp_host(b) ? 1 : 16;
  if (t > lim.team_size_max) t = lim.team_size_max;
  if (t < 1) t = 1;
  *T = t;
  *V = v;
  /* GPU: a row per team member, 16 rows a team (the H200's best of team
   * sizes 8-32 and 1-16 rows a member) */
  *rpt = sk_sp_host(b) ? 256 : (int64_t)*T;
}

int sk_sp_spmv(char mode, double alpha, const sk_csr *A, const sk_view *x, double beta,
               const sk_view *y, const char *algo, char *err, size_t errlen) {
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  int trans = mode == 'T' || mode == 'H';
  if (alpha == 0 || A->nrows == 0 || A->ncols == 0) {
    /* y = beta*y; A and x are not read */
    if (alpha == 0 || !trans || A->nrows == 0) return scale(y, beta, err, errlen);
  }
  /* a matrix whose diagonal form a solver has made (sk_dia_memos: perhaps
   * no compact index then): by diagonals at once, as below */
  if (y->rank == 1 && !trans && (!sk_sp_host(b) || !algo || strcmp(algo, "team") != 0)) {
    sk_dia dk;
    int rc = sk_dia_kept(A, &dk, err, errlen);
    if (rc == 0 && dk.ok) rc = sk_dia_spmv(&dk, A, alpha, x, beta, y, err, errlen) < 0 ? -1 : 1;
    sk_dia_release(&dk);
    if (rc != 0) return rc < 0 ? -1 : 0;
  }
  /* one vector: the compact index where the matrix has one (csr16.c),
   * the same sums in the same order */
  sk_csr16 c16;
  memset(&c16, 0, sizeof c16);
  if (y->rank == 1 && sk_csr16_get(A->rowptr, A->colidx, 1, &c16, err, errlen) < 0) return -1;
  /* and the value codes where the matrix has them (vdict.c): N only */
  sk_vdict vd;
  memset(&vd, 0, sizeof vd);
  if (c16.ok && !trans && sk_vdict_get(A->values, 1, &vd, err, errlen) < 0) {
    sk_csr16_release(&c16);
    return -1;
  }
  /* and the diagonal form where the matrix is a stencil's (dia.c): one
   * vector, N, the rows form (a device's only form; on the host 'team'
   * asks for the team kernel) */
  if (vd.ok && y->rank == 1 && (!sk_sp_host(b) || !algo || strcmp(algo, "team") != 0)) {
    sk_dia dg;
    int rc = sk_dia_get(A, &vd, &dg, err, errlen);
    if (rc == 0 && dg.ok) rc = sk_dia_spmv(&dg, A, alpha, x, beta, y, err, errlen) < 0 ? -1 : 1;
    sk_dia_release(&dg);
    if (rc != 0) {
      sk_csr16_release(&c16);
      sk_vdict_release(&vd);
      return rc < 0 ? -1 : 0;
    }
  }
  sk_arg a[12];
  int n = 0;
  if (c16.ok) {
    a[n++] = sk_arg_view_ro("rowptr", &c16.rowptr);
    a[n++] = sk_arg_view_ro("off", &c16.off);
  } else {
    a[n++] = sk_arg_view_ro("rowptr", A->rowptr);
    a[n++] = sk_arg_view_ro("colidx", A->colidx);
  }
  if (vd.ok) {
    a[n++] = sk_arg_view_ro("vcode", &vd.code);
    a[n++] = sk_arg_view_ro("vtab", &vd.tab);
  } else {
    a[n++] = sk_arg_view_ro("values", A->values);
  }
  a[n++] = sk_arg_view("x", x);
  a[n++] = sk_arg_view("y", y);
  a[n++] = sk_arg_f64("alpha", alpha);
  int rc;
  if (trans) {
    rc = scale(y, beta, err, errlen);
    if (rc == 0)
      rc = sk_sp_range(y->rank == 2 ? &k_spmv_mv_t : c16.ok ? &k_spmv16_t : &k_spmv_t,
                       A->nrows, a, n, NULL, err, errlen);
    sk_csr16_release(&c16);
    return rc;
  }
  a[n++] = sk_arg_f64("beta", beta);
  if (y->rank == 2) return sk_sp_range(&k_spmv_mv, A->nrows, a, n, NULL, err, errlen);
  const sk_kbody *hk = vd.ok ? &k_spmv16v_host : c16.ok ? &k_spmv16_host : &k_spmv_host,
                 *tk = vd.ok ? &k_spmv16v_team : c16.ok ? &k_spmv16_team : &k_spmv_team;
  int team = !sk_sp_host(b) || (algo && strcmp(algo, "team") == 0);
  if (!team) {
    int64_t nchunk = b->concurrency ? b->concurrency() : 1;
    if (nchunk < 1) nchunk = 1;
    if (nchunk > A->nrows) nchunk = A->nrows;
    a[n++] = sk_arg_i64("nchunk", nchunk);
    rc = sk_sp_range(hk, nchunk, a, n, NULL, err, errlen);
    sk_csr16_release(&c16);
    sk_vdict_release(&vd);
    return rc;
  }
  int T, V;
  int64_t rpt;
  team_shape(b, A->nrows ? (double)A->nnz / (double)A->nrows : 1, &T, &V, &rpt);
  a[n++] = sk_arg_i64("rpt", rpt);
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.league_size = (A->nrows + rpt - 1) / rpt;
  p.team_size = T;
  p.vector_length = V;
  rc = sk_kbody_launch(tk, &p, a, n, NULL, err, errlen);
  sk_csr16_release(&c16);
  sk_vdict_release(&vd);
  return rc;
}

/* the vector argument 'name' as a float view of rank 1 or 2 */
static const sk_view *vec_arg(const sk_arg *args, int nargs, const char *name, char *err,
                              size_t errlen) {
  const sk_view *v = sk_karg_view(args, nargs, name, -1, err, errlen);
  if (!v) return NULL;
  if (v->rank != 1 && v->rank != 2) {
    sk_err(err, errlen, SK_E_VIEW_RANK_MUST, name, v->label, v->rank);
    return NULL;
  }
  if (!sk_sp_is_float(v->dtype) && !sk_dtypes[v->dtype].is_complex) { /* zspmv.c's */
    sk_err(err, errlen, SK_E_VIEW_MUST_FLOAT64, name, v->label, sk_dtypes[v->dtype].name);
    return NULL;
  }
  return v;
}

/* mode, A, x, y checked: dtypes, ranks, shapes (named both ways) */
static int spmv_args(const sk_arg *args, int nargs, char *mode, sk_csr *A,
                     const sk_view **x, const sk_view **y, char *err, size_t errlen) {
  const char *ms = sk_karg_str(args, nargs, "mode", "N", err, errlen);
  if (!ms) return -1;
  if (strlen(ms) != 1 || !strchr("NTCH", ms[0])) {
    sk_err(err, errlen, SK_E_MODE_NOT_N, ms);
    return -1;
  }
  *mode = ms[0];
  if (sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, A, err, errlen) < 0) return -1;
  if (!(*x = vec_arg(args, nargs, "x", err, errlen)) ||
      !(*y = vec_arg(args, nargs, "y", err, errlen)))
    return -1;
  int trans = *mode == 'T' || *mode == 'H';
  int64_t xn = trans ? A->nrows : A->ncols, yn = trans ? A->ncols : A->nrows;
  char sh[64];
  sk_csr_shape(A, sh, sizeof sh);
  if ((*x)->rank != (*y)->rank) {
    sk_err(err, errlen, SK_E_X_VIEW_RANK, (*x)->label, (*x)->rank, (*y)->label,
           (*y)->rank);
    return -1;
  }
  if ((*x)->extent[0] != xn || (*y)->extent[0] != yn) {
    sk_err(err, errlen, SK_E_MODE_X_VIEW, *mode, sh, (*x)->label,
           (long long)(*x)->extent[0], (*y)->label, (long long)(*y)->extent[0],
           (long long)xn, (long long)yn);
    return -1;
  }
  if ((*x)->rank == 2 && (*x)->extent[1] != (*y)->extent[1]) {
    sk_err(err, errlen, SK_E_X_VIEW_COLUMNS, (*x)->label, (long long)(*x)->extent[1],
           (*y)->label, (long long)(*y)->extent[1]);
    return -1;
  }
  if ((*x)->data && (*x)->alloc && (*x)->alloc == (*y)->alloc) {
    sk_err(err, errlen, SK_E_X_VIEW_Y_VIEW, (*x)->label, (*y)->label);
    return -1;
  }
  return 0;
}

/* sparse.spmv: mode ("N"), alpha, A_*, x, beta, y [, algorithm] */
static int spmv(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"mode",     "alpha",    "beta",     "x",
                                      "y",        "A_rowptr", "A_colidx", "A_values",
                                      "A_ncols",  "algorithm", "alpha_im", "beta_im",
                                      NULL};
  (void)out;
  sk_csr A;
  const sk_view *x, *y;
  char mode;
  double alpha, beta, ai = 0, bi = 0;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      spmv_args(args, nargs, &mode, &A, &x, &y, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "alpha_im") &&
       sk_karg_f64(args, nargs, "alpha_im", &ai, err, errlen) < 0) ||
      (sk_karg_find(args, nargs, "beta_im") &&
       sk_karg_f64(args, nargs, "beta_im", &bi, err, errlen) < 0))
    return -1;
  if (sk_dtypes[A.values->dtype].is_complex) { /* zspmv.c */
    const double al[2] = {alpha, ai}, be[2] = {beta, bi};
    return sk_sp_zspmv(mode, al, &A, x, be, y, err, errlen);
  }
  if (ai != 0 || bi != 0 || sk_dtypes[x->dtype].is_complex || sk_dtypes[y->dtype].is_complex) {
    sk_err(err, errlen, SK_E_ZSPMV_REAL, A.values->label, sk_dtypes[A.values->dtype].name);
    return -1;
  }
  const char *algo = sk_karg_str(args, nargs, "algorithm", "auto", err, errlen);
  if (!algo) return -1;
  if (strcmp(algo, "auto") != 0 && strcmp(algo, "team") != 0 &&
      strcmp(algo, "rows") != 0) {
    sk_err(err, errlen, SK_E_ALGORITHM_NOT_AUTO_ROWS, algo);
    return -1;
  }
  return sk_sp_spmv(mode, alpha, &A, x, beta, y, algo, err, errlen);
}

/* -- structured SpMV ----------------------------------------------------------
 * Rows of the box's interior have the stencil's columns at fixed offsets
 * from the row (sorted): 3: -1 0 1; 5: -nx -1 0 1 nx; 9: the 3x3 block;
 * 7: -nxy -nx -1 0 1 nx nxy; 27: the 3x3x3 block. Interior rows read no
 * column index; skin rows (and an interior row of another length) take
 * the CSR loop. */

/* row r of the box at x position ix: interior rows (S entries, 'inner' in
 * y and z, 0 < ix < nx - 1) without reading colidx, the skin through CSR.
 * 9 and 27 points: runs of three neighbours in x, centred at off[3j + 1]
 * (written out: a loop over off[] makes gathers) */

#define ST_SIG(VT) \
  "range" MAT(VT) R1("x", VT) \
    R1("y", VT) " alpha=float64 beta=float64 nx=int64 ny=int64 nz=int64 stencil=int64"
static const char *const sig_struct[] = {ST_SIG("float64"), ST_SIG("float32"), NULL};
/* host: line i of the box (iy = i % ny, iz = i / ny), its rows in x order */
static const sk_kbody k_spmv_struct = {.label = "sparse.spmv_struct",
                                       .body = sk_body_sparse_spmv_struct,
                                       .pattern = SK_FOR,
                                       .sigs = sig_struct};
/* GPU: row i (neighbouring threads read neighbouring rows) */
static const sk_kbody k_spmv_struct_row = {.label = "sparse.spmv_struct_row",
                                           .body = sk_body_sparse_spmv_struct_row,
                                           .pattern = SK_FOR,
                                           .sigs = sig_struct};

/* the first interior row whose columns are not the stencil's */
#define SC_SIG \
  "range" R1("rowptr", "int64") \
    R1("colidx", "int32") " nx=int64 ny=int64 nz=int64 stencil=int64"
static const char *const sig_scheck[] = {SC_SIG, NULL};
static const sk_kbody k_struct_check = {.label = "sparse.spmv_struct_check",
                                        .body = sk_body_sparse_spmv_struct_check,
                                        .pattern = SK_REDUCE,
                                        .sigs = sig_scheck,
                                        .reds = "min:int64"};

/* sparse.spmv_struct: stencil, nx, ny, nz, alpha, A_*, x, beta, y
 * [, checked = 1: the column pattern was checked before] */
static int spmv_struct(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {
    "stencil",  "nx",       "ny",       "nz",      "alpha",   "beta", "x", "y",
    "A_rowptr", "A_colidx", "A_values", "A_ncols", "checked", "mode", NULL};
  (void)out;
  sk_csr A;
  const sk_view *x, *y;
  char mode;
  double alpha, beta;
  int64_t st, nx, ny, nz, checked;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "stencil", 0, 0, &st, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nx", 0, 0, &nx, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "ny", 1, 1, &ny, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nz", 1, 1, &nz, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "checked", 1, 0, &checked, err, errlen) < 0 ||
      spmv_args(args, nargs, &mode, &A, &x, &y, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0)
    return -1;
  const sk_view *cv = sk_dtypes[A.values->dtype].is_complex ? A.values
                      : sk_dtypes[x->dtype].is_complex      ? x
                      : sk_dtypes[y->dtype].is_complex      ? y
                                                            : NULL;
  if (cv) {
    sk_err(err, errlen, SK_E_COMPLEX_NOT_REAL, cv == A.values ? "A.values" : cv == x ? "x" : "y",
           cv->label, sk_dtypes[cv->dtype].name);
    return -1;
  }
  int dim = st == 3 ? 1 : st == 5 || st == 9 ? 2 : st == 7 || st == 27 ? 3 : 0;
  if (!dim) {
    sk_err(err, errlen, SK_E_STENCIL_NOT, (long long)st);
    return -1;
  }
  if (nx < 1 || ny < 1 || nz < 1 || (dim < 3 && nz != 1) || (dim < 2 && ny != 1)) {
    sk_err(err, errlen, SK_E_POINT_STENCIL_NEEDS, (long long)st, dim, dim > 1 ? "s" : "",
           (long long)nx, (long long)ny, (long long)nz);
    return -1;
  }
  char sh[64];
  if (A.nrows != A.ncols || A.nrows != nx * ny * nz) {
    sk_err(err, errlen, SK_E_BOX_X_X, sk_csr_shape(&A, sh, sizeof sh), (long long)nx,
           (long long)ny, (long long)nz, (long long)(nx * ny * nz));
    return -1;
  }
  if (mode != 'N' && mode != 'C') {
    sk_err(err, errlen, SK_E_MODE_STRUCTURED_SPMV, mode);
    return -1;
  }
  if (x->rank != 1) {
    sk_err(err, errlen, SK_E_X_VIEW_RANK_STRUCTURED, x->label, x->rank);
    return -1;
  }
  sk_arg a[16];
  int n = 0;
  a[n++] = sk_arg_view_ro("rowptr", A.rowptr);
  a[n++] = sk_arg_view_ro("colidx", A.colidx);
  a[n++] = sk_arg_i64("nx", nx);
  a[n++] = sk_arg_i64("ny", ny);
  a[n++] = sk_arg_i64("nz", nz);
  a[n++] = sk_arg_i64("stencil", st);
  if (!checked) {
    sk_result r;
    if (sk_sp_range(&k_struct_check, A.nrows, a, n, &r, err, errlen) < 0) return -1;
    int64_t bad = sk_result_i64(&r, 0);
    if (A.nrows > 0 && bad != INT64_MAX) {
      sk_err(err, errlen, SK_E_NOT_POINT_STENCIL, (long long)st, (long long)nx,
             (long long)ny, (long long)nz, (long long)bad);
      return -1;
    }
  }
  if (alpha == 0 || A.nrows == 0) return scale(y, beta, err, errlen);
  a[n++] = sk_arg_view("values", A.values);
  a[n++] = sk_arg_view("x", x);
  a[n++] = sk_arg_view("y", y);
  a[n++] = sk_arg_f64("alpha", alpha);
  a[n++] = sk_arg_f64("beta", beta);
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b) return -1;
  /* GPU: 9 and 27 points take the team CSR kernel, whose vector lanes
   * read a row's values together (a row per thread reading 27 apart took
   * 406 us on an H200 against its 286 us for the 27-point 128^3; a team
   * form without colidx, 1.45 ms); 3, 5 and 7 a row per thread */
  if (!sk_sp_host(b) && st >= 9)
    return sk_sp_spmv('N', alpha, &A, x, beta, y, NULL, err, errlen);
  if (!sk_sp_host(b))
    return sk_sp_range(&k_spmv_struct_row, A.nrows, a, n, NULL, err, errlen);
  return sk_sp_range(&k_spmv_struct, ny * nz, a, n, NULL, err, errlen);
}

static const sk_kentry e_spmv = {"sparse.spmv", "mode, alpha, A_*, x, beta, y",
                                 SK_KRES_NONE, spmv};
static const sk_kentry e_spmv_struct = {"sparse.spmv_struct",
                                        "stencil, nx, ny, nz, alpha, A_*, x, beta, y",
                                        SK_KRES_NONE, spmv_struct};
const sk_kentry *const sk_spmv_entries[] = {&e_spmv, &e_spmv_struct, NULL};
const sk_kbody *const sk_spmv_bodies[] = {
  &k_spmv_host,       &k_spmv_team,    &k_spmv_mv,     &k_spmv_t,
  &k_spmv_mv_t,       &k_scale,        &k_scale2,      &k_spmv_struct,
  &k_spmv_struct_row, &k_struct_check, &k_spmv16_host, &k_spmv16_team,
  &k_spmv16_t,        &k_spmv16v_host, &k_spmv16v_team, NULL};
