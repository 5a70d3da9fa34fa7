/* lcore.c: the 'speck.core' Lua module: runtime, patterns, kernels, jit.
 *
 * A thin binding over exec/: a launch turns the Lua policy, captures,
 * reducers and options into an sk_policy, sk_arg array and sk_kdesc and
 * calls sk_run, which checks, compiles and launches; the results come back
 * as Lua values. Type errors of Lua values are raised here; everything
 * about whether a launch makes sense is decided in exec/. Everything on
 * the C stack: no malloc'd memory is held across a call that can raise
 * (STYLE.md point 7).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/speck.h"
#include "vm.h"
#include "../backends/remote/remote.h"
#include "../kernels/blas/vendor.h"
#include "core/err.h"
#include "core/tools.h"
#include "jit/target.h"
#include "../exec/exec.h"
#include "../kernels/kernels.h"

/* -- errors ------------------------------------------------------------- */
int sk_lerror_(lua_State *L, const char *fname, const char *label, int id, ...) {
  char msg[4096];
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

/* -- options ------------------------------------------------------------ */
/* The one option checker: every function that takes an options
 * table refuses a key it does not document with SK_E_OPTION_UNKNOWN,
 * "unknown option 'k' (valid: a, b, ...)", the valid keys sorted. C
 * bindings call sk_lopts_check; the Lua modules reach the same code
 * through core.check_opts (speck/opts.lua). */
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key of the table at 'idx' not in 'keys' (NULL-terminated),
 * rendered into 'kb', and the valid keys sorted into 'vb'; NULL if all
 * are known. Leaves the stack as it was. */
static const char *opts_unknown(lua_State *L, int idx, const char *const *keys, char *kb,
                                size_t kn, char *vb, size_t vn) {
  const char *bad = NULL;
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (!bad && lua_next(L, idx)) {
    lua_pop(L, 1);
    int known = 0;
    if (lua_type(L, -1) == LUA_TSTRING) { /* on every launch: the key read once */
      const char *k = lua_tostring(L, -1);
      for (int i = 0; keys[i] && !known; i++)
        known = keys[i][0] == k[0] && strcmp(keys[i], k) == 0;
    }
    if (known) continue;
    if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
      snprintf(kb, kn, "%s",
               lua_tostring(L, -1)); /* a number converts in place: a copy */
    else snprintf(kb, kn, "%s", luaL_typename(L, -1));
    lua_pop(L, 1);
    bad = kb;
  }
  if (!bad) return NULL;
  const char *sorted[64];
  int n = 0;
  while (keys[n] && n < 64) sorted[n] = keys[n], n++;
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
  size_t at = 0;
  vb[0] = 0;
  for (int i = 0; i < n && at < vn; i++)
    at += (size_t)snprintf(vb + at, vn - at, "%s%s", i ? ", " : "", sorted[i]);
  return bad;
}

void sk_lclass(lua_State *L, const char *mt, const luaL_Reg *methods, lua_CFunction gc,
               int closes, lua_CFunction ts) {
  luaL_newmetatable(L, mt);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  if (closes) {
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__close");
  }
  if (ts) {
    lua_pushcfunction(L, ts);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
}

void sk_lopts_check(lua_State *L, int idx, const char *fname, const char *label,
                    const char *const *keys) {
  char kb[128], vb[1024];
  if (lua_type(L, idx) != LUA_TTABLE) return;
  const char *bad = opts_unknown(L, idx, keys, kb, sizeof kb, vb, sizeof vb);
  if (bad && !keys[0]) sk_lerror(L, fname, label, SK_E_OPTION_UNKNOWN_NONE, bad);
  if (bad) sk_lerror(L, fname, label, SK_E_OPTION_UNKNOWN, bad, vb);
}

/* core.check_opts(fname, opts, keys [, label]) --> nil, or the message
 * "<fname>[ 'label']: unknown option ..." for the caller to raise at its
 * user's line (keys a list of strings) */
static int l_check_opts(lua_State *L) {
  const char *fname = luaL_checkstring(L, 1), *label = luaL_optstring(L, 4, NULL);
  luaL_checktype(L, 3, LUA_TTABLE);
  if (lua_type(L, 2) != LUA_TTABLE) return 0;
  const char *keys[65];
  int n = 0;
  for (; n < 64 && lua_geti(L, 3, n + 1) == LUA_TSTRING; n++)
    keys[n] = lua_tostring(L, -1); /* anchored by the keys table */
  lua_pop(L, n + 1);
  keys[n] = NULL;
  char kb[128], vb[1024], msg[1400];
  const char *bad = opts_unknown(L, 2, keys, kb, sizeof kb, vb, sizeof vb);
  if (!bad) return 0;
  if (n) sk_err(msg, sizeof msg, SK_E_OPTION_UNKNOWN, bad, vb);
  else sk_err(msg, sizeof msg, SK_E_OPTION_UNKNOWN_NONE, bad);
  if (label) lua_pushfstring(L, "%s '%s': %s", fname, label, msg);
  else lua_pushfstring(L, "%s: %s", fname, msg);
  return 1;
}

static const sk_backend *backend(lua_State *L, const char *fname) {
  char err[512];
  const sk_backend *b = sk_rt_backend(err, sizeof err);
  if (!b) sk_lerror(L, fname, NULL, SK_E_MSG, err);
  return b;
}

/* -- policies --------------------------------------------------------- */
static int64_t int_field(lua_State *L, int t, const char *k, int64_t def,
                         const char *fname, const char *label) {
  int ty = lua_getfield(L, t, k);
  int64_t v = def;
  if (ty != LUA_TNIL) {
    int ok;
    v = lua_tointegerx(L, -1, &ok);
    if (!ok) sk_lerror(L, fname, label, SK_E_POLICY_FIELD_MUST, k);
  }
  lua_pop(L, 1);
  return v;
}

/* a team size or vector length: an integer, or "auto" (or absent) */
static int auto_field(lua_State *L, int t, const char *k, const char *fname,
                      const char *label) {
  int ty = lua_getfield(L, t, k);
  int is_auto =
    ty == LUA_TNIL || (ty == LUA_TSTRING && strcmp(lua_tostring(L, -1), "auto") == 0);
  lua_pop(L, 1);
  if (is_auto) return SK_AUTO;
  int64_t v = int_field(L, t, k, 0, fname, label);
  /* out of int range: clamped, so the check still names a bad size */
  return v < -2147483647 ? -2147483647 : v > 2147483647 ? 2147483647 : (int)v;
}

/* read an integer list field (at most 'max' entries) into out; returns
 * the length, -1 when absent */
static int int_list(lua_State *L, int t, const char *k, int64_t *out, int max,
                    const char *fname, const char *label) {
  if (lua_getfield(L, t, k) != LUA_TTABLE) {
    lua_pop(L, 1);
    return -1;
  }
  int n = (int)luaL_len(L, -1);
  if (n > max) sk_lerror(L, fname, label, SK_E_POLICY_ENTRIES_MOST, k, n, max);
  for (int d = 0; d < n; d++) {
    lua_geti(L, -1, d + 1);
    int ok;
    out[d] = lua_tointegerx(L, -1, &ok);
    if (!ok) sk_lerror(L, fname, label, SK_E_POLICY_ENTRY_NOT, k, d + 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return n;
}

/* Fill 'p' from the policy at stack index 'idx' (an integer n, or a
 * table built by speck.RangePolicy / MDRangePolicy / TeamPolicy). Only
 * the Lua shapes are checked here; sk_policy_check judges the values. */
static void parse_policy(lua_State *L, int idx, sk_policy *p, const char *fname,
                         const char *label) {
  sk_policy_init(p, SK_POL_RANGE);
  if (lua_type(L, idx) == LUA_TNUMBER) {
    int ok;
    p->end = lua_tointegerx(L, idx, &ok);
    if (!ok) sk_lerror(L, fname, label, SK_E_RANGE_NOT_INTEGER, lua_tostring(L, idx));
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, SK_E_POLICY_MUST_INTEGER, luaL_typename(L, idx));
  lua_getfield(L, idx, "kind");
  const char *kind = lua_tostring(L, -1);
  if (!kind) sk_lerror(L, fname, label, SK_E_POLICY_TABLE_NO);
  if (strcmp(kind, "range") == 0) {
    p->kind = SK_POL_RANGE;
  } else if (strcmp(kind, "mdrange") == 0) {
    p->kind = SK_POL_MDRANGE;
  } else if (strcmp(kind, "team") == 0) {
    p->kind = SK_POL_TEAM;
  } else {
    sk_lerror(L, fname, label, SK_E_UNKNOWN_POLICY_KIND_NAMED, kind);
  }
  lua_pop(L, 1);
  lua_getfield(L, idx, "schedule");
  const char *sch = lua_tostring(L, -1);
  if (sch && strcmp(sch, "dynamic") == 0) p->schedule = SK_DYNAMIC;
  else if (sch && strcmp(sch, "static") != 0)
    sk_lerror(L, fname, label, SK_E_UNKNOWN_SCHEDULE_STATIC, sch);
  lua_pop(L, 1);
  p->chunk = int_field(L, idx, "chunk", 0, fname, label);
  if (p->kind == SK_POL_RANGE) {
    p->begin = int_field(L, idx, "begin", 0, fname, label);
    p->end = int_field(L, idx, "end", 0, fname, label);
  } else if (p->kind == SK_POL_MDRANGE) {
    int n1 = int_list(L, idx, "lower", p->md_lo, SK_MAXMD, fname, label);
    int n2 = int_list(L, idx, "upper", p->md_hi, SK_MAXMD, fname, label);
    p->md_rank = n1 == n2 ? n1 : -1;
    int nt = int_list(L, idx, "tile", p->md_tile, SK_MAXMD, fname, label);
    if (nt >= 0 && nt != n1 && n1 == n2)
      sk_lerror(L, fname, label, SK_E_MDRANGE_TILE_ENTRIES, nt, n1);
    p->md_tiled = nt >= 0;
  } else {
    p->league_size = int_field(L, idx, "league_size", 0, fname, label);
    p->team_size = auto_field(L, idx, "team_size", fname, label);
    p->vector_length = auto_field(L, idx, "vector_length", fname, label);
    int_list(L, idx, "scratch_team", p->scratch_team, 2, fname, label);
    int_list(L, idx, "scratch_thread", p->scratch_thread, 2, fname, label);
  }
}

/* parse only (its errors are raised without a position) */
static int l_parse_only(lua_State *L) {
  sk_policy p;
  const char *fname = lua_tostring(L, 1);
  lua_pushfstring(L, "%s", fname);
  /* parse_policy raises "fname: msg" at level 1, here a C function: no
   * position is added */
  parse_policy(L, 2, &p, fname, NULL);
  return 0;
}

/* core.check_policy(fname, policy): the constructors' check (the same
 * one every launch makes), so a bad policy fails where it is written */
static int l_check_policy(lua_State *L) {
  const char *fname = luaL_checkstring(L, 1);
  sk_policy p;
  char err[512];
  lua_pushcfunction(L, l_parse_only);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  int bad = lua_pcall(L, 2, 0, 0) != LUA_OK;
  if (!bad) {
    parse_policy(L, 2, &p, fname, NULL);
    bad = sk_policy_check(&p, -1, NULL, err, sizeof err) < 0;
    if (bad) lua_pushfstring(L, "%s: %s", fname, err);
  }
  if (bad) {
    /* at the line that called the constructor, not inside speck.lua */
    const char *msg = lua_tostring(L, -1);
    luaL_where(L, 2);
    lua_pushstring(L, msg ? msg : "?");
    lua_concat(L, 2);
    return lua_error(L);
  }
  lua_settop(L, 2);
  return 1;
}

/* -- captures ----------------------------------------------------------- */
/* an integer capture's value 'v' (the Lua value at -1) within dtype 'd''s
 * range, else an error naming the capture, the value and the range */
static void capture_range(lua_State *L, const char *name, const sk_dtype_info *t, int d,
                          lua_Integer v, const char *fname, const char *label) {
  long long lo = 0, hi = 0;
  switch (d) {
  case SK_I64: return;
  case SK_I32: lo = INT32_MIN, hi = INT32_MAX; break;
  case SK_I16: lo = INT16_MIN, hi = INT16_MAX; break;
  case SK_I8: lo = INT8_MIN, hi = INT8_MAX; break;
  case SK_U64: /* a Lua integer is its bit pattern (2^63 and above wrap, as
                 * parallel_reduce returns them); a float must not be negative */
    if (lua_isinteger(L, -1)) return;
    lo = 0, hi = LLONG_MAX;
    break;
  case SK_U32: lo = 0, hi = UINT32_MAX; break;
  default: lo = 0, hi = UINT8_MAX; break;
  }
  if (v >= lo && v <= hi) return;
  const char *vs = luaL_tolstring(L, -1, NULL);
  if (d == SK_U64)
    sk_lerror(L, fname, label, SK_E_CAPTURE_OUT_RANGE_U64, name, vs, t->name,
              (unsigned long long)UINT64_MAX);
  sk_lerror(L, fname, label, SK_E_CAPTURE_OUT_RANGE, name, vs, t->name, lo, hi);
}

static void typed_scalar(lua_State *L, int idx, sk_arg *a, const char *fname,
                         const char *label) {
  /* {dtype, value} at idx */
  lua_geti(L, idx, 1);
  lua_geti(L, idx, 2);
  const char *dt = lua_tostring(L, -2);
  int d = dt ? sk_dtype_parse(dt) : -1;
  if (d < 0 || lua_isnoneornil(L, -1) || lua_type(L, -2) != LUA_TSTRING)
    sk_lerror(L, fname, label, SK_E_CAPTURE_TABLE_CAPTURES, a->name);
  a->dtype = d;
  sk_slot *s = &a->value;
  const sk_dtype_info *t = &sk_dtypes[d];
  int ok = 1;
  if (t->is_complex) { /* a number, {re, im} or {re = x, im = y} */
    double part[2] = {0, 0};
    if (lua_type(L, -1) == LUA_TNUMBER) {
      part[0] = lua_tonumber(L, -1);
    } else if (lua_type(L, -1) == LUA_TTABLE) {
      for (int k = 0; k < 2 && ok; k++) {
        if (lua_rawgeti(L, -1, k + 1) == LUA_TNIL) {
          lua_pop(L, 1);
          lua_getfield(L, -1, k ? "im" : "re");
        }
        part[k] = lua_tonumberx(L, -1, &ok);
        if (!ok && k == 1 && lua_isnil(L, -1)) ok = 1; /* {re} alone */
        lua_pop(L, 1);
      }
    } else {
      ok = 0;
    }
    if (d == SK_C128) s->c128[0] = part[0], s->c128[1] = part[1];
    else s->c64[0] = (float)part[0], s->c64[1] = (float)part[1];
  } else if (t->is_bool) {
    s->u8 = (unsigned char)(lua_toboolean(L, -1) ? 1 : 0);
  } else if (t->is_float) {
    double v = lua_tonumberx(L, -1, &ok);
    if (ok && d == SK_F32 && isfinite(v) && fabs(v) > FLT_MAX)
      sk_lerror(L, fname, label, SK_E_CAPTURE_OUT_RANGE_F32, a->name,
                luaL_tolstring(L, -1, NULL), (double)FLT_MAX);
    if (d == SK_F64) s->f64 = v;
    else s->f32 = (float)v;
  } else {
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (ok) capture_range(L, a->name, t, d, v, fname, label);
    switch (d) {
    case SK_I64: s->i64 = v; break;
    case SK_I32: s->i32 = (int)v; break;
    case SK_I16: s->i16 = (short)v; break;
    case SK_I8: s->i8 = (signed char)v; break;
    case SK_U64: s->u64 = (sk_u64)v; break;
    case SK_U32: s->u32 = (unsigned)v; break;
    default: s->u8 = (unsigned char)v; break;
    }
  }
  if (!ok) sk_lerror(L, fname, label, SK_E_CAPTURE_VALUE_NOT, a->name, t->name);
  lua_pop(L, 2);
}

/* The captures table at 'idx' as arguments; returns their count. The
 * names point into the table's keys and the views into their userdata,
 * alive while the table is on the stack. */
/* argument 'a' (its name set) from the value at absolute index 'vi' */
static void one_arg(lua_State *L, int vi, sk_arg *a, const char *fname, const char *label,
                    int strings) {
  const sk_view *v;
  switch (lua_type(L, vi)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, vi)) {
      a->dtype = SK_I64;
      a->value.i64 = lua_tointeger(L, vi);
    } else {
      a->dtype = SK_F64;
      a->value.f64 = lua_tonumber(L, vi);
    }
    break;
  case LUA_TBOOLEAN:
    a->dtype = SK_BOOL;
    a->value.u8 = (unsigned char)lua_toboolean(L, vi);
    break;
  case LUA_TTABLE: typed_scalar(L, vi, a, fname, label); break;
  case LUA_TSTRING:
    if (strings) { /* alive: the value stays where it is */
      a->str = lua_tostring(L, vi);
      break;
    }
    goto bad;
  case LUA_TUSERDATA:
    if ((v = sk_lview_test(L, vi)) != NULL || (v = sk_ltask_pool_view(L, vi)) != NULL) {
      a->view = v;
      break;
    }
    /* fall through */
  default:
  bad:
    sk_lerror(L, fname, label, SK_E_CAPTURE_CAPTURES_MUST, a->name, luaL_typename(L, vi));
  }
}

static int collect_args_str(lua_State *L, int idx, sk_arg *args, const char *fname,
                            const char *label, int strings) {
  int n = 0;
  if (lua_isnoneornil(L, idx)) return 0;
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, SK_E_CAPTURES_MUST_TABLE, luaL_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING)
      sk_lerror(L, fname, label, SK_E_CAPTURE_NAMES_MUST, luaL_typename(L, -2));
    if (n >= SK_MAXCAP) sk_lerror(L, fname, label, SK_E_MORE_THAN_CAPTURES, SK_MAXCAP);
    sk_arg *a = &args[n++];
    memset(a, 0, sizeof *a);
    a->name = lua_tostring(L, -2);
    one_arg(L, lua_gettop(L), a, fname, label, strings);
    lua_pop(L, 1);
  }
  return n;
}

static int collect_args(lua_State *L, int idx, sk_arg *args, const char *fname,
                        const char *label) {
  return collect_args_str(L, idx, args, fname, label, 0);
}

/* -- reducers ----------------------------------------------------------- */
/* one reducer description at idx: a name, {op=, dtype=} or a custom one */
static void parse_reducer(lua_State *L, int idx, sk_reducer *r, const char *fname,
                          const char *label) {
  memset(r, 0, sizeof *r);
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *s = lua_tostring(L, idx);
    r->op = sk_redop_find(s);
    if (r->op < 0) sk_lerror(L, fname, label, SK_E_UNKNOWN_REDUCER_SUM_PROD, s);
    r->dtype = sk_redop_default_dtype(r->op);
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, SK_E_REDUCER_MUST_STRING, luaL_typename(L, idx));
  static const char *const reducer_keys[] = {"dtype", "init", "join", "op", NULL};
  sk_lopts_check(L, idx, fname, label, reducer_keys);
  lua_getfield(L, idx, "op");
  lua_getfield(L, idx, "dtype");
  lua_getfield(L, idx, "init");
  lua_getfield(L, idx, "join");
  const char *op = lua_tostring(L, -4), *dt = lua_tostring(L, -3);
  if (op) {
    r->op = sk_redop_find(op);
    if (r->op < 0) sk_lerror(L, fname, label, SK_E_UNKNOWN_REDUCER, op);
    r->dtype = sk_redop_default_dtype(r->op);
  } else {
    if (!lua_isstring(L, -2) || !lua_isstring(L, -1))
      sk_lerror(L, fname, label, SK_E_CUSTOM_REDUCER_NEEDS);
    r->op = SK_RED_CUSTOM;
    r->dtype = SK_F64;
    r->init = lua_tostring(L, -2); /* anchored by the reducer table */
    r->join = lua_tostring(L, -1);
  }
  if (dt) {
    int st = sk_agg_parse(dt, &r->agg, &r->agg_n);
    if (st == -2) sk_lerror(L, fname, label, SK_E_REDUCER_DTYPE_N, dt, SK_AGG_MAXN);
    r->dtype = st == 0 ? SK_F64 : sk_dtype_parse(dt);
    if (st != 0) r->agg = r->agg_n = 0;
    if (r->dtype < 0) sk_lerror(L, fname, label, SK_E_REDUCER_UNKNOWN_DTYPE, dt);
  }
  lua_pop(L, 4);
}

/* reducer argument at idx (nil: sum) into reds; returns the count */
static int parse_reducers(lua_State *L, int idx, sk_reducer *reds, const char *fname,
                          const char *label) {
  if (lua_isnoneornil(L, idx)) return 0;
  if (lua_type(L, idx) == LUA_TTABLE && lua_rawlen(L, idx) > 0) {
    int n = (int)lua_rawlen(L, idx);
    if (n > SK_MAXRED) sk_lerror(L, fname, label, SK_E_MORE_THAN_REDUCERS, SK_MAXRED);
    for (int r = 0; r < n; r++) {
      lua_geti(L, idx, r + 1);
      parse_reducer(L, lua_gettop(L), &reds[r], fname, label);
      lua_pop(L, 1);
    }
    return n;
  }
  parse_reducer(L, idx, &reds[0], fname, label);
  return 1;
}

/* -- results ------------------------------------------------------------ */
static void push_scalar(lua_State *L, int dtype, const void *p) {
  switch (dtype) {
  case SK_F64: lua_pushnumber(L, *(const double *)p); break;
  case SK_F32: lua_pushnumber(L, *(const float *)p); break;
  case SK_I64: lua_pushinteger(L, *(const int64_t *)p); break;
  case SK_I32: lua_pushinteger(L, *(const int32_t *)p); break;
  case SK_I16: lua_pushinteger(L, *(const int16_t *)p); break;
  case SK_I8: lua_pushinteger(L, *(const int8_t *)p); break;
  case SK_U64: lua_pushinteger(L, (lua_Integer) * (const uint64_t *)p); break;
  case SK_U32: lua_pushinteger(L, *(const uint32_t *)p); break;
  case SK_U8: lua_pushinteger(L, *(const uint8_t *)p); break;
  case SK_C128:
  case SK_C64: { /* {re, im} */
    double re, im;
    if (dtype == SK_C128) memcpy(&re, p, 8), memcpy(&im, (const char *)p + 8, 8);
    else {
      float f[2];
      memcpy(f, p, sizeof f);
      re = f[0], im = f[1];
    }
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, re);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, im);
    lua_rawseti(L, -2, 2);
    break;
  }
  default: lua_pushboolean(L, *(const unsigned char *)p != 0); break;
  }
}

/* push a finished launch's values: one per reducer, two for minloc,
 * maxloc (value, index) and minmax (min, max) */
static int push_results(lua_State *L, int pattern, const sk_result *res) {
  if (pattern == SK_FOR) return 0;
  const sk_kernel *k = res->k;
  int n = 0;
  for (int r = 0; r < k->nred; r++) {
    const sk_reducer *q = &k->reds[r];
    const char *p = sk_result_ptr(res, r);
    if (q->agg) { /* a table of the components */
      int w = sk_agg_width(q->agg, q->agg_n);
      lua_createtable(L, w, 0);
      for (int c = 0; c < w; c++) {
        double x;
        memcpy(&x, p + (size_t)c * sizeof x, sizeof x);
        lua_pushnumber(L, x);
        lua_rawseti(L, -2, c + 1);
      }
      n++;
    } else if (q->op == SK_RED_MINLOC || q->op == SK_RED_MAXLOC) {
      push_scalar(L, q->dtype, p);
      lua_pushinteger(L, sk_result_loc(res, r));
      n += 2;
    } else if (q->op == SK_RED_MINMAX) {
      push_scalar(L, q->dtype, p);
      push_scalar(L, q->dtype, p + sk_dtypes[q->dtype].size);
      n += 2;
    } else {
      push_scalar(L, q->dtype, p);
      n++;
    }
  }
  return n;
}

/* -- launching ------------------------------------------------------------ */
/* opts.target: compile for another back end (speck.kernel) */
/* opts.instance: where a launch runs (speck.Instance; NULL for speck.kernel,
 * whose handle takes it per call) */
static void parse_opts(lua_State *L, int idx, sk_kdesc *d, const char **target,
                       const sk_instance **inst, const char *fname, const char *label) {
  d->bounds = -1;
  if (target) *target = NULL;
  if (inst) *inst = NULL;
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, SK_E_OPTIONS_MUST_TABLE, luaL_typename(L, idx));
  static const char *const launch_keys[] = {"bounds_check", "dtype",   "index",   "instance",
                                            "jit",          "prelude", NULL};
  static const char *const kernel_keys[] = {"bounds_check", "dtype",   "index",
                                            "jit",          "pattern", "prelude",
                                            "reducer",      "target",  NULL};
  sk_lopts_check(L, idx, fname, label, target ? kernel_keys : launch_keys);
  if (inst) *inst = sk_linst_option(L, idx, fname, label);
  lua_getfield(L, idx, "prelude");
  d->prelude = lua_tostring(L, -1); /* anchored by the options table */
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "bounds_check") != LUA_TNIL) d->bounds = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "jit");
  const char *j = lua_tostring(L, -1);
  if (j) {
    if (strcmp(j, "tcc") == 0) d->tier = SK_TIER_TCC;
    else if (strcmp(j, "cc") == 0) d->tier = SK_TIER_CC;
    else if (strcmp(j, "auto") == 0) d->tier = SK_TIER_AUTO;
    else sk_lerror(L, fname, label, SK_E_UNKNOWN_JIT_TCC, j);
  }
  lua_pop(L, 1);
  if (target) {
    lua_getfield(L, idx, "target");
    *target = lua_tostring(L, -1); /* anchored by the options table */
    lua_pop(L, 1);
  }
  lua_getfield(L, idx, "dtype");
  const char *dt = lua_tostring(L, -1);
  if (dt) {
    d->scan_dtype = sk_dtype_parse(dt);
    if (d->scan_dtype < 0) sk_lerror(L, fname, label, SK_E_UNKNOWN_DTYPE_QUOTED, dt);
  }
  lua_pop(L, 1);
  int ity = lua_getfield(L, idx, "index");
  if (ity != LUA_TNIL && ity != LUA_TTABLE)
    sk_lerror(L, fname, label, SK_E_OPTS_INDEX_MUST, luaL_typename(L, -1));
  if (ity == LUA_TTABLE) {
    int n = (int)lua_rawlen(L, -1);
    if (n > SK_MAXMD) sk_lerror(L, fname, label, SK_E_OPTS_INDEX_NAMES_MOST, n, SK_MAXMD);
    for (int d2 = 0; d2 < n && d2 < SK_MAXMD; d2++) {
      lua_geti(L, -1, d2 + 1);
      d->index[d2] = lua_tostring(L, -1); /* anchored by the index table */
      if (!d->index[d2]) sk_lerror(L, fname, label, SK_E_OPTS_INDEX_ENTRIES);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
}

static const char *fname_of(int pattern) {
  return pattern == SK_FOR      ? "speck.parallel_for"
         : pattern == SK_REDUCE ? "speck.parallel_reduce"
                                : "speck.parallel_scan";
}

/* the reducer and options arguments of parallel_reduce/scan/for from
 * 'idx': parallel_reduce's is a reducer unless it is an options table */
static void parse_tail(lua_State *L, int idx, sk_kdesc *d, const sk_instance **inst,
                       const char *fname, const char *label) {
  if (d->pattern == SK_REDUCE) {
    int is_opts = 0;
    if (lua_type(L, idx) == LUA_TTABLE && lua_rawlen(L, idx) == 0) {
      lua_getfield(L, idx, "op");
      lua_getfield(L, idx, "init");
      is_opts = lua_isnil(L, -1) && lua_isnil(L, -2);
      lua_pop(L, 2);
    }
    if (!is_opts) d->nred = parse_reducers(L, idx++, d->reds, fname, label);
  }
  parse_opts(L, idx, d, NULL, inst, fname, label);
}

/* parallel_for/reduce/scan(label, policy, captures, body [, reducer] [, opts]) */
static int launch(lua_State *L, int pattern) {
  const char *fname = fname_of(pattern);
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.pattern = pattern;
  d.label = luaL_checkstring(L, 1);
  d.body = lua_tolstring(L, 4, &d.body_len);
  if (!d.body)
    return sk_lerror(L, fname, d.label, SK_E_BODY_MUST_STRING, luaL_typename(L, 4));
  sk_policy pol;
  parse_policy(L, 2, &pol, fname, d.label);
  parse_tail(L, 5, &d, &pol.instance, fname, d.label);
  sk_arg args[SK_MAXCAP];
  int nargs = collect_args(L, 3, args, fname, d.label);
  sk_result res;
  char err[4096];
  if (sk_run(&d, &pol, args, nargs, &res, err, sizeof err) < 0)
    return sk_lerror(L, fname, d.label, SK_E_MSG, err);
  return push_results(L, pattern, &res);
}

static int l_parallel_for(lua_State *L) { return launch(L, SK_FOR); }
static int l_parallel_reduce(lua_State *L) { return launch(L, SK_REDUCE); }
static int l_parallel_scan(lua_State *L) { return launch(L, SK_SCAN); }

/* -- compiled kernel handles (speck.kernel) ------------------------------ */
#define SK_KERNEL_MT "speck.Kernel"

typedef struct khandle {
  sk_prepared *h;
} khandle;

/* policy kind of speck.kernel: "range", "mdrange<rank>", "team" or a
 * policy object */
static void parse_kind(lua_State *L, int idx, int *kind, int *md_rank, const char *fname,
                       const char *label) {
  *md_rank = 0;
  if (lua_type(L, idx) != LUA_TSTRING) {
    sk_policy pol;
    parse_policy(L, idx, &pol, fname, label);
    *kind = pol.kind;
    *md_rank = pol.md_rank;
    return;
  }
  const char *pk = lua_tostring(L, idx);
  if (strcmp(pk, "range") == 0) {
    *kind = SK_POL_RANGE;
  } else if (strncmp(pk, "mdrange", 7) == 0) {
    *kind = SK_POL_MDRANGE;
    *md_rank = pk[7] ? atoi(pk + 7) : 2;
    if (*md_rank < 2 || *md_rank > SK_MAXMD)
      sk_lerror(L, fname, label, SK_E_POLICY_KIND_RANK, pk);
  } else if (strcmp(pk, "team") == 0) {
    *kind = SK_POL_TEAM;
  } else {
    sk_lerror(L, fname, label, SK_E_UNKNOWN_POLICY_KIND_RANGE, pk);
  }
}

/* speck.kernel(label, policy_kind, captures, body [, opts]);
 * opts.pattern = "for"|"reduce"|"scan", opts.reducer as parallel_reduce's,
 * opts.target = a back end to compile for without running here */
static int l_kernel(lua_State *L) {
  const char *fname = "speck.kernel";
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = luaL_checkstring(L, 1);
  d.body = lua_tolstring(L, 4, &d.body_len);
  if (!d.body) return sk_lerror(L, fname, d.label, SK_E_BODY_NOT_STRING);
  int kind = SK_POL_RANGE, md_rank = 0;
  parse_kind(L, 2, &kind, &md_rank, fname, d.label);
  const char *target;
  parse_opts(L, 5, &d, &target, NULL, fname, d.label);
  d.pattern = SK_FOR;
  if (lua_type(L, 5) == LUA_TTABLE) {
    lua_getfield(L, 5, "pattern");
    const char *pt = lua_tostring(L, -1);
    if (pt && strcmp(pt, "reduce") == 0) d.pattern = SK_REDUCE;
    else if (pt && strcmp(pt, "scan") == 0) d.pattern = SK_SCAN;
    else if (pt && strcmp(pt, "for") != 0)
      return sk_lerror(L, fname, d.label, SK_E_UNKNOWN_PATTERN_REDUCE, pt);
    lua_pop(L, 1);
    if (d.pattern == SK_REDUCE) {
      lua_getfield(L, 5, "reducer");
      d.nred = parse_reducers(L, lua_gettop(L), d.reds, fname, d.label);
      lua_pop(L, 1);
    }
  }
  if (target) {
    d.backend = sk_backend_find(target);
    if (!d.backend) {
      char names[256];
      sk_env_space_names(names, sizeof names, 0); /* the back ends' names */
      return sk_lerror(L, fname, d.label, SK_E_UNKNOWN_TARGET, target, names);
    }
  } else {
    backend(L, fname);
  }
  sk_arg args[SK_MAXCAP];
  int nargs = collect_args(L, 3, args, fname, d.label);
  khandle *kh = lua_newuserdatauv(L, sizeof *kh, 0);
  kh->h = NULL;
  luaL_setmetatable(L, SK_KERNEL_MT);
  char err[4096];
  kh->h = sk_prepare(&d, kind, md_rank, args, nargs, target != NULL, err, sizeof err);
  if (!kh->h) return sk_lerror(L, fname, d.label, SK_E_MSG, err);
  return 1;
}

static khandle *check_handle(lua_State *L) {
  khandle *kh = luaL_checkudata(L, 1, SK_KERNEL_MT);
  if (!kh->h) luaL_argerror(L, 1, sk_err_text(SK_E_KERNEL_HANDLE_CLOSED));
  return kh;
}

/* k(policy, captures [, opts]): opts.instance as a launch's */
static int l_kernel_call(lua_State *L) {
  khandle *kh = check_handle(L);
  const char *fname = "speck.kernel";
  const char *label = sk_prepared_label(kh->h);
  sk_policy pol;
  parse_policy(L, 2, &pol, fname, label);
  if (!lua_isnoneornil(L, 4)) {
    static const char *const call_keys[] = {"instance", NULL};
    if (lua_type(L, 4) != LUA_TTABLE)
      return sk_lerror(L, fname, label, SK_E_OPTIONS_MUST_TABLE, luaL_typename(L, 4));
    sk_lopts_check(L, 4, fname, label, call_keys);
    pol.instance = sk_linst_option(L, 4, fname, label);
  }
  sk_arg args[SK_MAXCAP];
  int nargs = collect_args(L, 3, args, fname, label);
  sk_result res;
  char err[4096];
  if (sk_run_prepared(kh->h, &pol, args, nargs, &res, err, sizeof err) < 0)
    return sk_lerror(L, fname, label, SK_E_MSG, err);
  return push_results(L, sk_prepared_pattern(kh->h), &res);
}

static int l_kernel_gc(lua_State *L) {
  khandle *kh = luaL_checkudata(L, 1, SK_KERNEL_MT);
  sk_prepared_free(kh->h);
  kh->h = NULL;
  return 0;
}

static int l_kernel_tostring(lua_State *L) {
  khandle *kh = luaL_checkudata(L, 1, SK_KERNEL_MT);
  lua_pushfstring(L, "Kernel '%s'", kh->h ? sk_prepared_label(kh->h) : "?");
  return 1;
}

/* -- message ids (core/errmsg.h) ------------------------------------------- */
/* core.err_last(): the id ("UNKNOWN_DTYPE") of the last message the C
 * layer raised on this thread, nil for none, so Lua code and specs tell
 * errors by id */
static int l_err_last(lua_State *L) {
  int id = sk_err_last();
  if (id == SK_E_NONE) lua_pushnil(L);
  else lua_pushstring(L, sk_err_name(id));
  return 1;
}

/* core.err_text(id): the text of message 'id' (its printf slots in it),
 * nil for an unknown id */
static int l_err_text(lua_State *L) {
  int id = sk_err_id(luaL_checkstring(L, 1));
  if (id < 0) lua_pushnil(L);
  else lua_pushstring(L, sk_err_text(id));
  return 1;
}

/* -- profile regions (Kokkos Tools) ---------------------------------------- */
static int l_profile_push(lua_State *L) {
  sk_tools_push_region(luaL_checkstring(L, 1));
  return 0;
}

static int l_profile_pop(lua_State *L) {
  (void)L;
  sk_tools_pop_region();
  return 0;
}

/* -- library kernels: lcall.c (core.call, callv, bind, complex) ---------- */
void sk_larg(lua_State *L, int vi, sk_arg *a, const char *fname, const char *label,
             int strings) {
  one_arg(L, vi, a, fname, label, strings);
}

int sk_largs(lua_State *L, int idx, sk_arg *args, const char *fname, const char *label,
             int strings) {
  return collect_args_str(L, idx, args, fname, label, strings);
}

/* core.kernel_text(name [, values]): text 'name' of a kernels/<area>/ .sk file
 * ("dist_jacobi_apply", sk_kernel_text), for the Lua drivers of stdlib/
 * (speck/ktext.lua). A template's placeholders @P@ are filled from
 * 'values' (P -> a string or a number); a placeholder without a value, a
 * value no placeholder takes and an unknown name are errors naming the
 * text. */
static int placeholder_len(const char *at) { /* 'at' at '@': of "@P@", else 0 */
  size_t n = 1;
  if (!isalpha((unsigned char)at[1]) && at[1] != '_') return 0;
  while (isalnum((unsigned char)at[n]) || at[n] == '_') n++;
  return at[n] == '@' && n < 64 ? (int)n + 1 : 0;
}

static int l_kernel_text(lua_State *L) {
  static const char fname[] = "speck.kernel_text";
  const char *name = luaL_checkstring(L, 1);
  const char *text = sk_kernel_text(name);
  if (!text) return sk_lerror(L, fname, NULL, SK_E_KTEXT_MISSING, name);
  int vals = !lua_isnoneornil(L, 2);
  if (vals) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
      int vt = lua_type(L, -1);
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING) {
        const char *k = luaL_tolstring(L, -1, NULL);
        return sk_lerror(L, fname, NULL, SK_E_KTEXT_UNUSED, name, k);
      }
      const char *k = lua_tostring(L, -1);
      const char *ph = lua_pushfstring(L, "@%s@", k);
      if (!strstr(text, ph)) return sk_lerror(L, fname, NULL, SK_E_KTEXT_UNUSED, name, k);
      lua_pop(L, 1);
      if (vt != LUA_TSTRING && vt != LUA_TNUMBER)
        return sk_lerror(L, fname, NULL, SK_E_KTEXT_VALUE, name, k, lua_typename(L, vt));
    }
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (const char *p = text;;) {
    const char *at = strchr(p, '@');
    int n = at ? placeholder_len(at) : 0;
    if (!at) {
      luaL_addstring(&b, p);
      break;
    }
    luaL_addlstring(&b, p, (size_t)(at - p) + (n ? 0 : 1));
    p = at + (n ? n : 1);
    if (!n) continue;
    char key[64];
    memcpy(key, at + 1, (size_t)n - 2);
    key[n - 2] = 0;
    if (!vals) return sk_lerror(L, fname, NULL, SK_E_KTEXT_UNFILLED, name, key);
    lua_pushstring(L, key);
    if (lua_gettable(L, 2) == LUA_TNIL)
      return sk_lerror(L, fname, NULL, SK_E_KTEXT_UNFILLED, name, key);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return 1;
}

/* -- jit ---------------------------------------------------------------- */
static int l_jit_source(lua_State *L) {
  const char *label = luaL_checkstring(L, 1);
  sk_kernel *k = sk_cache_last(label);
  if (!k) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushstring(L, k->source);
  return 1;
}

static int l_jit_stats(lua_State *L) {
  /* a tier-up compiled in the background is installed first (a launch
   * would install it): the tiers shown are current after jit.wait() */
  for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) sk_jit_refresh(k);
  sk_jit_totals t;
  sk_cache_totals(&t);
  lua_createtable(L, 0, 8);
  sk_lset_int(L, "kernels", t.kernels);
  sk_lset_int(L, "compiles", t.compiles);
  sk_lset_int(L, "hits", t.hits);
  sk_lset_int(L, "tierups", t.tierups);
  sk_lset_num(L, "compile_seconds", t.compile_seconds);
  lua_newtable(L);
  int i = 1;
  for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) {
    /* a consistent copy: other VMs may be launching this kernel */
    sk_kstats ks;
    sk_jit_kstats(k, &ks);
    lua_createtable(L, 0, 8);
    sk_lset_str(L, "label", k->label);
    sk_lset_str(L, "tier", sk_jit_tier_name(ks.tier));
    sk_lset_int(L, "launches", ks.launches);
    sk_lset_int(L, "hits", ks.hits);
    sk_lset_int(L, "tierups", ks.tierups);
    sk_lset_num(L, "compile_seconds", ks.compile_seconds);
    sk_lset_int(L, "cache_hits", ks.disk_hits);
    sk_lset_num(L, "run_seconds", ks.run_seconds);
    if (ks.warning[0]) { sk_lset_str(L, "warning", ks.warning); }
    lua_createtable(L, 0, SK_NTIER);
    for (int t2 = 1; t2 < SK_NTIER; t2++) {
      sk_lset_int(L, sk_jit_tier_name(t2), ks.compiles[t2]);
    }
    lua_setfield(L, -2, "compiles");
    lua_rawseti(L, -2, i++);
  }
  lua_setfield(L, -2, "per_kernel");
  return 1;
}

/* -- runtime --------------------------------------------------------------- */
/* speck.initialize{...}: starts the runtime, or checks the settings it
 * names against the running ones (core/runtime.c); jit and
 * bounds_check then set the defaults of later launches. */
static int l_initialize(lua_State *L) {
  sk_rt_settings rs = {NULL, 0, -1};
  int tier = -1, bounds = -1;
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    static const char *const keys[] = {"bounds_check", "device",  "jit",
                                       "space",        "threads", NULL};
    sk_lopts_check(L, 1, "speck.initialize", NULL, keys);
    lua_getfield(L, 1, "space");
    rs.space = lua_tostring(L, -1);
    lua_getfield(L, 1, "threads");
    if (!lua_isnil(L, -1)) {
      int ok;
      lua_Integer t = lua_tointegerx(L, -1, &ok);
      if (!ok || t < 1)
        return sk_lerror(L, "speck.initialize", NULL, SK_E_THREADS_MUST_POSITIVE);
      rs.threads = t > INT_MAX ? INT_MAX : (int)t;
    }
    lua_getfield(L, 1, "device");
    if (!lua_isnil(L, -1)) {
      int ok;
      lua_Integer d = lua_tointegerx(L, -1, &ok);
      if (!ok || d < 0 || d > INT_MAX)
        return sk_lerror(L, "speck.initialize", NULL, SK_E_DEVICE_MUST_NON);
      rs.device = (int)d;
    }
    if (lua_getfield(L, 1, "bounds_check") != LUA_TNIL) bounds = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 1, "jit");
    const char *j = lua_tostring(L, -1);
    if (j) {
      if (strcmp(j, "tcc") == 0) tier = SK_TIER_TCC;
      else if (strcmp(j, "cc") == 0) tier = SK_TIER_CC;
      else if (strcmp(j, "auto") == 0) tier = SK_TIER_AUTO;
      else return sk_lerror(L, "speck.initialize", NULL, SK_E_UNKNOWN_JIT_TCC, j);
    }
    /* the space string stays anchored by the options table */
  }
  char err[512];
  if (sk_rt_start(&rs, err, sizeof err) < 0)
    return sk_lerror(L, "speck.initialize", NULL, SK_E_MSG, err);
  if (tier >= 0) sk_jit_set_default_tier(tier);
  if (bounds >= 0) sk_exec_set_bounds(bounds);
  sk_exec_warm();
  return 0;
}

static int l_finalize(lua_State *L) {
  (void)L;
  sk_rt_finalize();
  return 0;
}

/* speck.fence([space]) */
static int l_fence(lua_State *L) {
  const char *space = luaL_optstring(L, 1, NULL);
  char err[512];
  if (sk_rt_fence(space, err, sizeof err) < 0)
    return sk_lerror(L, "speck.fence", NULL, SK_E_MSG, err);
  return 0;
}

/* team_limits() -> team_size_max, team_size_recommended, vector_length_max,
 * scratch_max0, scratch_max1 of the active back end */
static int l_team_limits(lua_State *L) {
  const sk_backend *b = backend(L, "speck.TeamPolicy");
  sk_team_limits lim;
  b->team_limits(&lim);
  lua_pushinteger(L, lim.team_size_max);
  lua_pushinteger(L, lim.team_size_recommended);
  lua_pushinteger(L, lim.vector_length_max);
  lua_pushinteger(L, lim.scratch_max[0]);
  lua_pushinteger(L, lim.scratch_max[1]);
  return 5;
}

/* core.host_small_pages(delta): open (1) or close (-1) a small-page scope
 * on this thread (sk_host_small_pages), the depth back; speck/
 * precond_ml.lua runs the AMG setup inside one */
static int l_host_small_pages(lua_State *L) {
  lua_Integer d = luaL_checkinteger(L, 1);
  if (d < -1 || d > 1)
    sk_lerror(L, "speck.core.host_small_pages", NULL, SK_E_SMALL_PAGES_DELTA, (long long)d);
  lua_pushinteger(L, sk_host_small_pages((int)d));
  return 1;
}

static int l_now(lua_State *L) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  lua_pushnumber(L, (double)t.tv_sec + 1e-9 * (double)t.tv_nsec);
  return 1;
}

/* info.spaces[name]: available, the reason when not, info (as the back
 * end's entries of those names tell) */
static void space_info(lua_State *L, const char *name, int (*available)(char *, size_t),
                       void (*info)(char *, size_t)) {
  char why[512] = "", text[512] = "";
  lua_createtable(L, 0, 3);
  int ok = available(why, sizeof why);
  sk_lset_bool(L, "available", ok);
  if (!ok) sk_lset_str(L, "reason", why);
  info(text, sizeof text);
  sk_lset_str(L, "info", text);
  lua_setfield(L, -2, name);
}

static int l_info(lua_State *L) {
  const sk_backend *active = backend(L, "speck.info");
  lua_createtable(L, 0, 8);
  sk_lset_str(L, "version", speck_version());
  sk_lset_str(L, "default_space", active->name);
  sk_lset_int(L, "threads", active->concurrency());
  lua_newtable(L);
  for (const sk_backend *const *b = sk_backend_list(); *b; b++)
    space_info(L, (*b)->name, (*b)->available, (*b)->info);
  if (!sk_backend_find("remote")) /* registered by require "speck.remote" */
    space_info(L, "remote", sk_remote_available, sk_remote_info);
  lua_setfield(L, -2, "spaces");
  lua_newtable(L);
  lua_createtable(L, 0, 2);
  sk_lset_bool(L, "available", 1);
  sk_lset_str(L, "libdir", sk_tcc_libdir());
  lua_setfield(L, -2, "tcc");
  lua_createtable(L, 0, 4);
  sk_lset_bool(L, "available", sk_cc_available());
  if (sk_cc_available()) {
    sk_lset_str(L, "path", sk_cc_path());
    sk_lset_str(L, "version", sk_cc_ident());
    sk_lset_str(L, "flags", sk_cc_flags());
  } else {
    lua_pushfstring(L, "%s; kernels stay on libtcc", sk_cc_why());
    lua_setfield(L, -2, "reason");
  }
  lua_setfield(L, -2, "cc");
  /* the device compilers of the JIT's image targets */
  for (const sk_jit_target *const *t = sk_jit_targets(); *t; t++) {
    if (!(*t)->compiler || !(*t)->status) continue;
    char nv[1024];
    lua_createtable(L, 0, 2);
    int ok = (*t)->status(nv, sizeof nv);
    sk_lset_bool(L, "available", ok);
    sk_lset_str(L, ok ? "version" : "reason", nv);
    lua_setfield(L, -2, (*t)->compiler);
  }
  lua_setfield(L, -2, "compilers");
  lua_createtable(L, 0, 6);
  sk_lset_bool(L, "enabled", sk_disk_enabled());
  sk_lset_str(L, sk_disk_enabled() ? "dir" : "reason", sk_disk_status());
  sk_lset_int(L, "size", sk_disk_size());
  sk_lset_int(L, "max", sk_disk_max());
  /* the installation's shelf of device images made at build time */
  sk_lset_str(L, "prebuilt", sk_disk_shelf_dir() ? sk_disk_shelf_dir() : "off");
  sk_lset_int(L, "prebuilt_hits", sk_disk_shelf_hits());
  lua_setfield(L, -2, "cache");
  {
    static const char *const names[] = {"auto", "tcc", "cc"};
    int t = sk_jit_default_tier();
    sk_lset_str(L, "jit", t < 3 ? names[t] : "auto");
  }
  /* the back ends' devices (an empty table without a driver) */
  lua_newtable(L);
  int ndev = 0;
  for (const sk_backend *const *b = sk_backend_list(); *b; b++) {
    sk_device dv[16];
    int nd = (*b)->devices ? (*b)->devices(dv, 16) : 0;
    for (int d = 0; d < nd; d++) {
      lua_createtable(L, 0, 8);
      sk_lset_str(L, "name", dv[d].name);
      sk_lset_str(L, "arch", dv[d].arch);
      sk_lset_int(L, "multiprocessors", dv[d].multiprocessors);
      sk_lset_int(L, "memory", (lua_Integer)dv[d].memory);
      if (dv[d].free) { sk_lset_int(L, "free", (lua_Integer)dv[d].free); }
      sk_lset_int(L, "shared_per_block", (lua_Integer)dv[d].shared_per_block);
      lua_rawseti(L, -2, ++ndev);
    }
  }
  lua_setfield(L, -2, "devices");
  /* Kokkos Tools: the libraries loaded, and why any was skipped */
  lua_createtable(L, 0, 2);
  sk_lset_str(L, "libraries", sk_tools_names());
  if (sk_tools_warning()[0]) { sk_lset_str(L, "warning", sk_tools_warning()); }
  lua_setfield(L, -2, "tools");
  /* the vendor BLAS behind speck.blas' impl = "vendor" (loaded on first use) */
  lua_createtable(L, 0, 2);
  sk_lset_bool(L, "available", sk_vendor_host_available());
  sk_lset_str(L, sk_vendor_host_available() ? "host" : "note", sk_vendor_host_status());
  if (ndev > 0) { /* a device's vendor BLAS: only where a device is (it starts it) */
    sk_lset_str(L, "gpu", sk_vendor_gpu_status());
  }
  lua_setfield(L, -2, "blas_vendor");
  return 1;
}

/* -- module -------------------------------------------------------------- */
/* core.host_accessible(name): true when the CPU loads and stores the
 * memory of space 'name' directly (as its back end's table says); false
 * for device memory and unknown names */
static int l_host_accessible(lua_State *L) {
  int sp = sk_space_parse(luaL_checkstring(L, 1));
  lua_pushboolean(L, sp >= 0 && sk_space_host_accessible(sp));
  return 1;
}

/* core.interrupt(): ask running host kernels to stop at their next
 * chunk boundary (as Ctrl-C in the CLI); true when one was running.
 * core.interrupt_clear(): let launches run again. */
static int l_interrupt(lua_State *L) {
  lua_pushboolean(L, sk_interrupt_request());
  return 1;
}

static int l_interrupt_clear(lua_State *L) {
  (void)L;
  sk_interrupt_clear();
  return 0;
}

static const luaL_Reg core_funcs[] = {{"host_accessible", l_host_accessible},
                                      {"interrupt", l_interrupt},
                                      {"interrupt_clear", l_interrupt_clear},
                                      {"parallel_for", l_parallel_for},
                                      {"parallel_reduce", l_parallel_reduce},
                                      {"parallel_scan", l_parallel_scan},
                                      {"kernel", l_kernel},
                                      {"initialize", l_initialize},
                                      {"check_opts", l_check_opts},
                                      {"finalize", l_finalize},
                                      {"fence", l_fence},
                                      {"info", l_info},
                                      {"now", l_now},
                                      {"host_small_pages", l_host_small_pages},
                                      {"team_limits", l_team_limits},
                                      {"check_policy", l_check_policy},
                                      {"kernel_text", l_kernel_text},
                                      {"err_last", l_err_last},
                                      {"err_text", l_err_text},
                                      {"profile_push", l_profile_push},
                                      {"profile_pop", l_profile_pop},
                                      {NULL, NULL}};

static int l_jit_drain(lua_State *L) {
  (void)L;
  sk_jit_drain();
  return 0;
}

static const luaL_Reg jit_funcs[] = {
  {"source", l_jit_source}, {"stats", l_jit_stats}, {"wait", l_jit_drain}, {NULL, NULL}};

/* Finaliser of a sentinel kept in the registry: when the state closes
 * (before Lua unloads this module), let background compiles finish, so no
 * compiler child is orphaned and no temporary file is left behind. */
static int live_states; /* Lua states that loaded this module */

static int l_sentinel_gc(lua_State *L) {
  (void)L;
  sk_jit_drain();
  /* the last state going stops the pool and the background compiler:
   * their threads run this module's code, which Lua is about to unload */
  if (__atomic_sub_fetch(&live_states, 1, __ATOMIC_ACQ_REL) == 0) {
    sk_lio_close();     /* the bar's code goes with this module */
    sk_lremote_close(); /* windows freed, MPI finalised (if started) */
    sk_rt_finalize();
    sk_jit_shutdown();
  }
  return 0;
}

int luaopen_speck_core(lua_State *L) {
  __atomic_add_fetch(&live_states, 1, __ATOMIC_ACQ_REL);
  lua_newuserdatauv(L, 1, 0);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, l_sentinel_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, "speck.sentinel");
  /* tcc's libtcc1.a (SPECK_TCC_LIBDIR or the installation's folder) and
   * the shelf of device images (SPECK_PREBUILT or the installation's) */
  sk_vm_setup_dirs();
  /* Kokkos Tools see everything from the first view on */
  sk_tools_start();
  if (luaL_newmetatable(L, SK_KERNEL_MT)) {
    lua_pushcfunction(L, l_kernel_call);
    lua_setfield(L, -2, "__call");
    lua_pushcfunction(L, l_kernel_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, l_kernel_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_pop(L, 1);
  luaL_newlib(L, core_funcs);
  luaL_newlib(L, jit_funcs);
  lua_setfield(L, -2, "jit");
  sk_lset_str(L, "version", speck_version());
  sk_lcall_open(L); /* before sk_lsolve_open, which keeps core.call */
  sk_lview_open(L);
  sk_lio_open(L);
  sk_ltask_open(L);
  sk_lremote_open(L);
  sk_lsolve_open(L);
  sk_ldist_open(L);
  sk_lplot_open(L);
  sk_linst_open(L);
  sk_lcapture_open(L);
  return 1;
}
