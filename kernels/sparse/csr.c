/* csr.c: CRS matrices: argument checks, temporaries, and building them
 * (COO triplets, dense views, the transpose), each step a dialect body
 * run through sk_run, so the same code builds a matrix on every back end.
 *
 * Building from COO is a counting sort: count entries per row (atomics),
 * scan into offsets, scatter entry numbers (atomics: any order), sort
 * each row's entries by (column, entry number) -- which makes the result
 * independent of the scatter's order, duplicates summed in input order --
 * then count the distinct columns per row, scan, and write. Unsorted
 * output keeps the input order (duplicates at their first place).
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "sparse.h"
#include "kbodies.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* -- matrices ---------------------------------------------------------------- */
static const char *dt_name(int dt) { return sk_dtypes[dt].name; }

int sk_sp_is_float(int dt) { return dt == SK_F64 || dt == SK_F32; }

int sk_csr_arg(const sk_arg *args, int nargs, const char *p, int need_values, sk_csr *m,
               char *err, size_t errlen) {
  char nm[64];
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", p);
  snprintf(nm, sizeof nm, "%s_rowptr", p);
  if (!(m->rowptr = sk_karg_view(args, nargs, nm, 1, err, errlen))) return -1;
  snprintf(nm, sizeof nm, "%s_colidx", p);
  if (!(m->colidx = sk_karg_view(args, nargs, nm, 1, err, errlen))) return -1;
  snprintf(nm, sizeof nm, "%s_values", p);
  int cplx_ok = (need_values & SK_CSR_CPLX) != 0;
  need_values &= 1;
  if (need_values || sk_karg_find(args, nargs, nm))
    if (!(m->values = sk_karg_view(args, nargs, nm, 1, err, errlen))) return -1;
  snprintf(nm, sizeof nm, "%s_ncols", p);
  if (sk_karg_i64(args, nargs, nm, 0, 0, &m->ncols, err, errlen) < 0) return -1;
  if (m->rowptr->dtype != SK_I64) {
    sk_err(err, errlen, SK_E_ROWPTR_VIEW_MUST, p, m->rowptr->label,
           dt_name(m->rowptr->dtype));
    return -1;
  }
  if (m->colidx->dtype != SK_I32) {
    sk_err(err, errlen, SK_E_COLIDX_VIEW_MUST, p, m->colidx->label,
           dt_name(m->colidx->dtype));
    return -1;
  }
  if (m->values && !(cplx_ok && sk_dtypes[m->values->dtype].is_complex) &&
      !sk_sp_is_float(m->values->dtype)) {
    sk_err(err, errlen, SK_E_VALUES_VIEW_MUST, p, m->values->label,
           dt_name(m->values->dtype));
    return -1;
  }
  if (m->rowptr->extent[0] < 1) {
    sk_err(err, errlen, SK_E_ROWPTR_VIEW_EMPTY, p, m->rowptr->label);
    return -1;
  }
  if (m->ncols < 0 || m->ncols > INT32_MAX) {
    sk_err(err, errlen, SK_E_COLUMNS_COLUMN_INDICES, p, (long long)m->ncols, INT32_MAX);
    return -1;
  }
  m->nrows = m->rowptr->extent[0] - 1;
  m->nnz = m->colidx->extent[0];
  if (m->values && m->values->extent[0] != m->nnz) {
    sk_err(err, errlen, SK_E_VALUES_VIEW_ENTRIES, p, m->values->label,
           (long long)m->values->extent[0], p, (long long)m->nnz);
    return -1;
  }
  return 0;
}

const char *sk_csr_shape(const sk_csr *m, char *buf, size_t n) {
  snprintf(buf, n, "%lldx%lld", (long long)m->nrows, (long long)m->ncols);
  return buf;
}

void sk_csr_args(const sk_csr *m, const char *p, char names[4][32], sk_arg *args,
                 int *n) {
  snprintf(names[0], 32, "%s_rowptr", p);
  snprintf(names[1], 32, "%s_colidx", p);
  snprintf(names[2], 32, "%s_values", p);
  snprintf(names[3], 32, "%s_ncols", p);
  args[(*n)++] = sk_arg_view(names[0], m->rowptr);
  args[(*n)++] = sk_arg_view(names[1], m->colidx);
  if (m->values) args[(*n)++] = sk_arg_view(names[2], m->values);
  args[(*n)++] = sk_arg_i64(names[3], m->ncols);
}

/* -- views ------------------------------------------------------------------- */
int sk_sp_view(sk_view *v, const char *label, int dtype, int64_t n, int space, int init,
               char *err, size_t errlen) {
  int64_t ext[1] = {n};
  return sk_view_create(v, label, dtype, 1, ext, sk_space_default_layout(space), space,
                        init, NULL, err, errlen);
}

/* elements [i, i + n) of 'v' (contiguous: stride 1 when n > 1) into host
 * memory 'cell' */
static int get_cells(const sk_view *v, int64_t i, int64_t n, void *cell, char *err,
                     size_t errlen) {
  if (i < 0 || n < 1 || i + n > v->extent[0]) {
    sk_err(err, errlen, SK_E_INDEX_OUTSIDE_VIEW, (long long)(i < 0 ? i : i + n - 1), v->label,
           (long long)v->extent[0]);
    return -1;
  }
  size_t es = sk_dtypes[v->dtype].size, bytes = (size_t)n * es;
  const char *src = (const char *)v->data + (size_t)(i * v->stride[0]) * es;
  if (sk_space_host_accessible(v->space)) {
    const sk_backend *b = sk_backend_for_space(v->space);
    /* managed memory: the device may still be writing it */
    if (v->space != SK_SPACE_HOST && b && b->fence && b->fence(err, errlen) < 0)
      return -1;
    memcpy(cell, src, bytes);
    return 0;
  }
  const sk_backend *b = sk_backend_for_space(v->space);
  if (!b || !b->copy) {
    sk_err(err, errlen, SK_E_CANNOT_READ_VIEW, v->label, sk_space_name(v->space));
    return -1;
  }
  return b->copy(cell, SK_SPACE_HOST, src, v->space, bytes, err, errlen);
}

int sk_sp_get_i64(const sk_view *v, int64_t i, int64_t *x, char *err, size_t errlen) {
  unsigned char cell[16];
  if (get_cells(v, i, 1, cell, err, errlen) < 0) return -1;
  sk_view one = *v;
  one.data = cell;
  one.stride[0] = 1;
  *x = sk_view_get_i(&one, 0);
  return 0;
}

int sk_sp_get_i64s(const sk_view *v, int64_t i, int64_t n, int64_t *x, char *err,
                   size_t errlen) {
  if (v->dtype != SK_I64 || (n > 1 && v->stride[0] != 1)) {
    sk_err(err, errlen, SK_E_CELLS_INT64_STRIDE1, "sk_sp_get_i64s", v->label,
           sk_dtypes[v->dtype].name, (long long)v->stride[0]);
    return -1;
  }
  return get_cells(v, i, n, x, err, errlen);
}

int sk_sp_get_f64(const sk_view *v, int64_t i, double *x, char *err, size_t errlen) {
  unsigned char cell[16];
  if (get_cells(v, i, 1, cell, err, errlen) < 0) return -1;
  sk_view one = *v;
  one.data = cell;
  one.stride[0] = 1;
  *x = sk_view_get_f(&one, 0);
  return 0;
}

const sk_backend *sk_sp_backend(char *err, size_t errlen) {
  return sk_rt_backend(err, errlen);
}

int sk_sp_host(const sk_backend *b) { return b->code == SK_CODE_HOST; }

int sk_sp_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                sk_result *res, char *err, size_t errlen) {
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.end = n;
  return sk_kbody_launch(kb, &p, args, nargs, res, err, errlen);
}

/* -- bodies ------------------------------------------------------------------ */
#define R1(name, dt) " " name "=" dt "[1]"

static const char *const sig_scan[] = {
  "range" R1("cnt", "int64") R1("ptr", "int64") " n=int64", NULL};
const sk_kbody sk_sp_k_scan = {.label = "sparse.scan",
                               .body = sk_body_sparse_scan,
                               .pattern = SK_SCAN,
                               .sigs = sig_scan,
                               .reds = "int64"};

int sk_sp_scan(const sk_view *cnt, const sk_view *ptr, int64_t n, int64_t *total,
               char *err, size_t errlen) {
  sk_arg a[] = {sk_arg_view("cnt", cnt), sk_arg_view("ptr", ptr), sk_arg_i64("n", n)};
  sk_result r;
  if (sk_sp_range(&sk_sp_k_scan, n + 1, a, NELEM(a), &r, err, errlen) < 0) return -1;
  if (total) *total = sk_result_i64(&r, 0);
  return 0;
}

#define COO_SIG(IT) "range" R1("rows", IT) R1("cols", IT) " nrows=int64 ncols=int64"
static const char *const sig_coo_check[] = {COO_SIG("int64"), COO_SIG("int32"), NULL};
/* the first entry out of range */
static const sk_kbody k_coo_check = {.label = "sparse.coo_check",
                                     .body = sk_body_sparse_coo_check,
                                     .pattern = SK_REDUCE,
                                     .sigs = sig_coo_check,
                                     .reds = "min:int64"};

#define CNT_SIG(IT) "range" R1("rows", IT) R1("cnt", "int64")
static const char *const sig_count[] = {CNT_SIG("int64"), CNT_SIG("int32"), NULL};
static const sk_kbody k_count = {.label = "sparse.count",
                                 .body = sk_body_sparse_count,
                                 .pattern = SK_FOR,
                                 .sigs = sig_count};

/* entry i to the next place of its row; key: its column (sorted rows) or
 * nothing (input order) */
#define SCAT_SIG(IT) \
  "range" R1("rows", IT) R1("cols", IT) R1("cur", "int64") R1("perm", "int64") \
    R1("key", "int64") " bycol=int64"
static const char *const sig_scatter[] = {SCAT_SIG("int64"), SCAT_SIG("int32"), NULL};
static const sk_kbody k_scatter = {.label = "sparse.coo_scatter",
                                   .body = sk_body_sparse_coo_scatter,
                                   .pattern = SK_FOR,
                                   .sigs = sig_scatter};

/* sort each row's (key, perm) pairs by key, then perm */
static const char *const sig_rowsort[] = {
  "range" R1("ptr", "int64") R1("key", "int64") R1("perm", "int64"), NULL};
static const sk_kbody k_rowsort = {.label = "sparse.row_sort",
                                   .body = sk_body_sparse_row_sort,
                                   .pattern = SK_FOR,
                                   .sigs = sig_rowsort,
                                   .prelude = sk_body_sparse_prelude};

/* distinct keys per sorted row (all entries when not merging) */
static const char *const sig_ucount[] = {
  "range" R1("ptr", "int64") R1("key", "int64") R1("cnt", "int64") " merge=int64", NULL};
static const sk_kbody k_ucount = {.label = "sparse.row_unique",
                                  .body = sk_body_sparse_row_unique,
                                  .pattern = SK_FOR,
                                  .sigs = sig_ucount};

/* write row i: columns from 'cols' through 'perm', values summed over
 * equal keys (in perm order) when merging; 'first' gets each output's
 * first input entry */
#define FILL_SIG(IT, VT, OT) \
  "range" R1("ptr", "int64") R1("key", "int64") R1("perm", "int64") R1("cols", IT) \
    R1("vals", VT) R1("rowptr", "int64") R1("colidx", "int32") R1("values", OT) \
      R1("first", "int64") " merge=int64"
static const char *const sig_fill[] = {
  FILL_SIG("int64", "float64", "float64"), FILL_SIG("int32", "float64", "float64"),
  FILL_SIG("int64", "float32", "float32"), FILL_SIG("int32", "float32", "float32"), NULL};
static const sk_kbody k_fill = {.label = "sparse.coo_fill",
                                .body = sk_body_sparse_coo_fill,
                                .pattern = SK_FOR,
                                .sigs = sig_fill};

/* sort the entries of row i of (colidx, values) by 'first' */
#define REORD_SIG(VT) \
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT) \
    R1("first", "int64")
static const char *const sig_reorder[] = {REORD_SIG("float64"), REORD_SIG("float32"),
                                          NULL};
static const sk_kbody k_reorder = {.label = "sparse.row_reorder",
                                   .body = sk_body_sparse_row_reorder,
                                   .pattern = SK_FOR,
                                   .sigs = sig_reorder,
                                   .prelude = sk_body_sparse_prelude};

static const char *const sig_fill1[] = {"range" R1("v", "float64"),
                                        "range" R1("v", "float32"), NULL};
static const sk_kbody k_ones = {.label = "sparse.ones",
                                .body = sk_body_sparse_ones,
                                .pattern = SK_FOR,
                                .sigs = sig_fill1};

/* -- COO to CSR -------------------------------------------------------------- */
int sk_sp_coo_to_csr(int64_t nrows, int64_t ncols, const sk_view *rows,
                     const sk_view *cols, const sk_view *vals, int dtype, int sum_dup,
                     int sort, int space, sk_view *rp, sk_view *ci, sk_view *va,
                     char *err, size_t errlen) {
  int64_t n = rows->extent[0], nnz = 0;
  sk_view cnt, ptr, perm, key, first, ones;
  sk_view *tmp[] = {&cnt, &ptr, &perm, &key, &first, &ones};
  for (int t = 0; t < NELEM(tmp); t++) memset(tmp[t], 0, sizeof *tmp[t]);
  memset(rp, 0, sizeof *rp);
  memset(ci, 0, sizeof *ci);
  memset(va, 0, sizeof *va);
  int rc = -1;
  int bycol = sort || sum_dup;
  /* entries out of core (in the default space's spill space, host memory
   * the device reads in place): the row arrays -- the scatter's atomic
   * cursors among them -- stay in device memory */
  int rspace = space;
  {
    char e2[256];
    int def = sk_rt_default_space(e2, sizeof e2);
    if (def >= 0 && sk_space_spill(def) == space) rspace = def;
  }
  /* refused before anything is allocated when the peak (three arrays of
   * row pointers, the sort's four of the entries) does not fit beside the
   * views held: a 3-line Matrix Market file may announce 2e9 rows (found
   * by fuzz_mm; 16 GB were touched before the second array was refused) */
  if (space == SK_SPACE_HOST && nrows >= 0 && n >= 0) {
    uint64_t need = 3 * ((uint64_t)nrows + 1) * 8 + (uint64_t)n * 40;
    char msg[512];
    if (sk_host_room(need, msg, sizeof msg) < 0) {
      sk_err(err, errlen, SK_E_X_MATRIX_ENTRIES, (long long)nrows, (long long)ncols,
             (long long)n, msg);
      return -1;
    }
  }
  if (!vals) {
    if (sk_sp_view(&ones, "ones", dtype, n, space, 0, err, errlen) < 0) goto done;
    sk_arg a[] = {sk_arg_view("v", &ones)};
    if (sk_sp_range(&k_ones, n, a, 1, NULL, err, errlen) < 0) goto done;
    vals = &ones;
  }
  if (sk_sp_view(&cnt, "row counts", SK_I64, nrows + 1, rspace, 1, err, errlen) < 0 ||
      sk_sp_view(&ptr, "row starts", SK_I64, nrows + 1, rspace, 0, err, errlen) < 0 ||
      sk_sp_view(&perm, "permutation", SK_I64, n, space, 0, err, errlen) < 0 ||
      sk_sp_view(&key, "sort keys", SK_I64, n, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rows", rows), sk_arg_view("cnt", &cnt)};
    if (sk_sp_range(&k_count, n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&cnt, &ptr, nrows, NULL, err, errlen) < 0) goto done;
  {
    /* 'cnt' becomes the cursor: a copy of the starts */
    if (sk_view_deep_copy(&cnt, &ptr, err, errlen) < 0) goto done;
    sk_arg a[] = {sk_arg_view("rows", rows), sk_arg_view("cols", cols),
                  sk_arg_view("cur", &cnt),  sk_arg_view("perm", &perm),
                  sk_arg_view("key", &key),  sk_arg_i64("bycol", bycol)};
    if (sk_sp_range(&k_scatter, n, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("ptr", &ptr), sk_arg_view("key", &key),
                  sk_arg_view("perm", &perm)};
    if (sk_sp_range(&k_rowsort, nrows, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("ptr", &ptr), sk_arg_view("key", &key),
                  sk_arg_view("cnt", &cnt), sk_arg_i64("merge", sum_dup)};
    if (sk_sp_range(&k_ucount, nrows, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_view(rp, "rowptr", SK_I64, nrows + 1, rspace, 0, err, errlen) < 0 ||
      sk_sp_scan(&cnt, rp, nrows, &nnz, err, errlen) < 0)
    goto done;
  if (sk_sp_view(ci, "colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(va, "values", dtype, nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&first, "first entries", SK_I64, nnz, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("ptr", &ptr),     sk_arg_view("key", &key),
                  sk_arg_view("perm", &perm),   sk_arg_view("cols", cols),
                  sk_arg_view("vals", vals),    sk_arg_view("rowptr", rp),
                  sk_arg_view("colidx", ci),    sk_arg_view("values", va),
                  sk_arg_view("first", &first), sk_arg_i64("merge", sum_dup)};
    if (sk_sp_range(&k_fill, nrows, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sum_dup && !sort) {
    sk_arg a[] = {sk_arg_view("rowptr", rp), sk_arg_view("colidx", ci),
                  sk_arg_view("values", va), sk_arg_view("first", &first)};
    if (sk_sp_range(&k_reorder, nrows, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  (void)ncols;
  rc = 0;
done:
  for (int t = 0; t < NELEM(tmp); t++) sk_view_release(tmp[t]);
  if (rc < 0) {
    sk_view_release(rp);
    sk_view_release(ci);
    sk_view_release(va);
  }
  return rc;
}

/* sparse.from_coo: nrows, ncols, rows, cols (int64 or int32 views of one
 * length), vals (optional float view; ones of 'dtype' when absent), dtype
 * ("float64"), sum_duplicates (1), sort (1). Outputs C_rowptr, C_colidx,
 * C_values in the space of 'rows'. */
static int from_coo(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"nrows", "ncols",          "rows", "cols", "vals",
                                      "dtype", "sum_duplicates", "sort", NULL};
  int64_t nrows, ncols, sum_dup, sort;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "nrows", 0, 0, &nrows, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "ncols", 0, 0, &ncols, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "sum_duplicates", 1, 1, &sum_dup, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "sort", 1, 1, &sort, err, errlen) < 0)
    return -1;
  const sk_view *rows = sk_karg_view(args, nargs, "rows", 1, err, errlen);
  const sk_view *cols = rows ? sk_karg_view(args, nargs, "cols", 1, err, errlen) : NULL;
  if (!cols) return -1;
  const sk_view *vals = NULL;
  if (sk_karg_find(args, nargs, "vals") &&
      !(vals = sk_karg_view(args, nargs, "vals", 1, err, errlen)))
    return -1;
  const char *dts = sk_karg_str(args, nargs, "dtype",
                                vals ? dt_name(vals->dtype) : "float64", err, errlen);
  if (!dts) return -1;
  int dtype = sk_dtype_parse(dts);
  if (!sk_sp_is_float(dtype) && !(dtype >= 0 && sk_dtypes[dtype].is_complex)) {
    sk_err(err, errlen, SK_E_DTYPE_VALUES_MUST, dts);
    return -1;
  }
  if (nrows < 0 || ncols < 0 || nrows > INT32_MAX || ncols > INT32_MAX) {
    sk_err(err, errlen, SK_E_X_MATRIX_ROWS, (long long)nrows, (long long)ncols,
           INT32_MAX);
    return -1;
  }
  if (rows->dtype != cols->dtype || (rows->dtype != SK_I64 && rows->dtype != SK_I32)) {
    sk_err(err, errlen, SK_E_ROWS_VIEW_COLS, rows->label, dt_name(rows->dtype),
           cols->label, dt_name(cols->dtype));
    return -1;
  }
  int64_t n = rows->extent[0];
  if (cols->extent[0] != n || (vals && vals->extent[0] != n)) {
    sk_err(err, errlen, SK_E_ROWS_ENTRIES_COLS, (long long)n, (long long)cols->extent[0],
           vals ? ", vals " : "");
    if (vals) {
      size_t l = strlen(err);
      snprintf(err + l, errlen - l, "%lld", (long long)vals->extent[0]);
    }
    return -1;
  }
  if (vals && !sk_sp_is_float(vals->dtype) && !sk_dtypes[vals->dtype].is_complex) {
    sk_err(err, errlen, SK_E_VALS_VIEW_MUST, vals->label, dt_name(vals->dtype));
    return -1;
  }
  if (vals && vals->dtype != dtype) {
    sk_err(err, errlen, SK_E_VALS_VIEW_DTYPE, vals->label, dt_name(vals->dtype), dts);
    return -1;
  }
  /* every index in range, before anything is allocated */
  sk_arg a[] = {sk_arg_view("rows", rows), sk_arg_view("cols", cols),
                sk_arg_i64("nrows", nrows), sk_arg_i64("ncols", ncols)};
  sk_result r;
  if (sk_sp_range(&k_coo_check, n, a, NELEM(a), &r, err, errlen) < 0) return -1;
  int64_t bad = sk_result_i64(&r, 0);
  if (n > 0 && bad != INT64_MAX) {
    int64_t ri = 0, cj = 0;
    if (sk_sp_get_i64(rows, bad, &ri, err, errlen) < 0 ||
        sk_sp_get_i64(cols, bad, &cj, err, errlen) < 0)
      return -1;
    sk_err(err, errlen, SK_E_ENTRY_OUTSIDE_X, (long long)bad, (long long)ri,
           (long long)cj, (long long)nrows, (long long)ncols);
    return -1;
  }
  sk_view rp, ci, va;
  if (sk_sp_coo_to_csr(nrows, ncols, rows, cols, vals, dtype, (int)sum_dup, (int)sort,
                       rows->space, &rp, &ci, &va, err, errlen) < 0)
    return -1;
  sk_kout_view(out, "C_rowptr", &rp, err, errlen);
  sk_kout_view(out, "C_colidx", &ci, err, errlen);
  return sk_kout_view(out, "C_values", &va, err, errlen);
}

/* -- checks ------------------------------------------------------------------- */
/* per row: rowptr decreasing (the first such row), a column out of range
 * (the first such row), columns not strictly increasing (rows counted) */
#define VAL_SIG \
  "range" R1("rowptr", "int64") R1("colidx", "int32") " ncols=int64 nnz=int64"
static const char *const sig_validate[] = {VAL_SIG, NULL};
static const sk_kbody k_validate = {.label = "sparse.validate",
                                    .body = sk_body_sparse_validate,
                                    .pattern = SK_REDUCE,
                                    .sigs = sig_validate,
                                    .reds = "min:int64 min:int64 sum:int64"};

/* sparse.validate: A_*; returns 1 when every row is sorted without
 * duplicates, 0 otherwise; an error names the first broken row. */
static int validate(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      NULL};
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", SK_CSR_CPLX, &A, err, errlen) < 0)
    return -1;
  int64_t first = 0, last = 0;
  if (sk_sp_get_i64(A.rowptr, 0, &first, err, errlen) < 0 ||
      sk_sp_get_i64(A.rowptr, A.nrows, &last, err, errlen) < 0)
    return -1;
  if (first != 0) {
    sk_err(err, errlen, SK_E_ROWPTR_MUST, (long long)first);
    return -1;
  }
  if (last != A.nnz) {
    sk_err(err, errlen, SK_E_ROWPTR_COLIDX_ENTRIES, (long long)A.nrows, (long long)last,
           (long long)A.nnz);
    return -1;
  }
  sk_arg a[] = {sk_arg_view_ro("rowptr", A.rowptr), sk_arg_view_ro("colidx", A.colidx),
                sk_arg_i64("ncols", A.ncols), sk_arg_i64("nnz", A.nnz)};
  sk_result r;
  if (sk_sp_range(&k_validate, A.nrows, a, NELEM(a), &r, err, errlen) < 0) return -1;
  int64_t badp = sk_result_i64(&r, 0), badc = sk_result_i64(&r, 1);
  if (badp != INT64_MAX) {
    sk_err(err, errlen, SK_E_ROWPTR_DECREASES_LEAVES, (long long)A.nnz, (long long)badp);
    return -1;
  }
  if (badc != INT64_MAX) {
    sk_err(err, errlen, SK_E_ROW_COLUMN_OUTSIDE, (long long)badc, (long long)A.ncols);
    return -1;
  }
  out->i64 = sk_result_i64(&r, 2) == 0;
  return 0;
}

/* -- transpose ------------------------------------------------------------------ */
static const char *const sig_colcount[] = {
  "range" R1("colidx", "int32") R1("cnt", "int64"), NULL};
static const sk_kbody k_colcount = {.label = "sparse.col_count",
                                    .body = sk_body_sparse_col_count,
                                    .pattern = SK_FOR,
                                    .sigs = sig_colcount};

/* row i's entries to their column's next place: entry number and row */
static const char *const sig_tscatter[] = {"range" R1("rowptr", "int64")
                                             R1("colidx", "int32") R1("cur", "int64")
                                               R1("perm", "int64") R1("key", "int64"),
                                           NULL};
static const sk_kbody k_tscatter = {.label = "sparse.transpose_scatter",
                                    .body = sk_body_sparse_transpose_scatter,
                                    .pattern = SK_FOR,
                                    .sigs = sig_tscatter};

#define TG_SIG(VT) \
  "range" R1("perm", "int64") R1("key", "int64") R1("values", VT) R1("tcol", "int32") \
    R1("tval", VT)
static const char *const sig_tgather[] = {TG_SIG("float64"), TG_SIG("float32"), NULL};
static const sk_kbody k_tgather = {.label = "sparse.transpose_gather",
                                   .body = sk_body_sparse_transpose_gather,
                                   .pattern = SK_FOR,
                                   .sigs = sig_tgather};

/* the host's form: blocks of rows counted and moved in order */
static const char *const sig_tbcount[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("cnt", "int64") " nb=int64 rpb=int64",
  NULL};
static const sk_kbody k_tbcount = {.label = "sparse.transpose_bcount",
                                   .body = sk_body_sparse_transpose_bcount,
                                   .pattern = SK_FOR,
                                   .sigs = sig_tbcount};
static const char *const sig_tbptr[] = {"range" R1("off", "int64") R1("rp", "int64")
                                          " nb=int64",
                                        NULL};
static const sk_kbody k_tbptr = {.label = "sparse.transpose_bptr",
                                 .body = sk_body_sparse_transpose_bptr,
                                 .pattern = SK_FOR,
                                 .sigs = sig_tbptr};
#define TB_SIG(VT) \
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT) R1("off", "int64") \
    R1("tcol", "int32") R1("tval", VT) " nb=int64 rpb=int64"
static const char *const sig_tbmove[] = {TB_SIG("float64"), TB_SIG("float32"), NULL};
static const sk_kbody k_tbmove = {.label = "sparse.transpose_bmove",
                                  .body = sk_body_sparse_transpose_bmove,
                                  .pattern = SK_FOR,
                                  .sigs = sig_tbmove};

/* the transpose on the host: nb blocks of rows (one a thread, fewer where
 * the m*nb counters would outgrow the matrix), each counting its entries
 * a column, one scan over (column, block), then each block moving its
 * entries in row order: the transpose's rows come out sorted */
static int transpose_host(const sk_csr *A, int64_t conc, sk_view *rp, sk_view *ci,
                          sk_view *va, char *err, size_t errlen) {
  const int64_t m = A->ncols, n = A->nrows;
  int64_t nb = conc < 1 ? 1 : conc > 64 ? 64 : conc;
  while (nb > 1 && m * nb > 4 * (A->nnz + n)) nb /= 2;
  if (nb > n && n > 0) nb = n;
  if (nb < 1) nb = 1;
  const int64_t rpb = n > 0 ? (n + nb - 1) / nb : 1;
  const int space = A->rowptr->space;
  int64_t nnz = 0;
  sk_view off;
  if (sk_sp_view(&off, "column offsets", SK_I64, m * nb + 1, space, 1, err, errlen) < 0)
    return -1;
  sk_arg c[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                sk_arg_view("cnt", &off), sk_arg_i64("nb", nb), sk_arg_i64("rpb", rpb)};
  sk_arg p[] = {sk_arg_view("off", &off), sk_arg_view("rp", rp), sk_arg_i64("nb", nb)};
  sk_arg v[] = {sk_arg_view("rowptr", A->rowptr), sk_arg_view("colidx", A->colidx),
                sk_arg_view("values", A->values), sk_arg_view("off", &off),
                sk_arg_view("tcol", ci),          sk_arg_view("tval", va),
                sk_arg_i64("nb", nb),             sk_arg_i64("rpb", rpb)};
  int rc = 0;
  if ((n > 0 && sk_sp_range(&k_tbcount, nb, c, NELEM(c), NULL, err, errlen) < 0) ||
      sk_sp_scan(&off, &off, m * nb, &nnz, err, errlen) < 0 ||
      sk_sp_range(&k_tbptr, m + 1, p, NELEM(p), NULL, err, errlen) < 0 ||
      (n > 0 && sk_sp_range(&k_tbmove, nb, v, NELEM(v), NULL, err, errlen) < 0))
    rc = -1;
  sk_view_release(&off);
  return rc;
}

/* sparse.transpose: A_* -> C_* (rows sorted) */
static int transpose(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      NULL};
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0)
    return -1;
  int space = A.rowptr->space, rc = -1;
  int64_t m = A.ncols, nnz = 0;
  sk_view cnt, ptr, perm, key, rp, ci, va;
  sk_view *all[] = {&cnt, &ptr, &perm, &key, &rp, &ci, &va};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  if (sk_sp_host(be) &&
      (A.values->dtype == SK_F64 || A.values->dtype == SK_F32)) {
    if (sk_sp_view(&rp, "rowptr", SK_I64, m + 1, space, 0, err, errlen) < 0 ||
        sk_sp_view(&ci, "colidx", SK_I32, A.nnz, space, 0, err, errlen) < 0 ||
        sk_sp_view(&va, "values", A.values->dtype, A.nnz, space, 0, err, errlen) < 0 ||
        transpose_host(&A, be->concurrency ? be->concurrency() : 1, &rp, &ci, &va, err,
                       errlen) < 0 ||
        sk_kout_view(out, "C_rowptr", &rp, err, errlen) < 0 ||
        sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0 ||
        sk_kout_view(out, "C_values", &va, err, errlen) < 0)
      goto done;
    rc = 0;
    goto done;
  }
  if (sk_sp_view(&cnt, "column counts", SK_I64, m + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&perm, "permutation", SK_I64, A.nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&key, "rows", SK_I64, A.nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&ptr, "cursor", SK_I64, m + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&rp, "rowptr", SK_I64, m + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&ci, "colidx", SK_I32, A.nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&va, "values", A.values->dtype, A.nnz, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("colidx", A.colidx), sk_arg_view("cnt", &cnt)};
    if (sk_sp_range(&k_colcount, A.nnz, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&cnt, &rp, m, &nnz, err, errlen) < 0 ||
      sk_view_deep_copy(&ptr, &rp, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("rowptr", A.rowptr), sk_arg_view("colidx", A.colidx),
                  sk_arg_view("cur", &ptr), sk_arg_view("perm", &perm),
                  sk_arg_view("key", &key)};
    if (sk_sp_range(&k_tscatter, A.nrows, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("ptr", &rp), sk_arg_view("key", &key),
                  sk_arg_view("perm", &perm)};
    if (sk_sp_range(&k_rowsort, m, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  {
    sk_arg a[] = {sk_arg_view("perm", &perm), sk_arg_view("key", &key),
                  sk_arg_view("values", A.values), sk_arg_view("tcol", &ci),
                  sk_arg_view("tval", &va)};
    if (sk_sp_range(&k_tgather, A.nnz, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_kout_view(out, "C_rowptr", &rp, err, errlen) < 0 ||
      sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0 ||
      sk_kout_view(out, "C_values", &va, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

/* -- dense ---------------------------------------------------------------------- */
#define DC_SIG(VT, L) \
  "range" \
  " V=" VT "[2" L "]" R1("cnt", "int64")
static const char *const sig_dcount[] = {DC_SIG("float64", ""), DC_SIG("float32", ""),
                                         DC_SIG("float64", ",left"), NULL};
static const sk_kbody k_dcount = {.label = "sparse.dense_count",
                                  .body = sk_body_sparse_dense_count,
                                  .pattern = SK_FOR,
                                  .sigs = sig_dcount};

#define DF_SIG(VT, L) \
  "range V=" VT "[2" L "]" R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT)
static const char *const sig_dfill[] = {DF_SIG("float64", ""), DF_SIG("float32", ""),
                                        DF_SIG("float64", ",left"), NULL};
static const sk_kbody k_dfill = {.label = "sparse.dense_fill",
                                 .body = sk_body_sparse_dense_fill,
                                 .pattern = SK_FOR,
                                 .sigs = sig_dfill};

/* sparse.from_dense: V (rank-2 float view) -> C_* (explicit zeros dropped) */
static int from_dense(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                      size_t errlen) {
  static const char *const known[] = {"V", NULL};
  if (sk_karg_known(args, nargs, known, err, errlen) < 0) return -1;
  const sk_view *V = sk_karg_view(args, nargs, "V", 2, err, errlen);
  if (!V) return -1;
  if (!sk_sp_is_float(V->dtype)) {
    sk_err(err, errlen, SK_E_V_VIEW_MUST, V->label, dt_name(V->dtype));
    return -1;
  }
  if (V->extent[1] > INT32_MAX) {
    sk_err(err, errlen, SK_E_V_VIEW_COLUMNS, V->label, (long long)V->extent[1]);
    return -1;
  }
  int64_t m = V->extent[0], nnz = 0;
  int space = V->space, rc = -1;
  sk_view cnt, rp, ci, va;
  sk_view *all[] = {&cnt, &rp, &ci, &va};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  if (sk_sp_view(&cnt, "row counts", SK_I64, m + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&rp, "rowptr", SK_I64, m + 1, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("V", V), sk_arg_view("cnt", &cnt)};
    if (sk_sp_range(&k_dcount, m, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&cnt, &rp, m, &nnz, err, errlen) < 0 ||
      sk_sp_view(&ci, "colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&va, "values", V->dtype, nnz, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_arg a[] = {sk_arg_view("V", V), sk_arg_view("rowptr", &rp),
                  sk_arg_view("colidx", &ci), sk_arg_view("values", &va)};
    if (sk_sp_range(&k_dfill, m, a, NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_kout_view(out, "C_rowptr", &rp, err, errlen) < 0 ||
      sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0 ||
      sk_kout_view(out, "C_values", &va, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

#define TD_SIG(VT, L) \
  "range" R1("rowptr", "int64") R1("colidx", "int32") R1("values", VT) " D=" VT "[2" L "]"
static const char *const sig_todense[] = {TD_SIG("float64", ""), TD_SIG("float32", ""),
                                          NULL};
static const sk_kbody k_todense = {.label = "sparse.to_dense",
                                   .body = sk_body_sparse_to_dense,
                                   .pattern = SK_FOR,
                                   .sigs = sig_todense};

/* sparse.to_dense: A_* -> D (a new zero-filled nrows x ncols view, the
 * space's default layout; duplicates summed) */
static int to_dense(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                    size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      NULL};
  sk_csr A;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "A", 1 | SK_CSR_CPLX, &A, err, errlen) < 0)
    return -1;
  int space = A.rowptr->space;
  int64_t ext[2] = {A.nrows, A.ncols};
  sk_view D;
  if (sk_view_create(&D, "dense", A.values->dtype, 2, ext, sk_space_default_layout(space),
                     space, 1, NULL, err, errlen) < 0)
    return -1;
  sk_arg a[] = {sk_arg_view("rowptr", A.rowptr), sk_arg_view("colidx", A.colidx),
                sk_arg_view("values", A.values), sk_arg_view("D", &D)};
  if (sk_sp_range(&k_todense, A.nrows, a, NELEM(a), NULL, err, errlen) < 0) {
    sk_view_release(&D);
    return -1;
  }
  return sk_kout_view(out, "D", &D, err, errlen);
}

/* -- registration ------------------------------------------------------------------ */
static const sk_kentry e_from_coo = {
  "sparse.from_coo", "nrows, ncols, rows, cols [, vals, dtype, sum_duplicates, sort]",
  SK_KRES_NONE, from_coo};
static const sk_kentry e_validate = {"sparse.validate", "A_*", SK_KRES_I64, validate};
static const sk_kentry e_transpose = {"sparse.transpose", "A_*", SK_KRES_NONE, transpose};
static const sk_kentry e_from_dense = {"sparse.from_dense", "V", SK_KRES_NONE,
                                       from_dense};
static const sk_kentry e_to_dense = {"sparse.to_dense", "A_*", SK_KRES_NONE, to_dense};

const sk_kentry *const sk_csr_entries[] = {&e_from_coo,   &e_validate, &e_transpose,
                                           &e_from_dense, &e_to_dense, NULL};
const sk_kbody *const sk_csr_bodies[] = {
  &sk_sp_k_scan, &k_coo_check, &k_count, &k_scatter,  &k_rowsort,  &k_ucount,
  &k_fill,       &k_reorder,   &k_ones,  &k_validate, &k_colcount, &k_tscatter,
  &k_tgather,    &k_dcount,    &k_dfill, &k_todense,  &k_tbcount, &k_tbptr,
  &k_tbmove,     NULL};

int sk_sp_host_copy(const sk_view *v, sk_view *h, char *err, size_t errlen) {
  if (sk_space_host_accessible(v->space)) {
    const sk_backend *b = sk_backend_for_space(v->space);
    if (v->space != SK_SPACE_HOST && b && b->fence && b->fence(err, errlen) < 0)
      return -1;
    *h = *v;
    sk_view_retain(h);
    return 0;
  }
  if (sk_sp_view(h, v->label, v->dtype, v->extent[0], SK_SPACE_HOST, 0, err, errlen) < 0)
    return -1;
  if (sk_view_deep_copy(h, v, err, errlen) < 0) {
    sk_view_release(h);
    return -1;
  }
  return 0;
}
