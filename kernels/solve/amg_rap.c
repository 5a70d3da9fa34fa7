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
 * rows, sorted, are then copied into a compact CSR (into A P's arena,
 * whose pages are touched already, where it holds them). The operations and
 * their order are sparse.spgemm's host numeric phase's (a column's sum
 * over a row's products in the order met): A_c is the same bit for bit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "amg.h"

static const char *const sig_bound[] = {"range" PC_R1("xrp", "int64") PC_R1("xci", "int32")
                                          PC_R1("yp", "int64") PC_R1("bnd", "int64")
                                            " ys=int64 ylo=int64 nb=int64 rpt=int64",
                                        NULL};
static const sk_kbody k_bound = {.label = "solve.amg_arena_bound",
                                 .body = sk_body_solve_amg_arena_bound,
                                 .pattern = SK_FOR,
                                 .sigs = sig_bound};
static const char *const sig_product[] = {
  "team" PC_R1("xrp", "int64") PC_R1("xci", "int32") PC_R1("xv", "float64") PC_R1("yp", "int64")
    PC_R1("yci", "int32") PC_R1("yv", "float64") PC_R1("off", "int64") PC_R1("cci", "int32")
      PC_R1("cv", "float64") PC_R1("cbe", "int64")
        " ys=int64 ylo=int64 nb=int64 rpt=int64 sorted=int64",
  NULL};
static const sk_kbody k_product = {.label = "solve.amg_arena_product",
                                   .body = sk_body_solve_amg_arena_product,
                                   .pattern = SK_FOR,
                                   .sigs = sig_product};
static const char *const sig_count[] = {"range" PC_R1("cbe", "int64") PC_R1("cnt", "int64")
                                          " o=int64",
                                        NULL};
static const sk_kbody k_count = {.label = "solve.amg_arena_count",
                                 .body = sk_body_solve_amg_arena_count,
                                 .pattern = SK_FOR,
                                 .sigs = sig_count};
static const char *const sig_copy[] = {"range" PC_R1("cbe", "int64") PC_R1("aci", "int32")
                                         PC_R1("av", "float64") PC_R1("crp", "int64")
                                           PC_R1("cci", "int32") PC_R1("cv", "float64")
                                             " o=int64",
                                       NULL};
static const sk_kbody k_copy = {.label = "solve.amg_arena_copy",
                                .body = sk_body_solve_amg_arena_copy,
                                .pattern = SK_FOR,
                                .sigs = sig_copy};
static const char *const sig_span[] = {"range" PC_R1("rp", "int64") PC_R1("ci", "int32")
                                         " r0=int64",
                                       NULL};
static const sk_kbody k_span = {.label = "solve.amg_arena_span",
                                .body = sk_body_solve_amg_arena_span,
                                .pattern = SK_REDUCE,
                                .sigs = sig_span,
                                .reds = "min:int64 max:int64"};

/* Y's columns up to which the dense accumulator is used (12 bytes a
 * column a thread, as sparse.spgemm's host numeric phase) */
#define RAP_DENSE_MAX ((int64_t)1 << 22)

/* fine rows a phase of the Galerkin product (below): A P is made and kept
 * for about this many rows at a time, at most RAP_PHASES phases */
#define RAP_PHASE_ROWS ((int64_t)1 << 19)
#define RAP_PHASES     4

/* A product C = X Y planned: X a CSR (xrp, xci) of 'nx' rows, Y's rows by
 * 'yp' and 'ys' (1: a CSR row pointer, 2: begin / end pairs of Y's rows
 * from 'ylo' on), 'nb' columns: blocks of 'rpt' rows, each one's offset in
 * the arena (off) and the arena's entries (total, the bounds' sum) */
typedef struct plan {
  int64_t rpt, nblk, total;
  sk_view off;
} plan;

static int arena_plan(const sk_backend *be, int space, int64_t nx, int64_t nnzx,
                      const sk_view *xrp, const sk_view *xci, const sk_view *yp, int64_t ys,
                      int64_t ylo, int64_t nb, plan *pl, char *err, size_t errlen) {
  memset(pl, 0, sizeof *pl);
  /* 16 blocks a thread (a thread held up by another process leaves the
   * rest to the others), fewer where X's entries would not pay the
   * accumulator's reset (nb) a block, a multiple of the threads */
  int64_t conc = be->concurrency ? be->concurrency() : 1;
  if (conc < 1) conc = 1;
  int64_t L = nnzx / (nb + 1);
  if (L < conc) L = conc;
  if (L > 16 * conc) L = 16 * conc;
  L = (L + conc - 1) / conc * conc;
  pl->rpt = (nx + L - 1) / L;
  if (pl->rpt < 1) pl->rpt = 1;
  pl->nblk = (nx + pl->rpt - 1) / pl->rpt;
  sk_view bnd;
  if (sk_sp_view(&bnd, "arena bounds", SK_I64, pl->nblk + 1, space, 1, err, errlen) < 0) return -1;
  if (sk_sp_view(&pl->off, "arena offsets", SK_I64, pl->nblk + 1, space, 0, err, errlen) < 0) {
    sk_view_release(&bnd);
    return -1;
  }
  sk_arg a[] = {sk_arg_view_ro("xrp", xrp), sk_arg_view_ro("xci", xci), sk_arg_view_ro("yp", yp),
                sk_arg_view("bnd", &bnd),   sk_arg_i64("ys", ys),       sk_arg_i64("ylo", ylo),
                sk_arg_i64("nb", nb),       sk_arg_i64("rpt", pl->rpt)};
  int rc = (pl->nblk > 0 && sk_sp_range(&k_bound, pl->nblk, a, PC_NELEM(a), NULL, err, errlen) < 0) ||
               sk_sp_scan(&bnd, &pl->off, pl->nblk, &pl->total, err, errlen) < 0
             ? -1
             : 0;
  sk_view_release(&bnd);
  if (rc < 0) sk_view_release(&pl->off);
  return rc;
}

/* the arena: ci, cv (the entries) and cbe (row r's begin and end at 2r,
 * 2r + 1) */
typedef struct arena {
  sk_view ci, cv, cbe;
} arena;

static void arena_release(arena *a) {
  sk_view_release(&a->ci);
  sk_view_release(&a->cv);
  sk_view_release(&a->cbe);
}

/* an arena of 'total' entries and 'nx' rows: reserved, not touched (what is
 * written is faulted in); 1 where the memory would not give it */
static int arena_alloc(int space, int64_t total, int64_t nx, arena *a, char *err, size_t errlen) {
  memset(a, 0, sizeof *a);
  if (sk_sp_view(&a->ci, "arena colidx", SK_I32, total, space, 0, err, errlen) < 0 ||
      sk_sp_view(&a->cv, "arena values", SK_F64, total, space, 0, err, errlen) < 0 ||
      sk_sp_view(&a->cbe, "arena rows", SK_I64, 2 * nx, space, 0, err, errlen) < 0) {
    arena_release(a);
    return 1;
  }
  return 0;
}

/* C = X Y of a plan into the arena 'c' (its entries at least the plan's
 * total, its pairs at least nx); 'sorted' 1: each row's columns in order */
static int arena_fill(int space, int64_t nx, const sk_view *xrp, const sk_view *xci,
                      const sk_view *xv, const sk_view *yp, int64_t ys, int64_t ylo,
                      const sk_view *yci, const sk_view *yv, int64_t nb, int sorted,
                      const plan *pl, const arena *c, char *err, size_t errlen) {
  (void)space;
  if (nx == 0) return 0;
  sk_policy p;
  sk_policy_init(&p, SK_POL_TEAM);
  p.team_size = 1;
  p.vector_length = 1;
  p.schedule = SK_DYNAMIC;
  p.scratch_thread[1] = 12 * nb + 64;
  p.league_size = pl->nblk;
  sk_arg a[] = {sk_arg_view_ro("xrp", xrp),     sk_arg_view_ro("xci", xci),
                sk_arg_view_ro("xv", xv),       sk_arg_view_ro("yp", yp),
                sk_arg_view_ro("yci", yci),     sk_arg_view_ro("yv", yv),
                sk_arg_view_ro("off", &pl->off), sk_arg_view("cci", &c->ci),
                sk_arg_view("cv", &c->cv),      sk_arg_view("cbe", &c->cbe),
                sk_arg_i64("ys", ys),           sk_arg_i64("ylo", ylo),
                sk_arg_i64("nb", nb),           sk_arg_i64("rpt", pl->rpt),
                sk_arg_i64("sorted", sorted)};
  return sk_kbody_launch(&k_product, &p, a, PC_NELEM(a), NULL, err, errlen);
}

/* The phases' plans of A P (k > 1, the same number of blocks) given one
 * set of offsets, each block's greatest bound over the phases: block b of
 * every phase then writes from the same place in the arena, onto the pages
 * that the first phase touched (a block's rows of A P are about as many in
 * every phase); with each phase's own offsets the blocks started elsewhere
 * (the bounds run about 8 times the entries written) and each phase faulted
 * in pages of its own. The arena's size becomes the offsets' total (*most).
 * Host memory (amg_rap runs on the host). -1: no memory */
static int share_offsets(plan *pa, int k, int64_t *most) {
  const int64_t nb = pa[0].nblk;
  for (int j = 1; j < k; j++)
    if (pa[j].nblk != nb) return 0;
  int64_t *o = malloc((size_t)(nb + 1) * sizeof *o);
  if (!o) return -1;
  o[0] = 0;
  for (int64_t b = 0; b < nb; b++) {
    int64_t w = 0;
    for (int j = 0; j < k; j++) {
      const int64_t *q = pa[j].off.data;
      if (q[b + 1] - q[b] > w) w = q[b + 1] - q[b];
    }
    o[b + 1] = o[b] + w;
  }
  for (int j = 0; j < k; j++) {
    memcpy(pa[j].off.data, o, (size_t)(nb + 1) * sizeof *o);
    pa[j].total = o[nb];
  }
  *most = o[nb];
  free(o);
  return 0;
}

/* rows [r0, r0 + m) of a CSR row pointer (a view of its entries r0 ..
 * r0 + m: the offsets stay the whole matrix's) */
static sk_view rows_of(const sk_view *rp, int64_t r0, int64_t m) {
  sk_view v = *rp;
  v.data = (int64_t *)rp->data + r0;
  v.extent[0] = m + 1;
  return v;
}

/* The phases: coarse rows [c0[j], c0[j + 1]) read the rows [lo[j], hi[j])
 * of A P (the least and greatest columns of their rows of R). A P is made
 * for those rows only, into one arena reused by every phase, and kept
 * until the phase's rows of R (A P) are made: instead of all of A P at
 * once (204 MB on the 7-point 128^3 level 1, written once and read once,
 * each page's first touch a trip to the kernel), the largest phase's
 * (about a third as much); a row of A P that two phases read is made in
 * each (an aggregate's rows of R span about 5 planes: 14 % more of A P's
 * work with 4 phases). One phase where the matrix is smaller than two
 * phases' rows, or where the phases' rows would add up to more than 1.5
 * times A's (coarse rows whose fine rows lie far apart). Each row of A P
 * and of A_c is made by the same operations as in one phase: the same
 * values. */
typedef struct phases {
  int k;
  int64_t c0[RAP_PHASES + 1], lo[RAP_PHASES], hi[RAP_PHASES];
} phases;

static int plan_phases(const sk_csr *A, const sk_csr *R, int64_t want, phases *ph, char *err,
                       size_t errlen) {
  const int64_t n = A->nrows, nc = R->nrows;
  int k = want > 0 ? (int)want : (int)(n / RAP_PHASE_ROWS);
  if (k > RAP_PHASES) k = RAP_PHASES;
  if (k > nc) k = (int)nc;
  ph->k = 1;
  ph->c0[0] = 0, ph->c0[1] = nc, ph->lo[0] = 0, ph->hi[0] = n;
  if (k < 2) return 0;
  phases t;
  int64_t sum = 0;
  t.k = k;
  for (int j = 0; j <= k; j++) t.c0[j] = nc * j / k;
  for (int j = 0; j < k; j++) {
    sk_arg a[] = {sk_arg_view_ro("rp", R->rowptr), sk_arg_view_ro("ci", R->colidx),
                  sk_arg_i64("r0", t.c0[j])};
    sk_result r;
    if (sk_sp_range(&k_span, t.c0[j + 1] - t.c0[j], a, PC_NELEM(a), &r, err, errlen) < 0)
      return -1;
    t.lo[j] = sk_result_i64(&r, 0);
    t.hi[j] = sk_result_i64(&r, 1) + 1;
    if (t.hi[j] <= t.lo[j]) t.lo[j] = t.hi[j] = 0; /* rows without an entry */
    sum += t.hi[j] - t.lo[j];
  }
  if (2 * sum <= 3 * n || want > 0) *ph = t;
  return 0;
}

/* solve.amg_rap: A_* (n x n), P_* (n x nc), R_* (P^T, nc x n), all float64
 * on the host [, phases: 1 .. RAP_PHASES, the phases whatever the size and
 * the rows (to test them; default by the size)] -> C_rowptr, C_colidx,
 * C_values (A_c = R (A P), rows sorted), or general = 1 (off the host, past
 * RAP_DENSE_MAX columns, or an arena the memory would not give: the caller
 * takes sparse.spgemm's phases) */
static int amg_rap(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  static const char *const known[] = {"A_rowptr", "A_colidx", "A_values", "A_ncols",
                                      "P_rowptr", "P_colidx", "P_values", "P_ncols",
                                      "R_rowptr", "R_colidx", "R_values", "R_ncols", "phases",
                                      NULL};
  sk_csr A, P, R;
  int64_t want;
  const sk_backend *be = sk_sp_backend(err, errlen);
  if (!be || sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_pc_matrix(args, nargs, "A", &A, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "P", 1, &P, err, errlen) < 0 ||
      sk_csr_arg(args, nargs, "R", 1, &R, err, errlen) < 0 ||
      sk_karg_i64(args, nargs, "phases", 1, 0, &want, err, errlen) < 0)
    return -1;
  if (want < 0 || want > RAP_PHASES) {
    sk_err(err, errlen, SK_E_AMG_RAP_PHASES, RAP_PHASES, (long long)want);
    return -1;
  }
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
  const int64_t nc = P.ncols;
  phases ph;
  plan pa[RAP_PHASES], pc;
  arena ap, c[RAP_PHASES];
  sk_view crp, ci, cv;
  memset(pa, 0, sizeof pa);
  memset(&pc, 0, sizeof pc);
  memset(&ap, 0, sizeof ap);
  memset(c, 0, sizeof c);
  memset(&crp, 0, sizeof crp);
  memset(&ci, 0, sizeof ci);
  memset(&cv, 0, sizeof cv);
  int rc = -1, general = 0;
  if (plan_phases(&A, &R, want, &ph, err, errlen) < 0) goto done;
  /* every phase's plan of A P first: one arena of the largest */
  int64_t most = 0, mrows = 0;
  for (int j = 0; j < ph.k; j++) {
    const int64_t m = ph.hi[j] - ph.lo[j];
    const sk_view xr = rows_of(A.rowptr, ph.lo[j], m);
    if (arena_plan(be, space, m, A.nnz * m / (A.nrows > 0 ? A.nrows : 1), &xr, A.colidx,
                   P.rowptr, 1, 0, nc, &pa[j], err, errlen) < 0)
      goto done;
    if (pa[j].total > most) most = pa[j].total;
    if (m > mrows) mrows = m;
  }
  if (ph.k > 1 && share_offsets(pa, ph.k, &most) < 0) {
    general = 1;
    goto done;
  }
  if ((general = arena_alloc(space, most, mrows, &ap, err, errlen)) != 0) goto done;
  for (int j = 0; j < ph.k; j++) {
    const int64_t m = ph.hi[j] - ph.lo[j], mc = ph.c0[j + 1] - ph.c0[j];
    const sk_view xr = rows_of(A.rowptr, ph.lo[j], m), rr = rows_of(R.rowptr, ph.c0[j], mc);
    if (arena_fill(space, m, &xr, A.colidx, A.values, P.rowptr, 1, 0, P.colidx, P.values, nc, 0,
                   &pa[j], &ap, err, errlen) < 0 ||
        arena_plan(be, space, mc, R.nnz * mc / (nc > 0 ? nc : 1), &rr, R.colidx, &ap.cbe, 2,
                   ph.lo[j], nc, &pc, err, errlen) < 0)
      goto done;
    if ((general = arena_alloc(space, pc.total, mc, &c[j], err, errlen)) != 0) goto done;
    if (arena_fill(space, mc, &rr, R.colidx, R.values, &ap.cbe, 2, ph.lo[j], &ap.ci, &ap.cv, nc,
                   1, &pc, &c[j], err, errlen) < 0)
      goto done;
    sk_view_release(&pc.off);
    sk_view_release(&pa[j].off);
  }
  /* A_c's compact CSR from the phases' arenas: into A P's arena where it
   * holds it (its pages written already: no first touch), else new arrays */
  int64_t nnz = 0;
  if (sk_sp_view(&crp, "C_rowptr", SK_I64, nc + 1, space, 1, err, errlen) < 0) goto done;
  for (int j = 0; j < ph.k; j++) {
    sk_arg a[] = {sk_arg_view_ro("cbe", &c[j].cbe), sk_arg_view("cnt", &crp),
                  sk_arg_i64("o", ph.c0[j])};
    const int64_t mc = ph.c0[j + 1] - ph.c0[j];
    if (mc > 0 && sk_sp_range(&k_count, mc, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
  }
  if (sk_sp_scan(&crp, &crp, nc, &nnz, err, errlen) < 0) goto done;
  if (ap.ci.extent[0] >= nnz) {
    ci = ap.ci, cv = ap.cv; /* (moved: the arena's release leaves them) */
    memset(&ap.ci, 0, sizeof ap.ci);
    memset(&ap.cv, 0, sizeof ap.cv);
    ci.extent[0] = cv.extent[0] = nnz;
    snprintf(ci.label, sizeof ci.label, "C_colidx");
    snprintf(cv.label, sizeof cv.label, "C_values");
  } else if (sk_sp_view(&ci, "C_colidx", SK_I32, nnz, space, 0, err, errlen) < 0 ||
             sk_sp_view(&cv, "C_values", SK_F64, nnz, space, 0, err, errlen) < 0) {
    goto done;
  }
  arena_release(&ap);
  for (int j = 0; j < ph.k; j++) {
    sk_arg a[] = {sk_arg_view_ro("cbe", &c[j].cbe), sk_arg_view_ro("aci", &c[j].ci),
                  sk_arg_view_ro("av", &c[j].cv),   sk_arg_view_ro("crp", &crp),
                  sk_arg_view("cci", &ci),          sk_arg_view("cv", &cv),
                  sk_arg_i64("o", ph.c0[j])};
    const int64_t mc = ph.c0[j + 1] - ph.c0[j];
    if (mc > 0 && sk_sp_range(&k_copy, mc, a, PC_NELEM(a), NULL, err, errlen) < 0) goto done;
    arena_release(&c[j]);
  }
  /* (sk_kout_view moves the reference: the views below are empty then) */
  if (sk_kout_view(out, "C_rowptr", &crp, err, errlen) < 0 ||
      sk_kout_view(out, "C_colidx", &ci, err, errlen) < 0)
    goto done;
  rc = sk_kout_view(out, "C_values", &cv, err, errlen);
done:
  if (general > 0) rc = sk_kout_num(out, "general", 1, err, errlen);
  for (int j = 0; j < RAP_PHASES; j++) {
    sk_view_release(&pa[j].off);
    arena_release(&c[j]);
  }
  sk_view_release(&pc.off);
  arena_release(&ap);
  sk_view_release(&crp);
  sk_view_release(&ci);
  sk_view_release(&cv);
  return rc;
}

static const sk_kentry e_rap = {"solve.amg_rap", "A_*, P_*, R_* [, phases]", SK_KRES_NONE,
                                amg_rap};
const sk_kentry *const sk_pc_rap_entries[] = {&e_rap, NULL};
const sk_kbody *const sk_pc_rap_bodies[] = {&k_bound, &k_product, &k_count, &k_copy,
                                            &k_span,  NULL};
