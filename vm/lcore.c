/* lcore.c: the 'speck.core' Lua module: runtime, patterns, kernels, jit.
 *
 * A launch: parse the policy, collect the captures (sorted by name, so
 * the signature is canonical), build the kernel spec, look it up or
 * compile it (jit/), fill the argument block and hand it to the active
 * back end. Everything on the C stack: no malloc'd memory is held across
 * a call that can raise (STYLE.md point 7).
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vm.h"
#include "../backends/cuda/cuda_api.h"

#define SPECK_VERSION "0.1.0"

/* -- errors ------------------------------------------------------------- */
int sk_lerror(lua_State *L, const char *fname, const char *label,
              const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  luaL_where(L, 1);
  if (label)
    lua_pushfstring(L, "%s '%s': %s", fname, label, msg);
  else
    lua_pushfstring(L, "%s: %s", fname, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

static const sk_backend *backend(lua_State *L, const char *fname) {
  char err[512];
  const sk_backend *b = sk_rt_backend(err, sizeof err);
  if (!b) sk_lerror(L, fname, NULL, "%s", err);
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
    if (!ok)
      sk_lerror(L, fname, label, "policy field '%s' must be an integer", k);
  }
  lua_pop(L, 1);
  return v;
}

/* read an integer list field of length 'n' (or -1: any) into out;
 * returns the length */
static int int_list(lua_State *L, int t, const char *k, int64_t *out, int max,
                    const char *fname, const char *label) {
  if (lua_getfield(L, t, k) != LUA_TTABLE) {
    lua_pop(L, 1);
    return -1;
  }
  int n = (int)luaL_len(L, -1);
  if (n > max) sk_lerror(L, fname, label, "policy '%s' has %d entries, at most %d", k, n, max);
  for (int d = 0; d < n; d++) {
    lua_geti(L, -1, d + 1);
    int ok;
    out[d] = lua_tointegerx(L, -1, &ok);
    if (!ok)
      sk_lerror(L, fname, label, "policy '%s' entry %d is not an integer", k,
                d + 1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return n;
}

static int is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Fill 'p' from the policy at stack index 'idx' (an integer n, or a
 * table built by speck.RangePolicy / MDRangePolicy / TeamPolicy). */
static void parse_policy(lua_State *L, int idx, sk_policy *p,
                         const char *fname, const char *label) {
  memset(p, 0, sizeof *p);
  p->kind = SK_POL_RANGE;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    int ok;
    p->end = lua_tointegerx(L, idx, &ok);
    if (!ok)
      sk_lerror(L, fname, label, "range %s is not an integer",
                lua_tostring(L, idx));
    if (p->end < 0)
      sk_lerror(L, fname, label, "range end %lld is negative",
                (long long)p->end);
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label,
              "policy must be an integer or a speck policy, got %s",
              luaL_typename(L, idx));
  lua_getfield(L, idx, "kind");
  const char *kind = lua_tostring(L, -1);
  if (!kind) sk_lerror(L, fname, label, "policy table has no 'kind'");
  if (strcmp(kind, "range") == 0) {
    p->kind = SK_POL_RANGE;
  } else if (strcmp(kind, "mdrange") == 0) {
    p->kind = SK_POL_MDRANGE;
  } else if (strcmp(kind, "team") == 0) {
    p->kind = SK_POL_TEAM;
  } else {
    sk_lerror(L, fname, label, "unknown policy kind '%s'", kind);
  }
  lua_pop(L, 1);
  lua_getfield(L, idx, "schedule");
  const char *sch = lua_tostring(L, -1);
  if (sch && strcmp(sch, "dynamic") == 0)
    p->schedule = SK_DYNAMIC;
  else if (sch && strcmp(sch, "static") != 0)
    sk_lerror(L, fname, label, "unknown schedule '%s' (static or dynamic)", sch);
  lua_pop(L, 1);
  p->chunk = int_field(L, idx, "chunk", 0, fname, label);
  if (p->chunk < 0)
    sk_lerror(L, fname, label, "chunk %lld is negative", (long long)p->chunk);
  if (p->kind == SK_POL_RANGE) {
    p->begin = int_field(L, idx, "begin", 0, fname, label);
    p->end = int_field(L, idx, "end", 0, fname, label);
    if (p->end < p->begin)
      sk_lerror(L, fname, label, "range end %lld is before begin %lld",
                (long long)p->end, (long long)p->begin);
  } else if (p->kind == SK_POL_MDRANGE) {
    int n1 = int_list(L, idx, "lower", p->md_lo, SK_MAXMD, fname, label);
    int n2 = int_list(L, idx, "upper", p->md_hi, SK_MAXMD, fname, label);
    if (n1 != n2 || n1 < 2)
      sk_lerror(L, fname, label,
                "MDRangePolicy needs lower and upper bounds of equal rank 2..6");
    p->md_rank = n1;
    for (int d = 0; d < n1; d++)
      if (p->md_hi[d] < p->md_lo[d])
        sk_lerror(L, fname, label, "MDRange dimension %d: upper %lld < lower %lld",
                  d, (long long)p->md_hi[d], (long long)p->md_lo[d]);
    int nt = int_list(L, idx, "tile", p->md_tile, SK_MAXMD, fname, label);
    if (nt >= 0 && nt != n1)
      sk_lerror(L, fname, label, "MDRange tile has %d entries, rank is %d", nt, n1);
    for (int d = 0; d < nt; d++)
      if (p->md_tile[d] < 1)
        sk_lerror(L, fname, label, "MDRange tile %d is %lld (must be >= 1)", d,
                  (long long)p->md_tile[d]);
  } else {
    p->league_size = int_field(L, idx, "league_size", 0, fname, label);
    if (p->league_size < 0)
      sk_lerror(L, fname, label, "league size %lld is negative",
                (long long)p->league_size);
    p->team_size = (int)int_field(L, idx, "team_size", 0, fname, label);
    p->vector_length = (int)int_field(L, idx, "vector_length", 0, fname, label);
    if (p->vector_length && !is_pow2(p->vector_length))
      sk_lerror(L, fname, label, "vector length %d is not a power of two",
                p->vector_length);
    if (p->team_size < 0)
      sk_lerror(L, fname, label, "team size %d is negative", p->team_size);
    int_list(L, idx, "scratch_team", p->scratch_team, 2, fname, label);
    int_list(L, idx, "scratch_thread", p->scratch_thread, 2, fname, label);
    for (int l = 0; l < 2; l++)
      if (p->scratch_team[l] < 0 || p->scratch_thread[l] < 0)
        sk_lerror(L, fname, label, "negative scratch request");
  }
}

/* -- captures ----------------------------------------------------------- */
typedef struct caps {
  int n;
  sk_capture c[SK_MAXCAP];
  sk_slot slot[SK_MAXCAP];
  const sk_view *view[SK_MAXCAP];
} caps;

static void typed_scalar(lua_State *L, int idx, sk_capture *c, sk_slot *s,
                         const char *fname, const char *label) {
  /* {dtype, value} at idx */
  lua_geti(L, idx, 1);
  lua_geti(L, idx, 2);
  const char *dt = lua_tostring(L, -2);
  int d = dt ? sk_dtype_parse(dt) : -1;
  if (d < 0 || lua_isnoneornil(L, -1) || lua_type(L, -2) != LUA_TSTRING)
    sk_lerror(L, fname, label,
              "capture '%s' is a table; captures must be views, numbers, "
              "booleans or {dtype, value}",
              c->name);
  c->dtype = d;
  const sk_dtype_info *t = &sk_dtypes[d];
  int ok = 1;
  if (t->is_bool) {
    s->u8 = (unsigned char)(lua_toboolean(L, -1) ? 1 : 0);
  } else if (t->is_float) {
    double v = lua_tonumberx(L, -1, &ok);
    if (d == SK_F64) s->f64 = v; else s->f32 = (float)v;
  } else {
    lua_Integer v = lua_tointegerx(L, -1, &ok);
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
  if (!ok)
    sk_lerror(L, fname, label, "capture '%s': value is not of dtype %s", c->name,
              t->name);
  lua_pop(L, 2);
}

static void sort_caps(caps *cs) {
  for (int a = 1; a < cs->n; a++) {
    for (int b = a; b > 0 && strcmp(cs->c[b - 1].name, cs->c[b].name) > 0; b--) {
      sk_capture tc = cs->c[b]; cs->c[b] = cs->c[b - 1]; cs->c[b - 1] = tc;
      sk_slot ts = cs->slot[b]; cs->slot[b] = cs->slot[b - 1]; cs->slot[b - 1] = ts;
      const sk_view *tv = cs->view[b]; cs->view[b] = cs->view[b - 1]; cs->view[b - 1] = tv;
    }
  }
}

static int space_ok(int view_space, const sk_backend *b) {
  if (b->space == SK_SPACE_HOST)
    return view_space == SK_SPACE_HOST || view_space == SK_SPACE_CUDA_PINNED ||
           view_space == SK_SPACE_CUDA_UVM;
  return view_space != SK_SPACE_HOST;
}

/* Collect the captures table at 'idx' into 'cs' (sorted, aliasing marked).
 * The names point into the table's keys, alive while it is on the stack. */
static void collect_caps(lua_State *L, int idx, caps *cs, const sk_backend *b,
                         const char *fname, const char *label) {
  cs->n = 0;
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, "captures must be a table, got %s",
              luaL_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING)
      sk_lerror(L, fname, label, "capture names must be strings, got %s",
                luaL_typename(L, -2));
    if (cs->n >= SK_MAXCAP)
      sk_lerror(L, fname, label, "more than %d captures", SK_MAXCAP);
    int k = cs->n++;
    sk_capture *c = &cs->c[k];
    sk_slot *s = &cs->slot[k];
    memset(c, 0, sizeof *c);
    c->name = lua_tostring(L, -2);
    cs->view[k] = NULL;
    const sk_view *v;
    switch (lua_type(L, -1)) {
    case LUA_TNUMBER:
      c->kind = SK_CAP_SCALAR;
      if (lua_isinteger(L, -1)) {
        c->dtype = SK_I64;
        s->i64 = lua_tointeger(L, -1);
      } else {
        c->dtype = SK_F64;
        s->f64 = lua_tonumber(L, -1);
      }
      break;
    case LUA_TBOOLEAN:
      c->kind = SK_CAP_SCALAR;
      c->dtype = SK_BOOL;
      s->u8 = (unsigned char)lua_toboolean(L, -1);
      break;
    case LUA_TTABLE:
      c->kind = SK_CAP_SCALAR;
      typed_scalar(L, lua_gettop(L), c, s, fname, label);
      break;
    case LUA_TUSERDATA:
      if ((v = sk_lview_test(L, -1)) != NULL) {
        if (!v->alloc && !v->data && sk_view_size(v) != 0)
          sk_lerror(L, fname, label, "view '%s' (capture '%s') is released",
                    v->label, c->name);
        if (b && !space_ok(v->space, b))
          sk_lerror(L, fname, label,
                    "view '%s' (capture '%s') lives in space %s; this kernel "
                    "runs on %s (copy it with speck.deep_copy or "
                    "create_mirror_view_and_copy)",
                    v->label, c->name, sk_space_name(v->space), b->name);
        c->kind = SK_CAP_VIEW;
        c->dtype = v->dtype;
        c->rank = v->rank;
        c->layout = v->layout;
        c->space = v->space;
        c->traits = v->traits & (SK_TRAIT_ATOMIC | SK_TRAIT_RANDOM | SK_TRAIT_RESTRICT);
        cs->view[k] = v;
        s->v.data = v->data;
        s->v.rank = v->rank;
        for (int d = 0; d < SK_MAXRANK; d++) {
          s->v.extent[d] = d < v->rank ? v->extent[d] : 1;
          s->v.stride[d] = d < v->rank ? v->stride[d] : 0;
        }
        break;
      }
      /* fall through */
    default:
      sk_lerror(L, fname, label,
                "capture '%s' is a %s; captures must be views, numbers, "
                "booleans or {dtype, value}",
                c->name, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  sort_caps(cs);
  for (int a = 0; a < cs->n; a++) {
    if (!cs->view[a]) continue;
    for (int b2 = a + 1; b2 < cs->n; b2++)
      if (cs->view[b2] && cs->view[b2]->alloc && cs->view[b2]->alloc == cs->view[a]->alloc)
        cs->c[a].alias = cs->c[b2].alias = 1;
  }
}

/* -- reducers ----------------------------------------------------------- */
static const char *const redop_names[] = {
  "sum", "prod", "min", "max", "minloc", "maxloc", "minmax", "land", "lor",
  "band", "bor", NULL};

static int default_dtype(int op) {
  if (op == SK_RED_BAND || op == SK_RED_BOR) return SK_I64;
  if (op == SK_RED_LAND || op == SK_RED_LOR) return SK_BOOL;
  return SK_F64;
}

static int find_op(const char *s) {
  for (int i = 0; redop_names[i]; i++)
    if (strcmp(s, redop_names[i]) == 0) return i;
  return -1;
}

/* one reducer description at idx: a name, {op=, dtype=} or a custom one */
static void parse_reducer(lua_State *L, int idx, sk_reducer *r,
                          const char *fname, const char *label) {
  memset(r, 0, sizeof *r);
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *s = lua_tostring(L, idx);
    r->op = find_op(s);
    if (r->op < 0)
      sk_lerror(L, fname, label,
                "unknown reducer '%s' (sum, prod, min, max, minloc, maxloc, "
                "minmax, land, lor, band, bor, or a custom {dtype, init, join})",
                s);
    r->dtype = default_dtype(r->op);
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, "reducer must be a string or a table, got %s",
              luaL_typename(L, idx));
  lua_getfield(L, idx, "op");
  lua_getfield(L, idx, "dtype");
  lua_getfield(L, idx, "init");
  lua_getfield(L, idx, "join");
  const char *op = lua_tostring(L, -4), *dt = lua_tostring(L, -3);
  if (op) {
    r->op = find_op(op);
    if (r->op < 0) sk_lerror(L, fname, label, "unknown reducer '%s'", op);
    r->dtype = default_dtype(r->op);
  } else {
    if (!lua_isstring(L, -2) || !lua_isstring(L, -1))
      sk_lerror(L, fname, label,
                "custom reducer needs 'init' and 'join' C code strings");
    r->op = SK_RED_CUSTOM;
    r->dtype = SK_F64;
    r->init = lua_tostring(L, -2); /* anchored by the reducer table */
    r->join = lua_tostring(L, -1);
  }
  if (dt) {
    r->dtype = sk_dtype_parse(dt);
    if (r->dtype < 0) sk_lerror(L, fname, label, "reducer: unknown dtype '%s'", dt);
  }
  if (r->op == SK_RED_MINLOC || r->op == SK_RED_MAXLOC || r->op == SK_RED_MINMAX ||
      r->op == SK_RED_MIN || r->op == SK_RED_MAX || r->op == SK_RED_SUM ||
      r->op == SK_RED_PROD) {
    /* any dtype */
  } else if ((r->op == SK_RED_BAND || r->op == SK_RED_BOR) &&
             sk_dtypes[r->dtype].is_float) {
    sk_lerror(L, fname, label, "reducer '%s' needs an integer dtype, not %s",
              redop_names[r->op], sk_dtypes[r->dtype].name);
  }
  lua_pop(L, 4);
}

/* reducer argument at idx (nil: sum) into reds; returns the count */
static int parse_reducers(lua_State *L, int idx, sk_reducer *reds,
                          const char *fname, const char *label) {
  if (lua_isnoneornil(L, idx)) {
    memset(reds, 0, sizeof *reds);
    reds[0].op = SK_RED_SUM;
    reds[0].dtype = SK_F64;
    return 1;
  }
  if (lua_type(L, idx) == LUA_TTABLE && lua_rawlen(L, idx) > 0) {
    int n = (int)lua_rawlen(L, idx);
    if (n > SK_MAXRED) sk_lerror(L, fname, label, "more than %d reducers", SK_MAXRED);
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
  default: lua_pushboolean(L, *(const unsigned char *)p != 0); break;
  }
}

/* minloc/maxloc: {T val; int64 loc} with loc at the next 8-byte boundary */
static int push_results(lua_State *L, const sk_kernel *k, const char *res) {
  int n = 0;
  for (int r = 0; r < k->nred; r++) {
    const sk_reducer *q = &k->reds[r];
    const char *p = res + k->acc_off[r];
    size_t sz = sk_dtypes[q->dtype].size;
    if (q->op == SK_RED_MINLOC || q->op == SK_RED_MAXLOC) {
      push_scalar(L, q->dtype, p);
      int64_t loc;
      memcpy(&loc, p + ((sz + 7) & ~(size_t)7), sizeof loc);
      lua_pushinteger(L, loc == INT64_MAX ? -1 : loc);
      n += 2;
    } else if (q->op == SK_RED_MINMAX) {
      push_scalar(L, q->dtype, p);
      push_scalar(L, q->dtype, p + sz);
      n += 2;
    } else {
      push_scalar(L, q->dtype, p);
      n++;
    }
  }
  return n;
}

/* -- launching ------------------------------------------------------------ */
typedef struct launch_opts {
  int bounds;
  const char *prelude;
  const char *index[SK_MAXMD];
  int tier;
  int scan_dtype;
  const char *target;   /* speck.kernel: compile for another back end */
} launch_opts;

/* bounds-check mode: SPECK_BOUNDS_CHECK=1 or speck.initialize{bounds_check=} */
static int bounds_mode = -1;

static int bounds_default(void) {
  if (bounds_mode < 0) {
    const char *e = getenv("SPECK_BOUNDS_CHECK");
    bounds_mode = e && *e && strcmp(e, "0") != 0;
  }
  return bounds_mode;
}

static void parse_opts(lua_State *L, int idx, launch_opts *o, const char *fname,
                       const char *label) {
  memset(o, 0, sizeof *o);
  o->scan_dtype = SK_F64;
  o->bounds = bounds_default();
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE)
    sk_lerror(L, fname, label, "options must be a table, got %s",
              luaL_typename(L, idx));
  lua_getfield(L, idx, "prelude");
  o->prelude = lua_tostring(L, -1);   /* anchored by the options table */
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "bounds_check") != LUA_TNIL) o->bounds = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "jit");
  const char *j = lua_tostring(L, -1);
  if (j) {
    if (strcmp(j, "tcc") == 0) o->tier = SK_TIER_TCC;
    else if (strcmp(j, "cc") == 0) o->tier = SK_TIER_CC;
    else if (strcmp(j, "auto") == 0) o->tier = SK_TIER_AUTO;
    else sk_lerror(L, fname, label, "unknown jit '%s' (tcc, cc or auto)", j);
  }
  lua_pop(L, 1);
  lua_getfield(L, idx, "target");
  o->target = lua_tostring(L, -1);   /* anchored by the options table */
  lua_pop(L, 1);
  lua_getfield(L, idx, "dtype");
  const char *dt = lua_tostring(L, -1);
  if (dt) {
    o->scan_dtype = sk_dtype_parse(dt);
    if (o->scan_dtype < 0) sk_lerror(L, fname, label, "unknown dtype '%s'", dt);
  }
  lua_pop(L, 1);
  int ity = lua_getfield(L, idx, "index");
  if (ity != LUA_TNIL && ity != LUA_TTABLE)
    sk_lerror(L, fname, label, "opts.index must be a table of names, got %s",
              luaL_typename(L, -1));
  if (ity == LUA_TTABLE) {
    int n = (int)lua_rawlen(L, -1);
    if (n > SK_MAXMD)
      sk_lerror(L, fname, label, "opts.index has %d names, at most %d", n, SK_MAXMD);
    for (int d = 0; d < n && d < SK_MAXMD; d++) {
      lua_geti(L, -1, d + 1);
      o->index[d] = lua_tostring(L, -1);  /* anchored by the index table */
      if (!o->index[d]) sk_lerror(L, fname, label, "opts.index entries must be strings");
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
}

/* the kernel spec of a launch or of speck.kernel */
static void make_spec(sk_kspec *s, const char *label, const char *body,
                      size_t body_len, int pattern, const sk_policy *pol,
                      const caps *cs, const sk_reducer *reds, int nred,
                      const launch_opts *o, const sk_backend *b) {
  memset(s, 0, sizeof *s);
  s->label = label;
  s->body = body;
  s->body_len = body_len;
  s->prelude = o->prelude;
  s->pattern = pattern;
  s->policy_kind = pol->kind;
  s->md_rank = pol->md_rank;
  s->ncap = cs->n;
  s->caps = cs->c;
  s->nred = nred;
  s->reds = reds;
  memcpy(s->index, o->index, sizeof s->index);
  s->target = b->name;
  /* exec: spec -- what the back end runs: its code target and, for an
   * image target, the architecture it asks for (NULL: compile only) */
  s->code = b->code;
  s->arch = NULL;
  if (b->arch) {
    static _Thread_local char arch[24];
    if (b->arch(arch, sizeof arch)) s->arch = arch;
  }
  s->tier = o->tier;
  s->bounds = o->bounds;
}

static const char *fname_of(int pattern) {
  return pattern == SK_FOR      ? "speck.parallel_for"
         : pattern == SK_REDUCE ? "speck.parallel_reduce"
                                : "speck.parallel_scan";
}

/* run compiled kernel 'k' and push its results */
static int run_kernel(lua_State *L, const sk_backend *b, sk_kernel *k,
                      int pattern, const sk_policy *pol, caps *cs,
                      const char *fname, const char *label) {
  sk_launch l;
  memset(&l, 0, sizeof l);
  _Alignas(64) char result[1024];
  l.label = label;
  l.pattern = pattern;
  l.policy = pol;
  char err[1024];
  if (sk_jit_entry(k, &l.fn, &l.init, &l.join, err, sizeof err) < 0)
    return sk_lerror(L, fname, label, "%s", err);
  /* exec: load -- an image (k->image) is made launchable by the back end
   * that runs it, once, on the first launch; its 'unload' goes with it
   * into the kernel, which calls it when the kernel is freed */
  if (b->load && k->image) {
    if (!__atomic_load_n(&k->dev_loaded, __ATOMIC_ACQUIRE)) {
      static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
      int bad = 0;
      pthread_mutex_lock(&load_lock);
      if (!k->dev_loaded) {
        void *d = b->load(k->image, label, err, sizeof err);
        if (d) {
          k->dev = d;
          k->dev_unload = b->unload;
          __atomic_store_n(&k->dev_loaded, 1, __ATOMIC_RELEASE);
        } else {
          bad = 1;
        }
      }
      pthread_mutex_unlock(&load_lock);
      if (bad) return sk_lerror(L, fname, label, "%s", err);
    }
    l.fn = k->dev;
  }
  l.acc_size = k->acc_size;
  l.args = cs->slot;
  l.nargs = cs->n;
  l.result = result;
  sk_oob oob;
  memset(&oob, 0, sizeof oob);
  l.oob = &oob;
  if (pattern != SK_FOR && k->acc_size > sizeof result)
    return sk_lerror(L, fname, label, "accumulator of %zu bytes is too large",
                     k->acc_size);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = sk_backend_launch(b, &l, err, sizeof err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc < 0) return sk_lerror(L, fname, label, "%s", err);
  if (oob.hit && oob.capture >= 0 && oob.capture < cs->n) {
    const sk_view *v = cs->view[oob.capture];
    return sk_lerror(L, fname, label,
                     "view '%s' (capture '%s'): index %d is %lld, out of range "
                     "[0, %lld) (bounds check)",
                     v ? v->label : "?", cs->c[oob.capture].name, oob.dim,
                     (long long)oob.index, (long long)oob.extent);
  }
  sk_jit_after_launch(k, (double)(t1.tv_sec - t0.tv_sec) +
                             1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  if (pattern == SK_FOR) return 0;
  if (pattern == SK_SCAN) {
    push_scalar(L, k->reds[0].dtype, result);
    return 1;
  }
  return push_results(L, k, result);
}

/* look up or compile; a compiler message is raised as "... does not
 * compile:" naming the part (body, prelude, reducer init/join) */
static sk_kernel *get_kernel(lua_State *L, const sk_kspec *s, const char *fname,
                             const char *label) {
  sk_kernel *k;
  char err[4096];
  if (sk_jit_get(s, &k, err, sizeof err) == 0) return k;
  const char *part = NULL;
  if (strncmp(err, "body line ", 10) == 0) part = "body";
  else if (strncmp(err, "prelude line ", 13) == 0) part = "prelude";
  else if (strncmp(err, "init line ", 10) == 0 || strncmp(err, "join line ", 10) == 0)
    part = "custom reducer";
  if (part) sk_lerror(L, fname, label, "%s does not compile:\n%s", part, err);
  sk_lerror(L, fname, label, "%s", err);
  return NULL;
}

/* parallel_for/reduce/scan(label, policy, captures, body [, reducer] [, opts]) */
static int launch(lua_State *L, int pattern) {
  const char *fname = fname_of(pattern);
  const char *label = luaL_checkstring(L, 1);
  size_t body_len;
  const char *body = lua_tolstring(L, 4, &body_len);
  if (!body)
    return sk_lerror(L, fname, label, "body must be a string, got %s",
                     luaL_typename(L, 4));
  const sk_backend *b = backend(L, fname);
  sk_policy pol;
  parse_policy(L, 2, &pol, fname, label);
  sk_reducer reds[SK_MAXRED];
  int nred = 0, optidx = 5;
  if (pattern == SK_REDUCE) {
    /* the 5th argument is a reducer unless it is an options table */
    int is_opts = 0;
    if (lua_type(L, 5) == LUA_TTABLE && lua_rawlen(L, 5) == 0) {
      lua_getfield(L, 5, "op");
      lua_getfield(L, 5, "init");
      is_opts = lua_isnil(L, -1) && lua_isnil(L, -2);
      lua_pop(L, 2);
    }
    if (is_opts) {
      nred = parse_reducers(L, 0, reds, fname, label);
    } else {
      nred = parse_reducers(L, 5, reds, fname, label);
      optidx = 6;
    }
  }
  launch_opts o;
  parse_opts(L, optidx, &o, fname, label);
  if (pattern == SK_SCAN) {
    memset(reds, 0, sizeof reds[0]);
    reds[0].op = SK_RED_SUM;
    reds[0].dtype = o.scan_dtype;
    nred = 1;
  }
  caps cs;
  collect_caps(L, 3, &cs, b, fname, label);
  sk_kspec s;
  make_spec(&s, label, body, body_len, pattern, &pol, &cs, reds, nred, &o, b);
  sk_kernel *k = get_kernel(L, &s, fname, label);
  return run_kernel(L, b, k, pattern, &pol, &cs, fname, label);
}

static int l_parallel_for(lua_State *L) { return launch(L, SK_FOR); }
static int l_parallel_reduce(lua_State *L) { return launch(L, SK_REDUCE); }
static int l_parallel_scan(lua_State *L) { return launch(L, SK_SCAN); }

/* -- compiled kernel handles (speck.kernel) ------------------------------ */
#define SK_KERNEL_MT "speck.Kernel"

typedef struct khandle {
  sk_kernel *k;
  const char *target;   /* the back end it was compiled for */
  int pattern, policy_kind, md_rank, ncap;
  sk_capture caps[SK_MAXCAP];  /* names anchored in the uservalue */
} khandle;

/* speck.kernel(label, policy_kind, captures, body [, opts]);
 * opts.pattern = "for"|"reduce"|"scan", opts.reducer as parallel_reduce's */
static int l_kernel(lua_State *L) {
  const char *fname = "speck.kernel";
  const char *label = luaL_checkstring(L, 1);
  size_t body_len;
  const char *body = lua_tolstring(L, 4, &body_len);
  if (!body) return sk_lerror(L, fname, label, "body must be a string");
  const sk_backend *b = backend(L, fname);
  sk_policy pol;
  memset(&pol, 0, sizeof pol);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *pk = lua_tostring(L, 2);
    if (strcmp(pk, "range") == 0) pol.kind = SK_POL_RANGE;
    else if (strncmp(pk, "mdrange", 7) == 0) {
      pol.kind = SK_POL_MDRANGE;
      pol.md_rank = pk[7] ? atoi(pk + 7) : 2;
      if (pol.md_rank < 2 || pol.md_rank > SK_MAXMD)
        return sk_lerror(L, fname, label, "policy kind '%s': rank must be 2..6", pk);
    } else if (strcmp(pk, "team") == 0) pol.kind = SK_POL_TEAM;
    else return sk_lerror(L, fname, label,
                          "unknown policy kind '%s' (range, mdrange<rank>, team)", pk);
  } else {
    parse_policy(L, 2, &pol, fname, label);
  }
  int pattern = SK_FOR;
  sk_reducer reds[SK_MAXRED];
  int nred = 0;
  launch_opts o;
  parse_opts(L, 5, &o, fname, label);
  if (lua_type(L, 5) == LUA_TTABLE) {
    lua_getfield(L, 5, "pattern");
    const char *pt = lua_tostring(L, -1);
    if (pt && strcmp(pt, "reduce") == 0) pattern = SK_REDUCE;
    else if (pt && strcmp(pt, "scan") == 0) pattern = SK_SCAN;
    else if (pt && strcmp(pt, "for") != 0)
      return sk_lerror(L, fname, label, "unknown pattern '%s' (for, reduce, scan)", pt);
    lua_pop(L, 1);
    if (pattern == SK_REDUCE) {
      lua_getfield(L, 5, "reducer");
      nred = parse_reducers(L, lua_gettop(L), reds, fname, label);
      lua_pop(L, 1);
    }
  }
  if (pattern == SK_SCAN) {
    memset(reds, 0, sizeof reds[0]);
    reds[0].op = SK_RED_SUM;
    reds[0].dtype = o.scan_dtype;
    nred = 1;
  }
  /* opts.target = "cuda": compile (NVRTC) without running here; the
   * captures then only give the signature (no space check) */
  const sk_backend *tb = b;
  if (o.target) {
    tb = sk_backend_find(o.target);
    if (!tb)
      return sk_lerror(L, fname, label, "unknown target '%s' (serial, openmp or cuda)",
                       o.target);
  }
  caps cs;
  collect_caps(L, 3, &cs, o.target ? NULL : b, fname, label);
  sk_kspec s;
  make_spec(&s, label, body, body_len, pattern, &pol, &cs, reds, nred, &o, tb);
  sk_kernel *k = get_kernel(L, &s, fname, label);
  khandle *h = lua_newuserdatauv(L, sizeof *h, 1);
  memset(h, 0, sizeof *h);
  h->k = k;
  h->target = tb->name;
  h->pattern = pattern;
  h->policy_kind = pol.kind;
  h->md_rank = pol.md_rank;
  h->ncap = cs.n;
  lua_createtable(L, cs.n, 0);   /* anchors the capture names */
  for (int c = 0; c < cs.n; c++) {
    h->caps[c] = cs.c[c];
    lua_pushstring(L, cs.c[c].name);
    h->caps[c].name = lua_tostring(L, -1);
    lua_rawseti(L, -2, c + 1);
  }
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, SK_KERNEL_MT);
  return 1;
}

/* k(policy, captures) */
static int l_kernel_call(lua_State *L) {
  khandle *h = luaL_checkudata(L, 1, SK_KERNEL_MT);
  const char *fname = "speck.kernel";
  const char *label = h->k->label;
  const sk_backend *b = backend(L, fname);
  if (strcmp(h->target, b->name) != 0 &&
      (strcmp(h->target, "cuda") == 0 || strcmp(b->name, "cuda") == 0))
    return sk_lerror(L, fname, label,
                     "kernel was compiled for %s; the active back end is %s",
                     h->target, b->name);
  sk_policy pol;
  parse_policy(L, 2, &pol, fname, label);
  if (pol.kind != h->policy_kind || pol.md_rank != h->md_rank)
    return sk_lerror(L, fname, label,
                     "policy does not match the kernel's (compiled for %s)",
                     h->policy_kind == SK_POL_RANGE ? "a range"
                     : h->policy_kind == SK_POL_MDRANGE ? "an MDRange"
                                                        : "a TeamPolicy");
  caps cs;
  collect_caps(L, 3, &cs, b, fname, label);
  if (cs.n != h->ncap)
    return sk_lerror(L, fname, label, "%d capture%s given, the kernel has %d",
                     cs.n, cs.n == 1 ? "" : "s", h->ncap);
  for (int c = 0; c < cs.n; c++) {
    const sk_capture *a = &cs.c[c], *e = &h->caps[c];
    if (strcmp(a->name, e->name) != 0 || a->kind != e->kind ||
        a->dtype != e->dtype || a->rank != e->rank || a->layout != e->layout ||
        (a->alias && !e->alias))
      return sk_lerror(L, fname, label,
                       "capture '%s' does not match the kernel's signature "
                       "(expected %s %s rank %d)",
                       a->name, e->kind == SK_CAP_VIEW ? "view" : "scalar",
                       sk_dtypes[e->dtype].name, e->rank);
  }
  h->k->launches++;
  return run_kernel(L, b, h->k, h->pattern, &pol, &cs, fname, label);
}

static int l_kernel_tostring(lua_State *L) {
  khandle *h = luaL_checkudata(L, 1, SK_KERNEL_MT);
  lua_pushfstring(L, "Kernel '%s'", h->k->label);
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

static const char *const tier_names[SK_NTIER] = {"auto", "tcc", "cc", "nvrtc"};

static int l_jit_stats(lua_State *L) {
  sk_jit_totals t;
  sk_cache_totals(&t);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, t.kernels);
  lua_setfield(L, -2, "kernels");
  lua_pushinteger(L, t.compiles);
  lua_setfield(L, -2, "compiles");
  lua_pushinteger(L, t.hits);
  lua_setfield(L, -2, "hits");
  lua_pushinteger(L, t.tierups);
  lua_setfield(L, -2, "tierups");
  lua_pushnumber(L, t.compile_seconds);
  lua_setfield(L, -2, "compile_seconds");
  lua_newtable(L);
  int i = 1;
  for (sk_kernel *k = sk_cache_next(NULL); k; k = sk_cache_next(k)) {
    lua_createtable(L, 0, 8);
    lua_pushstring(L, k->label);
    lua_setfield(L, -2, "label");
    lua_pushstring(L, tier_names[k->tier]);
    lua_setfield(L, -2, "tier");
    lua_pushinteger(L, k->launches);
    lua_setfield(L, -2, "launches");
    lua_pushinteger(L, k->hits);
    lua_setfield(L, -2, "hits");
    lua_pushinteger(L, k->tierups);
    lua_setfield(L, -2, "tierups");
    lua_pushnumber(L, k->compile_seconds);
    lua_setfield(L, -2, "compile_seconds");
    lua_pushinteger(L, k->disk_hits);
    lua_setfield(L, -2, "cache_hits");
    lua_pushnumber(L, k->run_seconds);
    lua_setfield(L, -2, "run_seconds");
    if (k->warning[0]) {
      lua_pushstring(L, k->warning);
      lua_setfield(L, -2, "warning");
    }
    lua_createtable(L, 0, SK_NTIER);
    for (int t2 = 1; t2 < SK_NTIER; t2++) {
      lua_pushinteger(L, k->compiles[t2]);
      lua_setfield(L, -2, tier_names[t2]);
    }
    lua_setfield(L, -2, "compiles");
    lua_rawseti(L, -2, i++);
  }
  lua_setfield(L, -2, "per_kernel");
  return 1;
}

/* -- runtime --------------------------------------------------------------- */
static int l_initialize(lua_State *L) {
  const char *space = NULL;
  int threads = 0, device = 0;
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "space");
    space = lua_tostring(L, -1);
    lua_getfield(L, 1, "threads");
    if (!lua_isnil(L, -1)) {
      int ok;
      lua_Integer t = lua_tointegerx(L, -1, &ok);
      if (!ok || t < 1)
        return sk_lerror(L, "speck.initialize", NULL,
                         "threads must be a positive integer");
      threads = (int)t;
    }
    lua_getfield(L, 1, "device");
    if (!lua_isnil(L, -1)) device = (int)luaL_checkinteger(L, -1);
    if (lua_getfield(L, 1, "bounds_check") != LUA_TNIL) bounds_mode = lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 1, "jit");
    const char *j = lua_tostring(L, -1);
    if (j) {
      if (strcmp(j, "tcc") == 0) sk_jit_set_default_tier(SK_TIER_TCC);
      else if (strcmp(j, "cc") == 0) sk_jit_set_default_tier(SK_TIER_CC);
      else if (strcmp(j, "auto") == 0) sk_jit_set_default_tier(SK_TIER_AUTO);
      else return sk_lerror(L, "speck.initialize", NULL,
                            "unknown jit '%s' (tcc, cc or auto)", j);
    }
    /* the space string stays anchored by the options table */
  }
  char err[512];
  if (sk_rt_initialize(space, threads, device, err, sizeof err) < 0)
    return sk_lerror(L, "speck.initialize", NULL, "%s", err);
  /* exec: warm the compiler of the back end's code target */
  const sk_backend *wb = sk_rt_backend(err, sizeof err);
  if (wb && wb->code == SK_CODE_CUDA) sk_nvrtc_warm();
  return 0;
}

static int l_finalize(lua_State *L) {
  (void)L;
  sk_rt_finalize();
  return 0;
}

static int l_fence(lua_State *L) {
  const sk_backend *b = backend(L, "speck.fence");
  char err[512];
  if (b->fence(err, sizeof err) < 0)
    return sk_lerror(L, "speck.fence", NULL, "%s", err);
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

static int l_now(lua_State *L) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  lua_pushnumber(L, (double)t.tv_sec + 1e-9 * (double)t.tv_nsec);
  return 1;
}

static int l_info(lua_State *L) {
  const sk_backend *active = backend(L, "speck.info");
  lua_createtable(L, 0, 8);
  lua_pushstring(L, SPECK_VERSION);
  lua_setfield(L, -2, "version");
  lua_pushstring(L, active->name);
  lua_setfield(L, -2, "default_space");
  lua_pushinteger(L, active->concurrency());
  lua_setfield(L, -2, "threads");
  lua_newtable(L);
  for (const sk_backend *const *b = sk_backend_list(); *b; b++) {
    char why[512] = "", info[512] = "";
    lua_createtable(L, 0, 3);
    int ok = (*b)->available(why, sizeof why);
    lua_pushboolean(L, ok);
    lua_setfield(L, -2, "available");
    if (!ok) {
      lua_pushstring(L, why);
      lua_setfield(L, -2, "reason");
    }
    (*b)->info(info, sizeof info);
    lua_pushstring(L, info);
    lua_setfield(L, -2, "info");
    lua_setfield(L, -2, (*b)->name);
  }
  lua_setfield(L, -2, "spaces");
  lua_newtable(L);
  lua_createtable(L, 0, 2);
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "available");
  lua_pushstring(L, sk_tcc_libdir());
  lua_setfield(L, -2, "libdir");
  lua_setfield(L, -2, "tcc");
  lua_createtable(L, 0, 4);
  lua_pushboolean(L, sk_cc_available());
  lua_setfield(L, -2, "available");
  if (sk_cc_available()) {
    lua_pushstring(L, sk_cc_path());
    lua_setfield(L, -2, "path");
    lua_pushstring(L, sk_cc_ident());
    lua_setfield(L, -2, "version");
    lua_pushstring(L, sk_cc_flags());
    lua_setfield(L, -2, "flags");
  } else {
    lua_pushfstring(L, "%s; kernels stay on libtcc", sk_cc_why());
    lua_setfield(L, -2, "reason");
  }
  lua_setfield(L, -2, "cc");
  {
    char nv[1024];
    lua_createtable(L, 0, 2);
    int ok = sk_nvrtc_status(nv, sizeof nv);
    lua_pushboolean(L, ok);
    lua_setfield(L, -2, "available");
    lua_pushstring(L, nv);
    lua_setfield(L, -2, ok ? "version" : "reason");
    lua_setfield(L, -2, "nvrtc");
  }
  lua_setfield(L, -2, "compilers");
  lua_createtable(L, 0, 4);
  lua_pushboolean(L, sk_disk_enabled());
  lua_setfield(L, -2, "enabled");
  lua_pushstring(L, sk_disk_status());
  lua_setfield(L, -2, sk_disk_enabled() ? "dir" : "reason");
  lua_pushinteger(L, sk_disk_size());
  lua_setfield(L, -2, "size");
  lua_pushinteger(L, sk_disk_max());
  lua_setfield(L, -2, "max");
  lua_setfield(L, -2, "cache");
  {
    static const char *const names[] = {"auto", "tcc", "cc"};
    int t = sk_jit_default_tier();
    lua_pushstring(L, t < 3 ? names[t] : "auto");
    lua_setfield(L, -2, "jit");
  }
  /* CUDA devices (an empty table without a driver) */
  lua_newtable(L);
  for (int d = 0, nd = sk_cuda_device_count(); d < nd; d++) {
    sk_cuda_devinfo di;
    if (sk_cuda_device_info(d, &di) < 0) continue;
    lua_createtable(L, 0, 8);
    lua_pushstring(L, di.name);
    lua_setfield(L, -2, "name");
    lua_pushfstring(L, "sm_%d%d", di.major, di.minor);
    lua_setfield(L, -2, "arch");
    lua_pushinteger(L, di.sms);
    lua_setfield(L, -2, "multiprocessors");
    lua_pushinteger(L, (lua_Integer)di.total);
    lua_setfield(L, -2, "memory");
    if (di.free) {
      lua_pushinteger(L, (lua_Integer)di.free);
      lua_setfield(L, -2, "free");
    }
    lua_pushinteger(L, di.smem_optin);
    lua_setfield(L, -2, "shared_per_block");
    lua_rawseti(L, -2, d + 1);
  }
  lua_setfield(L, -2, "devices");
  return 1;
}

/* -- module -------------------------------------------------------------- */
static const luaL_Reg core_funcs[] = {
  {"parallel_for", l_parallel_for},
  {"parallel_reduce", l_parallel_reduce},
  {"parallel_scan", l_parallel_scan},
  {"kernel", l_kernel},
  {"initialize", l_initialize},
  {"finalize", l_finalize},
  {"fence", l_fence},
  {"info", l_info},
  {"now", l_now},
  {"team_limits", l_team_limits},
  {NULL, NULL}};

static int l_jit_drain(lua_State *L) {
  (void)L;
  sk_jit_drain();
  return 0;
}

static const luaL_Reg jit_funcs[] = {{"source", l_jit_source},
                                     {"stats", l_jit_stats},
                                     {"wait", l_jit_drain},
                                     {NULL, NULL}};

/* Finaliser of a sentinel kept in the registry: when the state closes
 * (before Lua unloads this module), let background compiles finish, so no
 * compiler child is orphaned and no temporary file is left behind. */
static int live_states;   /* Lua states that loaded this module */

static int l_sentinel_gc(lua_State *L) {
  (void)L;
  sk_jit_drain();
  /* the last state going stops the pool: its threads run this module's
   * code, which Lua is about to unload */
  if (__atomic_sub_fetch(&live_states, 1, __ATOMIC_ACQ_REL) == 0) sk_rt_finalize();
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
  if (!sk_tcc_libdir()[0]) {
    const char *env = getenv("SPECK_TCC_LIBDIR");
    char dir[4096];
    if (env && *env)
      snprintf(dir, sizeof dir, "%s", env);
    else
      snprintf(dir, sizeof dir, "%s/lib/speck/tcc", sk_vm_prefix());
    sk_tcc_set_libdir(dir);
  }
  if (luaL_newmetatable(L, SK_KERNEL_MT)) {
    lua_pushcfunction(L, l_kernel_call);
    lua_setfield(L, -2, "__call");
    lua_pushcfunction(L, l_kernel_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
  luaL_newlib(L, core_funcs);
  luaL_newlib(L, jit_funcs);
  lua_setfield(L, -2, "jit");
  lua_pushstring(L, SPECK_VERSION);
  lua_setfield(L, -2, "version");
  sk_lview_open(L);
  return 1;
}
