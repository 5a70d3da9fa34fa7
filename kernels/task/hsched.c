/* hsched.c: the task-DAG scheduler of seed 003 ch. 2-3 on the host back
 * ends' threads: the scheduler ops (sk_host_tasks) that sched.c's facade
 * runs on a back end without a 'tasks' table of its own.
 *
 * Tasks live in the scheduler's memory pool (mpool.c): a header, then the
 * functor's fields (or, for when_all, its dependences). A task holds one
 * reference for "not yet complete" and one per future naming it; the last
 * release returns its block (through the worker's magazine, so a task
 * costs no atomic in the pool on the fast path).
 *
 * Queues: "multiple" gives every worker a Chase-Lev deque per priority
 * (owner pushes and takes at the bottom, thieves steal at the top; no lock
 * anywhere on that path); "single" is one locked LIFO per priority shared
 * by all. Tasks spawned from the host wait in a locked FIFO inbox.
 *
 * Dependences: a waiting task sits on its dependence's 'waiters' list (a
 * lock-free LIFO); completing a task swaps the list for COMPLETE and makes
 * each waiter ready. when_all is an aggregate that waits on its
 * dependences one after another (seed 003 §3.2), completing after the last.
 *
 * Termination: workers join through one state word (registered, idle,
 * done, abort). A worker that finds no work counts itself idle; when every
 * registered worker is idle no deque can hold a task (only a non-idle
 * owner pushes to its deque), so the wait is over: finished when every
 * spawned task completed, else a deadlock (tasks wait on dependences that
 * will never complete).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "core/err.h"
#include "task.h"

typedef struct sk_hsched sk_hsched;

#define COMPLETE   ((sk_task *)1)
#define TEAM_SETUP ((sk_task *)2)
#define TEAM_MAX   64
void sk_team_barrier(sk_team_ctx *t); /* the dialect's (backends/host) */
typedef struct sk_tworker sk_tworker;
static int team_member(sk_tworker *w, struct sk_hsched *s);
#define MAG_CLASSES 13 /* blocks of 2^4 .. 2^16 bytes */
#define RESPAWN_ALL 8  /* task_respawn(when_all(...)) of at most this many
                          futures of the task's fields waits on them without
                          a when_all */
#define MAG_CAP     64

typedef struct sk_task {
  _Atomic int32_t refs;
  int16_t functor; /* -1: a when_all aggregate */
  uint8_t prio, team;
  int8_t cls;             /* its block's size class (log2) */
  uint8_t via;            /* 1: 'dep' is a when_all it walks itself;
                             2: it waits on its fields' futures 'wf' */
  _Atomic uint8_t active; /* when_all: started waiting on its deps */
  _Atomic uint8_t owns;   /* when_all: holds references to its deps
                                   (until then its maker's body or fields do) */
  int8_t ret;             /* the functor's result dtype (-1: none, when_all) */
  uint8_t nwait;          /* via 2: the entries of 'wf' still to wait on */
  _Atomic(struct sk_task *) waiters;
  struct sk_task *next; /* in a waiter list or a locked queue */
  struct sk_task *dep;  /* the dependence waited on (a reference) */
  union {
    struct {
      int32_t ndeps, idep; /* aggregate */
    };
    uint8_t wf[8]; /* via 2: the future fields waited on (their indices),
                      the last first */
  };
  uint64_t result;
  _Alignas(16) unsigned char fields[];
} sk_task;
_Static_assert(sizeof(sk_task) == 64, "the task header is 8 words (sk_hsched.thead)");

/* -- Chase-Lev deque (Le, Pop, Cohen, Zappa Nardelli 2013) -------------- */
typedef struct dq_array {
  int64_t cap;
  struct dq_array *retired; /* older arrays, freed with the scheduler */
  _Atomic(sk_task *) a[];
} dq_array;

typedef struct deque {
  _Alignas(64) _Atomic int64_t top;
  _Alignas(64) _Atomic int64_t bottom;
  _Atomic(dq_array *) arr;
} deque;

struct sk_tworker {
  deque dq[3];
  _Alignas(64) sk_hsched *s;
  int id;
  int64_t ran, completed, spawned, respawns, steals;
  sk_task *cur;
  sk_task *next; /* run next, bypassing the deque */
  int resp, resp_prio; /* resp 1: on resp_dep; 2: on all of rd */
  sk_task *resp_dep;
  sk_task *rd[RESPAWN_ALL];
  int nrd;
  sk_task **temps;
  int ntemps, captemps;
  void *mag[MAG_CLASSES][MAG_CAP];
  int nmag[MAG_CLASSES];
  sk_task_env env;
  sk_team_ctx team;
  sk_team_bar bar;
  _Alignas(64) unsigned char shared[64];
  uint64_t rng;
};

typedef struct lockq { /* locked queues: a LIFO or FIFO per priority */
  atomic_flag lock;
  sk_task *head[3], *tail[3];
  _Atomic int64_t count, high; /* tasks queued, of them high priority */
} lockq;

struct sk_hsched {
  const sk_backend *b;
  int nthreads, queue;
  sk_mpool *pool;
  int64_t memory;
  /* the functors (the facade's, sched.c), and what this scheduler keeps
   * of their compiled layout */
  const sk_tfunctors *reg;
  int futoff[SK_TASK_MAXFUNCTORS][SK_TASK_MAXFIELDS];
  int nfut[SK_TASK_MAXFUNCTORS], nview[SK_TASK_MAXFUNCTORS];
  int64_t tbytes[SK_TASK_MAXFUNCTORS];
  int tcls[SK_TASK_MAXFUNCTORS]; /* tbytes' size class */
  /* the fields struct in 8-byte words (-1: larger than 64 bytes or not
   * whole words) and a new task's header (task_new copies it) */
  int fwords[SK_TASK_MAXFUNCTORS];
  uint64_t thead[SK_TASK_MAXFUNCTORS][8];
  /* execution */
  sk_tworker *w;
  lockq inbox, global;
  _Alignas(64) _Atomic uint64_t state;
  _Alignas(64) _Atomic int nhigh;
  _Atomic int failed;
  char msg[768];
  int64_t host_spawned;
  int64_t tasks, respawns, steals, spawned_total;
  /* the team task being formed or run (TEAM_SETUP while a leader sets it
   * up); members join by 'team_joined', start on 'team_go' */
  _Alignas(64) _Atomic(sk_task *) team_task;
  _Atomic int team_joined, team_go, team_left, team_size;
  sk_team_bar team_bar;
  _Alignas(64) unsigned char team_shared[64 * 64];
  dq_array *retired;
};

/* state word: registered (bits 0-15), idle (16-31), done, abort */
#define ST_IDLE1  ((uint64_t)1 << 16)
#define ST_DONE   ((uint64_t)1 << 62)
#define ST_ABORT  ((uint64_t)1 << 63)
#define ST_REG(x) ((x)&0xffff)
#define ST_IDL(x) (((x) >> 16) & 0xffff)

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void lock(lockq *q) {
  while (atomic_flag_test_and_set_explicit(&q->lock, memory_order_acquire)) cpu_relax();
}
static void unlock(lockq *q) {
  atomic_flag_clear_explicit(&q->lock, memory_order_release);
}

/* -- errors --------------------------------------------------------------- */
/* The first error of a wait wins; every worker stops at its next task. */
static void fail_(sk_hsched *s, int id, ...);
#define fail(a0, id, ...) (SK_ERRCHK(id, ##__VA_ARGS__), fail_(a0, id, ##__VA_ARGS__))
static void fail_(sk_hsched *s, int id, ...) {
  int expect = 0;
  if (!atomic_compare_exchange_strong(&s->failed, &expect, 1)) return;
  va_list ap;
  va_start(ap, id);
  sk_verr(s->msg, sizeof s->msg, id, ap);
  va_end(ap);
  /* an interrupt is answered once, as a launch answers it */
  if (id == SK_E_INTERRUPTED) sk_interrupt_reported();
  atomic_fetch_or(&s->state, ST_ABORT);
}

static const char *label_of(const sk_hsched *s, const sk_task *t) {
  return t && t->functor >= 0 ? s->reg->fx[t->functor].label : "when_all";
}

/* -- deques ----------------------------------------------------------------- */
static int dq_init(deque *d, int64_t cap) {
  dq_array *a = calloc(1, sizeof *a + (size_t)cap * sizeof(sk_task *));
  if (!a) return -1;
  a->cap = cap;
  atomic_store(&d->top, 0);
  atomic_store(&d->bottom, 0);
  atomic_store(&d->arr, a);
  return 0;
}

static void dq_destroy(deque *d) {
  dq_array *a = atomic_load(&d->arr);
  while (a) {
    dq_array *n = a->retired;
    free(a);
    a = n;
  }
}

static int dq_nonempty(deque *d) {
  return atomic_load_explicit(&d->bottom, memory_order_relaxed) >
         atomic_load_explicit(&d->top, memory_order_relaxed);
}

/* owner: push at the bottom; -1 when the deque cannot grow */
__attribute__((noinline)) static int dq_push_grow(deque *d, sk_task *x);
static inline int dq_push(deque *d, sk_task *x) {
  int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
  int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
  dq_array *a = atomic_load_explicit(&d->arr, memory_order_relaxed);
  if (b - t > a->cap - 1) return dq_push_grow(d, x);
  atomic_store_explicit(&a->a[b & (a->cap - 1)], x, memory_order_relaxed);
  atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
  return 0;
}

/* dq_push when the array is full */
static int dq_push_grow(deque *d, sk_task *x) {
  int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
  int64_t t = atomic_load_explicit(&d->top, memory_order_acquire);
  dq_array *a = atomic_load_explicit(&d->arr, memory_order_relaxed);
  if (b - t > a->cap - 1) { /* grow: the old array stays readable */
    dq_array *n = malloc(sizeof *n + 2 * (size_t)a->cap * sizeof(sk_task *));
    if (!n) return -1;
    n->cap = 2 * a->cap;
    n->retired = a;
    for (int64_t k = t; k < b; k++)
      atomic_store_explicit(
        &n->a[k & (n->cap - 1)],
        atomic_load_explicit(&a->a[k & (a->cap - 1)], memory_order_relaxed),
        memory_order_relaxed);
    atomic_store_explicit(&d->arr, n, memory_order_release);
    a = n;
  }
  atomic_store_explicit(&a->a[b & (a->cap - 1)], x, memory_order_relaxed);
  atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
  return 0;
}

/* owner: take at the bottom */
static sk_task *dq_take(deque *d) {
  int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
  dq_array *a = atomic_load_explicit(&d->arr, memory_order_relaxed);
  atomic_store_explicit(&d->bottom, b, memory_order_seq_cst);
  int64_t t = atomic_load_explicit(&d->top, memory_order_seq_cst);
  sk_task *x = NULL;
  if (t <= b) {
    x = atomic_load_explicit(&a->a[b & (a->cap - 1)], memory_order_relaxed);
    if (t == b) {
      if (!atomic_compare_exchange_strong_explicit(
            &d->top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed))
        x = NULL;
      atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
    }
  } else {
    atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
  }
  return x;
}

/* thief: steal at the top (NULL: empty or lost a race) */
static sk_task *dq_steal(deque *d) {
  int64_t t = atomic_load_explicit(&d->top, memory_order_seq_cst);
  int64_t b = atomic_load_explicit(&d->bottom, memory_order_seq_cst);
  if (t >= b) return NULL;
  dq_array *a = atomic_load_explicit(&d->arr, memory_order_acquire);
  sk_task *x = atomic_load_explicit(&a->a[t & (a->cap - 1)], memory_order_relaxed);
  if (!atomic_compare_exchange_strong_explicit(&d->top, &t, t + 1, memory_order_seq_cst,
                                               memory_order_relaxed))
    return NULL;
  return x;
}

/* -- locked queues ------------------------------------------------------ */
__attribute__((noinline)) static void lq_push(lockq *q, sk_task *x, int fifo) {
  lock(q);
  int p = x->prio;
  x->next = NULL;
  if (fifo) {
    if (q->tail[p]) q->tail[p]->next = x;
    else q->head[p] = x;
    q->tail[p] = x;
  } else {
    x->next = q->head[p];
    q->head[p] = x;
  }
  atomic_fetch_add_explicit(&q->count, 1, memory_order_relaxed);
  if (p == SK_PRIO_HIGH) atomic_fetch_add_explicit(&q->high, 1, memory_order_relaxed);
  unlock(q);
}

static sk_task *lq_pop(lockq *q) {
  if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0) return NULL;
  sk_task *x = NULL;
  lock(q);
  for (int p = 0; p < 3 && !x; p++) {
    x = q->head[p];
    if (x) {
      q->head[p] = x->next;
      if (!q->head[p]) q->tail[p] = NULL;
      atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
      if (p == SK_PRIO_HIGH) atomic_fetch_sub_explicit(&q->high, 1, memory_order_relaxed);
    }
  }
  unlock(q);
  return x;
}

static void lq_clear(lockq *q) {
  lock(q);
  for (int p = 0; p < 3; p++) q->head[p] = q->tail[p] = NULL;
  atomic_store(&q->count, 0);
  atomic_store(&q->high, 0);
  unlock(q);
}

/* -- task memory ---------------------------------------------------------- */
static inline int class_of(int64_t bytes) {
  if (bytes <= 16) return 4;
  return 64 - __builtin_clzll((unsigned long long)(bytes - 1));
}

/* the pool's path of block_get: no cached block of class c */
__attribute__((noinline)) static void *block_slow(sk_tworker *w, sk_hsched *s, int64_t bytes) {
  void *p = sk_mpool_alloc(s->pool, bytes);
  if (!p && w) { /* hand this worker's cached blocks back, then retry */
    for (int k = 0; k < MAG_CLASSES; k++) {
      while (w->nmag[k] > 0) sk_mpool_release(s->pool, w->mag[k][--w->nmag[k]]);
    }
    p = sk_mpool_alloc(s->pool, bytes);
  }
  return p;
}

/* a block of 'bytes' (of size class cls): the worker's magazine first */
static inline void *block_get(sk_tworker *w, sk_hsched *s, int64_t bytes, int cls) {
  int c = cls - 4;
  if (c < 0) c = 0;
  if (w && c < MAG_CLASSES && w->nmag[c] > 0) return w->mag[c][--w->nmag[c]];
  return block_slow(w, s, bytes);
}

static void block_put(sk_tworker *w, sk_hsched *s, void *p, int cls) {
  if (w) {
    int c = cls - 4;
    if (c >= 0 && c < MAG_CLASSES) {
      if (w->nmag[c] == MAG_CAP) {
        for (int k = 0; k < MAG_CAP / 2; k++)
          sk_mpool_release(s->pool, w->mag[c][--w->nmag[c]]);
      }
      w->mag[c][w->nmag[c]++] = p;
      return;
    }
  }
  sk_mpool_release(s->pool, p);
}

static void mag_flush(sk_hsched *s, sk_tworker *w) {
  for (int k = 0; k < MAG_CLASSES; k++)
    while (w->nmag[k] > 0) sk_mpool_release(s->pool, w->mag[k][--w->nmag[k]]);
}

/* -- references -------------------------------------------------------- */
static inline void retain(sk_task *t) {
  atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

static void task_free(sk_tworker *w, sk_hsched *s, sk_task *t) {
  block_put(w, s, t, t->cls);
}

/* the last reference frees; holding the only one needs no atomic write */
static inline void release(sk_tworker *w, sk_hsched *s, sk_task *t) {
  if (atomic_load_explicit(&t->refs, memory_order_acquire) == 1 ||
      atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
    task_free(w, s, t);
}

/* -- ready tasks ---------------------------------------------------------- */
static inline void push_ready(sk_tworker *w, sk_hsched *s, sk_task *t) {
  if (t->prio == SK_PRIO_HIGH)
    atomic_fetch_add_explicit(&s->nhigh, 1, memory_order_relaxed);
  if (!w) {
    lq_push(&s->inbox, t, 1);
  } else if (s->queue == SK_QUEUE_SINGLE) {
    lq_push(&s->global, t, 0);
  } else if (dq_push(&w->dq[t->prio], t) < 0) {
    lq_push(&s->global, t, 0); /* no memory to grow: the shared queue */
  }
}

static void got(sk_hsched *s, sk_task *t) {
  if (t && t->prio == SK_PRIO_HIGH)
    atomic_fetch_sub_explicit(&s->nhigh, 1, memory_order_relaxed);
}

static sk_task *steal_prio(sk_tworker *w, sk_hsched *s, int p) {
  int n = s->nthreads;
  if (n < 2) return NULL;
  w->rng = w->rng * 6364136223846793005ULL + 1442695040888963407ULL;
  int v0 = (int)((w->rng >> 33) % (uint64_t)n);
  for (int k = 0; k < n; k++) {
    int v = v0 + k < n ? v0 + k : v0 + k - n;
    if (v == w->id) continue;
    deque *d = &s->w[v].dq[p];
    if (!dq_nonempty(d)) continue;
    sk_task *t = dq_steal(d);
    if (t) {
      w->steals++;
      return t;
    }
  }
  return NULL;
}

/* the next task for worker 'w': its own deques by priority, a high-priority
 * task from another worker when one is waiting, the shared queues, then
 * stealing by priority */
static sk_task *find_work(sk_tworker *w, sk_hsched *s) {
  sk_task *t = NULL;
  if (atomic_load_explicit(&s->team_task, memory_order_relaxed)) team_member(w, s);
  if (s->queue == SK_QUEUE_MULTIPLE) {
    if (dq_nonempty(&w->dq[0]) && (t = dq_take(&w->dq[0]))) goto out;
    if (atomic_load_explicit(&s->nhigh, memory_order_relaxed) > 0 &&
        (t = steal_prio(w, s, 0)))
      goto out;
    if (atomic_load_explicit(&s->inbox.high, memory_order_relaxed) > 0 &&
        (t = lq_pop(&s->inbox)))
      goto out;
    for (int p = 1; p < 3; p++)
      if (dq_nonempty(&w->dq[p]) && (t = dq_take(&w->dq[p]))) goto out;
  }
  if ((t = lq_pop(&s->global))) goto out;
  if ((t = lq_pop(&s->inbox))) goto out;
  if (s->queue == SK_QUEUE_MULTIPLE)
    for (int p = 0; p < 3; p++)
      if ((t = steal_prio(w, s, p))) goto out;
out:
  got(s, t);
  return t;
}

static int work_visible(sk_hsched *s) {
  sk_task *tt = atomic_load_explicit(&s->team_task, memory_order_relaxed);
  if (tt && tt != TEAM_SETUP && atomic_load(&s->team_joined) < atomic_load(&s->team_size))
    return 1;
  if (atomic_load_explicit(&s->inbox.count, memory_order_relaxed) > 0 ||
      atomic_load_explicit(&s->global.count, memory_order_relaxed) > 0)
    return 1;
  if (s->queue == SK_QUEUE_MULTIPLE)
    for (int v = 0; v < s->nthreads; v++)
      for (int p = 0; p < 3; p++)
        if (dq_nonempty(&s->w[v].dq[p])) return 1;
  return 0;
}

/* -- completion and dependences ----------------------------------------- */
/* Put 'x' on 'dep's waiters; 0 when 'dep' has completed already. */
static int enqueue_waiter(sk_task *dep, sk_task *x) {
  sk_task *head = atomic_load_explicit(&dep->waiters, memory_order_acquire);
  do {
    if (head == COMPLETE) return 0;
    x->next = head;
  } while (!atomic_compare_exchange_weak_explicit(
    &dep->waiters, &head, x, memory_order_acq_rel, memory_order_acquire));
  return 1;
}

static void finish(sk_tworker *w, sk_hsched *s, sk_task *t);

static sk_task **agg_deps(sk_task *a) { return (sk_task **)a->fields; }

/* an aggregate waits on its next incomplete dependence, or completes */
static void activate(sk_tworker *w, sk_hsched *s, sk_task *a);

static void advance(sk_tworker *w, sk_hsched *s, sk_task *a) {
  sk_task **d = agg_deps(a);
  while (a->idep < a->ndeps) {
    sk_task *x = d[a->idep];
    if (x && x->functor < 0) activate(w, s, x);
    if (x && enqueue_waiter(x, a)) return;
    a->idep++;
  }
  for (int k = 0; k < a->ndeps; k++) /* an active when_all owns its deps */
    if (d[k]) release(w, s, d[k]);
  finish(w, s, a);
}

/* A when_all made by a body starts waiting on its deps only when someone
 * waits on it or reads it (activate); one that only its maker's respawn
 * names is walked by that task itself (walk), with no completion of its
 * own. */
/* take references to a when_all's deps (once) */
static void own_deps(sk_task *a) {
  if (atomic_load_explicit(&a->owns, memory_order_acquire) ||
      atomic_exchange_explicit(&a->owns, 1, memory_order_acq_rel))
    return;
  sk_task **d = agg_deps(a);
  for (int k = 0; k < a->ndeps; k++)
    if (d[k]) retain(d[k]);
}

static void activate(sk_tworker *w, sk_hsched *s, sk_task *a) {
  if (!atomic_load_explicit(&a->active, memory_order_acquire) &&
      !atomic_exchange_explicit(&a->active, 1, memory_order_acq_rel)) {
    own_deps(a);
    advance(w, s, a);
  }
}

/* a ready task: run next on this worker, or queued */
static void ready(sk_tworker *w, sk_hsched *s, sk_task *x) {
  if (w && !w->next && x->prio == SK_PRIO_REGULAR) {
    w->next = x;
    return;
  }
  push_ready(w, s, x);
}

/* task 'x' waits on the deps of its own when_all x->dep in turn */
/* Is dependence y of task x private to this worker? It is the task this
 * worker runs next (not started, in no queue) and its only reference
 * besides its own is a field of x, which waits: no other thread can reach
 * its waiter list, so x goes on it with a plain store (the deque's
 * publication orders it if y is queued later). */
static int private_dep(sk_tworker *w, sk_hsched *s, sk_task *x, sk_task *y) {
  if (!w || y != w->next || atomic_load_explicit(&y->refs, memory_order_acquire) != 2)
    return 0;
  int f = x->functor;
  for (int k = 0; k < s->nfut[f]; k++)
    if (*(sk_task **)(x->fields + s->futoff[f][k]) == y) return 1;
  return 0;
}

static void walk(sk_tworker *w, sk_hsched *s, sk_task *x) {
  sk_task *a = x->dep, **d = agg_deps(a);
  while (a->idep < a->ndeps) {
    sk_task *y = d[a->idep];
    if (y && y->functor < 0) activate(w, s, y);
    if (y && y->functor >= 0 && private_dep(w, s, x, y)) {
      x->next = atomic_load_explicit(&y->waiters, memory_order_relaxed);
      atomic_store_explicit(&y->waiters, x, memory_order_relaxed);
      return;
    }
    if (y && enqueue_waiter(y, x)) return;
    a->idep++;
  }
  if (atomic_load_explicit(&a->owns, memory_order_relaxed))
    for (int k = 0; k < a->ndeps; k++)
      if (d[k]) release(w, s, d[k]);
  task_free(w, s, a);
  x->dep = NULL;
  x->via = 0;
  ready(w, s, x);
}

/* task 'x' waits on the futures of its fields x->wf[0 .. nwait), the
 * last first (the last spawned child is likely to complete last: the
 * first runs next on the spawning worker, the others wait in its deque) */
static inline __attribute__((always_inline)) void walk_fields(sk_tworker *w, sk_hsched *s,
                                                           sk_task *x) {
  const int *off = s->futoff[x->functor];
  while (x->nwait > 0) {
    sk_task *y = *(sk_task **)(x->fields + off[x->wf[x->nwait - 1]]);
    if (y->functor < 0) {
      activate(w, s, y);
    } else if (w && y == w->next && atomic_load_explicit(&y->refs, memory_order_acquire) == 2) {
      /* private to this worker (private_dep): x's field is its one holder */
      x->next = atomic_load_explicit(&y->waiters, memory_order_relaxed);
      atomic_store_explicit(&y->waiters, x, memory_order_relaxed);
      return;
    }
    if (enqueue_waiter(y, x)) return;
    x->nwait--;
  }
  x->via = 0;
  ready(w, s, x);
}

static void wake(sk_tworker *w, sk_hsched *s, sk_task *x) {
  if (x->via == 2) {
    x->nwait--;
    walk_fields(w, s, x);
    return;
  }
  if (x->functor < 0) {
    x->idep++;
    advance(w, s, x);
    return;
  }
  if (x->via) {
    x->dep->idep++;
    walk(w, s, x);
    return;
  }
  sk_task *dep = x->dep;
  x->dep = NULL;
  release(w, s, dep);
  ready(w, s, x);
}

/* mark complete, make the waiters ready, drop the "incomplete" reference */
static void finish(sk_tworker *w, sk_hsched *s, sk_task *t) {
  sk_task *head = atomic_exchange_explicit(&t->waiters, COMPLETE, memory_order_acq_rel);
  while (head) {
    sk_task *x = head;
    head = x->next;
    wake(w, s, x);
  }
  release(w, s, t);
}

static void wait_on(sk_tworker *w, sk_hsched *s, sk_task *x, sk_task *dep) {
  x->dep = dep;
  if (dep && dep->functor < 0) activate(w, s, dep);
  if (dep && enqueue_waiter(dep, x)) return;
  x->dep = NULL;
  if (dep) release(w, s, dep);
  push_ready(w, s, x);
}

/* -- tasks ------------------------------------------------------------------- */
__attribute__((noinline, cold)) static void spawn_failed(sk_hsched *s, int f) {
  char d[256];
  sk_mpool_describe(s->pool, s->tbytes[f], d, sizeof d);
  fail(s, SK_E_SPAWNING, s->reg->fx[f].label, d);
}

static inline sk_task *task_new(sk_tworker *w, sk_hsched *s, int f, const void *fields,
                                int prio, int team) {
  sk_task *t = block_get(w, s, s->tbytes[f], s->tcls[f]);
  if (!t) {
    spawn_failed(s, f);
    return NULL;
  }
  /* the header from the functor's template (two references, regular
   * priority, active, no waiters) */
  memcpy((void *)t, s->thead[f], sizeof(sk_task));
  if (prio != SK_PRIO_REGULAR || team) {
    t->prio = (uint8_t)(prio < 0 || prio > 2 ? SK_PRIO_REGULAR : prio);
    t->team = (uint8_t)(team != 0);
  }
  int nw = s->fwords[f];
  if (nw >= 0) { /* small fields: words, no memcpy call */
    uint64_t *d = (uint64_t *)(void *)t->fields;
    const unsigned char *src = fields;
    switch (nw) {
    case 8: memcpy(&d[7], src + 56, 8); /* fall through */
    case 7: memcpy(&d[6], src + 48, 8); /* fall through */
    case 6: memcpy(&d[5], src + 40, 8); /* fall through */
    case 5: memcpy(&d[4], src + 32, 8); /* fall through */
    case 4: memcpy(&d[3], src + 24, 8); /* fall through */
    case 3: memcpy(&d[2], src + 16, 8); /* fall through */
    case 2: memcpy(&d[1], src + 8, 8);  /* fall through */
    case 1: memcpy(&d[0], src, 8);      /* fall through */
    default: break;
    }
  } else {
    memcpy(t->fields, fields, (size_t)s->reg->tab.size[f]);
  }
  /* view fields left empty take the declared view */
  if (s->nview[f]) {
    const sk_tfunctor *fx = &s->reg->fx[f];
    for (int k = 0; k < fx->nfields; k++) {
      const sk_tfield *fd = &fx->fields[k];
      if (fd->kind != SK_TF_VIEW) continue;
      sk_varg *v = (sk_varg *)(t->fields + s->reg->tab.off[f][k]);
      if (!v->data) *v = fd->view;
    }
  }
  /* futures given to the task are its own references */
  const int nfut = s->nfut[f];
  for (int k = 0; k < nfut; k++) {
    sk_task *g = *(sk_task **)(t->fields + s->futoff[f][k]);
    if (g) retain(g);
  }
  return t;
}

static void temp_add(sk_tworker *w, sk_task *t) {
  if (w->ntemps == w->captemps) {
    int n = w->captemps ? 2 * w->captemps : 64;
    sk_task **a = realloc(w->temps, (size_t)n * sizeof *a);
    if (!a) {
      fail(w->s, SK_E_OUT_MEMORY_FUTURES, label_of(w->s, w->cur));
      return;
    }
    w->temps = a;
    w->captemps = n;
  }
  w->temps[w->ntemps++] = t;
}

/* take 't' out of the body's temporaries: 1 if it was one */
static int temp_take(sk_tworker *w, sk_task *t) {
  for (int k = w->ntemps - 1; k >= 0; k--)
    if (w->temps[k] == t) {
      w->temps[k] = w->temps[--w->ntemps];
      return 1;
    }
  return 0;
}

/* -- the API generated code calls (dialect/task.h) --------------------- */
static sk_task *api_spawn(sk_tworker *w, int f, const void *fields, int prio, int team) {
  sk_hsched *s = w->s;
  if (atomic_load_explicit(&s->failed, memory_order_relaxed)) return NULL;
  if (prio < 0 || prio > 3) {
    fail(s, SK_E_PRIORITY_NOT_TASK, "task_spawn", label_of(s, w->cur), (long long)prio);
    return NULL;
  }
  prio = prio ? prio - 1 : SK_PRIO_REGULAR; /* the dialect's codes; 0: none */
  sk_task *t = task_new(w, s, f, fields, prio, team);
  if (!t) return NULL;
  w->spawned++;
  if (!w->next && prio == SK_PRIO_REGULAR && w->cur && !w->cur->team)
    w->next = t; /* the first child runs next on this worker */
  else push_ready(w, s, t);
  temp_add(w, t);
  return t;
}

static sk_task *api_when_all(sk_tworker *w, sk_task *const *deps, int n) {
  sk_hsched *s = w->s;
  if (atomic_load_explicit(&s->failed, memory_order_relaxed)) return NULL;
  int64_t bytes = (int64_t)sizeof(sk_task) + (int64_t)n * (int64_t)sizeof(sk_task *);
  const int cls = class_of(bytes);
  sk_task *a = block_get(w, s, bytes, cls);
  if (!a) {
    char d[256];
    sk_mpool_describe(s->pool, bytes, d, sizeof d);
    fail(s, SK_E_WHEN_ALL, label_of(s, w->cur), d);
    return NULL;
  }
  atomic_store_explicit(&a->refs, 2, memory_order_relaxed);
  a->cls = (int8_t)cls;
  a->functor = -1;
  a->ret = -1;
  a->prio = SK_PRIO_REGULAR;
  a->team = 0;
  a->via = 0;
  atomic_store_explicit(&a->active, 0, memory_order_relaxed);
  atomic_store_explicit(&a->waiters, NULL, memory_order_relaxed);
  a->next = a->dep = NULL;
  a->ndeps = n;
  a->idep = 0;
  a->result = 0;
  atomic_store_explicit(&a->owns, 0, memory_order_relaxed);
  sk_task **d = agg_deps(a);
  for (int k = 0; k < n; k++) d[k] = deps[k]; /* borrowed: see own_deps */
  temp_add(w, a);
  return a; /* dormant until waited on or read (activate) */
}

static void api_respawn(sk_tworker *w, sk_task *dep, int prio) {
  sk_hsched *s = w->s;
  if (dep == w->cur) {
    fail(s, SK_E_TASK_RESPAWN_TASK, label_of(s, w->cur));
    return;
  }
  if (prio < 0 || prio > 3) {
    fail(s, SK_E_PRIORITY_NOT_TASK, "task_respawn", label_of(s, w->cur), (long long)prio);
    return;
  }
  w->resp = 1;
  w->resp_dep = dep;
  w->resp_prio = prio - 1; /* -1: keep the task's */
}

/* task_respawn(when_all(deps...) [, prio]) (dialect/task.h): the deps
 * are kept in the worker; after the body, when every one is in the
 * task's fields, the task waits on those (walk_fields), else on a
 * when_all made then (as if the body had made it) */
static void api_respawn_all(sk_tworker *w, sk_task *const *deps, int n, int prio) {
  if (n > RESPAWN_ALL) {
    api_respawn(w, api_when_all(w, deps, n), prio);
    return;
  }
  sk_hsched *s = w->s;
  if (prio < 0 || prio > 3) {
    fail(s, SK_E_PRIORITY_NOT_TASK, "task_respawn", label_of(s, w->cur), (long long)prio);
    return;
  }
  for (int k = 0; k < n; k++) w->rd[k] = deps[k];
  w->nrd = n;
  w->resp = 2;
  w->resp_dep = NULL;
  w->resp_prio = prio - 1; /* -1: keep the task's */
}

static const sk_task *ready_result(sk_tworker *w, sk_task *f, const char *what) {
  sk_hsched *s = w->s;
  if (!f) {
    fail(s, SK_E_FUTURE_NULL, what, label_of(s, w->cur));
    return NULL;
  }
  if (f->functor < 0) activate(w, s, f);
  if (atomic_load_explicit(&f->waiters, memory_order_acquire) != COMPLETE) {
    fail(s, SK_E_TASK_NOT_COMPLETED, what, label_of(s, w->cur), label_of(s, f));
    return NULL;
  }
  return f;
}

/* future_get's paths other than a completed task of the type asked */
__attribute__((noinline)) static sk_i64 get_i64_slow(sk_tworker *w, sk_task *f) {
  const sk_task *t = ready_result(w, f, "future_get");
  if (!t || t->functor < 0) return 0;
  int dt = w->s->reg->fx[t->functor].ret;
  if (dt < 0) return 0;
  sk_view v = {0};
  v.dtype = dt;
  v.data = (void *)&t->result;
  return sk_dtypes[dt].is_float ? (sk_i64)sk_view_get_f(&v, 0) : sk_view_get_i(&v, 0);
}

__attribute__((noinline)) static double get_f64_slow(sk_tworker *w, sk_task *f) {
  const sk_task *t = ready_result(w, f, "future_get");
  if (!t || t->functor < 0) return 0;
  int dt = w->s->reg->fx[t->functor].ret;
  if (dt < 0) return 0;
  sk_view v = {0};
  v.dtype = dt;
  v.data = (void *)&t->result;
  return sk_dtypes[dt].is_float ? sk_view_get_f(&v, 0) : (double)sk_view_get_i(&v, 0);
}

static sk_i64 api_get_i64(sk_tworker *w, sk_task *f) {
  if (f && f->ret == SK_I64 &&
      atomic_load_explicit(&f->waiters, memory_order_acquire) == COMPLETE)
    return (sk_i64)f->result;
  return get_i64_slow(w, f);
}

static double api_get_f64(sk_tworker *w, sk_task *f) {
  if (f && f->ret == SK_F64 &&
      atomic_load_explicit(&f->waiters, memory_order_acquire) == COMPLETE) {
    double x;
    memcpy(&x, &f->result, sizeof x);
    return x;
  }
  return get_f64_slow(w, f);
}

static void *api_alloc(sk_tworker *w, sk_i64 bytes) {
  sk_hsched *s = w->s;
  void *p = sk_mpool_alloc(s->pool, bytes);
  if (!p) {
    mag_flush(s, w);
    p = sk_mpool_alloc(s->pool, bytes);
  }
  if (!p) {
    char d[256];
    sk_mpool_describe(s->pool, bytes, d, sizeof d);
    fail(s, SK_E_POOL_ALLOC, label_of(s, w->cur), d);
  }
  return p;
}

static void api_free(sk_tworker *w, void *p) {
  sk_hsched *s = w->s;
  if (p && sk_mpool_release(s->pool, p) < 0)
    fail(s, SK_E_POOL_FREE_NOT, label_of(s, w->cur), p);
}

static const sk_task_api api = {api_spawn,   api_when_all, api_respawn,    api_get_i64,
                                api_get_f64, api_alloc,    api_free,       api_respawn_all};

/* -- team tasks -------------------------------------------------------------
 * A team task runs on every worker of the scheduler (at most TEAM_MAX): the worker
 * that took it (the leader, rank 0) publishes it in 'team_task'; the
 * others see it at their next look for work (or while idle), take a rank
 * and wait for 'team_go'. The leader starts the team once all joined, or
 * cancels it when the wait fails (then no one runs it). The members run
 * the body with a shared barrier and end with one; the leader then does
 * the task's bookkeeping alone. */
static void team_ctx(sk_tworker *w, sk_hsched *s, int rank) {
  w->team.team_rank = rank;
  w->team.team_size = atomic_load(&s->team_size);
  w->team.bar = &s->team_bar;
  w->team.shared = s->team_shared;
  w->team.bar_step = 0;
}

static void team_solo(sk_tworker *w) {
  w->team.team_rank = 0;
  w->team.team_size = 1;
  w->team.bar = &w->bar;
  w->team.shared = w->shared;
  w->team.bar_step = 0;
}

/* join the published team task, if there is room; 1 if it ran */
static int team_member(sk_tworker *w, sk_hsched *s) {
  sk_task *t = atomic_load_explicit(&s->team_task, memory_order_acquire);
  if (t == NULL || t == TEAM_SETUP) return 0;
  int j = atomic_load(&s->team_joined);
  do {
    if (j >= atomic_load(&s->team_size)) return 0;
  } while (!atomic_compare_exchange_weak(&s->team_joined, &j, j + 1));
  int go;
  while ((go = atomic_load_explicit(&s->team_go, memory_order_acquire)) == 0) cpu_relax();
  if (go > 0) {
    team_ctx(w, s, j);
    sk_task *cur = w->cur;
    w->cur = t;
    w->ntemps = 0;
    s->reg->tab.fn[t->functor](&w->env, t->fields, &t->result);
    sk_team_barrier(&w->team);
    for (int k = 0; k < w->ntemps; k++) release(w, s, w->temps[k]);
    w->ntemps = 0;
    w->cur = cur;
    team_solo(w);
  }
  atomic_fetch_add_explicit(&s->team_left, 1, memory_order_release);
  return 1;
}

/* the leader's half: 0 when the team ran the body, -1 when cancelled */
static int team_lead(sk_tworker *w, sk_hsched *s, sk_task *t) {
  sk_task *expect = NULL;
  while (!atomic_compare_exchange_weak(&s->team_task, &expect, TEAM_SETUP)) {
    if (expect != TEAM_SETUP && expect != NULL) team_member(w, s);
    if (atomic_load(&s->state) & ST_ABORT) return -1;
    cpu_relax();
    expect = NULL;
  }
  /* every thread of the launch registers (each runs one worker loop) */
  int n = s->nthreads;
  atomic_store(&s->team_size, n > TEAM_MAX ? TEAM_MAX : n);
  memset(&s->team_bar, 0, sizeof s->team_bar);
  atomic_store(&s->team_joined, 1);
  atomic_store(&s->team_go, 0);
  atomic_store(&s->team_left, 0);
  atomic_store_explicit(&s->team_task, t, memory_order_release);
  int ok = 1;
  while (atomic_load(&s->team_joined) < atomic_load(&s->team_size)) {
    if (atomic_load(&s->state) & ST_ABORT) {
      /* close the team: no one joins after this, those in are told */
      int j = atomic_load(&s->team_joined);
      if (atomic_compare_exchange_strong(&s->team_joined, &j, TEAM_MAX + 1)) {
        atomic_store(&s->team_size, j);
        ok = 0;
        break;
      }
    }
    cpu_relax();
  }
  int members = atomic_load(&s->team_size) - 1;
  atomic_store_explicit(&s->team_go, ok ? 1 : -1, memory_order_release);
  if (ok) {
    team_ctx(w, s, 0);
    s->reg->tab.fn[t->functor](&w->env, t->fields, &t->result);
    sk_team_barrier(&w->team);
    team_solo(w);
  }
  while (atomic_load_explicit(&s->team_left, memory_order_acquire) < members) cpu_relax();
  atomic_store_explicit(&s->team_task, NULL, memory_order_release);
  return ok ? 0 : -1;
}

/* -- running a task ----------------------------------------------------------- */
/* after a body that made futures or respawns: the fields' futures, the
 * body's temporaries and the respawn ('old': the fields' futures before
 * the body) */
__attribute__((noinline)) static void run_made(sk_tworker *w, sk_hsched *s, sk_task *t,
                                               sk_task *const *old) {
  const int f = t->functor;
  const int nfut = s->nfut[f];
  if (w->resp == 2) {
    /* respawn on all of rd: on the fields that hold them (the fields'
     * references keep them), else on a when_all made now */
    sk_task *cur[SK_TASK_MAXFIELDS];
    for (int k = 0; k < nfut; k++) cur[k] = *(sk_task **)(t->fields + s->futoff[f][k]);
    int nw = 0, held = 1;
    for (int q = 0; q < w->nrd && held; q++) {
      sk_task *d = w->rd[q];
      if (!d) continue;
      int k = 0;
      while (k < nfut && cur[k] != d) k++;
      held = k < nfut;
      t->wf[nw++] = (uint8_t)k;
    }
    if (held) {
      t->nwait = (uint8_t)nw;
      /* as below: the when_alls the body made own their deps, the
       * fields' futures are references, the body's other temporaries go */
      for (int k = 0; k < w->ntemps; k++)
        if (w->temps[k]->functor < 0) own_deps(w->temps[k]);
      int nrel = 0;
      sk_task *rel[SK_TASK_MAXFIELDS];
      for (int k = 0; k < nfut; k++) {
        sk_task *n = cur[k], *o = old[k];
        if (n == o) continue;
        if (n && !temp_take(w, n)) retain(n);
        if (o) rel[nrel++] = o;
      }
      for (int k = 0; k < w->ntemps; k++) release(w, s, w->temps[k]);
      w->ntemps = 0;
      for (int k = 0; k < nrel; k++) release(w, s, rel[k]);
      w->respawns++;
      if (w->resp_prio >= 0) t->prio = (uint8_t)w->resp_prio;
      t->via = 2;
      walk_fields(w, s, t);
      return;
    }
    sk_task *a = api_when_all(w, w->rd, w->nrd);
    if (!a) return; /* the wait failed */
    w->resp = 1;
    w->resp_dep = a;
  }
  /* the fields' futures: a new one is a reference (taken over from the
   * body's temporaries when it made it), a replaced one is dropped */
  int nrel = 0, walk_it = 0;
  sk_task *rel[SK_TASK_MAXFIELDS];
  if (w->resp && w->resp_dep && w->resp_dep->functor < 0) {
    /* a when_all only this respawn names (made by this body, dormant,
     * no field holds it): this task walks its deps itself */
    sk_task *a = w->resp_dep;
    walk_it = !atomic_load_explicit(&a->active, memory_order_relaxed) &&
              atomic_load_explicit(&a->refs, memory_order_relaxed) == 2;
    for (int k = 0; walk_it && k < nfut; k++)
      walk_it = *(sk_task **)(t->fields + s->futoff[f][k]) != a;
    if (walk_it) walk_it = temp_take(w, a);
    if (walk_it) { /* deps the task's fields hold stay borrowed */
      sk_task **d = agg_deps(a);
      int all_held = 1;
      for (int q = 0; q < a->ndeps && all_held; q++) {
        int held = !d[q];
        for (int k = 0; k < nfut && !held; k++)
          held = *(sk_task **)(t->fields + s->futoff[f][k]) == d[q];
        all_held = held;
      }
      if (!all_held) own_deps(a);
    }
  }
  /* every other when_all this body made takes references to its deps
   * before the body's own references go */
  for (int k = 0; k < w->ntemps; k++)
    if (w->temps[k]->functor < 0) own_deps(w->temps[k]);
  for (int k = 0; k < nfut; k++) {
    sk_task *n = *(sk_task **)(t->fields + s->futoff[f][k]), *o = old[k];
    if (n == o) continue;
    if (n && !temp_take(w, n)) retain(n);
    if (o) rel[nrel++] = o;
  }
  sk_task *dep = NULL;
  if (w->resp && !walk_it) {
    dep = w->resp_dep;
    if (dep && !temp_take(w, dep)) retain(dep);
  }
  for (int k = 0; k < w->ntemps; k++) release(w, s, w->temps[k]);
  w->ntemps = 0;
  for (int k = 0; k < nrel; k++) release(w, s, rel[k]);
  if (w->resp) {
    w->respawns++;
    if (w->resp_prio >= 0) t->prio = (uint8_t)w->resp_prio;
    if (walk_it) {
      t->dep = w->resp_dep;
      t->via = 1;
      walk(w, s, t);
    } else {
      wait_on(w, s, t, dep);
    }
    return;
  }
  for (int k = 0; k < nfut; k++) {
    sk_task **g = (sk_task **)(t->fields + s->futoff[f][k]);
    if (*g) release(w, s, *g);
    *g = NULL;
  }
  w->completed++;
  finish(w, s, t);
}

static void run(sk_tworker *w, sk_hsched *s, sk_task *t) {
  const int f = t->functor;
  const int nfut = s->nfut[f];
  const int *off = s->futoff[f];
  sk_task *old[SK_TASK_MAXFIELDS];
  for (int k = 0; k < nfut; k++) old[k] = *(sk_task **)(t->fields + off[k]);
  w->cur = t;
  w->resp = 0;
  w->ntemps = 0;
  if (__builtin_expect(t->team, 0) && s->nthreads > 1) {
    if (team_lead(w, s, t) < 0) return; /* cancelled: the wait failed */
  } else {
    s->reg->tab.fn[f](&w->env, t->fields, &t->result);
  }
  w->ran++;
  if (atomic_load_explicit(&s->failed, memory_order_relaxed)) return;
  if (__builtin_expect(w->resp || w->ntemps, 0)) {
    run_made(w, s, t, old);
    return;
  }
  /* it completes and made no future: of its fields' futures only the
   * ones it started with are its references (a field it set names a
   * future someone else holds: retaining and dropping it cancel) */
  for (int k = 0; k < nfut; k++) {
    *(sk_task **)(t->fields + off[k]) = NULL;
    if (old[k]) release(w, s, old[k]);
  }
  w->completed++;
  finish(w, s, t);
}

/* The worker loop: one call per thread of the launch (any index). */
static void worker_loop(sk_hsched *s) {
  uint64_t st = atomic_load(&s->state);
  do {
    if (st & (ST_DONE | ST_ABORT)) return;
    if ((int)ST_REG(st) >= s->nthreads) return;
  } while (!atomic_compare_exchange_weak(&s->state, &st, st + 1));
  sk_tworker *w = &s->w[ST_REG(st)];
  unsigned n = 0;
  for (;;) {
    sk_task *t = w->next;
    if (t) { /* unless higher-priority work or a team is waiting */
      w->next = NULL;
      if (atomic_load_explicit(&s->nhigh, memory_order_relaxed) > 0 ||
          atomic_load_explicit(&s->inbox.high, memory_order_relaxed) > 0 ||
          atomic_load_explicit(&s->team_task, memory_order_relaxed)) {
        push_ready(w, s, t);
        t = find_work(w, s);
      }
    } else {
      t = find_work(w, s);
    }
    if (t) {
      if ((++n & 255) == 0) {
        if (atomic_load_explicit(&s->state, memory_order_relaxed) & ST_ABORT) return;
        if (sk_interrupted()) {
          fail(s, SK_E_INTERRUPTED);
          return;
        }
      }
      run(w, s, t);
      continue;
    }
    atomic_fetch_add(&s->state, ST_IDLE1);
    for (unsigned spin = 0;; spin++) {
      st = atomic_load(&s->state);
      if (st & (ST_DONE | ST_ABORT)) return;
      if (work_visible(s)) {
        atomic_fetch_sub(&s->state, ST_IDLE1);
        break;
      }
      if (ST_IDL(st) == ST_REG(st)) {
        if (atomic_compare_exchange_strong(&s->state, &st, st | ST_DONE)) return;
        continue;
      }
      if (spin < 256) { /* look again soon, without hammering the owners' lines */
        for (int k = 0; k < 16; k++) cpu_relax();
      } else {
        if (sk_interrupted()) fail(s, SK_E_INTERRUPTED);
        if (spin < 1024) {
          sched_yield();
        } else {
          /* long idle (one task runs alone, e.g. a Cholesky's root fronts
           * with the BLAS on every thread): sleep, growing to 100 us, so
           * this thread leaves the core to the ones doing the work */
          unsigned us = spin - 1024 < 100 ? spin - 1024 + 1 : 100;
          struct timespec ts = {0, (long)us * 1000};
          nanosleep(&ts, NULL);
        }
      }
    }
  }
}

static void worker_chunk(const sk_slot *args, sk_i64 b, sk_i64 e, void *acc,
                         const sk_ctx *ctx) {
  (void)acc;
  (void)ctx;
  sk_hsched *s = (sk_hsched *)args[0].v.data;
  for (sk_i64 i = b; i < e; i++) worker_loop(s);
}

/* -- the scheduler ops (sk_host_tasks) ------------------------------------ */
static void hs_destroy(void *impl);

static void *hs_create(const sk_backend *b, const sk_tfunctors *reg, int64_t memory,
                       int queue, char *err, size_t errlen) {
  sk_hsched *s = calloc(1, sizeof *s);
  if (!s) {
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  s->b = b;
  s->reg = reg;
  s->queue = queue;
  s->memory = memory;
  s->nthreads = b->concurrency ? b->concurrency() : 1;
  if (s->nthreads < 1) s->nthreads = 1;
  if (!(s->pool = sk_mpool_new(memory, 0, err, errlen))) {
    free(s);
    return NULL;
  }
  if (posix_memalign((void **)&s->w, 128, (size_t)s->nthreads * sizeof *s->w) != 0) {
    s->w = NULL;
    hs_destroy(s);
    sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  memset(s->w, 0, (size_t)s->nthreads * sizeof *s->w);
  for (int k = 0; k < s->nthreads; k++) {
    sk_tworker *w = &s->w[k];
    w->s = s;
    w->id = k;
    w->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1);
    w->env.api = &api;
    w->env.w = w;
    w->env.team = &w->team;
    w->team.league_size = 1;
    w->team.vector_length = 1;
    team_solo(w);
    for (int p = 0; p < 3; p++)
      if (dq_init(&w->dq[p], 256) < 0) {
        hs_destroy(s);
        sk_err(err, errlen, SK_E_NOMEM);
        return NULL;
      }
  }
  atomic_flag_clear(&s->inbox.lock);
  atomic_flag_clear(&s->global.lock);
  return s;
}

static void hs_destroy(void *impl) {
  sk_hsched *s = impl;
  if (!s) return;
  if (s->w) {
    for (int k = 0; k < s->nthreads; k++) {
      for (int p = 0; p < 3; p++) dq_destroy(&s->w[k].dq[p]);
      free(s->w[k].temps);
      free(s->w[k].team.overflow);
    }
    free(s->w);
  }
  sk_mpool_free(s->pool);
  free(s);
}

static sk_mpool *hs_pool(void *impl) { return ((sk_hsched *)impl)->pool; }
static int hs_lanes(void *impl) { return ((sk_hsched *)impl)->nthreads; }
int sk_sched_task_functor(const sk_task *t) { return t->functor; }

static void hs_retain(void *impl, sk_task *t) {
  (void)impl;
  retain(t);
}

static void hs_release(void *impl, sk_task *t) { release(NULL, impl, t); }

static int hs_team_size(void *impl) {
  const sk_hsched *s = impl;
  return s->nthreads > TEAM_MAX ? TEAM_MAX : s->nthreads;
}

static int hs_reaches(void *impl, int space) {
  (void)impl;
  return sk_space_host_accessible(space);
}

static sk_task *hs_spawn(void *impl, int f, const void *fields, int prio, int team,
                         char *err, size_t errlen) {
  sk_hsched *s = impl;
  atomic_store(&s->failed, 0);
  sk_task *t = task_new(NULL, s, f, fields, prio, team);
  if (!t) {
    sk_err(err, errlen, SK_E_MSG, s->msg);
    atomic_store(&s->failed, 0);
    atomic_store(&s->state, 0);
    return NULL;
  }
  s->host_spawned++;
  push_ready(NULL, s, t);
  return t;
}

static int hs_result(void *impl, const sk_task *t, uint64_t *result, int *f, char *err,
                     size_t errlen) {
  (void)impl;
  (void)err;
  (void)errlen;
  *f = t->functor;
  if (atomic_load(&((sk_task *)t)->waiters) != COMPLETE) return 0;
  *result = t->result;
  return 1;
}

/* discard every task after a failed wait: the pool forgets its blocks */
static void discard(sk_hsched *s) {
  for (int k = 0; k < s->nthreads; k++) {
    sk_tworker *w = &s->w[k];
    for (int p = 0; p < 3; p++) {
      atomic_store(&w->dq[p].top, 0);
      atomic_store(&w->dq[p].bottom, 0);
    }
    memset(w->nmag, 0, sizeof w->nmag);
    w->ntemps = 0;
    w->next = NULL;
  }
  lq_clear(&s->inbox);
  lq_clear(&s->global);
  atomic_store(&s->nhigh, 0);
  sk_mpool_reset(s->pool);
}

/* The workers are the back end's threads, each in worker_loop until the
 * wait is over: one range launch of native code. It goes to the back end
 * through sk_policy_launch, the launch that sk_run ends in, and not
 * through sk_run itself: sk_run takes dialect source to key, compile and
 * cache, and the worker loop is the scheduler's own C (the functors it
 * runs are compiled through sk_run, sk_sched_compile). */
static int hs_wait(void *impl, char *err, size_t errlen) {
  sk_hsched *s = impl;
  atomic_store(&s->state, 0);
  atomic_store(&s->failed, 0);
  for (int k = 0; k < s->nthreads; k++) {
    sk_tworker *w = &s->w[k];
    w->ran = w->completed = w->spawned = w->respawns = w->steals = 0;
  }
  sk_policy p;
  sk_policy_init(&p, SK_POL_RANGE);
  p.begin = 0;
  p.end = s->nthreads;
  int rc = sk_policy_check(&p, SK_FOR, s->b, err, errlen);
  sk_slot arg;
  memset(&arg, 0, sizeof arg);
  arg.v.data = s;
  sk_launch l;
  memset(&l, 0, sizeof l);
  l.label = "speck.task wait";
  l.pattern = SK_FOR;
  l.policy = &p;
  l.fn = (void *)worker_chunk;
  l.args = &arg;
  l.nargs = 1;
  if (rc == 0) rc = sk_policy_launch(s->b, &l, err, errlen);
  int64_t spawned = s->host_spawned, completed = 0;
  for (int k = 0; k < s->nthreads; k++) {
    sk_tworker *w = &s->w[k];
    spawned += w->spawned;
    completed += w->completed;
    s->tasks += w->completed;
    s->respawns += w->respawns;
    s->steals += w->steals;
    mag_flush(s, w);
  }
  s->spawned_total += spawned;
  s->host_spawned = spawned - completed; /* still pending */
  if (rc == 0 && atomic_load(&s->failed)) {
    sk_err(err, errlen, SK_E_MSG, s->msg);
    rc = -1;
  }
  if (rc == 0 && s->host_spawned > 0) {
    sk_err(err, errlen, SK_E_DEADLOCK_TASK_WAIT, (long long)s->host_spawned,
           s->host_spawned == 1 ? "" : "s", s->host_spawned == 1 ? "s" : "");
    rc = -1;
  }
  if (rc < 0) {
    discard(s);
    s->host_spawned = 0;
  }
  atomic_store(&s->state, 0);
  atomic_store(&s->failed, 0);
  return rc;
}

static void hs_stats(void *impl, sk_sched_stats *st) {
  const sk_hsched *s = impl;
  sk_mpool_stats ps;
  sk_mpool_stats_get(s->pool, &ps);
  st->tasks = s->tasks;
  st->respawns = s->respawns;
  st->steals = s->steals;
  st->pool_high_water = ps.high_water;
  st->pool_in_use = ps.in_use;
  st->spawned = s->spawned_total;
  st->pending = s->host_spawned;
}

/* the functors' layout, after every compile: the futures' offsets, the
 * views' counts and the tasks' sizes */
static int hs_compiled(void *impl, char *err, size_t errlen) {
  sk_hsched *s = impl;
  (void)err;
  (void)errlen;
  for (int f = 0; f < s->reg->nf; f++) {
    const sk_tfunctor *fx = &s->reg->fx[f];
    int n = 0;
    for (int k = 0; k < fx->nfields; k++)
      if (fx->fields[k].kind == SK_TF_FUTURE)
        s->futoff[f][n++] = (int)s->reg->tab.off[f][k];
    s->nfut[f] = n;
    s->nview[f] = 0;
    for (int k = 0; k < fx->nfields; k++) s->nview[f] += fx->fields[k].kind == SK_TF_VIEW;
    s->tbytes[f] = (int64_t)sizeof(sk_task) + s->reg->tab.size[f];
    s->tcls[f] = class_of(s->tbytes[f]);
    int64_t fsz = s->reg->tab.size[f];
    s->fwords[f] = fsz <= 64 && !(fsz & 7) ? (int)(fsz / 8) : -1;
    sk_task h;
    memset((void *)&h, 0, sizeof h);
    atomic_store_explicit(&h.refs, 2, memory_order_relaxed);
    h.cls = (int8_t)s->tcls[f];
    h.functor = (int16_t)f;
    h.ret = (int8_t)fx->ret;
    h.prio = SK_PRIO_REGULAR;
    atomic_store_explicit(&h.active, 1, memory_order_relaxed);
    memcpy(s->thead[f], (const void *)&h, sizeof h);
  }
  return 0;
}

const sk_task_ops sk_host_tasks = {
  .create = hs_create,
  .destroy = hs_destroy,
  .lanes = hs_lanes,
  .team_size = hs_team_size,
  .reaches = hs_reaches,
  .compiled = hs_compiled,
  .spawn = hs_spawn,
  .retain = hs_retain,
  .release = hs_release,
  .result = hs_result,
  .wait = hs_wait,
  .stats = hs_stats,
  .pool = hs_pool,
};
