/* lsolve.c: speck.solve's binding of preconditioners written in Lua --
 * core._solve.with(fn, name, args, fname) calls library entry 'name' (a
 * Krylov method with precond "callback") as core.call does, with this
 * thread's solve callback set to call fn(r, z) (views of the method's
 * vectors: z = M^-1 r written in place) for the length of the call.
 */
#include <stdio.h>
#include <string.h>

#include "../kernels/solve/solve.h"
#include "vm.h"

typedef struct cb_ctx {
  lua_State *L;
  int ref;
} cb_ctx;

/* a view userdata sharing 'v' */
static void push_view(lua_State *L, const sk_view *v) {
  sk_view *u = sk_lview_new(L);
  *u = *v;
  sk_view_retain(u);
}

static int trampoline(void *ctx, const sk_view *r, const sk_view *z, char *err,
                      size_t errlen) {
  cb_ctx *c = ctx;
  lua_State *L = c->L;
  if (!lua_checkstack(L, 4)) {
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
  push_view(L, r);
  push_view(L, z);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    sk_err(err, errlen, SK_E_MSG, m ? m : luaL_typename(L, -1));
    lua_pop(L, 1);
    return -1;
  }
  return 0;
}

/* solve_with(fn, name, args, fname): core.call(name, args, fname) (the
 * upvalue) with the callback set; its results, or its error raised again */
static int l_solve_with(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 4);
  lua_pushvalue(L, 1);
  cb_ctx c = {L, luaL_ref(L, LUA_REGISTRYINDEX)};
  sk_solve_cb pfn;
  void *pctx;
  sk_solve_get_callback(&pfn, &pctx);
  sk_solve_set_callback(trampoline, &c);
  int base = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 4);
  int st = lua_pcall(L, 3, LUA_MULTRET, 0);
  sk_solve_set_callback(pfn, pctx);
  luaL_unref(L, LUA_REGISTRYINDEX, c.ref);
  if (st != LUA_OK) return lua_error(L);
  return lua_gettop(L) - base;
}

/* core._solve = {with = ...}: a table, so that speck (which copies the
 * core's functions) shows no internal function */
void sk_lsolve_open(lua_State *L) {
  lua_createtable(L, 0, 1);
  lua_getfield(L, -2, "call");
  lua_pushcclosure(L, l_solve_with, 1);
  lua_setfield(L, -2, "with");
  lua_setfield(L, -2, "_solve");
}
