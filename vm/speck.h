/* speck.h: the C embedding API of speck, the one header a host program
 * includes. A 'speck_vm' is a Lua 5.4 state with the speck library loaded
 * as the global 'speck'; host arrays are shared with scripts zero-copy as
 * views. Link with libspeck (and Lua 5.4).
 *
 *   speck_vm *vm = speck_vm_new(NULL);
 *   int64_t n = 1000;
 *   speck_vm_set_view(vm, "x", x, "float64", 1, &n, NULL);
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

#define SPECK_VERSION "0.1.0"
#define SPECK_VERSION_MAJOR 0
#define SPECK_VERSION_MINOR 1
#define SPECK_VERSION_PATCH 0

/* status codes */
#define SPECK_OK 0
#define SPECK_ERUN (-1)     /* a Lua error while running */
#define SPECK_ESYNTAX (-2)  /* the chunk does not compile */
#define SPECK_EMEM (-3)     /* out of memory */
#define SPECK_EFILE (-4)    /* the script cannot be opened or read */
#define SPECK_EARG (-5)     /* a bad argument to the API itself */

#ifndef lua_h
typedef struct lua_State lua_State;
#endif

typedef struct speck_vm speck_vm;

/* Settings for speck_vm_new; zero-initialise (speck_options o = {0}) so
 * that fields added later keep their defaults. A NULL 'space', 'threads'
 * <= 0 and 'device' 0 leave the choice to the environment (SPECK_SPACE,
 * SPECK_THREADS / OMP_NUM_THREADS) or to speck's defaults. */
typedef struct speck_options {
  const char *space;  /* "serial" | "openmp" | "cuda" */
  int threads;
  int device;
  void *reserved_[8]; /* room to grow; keep zero */
} speck_options;

/* A new VM (a Lua state with the standard libraries and speck loaded as the
 * global 'speck', initialised with 'opt' when it sets anything), or NULL
 * when speck cannot be loaded or initialised. 'opt' may be NULL. */
speck_vm *speck_vm_new(const speck_options *opt);

/* Run a script file / a string. On an error return a negative status and
 * copy the message (with a traceback) into 'err' when 'err' is not NULL;
 * the message is cut to 'errlen' - 1 bytes and always NUL-terminated. */
int speck_vm_dofile(speck_vm *vm, const char *path, char *err, size_t errlen);
int speck_vm_dostring(speck_vm *vm, const char *code, char *err,
                      size_t errlen);

/* Bind the global 'global' to a view of the host memory 'data' without
 * copying it: 'dtype' as in speck ("float64", "int32", ...), 'rank' 0..8,
 * 'extents' ('rank' values), 'layout' "right" (row major, NULL means the
 * default) or "left". The memory stays the host's: it must outlive every
 * use of the view in scripts and is never freed by speck. The view's label
 * is 'global'. */
int speck_vm_set_view(speck_vm *vm, const char *global, void *data,
                      const char *dtype, int rank, const int64_t *extents,
                      const char *layout);

/* The VM's Lua state, for anything the calls above do not cover. */
lua_State *speck_vm_lua(speck_vm *vm);

/* Close the Lua state (collecting its views) and free the VM; NULL is a
 * no-op. */
void speck_vm_free(speck_vm *vm);

#ifdef __cplusplus
}
#endif

#endif
