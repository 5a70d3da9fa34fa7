/* embed.c: the C embedding API of speck.h, a thin client of the Lua API.
 *
 * A speck_vm owns one lua_State with the standard libraries, speck.core
 * preloaded (this object file carries it, so no module search is needed)
 * and speck required as the global 'speck'. Errors never escape as a
 * longjmp: every step that can raise runs under lua_pcall.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "core/err.h"
#include "api/speck.h"
#include "vm.h"

struct speck_vm {
  lua_State *L;
  speck_output_fn out; /* speck_vm_set_output's hook, NULL: stdout */
  void *out_ud;
};

/* -- helpers ----------------------------------------------------------- */

/* Message handler: the error message (or its __tostring) plus a traceback,
 * as lua.c's 'msghandler'. */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* Map a Lua status to a SPECK_* status. */
static int status_of(int lua_status) {
  switch (lua_status) {
  case LUA_OK: return SPECK_OK;
  case LUA_ERRSYNTAX: return SPECK_ESYNTAX;
  case LUA_ERRMEM: return SPECK_EMEM;
  case LUA_ERRFILE: return SPECK_EFILE;
  default: return SPECK_ERUN;
  }
}

/* Copy the message at the top of the stack into 'err' and pop it. */
static void take_error(lua_State *L, char *err, size_t errlen) {
  if (err != NULL && errlen > 0) {
    const char *msg = lua_tostring(L, -1);
    sk_err(err, errlen, SK_E_MSG, msg != NULL ? msg : sk_err_text(SK_E_ERROR_NOT_STRING));
  }
  lua_pop(L, 1);
}

/* Call the function below 'nargs' arguments at the top of the stack with
 * the message handler; leaves no results. */
static int docall(lua_State *L, int nargs) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  int st = lua_pcall(L, nargs, 0, base);
  lua_remove(L, base);
  return st;
}

/* The body of speck_vm_new under pcall: libraries, speck.core preloaded,
 * paths, 'speck = require "speck"', then speck.initialize{...} if asked.
 * Argument 1: the options (light userdata, may be NULL). */
static int open_vm(lua_State *L) {
  const speck_options *opt = lua_touserdata(L, 1);
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_speck_core);
  lua_setfield(L, -2, "speck.core");
  lua_pop(L, 1);
  sk_vm_setup_paths(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "speck");
  lua_call(L, 1, 1);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "speck");
  if (opt != NULL && (opt->space != NULL || opt->threads > 0 || opt->device != 0)) {
    lua_getfield(L, -1, "initialize");
    lua_createtable(L, 0, 3);
    if (opt->space != NULL) { sk_lset_str(L, "space", opt->space); }
    if (opt->threads > 0) { sk_lset_int(L, "threads", opt->threads); }
    sk_lset_int(L, "device", opt->device);
    lua_call(L, 1, 0);
  }
  return 0;
}

/* -- API --------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *msg) {
  if (err != NULL && errlen > 0) sk_err(err, errlen, SK_E_MSG, msg);
}

const char *speck_version(void) { return SPECK_VERSION; }

speck_vm *speck_vm_new(const speck_options *opt, char *err, size_t errlen) {
  speck_vm *vm = malloc(sizeof *vm);
  if (vm == NULL) {
    set_err(err, errlen, "speck_vm_new: out of memory");
    return NULL;
  }
  vm->out = NULL;
  vm->out_ud = NULL;
  vm->L = luaL_newstate();
  if (vm->L == NULL) {
    free(vm);
    set_err(err, errlen, "speck_vm_new: out of memory (no Lua state)");
    return NULL;
  }
  lua_pushcfunction(vm->L, open_vm);
  lua_pushlightuserdata(vm->L, (void *)opt);
  if (docall(vm->L, 1) != LUA_OK) {
    take_error(vm->L, err, errlen);
    speck_vm_free(vm);
    return NULL;
  }
  return vm;
}

/* run the chunk that loading left on the stack ('st' the load's status) */
static int run_loaded(speck_vm *vm, int st, char *err, size_t errlen) {
  if (st == LUA_OK) st = docall(vm->L, 0);
  if (st != LUA_OK) take_error(vm->L, err, errlen);
  return status_of(st);
}

int speck_vm_dofile(speck_vm *vm, const char *path, char *err, size_t errlen) {
  if (vm == NULL || path == NULL) return SPECK_EARG;
  return run_loaded(vm, luaL_loadfile(vm->L, path), err, errlen);
}

int speck_vm_dostring(speck_vm *vm, const char *code, char *err, size_t errlen) {
  if (vm == NULL || code == NULL) return SPECK_EARG;
  return run_loaded(vm, luaL_loadstring(vm->L, code), err, errlen);
}

/* Under pcall: global = speck.View(global, dtype, dims,
 * {layout = layout, data = <light userdata>}). Arguments: the
 * speck_vm_set_view parameters as light userdata / integers. */
typedef struct set_view_args {
  const char *global, *dtype, *layout;
  void *data;
  int rank;
  const int64_t *extents;
} set_view_args;

static int set_view(lua_State *L) {
  const set_view_args *a = lua_touserdata(L, 1);
  lua_getglobal(L, "speck");
  lua_getfield(L, -1, "View");
  lua_pushstring(L, a->global);
  lua_pushstring(L, a->dtype);
  lua_createtable(L, a->rank, 0);
  for (int d = 0; d < a->rank; d++) {
    lua_pushinteger(L, (lua_Integer)a->extents[d]);
    lua_rawseti(L, -2, d + 1);
  }
  lua_createtable(L, 0, 2);
  if (a->layout != NULL) { sk_lset_str(L, "layout", a->layout); }
  lua_pushlightuserdata(L, a->data);
  lua_setfield(L, -2, "data");
  lua_call(L, 4, 1);
  lua_setglobal(L, a->global);
  return 0;
}

int speck_vm_set_view(speck_vm *vm, const char *global, void *data, const char *dtype,
                      int rank, const int64_t *extents, const char *layout, char *err,
                      size_t errlen) {
  const char *bad = vm == NULL                      ? "vm is NULL"
                    : global == NULL                ? "global name is NULL"
                    : data == NULL                  ? "data is NULL"
                    : dtype == NULL                 ? "dtype is NULL"
                    : rank < 0 || rank > SK_MAXRANK ? "rank must be 0..8"
                    : rank > 0 && extents == NULL   ? "extents is NULL"
                                                    : NULL;
  if (bad) {
    if (err != NULL && errlen > 0)
      sk_err(err, errlen, SK_E_SPECK_VM_SET, global ? global : "?", bad);
    return SPECK_EARG;
  }
  set_view_args a = {global, dtype, layout, data, rank, extents};
  lua_pushcfunction(vm->L, set_view);
  lua_pushlightuserdata(vm->L, &a);
  int st = docall(vm->L, 1);
  if (st != LUA_OK) take_error(vm->L, err, errlen);
  return status_of(st);
}

/* -- output hook ---------------------------------------------------------- */
/* the VM of a closure (its first upvalue) */
static speck_vm *vm_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

/* print(...): as Lua's, into the hook */
static int l_print(lua_State *L) {
  speck_vm *vm = vm_of(L);
  int n = lua_gettop(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_tolstring(L, i, &len);
    if (i > 1) luaL_addchar(&b, '\t');
    (void)s;
    (void)len;
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  size_t len;
  const char *s = lua_tolstring(L, -1, &len);
  if (vm->out != NULL) vm->out(vm->out_ud, SPECK_OUTPUT_STDOUT, s, len);
  return 0;
}

/* io.write(...): strings and numbers written as Lua's io.write writes
 * them; returns io.stdout */
static int l_write(lua_State *L) {
  speck_vm *vm = vm_of(L);
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    char buf[64];
    size_t len;
    const char *s = buf;
    if (lua_type(L, i) == LUA_TNUMBER) {
      int k = lua_isinteger(L, i)
                ? snprintf(buf, sizeof buf, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, i))
                : snprintf(buf, sizeof buf, LUA_NUMBER_FMT, (LUAI_UACNUMBER)lua_tonumber(L, i));
      len = k > 0 ? (size_t)k : 0;
    } else {
      s = luaL_checklstring(L, i, &len);
    }
    if (vm->out != NULL) vm->out(vm->out_ud, SPECK_OUTPUT_STDOUT, s, len);
  }
  lua_getglobal(L, "io");
  if (lua_istable(L, -1)) lua_getfield(L, -1, "stdout");
  return 1;
}

/* speck.output(stream, text) (the registry's "speck.output") */
static int l_output(lua_State *L) {
  speck_vm *vm = vm_of(L);
  lua_Integer stream = luaL_checkinteger(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  if (vm->out != NULL) vm->out(vm->out_ud, (int)stream, s, len);
  return 0;
}

static void progress_sink(void *ud, const char *what, double done, double total,
                          double elapsed, int finished) {
  speck_vm *vm = ud;
  char buf[512];
  int n = snprintf(buf, sizeof buf, "%.17g %.17g %.17g %d %s", done, total, elapsed,
                   finished ? 1 : 0, what);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
  speck_output_fn fn = vm->out;
  if (fn != NULL) fn(vm->out_ud, SPECK_OUTPUT_PROGRESS, buf, (size_t)n);
}

/* Under pcall: the hook's print, io.write and speck.output, or Lua's own
 * print and io.write back (kept in the registry when first replaced).
 * Argument 1: the VM. */
static int install_output(lua_State *L) {
  speck_vm *vm = lua_touserdata(L, 1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, "speck.output.print") == LUA_TNIL) {
    lua_getglobal(L, "print");
    lua_setfield(L, LUA_REGISTRYINDEX, "speck.output.print");
    lua_getglobal(L, "io");
    lua_getfield(L, -1, "write");
    lua_setfield(L, LUA_REGISTRYINDEX, "speck.output.write");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_getglobal(L, "io");
  if (vm->out != NULL) {
    lua_pushlightuserdata(L, vm);
    lua_pushcclosure(L, l_print, 1);
    lua_setglobal(L, "print");
    lua_pushlightuserdata(L, vm);
    lua_pushcclosure(L, l_write, 1);
    lua_setfield(L, -2, "write");
    lua_pushlightuserdata(L, vm);
    lua_pushcclosure(L, l_output, 1);
  } else {
    lua_getfield(L, LUA_REGISTRYINDEX, "speck.output.print");
    lua_setglobal(L, "print");
    lua_getfield(L, LUA_REGISTRYINDEX, "speck.output.write");
    lua_setfield(L, -2, "write");
    lua_pushnil(L);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, "speck.output");
  return 0;
}

int speck_vm_set_output(speck_vm *vm, speck_output_fn fn, void *ud) {
  if (vm == NULL) return SPECK_EARG;
  vm->out = fn;
  vm->out_ud = ud;
  sk_lio_set_progress_sink(fn != NULL ? progress_sink : NULL, vm);
  lua_pushcfunction(vm->L, install_output);
  lua_pushlightuserdata(vm->L, vm);
  int st = docall(vm->L, 1);
  if (st != LUA_OK) lua_pop(vm->L, 1);
  return status_of(st);
}

/* -- interrupts -------------------------------------------------------------- */
/* raise "interrupted" at the line the chunk had reached ("cell 3:12:
 * interrupted") */
static void stop_hook(lua_State *L, lua_Debug *ar) {
  lua_sethook(L, NULL, 0, 0);
  if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
    lua_pushfstring(L, "%s:%d: ", ar->short_src, ar->currentline);
  else
    lua_pushliteral(L, "");
  lua_pushstring(L, sk_err_text(SK_E_INTERRUPTED));
  lua_concat(L, 2);
  lua_error(L);
}

int speck_vm_interrupt(speck_vm *vm) {
  if (vm == NULL) return SPECK_EARG;
  speck_interrupt();
  lua_sethook(vm->L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT,
              1);
  return SPECK_OK;
}

void speck_vm_interrupt_clear(speck_vm *vm) {
  if (vm == NULL) return;
  lua_sethook(vm->L, NULL, 0, 0);
  speck_interrupt_clear();
}

lua_State *speck_vm_lua(speck_vm *vm) { return vm != NULL ? vm->L : NULL; }

void speck_vm_free(speck_vm *vm) {
  if (vm == NULL) return;
  if (vm->out != NULL) sk_lio_set_progress_sink(NULL, NULL);
  lua_close(vm->L);
  free(vm);
}
