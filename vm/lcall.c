/* lcall.c: Lua bindings of the library's entries (kernels/): core.call
 * and core.callv (arguments by name), core.bind (a function bound to an
 * entry's argument names, the stdlib's BLAS-1) and core.complex. The
 * argument conversion is lcore.c's (sk_larg, sk_largs).
 */
#include <stdio.h>
#include <string.h>

#include "vm.h"
#include "../exec/exec.h"
#include "../kernels/kernels.h"

/* -- library kernels ------------------------------------------------------ */
/* core.call(name, args [, fname]): library kernel 'name' ("blas.dot")
 * with its arguments by name (views, numbers, strings); returns its result
 * (nil for none) and, when the driver made outputs, a table of them by
 * name (new views, numbers). Called by the stdlib wrappers, so errors
 * carry their caller's position and are named "speck.<name>: ". With
 * 'fname' ("speck.graph.read": the public function a wrapper implements)
 * errors are named after it and carry no position: a wrapper that calls
 * through pcall raises them at its user's level as they are. */
/* "speck.<name>" (or 'pub') into fname[128], without printf: every
 * library call from Lua makes it */
static void call_fname(char *fname, const char *name, const char *pub) {
  size_t o = 0;
  if (!pub) {
    memcpy(fname, "speck.", 6);
    o = 6;
  }
  const char *src = pub ? pub : name;
  size_t l = strlen(src);
  if (l > 127 - o) l = 127 - o;
  memcpy(fname + o, src, l);
  fname[o + l] = '\0';
}

static int call_args(lua_State *L, const char *name, const char *pub, const char *fname,
                     sk_arg *args, int n, int level);

static int l_call(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *pub = luaL_optstring(L, 3, NULL);
  sk_arg args[SK_MAXCAP];
  char fname[128];
  call_fname(fname, name, pub);
  int n = sk_largs(L, 2, args, fname, NULL, 1);
  return call_args(L, name, pub, fname, args, n, 2);
}

/* core.callv(name, key1, value1, key2, value2, ...): core.call with the
 * arguments as pairs on the stack, no table made (the stdlib's BLAS-1
 * wrappers, called in loops); errors as core.call's without 'fname' */
static int l_callv(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  sk_arg args[SK_MAXCAP];
  char fname[128];
  call_fname(fname, name, NULL);
  int top = lua_gettop(L), n = 0;
  for (int i = 2; i <= top; i += 2) {
    if (lua_isnoneornil(L, i + 1)) continue; /* absent, as in a table */
    if (lua_type(L, i) != LUA_TSTRING)
      sk_lerror(L, fname, NULL, SK_E_CAPTURE_NAMES_MUST, luaL_typename(L, i));
    if (n >= SK_MAXCAP) sk_lerror(L, fname, NULL, SK_E_MORE_THAN_CAPTURES, SK_MAXCAP);
    sk_arg *a = &args[n++];
    memset(a, 0, sizeof *a);
    a->name = lua_tostring(L, i);
    sk_larg(L, i + 1, a, fname, NULL, 1);
  }
  return call_args(L, name, NULL, fname, args, n, 2);
}

/* A library kernel bound to its argument names (core.bind): upvalues 1 a
 * 'lbound' (what the call needs, resolved at bind time), 2 the fallback
 * (nil or a function), 3 the view metatable, 4.. the names (kept alive
 * for lbound's pointers). Called as the public function itself, so
 * errors are at level 1 (the caller's line). */
typedef struct lbound {
  const sk_kentry_pos *ep; /* the entry when it takes these names by position */
  const void *view_mt;     /* the view metatable (upvalue 3) */
  int na;
  const char *names[SK_MAXCAP];
  char fname[128]; /* "speck.<name>" */
  char name[128];
} lbound;

static int call_done(lua_State *L, int rc, const char *name, const char *pub,
                     const char *fname, sk_kvalue *v, int kind, const char *err, int level);

static int l_bound(lua_State *L) {
  const lbound *bd = lua_touserdata(L, lua_upvalueindex(1));
  int na = bd->na, cplx = 0, nslow = 0, n = 0;
  sk_arg args[SK_MAXCAP];
  const sk_arg *pos[SK_MAXCAP];
  unsigned char slow[SK_MAXCAP];
  /* numbers and views here (a view told by its metatable, kept as an
   * upvalue: no look-up by name); anything else through one_arg below,
   * after the complex check, in order (only one_arg raises) */
  for (int i = 1; i <= na; i++) {
    int t = lua_type(L, i);
    slow[i - 1] = 0;
    pos[i - 1] = NULL;
    if (t == LUA_TNONE || t == LUA_TNIL) continue; /* absent, as in a table */
    sk_arg *a = &args[n++]; /* field by field: a whole sk_arg is 184 bytes */
    a->name = bd->names[i - 1];
    a->view = NULL;
    a->str = NULL;
    pos[i - 1] = a;
    if (t == LUA_TNUMBER) {
      a->value.c128[1] = 0;
      if (lua_isinteger(L, i)) {
        a->dtype = SK_I64;
        a->value.i64 = lua_tointeger(L, i);
      } else {
        a->dtype = SK_F64;
        a->value.f64 = lua_tonumber(L, i);
      }
      continue;
    }
    if (t == LUA_TUSERDATA && lua_getmetatable(L, i)) {
      int is_view = bd->view_mt && lua_topointer(L, -1) == bd->view_mt;
      lua_pop(L, 1);
      if (is_view) {
        a->view = lua_touserdata(L, i);
        a->dtype = 0;
        cplx |= sk_dtypes[a->view->dtype].is_complex;
        continue;
      }
    }
    memset(a, 0, sizeof *a); /* one_arg fills it */
    a->name = bd->names[i - 1];
    slow[i - 1] = 1;
    nslow++;
  }
  if (cplx && !lua_isnil(L, lua_upvalueindex(2))) { /* the complex BLAS, in Lua */
    lua_settop(L, na);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, na, LUA_MULTRET);
    return lua_gettop(L);
  }
  for (int i = 0; nslow && i < na; i++)
    if (slow[i]) sk_larg(L, i + 1, (sk_arg *)pos[i], bd->fname, NULL, 1);
  sk_kvalue v;
  int kind = SK_KRES_NONE;
  char err[4096];
  int rc = bd->ep ? sk_kernel_call_pos(bd->ep, pos, &v, &kind, err, sizeof err)
                  : sk_kernel_call_raw(bd->name, args, n, &v, &kind, err, sizeof err);
  return call_done(L, rc, bd->name, NULL, bd->fname, &v, kind, err, 1);
}

/* core.bind(name, fallback, argname1, argname2, ...): a function f(v1,
 * v2, ...) that calls library kernel 'name' with v1 as argname1 and so on
 * (core.callv's pairs, without the names on every call); when any
 * argument is a view of a complex dtype and 'fallback' is a function, f
 * returns fallback(v1, v2, ...) instead. The stdlib's BLAS-1 functions.
 * An entry that takes exactly these names by position (sk_kentry_pos) is
 * called so: no look-up of the entry or of its arguments on a call. */
static int l_bind(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  if (!lua_isnil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
  int top = lua_gettop(L), na = top - 2;
  if (na > SK_MAXCAP) return sk_lerror(L, "core.bind", NULL, SK_E_CAPTURES_MOST, na, SK_MAXCAP);
  for (int i = 3; i <= top; i++) luaL_checkstring(L, i);
  lbound *bd = lua_newuserdatauv(L, sizeof *bd, 0);
  memset(bd, 0, sizeof *bd);
  bd->na = na;
  call_fname(bd->fname, name, NULL);
  snprintf(bd->name, sizeof bd->name, "%s", name);
  for (int i = 0; i < na; i++) bd->names[i] = lua_tostring(L, 3 + i);
  const sk_kentry_pos *ep = sk_kentry_positional(sk_kernel_find(name));
  int same = ep != NULL && na <= SK_KPOS_MAX;
  for (int i = 0; same && i < na; i++)
    same = ep->params[i] && strcmp(ep->params[i], bd->names[i]) == 0;
  if (same && ep->params[na]) same = 0;
  bd->ep = same ? ep : NULL;
  /* upvalues: lbound, fallback, view metatable, names... */
  lua_pushvalue(L, 2);
  luaL_getmetatable(L, SK_VIEW_MT);
  bd->view_mt = lua_istable(L, -1) ? lua_topointer(L, -1) : NULL;
  for (int i = 3; i <= top; i++) lua_pushvalue(L, i);
  lua_pushcclosure(L, l_bound, 3 + na);
  return 1;
}

/* core.complex(v): true when v is a view of a complex dtype (anything
 * else, a non-view included, is false: no error) */
static int l_complex(lua_State *L) {
  const sk_view *v = sk_lview_test(L, 1);
  lua_pushboolean(L, v && sk_dtypes[v->dtype].is_complex);
  return 1;
}

static int call_args(lua_State *L, const char *name, const char *pub, const char *fname,
                     sk_arg *args, int n, int level) {
  sk_kvalue v;
  int kind = SK_KRES_NONE;
  char err[4096];
  int rc = sk_kernel_call_raw(name, args, n, &v, &kind, err, sizeof err);
  return call_done(L, rc, name, pub, fname, &v, kind, err, level);
}

/* the Lua results of a library call that returned 'rc' (< 0: raise 'err') */
static int call_done(lua_State *L, int rc, const char *name, const char *pub,
                     const char *fname, sk_kvalue *vp, int kind, const char *err,
                     int level) {
  if (rc < 0) {
    if (pub) lua_pushliteral(L, "");
    else luaL_where(L, level);
    /* "speck.blas.dot: ..." from a kernel; the call's own for no kernel */
    if (sk_kernel_find(name)) lua_pushfstring(L, "%s: %s", fname, err);
    else lua_pushfstring(L, "speck.call: %s", err);
    lua_concat(L, 2);
    return lua_error(L);
  }
  /* outputs first move into userdata (nothing below raises while C holds
   * them, but a failed allocation would: the views are released by __gc) */
  int nres = 1;
  if (vp->nout > 0) {
    lua_createtable(L, 0, vp->nout);
    int t = lua_gettop(L);
    for (int i = 0; i < vp->nout; i++) {
      sk_kout *o = &vp->out[i];
      if (o->is_view) {
        sk_view *u = sk_lview_new(L);
        *u = o->view;
        o->is_view = 0;
        sk_lview_gcstep(L, (size_t)sk_view_span(u) * sk_dtypes[u->dtype].size);
      } else {
        lua_pushnumber(L, o->num);
      }
      lua_setfield(L, t, o->name);
    }
    nres = 2;
  }
  if (kind == SK_KRES_F64) lua_pushnumber(L, vp->f64);
  else if (kind == SK_KRES_I64) lua_pushinteger(L, vp->i64);
  else if (nres == 2) lua_pushnil(L);
  else return 0;
  if (nres == 2) lua_insert(L, -2);
  return nres;
}

void sk_lcall_open(lua_State *L) {
  static const luaL_Reg funcs[] = {{"call", l_call},
                                   {"callv", l_callv},
                                   {"bind", l_bind},
                                   {"complex", l_complex},
                                   {NULL, NULL}};
  luaL_setfuncs(L, funcs, 0);
}
