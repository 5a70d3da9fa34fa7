/* host.c: the serial and openmp back ends (host memory, host threads).
 *
 * Both run compiled chunk functions (abi.h) over work items: range
 * indices, MDRange tiles or league ranks. 'serial' runs everything on the
 * calling thread; 'openmp' splits work over the persistent pool (pool.c;
 * pthreads underneath, named after the Kokkos back end it stands for).
 *
 * Interrupts: every launch runs in pieces (growing from 1024 indices or
 * one MDRange tile until a piece takes about a millisecond) and checks
 * sk_interrupted() between them, so Ctrl-C ends a long kernel within
 * milliseconds with the error SK_INTERRUPTED; a loop in a user's body
 * polls the same flag on its back edges (codegen.c), so one iteration
 * that never ends is stopped too.
 *
 * Faults: every thread runs its share inside a guard (guard.c); a fault
 * in a body, or a poll that sees the launch abandoned, brings the thread
 * back to it, the other threads leave at their next piece boundary or
 * poll, and the launch fails with the fault's message.
 *
 * Determinism: a reduction is computed as per-block partials, where the
 * blocks depend only on (work items, chunk, thread count), joined by the
 * caller in block order. So the result is bitwise identical from run to
 * run for a fixed thread count, whichever thread ran which block.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "core/backend.h"
#include "core/err.h"
#include "bcache.h"
#include "guard.h"
#include "host.h"
#include "pool.h"

/* -- memory -------------------------------------------------------------- */
/* Large blocks are offered transparent huge pages (where the kernel's
 * policy is 'madvise'): a view of a gigabyte then takes 512 times fewer
 * page faults on first touch and TLB misses on irregular access (a sparse
 * matrix-vector product's gathers). Only whole pages inside the block are
 * advised; a refusal changes nothing. From 4 MiB (as the task scheduler's
 * block cache): a million int32 or float32 gathered at random (a graph's
 * labels, float32 PageRank) is such a block; at most a partial huge page
 * (under half the block) is touched beyond the data. */
#define HUGE_ADVISE_MIN ((size_t)4 << 20)

/* Small-page scopes (sk_host_small_pages, core/runtime.h): while one is
 * open on a thread, the blocks it allocates get no huge-page advice. For
 * a setup whose products are written once and read a few times (an AMG
 * hierarchy): on a VM the first touch of a huge page can cost more than
 * all the TLB misses it saves (AMG-PCG 128^3: the setup 42-44 % faster on
 * 4 KiB pages, the solve no slower; docs/bench-solvers.md). A block the
 * cache (bcache.c) hands back keeps the pages it has: it is touched
 * already, which is what costs. */
static _Thread_local int small_pages;

int sk_host_small_pages(int delta) {
  small_pages += delta;
  if (small_pages < 0) small_pages = 0;
  return small_pages;
}

static void advise_huge(void *p, size_t bytes) {
  if (small_pages > 0) return;
#ifdef MADV_HUGEPAGE
  const uintptr_t pg = 4096;
  uintptr_t b = ((uintptr_t)p + pg - 1) & ~(pg - 1),
            e = ((uintptr_t)p + bytes) & ~(pg - 1);
  if (e > b) (void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/* The most memory this process can have: RAM and swap, lowered by a
 * cgroup (v2 or v1) limit or RLIMIT_AS. Read once. A request above it is
 * refused before allocating: with overcommit the allocation could
 * succeed and the first touch end the process. */
static pthread_once_t mem_once = PTHREAD_ONCE_INIT;
static uint64_t mem_bytes;
static int mem_kind; /* 0 RAM and swap, 1 a cgroup, 2 ulimit -v */

static uint64_t read_limit(const char *path) {
  FILE *f = fopen(path, "re");
  if (!f) return 0;
  unsigned long long v = 0;
  int ok = fscanf(f, "%llu", &v) == 1;
  fclose(f);
  return ok ? (uint64_t)v : 0; /* "max" reads as no number: no limit */
}

static void mem_probe(void) {
  struct sysinfo si;
  if (sysinfo(&si) == 0)
    mem_bytes = ((uint64_t)si.totalram + (uint64_t)si.totalswap) * si.mem_unit;
  const char *const cg[] = {"/sys/fs/cgroup/memory.max",
                            "/sys/fs/cgroup/memory/memory.limit_in_bytes", NULL};
  for (int i = 0; cg[i]; i++) {
    uint64_t v = read_limit(cg[i]);
    if (v && (!mem_bytes || v < mem_bytes)) {
      mem_bytes = v;
      mem_kind = 1;
    }
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (!mem_bytes || (uint64_t)rl.rlim_cur < mem_bytes)) {
    mem_bytes = (uint64_t)rl.rlim_cur;
    mem_kind = 2;
  }
  /* SPECK_MEMORY_MAX: a lower budget of the user's (a shared machine, a
   * fuzzer's memory limit); a malformed value is ignored here and refused
   * by sk_env_check at start-up */
  const char *mx = sk_env_get("SPECK_MEMORY_MAX");
  int64_t v = mx ? sk_parse_size(mx) : -1;
  if (v > 0 && (!mem_bytes || (uint64_t)v < mem_bytes)) {
    mem_bytes = (uint64_t)v;
    mem_kind = 3;
  }
}

/* the most memory the process may have (0: unknown), without its description */
static uint64_t memory_most(void) {
  pthread_once(&mem_once, mem_probe);
  return mem_bytes;
}

uint64_t sk_host_memory(char *desc, size_t n) {
  pthread_once(&mem_once, mem_probe);
  double gib = (double)mem_bytes / (1 << 30);
  if (mem_kind == 1) sk_err(desc, n, SK_E_GIB_MEMORY_LIMIT, gib);
  else if (mem_kind == 2) sk_err(desc, n, SK_E_GIB_ADDRESS_SPACE, gib);
  else if (mem_kind == 3) sk_err(desc, n, SK_E_SPECK_MEMORY_MAX, gib);
  else sk_err(desc, n, SK_E_MACHINE_GIB_RAM, gib);
  return mem_bytes;
}

void *sk_serial_alloc(size_t bytes, int space, char *err, size_t errlen) {
  (void)space;
  uint64_t most = memory_most();
  if (most && bytes > most) {
    char desc[128];
    sk_host_memory(desc, sizeof desc);
    sk_err(err, errlen, SK_E_MORE_THAN, desc);
    return NULL;
  }
  size_t rounded = (bytes + 63) & ~(size_t)63;
  if (rounded < bytes) rounded = bytes; /* overflow: let aligned_alloc fail */
  void *p;
  if (rounded >= HUGE_ADVISE_MIN) {
    /* 2 MB-aligned, so every huge page of the block can be used; a freed
     * block of about this size first (bcache.c) */
    size_t r2 = (rounded + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    if (r2 < rounded) {
      p = NULL;
    } else if (!(p = sk_bcache_take(r2))) {
      p = aligned_alloc((size_t)2 << 20, r2);
      if (!p && sk_bcache_flush() > 0) p = aligned_alloc((size_t)2 << 20, r2);
      if (p) advise_huge(p, r2);
    }
  } else {
    p = rounded ? aligned_alloc(64, rounded) : aligned_alloc(64, 64);
  }
  if (!p) sk_err(err, errlen, SK_E_CANNOT_ALLOCATE_BYTES, bytes);
  return p;
}

void sk_serial_free(void *p, int space) {
  (void)space;
  if (!p) return;
  size_t usable = malloc_usable_size(p);
  if (usable >= HUGE_ADVISE_MIN && sk_bcache_put(p, usable, memory_most())) return;
  free(p);
}

int sk_serial_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                   char *err, size_t errlen) {
  if (dspace != SK_SPACE_HOST || sspace != SK_SPACE_HOST) {
    sk_err(err, errlen, SK_E_HOST_BACK_END, sk_space_name(sspace), sk_space_name(dspace));
    return -1;
  }
  memmove(dst, src, bytes);
  return 0;
}

typedef struct touch_job {
  char *p;
  size_t bytes;
} touch_job;

static void touch_part(void *arg, int tid, int nt) {
  touch_job *j = arg;
  size_t b = j->bytes * (size_t)tid / (size_t)nt;
  size_t e = j->bytes * (size_t)(tid + 1) / (size_t)nt;
  memset(j->p + b, 0, e - b);
}

/* zero in parallel with the same static split as range kernels, so each
 * page lands near the thread that will work on it (seed 004, 6.1) */
void sk_openmp_first_touch(void *p, size_t bytes) {
  if (bytes < (1u << 20) || sk_pool_size() <= 1) {
    memset(p, 0, bytes);
    return;
  }
  touch_job j = {p, bytes};
  sk_pool_run_parts(touch_part, &j);
}

void sk_serial_first_touch(void *p, size_t bytes) { memset(p, 0, bytes); }

int sk_serial_fence(char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  return 0;
}

/* -- work splitting ----------------------------------------------------- */
typedef struct job {
  const sk_launch *l;
  sk_chunk_fn fn;
  sk_ctx ctx;
  int64_t b, n;  /* work items [b, b + n) */
  int64_t chunk; /* dynamic: items per claim */
  int dynamic;
  int nblocks;       /* reduce/scan: partial blocks */
  atomic_llong next; /* dynamic claims (items or blocks) */
  char *partial;     /* nblocks * pstride bytes */
  size_t pstride;
  int64_t piece_min;  /* fewest items between two interrupt checks */
  atomic_int stopped; /* 1 interrupted, 2 a body faulted: the launch fails */
  atomic_int faulted; /* the first fault is recorded in 'fault' */
  atomic_int marked;  /* a thread left early: the body word is marked */
  sk_fault fault;
  double own; /* a measured pool launch: the calling thread's share, seconds */
} job;

/* -- interrupts ------------------------------------------------------------ */
double sk_host_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int64_t sk_host_next_piece(int64_t piece, int64_t min, double *t0) {
  double t1 = sk_host_now(), dt = t1 - *t0;
  *t0 = t1;
  if (dt < 1e-3 && piece < ((int64_t)1 << 40)) return 2 * piece;
  if (dt > 8e-3 && piece / 2 >= min) return piece / 2;
  return piece;
}

/* The interrupt is read between pieces: a thread stops at its next
 * boundary and the launch reports SK_INTERRUPTED once all are back. */
static int stop_here(job *j) {
  if (atomic_load_explicit(&j->stopped, memory_order_relaxed)) return 1;
  if (!sk_interrupted()) return 0;
  int none = 0;
  atomic_compare_exchange_strong(&j->stopped, &none, 1);
  return 1;
}

/* A thread came back to its guard (guard.h): record why in the job.
 * The body word stays marked until the launch ends, so the other threads'
 * polls leave too -- even when another launch answers the interrupt and
 * clears it meanwhile. */
static void job_left(job *j, const sk_guard *g) {
  int none = 0;
  if (atomic_compare_exchange_strong(&j->marked, &none, 1)) sk_body_fault_mark(1);
  if (g->why == SK_GUARD_FAULT) {
    none = 0;
    if (atomic_compare_exchange_strong(&j->faulted, &none, 1)) j->fault = g->fault;
    atomic_store(&j->stopped, 2);
  } else if (g->why == SK_GUARD_INTERRUPT) {
    none = 0;
    atomic_compare_exchange_strong(&j->stopped, &none, 1);
  }
}

/* Run the chunk function over [b, e) ('acc': NULL or the block's
 * partial) in pieces, checking the interrupt between them. Pieces start
 * at 'piece_min' items and double while one takes under a millisecond
 * (halving when one takes over 8), so a check comes every few
 * milliseconds whatever the body costs, and a short launch makes only a
 * few calls. The pieces accumulate into the one partial in order, so a
 * reduction or scan gives the same bits as one call. Returns -1 when it
 * stopped. */
static int run_pieces(job *j, const sk_ctx *c, int64_t b, int64_t e, void *acc) {
  int64_t piece = j->piece_min;
  /* the clock only when there is a second piece (a launch's share of a
   * few thousand indices makes one call) */
  double t0 = e - b > piece ? sk_host_now() : 0;
  for (int64_t s = b, t; s < e; s = t) {
    if (s > b) {
      if (stop_here(j)) return -1;
      piece = sk_host_next_piece(piece, j->piece_min, &t0);
    }
    t = e - s > piece ? s + piece : e;
    SK_BODY_CALL(j->fn(j->l->args, s, t, acc, c));
  }
  return 0;
}

static void block_bounds(const job *j, int blk, int nblk, int64_t *b, int64_t *e) {
  *b = j->b + j->n * blk / nblk;
  *e = j->b + j->n * (blk + 1) / nblk;
}

/* each thread's copy of the context, which names the thread */
static void thread_ctx(sk_ctx *c, const job *j, int tid) {
  *c = j->ctx;
  c->thread = tid;
}

static void for_part(void *arg, int tid, int nt) {
  job *j = arg;
  sk_ctx c;
  thread_ctx(&c, j, tid);
  if (!j->dynamic) {
    int64_t b, e;
    block_bounds(j, tid, nt, &b, &e);
    if (b < e) run_pieces(j, &c, b, e, NULL);
    return;
  }
  for (;;) {
    if (stop_here(j)) break;
    int64_t s = atomic_fetch_add(&j->next, j->chunk);
    if (s >= j->n) break;
    int64_t e = s + j->chunk < j->n ? s + j->chunk : j->n;
    SK_BODY_CALL(j->fn(j->l->args, j->b + s, j->b + e, NULL, &c));
  }
}

/* one block of a reduction or scan pass: the partial starts from the
 * identity (reduce, scan pass 1) or from the block's prefix (scan pass 2,
 * already stored in 'partial') */
static void run_block(job *j, const sk_ctx *c, int blk) {
  int64_t b, e;
  block_bounds(j, blk, j->nblocks, &b, &e);
  void *acc = j->partial + (size_t)blk * j->pstride;
  if (!j->ctx.final) j->l->init(acc);
  if (!j->dynamic || j->chunk <= 0) {
    if (b < e) run_pieces(j, c, b, e, acc);
    return;
  }
  for (int64_t s = b; s < e; s += j->chunk) {
    if (s > b && stop_here(j)) return;
    int64_t t = s + j->chunk < e ? s + j->chunk : e;
    SK_BODY_CALL(j->fn(j->l->args, s, t, acc, c));
  }
}

static void reduce_part(void *arg, int tid, int nt) {
  job *j = arg;
  sk_ctx c;
  thread_ctx(&c, j, tid);
  if (nt == 1) { /* the calling thread alone: every block in order */
    for (int blk = 0; blk < j->nblocks && !stop_here(j); blk++) run_block(j, &c, blk);
    return;
  }
  if (!j->dynamic) {
    for (int blk = tid; blk < j->nblocks && !stop_here(j); blk += nt) run_block(j, &c, blk);
    return;
  }
  for (;;) {
    if (stop_here(j)) break;
    long long blk = atomic_fetch_add(&j->next, 1);
    if (blk >= j->nblocks) break;
    run_block(j, &c, (int)blk);
  }
}

/* Each thread's share inside its guard. */
static void guarded(job *j, sk_pool_fn part, int tid, int nt) {
  sk_guard g;
  SK_GUARDED(g, &j->stopped, part(j, tid, nt));
  if (g.why) job_left(j, &g);
}

static void for_guarded(void *arg, int tid, int nt) { guarded(arg, for_part, tid, nt); }
static void reduce_guarded(void *arg, int tid, int nt) {
  guarded(arg, reduce_part, tid, nt);
}

/* the same, the calling thread's own share (tid 0) timed into j->own
 * (tiny.c's measure of a launch on the pool) */
static void timed(job *j, sk_pool_fn part, int tid, int nt) {
  if (tid != 0) {
    guarded(j, part, tid, nt);
    return;
  }
  double t0 = sk_host_now();
  guarded(j, part, tid, nt);
  j->own = sk_host_now() - t0;
}
static void for_timed(void *arg, int tid, int nt) { timed(arg, for_part, tid, nt); }
static void reduce_timed(void *arg, int tid, int nt) { timed(arg, reduce_part, tid, nt); }

/* Reduction partials: a buffer per launching thread, grown and reused;
 * a key destructor frees it when the thread ends (LeakSanitizer found one
 * leaked per thread in test_two_vms). */
static _Thread_local char *scratch;
static _Thread_local size_t scratch_cap;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_key_init(void) { pthread_key_create(&scratch_key, free); }

static char *scratch_get(size_t bytes) {
  if (bytes > scratch_cap) {
    char *p = realloc(scratch, bytes);
    if (!p) return NULL;
    scratch = p;
    scratch_cap = bytes;
    pthread_once(&scratch_once, scratch_key_init);
    pthread_setspecific(scratch_key, p);
  }
  return scratch;
}

/* Work items and context of the policy; MDRange gets its tiles. */
static int setup(job *j, const sk_launch *l, char *err, size_t errlen) {
  const sk_policy *p = l->policy;
  memset(j, 0, sizeof *j);
  j->l = l;
  j->fn = (sk_chunk_fn)l->fn;
  j->ctx.oob = l->oob;
  j->ctx.stop = sk_body_flag();
  j->ctx.poll = sk_guard_poll;
  j->dynamic = p->schedule == SK_DYNAMIC;
  j->chunk = p->chunk;
  /* indices are cheap items, MDRange tiles are not */
  j->piece_min = p->kind == SK_POL_RANGE ? 1024 : 1;
  if (p->kind == SK_POL_RANGE) {
    j->b = p->begin;
    j->n = p->end > p->begin ? p->end - p->begin : 0;
  } else if (p->kind == SK_POL_MDRANGE) {
    int64_t tiles = 1;
    j->ctx.md_rank = p->md_rank;
    for (int d = 0; d < p->md_rank; d++) {
      int64_t ext = p->md_hi[d] - p->md_lo[d];
      if (ext <= 0) {
        tiles = 0;
        ext = 0;
      }
      int64_t t = p->md_tile[d];
      if (t <= 0) t = d == p->md_rank - 1 ? (ext > 0 ? ext : 1) : 1;
      j->ctx.md_lo[d] = p->md_lo[d];
      j->ctx.md_hi[d] = p->md_hi[d];
      j->ctx.md_tile[d] = t;
      j->ctx.md_ntile[d] = ext > 0 ? (ext + t - 1) / t : 0;
      tiles *= j->ctx.md_ntile[d];
    }
    j->b = 0;
    j->n = tiles;
  } else {
    sk_err(err, errlen, SK_E_UNSUPPORTED_POLICY);
    return -1;
  }
  if (j->dynamic && j->chunk <= 0) {
    int nt = sk_pool_size() > 0 ? sk_pool_size() : 1;
    j->chunk = j->n / (16 * nt) > 0 ? j->n / (16 * nt) : 1;
  }
  return 0;
}

/* Shared by both back ends: 'pooled' says whether to use the pool. */
static int interrupted(char *err, size_t errlen) {
  sk_interrupt_reported();
  sk_err(err, errlen, SK_E_INTERRUPTED);
  return -1;
}

/* How a launch ended: 0, or the fault's or the interrupt's error. */
static int finished(job *j, char *err, size_t errlen) {
  if (atomic_load(&j->marked)) sk_body_fault_mark(-1);
  if (atomic_load(&j->faulted)) {
    sk_guard_message(&j->fault, err, errlen);
    return -1;
  }
  return atomic_load(&j->stopped) ? interrupted(err, errlen) : 0;
}

static int launch_pieces(const sk_launch *l, int pooled, char *err, size_t errlen);

/* every host launch, counted as running for sk_interrupt_request */
static int host_launch(const sk_launch *l, int pooled, char *err, size_t errlen) {
  if (sk_interrupted()) return interrupted(err, errlen);
  sk_interruptible_enter();
  int rc = launch_pieces(l, pooled, err, errlen);
  sk_interruptible_leave();
  return rc;
}

/* A launch's parts on the pool -- or, when 'measure' (a static schedule,
 * no scan) and tiny.c measured its body too small to wake a worker for,
 * on the calling thread one after another (fn(j, 0, 1): the same blocks
 * in the same order, so the same bits). A measured launch reports its
 * time to tiny.c: the whole here, or on the pool the calling thread's own
 * share of 'share' items ('timed_fn' times it). */
static void run_parts(job *j, int nt, int measure, int64_t share, sk_pool_fn fn,
                      sk_pool_fn timed_fn) {
  const void *body = j->l->fn;
  if (measure && sk_host_tiny(body, j->n, nt)) {
    double t0 = sk_host_now();
    fn(j, 0, 1);
    if (!atomic_load(&j->stopped)) sk_host_tiny_note(body, j->n, j->n, nt, sk_host_now() - t0);
    return;
  }
  sk_pool_run_parts(measure ? timed_fn : fn, j);
  if (measure && !atomic_load(&j->stopped)) sk_host_tiny_note(body, j->n, share, nt, j->own);
}

static int launch_pieces(const sk_launch *l, int pooled, char *err, size_t errlen) {
  if (l->policy->kind == SK_POL_TEAM) return sk_host_launch_team(l, pooled, err, errlen);
  job j;
  if (setup(&j, l, err, errlen) < 0) return -1;
  int nt = pooled && sk_pool_size() > 0 ? sk_pool_size() : 1;
  /* too little work to wake another thread for (the policy's grain) */
  if (l->pattern != SK_SCAN && l->policy->kind == SK_POL_RANGE && j.n < 2 * l->policy->grain)
    nt = 1;
  if (l->pattern == SK_FOR) {
    if (j.n == 0) return 0;
    if (nt == 1 || j.n == 1) {
      j.dynamic = 0;
      for_guarded(&j, 0, 1);
    } else {
      int64_t b, e; /* the calling thread's share on the pool: block 0 of nt */
      block_bounds(&j, 0, nt, &b, &e);
      run_parts(&j, nt, !j.dynamic && e > b, e - b, for_guarded, for_timed);
    }
    return finished(&j, err, errlen);
  }
  /* reduce and scan: partial blocks */
  size_t acc = l->acc_size;
  j.pstride = (acc + 63) & ~(size_t)63;
  if (l->pattern == SK_SCAN) j.dynamic = 0;
  if (j.dynamic) {
    int64_t nchunks = (j.n + j.chunk - 1) / j.chunk;
    int64_t cap = 8 * (int64_t)nt;
    j.nblocks = (int)(nchunks < cap ? nchunks : cap);
  } else {
    j.nblocks = nt;
  }
  if (j.n < j.nblocks) j.nblocks = (int)j.n;
  if (j.nblocks < 1) j.nblocks = 1;
  /* blocks' partials, then a running accumulator */
  char *part = scratch_get(((size_t)j.nblocks + 2) * j.pstride);
  if (!part) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_REDUCTION);
    return -1;
  }
  j.partial = part;
  char *total = part + (size_t)j.nblocks * j.pstride;
  char *tmp = total + j.pstride;
  int use_pool = nt > 1 && j.nblocks > 1;
  if (j.n == 0) {
    l->init(total);
    memcpy(l->result, total, acc);
    return 0;
  }
  if (use_pool) {
    /* static: nblocks <= nt, so the calling thread's share is block 0 */
    int64_t b, e;
    block_bounds(&j, 0, j.nblocks, &b, &e);
    run_parts(&j, nt, !j.dynamic && l->pattern == SK_REDUCE, e - b, reduce_guarded,
              reduce_timed);
  } else {
    reduce_guarded(&j, 0, 1);
  }
  if (atomic_load(&j.stopped)) return finished(&j, err, errlen);
  l->init(total);
  if (l->pattern == SK_REDUCE) {
    for (int blk = 0; blk < j.nblocks; blk++)
      l->join(total, part + (size_t)blk * j.pstride);
    memcpy(l->result, total, acc);
    return 0;
  }
  /* scan: replace each partial by its exclusive prefix, then pass 2 */
  for (int blk = 0; blk < j.nblocks; blk++) {
    char *pb = part + (size_t)blk * j.pstride;
    memcpy(tmp, pb, acc);
    memcpy(pb, total, acc);
    l->join(total, tmp);
  }
  j.ctx.final = 1;
  if (use_pool) sk_pool_run_parts(reduce_guarded, &j);
  else reduce_guarded(&j, 0, 1);
  if (atomic_load(&j.stopped)) return finished(&j, err, errlen);
  memcpy(l->result, total, acc);
  return 0;
}

int sk_serial_launch(const sk_launch *l, char *err, size_t errlen) {
  return host_launch(l, 0, err, errlen);
}

int sk_openmp_launch(const sk_launch *l, char *err, size_t errlen) {
  return host_launch(l, 1, err, errlen);
}

/* -- set-up ----------------------------------------------------------- */
int sk_serial_init(int threads, int device, char *err, size_t errlen) {
  (void)threads;
  (void)device;
  (void)err;
  (void)errlen;
  sk_guard_async_setup();
  return 0;
}

void sk_serial_finalize(void) {
  sk_guard_async_stop();
  (void)sk_bcache_flush();
}

/* host kernels reach every space the CPU can load (a device's page-locked
 * or managed memory too) and remote views whose parts are in host memory
 * (their local part directly, the rest through MPI) */
int sk_serial_reaches(int space) {
  return sk_space_host_accessible(sk_space_local(space));
}

/* host memory is allocated through the openmp table (parallel first
 * touch when its pool runs; serial shares the same functions) */
int sk_serial_owns(int space) {
  (void)space;
  return 0;
}

int sk_openmp_owns(int space) { return space == SK_SPACE_HOST; }

int sk_serial_available(char *why, size_t n) {
  (void)why;
  (void)n;
  return 1;
}

int sk_serial_concurrency(void) { return 1; }

void sk_serial_info(char *buf, size_t n) {
  snprintf(buf, n, "serial: the calling thread");
}

int sk_host_default_threads(int *threads, char *err, size_t errlen) {
  int rc = sk_env_threads(threads, err, errlen);
  if (rc != 0) return rc < 0 ? -1 : 0;
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  *threads = c <= 0 ? 1 : c > SK_THREADS_MAX ? SK_THREADS_MAX : (int)c;
  return 0;
}

int sk_openmp_init(int threads, int device, char *err, size_t errlen) {
  (void)device;
  if (threads <= 0 && sk_host_default_threads(&threads, err, errlen) < 0) return -1;
  if (threads > SK_THREADS_MAX) {
    sk_err(err, errlen, SK_E_THREADS_REQUESTED_MOST, threads, SK_THREADS_MAX);
    return -1;
  }
  if (sk_host_tiny_setup(err, errlen) < 0) return -1;
  sk_guard_async_setup();
  return sk_pool_start(threads, err, errlen);
}

void sk_openmp_finalize(void) {
  sk_pool_stop();
  sk_guard_async_stop();
  (void)sk_bcache_flush();
}

int sk_openmp_concurrency(void) {
  int n = sk_pool_size();
  return n > 0 ? n : 1;
}

void sk_openmp_info(char *buf, size_t n) {
  snprintf(buf, n, "openmp: persistent pthread pool, %d threads",
           sk_openmp_concurrency());
}

void sk_serial_team_limits(sk_team_limits *lim) { sk_host_team_limits(0, lim); }
void sk_openmp_team_limits(sk_team_limits *lim) { sk_host_team_limits(1, lim); }

/* host memory: the CPU's, under the host budget (RAM and swap, a
 * cgroup's or ulimit's limit, SPECK_MEMORY_MAX) */
const sk_space_desc sk_serial_spaces[] = {
  {.name = "host",
   .id = SK_SPACE_HOST,
   .host_accessible = 1,
   .default_layout = SK_RIGHT,
   .budget = sk_host_memory,
   .budget_env = "SPECK_MEMORY_MAX",
   .tools_name = "Host"},
  {.name = NULL},
};

/* the reference table (core/backend.h): every entry of it is serial's */
const sk_backend sk_backend_serial = {SK_FROM_SERIAL};

/* openmp: serial's, run over the pool; it allocates host memory (parallel
 * first touch while its pool runs; serial shares the same functions):
 * SK_FROM_OPENMP (host.h) */
SK_FROM_SERIAL_BEGIN
const sk_backend sk_backend_openmp = {SK_FROM_OPENMP};
SK_FROM_SERIAL_END
