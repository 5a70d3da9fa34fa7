/* lview.c: the Lua face of views (speck.View, subview, deep_copy, mirrors,
 * resize/realloc and the dtype constants).
 *
 * A view is a full userdata holding one 'sk_view' (metatable SK_VIEW_MT)
 * with one user value: the Lua object that owns wrapped external memory,
 * kept alive as long as the view. The allocation itself is reference
 * counted in C and dropped by __gc / __close. Every C call that can fail
 * happens while nothing is owned by C alone: a new view is pushed (empty)
 * before it is allocated, so an error at any point leaves only garbage the
 * collector understands (STYLE point 7).
 *
 * Indices are 0-based, as in C and the kernel bodies; nested Lua tables
 * (View.from, totable) are ordinary 1-based sequences.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "vm.h"

/* -- messages ---------------------------------------------------------- */
/* Every message raised here, in one place. They are raised as
 * "<function> 'label': <message>" at the caller's file:line. */
#define LE_SPACE "unknown space %s (expected %s)" /* the spaces' names */
#define ERRLEN   512

static int lv_raise_(lua_State *L, const char *fname, const char *label, int id, ...);
#define lv_raise(a0, a1, a2, id, ...) \
  (SK_ERRCHK(id, ##__VA_ARGS__), lv_raise_(a0, a1, a2, id, ##__VA_ARGS__))

/* Raise "fname 'label': message" (or "fname: message" without a label) at
 * the calling Lua line. Messages are formatted on the C stack: nothing
 * here is left to free when lua_error jumps. */
static int lv_raise_(lua_State *L, const char *fname, const char *label, int id, ...) {
  char msg[ERRLEN];
  va_list ap;
  va_start(ap, id);
  sk_verr(msg, sizeof msg, id, ap);
  va_end(ap);
  luaL_where(L, 1);
  if (label) lua_pushfstring(L, "%s '%s': %s", fname, label, msg);
  else lua_pushfstring(L, "%s: %s", fname, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

/* A short rendering of the value at 'idx' for messages: numbers as Lua
 * prints them, strings quoted, other values as "a table" and the like. */
static const char *show(lua_State *L, int idx, char *buf, size_t n) {
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      snprintf(buf, n, "%lld", (long long)lua_tointeger(L, idx));
    } else {
      snprintf(buf, n, "%.14g", (double)lua_tonumber(L, idx));
      if (buf[strspn(buf, "-0123456789")] == 0 && strlen(buf) + 3 <= n) strcat(buf, ".0");
    }
    break;
  case LUA_TBOOLEAN:
    snprintf(buf, n, "%s", lua_toboolean(L, idx) ? "true" : "false");
    break;
  case LUA_TNIL:
  case LUA_TNONE: snprintf(buf, n, "nil"); break;
  case LUA_TSTRING: snprintf(buf, n, "'%.40s'", lua_tostring(L, idx)); break;
  default:
    if (sk_lview_test(L, idx)) snprintf(buf, n, "a view");
    else snprintf(buf, n, "a %s", luaL_typename(L, idx));
  }
  return buf;
}

/* -- userdata ---------------------------------------------------------- */
static void push_mt(lua_State *L);

sk_view *sk_lview_test(lua_State *L, int idx) {
  return (sk_view *)luaL_testudata(L, idx, SK_VIEW_MT);
}

sk_view *sk_lview_check(lua_State *L, int idx) {
  sk_view *v = sk_lview_test(L, idx);
  if (!v) luaL_typeerror(L, idx, "speck.View");
  return v;
}

sk_view *sk_lview_new(lua_State *L) {
  sk_view *v = (sk_view *)lua_newuserdatauv(L, sizeof *v, 1);
  memset(v, 0, sizeof *v);
  push_mt(L);
  lua_setmetatable(L, -2);
  return v;
}

/* Make the collector pay for 'bytes' of memory it cannot see: a view's
 * userdata is ~1 KB whatever its size, so without this a loop allocating
 * large views would only be collected when Lua's own heap grew. */
void sk_lview_gcstep(lua_State *L, size_t bytes) {
  size_t kb = bytes >> 10;
  if (kb == 0) return;
  if (kb > (size_t)1 << 22) kb = (size_t)1 << 22; /* 4 GB per step */
  lua_gc(L, LUA_GCSTEP, (int)kb);
}

/* -- value conversion -------------------------------------------------- */
/* Convert the Lua value at 'idx' for a store into a view of 'dtype'.
 * Returns 0 with 'd' / 'i' set, or -1 with 'why' holding "cannot store X
 * in T (reason)" minus the prefix: "X", "T" and the reason in 3 parts. */
typedef struct conv {
  double d;
  double im; /* complex dtypes: the imaginary part */
  int64_t i;
  char what[64];   /* the value as shown */
  const char *why; /* " (not an integer)" etc. */
  char range[96];
} conv;

static const int64_t int_lo[SK_NDTYPE] = {0,        0, INT64_MIN, INT32_MIN, INT16_MIN,
                                          INT8_MIN, 0, 0,         0,         0};
static const int64_t int_hi[SK_NDTYPE] = {0,        0, INT64_MAX,  INT32_MAX, INT16_MAX,
                                          INT8_MAX, 0, UINT32_MAX, UINT8_MAX, 1};

static int to_value(lua_State *L, int idx, int dtype, conv *c) {
  const sk_dtype_info *t = &sk_dtypes[dtype];
  int type = lua_type(L, idx);
  c->d = 0;
  c->im = 0;
  c->i = 0;
  c->why = "";
  if (t->is_complex) { /* a number, {re, im} or {re = x, im = y} */
    if (type == LUA_TNUMBER) {
      c->d = lua_tonumber(L, idx);
      return 0;
    }
    if (type == LUA_TTABLE) {
      int ok = 1, nf = 0;
      for (int k = 0; k < 2 && ok; k++) {
        int ty = lua_rawgeti(L, idx, k + 1);
        if (ty == LUA_TNIL) {
          lua_pop(L, 1);
          ty = lua_getfield(L, idx, k ? "im" : "re");
        }
        if (ty == LUA_TNUMBER) (k ? &c->im : &c->d)[0] = lua_tonumber(L, -1), nf++;
        else ok = ty == LUA_TNIL && k == 1; /* {re} alone: im = 0 */
        lua_pop(L, 1);
      }
      if (ok && nf > 0) return 0;
    }
    show(L, idx, c->what, sizeof c->what);
    c->why = " (use a number, {re, im} or {re = x, im = y})";
    return -1;
  }
  if (t->is_bool) {
    if (type == LUA_TBOOLEAN) {
      c->i = lua_toboolean(L, idx);
      return 0;
    }
    if (type == LUA_TNUMBER) {
      lua_Number x = lua_tonumber(L, idx);
      if (x == 0 || x == 1) {
        c->i = x == 1;
        return 0;
      }
    }
    show(L, idx, c->what, sizeof c->what);
    c->why = type == LUA_TNUMBER ? " (use true, false, 0 or 1)" : "";
    return -1;
  }
  if (type != LUA_TNUMBER) {
    show(L, idx, c->what, sizeof c->what);
    return -1;
  }
  if (t->is_float) {
    c->d = lua_tonumber(L, idx);
    c->i = lua_isinteger(L, idx) ? lua_tointeger(L, idx) : 0;
    return 0;
  }
  show(L, idx, c->what, sizeof c->what);
  if (dtype == SK_U64)
    sk_err(c->range, sizeof c->range, SK_E_OUT_RANGE_UINT,
           (unsigned long long)UINT64_MAX);
  else
    sk_err(c->range, sizeof c->range, SK_E_OUT_RANGE_INT, (long long)int_lo[dtype],
           (long long)int_hi[dtype]);
  if (lua_isinteger(L, idx)) {
    c->i = lua_tointeger(L, idx);
  } else {
    double x = lua_tonumber(L, idx);
    if (!isfinite(x) || x != floor(x)) {
      c->why = " (not an integer)";
      return -1;
    }
    if (dtype == SK_U64 && x >= 0 && x < 18446744073709551616.0) {
      c->i = (int64_t)(uint64_t)x;
      return 0;
    }
    if (x < -9223372036854775808.0 || x >= 9223372036854775808.0) {
      c->why = c->range;
      return -1;
    }
    c->i = (int64_t)x;
  }
  if (dtype == SK_U64 ? c->i < 0 : (c->i < int_lo[dtype] || c->i > int_hi[dtype])) {
    c->why = c->range;
    return -1;
  }
  return 0;
}

static void store(sk_view *v, int64_t off, const conv *c) {
  sk_alloc_written(v->alloc);
  if (sk_dtypes[v->dtype].is_complex) sk_view_set_c(v, off, c->d, c->im);
  else if (sk_dtypes[v->dtype].is_float) sk_view_set_f(v, off, c->d);
  else sk_view_set_i(v, off, c->i);
}

/* the rank the user sees (an aggregate view's hidden dimension hidden) */
static int urank(const sk_view *v) { return v->rank - (v->agg ? 1 : 0); }

static void push_elem(lua_State *L, const sk_view *v, int64_t off) {
  const sk_dtype_info *t = &sk_dtypes[v->dtype];
  if (v->agg) { /* a table of the components: fad {value, d1.., dN} */
    int w = sk_agg_width(v->agg, v->agg_n);
    lua_createtable(L, w, 0);
    for (int c = 0; c < w; c++) {
      lua_pushnumber(L, sk_view_get_f(v, off + c));
      lua_rawseti(L, -2, c + 1);
    }
    return;
  }
  if (t->is_complex) { /* {re, im} */
    double re, im;
    sk_view_get_c(v, off, &re, &im);
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, re);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, im);
    lua_rawseti(L, -2, 2);
  } else if (t->is_bool) {
    lua_pushboolean(L, sk_view_get_i(v, off) != 0);
  } else if (t->is_float) {
    lua_pushnumber(L, sk_view_get_f(v, off));
  } else if (v->dtype == SK_U64) {
    uint64_t u = (uint64_t)sk_view_get_i(v, off);
    if (u > (uint64_t)INT64_MAX) lua_pushnumber(L, (lua_Number)u);
    else lua_pushinteger(L, (lua_Integer)u);
  } else {
    lua_pushinteger(L, sk_view_get_i(v, off));
  }
}

/* -- argument checks --------------------------------------------------- */
/* A dtype that may be an aggregate ("fad(N)", "ensemble(N)"): the
 * component dtype, with *agg and *n set (0 for plain dtypes). */
static int check_dtype_agg(lua_State *L, int idx, const char *fname, const char *label,
                           int *agg, int *n) {
  char b[64];
  *agg = *n = 0;
  if (lua_type(L, idx) == LUA_TSTRING) {
    int st = sk_agg_parse(lua_tostring(L, idx), agg, n);
    if (st == -2)
      lv_raise(L, fname, label, SK_E_DTYPE_N_MUST, show(L, idx, b, sizeof b),
               SK_AGG_MAXN);
    if (st == 0) return SK_F64;
  }
  int t = lua_type(L, idx) == LUA_TSTRING ? sk_dtype_parse(lua_tostring(L, idx)) : -1;
  if (t < 0)
    lv_raise(L, fname, label, SK_E_UNKNOWN_DTYPE_SHOWN, show(L, idx, b, sizeof b));
  return t;
}

static int check_dtype(lua_State *L, int idx, const char *fname, const char *label) {
  char b[64];
  int t = lua_type(L, idx) == LUA_TSTRING ? sk_dtype_parse(lua_tostring(L, idx)) : -1;
  if (t < 0)
    lv_raise(L, fname, label, SK_E_UNKNOWN_DTYPE_SHOWN, show(L, idx, b, sizeof b));
  return t;
}

/* A non-negative integer (floats with an integral value count). */
static int get_extent(lua_State *L, int idx, int64_t *n) {
  int ok = 0;
  if (lua_type(L, idx) != LUA_TNUMBER) return 0;
  lua_Integer x = lua_tointegerx(L, idx, &ok);
  if (!ok || x < 0) return 0;
  *n = x;
  return 1;
}

/* dims: an integer (rank 1) or a table of 0..8 extents; returns the rank */
static int check_dims(lua_State *L, int idx, const char *fname, const char *label,
                      int64_t *ext) {
  char b[64];
  if (lua_type(L, idx) == LUA_TNUMBER) {
    if (!get_extent(L, idx, &ext[0]))
      lv_raise(L, fname, label, SK_E_EXTENT_MUST_NON_NEGATIVE, 0,
               show(L, idx, b, sizeof b));
    return 1;
  }
  if (!lua_istable(L, idx))
    lv_raise(L, fname, label, SK_E_DIMS_MUST_INTEGER, show(L, idx, b, sizeof b));
  lua_Integer rank = (lua_Integer)lua_rawlen(L, idx);
  if (rank > SK_MAXRANK)
    lv_raise(L, fname, label, SK_E_RANK_EXCEEDS_MAXIMUM, (int)rank, SK_MAXRANK);
  for (int d = 0; d < rank; d++) {
    lua_rawgeti(L, idx, d + 1);
    if (!get_extent(L, -1, &ext[d]))
      lv_raise(L, fname, label, SK_E_EXTENT_MUST_NON_NEGATIVE, d,
               show(L, -1, b, sizeof b));
    lua_pop(L, 1);
  }
  return (int)rank;
}

/* The view must have memory the CPU can touch. */
static void check_host(lua_State *L, const sk_view *v, const char *fname) {
  if (sk_capture_mode())
    lv_raise(L, fname, v->label, SK_E_CAPTURE_NEEDS_HOST, "an element access from Lua",
             "the host would see the memory before a replay writes it");
  if (!sk_space_host_accessible(v->space))
    lv_raise(L, fname, v->label, SK_E_LIVES_SPACE_NOT, sk_space_name(v->space));
  if (!v->data && sk_view_size(v) > 0)
    lv_raise(L, fname, v->label, SK_E_NO_MEMORY_RELEASED);
}

/* Element offset from 'n' Lua indices starting at stack slot 'first'. */
static int64_t elem_offset(lua_State *L, const sk_view *v, int first, int n) {
  char b[64];
  int64_t idx[SK_MAXRANK] = {0};
  check_host(L, v, "View");
  if (n != urank(v))
    lv_raise(L, "View", v->label, SK_E_RANK_INDEXED, urank(v), n,
             n == 1 ? "index" : "indices");
  for (int d = 0; d < n; d++) {
    int ok = 0;
    lua_Integer x =
      lua_type(L, first + d) == LUA_TNUMBER ? lua_tointegerx(L, first + d, &ok) : 0;
    if (!ok)
      lv_raise(L, "View", v->label, SK_E_INDEX_MUST_INTEGER, d,
               show(L, first + d, b, sizeof b));
    if (x < 0 || x >= v->extent[d])
      lv_raise(L, "View", v->label, SK_E_INDEX_OUT_RANGE, d, (long long)x,
               (long long)v->extent[d]);
    idx[d] = x;
  }
  return sk_view_offset(v, idx);
}

/* an aggregate element: a number (fad: the value, derivatives 0; an
 * ensemble: every member) or a table of all the components */
static void store_agg(lua_State *L, sk_view *v, int64_t off, int idx, const char *fname) {
  char b[64], dn[32];
  int w = sk_agg_width(v->agg, v->agg_n);
  double x[SK_AGG_MAXN + 1];
  if (lua_type(L, idx) == LUA_TNUMBER) {
    double d = lua_tonumber(L, idx);
    for (int c = 0; c < w; c++) x[c] = v->agg == SK_AGG_FAD && c ? 0 : d;
  } else {
    int ok = lua_istable(L, idx) && (int)lua_rawlen(L, idx) == w;
    for (int c = 0; ok && c < w; c++) {
      lua_rawgeti(L, idx, c + 1);
      ok = lua_type(L, -1) == LUA_TNUMBER;
      x[c] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    if (!ok)
      lv_raise(L, fname, v->label, SK_E_CANNOT_STORE_NUMBER, show(L, idx, b, sizeof b),
               sk_view_dtype_name(v, dn, sizeof dn), w);
  }
  sk_alloc_written(v->alloc);
  for (int c = 0; c < w; c++) sk_view_set_f(v, off + c, x[c]);
}

static void store_at(lua_State *L, sk_view *v, int64_t off, int idx, const char *fname) {
  conv c;
  if (v->agg) {
    store_agg(L, v, off, idx, fname);
    return;
  }
  if (to_value(L, idx, v->dtype, &c) < 0)
    lv_raise(L, fname, v->label, SK_E_CANNOT_STORE, c.what, sk_dtypes[v->dtype].name,
             c.why);
  store(v, off, &c);
}

/* Resolve a space name: a memory space or a back end's name. */
int sk_lview_space(lua_State *L, int idx, const char *fname, const char *label) {
  char b[64];
  const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
  int sp = sk_space_parse(s);
  if (sp < 0 && s) {
    const sk_backend *be = sk_backend_find(s);
    if (be) sp = be->space;
  }
  if (sp < 0) {
    char names[256];
    sk_space_names(names, sizeof names);
    lv_raise(L, fname, label, SK_E_UNKNOWN_SPACE_EXPECTED_3, show(L, idx, b, sizeof b),
             names);
  }
  return sp;
}

static int default_space(lua_State *L, const char *fname, const char *label) {
  char err[256] = "";
  int sp = sk_rt_default_space(err, sizeof err);
  if (sp < 0) lv_raise(L, fname, label, SK_E_MSG, err);
  return sp;
}

/* -- options ----------------------------------------------------------- */
typedef struct lopts {
  int layout, space, init; /* -1: not given */
  int ntile;               /* tiled layout: the number of tile sizes */
  int64_t tile[SK_MAXRANK];
  int nstride; /* layout = {stride = {...}}: the number of strides */
  int64_t stride[SK_MAXRANK];
  unsigned traits;
  int data; /* stack index of the data value, 0: none */
  const char *label;
} lopts;

static int opt_bool(lua_State *L, const char *key, const char *fname, const char *label) {
  char b[64];
  if (!lua_isboolean(L, -1))
    lv_raise(L, fname, label, SK_E_OPTION_MUST_BOOLEAN, key, show(L, -1, b, sizeof b));
  return lua_toboolean(L, -1);
}

/* layout = {tile = {t0, t1 [, t2]} [, order = 'right' | 'left']} at the
 * top of the stack (sizes are checked by sk_view_create_tiled) */
/* layout = {stride = {s1, ..., sr}}: a LayoutStride view's strides */
static void parse_strides(lua_State *L, int t, const char *fname, const char *label,
                          lopts *o) {
  char b[64];
  lua_getfield(L, t, "stride");
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  if (!lua_istable(L, -1) || n < 1 || n > SK_MAXRANK)
    lv_raise(L, fname, label, SK_E_STRIDE_COUNT, (int)n, n == 1 ? "" : "s", -1);
  for (int d = 0; d < n; d++) {
    int ok = 0;
    lua_rawgeti(L, -1, d + 1);
    lua_Integer x = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &ok) : 0;
    if (!ok)
      lv_raise(L, fname, label, SK_E_STRIDE_ENTRY_MUST, d + 1, show(L, -1, b, sizeof b));
    o->stride[d] = x;
    lua_pop(L, 1);
  }
  o->nstride = (int)n;
  lua_pop(L, 1);
}

static void parse_tiled(lua_State *L, const char *fname, const char *label, lopts *o) {
  char b[64];
  int t = lua_gettop(L), tiled = 0, strided = 0;
  lua_pushnil(L);
  while (lua_next(L, t)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
    if (strcmp(k, "stride") == 0) strided = 1;
    else if (strcmp(k, "tile") == 0 || strcmp(k, "order") == 0) tiled = 1;
    else lv_raise(L, fname, label, SK_E_UNKNOWN_LAYOUT_KEY, show(L, -2, b, sizeof b));
    lua_pop(L, 1);
  }
  if (strided && tiled) lv_raise(L, fname, label, SK_E_LAYOUT_TABLE_KIND);
  if (strided) {
    parse_strides(L, t, fname, label, o);
    return;
  }
  if (lua_getfield(L, t, "tile") != LUA_TTABLE)
    lv_raise(L, fname, label, SK_E_LAYOUT_TABLE_NEEDS, show(L, -1, b, sizeof b));
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  if (n < 1 || n > SK_MAXRANK)
    lv_raise(L, fname, label, SK_E_LAYOUT_TABLE_NEEDS, show(L, -1, b, sizeof b));
  for (int d = 0; d < n; d++) {
    int ok = 0;
    lua_rawgeti(L, -1, d + 1);
    lua_Integer x = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &ok) : 0;
    if (!ok)
      lv_raise(L, fname, label, SK_E_LAYOUT_TILE_MUST, d + 1, show(L, -1, b, sizeof b));
    o->tile[d] = x;
    lua_pop(L, 1);
  }
  o->ntile = (int)n;
  lua_pop(L, 1);
  o->layout = -1;
  if (lua_getfield(L, t, "order") != LUA_TNIL) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    o->layout = sk_layout_parse(s);
    if (o->layout != SK_RIGHT && o->layout != SK_LEFT)
      lv_raise(L, fname, label, SK_E_LAYOUT_ORDER_EXPECTED, show(L, -1, b, sizeof b));
  }
  lua_pop(L, 1);
}

/* Read the options table at 'idx' (absent or nil: defaults). The data
 * value, if any, is left on the stack and its index stored in o->data. */
static void parse_opts(lua_State *L, int idx, const char *fname, const char *label,
                       int allow_data, lopts *o) {
  char b[64];
  o->layout = o->space = o->init = -1;
  o->ntile = 0;
  o->nstride = 0;
  o->traits = 0;
  o->data = 0;
  o->label = NULL;
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx))
    lv_raise(L, fname, label, SK_E_OPTIONS_MUST_TABLE_GOT, show(L, idx, b, sizeof b));
  idx = lua_absindex(L, idx);
  static const char *const keys[] = {"atomic",   "data",   "init",
                                     "label",    "layout", "random_access",
                                     "restrict", "space",  NULL};
  /* View.from: no 'data' */
  static const char *const from_keys[] = {"atomic",        "init",     "label", "layout",
                                          "random_access", "restrict", "space", NULL};
  sk_lopts_check(L, idx, fname, label, allow_data ? keys : from_keys);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
    if (strcmp(k, "layout") == 0 && lua_istable(L, -1)) {
      parse_tiled(L, fname, label, o);
    } else if (strcmp(k, "layout") == 0) {
      const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      o->layout = sk_layout_parse(s);
      if (o->layout == SK_STRIDE) lv_raise(L, fname, label, SK_E_LAYOUT_STRIDE_ONLY);
      if (o->layout < 0)
        lv_raise(L, fname, label, SK_E_UNKNOWN_LAYOUT_EXPECTED, show(L, -1, b, sizeof b));
    } else if (strcmp(k, "space") == 0) {
      o->space = sk_lview_space(L, -1, fname, label);
    } else if (strcmp(k, "init") == 0) {
      o->init = opt_bool(L, k, fname, label);
    } else if (strcmp(k, "atomic") == 0) {
      if (opt_bool(L, k, fname, label)) o->traits |= SK_TRAIT_ATOMIC;
    } else if (strcmp(k, "random_access") == 0) {
      if (opt_bool(L, k, fname, label)) o->traits |= SK_TRAIT_RANDOM;
    } else if (strcmp(k, "restrict") == 0) {
      if (opt_bool(L, k, fname, label)) o->traits |= SK_TRAIT_RESTRICT;
    } else if (strcmp(k, "label") == 0) {
      if (lua_type(L, -1) != LUA_TSTRING)
        lv_raise(L, fname, label, SK_E_LABEL_MUST_STRING, show(L, -1, b, sizeof b));
    }
    lua_pop(L, 1);
  }
  /* the label string stays on the stack while it is used */
  if (lua_getfield(L, idx, "label") == LUA_TSTRING) o->label = lua_tostring(L, -1);
  if (allow_data && lua_getfield(L, idx, "data") != LUA_TNIL) {
    int t = lua_type(L, -1);
    /* LUA_TCDATA (10) exists under LuaJIT only: FFI pointers */
    if (t != LUA_TLIGHTUSERDATA && t != LUA_TUSERDATA && t != 10)
      lv_raise(L, fname, label, SK_E_OPTION_DATA_MUST, show(L, -1, b, sizeof b));
    o->data = lua_gettop(L);
  } else if (allow_data) {
    lua_pop(L, 1);
  }
}

/* -- creating views ---------------------------------------------------- */
/* Push a new view described by the arguments and 'o' (data and the
 * defaults resolved here); raises on any error. */
static sk_view *push_view(lua_State *L, const char *fname, const char *label, int dtype,
                          int rank, const int64_t *ext, const lopts *o) {
  char err[ERRLEN];
  void *ptr = NULL;
  const sk_view *src = NULL;
  int space = o->space;
  if (o->data) {
    src = sk_lview_test(L, o->data);
    if (src) ptr = src->data;
    else if (lua_type(L, o->data) == 10) ptr = (void *)lua_topointer(L, o->data);
    else ptr = lua_touserdata(L, o->data);
    if (space < 0) space = src ? src->space : SK_SPACE_HOST;
  }
  if (space < 0) space = default_space(L, fname, label);
  int layout = o->layout >= 0 ? o->layout : sk_space_default_layout(space);
  if (o->nstride) {
    if (o->data) lv_raise(L, fname, label, SK_E_OPTION_DATA_NOT_ACCEPTED, "strided");
    if (o->nstride != rank)
      lv_raise(L, fname, label, SK_E_STRIDE_COUNT, o->nstride, o->nstride == 1 ? "" : "s",
               rank);
    sk_view *v = sk_lview_new(L);
    if (sk_view_create_strided(v, label, dtype, rank, ext, o->stride, space, o->init != 0,
                               err, sizeof err) < 0)
      lv_raise(L, fname, label, SK_E_MSG, err);
    v->traits |= o->traits;
    return v;
  }
  if (o->ntile) {
    char err[ERRLEN];
    if (o->data) lv_raise(L, fname, label, SK_E_OPTION_DATA_NOT_ACCEPTED, "tiled");
    if (o->ntile != rank)
      lv_raise(L, fname, label, SK_E_LAYOUT_TILE_SIZE, o->ntile, o->ntile == 1 ? "" : "s",
               rank);
    sk_view *v = sk_lview_new(L);
    if (sk_view_create_tiled(v, label, dtype, rank, ext, layout, o->tile, space,
                             o->init != 0, err, sizeof err) < 0)
      lv_raise(L, fname, label, SK_E_MSG, err);
    v->traits |= o->traits;
    return v;
  }

  int64_t n = 1;
  size_t bytes = 0;
  for (int d = 0; d < rank && n >= 0; d++)
    if (__builtin_mul_overflow(n, ext[d], &n)) n = -1;
  if (n >= 0 && __builtin_mul_overflow((size_t)n, sk_dtypes[dtype].size, &bytes)) n = -1;
  if (o->data) {
    if (!ptr && n != 0) lv_raise(L, fname, label, SK_E_OPTION_DATA_NULL);
    if (src && !src->data && sk_view_size(src) > 0)
      lv_raise(L, "View", src->label, SK_E_NO_MEMORY_RELEASED);
    if (src && n >= 0) {
      long long have =
        (long long)(sk_view_span(src) * (int64_t)sk_dtypes[src->dtype].size);
      if ((long long)bytes > have)
        lv_raise(L, fname, label, SK_E_DATA_VIEW_HOLDS, src->label, have,
                 (long long)bytes);
      if (space != src->space)
        lv_raise(L, fname, label, SK_E_DATA_VIEW_SPACE, src->label,
                 sk_space_name(src->space), sk_space_name(space));
    }
  } else if (n > 0) {
    sk_lview_gcstep(L, bytes);
  }

  sk_view *v = sk_lview_new(L);
  if (sk_view_create(v, label, dtype, rank, ext, layout, space, o->init != 0, ptr, err,
                     sizeof err) < 0)
    lv_raise(L, fname, label, SK_E_MSG, err);
  v->traits |= o->traits;
  if (src) {
    /* share the source's allocation instead of wrapping its pointer */
    sk_view_release(v);
    v->alloc = src->alloc;
    v->data = ptr;
    v->traits &= ~(unsigned)SK_TRAIT_UNMANAGED;
    sk_view_retain(v);
    lua_getiuservalue(L, o->data, 1); /* whatever keeps it alive, too */
    lua_setiuservalue(L, -2, 1);
  } else if (o->data) {
    lua_pushvalue(L, o->data); /* the owner of the memory */
    lua_setiuservalue(L, -2, 1);
  }
  return v;
}

/* An aggregate view: user extents 'ext' of rank 'rank' and the hidden
 * component dimension, layout right. */
static sk_view *push_agg_view(lua_State *L, const char *fname, const char *label, int agg,
                              int n, int rank, const int64_t *ext, const lopts *o) {
  char dn[32];
  int64_t e[SK_MAXRANK];
  lopts a = *o;
  sk_view probe;
  memset(&probe, 0, sizeof probe);
  probe.agg = agg;
  probe.agg_n = n;
  sk_view_dtype_name(&probe, dn, sizeof dn);
  if (rank + 1 > SK_MAXRANK)
    lv_raise(L, fname, label, SK_E_RANK_EXCEEDS_MAXIMUM_VIEWS, rank, SK_MAXRANK - 1, dn);
  if (o->ntile) lv_raise(L, fname, label, SK_E_VIEWS_LAYOUT_RIGHT, dn, "tiled");
  if (o->layout >= 0 && o->layout != SK_RIGHT)
    lv_raise(L, fname, label, SK_E_VIEWS_LAYOUT_RIGHT, dn, sk_layout_name(o->layout));
  a.layout = SK_RIGHT;
  for (int d = 0; d < rank; d++) e[d] = ext[d];
  e[rank] = sk_agg_width(agg, n);
  sk_view *v = push_view(L, fname, label, SK_F64, rank + 1, e, &a);
  v->agg = agg;
  v->agg_n = n;
  return v;
}

/* View(label, dtype, dims [, opts]) with the arguments from 'base' on */
static int view_new(lua_State *L, int base) {
  char b[64];
  int64_t ext[SK_MAXRANK];
  lopts o;
  if (lua_type(L, base) != LUA_TSTRING)
    lv_raise(L, "speck.View", NULL, SK_E_LABEL_MUST_STRING, show(L, base, b, sizeof b));
  const char *label = lua_tostring(L, base);
  int agg, n;
  int dtype = check_dtype_agg(L, base + 1, "speck.View", label, &agg, &n);
  int rank = check_dims(L, base + 2, "speck.View", label, ext);
  parse_opts(L, base + 3, "speck.View", label, 1, &o);
  if (o.label) label = o.label;
  if (agg) push_agg_view(L, "speck.View", label, agg, n, rank, ext, &o);
  else push_view(L, "speck.View", label, dtype, rank, ext, &o);
  return 1;
}

static int l_view_call(lua_State *L) {
  return view_new(L, 2); /* 1 is the View table itself */
}

/* -- View.from --------------------------------------------------------- */
static const char *path_str(const int64_t *path, int depth, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "t");
  for (int d = 0; d < depth && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "[%lld]", (long long)path[d]);
  return buf;
}

/* Fill 'v' from the table at 't' (depth 'd', element offset 'off'),
 * checking that every level has the extents found from t[1][1].... */
static void from_fill(lua_State *L, sk_view *v, int t, int d, int64_t off, int64_t *path,
                      const char *fname) {
  char p[160], b[64];
  int64_t len = (int64_t)lua_rawlen(L, t);
  if (len != v->extent[d])
    lv_raise(L, fname, v->label, SK_E_RAGGED_TABLE_ELEMENT,
             path_str(path, d, p, sizeof p), (long long)len, len == 1 ? "" : "s",
             (long long)v->extent[d]);
  luaL_checkstack(L, 4, "View.from");
  for (int64_t i = 0; i < len; i++) {
    lua_rawgeti(L, t, i + 1);
    path[d] = i + 1;
    int64_t o = off + i * v->stride[d];
    if (d < v->rank - 1) {
      if (!lua_istable(L, -1))
        lv_raise(L, fname, v->label, SK_E_RAGGED_TABLE_EXPECTED,
                 path_str(path, d + 1, p, sizeof p), show(L, -1, b, sizeof b));
      from_fill(L, v, lua_gettop(L), d + 1, o, path, fname);
    } else {
      conv c;
      if (lua_istable(L, -1) && !sk_dtypes[v->dtype].is_complex)
        lv_raise(L, fname, v->label, SK_E_RAGGED_TABLE_TABLE,
                 path_str(path, d + 1, p, sizeof p));
      if (to_value(L, -1, v->dtype, &c) < 0)
        lv_raise(L, fname, v->label, SK_E_CANNOT_STORE_ELEMENT,
                 path_str(path, d + 1, p, sizeof p), c.what, sk_dtypes[v->dtype].name,
                 c.why);
      store(v, o, &c);
    }
    lua_pop(L, 1);
  }
}

/* View.from(t, dtype [, opts]): the rank and extents come from the first
 * element at every level (t, t[1], t[1][1], ...); every other element must
 * agree. A plain number or boolean gives a rank-0 view. */
static int l_view_from(lua_State *L) {
  const char *fname = "speck.View.from";
  int64_t ext[SK_MAXRANK], path[SK_MAXRANK];
  int rank = 0, dtype = SK_F64;
  lopts o;
  parse_opts(L, 3, fname, "from", 0, &o);
  const char *label = o.label ? o.label : "from";
  if (!lua_isnoneornil(L, 2)) dtype = check_dtype(L, 2, fname, label);

  lua_pushvalue(L, 1);
  while (lua_istable(L, -1)) {
    if (sk_dtypes[dtype].is_complex) { /* {re, im} / {re =, im =} is an element */
      int t1 = lua_rawgeti(L, -1, 1);
      lua_pop(L, 1);
      int tr = lua_getfield(L, -1, "re");
      lua_pop(L, 1);
      if (t1 == LUA_TNUMBER || tr != LUA_TNIL) break;
    }
    if (rank == SK_MAXRANK)
      lv_raise(L, fname, label, SK_E_RANK_EXCEEDS_MAXIMUM, rank + 1, SK_MAXRANK);
    ext[rank] = (int64_t)lua_rawlen(L, -1);
    if (ext[rank++] == 0) break;
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
  }
  lua_pop(L, 1);

  /* build on the host, then copy where it was asked to live */
  lopts ho = o;
  int space = o.space >= 0 ? o.space : default_space(L, fname, label);
  ho.space = sk_space_host_accessible(space) ? space : SK_SPACE_HOST;
  ho.init = 0;
  if (ho.layout < 0) ho.layout = sk_space_default_layout(space);
  ho.ntile = 0; /* a tiled view is filled from an untiled host one */
  sk_view *h = push_view(L, fname, label, dtype, rank, ext, &ho);
  if (rank == 0) {
    conv c;
    if (to_value(L, 1, dtype, &c) < 0)
      lv_raise(L, fname, label, SK_E_CANNOT_STORE_ELEMENT, "t", c.what,
               sk_dtypes[dtype].name, c.why);
    store(h, 0, &c);
  } else {
    from_fill(L, h, 1, 0, 0, path, fname);
  }
  if (ho.space == space && !o.ntile) return 1;
  char err[ERRLEN];
  o.space = space;
  o.init = 0;
  o.layout = ho.layout;
  sk_view *v = push_view(L, fname, label, dtype, rank, ext, &o);
  if (sk_view_deep_copy(v, h, err, sizeof err) < 0)
    lv_raise(L, fname, label, SK_E_MSG, err);
  return 1;
}

/* -- metamethods and methods ------------------------------------------- */
static int m_gc(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  sk_view_release(v);
  return 0;
}

static int m_call(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  int64_t off = elem_offset(L, v, 2, lua_gettop(L) - 1);
  push_elem(L, v, off);
  return 1;
}

static int m_index(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    lua_settop(L, 2);
    push_elem(L, v, elem_offset(L, v, 2, 1));
    return 1;
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  return 1;
}

static int m_newindex(lua_State *L) {
  char b[64];
  sk_view *v = sk_lview_check(L, 1);
  if (lua_type(L, 2) != LUA_TNUMBER)
    lv_raise(L, "View", v->label, SK_E_CANNOT_ASSIGN_FIELD, show(L, 2, b, sizeof b));
  int64_t off = elem_offset(L, v, 2, 1);
  store_at(L, v, off, 3, "View");
  return 0;
}

/* elements (aggregate views: of the aggregate type) */
static int64_t usize(const sk_view *v) {
  int64_t n = sk_view_size(v);
  return v->agg ? n / sk_agg_width(v->agg, v->agg_n) : n;
}

static int m_len(lua_State *L) {
  lua_pushinteger(L, usize(sk_lview_check(L, 1)));
  return 1;
}

static int m_tostring(lua_State *L) {
  char dims[SK_MAXRANK * 24], dn[32];
  sk_view *v = sk_lview_check(L, 1);
  sk_view_format_extents(v, dims, sizeof dims);
  lua_pushfstring(L, "View<%s%s, %s, %s> '%s'", sk_view_dtype_name(v, dn, sizeof dn),
                  dims, sk_layout_name(v->layout), sk_space_name(v->space), v->label);
  return 1;
}

/* Kokkos' operator==: the same elements in the same order. */
static int m_eq(lua_State *L) {
  sk_view *a = sk_lview_test(L, 1), *b = sk_lview_test(L, 2);
  int eq = a && b && a->data == b->data && a->dtype == b->dtype && a->agg == b->agg &&
           a->agg_n == b->agg_n && a->rank == b->rank && a->space == b->space;
  for (int d = 0; eq && d < a->rank; d++)
    eq = a->extent[d] == b->extent[d] &&
         (a->extent[d] <= 1 || a->stride[d] == b->stride[d]) &&
         (!sk_layout_tiled(a->layout) ||
          (a->layout == b->layout && a->tile_log2[d] == b->tile_log2[d]));
  if (eq && a->rank && (sk_layout_tiled(a->layout) != sk_layout_tiled(b->layout))) eq = 0;
  lua_pushboolean(L, eq);
  return 1;
}

static int f_label(lua_State *L) {
  lua_pushstring(L, sk_lview_check(L, 1)->label);
  return 1;
}

static int f_rank(lua_State *L) {
  lua_pushinteger(L, urank(sk_lview_check(L, 1)));
  return 1;
}

/* dimension argument of extent(d) / stride(d): 0 <= d < 8; dimensions at
 * or beyond the rank have extent 1 and stride 0, as in Kokkos */
static int check_dim(lua_State *L, const sk_view *v, const char *what) {
  char b[64];
  int ok = 0;
  lua_Integer d = lua_type(L, 2) == LUA_TNUMBER ? lua_tointegerx(L, 2, &ok) : 0;
  if (!ok || d < 0 || d >= SK_MAXRANK)
    lv_raise(L, "View", v->label, SK_E_DIMENSION_OUT_RANGE, what, show(L, 2, b, sizeof b),
             SK_MAXRANK);
  return (int)d;
}

static int f_extent(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  int d = check_dim(L, v, "extent");
  lua_pushinteger(L, d < urank(v) ? v->extent[d] : 1);
  return 1;
}

static int f_stride(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  int d = check_dim(L, v, "stride");
  lua_pushinteger(L, d < urank(v) ? v->stride[d] : 0);
  return 1;
}

static int f_extents(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  lua_createtable(L, urank(v), 0);
  for (int d = 0; d < urank(v); d++) {
    lua_pushinteger(L, v->extent[d]);
    lua_rawseti(L, -2, d + 1);
  }
  return 1;
}

static int f_strides(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  lua_createtable(L, urank(v), 0);
  for (int d = 0; d < urank(v); d++) {
    lua_pushinteger(L, v->stride[d]);
    lua_rawseti(L, -2, d + 1);
  }
  return 1;
}

static int f_size(lua_State *L) {
  lua_pushinteger(L, usize(sk_lview_check(L, 1)));
  return 1;
}

static int f_span(lua_State *L) {
  lua_pushinteger(L, sk_view_span(sk_lview_check(L, 1)));
  return 1;
}

static int f_dtype(lua_State *L) {
  char dn[32];
  lua_pushstring(L, sk_view_dtype_name(sk_lview_check(L, 1), dn, sizeof dn));
  return 1;
}

static int f_layout(lua_State *L) {
  lua_pushstring(L, sk_layout_name(sk_lview_check(L, 1)->layout));
  return 1;
}

static int f_space(lua_State *L) {
  lua_pushstring(L, sk_space_name(sk_lview_check(L, 1)->space));
  return 1;
}

/* v:tile_extents(): the tile sizes of a tiled view (nothing otherwise) */
static int f_tile_extents(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  if (!sk_layout_tiled(v->layout)) return 0;
  for (int d = 0; d < v->rank; d++) lua_pushinteger(L, (lua_Integer)1 << v->tile_log2[d]);
  return v->rank;
}

static int f_is_contiguous(lua_State *L) {
  lua_pushboolean(L, sk_view_contiguous(sk_lview_check(L, 1)));
  return 1;
}

static int f_data(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  sk_alloc_expose(v->alloc); /* writes through the pointer are not seen */
  lua_pushlightuserdata(L, v->data);
  return 1;
}

/* how many views share the allocation (0 after release) */
static int f_use_count(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  lua_pushinteger(
    L, v->alloc ? (lua_Integer)__atomic_load_n(&v->alloc->refs, __ATOMIC_RELAXED) : 0);
  return 1;
}

/* v:set(i, j, ..., x) */
static int f_set(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  int n = lua_gettop(L) - 2;
  check_host(L, v, "View");
  if (n != urank(v))
    lv_raise(L, "View", v->label, SK_E_RANK_SET_VALUE, urank(v), n < 0 ? 0 : n,
             n == 1 ? "index" : "indices");
  int64_t off = elem_offset(L, v, 2, n);
  store_at(L, v, off, n + 2, "View");
  return 0;
}

/* v:fill(x): every element; returns v */
static int f_fill(lua_State *L) {
  char err[ERRLEN];
  conv c;
  sk_view *v = sk_lview_check(L, 1);
  if (!v->data && sk_view_size(v) > 0)
    lv_raise(L, "View", v->label, SK_E_NO_MEMORY_RELEASED);
  if (to_value(L, 2, v->dtype, &c) < 0)
    lv_raise(L, "View", v->label, SK_E_CANNOT_STORE, c.what, sk_dtypes[v->dtype].name,
             c.why);
  if ((sk_dtypes[v->dtype].is_complex ? sk_view_fill_c(v, c.d, c.im, err, sizeof err)
                                       : sk_view_fill(v, c.d, c.i, err, sizeof err)) < 0)
    lv_raise(L, "View", v->label, SK_E_MSG, err);
  lua_settop(L, 1);
  return 1;
}

static void push_nested(lua_State *L, const sk_view *v, int d, int64_t off,
                        int64_t *idx) {
  if (d == urank(v)) {
    push_elem(L, v, sk_layout_tiled(v->layout) ? sk_view_offset(v, idx) : off);
    return;
  }
  luaL_checkstack(L, 3, "View:totable");
  lua_createtable(L, v->extent[d] < INT32_MAX ? (int)v->extent[d] : 0, 0);
  for (int64_t i = 0; i < v->extent[d]; i++) {
    idx[d] = i;
    push_nested(L, v, d + 1, off + i * v->stride[d], idx);
    lua_rawseti(L, -2, i + 1);
  }
}

/* v:totable(): nested 1-based Lua sequences (the scalar for rank 0) */
static int f_totable(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  check_host(L, v, "View");
  int64_t idx[SK_MAXRANK] = {0};
  push_nested(L, v, 0, 0, idx);
  return 1;
}

static const luaL_Reg view_meta[] = {{"__gc", m_gc},     {"__close", m_gc},
                                     {"__call", m_call}, {"__newindex", m_newindex},
                                     {"__len", m_len},   {"__tostring", m_tostring},
                                     {"__eq", m_eq},     {NULL, NULL}};

static const luaL_Reg view_methods[] = {{"label", f_label},
                                        {"rank", f_rank},
                                        {"extent", f_extent},
                                        {"extents", f_extents},
                                        {"size", f_size},
                                        {"span", f_span},
                                        {"stride", f_stride},
                                        {"strides", f_strides},
                                        {"dtype", f_dtype},
                                        {"layout", f_layout},
                                        {"space", f_space},
                                        {"is_contiguous", f_is_contiguous},
                                        {"data", f_data},
                                        {"use_count", f_use_count},
                                        {"set", f_set},
                                        {"fill", f_fill},
                                        {"totable", f_totable},
                                        {"tile_extents", f_tile_extents},
                                        {NULL, NULL}};

/* Push the view metatable, creating it on first use. */
static void push_mt(lua_State *L) {
  if (!luaL_newmetatable(L, SK_VIEW_MT)) return;
  luaL_setfuncs(L, view_meta, 0);
  luaL_newlib(L, view_methods);
  lua_pushcclosure(L, m_index, 1);
  lua_setfield(L, -2, "__index");
}

/* -- subview ----------------------------------------------------------- */
static void push_all(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, "speck.ALL") != LUA_TNIL) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "speck.ALL");
  lua_setfield(L, -2, "__name");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, "speck.ALL");
}

/* A {b, e} pair of integers. */
static int get_range(lua_State *L, int idx, sk_slice *s) {
  int ok1 = 0, ok2 = 0;
  if (lua_rawlen(L, idx) != 2) return 0;
  lua_rawgeti(L, idx, 1);
  lua_rawgeti(L, idx, 2);
  if (lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TNUMBER) {
    s->b = lua_tointegerx(L, -2, &ok1);
    s->e = lua_tointegerx(L, -1, &ok2);
  }
  lua_pop(L, 2);
  s->kind = SK_SLICE_RANGE;
  return ok1 && ok2;
}

static int l_subview(lua_State *L) {
  char err[ERRLEN], b[64];
  sk_slice s[SK_MAXRANK];
  sk_view *src = sk_lview_test(L, 1);
  if (!src)
    lv_raise(L, "speck.subview", NULL, SK_E_MUST_VIEW_GOT, "argument 1",
             show(L, 1, b, sizeof b));
  int n = lua_gettop(L) - 1;
  if (n != urank(src))
    lv_raise(L, "speck.subview", src->label, SK_E_RANK_GIVEN_SLICE, urank(src), n,
             n == 1 ? "" : "s");
  if (src->agg) s[n].kind = SK_SLICE_ALL; /* the components */
  push_all(L);
  int all = lua_gettop(L);
  for (int d = 0; d < n; d++) {
    int i = d + 2, ok = 0;
    if (lua_rawequal(L, i, all)) {
      s[d].kind = SK_SLICE_ALL;
      ok = 1;
    } else if (lua_type(L, i) == LUA_TNUMBER) {
      s[d].kind = SK_SLICE_INDEX;
      s[d].b = lua_tointegerx(L, i, &ok);
    } else if (lua_istable(L, i)) {
      ok = get_range(L, i, &s[d]);
    }
    if (!ok)
      lv_raise(L, "speck.subview", src->label, SK_E_SLICE_MUST_INTEGER, d,
               show(L, i, b, sizeof b));
  }
  sk_view *v = sk_lview_new(L);
  if (sk_view_subview(v, src, s, src->rank, err, sizeof err) < 0)
    lv_raise(L, "speck.subview", src->label, SK_E_MSG, err);
  lua_getiuservalue(L, 1, 1); /* keep wrapped memory's owner alive */
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* speck.tile_subview(v, ti, tj [, tk]): one tile of a tiled view */
static int l_tile_subview(lua_State *L) {
  char err[ERRLEN], b[64];
  int64_t ti[SK_MAXRANK];
  const char *fname = "speck.tile_subview";
  sk_view *src = sk_lview_test(L, 1);
  if (!src)
    lv_raise(L, fname, NULL, SK_E_MUST_VIEW_GOT, "argument 1", show(L, 1, b, sizeof b));
  int n = lua_gettop(L) - 1;
  if (sk_layout_tiled(src->layout) && n != src->rank)
    lv_raise(L, fname, src->label, SK_E_RANK_GIVEN_TILE, src->rank, n,
             n == 1 ? "ex" : "ices");
  for (int d = 0; d < n && d < SK_MAXRANK; d++) {
    int ok = 0;
    lua_Integer x = lua_type(L, d + 2) == LUA_TNUMBER ? lua_tointegerx(L, d + 2, &ok) : 0;
    if (!ok)
      lv_raise(L, fname, src->label, SK_E_TILE_INDEX_MUST, d,
               show(L, d + 2, b, sizeof b));
    ti[d] = x;
  }
  sk_view *v = sk_lview_new(L);
  if (sk_view_tile_subview(v, src, ti, n, err, sizeof err) < 0)
    lv_raise(L, fname, src->label, SK_E_MSG, err);
  lua_getiuservalue(L, 1, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* -- deep_copy, mirrors, resize ---------------------------------------- */
/* speck.deep_copy(dst, src [, opts]): opts.instance queues the copy on an
 * instance (core/instance.c); a scalar fill waits for the instance first */
static int l_deep_copy(lua_State *L) {
  char err[ERRLEN], b[64];
  sk_view *dst = sk_lview_test(L, 1);
  if (!dst)
    lv_raise(L, "speck.deep_copy", NULL, SK_E_MUST_VIEW_GOT, "the destination",
             show(L, 1, b, sizeof b));
  const sk_instance *inst = NULL;
  if (!lua_isnoneornil(L, 3)) {
    static const char *const keys[] = {"instance", NULL};
    if (lua_type(L, 3) != LUA_TTABLE)
      lv_raise(L, "speck.deep_copy", NULL, SK_E_OPTIONS_MUST_TABLE, luaL_typename(L, 3));
    sk_lopts_check(L, 3, "speck.deep_copy", NULL, keys);
    inst = sk_linst_option(L, 3, "speck.deep_copy", NULL);
  }
  sk_view *src = sk_lview_test(L, 2);
  if (src) {
    if (sk_view_deep_copy_on(dst, src, inst, err, sizeof err) < 0)
      lv_raise(L, "speck.deep_copy", NULL, SK_E_MSG, err);
    return 0;
  }
  if (inst && sk_rt_instance_fence(inst, err, sizeof err) < 0)
    lv_raise(L, "speck.deep_copy", dst->label, SK_E_MSG, err);
  conv c;
  if (!dst->data && sk_view_size(dst) > 0)
    lv_raise(L, "speck.deep_copy", dst->label, SK_E_NO_MEMORY_RELEASED);
  if (to_value(L, 2, dst->dtype, &c) < 0)
    lv_raise(L, "speck.deep_copy", dst->label, SK_E_CANNOT_STORE, c.what,
             sk_dtypes[dst->dtype].name, c.why);
  if ((sk_dtypes[dst->dtype].is_complex ? sk_view_fill_c(dst, c.d, c.im, err, sizeof err)
                                         : sk_view_fill(dst, c.d, c.i, err, sizeof err)) < 0)
    lv_raise(L, "speck.deep_copy", dst->label, SK_E_MSG, err);
  return 0;
}

/* A new view like 'v' in 'space' labelled "<label>_mirror"; the layout is
 * kept (a strided 'v' gets the space's default layout). */
static sk_view *push_like(lua_State *L, int idx, int space, int init, const char *fname) {
  char label[SK_LABEL_MAX + 8];
  lopts o;
  memset(&o, 0, sizeof o);
  o.layout = o.space = o.init = -1;
  sk_view *v = sk_lview_check(L, idx);
  snprintf(label, sizeof label, "%s_mirror", v->label);
  o.space = space;
  o.init = init;
  o.layout =
    v->layout == SK_STRIDE ? sk_space_default_layout(space) : sk_layout_order(v->layout);
  if (sk_layout_tiled(v->layout)) {
    o.ntile = v->rank;
    for (int d = 0; d < v->rank; d++) o.tile[d] = (int64_t)1 << v->tile_log2[d];
  }
  o.traits = v->traits & ~(unsigned)SK_TRAIT_UNMANAGED;
  if (v->agg)
    return push_agg_view(L, fname, label, v->agg, v->agg_n, urank(v), v->extent, &o);
  return push_view(L, fname, label, v->dtype, v->rank, v->extent, &o);
}

/* The arguments of the mirror functions, in either order: (v [, space])
 * or (space, v), Kokkos' spelling; the space defaults to the host. Sets
 * *vi to the view's stack index and returns the space. */
static int mirror_args(lua_State *L, const char *fname, int *vi) {
  if (sk_lview_test(L, 1)) {
    *vi = 1;
    sk_view *v = sk_lview_check(L, 1);
    return lua_isnoneornil(L, 2) ? SK_SPACE_HOST : sk_lview_space(L, 2, fname, v->label);
  }
  *vi = 2;
  sk_view *v = sk_lview_check(L, 2);
  return sk_lview_space(L, 1, fname, v->label);
}

/* 'v' can serve as the mirror in 'space': it lives there, or 'space' is
 * the host and v is host accessible */
static int mirror_is_self(const sk_view *v, int space) {
  return v->space == space || (space == SK_SPACE_HOST && sk_space_host_accessible(v->space));
}

static int l_create_mirror(lua_State *L) {
  int vi, space = mirror_args(L, "speck.create_mirror", &vi);
  push_like(L, vi, space, 1, "speck.create_mirror");
  return 1;
}

static int l_create_mirror_view(lua_State *L) {
  int vi, space = mirror_args(L, "speck.create_mirror_view", &vi);
  if (mirror_is_self(sk_lview_check(L, vi), space)) lua_pushvalue(L, vi);
  else push_like(L, vi, space, 1, "speck.create_mirror_view");
  return 1;
}

/* create_mirror_view_and_copy(space, v) (or (v, space)): v itself when it
 * can serve in 'space', else a copy there. */
static int l_create_mirror_view_and_copy(lua_State *L) {
  const char *fname = "speck.create_mirror_view_and_copy";
  char err[ERRLEN];
  int vi, space = mirror_args(L, fname, &vi);
  sk_view *v = sk_lview_check(L, vi);
  if (mirror_is_self(v, space)) {
    lua_pushvalue(L, vi);
    return 1;
  }
  sk_view *m = push_like(L, vi, space, 0, fname);
  if (sk_view_deep_copy(m, v, err, sizeof err) < 0)
    lv_raise(L, fname, v->label, SK_E_MSG, err);
  return 1;
}

static int resize(lua_State *L, int keep, const char *fname) {
  char err[ERRLEN], b[64];
  int64_t ext[SK_MAXRANK];
  sk_view *v = sk_lview_test(L, 1);
  if (!v)
    lv_raise(L, fname, NULL, SK_E_MUST_VIEW_GOT, "argument 1", show(L, 1, b, sizeof b));
  int rank = check_dims(L, 2, fname, v->label, ext);
  if (rank != urank(v))
    lv_raise(L, fname, v->label, SK_E_RANK_GIVEN_EXTENT, urank(v), rank,
             rank == 1 ? "" : "s");
  if (v->agg) ext[rank++] = sk_agg_width(v->agg, v->agg_n);
  int64_t n = 1;
  size_t bytes = 0;
  for (int d = 0; d < rank && n >= 0; d++)
    if (__builtin_mul_overflow(n, ext[d], &n)) n = -1;
  if (n > 0 && !__builtin_mul_overflow((size_t)n, sk_dtypes[v->dtype].size, &bytes))
    sk_lview_gcstep(L, bytes);
  if (sk_view_resize(v, ext, keep, err, sizeof err) < 0)
    lv_raise(L, fname, v->label, SK_E_MSG, err);
  lua_pushnil(L); /* the memory is ours now */
  lua_setiuservalue(L, 1, 1);
  lua_settop(L, 1);
  return 1;
}

static int l_resize(lua_State *L) { return resize(L, 1, "speck.resize"); }
static int l_realloc(lua_State *L) { return resize(L, 0, "speck.realloc"); }

/* -- registration ------------------------------------------------------ */
/* speck.dtype.fad(N) / speck.dtype.ensemble(N): the dtype names
 * "fad(N)" / "ensemble(N)" */
static int dtype_agg(lua_State *L, const char *fname, const char *kind) {
  char b[64];
  int ok = 0;
  lua_Integer n = lua_type(L, 1) == LUA_TNUMBER ? lua_tointegerx(L, 1, &ok) : 0;
  if (!ok || n < 1 || n > SK_AGG_MAXN)
    lv_raise(L, fname, NULL, SK_E_N_MUST_INTEGER, SK_AGG_MAXN, show(L, 1, b, sizeof b));
  lua_pushfstring(L, "%s(%d)", kind, (int)n);
  return 1;
}
static int l_dtype_fad(lua_State *L) { return dtype_agg(L, "speck.dtype.fad", "fad"); }
static int l_dtype_ensemble(lua_State *L) {
  return dtype_agg(L, "speck.dtype.ensemble", "ensemble");
}

static const luaL_Reg view_funcs[] = {
  {"subview", l_subview},
  {"tile_subview", l_tile_subview},
  {"deep_copy", l_deep_copy},
  {"create_mirror", l_create_mirror},
  {"create_mirror_view", l_create_mirror_view},
  {"create_mirror_view_and_copy", l_create_mirror_view_and_copy},
  {"resize", l_resize},
  {"realloc", l_realloc},
  {NULL, NULL}};

void sk_lview_open(lua_State *L) {
  push_mt(L);
  lua_pop(L, 1);
  luaL_setfuncs(L, view_funcs, 0);

  lua_newtable(L); /* View: a callable table */
  lua_pushcfunction(L, l_view_from);
  lua_setfield(L, -2, "from");
  lua_newtable(L);
  lua_pushcfunction(L, l_view_call);
  lua_setfield(L, -2, "__call");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "View");

  push_all(L);
  lua_setfield(L, -2, "ALL");

  /* speck.dtype: the dtype names, fad(N) and ensemble(N) */
  lua_newtable(L);
  for (int t = 0; t < SK_NDTYPE; t++) {
    sk_lset_str(L, sk_dtypes[t].name, sk_dtypes[t].name);
  }
  lua_pushcfunction(L, l_dtype_fad);
  lua_setfield(L, -2, "fad");
  lua_pushcfunction(L, l_dtype_ensemble);
  lua_setfield(L, -2, "ensemble");
  lua_setfield(L, -2, "dtype");

  for (int t = 0; t < SK_NDTYPE; t++) {
    sk_lset_str(L, sk_dtypes[t].name, sk_dtypes[t].name);
    if (sk_dtypes[t].alias) { sk_lset_str(L, sk_dtypes[t].alias, sk_dtypes[t].name); }
  }
}

/* -- for the other binding files (vm.h) ------------------------------------ */
int sk_lview_dims(lua_State *L, int idx, const char *fname, const char *label,
                  int64_t *ext) {
  return check_dims(L, idx, fname, label, ext);
}

int sk_lview_dtype(lua_State *L, int idx, const char *fname, const char *label) {
  return check_dtype(L, idx, fname, label);
}

void sk_lview_add_methods(lua_State *L, const luaL_Reg *r) {
  push_mt(L);
  lua_getfield(L, -1, "__index");
  lua_getupvalue(L, -1, 1); /* the methods table */
  luaL_setfuncs(L, r, 0);
  lua_pop(L, 3);
}
