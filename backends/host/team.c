/* team.c: TeamPolicy on the host back ends.
 *
 * The pool's threads are cut into G = threads / team_size groups; group g
 * is one team at a time, its members are threads g*T .. g*T+T-1. League
 * ranks are split into blocks: G equal blocks (static, no chunk), or
 * blocks of 'chunk' ranks dealt round-robin (static) or claimed by the
 * team lead and broadcast through the team (dynamic). Every member of a
 * team runs the same blocks, so nested constructs and barriers line up.
 *
 * Each group's barrier words, shared buffer and scratch live in a
 * per-group arena that is reused from launch to launch (grown, never
 * shrunk): no malloc per team or per launch in the steady state.
 * A reduction keeps one partial per (block, member), joined in that
 * order: bitwise reproducible for a fixed thread count and team size.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "guard.h"
#include "host.h"
#include "pool.h"

/* the runtime's barrier: the dialect header's, compiled by gcc in
 * symbols.c */
void sk_team_barrier(sk_team_ctx *t);

#define SHARED_SLOT 64
#define MAXGROUPS   1024

static pthread_mutex_t team_lock = PTHREAD_MUTEX_INITIALIZER;
static char *arena[MAXGROUPS];
static size_t arena_cap[MAXGROUPS];
static sk_team_ctx *tctx;
static sk_ctx *ctxs;
static size_t nctx_cap;
static char *partials;
static size_t partials_cap;

static size_t up64(size_t x) { return (x + 63) & ~(size_t)63; }

void sk_host_team_limits(int pooled, sk_team_limits *lim) {
  int nt = pooled && sk_pool_size() > 0 ? sk_pool_size() : 1;
  lim->team_size_max = nt < 8 * SK_BAR_WORDS ? nt : 8 * SK_BAR_WORDS; /* barrier words */
  lim->team_size_recommended = 1;
  lim->vector_length_max = SK_HOST_VECTOR_MAX;
  lim->warp = 1;
  lim->processors = 0; /* (a league of one wave is a GPU's notion) */
  lim->scratch_max[0] = SK_HOST_SCRATCH0_MAX;
  lim->scratch_max[1] = SK_HOST_SCRATCH1_MAX;
}

typedef struct tjob {
  const sk_launch *l;
  sk_chunk_fn fn;
  int T, G;
  int64_t L, nblocks, per_block; /* per_block: chunk size, or 0 = equal split */
  int dynamic, reduce;
  atomic_llong next;
  size_t pstride;
  atomic_int stopped; /* 1 a team saw the interrupt, 2 a body faulted */
  atomic_int faulted; /* the first fault is recorded in 'fault' */
  atomic_int marked;  /* a member left early: the body word is marked */
  sk_fault fault;
} tjob;

/* the launch stops: interrupted, or abandoned after a fault */
static int tjob_stops(tjob *j) {
  return sk_interrupted() || atomic_load_explicit(&j->stopped, memory_order_relaxed);
}

static void tjob_interrupted(tjob *j) {
  int none = 0;
  atomic_compare_exchange_strong(&j->stopped, &none, 1);
}

static void block_range(const tjob *j, int64_t blk, int64_t *b, int64_t *e) {
  if (j->per_block > 0) {
    *b = blk * j->per_block;
    *e = *b + j->per_block < j->L ? *b + j->per_block : j->L;
  } else {
    *b = j->L * blk / j->nblocks;
    *e = j->L * (blk + 1) / j->nblocks;
  }
}

/* the team's word past the members' shared slots (dynamic claims, stop
 * decisions) */
static volatile int64_t *team_word(const tjob *j, int tid) {
  return (volatile int64_t *)((char *)tctx[tid].shared + (size_t)j->T * SHARED_SLOT);
}

/* Between two pieces: whether the team of thread 'tid' stops, and the
 * size of its next piece (*piece; the previous one began at *t0).
 * Members of a team must stop at the same boundary and cut the same
 * pieces, or those going on would wait for the others in a barrier for
 * ever: with more than one member the team lead reads the interrupt and
 * its clock, and the team agrees on both between two barriers (every
 * member calls this at the same boundaries). */
static int team_stop(tjob *j, int tid, int r, int64_t *piece, double *t0) {
  int stop;
  if (j->T == 1) {
    stop = tjob_stops(j);
    *piece = sk_host_next_piece(*piece, 1, t0);
  } else {
    volatile int64_t *w = team_word(j, tid);
    sk_team_barrier(&tctx[tid]);
    if (r == 0)
      __atomic_store_n(w, tjob_stops(j) ? -1 : sk_host_next_piece(*piece, 64, t0),
                       __ATOMIC_RELAXED);
    sk_team_barrier(&tctx[tid]);
    int64_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
    stop = v < 0;
    if (!stop) *piece = v;
  }
  if (stop) tjob_interrupted(j);
  return stop;
}

/* League ranks [b, e) of a block in pieces with an interrupt check
 * between them, growing until a piece takes about a millisecond: from
 * one rank for a team of one; from 64 ranks for larger teams (whose
 * check costs two barriers) in a static block, none in a dynamic one
 * (its claims check). Returns -1 when the team stopped. */
static int run_block(tjob *j, int64_t blk, int tid, int r) {
  int64_t b, e;
  block_range(j, blk, &b, &e);
  void *acc = NULL;
  if (j->reduce) {
    acc = partials + (size_t)(blk * j->T + r) * j->pstride;
    j->l->init(acc);
  }
  int64_t piece = j->T == 1 ? 1 : j->dynamic ? e - b : 64;
  double t0 = sk_host_now();
  for (int64_t s = b, t; s < e; s = t) {
    if (s > b && team_stop(j, tid, r, &piece, &t0)) return -1;
    t = e - s > piece ? s + piece : e;
    SK_BODY_CALL(j->fn(j->l->args, s, t, acc, &ctxs[tid]));
  }
  return 0;
}

static void member(void *arg, int tid, int nt) {
  (void)nt;
  tjob *j = arg;
  int g = tid / j->T, r = tid % j->T;
  if (g >= j->G) return;
  if (!j->dynamic) {
    for (int64_t blk = g; blk < j->nblocks; blk += j->G)
      if (run_block(j, blk, tid, r) < 0) return;
    return;
  }
  sk_team_ctx *t = &tctx[tid];
  volatile int64_t *claim = team_word(j, tid);
  for (;;) {
    int64_t blk;
    /* an interrupted lead claims past the end: the team agrees through
     * the claim's own barriers */
    if (j->T == 1) {
      blk = tjob_stops(j) ? j->nblocks : atomic_fetch_add(&j->next, 1);
    } else {
      sk_team_barrier(t);
      if (r == 0)
        __atomic_store_n(
          claim, tjob_stops(j) ? j->nblocks : (int64_t)atomic_fetch_add(&j->next, 1),
          __ATOMIC_RELAXED);
      sk_team_barrier(t);
      blk = __atomic_load_n(claim, __ATOMIC_RELAXED);
    }
    if (blk >= j->nblocks) {
      if (tjob_stops(j)) tjob_interrupted(j);
      break;
    }
    if (run_block(j, blk, tid, r) < 0) return;
  }
}

/* Each member inside its guard (guard.h): a fault, or a poll that saw
 * the launch abandoned (a member of the team faulted; a barrier polls),
 * brings it back here. */
static void member_guarded(void *arg, int tid, int nt) {
  tjob *j = arg;
  sk_guard g;
  SK_GUARDED(g, &j->stopped, member(j, tid, nt));
  if (g.why == SK_GUARD_NONE) return;
  /* the body word stays marked until the launch ends: the teammates
   * waiting in a barrier for this member leave through its poll, even
   * when another launch answers the interrupt meanwhile */
  int none = 0;
  if (atomic_compare_exchange_strong(&j->marked, &none, 1)) sk_body_fault_mark(1);
  if (g.why == SK_GUARD_FAULT) {
    none = 0;
    if (atomic_compare_exchange_strong(&j->faulted, &none, 1)) j->fault = g.fault;
    atomic_store(&j->stopped, 2);
  } else if (g.why == SK_GUARD_INTERRUPT) {
    tjob_interrupted(j);
  }
}

/* The arena of one group: barrier words, the shared buffer, team scratch
 * of levels 0 and 1, then each member's thread scratch of level 0 and of
 * level 1, every block on a 64-byte boundary. off[] receives the offsets
 * of the four scratch areas, *total the bytes to allocate. Returns -1 when
 * a size is negative or the sum wraps: sk_team_resolve caps the request,
 * but no request may turn into offsets outside the arena. */
static int arena_layout(const sk_policy *p, int T, size_t off[4], size_t *total) {
  size_t t[2], h[2], o;
  for (int lv = 0; lv < 2; lv++) {
    if (p->scratch_team[lv] < 0 || p->scratch_thread[lv] < 0) return -1;
    t[lv] = up64((size_t)p->scratch_team[lv]); /* < 2^63: no wrap */
    h[lv] = up64((size_t)p->scratch_thread[lv]);
  }
  o = up64(sizeof(sk_team_bar)) + up64((size_t)T * SHARED_SLOT + 64);
  for (int lv = 0; lv < 2; lv++) {
    off[lv] = o;
    if (__builtin_add_overflow(o, t[lv], &o)) return -1;
  }
  for (int lv = 0; lv < 2; lv++) {
    size_t all;
    off[2 + lv] = o;
    if (__builtin_mul_overflow((size_t)T, h[lv], &all) ||
        __builtin_add_overflow(o, all, &o))
      return -1;
  }
  return __builtin_add_overflow(o, (size_t)64, total) ? -1 : 0;
}

/* The message for the first failed scratch request of a launch. */
static void scratch_message(const sk_team_ctx *t, const sk_policy *p, char *err,
                            size_t errlen) {
  const char *fn = t->scratch_thread ? "thread_scratch" : "team_scratch";
  if (t->scratch_why == SK_SCRATCH_LEVEL)
    sk_err(err, errlen, SK_E_SCRATCH_LEVEL_DOES, fn, (long long)t->scratch_level);
  else if (t->scratch_why == SK_SCRATCH_NEGATIVE)
    sk_err(err, errlen, SK_E_SCRATCH_REQUEST_BYTES_NEGATIVE, fn,
           (long long)t->scratch_bytes);
  else
    sk_err(err, errlen, SK_E_SCRATCH_REQUEST_BYTES, (long long)t->scratch_bytes,
           (long long)p->scratch_team[0], (long long)p->scratch_team[1],
           (long long)p->scratch_thread[0], (long long)p->scratch_thread[1]);
}

static int grow(void **p, size_t *cap, size_t want) {
  if (want <= *cap) return 0;
  void *n = realloc(*p, want);
  if (!n) return -1;
  *p = n;
  *cap = want;
  return 0;
}

static int launch_locked(const sk_launch *l, int pooled, char *err, size_t errlen) {
  const sk_policy *p = l->policy;
  /* exec/ checked the policy against team_limits and resolved "auto" */
  int T = p->team_size, V = p->vector_length;
  int nt = pooled && sk_pool_size() > 0 ? sk_pool_size() : 1;
  tjob j;
  memset(&j, 0, sizeof j);
  j.l = l;
  j.fn = (sk_chunk_fn)l->fn;
  j.T = T;
  j.G = nt / T;
  if (j.G > MAXGROUPS) j.G = MAXGROUPS;
  j.L = p->league_size;
  j.reduce = l->pattern == SK_REDUCE;
  j.dynamic = p->schedule == SK_DYNAMIC;
  int64_t chunk = p->chunk;
  if (j.dynamic && chunk <= 0) chunk = j.L / (16 * j.G) > 0 ? j.L / (16 * j.G) : 1;
  if (chunk > 0) {
    j.per_block = chunk;
    j.nblocks = (j.L + chunk - 1) / chunk;
    if (j.reduce && j.nblocks > 64 * (int64_t)j.G) {
      j.per_block = 0; /* equal split into at most 64 G blocks */
      j.nblocks = 64 * (int64_t)j.G;
    }
  } else {
    j.nblocks = j.G;
  }
  if (j.L == 0) j.nblocks = 0;
  /* per-thread contexts and per-group arenas */
  if (grow((void **)&tctx, &nctx_cap, (size_t)nt * sizeof *tctx) < 0) goto oom;
  size_t cap2 = nctx_cap / sizeof *tctx * sizeof *ctxs;
  static size_t ctxs_cap;
  if (grow((void **)&ctxs, &ctxs_cap,
           cap2 > (size_t)nt * sizeof *ctxs ? cap2 : (size_t)nt * sizeof *ctxs) < 0)
    goto oom;
  size_t o_bar = 0, o_sh = up64(sizeof(sk_team_bar)), o_scr[4], total;
  if (arena_layout(p, T, o_scr, &total) < 0) {
    sk_err(err, errlen, SK_E_TEAM_SCRATCH_BYTES, (long long)p->scratch_team[0],
           (long long)p->scratch_team[1], T, (long long)p->scratch_thread[0],
           (long long)p->scratch_thread[1]);
    return -1;
  }
  for (int g = 0; g < j.G; g++) {
    if (grow((void **)&arena[g], &arena_cap[g], total) < 0) goto oom;
    memset(arena[g] + o_bar, 0, sizeof(sk_team_bar));
  }
  for (int tid = 0; tid < nt; tid++) {
    int g = tid / T, r = tid % T;
    sk_team_ctx *t = &tctx[tid];
    memset(t, 0, sizeof *t);
    memset(&ctxs[tid], 0, sizeof ctxs[tid]);
    ctxs[tid].team = t;
    ctxs[tid].thread = tid;
    ctxs[tid].oob = l->oob;
    ctxs[tid].stop = sk_body_flag();
    ctxs[tid].poll = sk_guard_poll;
    t->stop = sk_body_flag();
    t->poll = sk_guard_poll;
    if (g >= j.G) continue;
    char *a = (char *)(((size_t)arena[g] + 63) & ~(size_t)63);
    t->league_size = j.L;
    t->team_size = T;
    t->vector_length = V;
    t->team_rank = r;
    t->bar = (sk_team_bar *)(a + o_bar);
    t->shared = a + o_sh;
    t->team_scratch[0] = a + o_scr[0];
    t->team_scratch[1] = a + o_scr[1];
    t->thread_scratch[0] = a + o_scr[2] + (size_t)r * up64((size_t)p->scratch_thread[0]);
    t->thread_scratch[1] = a + o_scr[3] + (size_t)r * up64((size_t)p->scratch_thread[1]);
    t->team_scratch_bytes[0] = p->scratch_team[0];
    t->team_scratch_bytes[1] = p->scratch_team[1];
    t->thread_scratch_bytes[0] = p->scratch_thread[0];
    t->thread_scratch_bytes[1] = p->scratch_thread[1];
  }
  if (j.reduce) {
    j.pstride = up64(l->acc_size);
    size_t want = (size_t)(j.nblocks * T + 1) * j.pstride;
    if (grow((void **)&partials, &partials_cap, want) < 0) goto oom;
  }
  if (j.nblocks > 0) {
    if (nt > 1) sk_pool_run(member_guarded, &j);
    else member_guarded(&j, 0, 1);
  }
  const sk_team_ctx *bad = NULL;
  for (int tid = 0; tid < nt; tid++) {
    if (tctx[tid].scratch_why && !bad) bad = &tctx[tid];
    free(tctx[tid].overflow);
    tctx[tid].overflow = NULL;
  }
  if (atomic_load(&j.marked)) sk_body_fault_mark(-1);
  if (atomic_load(&j.faulted)) {
    sk_guard_message(&j.fault, err, errlen);
    return -1;
  }
  if (atomic_load(&j.stopped)) {
    sk_interrupt_reported();
    sk_err(err, errlen, SK_E_INTERRUPTED);
    return -1;
  }
  if (bad) {
    scratch_message(bad, p, err, errlen);
    return -1;
  }
  if (j.reduce) {
    char *total_acc = partials + (size_t)(j.nblocks * T) * j.pstride;
    l->init(total_acc);
    for (int64_t i = 0; i < j.nblocks * T; i++)
      l->join(total_acc, partials + (size_t)i * j.pstride);
    memcpy(l->result, total_acc, l->acc_size);
  }
  return 0;
oom:
  sk_err(err, errlen, SK_E_OUT_MEMORY_TEAM);
  return -1;
}

int sk_host_launch_team(const sk_launch *l, int pooled, char *err, size_t errlen) {
  pthread_mutex_lock(&team_lock);
  int rc = launch_locked(l, pooled, err, errlen);
  pthread_mutex_unlock(&team_lock);
  return rc;
}
