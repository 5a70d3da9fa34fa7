/* ltask.c: Lua bindings of the task scheduler and the memory pool
 * (kernels/task/), the 'task' table of speck.core; stdlib/speck/task.lua
 * is the public module over it.
 *
 * A Scheduler is full userdata owning an sk_sched; its user value holds
 * the views its tasks may reach (declared defaults for good, views given
 * at a spawn until the next wait ends). A Future holds one reference to
 * its task and, in its user value, the Scheduler, so the scheduler outlives
 * its futures; a closed scheduler or a failed wait (which discards every
 * task: a new generation) makes its futures refuse to be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "../kernels/task/chol.h"
#include "../kernels/task/task.h"
#include "vm.h"

#define SCHED_MT  "speck.task.Scheduler"
#define FUTURE_MT "speck.task.Future"
#define POOL_MT   "speck.task.MemoryPool"
#define CHOL_MT   "speck.sparse.Cholesky"

typedef struct lsched {
  sk_sched *s;
} lsched;

typedef struct lfuture {
  struct sk_task *t;
  uint64_t gen;
  int functor;
} lfuture;

typedef struct lpool {
  sk_mpool *p;
  void *gpu;           /* or a pool in GPU memory (its back end's task scheduler) */
  const sk_backend *b; /* its back end */
  sk_view head;        /* what a kernel captures: the pool's head */
} lpool;

static lsched *check_sched(lua_State *L, int idx, const char *fname) {
  lsched *ls = luaL_testudata(L, idx, SCHED_MT);
  if (!ls) sk_lerror(L, fname, NULL, SK_E_EXPECTED_SCHEDULER_GOT, luaL_typename(L, idx));
  if (!ls->s) sk_lerror(L, fname, NULL, SK_E_SCHEDULER_CLOSED);
  return ls;
}

static const char *const prio_names[] = {"high", "regular", "low", NULL};

/* -- Scheduler ---------------------------------------------------------------- */
/* scheduler(space | nil, memory, queue) */
static int l_scheduler(lua_State *L) {
  const char *fname = "speck.task.Scheduler";
  const char *space = luaL_optstring(L, 1, NULL);
  lua_Integer memory = luaL_checkinteger(L, 2);
  const char *queue = luaL_checkstring(L, 3);
  int q;
  if (strcmp(queue, "multiple") == 0) q = SK_QUEUE_MULTIPLE;
  else if (strcmp(queue, "single") == 0) q = SK_QUEUE_SINGLE;
  else return sk_lerror(L, fname, NULL, SK_E_QUEUE_NOT_SINGLE, queue);
  char err[1024];
  /* the active back end when none is named: on a GPU, GPU tasks */
  const sk_backend *b = space ? NULL : sk_rt_backend(err, sizeof err);
  if (!space && !b) return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  if (space) {
    if (!sk_rt_backend(err, sizeof err)) return sk_lerror(L, fname, NULL, SK_E_MSG, err);
    b = sk_backend_find(space);
    if (!b) {
      char names[256];
      sk_env_space_names(names, sizeof names, 0);
      return sk_lerror(L, fname, NULL, SK_E_UNKNOWN_SPACE_NAMED_OF, space, names);
    }
    char why[256];
    if (b != sk_rt_backend(err, sizeof err) && b->available &&
        !b->available(why, sizeof why))
      return sk_lerror(L, fname, NULL, SK_E_SPACE_NOT_AVAILABLE, space, why);
  }
  lsched *ls = lua_newuserdatauv(L, sizeof *ls, 1);
  ls->s = NULL;
  luaL_setmetatable(L, SCHED_MT);
  lua_createtable(L, 0, 2);
  lua_newtable(L);
  lua_setfield(L, -2, "spawned");
  lua_newtable(L);
  lua_setfield(L, -2, "declared");
  lua_setiuservalue(L, -2, 1);
  ls->s = sk_sched_new(b, (int64_t)memory, q, err, sizeof err);
  if (!ls->s) return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  return 1;
}

static int l_sched_gc(lua_State *L) {
  lsched *ls = luaL_checkudata(L, 1, SCHED_MT);
  sk_sched_free(ls->s);
  ls->s = NULL;
  return 0;
}

/* Keep the memory of view userdata 'idx' alive in the scheduler's list
 * 'which': a shallow copy (it shares and retains the allocation), so a
 * later speck.resize of the user's view cannot free what a task reaches. */
static void keep_view(lua_State *L, int sidx, int idx, const char *which) {
  const sk_view *v = sk_lview_test(L, idx);
  lua_getiuservalue(L, sidx, 1);
  lua_getfield(L, -1, which);
  sk_view *c = sk_lview_new(L);
  *c = *v;
  if (c->alloc) sk_view_retain(c);
  lua_getiuservalue(L, idx, 1); /* what keeps wrapped memory alive */
  lua_setiuservalue(L, -2, 1);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_pop(L, 2);
}

static void varg_of(const sk_view *v, sk_varg *a) {
  memset(a, 0, sizeof *a);
  a->data = v->data;
  a->rank = v->rank;
  for (int d = 0; d < SK_MAXRANK; d++) {
    a->extent[d] = v->extent[d];
    a->stride[d] = v->stride[d];
  }
}

static int cmp_field(const void *a, const void *b) {
  return strcmp(((const sk_tfield *)a)->name, ((const sk_tfield *)b)->name);
}

/* sched:functor(label, fields, ret | nil, body) -> index */
static int l_functor(lua_State *L) {
  const char *fname = "sched:functor";
  lsched *ls = check_sched(L, 1, fname);
  const char *label = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  const char *ret = luaL_optstring(L, 4, NULL);
  const char *body = luaL_checkstring(L, 5);
  sk_tfunctor *f = lua_newuserdatauv(L, sizeof *f, 0); /* freed by the GC */
  memset(f, 0, sizeof *f);
  snprintf(f->label, sizeof f->label, "%s", label);
  if (strlen(label) >= sizeof f->label)
    return sk_lerror(L, fname, label, SK_E_LABEL_LONGER_THAN, (int)sizeof f->label - 1);
  f->ret = -1;
  if (ret) {
    f->ret = sk_dtype_parse(ret);
    if (f->ret < 0 || f->ret == SK_BOOL)
      return sk_lerror(L, fname, label, SK_E_RESULT_TYPE_NOT, ret);
  }
  int fidx = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, 3)) {
    if (lua_type(L, -2) != LUA_TSTRING)
      return sk_lerror(L, fname, label, SK_E_FIELD_NAMES_MUST, luaL_typename(L, -2));
    if (f->nfields == SK_TASK_MAXFIELDS)
      return sk_lerror(L, fname, label, SK_E_MORE_THAN_FIELDS, SK_TASK_MAXFIELDS);
    const char *n = lua_tostring(L, -2);
    sk_tfield *fd = &f->fields[f->nfields++];
    if (strlen(n) >= sizeof fd->name)
      return sk_lerror(L, fname, label, SK_E_FIELD_NAME_TOO, n);
    snprintf(fd->name, sizeof fd->name, "%s", n);
    const sk_view *v;
    if (lua_type(L, -1) == LUA_TSTRING) {
      const char *t = lua_tostring(L, -1);
      if (strcmp(t, "future") == 0) {
        fd->kind = SK_TF_FUTURE;
      } else {
        fd->kind = SK_TF_SCALAR;
        fd->dtype = sk_dtype_parse(t);
        if (fd->dtype < 0) return sk_lerror(L, fname, label, SK_E_FIELD_TYPE_FIELD, n, t);
      }
    } else if ((v = sk_lview_test(L, -1)) != NULL) {
      if (!sk_sched_reaches(ls->s, v->space) || v->agg || sk_layout_tiled(v->layout))
        return sk_lerror(L, fname, label, SK_E_FIELD_VIEW_NOT, n, v->label,
                         sk_space_name(v->space));
      fd->kind = SK_TF_VIEW;
      fd->dtype = v->dtype;
      fd->rank = v->rank;
      fd->layout = v->layout;
      varg_of(v, &fd->view);
    } else {
      return sk_lerror(L, fname, label, SK_E_FIELD_FIELD_DTYPE, n, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
  qsort(f->fields, (size_t)f->nfields, sizeof f->fields[0], cmp_field);
  f->body = (char *)body;
  char err[2048];
  int idx = sk_sched_functor(ls->s, f, err, sizeof err);
  if (idx < 0) return sk_lerror(L, fname, label, SK_E_MSG, err);
  /* the declared views stay alive with the scheduler */
  lua_pushnil(L);
  while (lua_next(L, 3)) {
    if (sk_lview_test(L, -1)) keep_view(L, 1, lua_gettop(L), "declared");
    lua_pop(L, 1);
  }
  lua_settop(L, fidx - 1);
  lua_pushinteger(L, idx);
  return 1;
}

static int l_compile(lua_State *L) {
  lsched *ls = check_sched(L, 1, "sched:compile");
  char err[4096];
  if (sk_sched_compile(ls->s, err, sizeof err) < 0)
    return sk_lerror(L, "sched:compile", NULL, SK_E_MSG, err);
  return 0;
}

static void push_future(lua_State *L, int sidx, sk_sched *s, struct sk_task *t, int f) {
  lfuture *lf = lua_newuserdatauv(L, sizeof *lf, 1);
  lf->t = t;
  lf->gen = sk_sched_generation(s);
  lf->functor = f;
  luaL_setmetatable(L, FUTURE_MT);
  lua_pushvalue(L, sidx);
  lua_setiuservalue(L, -2, 1);
}

/* the scheduler of future 'idx' (which must be of this generation) */
static sk_sched *future_sched(lua_State *L, int idx, lfuture **out, const char *fname) {
  lfuture *lf = luaL_testudata(L, idx, FUTURE_MT);
  if (!lf) sk_lerror(L, fname, NULL, SK_E_EXPECTED_FUTURE_GOT, luaL_typename(L, idx));
  lua_getiuservalue(L, idx, 1);
  lsched *ls = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!ls || !ls->s) sk_lerror(L, fname, NULL, SK_E_FUTURE_SCHEDULER_GONE);
  if (!lf->t || lf->gen != sk_sched_generation(ls->s))
    sk_lerror(L, fname, NULL, SK_E_FUTURE_TASK_WAS);
  *out = lf;
  return ls->s;
}

/* sched:spawn(label, fields, prio, team) -> future. The functor is found
 * by its label: one that did not compile is forgotten and the others
 * move down the table (sk_sched_compile). */
static int l_spawn(lua_State *L) {
  const char *fname = "sched:spawn";
  lsched *ls = check_sched(L, 1, fname);
  sk_sched *s = ls->s;
  const char *label = luaL_checkstring(L, 2);
  if (sk_sched_find(s, label) < 0)
    return sk_lerror(L, fname, label, SK_E_FUNCTOR_FORGOTTEN, label);
  int prio = luaL_checkoption(L, 4, "regular", prio_names);
  int team = lua_toboolean(L, 5);
  char err[4096];
  if (sk_sched_compile(s, err, sizeof err) < 0)
    return sk_lerror(L, fname, label, SK_E_MSG, err);
  int f = sk_sched_find(s, label);
  const sk_tfunctor *fx = sk_sched_functor_at(s, f);
  if (!fx) return sk_lerror(L, fname, NULL, SK_E_NOT_FUNCTOR_SCHEDULER);
  _Alignas(16) unsigned char fields[SK_TASK_MAXFIELDS * sizeof(sk_varg) + 64];
  memset(fields, 0, sizeof fields);
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 3)) {
      const char *n = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      int k = -1;
      for (int j = 0; n && j < fx->nfields; j++)
        if (strcmp(fx->fields[j].name, n) == 0) k = j;
      if (k < 0 && fx->nfields)
        return sk_lerror(L, fname, fx->label, SK_E_NOT_FIELD,
                         n ? n : luaL_typename(L, -2));
      if (k < 0)
        return sk_lerror(L, fname, fx->label, SK_E_NOT_FIELD_NONE,
                         n ? n : luaL_typename(L, -2));
      const sk_tfield *fd = &fx->fields[k];
      unsigned char *at = fields + sk_sched_field_offset(s, f, k);
      if (fd->kind == SK_TF_SCALAR) {
        if (lua_type(L, -1) != LUA_TNUMBER && lua_type(L, -1) != LUA_TBOOLEAN)
          return sk_lerror(L, fname, fx->label, SK_E_FIELD_GOT, n,
                           sk_dtypes[fd->dtype].name, luaL_typename(L, -1));
        sk_view v = {0};
        v.dtype = fd->dtype;
        v.data = at;
        if (lua_type(L, -1) == LUA_TBOOLEAN) sk_view_set_i(&v, 0, lua_toboolean(L, -1));
        else if (lua_isinteger(L, -1)) sk_view_set_i(&v, 0, lua_tointeger(L, -1));
        else if (sk_dtypes[fd->dtype].is_float) sk_view_set_f(&v, 0, lua_tonumber(L, -1));
        else
          return sk_lerror(L, fname, fx->label, SK_E_FIELD_GOT_NUMBER, n,
                           sk_dtypes[fd->dtype].name, lua_tonumber(L, -1));
      } else if (fd->kind == SK_TF_FUTURE) {
        lfuture *lf;
        if (!luaL_testudata(L, -1, FUTURE_MT))
          return sk_lerror(L, fname, fx->label, SK_E_FIELD_FUTURE_GOT, n,
                           luaL_typename(L, -1));
        sk_sched *o = future_sched(L, lua_gettop(L), &lf, fname);
        if (o != s) return sk_lerror(L, fname, fx->label, SK_E_FIELD_FUTURE_BELONGS, n);
        memcpy(at, &lf->t, sizeof lf->t);
      } else {
        const sk_view *v = sk_lview_test(L, -1);
        if (!v)
          return sk_lerror(L, fname, fx->label, SK_E_FIELD_VIEW_GOT, n,
                           luaL_typename(L, -1));
        if (v->dtype != fd->dtype || v->rank != fd->rank || v->layout != fd->layout ||
            !sk_sched_reaches(s, v->space) || v->agg)
          return sk_lerror(L, fname, fx->label, SK_E_FIELD_VIEW_RANK, n, v->label,
                           sk_dtypes[v->dtype].name, v->rank, sk_layout_name(v->layout),
                           sk_dtypes[fd->dtype].name, fd->rank,
                           sk_layout_name(fd->layout));
        sk_varg a;
        varg_of(v, &a);
        memcpy(at, &a, sizeof a);
        keep_view(L, 1, lua_gettop(L), "spawned");
      }
      lua_pop(L, 1);
    }
  }
  struct sk_task *t = sk_sched_spawn(s, f, fields, prio, team, err, sizeof err);
  if (!t) return sk_lerror(L, fname, fx->label, SK_E_MSG, err);
  push_future(L, 1, s, t, f);
  return 1;
}

static int l_wait(lua_State *L) {
  lsched *ls = check_sched(L, 1, "sched:wait");
  char err[4096];
  int rc = sk_sched_wait(ls->s, err, sizeof err);
  lua_getiuservalue(L, 1, 1);
  lua_newtable(L);
  lua_setfield(L, -2, "spawned");
  lua_pop(L, 1);
  if (rc < 0) return sk_lerror(L, "sched:wait", NULL, SK_E_MSG, err);
  return 0;
}

static int l_stats(lua_State *L) {
  lsched *ls = check_sched(L, 1, "sched:stats");
  sk_sched_stats st;
  sk_sched_stats_get(ls->s, &st);
  lua_createtable(L, 0, 6);
  sk_lset_int(L, "tasks", st.tasks);
  sk_lset_int(L, "respawns", st.respawns);
  sk_lset_int(L, "steals", st.steals);
  sk_lset_int(L, "pool_high_water", st.pool_high_water);
  sk_lset_int(L, "pool_in_use", st.pool_in_use);
  sk_lset_int(L, "spawned", st.spawned);
  sk_lset_int(L, "threads", sk_sched_threads(ls->s));
  sk_lset_int(L, "team_size", sk_sched_team_size(ls->s));
  return 1;
}

static int l_close(lua_State *L) {
  lsched *ls = luaL_checkudata(L, 1, SCHED_MT);
  sk_sched_free(ls->s);
  ls->s = NULL;
  return 0;
}

/* -- Future ----------------------------------------------------------------- */
static int l_future_get(lua_State *L) {
  lfuture *lf;
  sk_sched *s = future_sched(L, 1, &lf, "future:get");
  sk_slot v;
  int dt;
  char err[512];
  if (sk_sched_result(s, lf->t, &v, &dt, err, sizeof err) < 0)
    return sk_lerror(L, "future:get", NULL, SK_E_MSG, err);
  if (dt < 0) return 0;
  sk_view w = {0};
  w.dtype = dt;
  w.data = &v;
  if (sk_dtypes[dt].is_float) lua_pushnumber(L, sk_view_get_f(&w, 0));
  else lua_pushinteger(L, sk_view_get_i(&w, 0));
  return 1;
}

static int l_future_ready(lua_State *L) {
  lfuture *lf;
  sk_sched *s = future_sched(L, 1, &lf, "future:is_ready");
  sk_slot v;
  int dt;
  char err[512];
  lua_pushboolean(L, sk_sched_result(s, lf->t, &v, &dt, err, sizeof err) == 0);
  return 1;
}

static int l_future_gc(lua_State *L) {
  lfuture *lf = luaL_checkudata(L, 1, FUTURE_MT);
  lua_getiuservalue(L, 1, 1);
  lsched *ls = lua_touserdata(L, -1);
  if (lf->t && ls && ls->s && lf->gen == sk_sched_generation(ls->s))
    sk_sched_release(ls->s, lf->t);
  lf->t = NULL;
  return 0;
}

/* -- MemoryPool --------------------------------------------------------------- */
/* pool(bytes, superblock): on the active back end's memory -- a GPU's
 * when it runs device code (then superblocks are 64 KiB) */
static int l_pool(lua_State *L) {
  const char *fname = "speck.task.MemoryPool";
  lua_Integer bytes = luaL_checkinteger(L, 1);
  lua_Integer sb = luaL_optinteger(L, 2, 0);
  char err[512];
  const sk_backend *b = sk_rt_backend(err, sizeof err);
  if (!b) return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  int gpu = b->code != SK_CODE_HOST;
  if (gpu && sb != 0 && sb != SK_GPU_SUPERBLOCK)
    return sk_lerror(L, fname, NULL, SK_E_SUPERBLOCK_POOL_BACK, (long long)sb, b->name,
                     SK_GPU_SUPERBLOCK);
  lpool *lp = lua_newuserdatauv(L, sizeof *lp, 0);
  memset(lp, 0, sizeof *lp);
  luaL_setmetatable(L, POOL_MT);
  lp->b = b;
  sk_view *v = &lp->head;
  if (gpu) {
    if (!(lp->gpu = sk_gpool_new(b, (int64_t)bytes, err, sizeof err)))
      return sk_lerror(L, fname, NULL, SK_E_MSG, err);
    v->data = lp->gpu;
    v->space = b->space;
  } else {
    lp->p = sk_mpool_new((int64_t)bytes, (int64_t)sb, err, sizeof err);
    if (!lp->p) return sk_lerror(L, fname, NULL, SK_E_MSG, err);
    v->data = sk_mpool_head_of(lp->p);
    v->space = SK_SPACE_HOST;
  }
  v->dtype = SK_U8;
  v->rank = 1;
  v->layout = SK_RIGHT;
  v->extent[0] = gpu ? 64 : (int64_t)sizeof(sk_mpool_head);
  v->stride[0] = 1;
  for (int d = 1; d < SK_MAXRANK; d++) v->extent[d] = 1;
  snprintf(v->label, sizeof v->label, "memory pool");
  return 1;
}

static int l_pool_gc(lua_State *L) {
  lpool *lp = luaL_checkudata(L, 1, POOL_MT);
  sk_mpool_free(lp->p);
  lp->p = NULL;
  if (lp->gpu) sk_gpool_free(lp->b, lp->gpu);
  lp->gpu = NULL;
  return 0;
}

static int l_pool_stats(lua_State *L) {
  lpool *lp = luaL_checkudata(L, 1, POOL_MT);
  if (!lp->p && !lp->gpu) return sk_lerror(L, "pool:stats", NULL, SK_E_POOL_FREED);
  sk_mpool_stats st;
  char err[512];
  if (lp->gpu) {
    if (sk_gpool_stats(lp->b, lp->gpu, &st, err, sizeof err) < 0)
      return sk_lerror(L, "pool:stats", NULL, SK_E_MSG, err);
  } else {
    sk_mpool_stats_get(lp->p, &st);
  }
  lua_createtable(L, 0, 5);
  sk_lset_int(L, "capacity", st.capacity);
  sk_lset_int(L, "superblock", st.superblock);
  sk_lset_int(L, "in_use", st.in_use);
  sk_lset_int(L, "high_water", st.high_water);
  sk_lset_int(L, "failures", st.failures);
  return 1;
}

const sk_view *sk_ltask_pool_view(lua_State *L, int idx) {
  lpool *lp = luaL_testudata(L, idx, POOL_MT);
  return lp && (lp->p || lp->gpu) ? &lp->head : NULL;
}

/* -- Cholesky (kernels/task/chol.c) ------------------------------------ */
typedef struct lchol {
  sk_chol *c;
  int space; /* where the factor lives (the level-set one: the back end's) */
} lchol;

static const sk_view *dense_view(lua_State *L, int idx, int dtype, int64_t n,
                                 const char *fname, const char *what) {
  const sk_view *v = sk_lview_test(L, idx);
  if (!v || v->dtype != dtype || v->rank != 1 || v->extent[0] != n ||
      !sk_space_host_accessible(v->space) || !sk_view_contiguous(v))
    sk_lerror(L, fname, NULL, SK_E_MUST_CONTIGUOUS_VIEW, what, sk_dtypes[dtype].name,
              (long long)n);
  return v;
}

/* cholesky(n, rowptr, colidx, values [, levels, ldl, gemm_min]) -> factor
 * (host arrays; levels: the level-set schedule on the active back end) */
static int l_cholesky(lua_State *L) {
  const char *fname = "speck.sparse.cholesky";
  lua_Integer n = luaL_checkinteger(L, 1);
  sk_chol_opts o = {lua_toboolean(L, 5), lua_toboolean(L, 6),
                    (int64_t)luaL_optinteger(L, 7, 0)};
  const sk_view *rp = dense_view(L, 2, SK_I64, n + 1, fname, "rowptr");
  const int64_t *r = rp->data;
  const sk_view *ci = dense_view(L, 3, SK_I32, r[n], fname, "colidx");
  const sk_view *va = dense_view(L, 4, SK_F64, r[n], fname, "values");
  lchol *lc = lua_newuserdatauv(L, sizeof *lc, 0);
  lc->c = NULL;
  lc->space = SK_SPACE_HOST;
  luaL_setmetatable(L, CHOL_MT);
  char err[1024];
  lc->c = sk_chol_factor_ex((int64_t)n, r, ci->data, va->data, &o, err, sizeof err);
  if (!lc->c) return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  if (sk_chol_levels(lc->c)) {
    const sk_backend *b = sk_rt_backend(err, sizeof err);
    if (b) lc->space = b->space;
  }
  return 1;
}

static lchol *check_chol(lua_State *L, const char *fname) {
  lchol *lc = luaL_checkudata(L, 1, CHOL_MT);
  if (!lc->c) sk_lerror(L, fname, NULL, SK_E_FACTOR_FREED);
  return lc;
}

/* factor:solve(b) -> x (a new view) */
static int l_chol_solve(lua_State *L) {
  const char *fname = "factor:solve";
  lchol *lc = check_chol(L, fname);
  sk_chol_info in;
  sk_chol_info_get(lc->c, &in);
  if (sk_chol_levels(lc->c)) { /* the factor in the back end's space: b there too */
    const sk_view *b = sk_lview_test(L, 2);
    int space = lc->space;
    /* b in any space of the factor's back end (its managed memory too);
     * x where b is */
    if (!b || b->dtype != SK_F64 || b->rank != 1 || b->extent[0] != in.n ||
        sk_backend_for_space(b->space) != sk_backend_for_space(space) ||
        !sk_view_contiguous(b))
      return sk_lerror(L, fname, NULL, SK_E_CHOL_B_SPACE, (long long)in.n,
                       sk_space_name(space));
    sk_view *x = sk_lview_new(L);
    char err[512];
    int64_t ext[1] = {in.n};
    if (sk_view_create(x, "x", SK_F64, 1, ext, SK_RIGHT, b->space, 0, NULL, err, sizeof err) <
          0 ||
        sk_chol_solve_view(lc->c, b, x, err, sizeof err) < 0)
      return sk_lerror(L, fname, NULL, SK_E_MSG, err);
    return 1;
  }
  const sk_view *b = dense_view(L, 2, SK_F64, in.n, fname, "b");
  sk_view *x = sk_lview_new(L);
  char err[512];
  int64_t ext[1] = {in.n};
  if (sk_view_create(x, "x", SK_F64, 1, ext, SK_RIGHT, SK_SPACE_HOST, 0, NULL, err,
                     sizeof err) < 0)
    return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  if (sk_chol_solve(lc->c, b->data, x->data, err, sizeof err) < 0)
    return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  return 1;
}

/* factor:lower() -> rowptr, colidx, values (L of P A P^T, CSR), perm */
static int l_chol_lower(lua_State *L) {
  const char *fname = "factor:lower";
  lchol *lc = check_chol(L, fname);
  sk_chol_info in;
  sk_chol_info_get(lc->c, &in);
  int64_t nnz = sk_chol_lower_nnz(lc->c);
  static const char *const labels[] = {"L rowptr", "L colidx", "L values", "perm"};
  const int dts[] = {SK_I64, SK_I32, SK_F64, SK_I64};
  const int64_t ns[] = {in.n + 1, nnz, nnz, in.n};
  sk_view *v[4];
  char err[512];
  for (int k = 0; k < 4; k++) {
    v[k] = sk_lview_new(L);
    if (sk_view_create(v[k], labels[k], dts[k], 1, &ns[k], SK_RIGHT, SK_SPACE_HOST, 0,
                       NULL, err, sizeof err) < 0)
      return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  }
  if (sk_chol_lower(lc->c, v[0]->data, v[1]->data, v[2]->data, v[3]->data, err,
                    sizeof err) < 0)
    return sk_lerror(L, fname, NULL, SK_E_MSG, err);
  return 4;
}

static int l_chol_info(lua_State *L) {
  lchol *lc = check_chol(L, "factor:info");
  sk_chol_info in;
  sk_chol_info_get(lc->c, &in);
  lua_createtable(L, 0, 6);
  sk_lset_int(L, "n", in.n);
  sk_lset_int(L, "nnz_l", in.nnz_l);
  sk_lset_int(L, "supernodes", in.supernodes);
  sk_lset_int(L, "max_front", in.max_front);
  sk_lset_num(L, "symbolic_seconds", in.symbolic_s);
  sk_lset_num(L, "numeric_seconds", in.numeric_s);
  sk_lset_int(L, "levels", in.levels);
  sk_lset_int(L, "static_pivots", in.static_pivots);
  sk_lset_int(L, "gemm_updates", in.gemm_updates);
  sk_lset_str(L, "schedule", in.levels ? "levels" : "dag");
  sk_lset_str(L, "space", sk_space_name(lc->space));
  lua_pushboolean(L, in.ldl);
  lua_setfield(L, -2, "ldl");
  return 1;
}

static int l_chol_gc(lua_State *L) {
  lchol *lc = luaL_checkudata(L, 1, CHOL_MT);
  sk_chol_free(lc->c);
  lc->c = NULL;
  return 0;
}

/* the 'task' table of speck.core */
void sk_ltask_open(lua_State *L) {
  static const luaL_Reg sched_m[] = {
    {"functor", l_functor}, {"spawn", l_spawn},     {"wait", l_wait}, {"stats", l_stats},
    {"close", l_close},     {"compile", l_compile}, {NULL, NULL}};
  sk_lclass(L, SCHED_MT, sched_m, l_sched_gc, 1, NULL);
  static const luaL_Reg future_m[] = {
    {"get", l_future_get}, {"is_ready", l_future_ready}, {NULL, NULL}};
  sk_lclass(L, FUTURE_MT, future_m, l_future_gc, 0, NULL);
  static const luaL_Reg pool_m[] = {{"stats", l_pool_stats}, {NULL, NULL}};
  sk_lclass(L, POOL_MT, pool_m, l_pool_gc, 0, NULL);
  static const luaL_Reg chol_m[] = {{"solve", l_chol_solve},
                                    {"info", l_chol_info},
                                    {"lower", l_chol_lower},
                                    {NULL, NULL}};
  sk_lclass(L, CHOL_MT, chol_m, l_chol_gc, 0, NULL);
  static const luaL_Reg task_f[] = {
    {"scheduler", l_scheduler}, {"pool", l_pool}, {"cholesky", l_cholesky}, {NULL, NULL}};
  luaL_newlib(L, task_f);
  lua_setfield(L, -2, "task");
}
