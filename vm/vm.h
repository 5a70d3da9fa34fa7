/* vm.h: internal interface between the files of vm/ (the only layer that
 * includes lua.h). Not installed; the public embedding API is speck.h. */
#ifndef SK_VM_H
#define SK_VM_H

#include <lua.h>
#include <lauxlib.h>

#include "core/backend.h"
#include "core/err.h"
#include "../jit/jit.h"

#define SK_VIEW_MT "speck.View"

/* -- lview.c: View userdata -------------------------------------------- */
/* The userdata holds an sk_view; 'alloc' is released by __gc/__close. */
sk_view *sk_lview_test(lua_State *L, int idx);  /* NULL if not a view */
sk_view *sk_lview_check(lua_State *L, int idx); /* raises if not */
/* push a new, empty (alloc == NULL) view userdata with the metatable */
sk_view *sk_lview_new(lua_State *L);
/* register View, subview, deep_copy, mirrors, resize/realloc and the
 * dtype constants into the table at the top of the stack */
void sk_lview_open(lua_State *L);
/* checked arguments, as speck.View reads them: dims (returns the rank,
 * extents in 'ext') and dtype */
int sk_lview_dims(lua_State *L, int idx, const char *fname, const char *label,
                  int64_t *ext);
int sk_lview_dtype(lua_State *L, int idx, const char *fname, const char *label);
/* add methods to every view (remote.c: local_view, local_range) */
void sk_lview_add_methods(lua_State *L, const luaL_Reg *r);
/* let the collector feel 'bytes' of new view memory */
void sk_lview_gcstep(lua_State *L, size_t bytes);

/* -- lcore.c: policies, patterns, jit, runtime -------------------------- */
int luaopen_speck_core(lua_State *L);
/* one argument of a launch or library call (the value at 'vi') into 'a'
 * ('a->name' set; strings kept when 'strings'), and a table of them at
 * 'idx' into 'args' (returns the count); raise on a value no capture takes */
struct sk_arg;
void sk_larg(lua_State *L, int vi, struct sk_arg *a, const char *fname, const char *label,
             int strings);
int sk_largs(lua_State *L, int idx, struct sk_arg *args, const char *fname,
             const char *label, int strings);
/* -- lcall.c: core.call, core.callv, core.bind, core.complex ------------- */
void sk_lcall_open(lua_State *L);

/* Raise "fname 'label': message" at the caller's file:line, after the
 * caller has freed what it owns; the message is core/errmsg.h's 'id' with
 * the arguments (checked against its text by the macro). */
/* the one option checker: raise if the options table at 'idx' has a key
 * not in 'keys' (NULL-terminated); nil or none is no options (lcore.c) */
/* the metatable 'mt' of a userdata class: __index its methods, __gc 'gc'
 * (also __close when 'closes'), __tostring 'ts' unless NULL; the stack is
 * left as it was */
void sk_lclass(lua_State *L, const char *mt, const luaL_Reg *methods, lua_CFunction gc,
               int closes, lua_CFunction ts);
void sk_lopts_check(lua_State *L, int idx, const char *fname, const char *label,
                    const char *const *keys);
int sk_lerror_(lua_State *L, const char *fname, const char *label, int id, ...);
#define sk_lerror(L, fname, label, id, ...) \
  (SK_ERRCHK(id, ##__VA_ARGS__), sk_lerror_(L, fname, label, id, ##__VA_ARGS__))

/* t[name] = v for the table t at the top of the stack (the tables of
 * results: stats, info) */
static inline void sk_lset_int(lua_State *L, const char *name, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, name);
}
static inline void sk_lset_num(lua_State *L, const char *name, lua_Number v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}
static inline void sk_lset_str(lua_State *L, const char *name, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, name);
}
static inline void sk_lset_bool(lua_State *L, const char *name, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, name);
}

/* -- linst.c: execution-space instances (speck.Instance) --------------- */
/* register Instance into the table at the top of the stack */
void sk_linst_open(lua_State *L);
/* speck.graph_capture and its handle (lcapture.c) */
void sk_lcapture_open(lua_State *L);
/* the instance of the options table at 'idx' ('instance' key), NULL when
 * none (no table, or no such key); raises naming 'fname' and 'label' when
 * it is not an Instance. Anchored by the options table. */
const sk_instance *sk_linst_option(lua_State *L, int idx, const char *fname,
                                   const char *label);

/* -- lio.c: speck.io (NumPy .npy) and speck.progress ------------------ */
/* register 'io' and 'progress' into the table at the top of the stack and
 * set the library's progress hook (a bar on stderr) */
void sk_lio_open(lua_State *L);
/* clear the progress hook (the last Lua state is closing) */
void sk_lio_close(void);
/* a host's own sink for the progress bar (the embedding API's output
 * hook; NULL: the bar on stderr) */
typedef void (*sk_lio_sink_fn)(void *ud, const char *what, double done, double total,
                               double elapsed, int finished);
void sk_lio_set_progress_sink(sk_lio_sink_fn fn, void *ud);

/* -- ltask.c: speck.task's bindings (the 'task' table of speck.core) ---- */
void sk_ltask_open(lua_State *L);
/* the view a kernel captures for a MemoryPool userdata, NULL if not one */
const sk_view *sk_ltask_pool_view(lua_State *L, int idx);
/* the memory space named at 'idx' (a memory space or a back end's name),
 * or an error naming 'fname' and 'label' (lview.c) */
int sk_lview_space(lua_State *L, int idx, const char *fname, const char *label);

/* -- lremote.c: speck.remote's C side (core.remote) -------------------- */
/* register 'remote' (start, rank, size, barrier, fence, allreduce, View,
 * info) into the table at the top of the stack */
void sk_lremote_open(lua_State *L);
/* the last Lua state closes: free the windows, finalise MPI */
void sk_lremote_close(void);

/* -- lsolve.c: core._solve.with (speck.solve's Lua preconditioners) ---- */
void sk_lsolve_open(lua_State *L);
/* -- ldist.c: speck.dist's C side (core.dist) --------------------------- */
void sk_ldist_open(lua_State *L);
/* -- lplot.c: the numbers of speck.plot (the 'plot' table of speck.core) */
void sk_lplot_open(lua_State *L);

/* -- paths (lpath.c): below the installation prefix (core/prefix.c) ---- */
/* prepend <prefix>'s share/ and lib/ Lua paths; then sk_vm_setup_dirs */
void sk_vm_setup_paths(lua_State *L);
/* point tcc at libtcc1.a and the JIT at the shelf of device images: the
 * installation's folders, or a luarocks tree's */
void sk_vm_setup_dirs(void);

#endif
