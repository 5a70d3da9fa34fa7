/* linst.c: execution-space instances from Lua (speck.Instance, Kokkos'
 * execution space instances).
 *
 *   local inst = speck.Instance([space])  -- a back end's or memory space's
 *                                          -- name; nil: the active back end
 *   speck.parallel_for(..., {instance = inst})   (reduce, scan, kernel calls)
 *   speck.deep_copy(dst, src, {instance = inst})
 *   inst:fence()   inst:space()   tostring(inst)
 *
 * The userdata holds an sk_instance (core/backend.h): the back end's own
 * queue of work where it has instances (a GPU's stream), else its default
 * instance, whose launches are done when they return. It is given back
 * when collected or closed; work queued on it still runs.
 */
#include <string.h>

#include "core/runtime.h"
#include "vm.h"

#define SK_INSTANCE_MT "speck.Instance"

/* speck.Instance([space]) */
static int l_instance(lua_State *L) {
  const char *fname = "speck.Instance";
  const char *space = NULL;
  if (!lua_isnoneornil(L, 1)) {
    if (lua_type(L, 1) != LUA_TSTRING)
      return sk_lerror(L, fname, NULL, SK_E_INSTANCE_SPACE_MUST, luaL_typename(L, 1));
    space = lua_tostring(L, 1);
  }
  sk_instance *in = lua_newuserdatauv(L, sizeof *in, 0);
  memset(in, 0, sizeof *in);
  luaL_setmetatable(L, SK_INSTANCE_MT);
  char err[1024];
  if (sk_rt_instance_create(space, in, err, sizeof err) < 0)
    return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  return 1;
}

static sk_instance *check(lua_State *L, const char *fname) {
  sk_instance *in = luaL_testudata(L, 1, SK_INSTANCE_MT);
  if (!in)
    sk_lerror(L, fname, NULL, SK_E_INSTANCE_MUST, "the receiver", luaL_typename(L, 1));
  return in;
}

/* inst:fence(): wait for the work queued on it */
static int l_fence(lua_State *L) {
  sk_instance *in = check(L, "Instance:fence");
  char err[1024];
  if (sk_rt_instance_fence(in, err, sizeof err) < 0)
    return sk_lerror(L, "Instance:fence", NULL, SK_E_MSG, err);
  return 0;
}

/* inst:space(): the back end's name */
static int l_space(lua_State *L) {
  sk_instance *in = check(L, "Instance:space");
  lua_pushstring(L, in->backend ? in->backend->name : "?");
  return 1;
}

static int l_gc(lua_State *L) {
  sk_instance *in = luaL_checkudata(L, 1, SK_INSTANCE_MT);
  sk_rt_instance_release(in);
  return 0;
}

static int l_tostring(lua_State *L) {
  sk_instance *in = luaL_checkudata(L, 1, SK_INSTANCE_MT);
  const char *name = in->backend ? in->backend->name : "?";
  if (in->handle) lua_pushfstring(L, "Instance(%s, %p)", name, in->handle);
  else lua_pushfstring(L, "Instance(%s, default)", name);
  return 1;
}

const sk_instance *sk_linst_option(lua_State *L, int idx, const char *fname,
                                   const char *label) {
  if (lua_type(L, idx) != LUA_TTABLE) return NULL;
  int t = lua_getfield(L, idx, "instance");
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return NULL;
  }
  sk_instance *in = luaL_testudata(L, -1, SK_INSTANCE_MT);
  if (!in) sk_lerror(L, fname, label, SK_E_INSTANCE_MUST, "opts.instance", luaL_typename(L, -1));
  lua_pop(L, 1); /* anchored by the options table */
  return in;
}

void sk_linst_open(lua_State *L) {
  static const luaL_Reg methods[] = {{"fence", l_fence}, {"space", l_space}, {NULL, NULL}};
  sk_lclass(L, SK_INSTANCE_MT, methods, l_gc, 1, l_tostring);
  lua_pushcfunction(L, l_instance);
  lua_setfield(L, -2, "Instance");
}
