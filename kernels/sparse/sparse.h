/* sparse.h: the sparse family's internal interface (kernels/sparse/):
 * matrices as driver arguments, temporaries, the shared dialect prelude
 * and the bodies each file registers.
 *
 * A CRS matrix reaches a driver as four arguments with a common prefix
 * ("A"): A_rowptr (int64, nrows + 1), A_colidx (int32, nnz), A_values
 * (float64 or float32, nnz) and A_ncols (an integer). Drivers check
 * shapes and dtypes (O(1)); the contents (rowptr non-decreasing from 0 to
 * nnz, columns in [0, ncols)) are checked once when a matrix is built
 * ("sparse.validate", which speck.sparse.CrsMatrix calls), never per call.
 * Results that are new matrices come back as output views named
 * C_rowptr, C_colidx, C_values (see kernels.h, sk_kout_view).
 */
#ifndef SK_SPARSE_H
#define SK_SPARSE_H

#include "../kernels.h"

/* -- matrices ------------------------------------------------------------- */
typedef struct sk_csr {
  const sk_view *rowptr, *colidx, *values; /* values NULL: a pattern */
  int64_t nrows, ncols, nnz;
  char name[16]; /* "A" for messages */
} sk_csr;

/* Matrix 'p' ("A") from the arguments p_rowptr, p_colidx, p_values,
 * p_ncols; 'need_values' 0 makes p_values optional; with SK_CSR_CPLX or'ed
 * in, complex values are taken too (callers that handle them), else
 * refused as every other non-float dtype. */
#define SK_CSR_CPLX 2
int sk_csr_arg(const sk_arg *args, int nargs, const char *p, int need_values, sk_csr *m,
               char *err, size_t errlen);
/* "300x250" */
const char *sk_csr_shape(const sk_csr *m, char *buf, size_t n);
/* the arguments p_rowptr .. p_ncols of 'm' appended at args[*n] ('names'
 * holds the four names, 32 bytes each) */
void sk_csr_args(const sk_csr *m, const char *p, char names[4][32], sk_arg *args, int *n);

/* -- views ------------------------------------------------------------------ */
/* A new rank-1 view of 'n' elements in 'space' (zero-filled when 'init'). */
int sk_sp_view(sk_view *v, const char *label, int dtype, int64_t n, int space, int init,
               char *err, size_t errlen);
/* element 'i' of a rank-1 integer / float view in any space (a copy of one
 * element when the host cannot read it) */
int sk_sp_get_i64(const sk_view *v, int64_t i, int64_t *x, char *err, size_t errlen);
int sk_sp_get_f64(const sk_view *v, int64_t i, double *x, char *err, size_t errlen);
/* elements [i, i + n) of an int64 view of stride 1 (the library's own
 * scratch), in one copy; another dtype or stride is refused */
int sk_sp_get_i64s(const sk_view *v, int64_t i, int64_t n, int64_t *x, char *err,
                   size_t errlen);
/* 1 if 'dt' is float64 or float32 */
int sk_sp_is_float(int dt);
/* the active back end (NULL with a message) */
const sk_backend *sk_sp_backend(char *err, size_t errlen);
/* 1 when kernels run as host code (one level of parallelism) */
int sk_sp_host(const sk_backend *b);

/* Exclusive scan of 'cnt' (int64, n + 1 entries; the last is ignored) into
 * 'ptr' (may be 'cnt'); the total lands in ptr(n) and '*total'. */
int sk_sp_scan(const sk_view *cnt, const sk_view *ptr, int64_t n, int64_t *total,
               char *err, size_t errlen);
/* a range launch of 'kb' over [0, n) with 'args' */
int sk_sp_range(const sk_kbody *kb, int64_t n, const sk_arg *args, int nargs,
                sk_result *res, char *err, size_t errlen);

/* -- the dialect prelude of the family ---------------------------------------
 * SK_SORT(n, LESS, SWAP): sort positions 0..n-1 in place by the
 * function-like macros LESS(a, b) and SWAP(a, b) the body defines
 * (insertion sort for short runs, heapsort above: O(n log n), no extra
 * memory, the same on every back end). SK_SORT_KV(n, K, V): keys K[0..n)
 * ascending with the values V[] carried (insertion without swaps for
 * short runs: a row of C). It is csr.sk's text 'prelude':
 * sk_body_sparse_prelude (kbodies.h). */

/* -- building (csr.c) ------------------------------------------------------ */
/* CSR arrays from COO triplets already checked to be in range: 'rows',
 * 'cols' (int64 or int32) and 'vals' (any float; NULL: ones of 'dtype'),
 * 'n' entries. Duplicates summed when 'sum_dup' (in input order), rows
 * sorted by column when 'sort' (else in input order, duplicates at their
 * first place). The new views land in 'rp', 'ci', 'va' (space 'space'). */
int sk_sp_coo_to_csr(int64_t nrows, int64_t ncols, const sk_view *rows,
                     const sk_view *cols, const sk_view *vals, int dtype, int sum_dup,
                     int sort, int space, sk_view *rp, sk_view *ci, sk_view *va,
                     char *err, size_t errlen);

/* y = beta*y + alpha*op(A)*x (spmv.c), arguments checked; CG calls it */
int sk_sp_spmv(char mode, double alpha, const sk_csr *A, const sk_view *x, double beta,
               const sk_view *y, const char *algo, char *err, size_t errlen);

/* A non-finite 'what' (= 'x', "r'r") at iteration 'it' of an iterative
 * solve (cg.c): the message names the first NaN or Inf of b, then x0
 * (may be NULL), then A's values (A may be NULL: an operator without
 * values), or else the overflow. Returns -1. */
int sk_sp_cg_nonfinite(const sk_csr *A, const sk_view *bv, const sk_view *x0,
                       const char *what, double x, int64_t it, char *err, size_t errlen);

/* CG without a preconditioner (speck.solve's, kernels/solve/krylov.c) for
 * sparse.cg: A square, b and x0 (NULL: zero) checked by the caller, tol >= 0,
 * maxiter >= 0. Sets x (a new view), the iterations, the final true
 * ||b - A x|| and the reason (0 converged, 1 maxiter, 2 breakdown). */
int sk_solve_cg_plain(const sk_csr *A, const sk_view *b, const sk_view *x0, double tol,
                      int64_t maxiter, sk_view *x, int64_t *iters, double *rnorm,
                      int *reason, char *err, size_t errlen);

/* -- the compact index (csr16.c) ------------------------------------------------
 * A matrix's row pointers as int32 and its columns as int16 offsets from
 * their row, where every offset and the entries fit: the one builder,
 * kept with the matrix (a memo of its column-index array, made anew when
 * the row map or the columns were written). */
typedef struct sk_csr16 {
  sk_view rowptr;      /* int32, nrows + 1 */
  sk_view off;         /* int16, nnz: colidx(k) - row */
  int64_t right, left; /* how far right / left of its row a column lies (>= 0) */
  int ok;              /* 1: rowptr and off hold the index */
} sk_csr16;
/* The index of the matrix (rowptr int64, colidx int32; rowptr->extent[0] - 1
 * rows), built now and not kept; ok 0 where it does not fit (right and
 * left set either way). */
int sk_csr16_build(const sk_view *rowptr, const sk_view *colidx, sk_csr16 *c, char *err,
                   size_t errlen);
/* The kept index for a caller about to run 'uses' SpMVs of the matrix:
 * built once the pattern has served enough of them unchanged (csr16.c's
 * policy); c->ok 0 (use plain CSR) before that, where it does not fit or
 * cannot be kept. The views are references: sk_csr16_release. */
int sk_csr16_get(const sk_view *rowptr, const sk_view *colidx, int64_t uses, sk_csr16 *c,
                 char *err, size_t errlen);
/* 1 where the matrix's index could be kept (its views' kinds and memory;
 * whether its columns fit int16 offsets is known only once built) */
int sk_csr16_could(const sk_view *rowptr, const sk_view *colidx);
void sk_csr16_release(sk_csr16 *c);
extern const sk_kbody *const sk_csr16_bodies[];
/* SpMVs of one pattern (or one values array) before its compact index
 * (or value codes) is built: the build costs about half an SpMV and saves
 * about an eighth of one a call on the 5-point matrix; a pattern used
 * three times is likely used many more */
#define SK_CSR16_USES 3

/* -- value codes (vdict.c) -----------------------------------------------------
 * A matrix's values as uint8 codes into a table, where it has at most
 * SK_VDICT_MAX distinct values: the one builder, kept with the values (a
 * memo of their allocation, made anew when they were written). */
#define SK_VDICT_MAX 32
typedef struct sk_vdict {
  sk_view code; /* uint8, nnz: the place of each entry's value in tab */
  sk_view tab;  /* the values' dtype: the distinct values */
  int ok;       /* 1: code and tab hold them */
} sk_vdict;
/* the codes of 'values' built now and not kept; ok 0 where they have too
 * many distinct values */
int sk_vdict_build(const sk_view *values, sk_vdict *d, char *err, size_t errlen);
/* the kept codes where they are built already (no use counted, nothing
 * built): 1 and d filled (references), else 0 */
int sk_vdict_peek(const sk_view *values, sk_vdict *d);
/* 'd' (codes of every entry of 'values' into d's table, made by the
 * caller as the build would: each value bit for bit) kept as the values'
 * codes, as if built (a derived matrix's: amg.c's copy of A without its
 * zeros takes A's codes); 1 kept, 0 not (the views are retained) */
int sk_vdict_adopt(const sk_view *values, const sk_vdict *d);
/* the kept codes for a caller about to run 'uses' SpMVs (as sk_csr16_get) */
int sk_vdict_get(const sk_view *values, int64_t uses, sk_vdict *d, char *err,
                 size_t errlen);
void sk_vdict_release(sk_vdict *d);
extern const sk_kbody *const sk_vdict_bodies[];

/* -- the diagonal form (dia.c) ------------------------------------------------
 * A stencil matrix (every row's columns its index plus offsets from one
 * set of at most SK_DIA_MAX) as one byte a row and diagonal: the value
 * code plus one, 0 where the row lacks the column. Only for a matrix with
 * value codes whose fill nd * n is at most SK_DIA_FILL times its entries;
 * the one builder, kept with the values (a memo of their allocation, made
 * anew when the values or the pattern were written). */
#define SK_DIA_MAX  32
#define SK_DIA_FILL 2
/* rows a block of the codes (dia.sk's texts write it out) */
#define SK_DIA_BLOCK 64
typedef struct sk_dia {
  int nd;                  /* diagonals */
  int width;               /* diagonals a block of the codes (>= nd; the rest 0) */
  int64_t off[SK_DIA_MAX]; /* their offsets, ascending */
  /* uint8, width * nrows rounded up to blocks of SK_DIA_BLOCK rows: row
   * i's code of diagonal q at (i / 64) 64 width + 64 q + i % 64 */
  sk_view code;
  sk_view tab; /* the values' dtype, slot 0 unused: tab(c) code c's value */
  /* the diagonals whose entries all have one value (bit q; a stencil of
   * constant coefficients: all), their values dv(q) (3 nd; 0 for others);
   * on the host those of two codes (bit q of 'two'; a stencil's value and
   * a boundary's stored zeros): code dv(2 nd + q) has value dv(q), the
   * other code dv(nd + q) */
  uint32_t uni, two;
  sk_view dv;
  int ok; /* 1: the form is there */
} sk_dia;
/* built now and not kept (vd: A's value codes; at least 'width' diagonals
 * a block, empty ones after the form's: a caller's fixed-width body); ok
 * 0 where A does not fit */
int sk_dia_build(const sk_csr *A, const sk_vdict *vd, int width, sk_dia *d, char *err,
                 size_t errlen);
/* the kept form of A for a caller that has A's value codes 'vd' (ok 0:
 * none, use the CSR paths; SPECK_SPARSE_NODIA=1 gives none). The views
 * are references: sk_dia_release. */
int sk_dia_get(const sk_csr *A, const sk_vdict *vd, sk_dia *d, char *err, size_t errlen);
void sk_dia_release(sk_dia *d);
/* A's memos for a host solver's 'uses' passes with it: its diagonal form
 * where it has one -- with its value codes and without the compact index,
 * which the form's passes do not read (2 bytes an entry to make and fault
 * in for nothing) -- else the compact index and, with it, the codes (the
 * chain sk_csr16_get, sk_vdict_get, sk_dia_get of the other callers). The
 * form is taken only where the index would fit too (every offset within
 * int16): the same matrices run by diagonals as through that chain. Each
 * out-param ok 0 where not made; references (release each). */
int sk_dia_memos(const sk_csr *A, int64_t uses, sk_csr16 *c16, sk_vdict *vd, sk_dia *dg,
                 char *err, size_t errlen);
/* A's diagonal form where its codes are kept already (sk_dia_memos made
 * them, or the chain) and the form qualifies as there: sparse.spmv's first
 * look (no use counted); ok 0: none */
int sk_dia_kept(const sk_csr *A, sk_dia *dg, char *err, size_t errlen);
/* d's offsets as a host int64 view of 2 nd entries (the host passes over
 * the form: MIS-2, the coarsening, AMG's symmetry check): the nd offsets,
 * then for each the diagonal of the opposite offset (its mirror), -1 none */
int sk_dia_offsets(const sk_dia *d, sk_view *v, char *err, size_t errlen);
/* 1 when SPECK_SPARSE_NODIA is set (and not 0) */
int sk_dia_disabled(void);
/* y = beta*y + alpha*A*x (one vector, A square) by d, alpha != 0: the CSR
 * sums bit for bit */
int sk_dia_spmv(const sk_dia *d, const sk_csr *A, double alpha, const sk_view *x, double beta,
                const sk_view *y, char *err, size_t errlen);
/* CG's w = A u with out = {r'u, w'u, r'r} (rv the residual): the sums of
 * krylov.c's fused host body on the host, of its SpMV and dots on a
 * device (one launch there too) */
int sk_dia_cg_dots(const sk_dia *d, const sk_csr *A, const sk_view *u, const sk_view *w,
                   const sk_view *rv, double out[3], char *err, size_t errlen);
/* Chebyshev's host step by d (kernels/solve/cheby.c's fused step, its
 * values bit for bit): w = A z, d = c1 d + c2 D^-1 (rv - w), zn = z + d
 * (dd: d); with z NULL the first two steps in one pass: z = c0 D^-1 rv
 * formed where it is read (not written), then that step into zn, d
 * written only where keep_d (a later step reads it). Host only. */
int sk_dia_cheby(const sk_dia *d, const sk_csr *A, const sk_view *z, const sk_view *zn,
                 const sk_view *dd, const sk_view *rv, const sk_view *dinv, double c0,
                 double c1, double c2, int keep_d, char *err, size_t errlen);
/* an AMG cycle's residual t = b - A x by d (host): the values of a copy
 * of b and sk_dia_spmv with alpha -1, beta 1, bit for bit */
int sk_dia_resid(const sk_dia *d, const sk_csr *A, const sk_view *b, const sk_view *x,
                 const sk_view *t, char *err, size_t errlen);
extern const sk_kbody *const sk_dia_bodies[];

/* -- families ----------------------------------------------------------------- */
extern const sk_kentry *const sk_csr_entries[],
  *const sk_mmio_entries[], *const sk_spmv_entries[], *const sk_spgemm_entries[],
                                                        *const sk_spadd_entries[],
                                                          *const sk_sptrsv_entries[],
                                                            *const sk_cg_entries[];
extern const sk_kbody *const sk_csr_bodies[],
  *const sk_spmv_bodies[], *const sk_spgemm_bodies[], *const sk_spadd_bodies[],
                                                        *const sk_sptrsv_bodies[];

/* -- text files (mmio.c; graph/gio.c too) ------------------------------------ */
/* A reader's failure: "'path' line N: " then core/errmsg.h's 'id' with the
 * arguments into 'err'; -1. sk_sp_line_fail(r, id, ...) takes them from
 * reader 'r' (any struct with path, lineno, err and errlen). */
int sk_sp_line_fail_(char *err, size_t errlen, const char *path, int64_t lineno, int id,
                     ...);
#define sk_sp_line_fail(r, id, ...) \
  (SK_ERRCHK(id, ##__VA_ARGS__), \
   sk_sp_line_fail_((r)->err, (r)->errlen, (r)->path, (r)->lineno, id, ##__VA_ARGS__))
/* the next whitespace-separated token of *p (NUL-terminated in place,
 * *p moved past it), NULL when none */
char *sk_sp_token(char **p);
/* the offset of the first byte of s[0..n) that is not text (a NUL, a
 * control character other than whitespace), -1 when all are */
int64_t sk_sp_not_text(const char *s, size_t n);

/* a host-readable copy of rank-1 'v' into 'h': 'v' itself (retained, its
 * space fenced) when the host reaches it, else a new host view (the
 * writers of files, sparse.write_mm and graph.write) */
int sk_sp_host_copy(const sk_view *v, sk_view *h, char *err, size_t errlen);

/* zcg.c: CG for Hermitian positive definite complex matrices */
extern const sk_kbody *const sk_zcg_bodies[];
extern const sk_kentry *const sk_zcg_entries[];
/* zspmv.c: SpMV of a complex matrix, alpha and beta {re, im} */
extern const sk_kbody *const sk_zspmv_bodies[];
int sk_sp_zspmv(char mode, const double *alpha, const sk_csr *A, const sk_view *x,
                const double *beta, const sk_view *y, char *err, size_t errlen);

#endif
