/* lcapture.c: replayed launch sequences from Lua (speck.graph_capture).
 *
 *   local g = speck.graph_capture(function() ... end [, {warm = true, label = "step"}])
 *   g:replay([n])   g:info()   g:free()   tostring(g)
 *
 * A back end that records (its table's capture entries: a GPU's graphs)
 * gets the function run once as it is ('warm': its kernels compile and
 * load, its scratch grows, what it would refuse is refused while nothing
 * is recorded yet), then once more while the back end records; replay
 * runs the recording. A host back end records nothing: the function runs
 * once at the capture and again at every replay, with the same refusals
 * (core/runtime.h: sk_capture_refuse), so code that captures on the host
 * captures on a device. The handle keeps the function (and so the views
 * its upvalues hold) alive.
 */
#include <string.h>

#include "exec/exec.h"
#include "vm.h"

#define SK_LGRAPH_MT "speck.LaunchGraph"

typedef struct lgraph {
  sk_launch_graph *g;
  int freed;
  char label[64];
} lgraph;

/* raise 'msg' (already named) at the caller's line */
static int raise_msg(lua_State *L, const char *msg) {
  luaL_where(L, 1);
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

/* One run of the function at 'fn' inside a capture ('record': the back end
 * records when it can). An error in it abandons the capture and is raised
 * again as it was. 'out' NULL: the capture is abandoned after the run;
 * else *out is its handle. */
static void run_pass(lua_State *L, int fn, int record, sk_launch_graph **out) {
  char err[2048];
  if (sk_capture_begin(record, err, sizeof err) < 0) raise_msg(L, err);
  lua_pushvalue(L, fn);
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    sk_capture_end(1, NULL, NULL, 0);
    lua_error(L);
  }
  if (sk_capture_end(out == NULL, out, err, sizeof err) < 0) raise_msg(L, err);
}

/* speck.graph_capture(fn [, opts]) */
static int l_graph_capture(lua_State *L) {
  const char *fname = "speck.graph_capture";
  char err[2048];
  if (lua_type(L, 1) != LUA_TFUNCTION)
    return sk_lerror(L, fname, NULL, SK_E_CAPTURE_NOT_FUNCTION, luaL_typename(L, 1));
  int warm = 1;
  const char *label = "graph";
  if (!lua_isnoneornil(L, 2)) {
    static const char *const keys[] = {"label", "warm", NULL};
    if (lua_type(L, 2) != LUA_TTABLE)
      return sk_lerror(L, fname, NULL, SK_E_OPTIONS_MUST_TABLE, luaL_typename(L, 2));
    sk_lopts_check(L, 2, fname, NULL, keys);
    int t = lua_getfield(L, 2, "warm");
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
      return sk_lerror(L, fname, NULL, SK_E_CAPTURE_WARM_BOOLEAN, luaL_typename(L, -1));
    if (t == LUA_TBOOLEAN) warm = lua_toboolean(L, -1);
    t = lua_getfield(L, 2, "label");
    if (t != LUA_TNIL && t != LUA_TSTRING)
      return sk_lerror(L, fname, NULL, SK_E_CAPTURE_LABEL_STRING, luaL_typename(L, -1));
    if (t == LUA_TSTRING) label = lua_tostring(L, -1);
    lua_pop(L, 2);
  }
  if (sk_capture_mode() != SK_CAPTURE_OFF) {
    sk_err(err, sizeof err, SK_E_CAPTURE_NESTED);
    return raise_msg(L, err);
  }
  lua_settop(L, 2);
  lgraph *h = lua_newuserdatauv(L, sizeof *h, 1);
  memset(h, 0, sizeof *h);
  snprintf(h->label, sizeof h->label, "%s", label);
  luaL_setmetatable(L, SK_LGRAPH_MT);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  sk_launch_graph *g = NULL;
  if (sk_capture_records()) {
    if (warm) run_pass(L, 1, 0, NULL);
    run_pass(L, 1, 1, &g);
  } else if (warm) {
    run_pass(L, 1, 0, &g);
  } else { /* nothing runs: an empty handle; replays run the function */
    if (sk_capture_begin(0, err, sizeof err) < 0 ||
        sk_capture_end(0, &g, err, sizeof err) < 0)
      return raise_msg(L, err);
  }
  h->g = g;
  return 1;
}

static lgraph *check(lua_State *L, const char *fname) {
  lgraph *h = luaL_testudata(L, 1, SK_LGRAPH_MT);
  if (!h) {
    sk_lerror(L, fname, NULL, SK_E_CAPTURE_NOT_HANDLE, luaL_typename(L, 1));
    return NULL;
  }
  if (h->freed || !h->g) sk_lerror(L, fname, h->label, SK_E_CAPTURE_FREED);
  return h;
}

/* g:replay([n]): run what was captured n times (1) */
static int l_replay(lua_State *L) {
  const char *fname = "LaunchGraph:replay";
  lgraph *h = check(L, fname);
  if (sk_capture_mode() != SK_CAPTURE_OFF)
    return sk_lerror(L, fname, h->label, SK_E_CAPTURE_NESTED);
  lua_Integer n = 1;
  if (!lua_isnoneornil(L, 2)) {
    int ok = 0;
    n = lua_type(L, 2) == LUA_TNUMBER ? lua_tointegerx(L, 2, &ok) : 0;
    if (!ok || n < 0) {
      char b[64];
      if (lua_type(L, 2) == LUA_TNUMBER) snprintf(b, sizeof b, "%s", lua_tostring(L, 2));
      else snprintf(b, sizeof b, "%s", luaL_typename(L, 2));
      return sk_lerror(L, fname, h->label, SK_E_CAPTURE_REPLAY_COUNT, b);
    }
  }
  char err[2048];
  if (h->g->seq) {
    if (sk_capture_replay(h->g, (int64_t)n, err, sizeof err) < 0)
      return sk_lerror(L, fname, h->label, SK_E_MSG, err);
    return 0;
  }
  /* nothing recorded: the function again, with a capture's refusals */
  lua_settop(L, 1);
  lua_getiuservalue(L, 1, 1);
  for (lua_Integer i = 0; i < n; i++) {
    sk_launch_graph *t = NULL;
    run_pass(L, 2, 0, &t);
    h->g->launches = t->launches;
    h->g->copies = t->copies;
    h->g->replays++;
    sk_capture_free(t);
  }
  return 0;
}

/* g:info(): what was captured */
static int l_info(lua_State *L) {
  lgraph *h = check(L, "LaunchGraph:info");
  const sk_launch_graph *g = h->g;
  lua_createtable(L, 0, 7);
  sk_lset_str(L, "label", h->label);
  sk_lset_str(L, "backend", g->backend ? g->backend->name : "?");
  lua_pushboolean(L, g->seq != NULL);
  lua_setfield(L, -2, "recorded");
  lua_pushinteger(L, (lua_Integer)g->launches);
  lua_setfield(L, -2, "kernels");
  lua_pushinteger(L, (lua_Integer)g->copies);
  lua_setfield(L, -2, "copies");
  lua_pushinteger(L, (lua_Integer)g->nodes);
  lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, (lua_Integer)g->replays);
  lua_setfield(L, -2, "replays");
  return 1;
}

static void release(lgraph *h) {
  if (h->g) sk_capture_free(h->g);
  h->g = NULL;
  h->freed = 1;
}

/* g:free(): give the recording back (the handle cannot replay after) */
static int l_free(lua_State *L) {
  lgraph *h = luaL_testudata(L, 1, SK_LGRAPH_MT);
  if (!h)
    return sk_lerror(L, "LaunchGraph:free", NULL, SK_E_CAPTURE_NOT_HANDLE,
                     luaL_typename(L, 1));
  release(h);
  return 0;
}

static int l_gc(lua_State *L) {
  release(luaL_checkudata(L, 1, SK_LGRAPH_MT));
  return 0;
}

static int l_tostring(lua_State *L) {
  lgraph *h = luaL_checkudata(L, 1, SK_LGRAPH_MT);
  if (!h->g) {
    lua_pushfstring(L, "LaunchGraph '%s' (freed)", h->label);
    return 1;
  }
  lua_pushfstring(L, "LaunchGraph '%s' (%s, %d kernels, %s)", h->label,
                  h->g->backend ? h->g->backend->name : "?", (int)h->g->launches,
                  h->g->seq ? "recorded" : "runs the function again");
  return 1;
}

void sk_lcapture_open(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"replay", l_replay}, {"info", l_info}, {"free", l_free}, {NULL, NULL}};
  sk_lclass(L, SK_LGRAPH_MT, methods, l_gc, 1, l_tostring);
  lua_pushcfunction(L, l_graph_capture);
  lua_setfield(L, -2, "graph_capture");
}
