/* lremote.c: the C side of speck.remote (stdlib/speck/remote.lua), bound
 * as speck.core.remote: MPI start, rank/size, barrier, fence, allreduce,
 * remote.View, and the view methods local_view / local_range. */
#include <string.h>

#include "core/err.h"
#include "vm.h"
#include "../backends/remote/remote.h"

#define ERRLEN 1024

static int raise(lua_State *L, const char *msg) {
  luaL_where(L, 1);
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

static int l_start(lua_State *L) {
  char err[ERRLEN];
  if (sk_remote_start(err, sizeof err) < 0) return raise(L, err);
  return 0;
}

static int l_available(lua_State *L) {
  char why[ERRLEN];
  int ok = sk_remote_available(why, sizeof why);
  lua_pushboolean(L, ok);
  if (ok) return 1;
  lua_pushstring(L, why);
  return 2;
}

static int l_info(lua_State *L) {
  char buf[ERRLEN];
  sk_remote_info(buf, sizeof buf);
  lua_pushstring(L, buf);
  return 1;
}

static int l_rank(lua_State *L) {
  lua_pushinteger(L, sk_remote_rank());
  return 1;
}

static int l_size(lua_State *L) {
  lua_pushinteger(L, sk_remote_size());
  return 1;
}

static int l_barrier(lua_State *L) {
  char err[ERRLEN];
  if (sk_remote_barrier(err, sizeof err) < 0) return raise(L, err);
  return 0;
}

static int l_fence(lua_State *L) {
  char err[ERRLEN];
  if (sk_remote_fence(err, sizeof err) < 0) return raise(L, err);
  return 0;
}

/* allreduce(x [, op]): x a number or a table of numbers; op "sum" (the
 * default), "min" or "max". Returns the reduced number(s). */
static int l_allreduce(lua_State *L) {
  static const char *const ops[] = {"sum", "min", "max", NULL};
  int op = luaL_checkoption(L, 2, "sum", ops);
  char err[ERRLEN];
  if (lua_type(L, 1) == LUA_TNUMBER) {
    double x = lua_tonumber(L, 1);
    if (sk_remote_allreduce(&x, 1, op, err, sizeof err) < 0) return raise(L, err);
    lua_pushnumber(L, x);
    return 1;
  }
  if (!lua_istable(L, 1))
    return sk_lerror(L, "remote.allreduce", NULL, SK_E_ALLREDUCE_ARGUMENT,
                     luaL_typename(L, 1));
  int n = (int)lua_rawlen(L, 1);
  double *x = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *x, 0);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 1, i + 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
      return sk_lerror(L, "remote.allreduce", NULL, SK_E_ALLREDUCE_ELEMENT, i + 1,
                       luaL_typename(L, -1));
    x[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  if (sk_remote_allreduce(x, n, op, err, sizeof err) < 0) return raise(L, err);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, x[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* View(label, dtype, dims [, {layout = "blocked" | "partitioned",
 *   atomic = true}]): with 'atomic', element updates in kernel bodies
 *   (x(i) += v, ++) are remote atomics, as the atomic trait of views */
static int l_view(lua_State *L) {
  const char *fname = "remote.View";
  const char *label = luaL_checkstring(L, 1);
  int dtype = sk_lview_dtype(L, 2, fname, label);
  int64_t ext[SK_MAXRANK];
  int rank = sk_lview_dims(L, 3, fname, label, ext);
  int dist = SK_REMOTE_BLOCKED, atomic = 0, space = -1;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    static const char *const keys[] = {"atomic", "layout", "space", NULL};
    sk_lopts_check(L, 4, fname, label, keys);
    lua_getfield(L, 4, "atomic");
    atomic = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 4, "layout");
    if (!lua_isnil(L, -1)) {
      const char *s = lua_tostring(L, -1);
      if (s && strcmp(s, "partitioned") == 0) dist = SK_REMOTE_PARTITIONED;
      else if (!s || strcmp(s, "blocked") != 0)
        return sk_lerror(L, fname, label, SK_E_LAYOUT_EXPECTED_BLOCKED,
                         s ? s : luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    lua_getfield(L, 4, "space");
    if (!lua_isnil(L, -1)) space = sk_lview_space(L, -1, fname, label);
    lua_pop(L, 1);
  }
  sk_view *v = sk_lview_new(L);
  char err[ERRLEN];
  if (sk_remote_view_create(v, label, dtype, rank, ext, dist, space, err, sizeof err) < 0)
    return raise(L, err);
  if (atomic) v->traits |= SK_TRAIT_ATOMIC;
  return 1;
}

static int m_local_view(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  char err[ERRLEN];
  sk_view tmp;
  if (sk_remote_local_view(&tmp, v, err, sizeof err) < 0) return raise(L, err);
  sk_view *d = sk_lview_new(L);
  *d = tmp;
  return 1;
}

static int m_local_range(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  char err[ERRLEN];
  int64_t b, e;
  if (sk_remote_local_range(v, &b, &e, err, sizeof err) < 0) return raise(L, err);
  lua_pushinteger(L, b);
  lua_pushinteger(L, e);
  return 2;
}

static const luaL_Reg remote_funcs[] = {{"start", l_start}, {"available", l_available},
                                        {"info", l_info},   {"rank", l_rank},
                                        {"size", l_size},   {"barrier", l_barrier},
                                        {"fence", l_fence}, {"allreduce", l_allreduce},
                                        {"View", l_view},   {NULL, NULL}};

static const luaL_Reg view_methods[] = {
  {"local_view", m_local_view}, {"local_range", m_local_range}, {NULL, NULL}};

void sk_lremote_open(lua_State *L) {
  luaL_newlib(L, remote_funcs);
  lua_setfield(L, -2, "remote");
  sk_lview_add_methods(L, view_methods);
}

void sk_lremote_close(void) { sk_remote_stop(); }
