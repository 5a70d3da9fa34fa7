/* kernels.h: the precompiled kernel library: its registry and the C API
 * of its drivers.
 *
 * A library kernel is written once in the dialect (an 'sk_kbody': a body,
 * its pattern and the names of its captures). `make` compiles the host
 * build of each body for its common signatures with gcc -O3 into libspeck
 * (scripts/kgen.c generates the sources); at run time those entries seed
 * the JIT cache, so a library launch and a user launch are looked up,
 * timed and reported alike, and any other signature (another dtype, a
 * strided view, a GPU) is compiled from the same text by the JIT (NVRTC
 * on the GPU, cached on disk). An entry ('sk_kentry') is what callers
 * name: "blas.dot" -> a driver that checks its arguments and calls sk_run
 * once or in phases.
 */
#ifndef SK_KERNELS_H
#define SK_KERNELS_H

#include "../exec/exec.h"

/* -- bodies ----------------------------------------------------------------
 * A body's captures: up to four rank-1 views (any dtype) and up to four
 * float64 scalars. Precompiled signatures: every view float64 or every
 * view float32, layout right or left, host memory. */
#define SK_KBODY_MAXCAP 4
typedef struct sk_kbody {
  const char *label;                       /* "blas.dot" */
  const char *body;                        /* dialect source */
  int pattern;                             /* SK_FOR, SK_REDUCE */
  int red_op;                              /* reduce: SK_RED_* (float64) */
  const char *views[SK_KBODY_MAXCAP + 1];  /* NULL-terminated */
  const char *scalars[SK_KBODY_MAXCAP + 1];
} sk_kbody;

/* Run 'kb' over [0, n) with views 'v' and scalars 's' (in the order of
 * its name lists) on the active back end; 'res' may be NULL. */
int sk_kbody_run(const sk_kbody *kb, int64_t n, const sk_view *const *v,
                 const double *s, sk_result *res, char *err, size_t errlen);

/* -- entries ------------------------------------------------------------- */
enum { SK_KRES_NONE, SK_KRES_F64, SK_KRES_I64 };

/* A driver's result: what 'result' says is set. */
typedef struct sk_kvalue {
  double f64;
  int64_t i64;
} sk_kvalue;

typedef struct sk_kentry {
  const char *name;                 /* "blas.dot" */
  const char *usage;                /* "x, y (rank-1 views)" for messages */
  int result;                       /* SK_KRES_* */
  /* args by name (any order); messages without the entry's name */
  int (*call)(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
              size_t errlen);
} sk_kentry;

/* the entry named 'name', NULL if none */
const sk_kentry *sk_kernel_find(const char *name);
/* Call entry 'name': seeds the precompiled kernels on first use; errors
 * name the entry ("blas.dot: ..."), an unknown name lists the family. */
int sk_kernel_call(const char *name, const sk_arg *args, int nargs,
                   sk_kvalue *out, int *result_kind, char *err,
                   size_t errlen);
/* every entry, NULL-terminated */
const sk_kentry *const *sk_kernel_entries(void);

/* -- argument helpers for drivers ----------------------------------------- */
/* the view / number argument named 'name' (NULL / -1 with a message when
 * missing or of the wrong kind) */
const sk_view *sk_karg_view(const sk_arg *args, int nargs, const char *name,
                            int rank, char *err, size_t errlen);
int sk_karg_f64(const sk_arg *args, int nargs, const char *name, double *x,
                char *err, size_t errlen);
/* refuse arguments whose name is not in the NULL-terminated 'known' */
int sk_karg_known(const sk_arg *args, int nargs, const char *const *known,
                  char *err, size_t errlen);

/* -- precompiled code (the generated table; scripts/kgen.c) --------------- */
typedef struct sk_kpre {
  void *fn, *init, *join, *layout;
  uint64_t hash;                    /* key hash the generator saw */
} sk_kpre;
extern const sk_kpre sk_kpre_table[];
extern const int sk_kpre_count;
/* 1 if this CPU runs the instruction set the table was compiled for */
int sk_kpre_cpu_ok(void);

/* The spec of precompiled variant 'idx' (0.. while it returns 1; 0 past
 * the end, -1 on error): shared by the generator and the seeding. */
int sk_kpre_variant(int idx, sk_spec_store *st, char *err, size_t errlen);
/* Seed the JIT cache with the table (once per process). */
void sk_kernels_seed(void);

/* -- families (one registration list per folder) --------------------------- */
extern const sk_kentry *const sk_blas_entries[];
extern const sk_kbody *const sk_blas_bodies[];

#endif
