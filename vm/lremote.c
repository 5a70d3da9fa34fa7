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

/* The arguments' checks of a collective call, run protected so that a
 * refusal on one rank becomes the same refusal on every rank
 * (sk_remote_agree) before any rank enters the collective. 'check' gets
 * the call's arguments 1..nargs and, after them, 'out' as a light
 * userdata. Returns 0, or raises the agreed message on every rank. */
static int agreed(lua_State *L, lua_CFunction check, int nargs, void *out, const int *what,
                  int nwhat, const char *mismatch) {
  lua_pushcfunction(L, check);
  for (int i = 1; i <= nargs; i++) lua_pushvalue(L, i);
  lua_pushlightuserdata(L, out);
  int st = lua_pcall(L, nargs + 1, 0, 0);
  char err[ERRLEN] = "";
  if (st != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    snprintf(err, sizeof err, "%s", m ? m : "(error object is not a string)");
    lua_pop(L, 1);
  }
  if (sk_remote_agree(st != LUA_OK, what, nwhat, mismatch, err, sizeof err) < 0)
    return raise(L, err);
  return 0;
}

typedef struct allreduce_args {
  int op, n; /* n: -1 for a number */
} allreduce_args;

static int allreduce_check(lua_State *L) {
  static const char *const ops[] = {"sum", "min", "max", NULL};
  allreduce_args *a = lua_touserdata(L, 3);
  a->op = luaL_checkoption(L, 2, "sum", ops);
  if (lua_type(L, 1) == LUA_TNUMBER) {
    a->n = -1;
    return 0;
  }
  if (!lua_istable(L, 1))
    return sk_lerror(L, "remote.allreduce", NULL, SK_E_ALLREDUCE_ARGUMENT,
                     luaL_typename(L, 1));
  a->n = (int)lua_rawlen(L, 1);
  for (int i = 0; i < a->n; i++) {
    lua_rawgeti(L, 1, i + 1);
    if (lua_type(L, -1) != LUA_TNUMBER)
      return sk_lerror(L, "remote.allreduce", NULL, SK_E_ALLREDUCE_ELEMENT, i + 1,
                       luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  return 0;
}

/* allreduce(x [, op]): x a number or a table of numbers; op "sum" (the
 * default), "min" or "max". Returns the reduced number(s). The ranks
 * agree on the arguments first: a bad one on any rank, or different
 * lengths or operations, is refused on every rank. */
static int l_allreduce(lua_State *L) {
  lua_settop(L, 2);
  allreduce_args a = {0, -1};
  /* the checks; the agreement on them and on (length, op): the same
   * refusal on every rank */
  int what[2];
  lua_pushcfunction(L, allreduce_check);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushlightuserdata(L, &a);
  int st = lua_pcall(L, 3, 0, 0);
  char err[ERRLEN] = "";
  if (st != LUA_OK) {
    const char *m = lua_tostring(L, -1);
    snprintf(err, sizeof err, "%s", m ? m : "(error object is not a string)");
    lua_pop(L, 1);
  }
  what[0] = a.n;
  what[1] = a.op;
  if (sk_remote_agree(st != LUA_OK, what, 2, sk_err_text(SK_E_REMOTE_ALLREDUCE_MISMATCH),
                      err, sizeof err) < 0)
    return raise(L, err);
  if (a.n < 0) {
    double x = lua_tonumber(L, 1);
    if (sk_remote_allreduce(&x, 1, a.op, err, sizeof err) < 0) return raise(L, err);
    lua_pushnumber(L, x);
    return 1;
  }
  int n = a.n;
  double *x = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *x, 0);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 1, i + 1);
    x[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  if (sk_remote_allreduce(x, n, a.op, err, sizeof err) < 0) return raise(L, err);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, x[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

typedef struct view_args {
  const char *label;
  int dtype, rank, dist, atomic, space;
  int64_t ext[SK_MAXRANK];
} view_args;

static int view_check(lua_State *L) {
  const char *fname = "remote.View";
  view_args *a = lua_touserdata(L, 5);
  a->label = luaL_checkstring(L, 1);
  a->dtype = sk_lview_dtype(L, 2, fname, a->label);
  a->rank = sk_lview_dims(L, 3, fname, a->label, a->ext);
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    static const char *const keys[] = {"atomic", "layout", "space", NULL};
    sk_lopts_check(L, 4, fname, a->label, keys);
    lua_getfield(L, 4, "atomic");
    a->atomic = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 4, "layout");
    if (!lua_isnil(L, -1)) {
      const char *s = lua_tostring(L, -1);
      if (s && strcmp(s, "partitioned") == 0) a->dist = SK_REMOTE_PARTITIONED;
      else if (!s || strcmp(s, "blocked") != 0)
        return sk_lerror(L, fname, a->label, SK_E_LAYOUT_EXPECTED_BLOCKED,
                         s ? s : luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    lua_getfield(L, 4, "space");
    if (!lua_isnil(L, -1)) a->space = sk_lview_space(L, -1, fname, a->label);
    lua_pop(L, 1);
  }
  return 0;
}

/* View(label, dtype, dims [, {layout = "blocked" | "partitioned",
 *   atomic = true}]): with 'atomic', element updates in kernel bodies
 *   (x(i) += v, ++) are remote atomics, as the atomic trait of views.
 *   Collective: an argument refused on any rank is refused on every rank
 *   (agreed), before the ranks compare their requests and allocate. */
static int l_view(lua_State *L) {
  lua_settop(L, 4);
  view_args a;
  memset(&a, 0, sizeof a);
  a.dist = SK_REMOTE_BLOCKED;
  a.space = -1;
  agreed(L, view_check, 4, &a, NULL, 0, NULL);
  sk_view *v = sk_lview_new(L);
  char err[ERRLEN];
  if (sk_remote_view_create(v, a.label, a.dtype, a.rank, a.ext, a.dist, a.space, err,
                            sizeof err) < 0)
    return raise(L, err);
  if (a.atomic) v->traits |= SK_TRAIT_ATOMIC;
  return 1;
}

/* abort_on_error(on): whether an uncaught error on any rank ends the
 * job (MPI_Abort; the default) -- false: the rank exits alone */
static int l_abort_on_error(lua_State *L) {
  luaL_checktype(L, 1, LUA_TBOOLEAN);
  sk_remote_abort_on_error(lua_toboolean(L, 1));
  return 0;
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
                                        {"View", l_view},   {"abort_on_error", l_abort_on_error},
                                        {NULL, NULL}};

static const luaL_Reg view_methods[] = {
  {"local_view", m_local_view}, {"local_range", m_local_range}, {NULL, NULL}};

void sk_lremote_open(lua_State *L) {
  luaL_newlib(L, remote_funcs);
  lua_setfield(L, -2, "remote");
  sk_lview_add_methods(L, view_methods);
}

void sk_lremote_close(void) { sk_remote_stop(); }
