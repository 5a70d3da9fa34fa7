/* amg_xfer.c: an AMG level's prolongator P and restriction R = P^T coded
 * for the host's V-cycle (speck/precond_ml.lua makes the forms after each
 * level's Galerkin product and applies them in place of sparse.spmv).
 *
 * A cycle reads P once (x += P x_c) and R once (b_c = R t) a level. In CSR
 * an entry is 12 bytes (int32 column, float64 value) and a row 8; P's
 * columns are aggregates, far from the row number, so the compact index
 * (csr16.c) does not apply, and its values -- (I - omega D^-1 A) P_tent of
 * a stencil, a few hundred distinct ones (221 on the 7-point 128^3 level 1)
 * -- are more than the value codes (vdict.c) hold. Here an entry is 3
 * bytes: its column as a uint16 gap from the row's previous column (a
 * row's columns ascend; the first one an int32 a row) and its value a
 * one-byte code into a table of at most XFER_TAB values; the row pointers
 * int32. P x_c then reads 64 MB instead of 137 (x read and written
 * included), R t 41 instead of 107 (7-point 128^3, level 1).
 *
 * When: on the host (serial, openmp), a float64 matrix with int64 row
 * pointers and int32 columns whose values are host memory, at most
 * XFER_TAB distinct values (bit patterns; counted on the host, the pass
 * stops at the first one too many), fewer than 2^31 entries, every row's
 * columns ascending with gaps of at most 65535. Else the caller keeps
 * sparse.spmv. The sums are sparse.spmv's CSR rows' (alpha 1, beta 0 or
 * 1): the same values bit for bit.
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "amg.h"

#define XFER_TAB 256
#define XFER_NH  1024 /* hash slots (a power of two, 4 x XFER_TAB) */
#define XFER_SH  54   /* 64 - log2(XFER_NH) */

static const char *const sig_make[] = {
  "range" PC_R1("rowptr", "int64") PC_R1("colidx", "int32") PC_R1("vbits", "int64")
    PC_R1("hk", "int64") PC_R1("hc", "int16") PC_R1("rp", "int32") PC_R1("base", "int32")
      PC_R1("gap", "int16") PC_R1("code", "uint8") " sh=int64 nh=int64",
  NULL};
static const sk_kbody k_make = {.label = "solve.amg_xfer_make",
                                .body = sk_body_solve_amg_xfer_make,
                                .pattern = SK_REDUCE,
                                .sigs = sig_make,
                                .reds = "max:int64"};
static const char *const sig_apply[] = {
  "range" PC_R1("rp", "int32") PC_R1("base", "int32") PC_R1("gap", "int16")
    PC_R1("code", "uint8") PC_R1("tab", "float64") PC_R1("x", "float64") PC_R1("y", "float64")
      " nchunk=int64 beta=float64",
  NULL};
static const sk_kbody k_apply = {.label = "solve.amg_xfer_apply",
                                 .body = sk_body_solve_amg_xfer_apply,
                                 .prelude = sk_body_sparse_row_split,
                                 .pattern = SK_FOR,
                                 .sigs = sig_apply};

static uint64_t slot_of(uint64_t b) { return (b * 0x9E3779B97F4A7C15ull) >> XFER_SH; }

/* the value b's slot in the table (hk, hc: XFER_NH each): found, or the
 * empty slot where it would go */
static uint64_t probe(const int64_t *hk, const int16_t *hc, uint64_t b) {
  uint64_t h = slot_of(b);
  while (hc[h] >= 0 && (uint64_t)hk[h] != b) h = (h + 1) & (XFER_NH - 1);
  return h;
}

/* the table of the n values v (host memory) into tab (XFER_TAB) and the
 * hash (hk, hc): their number, 0 past XFER_TAB */
static int distinct(const double *v, int64_t n, double *tab, int64_t *hk, int16_t *hc) {
  int nt = 0;
  for (int64_t k = 0; k < n; k++) {
    uint64_t b;
    memcpy(&b, &v[k], sizeof b);
    const uint64_t h = probe(hk, hc, b);
    if (hc[h] >= 0) continue;
    if (nt == XFER_TAB) return 0;
    hk[h] = (int64_t)b;
    hc[h] = (int16_t)nt;
    tab[nt++] = v[k];
  }
  return nt;
}

/* solve.amg_xfer_make: M_* [, tab] -> ok; where ok = 1 also rp, base,
 * gap, code, tab (the form; 'tab' given: its values, none other, e.g. P's
 * table for R = P^T) */
static int xfer_make(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"M_rowptr", "M_colidx", "M_values", "M_ncols", "tab", NULL};
  sk_csr M;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be || sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "M", 1, &M, err, errlen) < 0)
    return -1;
  const sk_view *given = NULL;
  if (sk_karg_find(args, nargs, "tab") && !(given = sk_karg_view(args, nargs, "tab", 1, err, errlen)))
    return -1;
  if (given && (given->dtype != SK_F64 || given->extent[0] < 1 ||
                given->extent[0] > XFER_TAB || !sk_view_contiguous(given) ||
                !sk_space_host_accessible(given->space))) {
    sk_err(err, errlen, SK_E_AMG_XFER_TAB, given->label, XFER_TAB);
    return -1;
  }
  const sk_view *v = M.values;
  if (!sk_sp_host(be) || M.nrows < 1 || M.nnz < 1 || M.nnz > INT32_MAX ||
      M.ncols > INT32_MAX || v->dtype != SK_F64 || M.rowptr->dtype != SK_I64 ||
      M.colidx->dtype != SK_I32 || !sk_view_contiguous(v) ||
      !sk_space_host_accessible(v->space))
    return sk_kout_num(out, "ok", 0, err, errlen);
  const int space = v->space;
  int rc = -1, nt = 0;
  sk_view hk, hc, tab, f[4];
  memset(&tab, 0, sizeof tab);
  memset(f, 0, sizeof f);
  if (sk_sp_view(&hk, "xfer hash", SK_I64, XFER_NH, space, 0, err, errlen) < 0) return -1;
  if (sk_sp_view(&hc, "xfer codes", SK_I16, XFER_NH, space, 0, err, errlen) < 0) {
    sk_view_release(&hk);
    return -1;
  }
  memset(hc.data, 0xff, XFER_NH * sizeof(int16_t)); /* -1: empty */
  if (sk_sp_view(&tab, "xfer values", SK_F64, XFER_TAB, space, 1, err, errlen) < 0) goto done;
  if (given) {
    const double *g = given->data;
    for (int64_t q = 0; q < given->extent[0]; q++) {
      uint64_t b;
      memcpy(&b, &g[q], sizeof b);
      const uint64_t h = probe(hk.data, hc.data, b);
      if (((int16_t *)hc.data)[h] >= 0) continue;
      ((int64_t *)hk.data)[h] = (int64_t)b;
      ((int16_t *)hc.data)[h] = (int16_t)nt;
      ((double *)tab.data)[nt++] = g[q];
    }
  } else {
    nt = distinct(v->data, M.nnz, tab.data, hk.data, hc.data);
  }
  if (nt == 0) {
    rc = sk_kout_num(out, "ok", 0, err, errlen);
    goto done;
  }
  if (sk_sp_view(&f[0], "xfer rowptr", SK_I32, M.nrows + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&f[1], "xfer base", SK_I32, M.nrows, space, 0, err, errlen) < 0 ||
      sk_sp_view(&f[2], "xfer gaps", SK_I16, M.nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&f[3], "xfer value codes", SK_U8, M.nnz, space, 0, err, errlen) < 0)
    goto done;
  {
    sk_view vb = *v; /* the values as their bit patterns */
    vb.dtype = SK_I64;
    sk_arg a[] = {sk_arg_view_ro("rowptr", M.rowptr), sk_arg_view_ro("colidx", M.colidx),
                  sk_arg_view_ro("vbits", &vb),       sk_arg_view_ro("hk", &hk),
                  sk_arg_view_ro("hc", &hc),          sk_arg_view("rp", &f[0]),
                  sk_arg_view("base", &f[1]),         sk_arg_view("gap", &f[2]),
                  sk_arg_view("code", &f[3]),         sk_arg_i64("sh", XFER_SH),
                  sk_arg_i64("nh", XFER_NH)};
    sk_result r;
    if (sk_sp_range(&k_make, M.nrows, a, PC_NELEM(a), &r, err, errlen) < 0) goto done;
    if (sk_result_i64(&r, 0) != 0) {
      rc = sk_kout_num(out, "ok", 0, err, errlen);
      goto done;
    }
  }
  tab.extent[0] = nt;
  if (sk_kout_num(out, "ok", 1, err, errlen) < 0 ||
      sk_kout_num(out, "ncols", (double)M.ncols, err, errlen) < 0 ||
      sk_kout_view(out, "rp", &f[0], err, errlen) < 0 ||
      sk_kout_view(out, "base", &f[1], err, errlen) < 0 ||
      sk_kout_view(out, "gap", &f[2], err, errlen) < 0 ||
      sk_kout_view(out, "code", &f[3], err, errlen) < 0)
    goto done;
  rc = sk_kout_view(out, "tab", &tab, err, errlen);
done:
  sk_view_release(&hk);
  sk_view_release(&hc);
  sk_view_release(&tab);
  for (int q = 0; q < 4; q++) sk_view_release(&f[q]);
  return rc;
}

/* the form's view 'name' (rank 1, dtype dt, n entries or, n < 0, any) */
static const sk_view *form_view(const sk_arg *args, int nargs, const char *name, int dt,
                                int64_t n, char *err, size_t errlen) {
  const sk_view *v = sk_karg_view(args, nargs, name, 1, err, errlen);
  if (v && (v->dtype != dt || (n >= 0 && v->extent[0] != n))) {
    sk_err(err, errlen, SK_E_AMG_XFER_FORM, name, v->label);
    return NULL;
  }
  return v;
}

/* solve.amg_xfer: rp, base, gap, code, tab, ncols (a form of
 * solve.amg_xfer_make), x (ncols), y (the rows) [, beta = 0 or 1]:
 * y = beta y + M x */
static int xfer_apply(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"rp", "base", "gap", "code", "tab", "ncols",
                                      "x",  "y",    "beta", NULL};
  (void)out;
  const sk_view *rp, *base, *gap, *code, *tab, *x, *y;
  int64_t ncols;
  double beta;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(rp = form_view(args, nargs, "rp", SK_I32, -1, err, errlen)) ||
      !(base = form_view(args, nargs, "base", SK_I32, rp->extent[0] - 1, err, errlen)) ||
      !(gap = form_view(args, nargs, "gap", SK_I16, -1, err, errlen)) ||
      !(code = form_view(args, nargs, "code", SK_U8, gap->extent[0], err, errlen)) ||
      !(tab = form_view(args, nargs, "tab", SK_F64, -1, err, errlen)) ||
      sk_karg_i64(args, nargs, "ncols", 0, 0, &ncols, err, errlen) < 0 ||
      !(x = form_view(args, nargs, "x", SK_F64, ncols, err, errlen)) ||
      !(y = form_view(args, nargs, "y", SK_F64, base->extent[0], err, errlen)))
    return -1;
  beta = 0;
  if (sk_karg_find(args, nargs, "beta") && sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0)
    return -1;
  if (beta != 0 && beta != 1) {
    sk_err(err, errlen, SK_E_AMG_XFER_BETA, beta);
    return -1;
  }
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be) return -1;
  const int64_t n = base->extent[0];
  if (n == 0) return 0;
  int64_t nchunk = be->concurrency ? be->concurrency() : 1;
  if (nchunk < 1) nchunk = 1;
  if (nchunk > n) nchunk = n;
  sk_arg a[] = {sk_arg_view_ro("rp", rp),     sk_arg_view_ro("base", base),
                sk_arg_view_ro("gap", gap),   sk_arg_view_ro("code", code),
                sk_arg_view_ro("tab", tab),   sk_arg_view_ro("x", x),
                sk_arg_view("y", y),          sk_arg_i64("nchunk", nchunk),
                sk_arg_f64("beta", beta)};
  return sk_sp_range(&k_apply, nchunk, a, PC_NELEM(a), NULL, err, errlen);
}

static const sk_kentry e_make = {"solve.amg_xfer_make", "M_* [, tab]", SK_KRES_NONE, xfer_make};
static const sk_kentry e_apply = {"solve.amg_xfer", "rp, base, gap, code, tab, ncols, x, y [, beta]",
                                  SK_KRES_NONE, xfer_apply};
const sk_kentry *const sk_pc_xfer_entries[] = {&e_make, &e_apply, NULL};
const sk_kbody *const sk_pc_xfer_bodies[] = {&k_make, &k_apply, NULL};
