/* amg_rap.c: the host's Galerkin product of smoothed aggregation,
 * A_c = R (A P) with R = P^T, without the symbolic phases of sparse.spgemm
 * (speck/precond_ml.lua takes it on the host; a device keeps
 * sparse.spgemm's symbolic and numeric phases).
 *
 * Each product C = X Y runs once: a cheap pass bounds the entries of each
 * block of X's rows (the sum of its rows' products, a row at most Y's
 * columns), an arena of the bounds' sum is reserved (never touched past
 * what is written: the pages of the slack are not faulted in), and a
 * thread a block writes its rows one after the other from the block's
 * offset with a dense accumulator, recording each row's begin and end.
 * A P stays in that arena, unsorted (R (A P) does not need its columns in
 * order), and is read by R (A P) through the begin / end pairs; A_c's
 * rows, sorted, are then copied into a compact CSR. The operations and
 * their order are sparse.spgemm's host numeric phase's (a column's sum
 * over a row's products in the order met): A_c is the same bit for bit.
 */
#include <stdint.h>
#include <string.h>

#include "core/err.h"
#include "amg.h"

static const char *const sig_bound[] = {"range" PC_R1("xrp", "int64") PC_R1("xci", "int32")
                                          PC_R1("yp", "int64") PC_R1("bnd", "int64")
                                            " ys=int64 nb=int64 rpt=int64",
                                        NULL};
static const sk_kbody k_bound = {.label = "solve.amg_arena_bound",
                                 .body = sk_body_solve_amg_arena_bound,
                                 .pattern = SK_FOR,
                                 .sigs = sig_bound};
static const char *const sig_product[] = {
  "team" PC_R1("xrp", "int64") PC_R1("xci", "int32") PC_R1("xv", "float64") PC_R1("yp", "int64")
    PC_R1("yci", "int32") PC_R1("yv", "float64") PC_R1("off", "int64") PC_R1("cci", "int32")
      PC_R1("cv", "float64") PC_R1("cbe", "int64") " ys=int64 nb=int64 rpt=int64 sorted=int64",
  NULL};
static const sk_kbody k_product = {.label = "solve.amg_arena_product",
                                   .body = sk_body_solve_amg_arena_product,
                                   .pattern = SK_FOR,
                                   .sigs = sig_product};
static const char *const sig_count[] = {"range" PC_R1("cbe", "int64") PC_R1("cnt", "int64"),
                                        NULL};
static const sk_kbody k_count = {.label = "solve.amg_arena_count",
                                 .body = sk_body_solve_amg_arena_count,
                                 .pattern = SK_FOR,
                                 .sigs = sig_count};
static const char *const sig_copy[] = {"range" PC_R1("cbe", "int64") PC_R1("aci", "int32")
                                         PC_R1("av", "float64") PC_R1("crp", "int64")
                                           PC_R1("cci", "int32") PC_R1("cv", "float64"),
                                       NULL};
static const sk_kbody k_copy = {.label = "solve.amg_arena_copy",
                                .body = sk_body_solve_amg_arena_copy,
                                .pattern = SK_FOR,
                                .sigs = sig_copy};

/* Y's columns up to which the dense accumulator is used (12 bytes a
 * column a thread, as sparse.spgemm's host numeric phase) */
#define RAP_DENSE_MAX ((int64_t)1 << 22)

/* C = X Y in an arena: X a CSR (xrp, xci, xv) of 'nx' rows; Y's rows by
 * 'yp' and 'ys' (1: a CSR row pointer, 2: begin / end pairs), its columns
 * 'yci', values 'yv', 'nb' columns; out: the arena (ci, cv) and the pairs
 * cbe (2 nx). 'sorted' 1: each row's columns in order. Gives back 1 where
 * the arena could not be had (the caller takes the general product) */
typedef struct arena {
  sk_view ci, cv, cbe;
} arena;

static void arena_release(arena *a) {
  sk_view_release(&a->ci);
  sk_view_release(&a->cv);
  sk_view_release(&a->cbe);
}

static int arena_product(const sk_backend *be, int space, int64_t nx, int64_t nnzx,
                         const sk_view *xrp, const sk_view *xci, const sk_view *xv,
                         const sk_view *yp, int64_t ys, const sk_view *yci, const sk_view *yv,
                         int64_t nb, int sorted, arena *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  /* 16 blocks a thread (a thread held up by another process leaves the
   * rest to the others), fewer where X's entries would not pay the
   * accumulator's reset (nb) a block, a multiple of the threads */
  int64_t conc = be->concurrency ? be->concurrency() : 1;
  if (conc < 1) conc = 1;
  int64_t L = nnzx / (nb + 1);
  if (L < conc) L = conc;
  if (L > 16 * conc) L = 16 * conc;
  L = (L + conc - 1) / conc * conc;
  int64_t rpt = (nx + L - 1) / L;
  if (rpt < 1) rpt = 1;
  const int64_t nblk = (nx + rpt - 1) / rpt;
  sk_view bnd, off;
  int64_t total = 0;
  int rc = -1;
  if (sk_sp_view(&bnd, "arena bounds", SK_I64, nblk + 1, space, 1, err, errlen) < 0) return -1;
  if (sk_sp_view(&off, "arena offsets", SK_I64, nblk + 1, space, 0, err, errlen) < 0) {
    sk_view_release(&bnd);
    return -1;
  }
  {
    sk_arg a[] = {sk_arg_view_ro("xrp", xrp), sk_arg_view_ro("xci", xci),
                  sk_arg_view_ro("yp", yp),   sk_arg_view("bnd", &bnd),
                  sk_arg_i64("ys", ys),       sk_arg_i64("nb", nb),
                  sk_arg_i64("rpt", rpt)};
    if (nblk > 0 && sk_sp_range(&k_bound, nblk, a, PC_NELEM(a), NULL, err, errlen) < 0)
      goto done;
  }
  if (sk_sp_scan(&bnd, &off, nblk, &total, err, errlen) < 0) goto done;
  /* the arena: reserved, not touched (what is written is faulted in) */
  if (sk_sp_view(&out->ci, "arena colidx", SK_I32, total, space, 0, err, errlen) < 0 ||
      sk_sp_view(&out->cv, "arena values", SK_F64, total, space, 0, err, errlen) < 0 ||
      sk_sp_view(&out->cbe, "arena rows", SK_I64, 2 * nx, space, 0, err, errlen) < 0) {
    arena_release(out);
    rc = 1;
    goto done;
  }
  if (nx > 0) {
    sk_policy p;
    sk_policy_init(&p, SK_POL_TEAM);
    p.team_size = 1;
    p.vector_length = 1;
    p.schedule = SK_DYNAMIC;
    p.scratch_thread[1] = 12 * nb + 64;
    p.league_size = nblk;
    sk_arg a[] = {sk_arg_view_ro("xrp", xrp),  sk_arg_view_ro("xci", xci),
                  sk_arg_view_ro("xv", xv),    sk_arg_view_ro("yp", yp),
                  sk_arg_view_ro("yci", yci),  sk_arg_view_ro("yv", yv),
                  sk_arg_view_ro("off", &off), sk_arg_view("cci", &out->ci),
                  sk_arg_view("cv", &out->cv), sk_arg_view("cbe", &out->cbe),
                  sk_arg_i64("ys", ys),        sk_arg_i64("nb", nb),
                  sk_arg_i64("rpt", rpt),      sk_arg_i64("sorted", sorted)};
    if (sk_kbody_launch(&k_product, &p, a, PC_NELEM(a), NULL, err, errlen) < 0) {
      arena_release(out);
      goto done;
    }
  }
  (void)be;
  rc = 0;
done:
  sk_view_release(&bnd);
  sk_view_release(&off);
  return rc;
}

/* solve.amg_rap: A_* (n x n), P_* (n x nc), R_* (P^T, nc x n), all float64
 * on the host -> C_rowptr, C_colidx, C_values (A_c = R (A P), rows sorted),
 * or general = 1 (off the host, past RAP_DENSE_MAX columns, or an arena the
 * memory would not give: the caller takes sparse.spgemm's phases) */
static int amg_rap(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "P_rowptr", "P_colidx", "P_values", "P_ncols",
                                      "R_rowptr", "R_colidx", "R_values", "R_ncols", NULL};
  sk_csr A, P, R;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be || sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "P", 1, &P, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "R", 1, &R, err, errlen) < 0)
    return -1;
  const int space = A.rowptr->space;
  if (P.nrows != A.ncols || R.nrows != P.ncols || R.ncols != P.nrows ||
      P.values->dtype != SK_F64 || R.values->dtype != SK_F64 || P.rowptr->space != space ||
      R.rowptr->space != space) {
    char sa[48], sp[48], sr[48];
    sk_err(err, errlen, SK_E_AMG_RAP_ARGS, sk_csr_shape(&A, sa, sizeof sa),
           sk_csr_shape(&P, sp, sizeof sp), sk_csr_shape(&R, sr, sizeof sr));
    return -1;
  }
  if (!sk_sp_host(be) || P.ncols > RAP_DENSE_MAX)
    return sk_kout_num(out, "general", 1, err, errlen);
  const int64_t n = A.nrows, nc = P.ncols;
  arena ap, c;
  sk_view crp, ci, cv;
  memset(&c, 0, sizeof c);
  memset(&crp, 0, sizeof crp);
  memset(&ci, 0, sizeof ci);
  memset(&cv, 0, sizeof cv);
  int rc = arena_product(be, space, n, A.nnz, A.rowptr, A.colidx, A.values, P.rowptr, 1,
                         P.colidx, P.values, nc, 0, &ap, err, errlen);
  if (rc != 0) return rc < 0 ? -1 : sk_kout_num(out, "general", 1, err, errlen);
  rc = arena_product(be, space, nc, R.nnz, R.rowptr, R.colidx, R.values, &ap.cbe, 2, &ap.ci,
                     &ap.cv, nc, 1, &c, err, errlen);
  arena_release(&ap);
  if (rc != 0) return rc < 0 ? -1 : sk_kout_num(out, "general", 1, err, errlen);
  rc = -1;
  int64_t nnz = 0;
  if (sk_sp_view(&crp, "C_rowptr", SK_I64, nc + 1, space, 1, err, errlen) < 0) goto done;
  if (nc > 0) {
    sk_arg a[] = {sk_arg_view_ro("cbe", &c.cbe), sk_arg_view("cnt", &crp)};
    if (sk_sp_range(&k_count, nc, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&crp, &crp, nc, &nnz, err, errlen) < 0 ||
      sk_sp_view(&ci, "C_colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
      sk_sp_view(&cv, "C_values", SK_F64, nnz, space, 0, err, errlen) < 0)
    goto done;
  if (nc > 0) {
    sk_arg a[] = {sk_arg_view_ro("cbe", &c.cbe), sk_arg_view_ro("aci", &c.ci),
                  sk_arg_view_ro("av", &c.cv),   sk_arg_view_ro("crp", &crp),
                  sk_arg_view("cci", &ci),       sk_arg_view("cv", &cv)};
    if (sk_sp_range(&k_copy, nc, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  arena_release(&c);
  /* (sk_kout_view moves the reference: the views below are empty then) */
  if (sk_kout_view(out, "C_rowptr", &crp, err, errlen) < 0 ||
      sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0)
    goto done;
  rc = sk_kout_view(out, "C_values", &cv, err, errlen);
done:
  arena_release(&c);
  sk_view_release(&crp);
  sk_view_release(&ci);
  sk_view_release(&cv);
  return rc;
}

static const sk_kentry e_rap = {"solve.amg_rap", "A_*, P_*, R_*", SK_KRES_NONE, amg_rap};
const sk_kentry *const sk_pc_rap_entries[] = {&e_rap, NULL};
const sk_kbody *const sk_pc_rap_bodies[] = {&k_bound, &k_product, &k_count, &k_copy, NULL};
