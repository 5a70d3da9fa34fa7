/* task_cuda.h: the task dialect on the CUDA back end -- the device half of
 * speck.task's GPU scheduler (seed 003 §3.3.2: persistent warps pulling
 * tasks from device queues). backends/cuda/tasks.c is the host half: it
 * allocates the arena, writes the tasks spawned from the host, launches
 * the generated worker kernel once per wait and reads the outcome.
 *
 * The first part (the arena's layout) is plain C, read by
 * backends/cuda/tasks.c; the rest is device code, included after abi.h and cuda.h by the source the
 * scheduler generates for its functors (kernels/task/functor.c).
 *
 * Workers: every lane of the launch is a worker. A warp's lanes each pop
 * a ready task (LIFO stacks, SK_GT_NQ per priority, a lane's own first,
 * the others after: a steal), run the single tasks they got side by side,
 * then run the team tasks they got one after another with the whole warp
 * as the team (team_rank = lane). Ready tasks and free pool blocks sit on
 * Treiber stacks whose heads carry a 32-bit tag against ABA (a block is
 * named by its 16-byte index in the arena). 'active' counts the tasks
 * queued or running: a ready task is counted before it is pushed and a
 * running one until it has pushed what it made ready, so 'active' == 0
 * means no task can ever run again -- the workers leave, and the host
 * reads a deadlock from the tasks still pending.
 *
 * The memory pool: superblocks of SK_GT_SB bytes taken from the arena by
 * one atomic add, each carved into blocks of one power-of-two class
 * (16 bytes .. the superblock) on that class's free stack; pool_alloc /
 * pool_free in a body and the tasks' own records use it.
 */
#ifndef SK_DIALECT_TASK_CUDA_H
#define SK_DIALECT_TASK_CUDA_H

#define SK_GT_NQ 256               /* ready stacks per priority */
#define SK_GT_SBLOG 16             /* superblocks of 64 KiB */
#define SK_GT_SB (1 << SK_GT_SBLOG)
#define SK_GT_NCLS (SK_GT_SBLOG - 3)   /* classes 2^4 .. 2^16 */
#define SK_GT_NF 64                /* = SK_TASK_MAXFUNCTORS */
#define SK_GT_NK 32                /* = SK_TASK_MAXFIELDS */
#define SK_GT_HDR 64               /* a task's header bytes */

/* what stopped the workers (backends/cuda/tasks.c words it) */
enum {
  SK_GT_OK, SK_GT_POOL_SPAWN, SK_GT_POOL_WHEN_ALL, SK_GT_POOL_ALLOC,
  SK_GT_PRIO_SPAWN, SK_GT_PRIO_RESPAWN, SK_GT_SELF, SK_GT_NULL_GET,
  SK_GT_UNREADY, SK_GT_FREE, SK_GT_TOO_BIG
};

/* A task: this header, then the functor's fields (or, for when_all, its
 * dependences). Refs: one while incomplete, one per future naming it. */
typedef struct sk_gtask {
  int refs;
  short functor;                 /* -1: a when_all aggregate */
  unsigned char prio, team;
  unsigned char active, owns, host, cls;   /* host: spawned by the host */
  int ndeps;
  int idep;
  unsigned qnext;                /* the next block on a stack */
  struct sk_gtask *waiters;      /* waiter list, (sk_gtask *)1: complete */
  struct sk_gtask *next;         /* in a waiter list */
  struct sk_gtask *dep;          /* the dependence waited on */
  struct sk_gtask *tnext;        /* its maker's temporaries */
  unsigned long long result;
} sk_gtask;

/* The arena's head (device memory; backends/cuda/tasks.c fills the tables). */
typedef struct sk_gstate {
  unsigned long long ready[3][SK_GT_NQ];   /* tag << 32 | block index */
  unsigned long long freel[SK_GT_NCLS][SK_GT_NQ];   /* free blocks per class, sharded */
  unsigned carve[SK_GT_NCLS][SK_GT_NQ];   /* 1: a lane carves a superblock into the shard */
  int nhigh, nlow;               /* ready tasks of high and low priority */
  char *base;                    /* block index i lies at base + 16 i */
  unsigned long long pool_lo;    /* the pool's first byte (from base) */
  unsigned long long pool_hi;    /* its end */
  unsigned long long bump;       /* superblocks handed out end here */
  unsigned char *sbcls;          /* class of each superblock (255: none) */
  int active;                    /* tasks queued or running */
  int abort;                     /* 1: an error stopped the workers */
  int err, err_functor, err_other;
  long long err_arg;
  long long completed, spawned, respawns, steals, in_use;
  long long failures;             /* a MemoryPool's, in ordinary kernels */
  int nf;
  int tbytes[SK_GT_NF];          /* header + fields */
  int fsize[SK_GT_NF];
  int nfut[SK_GT_NF], nview[SK_GT_NF];
  short futoff[SK_GT_NF][SK_GT_NK];
  short viewoff[SK_GT_NF][SK_GT_NK];
  sk_varg *vdef;                 /* [f * SK_GT_NK + k]: a view field's default */
} sk_gstate;

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)

#define SK__GT_DONE ((sk_gtask *)1)
/* the runtime's larger steps stay calls: the dependence walk recurses
 * (finish -> wake -> advance -> finish), which forced inlining cannot */
#define SK__GTN static __device__ __noinline__
#define SK__GT_FULL 0xffffffffu
typedef struct sk_gtask *future;

/* one worker lane's state; a body's environment points at it */
typedef struct sk__gt_lane {
  sk_gstate *g;
  sk_gtask *cur;                 /* the task whose body runs */
  sk_gtask *temps;               /* futures this body run made */
  sk_gtask *resp_dep;
  int resp, resp_prio, home, leader;
  unsigned rng;
  long long completed, spawned, respawns, steals, in_use;
} sk__gt_lane;

typedef struct sk_task_env {
  sk__gt_lane *w;
  sk__team_t *team;
} sk_task_env;

SK_DEV unsigned long long sk__gt_ld(const unsigned long long *p) {
  return *(const volatile unsigned long long *)p;
}
SK_DEV int sk__gt_ldi(const int *p) { return *(const volatile int *)p; }
SK_DEV sk_gtask *sk__gt_ldp(sk_gtask *const *p) {
  return (sk_gtask *)*(const volatile unsigned long long *)p;
}
SK_DEV void *sk__gt_at(sk_gstate *g, unsigned idx) { return g->base + 16 * (sk_u64)idx; }
SK_DEV unsigned sk__gt_idx(sk_gstate *g, const void *p) {
  return (unsigned)(((const char *)p - g->base) >> 4);
}

/* -- tagged Treiber stacks of blocks ---------------------------------- */
/* push the chain first..last (linked through their first word) */
SK_DEV void sk__gt_push_chain(sk_gstate *g, unsigned long long *head, unsigned first,
                              unsigned *last_link) {
  unsigned long long old = sk__gt_ld(head);
  for (;;) {
    *(volatile unsigned *)last_link = (unsigned)old;
    __threadfence();
    unsigned long long nw = ((old >> 32) + 1) << 32 | first;
    unsigned long long seen = atomicCAS(head, old, nw);
    if (seen == old) return;
    old = seen;
  }
}
SK_DEV unsigned sk__gt_pop_idx(sk_gstate *g, unsigned long long *head, int link_off) {
  unsigned long long old = sk__gt_ld(head);
  for (;;) {
    unsigned idx = (unsigned)old;
    if (!idx) return 0;
    unsigned nxt = *(volatile unsigned *)((char *)sk__gt_at(g, idx) + link_off);
    unsigned long long nw = ((old >> 32) + 1) << 32 | nxt;
    unsigned long long seen = atomicCAS(head, old, nw);
    if (seen == old) {
      __threadfence();
      return idx;
    }
    old = seen;
  }
}

/* -- errors --------------------------------------------------------------- */
SK__GTN void sk__gt_fail(sk__gt_lane *L, int code, int other, long long arg) {
  sk_gstate *g = L->g;
  if (atomicCAS(&g->abort, 0, 1) == 0) {
    g->err = code;
    g->err_functor = L->cur ? L->cur->functor : -1;
    g->err_other = other;
    g->err_arg = arg;
    __threadfence();
  }
}
SK_DEV int sk__gt_failed(sk__gt_lane *L) { return sk__gt_ldi(&L->g->abort); }

/* -- the pool ---------------------------------------------------------------- */
SK_DEV int sk__gt_class(long long bytes) {
  int c = 4;
  while (c <= SK_GT_SBLOG && (1ll << c) < bytes) c++;
  return c;
}

/* a block of class c (2^c bytes), 0 when the pool is exhausted. Free
 * blocks sit on SK_GT_NQ stacks per class (stack 'h', a lane group's
 * own, first: one head for all lanes would serialise every spawn); a
 * lane finding its stack empty carves a new superblock into it, one lane
 * per stack at a time. */
SK__GTN void *sk__gp_block(sk_gstate *g, int h, int c) {
  unsigned long long *fl = &g->freel[c - 4][h];
  for (;;) {
    unsigned idx = sk__gt_pop_idx(g, fl, 0);
    if (idx) return sk__gt_at(g, idx);
    if (atomicCAS(&g->carve[c - 4][h], 0u, 1u) != 0u) {   /* another lane carves */
      __nanosleep(100);
      continue;
    }
    idx = sk__gt_pop_idx(g, fl, 0);
    char *sb = 0;
    if (!idx) {
      unsigned long long off = atomicAdd(&g->bump, (unsigned long long)SK_GT_SB);
      if (off + SK_GT_SB <= g->pool_hi) {
        g->sbcls[(off - g->pool_lo) >> SK_GT_SBLOG] = (unsigned char)c;
        sb = g->base + off;
        int n = SK_GT_SB >> c;
        if (n > 1) {   /* keep the first block, the others on the free stack */
          for (int k = 1; k < n - 1; k++)
            *(unsigned *)(sb + ((sk_i64)k << c)) = sk__gt_idx(g, sb + ((sk_i64)(k + 1) << c));
          sk__gt_push_chain(g, fl, sk__gt_idx(g, sb + (1ll << c)),
                            (unsigned *)(sb + ((sk_i64)(n - 1) << c)));
        }
      }
    }
    __threadfence();
    atomicExch(&g->carve[c - 4][h], 0u);
    if (idx) return sk__gt_at(g, idx);
    if (sb) return sb;
    /* no superblock left: the other groups' free blocks */
    for (int k = 1; k < SK_GT_NQ; k++) {
      idx = sk__gt_pop_idx(g, &g->freel[c - 4][(h + k) & (SK_GT_NQ - 1)], 0);
      if (idx) return sk__gt_at(g, idx);
    }
    return 0;
  }
}

/* the class of live block 'p', -1 when 'p' is not one */
SK_DEV int sk__gp_class_of(sk_gstate *g, void *p) {
  unsigned long long off = (unsigned long long)((char *)p - g->base);
  unsigned long long top = sk__gt_ld(&g->bump);
  if ((char *)p < g->base || off < g->pool_lo || off >= top || off >= g->pool_hi) return -1;
  int c = g->sbcls[(off - g->pool_lo) >> SK_GT_SBLOG];
  if (c < 4 || c > SK_GT_SBLOG || ((off - g->pool_lo) & ((1ull << c) - 1))) return -1;
  return c;
}

SK_DEV void sk__gp_unblock(sk_gstate *g, int h, void *p, int c) {
  sk__gt_push_chain(g, &g->freel[c - 4][h], sk__gt_idx(g, p), (unsigned *)p);
}

SK_DEV void *sk__gt_block(sk__gt_lane *L, int c) {
  void *p = sk__gp_block(L->g, L->home, c);
  if (p) L->in_use += 1ll << c;
  return p;
}
SK_DEV void sk__gt_unblock(sk__gt_lane *L, void *p, int c) {
  L->in_use -= 1ll << c;
  sk__gp_unblock(L->g, L->home, p, c);
}

/* -- a task.MemoryPool on the GPU in an ordinary kernel: pool_alloc(mp,
 * bytes) / pool_free(mp, p), 'mp' a captured pool whose data is the
 * arena (its head points at itself, as on the host) -- */
SK_DEV sk_gstate *sk__gp_of(void *d) {
  sk_gstate *g = (sk_gstate *)d;
  return g && g->base == (char *)g ? g : (sk_gstate *)0;
}
SK_DEV int sk__gp_home(void) {
  const unsigned long long b = ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) *
                               gridDim.x + blockIdx.x;
  const unsigned long long t = ((unsigned long long)threadIdx.z * blockDim.y + threadIdx.y) *
                               blockDim.x + threadIdx.x;
  const unsigned long long id = b * blockDim.x * blockDim.y * blockDim.z + t;
  return (int)(((id >> 5) * 0x9e3779b1u) >> 7) & (SK_GT_NQ - 1);   /* a warp's */
}
SK__GTN void *sk__gp_alloc2(void *d, sk_i64 bytes) {
  sk_gstate *g = sk__gp_of(d);
  if (!g) return 0;
  int c = sk__gt_class(bytes < 1 ? 1 : bytes);
  void *p = c <= SK_GT_SBLOG ? sk__gp_block(g, sk__gp_home(), c) : 0;
  if (p) atomicAdd((unsigned long long *)&g->in_use, 1ull << c);
  else atomicAdd((unsigned long long *)&g->failures, 1ull);
  return p;
}
SK__GTN void sk__gp_free2(void *d, void *p) {
  sk_gstate *g = sk__gp_of(d);
  if (!g || !p) return;
  int c = sk__gp_class_of(g, p);
  if (c < 0) return;   /* not a block: nothing changes (as on the host) */
  atomicAdd((unsigned long long *)&g->in_use, (unsigned long long)-(1ll << c));
  sk__gp_unblock(g, sk__gp_home(), p, c);
}
#define SK__POOL_PICK(a, b, f, ...) f
#define pool_alloc(...) SK__POOL_PICK(__VA_ARGS__, SK__GP_ALLOC2, SK__GP_ALLOC1, 0)(__VA_ARGS__)
#define pool_free(...) SK__POOL_PICK(__VA_ARGS__, SK__GP_FREE2, SK__GP_FREE1, 0)(__VA_ARGS__)
#define SK__GP_ALLOC2(mp, bytes) sk__gp_alloc2((void *)(mp).data, (sk_i64)(bytes))
#define SK__GP_FREE2(mp, p) sk__gp_free2((void *)(mp).data, (void *)(p))
#define SK__GP_ALLOC1(bytes) sk__gt_alloc(sk__env->w, (sk_i64)(bytes))
#define SK__GP_FREE1(p) sk__gt_free(sk__env->w, (void *)(p))

/* pool_alloc / pool_free in a body */
SK__GTN void *sk__gt_alloc(sk__gt_lane *L, sk_i64 bytes) {
  if (sk__gt_failed(L)) return 0;
  int c = sk__gt_class(bytes < 1 ? 1 : bytes);
  if (c > SK_GT_SBLOG) {
    sk__gt_fail(L, SK_GT_TOO_BIG, -1, bytes);
    return 0;
  }
  void *p = sk__gt_block(L, c);
  if (!p) sk__gt_fail(L, SK_GT_POOL_ALLOC, -1, bytes);
  return p;
}
SK__GTN void sk__gt_free(sk__gt_lane *L, void *p) {
  if (!p) return;
  int c = sk__gp_class_of(L->g, p);
  if (c < 0) {
    sk__gt_fail(L, SK_GT_FREE, -1, 0);
    return;
  }
  sk__gt_unblock(L, p, c);
}

/* -- references ------------------------------------------------------------ */
SK_DEV void sk__gt_retain(sk_gtask *t) {
  if (!t->host) atomicAdd(&t->refs, 1);
}
SK_DEV void sk__gt_release(sk__gt_lane *L, sk_gtask *t) {
  if (t->host) return;   /* the host's records live until the host lets go */
  if (atomicSub(&t->refs, 1) == 1) sk__gt_unblock(L, t, t->cls);
}

/* -- ready tasks --------------------------------------------------------------- */
SK_DEV void sk__gt_push_ready(sk__gt_lane *L, sk_gtask *t) {
  sk_gstate *g = L->g;
  atomicAdd(&g->active, 1);
  if (t->prio != 1) atomicAdd(t->prio ? &g->nlow : &g->nhigh, 1);
  unsigned idx = sk__gt_idx(g, t);
  sk__gt_push_chain(g, &g->ready[t->prio][L->home], idx, &t->qnext);
}

/* the lane's own stacks by priority, then a few others (a steal): a
 * lane never scans them all -- thousands of lanes would flood the L2 --
 * and a task another lane's stack holds is found by its owner or by the
 * next probes ('active' keeps every worker until all ran) */
#define SK__GT_PROBES 3
SK_DEV sk_gtask *sk__gt_try(sk__gt_lane *L, int p, int q) {
  sk_gstate *g = L->g;
  unsigned long long *h = &g->ready[p][q];
  if (!(unsigned)sk__gt_ld(h)) return 0;
  unsigned idx = sk__gt_pop_idx(g, h, 20 /* offsetof(sk_gtask, qnext) */);
  return idx ? (sk_gtask *)sk__gt_at(g, idx) : 0;
}
SK_DEV sk_gtask *sk__gt_probe(sk__gt_lane *L, int p) {
  sk_gtask *t = sk__gt_try(L, p, L->home);
  for (int k = 0; !t && k < SK__GT_PROBES; k++) {
    L->rng = L->rng * 1664525u + 1013904223u;
    if ((t = sk__gt_try(L, p, (int)(L->rng >> 16) & (SK_GT_NQ - 1)))) L->steals++;
  }
  return t;
}
/* high priority first (every stack is looked at while one is ready),
 * then regular, then low */
SK_DEV sk_gtask *sk__gt_pop(sk__gt_lane *L) {
  sk_gstate *g = L->g;
  sk_gtask *t = 0;
  if (sk__gt_ldi(&g->nhigh) > 0) {
    for (int k = 0; k < SK_GT_NQ && !t; k++)
      t = sk__gt_try(L, 0, (L->home + k) & (SK_GT_NQ - 1));
    if (t) {
      atomicSub(&g->nhigh, 1);
      return t;
    }
  }
  if ((t = sk__gt_probe(L, 1))) return t;
  if (sk__gt_ldi(&g->nlow) > 0 && (t = sk__gt_probe(L, 2))) atomicSub(&g->nlow, 1);
  return t;
}

/* -- dependences -------------------------------------------------------------- */
SK_DEV sk_gtask **sk__gt_deps(sk_gtask *a) { return (sk_gtask **)((char *)a + SK_GT_HDR); }
SK_DEV char *sk__gt_fields(sk_gtask *t) { return (char *)t + SK_GT_HDR; }

/* put 'x' on 'dep's waiters; 0 when 'dep' has completed already */
SK_DEV int sk__gt_enqueue_waiter(sk_gtask *dep, sk_gtask *x) {
  unsigned long long *w = (unsigned long long *)&dep->waiters;
  unsigned long long old = sk__gt_ld(w);
  for (;;) {
    if (old == (unsigned long long)SK__GT_DONE) return 0;
    x->next = (sk_gtask *)old;
    __threadfence();
    unsigned long long seen = atomicCAS(w, old, (unsigned long long)x);
    if (seen == old) return 1;
    old = seen;
  }
}

SK__GTN void sk__gt_finish(sk__gt_lane *L, sk_gtask *t);
SK__GTN void sk__gt_activate(sk__gt_lane *L, sk_gtask *a);

SK__GTN void sk__gt_advance(sk__gt_lane *L, sk_gtask *a) {
  sk_gtask **d = sk__gt_deps(a);
  while (a->idep < a->ndeps) {
    sk_gtask *x = d[a->idep];
    if (x && x->functor < 0) sk__gt_activate(L, x);
    if (x && sk__gt_enqueue_waiter(x, a)) return;
    a->idep++;
  }
  for (int k = 0; k < a->ndeps; k++)   /* an active when_all owns its deps */
    if (d[k]) sk__gt_release(L, d[k]);
  sk__gt_finish(L, a);
}

SK__GTN void sk__gt_own_deps(sk_gtask *a) {
  /* 'active' and 'owns' are the first two bytes of one aligned word */
  if (atomicOr((unsigned *)&a->active, 0x100u) & 0x100u) return;
  sk_gtask **d = sk__gt_deps(a);
  for (int k = 0; k < a->ndeps; k++)
    if (d[k]) sk__gt_retain(d[k]);
}

SK__GTN void sk__gt_activate(sk__gt_lane *L, sk_gtask *a) {
  if (atomicOr((unsigned *)&a->active, 0x1u) & 0x1u) return;
  sk__gt_own_deps(a);
  sk__gt_advance(L, a);
}

SK__GTN void sk__gt_wake(sk__gt_lane *L, sk_gtask *x) {
  if (x->functor < 0) {
    x->idep++;
    sk__gt_advance(L, x);
    return;
  }
  sk_gtask *dep = x->dep;
  x->dep = 0;
  if (dep) sk__gt_release(L, dep);
  sk__gt_push_ready(L, x);
}

/* mark complete, make the waiters ready, drop the "incomplete" reference */
SK__GTN void sk__gt_finish(sk__gt_lane *L, sk_gtask *t) {
  __threadfence();
  sk_gtask *head = (sk_gtask *)atomicExch((unsigned long long *)&t->waiters,
                                          (unsigned long long)SK__GT_DONE);
  __threadfence();
  while (head) {
    sk_gtask *x = head;
    head = x->next;
    sk__gt_wake(L, x);
  }
  sk__gt_release(L, t);
}

SK__GTN void sk__gt_wait_on(sk__gt_lane *L, sk_gtask *x, sk_gtask *dep) {
  x->dep = dep;
  if (dep && dep->functor < 0) sk__gt_activate(L, dep);
  if (dep && sk__gt_enqueue_waiter(dep, x)) return;
  x->dep = 0;
  if (dep) sk__gt_release(L, dep);
  sk__gt_push_ready(L, x);
}

/* -- what a body calls ------------------------------------------------------------ */
SK_DEV void sk__gt_temp_add(sk__gt_lane *L, sk_gtask *t) {
  t->tnext = L->temps;
  L->temps = t;
}
/* take 't' off the body's temporaries: 1 if it was one */
SK_DEV int sk__gt_temp_take(sk__gt_lane *L, sk_gtask *t) {
  for (sk_gtask **p = &L->temps; *p; p = &(*p)->tnext)
    if (*p == t) {
      *p = t->tnext;
      return 1;
    }
  return 0;
}

SK__GTN future sk__gt_spawn(sk__gt_lane *L, int f, const void *fields, int prio, int team) {
  sk_gstate *g = L->g;
  if (sk__gt_failed(L)) return 0;
  if (prio < 0 || prio > 3) {
    sk__gt_fail(L, SK_GT_PRIO_SPAWN, -1, prio);
    return 0;
  }
  int bytes = g->tbytes[f];
  sk_gtask *t = (sk_gtask *)sk__gt_block(L, sk__gt_class(bytes));
  if (!t) {
    sk__gt_fail(L, SK_GT_POOL_SPAWN, f, bytes);
    return 0;
  }
  t->refs = 2;
  t->functor = (short)f;
  t->prio = (unsigned char)(prio ? prio - 1 : 1);
  t->team = (unsigned char)(team != 0);
  t->active = 1;
  t->owns = 0;
  t->host = 0;
  t->cls = (unsigned char)sk__gt_class(bytes);
  t->ndeps = t->idep = 0;
  t->waiters = t->next = t->dep = 0;
  t->result = 0;
  char *fd = sk__gt_fields(t);
  int fsz = g->fsize[f];
  if (!(fsz & 7))
    for (int q = 0; q < fsz; q += 8) *(unsigned long long *)(fd + q) = *(const unsigned long long *)((const char *)fields + q);
  else
    for (int q = 0; q < fsz; q++) fd[q] = ((const char *)fields)[q];
  for (int k = 0; k < g->nview[f]; k++) {   /* view fields left empty: the declared view */
    sk_varg *v = (sk_varg *)(fd + g->viewoff[f][k]);
    if (!v->data) *v = g->vdef[f * SK_GT_NK + k];
  }
  for (int k = 0; k < g->nfut[f]; k++) {   /* futures given to it are its own references */
    sk_gtask *d = *(sk_gtask **)(fd + g->futoff[f][k]);
    if (d) sk__gt_retain(d);
  }
  L->spawned++;
  sk__gt_temp_add(L, t);
  sk__gt_push_ready(L, t);
  return t;
}

SK__GTN future sk__gt_when_all(sk__gt_lane *L, future const *deps, int n) {
  if (sk__gt_failed(L)) return 0;
  long long bytes = SK_GT_HDR + 8ll * n;
  int c = sk__gt_class(bytes);
  sk_gtask *a = c <= SK_GT_SBLOG ? (sk_gtask *)sk__gt_block(L, c) : 0;
  if (!a) {
    sk__gt_fail(L, SK_GT_POOL_WHEN_ALL, -1, bytes);
    return 0;
  }
  a->refs = 2;
  a->functor = -1;
  a->prio = 1;
  a->team = 0;
  a->active = 0;
  a->owns = 0;
  a->host = 0;
  a->cls = (unsigned char)c;
  a->ndeps = n;
  a->idep = 0;
  a->waiters = a->next = a->dep = 0;
  a->result = 0;
  sk_gtask **d = sk__gt_deps(a);
  for (int k = 0; k < n; k++) d[k] = deps[k];   /* borrowed until the body ends */
  sk__gt_temp_add(L, a);
  return a;
}
template <class... F> SK_DEV future sk__gt_when_all_v(const sk_task_env *e, F... fs) {
  future d[] = {(future)fs...};
  return sk__gt_when_all(e->w, d, (int)sizeof...(fs));
}

SK_DEV void sk__gt_respawn(sk__gt_lane *L, future dep, int prio) {
  if (!L->leader) return;   /* a team's members: the leader's counts */
  if (dep == L->cur) {
    sk__gt_fail(L, SK_GT_SELF, -1, 0);
    return;
  }
  if (prio < 0 || prio > 3) {
    sk__gt_fail(L, SK_GT_PRIO_RESPAWN, -1, prio);
    return;
  }
  L->resp = 1;
  L->resp_dep = dep;
  L->resp_prio = prio - 1;
}

/* a completed task's result word, 0 after recording the error */
SK__GTN const sk_gtask *sk__gt_ready(sk__gt_lane *L, sk_gtask *f) {
  if (!f) {
    sk__gt_fail(L, SK_GT_NULL_GET, -1, 0);
    return 0;
  }
  if (f->functor < 0) sk__gt_activate(L, f);
  if (sk__gt_ldp(&f->waiters) != SK__GT_DONE) {
    sk__gt_fail(L, SK_GT_UNREADY, f->functor, 0);
    return 0;
  }
  __threadfence();
  return f;
}

/* -- the task words in a body (the generated code's spellings) -- */
#define task_spawn(F, ...) sk__spawn_##F(0, __VA_ARGS__)
#define task_spawn_team(F, ...) sk__spawn_##F(1, __VA_ARGS__)
#define SK__TFN static __device__ inline
#define SK__TBODY static __device__
#define SK__TASK_TEAM sk__team_t team = *sk__env->team
#define SK__T_SPAWN(e, f, fields, prio, team) sk__gt_spawn((e)->w, f, fields, prio, team)
#define SK__T_RESPAWN(e, dep, prio) sk__gt_respawn((e)->w, dep, prio)
#define SK__T_GET_I64(e, f) sk__gt_get_i64((e)->w, f)
#define SK__T_GET_F64(e, f) sk__gt_get_f64((e)->w, f)
#define when_all(...) sk__gt_when_all_v(sk__env, __VA_ARGS__)
#define future_is_null(f) ((f) == (future)0)
#define TASK_HIGH 1
#define TASK_REGULAR 2
#define TASK_LOW 3
typedef struct sk__respawn_args { future dep; int prio; } sk__respawn_args;
SK_DEV void sk__gt_respawn_a(sk__gt_lane *L, sk__respawn_args a) {
  sk__gt_respawn(L, a.dep, a.prio);
}
#define task_respawn(...) sk__gt_respawn_a(sk__env->w, sk__respawn_args{__VA_ARGS__})

#endif
#endif

/* -- the functors' worker kernel only (functor.c defines SK_TASK_GPU; a
 * kernel with pool_alloc(mp, n) has the part above alone, maybe before
 * the functors' source includes this text again) -- */
#if defined(SK_TASK_GPU) && !defined(SK_DIALECT_TASK_CUDA_GPU_H) && \
    (defined(__CUDACC_RTC__) || defined(__CUDACC__))
#define SK_DIALECT_TASK_CUDA_GPU_H
/* what the generated source defines: the bodies' dispatch and a completed
 * task's result in the two types future_get returns */
SK_DEV void sk__task_call(int f, const sk_task_env *e, void *self, void *res);
SK_DEV sk_i64 sk__gt_res_i64(const sk_gtask *t);
SK_DEV double sk__gt_res_f64(const sk_gtask *t);
SK_DEV sk_i64 sk__gt_get_i64(sk__gt_lane *L, future f) {
  const sk_gtask *t = sk__gt_ready(L, f);
  return t && t->functor >= 0 ? sk__gt_res_i64(t) : 0;
}
SK_DEV double sk__gt_get_f64(sk__gt_lane *L, future f) {
  const sk_gtask *t = sk__gt_ready(L, f);
  return t && t->functor >= 0 ? sk__gt_res_f64(t) : 0;
}

/* -- running a task (kernels/task/hsched.c's run(), on a lane) ------------- */
SK_DEV void sk__gt_body(sk__gt_lane *L, sk_gtask *t, sk__team_t *tm) {
  sk_task_env env;
  env.w = L;
  env.team = tm;
  L->cur = t;
  L->resp = 0;
  L->temps = 0;
  sk__task_call(t->functor, &env, sk__gt_fields(t), &t->result);
}

/* a team's member other than the leader: its own temporaries go */
SK__GTN void sk__gt_member_end(sk__gt_lane *L) {
  for (sk_gtask *x = L->temps, *n; x; x = n) {
    n = x->tnext;
    if (x->functor < 0) sk__gt_own_deps(x);
  }
  for (sk_gtask *x = L->temps, *n; x; x = n) {
    n = x->tnext;
    sk__gt_release(L, x);
  }
  L->temps = 0;
}

/* the bookkeeping after a body ran: 'old' holds the future fields before */
SK__GTN void sk__gt_after(sk__gt_lane *L, sk_gtask *t, sk_gtask *const *old) {
  sk_gstate *g = L->g;
  int f = t->functor, nfut = g->nfut[f];
  char *fd = sk__gt_fields(t);
  if (sk__gt_failed(L)) return;
  /* every when_all this body made takes references to its deps before
   * the body's own references go */
  for (sk_gtask *x = L->temps; x; x = x->tnext)
    if (x->functor < 0) sk__gt_own_deps(x);
  /* the fields' futures: a new one is a reference (taken over from the
   * body's temporaries when it made it), a replaced one is dropped */
  for (int k = 0; k < nfut; k++) {
    sk_gtask *n = *(sk_gtask **)(fd + g->futoff[f][k]), *o = old[k];
    if (n == o) continue;
    if (n && !sk__gt_temp_take(L, n)) sk__gt_retain(n);
    if (o) sk__gt_release(L, o);   /* never one of this run's temporaries */
  }
  sk_gtask *dep = 0;
  if (L->resp) {
    dep = L->resp_dep;
    if (dep && !sk__gt_temp_take(L, dep)) sk__gt_retain(dep);
  }
  for (sk_gtask *x = L->temps, *n; x; x = n) {
    n = x->tnext;
    sk__gt_release(L, x);
  }
  L->temps = 0;
  if (L->resp) {
    L->respawns++;
    if (L->resp_prio >= 0) t->prio = (unsigned char)L->resp_prio;
    sk__gt_wait_on(L, t, dep);
    return;
  }
  for (int k = 0; k < nfut; k++) {
    sk_gtask **gp = (sk_gtask **)(fd + g->futoff[f][k]);
    if (*gp) sk__gt_release(L, *gp);
    *gp = 0;
  }
  L->completed++;
  sk__gt_finish(L, t);
}

SK__GTN void sk__gt_run(sk__gt_lane *L, sk_gtask *t, sk__team_t *tm, int leader,
                       unsigned mask) {
  sk_gstate *g = L->g;
  sk_gtask *old[SK_GT_NK];
  int f = t->functor;
  if (leader)
    for (int k = 0; k < g->nfut[f]; k++)
      old[k] = *(sk_gtask **)(sk__gt_fields(t) + g->futoff[f][k]);
  if (mask != (1u << (threadIdx.x & 31))) __syncwarp(mask);
  L->leader = leader;
  sk__gt_body(L, t, tm);
  if (mask != (1u << (threadIdx.x & 31))) __syncwarp(mask);
  if (!leader) {
    sk__gt_member_end(L);
    return;
  }
  sk__gt_after(L, t, old);
  /* this run's own count: 'active' falls only after what it made ready */
  atomicSub(&g->active, 1);
}

/* -- the persistent worker: every lane of the launch calls it once ---------- */
SK_DEV void sk__gt_worker(sk_gstate *g) {
  __shared__ char sk__gt_shared[32][32 * 16];   /* per warp: a team's slots */
  const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  sk__gt_lane L;
  L.g = g;
  L.cur = L.temps = L.resp_dep = 0;
  L.resp = L.resp_prio = 0;
  L.leader = 1;
  L.completed = L.spawned = L.respawns = L.steals = L.in_use = 0;
  const unsigned long long gl = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  L.home = (int)((gl * 0x9e3779b1u) >> 7) & (SK_GT_NQ - 1);
  L.rng = (unsigned)(gl * 2654435761u) | 1u;
  sk__team_t solo = {}, team;
  solo.league_size = 1;
  solo.team_size = 1;
  solo.vector_length = 1;
  solo.mask = 1u << lane;
  solo.shared = &sk__gt_shared[wib][lane * 16];
  team = solo;
  team.team_rank = (int)lane;
  team.team_size = 32;
  team.mask = SK__GT_FULL;
  team.shared = &sk__gt_shared[wib][0];
  unsigned idle = 0;
  for (;;) {
    sk_gtask *t = sk__gt_pop(&L);
    const int is_team = t && t->team;
    const unsigned any = __ballot_sync(SK__GT_FULL, t != 0);
    unsigned teams = __ballot_sync(SK__GT_FULL, is_team);
    if (t && !is_team) sk__gt_run(&L, t, &solo, 1, solo.mask);
    __syncwarp();
    while (teams) {
      const int src = __ffs((int)teams) - 1;
      teams &= teams - 1;
      sk_gtask *tt = (sk_gtask *)__shfl_sync(SK__GT_FULL, (unsigned long long)t, src);
      sk__gt_run(&L, tt, &team, (int)lane == src, SK__GT_FULL);
    }
    int stop = 0;
    if (lane == 0)
      stop = sk__gt_ldi(&g->abort) || (!any && sk__gt_ldi(&g->active) == 0);
    if (__shfl_sync(SK__GT_FULL, stop, 0)) break;
    if (any) {
      idle = 0;
    } else if (++idle > 4) {
      __nanosleep(idle < 64 ? 32 * idle : 2048);
    }
  }
  atomicAdd((unsigned long long *)&g->completed, (unsigned long long)L.completed);
  atomicAdd((unsigned long long *)&g->spawned, (unsigned long long)L.spawned);
  atomicAdd((unsigned long long *)&g->respawns, (unsigned long long)L.respawns);
  atomicAdd((unsigned long long *)&g->steals, (unsigned long long)L.steals);
  atomicAdd((unsigned long long *)&g->in_use, (unsigned long long)L.in_use);
}

#endif /* SK_TASK_GPU */
