/* functor.c: task functors as C -- the checks a functor passes before
 * anything is compiled, and the one source the scheduler compiles for all
 * of its functors (through sk_run, so the JIT's tiers and caches apply).
 *
 * Per functor 'fib' the source holds its fields struct 'sk__tf_fib', a
 * spawn helper behind task_spawn(fib, {...}) and the body as a function
 * 'sk__tb_fib(env, self, result)'; 'sk__task_fill' reports the bodies and
 * the structs' layout to the scheduler. A body's lines are numbered by a
 * '#line 1 "fib"' so compiler messages name the functor and its line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../dialect/dialect_src.h"
#include "../../jit/strbuf.h"
#include "task.h"

static int is_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (const char *p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_')) return 0;
  return 1;
}

/* a field is a struct member: only C keywords, object-like macros of the
 * dialect and the generator's prefixes cannot be one */
static int bad_member(const char *n) {
  static const char *const words[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "_Bool", "_Generic", "_Alignof",
    "_Alignas", "_Static_assert", "_Noreturn", "_Thread_local", "NULL",
    "INFINITY", "NAN", "true", "false", "self", "SPECK_FN", "TASK_HIGH",
    "TASK_REGULAR", "TASK_LOW", "future", NULL};
  for (int k = 0; words[k]; k++)
    if (strcmp(n, words[k]) == 0) return 1;
  return strncmp(n, "sk_", 3) == 0 || strncmp(n, "SK_", 3) == 0 ||
         (n[0] == '_' && (n[1] == '_' || (n[1] >= 'A' && n[1] <= 'Z')));
}

static int task_word(const char *n) {
  static const char *const words[] = {
    "self", "future", "task_spawn", "task_spawn_team", "task_respawn",
    "when_all", "future_get", "future_is_null", "task_return", "pool_alloc",
    "pool_free", "TASK_HIGH", "TASK_REGULAR", "TASK_LOW", NULL};
  for (int k = 0; words[k]; k++)
    if (strcmp(n, words[k]) == 0) return 1;
  return 0;
}

int sk_task_check_functor(const sk_tfunctor *f, char *err, size_t errlen) {
  if (!is_ident(f->label) || strlen(f->label) > 48) {
    snprintf(err, errlen, "functor label '%s' is not a C identifier of at "
             "most 48 characters", f->label);
    return -1;
  }
  if (sk_codegen_reserved(f->label) || task_word(f->label)) {
    snprintf(err, errlen, "functor label '%s' is a reserved word", f->label);
    return -1;
  }
  for (int k = 0; k < f->nfields; k++) {
    const char *n = f->fields[k].name;
    if (!is_ident(n)) {
      snprintf(err, errlen, "functor '%s': field name '%s' is not a C "
               "identifier", f->label, n);
      return -1;
    }
    if (bad_member(n)) {
      snprintf(err, errlen, "functor '%s': field name '%s' is a reserved "
               "word", f->label, n);
      return -1;
    }
  }
  if (!f->body) {
    snprintf(err, errlen, "functor '%s' has no body", f->label);
    return -1;
  }
  char m[1024];
  if (sk_jit_check_text("body", f->body, strlen(f->body), m, sizeof m) < 0) {
    snprintf(err, errlen, "functor '%s': %s", f->label, m);
    return -1;
  }
  return 0;
}

/* -- source --------------------------------------------------------------- */
static const char *field_type(const sk_tfield *fd) {
  switch (fd->kind) {
  case SK_TF_FUTURE: return "future";
  case SK_TF_VIEW: return "sk_varg";
  default: return sk_dtypes[fd->dtype].ctype;
  }
}

static const sk_tfield *view_field(const sk_tfunctor *f, const char *n, size_t len) {
  for (int k = 0; k < f->nfields; k++)
    if (f->fields[k].kind == SK_TF_VIEW && strlen(f->fields[k].name) == len &&
        memcmp(f->fields[k].name, n, len) == 0)
      return &f->fields[k];
  return NULL;
}

/* The body with 'self.v(' of each view field 'v' made 'sk__self_v(' (a
 * macro of the element access); comments, strings and character literals
 * are copied as they are. */
static void body_rewrite(sk_buf *b, const sk_tfunctor *f) {
  const char *p = f->body;
  while (*p) {
    if (p[0] == '/' && p[1] == '/') {
      const char *e = strchr(p, '\n');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      sk_buf_add(b, p, n);
      p += n;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      size_t n = e ? (size_t)(e + 2 - p) : strlen(p);
      sk_buf_add(b, p, n);
      p += n;
    } else if (*p == '"' || *p == '\'') {
      char q = *p;
      const char *e = p + 1;
      while (*e && *e != q && *e != '\n') e += (*e == '\\' && e[1]) ? 2 : 1;
      if (*e == q) e++;
      sk_buf_add(b, p, (size_t)(e - p));
      p = e;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
      const char *e = p;
      while (isalnum((unsigned char)*e) || *e == '_') e++;
      if (e - p == 4 && memcmp(p, "self", 4) == 0) {
        const char *q = e;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '.') {
          q++;
          while (*q == ' ' || *q == '\t') q++;
          const char *n0 = q;
          while (isalnum((unsigned char)*q) || *q == '_') q++;
          const char *r = q;
          while (*r == ' ' || *r == '\t') r++;
          if (q > n0 && *r == '(' && view_field(f, n0, (size_t)(q - n0))) {
            sk_buf_puts(b, "sk__self_");
            sk_buf_add(b, n0, (size_t)(q - n0));
            p = q;
            continue;
          }
        }
      }
      sk_buf_add(b, p, (size_t)(e - p));
      p = e;
    } else {
      sk_buf_add(b, p, 1);
      p++;
    }
  }
}

/* the type future_get returns: the functors' common result type, float64
 * when they differ (int64 when none returns a value) */
static int common_ret(const sk_tfunctor *fx, int n) {
  int dt = -1;
  for (int f = 0; f < n; f++) {
    if (fx[f].ret < 0) continue;
    if (dt < 0) dt = fx[f].ret;
    else if (dt != fx[f].ret) return SK_F64;
  }
  return dt < 0 ? SK_I64 : dt;
}

static void gen_body(sk_buf *b, const sk_tfunctor *f) {
  const char *l = f->label;
  sk_buf_printf(b,
                "static void sk__tb_%s(const sk_task_env *sk__env, void *sk__selfv, "
                "void *sk__res) {\n"
                "  sk__tf_%s *sk__self = (sk__tf_%s *)sk__selfv;\n"
                "  const sk__team_t team = {0, 1, sk__env->team->team_rank, "
                "sk__env->team->team_size, sk__env->team->vector_length, "
                "sk__env->team};\n"
                "  (void)team; (void)sk__res; (void)sk__self;\n"
                "#define self (*sk__self)\n",
                l, l, l);
  if (f->ret >= 0)
    sk_buf_printf(b, "#define task_return(v) do { *(%s *)sk__res = (%s)(v); "
                  "return; } while (0)\n",
                  sk_dtypes[f->ret].ctype, sk_dtypes[f->ret].ctype);
  else
    sk_buf_puts(b, "#define task_return(...) return\n");
  for (int k = 0; k < f->nfields; k++) {
    const sk_tfield *fd = &f->fields[k];
    if (fd->kind != SK_TF_VIEW) continue;
    sk_buf_printf(b, "#define sk__self_%s(", fd->name);
    for (int d = 0; d < fd->rank; d++) sk_buf_printf(b, "%sa%d", d ? ", " : "", d);
    sk_buf_printf(b, ") (((%s *)sk__self->%s.data)[0", sk_dtypes[fd->dtype].ctype,
                  fd->name);
    for (int d = 0; d < fd->rank; d++)
      sk_buf_printf(b, " + (sk_i64)(a%d) * sk__self->%s.stride[%d]", d, fd->name, d);
    sk_buf_puts(b, "])\n");
  }
  sk_buf_printf(b, "#line 1 \"%s\"\n", l);
  body_rewrite(b, f);
  int lines = 1;
  for (const char *p = f->body; *p && p[1]; p++) lines += *p == '\n';
  sk_buf_printf(b, "\n#line %d \"%s\"\n}\n#line 1 \"generated\"\n"
                "#undef self\n#undef task_return\n", lines, l);
  for (int k = 0; k < f->nfields; k++)
    if (f->fields[k].kind == SK_TF_VIEW)
      sk_buf_printf(b, "#undef sk__self_%s\n", f->fields[k].name);
}

char *sk_task_codegen(const sk_tfunctor *fx, int n, char *err, size_t errlen) {
  sk_buf b;
  sk_buf_init(&b);
  sk_buf_puts(&b, "/* speck task functors:");
  for (int f = 0; f < n; f++) sk_buf_printf(&b, " %s", fx[f].label);
  sk_buf_puts(&b, " */\n");
  sk_buf_puts(&b, "#define SK_TASK_BODY\n");
  sk_cg_header(&b, sk_dialect_task_h);
  sk_buf_puts(&b, "\n#line 1 \"generated\"\n");
  for (int f = 0; f < n; f++) {
    sk_buf_puts(&b, "typedef struct {");
    for (int k = 0; k < fx[f].nfields; k++)
      sk_buf_printf(&b, " %s %s;", field_type(&fx[f].fields[k]), fx[f].fields[k].name);
    if (fx[f].nfields == 0) sk_buf_puts(&b, " char sk__none;");
    sk_buf_printf(&b, " } sk__tf_%s;\n", fx[f].label);
  }
  for (int f = 0; f < n; f++) {
    const char *l = fx[f].label;
    /* the fields and an optional priority initialise one struct: a
     * priority left out is 0 (regular), and the helper inlines */
    sk_buf_printf(&b,
                  "typedef struct { sk__tf_%s f; int prio; } sk__sa_%s;\n"
                  "static inline future sk__spawn1_%s(const sk_task_env *e, int team, "
                  "sk__sa_%s a) {\n"
                  "  return e->api->spawn(e->w, %d, &a.f, a.prio, team);\n}\n"
                  "#define sk__spawn_%s(team, ...) sk__spawn1_%s(sk__env, team, "
                  "(sk__sa_%s){(sk__tf_%s)__VA_ARGS__})\n",
                  l, l, l, l, f, l, l, l, l);
  }
  int ct = common_ret(fx, n);
  sk_buf_printf(&b, "#define future_get(f) ((%s)sk__env->api->get_%s(sk__env->w, (f)))\n",
                sk_dtypes[ct].ctype, sk_dtypes[ct].is_float ? "f64" : "i64");
  for (int f = 0; f < n; f++) gen_body(&b, &fx[f]);
  sk_buf_printf(&b, "static void sk__task_fill(sk_task_table *t) {\n  t->n = %d;\n", n);
  for (int f = 0; f < n; f++) {
    const char *l = fx[f].label;
    sk_buf_printf(&b, "  t->fn[%d] = sk__tb_%s;\n  t->size[%d] = (sk_i64)sizeof(sk__tf_%s);\n",
                  f, l, f, l);
    for (int k = 0; k < fx[f].nfields; k++)
      sk_buf_printf(&b, "  t->off[%d][%d] = (sk_i64)((char *)&((sk__tf_%s *)0)->%s - (char *)0);\n",
                    f, k, l, fx[f].fields[k].name);
  }
  sk_buf_puts(&b, "}\n");
  char *src = sk_buf_take(&b);
  if (!src) snprintf(err, errlen, "out of memory generating the functors' source");
  return src;
}

/* "fib:3: error: x" (libtcc, gcc) -> "functor 'fib' line 3: error: x" */
void sk_task_compile_message(const sk_tfunctor *fx, int n, const char *msg,
                             char *err, size_t errlen) {
  sk_buf b;
  sk_buf_init(&b);
  const char *p = msg;
  while (*p) {
    int hit = 0;
    for (int f = 0; f < n && !hit; f++) {
      size_t l = strlen(fx[f].label);
      if (strncmp(p, fx[f].label, l) == 0 && p[l] == ':' &&
          isdigit((unsigned char)p[l + 1])) {
        sk_buf_printf(&b, "functor '%s' line ", fx[f].label);
        p += l + 1;
        hit = 1;
      }
    }
    const char *e = strchr(p, '\n');
    size_t m = e ? (size_t)(e - p + 1) : strlen(p);
    sk_buf_add(&b, p, m);
    p += m;
  }
  char *s = sk_buf_take(&b);
  snprintf(err, errlen, "%s", s ? s : msg);
  free(s);
}
