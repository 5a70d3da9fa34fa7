/* fuzz_codegen.c: libFuzzer harness of the kernel-body path up to code
 * generation.
 *
 * The input is decoded into what a front end hands exec/: a policy, a
 * pattern, reducers, captures (views and scalars, their names), index
 * names, a label, a prelude and a body. It goes through the same steps as
 * sk_run before a compiler is called: sk_policy_check, sk_exec_spec (the
 * captures and reducers), sk_jit_check, then sk_codegen_host or
 * sk_codegen_cuda. A refusal must come with a message; an accepted spec
 * must give source in which the user's text stays where it was put. That
 * is judged here by a lexer of our own (not check.c's): the body lies
 * between '#line 1 "body"' and '#undef return', starts and ends in plain
 * code at the same bracket depth without going below it, holds no
 * directive, splice, trigraph or digraph; the prelude and a custom
 * reducer's code likewise; the first line is one closed comment; the file
 * ends at depth 0 in plain code. With FUZZ_COMPILE=1 every accepted host
 * source is also compiled with libtcc, and a compile error must be
 * reported on a line of the user's text, never on a generated one.
 *
 * Input layout (bytes past the end read as 0): pattern, policy kind,
 * MDRange rank, flags (bit 0 bounds, bit 1 CUDA, bits 2-3 tier), number
 * of captures, number of reducers, scan dtype, schedule, 10 policy
 * values (indices into 'vals'), 5 bytes per capture, 2 per reducer, then NUL-terminated
 * strings: capture names, 6 index names ("" = default), label, prelude
 * ("" = none), init and join of each custom reducer; the rest is the body
 * (NULs included).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../exec/exec.h"
#include "../../jit/codegen.h"
#include "../../backends/cuda/codegen.h"
#include "../../jit/target.h"
#include "../../jit/strbuf.h"

/* -- input ------------------------------------------------------------------ */
typedef struct in {
  const uint8_t *p;
  size_t n, i;
} in;

static int byte(in *s) { return s->i < s->n ? s->p[s->i++] : 0; }

static const int64_t vals[] = {0,
                               1,
                               2,
                               3,
                               4,
                               7,
                               8,
                               16,
                               31,
                               32,
                               64,
                               100,
                               1000,
                               4096,
                               65536,
                               1 << 20,
                               -1,
                               -2,
                               -100,
                               INT32_MAX,
                               INT32_MIN,
                               (int64_t)INT32_MAX + 1,
                               INT64_MAX,
                               INT64_MIN,
                               INT64_MAX - 1,
                               INT64_MIN + 1,
                               (int64_t)1 << 40,
                               (int64_t)1 << 62,
                               SK_AUTO,
                               1024,
                               1025,
                               33};
#define NVALS (int)(sizeof vals / sizeof vals[0])

static int64_t val(in *s) { return vals[byte(s) % NVALS]; }

/* the next NUL-terminated string (the rest when there is no NUL) */
static const char *str(in *s, char *store, size_t cap, size_t *used) {
  size_t b = s->i, e = b;
  while (e < s->n && s->p[e]) e++;
  size_t len = e - b;
  s->i = e < s->n ? e + 1 : e;
  if (*used + len + 1 > cap) len = cap - *used - 1;
  char *d = store + *used;
  memcpy(d, s->p + b, len);
  d[len] = '\0';
  *used += len + 1;
  return d;
}

/* -- a lexer of our own ------------------------------------------------------ */
enum { CODE, LCOMMENT, BCOMMENT, STR, CHR };

typedef struct lex {
  const char *p;
  size_t n;
  int state, depth, bol, splice;
} lex;

#define MAXDIR 1024
typedef struct dir {
  size_t at, end; /* the '#', the end of its line */
  int depth;      /* bracket depth there */
} dir;

static void fail(const char *what, const char *src) {
  fprintf(stderr, "fuzz_codegen: %s\n---- source ----\n%s\n----\n", what, src ? src : "");
  abort();
}

/* Lex p[from, to) from state 'x'; every position's state and depth goes
 * to st/dp (when not NULL), directives in code at line starts to d[]. The
 * depth may go negative: the caller judges. */
static int run_lex(lex *x, size_t from, size_t to, unsigned char *st, int *dp, dir *d,
                   int maxd) {
  int nd = 0;
  for (size_t i = from; i < to; i++) {
    char c = x->p[i];
    if (st) st[i] = (unsigned char)x->state;
    if (dp) dp[i] = x->depth;
    if (c == '\\' && i + 1 < to && x->p[i + 1] == '\n') {
      x->splice = 1;
      if (st) st[i + 1] = (unsigned char)x->state;
      if (dp) dp[i + 1] = x->depth;
      i++;
      continue;
    }
    switch (x->state) {
    case LCOMMENT:
      if (c == '\n') {
        x->state = CODE;
        x->bol = 1;
      }
      break;
    case BCOMMENT:
      if (c == '*' && i + 1 < to && x->p[i + 1] == '/') {
        x->state = CODE;
        if (st) st[i + 1] = BCOMMENT;
        if (dp) dp[i + 1] = x->depth;
        i++;
      }
      break;
    case STR:
    case CHR:
      if (c == '\\' && i + 1 < to) {
        if (st) st[i + 1] = (unsigned char)x->state;
        if (dp) dp[i + 1] = x->depth;
        i++;
      } else if (c == (x->state == STR ? '"' : '\'') || c == '\n') {
        x->state = CODE; /* an unclosed literal ends at the line (C) */
        if (c == '\n') x->bol = 1;
      }
      break;
    default:
      if (c == '\n') {
        x->bol = 1;
        break;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') break;
      if (c == '/' && i + 1 < to && x->p[i + 1] == '/') {
        x->state = LCOMMENT;
        break;
      }
      if (c == '/' && i + 1 < to && x->p[i + 1] == '*') {
        x->state = BCOMMENT;
        if (st) st[i + 1] = BCOMMENT;
        if (dp) dp[i + 1] = x->depth;
        i++;
        break; /* 'bol' kept: a comment is a space */
      }
      if ((c == '#' || (c == '%' && i + 1 < to && x->p[i + 1] == ':')) && x->bol) {
        if (nd < maxd) {
          size_t e = i;
          while (e < to && (x->p[e] != '\n' || (e > i && x->p[e - 1] == '\\'))) e++;
          d[nd].at = i;
          d[nd].end = e;
          d[nd].depth = x->depth;
        }
        nd++;
        /* the directive's line is not code (nor are the lines a
         * backslash-newline continues it onto: multi-line macros) */
        while (i + 1 < to && (x->p[i + 1] != '\n' || x->p[i] == '\\')) {
          i++;
          if (st) st[i] = CODE;
          if (dp) dp[i] = x->depth;
        }
        break;
      }
      x->bol = 0;
      if (c == '"') x->state = STR;
      else if (c == '\'') x->state = CHR;
      else if (c == '(' || c == '[' || c == '{') x->depth++;
      else if (c == ')' || c == ']' || c == '}') x->depth--;
      else if (c == '<' && i + 1 < to && (x->p[i + 1] == '%' || x->p[i + 1] == ':'))
        x->depth += 1000; /* a digraph: never balanced by accident */
      else if ((c == '%' || c == ':') && i + 1 < to && x->p[i + 1] == '>')
        x->depth -= 1000;
    }
  }
  return nd;
}

static int has_trigraph(const char *p, size_t n) {
  for (size_t i = 0; i + 2 < n; i++)
    if (p[i] == '?' && p[i + 1] == '?' && strchr("=/'()!<>-", p[i + 2])) return 1;
  return 0;
}

static int dir_is(const char *src, const dir *d, const char *text) {
  size_t n = strlen(text);
  return d->end - d->at == n && memcmp(src + d->at, text, n) == 0;
}

/* The user text that follows directive 'd' must be 'text' (when given),
 * and everything up to 'end' must stay in code at the depth of its start
 * without going below it. */
/* The body region without the loop polls the generator adds (jit/check.c
 * sk_body_polls): " SK__GO() " (an empty condition) and " SK__GO() && ("
 * with the " )" that closes its '(' -- found here by counting brackets
 * outside the user's literals and comments. NULL when an inserted '('
 * is not closed by " )". */
static size_t lit_end(const char *p, size_t i, size_t n) {
  if (p[i] == '/' && i + 1 < n && p[i + 1] == '/') {
    while (i < n && p[i] != '\n') i++;
    return i;
  }
  if (p[i] == '/' && i + 1 < n && p[i + 1] == '*') {
    for (i += 2; i + 1 < n && !(p[i] == '*' && p[i + 1] == '/'); i++) {}
    return i + 2 < n ? i + 2 : n;
  }
  if (p[i] == '"' || p[i] == '\'') {
    char q = p[i++];
    while (i < n && p[i] != q) i += p[i] == '\\' ? 2 : 1;
    return i + 1 < n ? i + 1 : n;
  }
  return i;
}

static char *unpoll(const char *p, size_t n, size_t *outn) {
  static const char open_[] = " SK__GO() && (", empty[] = " SK__GO() ";
  const size_t lo = sizeof open_ - 1, le = sizeof empty - 1;
  char *o = malloc(n + 1);
  unsigned char *skip = calloc(n + 1, 1); /* bytes to drop */
  if (!o || !skip) {
    free(o);
    free(skip);
    return NULL;
  }
  for (size_t i = 0; i < n;) {
    size_t j = lit_end(p, i, n);
    if (j != i) {
      i = j;
      continue;
    }
    if (i + lo <= n && memcmp(p + i, open_, lo) == 0) {
      memset(skip + i, 1, lo);
      int depth = 1;
      size_t k = i + lo;
      while (k < n && depth > 0) {
        size_t m = lit_end(p, k, n);
        if (m != k) {
          k = m;
          continue;
        }
        depth += p[k] == '(' ? 1 : p[k] == ')' ? -1 : 0;
        k++;
      }
      if (depth != 0 || k < 2 || p[k - 2] != ' ') {
        free(o);
        free(skip);
        return NULL;
      }
      skip[k - 2] = skip[k - 1] = 1;
      i += lo;
      continue;
    }
    if (i + le <= n && memcmp(p + i, empty, le) == 0) {
      memset(skip + i, 1, le);
      i += le;
      continue;
    }
    i++;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!skip[i]) o[m++] = p[i];
  o[m] = '\0';
  free(skip);
  *outn = m;
  return o;
}

static void region(const char *src, const unsigned char *st, const int *dp, size_t b,
                   size_t e, const char *what) {
  int d0 = dp[b];
  if (st[b] != CODE) fail(what, src);
  for (size_t i = b; i < e; i++)
    if (dp[i] < d0) {
      fprintf(stderr, "%s: depth %d below %d at offset %zu\n", what, dp[i], d0, i);
      fail(what, src);
    }
  if (st[e] != CODE || dp[e] != d0) {
    fprintf(stderr, "%s: ends in state %d at depth %d (started %d)\n", what, st[e], dp[e],
            d0);
    fail(what, src);
  }
  if (has_trigraph(src + b, e - b)) fail(what, src);
}

/* The dialect headers as the generators paste them (host, CUDA): the
 * same bytes in every source, lexed once here (they must end in code at
 * depth 0), skipped by judge. */
static char *headers[2];

static void headers_init(void) {
  for (int cuda = 0; cuda < 2; cuda++) {
    sk_buf b;
    sk_buf_init(&b);
    sk_cg_dialect(&b, sk_jit_target_find(cuda ? "cuda" : NULL));
    headers[cuda] = sk_buf_take(&b);
    lex x = {headers[cuda], strlen(headers[cuda]), CODE, 0, 1, 0};
    dir d[1];
    run_lex(&x, 0, x.n, NULL, NULL, d, 0);
    if (x.state != CODE || x.depth != 0)
      fail("the dialect headers do not lex to code at depth 0", headers[cuda]);
  }
}

/* Judge generated source 'src' of spec 's'. */
static void judge(const char *src, const sk_kspec *s, int cuda) {
  size_t n = strlen(src);
  /* line 1: one closed comment, then a newline */
  if (strncmp(src, "/* speck ", 9) != 0) fail("no title comment", src);
  const char *close = strstr(src, "*/");
  const char *nl = strchr(src, '\n');
  if (!close || !nl || close + 2 != nl) fail("title comment not one line", src);
  size_t from = (size_t)(nl + 1 - src), hl = strlen(headers[cuda]);
  if (n < from + hl || memcmp(src + from, headers[cuda], hl) != 0)
    fail("the dialect headers do not follow the title", src);
  from += hl;
  unsigned char *st = malloc(n + 1);
  int *dp = malloc((n + 1) * sizeof *dp);
  if (!st || !dp) abort();
  lex x = {src, n, CODE, 0, 1, 0};
  static dir d[MAXDIR];
  int nd = run_lex(&x, from, n, st, dp, d, MAXDIR);
  st[n] = (unsigned char)x.state;
  dp[n] = x.depth;
  if (x.state != CODE && x.state != LCOMMENT)
    fail("source ends inside a comment or literal", src);
  if (x.depth != 0) fail("source ends at a non-zero depth", src);
  if (nd > MAXDIR) nd = MAXDIR;
  int bodies = 0, inits = 0, joins = 0;
  for (int k = 0; k < nd; k++) {
    if (dir_is(src, &d[k], "#line 1 \"body\"")) {
      bodies++;
      /* the body runs to the next directive, which must be the
       * generator's #undef */
      if (k + 1 >= nd || !dir_is(src, &d[k + 1], "#undef return"))
        fail("the directive after a body is not '#undef return'", src);
      size_t b = d[k].end + 1, e = d[k + 1].at;
      if (e < b + 1 || src[e - 1] != '\n') fail("body region malformed", src);
      region(src, st, dp, b, e, "body region");
      if (x.splice && memchr(src + b, '\\', e - b)) {
        for (size_t i = b; i + 1 < e; i++)
          if (src[i] == '\\' && src[i + 1] == '\n') fail("splice in body", src);
      }
      /* the body text itself, when not rewritten for atomic views */
      int atomic = 0;
      for (int c = 0; c < s->ncap; c++)
        atomic |= s->caps[c].kind == SK_CAP_VIEW && (s->caps[c].traits & SK_TRAIT_ATOMIC);
      /* (less the back-edge polls put into its loops' conditions) */
      size_t un = 0;
      char *plain = atomic ? NULL : unpoll(src + b, e - 1 - b, &un);
      if (!atomic && (!plain || un != s->body_len || memcmp(plain, s->body, s->body_len)))
        fail("body region differs from the body", src);
      free(plain);
      /* then '#line <last line> "body"' puts the closing brace on the
       * body's last line */
      if (k + 2 >= nd || strncmp(src + d[k + 2].at, "#line ", 6) != 0)
        fail("no #line after the body", src);
      k += 2;
    } else if (dir_is(src, &d[k], "#line 1 \"prelude\"")) {
      if (k + 1 >= nd || !dir_is(src, &d[k + 1], "#line 1 \"generated\""))
        fail("the directive after the prelude is not '#line 1 \"generated\"'", src);
      size_t b = d[k].end + 1, e = d[k + 1].at;
      region(src, st, dp, b, e, "prelude region");
      if (dp[b] != 0) fail("prelude not at file scope", src);
    } else if (dir_is(src, &d[k], "#line 1 \"init\"") ||
               dir_is(src, &d[k], "#line 1 \"join\"")) {
      /* the n-th init (join) region holds the n-th custom reducer's */
      int init = src[d[k].at + 9] == 'i';
      int *seen = init ? &inits : &joins;
      const char *text = NULL;
      for (int r = 0, m = 0; r < s->nred && !text; r++)
        if (s->reds[r].op == SK_RED_CUSTOM && m++ == *seen)
          text = init ? s->reds[r].init : s->reds[r].join;
      ++*seen;
      if (!text) fail("custom code region without a custom reducer", src);
      size_t b = d[k].end + 1, len = strlen(text);
      if (b + len + 3 > n || memcmp(src + b, text, len) != 0 ||
          memcmp(src + b + len, "\n; ", 3) != 0)
        fail("custom reducer region differs from its code", src);
      region(src, st, dp, b, b + len + 1, init ? "init region" : "join region");
    }
  }
  if (bodies == 0) fail("no body region", src);
  free(st);
  free(dp);
}

/* -- compiling (FUZZ_COMPILE=1) ------------------------------------------------ */
static int compile_mode = -1;

static void compile_check(const char *src, const sk_kspec *s) {
  sk_ccode c;
  char err[4096];
  if (sk_tcc_build(src, 1, &c, err, sizeof err) == 0) {
    sk_tcc_free(c.dl);
    return;
  }
  /* errors in user text name its part; a prelude or custom reducer may
   * also push an error onto the generated line after it */
  if (!strncmp(err, "body:", 5) || !strncmp(err, "body line", 9)) return;
  int custom = 0;
  for (int r = 0; r < s->nred; r++) custom |= s->reds[r].op == SK_RED_CUSTOM;
  if (!strncmp(err, "prelude", 7) || !strncmp(err, "init", 4) || !strncmp(err, "join", 4))
    return;
  if ((s->prelude && *s->prelude) || custom) return;
  fprintf(stderr, "compile error outside the user's text: %s\n", err);
  fail("generated code does not compile", src);
}

/* -- the harness -------------------------------------------------------------- */
/* team limits of a GPU-like back end (the CUDA back end's shape) */
static void gpu_limits(sk_team_limits *lim) {
  lim->team_size_max = 1024;
  lim->team_size_recommended = 128;
  lim->vector_length_max = 32;
  lim->warp = 32;
  lim->scratch_max[0] = 48 << 10;
  lim->scratch_max[1] = 1 << 30;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (compile_mode < 0) {
    const char *e = getenv("FUZZ_COMPILE");
    compile_mode = e && *e == '1';
    const char *lib = getenv("FUZZ_TCC_LIBDIR");
    sk_tcc_set_libdir(lib && *lib ? lib : ".deps/tcc");
    headers_init();
  }
  in s = {data, size, 0};
  int pattern = byte(&s) % 4; /* 3: unknown */
  int kind = byte(&s) % 4;    /* 3: unknown */
  int md_rank = byte(&s) % 8;
  int flags = byte(&s);
  int ncap = byte(&s);
  ncap = ncap == 255 ? SK_MAXCAP + 1 : ncap % 9;
  int nred = byte(&s) % (SK_MAXRED + 2);
  int scan_dtype = byte(&s) % (SK_NDTYPE + 1);

  sk_policy p;
  sk_policy_init(&p, kind);
  p.schedule = byte(&s) & 1;
  p.chunk = val(&s);
  p.begin = val(&s);
  p.end = val(&s);
  p.md_rank = md_rank;
  for (int r = 0; r < SK_MAXMD; r++) {
    p.md_lo[r] = r & 1 ? 0 : p.begin;
    p.md_hi[r] = p.end;
    p.md_tile[r] = p.chunk;
  }
  p.md_tiled = p.chunk != 0;
  p.league_size = val(&s);
  p.team_size = (int)val(&s);
  p.vector_length = (int)val(&s);
  p.scratch_team[0] = val(&s);
  p.scratch_team[1] = val(&s);
  p.scratch_thread[0] = val(&s);
  p.scratch_thread[1] = val(&s);

  static sk_view views[SK_MAXCAP + 1];
  static sk_alloc allocs[4];
  static double cell[64];
  sk_arg args[SK_MAXCAP + 1];
  int kinds[SK_MAXCAP + 1], dts[SK_MAXCAP + 1];
  for (int c = 0; c < ncap; c++) {
    int k = byte(&s), dt = byte(&s), rk = byte(&s), lay = byte(&s), tr = byte(&s);
    kinds[c] = k & 1;
    dts[c] = dt % (SK_NDTYPE + 1); /* SK_NDTYPE: unknown (scalars) */
    sk_view *v = &views[c];
    memset(v, 0, sizeof *v);
    v->dtype = dt % SK_NDTYPE;
    v->rank = rk % (SK_MAXRANK + 1);
    v->layout = lay % 3;
    v->space = SK_SPACE_HOST;
    v->traits = (unsigned)tr & 7;
    v->alloc = &allocs[(tr >> 3) & 3];
    v->data = cell;
    for (int d = 0; d < SK_MAXRANK; d++) {
      v->extent[d] = d < v->rank ? 2 : 1;
      v->stride[d] = 1;
    }
    snprintf(v->label, sizeof v->label, "v%d", c);
  }
  sk_kdesc d;
  memset(&d, 0, sizeof d);
  d.nred = nred;
  for (int r = 0; r < nred && r < SK_MAXRED; r++) {
    int op = byte(&s), dt = byte(&s);
    d.reds[r].op = op % (SK_NREDOP + 1);
    d.reds[r].dtype = dt % (SK_NDTYPE + 1);
  }
  d.scan_dtype = scan_dtype;
  d.pattern = pattern;
  d.bounds = flags & 1;
  d.tier = (flags >> 2) & 3;

  /* strings */
  static char store[1 << 16];
  size_t used = 0;
  const char *names[SK_MAXCAP + 1];
  for (int c = 0; c < ncap; c++) names[c] = str(&s, store, sizeof store, &used);
  for (int k = 0; k < SK_MAXMD; k++) {
    const char *ix = str(&s, store, sizeof store, &used);
    d.index[k] = *ix ? ix : NULL;
  }
  d.label = str(&s, store, sizeof store, &used);
  const char *pre = str(&s, store, sizeof store, &used);
  d.prelude = *pre ? pre : NULL;
  for (int r = 0; r < nred && r < SK_MAXRED; r++) {
    if (d.reds[r].op != SK_RED_CUSTOM) continue;
    d.reds[r].init = str(&s, store, sizeof store, &used);
    d.reds[r].join = str(&s, store, sizeof store, &used);
  }
  /* the body: the rest, NULs and all, in a buffer of its own size (so
   * ASan sees a read past its end) */
  size_t blen = s.n - s.i;
  char *body = malloc(blen + 1);
  if (!body) return 0;
  memcpy(body, s.p + s.i, blen);
  body[blen] = '\0';
  d.body = body;
  d.body_len = blen; /* 0: strlen(""), also 0 */

  for (int c = 0; c < ncap; c++) {
    if (kinds[c]) {
      args[c] = sk_arg_view(names[c], &views[c]);
    } else {
      args[c] = sk_arg_f64(names[c], 1.5);
      args[c].dtype = dts[c];
    }
  }

  /* the back end: serial, or one that asks for CUDA C (compile only) */
  static sk_backend gpu;
  gpu = sk_backend_serial;
  gpu.name = "fuzzgpu";
  gpu.code = SK_CODE_IMAGE;
  gpu.target = "cuda";
  gpu.features = 0;
  gpu.team_limits = gpu_limits;
  const sk_backend *b = (flags & 2) ? &gpu : &sk_backend_serial;

  char err[4096];
  err[0] = '\0';
  sk_spec_store spec;
  int rc = sk_policy_check(&p, pattern, b, err, sizeof err);
  if (rc == 0)
    rc = sk_exec_spec(&d, p.kind, p.md_rank, args, ncap, b, &spec, err, sizeof err);
  if (rc == 0) rc = sk_jit_check(&spec.spec, err, sizeof err);
  if (rc < 0) {
    if (!err[0] || !memchr(err, '\0', sizeof err))
      fail("refused without a message", NULL);
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "refused: %s\n", err);
    free(body);
    return 0;
  }
  char *src = (flags & 2) ? sk_codegen_cuda(&spec.spec, err, sizeof err)
                          : sk_codegen_host(&spec.spec, err, sizeof err);
  if (!src) fail("codegen failed on a checked spec", NULL);
  judge(src, &spec.spec, (flags & 2) != 0);
  if (compile_mode && !(flags & 2)) compile_check(src, &spec.spec);
  free(src);
  if ((flags & 2) && pattern != SK_FOR) {
    src = sk_codegen_host_acc(&spec.spec, err, sizeof err);
    if (!src) fail("host accumulator codegen failed", NULL);
    free(src);
  }
  free(body);
  return 0;
}
