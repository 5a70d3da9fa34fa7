/* lio.c: the Lua face of io/: speck.io.save_npy / load_npy, and
 * speck.progress, which sets how long operations report (the bar on
 * stderr is drawn here: the library itself never prints).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/err.h"
#include "vm.h"
#include "../io/io.h"

/* a value for messages: strings quoted, numbers as Lua writes them, other
 * values by their type (an absent argument is nil) */
static const char *show(lua_State *L, int idx) {
  switch (lua_type(L, idx)) {
  case LUA_TSTRING: return lua_pushfstring(L, "'%s'", lua_tostring(L, idx));
  case LUA_TNUMBER: return luaL_tolstring(L, idx, NULL);
  case LUA_TNONE: return "nil";
  default: return luaL_typename(L, idx);
  }
}

/* -- progress bar ------------------------------------------------------- */
/* mode: 0 off, 1 only when stderr is a terminal (the default), 2 always */
static int bar_mode = 1;
static const char *const mode_names[] = {"off", "auto", "on", NULL};

static void fmt_secs(char *buf, size_t n, double s) {
  if (s < 0) s = 0;
  if (s < 60) snprintf(buf, n, "%.0fs", s);
  else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(buf, n, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}

/* The hook of io/progress.c (already rate-limited there): one line
 * rewritten in place, "what [#####.....]  45%  ETA 12s", and a last one
 * with the time taken. */
static void draw_bar(const char *what, double done, double total, double elapsed,
                     int finished) {
  int mode = __atomic_load_n(&bar_mode, __ATOMIC_RELAXED);
  if (mode == 0 || (mode == 1 && !isatty(STDERR_FILENO))) return;
  double frac = total > 0 ? done / total : 1;
  if (frac < 0) frac = 0;
  if (frac > 1) frac = 1;
  enum { W = 30 };
  char bar[W + 1], tail[64], t[32];
  for (int i = 0; i < W; i++) bar[i] = i < (int)(frac * W) ? '#' : '.';
  bar[W] = '\0';
  if (finished) {
    fmt_secs(t, sizeof t, elapsed);
    snprintf(tail, sizeof tail, "done in %s", t);
  } else if (frac > 0) {
    fmt_secs(t, sizeof t, elapsed * (1 - frac) / frac);
    snprintf(tail, sizeof tail, "ETA %s", t);
  } else {
    snprintf(tail, sizeof tail, "ETA ?");
  }
  size_t wl = strlen(what);
  fprintf(stderr, "\r%s%.40s [%s] %3d%%  %-12s%s", wl > 40 ? "..." : "",
          wl > 40 ? what + wl - 40 : what, bar, (int)(frac * 100), tail,
          finished ? "\n" : "");
  fflush(stderr);
}

/* speck.progress([{mode = "auto"|"on"|"off", delay = s, interval = s}])
 * sets what is given and returns the settings as a table. */
static int l_progress(lua_State *L) {
  const char *fname = "speck.progress";
  double delay = -1, interval = -1;
  int mode = -1;
  if (!lua_isnoneornil(L, 1)) {
    if (!lua_istable(L, 1))
      return sk_lerror(L, fname, NULL, SK_E_OPTIONS_MUST_TABLE_GOT, luaL_typename(L, 1));
    static const char *const keys[] = {"delay", "interval", "mode", NULL};
    sk_lopts_check(L, 1, fname, NULL, keys);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      const char *k =
        lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "(not a string)";
      if (strcmp(k, "mode") == 0) {
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        for (int i = 0; mode_names[i]; i++)
          if (strcmp(s, mode_names[i]) == 0) mode = i;
        if (mode < 0) return sk_lerror(L, fname, NULL, SK_E_MODE_MUST_AUTO, show(L, -1));
      } else if (strcmp(k, "delay") == 0 || strcmp(k, "interval") == 0) {
        if (lua_type(L, -1) != LUA_TNUMBER || lua_tonumber(L, -1) < 0)
          return sk_lerror(L, fname, NULL, SK_E_MUST_NUMBER_SECONDS, k, show(L, -1));
        *(k[0] == 'd' ? &delay : &interval) = lua_tonumber(L, -1);
      }
      lua_pop(L, 1);
    }
  }
  if (mode >= 0) __atomic_store_n(&bar_mode, mode, __ATOMIC_RELAXED);
  sk_progress_set_timing(delay, interval);
  sk_progress_get_timing(&delay, &interval);
  lua_createtable(L, 0, 3);
  sk_lset_str(L, "mode", mode_names[__atomic_load_n(&bar_mode, __ATOMIC_RELAXED)]);
  sk_lset_num(L, "delay", delay);
  sk_lset_num(L, "interval", interval);
  return 1;
}

/* -- .npy ---------------------------------------------------------------- */
static const char *check_path(lua_State *L, const char *fname) {
  if (lua_type(L, 1) != LUA_TSTRING)
    sk_lerror(L, fname, NULL, SK_E_PATH_MUST_STRING,
              lua_isnone(L, 1) ? "nil" : luaL_typename(L, 1));
  return lua_tostring(L, 1);
}

/* speck.io.save_npy(path, view) */
static int l_save_npy(lua_State *L) {
  const char *fname = "speck.io.save_npy";
  const char *path = check_path(L, fname);
  sk_view *v = sk_lview_test(L, 2);
  if (!v) return sk_lerror(L, fname, path, SK_E_VIEW_MUST_SPECK, luaL_typename(L, 2));
  static const char *const keys[] = {NULL}; /* none yet: a third argument is refused */
  if (!lua_isnoneornil(L, 3) && !lua_istable(L, 3))
    return sk_lerror(L, fname, path, SK_E_OPTIONS_MUST_TABLE_GOT, luaL_typename(L, 3));
  sk_lopts_check(L, 3, fname, path, keys);
  char err[1024];
  if (sk_npy_save(path, v, err, sizeof err) < 0)
    return sk_lerror(L, fname, path, SK_E_MSG, err);
  return 0;
}

/* speck.io.load_npy(path [, {space =, layout =, label =}]) */
static int l_load_npy(lua_State *L) {
  const char *fname = "speck.io.load_npy";
  const char *path = check_path(L, fname);
  const char *label = NULL;
  int space = -1, layout = -1;
  if (!lua_isnoneornil(L, 2)) {
    if (!lua_istable(L, 2))
      return sk_lerror(L, fname, path, SK_E_OPTIONS_MUST_TABLE_GOT, luaL_typename(L, 2));
    static const char *const keys[] = {"label", "layout", "space", NULL};
    sk_lopts_check(L, 2, fname, path, keys);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
      const char *k =
        lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "(not a string)";
      const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      if (strcmp(k, "space") == 0) {
        space = s ? sk_space_parse(s) : -1;
        const sk_backend *b = space < 0 && s ? sk_backend_find(s) : NULL;
        if (b) space = b->space;
        if (space < 0) {
          char names[256];
          sk_space_names(names, sizeof names);
          return sk_lerror(L, fname, path, SK_E_UNKNOWN_SPACE_EXPECTED_3, show(L, -1),
                           names);
        }
      } else if (strcmp(k, "layout") == 0) {
        layout = s ? sk_layout_parse(s) : -1;
        if (layout != SK_RIGHT && layout != SK_LEFT)
          return sk_lerror(L, fname, path, SK_E_UNKNOWN_LAYOUT_EXPECTED, show(L, -1));
      } else if (strcmp(k, "label") == 0) {
        if (!s)
          return sk_lerror(L, fname, path, SK_E_LABEL_MUST_STRING, luaL_typename(L, -1));
      }
      lua_pop(L, 1);
    }
    if (lua_getfield(L, 2, "label") == LUA_TSTRING) label = lua_tostring(L, -1);
  }
  char err[1024];
  if (space < 0 && (space = sk_rt_default_space(err, sizeof err)) < 0)
    return sk_lerror(L, fname, path, SK_E_MSG, err);
  /* the userdata first, so an error leaves nothing the collector
   * does not know */
  sk_view *v = sk_lview_new(L);
  if (sk_npy_load(v, path, space, layout, label, err, sizeof err) < 0)
    return sk_lerror(L, fname, path, SK_E_MSG, err);
  int64_t n = sk_view_size(v);
  sk_lview_gcstep(L, (size_t)(n > 0 ? n : 0) * sk_dtypes[v->dtype].size);
  return 1;
}

/* speck.io.strings(bytes, offsets [, first, count]): the strings
 * bytes[offsets(i) .. offsets(i + 1)) for i = first .. first + count - 1
 * (default: all) as a Lua list -- a graph's vertex names (uint8 and int64
 * host views, as graph.read makes them) */
static int l_strings(lua_State *L) {
  const char *fname = "speck.io.strings";
  sk_view *b = sk_lview_check(L, 1), *o = sk_lview_check(L, 2);
  if (b->dtype != SK_U8 || o->dtype != SK_I64 || b->rank != 1 || o->rank != 1 ||
      !sk_space_host_accessible(b->space) || !sk_space_host_accessible(o->space))
    return sk_lerror(L, fname, NULL, SK_E_NAMES_VIEWS, (long long)o->extent[0]);
  int64_t n = o->extent[0] - 1;
  lua_Integer first = luaL_optinteger(L, 3, 0), count = luaL_optinteger(L, 4, n - first);
  if (first < 0 || count < 0 || first + count > n)
    return sk_lerror(L, fname, NULL, SK_E_STRINGS_RANGE, (long long)first,
                     (long long)count, (long long)n);
  const int64_t *off = o->data;
  const char *bytes = b->data;
  lua_createtable(L, (int)count, 0);
  for (lua_Integer i = 0; i < count; i++) {
    int64_t a = off[first + i], e = off[first + i + 1];
    if (a < 0 || e < a || e > b->extent[0])
      return sk_lerror(L, fname, NULL, SK_E_STRINGS_RANGE, (long long)first + i, 1LL,
                       (long long)n);
    lua_pushlstring(L, bytes + a, (size_t)(e - a));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* speck.io.pack_strings(list) -> bytes, offsets: the strings of a Lua
 * list packed as speck.io.strings reads them (host uint8 and int64 views) */
static int l_pack_strings(lua_State *L) {
  const char *fname = "speck.io.pack_strings";
  char err[1024];
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1);
  size_t total = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    size_t len;
    if (lua_rawgeti(L, 1, i) != LUA_TSTRING)
      return sk_lerror(L, fname, NULL, SK_E_PACK_NOT_STRING, (long long)i,
                       luaL_typename(L, -1));
    lua_tolstring(L, -1, &len);
    total += len;
    lua_pop(L, 1);
  }
  int64_t eb[1] = {total > 0 ? (int64_t)total : 1}, eo[1] = {(int64_t)n + 1};
  sk_view *b = sk_lview_new(L);
  if (sk_view_create(b, "names", SK_U8, 1, eb, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                     sizeof err) < 0)
    return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  sk_view *o = sk_lview_new(L);
  if (sk_view_create(o, "name offsets", SK_I64, 1, eo, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                     sizeof err) < 0)
    return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  sk_lview_gcstep(L, total + 8 * ((size_t)n + 1));
  char *pb = b->data;
  int64_t *po = o->data, at = 0;
  po[0] = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    size_t len;
    lua_rawgeti(L, 1, i);
    const char *s = lua_tolstring(L, -1, &len);
    memcpy(pb + at, s, len);
    at += (int64_t)len;
    po[i] = at;
    lua_pop(L, 1);
  }
  return 2;
}

static const luaL_Reg io_funcs[] = {
  {"save_npy", l_save_npy}, {"load_npy", l_load_npy}, {"strings", l_strings}, {"pack_strings", l_pack_strings}, {NULL, NULL}};

void sk_lio_close(void) { sk_progress_set_hook(NULL); }

void sk_lio_open(lua_State *L) {
  sk_progress_set_hook(draw_bar);
  luaL_newlib(L, io_funcs);
  lua_setfield(L, -2, "io");
  lua_pushcfunction(L, l_progress);
  lua_setfield(L, -2, "progress");
}
