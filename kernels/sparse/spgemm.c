/* spgemm.c: C = A*B (seed 000 section 2.2.1) and the Jacobi-fused
 * C = (I - omega*D^-1*A)*P (section 2.2.2), with separate symbolic and
 * numeric phases and a reusable handle (C's row offsets). Complex values
 * (complex128, complex64) multiply as any: the bodies are generic.
 *
 * Gustavson's algorithm, a row of C at a time, accumulated in the
 * dialect's two-level hashmap: the first level in fast memory (thread
 * scratch level 0: a thread-private table on the host, shared memory on
 * the GPU), sized to the largest row's upper bound (the sum of the
 * lengths of the rows of B it reaches) up to a cap; rows that overflow it
 * continue in a second level in slow memory (thread scratch level 1),
 * sized to the largest upper bound (at most B's columns). Parallelisation:
 * a team per block of rows, a team member (thread) per row, the member's
 * vector lanes over the entries of each row of B (inserting concurrently
 * on the GPU; one lane on the host), the block of rows chosen from the
 * flops per row so that a team's reset of its tables is paid by its rows.
 *
 * Symbolic: the distinct columns of each row (entries found in both
 * levels counted once), scanned into C's row offsets (the handle). The
 * numeric phase accumulates the values, writes each row and sorts it by
 * column; it checks that every row has exactly the symbolic count (a
 * handle used with matrices of another pattern is an error, never a
 * silent overrun). Jacobi: row i of C is P(i,:) - omega/A(i,i) *
 * sum_k A(i,k) P(k,:), the rows of P inserted with the products, in the
 * same kernels (the pattern is the usual symbolic's union with P's).
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define PAT(p)       R1(p "rp", "int64") R1(p "ci", "int32")

/* -- bodies ------------------------------------------------------------------ */
/* row i's upper bound on its entries in C: max and sum (the flops) */
/* A*A: A and B share memory (a signature of its own) */
#define R1S(name, dt) " " name "=" dt "[1]!"
#define PATS(p)       R1S(p "rp", "int64") R1S(p "ci", "int32")
static const char *const sig_ub[] = {"range" PAT("a") PAT("b") " jacobi=int64",
                                     "range" PATS("a") PATS("b") " jacobi=int64", NULL};
static const sk_kbody k_ub = {.label = "sparse.spgemm_bound",
                              .body = sk_body_sparse_spgemm_bound,
                              .pattern = SK_REDUCE,
                              .sigs = sig_ub,
                              .reds = "max:int64 sum:int64"};

#define SYM_SIG \
  "team" PAT("a") PAT("b") R1("cnt", "int64") " c1=int64 c2=int64 rpt=int64 jacobi=int64"
#define SYM_SIG2 \
  "team" PATS("a") PATS("b") \
    R1("cnt", "int64") " c1=int64 c2=int64 rpt=int64 jacobi=int64"
static const char *const sig_sym[] = {SYM_SIG, SYM_SIG2, NULL};
static const sk_kbody k_symbolic = {.label = "sparse.spgemm_symbolic",
                                    .body = sk_body_sparse_spgemm_symbolic,
                                    .pattern = SK_FOR,
                                    .sigs = sig_sym};

/* the host's symbolic phase: a dense marker per thread (the seed's dense
 * accumulator, a bit vector in Kokkos Kernels; here the row that last saw
 * a column), counting without branches; B's columns fit one thread's
 * level-1 scratch */
#define DSYM_SIG(S) \
  "team" S("a") S("b") R1("cnt", "int64") " nb=int64 rpt=int64 jacobi=int64"
static const char *const sig_dsym[] = {DSYM_SIG(PAT), DSYM_SIG(PATS), NULL};
static const sk_kbody k_symbolic_dense = {.label = "sparse.spgemm_symbolic_dense",
                                          .body = sk_body_sparse_spgemm_symbolic_dense,
                                          .pattern = SK_FOR,
                                          .sigs = sig_dsym};

#define NUM_SIG(VT) \
  "team" PAT("a") R1("av", VT) PAT("b") R1("bv", VT) R1("crp", "int64") \
    R1("cci", "int32") R1("cv", VT) \
      R1("bad", "int64") " c1=int64 c2=int64 rpt=int64 jacobi=int64 omega=float64"
#define NUM_SIG2(VT) \
  "team" PATS("a") R1S("av", VT) PATS("b") R1S("bv", VT) R1("crp", "int64") \
    R1("cci", "int32") R1("cv", VT) \
      R1("bad", "int64") " c1=int64 c2=int64 rpt=int64 jacobi=int64 omega=float64"
static const char *const sig_num[] = {NUM_SIG("float64"), NUM_SIG("float32"),
                                      NUM_SIG2("float64"), NULL};
static const sk_kbody k_numeric = {.label = "sparse.spgemm_numeric",
                                   .body = sk_body_sparse_spgemm_numeric,
                                   .pattern = SK_FOR,
                                   .sigs = sig_num,
                                   .prelude = sk_body_sparse_prelude};

/* the host's numeric phase: a dense accumulator per thread */
#define DNUM_SIG(S, S1, VT) \
  "team" S("a") S1("av", VT) S("b") S1("bv", VT) R1("crp", "int64") R1("cci", "int32") \
    R1("cv", VT) R1("bad", "int64") " nb=int64 rpt=int64 jacobi=int64 omega=float64"
static const char *const sig_dnum[] = {DNUM_SIG(PAT, R1, "float64"), DNUM_SIG(PAT, R1, "float32"),
                                       DNUM_SIG(PATS, R1S, "float64"), NULL};
static const sk_kbody k_numeric_dense = {.label = "sparse.spgemm_numeric_dense",
                                         .body = sk_body_sparse_spgemm_numeric_dense,
                                         .pattern = SK_FOR,
                                         .sigs = sig_dnum};

/* the first row of A whose diagonal is zero or missing */
#define DG_SIG(VT) "range" PAT("a") R1("av", VT)
static const char *const sig_diag[] = {DG_SIG("float64"), DG_SIG("float32"), NULL};
static const sk_kbody k_diag = {.label = "sparse.spgemm_diag",
                                .body = sk_body_sparse_spgemm_diag,
                                .pattern = SK_REDUCE,
                                .sigs = sig_diag,
                                .reds = "min:int64"};

static const char *const sig_fill64[] = {"range" R1("v", "int64") " x=int64", NULL};
static const sk_kbody k_fill64 = {.label = "sparse.fill_int64",
                                  .body = sk_body_sparse_fill_int64,
                                  .pattern = SK_FOR,
                                  .sigs = sig_fill64};

/* -- the merge path: a thread per row -------------------------------------------
 * Where A's rows are short (at most MERGE_K entries) and B's rows sorted,
 * row i of C is the merge of the rows of B that A's row i reaches: a
 * cursor per row of B, the smallest head column taken each step (its
 * products summed), so C's row comes out sorted with no table, no reset
 * and no sort, and a row per thread keeps every thread busy (the GPU's
 * best form for matrices like the 5-point Laplacian's square). */
#define MERGE_K     16
#define MSYM_SIG(S) "range" S("a") S("b") R1("cnt", "int64")
static const char *const sig_msym[] = {MSYM_SIG(PAT), MSYM_SIG(PATS), NULL};
#define MNUM_SIG(VT) \
  "range" PAT("a") R1("av", VT) PAT("b") R1("bv", VT) R1("crp", "int64") \
    R1("cci", "int32") R1("cv", VT) R1("bad", "int64")
#define MNUM_SIG2(VT) \
  "range" PATS("a") R1S("av", VT) PATS("b") R1S("bv", VT) R1("crp", "int64") \
    R1("cci", "int32") R1("cv", VT) R1("bad", "int64")
static const char *const sig_mnum[] = {MNUM_SIG("float64"), MNUM_SIG("float32"),
                                       MNUM_SIG2("float64"), NULL};
static const sk_kbody k_symbolic_merge = {.label = "sparse.spgemm_symbolic_merge",
                                          .body = sk_body_sparse_spgemm_symbolic_merge,
                                          .pattern = SK_FOR,
                                          .sigs = sig_msym};
static const sk_kbody k_numeric_merge = {.label = "sparse.spgemm_numeric_merge",
                                         .body = sk_body_sparse_spgemm_numeric_merge,
                                         .pattern = SK_FOR,
                                         .sigs = sig_mnum};

/* over max(A's rows, B's rows): A's longest row, B's rows not strictly
 * increasing */
static const char *const sig_mcheck[] = {"range" PAT("a") PAT("b"),
                                         "range" PATS("a") PATS("b"), NULL};
static const sk_kbody k_merge_check = {.label = "sparse.spgemm_merge_check",
                                       .body = sk_body_sparse_spgemm_merge_check,
                                       .pattern = SK_REDUCE,
                                       .sigs = sig_mcheck,
                                       .reds = "max:int64 sum:int64"};

/* 'algorithm' "auto" (the merge path on the GPU where it applies: on the
 * host the hashmap with its dense-marker symbolic phase is faster), "hash"
 * or "merge" (A's rows at most MERGE_K entries, B's rows sorted; not the
 * Jacobi product, whose rows of P join unscaled) */
static int choose_merge(const sk_backend *b, const sk_arg *args, int nargs,
                        const sk_csr *A, const sk_csr *B, int jacobi, int *merge,
                        char *err, size_t errlen) {
  *merge = 0;
  const char *algo = sk_karg_str(args, nargs, "algorithm", "auto", err, errlen);
  if (!algo) return -1;
  int want = strcmp(algo, "merge") == 0;
  if (!want && strcmp(algo, "hash") != 0 && strcmp(algo, "auto") != 0) {
    sk_err(err, errlen, SK_E_ALGORITHM_NOT_AUTO, algo);
    return -1;
  }
  if (want && jacobi) {
    sk_err(err, errlen, SK_E_ALGORITHM_MERGE_B);
    return -1;
  }
  if (jacobi || A->nrows == 0 || (!want && (strcmp(algo, "hash") == 0 || sk_sp_host(b))))
    return 0;
  int64_t n = A->nrows > B->nrows ? A->nrows : B->nrows;
  sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("aci", A->colidx),
                sk_arg_view("brp", B->rowptr), sk_arg_view("bci", B->colidx)};
  sk_result r;
  if (sk_sp_range(&k_merge_check, n, a, NELEM(a), &r, err, errlen) < 0) return -1;
  int64_t longest = sk_result_i64(&r, 0), unsorted = sk_result_i64(&r, 1);
  *merge = longest <= MERGE_K && unsorted == 0;
  if (want && !*merge) {
    if (longest > MERGE_K)
      sk_err(err, errlen, SK_E_ALGORITHM_MERGE_TAKES, MERGE_K, (long long)longest);
    else sk_err(err, errlen, SK_E_ALGORITHM_MERGE_NEEDS, (long long)unsorted);
    return -1;
  }
  return 0;
}

/* -- the plan: table sizes and the team shape -------------------------------- */
typedef struct plan {
  int64_t maxub, flops, c1, c2, rpt;
  int T, V;
} plan;

static int64_t pow2_at_least(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

/* the upper bounds of A*B (jacobi: with P's rows) */
static int bounds(const sk_csr *A, const sk_csr *B, int jacobi, plan *pl, char *err,
                  size_t errlen) {
  sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("aci", A->colidx),
                sk_arg_view("brp", B->rowptr), sk_arg_view("bci", B->colidx),
                sk_arg_i64("jacobi", jacobi)};
  sk_result r;
  if (sk_sp_range(&k_ub, A->nrows, a, NELEM(a), &r, err, errlen) < 0) return -1;
  pl->maxub = A->nrows ? sk_result_i64(&r, 0) : 0;
  pl->flops = A->nrows ? sk_result_i64(&r, 1) : 0;
  if (pl->maxub < 0) pl->maxub = 0;
  return 0;
}

static void make_plan(const sk_backend *b, const sk_csr *A, const sk_csr *B, plan *pl) {
  int host = sk_sp_host(b);
  int64_t cap1 = 4096;
  int64_t want = pl->maxub < B->ncols ? pl->maxub : B->ncols;
  if (want < 8) want = 8;
  pl->c1 = pow2_at_least(want);
  if (pl->c1 > cap1) pl->c1 = cap1;
  pl->c2 = want > pl->c1 ? pow2_at_least(want) : 0;
  double avg_b = B->nrows ? (double)B->nnz / (double)B->nrows : 1;
  double per_row = A->nrows ? (double)pl->flops / (double)A->nrows : 1;
  if (per_row < 1) per_row = 1;
  sk_team_limits lim;
  b->team_limits(&lim);
  if (host) {
    pl->T = pl->V = 1;
    int64_t conc = b->concurrency ? b->concurrency() : 1;
    if (conc < 1) conc = 1;
    pl->rpt = (A->nrows + 16 * conc - 1) / (16 * conc);
  } else {
    /* lanes for about half a row of B, 8 members a team, 8 rows each:
     * the H200's best for A*A of the 5-point matrix (4 lanes) */
    int v = 1;
    while (v < 32 && 2 * v < avg_b) v *= 2;
    if (v > lim.vector_length_max) v = lim.vector_length_max;
    int t = 8;
    if (t > lim.team_size_max) t = lim.team_size_max;
    pl->T = t < 1 ? 1 : t;
    pl->V = v;
    pl->rpt = (int64_t)pl->T * 8;
    /* the members' first levels share 96 KB of shared memory (32 bytes a
     * slot with its value) */
    int64_t fit = 96 * 1024 / (32 * (int64_t)pl->T);
    while (cap1 > fit && cap1 > 8) cap1 /= 2;
    if (pl->c1 > cap1) {
      pl->c1 = cap1;
      pl->c2 = want > pl->c1 ? pow2_at_least(want) : 0;
    }
  }
  /* a team's table reset (c1 + c2 slots) paid by its rows' flops */
  int64_t amort = (int64_t)((double)(pl->c1 + pl->c2) / per_row) + 1;
  if (pl->rpt < amort) pl->rpt = amort;
  if (pl->rpt < 1) pl->rpt = 1;
}

static void team_policy(const plan *pl, int64_t nrows, int numeric, size_t vsize,
                        sk_policy *p) {
  sk_policy_init(p, SK_POL_TEAM);
  p->league_size = (nrows + pl->rpt - 1) / pl->rpt;
  p->team_size = pl->T;
  p->vector_length = pl->V;
  p->schedule = SK_DYNAMIC;
  p->scratch_thread[0] = 16 + 24 * pl->c1 + (numeric ? pl->c1 * (int64_t)vsize : 0) + 64;
  p->scratch_thread[1] =
    pl->c2 > 0 ? 16 + 24 * pl->c2 + (numeric ? pl->c2 * (int64_t)vsize : 0) + 64 : 0;
}

/* -- phases ------------------------------------------------------------------- */
/* C's row offsets into 'crp' (a new view) and its entries */
/* B's columns up to which the host counts with a dense marker (64 MB a
 * thread) */
#define DENSE_MAX ((int64_t)1 << 24)

/* B's columns up to which the host's numeric phase accumulates densely
 * (12 bytes a column a thread) */
#define DENSE_NUM_MAX ((int64_t)1 << 22)

/* the dense marker's teams: blocks of rows whose work pays the marker's
 * reset eight times over, a multiple of the threads, at most 16 per
 * thread; 'bytes' of level-1 scratch a column */
static void dense_policy(const sk_backend *b, const sk_csr *A, const sk_csr *B,
                         const plan *pl, int64_t bytes, sk_policy *p, int64_t *rpt) {
  team_policy(pl, A->nrows, 0, 0, p);
  p->scratch_thread[0] = 0;
  p->scratch_thread[1] = bytes * B->ncols + 64;
  int64_t conc = b->concurrency ? b->concurrency() : 1;
  if (conc < 1) conc = 1;
  int64_t L = pl->flops / (8 * (B->ncols + 1));
  if (L < conc) L = conc;
  if (L > 16 * conc) L = 16 * conc;
  L = (L + conc - 1) / conc * conc;
  *rpt = (A->nrows + L - 1) / L;
  p->league_size = (A->nrows + *rpt - 1) / *rpt;
}

static int symbolic(const sk_backend *b, const sk_csr *A, const sk_csr *B, int jacobi,
                    int merge, const plan *pl, sk_view *crp, int64_t *nnz, char *err,
                    size_t errlen) {
  int space = A->rowptr->space;
  sk_view cnt;
  if (sk_sp_view(&cnt, "row counts", SK_I64, A->nrows + 1, space, 1, err, errlen) < 0)
    return -1;
  if (sk_sp_view(crp, "C_rowptr", SK_I64, A->nrows + 1, space, 0, err, errlen) < 0) {
    sk_view_release(&cnt);
    return -1;
  }
  int rc = 0;
  if (A->nrows > 0) {
    sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("aci", A->colidx),
                  sk_arg_view("brp", B->rowptr), sk_arg_view("bci", B->colidx),
                  sk_arg_view("cnt", &cnt),      sk_arg_i64("c1", pl->c1),
                  sk_arg_i64("c2", pl->c2),      sk_arg_i64("rpt", pl->rpt),
                  sk_arg_i64("jacobi", jacobi)};
    sk_policy p;
    team_policy(pl, A->nrows, 0, 0, &p);
    if (merge) {
      rc = sk_sp_range(&k_symbolic_merge, A->nrows, a, 5, NULL, err, errlen);
    } else if (sk_sp_host(b) && B->ncols <= DENSE_MAX) {
      /* the dense marker: one column of B per int32 */
      int64_t rpt;
      dense_policy(b, A, B, pl, 4, &p, &rpt);
      sk_arg d[] = {a[0],
                    a[1],
                    a[2],
                    a[3],
                    a[4],
                    sk_arg_i64("nb", B->ncols),
                    sk_arg_i64("rpt", rpt),
                    sk_arg_i64("jacobi", jacobi)};
      rc = sk_kbody_launch(&k_symbolic_dense, &p, d, NELEM(d), NULL, err, errlen);
    } else {
      rc = sk_kbody_launch(&k_symbolic, &p, a, NELEM(a), NULL, err, errlen);
    }
  }
  if (rc == 0) rc = sk_sp_scan(&cnt, crp, A->nrows, nnz, err, errlen);
  sk_view_release(&cnt);
  if (rc < 0) sk_view_release(crp);
  return rc;
}

static int numeric(const sk_backend *b, const sk_csr *A, const sk_csr *B, int jacobi,
                   double omega, int merge, const plan *pl, const sk_view *crp,
                   const sk_view *cci, const sk_view *cv, char *err, size_t errlen) {
  if (A->nrows == 0) return 0;
  sk_view bad;
  if (sk_sp_view(&bad, "bad row", SK_I64, 1, A->rowptr->space, 0, err, errlen) < 0)
    return -1;
  sk_arg f[] = {sk_arg_view("v", &bad), sk_arg_i64("x", INT64_MAX)};
  int rc = sk_sp_range(&k_fill64, 1, f, NELEM(f), NULL, err, errlen);
  if (rc == 0) {
    sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("aci", A->colidx),
                  sk_arg_view("av", A->values),  sk_arg_view("brp", B->rowptr),
                  sk_arg_view("bci", B->colidx), sk_arg_view("bv", B->values),
                  sk_arg_view("crp", crp),       sk_arg_view("cci", cci),
                  sk_arg_view("cv", cv),         sk_arg_view("bad", &bad),
                  sk_arg_i64("c1", pl->c1),      sk_arg_i64("c2", pl->c2),
                  sk_arg_i64("rpt", pl->rpt),    sk_arg_i64("jacobi", jacobi),
                  sk_arg_f64("omega", omega)};
    sk_policy p;
    team_policy(pl, A->nrows, 1, sk_dtypes[cv->dtype].size, &p);
    if (merge) {
      rc = sk_sp_range(&k_numeric_merge, A->nrows, a, 10, NULL, err, errlen);
    } else if (sk_sp_host(b) && B->ncols <= DENSE_NUM_MAX) {
      int64_t rpt;
      dense_policy(b, A, B, pl, (int64_t)sk_dtypes[cv->dtype].size + 4, &p, &rpt);
      sk_arg d[] = {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                    sk_arg_i64("nb", B->ncols), sk_arg_i64("rpt", rpt),
                    sk_arg_i64("jacobi", jacobi), sk_arg_f64("omega", omega)};
      rc = sk_kbody_launch(&k_numeric_dense, &p, d, NELEM(d), NULL, err, errlen);
    } else {
      rc = sk_kbody_launch(&k_numeric, &p, a, NELEM(a), NULL, err, errlen);
    }
  }
  int64_t row = INT64_MAX;
  if (rc == 0) rc = sk_sp_get_i64(&bad, 0, &row, err, errlen);
  if (rc == 0 && row != INT64_MAX) {
    sk_err(err, errlen, SK_E_ROW_C_DOES, (long long)row);
    rc = -1;
  }
  sk_view_release(&bad);
  return rc;
}

/* -- arguments ------------------------------------------------------------------- */
static const char *const known_ab[] = {
  "A_rowptr", "A_colidx", "A_values", "A_ncols",   "B_rowptr", "B_colidx", "B_values",
  "B_ncols",  "C_rowptr", "C_colidx", "C_values",  "maxub",    "omega",    "P_rowptr",
  "P_colidx", "P_values", "P_ncols",  "algorithm", NULL};

/* A and B (or P) with A's columns = B's rows and one dtype */
static int two(const sk_arg *args, int nargs, const char *bn, int values, sk_csr *A,
               sk_csr *B, char *err, size_t errlen) {
  if (sk_karg_known(args, nargs, known_ab, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", values | SK_CSR_CPLX, A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, bn, values | SK_CSR_CPLX, B, err, errlen) < 0)
    return -1;
  char sa[64], sb[64];
  if (A->ncols != B->nrows) {
    sk_err(err, errlen, SK_E_COLUMNS_ROWS, sk_csr_shape(A, sa, sizeof sa),
           sk_csr_shape(B, sb, sizeof sb), (long long)A->ncols, bn, (long long)B->nrows);
    return -1;
  }
  if (A->values && B->values && A->values->dtype != B->values->dtype) {
    sk_err(err, errlen, SK_E_BOTH_MUST_ONE, sk_dtypes[A->values->dtype].name, bn,
           sk_dtypes[B->values->dtype].name);
    return -1;
  }
  if (A->rowptr->space != B->rowptr->space) {
    sk_err(err, errlen, SK_E_LIVES, sk_space_name(A->rowptr->space), bn,
           sk_space_name(B->rowptr->space));
    return -1;
  }
  return 0;
}

static int get_plan(const sk_backend *b, const sk_arg *args, int nargs, const sk_csr *A,
                    const sk_csr *B, int jacobi, plan *pl, char *err, size_t errlen) {
  memset(pl, 0, sizeof *pl);
  if (sk_karg_find(args, nargs, "maxub")) {
    if (sk_karg_i64(args, nargs, "maxub", 0, 0, &pl->maxub, err, errlen) < 0) return -1;
    pl->flops = pl->maxub * A->nrows; /* an upper bound */
  } else if (bounds(A, B, jacobi, pl, err, errlen) < 0) {
    return -1;
  }
  make_plan(b, A, B, pl);
  return 0;
}

/* new C_colidx / C_values of C_rowptr's last entry, or the given ones */
static int outputs(const sk_arg *args, int nargs, const sk_view *crp, int dtype,
                   sk_view *ci, sk_view *cv, const sk_view **pci, const sk_view **pcv,
                   char *err, size_t errlen) {
  int64_t nnz;
  memset(ci, 0, sizeof *ci);
  memset(cv, 0, sizeof *cv);
  if (sk_sp_get_i64(crp, crp->extent[0] - 1, &nnz, err, errlen) < 0) return -1;
  if (sk_karg_find(args, nargs, "C_colidx")) {
    *pci = sk_karg_view(args, nargs, "C_colidx", 1, err, errlen);
    *pcv = *pci ? sk_karg_view(args, nargs, "C_values", 1, err, errlen) : NULL;
    if (!*pcv) return -1;
    if ((*pci)->dtype != SK_I32 || (*pcv)->dtype != dtype || (*pci)->extent[0] != nnz ||
        (*pcv)->extent[0] != nnz) {
      sk_err(err, errlen, SK_E_C_VIEWS_MUST, (*pci)->label, (*pcv)->label,
             sk_dtypes[dtype].name, (long long)nnz);
      return -1;
    }
    return 0;
  }
  if (sk_sp_view(ci, "C_colidx", SK_I32, nnz, crp->space, 0, err, errlen) < 0) return -1;
  if (sk_sp_view(cv, "C_values", dtype, nnz, crp->space, 0, err, errlen) < 0) {
    sk_view_release(ci);
    return -1;
  }
  *pci = ci;
  *pcv = cv;
  return 0;
}

/* -- entries ---------------------------------------------------------------------- */
/* sparse.spgemm_symbolic: A_*, B_* (values optional) -> C_rowptr, nnz, maxub */
static int spgemm_symbolic(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                           size_t errlen) {
  sk_csr A, B;
  plan pl;
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b || two(args, nargs, "B", 0, &A, &B, err, errlen) < 0 ||
      get_plan(b, args, nargs, &A, &B, 0, &pl, err, errlen) < 0)
    return -1;
  sk_view crp;
  int64_t nnz;
  int merge;
  if (choose_merge(b, args, nargs, &A, &B, 0, &merge, err, errlen) < 0 ||
      symbolic(b, &A, &B, 0, merge, &pl, &crp, &nnz, err, errlen) < 0)
    return -1;
  if (sk_kout_view(out, "C_rowptr", &crp, err, errlen) < 0) return -1;
  sk_kout_num(out, "nnz", (double)nnz, err, errlen);
  return sk_kout_num(out, "maxub", (double)pl.maxub, err, errlen);
}

/* sparse.spgemm_numeric: A_*, B_*, C_rowptr [, C_colidx, C_values (filled in
 * place), maxub] -> C_colidx, C_values when new */
static int spgemm_numeric(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                          size_t errlen) {
  sk_csr A, B;
  plan pl;
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b || two(args, nargs, "B", 1, &A, &B, err, errlen) < 0) return -1;
  const sk_view *crp = sk_karg_view(args, nargs, "C_rowptr", 1, err, errlen);
  if (!crp) return -1;
  if (crp->dtype != SK_I64 || crp->extent[0] != A.nrows + 1) {
    sk_err(err, errlen, SK_E_C_ROWPTR_VIEW, crp->label, (long long)A.nrows + 1);
    return -1;
  }
  int merge;
  if (get_plan(b, args, nargs, &A, &B, 0, &pl, err, errlen) < 0 ||
      choose_merge(b, args, nargs, &A, &B, 0, &merge, err, errlen) < 0)
    return -1;
  sk_view ci, cv;
  const sk_view *pci, *pcv;
  if (outputs(args, nargs, crp, A.values->dtype, &ci, &cv, &pci, &pcv, err, errlen) < 0)
    return -1;
  if (numeric(b, &A, &B, 0, 0, merge, &pl, crp, pci, pcv, err, errlen) < 0) {
    sk_view_release(&ci);
    sk_view_release(&cv);
    return -1;
  }
  if (pci != &ci) return 0;
  if (sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0) {
    sk_view_release(&cv);
    return -1;
  }
  return sk_kout_view(out, "C_values", &cv, err, errlen);
}

/* A*B or (I - omega D^-1 A)*P in one call */
static int product(const sk_arg *args, int nargs, sk_kvalue *out, int jacobi, char *err,
                   size_t errlen) {
  sk_csr A, B;
  plan pl;
  double omega = 0;
  const sk_backend *b = sk_sp_backend(err, errlen);
  if (!b || two(args, nargs, jacobi ? "P" : "B", 1, &A, &B, err, errlen) < 0) return -1;
  if (jacobi) {
    char sa[64], sb[64];
    if (sk_karg_f64(args, nargs, "omega", &omega, err, errlen) < 0) return -1;
    if (A.nrows != A.ncols) {
      sk_err(err, errlen, SK_E_I_OMEGA_NEEDS, sk_csr_shape(&A, sa, sizeof sa));
      return -1;
    }
    (void)sb;
    sk_arg d[] = {sk_arg_view("arp", A.rowptr), sk_arg_view("aci", A.colidx),
                  sk_arg_view("av", A.values)};
    sk_result r;
    if (sk_sp_range(&k_diag, A.nrows, d, NELEM(d), &r, err, errlen) < 0) return -1;
    int64_t row = sk_result_i64(&r, 0);
    if (A.nrows > 0 && row != INT64_MAX) {
      sk_err(err, errlen, SK_E_ZERO_NO_DIAGONAL, (long long)row);
      return -1;
    }
  }
  int merge;
  if (get_plan(b, args, nargs, &A, &B, jacobi, &pl, err, errlen) < 0 ||
      choose_merge(b, args, nargs, &A, &B, jacobi, &merge, err, errlen) < 0)
    return -1;
  sk_view crp, ci, cv;
  const sk_view *pci, *pcv;
  int64_t nnz;
  if (symbolic(b, &A, &B, jacobi, merge, &pl, &crp, &nnz, err, errlen) < 0) return -1;
  sk_arg none[1];
  if (outputs(none, 0, &crp, A.values->dtype, &ci, &cv, &pci, &pcv, err, errlen) < 0 ||
      numeric(b, &A, &B, jacobi, omega, merge, &pl, &crp, pci, pcv, err, errlen) < 0) {
    sk_view_release(&crp);
    sk_view_release(&ci);
    sk_view_release(&cv);
    return -1;
  }
  sk_kout_view(out, "C_rowptr", &crp, err, errlen);
  sk_kout_view(out, "C_colidx", &ci, err, errlen);
  return sk_kout_view(out, "C_values", &cv, err, errlen);
}

static int spgemm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  return product(args, nargs, out, 0, err, errlen);
}

static int spgemm_jacobi(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                         size_t errlen) {
  return product(args, nargs, out, 1, err, errlen);
}

static const sk_kentry e_spgemm = {"sparse.spgemm", "A_*, B_*", SK_KRES_NONE, spgemm};
static const sk_kentry e_symbolic = {"sparse.spgemm_symbolic", "A_*, B_*", SK_KRES_NONE,
                                     spgemm_symbolic};
static const sk_kentry e_numeric = {"sparse.spgemm_numeric",
                                    "A_*, B_*, C_rowptr [, C_colidx, C_values]",
                                    SK_KRES_NONE, spgemm_numeric};
static const sk_kentry e_jacobi = {"sparse.spgemm_jacobi", "omega, A_*, P_*",
                                   SK_KRES_NONE, spgemm_jacobi};
const sk_kentry *const sk_spgemm_entries[] = {&e_spgemm, &e_symbolic, &e_numeric,
                                              &e_jacobi, NULL};
const sk_kbody *const sk_spgemm_bodies[] = {
  &k_ub,     &k_symbolic,       &k_symbolic_dense, &k_numeric,     &k_diag,
  &k_fill64, &k_symbolic_merge, &k_numeric_merge,  &k_merge_check, &k_numeric_dense,
  NULL};
