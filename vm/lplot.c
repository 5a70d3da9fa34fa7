/* lplot.c: the Lua face of io/plot.c, the table 'plot' of speck.core that
 * stdlib/speck/plot.lua draws its SVG from. Inputs are host views (any
 * numeric dtype) or Lua sequences of numbers; plot.lua has checked their
 * shapes and copied device views to the host, so errors here are only
 * the last guard.
 */
#include <math.h>
#include <stdlib.h>

#include "core/err.h"
#include "vm.h"
#include "io/plot.h"

#define FN "speck.plot"

/* the values at 'idx' (a rank-1 host view or a sequence of numbers) as a
 * new double array (the caller frees it); its length in '*n' */
static double *doubles(lua_State *L, int idx, const char *what, int64_t *n) {
  sk_view *v = sk_lview_test(L, idx);
  double *out;
  if (v != NULL) {
    if (!sk_space_host_accessible(v->space)) sk_lerror(L, FN, v->label, SK_E_PLOT_NOT_HOST);
    if (v->rank != 1) sk_lerror(L, FN, NULL, SK_E_PLOT_RANK, what, 1, v->rank);
    *n = v->extent[0];
    out = malloc(sizeof *out * (size_t)(*n > 0 ? *n : 1));
    if (out == NULL) return sk_lerror(L, FN, NULL, SK_E_NOMEM), NULL;
    for (int64_t i = 0; i < *n; i++) out[i] = sk_view_get_f(v, sk_view_offset(v, &i));
    return out;
  }
  luaL_checktype(L, idx, LUA_TTABLE);
  *n = (int64_t)lua_rawlen(L, idx);
  out = malloc(sizeof *out * (size_t)(*n > 0 ? *n : 1));
  if (out == NULL) return sk_lerror(L, FN, NULL, SK_E_NOMEM), NULL;
  for (int64_t i = 0; i < *n; i++) {
    int isnum;
    lua_rawgeti(L, idx, (lua_Integer)i + 1);
    out[i] = lua_tonumberx(L, -1, &isnum);
    if (!isnum) {
      const char *tn = luaL_typename(L, -1);
      free(out);
      sk_lerror(L, FN, NULL, SK_E_PLOT_NOT_NUMBER, what, (long long)i + 1, tn);
    }
    lua_pop(L, 1);
  }
  return out;
}

static void push_array(lua_State *L, const double *a, int64_t n) {
  lua_createtable(L, (int)n, 0);
  for (int64_t i = 0; i < n; i++) {
    lua_pushnumber(L, a[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* thin_line(x | nil, y, nbuckets) --> xs, ys */
static int l_thin_line(lua_State *L) {
  int64_t nx = 0, ny = 0;
  double *y = doubles(L, 2, "y", &ny);
  double *x = lua_isnoneornil(L, 1) ? NULL : doubles(L, 1, "x", &nx);
  int64_t nb = luaL_checkinteger(L, 3);
  if (nb < 1) nb = 1;
  double *ox = malloc(sizeof *ox * (size_t)(4 * nb)), *oy = malloc(sizeof *oy * (size_t)(4 * nb));
  if (ox == NULL || oy == NULL || (x != NULL && nx != ny)) {
    free(x), free(y), free(ox), free(oy);
    return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  }
  int64_t m = sk_plot_thin_line(x, y, ny, nb, ox, oy);
  push_array(L, ox, m);
  push_array(L, oy, m);
  free(x), free(y), free(ox), free(oy);
  return 2;
}

/* thin_scatter(x, y, xlo, xhi, ylo, yhi, gw, gh) --> xs, ys */
static int l_thin_scatter(lua_State *L) {
  int64_t nx, ny;
  double *x = doubles(L, 1, "x", &nx);
  double *y = doubles(L, 2, "y", &ny);
  int64_t n = nx < ny ? nx : ny;
  int gw = (int)luaL_checkinteger(L, 7), gh = (int)luaL_checkinteger(L, 8);
  int64_t *keep = malloc(sizeof *keep * (size_t)(n > 0 ? n : 1));
  int64_t m = keep ? sk_plot_thin_scatter(x, y, n, luaL_checknumber(L, 3),
                                          luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                                          luaL_checknumber(L, 6), gw, gh, keep)
                   : -1;
  if (m < 0) {
    free(x), free(y), free(keep);
    return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  }
  lua_createtable(L, (int)m, 0);
  lua_createtable(L, (int)m, 0);
  for (int64_t i = 0; i < m; i++) {
    lua_pushnumber(L, x[keep[i]]);
    lua_rawseti(L, -3, (lua_Integer)i + 1);
    lua_pushnumber(L, y[keep[i]]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  free(x), free(y), free(keep);
  return 2;
}

/* range(v, positive) --> lo, hi, count (nil, nil, 0 when none) */
static int l_range(lua_State *L) {
  int64_t n;
  double *v = doubles(L, 1, "values", &n);
  double lo = 0, hi = 0;
  int64_t k = sk_plot_range(v, n, lua_toboolean(L, 2), &lo, &hi);
  free(v);
  if (k == 0) {
    lua_pushnil(L);
    lua_pushnil(L);
  } else {
    lua_pushnumber(L, lo);
    lua_pushnumber(L, hi);
  }
  lua_pushinteger(L, (lua_Integer)k);
  return 3;
}

/* hist(v, bins, lo, hi) --> counts, outside */
static int l_hist(lua_State *L) {
  int64_t n;
  double *v = doubles(L, 1, "values", &n);
  int bins = (int)luaL_checkinteger(L, 2);
  int64_t *c = malloc(sizeof *c * (size_t)(bins > 0 ? bins : 1));
  if (c == NULL || bins < 1) {
    free(v), free(c);
    return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  }
  int64_t out = sk_plot_hist(v, n, bins, luaL_checknumber(L, 3), luaL_checknumber(L, 4), c);
  lua_createtable(L, bins, 0);
  for (int b = 0; b < bins; b++) {
    lua_pushinteger(L, (lua_Integer)c[b]);
    lua_rawseti(L, -2, b + 1);
  }
  lua_pushinteger(L, (lua_Integer)out);
  free(v), free(c);
  return 2;
}

static sk_view *host_view(lua_State *L, int idx, const char *what, int rank) {
  sk_view *v = sk_lview_check(L, idx);
  if (!sk_space_host_accessible(v->space)) sk_lerror(L, FN, v->label, SK_E_PLOT_NOT_HOST);
  if (v->rank != rank) sk_lerror(L, FN, NULL, SK_E_PLOT_RANK, what, rank, v->rank);
  return v;
}

/* grid(V, gh, gw) --> flat row-major means (NaN: an empty block) */
static int l_grid(lua_State *L) {
  sk_view *V = host_view(L, 1, "V", 2);
  int gh = (int)luaL_checkinteger(L, 2), gw = (int)luaL_checkinteger(L, 3);
  double *out = malloc(sizeof *out * (size_t)gh * (size_t)gw);
  if (out == NULL) return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  sk_plot_grid(V, gh, gw, out);
  push_array(L, out, (int64_t)gh * gw);
  free(out);
  return 1;
}

/* spy(rowptr, colidx, nrows, ncols, gh, gw) --> flat row-major counts */
static int l_spy(lua_State *L) {
  sk_view *rp = host_view(L, 1, "rowptr", 1), *ci = host_view(L, 2, "colidx", 1);
  int64_t nrows = luaL_checkinteger(L, 3), ncols = luaL_checkinteger(L, 4);
  int gh = (int)luaL_checkinteger(L, 5), gw = (int)luaL_checkinteger(L, 6);
  int64_t *c = malloc(sizeof *c * (size_t)gh * (size_t)gw);
  if (c == NULL) return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  if (rp->extent[0] != nrows + 1 || sk_plot_spy(rp, ci, nrows, ncols, gh, gw, c) != 0) {
    free(c);
    return sk_lerror(L, FN, NULL, SK_E_PLOT_SPY_MALFORMED, (long long)nrows,
                     (long long)ncols);
  }
  lua_createtable(L, gh * gw, 0);
  for (int64_t k = 0; k < (int64_t)gh * gw; k++) {
    lua_pushinteger(L, (lua_Integer)c[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  free(c);
  return 1;
}

/* layout(rowptr, colidx, nv, "force" | "spectral", iters, seed) --> xs, ys */
static int l_layout(lua_State *L) {
  sk_view *rp = host_view(L, 1, "rowptr", 1), *ci = host_view(L, 2, "colidx", 1);
  int64_t nv = luaL_checkinteger(L, 3);
  const char *kind = luaL_checkstring(L, 4);
  int iters = (int)luaL_checkinteger(L, 5);
  uint64_t seed = (uint64_t)luaL_checkinteger(L, 6);
  int64_t ne = ci->extent[0];
  if (rp->extent[0] != nv + 1) return sk_lerror(L, FN, NULL, SK_E_PLOT_SPY_MALFORMED,
                                                (long long)nv, (long long)nv);
  int64_t *off = malloc(sizeof *off * (size_t)(nv + 1));
  int64_t *adj = malloc(sizeof *adj * (size_t)(ne > 0 ? ne : 1));
  double *x = malloc(sizeof *x * (size_t)(nv > 0 ? nv : 1));
  double *y = malloc(sizeof *y * (size_t)(nv > 0 ? nv : 1));
  if (off == NULL || adj == NULL || x == NULL || y == NULL) {
    free(off), free(adj), free(x), free(y);
    return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  }
  for (int64_t i = 0; i <= nv; i++) {
    off[i] = sk_view_get_i(rp, sk_view_offset(rp, &i));
    if (off[i] < 0 || off[i] > ne) off[i] = i > 0 ? off[i - 1] : 0;
  }
  for (int64_t k = 0; k < ne; k++) adj[k] = sk_view_get_i(ci, sk_view_offset(ci, &k));
  if (kind[0] == 's') sk_plot_layout_spectral(nv, off, adj, iters, x, y);
  else sk_plot_layout_force(nv, off, adj, iters, seed, x, y);
  push_array(L, x, nv);
  push_array(L, y, nv);
  free(off), free(adj), free(x), free(y);
  return 2;
}

/* png(w, h, indices, palette) --> PNG bytes: 'indices' w*h bytes, row
 * by row, 'palette' 3 bytes (RGB) per colour */
static int l_png(lua_State *L) {
  int w = (int)luaL_checkinteger(L, 1), h = (int)luaL_checkinteger(L, 2);
  size_t ni, np, len = 0;
  const char *idx = luaL_checklstring(L, 3, &ni);
  const char *pal = luaL_checklstring(L, 4, &np);
  if (w < 1 || h < 1 || ni != (size_t)w * (size_t)h || np % 3 != 0 || np < 3 || np > 768)
    return sk_lerror(L, FN, NULL, SK_E_PLOT_PNG_SHAPE, w, h, (long long)ni, (long long)np);
  unsigned char *png = sk_plot_png_indexed(w, h, (const unsigned char *)idx,
                                           (const unsigned char *)pal, (int)(np / 3), &len);
  if (png == NULL) return sk_lerror(L, FN, NULL, SK_E_NOMEM);
  lua_pushlstring(L, (const char *)png, len);
  free(png);
  return 1;
}

static const luaL_Reg plot_funcs[] = {
    {"png", l_png},
    {"thin_line", l_thin_line}, {"thin_scatter", l_thin_scatter}, {"range", l_range},
    {"hist", l_hist},           {"grid", l_grid},                 {"spy", l_spy},
    {"layout", l_layout},       {NULL, NULL}};

void sk_lplot_open(lua_State *L) {
  luaL_newlib(L, plot_funcs);
  lua_setfield(L, -2, "plot");
}
