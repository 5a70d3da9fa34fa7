/* tasks.c: speck.task's scheduler on the CUDA back end (seed 003
 * §3.3.2) -- the host half, as the scheduler ops of kernels/task/task.h
 * (sk_cuda_tasks, the 'tasks' entry of the back end's table). The device
 * half (queues, pool, dependences, the persistent worker) is
 * backends/cuda/dialect_task.h, compiled with the functors' bodies (functor.c)
 * into one kernel by the back end's JIT through sk_run.
 *
 * The arena (one device allocation):
 *   [sk_gstate][host region][pool: superblocks][superblock classes][view defaults]
 * Tasks spawned from the host are written into a host copy of the host
 * region (bump allocated, never freed on the device) and uploaded with
 * the state at the wait; a host future is the device address of its
 * record. The region starts over once no host future is alive and nothing
 * is pending. A wait launches the worker kernel once: every lane a worker,
 * the kernel ends when no task is queued or running; then the state comes
 * back (counts, an error, what is still pending: a deadlock).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "kernels/task/task.h"
#include "backends/cuda/dialect_task.h"
#include "cuda_int.h"

#define HOST_REGION_MIN (1 << 20)
#define GPU_STACK       8192 /* bytes per device thread */
_Static_assert(sizeof(sk_gtask) == SK_GT_HDR, "a task header is SK_GT_HDR bytes");
_Static_assert(offsetof(sk_gtask, qnext) == 20, "task_cuda.h pops at byte 20");
_Static_assert(SK_GPU_SUPERBLOCK == SK_GT_SB, "task.h and task_cuda.h agree");
/* a task's fields (SK_GT_NK views at most) fit in a block */
_Static_assert(SK_GT_HDR + SK_GT_NK * sizeof(sk_varg) <= SK_GT_SB, "fields fit a block");
#define ALIGN(x, a) (((x) + (a)-1) / (a) * (a))

typedef struct sk_gsched {
  const sk_backend *b;
  const sk_tfunctors *reg; /* the facade's functors (kernels/task/sched.c) */
  char *arena;             /* device */
  int64_t bytes;
  int64_t host_lo, host_hi, pool_lo, pool_hi, cls_at, vdef_at;
  int64_t host_bump;    /* next free byte of the host region */
  int64_t dirty_hi;     /* stage bytes [host_lo, dirty_hi) to upload */
  int64_t staged_lo;    /* records from here to host_bump: spawned since the
                         * last wait, in the stage only (not yet uploaded) */
  unsigned char *stage; /* the host region's host copy */
  int64_t hlive;        /* host futures alive */
  int64_t host_spawned; /* spawned from the host, all waits */
  int64_t pending;      /* spawned and not completed after the last wait */
  int64_t nready[3];    /* host tasks queued for the next wait */
  unsigned first[3][SK_GT_NQ], last[3][SK_GT_NQ]; /* their chains per stack */
  int64_t tasks, respawns, steals, spawned, in_use, high;
  int lanes;
  sk_gstate st; /* tables (the device's copy is the truth for the rest) */
  char *source;
} sk_gsched;

static int64_t gs_off(const sk_gsched *g, const void *p) {
  return (int64_t)((const char *)p - g->arena);
}

static int up(sk_gsched *g, int64_t off, const void *src, int64_t n, char *err,
              size_t errlen) {
  if (n <= 0) return 0;
  return g->b->copy(g->arena + off, g->b->space, src, SK_SPACE_HOST, (size_t)n, err,
                    errlen);
}
static int down(sk_gsched *g, void *dst, int64_t off, int64_t n, char *err,
                size_t errlen) {
  return g->b->copy(dst, SK_SPACE_HOST, g->arena + off, g->b->space, (size_t)n, err,
                    errlen);
}

/* the pool's and the queues' state as new (no task anywhere) */
static void gs_reset(sk_gsched *g) {
  sk_gstate *st = &g->st;
  memset(st->ready, 0, sizeof st->ready);
  memset(st->freel, 0, sizeof st->freel);
  memset(st->carve, 0, sizeof st->carve);
  st->nhigh = st->nlow = 0;
  st->bump = (unsigned long long)g->pool_lo;
  st->in_use = 0;
  g->host_bump = g->host_lo;
  g->dirty_hi = g->host_lo;
  g->staged_lo = g->host_lo;
  memset(g->nready, 0, sizeof g->nready);
  g->pending = 0;
}

static void gs_free(sk_gsched *g);

static sk_gsched *gs_new(const sk_backend *b, int64_t memory, char *err, size_t errlen) {
  if (!b->alloc || !b->copy) {
    sk_err(err, errlen, SK_E_BACK_END_CANNOT_HOLD, b->name);
    return NULL;
  }
  if (memory < 4 * SK_GT_SB) memory = 4 * SK_GT_SB;
  int64_t host = memory / 4 > HOST_REGION_MIN ? ALIGN(memory / 4, 64) : HOST_REGION_MIN;
  int64_t pool = ALIGN(memory, SK_GT_SB);
  if (pool / 16 > (int64_t)0xfffffff0 / 2) {
    sk_err(err, errlen, SK_E_TASK_MEMORY_BYTES, (long long)memory);
    return NULL;
  }
  sk_gsched *g = calloc(1, sizeof *g);
  if (!g) {
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  g->b = b;
  g->host_lo = ALIGN((int64_t)sizeof(sk_gstate), 256);
  g->host_hi = g->host_lo + host;
  g->pool_lo = ALIGN(g->host_hi, SK_GT_SB);
  g->pool_hi = g->pool_lo + pool;
  g->cls_at = g->pool_hi;
  g->vdef_at = ALIGN(g->cls_at + pool / SK_GT_SB, 64);
  g->bytes = g->vdef_at + (int64_t)(SK_GT_NF * SK_GT_NK * sizeof(sk_varg));
  g->stage = malloc((size_t)host);
  g->arena = g->stage ? b->alloc((size_t)g->bytes, b->space, err, errlen) : NULL;
  if (!g->arena) {
    if (!g->stage) sk_err(err, errlen, SK_E_NOMEM);
    free(g->stage);
    free(g);
    return NULL;
  }
  g->st.base = g->arena;
  g->st.pool_lo = (unsigned long long)g->pool_lo;
  g->st.pool_hi = (unsigned long long)g->pool_hi;
  g->st.sbcls = (unsigned char *)g->arena + g->cls_at;
  g->st.vdef = (sk_varg *)(void *)(g->arena + g->vdef_at);
  gs_reset(g);
  /* the dependence walk recurses (backends/cuda/dialect_task.h): a stack the
   * compiler cannot size */
  if (b->stack && b->stack(GPU_STACK, err, errlen) < 0) {
    gs_free(g);
    return NULL;
  }
  int c = b->concurrency ? b->concurrency() : 1024;
  g->lanes = c / 8 >= 32 ? c / 8 / 32 * 32 : 32;
  if (up(g, 0, &g->st, (int64_t)sizeof g->st, err, errlen) < 0) {
    gs_free(g);
    return NULL;
  }
  return g;
}

static void gs_free(sk_gsched *g) {
  if (!g) return;
  if (g->arena) g->b->free(g->arena, g->b->space);
  free(g->stage);
  free(g->source);
  free(g);
}

static int gs_lanes(const sk_gsched *g) { return g->lanes; }

/* the worker kernel on 'n' lanes over the arena 'state' (NULL: they do
 * nothing -- the launch that compiles it) */
static int workers(sk_gsched *g, void *state, int64_t n, char *err, size_t errlen) {
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.label = "speck.task GPU workers";
  d.body = "if (state) sk__gt_worker((sk_gstate *)state);";
  d.prelude = g->source;
  d.pattern = SK_FOR;
  d.backend = g->b;
  d.library = 1;
  d.bounds = 0;
  sk_arg a = sk_arg_i64("state", (int64_t)(intptr_t)state);
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.begin = 0;
  p.end = n;
  return sk_run(&d, &p, &a, 1, NULL, err, errlen);
}

/* The functors' tables and device code. 'tab' holds the layout the host
 * compile of the same structs reported (x86-64 and NVPTX lay them out
 * alike: the same sizes and alignments). */
static int gs_compile(sk_gsched *g, const sk_tfunctor *fx, int nf,
                      const sk_task_table *tab, char *err, size_t errlen) {
  free(g->source);
  g->source = sk_task_codegen(fx, nf, g->b->target, err, errlen);
  if (!g->source) return -1;
  sk_gstate *st = &g->st;
  st->nf = nf;
  sk_varg vdef[SK_GT_NK];
  for (int f = 0; f < nf; f++) {
    int nfut = 0, nview = 0;
    st->tbytes[f] = (int)(SK_GT_HDR + tab->size[f]);
    st->fsize[f] = (int)tab->size[f];
    for (int k = 0; k < fx[f].nfields; k++) {
      if (fx[f].fields[k].kind == SK_TF_FUTURE)
        st->futoff[f][nfut++] = (short)tab->off[f][k];
      if (fx[f].fields[k].kind == SK_TF_VIEW) {
        vdef[nview] = fx[f].fields[k].view;
        st->viewoff[f][nview++] = (short)tab->off[f][k];
      }
    }
    st->nfut[f] = nfut;
    st->nview[f] = nview;
    if (up(g, g->vdef_at + (int64_t)(f * SK_GT_NK * sizeof(sk_varg)), vdef,
           (int64_t)(nview * sizeof(sk_varg)), err, errlen) < 0)
      return -1;
  }
  /* the tables part of the head (the device keeps the rest) */
  const int64_t t0 = (int64_t)offsetof(sk_gstate, nf);
  if (up(g, t0, (const char *)st + t0, (int64_t)sizeof *st - t0, err, errlen) < 0)
    return -1;
  /* compile now, so a body that does not compile fails at compile time:
   * one warp that does nothing */
  char msg[4096];
  if (workers(g, 0, 32, msg, sizeof msg) < 0) {
    sk_task_compile_message(fx, nf, msg, err, errlen);
    return -1;
  }
  return 0;
}

/* -- host spawns ------------------------------------------------------------- */
static struct sk_task *gs_spawn(sk_gsched *g, const sk_tfunctor *fx, int f,
                                const void *fields, int prio, int team, char *err,
                                size_t errlen) {
  const sk_gstate *st = &g->st;
  if (g->hlive == 0 && g->pending == 0 && g->nready[0] + g->nready[1] + g->nready[2] == 0)
    g->host_bump = g->dirty_hi = g->staged_lo = g->host_lo; /* no host record is named any more */
  int64_t bytes = ALIGN((int64_t)st->tbytes[f], 16);
  if (g->host_bump + bytes > g->host_hi) {
    sk_err(err, errlen, SK_E_SPAWNING_MEMORY_POOL, fx[f].label,
           (long long)((g->host_hi - g->host_lo) >> 10), (long long)g->hlive);
    return NULL;
  }
  int64_t off = g->host_bump;
  g->host_bump += bytes;
  if (g->host_bump > g->dirty_hi) g->dirty_hi = g->host_bump;
  unsigned char *rec = g->stage + (off - g->host_lo);
  sk_gtask t;
  memset(&t, 0, sizeof t);
  t.refs = 2;
  t.functor = (short)f;
  t.prio = (unsigned char)(prio < 0 || prio > 2 ? SK_PRIO_REGULAR : prio);
  t.team = (unsigned char)(team != 0);
  t.active = 1;
  t.host = 1;
  memcpy(rec, &t, sizeof t);
  memcpy(rec + SK_GT_HDR, fields, (size_t)st->fsize[f]);
  for (int k = 0, nv = 0; k < fx[f].nfields; k++) { /* view fields left empty */
    if (fx[f].fields[k].kind != SK_TF_VIEW) continue;
    sk_varg *v = (sk_varg *)(void *)(rec + SK_GT_HDR + st->viewoff[f][nv++]);
    if (!v->data) *v = fx[f].fields[k].view;
  }
  /* on a stack of its priority, round robin: the chain is linked here */
  unsigned idx = (unsigned)(off >> 4);
  int p = t.prio, q = (int)(g->nready[p]++ % SK_GT_NQ);
  ((sk_gtask *)(void *)rec)->qnext = 0;
  if (g->first[p][q] == 0) {
    g->first[p][q] = idx;
  } else {
    sk_gtask *prev =
      (sk_gtask *)(void *)(g->stage + ((int64_t)g->last[p][q] << 4) - g->host_lo);
    prev->qnext = idx;
  }
  g->last[p][q] = idx;
  g->host_spawned++;
  g->hlive++;
  return (struct sk_task *)(void *)(g->arena + off);
}

static void gs_retain(sk_gsched *g, struct sk_task *t) {
  (void)t;
  g->hlive++;
}
static void gs_release(sk_gsched *g, struct sk_task *t) {
  (void)t;
  if (g->hlive > 0) g->hlive--;
}

static int gs_result(sk_gsched *g, const struct sk_task *t, sk_gtask *out, char *err,
                     size_t errlen) {
  int64_t off = gs_off(g, t);
  if (off < g->host_lo || off >= g->host_hi) {
    sk_err(err, errlen, SK_E_NOT_TASK_SCHEDULER);
    return -1;
  }
  /* spawned since the last wait: the device has no copy of it yet */
  if (off >= g->staged_lo && off < g->host_bump) {
    memcpy(out, g->stage + (off - g->host_lo), sizeof *out);
    return 0;
  }
  return down(g, out, off, (int64_t)sizeof *out, err, errlen);
}

/* -- the wait ---------------------------------------------------------------- */
static const char *label(const sk_tfunctor *fx, int nf, int f) {
  return f >= 0 && f < nf ? fx[f].label : "when_all";
}

static void describe(sk_gsched *g, const sk_gstate *d, const sk_tfunctor *fx, int nf,
                     char *err, size_t errlen) {
  const char *cur = label(fx, nf, d->err_functor);
  long long cap = (long long)(g->pool_hi - g->pool_lo);
  long long used = (long long)(d->bump - (unsigned long long)g->pool_lo);
  if (used > cap) used = cap; /* lanes that found none still added theirs */
  switch (d->err) {
  case SK_GT_POOL_SPAWN:
  case SK_GT_POOL_WHEN_ALL:
  case SK_GT_POOL_ALLOC:
    sk_err(err, errlen, SK_E_GPU_MEMORY_POOL,
           d->err == SK_GT_POOL_SPAWN      ? "task_spawn"
           : d->err == SK_GT_POOL_WHEN_ALL ? "when_all"
                                           : "pool_alloc",
           cur, cap / 1048576.0, used / 1048576.0, (long long)d->err_arg,
           d->err == SK_GT_POOL_SPAWN ? " for '" : "",
           d->err == SK_GT_POOL_SPAWN ? label(fx, nf, d->err_other) : "",
           d->err == SK_GT_POOL_SPAWN ? "'" : "");
    break;
  case SK_GT_TOO_BIG:
    sk_err(err, errlen, SK_E_POOL_ALLOC_BYTES, cur, (long long)d->err_arg, SK_GT_SB);
    break;
  case SK_GT_PRIO_SPAWN:
  case SK_GT_PRIO_RESPAWN:
    sk_err(err, errlen, SK_E_PRIORITY_NOT_TASK,
           d->err == SK_GT_PRIO_SPAWN ? "task_spawn" : "task_respawn", cur,
           (long long)d->err_arg);
    break;
  case SK_GT_SELF: sk_err(err, errlen, SK_E_TASK_RESPAWN_TASK, cur); break;
  case SK_GT_NULL_GET: sk_err(err, errlen, SK_E_FUTURE_NULL, "future_get", cur); break;
  case SK_GT_UNREADY:
    sk_err(err, errlen, SK_E_TASK_NOT_COMPLETED, "future_get", cur,
           label(fx, nf, d->err_other));
    break;
  case SK_GT_FREE: sk_err(err, errlen, SK_E_POOL_FREE_POINTER, cur); break;
  default: sk_err(err, errlen, SK_E_GPU_TASK_WORKERS, d->err, cur);
  }
}

static int gs_wait(sk_gsched *g, const sk_tfunctor *fx, int nf, char *err,
                   size_t errlen) {
  int64_t queued = g->nready[0] + g->nready[1] + g->nready[2];
  if (queued == 0 && g->pending == 0) return 0;
  sk_gstate d;
  if (down(g, &d, 0, (int64_t)sizeof d, err, errlen) < 0) return -1;
  /* the device's head (pool, queues, the tables sent at compile) and the
   * host's new tasks */
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < SK_GT_NQ && q < g->nready[p]; q++) {
      /* the queues are empty after a wait: the chain is the stack */
      sk_gtask *last =
        (sk_gtask *)(void *)(g->stage + ((int64_t)g->last[p][q] << 4) - g->host_lo);
      last->qnext = (unsigned)d.ready[p][q];
      d.ready[p][q] = ((d.ready[p][q] >> 32) + 1) << 32 | g->first[p][q];
    }
  d.active = (int)queued;
  d.nhigh = (int)g->nready[0];
  d.nlow = (int)g->nready[2];
  d.abort = 0;
  d.err = 0;
  d.completed = d.spawned = d.respawns = d.steals = 0;
  int64_t in_use0 = d.in_use;
  d.in_use = 0;
  if (up(g, g->host_lo, g->stage, g->dirty_hi - g->host_lo, err, errlen) < 0 ||
      up(g, 0, &d, (int64_t)sizeof d, err, errlen) < 0)
    return -1;
  memset(g->nready, 0, sizeof g->nready);
  memset(g->first, 0, sizeof g->first);
  g->staged_lo = g->host_bump; /* uploaded: the device's copies are the records */
  int rc = workers(g, g->arena, g->lanes, err, errlen);
  if (rc == 0 && g->b->fence) rc = g->b->fence(err, errlen);
  if (rc == 0) rc = down(g, &d, 0, (int64_t)sizeof d, err, errlen);
  char e2[256];
  if (rc < 0) { /* the device's state is unknown: start over */
    gs_reset(g);
    up(g, 0, &g->st, (int64_t)sizeof g->st, e2, sizeof e2);
    return -1;
  }
  g->tasks += d.completed;
  g->respawns += d.respawns;
  g->steals += d.steals;
  g->spawned += d.spawned;
  d.in_use += in_use0;
  g->in_use = d.in_use;
  g->high = (int64_t)(d.bump - (unsigned long long)g->pool_lo);
  if (g->high > g->pool_hi - g->pool_lo) g->high = g->pool_hi - g->pool_lo;
  g->pending += queued + d.spawned - d.completed;
  /* the host's new tasks are counted by 'queued' only once they started:
   * 'pending' is the count of tasks not completed */
  if (d.abort) {
    describe(g, &d, fx, nf, err, errlen);
    rc = -1;
  } else if (g->pending > 0) {
    sk_err(err, errlen, SK_E_DEADLOCK_TASK_WAIT, (long long)g->pending,
           g->pending == 1 ? "" : "s", g->pending == 1 ? "s" : "");
    rc = -1;
  }
  if (rc < 0) { /* discard every task */
    gs_reset(g);
    up(g, 0, &g->st, (int64_t)sizeof g->st, e2, sizeof e2);
  }
  return rc;
}

static void gs_stats(const sk_gsched *g, sk_sched_stats *st) {
  st->tasks = g->tasks;
  st->respawns = g->respawns;
  st->steals = g->steals;
  st->spawned = g->spawned + g->host_spawned;
  st->pending = g->pending + g->nready[0] + g->nready[1] + g->nready[2];
  st->pool_in_use = g->in_use;
  st->pool_high_water = g->high;
}

/* -- a task.MemoryPool in GPU memory (ordinary kernels' pool_alloc(mp, n)):
 * the same pool as the scheduler's, alone in its arena --------------------- */
static void *gp_new(const sk_backend *b, int64_t bytes, char *err, size_t errlen) {
  if (!b->alloc || !b->copy) {
    sk_err(err, errlen, SK_E_BACK_END_CANNOT_HOLD_MEMORY, b->name);
    return NULL;
  }
  if (bytes <= 0) { /* the host pool's words for it */
    sk_mpool_free(sk_mpool_new(bytes, 0, err, errlen));
    return NULL;
  }
  if (bytes < SK_GT_SB) bytes = SK_GT_SB;
  int64_t pool = ALIGN(bytes, SK_GT_SB);
  if (pool / 16 > (int64_t)0xfffffff0 / 2) {
    sk_err(err, errlen, SK_E_POOL_BYTES_MORE, (long long)bytes);
    return NULL;
  }
  int64_t lo = ALIGN((int64_t)sizeof(sk_gstate), SK_GT_SB);
  int64_t total = lo + pool + pool / SK_GT_SB;
  char *a = b->alloc((size_t)total, b->space, err, errlen);
  if (!a) return NULL;
  sk_gstate *st = calloc(1, sizeof *st);
  if (!st) {
    b->free(a, b->space);
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  st->base = a; /* the head's self-check: base is the head's own address */
  st->pool_lo = (unsigned long long)lo;
  st->pool_hi = (unsigned long long)(lo + pool);
  st->bump = st->pool_lo;
  st->sbcls = (unsigned char *)a + lo + pool;
  int rc = b->copy(a, b->space, st, SK_SPACE_HOST, sizeof *st, err, errlen);
  free(st);
  if (rc < 0) {
    b->free(a, b->space);
    return NULL;
  }
  return a;
}

static void gp_free(const sk_backend *b, void *pool) {
  if (pool) b->free(pool, b->space);
}

static int gp_stats(const sk_backend *b, void *pool, sk_mpool_stats *out, char *err,
                    size_t errlen) {
  sk_gstate st;
  if (b->fence && b->fence(err, errlen) < 0) return -1;
  if (b->copy(&st, SK_SPACE_HOST, pool, b->space, sizeof st, err, errlen) < 0) return -1;
  memset(out, 0, sizeof *out);
  out->capacity = (int64_t)(st.pool_hi - st.pool_lo);
  out->superblock = SK_GT_SB;
  out->in_use = st.in_use;
  out->high_water = (int64_t)(st.bump - st.pool_lo);
  if (out->high_water > out->capacity) out->high_water = out->capacity;
  out->failures = st.failures;
  return 0;
}

/* -- the scheduler ops ------------------------------------------------------ */
static void *ops_create(const sk_backend *b, const sk_tfunctors *reg, int64_t memory,
                        int queue, char *err, size_t errlen) {
  (void)queue; /* one set of queues on the device */
  sk_gsched *g = gs_new(b, memory, err, errlen);
  if (g) g->reg = reg;
  return g;
}
static void ops_destroy(void *g) { gs_free(g); }
static int ops_lanes(void *g) { return gs_lanes(g); }
/* a team task is a warp's */
static int ops_team_size(void *g) {
  sk_team_limits lim;
  memset(&lim, 0, sizeof lim);
  ((sk_gsched *)g)->b->team_limits(&lim);
  return lim.warp;
}
static int ops_reaches(void *g, int space) {
  const sk_backend *b = ((sk_gsched *)g)->b;
  return b->reaches && b->reaches(space);
}
static int ops_compiled(void *p, char *err, size_t errlen) {
  sk_gsched *g = p;
  return gs_compile(g, g->reg->fx, g->reg->nf, &g->reg->tab, err, errlen);
}
static struct sk_task *ops_spawn(void *p, int f, const void *fields, int prio, int team,
                                 char *err, size_t errlen) {
  sk_gsched *g = p;
  return gs_spawn(g, g->reg->fx, f, fields, prio, team, err, errlen);
}
static void ops_retain(void *g, struct sk_task *t) { gs_retain(g, t); }
static void ops_release(void *g, struct sk_task *t) { gs_release(g, t); }
static int ops_result(void *p, const struct sk_task *t, uint64_t *result, int *f, char *err,
                      size_t errlen) {
  sk_gsched *g = p;
  sk_gtask r;
  if (gs_result(g, t, &r, err, errlen) < 0) return -1;
  *f = r.functor;
  if (r.waiters != (struct sk_gtask *)1) return 0;
  memcpy(result, &r.result, sizeof r.result);
  return 1;
}
static int ops_wait(void *p, char *err, size_t errlen) {
  sk_gsched *g = p;
  return gs_wait(g, g->reg->fx, g->reg->nf, err, errlen);
}
static void ops_stats(void *g, sk_sched_stats *st) { gs_stats(g, st); }

const sk_task_ops sk_cuda_tasks = {
  .compile_once = 1,
  .create = ops_create,
  .destroy = ops_destroy,
  .lanes = ops_lanes,
  .team_size = ops_team_size,
  .reaches = ops_reaches,
  .compiled = ops_compiled,
  .spawn = ops_spawn,
  .retain = ops_retain,
  .release = ops_release,
  .result = ops_result,
  .wait = ops_wait,
  .stats = ops_stats,
  .pool_new = gp_new,
  .pool_free = gp_free,
  .pool_stats = gp_stats,
};
