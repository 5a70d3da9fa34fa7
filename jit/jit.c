/* jit.c: the staged JIT front: check a spec, encode it as a key, look it
 * up, and on a miss generate and compile it.
 *
 * The key is every byte that determines the generated source: code
 * target, pattern, policy kind and MDRange rank, the captures (name,
 * kind, dtype, rank, layout, traits, aliasing; never extents or values),
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

/* -- checks ------------------------------------------------------------ */
static int is_ident(const char *s) {
  if (!s || !*s) return 0;
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
    return 0;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* skip a comment or literal starting at p[0]; returns the new position */
static size_t skip_lit(const char *p, size_t i, size_t n) {
  if (p[i] == '/' && i + 1 < n && p[i + 1] == '/') {
    while (i < n && p[i] != '\n') i++;
    return i;
  }
  if (p[i] == '/' && i + 1 < n && p[i + 1] == '*') {
    i += 2;
    while (i + 1 < n && !(p[i] == '*' && p[i + 1] == '/')) i++;
    return i + 2 < n ? i + 2 : n;
  }
  if (p[i] == '"' || p[i] == '\'') {
    char q = p[i++];
    while (i < n && p[i] != q) i += p[i] == '\\' ? 2 : 1;
    return i + 1 < n ? i + 1 : n;
  }
  return i;
}

/* Number of arguments in the parenthesised list starting at p[i] == '(';
 * *end receives the index after ')'. -1 if unbalanced. */
static int count_args(const char *p, size_t i, size_t n, size_t *end) {
  int depth = 0, commas = 0, nonblank = 0;
  while (i < n) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      nonblank = 1;
      i = j;
      continue;
    }
    char c = p[i];
    if (c == '(' || c == '[' || c == '{') {
      if (depth > 0) nonblank = 1;
      depth++;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        *end = i + 1;
        return nonblank ? commas + 1 : 0;
      }
      nonblank = 1;
    } else if (c == ',' && depth == 1) {
      commas++;
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      nonblank = 1;
    }
    i++;
  }
  return -1;
}

static int line_of(const char *p, size_t i) {
  int line = 1;
  for (size_t t = 0; t < i; t++) line += p[t] == '\n';
  return line;
}

/* Team constructs: words only a TeamPolicy body may use, loops whose
 * members run different iteration counts, and the collectives that must
 * not sit inside those loops (they would hang or be meaningless). */
static const char *const team_words[] = {
  "team", "TEAM_FOR", "VECTOR_FOR", "TEAM_VECTOR_FOR", "TEAM_REDUCE",
  "VECTOR_REDUCE", "TEAM_VECTOR_REDUCE", "TEAM_SCAN", "VECTOR_SCAN",
  "team_barrier", "SINGLE_TEAM", "SINGLE_THREAD", "TEAM_BROADCAST",
  "team_scratch", "thread_scratch", NULL};
static const char *const loop_words[] = {
  "TEAM_FOR", "VECTOR_FOR", "TEAM_VECTOR_FOR", "TEAM_REDUCE", "VECTOR_REDUCE",
  "TEAM_VECTOR_REDUCE", "TEAM_SCAN", "VECTOR_SCAN", "SINGLE_TEAM", NULL};
static const char *const collective_words[] = {
  "team_barrier", "TEAM_BROADCAST", "TEAM_REDUCE", "TEAM_SCAN",
  "TEAM_VECTOR_REDUCE", NULL};

static int in_list(const char *const *list, const char *p, size_t len) {
  for (int t = 0; list[t]; t++)
    if (strlen(list[t]) == len && memcmp(list[t], p, len) == 0) return t;
  return -1;
}

/* end of the statement or block that starts at p[i] */
static size_t stmt_end(const char *p, size_t i, size_t n) {
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  int depth = 0;
  while (i < n) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    char c = p[i++];
    if (c == '{' || c == '(' || c == '[') depth++;
    else if (c == '}' || c == ')' || c == ']') {
      if (--depth <= 0 && c == '}') return i;
    } else if (c == ';' && depth == 0) return i;
  }
  return n;
}

/* next identifier at or after *i (skipping literals and members) */
static int next_ident(const char *p, size_t n, size_t *i, size_t *b, size_t *len) {
  while (*i < n) {
    size_t j = skip_lit(p, *i, n);
    if (j != *i) {
      *i = j;
      continue;
    }
    if (ident_char(p[*i]) && !(p[*i] >= '0' && p[*i] <= '9') &&
        !(*i > 0 && (ident_char(p[*i - 1]) || p[*i - 1] == '.' ||
                     (p[*i - 1] == '>' && *i > 1 && p[*i - 2] == '-')))) {
      *b = *i;
      while (*i < n && ident_char(p[*i])) (*i)++;
      *len = *i - *b;
      return 1;
    }
    (*i)++;
  }
  return 0;
}

static int check_team_words(const sk_kspec *s, char *err, size_t errlen) {
  const char *p = s->body;
  size_t n = s->body_len, i = 0, b, len;
  while (next_ident(p, n, &i, &b, &len)) {
    int w = in_list(team_words, p + b, len);
    if (w >= 0 && s->policy_kind != SK_POL_TEAM) {
      snprintf(err, errlen,
               "'%s' is a team construct, but this kernel runs %s (use a "
               "TeamPolicy) (body line %d)",
               team_words[w],
               s->policy_kind == SK_POL_RANGE ? "a RangePolicy" : "an MDRangePolicy",
               line_of(p, b));
      return -1;
    }
    if (s->policy_kind != SK_POL_TEAM || in_list(loop_words, p + b, len) < 0)
      continue;
    /* a nested loop: look for collectives inside its body */
    size_t k = i;
    while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n')) k++;
    if (k >= n || p[k] != '(') continue;
    size_t after;
    if (count_args(p, k, n, &after) < 0) continue;
    size_t end = stmt_end(p, after, n), q = after, cb, clen;
    while (q < end && next_ident(p, end, &q, &cb, &clen)) {
      int c = in_list(collective_words, p + cb, clen);
      if (c < 0) continue;
      snprintf(err, errlen,
               "%s inside %s (body line %d): the members of a team do not all "
               "reach it equally often, so the team would hang",
               collective_words[c], team_words[in_list(team_words, p + b, len)],
               line_of(p, cb));
      return -1;
    }
  }
  return 0;
}

int sk_jit_check(const sk_kspec *s, char *err, size_t errlen) {
  if (check_team_words(s, err, errlen) < 0) return -1;
  for (int c = 0; c < s->ncap; c++) {
    const char *n = s->caps[c].name;
    if (!is_ident(n)) {
      snprintf(err, errlen, "capture name '%s' is not a C identifier", n);
      return -1;
    }
    if (sk_codegen_reserved(n)) {
      snprintf(err, errlen,
               "capture name '%s' collides with a word of the kernel dialect",
               n);
      return -1;
    }
    for (int d = 0; d < SK_MAXMD; d++)
      if (s->index[d] && strcmp(s->index[d], n) == 0) {
        snprintf(err, errlen, "capture name '%s' is also an index name", n);
        return -1;
      }
  }
  int want = s->policy_kind == SK_POL_RANGE ? 1
             : s->policy_kind == SK_POL_MDRANGE ? s->md_rank : 0;
  for (int d = 0; d < SK_MAXMD; d++) {
    const char *n = s->index[d];
    if (n && d >= want) {
      int given = d + 1;
      while (given < SK_MAXMD && s->index[given]) given++;
      snprintf(err, errlen, "opts.index names %d indices, the policy has %d", given, want);
      return -1;
    }
    for (int e = 0; n && e < d; e++)
      if (s->index[e] && strcmp(s->index[e], n) == 0) {
        snprintf(err, errlen, "opts.index names '%s' twice", n);
        return -1;
      }
    if (n && (!is_ident(n) || (sk_codegen_reserved(n) && strcmp(n, "i") &&
                               strcmp(n, "j") && strcmp(n, "k")))) {
      snprintf(err, errlen, "index name '%s' is not a usable C identifier", n);
      return -1;
    }
  }
  /* every use 'x(' of a view must pass 'rank' indices */
  const char *p = s->body;
  size_t n = s->body_len;
  for (size_t i = 0; i < n;) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    if (!ident_char(p[i]) || (i > 0 && (ident_char(p[i - 1]) || p[i - 1] == '.' ||
                                        (p[i - 1] == '>' && i > 1 && p[i - 2] == '-')))) {
      i++;
      continue;
    }
    size_t b = i;
    while (i < n && ident_char(p[i])) i++;
    size_t len = i - b;
    const sk_capture *v = NULL;
    for (int c = 0; c < s->ncap; c++)
      if (s->caps[c].kind == SK_CAP_VIEW && strlen(s->caps[c].name) == len &&
          memcmp(s->caps[c].name, p + b, len) == 0)
        v = &s->caps[c];
    if (!v) continue;
    size_t k = i;
    while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\n')) k++;
    if (k >= n || p[k] != '(') continue;
    size_t end;
    int na = count_args(p, k, n, &end);
    if (na < 0) continue; /* the compiler reports unbalanced parentheses */
    if (na != v->rank) {
      snprintf(err, errlen,
               "view '%s' is rank %d, body indexes it with %d ind%s (body line %d)",
               v->name, v->rank, na, na == 1 ? "ex" : "ices", line_of(p, b));
      return -1;
    }
  }
  return 0;
}

/* -- the atomic trait ---------------------------------------------------- */
/* Rewrite element updates of views with the 'atomic' trait into atomics:
 * x(..) += e;  -> (atomic_fetch_add(&x(..), (e)));  likewise -=, &=, |=, ^=
 * (as a value: the old element); x(..) = e -> atomic_exchange;
 * x(..)++ -> the old value, ++x(..) -> the new one (fetch_add + 1).
 * Other forms (*=, /=, reads) are left as they are. No newline is added,
 * so body line numbers stay right. Returns NULL when nothing changes. */
static int atomic_view(const sk_kspec *s, const char *p, size_t len) {
  for (int c = 0; c < s->ncap; c++)
    if (s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_ATOMIC) &&
        strlen(s->caps[c].name) == len && memcmp(s->caps[c].name, p, len) == 0)
      return 1;
  return 0;
}

static size_t skip_ws(const char *p, size_t i, size_t n) {
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  return i;
}

/* end of an expression: the next ';' or ',' or ')' at depth 0 */
static size_t expr_end(const char *p, size_t i, size_t n) {
  int depth = 0;
  while (i < n) {
    size_t j = skip_lit(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    char c = p[i];
    if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return i;
      depth--;
    } else if ((c == ';' || c == ',') && depth == 0) return i;
    i++;
  }
  return n;
}

char *sk_body_atomic(const sk_kspec *s) {
  int any = 0;
  for (int c = 0; c < s->ncap; c++)
    any |= s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_ATOMIC);
  if (!any) return NULL;
  const char *p = s->body;
  size_t n = s->body_len, i = 0, b, len, copied = 0;
  sk_buf o;
  sk_buf_init(&o);
  while (next_ident(p, n, &i, &b, &len)) {
    if (!atomic_view(s, p + b, len)) continue;
    size_t k = skip_ws(p, i, n), end;
    if (k >= n || p[k] != '(' || count_args(p, k, n, &end) < 0) continue;
    /* prefix ++x(..) / --x(..) */
    size_t pb = b;
    while (pb > 0 && (p[pb - 1] == ' ' || p[pb - 1] == '\t')) pb--;
    int pre = pb >= 2 && (p[pb - 1] == '+' || p[pb - 1] == '-') && p[pb - 2] == p[pb - 1];
    size_t q = skip_ws(p, end, n);
    const char *fn = NULL;
    size_t rhs_b = 0, rhs_e = 0, stop = end;
    const char *post = "";  /* prefix ++/--: the new value */
    if (pre) {
      fn = p[pb - 1] == '+' ? "atomic_fetch_add" : "atomic_fetch_sub";
      post = p[pb - 1] == '+' ? " + 1" : " - 1";
      b = pb - 2;
    } else if (q + 1 < n && (p[q] == '+' || p[q] == '-') && p[q + 1] == p[q]) {
      fn = p[q] == '+' ? "atomic_fetch_add" : "atomic_fetch_sub";
      stop = q + 2;
    } else if (q + 1 < n && p[q + 1] == '=' &&
               (p[q] == '+' || p[q] == '-' || p[q] == '&' || p[q] == '|' || p[q] == '^')) {
      fn = p[q] == '+' ? "atomic_fetch_add" : p[q] == '-' ? "atomic_fetch_sub"
           : p[q] == '&' ? "atomic_fetch_and" : p[q] == '|' ? "atomic_fetch_or"
                         : "atomic_fetch_xor";
      rhs_b = q + 2;
    } else if (q < n && p[q] == '=' && !(q + 1 < n && p[q + 1] == '=')) {
      fn = "atomic_exchange";
      rhs_b = q + 1;
    }
    if (!fn) continue;
    sk_buf_add(&o, p + copied, b - copied);
    sk_buf_printf(&o, "(%s(&", fn);
    size_t vb = skip_ws(p, pre ? b + 2 : b, n);
    sk_buf_add(&o, p + vb, end - vb);
    if (rhs_b) {
      rhs_e = expr_end(p, rhs_b, n);
      sk_buf_puts(&o, ", (");
      sk_buf_add(&o, p + rhs_b, rhs_e - rhs_b);
      sk_buf_puts(&o, ")))");
      stop = rhs_e;
    } else {
      sk_buf_printf(&o, ", 1)%s)", post);
    }
    copied = stop;
    i = stop;
  }
  sk_buf_add(&o, p + copied, n - copied);
  return sk_buf_take(&o);
}

/* -- key --------------------------------------------------------------- */
/* The code target as the key's first byte: the back end's SK_CODE_*
 * (back ends that share one share compiled kernels). */
static unsigned char code_target(const sk_kspec *s) {
  return (unsigned char)(s->code >= 0 && s->code < SK_NCODE ? s->code : SK_CODE_HOST);
}

/* Bytes, not text: this runs on every launch. Strings end with their
 * NUL, small integers are one byte each. */
static void put_str(sk_buf *b, const char *s) {
  if (s) sk_buf_add(b, s, strlen(s) + 1);
  else sk_buf_add(b, "", 1);
}

static void encode_key(sk_buf *b, const sk_kspec *s) {
  unsigned char head[6] = {'s', 'k', (unsigned char)s->pattern,
                           (unsigned char)s->policy_kind, (unsigned char)s->md_rank,
                           (unsigned char)s->bounds};
  unsigned char code = code_target(s);
  sk_buf_add(b, (const char *)&code, 1);
  if (code != SK_CODE_HOST) put_str(b, s->arch);   /* image targets */
  sk_buf_add(b, (const char *)head, sizeof head);
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    unsigned char f[6] = {(unsigned char)k->kind, (unsigned char)k->dtype,
                          (unsigned char)k->rank, (unsigned char)k->layout,
                          (unsigned char)k->traits, (unsigned char)k->alias};
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

int sk_jit_default_tier(void) {
  int t = __atomic_load_n(&default_tier, __ATOMIC_RELAXED);
  if (t >= 0) return t;
  const char *e = getenv("SPECK_JIT");
  t = SK_TIER_AUTO;
  if (e && strcmp(e, "tcc") == 0) t = SK_TIER_TCC;
  else if (e && strcmp(e, "cc") == 0) t = SK_TIER_CC;
  __atomic_store_n(&default_tier, t, __ATOMIC_RELAXED);
  return t;
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
static int bg_started, bg_busy;

static void *bg_main(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&bg_lock);
    while (!bg_head) pthread_cond_wait(&bg_work, &bg_lock);
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
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, bg_main, NULL) != 0) {
      pthread_attr_destroy(&a);
      pthread_mutex_unlock(&bg_lock);
      snprintf(k->warning, sizeof k->warning, "cannot start the background compiler");
      __atomic_store_n(&k->cc_state, SK_CC_FAILED, __ATOMIC_RELAXED);
      return;
    }
    pthread_attr_destroy(&a);
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
  int tier = s->tier != SK_TIER_AUTO ? s->tier : sk_jit_default_tier();
  uint64_t h = sk_hash(keybuf.s, keybuf.n, 0);
  sk_kernel *k = sk_cache_find(h, keybuf.s, keybuf.n);
  if (k) {
    k->hits++;
    k->launches++;
    if (strcmp(k->label, s->label) != 0) sk_cache_label(s->label, k);
    k->want = tier;
    if (tier == SK_TIER_CC && k->tier != SK_TIER_CC && !k->image) want_cc_now(k);
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
  /* -- CUDA C target: codegen_cuda.c + NVRTC (nvrtc.c) make an image for
   * s->arch; no tcc/cc tiers. The back end loads it at the first launch
   * (exec/), so nothing here touches a device. -- */
  if (code_target(s) == SK_CODE_CUDA) {
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
