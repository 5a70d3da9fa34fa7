/* kernels.h: the precompiled kernel library: its registry and the C API
 * of its drivers.
 *
 * A library kernel is written once in the dialect (an 'sk_kbody': a body,
 * its pattern and the names of its captures); the bodies live in the
 * dialect files (.sk) of kernels/<area>/ beside their drivers, embedded by the
 * build as constants sk_body_<area>_<name> (kbodies.h; dialect/README.md
 * says how a .sk file is written). `make` compiles the host
 * build of each body for its common signatures with gcc -O3 into libspeck
 * (scripts/kgen.c generates the sources); at run time those entries seed
 * the JIT cache, so a library launch and a user launch are looked up,
 * timed and reported alike, and any other signature (another dtype, a
 * strided view, a GPU) is compiled from the same text by the JIT (the device compiler
 * on the GPU, cached on disk). An entry ('sk_kentry') is what callers
 * name: "blas.dot" -> a driver that checks its arguments and calls sk_run
 * once or in phases.
 */
#ifndef SK_KERNELS_H
#define SK_KERNELS_H

#include "../exec/exec.h"

/* -- bodies ----------------------------------------------------------------
 * A body is launched with its captures by name. Its precompiled
 * signatures are either the default (blas1's: 'views' and 'scalars'
 * name up to four rank-1 views and float64 scalars; variants: every view
 * float64 or every view float32, layout right or left, a range policy)
 * or listed explicitly in 'sigs', one string per signature:
 *
 *   "team rowptr=int64[1] colidx=int32[1] values=float64[1]
 *         x=float64[2,left] alpha=float64 n=int64"
 *
 * the policy kind first (range, team, mdrange2 .. mdrange6), then each
 * capture as name=dtype (a scalar) or name=dtype[rank] / [rank,layout]
 * (a view in host memory; layout right unless 'left' or 'stride' is given
 * -- the dense kernels take every matrix as 'stride'; a trailing
 * '!' marks views that share one allocation, as A and B do in A*A). Any
 * other signature is JIT-compiled from the same text (the device compiler on a GPU). */
#define SK_KBODY_MAXCAP 4
typedef struct sk_kbody {
  const char *label;                      /* "blas.dot" */
  const char *body;                       /* dialect source */
  int pattern;                            /* SK_FOR, SK_REDUCE, SK_SCAN */
  int red_op;                             /* reduce: SK_RED_* (float64) */
  const char *views[SK_KBODY_MAXCAP + 1]; /* NULL-terminated */
  const char *scalars[SK_KBODY_MAXCAP + 1];
  const char *const *sigs; /* NULL-terminated, or NULL */
  const char *prelude;     /* helper functions, or NULL */
  /* reducers "sum:int64 max:float64" (NULL: one 'red_op' in float64);
   * a scan: its accumulator's dtype "int64" (NULL: float64) */
  const char *reds;
  /* sk_kbody_run's range: the policy's grain (fewest indices worth a
   * thread; 0: none) */
  int64_t grain;
  /* 1: a body made at run time that lives, unchanged, as long as the
   * process (kernels/sparse/dia.c's texts per offset set): its launches
   * are kept for sk_run_again as the library's constant bodies' are */
  int lasting;
  /* 1: a host back end's fast path (its driver runs it only where the
   * back end's code is the host's): sk_kbody_compile refuses it for a
   * device, so the compile checks of every body leave it out */
  int host_only;
} sk_kbody;

/* Run 'kb' over [0, n) with views 'v' and scalars 's' (in the order of
 * its name lists) on the active back end; 'res' may be NULL. */
/* Run 'kb' over the range [b, e) with captures 'args' by name; an empty
 * range launches nothing ('res', if given, zeroed). */
int sk_kbody_range(const sk_kbody *kb, int64_t b, int64_t e, const sk_arg *args, int nargs,
                   sk_result *res, char *err, size_t errlen);
int sk_kbody_run(const sk_kbody *kb, int64_t n, const sk_view *const *v, const double *s,
                 sk_result *res, char *err, size_t errlen);
/* Run 'kb' with policy 'p' and captures 'args' by name (any signature);
 * 'res' may be NULL. */
int sk_kbody_launch(const sk_kbody *kb, const sk_policy *p, const sk_arg *args, int nargs,
                    sk_result *res, char *err, size_t errlen);
/* The launch description of 'kb' ('d' points at kb's strings; 'b' the back
 * end, NULL: the active one). Returns < 0 on a malformed 'reds'. */
int sk_kbody_desc(const sk_kbody *kb, const sk_backend *b, sk_kdesc *d, char *err,
                  size_t errlen);

/* Compile variant 'sig' (sk_kbody_nvariants: its signatures, else the
 * defaults) of 'kb' for back end 'b' without launching (views in b's
 * space; device compile checks on a machine without a GPU). */
int sk_kbody_compile(const sk_kbody *kb, int sig, const sk_backend *b, char *err,
                     size_t errlen);
/* The same for an image back end's architecture 'arch' ("sm_90"; NULL:
 * its device's): speck-kgen --images makes the shelf of device images so. */
int sk_kbody_compile_arch(const sk_kbody *kb, int sig, const sk_backend *b, const char *arch,
                          char *err, size_t errlen);
/* the library's body number 'i' (0..), NULL past the last */
const sk_kbody *sk_kbody_at(int i);
/* how many precompiled variants 'kb' has: its signatures, else the
 * defaults' (rank-1 views, float64 and float32, layouts right and left),
 * the 'sig' numbers sk_kbody_compile takes */
int sk_kbody_nvariants(const sk_kbody *kb);

/* -- entries ------------------------------------------------------------- */
enum { SK_KRES_NONE, SK_KRES_F64, SK_KRES_I64 };

/* A named output of a driver: a view it created (the receiver owns its
 * allocation reference) or a number. */
#define SK_KOUT_MAX 8
typedef struct sk_kout {
  const char *name; /* a static string */
  int is_view;
  sk_view view;
  double num;
} sk_kout;

/* A driver's result: what 'result' says is set, and 'nout' outputs. */
typedef struct sk_kvalue {
  double f64;
  int64_t i64;
  int nout;
  sk_kout out[SK_KOUT_MAX];
} sk_kvalue;

/* Hand view 'v' (its allocation reference moves) / number 'x' out under
 * 'name'; -1 with a message when 'o' is full (the view is released). */
int sk_kout_view(sk_kvalue *o, const char *name, sk_view *v, char *err, size_t errlen);
/* a reader's failure after its file was read (a matrix or graph too large
 * to build): prefix 'err' with the file's name, "'path': ...". Returns -1. */
int sk_kerr_file(char *err, size_t errlen, const char *path);
int sk_kout_num(sk_kvalue *o, const char *name, double x, char *err, size_t errlen);
/* release every output view of 'o' (an error after some were made) */
void sk_kout_release(sk_kvalue *o);

typedef struct sk_kentry {
  const char *name;  /* "blas.dot" */
  const char *usage; /* "x, y (rank-1 views)" for messages */
  int result;        /* SK_KRES_* */
  /* args by name (any order); messages without the entry's name; 'out'
   * is zeroed by the caller (no outputs). NULL: the entry is the 'e' of
   * an sk_kentry_pos. */
  int (*call)(const sk_arg *args, int nargs, sk_kvalue *out, char *err, size_t errlen);
} sk_kentry;

/* An entry whose driver takes its arguments by position: 'params' its
 * argument names (NULL-terminated, at most SK_KPOS_MAX), pos[i] the
 * argument params[i] or NULL when absent. A call by name is mapped to it
 * (an unknown name refused as sk_karg_known does); a front end that binds
 * the names once calls it directly (sk_kernel_call_pos): no look-up by
 * name. Listed by the address of its 'e' (whose 'call' is NULL). */
#define SK_KPOS_MAX 8
typedef struct sk_kentry_pos {
  sk_kentry e;
  const char *const *params;
  int (*callp)(const sk_arg *const *pos, sk_kvalue *out, char *err, size_t errlen);
} sk_kentry_pos;
/* 'e' as a positional entry, NULL when it is not one */
const sk_kentry_pos *sk_kentry_positional(const sk_kentry *e);

/* the entry named 'name', NULL if none */
const sk_kentry *sk_kernel_find(const char *name);
/* Call entry 'name': seeds the precompiled kernels on first use; errors
 * name the entry ("blas.dot: ..."), an unknown name lists the family.
 * Output views land in 'out' (owned by the caller then); with 'out' NULL
 * they are released. On an error no output is left. */
int sk_kernel_call(const char *name, const sk_arg *args, int nargs, sk_kvalue *out,
                   int *result_kind, char *err, size_t errlen);
/* sk_kernel_call whose errors are the entry's message alone (its id the
 * thread's last, sk_err_last()): the caller names the function */
int sk_kernel_call_raw(const char *name, const sk_arg *args, int nargs, sk_kvalue *out,
                       int *result_kind, char *err, size_t errlen);
/* sk_kernel_call_raw of positional entry 'e' with its arguments by
 * position (see sk_kentry_pos) */
int sk_kernel_call_pos(const sk_kentry_pos *e, const sk_arg *const *pos, sk_kvalue *out,
                       int *result_kind, char *err, size_t errlen);
/* every entry, NULL-terminated */
const sk_kentry *const *sk_kernel_entries(void);

/* -- argument helpers for drivers ----------------------------------------- */
/* the view / number argument named 'name' (NULL / -1 with a message when
 * missing or of the wrong kind) */
const sk_view *sk_karg_view(const sk_arg *args, int nargs, const char *name, int rank,
                            char *err, size_t errlen);
/* sk_karg_view / sk_karg_f64 of argument 'a' (NULL: absent) named 'name' */
const sk_view *sk_kpos_view(const sk_arg *a, const char *name, int rank, char *err,
                            size_t errlen);
int sk_kpos_f64(const sk_arg *a, const char *name, double *x, char *err, size_t errlen);
/* the argument named 'name', NULL when absent */
const sk_arg *sk_karg_find(const sk_arg *args, int nargs, const char *name);
/* the string argument 'name' (NULL with a message when missing or not a
 * string); with 'dflt' non-NULL a missing one gives 'dflt' */
const char *sk_karg_str(const sk_arg *args, int nargs, const char *name, const char *dflt,
                        char *err, size_t errlen);
/* an integer argument (a float must be integral); 'dflt' when absent and
 * 'has_dflt' */
int sk_karg_i64(const sk_arg *args, int nargs, const char *name, int has_dflt,
                int64_t dflt, int64_t *x, char *err, size_t errlen);
int sk_karg_f64(const sk_arg *args, int nargs, const char *name, double *x, char *err,
                size_t errlen);
/* refuse arguments whose name is not in the NULL-terminated 'known' */
int sk_karg_known(const sk_arg *args, int nargs, const char *const *known, char *err,
                  size_t errlen);

/* -- texts by name -------------------------------------------------------- */
/* The text of the .sk files of kernels/<area>/ named 'name' ("dist_jacobi_apply": the
 * constant sk_body_dist_jacobi_apply), NULL if none: how the Lua drivers
 * of stdlib/ get their bodies (speck.core's kernel_text). */
const char *sk_kernel_text(const char *name);

/* -- precompiled code (the generated table; scripts/kgen.c) --------------- */
typedef struct sk_kpre {
  void *fn, *init, *join, *layout;
  uint64_t hash; /* key hash the generator saw */
} sk_kpre;
extern const sk_kpre sk_kpre_table[];
extern const int sk_kpre_count;
/* 1 if this CPU runs the instruction set the table was compiled for */
int sk_kpre_cpu_ok(void);

/* The spec of precompiled variant 'idx' (0.. while it returns 1; 0 past
 * the end, -1 on error): shared by the generator and the seeding, the
 * one enumeration of every body's signatures (see sk_kbody). */
int sk_kpre_variant(int idx, sk_spec_store *st, char *err, size_t errlen);
/* Seed the JIT cache with the table (once per process). */
void sk_kernels_seed(void);

/* -- families (one registration list per folder) --------------------------- */
extern const sk_kentry *const sk_blas_entries[];
extern const sk_kbody *const sk_blas_bodies[];
extern const sk_kentry *const sk_blas3_entries[];
extern const sk_kbody *const sk_blas3_bodies[];
extern const sk_kentry *const sk_zblas_entries[]; /* complex BLAS (zblas.c) */
extern const sk_kbody *const sk_zblas_bodies[];
extern const sk_kentry *const sk_zlapack_entries[]; /* complex trsm potrf getrf */
extern const sk_kbody *const sk_zlapack_bodies[];
extern const sk_kentry *const sk_lapack_entries[];
extern const sk_kbody *const sk_lapack_bodies[];
/* a folder of several files exports one list per file */
extern const sk_kentry *const *const sk_sparse_entries[];
extern const sk_kbody *const *const sk_sparse_bodies[];
extern const sk_kentry *const *const sk_batched_entries[];
extern const sk_kbody *const *const sk_batched_bodies[];
extern const sk_kentry *const *const sk_graph_entries[];
extern const sk_kbody *const *const sk_graph_bodies[];
extern const sk_kentry *const *const sk_solve_entries[];
extern const sk_kbody *const *const sk_solve_bodies[];
extern const sk_kentry *const sk_sort_entries[];
extern const sk_kbody *const sk_sort_bodies[];
/* kernels/task/chol_ls.c: the sparse Cholesky's level-set bodies */
extern const sk_kbody *const sk_chol_bodies[];
/* kernels/dist/cg.c: speck.dist's fused CG sweep */
extern const sk_kbody *const sk_dist_bodies[];
/* kernels/dist/bfs.c: speck.dist's BFS driver's bodies */
extern const sk_kbody *const sk_dist_bfs_bodies[];
/* kernels/dist/cc.c: speck.dist's components driver's and halo exchange's bodies */
extern const sk_kbody *const sk_dist_cc_bodies[];
/* kernels/dist/pr.c: speck.dist's PageRank driver's bodies */
extern const sk_kbody *const sk_dist_pr_bodies[];

#endif
