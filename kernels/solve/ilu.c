/* ilu.c: incomplete factorizations: ILU(k) by levels of fill, ILU(0) and
 * IC(0) (seed 000 section 2.4.1: the factor applied by the level-set
 * SpTRSV), in two phases as Kokkos Kernels' spiluk does.
 *
 * Symbolic (host, once per pattern): the factor's pattern F row by row
 * (Saad, Iterative Methods, alg. 10.5: an entry's level is 0 in A, and
 * lev(i,j) = min(lev(i,j), lev(i,k) + lev(k,j) + 1) through each k < i
 * of the row; entries of level <= k kept), every diagonal entry present,
 * and the level sets of F's lower triangle (a row's level one more than
 * the highest of the rows it reads) that schedule the numeric phase.
 * Numeric (where A lives, again whenever A's values change): one launch
 * per level, each row loaded from A into F's pattern and eliminated in
 * IKJ order, then split into a unit lower L (diagonal not stored) and an
 * upper U that speck.sparse.sptrsv solves with. IC(0) is ILU(0) of the
 * symmetric matrix, U = D L^T, with every pivot required positive; a
 * shift alpha factors A + alpha diag(A) instead (Manteuffel's shifted
 * incomplete Cholesky).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "amg.h"

/* -- bodies -------------------------------------------------------------------- */
static const char *const sig_row[] = {
  "range" PC_R1("arp", "int64") PC_R1("acol", "int32") PC_R1("av", "float64")
    PC_R1("frp", "int64") PC_R1("fcol", "int32") PC_R1("fv", "float64") PC_R1("dg", "int64")
      PC_R1("rows", "int64") PC_R1("bad", "int64") " first=int64 shift=float64 ic=int64",
  NULL};
static const sk_kbody k_row = {.label = "solve.ilu_row",
                               .body = sk_body_solve_ilu_row,
                               .pattern = SK_FOR,
                               .sigs = sig_row};
static const char *const sig_count[] = {"range" PC_R1("frp", "int64") PC_R1("dg", "int64")
                                          PC_R1("lc", "int64") PC_R1("uc", "int64")
                                            " n=int64",
                                        NULL};
static const sk_kbody k_count = {.label = "solve.ilu_count",
                                 .body = sk_body_solve_ilu_count,
                                 .pattern = SK_FOR,
                                 .sigs = sig_count};
static const char *const sig_cols[] = {
  "range" PC_R1("frp", "int64") PC_R1("dg", "int64") PC_R1("fcol", "int32")
    PC_R1("lrp", "int64") PC_R1("lcol", "int32") PC_R1("urp", "int64") PC_R1("ucol", "int32"),
  NULL};
static const sk_kbody k_cols = {.label = "solve.ilu_split_cols",
                                .body = sk_body_solve_ilu_split_cols,
                                .pattern = SK_FOR,
                                .sigs = sig_cols};
static const char *const sig_vals[] = {
  "range" PC_R1("frp", "int64") PC_R1("dg", "int64") PC_R1("fv", "float64")
    PC_R1("lrp", "int64") PC_R1("lv", "float64") PC_R1("urp", "int64") PC_R1("uv", "float64"),
  NULL};
static const sk_kbody k_vals = {.label = "solve.ilu_split_vals",
                                .body = sk_body_solve_ilu_split_vals,
                                .pattern = SK_FOR,
                                .sigs = sig_vals};

/* -- symbolic (host) ----------------------------------------------------------- */
typedef struct buf {
  int64_t n, cap;
  int64_t *col, *lev;
} buf;

static int buf_push(buf *b, int64_t c, int64_t l, char *err, size_t errlen) {
  if (b->n == b->cap) {
    int64_t cap = b->cap ? 2 * b->cap : 1024;
    int64_t *c2 = realloc(b->col, (size_t)cap * sizeof *c2);
    if (c2) b->col = c2;
    int64_t *l2 = c2 ? realloc(b->lev, (size_t)cap * sizeof *l2) : NULL;
    if (!c2 || !l2) {
      sk_err(err, errlen, SK_E_OUT_MEMORY_BYTES, (size_t)cap * 16);
      return -1;
    }
    b->lev = l2;
    b->cap = cap;
  }
  b->col[b->n] = c;
  b->lev[b->n++] = l;
  return 0;
}

/* a host view of 'n' int64 / int32 from 'src' in 'space' (copied there) */
static int put(sk_view *v, const char *label, int dtype, const int64_t *src, int64_t n,
               int space, char *err, size_t errlen) {
  sk_view h;
  if (sk_sp_view(&h, label, dtype, n, SK_SPACE_HOST, 0, err, errlen) < 0) return -1;
  for (int64_t k = 0; k < n; k++) {
    if (dtype == SK_I64)
      ((int64_t *)h.data)[k] = src[k];
    else
      ((int32_t *)h.data)[k] = (int32_t)src[k];
  }
  if (space == SK_SPACE_HOST) {
    *v = h;
    return 0;
  }
  int rc = sk_sp_view(v, label, dtype, n, space, 0, err, errlen);
  if (rc == 0 && (rc = sk_view_deep_copy(v, &h, err, errlen)) < 0) sk_view_release(v);
  sk_view_release(&h);
  return rc;
}

#define HI64(h, k) (((const int64_t *)(h).data)[(k) * (h).stride[0]])
#define HI32(h, k) (((const int32_t *)(h).data)[(k) * (h).stride[0]])

/* solve.ilu_symbolic: A_*, k -> F_rowptr, F_colidx, diag, rows, lp (host),
 * nlevels */
static int ilu_symbolic(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                        size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols", "k",
                                      NULL};
  sk_csr A;
  int64_t K;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "k", 1, 0, &K, err, errlen) < 0)
    return -1;
  if (K < 0) {
    sk_err(err, errlen, SK_E_ILU_K_NEGATIVE, (long long)K);
    return -1;
  }
  const int64_t n = A.nrows;
  const int space = A.rowptr->space;
  int rc = -1;
  sk_view hrp, hci, v[5];
  memset(&hrp, 0, sizeof hrp);
  memset(&hci, 0, sizeof hci);
  memset(v, 0, sizeof v);
  buf F = {0};
  int64_t *frp = calloc((size_t)n + 1, sizeof *frp), *dg = malloc(((size_t)n + 1) * 8),
          *next = malloc(((size_t)n + 1) * 8), *lev = malloc(((size_t)n + 1) * 8),
          *mark = malloc(((size_t)n + 1) * 8), *lvl = calloc((size_t)n + 1, 8),
          *rows = malloc(((size_t)n + 1) * 8), *lp = NULL;
  if (!frp || !dg || !next || !lev || !mark || !lvl || !rows) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_BYTES, (size_t)(n + 1) * 56);
    goto done;
  }
  if (sk_sp_host_copy(A.rowptr, &hrp, err, errlen) < 0 ||
      sk_sp_host_copy(A.colidx, &hci, err, errlen) < 0)
    goto done;
  for (int64_t j = 0; j < n; j++) mark[j] = -1;
  int64_t nlev = 0;
  for (int64_t i = 0; i < n; i++) {
    /* the row as a sorted linked list from 'head' (n ends it) */
    int64_t head = n;
    mark[i] = i, lev[i] = 0, next[i] = n, head = i;
    for (int64_t k = HI64(hrp, i); k < HI64(hrp, i + 1); k++) {
      const int64_t c = HI32(hci, k);
      if (mark[c] == i) continue;
      mark[c] = i, lev[c] = 0;
      if (c < head) {
        next[c] = head, head = c;
      } else {
        int64_t p = head;
        while (next[p] < c) p = next[p];
        next[c] = next[p], next[p] = c;
      }
    }
    /* fill through each k < i in ascending order */
    for (int64_t k = head; k < i; k = next[k]) {
      const int64_t lik = lev[k];
      int64_t p = k;
      for (int64_t q = dg[k] + 1; q < frp[k + 1]; q++) {
        const int64_t j = F.col[q], nl = lik + F.lev[q] + 1;
        if (nl > K) continue;
        if (mark[j] == i) {
          if (nl < lev[j]) lev[j] = nl;
          continue;
        }
        while (next[p] < j) p = next[p];
        mark[j] = i, lev[j] = nl;
        next[j] = next[p], next[p] = j;
        p = j;
      }
    }
    int64_t l = 0;
    for (int64_t c = head; c < n; c = next[c]) {
      if (c == i) dg[i] = F.n;
      if (c < i && lvl[c] + 1 > l) l = lvl[c] + 1;
      if (buf_push(&F, c, lev[c], err, errlen) < 0) goto done;
    }
    frp[i + 1] = F.n;
    lvl[i] = l;
    if (l + 1 > nlev) nlev = l + 1;
  }
  /* rows by level (counting sort, ascending within a level) */
  lp = calloc((size_t)nlev + 2, sizeof *lp);
  if (!lp) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_BYTES, (size_t)(nlev + 2) * 8);
    goto done;
  }
  for (int64_t i = 0; i < n; i++) lp[lvl[i] + 1]++;
  for (int64_t l = 0; l < nlev; l++) lp[l + 1] += lp[l];
  for (int64_t l = 0; l < nlev; l++) next[l] = lp[l];
  for (int64_t i = 0; i < n; i++) rows[next[lvl[i]]++] = i;
  if (put(&v[0], "F rowptr", SK_I64, frp, n + 1, space, err, errlen) < 0 ||
      put(&v[1], "F colidx", SK_I32, F.col, F.n, space, err, errlen) < 0 ||
      put(&v[2], "F diagonal", SK_I64, dg, n, space, err, errlen) < 0 ||
      put(&v[3], "level rows", SK_I64, rows, n, space, err, errlen) < 0 ||
      put(&v[4], "level pointers", SK_I64, lp, nlev + 1, SK_SPACE_HOST, err, errlen) < 0 ||
      sk_kout_num(out, "nlevels", (double)nlev, err, errlen) < 0)
    goto done;
  static const char *const names[] = {"F_rowptr", "F_colidx", "diag", "rows", "lp"};
  for (int q = 0; q < 5; q++)
    if (sk_kout_view(out, names[q], &v[q], err, errlen) < 0) goto done;
  rc = 0;
done:
  if (rc < 0)
    for (int q = 0; q < 5; q++) sk_view_release(&v[q]);
  sk_view_release(&hrp);
  sk_view_release(&hci);
  free(F.col), free(F.lev), free(frp), free(dg), free(next), free(lev), free(mark);
  free(lvl), free(rows), free(lp);
  return rc;
}

/* -- the split pattern (where A lives) ---------------------------------------- */
static int fpat(const sk_arg *args, int nargs, int64_t *n, const sk_view **frp,
                const sk_view **fcol, const sk_view **dg, char *err, size_t errlen) {
  if (!(*frp = sk_karg_view(args, nargs, "F_rowptr", 1, err, errlen)) ||
      !(*fcol = sk_karg_view(args, nargs, "F_colidx", 1, err, errlen)) ||
      !(*dg = sk_karg_view(args, nargs, "diag", 1, err, errlen)))
    return -1;
  *n = (*frp)->extent[0] - 1;
  if ((*frp)->dtype != SK_I64 || (*fcol)->dtype != SK_I32 || (*dg)->dtype != SK_I64 ||
      (*dg)->extent[0] != *n) {
    sk_err(err, errlen, SK_E_ILU_HANDLE);
    return -1;
  }
  return 0;
}

/* solve.ilu_pattern: F_rowptr, F_colidx, diag -> L_rowptr, L_colidx,
 * U_rowptr, U_colidx */
static int ilu_pattern(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {"F_rowptr", "F_colidx", "diag", NULL};
  const sk_view *frp, *fcol, *dg;
  int64_t n;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      fpat(args, nargs, &n, &frp, &fcol, &dg, err, errlen) < 0)
    return -1;
  int space = frp->space, rc = -1;
  int64_t nl = 0, nu = 0;
  sk_view v[4];
  memset(v, 0, sizeof v);
  if (sk_sp_view(&v[0], "L rowptr", SK_I64, n + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&v[2], "U rowptr", SK_I64, n + 1, space, 1, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("frp", frp), sk_arg_view("dg", dg), sk_arg_view("lc", &v[0]),
                  sk_arg_view("uc", &v[2]), sk_arg_i64("n", n)};
    if (sk_sp_range(&k_count, n, a, PC_NELEM(a), NULL, err, errlen) < 0 ||
        sk_sp_scan(&v[0], &v[0], n, &nl, err, errlen) < 0 ||
        sk_sp_scan(&v[2], &v[2], n, &nu, err, errlen) < 0)
      goto done;
  }
  if (sk_sp_view(&v[1], "L colidx", SK_I32, nl, space, 0, err, errlen) < 0 ||
      sk_sp_view(&v[3], "U colidx", SK_I32, nu, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("frp", frp),   sk_arg_view("dg", dg),
                  sk_arg_view("fcol", fcol), sk_arg_view("lrp", &v[0]),
                  sk_arg_view("lcol", &v[1]), sk_arg_view("urp", &v[2]),
                  sk_arg_view("ucol", &v[3])};
    if (n > 0 && sk_sp_range(&k_cols, n, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  static const char *const names[] = {"L_rowptr", "L_colidx", "U_rowptr", "U_colidx"};
  for (int q = 0; q < 4; q++)
    if (sk_kout_view(out, names[q], &v[q], err, errlen) < 0) goto done;
  rc = 0;
done:
  if (rc < 0)
    for (int q = 0; q < 4; q++) sk_view_release(&v[q]);
  return rc;
}

/* solve.ilu_numeric: A_*, F_rowptr, F_colidx, F_values, diag, rows, lp,
 * L_rowptr, L_values, U_rowptr, U_values [, shift = 0, ic = 0]: the
 * factor's values (in place) */
static int ilu_numeric(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                       size_t errlen) {
  static const char *const known[] = {
    "A_rowptr", "A_colidx", "A_values", "A_ncols",  "F_rowptr", "F_colidx",
    "F_values", "diag",     "rows",     "lp",       "L_rowptr", "L_values",
    "U_rowptr", "U_values", "shift",    "ic",       NULL};
  (void)out;
  sk_csr A;
  const sk_view *frp, *fcol, *fv, *dg, *rows, *lp, *lrp, *lv, *urp, *uv;
  int64_t n, ic;
  double shift = 0;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      fpat(args, nargs, &n, &frp, &fcol, &dg, err, errlen) < 0 ||
      !(fv = sk_karg_view(args, nargs, "F_values", 1, err, errlen)) ||
      !(rows = sk_karg_view(args, nargs, "rows", 1, err, errlen)) ||
      !(lp = sk_karg_view(args, nargs, "lp", 1, err, errlen)) ||
      !(lrp = sk_karg_view(args, nargs, "L_rowptr", 1, err, errlen)) ||
      !(lv = sk_karg_view(args, nargs, "L_values", 1, err, errlen)) ||
      !(urp = sk_karg_view(args, nargs, "U_rowptr", 1, err, errlen)) ||
      !(uv = sk_karg_view(args, nargs, "U_values", 1, err, errlen)) ||
      sk_karg_i64(args, nargs, "ic", 1, 0, &ic, err, errlen) < 0 ||
      (sk_karg_find(args, nargs, "shift") &&
       sk_karg_f64(args, nargs, "shift", &shift, err, errlen) < 0))
    return -1;
  if (n != A.nrows || fv->dtype != SK_F64 || fv->extent[0] != fcol->extent[0] ||
      rows->extent[0] != n || lp->space != SK_SPACE_HOST || lp->dtype != SK_I64 ||
      lv->dtype != SK_F64 || uv->dtype != SK_F64 ||
      lv->extent[0] + uv->extent[0] != fv->extent[0]) {
    sk_err(err, errlen, SK_E_ILU_HANDLE);
    return -1;
  }
  sk_view bad;
  memset(&bad, 0, sizeof bad);
  int rc = -1;
  int64_t row = INT64_MAX;
  if (sk_pc_flag(&bad, A.rowptr->space, err, errlen) < 0) goto done;
  const int64_t nlev = lp->extent[0] - 1;
  for (int64_t l = 0; l < nlev; l++) {
    const int64_t b = HI64(*lp, l), e = HI64(*lp, l + 1);
    sk_arg a[] = {sk_arg_view("arp", A.rowptr), sk_arg_view("acol", A.colidx),
                  sk_arg_view("av", A.values),  sk_arg_view("frp", frp),
                  sk_arg_view("fcol", fcol),    sk_arg_view("fv", fv),
                  sk_arg_view("dg", dg),        sk_arg_view("rows", rows),
                  sk_arg_view("bad", &bad),     sk_arg_i64("first", b),
                  sk_arg_f64("shift", shift),   sk_arg_i64("ic", ic)};
    if (e > b && sk_sp_range(&k_row, e - b, a, PC_NELEM(a), NULL, err, errlen) < 0)
      goto done;
  }
  if (sk_pc_flag_read(&bad, &row, err, errlen) < 0) goto done;
  if (row != INT64_MAX) {
    double piv;
    int64_t at;
    if (sk_sp_get_i64(dg, row, &at, err, errlen) < 0 ||
        sk_sp_get_f64(fv, at, &piv, err, errlen) < 0)
      goto done;
    if (ic)
      sk_err(err, errlen, SK_E_IC0_PIVOT, piv, (long long)row);
    else
      sk_err(err, errlen, SK_E_ILU_ZERO_PIVOT, (long long)row);
    goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("frp", frp), sk_arg_view("dg", dg),  sk_arg_view("fv", fv),
                  sk_arg_view("lrp", lrp), sk_arg_view("lv", lv), sk_arg_view("urp", urp),
                  sk_arg_view("uv", uv)};
    if (n > 0 && sk_sp_range(&k_vals, n, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  rc = 0;
done:
  sk_view_release(&bad);
  return rc;
}

static const sk_kentry e_symbolic = {"solve.ilu_symbolic", "A_* [, k]", SK_KRES_NONE,
                                     ilu_symbolic};
static const sk_kentry e_pattern = {"solve.ilu_pattern", "F_rowptr, F_colidx, diag",
                                    SK_KRES_NONE, ilu_pattern};
static const sk_kentry e_numeric = {"solve.ilu_numeric",
                                    "A_*, F_*, diag, rows, lp, L_*, U_* [, shift, ic]",
                                    SK_KRES_NONE, ilu_numeric};
const sk_kentry *const sk_pc_ilu_entries[] = {&e_symbolic, &e_pattern, &e_numeric, NULL};
const sk_kbody *const sk_pc_ilu_bodies[] = {&k_row, &k_count, &k_cols, &k_vals, NULL};
