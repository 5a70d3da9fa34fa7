/* ldist.c: the C side of speck.dist (stdlib/speck/dist.lua), bound as
 * speck.core.dist: row maps, the split of a local CRS into interior and
 * boundary columns, halo plans, agreement checks and the collectives of
 * backends/dist. Views passed here are contiguous host views. */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "vm.h"
#include "../backends/dist/dist.h"
#include "../backends/remote/remote.h"
#include "../kernels/dist/bfs.h"
#include "../kernels/dist/cc.h"
#include "../kernels/dist/cg.h"
#include "../kernels/dist/pr.h"

#define ERRLEN 1024
#define MAP_MT "speck.dist.map"
#define PLAN_MT "speck.dist.plan"
#define CG_MT "speck.dist.cg"
#define BFS_MT "speck.dist.bfs"

static int raise(lua_State *L, const char *msg) {
  luaL_where(L, 1);
  lua_pushstring(L, msg);
  lua_concat(L, 2);
  return lua_error(L);
}

/* a contiguous host view at 'idx' (nil allowed when 'opt') */
static sk_view *hostview(lua_State *L, int idx, int opt) {
  if (opt && lua_isnoneornil(L, idx)) return NULL;
  sk_view *v = sk_lview_check(L, idx);
  if (!sk_space_host_accessible(v->space) || !sk_view_contiguous(v))
    sk_lerror(L, "speck.dist", v->label, SK_E_DIST_HOST_VIEW);
  return v;
}

/* a contiguous view in any space at 'idx' (the fused CG's views: device
 * memory on GPU ranks) */
static sk_view *anyview(lua_State *L, int idx) {
  sk_view *v = sk_lview_check(L, idx);
  if (!sk_view_contiguous(v)) sk_lerror(L, "speck.dist", v->label, SK_E_DIST_HOST_VIEW);
  return v;
}

static int64_t vlen(const sk_view *v) {
  int64_t n = 1;
  for (int i = 0; i < v->rank; i++) n *= v->extent[i];
  return n;
}

/* a new host view of 'n' elements of 'dtype' pushed; its data */
static void *newview(lua_State *L, const char *label, int dtype, int64_t n) {
  sk_view *v = sk_lview_new(L);
  char err[ERRLEN];
  if (sk_view_create(v, label, dtype, 1, &n, SK_RIGHT, SK_SPACE_HOST, 1, NULL, err,
                     sizeof err) < 0)
    raise(L, err);
  return v->data;
}

/* -- maps --------------------------------------------------------------- */
static int map_gc(lua_State *L) {
  sk_dist_map *m = luaL_checkudata(L, 1, MAP_MT);
  free(m->off);
  m->off = NULL;
  return 0;
}

/* map(n, offsets) | map(n, part_view, ids_view): offsets a table of
 * nranks + 1 integers; part int32/int64 of n, ids int64 sorted */
static int l_map(lua_State *L) {
  int64_t n = luaL_checkinteger(L, 1);
  sk_dist_map *m = lua_newuserdatauv(L, sizeof *m, 2);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, MAP_MT);
  m->n = n;
  m->nranks = sk_remote_size();
  m->me = sk_remote_rank();
  if (lua_istable(L, 2)) {
    m->off = malloc(((size_t)m->nranks + 1) * sizeof *m->off);
    if (!m->off) return sk_lerror(L, "speck.dist.map", NULL, SK_E_DIST_MAP_NOMEM, m->nranks);
    for (int r = 0; r <= m->nranks; r++) {
      lua_rawgeti(L, 2, r + 1);
      m->off[r] = lua_tointeger(L, -1);
      lua_pop(L, 1);
    }
    m->nloc = m->off[m->me + 1] - m->off[m->me];
    return 1;
  }
  sk_view *p = hostview(L, 2, 0), *ids = hostview(L, 3, 0);
  m->part = p->data;
  m->part64 = p->dtype == SK_I64;
  m->ids = ids->data;
  m->nloc = vlen(ids);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 3);
  lua_setiuservalue(L, -2, 2);
  return 1;
}

static int m_owner(lua_State *L) {
  sk_dist_map *m = luaL_checkudata(L, 1, MAP_MT);
  lua_pushinteger(L, sk_dist_owner(m, luaL_checkinteger(L, 2)));
  return 1;
}

static int m_lid(lua_State *L) {
  sk_dist_map *m = luaL_checkudata(L, 1, MAP_MT);
  lua_pushinteger(L, sk_dist_lid(m, luaL_checkinteger(L, 2)));
  return 1;
}

/* split(map, ncols, rowptr, colidx [, values]) -> ip, ic, iv, bp, bc, bv, halo */
static int l_split(lua_State *L) {
  sk_dist_map *m = luaL_checkudata(L, 1, MAP_MT);
  int64_t ncols = luaL_checkinteger(L, 2);
  sk_view *rp = hostview(L, 3, 0), *ci = hostview(L, 4, 0), *va = hostview(L, 5, 1);
  int64_t nloc = vlen(rp) - 1, ni, nb, nh, *halo = NULL;
  char err[ERRLEN];
  if (sk_dist_split(m, ncols, nloc, rp->data, ci->data, ci->dtype == SK_I64,
                    va ? va->data : NULL, &ni, &nb, &halo, &nh, NULL, NULL, NULL, NULL, NULL,
                    NULL, err, sizeof err) < 0)
    return raise(L, err);
  int64_t *ip = newview(L, "interior_rowptr", SK_I64, nloc + 1);
  int32_t *ic = newview(L, "interior_colidx", SK_I32, ni);
  double *iv = newview(L, "interior_values", SK_F64, ni);
  int64_t *bp = newview(L, "boundary_rowptr", SK_I64, nloc + 1);
  int32_t *bc = newview(L, "boundary_colidx", SK_I32, nb);
  double *bv = newview(L, "boundary_values", SK_F64, nb);
  int64_t *h = newview(L, "halo_ids", SK_I64, nh);
  if (nh) memcpy(h, halo, (size_t)nh * sizeof *h);
  sk_dist_split(m, ncols, nloc, rp->data, ci->data, ci->dtype == SK_I64, va ? va->data : NULL,
                &ni, &nb, &halo, &nh, ip, ic, iv, bp, bc, bv, err, sizeof err);
  free(halo);
  return 7;
}

/* -- plans -------------------------------------------------------------- */
static int plan_gc(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  sk_dist_plan_free(p);
  return 0;
}

static int l_plan(lua_State *L) {
  sk_dist_map *m = luaL_checkudata(L, 1, MAP_MT);
  sk_view *h = hostview(L, 2, 0);
  sk_dist_plan *p = lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p);
  char err[ERRLEN];
  if (sk_dist_plan_build(p, m, h->data, vlen(h), err, sizeof err) < 0) return raise(L, err);
  luaL_setmetatable(L, PLAN_MT);
  return 1;
}

static int p_start(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  sk_view *x = hostview(L, 2, 0), *h = hostview(L, 3, 0);
  char err[ERRLEN];
  if (sk_dist_plan_start(p, x->data, h->data, err, sizeof err) < 0) return raise(L, err);
  return 0;
}

/* start_packed(sbuf, halo): the exchange from a send buffer packed by
 * the caller (host views: a device's values staged through them) */
static int p_start_packed(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  sk_view *s = hostview(L, 2, 0), *h = hostview(L, 3, 0);
  char err[ERRLEN];
  if (vlen(s) < p->nsend || vlen(h) < p->nhalo) {
    sk_err(err, sizeof err, SK_E_DIST_PACKED_SHORT, (long long)vlen(s), (long long)vlen(h),
           (long long)p->nsend, (long long)p->nhalo);
    return raise(L, err);
  }
  if (sk_dist_plan_start_packed(p, s->data, h->data, err, sizeof err) < 0) return raise(L, err);
  return 0;
}

/* send_ids() -> the local indices this rank sends (int64, a new host view) */
static int p_send_ids(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  int64_t *d = newview(L, "halo_send_ids", SK_I64, p->nsend);
  if (p->nsend) memcpy(d, p->slid, (size_t)p->nsend * sizeof *d);
  return 1;
}

/* put_targets() -> pe, off (int64 host views of nsend): where each sent
 * element lands (collective) */
static int p_put_targets(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  int64_t *pe = newview(L, "halo_put_ranks", SK_I64, p->nsend);
  int64_t *off = newview(L, "halo_put_offsets", SK_I64, p->nsend);
  char err[ERRLEN];
  if (sk_dist_plan_put_targets(p, pe, off, err, sizeof err) < 0) return raise(L, err);
  return 2;
}

static int p_wait(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  char err[ERRLEN];
  if (sk_dist_plan_wait(p, err, sizeof err) < 0) return raise(L, err);
  return 0;
}

static int p_export_add(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  sk_view *h = hostview(L, 2, 0), *x = hostview(L, 3, 0);
  char err[ERRLEN];
  if (sk_dist_plan_export_add(p, h->data, x->data, x->dtype == SK_F64, err, sizeof err) < 0)
    return raise(L, err);
  return 0;
}

static int p_info(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  lua_createtable(L, 0, 5);
  lua_pushnumber(L, p->build_s);
  lua_setfield(L, -2, "build_seconds");
  lua_pushinteger(L, p->nhalo);
  lua_setfield(L, -2, "halo");
  lua_pushinteger(L, p->nsend);
  lua_setfield(L, -2, "sent");
  lua_createtable(L, p->nsrc, 0);
  for (int i = 0; i < p->nsrc; i++) {
    lua_pushinteger(L, p->src[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "sources");
  lua_createtable(L, p->ndst, 0);
  for (int i = 0; i < p->ndst; i++) {
    lua_pushinteger(L, p->dst[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "destinations");
  return 1;
}

/* -- the fused CG (kernels/dist/cg.c) ------------------------------------ */
static int cg_gc(lua_State *L) {
  sk_dist_cg *c = luaL_checkudata(L, 1, CG_MT);
  sk_dist_cg_free(c);
  return 0;
}

/* cg_matrix(plan, ip, ic, iv, bp, bc, bv, halo [, stage [, nodia]]) -> a matrix's
 * state for the sweeps of all its solves (it keeps its arguments alive);
 * the views in one space (a device's on GPU ranks); 'stage': the halo
 * travels through host buffers (always where the views are not host
 * memory); 'nodia': the interior by its index only (kernels/dist/cg.h) */
static int l_cg_matrix(lua_State *L) {
  sk_dist_plan *p = luaL_checkudata(L, 1, PLAN_MT);
  const sk_view *v[7];
  for (int i = 0; i < 7; i++) v[i] = anyview(L, i + 2);
  int stage = lua_toboolean(L, 9), nodia = lua_toboolean(L, 10);
  sk_dist_cg *c = lua_newuserdatauv(L, sizeof *c, 1);
  memset(c, 0, sizeof *c);
  lua_createtable(L, 8, 0);
  for (int i = 1; i <= 8; i++) {
    lua_pushvalue(L, i);
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, -2, 1);
  char err[ERRLEN];
  if (sk_dist_cg_init(c, p, v, stage, nodia, err, sizeof err) < 0) return raise(L, err);
  luaL_setmetatable(L, CG_MT);
  return 1;
}

/* cg_sweep(state, d, x, r, p, s, w, alpha, beta) -> r'u, w'u, r'r summed
 * over the ranks */
static int l_cg_sweep(lua_State *L) {
  sk_dist_cg *c = luaL_checkudata(L, 1, CG_MT);
  const sk_view *v[6];
  for (int i = 0; i < 6; i++) v[i] = anyview(L, i + 2);
  double out[3];
  char err[ERRLEN];
  if (sk_dist_cg_sweep(c, v, luaL_checknumber(L, 8), luaL_checknumber(L, 9), out, err,
                       sizeof err) < 0)
    return raise(L, err);
  for (int i = 0; i < 3; i++) lua_pushnumber(L, out[i]);
  return 3;
}

/* cg_onesided(state, rb0, rb1, pe, off): the sweeps' halo one-sided
 * (kernels/dist/cg.h); the views are kept with the state */
static int l_cg_onesided(lua_State *L) {
  sk_dist_cg *c = luaL_checkudata(L, 1, CG_MT);
  const sk_view *rb0 = sk_lview_check(L, 2), *rb1 = sk_lview_check(L, 3);
  const sk_view *pe = anyview(L, 4), *off = anyview(L, 5);
  lua_getiuservalue(L, 1, 1);
  for (int i = 2; i <= 5; i++) {
    lua_pushvalue(L, i);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  }
  lua_pop(L, 1);
  sk_dist_cg_onesided(c, rb0, rb1, pe, off);
  return 0;
}

/* state:bytes() -> what the state holds besides the matrix */
static int cg_bytes(lua_State *L) {
  sk_dist_cg *c = luaL_checkudata(L, 1, CG_MT);
  lua_pushinteger(L, sk_dist_cg_bytes(c));
  return 1;
}

/* state:phases() -> {pack, interior, wait, boundary, allreduce, sweeps,
 * dia, dia_one_value, d_one_value}: this rank's seconds in each phase of
 * the sweeps so far, their count, the width of the interior's diagonal
 * body (0: none), whether it takes one value a diagonal and whether the
 * last sweep's d was one number (kernels/dist/cg.h's duni, d1) */
static int cg_phases(lua_State *L) {
  sk_dist_cg *c = luaL_checkudata(L, 1, CG_MT);
  static const char *const names[SK_DIST_CG_PHASES] = {"pack", "interior", "wait", "boundary",
                                                       "allreduce"};
  lua_createtable(L, 0, SK_DIST_CG_PHASES + 1);
  for (int i = 0; i < SK_DIST_CG_PHASES; i++) {
    lua_pushnumber(L, c->phase[i]);
    lua_setfield(L, -2, names[i]);
  }
  lua_pushinteger(L, c->sweeps);
  lua_setfield(L, -2, "sweeps");
  lua_pushinteger(L, c->dia);
  lua_setfield(L, -2, "dia");
  lua_pushboolean(L, c->dia && c->duni);
  lua_setfield(L, -2, "dia_one_value");
  lua_pushboolean(L, c->d1);
  lua_setfield(L, -2, "d_one_value");
  return 1;
}

/* -- BFS driven from C (kernels/dist/bfs.c) ------------------------------ */
static int bfs_gc(lua_State *L) {
  sk_dist_bfs *b = luaL_checkudata(L, 1, BFS_MT);
  sk_dist_bfs_free(b);
  return 0;
}

/* bfs_graph(map, ap, ac, ip, ic, bp, bc, deg, halo_ids, m_total [, stage])
 * -> a graph's state for all its searches (it keeps its arguments alive):
 * the views in the graph's space but halo_ids (host); kernels/dist/bfs.h */
static int l_bfs_graph(lua_State *L) {
  sk_dist_map *m = luaL_checkudata(L, 1, MAP_MT);
  const sk_view *v[7];
  for (int i = 0; i < 7; i++) v[i] = anyview(L, i + 2);
  const sk_view *hid = hostview(L, 9, 0);
  int64_t m_total = luaL_checkinteger(L, 10);
  int stage = lua_toboolean(L, 11);
  sk_dist_bfs *b = lua_newuserdatauv(L, sizeof *b, 1);
  memset(b, 0, sizeof *b);
  lua_createtable(L, 9, 0);
  for (int i = 1; i <= 9; i++) {
    lua_pushvalue(L, i);
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, -2, 1);
  char err[ERRLEN];
  if (sk_dist_bfs_init(b, m, v, hid, m_total, stage, err, sizeof err) < 0) return raise(L, err);
  luaL_setmetatable(L, BFS_MT);
  return 1;
}

/* bfs_run(state, lev, source, dir) -> the directions, a letter a level
 * (collective; dir 0 auto, 1 top-down, 2 bottom-up) */
static int l_bfs_run(lua_State *L) {
  sk_dist_bfs *b = luaL_checkudata(L, 1, BFS_MT);
  const sk_view *lev = anyview(L, 2);
  int64_t src = luaL_checkinteger(L, 3);
  int dir = (int)luaL_checkinteger(L, 4);
  char err[ERRLEN];
  if (sk_dist_bfs_run(b, lev, src, dir, err, sizeof err) < 0) return raise(L, err);
  lua_pushlstring(L, b->dirs ? b->dirs : "", b->ndirs);
  return 1;
}

/* state:bytes() -> what the state holds besides the graph */
static int bfs_bytes(lua_State *L) {
  sk_dist_bfs *b = luaL_checkudata(L, 1, BFS_MT);
  lua_pushinteger(L, sk_dist_bfs_bytes(b));
  return 1;
}

/* -- components driven from C (kernels/dist/cc.c) ------------------------ */
/* a view field of table 'idx' (NULL when absent) */
static const sk_view *fview(lua_State *L, int idx, const char *k) {
  lua_getfield(L, idx, k);
  const sk_view *v = lua_isnil(L, -1) ? NULL : sk_lview_check(L, -1);
  lua_pop(L, 1); /* the table keeps it alive */
  return v;
}

/* an exchange from table 'idx': {plan, mode (0 mpi, 1 staged, 2
 * one-sided), turn, slid, sbuf, hsbuf, hhalo, rb1, rb2, pe, off} */
static void xchg_of(lua_State *L, int idx, sk_dist_xchg *x) {
  luaL_checktype(L, idx, LUA_TTABLE);
  memset(x, 0, sizeof *x);
  lua_getfield(L, idx, "plan");
  x->plan = luaL_checkudata(L, -1, PLAN_MT);
  lua_pop(L, 1);
  lua_getfield(L, idx, "mode");
  x->mode = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "turn");
  x->turn = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  x->nsend = x->plan->nsend, x->nhalo = x->plan->nhalo;
  x->slid = fview(L, idx, "slid"), x->sbuf = fview(L, idx, "sbuf");
  x->hsbuf = fview(L, idx, "hsbuf"), x->hhalo = fview(L, idx, "hhalo");
  x->rb[0] = fview(L, idx, "rb1"), x->rb[1] = fview(L, idx, "rb2");
  x->pe = fview(L, idx, "pe"), x->off = fview(L, idx, "off");
  int ok = x->mode == SK_XCHG_MPI ||
           (x->mode == SK_XCHG_STAGED && x->slid && x->sbuf && x->hsbuf && x->hhalo) ||
           (x->mode == SK_XCHG_ONESIDED && x->slid && x->rb[0] && x->rb[1] && x->pe && x->off);
  if (!ok) luaL_argerror(L, idx, "an exchange's buffers are missing");
}

/* cc_run(xa, xb | nil, lab0, lab1, hl, hli | nil, ip, ic, bp, bc,
 * [bip, bic, bbp, bbc], base) -> which (0: lab0, 1: lab1), components;
 * the exchanges' turns written back into xa / xb (collective) */
static int l_cc_run(lua_State *L) {
  sk_dist_xchg xa, xb;
  xchg_of(L, 1, &xa);
  int directed = !lua_isnil(L, 2);
  if (directed) xchg_of(L, 2, &xb);
  const sk_view *lab[2] = {anyview(L, 3), anyview(L, 4)};
  const sk_view *hl = anyview(L, 5), *hli = directed ? anyview(L, 6) : NULL;
  sk_dist_ccg A = {anyview(L, 7), anyview(L, 8), anyview(L, 9), anyview(L, 10)}, B;
  if (directed) B = (sk_dist_ccg){anyview(L, 11), anyview(L, 12), anyview(L, 13), anyview(L, 14)};
  int64_t base = luaL_checkinteger(L, 15), ncomp = 0;
  int which = 0;
  char err[ERRLEN];
  int rc = sk_dist_cc_run(&xa, directed ? &xb : NULL, &A, directed ? &B : NULL, lab, hl, hli,
                          base, &which, &ncomp, err, sizeof err);
  lua_pushinteger(L, xa.turn);
  lua_setfield(L, 1, "turn");
  if (directed) {
    lua_pushinteger(L, xb.turn);
    lua_setfield(L, 2, "turn");
  }
  if (rc < 0) return raise(L, err);
  lua_pushinteger(L, which);
  lua_pushinteger(L, ncomp);
  return 2;
}

/* pr_run(xb, x0, x1, y, hy, deg, ip, ic, bp, bc, N, d, tol, maxiter)
 * -> which (0: x0, 1: x1), iterations; the exchange's turn written back
 * into xb (collective; kernels/dist/pr.h) */
static int l_pr_run(lua_State *L) {
  sk_dist_xchg xb;
  xchg_of(L, 1, &xb);
  const sk_view *x[2] = {anyview(L, 2), anyview(L, 3)};
  const sk_view *y = anyview(L, 4), *hy = anyview(L, 5), *deg = anyview(L, 6);
  sk_dist_ccg B = {anyview(L, 7), anyview(L, 8), anyview(L, 9), anyview(L, 10)};
  int64_t N = luaL_checkinteger(L, 11), maxiter = luaL_checkinteger(L, 14), iters = 0;
  double d = luaL_checknumber(L, 12), tol = luaL_checknumber(L, 13);
  int which = 0;
  char err[ERRLEN];
  int rc = sk_dist_pr_run(&xb, &B, x, y, hy, deg, N, d, tol, maxiter, &which, &iters, err,
                          sizeof err);
  lua_pushinteger(L, xb.turn);
  lua_setfield(L, 1, "turn");
  if (rc < 0) return raise(L, err);
  lua_pushinteger(L, which);
  lua_pushinteger(L, iters);
  return 2;
}

/* -- collectives -------------------------------------------------------- */
/* node_ranks() -> the most ranks one node holds (collective) */
static int l_node_ranks(lua_State *L) {
  int n = 0;
  char err[ERRLEN];
  if (sk_dist_node_ranks(&n, err, sizeof err) < 0) return raise(L, err);
  lua_pushinteger(L, n);
  return 1;
}

/* agree(call, {ints}, {names}) -> nil | the message every rank gets */
static int l_agree(lua_State *L) {
  const char *call = luaL_checkstring(L, 1);
  int n = (int)lua_rawlen(L, 2);
  int64_t d[32];
  const char *names[32];
  if (n > 15) n = 15;
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 2, i + 1);
    d[i] = (int64_t)lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, 3, i + 1);
    names[i] = lua_tostring(L, -1);
    lua_pop(L, 1);
    if (!names[i]) names[i] = "?";
  }
  char msg[ERRLEN];
  int rc = sk_dist_agree(call, d, names, n, msg, sizeof msg);
  if (rc < 0) return raise(L, msg);
  if (rc == 0) return 0;
  lua_pushstring(L, msg);
  return 1;
}

/* consensus(msg | nil) -> nil | the lowest failing rank's message */
static int l_consensus(lua_State *L) {
  const char *mine = lua_tostring(L, 1);
  char msg[ERRLEN];
  int rc = sk_dist_consensus(mine != NULL, mine, msg, sizeof msg);
  if (rc < 0) return raise(L, msg);
  if (rc == 0) return 0;
  lua_pushstring(L, msg);
  return 1;
}

/* allgather(n) -> {n of rank 0, n of rank 1, ...} */
static int l_allgather(lua_State *L) {
  int64_t x = luaL_checkinteger(L, 1);
  int np = sk_remote_size();
  int64_t *out = lua_newuserdatauv(L, (size_t)np * sizeof *out, 0);
  char err[ERRLEN];
  if (sk_dist_allgather_i64(x, out, err, sizeof err) < 0) return raise(L, err);
  lua_createtable(L, np, 0);
  for (int r = 0; r < np; r++) {
    lua_pushinteger(L, out[r]);
    lua_rawseti(L, -2, r + 1);
  }
  return 1;
}

static int64_t *counts_table(lua_State *L, int idx, int np) {
  int64_t *c = lua_newuserdatauv(L, (size_t)np * sizeof *c, 0);
  for (int r = 0; r < np; r++) {
    lua_rawgeti(L, idx, r + 1);
    c[r] = lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  return c;
}

/* allgatherv(src, counts, dst): every rank's src in rank order into dst */
static int l_allgatherv(lua_State *L) {
  sk_view *s = hostview(L, 1, 0), *d = hostview(L, 3, 0);
  luaL_checktype(L, 2, LUA_TTABLE);
  int np = sk_remote_size();
  int64_t *c = counts_table(L, 2, np);
  char err[ERRLEN];
  if (sk_dist_allgatherv(s->data, vlen(s), c, (int)sk_dtypes[s->dtype].size, d->data, err,
                         sizeof err) < 0)
    return raise(L, err);
  return 0;
}

/* gatherv(src, counts, dst | nil, root): every rank's src in rank order
 * into dst on rank 'root' */
static int l_gatherv(lua_State *L) {
  sk_view *s = hostview(L, 1, 0), *d = hostview(L, 3, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int root = (int)luaL_checkinteger(L, 4);
  int np = sk_remote_size();
  int64_t *c = counts_table(L, 2, np);
  char err[ERRLEN];
  if (sk_dist_gatherv(s->data, vlen(s), c, (int)sk_dtypes[s->dtype].size, d ? d->data : NULL,
                      root, err, sizeof err) < 0)
    return raise(L, err);
  return 0;
}

/* alltoallv(send, counts) -> recv view (same dtype), recv counts */
static int l_alltoallv(lua_State *L) {
  sk_view *s = hostview(L, 1, 0);
  luaL_checktype(L, 2, LUA_TTABLE);
  int np = sk_remote_size();
  int64_t *c = counts_table(L, 2, np);
  int64_t *rc = lua_newuserdatauv(L, (size_t)np * sizeof *rc, 0);
  void *rbuf = NULL;
  char err[ERRLEN];
  size_t es = sk_dtypes[s->dtype].size;
  if (sk_dist_alltoallv(s->data, c, (int)es, &rbuf, rc, err, sizeof err) < 0)
    return raise(L, err);
  int64_t nr = 0;
  for (int r = 0; r < np; r++) nr += rc[r];
  sk_view *v = sk_lview_new(L);
  if (sk_view_create(v, "received", s->dtype, 1, &nr, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                     sizeof err) < 0) {
    free(rbuf);
    return raise(L, err);
  }
  if (nr) memcpy(v->data, rbuf, (size_t)nr * es);
  free(rbuf);
  lua_createtable(L, np, 0);
  for (int r = 0; r < np; r++) {
    lua_pushinteger(L, rc[r]);
    lua_rawseti(L, -2, r + 1);
  }
  return 2;
}

/* allreduce_int(table, op): int64 sums / min / max, exact */
static int l_allreduce_int(lua_State *L) {
  static const char *const ops[] = {"sum", "min", "max", NULL};
  int op = luaL_checkoption(L, 2, "sum", ops);
  int n = (int)lua_rawlen(L, 1);
  int64_t *x = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *x, 0);
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, 1, i + 1);
    x[i] = lua_tointeger(L, -1);
    lua_pop(L, 1);
  }
  char err[ERRLEN];
  if (sk_dist_allreduce_i64(x, n, op, err, sizeof err) < 0) return raise(L, err);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushinteger(L, x[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int l_wtime(lua_State *L) {
  lua_pushnumber(L, sk_dist_wtime());
  return 1;
}

/* bytes(view): the bytes a view's allocation holds (the memory checks) */
static int l_bytes(lua_State *L) {
  sk_view *v = sk_lview_check(L, 1);
  lua_pushinteger(L, v->alloc ? (lua_Integer)v->alloc->bytes : 0);
  return 1;
}

static const luaL_Reg dist_funcs[] = {
  {"map", l_map},           {"split", l_split},         {"plan", l_plan},
  {"agree", l_agree},       {"consensus", l_consensus}, {"allgather", l_allgather},
  {"allgatherv", l_allgatherv}, {"gatherv", l_gatherv},     {"alltoallv", l_alltoallv}, {"allreduce_int", l_allreduce_int},
  {"wtime", l_wtime},       {"bytes", l_bytes},         {"cg_matrix", l_cg_matrix},
  {"cg_sweep", l_cg_sweep}, {"node_ranks", l_node_ranks}, {"cg_onesided", l_cg_onesided},
  {"bfs_graph", l_bfs_graph}, {"bfs_run", l_bfs_run}, {"cc_run", l_cc_run},
  {"pr_run", l_pr_run},
  {NULL, NULL}};

static const luaL_Reg map_methods[] = {{"owner", m_owner}, {"lid", m_lid}, {NULL, NULL}};
static const luaL_Reg plan_methods[] = {{"start", p_start},
                                        {"start_packed", p_start_packed},
                                        {"send_ids", p_send_ids},
                                        {"put_targets", p_put_targets},
                                        {"wait", p_wait},
                                        {"export_add", p_export_add},
                                        {"info", p_info},
                                        {NULL, NULL}};

static const luaL_Reg cg_methods[] = {
  {"bytes", cg_bytes}, {"phases", cg_phases}, {NULL, NULL}};
static const luaL_Reg bfs_methods[] = {{"bytes", bfs_bytes}, {NULL, NULL}};

static void new_mt(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction gc) {
  luaL_newmetatable(L, name);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
}

void sk_ldist_open(lua_State *L) {
  new_mt(L, MAP_MT, map_methods, map_gc);
  new_mt(L, PLAN_MT, plan_methods, plan_gc);
  new_mt(L, CG_MT, cg_methods, cg_gc);
  new_mt(L, BFS_MT, bfs_methods, bfs_gc);
  luaL_newlib(L, dist_funcs);
  lua_setfield(L, -2, "dist");
}
