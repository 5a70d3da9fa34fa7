/* speck.h: the C API of speck, the one header a host program includes.
 * Two halves:
 *  - the embedding API: a 'speck_vm' is a Lua 5.4 state with the speck
 *    library loaded as the global 'speck'; host arrays are shared with
 *    scripts zero-copy as views;
 *  - the kernel API: runtimes, views and kernels (the same dialect and
 *    back ends as Lua, user kernels and library kernels) with no Lua state.
 * Build with `pkg-config --cflags --libs speck`.
 *
 *   speck_vm *vm = speck_vm_new(NULL, err, sizeof err);
 *   int64_t n = 1000;
 *   speck_vm_set_view(vm, "x", x, "float64", 1, &n, NULL, err, sizeof err);
 *   if (speck_vm_dostring(vm, "speck.parallel_for('f', x:extent(0), {x = x},"
 *                         " 'x(i) = 2*x(i);')", err, sizeof err) != 0)
 *     fprintf(stderr, "%s\n", err);
 *   speck_vm_free(vm);
 *
 * Every call returns a status: 0 (SPECK_OK) or a negative SPECK_E* code.
 * Nothing here aborts, exits or prints. A VM is used by one thread at a
 * time; distinct VMs share the process' back ends and kernel cache.
 */
#ifndef SPECK_H
#define SPECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the version (SPECK_VERSION, SPECK_VERSION_MAJOR, ...) */
#include "core/version.h"

/* status codes */
#define SPECK_OK      0
#define SPECK_ERUN    (-1) /* a Lua error while running */
#define SPECK_ESYNTAX (-2) /* the chunk does not compile */
#define SPECK_EMEM    (-3) /* out of memory */
#define SPECK_EFILE   (-4) /* the script cannot be opened or read */
#define SPECK_EARG    (-5) /* a bad argument to the API itself */

#ifndef lua_h
typedef struct lua_State lua_State;
#endif

typedef struct speck_vm speck_vm;

/* The version of the library the program runs with ("0.1.0"), which may
 * differ from the SPECK_VERSION it was compiled against. */
const char *speck_version(void);

/* Settings for speck_vm_new; zero-initialise (speck_options o = {0}) so
 * that fields added later keep their defaults. A NULL 'space', 'threads'
 * <= 0 and 'device' 0 leave the choice to the environment (SPECK_SPACE,
 * SPECK_THREADS / OMP_NUM_THREADS) or to speck's defaults. */
typedef struct speck_options {
  const char *space; /* a back end's name: "serial", "openmp", ... (speck --info) */
  int threads;
  int device;
  void *reserved_[8]; /* room to grow; keep zero */
} speck_options;

/* A new VM (a Lua state with the standard libraries and speck loaded as the
 * global 'speck', initialised with 'opt' when it sets anything), or NULL
 * with the reason in 'err' (may be NULL) when speck cannot be loaded or
 * initialised. 'opt' may be NULL. */
speck_vm *speck_vm_new(const speck_options *opt, char *err, size_t errlen);

/* Run a script file / a string. On an error return a negative status and
 * copy the message (with a traceback) into 'err' when 'err' is not NULL;
 * the message is cut to 'errlen' - 1 bytes and always NUL-terminated. */
int speck_vm_dofile(speck_vm *vm, const char *path, char *err, size_t errlen);
int speck_vm_dostring(speck_vm *vm, const char *code, char *err, size_t errlen);

/* Bind the global 'global' to a view of the host memory 'data' without
 * copying it: 'dtype' as in speck ("float64", "int32", ...), 'rank' 0..8,
 * 'extents' ('rank' values), 'layout' "right" (row major, NULL means the
 * default) or "left". The memory stays the host's: it must outlive every
 * use of the view in scripts and is never freed by speck. The view's label
 * is 'global'. */
int speck_vm_set_view(speck_vm *vm, const char *global, void *data, const char *dtype,
                      int rank, const int64_t *extents, const char *layout, char *err,
                      size_t errlen);

/* The VM's Lua state, for anything the calls above do not cover. */
lua_State *speck_vm_lua(speck_vm *vm);

/* Where a VM's output goes, for hosts that show it themselves (a
 * notebook kernel): after speck_vm_set_output, the VM's 'print' and
 * 'io.write' call 'fn' with SPECK_OUTPUT_STDOUT and the bytes they would
 * have written (print's line with its newline), on the thread that runs
 * the chunk. Long loads and library calls report their progress to 'fn'
 * too, as SPECK_OUTPUT_PROGRESS with the text "done total elapsed
 * finished what" (numbers as %.17g, finished 0 or 1; rate-limited as on
 * a terminal: speck.progress sets the timing; mode "auto" reports), in
 * place of the bar on stderr -- one hook a process: the VM that set it
 * last. Scripts reach 'fn' themselves through the registry's
 * "speck.output" function: speck.output(stream, text), streams from
 * SPECK_OUTPUT_HOST up being the host's own protocol. 'fn' NULL restores
 * the standard output and the bar. */
#define SPECK_OUTPUT_STDOUT   1
#define SPECK_OUTPUT_STDERR   2
#define SPECK_OUTPUT_PROGRESS 3
#define SPECK_OUTPUT_HOST     16
typedef void (*speck_output_fn)(void *ud, int stream, const char *data, size_t len);
int speck_vm_set_output(speck_vm *vm, speck_output_fn fn, void *ud);

/* Stop the chunk the VM runs (from another thread or a signal handler;
 * async-signal-safe): running host kernels stop at their next chunk
 * boundary, Lua code at its next instruction, and the run returns
 * SPECK_ERUN with a message saying "interrupted". Later launches fail
 * too until speck_vm_interrupt_clear, which the host calls (on the VM's
 * thread) before its next run. */
int speck_vm_interrupt(speck_vm *vm);
void speck_vm_interrupt_clear(speck_vm *vm);

/* Close the Lua state (collecting its views) and free the VM; NULL is a
 * no-op. */
void speck_vm_free(speck_vm *vm);

/* -- the kernel API (no Lua state) -----------------------------------------
 * A host program runs kernels written in the dialect (SPEC.md "The kernel
 * dialect") and library kernels by name. Every call returns 0 or a
 * negative SPECK_E* code and fills 'err' (NUL-terminated, may be NULL);
 * messages name the call and the object ("speck_run_for 'axpy': view 'x'
 * (capture 'x') ..."). A bad input never crashes
 * the program nor loses a view's data. */
typedef struct speck_runtime speck_runtime;
typedef struct speck_view speck_view;

/* The process' runtime: 'space' a back end's name, "serial", "openmp", ...
 * as speck --info lists them (NULL: SPECK_SPACE or the default), 'threads' (0: SPECK_THREADS or the core
 * count). Several opens share the one runtime when they agree; the last
 * close finalises what the first open initialised. */
speck_runtime *speck_runtime_open(const char *space, int threads, char *err,
                                  size_t errlen);
void speck_runtime_close(speck_runtime *rt);
/* the active back end's name ("openmp") */
const char *speck_runtime_space(const speck_runtime *rt);
/* wait for every kernel and copy the runtime launched */
int speck_fence(speck_runtime *rt, char *err, size_t errlen);

/* A new zero-filled view: 'dtype' "float64" | "float32" | "int64" | ...,
 * 'rank' 0..8 extents, in memory space 'space' ("host", or one a back
 * end brings: its own name and those of SPEC.md's memory spaces; NULL:
 * the runtime's default) with that space's default layout. */
speck_view *speck_view_new(speck_runtime *rt, const char *label, const char *dtype,
                           int rank, const int64_t *extents, const char *space, char *err,
                           size_t errlen);
/* A view of the host's memory 'host_data' (layout right), never freed by
 * speck: it must outlive the view's uses. */
speck_view *speck_view_wrap(speck_runtime *rt, const char *label, const char *dtype,
                            int rank, const int64_t *extents, void *host_data, char *err,
                            size_t errlen);
void *speck_view_data(speck_view *v);
int64_t speck_view_extent(const speck_view *v, int dim);
/* copy between any spaces and layouts of equal dtype and extents */
int speck_deep_copy(speck_view *dst, const speck_view *src, char *err, size_t errlen);
void speck_view_release(speck_view *v);

/* A kernel argument (capture): a view or a scalar, by the name the body
 * uses; or a string (library kernels' options: a mode "T", a file name;
 * never a capture of a body). */
enum { SPECK_ARG_VIEW, SPECK_ARG_F64, SPECK_ARG_I64, SPECK_ARG_STR };
typedef struct speck_arg {
  const char *name;
  int kind; /* SPECK_ARG_* */
  speck_view *view;
  double f64;
  int64_t i64;
  const char *str;
} speck_arg;
speck_arg speck_arg_view(const char *name, speck_view *v);
speck_arg speck_arg_f64(const char *name, double x);
speck_arg speck_arg_i64(const char *name, int64_t x);
speck_arg speck_arg_str(const char *name, const char *s);

/* Run 'body' for i in [begin, end) with 'args' on the runtime's back end
 * (compiled on first use, cached like Lua's kernels). */
int speck_run_for(speck_runtime *rt, const char *label, int64_t begin, int64_t end,
                  const speck_arg *args, int nargs, const char *body, char *err,
                  size_t errlen);
/* ... accumulating into 'acc' with 'reducer' ("sum" (NULL), "prod",
 * "min", "max", "land", "lor", "band", "bor"; minloc/maxloc give the
 * value) in float64; the joined value lands in 'result' (may be NULL). */
int speck_run_reduce(speck_runtime *rt, const char *label, int64_t begin, int64_t end,
                     const speck_arg *args, int nargs, const char *body,
                     const char *reducer, double *result, char *err, size_t errlen);
/* an exclusive or inclusive scan in float64: "if (final) y(i) = acc;
 * acc += x(i);"; the total lands in 'total' (may be NULL) */
int speck_run_scan(speck_runtime *rt, const char *label, int64_t begin, int64_t end,
                   const speck_arg *args, int nargs, const char *body, double *total,
                   char *err, size_t errlen);
/* A library kernel by name ("blas.dot", "blas.axpy", ...; the names and
 * arguments of SPEC.md's modules without the "speck." prefix); its
 * numeric result (if any) lands in 'result' (may be NULL). */
int speck_call(speck_runtime *rt, const char *kernel, const speck_arg *args, int nargs,
               double *result, char *err, size_t errlen);
/* An output of a library kernel that makes new objects ("sparse.spgemm"
 * returns the views C_rowptr, C_colidx, C_values; "sparse.cg" numbers):
 * by name, a view the caller now owns (speck_view_release) or a number. */
typedef struct speck_out {
  const char *name; /* a static string */
  speck_view *view; /* NULL: a number */
  double value;
} speck_out;
/* speck_call, with the kernel's outputs in 'out' ('maxout' entries;
 * '*nout' set). A kernel with more outputs than 'maxout' is an error and
 * leaves none. */
int speck_call_out(speck_runtime *rt, const char *kernel, const speck_arg *args,
                   int nargs, double *result, speck_out *out, int maxout, int *nout,
                   char *err, size_t errlen);

/* Ask every running host kernel to stop (the CLI calls it on Ctrl-C): at
 * its next chunk boundary, or on the next back edge of a loop in its body
 * (an endless iteration stops too). Those launches -- or, when none runs,
 * the next one -- fail with the message "interrupted", and every view
 * keeps what was written; a launch that reported it answers the request
 * (later launches run), as does speck_interrupt_clear. Returns 1 when a
 * host launch was running (it will stop), else 0. Safe in a signal
 * handler (atomic loads and stores). On a GPU the loops in bodies end
 * and the launch or fence waiting for the kernel fails alike. */
int speck_interrupt(void);
void speck_interrupt_clear(void);

#ifdef __cplusplus
}
#endif

#endif
