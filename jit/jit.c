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

#include "jit.h"
#include "strbuf.h"

/* a character of a C identifier (file names of dumped sources) */
static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* -- key --------------------------------------------------------------- */
/* Bytes, not text: this runs on every launch. Strings end with their
 * NUL, small integers are one byte each. */
static void put_str(sk_buf *b, const char *s) {
  if (s) sk_buf_add(b, s, strlen(s) + 1);
  else sk_buf_add(b, "", 1);
}

static void encode_key(sk_buf *b, const sk_kspec *s) {
  unsigned char head[7] = {'s', 'k', (unsigned char)s->code,
                           (unsigned char)s->pattern,
                           (unsigned char)s->policy_kind, (unsigned char)s->md_rank,
                           (unsigned char)s->bounds};
  sk_buf_add(b, (const char *)head, sizeof head);
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    /* the memory space too: a kernel for device memory may skip the
     * synchronisation a host-visible (pinned, managed) capture needs */
    unsigned char f[7] = {(unsigned char)k->kind, (unsigned char)k->dtype,
                          (unsigned char)k->rank, (unsigned char)k->layout,
                          (unsigned char)k->traits, (unsigned char)k->alias,
                          (unsigned char)k->space};
    put_str(b, k->name);
    sk_buf_add(b, (const char *)f, sizeof f);
  }
  sk_buf_add(b, "|", 1);
  for (int r = 0; r < s->nred; r++) {
    const sk_reducer *q = &s->reds[r];
    unsigned char f[2] = {(unsigned char)q->op, (unsigned char)q->dtype};
    sk_buf_add(b, (const char *)f, sizeof f);
    if (q->op == SK_RED_CUSTOM) {
      put_str(b, q->init);
      put_str(b, q->join);
    }
  }
  sk_buf_add(b, "|", 1);
  for (int d = 0; d < SK_MAXMD; d++) put_str(b, s->index[d]);
  put_str(b, s->prelude);
  sk_buf_add(b, s->body, s->body_len);
}

/* -- kernels ----------------------------------------------------------- */
void sk_jit_install(sk_kernel *k, void *fn, void *init, void *join,
                    void *layout, int tier) {
  k->init = (sk_init_fn)init;
  k->join = (sk_join_fn)join;
  if (layout) {
    long off[SK_MAXRED];
    long size = ((long (*)(long *))layout)(off);
    k->acc_size = (size_t)size;
    for (int r = 0; r < k->nred; r++) k->acc_off[r] = off[r];
  }
  k->tier = tier;
  /* written last: a reader that sees the new 'fn' sees the rest */
  __atomic_store_n(&k->fn, fn, __ATOMIC_RELEASE);
}

void sk_kernel_free(sk_kernel *k) {
  if (!k) return;
  sk_tcc_free(k->tcc_state);
  if (k->gpu) sk_nvrtc_free(k->gpu);
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
  snprintf(path, sizeof path, "%s/%s-%016llx.c", dir, safe,
           (unsigned long long)k->hash);
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
  if (sk_env_jit(&t, err, errlen) < 0) return -1;   /* asked again next time */
  __atomic_store_n(&default_tier, t, __ATOMIC_RELAXED);
  return t;
}

int sk_jit_default_tier(void) {
  char err[8];
  int t = sk_jit_tier(SK_TIER_AUTO, err, sizeof err);
  return t < 0 ? SK_TIER_AUTO : t;
}

static void install_cc(sk_kernel *k, sk_ccode *c) {
  k->cc_dl = c->dl;
  if (c->from_disk)
    k->disk_hits++;
  else
    k->compiles[SK_TIER_CC]++;
  k->compile_seconds += c->seconds;
  sk_jit_install(k, c->fn, c->init, c->join, c->layout, SK_TIER_CC);
}

/* The background compiler: one thread, a FIFO of kernels. */
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
    if (!bg_head) {   /* stopping: the queue is empty */
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

static void bg_enqueue(sk_kernel *k) {
  __atomic_store_n(&k->cc_state, SK_CC_PENDING, __ATOMIC_RELAXED);
  pthread_mutex_lock(&bg_lock);
  if (!bg_started) {
    if (pthread_create(&bg_thread, NULL, bg_main, NULL) != 0) {
      pthread_mutex_unlock(&bg_lock);
      snprintf(k->warning, sizeof k->warning, "cannot start the background compiler");
      __atomic_store_n(&k->cc_state, SK_CC_FAILED, __ATOMIC_RELAXED);
      return;
    }
    bg_started = 1;
  }
  k->bg_next = NULL;
  if (bg_tail) bg_tail->bg_next = k; else bg_head = k;
  bg_tail = k;
  pthread_cond_signal(&bg_work);
  pthread_mutex_unlock(&bg_lock);
}

void sk_jit_drain(void) {
  pthread_mutex_lock(&bg_lock);
  while (bg_head || bg_busy) pthread_cond_wait(&bg_idle, &bg_lock);
  pthread_mutex_unlock(&bg_lock);
}

/* Finish the queue and join the background compiler: after this no thread
 * runs this library's code, so the module holding it may be unloaded (a
 * drained thread may still be between its unlock and its next wait). The
 * next tier-up starts a new thread. */
void sk_jit_stop(void) {
  pthread_mutex_lock(&bg_lock);
  if (!bg_started) {
    pthread_mutex_unlock(&bg_lock);
    return;
  }
  bg_stop = 1;
  pthread_cond_broadcast(&bg_work);
  pthread_mutex_unlock(&bg_lock);
  pthread_join(bg_thread, NULL);
  pthread_mutex_lock(&bg_lock);
  bg_started = 0;
  bg_stop = 0;
  pthread_mutex_unlock(&bg_lock);
}

/* Install a finished background compile; called at launch time, so the
 * switch happens between launches, never inside one. */
void sk_jit_refresh(sk_kernel *k) {
  int st = __atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE);
  if (st == SK_CC_READY) {
    install_cc(k, &k->cc_staged);
    memset(&k->cc_staged, 0, sizeof k->cc_staged);
    k->tierups++;
    k->cc_state = SK_CC_NONE;
  } else if (st == SK_CC_FAILED && !k->warning[0]) {
    snprintf(k->warning, sizeof k->warning, "%s", k->cc_err);
  }
}

int sk_jit_entry(sk_kernel *k, void **fn, sk_init_fn *init, sk_join_fn *join,
                 char *err, size_t errlen) {
  sk_jit_refresh(k);
  if (k->want == SK_TIER_TCC && k->tier == SK_TIER_CC) {
    if (!k->tcc_fn) {
      if (sk_tcc_compile(k, k->source, err, errlen) < 0) return -1;
      k->compiles[SK_TIER_TCC]++;
    }
    *fn = k->tcc_fn;
    *init = k->tcc_init;
    *join = k->tcc_join;
    return 0;
  }
  *fn = __atomic_load_n(&k->fn, __ATOMIC_ACQUIRE);
  *init = k->init;
  *join = k->join;
  return 0;
}

void sk_jit_after_launch(sk_kernel *k, double seconds) {
  k->run_seconds += seconds;
  if (k->tier != SK_TIER_TCC || k->want != SK_TIER_AUTO) return;
  if (__atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE) != SK_CC_NONE) return;
  if (k->launches < SK_TIERUP_LAUNCHES && k->run_seconds < SK_TIERUP_SECONDS)
    return;
  if (!sk_cc_available()) return;
  bg_enqueue(k);
}

/* Synchronous cc compile for jit = "cc"; on failure the kernel stays on
 * libtcc code with a warning (never an error). */
static void want_cc_now(sk_kernel *k) {
  if (__atomic_load_n(&k->cc_state, __ATOMIC_ACQUIRE) == SK_CC_PENDING) sk_jit_drain();
  sk_jit_refresh(k);
  if (k->tier == SK_TIER_CC || k->cc_state == SK_CC_FAILED) return;
  sk_ccode c;
  char err[sizeof k->warning];
  if (sk_cc_build(k->source, &c, err, sizeof err) == 0) {
    install_cc(k, &c);
  } else {
    snprintf(k->warning, sizeof k->warning, "%s", err);
    k->cc_state = SK_CC_FAILED;
  }
}

static _Thread_local sk_buf keybuf;

int sk_jit_get(const sk_kspec *s, sk_kernel **out, char *err, size_t errlen) {
  sk_buf_reset(&keybuf);
  encode_key(&keybuf, s);
  if (keybuf.oom) {
    snprintf(err, errlen, "out of memory encoding the kernel key");
    return -1;
  }
  int tier = sk_jit_tier(s->tier, err, errlen);
  if (tier < 0) return -1;
  uint64_t h = sk_hash(keybuf.s, keybuf.n, 0);
  sk_kernel *k = sk_cache_find(h, keybuf.s, keybuf.n);
  if (k) {
    k->hits++;
    k->launches++;
    if (strcmp(k->label, s->label) != 0) sk_cache_label(s->label, k);
    k->want = tier;
    if (tier == SK_TIER_CC && k->tier == SK_TIER_TCC) want_cc_now(k);
    *out = k;
    return 0;
  }
  if (sk_jit_check(s, err, errlen) < 0) return -1;
  k = calloc(1, sizeof *k);
  if (!k) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
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
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  memcpy(k->key, keybuf.s, keybuf.n);
  double t0 = now();
  /* -- CUDA target: codegen_cuda.c + NVRTC (nvrtc.c), no tcc/cc tiers -- */
  if (s->code == SK_CODE_CUDA) {
    k->source = sk_codegen_cuda(s, err, errlen);
    if (k->source) dump_source(k);
    if (!k->source || sk_nvrtc_compile(k, s, k->source, err, errlen) < 0) {
      sk_kernel_free(k);
      return -1;
    }
    k->launches++;
    sk_cache_insert(k);
    *out = k;
    return 0;
  }
  k->source = sk_codegen_host(s, err, errlen);
  if (!k->source) {
    sk_kernel_free(k);
    return -1;
  }
  dump_source(k);
  sk_ccode c;
  if (tier != SK_TIER_TCC && sk_cc_lookup(k->source, &c)) {
    install_cc(k, &c);          /* a previous process compiled it */
  } else {
    if (tier == SK_TIER_CC) want_cc_now(k);
    if (k->tier != SK_TIER_CC) {
      if (sk_tcc_compile(k, k->source, err, errlen) < 0) {
        sk_kernel_free(k);
        return -1;
      }
      k->compiles[SK_TIER_TCC]++;
      k->compile_seconds += now() - t0;
    }
  }
  k->launches++;
  sk_cache_insert(k);
  *out = k;
  return 0;
}

/* -- precompiled kernels -------------------------------------------------- */
uint64_t sk_jit_key_hash(const sk_kspec *s) {
  sk_buf_reset(&keybuf);
  encode_key(&keybuf, s);
  return sk_hash(keybuf.s, keybuf.n, 0);
}

int sk_jit_seed(const sk_kspec *s, void *fn, void *init, void *join,
                void *layout, char *err, size_t errlen) {
  sk_buf_reset(&keybuf);
  encode_key(&keybuf, s);
  if (keybuf.oom) {
    snprintf(err, errlen, "out of memory encoding the kernel key");
    return -1;
  }
  uint64_t h = sk_hash(keybuf.s, keybuf.n, 0);
  if (sk_cache_find(h, keybuf.s, keybuf.n)) return 0;
  sk_kernel *k = calloc(1, sizeof *k);
  if (!k) {
    snprintf(err, errlen, "out of memory");
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
  k->source = sk_codegen_host(s, err, errlen);
  if (!k->key || !k->label || !k->source) {
    sk_kernel_free(k);
    if (!err[0]) snprintf(err, errlen, "out of memory");
    return -1;
  }
  memcpy(k->key, keybuf.s, keybuf.n);
  sk_jit_install(k, fn, init, join, layout, SK_TIER_PRE);
  sk_cache_insert(k);
  return 0;
}
