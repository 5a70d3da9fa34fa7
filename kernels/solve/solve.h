/* solve.h: the solvers' internal interface (kernels/solve/): the
 * operator and the preconditioner of a Krylov method as driver
 * arguments, and the bodies each file registers.
 *
 * The operator is a CRS matrix (A_rowptr, A_colidx, A_values, A_ncols;
 * see sparse.h) or a user body: op_body (a dialect parallel_for body over
 * i in [0, op_n) that writes y(i) from x), op_n, and its captures as
 * arguments named op_<capture>. The preconditioner is named by 'precond':
 *   "none" (or absent)
 *   "jacobi"   M_dinv (omega / diagonal, from solve.jacobi)
 *   "gs"       M_rowptr, M_colidx, M_values, M_ncols (the matrix), M_dinv
 *              (1 / diagonal), M_omega, M_sweeps, M_symmetric, and for the
 *              multicolor form M_perm (int64 rows ordered by color, the
 *              matrix's space) and M_colorptr (int64, host, ncolors + 1)
 *   "body"     M_body (a body writing z(i) from rv), M_n, captures M_<name>
 *   "callback" the function the host program set with
 *              sk_solve_set_callback (the Lua binding's objects)
 */
#ifndef SK_SOLVE_H
#define SK_SOLVE_H

#include "../sparse/sparse.h"

#define NELEM(a)     ((int)(sizeof(a) / sizeof((a)[0])))
#define R1(name, dt) " " name "=" dt "[1]"
#define R2(name, dt) " " name "=" dt "[2]"

/* -- user callbacks ----------------------------------------------------------
 * z = M^-1 r by the host program (the Lua binding sets one around a call
 * of a Krylov entry with precond "callback"); 0, or -1 with a message. */
typedef int (*sk_solve_cb)(void *ctx, const sk_view *r, const sk_view *z, char *err,
                           size_t errlen);
/* set (fn NULL: clear) this thread's callback */
void sk_solve_set_callback(sk_solve_cb fn, void *ctx);
/* this thread's callback (NULL: none), to restore after a nested call */
void sk_solve_get_callback(sk_solve_cb *fn, void **ctx);

/* -- operators ---------------------------------------------------------------- */
#define SK_SOLVE_MAXCAP 24
typedef struct sk_solve_body {
  const char *body;
  int64_t n;
  int ncap;
  sk_arg caps[SK_SOLVE_MAXCAP];
  char names[SK_SOLVE_MAXCAP][48];
} sk_solve_body;

typedef struct sk_solve_op {
  int is_body;
  sk_csr A;
  sk_solve_body ub;
  int64_t n;
} sk_solve_op;

/* the operator of 'args' (matrix "A" or body "op_"); messages name it */
int sk_solve_op_arg(const sk_arg *args, int nargs, sk_solve_op *op, char *err,
                    size_t errlen);
/* y = A x */
int sk_solve_op_apply(const sk_solve_op *op, const sk_view *x, const sk_view *y, char *err,
                      size_t errlen);

/* -- preconditioners ----------------------------------------------------------- */
enum { SK_PC_NONE, SK_PC_JACOBI, SK_PC_GS, SK_PC_BODY, SK_PC_CALLBACK };
typedef struct sk_precond {
  int kind;
  int64_t n;           /* rows (-1: unknown, a callback's) */
  const sk_view *dinv; /* jacobi, gs */
  sk_csr M;            /* gs */
  const sk_view *perm, *colorptr;
  double omega;
  int64_t sweeps;
  int symmetric;
  sk_solve_body ub; /* body */
  sk_solve_cb cb;   /* callback */
  void *cb_ctx;
} sk_precond;

/* the preconditioner of 'args' (see above); the argument names it may use
 * are appended to 'known' by the caller (SK_SOLVE_PC_ARGS) */
#define SK_SOLVE_PC_ARGS                                                            \
  "precond", "M_dinv", "M_rowptr", "M_colidx", "M_values", "M_ncols", "M_omega", \
    "M_sweeps", "M_symmetric", "M_perm", "M_colorptr", "M_body", "M_n"
int sk_precond_arg(const sk_arg *args, int nargs, sk_precond *P, char *err,
                   size_t errlen);
/* z = M^-1 r (z a different view of r's length) */
int sk_precond_apply(const sk_precond *P, const sk_view *r, const sk_view *z, char *err,
                     size_t errlen);
/* a name for messages: "jacobi" */
const char *sk_precond_name(const sk_precond *P);
/* refuse arguments neither in 'known' nor captures of a body ("op_*" with
 * op_body, "M_*" with M_body) */
int sk_solve_known(const sk_arg *args, int nargs, const char *const *known, char *err,
                   size_t errlen);

/* -- shared bodies (krylov.c) ----------------------------------------------------- */
extern const sk_kbody sk_solve_k_zero, sk_solve_k_copy;
/* a launch of 'kb' over [b, e) */
int sk_solve_range(const sk_kbody *kb, int64_t b, int64_t e, const sk_arg *args, int nargs,
                   sk_result *res, char *err, size_t errlen);

/* -- families ------------------------------------------------------------------------ */
extern const sk_kentry *const sk_krylov_entries[], *const sk_precond_entries[];
extern const sk_kbody *const sk_krylov_bodies[], *const sk_precond_bodies[];
extern const sk_kentry *const sk_lu_entries[]; /* lu.c */
extern const sk_kbody *const sk_lu_bodies[];
extern const sk_kentry *const *const sk_solve_entries[];
extern const sk_kbody *const *const sk_solve_bodies[];

#endif
