/* spadd.c: C = alpha*A + beta*B (seed 000 section 2.3) with a symbolic
 * phase (C's pattern and, for every entry of A and of B, its place in C)
 * and a numeric phase that scatters alpha*A and beta*B into C's values;
 * the numeric phase can be rerun for new values of the same patterns.
 * Complex values (complex128, complex64) add as any: alpha, beta real.
 *
 * Both inputs may hold several entries of one column in a row (they are
 * merged). Rows sorted by column (duplicates allowed) merge like two
 * sorted lists (section 2.3.2); otherwise each row's entries of A and B
 * are sorted together first (section 2.3.1: a heapsort per row on every
 * back end). The driver checks the order (one pass over the column
 * indices) and takes the sorted path only when both inputs are sorted, so
 * unsorted input is handled, never merged wrongly. C's rows come out
 * sorted, without duplicates.
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
/* rows of (rp, ci) whose columns decrease somewhere */
static const char *const sig_order[] = {"range" R1("rp", "int64") R1("ci", "int32"),
                                        NULL};
static const sk_kbody k_order = {.label = "sparse.spadd_order",
                                 .body = sk_body_sparse_spadd_order,
                                 .pattern = SK_REDUCE,
                                 .sigs = sig_order,
                                 .reds = "sum:int64"};

/* sorted rows: merge A's row i and B's, counting distinct columns; with
 * 'fill', write them at C's offsets with every source entry's place */
#define MERGE_SIG \
  "range" PAT("a") PAT("b") R1("cnt", "int64") R1("crp", "int64") R1("cci", "int32") \
    R1("apos", "int64") R1("bpos", "int64") " fill=int64"
static const char *const sig_merge[] = {MERGE_SIG, NULL};
static const sk_kbody k_merge = {.label = "sparse.spadd_merge",
                                 .body = sk_body_sparse_spadd_merge,
                                 .pattern = SK_FOR,
                                 .sigs = sig_merge};

/* unsorted rows: row i's entries of A and B (numbered e < nA for A, nA + k
 * for B) sorted by (column, number) at offset arp(i) + brp(i) of 'key' and
 * 'perm', and the distinct columns counted */
#define SORT_SIG \
  "range" PAT("a") PAT("b") R1("key", "int64") R1("perm", "int64") \
    R1("cnt", "int64") " na=int64"
static const char *const sig_usort[] = {SORT_SIG, NULL};
static const sk_kbody k_usort = {.label = "sparse.spadd_sort",
                                 .body = sk_body_sparse_spadd_sort,
                                 .pattern = SK_FOR,
                                 .sigs = sig_usort,
                                 .prelude = sk_body_sparse_prelude};

#define UFILL_SIG \
  "range" R1("arp", "int64") R1("brp", "int64") R1("key", "int64") R1("perm", "int64") \
    R1("crp", "int64") R1("cci", "int32") R1("apos", "int64") \
      R1("bpos", "int64") " na=int64"
static const char *const sig_ufill[] = {UFILL_SIG, NULL};
static const sk_kbody k_ufill = {.label = "sparse.spadd_fill",
                                 .body = sk_body_sparse_spadd_fill,
                                 .pattern = SK_FOR,
                                 .sigs = sig_ufill};

/* numeric: row i of C zeroed, then alpha*A and beta*B scattered in order */
#define NUM_SIG(VT) \
  "range" R1("arp", "int64") R1("av", VT) R1("brp", "int64") R1("bv", VT) \
    R1("crp", "int64") R1("cv", VT) R1("apos", "int64") \
      R1("bpos", "int64") " alpha=float64 beta=float64"
static const char *const sig_num[] = {NUM_SIG("float64"), NUM_SIG("float32"), NULL};
static const sk_kbody k_numeric = {.label = "sparse.spadd_numeric",
                                   .body = sk_body_sparse_spadd_numeric,
                                   .pattern = SK_FOR,
                                   .sigs = sig_num};

/* -- drivers ------------------------------------------------------------------ */
static int unsorted_rows(const sk_csr *m, int64_t *n, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("rp", m->rowptr), sk_arg_view("ci", m->colidx)};
  sk_result r;
  if (sk_sp_range(&k_order, m->nrows, a, NELEM(a), &r, err, errlen) < 0) return -1;
  *n = m->nrows ? sk_result_i64(&r, 0) : 0;
  return 0;
}

static int shapes(const sk_csr *A, const sk_csr *B, char *err, size_t errlen) {
  char sa[64], sb[64];
  if (A->nrows == B->nrows && A->ncols == B->ncols) {
    if (A->rowptr->space == B->rowptr->space) return 0;
    sk_err(err, errlen, SK_E_LIVES_B, sk_space_name(A->rowptr->space),
           sk_space_name(B->rowptr->space));
    return -1;
  }
  sk_err(err, errlen, SK_E_B_ALPHA_BETA, sk_csr_shape(A, sa, sizeof sa),
         sk_csr_shape(B, sb, sizeof sb));
  return -1;
}

/* C's pattern: rowptr, colidx, and the places of A's and B's entries */
static int symbolic(const sk_csr *A, const sk_csr *B, sk_view *crp, sk_view *cci,
                    sk_view *apos, sk_view *bpos, int *sorted_path, char *err,
                    size_t errlen) {
  int space = A->rowptr->space, rc = -1;
  int64_t ua, ub, nnz;
  sk_view cnt, key, perm;
  sk_view *tmp[] = {&cnt, &key, &perm}, *res[] = {crp, cci, apos, bpos};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  for (int t = 0; t < NELEM(res); t++) memset(res[t], 0, sizeof *res[t]);
  if (unsorted_rows(A, &ua, err, errlen) < 0 || unsorted_rows(B, &ub, err, errlen) < 0)
    return -1;
  *sorted_path = ua == 0 && ub == 0;
  if (sk_sp_view(&cnt, "row counts", SK_I64, A->nrows + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(crp, "C_rowptr", SK_I64, A->nrows + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(apos, "A places", SK_I64, A->nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(bpos, "B places", SK_I64, B->nnz, space, 0, err, errlen) < 0)
    goto done;
  if (*sorted_path) {
    sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("aci", A->colidx),
                  sk_arg_view("brp", B->rowptr), sk_arg_view("bci", B->colidx),
                  sk_arg_view("cnt", &cnt),      sk_arg_view("crp", crp),
                  sk_arg_view("cci", A->colidx), sk_arg_view("apos", apos),
                  sk_arg_view("bpos", bpos),     sk_arg_i64("fill", 0)};
    if (sk_sp_range(&k_merge, A->nrows, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&cnt, crp, A->nrows, &nnz, err, errlen) < 0 ||
        sk_sp_view(cci, "C_colidx", SK_I32, nnz, space, 0, err, errlen) < 0)
      goto done;
    a[6] = sk_arg_view("cci", cci);
    a[9] = sk_arg_i64("fill", 1);
    if (sk_sp_range(&k_merge, A->nrows, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  } else {
    int64_t n = A->nnz + B->nnz;
    if (sk_sp_view(&key, "sort keys", SK_I64, n, space, 0, err, errlen) < 0 ||
        sk_sp_view(&perm, "entries", SK_I64, n, space, 0, err, errlen) < 0)
      goto done;
    sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("aci", A->colidx),
                  sk_arg_view("brp", B->rowptr), sk_arg_view("bci", B->colidx),
                  sk_arg_view("key", &key),      sk_arg_view("perm", &perm),
                  sk_arg_view("cnt", &cnt),      sk_arg_i64("na", A->nnz)};
    if (sk_sp_range(&k_usort, A->nrows, a, NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&cnt, crp, A->nrows, &nnz, err, errlen) < 0 ||
        sk_sp_view(cci, "C_colidx", SK_I32, nnz, space, 0, err, errlen) < 0)
      goto done;
    sk_arg f[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("brp", B->rowptr),
                  sk_arg_view("key", &key),      sk_arg_view("perm", &perm),
                  sk_arg_view("crp", crp),       sk_arg_view("cci", cci),
                  sk_arg_view("apos", apos),     sk_arg_view("bpos", bpos),
                  sk_arg_i64("na", A->nnz)};
    if (sk_sp_range(&k_ufill, A->nrows, f, NELEM(f), NULL, err, errlen) < 0) goto done;
  }
  rc = 0;
done:
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  if (rc < 0)
    for (int t = 0; t < NELEM(res); t++) sk_view_release(res[t]);
  return rc;
}

static int numeric(double alpha, const sk_csr *A, double beta, const sk_csr *B,
                   const sk_view *crp, const sk_view *apos, const sk_view *bpos,
                   const sk_view *cv, char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("arp", A->rowptr), sk_arg_view("av", A->values),
                sk_arg_view("brp", B->rowptr), sk_arg_view("bv", B->values),
                sk_arg_view("crp", crp),       sk_arg_view("cv", cv),
                sk_arg_view("apos", apos),     sk_arg_view("bpos", bpos),
                sk_arg_f64("alpha", alpha),    sk_arg_f64("beta", beta)};
  return sk_sp_range(&k_numeric, A->nrows, a, NELEM(a), NULL, err, errlen);
}

static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                    "B_rowptr", "B_colidx", "B_values", "B_ncols",
                                    "alpha",    "beta",     "C_rowptr", "C_values",
                                    "A_pos",    "B_pos",    NULL};

/* sparse.spadd_symbolic: A_*, B_* (values optional) -> C_rowptr, C_colidx,
 * A_pos, B_pos, sorted (1: the merge path was taken) */
static int spadd_symbolic(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                          size_t errlen) {
  sk_csr A, B;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", SK_CSR_CPLX, &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "B", SK_CSR_CPLX, &B, err, errlen) < 0 ||
      shapes(&A, &B, err, errlen) < 0)
    return -1;
  sk_view crp, cci, apos, bpos;
  int sorted;
  if (symbolic(&A, &B, &crp, &cci, &apos, &bpos, &sorted, err, errlen) < 0) return -1;
  sk_kout_view(out, "C_rowptr", &crp, err, errlen);
  sk_kout_view(out, "C_colidx", &cci, err, errlen);
  sk_kout_view(out, "A_pos", &apos, err, errlen);
  sk_kout_view(out, "B_pos", &bpos, err, errlen);
  return sk_kout_num(out, "sorted", sorted, err, errlen);
}

/* the handle's views, checked against A and B */
static int handle(const sk_arg *args, int nargs, const sk_csr *A, const sk_csr *B,
                  const sk_view **crp, const sk_view **apos, const sk_view **bpos,
                  char *err, size_t errlen) {
  if (!(*crp = sk_karg_view(args, nargs, "C_rowptr", 1, err, errlen)) ||
      !(*apos = sk_karg_view(args, nargs, "A_pos", 1, err, errlen)) ||
      !(*bpos = sk_karg_view(args, nargs, "B_pos", 1, err, errlen)))
    return -1;
  if ((*crp)->extent[0] != A->nrows + 1 || (*apos)->extent[0] != A->nnz ||
      (*bpos)->extent[0] != B->nnz || (*crp)->dtype != SK_I64 ||
      (*apos)->dtype != SK_I64 || (*bpos)->dtype != SK_I64) {
    sk_err(err, errlen, SK_E_HANDLE_DOES_NOT, (long long)A->nnz, (long long)B->nnz,
           (long long)(*apos)->extent[0], (long long)(*bpos)->extent[0]);
    return -1;
  }
  return 0;
}

/* sparse.spadd_numeric: alpha, A_*, beta, B_*, C_rowptr, A_pos, B_pos
 * [, C_values (filled in place)] -> C_values when new */
static int spadd_numeric(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                         size_t errlen) {
  sk_csr A, B;
  double alpha, beta;
  const sk_view *crp, *apos, *bpos;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "B", 1 | SK_CSR_CPLX, &B, err, errlen) < 0 ||
      shapes(&A, &B, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0 ||
      handle(args, nargs, &A, &B, &crp, &apos, &bpos, err, errlen) < 0)
    return -1;
  if (A.values->dtype != B.values->dtype) {
    sk_err(err, errlen, SK_E_B_BOTH_MUST, sk_dtypes[A.values->dtype].name,
           sk_dtypes[B.values->dtype].name);
    return -1;
  }
  int64_t nnz;
  if (sk_sp_get_i64(crp, A.nrows, &nnz, err, errlen) < 0) return -1;
  if (sk_karg_find(args, nargs, "C_values")) {
    const sk_view *cv = sk_karg_view(args, nargs, "C_values", 1, err, errlen);
    if (!cv) return -1;
    if (cv->extent[0] != nnz || cv->dtype != A.values->dtype) {
      sk_err(err, errlen, SK_E_C_VALUES_VIEW, cv->label, sk_dtypes[A.values->dtype].name,
             (long long)nnz);
      return -1;
    }
    return numeric(alpha, &A, beta, &B, crp, apos, bpos, cv, err, errlen);
  }
  sk_view cv;
  if (sk_sp_view(&cv, "C_values", A.values->dtype, nnz, crp->space, 0, err, errlen) < 0)
    return -1;
  if (numeric(alpha, &A, beta, &B, crp, apos, bpos, &cv, err, errlen) < 0) {
    sk_view_release(&cv);
    return -1;
  }
  return sk_kout_view(out, "C_values", &cv, err, errlen);
}

/* sparse.spadd: alpha, A_*, beta, B_* -> C_rowptr, C_colidx, C_values */
static int spadd(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  sk_csr A, B;
  double alpha, beta;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "B", 1 | SK_CSR_CPLX, &B, err, errlen) < 0 ||
      shapes(&A, &B, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0)
    return -1;
  if (A.values->dtype != B.values->dtype) {
    sk_err(err, errlen, SK_E_B_BOTH_MUST, sk_dtypes[A.values->dtype].name,
           sk_dtypes[B.values->dtype].name);
    return -1;
  }
  sk_view crp, cci, apos, bpos, cv;
  int sorted, rc = -1;
  int64_t nnz = 0;
  memset(&cv, 0, sizeof cv);
  if (symbolic(&A, &B, &crp, &cci, &apos, &bpos, &sorted, err, errlen) < 0) return -1;
  if (sk_sp_get_i64(&crp, A.nrows, &nnz, err, errlen) == 0 &&
      sk_sp_view(&cv, "C_values", A.values->dtype, nnz, crp.space, 0, err, errlen) == 0 &&
      numeric(alpha, &A, beta, &B, &crp, &apos, &bpos, &cv, err, errlen) == 0) {
    sk_kout_view(out, "C_rowptr", &crp, err, errlen);
    sk_kout_view(out, "C_colidx", &cci, err, errlen);
    rc = sk_kout_view(out, "C_values", &cv, err, errlen);
  }
  sk_view_release(&crp);
  sk_view_release(&cci);
  sk_view_release(&cv);
  sk_view_release(&apos);
  sk_view_release(&bpos);
  return rc;
}

static const sk_kentry e_spadd = {"sparse.spadd", "alpha, A_*, beta, B_*", SK_KRES_NONE,
                                  spadd};
static const sk_kentry e_symbolic = {"sparse.spadd_symbolic", "A_*, B_*", SK_KRES_NONE,
                                     spadd_symbolic};
static const sk_kentry e_numeric = {"sparse.spadd_numeric",
                                    "alpha, A_*, beta, B_*, C_rowptr, A_pos, B_pos",
                                    SK_KRES_NONE, spadd_numeric};
const sk_kentry *const sk_spadd_entries[] = {&e_spadd, &e_symbolic, &e_numeric, NULL};
const sk_kbody *const sk_spadd_bodies[] = {&k_order, &k_merge,   &k_usort,
                                           &k_ufill, &k_numeric, NULL};
