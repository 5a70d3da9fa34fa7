/* jit.c: the staged JIT front: check a spec (check.c), encode it as a key, look it
 * up, and on a miss generate and compile it.
 *
 * The key is every byte that determines the generated source: code
 * target, pattern, policy kind and MDRange rank, the captures (name,
 * kind, dtype, rank, layout, traits, aliasing, memory space; never
 * extents or values),
 * reducers, index names, prelude and body. Serial and openmp share the
 * host code target, so they share compiled kernels.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/err.h"
#include "jit.h"
#include "strbuf.h"

/* a character of a C identifier (file names of dumped sources) */
static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_';
}

/* -- key --------------------------------------------------------------- */
/* The code target as the key's first byte: its place in target.c's list
 * (back ends that share one share compiled kernels). */
static unsigned char code_target(const sk_kspec *s) {
  return (unsigned char)sk_jit_target_index(sk_jit_target_of(s));
}

/* Bytes, not text: this runs on every launch. Strings end with their
 * NUL, small integers are one byte each. The key is either written into
 * a buffer ('b') or compared with a stored one ('b' NULL: 'at' walks it,
 * 'ok' drops to 0 at the first difference): one description of the
 * layout serves both. */
typedef struct kemit {
  sk_buf *b;
  const char *at, *end;
  int ok;
} kemit;

static inline void put(kemit *e, const void *p, size_t n) {
  sk_buf *b = e->b;
  if (b) { /* sk_buf_add inline while the buffer has room */
    if (__builtin_expect(b->n + n + 1 <= b->cap, 1)) {
      memcpy(b->s + b->n, p, n);
      b->n += n;
      b->s[b->n] = '\0';
    } else {
      sk_buf_add(b, p, n);
    }
    return;
  }
  if (!e->ok || (size_t)(e->end - e->at) < n || memcmp(e->at, p, n) != 0) {
    e->ok = 0;
    return;
  }
  e->at += n;
}

static inline void put_str(kemit *e, const char *s) {
  if (s) put(e, s, strlen(s) + 1);
  else put(e, "", 1);
}

/* The key up to the prelude: target, pattern, policy, captures, reducers,
 * index names (small: a few bytes a capture). */
static void encode_head(kemit *b, const sk_kspec *s) {
  unsigned char head[7] = {'s',
                           'k',
                           code_target(s),
                           (unsigned char)s->pattern,
                           (unsigned char)s->policy_kind,
                           (unsigned char)s->md_rank,
                           (unsigned char)s->bounds};
  if (sk_jit_target_of(s)->image) put_str(b, s->arch);
  put(b, head, sizeof head);
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    /* the memory space too: a kernel for device memory may skip the
     * synchronisation a host-visible (pinned, managed) capture needs */
    unsigned char f[7] = {(unsigned char)k->kind,   (unsigned char)k->dtype,
                          (unsigned char)k->rank,   (unsigned char)k->layout,
                          (unsigned char)k->traits, (unsigned char)k->alias,
                          (unsigned char)k->space};
    unsigned char tl[5] = {(unsigned char)k->tile_log2[0], (unsigned char)k->tile_log2[1],
                           (unsigned char)k->tile_log2[2], (unsigned char)k->agg,
                           (unsigned char)k->agg_n};
    put_str(b, k->name);
    put(b, f, sizeof f);
    put(b, tl, sizeof tl);
  }
  put(b, "|", 1);
  for (int r = 0; r < s->nred; r++) {
    const sk_reducer *q = &s->reds[r];
    unsigned char f[4] = {(unsigned char)q->op, (unsigned char)q->dtype,
                          (unsigned char)q->agg, (unsigned char)q->agg_n};
    put(b, f, sizeof f);
    if (q->op == SK_RED_CUSTOM) {
      put_str(b, q->init);
      put_str(b, q->join);
    }
  }
  put(b, "|", 1);
  for (int d = 0; d < SK_MAXMD; d++) put_str(b, s->index[d]);
}

static void encode_key(sk_buf *buf, const sk_kspec *s) {
  kemit b = {buf, NULL, NULL, 1};
  encode_head(&b, s);
  put_str(&b, s->prelude);
  sk_buf_add(buf, s->body, s->body_len);
}

/* 1 when 'key' (a kernel's) is the key of 's' */
static int key_equals(const char *key, size_t keylen, const sk_kspec *s) {
  kemit c = {NULL, key, key + keylen, 1};
  encode_head(&c, s);
  put_str(&c, s->prelude);
  return c.ok && (size_t)(c.end - c.at) == s->body_len &&
         memcmp(c.at, s->body, s->body_len) == 0;
}

/* The in-memory cache's hash of a key (every launch computes it: a
 * library kernel's key holds its whole body, a kilobyte or two), eight
 * bytes a step; a hit is confirmed by comparing the whole key. Precompiled
 * kernels are seeded under the same hash (sk_jit_key_hash). */
static uint64_t key_hash(const char *p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  memcpy(&w, p + i, n - i);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

/* -- kernels ----------------------------------------------------------- */
/* Tier changes of a kernel (a cc install, a background result, the
 * warning) are serialised by one of these locks, picked by the kernel's
 * address: nothing to initialise per kernel, so kernels made anywhere
 * (the precompiled registry, tests) are covered. Lock order: a stripe,
 * then tcc_lock (tcc.c) or the disk cache's; never the cache's lock. */
#define NSTRIPE 64
static pthread_mutex_t stripes[NSTRIPE];
static pthread_once_t stripes_once = PTHREAD_ONCE_INIT;

static void stripes_init(void) {
  for (int i = 0; i < NSTRIPE; i++) pthread_mutex_init(&stripes[i], NULL);
}

static pthread_mutex_t *stripe(const sk_kernel *k) {
  pthread_once(&stripes_once, stripes_init);
  uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ULL;
  return &stripes[h >> 58];
}

/* counters shared by the VMs' threads */
static void count(int64_t *c, int64_t n) { __atomic_add_fetch(c, n, __ATOMIC_RELAXED); }

static void add_seconds(double *p, double v) {
  double old, sum;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do sum = old + v;
  while (
    !__atomic_compare_exchange(p, &old, &sum, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static double load_seconds(double *p) {
  double v;
  __atomic_load(p, &v, __ATOMIC_RELAXED);
  return v;
}

/* Fill k->code[tier] and publish it: launches that load 'entry' after
 * this run the new code, launches already running keep the old (never
 * freed before sk_kernel_free). */
void sk_jit_install(sk_kernel *k, void *fn, void *init, void *join, void *layout,
                    int tier) {
  sk_entry *e = &k->code[tier];
  e->fn = fn;
  e->init = (sk_init_fn)init;
  e->join = (sk_join_fn)join;
  e->tier = tier;
  /* the layout is the source's, the same for every tier: written before
   * the kernel has code, never while launches read it */
  if (layout && !__atomic_load_n(&k->entry, __ATOMIC_ACQUIRE)) {
    long off[SK_MAXRED];
    long size = ((long (*)(long *))layout)(off);
    k->acc_size = (size_t)size;
    for (int r = 0; r < k->nred; r++) k->acc_off[r] = off[r];
  }
  __atomic_store_n(&k->init, e->init, __ATOMIC_RELAXED);
  __atomic_store_n(&k->join, e->join, __ATOMIC_RELAXED);
  __atomic_store_n(&k->tier, tier, __ATOMIC_RELEASE);
  __atomic_store_n(&k->fn, fn, __ATOMIC_RELEASE);
  /* written last: a reader that sees the new entry sees all of it */
  __atomic_store_n(&k->entry, e, __ATOMIC_RELEASE);
}

void sk_image_free(sk_image *img) {
  if (!img) return;
  free(img->data);
  free(img);
}

/* Free 'k' with every tier's code. The caller guarantees that no launch
 * runs it and no thread will look it up again (sk_cache_clear after a
 * drain, or a kernel never inserted). */
void sk_kernel_free(sk_kernel *k) {
  if (!k) return;
  sk_tcc_free(k->tcc_state);
  if (k->dev && k->dev_unload) k->dev_unload(k->dev);
  sk_image_free(k->image);
  if (k->cc_dl) dlclose(k->cc_dl);
  if (k->cc_staged.dl && k->cc_staged.dl != k->cc_dl) dlclose(k->cc_staged.dl);
  free(k->key);
  free(k->label);
  free(k->source);
  for (int r = 0; r < k->nred; r++) {
    free((char *)k->reds[r].init);
    free((char *)k->reds[r].join);
  }
  free(k);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* SPECK_JIT_DUMP=dir: write every generated source as <label>-<hash>.c */
static void dump_source(const sk_kernel *k) {
  const char *dir = getenv("SPECK_JIT_DUMP");
  if (!dir || !*dir) return;
  mkdir(dir, 0755);
  char path[4096], safe[64];
  size_t j = 0;
  for (const char *p = k->label; *p && j + 1 < sizeof safe; p++)
    safe[j++] = ident_char(*p) || *p == '-' ? *p : '_';
  safe[j] = '\0';
  snprintf(path, sizeof path, "%s/%s-%016llx.c", dir, safe, (unsigned long long)k->hash);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fputs(k->source, f);
  fclose(f);
}

/* -- tiers ------------------------------------------------------------- */
static int default_tier = -1;

void sk_jit_set_default_tier(int tier) {
  __atomic_store_n(&default_tier, tier, __ATOMIC_RELAXED);
}

_Static_assert(SK_TIER_AUTO == 0 && SK_TIER_TCC == 1 && SK_TIER_CC == 2,
               "sk_env_jit numbers the tiers in this order");

int sk_jit_tier(int requested, char *err, size_t errlen) {
  if (requested != SK_TIER_AUTO) return requested;
  int t = __atomic_load_n(&default_tier, __ATOMIC_RELAXED);
  if (t >= 0) return t;
  if (sk_env_jit(&t, err, errlen) < 0) return -1; /* asked again next time */
  __atomic_store_n(&default_tier, t, __ATOMIC_RELAXED);
  return t;
}

int sk_jit_default_tier(void) {
  char err[8];
  int t = sk_jit_tier(SK_TIER_AUTO, err, sizeof err);
  return t < 0 ? SK_TIER_AUTO : t;
}

/* The tier a launch asked for: this thread's latest look-up of 'k' (two
 * VMs may launch one kernel with different jit options), else the latest
 * look-up by any thread (kernel handles launch without a look-up). */
static _Thread_local const sk_kernel *want_k;
static _Thread_local int want_tier;

static void set_want(sk_kernel *k, int tier) {
  want_k = k;
  want_tier = tier;
  __atomic_store_n(&k->want, tier, __ATOMIC_RELAXED);
}

static int want_of(const sk_kernel *k) {
  return want_k == k ? want_tier : __atomic_load_n(&k->want, __ATOMIC_RELAXED);
}

/* Make the cc object 'c' the kernel's code; the caller holds k's stripe
 * (or no other thread can see 'k'). If another thread installed cc code
 * first, 'c' is closed unseen and 0 returned; else 1. */
static int install_cc(sk_kernel *k, sk_ccode *c) {
  if (__atomic_load_n(&k->tier, __ATOMIC_ACQUIRE) == SK_TIER_CC) {
    if (c->dl) dlclose(c->dl);
    return 0;
  }
  k->cc_dl = c->dl;
  count(c->from_disk ? &k->disk_hits : &k->compiles[SK_TIER_CC], 1);
  add_seconds(&k->compile_seconds, c->seconds);
  sk_jit_install(k, c->fn, c->init, c->join, c->layout, SK_TIER_CC);
  return 1;
}

/* The background compiler: one thread for the process (every VM's
 * kernels), a FIFO of kernels linked through 'bg_next'. A kernel is
 * queued once per tier-up (the NONE -> PENDING exchange in
 * sk_jit_after_launch), so the links never tangle. The compiler writes
 * only 'cc_staged' and 'cc_err', then releases them with 'cc_state';
 * installing is left to a launch (sk_jit_refresh). */
static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bg_work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t bg_idle = PTHREAD_COND_INITIALIZER;
static sk_kernel *bg_head, *bg_tail;
static int bg_started, bg_busy, bg_stop;
static pthread_t bg_thread;

static void *bg_main(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&bg_lock);
    while (!bg_head && !bg_stop) pthread_cond_wait(&bg_work, &bg_lock);
    if (!bg_head) { /* stopping, nothing left */
      pthread_mutex_unlock(&bg_lock);
      return NULL;
    }
    sk_kernel *k = bg_head;
    bg_head = k->bg_next;
    if (!bg_head) bg_tail = NULL;
    bg_busy = 1;
    pthread_mutex_unlock(&bg_lock);
    sk_ccode c;
    int rc = sk_cc_build(k->source, &c, k->cc_err, sizeof k->cc_err);
    if (rc == 0) k->cc_staged = c;
    __atomic_store_n(&k->cc_state, rc == 0 ? SK_CC_READY : SK_CC_FAILED,
                     __ATOMIC_RELEASE);
    pthread_mutex_lock(&bg_lock);
    bg_busy = 0;
    pthread_cond_broadcast(&bg_idle);
    pthread_mutex_unlock(&bg_lock);
  }
  return NULL;
}

/* Queue 'k', whose state the caller has just moved NONE -> PENDING. */
static void bg_enqueue(sk_kernel *k) {
  pthread_mutex_lock(&bg_lock);
  if (!bg_started) {
    /* joinable: sk_jit_shutdown waits for it */
    int rc = pthread_create(&bg_thread, NULL, bg_main, NULL);
    if (rc != 0) {
      pthread_mutex_unlock(&bg_lock);
      pthread_mutex_t *m = stripe(k);
      pthread_mutex_lock(m);
      sk_err(k->warning, sizeof k->warning, SK_E_CANNOT_START_BACKGROUND, strerror(rc));
      __atomic_store_n(&k->cc_state, SK_CC_OFF, __ATOMIC_RELEASE);
      pthread_mutex_unlock(m);
      return;
    }
    bg_started = 1;
  }
  k->bg_next = NULL;
  if (bg_tail) bg_tail->bg_next = k;
  else bg_head = k;
  bg_tail = k;
  pthread_cond_signal(&bg_work);
  pthread_mutex_unlock(&bg_lock);
}

void sk_jit_drain(void) {
  pthread_mutex_lock(&bg_lock);
  while (bg_head || bg_busy) pthread_cond_wait(&bg_idle, &bg_lock);
  pthread_mutex_unlock(&bg_lock);
}

/* Finish the queue and end the background compiler's thread (joined), so
 * that no thread runs this library's code once it returns: the Lua module
 * calls it before Lua unloads it (a thread still between two waits in
 * bg_main when core.so was unmapped crashed the process at exit). The
 * next tier-up starts a new thread. */
void sk_jit_shutdown(void) {
  static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&one_at_a_time);
  for (const sk_jit_target *const *t = sk_jit_targets(); *t; t++)
    if ((*t)->quiesce) (*t)->quiesce();
  pthread_mutex_lock(&bg_lock);
  if (bg_started) {
    bg_stop = 1;
    pthread_cond_broadcast(&bg_work);
    pthread_t t = bg_thread;
    pthread_mutex_unlock(&bg_lock);
    pthread_join(t, NULL); /* it empties the queue first */
    pthread_mutex_lock(&bg_lock);
    bg_stop = 0;
    bg_started = 0;
    /* a kernel another VM queued after the thread's last look */
    if (bg_head && pthread_create(&bg_thread, NULL, bg_main, NULL) == 0) bg_started = 1;
  }
  pthread_mutex_unlock(&bg_lock);
  pthread_mutex_unlock(&one_at_a_time);
}

/* Install a finished background compile; called at launch time, so the
 * switch happens between launches of this thread. Launches of other
 * threads already running keep the libtcc code, which stays loaded.
 * Exactly one thread installs (under k's stripe); a failure becomes the
 * kernel's warning once. */
void sk_jit_refresh(sk_kernel *k) {
  int st = __atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE);
  if (st != SK_CC_READY && st != SK_CC_FAILED) return;
  pthread_mutex_t *m = stripe(k);
  pthread_mutex_lock(m);
  st = __atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE);
  if (st == SK_CC_READY) {
    sk_ccode c = k->cc_staged;
    memset(&k->cc_staged, 0, sizeof k->cc_staged);
    if (install_cc(k, &c)) count(&k->tierups, 1);
    __atomic_store_n(&k->cc_state, SK_CC_NONE, __ATOMIC_RELEASE);
  } else if (st == SK_CC_FAILED) {
    if (!k->warning[0]) snprintf(k->warning, sizeof k->warning, "%s", k->cc_err);
    __atomic_store_n(&k->cc_state, SK_CC_OFF, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(m);
}

/* The libtcc code of 'source' into k->tcc_* (and, unless the kernel
 * runs cc code, installed as its code). Safe on a kernel other threads
 * launch: the first compile wins, a concurrent one is discarded unseen,
 * and code once published is never freed before sk_kernel_free. */
static pthread_mutex_t tcc_pub = PTHREAD_MUTEX_INITIALIZER;

static int tcc_compile(sk_kernel *k, const char *source, int user, char *err,
                       size_t errlen) {
  sk_ccode c;
  if (sk_tcc_build(source, user, &c, err, errlen) < 0) return -1;
  pthread_mutex_lock(&tcc_pub);
  if (k->tcc_state) {
    /* another thread was first: keep its code, it may be running */
    pthread_mutex_unlock(&tcc_pub);
    sk_tcc_free(c.dl);
    return 0;
  }
  k->tcc_state = c.dl;
  k->tcc_init = (sk_init_fn)c.init;
  k->tcc_join = (sk_join_fn)c.join;
  /* written last: a reader that sees 'tcc_fn' sees init and join */
  __atomic_store_n(&k->tcc_fn, c.fn, __ATOMIC_RELEASE);
  if (__atomic_load_n(&k->tier, __ATOMIC_ACQUIRE) != SK_TIER_CC)
    sk_jit_install(k, c.fn, c.init, c.join, c.layout, SK_TIER_TCC);
  pthread_mutex_unlock(&tcc_pub);
  return 0;
}

/* An image target's tier: the image of 'source' (a new kernel, seen by
 * no other thread yet) made by the target's compiler and, for
 * reduce/scan, the accumulator's host half through libtcc (identity, join
 * and layout for the launch's result). */
static int image_compile(sk_kernel *k, const sk_kspec *s, const sk_jit_target *t,
                         char *err, size_t errlen) {
  double t0 = now();
  sk_image *img;
  int from_disk;
  if (t->build(s, k->source, &img, &from_disk, err, errlen) < 0) return -1;
  if (s->pattern != SK_FOR) {
    char *hsrc = sk_codegen_host_acc(s, err, errlen);
    int rc = hsrc ? tcc_compile(k, hsrc, 0, err, errlen) : -1;
    free(hsrc);
    if (rc < 0) {
      sk_image_free(img);
      return -1;
    }
  }
  k->image = img;
  /* no host entry: the back end loads the image (exec/, sk_kernel.dev) */
  sk_jit_install(k, NULL, k->init, k->join, NULL, SK_TIER_IMAGE);
  if (from_disk) k->disk_hits++;
  else k->compiles[SK_TIER_IMAGE]++;
  k->compile_seconds += now() - t0;
  return 0;
}

/* One consistent triple from the published entry. A launch that asked
 * for jit = "tcc" on a kernel running cc code gets libtcc code, compiled
 * now if the kernel came from the disk cache (the first compile wins,
 * tcc_compile). */
int sk_jit_entry(sk_kernel *k, void **fn, sk_init_fn *init, sk_join_fn *join, char *err,
                 size_t errlen) {
  sk_jit_refresh(k);
  const sk_entry *e = __atomic_load_n(&k->entry, __ATOMIC_ACQUIRE);
  if (e && e->tier == SK_TIER_CC && want_of(k) == SK_TIER_TCC) {
    void *t = __atomic_load_n(&k->tcc_fn, __ATOMIC_ACQUIRE);
    if (!t) {
      if (tcc_compile(k, k->source, k->user, err, errlen) < 0) return -1;
      count(&k->compiles[SK_TIER_TCC], 1);
      t = __atomic_load_n(&k->tcc_fn, __ATOMIC_ACQUIRE);
    }
    *fn = t;
    *init = k->tcc_init;
    *join = k->tcc_join;
    return 0;
  }
  if (!e) { /* code set by hand, without sk_jit_install */
    *fn = __atomic_load_n(&k->fn, __ATOMIC_ACQUIRE);
    *init = __atomic_load_n(&k->init, __ATOMIC_RELAXED);
    *join = __atomic_load_n(&k->join, __ATOMIC_RELAXED);
    return 0;
  }
  *fn = e->fn;
  *init = e->init;
  *join = e->join;
  return 0;
}

/* Account the launch; a hot kernel on libtcc code (launched often enough
 * or long enough) is queued for the cc tier, by one thread only. */
void sk_jit_after_launch(sk_kernel *k, double seconds) {
  add_seconds(&k->run_seconds, seconds);
  if (__atomic_load_n(&k->tier, __ATOMIC_ACQUIRE) != SK_TIER_TCC ||
      want_of(k) != SK_TIER_AUTO)
    return;
  if (__atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE) != SK_CC_NONE) return;
  if (__atomic_load_n(&k->launches, __ATOMIC_RELAXED) < SK_TIERUP_LAUNCHES &&
      load_seconds(&k->run_seconds) < SK_TIERUP_SECONDS)
    return;
  if (!sk_cc_available()) return;
  int none = SK_CC_NONE;
  if (__atomic_compare_exchange_n(&k->cc_state, &none, SK_CC_PENDING, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    bg_enqueue(k);
}

/* Synchronous cc compile for jit = "cc"; on failure the kernel stays on
 * libtcc code with a warning (never an error). Holds k's stripe while
 * compiling, so two threads asking at once compile once. */
static void want_cc_now(sk_kernel *k) {
  if (__atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE) == SK_CC_PENDING) sk_jit_drain();
  sk_jit_refresh(k);
  pthread_mutex_t *m = stripe(k);
  pthread_mutex_lock(m);
  int st = __atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&k->tier, __ATOMIC_ACQUIRE) != SK_TIER_CC && st != SK_CC_FAILED &&
      st != SK_CC_OFF) {
    sk_ccode c;
    char err[sizeof k->warning];
    if (sk_cc_build(k->source, &c, err, sizeof err) == 0) {
      install_cc(k, &c);
    } else {
      snprintf(k->warning, sizeof k->warning, "%s", err);
      __atomic_store_n(&k->cc_state, SK_CC_OFF, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(m);
}

void sk_jit_kstats(sk_kernel *k, sk_kstats *out) {
  out->tier = __atomic_load_n(&k->tier, __ATOMIC_ACQUIRE);
  out->launches = __atomic_load_n(&k->launches, __ATOMIC_RELAXED);
  out->hits = __atomic_load_n(&k->hits, __ATOMIC_RELAXED);
  for (int t = 0; t < SK_NTIER; t++)
    out->compiles[t] = __atomic_load_n(&k->compiles[t], __ATOMIC_RELAXED);
  out->tierups = __atomic_load_n(&k->tierups, __ATOMIC_RELAXED);
  out->disk_hits = __atomic_load_n(&k->disk_hits, __ATOMIC_RELAXED);
  out->compile_seconds = load_seconds(&k->compile_seconds);
  out->run_seconds = load_seconds(&k->run_seconds);
  pthread_mutex_t *m = stripe(k);
  pthread_mutex_lock(m);
  memcpy(out->warning, k->warning, sizeof out->warning);
  pthread_mutex_unlock(m);
}

/* Insert a new kernel; if another thread inserted the same key first,
 * ours (seen by no one) is freed and theirs used as a cache hit would
 * be. Counts the launch. */
static sk_kernel *publish(sk_kernel *k, const sk_kspec *s, int tier) {
  sk_kernel *in = sk_cache_insert(k);
  if (in != k) {
    sk_kernel_free(k);
    count(&in->hits, 1);
    sk_cache_label(s->label, in);
  }
  count(&in->launches, 1);
  set_want(in, tier);
  if (in != k && tier == SK_TIER_CC && !in->image &&
      __atomic_load_n(&in->tier, __ATOMIC_ACQUIRE) == SK_TIER_TCC)
    want_cc_now(in);
  return in;
}

/* The key of the look-up in progress: a buffer per thread, grown once
 * and reused; a key destructor frees it when the thread ends (a host
 * program making threads that launch kernels would otherwise leak one per
 * thread -- LeakSanitizer found it in test_cache_threads). */
static _Thread_local sk_buf keybuf;
static _Thread_local int keybuf_registered;
static pthread_key_t keybuf_key;
static pthread_once_t keybuf_once = PTHREAD_ONCE_INIT;

static void keybuf_free(void *b) { sk_buf_free(b); }
static void keybuf_key_init(void) { pthread_key_create(&keybuf_key, keybuf_free); }

/* this thread's key buffer, emptied */
static sk_buf *key_buffer(void) {
  if (!keybuf_registered) {
    pthread_once(&keybuf_once, keybuf_key_init);
    pthread_setspecific(keybuf_key, &keybuf);
    keybuf_registered = 1;
  }
  sk_buf_reset(&keybuf);
  return &keybuf;
}

/* A name the body calls but did not capture: C compilers say "warning:
 * implicit declaration of function 'y'" (and tcc's linker "undefined
 * symbol 'y'" later). 'log' with those lines in the language's words,
 * "<where>: error: 'y' is not a capture" (malloc'd; NULL: none such). */
static char *uncaptured(const char *log) {
  static const char IMPL[] = "implicit declaration of function '";
  if (!strstr(log, IMPL)) return NULL;
  char names[16][64];
  int nn = 0;
  sk_buf b;
  sk_buf_init(&b);
  for (const char *p = log; *p;) { /* the diagnostics, the names noted */
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)len, p);
    char *at = strstr(line, IMPL), *q = at ? strchr(at + sizeof IMPL - 1, '\'') : NULL;
    char *kind = at ? strstr(line, "warning: ") : NULL;
    if (!kind || kind > at) kind = at ? strstr(line, "error: ") : NULL;
    if (at && q && kind && kind < at) {
      *q = 0;
      const char *name = at + sizeof IMPL - 1;
      if (nn < 16) snprintf(names[nn++], sizeof names[0], "%s", name);
      sk_buf_add(&b, line, (size_t)(kind - line));
      char msg[128];
      sk_err(msg, sizeof msg, SK_E_NOT_A_CAPTURE, name);
      sk_buf_printf(&b, "error: %s\n", msg);
    } else {
      int drop = 0; /* the linker's echo of a name already reported */
      for (int k = 0; k < nn && !drop; k++) {
        char sym[96];
        snprintf(sym, sizeof sym, "undefined symbol '%s'", names[k]);
        drop = strstr(line, sym) != NULL;
      }
      if (!drop) {
        sk_buf_add(&b, p, len);
        sk_buf_puts(&b, "\n");
      }
    }
    p += len + (nl ? 1 : 0);
  }
  if (b.n && b.s[b.n - 1] == '\n') b.s[--b.n] = 0;
  return sk_buf_take(&b);
}

int sk_jit_diag(char *err, size_t errlen, const char *log) {
  static const int parts[] = {SK_E_DIAG_BODY, SK_E_DIAG_PRELUDE, SK_E_DIAG_INIT,
                              SK_E_DIAG_JOIN};
  char *own = uncaptured(log);
  if (own) log = own;
  int rc = -1, done = 0;
  for (size_t i = 0; i < sizeof parts / sizeof *parts && !done; i++) {
    /* the id's text is "<part> line %s" */
    const char *t = sk_err_text(parts[i]);
    size_t n = strlen(t) - 2;
    if (strncmp(log, t, n) == 0) rc = sk_err_(err, errlen, parts[i], log + n), done = 1;
  }
  if (!done) rc = sk_err(err, errlen, SK_E_MSG, log);
  free(own);
  return rc;
}

/* 1 if the kernel uses complex values (a capture or reducer of a complex
 * dtype) or the complex words (cmplx, conj, cabs, cexp, csqrt, real,
 * imag called in its body or prelude): host code for it needs C99
 * _Complex, which libtcc lacks, so it is built by the cc tier only. */
static int word_call(const char *p, size_t n) {
  static const char *const words[] = {"cmplx", "conj", "cabs", "cexp", "csqrt", "real",
                                      "imag", NULL};
  if (!p) return 0;
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && (p[i - 1] == '_' || p[i - 1] == '.' || (p[i - 1] >= '0' && p[i - 1] <= '9') ||
                  ((p[i - 1] | 32) >= 'a' && (p[i - 1] | 32) <= 'z')))
      continue;
    for (int w = 0; words[w]; w++) {
      size_t l = strlen(words[w]);
      if (i + l > n || memcmp(p + i, words[w], l) != 0) continue;
      size_t j = i + l;
      while (j < n && (p[j] == ' ' || p[j] == '\t')) j++;
      if (j < n && p[j] == '(') return 1;
    }
  }
  return 0;
}

int sk_jit_spec_complex(const sk_kspec *s) {
  for (int c = 0; c < s->ncap; c++)
    if (sk_dtypes[s->caps[c].dtype].is_complex) return 1;
  for (int r = 0; r < s->nred; r++)
    if (sk_dtypes[s->reds[r].dtype].is_complex) return 1;
  return word_call(s->body, s->body_len) ||
         (s->prelude && word_call(s->prelude, strlen(s->prelude)));
}

/* -- the launch memo ---------------------------------------------------
 * A launch repeating a recent one (the same body and prelude text at the
 * same addresses: a library kernel's embedded body, a Lua string still
 * alive, a C program's literal) finds its kernel here without encoding
 * and hashing the whole key, taking the cache's lock or scanning the
 * body for complex words: the spec is compared with the kernel's stored
 * key field by field (key_equals, the layout encode_key writes), so a
 * hit is exactly a cache hit. Two ways a set, picked by the body's
 * address; the cache's epoch (sk_cache_clear frees kernels) invalidates
 * every entry. */
#define MEMO_SETS 32

typedef struct memo_ent {
  const char *body, *prelude;
  size_t body_len;
  sk_kernel *k;
  unsigned epoch;
  int cplx;
} memo_ent;

static _Thread_local memo_ent memo[MEMO_SETS][2];

static memo_ent *memo_set(const sk_kspec *s) {
  uint64_t h = ((uint64_t)(uintptr_t)s->body ^ (uint64_t)(uintptr_t)s->prelude) *
               0x9E3779B97F4A7C15ull;
  return memo[(h >> 40) % MEMO_SETS];
}

static memo_ent *memo_find(memo_ent *set, const sk_kspec *s, unsigned epoch) {
  for (int w = 0; w < 2; w++) {
    memo_ent *e = &set[w];
    if (e->body == s->body && e->prelude == s->prelude && e->body_len == s->body_len &&
        e->epoch == epoch && key_equals(e->k->key, e->k->keylen, s))
      return e;
  }
  return NULL;
}

/* remember k (the newest in way 0) */
static void memo_put(memo_ent *set, const sk_kspec *s, sk_kernel *k, unsigned epoch,
                     int cplx) {
  set[1] = set[0];
  set[0] = (memo_ent){s->body, s->prelude, s->body_len, k, epoch, cplx};
}

/* a look-up that found 'k' (the cache, the memo or a caller that kept
 * it): counted as a hit, labelled, and asked for the tier it should reach
 * ('cplx': the cc tier, libtcc has no _Complex) */
static void found(sk_kernel *k, const char *label, int tier, int cplx) {
  if (cplx) tier = SK_TIER_CC;
  count(&k->hits, 1);
  count(&k->launches, 1);
  sk_cache_label(label, k);
  set_want(k, tier);
  if (tier == SK_TIER_CC && !k->image &&
      __atomic_load_n(&k->tier, __ATOMIC_ACQUIRE) == SK_TIER_TCC)
    want_cc_now(k);
}

int sk_jit_again(sk_kernel *k, const char *label, int tier, int cplx, char *err,
                 size_t errlen) {
  tier = sk_jit_tier(tier, err, errlen);
  if (tier < 0) return -1;
  found(k, label, tier, cplx);
  return 0;
}

int sk_jit_get(const sk_kspec *s, sk_kernel **out, char *err, size_t errlen) {
  return sk_jit_get_cplx(s, out, NULL, err, errlen);
}

int sk_jit_get_cplx(const sk_kspec *s, sk_kernel **out, int *cplx_out, char *err,
                    size_t errlen) {
  int tier = sk_jit_tier(s->tier, err, errlen);
  if (tier < 0) return -1;
  unsigned epoch = sk_cache_epoch();
  memo_ent *set = memo_set(s), *me = memo_find(set, s, epoch);
  sk_kernel *k = me ? me->k : NULL;
  int cplx;
  uint64_t h = 0;
  if (k) {
    cplx = me->cplx;
  } else {
    encode_key(key_buffer(), s);
    if (keybuf.oom) {
      sk_err(err, errlen, SK_E_OUT_MEMORY_ENCODING);
      return -1;
    }
    /* complex kernels: the cc tier only (libtcc has no _Complex) */
    cplx = !sk_jit_target_of(s)->image && sk_jit_spec_complex(s);
    h = key_hash(keybuf.s, keybuf.n);
    k = sk_cache_find(h, keybuf.s, keybuf.n);
    if (k) memo_put(set, s, k, epoch, cplx);
  }
  if (cplx_out) *cplx_out = cplx;
  if (k) {
    found(k, s->label, tier, cplx);
    *out = k;
    return 0;
  }
  if (cplx) tier = SK_TIER_CC;
  /* a malformed cache setting is refused before anything is compiled */
  if (sk_disk_config(err, errlen) < 0) return -1;
  if (sk_jit_check(s, err, errlen) < 0) return -1;
  k = calloc(1, sizeof *k);
  if (!k) {
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  k->user = !s->library;
  k->hash = h;
  k->keylen = keybuf.n;
  k->key = malloc(keybuf.n);
  k->label = dupstr(s->label);
  k->want = tier;
  k->nred = s->nred;
  for (int r = 0; r < s->nred; r++) {
    k->reds[r] = s->reds[r];
    k->reds[r].init = dupstr(s->reds[r].init);
    k->reds[r].join = dupstr(s->reds[r].join);
  }
  if (!k->key || !k->label) {
    sk_kernel_free(k);
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  memcpy(k->key, keybuf.s, keybuf.n);
  double t0 = now();
  const sk_jit_target *t = sk_jit_target_of(s);
  k->source = t->codegen(s, err, errlen);
  if (!k->source) {
    sk_kernel_free(k);
    return -1;
  }
  dump_source(k);
  /* -- an image target: its compiler makes an image for s->arch; no
   * tcc/cc tiers. The back end loads it at the first launch (exec/), so
   * nothing here touches a device. -- */
  if (t->image) {
    if (image_compile(k, s, t, err, errlen) < 0) {
      sk_kernel_free(k);
      return -1;
    }
    *out = publish(k, s, tier);
    return 0;
  }
  /* -- host code: libtcc now, the cc tier in the background (or now, or
   * from the disk cache) -- */
  sk_ccode c;
  if (tier != SK_TIER_TCC && sk_cc_lookup(k->source, &c)) {
    install_cc(k, &c); /* a previous process compiled it */
  } else {
    if (tier == SK_TIER_CC) want_cc_now(k);
    if (cplx && k->tier != SK_TIER_CC) {
      sk_err(err, errlen, SK_E_COMPLEX_NEEDS_CC, k->warning[0] ? k->warning : "no compiler");
      sk_kernel_free(k);
      return -1;
    }
    if (k->tier != SK_TIER_CC) {
      if (tcc_compile(k, k->source, k->user, err, errlen) < 0) {
        sk_kernel_free(k);
        return -1;
      }
      k->compiles[SK_TIER_TCC]++;
      k->compile_seconds += now() - t0;
    }
  }
  *out = publish(k, s, tier);
  memo_put(set, s, *out, epoch, cplx);
  return 0;
}

/* -- precompiled kernels -------------------------------------------------- */
uint64_t sk_jit_key_hash(const sk_kspec *s) {
  encode_key(key_buffer(), s);
  return key_hash(keybuf.s, keybuf.n);
}

int sk_jit_seed(const sk_kspec *s, void *fn, void *init, void *join, void *layout,
                char *err, size_t errlen) {
  encode_key(key_buffer(), s);
  if (keybuf.oom) {
    sk_err(err, errlen, SK_E_OUT_MEMORY_ENCODING);
    return -1;
  }
  uint64_t h = key_hash(keybuf.s, keybuf.n);
  if (sk_cache_find(h, keybuf.s, keybuf.n)) return 0;
  sk_kernel *k = calloc(1, sizeof *k);
  if (!k) {
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  k->hash = h;
  k->keylen = keybuf.n;
  k->key = malloc(keybuf.n);
  k->label = dupstr(s->label);
  k->want = SK_TIER_AUTO;
  k->nred = s->nred;
  for (int r = 0; r < s->nred; r++) {
    k->reds[r] = s->reds[r];
    k->reds[r].init = dupstr(s->reds[r].init);
    k->reds[r].join = dupstr(s->reds[r].join);
  }
  err[0] = '\0';
  k->source = sk_jit_target_of(s)->codegen(s, err, errlen);
  if (!k->key || !k->label || !k->source) {
    sk_kernel_free(k);
    if (!err[0]) sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  memcpy(k->key, keybuf.s, keybuf.n);
  sk_jit_install(k, fn, init, join, layout, SK_TIER_PRE);
  if (sk_cache_insert(k) != k) sk_kernel_free(k); /* seeded meanwhile */
  return 0;
}

void sk_jit_warm(const char *target, const char *arch) {
  const sk_jit_target *t = sk_jit_target_find(target);
  if (t && t->warm) t->warm(arch);
}
