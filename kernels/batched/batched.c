/* batched.c: batched dense linear algebra on rank-3 views (batch, rows,
 * cols): gemm trsm trmm trtri lu (without and with partial pivoting) gesv
 * (seed 000 section 3.2), each at the Serial level (one thread per
 * matrix: a range over the batch), Team or TeamVector (one team per
 * matrix), mode "auto" choosing by size and back end.
 *
 * The bodies call the dialect's operations on one matrix (dialect/
 * linalg.h: serial_gemm, team_gemm, teamvector_gemm, ...), the same ones
 * a user's kernel body calls, so the library and user code share one
 * implementation per back end. Factorisations fill an int64 'info' view
 * (one entry per matrix, LAPACK's info); with 'check' (the default) a
 * nonzero entry is an error naming the first such matrix and its pivot.
 *
 * Serial gemm specialises small square sizes (n <= 16, non-transposed):
 * the operation is inlined with the size a constant, so the compiler
 * unrolls it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "../blas/dense.h"
#include "bmode.h"
#include "kbodies.h"

#define NELEM(a)  ((int)(sizeof(a) / sizeof((a)[0])))
#define M3(VT, n) " " n "=" VT "[3,stride]"

/* -- bodies -------------------------------------------------------------------- */
#define GEMM_S(VT) \
  "range" M3(VT, "A") M3(VT, "B") \
    M3(VT, "C") " ta=int64 tb=int64 alpha=float64 beta=float64 fixed=int64"
#define GEMM_T(VT) \
  "team" M3(VT, "A") M3(VT, "B") \
    M3(VT, "C") " ta=int64 tb=int64 alpha=float64 beta=float64 vec=int64"
static const char *const sig_gemm_s[] = {GEMM_S("float64"), GEMM_S("float32"), NULL};
static const char *const sig_gemm_t[] = {GEMM_T("float64"), GEMM_T("float32"), NULL};

/* C_i = alpha A_i B_i + beta C_i with n x n matrices, n a constant after
 * inlining (the switch below); strides as the views have them */
static const sk_kbody k_gemm_s = {.label = "batched.gemm",
                                  .body = sk_body_batched_gemm,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gemm_s};

/* The host's fast path for square n x n, 2 <= n <= 16, float64 and
 * float32 (any trans, any strides): a work item per SMALL_GROUP (or more)
 * matrices, the size a constant in each case of the switch (dialect/
 * linalg.h, SK__SGT: C's rows RB at a time in vector registers,
 * vectorised across the columns in chunks of W), so nothing is decided
 * per matrix. When op(A), op(B) and C are all row major in place (unit
 * column stride, row stride n, not transposed, C not streamed) the item
 * is one call of sk__sgb_<type><n> (SK__SGB: a loop of its own, beta 0
 * and alpha 1 specialised; the prelude defines one per case). Otherwise
 * the loop below checks per matrix whether an operand must be copied
 * into the work item's buffers (no software prefetch: linalg.h, SK__SGB,
 * says why). Each element is the fma chain of serial_gemm, so every path
 * agrees bit for bit. */
#define SMALL_GROUP 16
/* larger batches take larger work items, up to SMALL_GROUP_MAX matrices,
 * while at least SMALL_ITEMS items remain: an item's set-up (the
 * operands' checks, the switch, a call) cost about as much as a 3x3
 * product, 3x3 in cache 13 % faster with 64 a work item than with 16 */
#define SMALL_GROUP_MAX 256
#define SMALL_ITEMS     1024
/* matrices a work item when C is streamed: its fence waits for the item's
 * non-temporal stores, so it comes once per 256 matrices, not 16 */
#define SMALL_GROUP_NT 256
#define GEMM_SMALL(VT) \
  "range" M3(VT, "A") M3(VT, "B") M3( \
    VT, \
    "C") " ta=int64 tb=int64 alpha=float64 beta=float64 fixed=int64 nb=int64 nt=int64 grp=int64"
static const char *const sig_gemm_small[] = {GEMM_SMALL("float64"), NULL};
static const char *const sig_gemm_small_f[] = {GEMM_SMALL("float32"), NULL};
static const sk_kbody k_gemm_small = {.label = "batched.gemm_small",
                                      .body = sk_body_batched_gemm_small,
                                      .pattern = SK_FOR,
                                      .sigs = sig_gemm_small,
                                      .prelude = sk_body_batched_gemm_small_prelude,
                                      .host_only = 1};
static const sk_kbody k_gemm_small_f = {.label = "batched.gemm_small_f",
                                        .body = sk_body_batched_gemm_small_f,
                                        .pattern = SK_FOR,
                                        .sigs = sig_gemm_small_f,
                                        .prelude = sk_body_batched_gemm_small_f_prelude,
                                        .host_only = 1};

#define GEMM_P(VT) "range A=" VT "[4] B=" VT "[4] C=" VT "[4] alpha=float64 beta=float64"
static const char *const sig_gemm_p[] = {GEMM_P("float64"), GEMM_P("float32"), NULL};
/* packed (groups, rows, cols, width) views, one group per work item, the
 * lanes innermost: the compiler vectorises across the batch */
static const sk_kbody k_gemm_p = {.label = "batched.gemm_packed",
                                  .body = sk_body_batched_gemm_packed,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gemm_p};

/* Mode "rows": one work item per R rows of C (item i: matrix i / (m / R),
 * rows from (i % (m / R)) * R, so the rows of one matrix are neighbouring
 * threads on a GPU and share B's loads), C's R rows kept in registers for
 * square non-transposed n <= 16 (n and R constants after inlining), each
 * load of B used for R rows. R is ROWS_PER(n) -- 2 at n = 14 and 16 (in
 * the kernel k_gemm_rw), else 4 when 4 divides n, 3 when 3 does, else 1 --
 * the rule the cases of the bodies spell out (SK_BR(n, R)); R = 1
 * otherwise. For matrices too large for a thread each
 * (a GPU's registers at n >= 10) and too small for a team. */
#define ROWS_PER(n) ((n) == 14 || (n) == 16 ? 2 : (n) % 4 == 0 ? 4 : (n) % 3 == 0 ? 3 : 1)
#define GEMM_R(VT) \
  "range" M3(VT, "A") M3(VT, "B") \
    M3(VT, "C") " ta=int64 tb=int64 alpha=float64 beta=float64 fixed=int64 rb=int64"
static const char *const sig_gemm_r[] = {GEMM_R("float64"), GEMM_R("float32"), NULL};
static const sk_kbody k_gemm_r = {.label = "batched.gemm_rows",
                                  .body = sk_body_batched_gemm_rows,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gemm_r};
/* n = 14 and 16: the table with R = 2 for them (batched.sk says why) */
static const sk_kbody k_gemm_rw = {.label = "batched.gemm_rows",
                                   .body = sk_body_batched_gemm_rows_wide,
                                   .pattern = SK_FOR,
                                   .sigs = sig_gemm_r};
static const sk_kbody k_gemm_t = {.label = "batched.gemm",
                                  .body = sk_body_batched_gemm_t,
                                  .pattern = SK_FOR,
                                  .sigs = sig_gemm_t};

#define TRI(VT, pol) \
  pol M3(VT, "A") M3( \
    VT, \
    "B") " side=int64 uplo=int64 trans=int64 diag=int64 alpha=float64 mm=int64 vec=int64"
static const char *const sig_tri_s[] = {TRI("float64", "range"), TRI("float32", "range"),
                                        NULL};
static const char *const sig_tri_t[] = {TRI("float64", "team"), TRI("float32", "team"),
                                        NULL};
static const sk_kbody k_tri_s = {.label = "batched.trsm",
                                 .body = sk_body_batched_trsm,
                                 .pattern = SK_FOR,
                                 .sigs = sig_tri_s};
static const sk_kbody k_tri_t = {.label = "batched.trsm",
                                 .body = sk_body_batched_tri_t,
                                 .pattern = SK_FOR,
                                 .sigs = sig_tri_t};

/* factorisations: op 0 trtri, 1 lu, 2 getrf (pivots in P), 3 gesv */
#define FAC(VT, pol) \
  pol M3(VT, "A") M3(VT, "B") " P=int64[2] info=int64[1]" \
                              " op=int64 uplo=int64 diag=int64 vec=int64"
static const char *const sig_fac_s[] = {FAC("float64", "range"), FAC("float32", "range"),
                                        NULL};
static const char *const sig_fac_t[] = {FAC("float64", "team"), FAC("float32", "team"),
                                        NULL};
static const sk_kbody k_fac_s = {.label = "batched.lu",
                                 .body = sk_body_batched_lu,
                                 .pattern = SK_FOR,
                                 .sigs = sig_fac_s};
static const sk_kbody k_fac_t = {.label = "batched.lu",
                                 .body = sk_body_batched_fac_t,
                                 .pattern = SK_FOR,
                                 .sigs = sig_fac_t};

static const char *const sig_count[] = {"range info=int64[1]", NULL};
static const sk_kbody k_count = {.label = "batched.info",
                                 .body = sk_body_batched_info,
                                 .pattern = SK_REDUCE,
                                 .red_op = SK_RED_SUM,
                                 .sigs = sig_count};

/* -- helpers --------------------------------------------------------------------- */

/* matrices in a batch: rank 3 (batch, rows, cols), or SIMD-packed rank 4
 * (groups, rows, cols, width: batched.pack) */
static int64_t nbatch(const sk_view *v) {
  return v->rank == 4 ? v->extent[0] * v->extent[3] : v->extent[0];
}

/* a batch of float matrices: rank 3, or rank 4 as batched.pack makes it */
static const sk_view *bmat(const sk_arg *args, int nargs, const char *name, int *dtype,
                           char *err, size_t errlen) {
  const sk_arg *a = sk_karg_find(args, nargs, name);
  if (a && a->view && a->view->rank == 4) {
    sk_view t = *a->view; /* checked as the rank-3 view of its first lane */
    t.rank = 3;
    sk_arg b = *a;
    b.view = &t;
    if (!sk_dense_mat(&b, 1, name, 1, dtype, err, errlen)) return NULL;
    return a->view;
  }
  return sk_dense_mat(args, nargs, name, 1, dtype, err, errlen);
}

/* mode "serial" | "team" | "teamvector" | "auto" (gemm also "rows"): auto
 * is serial on the host (one matrix per thread vectorises best) and for
 * matrices up to 9x9 on a GPU; there gemm takes rows up to 16x16 and the
 * rest teamvector */
int sk_batched_mode(const sk_arg *args, int nargs, int64_t rows, int64_t cols, int *mode,
                    int gemm, char *err, size_t errlen) {
  const char *s = sk_karg_str(args, nargs, "mode", "auto", err, errlen);
  if (!s) return -1;
  /* Kokkos Kernels' batched levels (Serial, Team, TeamVector), not spaces */
  static const char *const levels[] = {"serial", "team", "teamvector", "rows", NULL};
  static const int level_mode[] = {SK_BMODE_SERIAL, SK_BMODE_TEAM, SK_BMODE_TEAMVECTOR, SK_BMODE_ROWS};
  int k = 0;
  while (levels[k] && strcmp(s, levels[k]) != 0) k++;
  if (levels[k] && (gemm || level_mode[k] != SK_BMODE_ROWS)) *mode = level_mode[k];
  else if (strcmp(s, "auto") == 0) {
    const sk_backend *b = sk_dense_backend(err, errlen);
    if (!b) return -1;
    /* (the GPU's choices from H200 sweeps, docs/bench-library.md: a thread per
     * matrix up to 9x9, gemm a thread per rows of C up to 16x16, and past
     * it a thread per matrix again up to 32x32: 700-900 GFLOP/s where a
     * team per matrix made 400-435, scripts/bench/scaling's cliff) */
    *mode = b->code == SK_CODE_HOST || rows * cols <= 81 ? SK_BMODE_SERIAL
            : gemm && rows <= 16 && cols <= 16           ? SK_BMODE_ROWS
            : gemm && rows <= 32 && cols <= 32           ? SK_BMODE_SERIAL
                                                         : SK_BMODE_TEAMVECTOR;
  } else {
    sk_err(err, errlen, SK_E_MODE_MUST_SERIAL, s, gemm ? "; or \"rows\"" : "");
    return -1;
  }
  return 0;
}

static int same_batch(const sk_view *A, const char *an, const sk_view *B, const char *bn,
                      char *err, size_t errlen) {
  if (nbatch(A) == nbatch(B)) return 0;
  char sa[64], sb[64];
  sk_err(err, errlen, SK_E_BATCH_SIZES_DIFFER, an, sk_dense_shape(A, sa, sizeof sa), bn,
         sk_dense_shape(B, sb, sizeof sb));
  return -1;
}

static int launch(const sk_kbody *ks, const sk_kbody *kt, int mode, int64_t batch,
                  sk_arg *args, int nargs, char *err, size_t errlen) {
  if (batch == 0) return 0;
  if (mode == SK_BMODE_SERIAL) return sk_dense_range(ks, batch, args, nargs, err, errlen);
  for (int k = 0; k < nargs; k++)
    if (strcmp(args[k].name, "vec") == 0) args[k].value.i64 = mode == SK_BMODE_TEAMVECTOR;
  return sk_dense_team(kt, batch, 0, 0, args, nargs, err, errlen);
}

/* -- gemm ------------------------------------------------------------------------ */
static int bgemm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  static const char *const known[] = {"transA", "transB", "alpha", "A",      "B", "beta",
                                      "C",      "mode",   "impl",  "stream", NULL};
  (void)out;
  char ta, tb;
  double alpha, beta;
  int dt = -1, mode;
  int64_t stream = 0;
  const sk_view *A, *B, *C;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', &ta, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transB", "NTC", 'N', &tb, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen) < 0 ||
      sk_karg_f64(args, nargs, "beta", &beta, err, errlen) < 0 ||
      !(A = bmat(args, nargs, "A", &dt, err, errlen)) ||
      !(B = bmat(args, nargs, "B", &dt, err, errlen)) ||
      !(C = bmat(args, nargs, "C", &dt, err, errlen)) ||
      same_batch(A, "A", B, "B", err, errlen) < 0 ||
      same_batch(A, "A", C, "C", err, errlen) < 0)
    return -1;
  const sk_arg *sa = sk_karg_find(args, nargs, "stream");
  if (sa && (sa->view || sa->str ||
             sk_karg_i64(args, nargs, "stream", 0, 0, &stream, err, errlen) < 0 ||
             stream < 0 || stream > 1)) {
    sk_err(err, errlen, SK_E_STREAM_MUST_TRUE, sa->str ? "\"" : "",
           sa->str    ? sa->str
           : sa->view ? "a view"
                      : "a number",
           sa->str ? "\"" : "");
    return -1;
  }
  int64_t am = ta == 'N' ? A->extent[1] : A->extent[2];
  int64_t ak = ta == 'N' ? A->extent[2] : A->extent[1];
  int64_t bk = tb == 'N' ? B->extent[1] : B->extent[2];
  int64_t bn = tb == 'N' ? B->extent[2] : B->extent[1];
  if (am != C->extent[1] || bn != C->extent[2] || ak != bk) {
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT, (long long)am, (long long)ak, (long long)bk,
           (long long)bn, (long long)C->extent[1], (long long)C->extent[2],
           (long long)nbatch(C));
    return -1;
  }
  int impl;
  if (sk_batched_mode(args, nargs, C->extent[1], C->extent[2], &mode, 1, err, errlen) < 0 ||
      sk_dense_impl(args, nargs, &impl, err, errlen) < 0)
    return -1;
  /* impl "vendor": the GPU vendor BLAS's strided batched gemm (the native
   * kernels elsewhere, and for "auto": they are the point here), where a
   * back end with a vendor BLAS reaches C's space (not a device-like back
   * end's memory) */
  if (impl == SK_IMPL_VENDOR && C->space != SK_SPACE_HOST &&
      sk_backend_blas_for(C->space) && A->rank == 3 &&
      B->rank == 3 && C->rank == 3 &&
      sk_vendor_gpu_gemm_batched(dt, ta, tb, C->extent[1], C->extent[2], ak, alpha,
                                 A->data, A->stride[1], A->stride[2], A->stride[0],
                                 B->data, B->stride[1], B->stride[2], B->stride[0], beta,
                                 C->data, C->stride[1], C->stride[2], C->stride[0],
                                 C->extent[0]) == SK_VENDOR_OK)
    return sk_dense_vendor_done(C, err, errlen);
  int64_t n = C->extent[1];
  int64_t fixed = ta == 'N' && tb == 'N' && n == C->extent[2] && n == ak && n >= 2 &&
                      n <= 16 && alpha != 0
                    ? n
                    : 0;
  sk_view a, b, c;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_dense_strided(C, &c);
  sk_arg ka[] = {
    sk_arg_view("A", &a),     sk_arg_view("B", &b),
    sk_arg_view("C", &c),     sk_arg_i64("ta", ta),
    sk_arg_i64("tb", tb),     sk_arg_f64("alpha", alpha),
    sk_arg_f64("beta", beta), sk_arg_i64(mode == SK_BMODE_SERIAL ? "fixed" : "vec", fixed)};
  /* the host's fast path: float64 or float32, square 2..16, rank 3 (any
   * trans, strides) */
  if (mode == SK_BMODE_SERIAL && (dt == SK_F64 || dt == SK_F32) && A->rank == 3 &&
      B->rank == 3 && C->rank == 3 && n == C->extent[2] && n == ak && n >= 2 && n <= 16 &&
      alpha != 0) {
    const sk_backend *hb = sk_dense_backend(err, errlen);
    if (!hb) return -1;
    if (hb->code == SK_CODE_HOST) {
      int64_t nb = C->extent[0];
      /* C streamed past the caches (non-temporal stores through a
       * one-matrix buffer) with stream = true where it can be: beta 0, C
       * contiguous and 64-byte aligned (so every work item's block of C
       * is whole cache lines). Not by default: no faster than cached
       * stores on the machine of docs/bench-library.md (session 5) */
      int64_t nt = stream == 1 && beta == 0 && C->stride[2] == 1 && C->stride[1] == n &&
                   C->stride[0] == n * n && ((uintptr_t)C->data & 63) == 0;
      int64_t grp = nt ? SMALL_GROUP_NT : SMALL_GROUP;
      while (!nt && grp < SMALL_GROUP_MAX && nb / (2 * grp) >= SMALL_ITEMS) grp *= 2;
      sk_arg ks[] = {ka[0],
                     ka[1],
                     ka[2],
                     ka[3],
                     ka[4],
                     ka[5],
                     ka[6],
                     sk_arg_i64("fixed", n),
                     sk_arg_i64("nb", nb),
                     sk_arg_i64("nt", nt),
                     sk_arg_i64("grp", grp)};
      return nb ? sk_dense_range(dt == SK_F64 ? &k_gemm_small : &k_gemm_small_f,
                                 (nb + grp - 1) / grp, ks, NELEM(ks), err, errlen)
                : 0;
    }
  }
  /* all three packed alike, not transposed: lanes innermost (vectorised) */
  if (mode == SK_BMODE_SERIAL && A->rank == 4 && B->rank == 4 && C->rank == 4 && ta == 'N' &&
      tb == 'N' && A->extent[3] == C->extent[3] && B->extent[3] == C->extent[3] &&
      A->layout == SK_RIGHT && B->layout == SK_RIGHT && C->layout == SK_RIGHT) {
    sk_arg kp[] = {sk_arg_view("A", A), sk_arg_view("B", B), sk_arg_view("C", C),
                   sk_arg_f64("alpha", alpha), sk_arg_f64("beta", beta)};
    return sk_dense_range(&k_gemm_p, C->extent[0], kp, NELEM(kp), err, errlen);
  }
  if (mode == SK_BMODE_ROWS) { /* a work item per ROWS_PER rows of C */
    int64_t rb = fixed ? ROWS_PER(fixed) : 1;
    sk_arg kr[] = {ka[0],
                   ka[1],
                   ka[2],
                   ka[3],
                   ka[4],
                   ka[5],
                   ka[6],
                   sk_arg_i64("fixed", fixed),
                   sk_arg_i64("rb", rb)};
    int64_t items = nbatch(C) * (C->extent[1] / rb);
    const sk_kbody *kb = fixed == 14 || fixed == 16 ? &k_gemm_rw : &k_gemm_r;
    return items ? sk_dense_range(kb, items, kr, NELEM(kr), err, errlen) : 0;
  }
  return launch(&k_gemm_s, &k_gemm_t, mode, nbatch(C), ka, NELEM(ka), err, errlen);
}

/* -- trsm, trmm -------------------------------------------------------------------- */
/* a batch of matrices 'name': real (bmat) or, with 'cx', complex (rank 3,
 * zblas.c's checks) */
static const sk_view *bmat_any(int cx, const sk_arg *args, int nargs, const char *name,
                               int *dtype, char *err, size_t errlen) {
  if (cx) return sk_zview(args, nargs, name, 3, dtype, 1, err, errlen);
  return bmat(args, nargs, name, dtype, err, errlen);
}

/* trsm (mm 0) or trmm (1), real or (cx) complex: alpha, or alpha_re and
 * alpha_im, passed to the kernels as 'alpha' (float64 / complex128) */
int sk_batched_tri(int mm, int cx, const sk_kbody *ks, const sk_kbody *kt,
                   const sk_arg *args, int nargs, char *err, size_t errlen) {
  static const char *const known[] = {"side", "uplo", "transA", "diag", "alpha",
                                      "A",    "B",    "mode",   NULL};
  static const char *const zknown[] = {"side", "uplo", "transA", "diag", "alpha_re",
                                       "alpha_im", "A", "B", "mode", NULL};
  char side, uplo, tr, diag;
  double alpha = 0, z[2] = {0, 0};
  int dt = -1, mode;
  const sk_view *A, *B;
  if (sk_karg_known(args, nargs, cx ? zknown : known, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "side", "LR", 0, &side, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "transA", "NTC", 'N', &tr, err, errlen) < 0 ||
      sk_dense_char(args, nargs, "diag", "NU", 'N', &diag, err, errlen) < 0 ||
      (cx ? sk_zscalar(args, nargs, "alpha", z, err, errlen)
          : sk_karg_f64(args, nargs, "alpha", &alpha, err, errlen)) < 0 ||
      !(A = bmat_any(cx, args, nargs, "A", &dt, err, errlen)) ||
      !(B = bmat_any(cx, args, nargs, "B", &dt, err, errlen)) ||
      same_batch(A, "A", B, "B", err, errlen) < 0)
    return -1;
  int64_t need = side == 'L' ? B->extent[1] : B->extent[2];
  if (A->extent[1] != A->extent[2] || A->extent[1] != need) {
    char sa[64], sb[64];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH, sk_dense_shape(A, sa, sizeof sa),
           sk_dense_shape(B, sb, sizeof sb), side, side == 'L' ? "rows" : "columns");
    return -1;
  }
  if (sk_batched_mode(args, nargs, B->extent[1], B->extent[2], &mode, 0, err, errlen) < 0)
    return -1;
  sk_view a, b;
  sk_dense_strided(A, &a);
  sk_dense_strided(B, &b);
  sk_arg ka[] = {
    sk_arg_view("A", &a),       sk_arg_view("B", &b),    sk_arg_i64("side", side),
    sk_arg_i64("uplo", uplo),   sk_arg_i64("trans", tr), sk_arg_i64("diag", diag),
    cx ? sk_zarg("alpha", z[0], z[1]) : sk_arg_f64("alpha", alpha),
    sk_arg_i64("mm", mm),       sk_arg_i64("vec", 0)};
  if (cx && A->alloc && A->alloc == B->alloc) {
    sk_err(err, errlen, SK_E_ARG_VIEW_SHARE_MEMORY, "A", A->label, "B", B->label);
    return -1;
  }
  return launch(ks, kt, mode, nbatch(B), ka, NELEM(ka), err, errlen);
}

static int btrsm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  (void)out;
  return sk_batched_tri(0, 0, &k_tri_s, &k_tri_t, args, nargs, err, errlen);
}

static int btrmm(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  (void)out;
  return sk_batched_tri(1, 0, &k_tri_s, &k_tri_t, args, nargs, err, errlen);
}

/* -- factorisations ------------------------------------------------------------------ */
static const char *const op_name[] = {"trtri", "lu", "lu", "gesv"};

/* the first matrix with a nonzero info: "matrix 3 of A (view 'A') is
 * singular: pivot 2 is zero (2 matrices failed)" */
static int check_info(int op, const sk_view *A, const sk_view *info, int64_t nbad,
                      char *err, size_t errlen) {
  int64_t n = info->extent[0], first = -1, piv = 0;
  int64_t *h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
  sk_view hv;
  if (!h) {
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  if (sk_view_create(&hv, "info", SK_I64, 1, &n, SK_RIGHT, SK_SPACE_HOST, 0, h, err,
                     errlen) < 0 ||
      sk_view_deep_copy(&hv, info, err, errlen) < 0) {
    free(h);
    return -1;
  }
  sk_view_release(&hv);
  for (int64_t i = 0; i < n && first < 0; i++)
    if (h[i]) {
      first = i;
      piv = h[i] - 1;
    }
  free(h);
  sk_err(err, errlen, SK_E_MATRIX_VIEW_SINGULAR, (long long)first, A->label,
         (long long)piv, (long long)nbad, (long long)n);
  (void)op;
  return -1;
}

/* trtri (op 0), lu (1; 2 with pivoting), gesv (3), real or (cx) complex
 * with the kernels ks (serial) and kt (team, teamvector) */
int sk_batched_fac(int op, int cx, const sk_kbody *ks, const sk_kbody *kt,
                   const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  static const char *const known[] = {"A",    "B",    "uplo",  "diag", "pivot",
                                      "ipiv", "info", "check", "mode", NULL};
  char uplo = 'U', diag = 'N';
  int dt = -1, mode;
  int64_t pivot = op >= 2, check = 1;
  const sk_view *A, *B = NULL, *ipiv = NULL, *info = NULL;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      (op == 0 &&
       (sk_dense_char(args, nargs, "uplo", "UL", 0, &uplo, err, errlen) < 0 ||
        sk_dense_char(args, nargs, "diag", "NU", 'N', &diag, err, errlen) < 0)) ||
      !(A = bmat_any(cx, args, nargs, "A", &dt, err, errlen)) ||
      (op == 3 && !(B = bmat_any(cx, args, nargs, "B", &dt, err, errlen))) ||
      (op == 1 && sk_karg_i64(args, nargs, "pivot", 1, 0, &pivot, err, errlen) < 0) ||
      sk_karg_i64(args, nargs, "check", 1, 1, &check, err, errlen) < 0)
    return -1;
  if (op == 1 && pivot) op = 2;
  int64_t batch = nbatch(A), m = A->extent[1], n = A->extent[2];
  int64_t kn = m < n ? m : n;
  if (op == 0 || op == 3) {
    if (m != n) {
      char s[64];
      sk_err(err, errlen, SK_E_VIEW_NEEDS_SQUARE, A->label,
             sk_dense_shape(A, s, sizeof s), op_name[op]);
      return -1;
    }
  }
  if (B && (same_batch(A, "A", B, "B", err, errlen) < 0)) return -1;
  if (B && B->extent[1] != m) {
    char sa[64], sb[64];
    sk_err(err, errlen, SK_E_SHAPES_DO_NOT_MATCH_B, sk_dense_shape(A, sa, sizeof sa),
           sk_dense_shape(B, sb, sizeof sb));
    return -1;
  }
  if (sk_karg_find(args, nargs, "ipiv")) {
    if (!(ipiv = sk_karg_view(args, nargs, "ipiv", 2, err, errlen))) return -1;
    if (ipiv->dtype != SK_I64 || ipiv->extent[0] != batch || ipiv->extent[1] != kn ||
        ipiv->space != A->space) {
      char s[64];
      sk_err(err, errlen, SK_E_IPIV_VIEW_MUST, ipiv->label, (long long)batch,
             (long long)kn, sk_dtypes[ipiv->dtype].name,
             sk_dense_shape(ipiv, s, sizeof s));
      return -1;
    }
  }
  if (sk_karg_find(args, nargs, "info")) {
    if (!(info = sk_karg_view(args, nargs, "info", 1, err, errlen))) return -1;
    if (info->dtype != SK_I64 || info->extent[0] != batch || info->space != A->space) {
      sk_err(err, errlen, SK_E_INFO_VIEW_MUST, info->label, (long long)batch);
      return -1;
    }
  }
  if (sk_batched_mode(args, nargs, m, n, &mode, 0, err, errlen) < 0) return -1;
  sk_view P, I, a, b, dummy;
  int own_p = 0, own_i = 0, rc = 0;
  memset(&P, 0, sizeof P);
  memset(&I, 0, sizeof I);
  memset(&dummy, 0, sizeof dummy);
  if (!B) { /* B unused: a separate allocation keeps the signature alias-free */
    int64_t one[3] = {1, 1, 1};
    if (sk_view_create(&dummy, "unused", dt, 3, one, SK_RIGHT, A->space, 1, NULL, err,
                       errlen) < 0)
      return -1;
  }
  if (op >= 2 && !ipiv) {
    int64_t ext[2] = {batch, kn > 0 ? kn : 1};
    if (sk_view_create(&P, "ipiv", SK_I64, 2, ext, SK_RIGHT, A->space, 1, NULL, err,
                       errlen) < 0)
      return -1;
    own_p = 1;
  } else if (!ipiv) {
    int64_t ext[2] = {1, 1};
    if (sk_view_create(&P, "ipiv", SK_I64, 2, ext, SK_RIGHT, A->space, 1, NULL, err,
                       errlen) < 0)
      return -1;
    own_p = 1;
  } else {
    P = *ipiv;
  }
  if (!info) {
    if (sk_dense_ivec(&I, "info", batch, A->space, err, errlen) < 0) rc = -1;
    else own_i = 1;
  } else {
    I = *info;
  }
  sk_dense_strided(A, &a);
  sk_dense_strided(B ? B : &dummy, &b);
  if (rc == 0) {
    sk_arg ka[] = {sk_arg_view("A", &a),     sk_arg_view("B", &b),
                   sk_arg_view("P", &P),     sk_arg_view("info", &I),
                   sk_arg_i64("op", op),     sk_arg_i64("uplo", uplo),
                   sk_arg_i64("diag", diag), sk_arg_i64("vec", 0)};
    rc = launch(ks, kt, mode, batch, ka, NELEM(ka), err, errlen);
  }
  int64_t nbad = 0;
  if (rc == 0 && batch > 0) {
    sk_result r;
    sk_arg ka[] = {sk_arg_view("info", &I)};
    sk_policy p;
    sk_policy_init(&p, SK_POL_RANGE);
    p.end = batch;
    rc = sk_kbody_launch(&k_count, &p, ka, 1, &r, err, errlen);
    nbad = rc == 0 ? (int64_t)sk_result_f64(&r, 0) : 0;
  }
  if (rc == 0 && nbad > 0 && check) rc = check_info(op, A, &I, nbad, err, errlen);
  if (rc == 0) out->i64 = nbad;
  if (rc == 0 && own_i) rc = sk_kout_view(out, "info", &I, err, errlen), own_i = 0;
  if (rc == 0 && own_p && op >= 2)
    rc = sk_kout_view(out, "ipiv", &P, err, errlen), own_p = 0;
  if (own_i) sk_view_release(&I);
  if (own_p) sk_view_release(&P);
  if (!B) sk_view_release(&dummy);
  return rc;
}

static int btrtri(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                  size_t errlen) {
  return sk_batched_fac(0, 0, &k_fac_s, &k_fac_t, args, nargs, out, err, errlen);
}
static int blu(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen) {
  return sk_batched_fac(1, 0, &k_fac_s, &k_fac_t, args, nargs, out, err, errlen);
}
static int bgesv(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  return sk_batched_fac(3, 0, &k_fac_s, &k_fac_t, args, nargs, out, err, errlen);
}

/* -- pack, unpack ------------------------------------------------------------------
 * SIMD interleaving (seed 000 section 3.2): 'width' matrices per group,
 * element (i, j) of matrix g * width + l at P(g, i, j, l), so a vector
 * register's lanes hold one element of 'width' matrices. The last group
 * is padded with identity matrices (harmless to every operation). */
#define PACK_SIG(VT) "range V=" VT "[3,stride] P=" VT "[4] nb=int64"
static const char *const sig_pack[] = {PACK_SIG("float64"), PACK_SIG("float32"), NULL};
static const sk_kbody k_pack = {.label = "batched.pack",
                                .body = sk_body_batched_pack,
                                .pattern = SK_FOR,
                                .sigs = sig_pack};
static const sk_kbody k_unpack = {.label = "batched.unpack",
                                  .body = sk_body_batched_unpack,
                                  .pattern = SK_FOR,
                                  .sigs = sig_pack};

static int bpack(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                 size_t errlen) {
  static const char *const known[] = {"V", "width", NULL};
  int dt = -1;
  const sk_view *V;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(V = sk_dense_mat(args, nargs, "V", 1, &dt, err, errlen)))
    return -1;
  int64_t w;
  if (sk_karg_i64(args, nargs, "width", 1, dt == SK_F64 ? 8 : 16, &w, err, errlen) < 0)
    return -1;
  if (w < 1 || w > 64) {
    sk_err(err, errlen, SK_E_WIDTH_OUT_RANGE, (long long)w);
    return -1;
  }
  int64_t nb = V->extent[0];
  int64_t ext[4] = {(nb + w - 1) / w, V->extent[1], V->extent[2], w};
  char label[SK_LABEL_MAX];
  snprintf(label, sizeof label, "%.100s (packed)", V->label);
  sk_view P, v;
  if (sk_view_create(&P, label, dt, 4, ext, SK_RIGHT, V->space, 0, NULL, err, errlen) < 0)
    return -1;
  sk_dense_strided(V, &v);
  sk_arg ka[] = {sk_arg_view("V", &v), sk_arg_view("P", &P), sk_arg_i64("nb", nb)};
  if (sk_dense_range(&k_pack, ext[0] * w, ka, NELEM(ka), err, errlen) < 0) {
    sk_view_release(&P);
    return -1;
  }
  return sk_kout_view(out, "P", &P, err, errlen);
}

static int bunpack(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                   size_t errlen) {
  static const char *const known[] = {"P", "V", NULL};
  (void)out;
  int dt = -1;
  const sk_view *P, *V;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(P = sk_karg_view(args, nargs, "P", 4, err, errlen)) ||
      !(V = sk_dense_mat(args, nargs, "V", 1, &dt, err, errlen)))
    return -1;
  if (P->dtype != V->dtype || P->extent[1] != V->extent[1] ||
      P->extent[2] != V->extent[2] || nbatch(P) < V->extent[0] ||
      nbatch(P) - V->extent[0] >= P->extent[3] || P->layout != SK_RIGHT ||
      P->space != V->space) {
    char sp[64], sv[64];
    snprintf(sp, sizeof sp, "%lldx%lldx%lldx%lld", (long long)P->extent[0],
             (long long)P->extent[1], (long long)P->extent[2], (long long)P->extent[3]);
    sk_err(err, errlen, SK_E_P_VIEW_NOT, P->label, sk_dtypes[P->dtype].name, sp, V->label,
           sk_dtypes[V->dtype].name, sk_dense_shape(V, sv, sizeof sv));
    return -1;
  }
  sk_view v;
  sk_dense_strided(V, &v);
  sk_arg ka[] = {sk_arg_view("V", &v), sk_arg_view("P", P),
                 sk_arg_i64("nb", V->extent[0])};
  return sk_dense_range(&k_unpack, V->extent[0], ka, NELEM(ka), err, errlen);
}

/* -- entries ----------------------------------------------------------------------- */
static const sk_kentry e_pack = {"batched.pack", "V [, width]", SK_KRES_NONE, bpack};
static const sk_kentry e_unpack = {"batched.unpack", "P, V", SK_KRES_NONE, bunpack};
static const sk_kentry e_gemm = {
  "batched.gemm", "transA, transB, alpha, A, B, beta, C [, mode, impl, stream]",
  SK_KRES_NONE, bgemm};
static const sk_kentry e_trsm = {
  "batched.trsm", "side, uplo, transA, diag, alpha, A, B [, mode]", SK_KRES_NONE, btrsm};
static const sk_kentry e_trmm = {
  "batched.trmm", "side, uplo, transA, diag, alpha, A, B [, mode]", SK_KRES_NONE, btrmm};
static const sk_kentry e_trtri = {"batched.trtri", "uplo, diag, A [, info, check, mode]",
                                  SK_KRES_I64, btrtri};
static const sk_kentry e_lu = {"batched.lu", "A [, pivot, ipiv, info, check, mode]",
                               SK_KRES_I64, blu};
static const sk_kentry e_gesv = {"batched.gesv", "A, B [, ipiv, info, check, mode]",
                                 SK_KRES_I64, bgesv};

static const sk_kentry *const entries[] = {&e_gemm, &e_trsm, &e_trmm,   &e_trtri, &e_lu,
                                           &e_gesv, &e_pack, &e_unpack, NULL};
static const sk_kbody *const bodies[] = {
  &k_gemm_s, &k_gemm_small, &k_gemm_small_f, &k_gemm_r, &k_gemm_rw, &k_gemm_t,  &k_gemm_p,
  &k_tri_s,  &k_tri_t,      &k_fac_s,        &k_fac_t,  &k_count,   &k_pack,   &k_unpack, NULL};
/* the complex batched gemm (zbatched.c) */
extern const sk_kentry *const sk_zbatched_entries[];
extern const sk_kbody *const sk_zbatched_bodies[];
const sk_kentry *const *const sk_batched_entries[] = {entries, sk_zbatched_entries, NULL};
const sk_kbody *const *const sk_batched_bodies[] = {bodies, sk_zbatched_bodies, NULL};
