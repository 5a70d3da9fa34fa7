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

int sk_jit_check(const sk_kspec *s, char *err, size_t errlen) {
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
  for (int d = 0; d < SK_MAXMD; d++) {
    const char *n = s->index[d];
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

/* -- key --------------------------------------------------------------- */
static const char *code_target(const char *backend) {
  return strcmp(backend, "cuda") == 0 ? "cuda" : "host";
}

static void encode_key(sk_buf *b, const sk_kspec *s) {
  sk_buf_printf(b, "speck1|%s|%d|%d|%d|", code_target(s->target), s->pattern,
                s->policy_kind, s->md_rank);
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    sk_buf_printf(b, "%s:%d:%d:%d:%d:%u:%d;", k->name, k->kind, k->dtype,
                  k->rank, k->layout, k->traits, k->alias);
  }
  sk_buf_puts(b, "|");
  for (int r = 0; r < s->nred; r++) {
    const sk_reducer *q = &s->reds[r];
    sk_buf_printf(b, "%d:%d", q->op, q->dtype);
    if (q->op == SK_RED_CUSTOM) {
      sk_buf_add(b, q->init, strlen(q->init) + 1);
      sk_buf_add(b, q->join, strlen(q->join) + 1);
    }
    sk_buf_puts(b, ";");
  }
  sk_buf_puts(b, "|");
  for (int d = 0; d < SK_MAXMD; d++)
    sk_buf_printf(b, "%s,", s->index[d] ? s->index[d] : "");
  sk_buf_puts(b, "|");
  if (s->prelude) sk_buf_add(b, s->prelude, strlen(s->prelude) + 1);
  sk_buf_puts(b, "|");
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

static _Thread_local sk_buf keybuf;

int sk_jit_get(const sk_kspec *s, sk_kernel **out, char *err, size_t errlen) {
  sk_buf_reset(&keybuf);
  encode_key(&keybuf, s);
  if (keybuf.oom) {
    snprintf(err, errlen, "out of memory encoding the kernel key");
    return -1;
  }
  uint64_t h = sk_hash(keybuf.s, keybuf.n, 0);
  sk_kernel *k = sk_cache_find(h, keybuf.s, keybuf.n);
  if (k) {
    k->hits++;
    k->launches++;
    *out = k;
    return 0;
  }
  if (sk_jit_check(s, err, errlen) < 0) return -1;
  if (strcmp(code_target(s->target), "host") != 0) {
    snprintf(err, errlen, "no code generator for back end '%s'", s->target);
    return -1;
  }
  k = calloc(1, sizeof *k);
  if (!k) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  k->hash = h;
  k->keylen = keybuf.n;
  k->key = malloc(keybuf.n);
  k->label = dupstr(s->label);
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
  k->source = sk_codegen_host(s, err, errlen);
  if (!k->source) {
    sk_kernel_free(k);
    return -1;
  }
  dump_source(k);
  if (sk_tcc_compile(k, k->source, err, errlen) < 0) {
    sk_kernel_free(k);
    return -1;
  }
  k->compile_seconds += now() - t0;
  k->compiles[SK_TIER_TCC]++;
  k->launches++;
  sk_cache_insert(k);
  *out = k;
  return 0;
}
