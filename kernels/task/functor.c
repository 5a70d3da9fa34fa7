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

#include "core/err.h"
#include "jit/strbuf.h"
#include "jit/target.h"
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
  static const char *const words[] = {"auto",
                                      "break",
                                      "case",
                                      "char",
                                      "const",
                                      "continue",
                                      "default",
                                      "do",
                                      "double",
                                      "else",
                                      "enum",
                                      "extern",
                                      "float",
                                      "for",
                                      "goto",
                                      "if",
                                      "inline",
                                      "int",
                                      "long",
                                      "register",
                                      "restrict",
                                      "return",
                                      "short",
                                      "signed",
                                      "sizeof",
                                      "static",
                                      "struct",
                                      "switch",
                                      "typedef",
                                      "union",
                                      "unsigned",
                                      "void",
                                      "volatile",
                                      "while",
                                      "_Bool",
                                      "_Generic",
                                      "_Alignof",
                                      "_Alignas",
                                      "_Static_assert",
                                      "_Noreturn",
                                      "_Thread_local",
                                      "NULL",
                                      "INFINITY",
                                      "NAN",
                                      "true",
                                      "false",
                                      "self",
                                      "SPECK_FN",
                                      "TASK_HIGH",
                                      "TASK_REGULAR",
                                      "TASK_LOW",
                                      "future",
                                      NULL};
  for (int k = 0; words[k]; k++)
    if (strcmp(n, words[k]) == 0) return 1;
  return strncmp(n, "sk_", 3) == 0 || strncmp(n, "SK_", 3) == 0 ||
         (n[0] == '_' && (n[1] == '_' || (n[1] >= 'A' && n[1] <= 'Z')));
}

static int task_word(const char *n) {
  static const char *const words[] = {
    "self",      "future",     "task_spawn",     "task_spawn_team", "task_respawn",
    "when_all",  "future_get", "future_is_null", "task_return",     "pool_alloc",
    "pool_free", "TASK_HIGH",  "TASK_REGULAR",   "TASK_LOW",        NULL};
  for (int k = 0; words[k]; k++)
    if (strcmp(n, words[k]) == 0) return 1;
  return 0;
}

int sk_task_check_functor(const sk_tfunctor *f, char *err, size_t errlen) {
  if (!is_ident(f->label) || strlen(f->label) > 48) {
    sk_err(err, errlen, SK_E_FUNCTOR_LABEL_NOT, f->label);
    return -1;
  }
  if (sk_codegen_reserved(f->label) || task_word(f->label)) {
    sk_err(err, errlen, SK_E_FUNCTOR_LABEL_RESERVED, f->label);
    return -1;
  }
  for (int k = 0; k < f->nfields; k++) {
    const char *n = f->fields[k].name;
    if (!is_ident(n)) {
      sk_err(err, errlen, SK_E_FUNCTOR_FIELD_NAME, f->label, n);
      return -1;
    }
    if (bad_member(n)) {
      sk_err(err, errlen, SK_E_FUNCTOR_FIELD_NAME_RESERVED, f->label, n);
      return -1;
    }
  }
  if (!f->body) {
    sk_err(err, errlen, SK_E_FUNCTOR_NO_BODY, f->label);
    return -1;
  }
  char m[1024];
  if (sk_jit_check_text("body", f->body, strlen(f->body), m, sizeof m) < 0) {
    sk_err(err, errlen, SK_E_FUNCTOR, f->label, m);
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

/* the end of the bracketed text opening at 'p' ('(' or '{'), skipping
 * strings and comments; NULL when it does not close */
static const char *close_of(const char *p) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == '"' || *p == '\'') {
      char q = *p++;
      while (*p && *p != q) p += (*p == '\\' && p[1]) ? 2 : 1;
      if (!*p) return NULL;
    } else if (p[0] == '/' && p[1] == '/') {
      while (p[1] && p[1] != '\n') p++;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      if (!e) return NULL;
      p = e + 1;
    } else if (*p == '(' || *p == '{' || *p == '[') {
      depth++;
    } else if (*p == ')' || *p == '}' || *p == ']') {
      if (--depth == 0) return p;
    }
  }
  return NULL;
}

static int find_functor(const sk_tfunctor *fx, int n, const char *id, size_t len) {
  for (int f = 0; f < n; f++)
    if (strlen(fx[f].label) == len && memcmp(fx[f].label, id, len) == 0) return f;
  return -1;
}

/* rewrite's modes: a C++ target; host code (respawn on a when_all) */
enum { RW_CXX = 1, RW_JOIN = 2 };
static void rewrite(sk_buf *b, const sk_tfunctor *fx, int n, const sk_tfunctor *f,
                    const char *p, const char *end, int mode);

/* A C++ target: C++ has no C99 designated initializers in any order, so the
 * fields of 'task_spawn(F, {.a = x, .b = y} ...' become assignments in a
 * lambda that returns F's fields struct (same lines, same evaluation) */
static const char *spawn_fields(sk_buf *b, const sk_tfunctor *fx, int n,
                                const sk_tfunctor *f, const char *p, const char *end) {
  const char *q = p;
  while (q < end && isspace((unsigned char)*q)) q++;
  const char *id = q;
  while (q < end && (isalnum((unsigned char)*q) || *q == '_')) q++;
  int g = find_functor(fx, n, id, (size_t)(q - id));
  const char *c = q;
  while (c < end && isspace((unsigned char)*c)) c++;
  if (g < 0 || c >= end || *c != ',') return p;
  const char *o = c + 1;
  while (o < end && isspace((unsigned char)*o)) o++;
  const char *e = o < end && *o == '{' ? close_of(o) : NULL;
  if (!e || e >= end) return p;
  sk_buf_add(b, p, (size_t)(o - p));
  sk_buf_printf(b, "[&]() { sk__tf_%s sk__t{};", fx[g].label);
  const char *it = o + 1;
  while (it < e) {
    const char *a = it;
    while (a < e && isspace((unsigned char)*a)) {
      sk_buf_add(b, a, 1);
      a++;
    }
    if (a >= e) break;
    /* the item's end: a comma at depth 0 */
    const char *z = a;
    int depth = 0;
    while (z < e && (depth > 0 || *z != ',')) {
      if (*z == '(' || *z == '{' || *z == '[') depth++;
      else if (*z == ')' || *z == '}' || *z == ']') depth--;
      else if (*z == '"' || *z == '\'') {
        char qc = *z++;
        while (z < e && *z != qc) z += (*z == '\\') ? 2 : 1;
      }
      z++;
    }
    if (*a == '.') { /* .name = value */
      const char *nm = a + 1, *ne = nm;
      while (ne < z && (isalnum((unsigned char)*ne) || *ne == '_')) ne++;
      const char *eq = ne;
      while (eq < z && isspace((unsigned char)*eq)) eq++;
      if (eq < z && *eq == '=') {
        sk_buf_puts(b, " sk__t.");
        sk_buf_add(b, nm, (size_t)(ne - nm));
        sk_buf_puts(b, " = (");
        rewrite(b, fx, n, f, eq + 1, z, RW_CXX);
        sk_buf_puts(b, ");");
      } else { /* not a designator: the compiler says so */
        rewrite(b, fx, n, f, a, z, RW_CXX);
      }
    } else {
      rewrite(b, fx, n, f, a, z, RW_CXX);
    }
    it = z < e ? z + 1 : z;
  }
  sk_buf_puts(b, " return sk__t; }()");
  return e + 1;
}

/* the number of arguments between 'p' and 'end' (commas outside brackets,
 * strings and comments, plus one); 0 when there is only white space */
static int count_args(const char *p, const char *end) {
  int args = 0, depth = 0, text = 0;
  for (; p < end; p++) {
    if (*p == '"' || *p == '\'') {
      char q = *p++;
      while (p < end && *p != q) p += (*p == '\\' && p + 1 < end) ? 2 : 1;
      text = 1;
    } else if (p[0] == '/' && p + 1 < end && p[1] == '/') {
      while (p + 1 < end && p[1] != '\n') p++;
    } else if (p[0] == '/' && p + 1 < end && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      if (!e || e + 2 > end) return -1;
      p = e + 1;
    } else if (*p == '(' || *p == '{' || *p == '[') {
      depth++;
      text = 1;
    } else if (*p == ')' || *p == '}' || *p == ']') {
      depth--;
    } else if (*p == ',' && depth == 0) {
      args++;
    } else if (!isspace((unsigned char)*p)) {
      text = 1;
    }
  }
  return text ? args + 1 : 0;
}

/* Host code: 'task_respawn(when_all(a, b) [, prio])' becomes
 * 'sk__respawn_all(((future[]){a, b}) [, prio])' (dialect/task.h), the
 * white space kept so lines stay. Returns where the text goes on after
 * the when_all's ')', or NULL when the call is not of that shape. */
static const char *respawn_all(sk_buf *b, const sk_tfunctor *fx, int n,
                               const sk_tfunctor *f, const char *p, const char *end,
                               int mode) {
  const char *o1 = p;
  while (o1 < end && isspace((unsigned char)*o1)) o1++;
  if (o1 >= end || *o1 != '(') return NULL;
  const char *c1 = close_of(o1);
  if (!c1 || c1 >= end) return NULL;
  const char *w = o1 + 1;
  while (w < c1 && isspace((unsigned char)*w)) w++;
  if (c1 - w < 8 || memcmp(w, "when_all", 8) != 0) return NULL;
  const char *o2 = w + 8;
  if (isalnum((unsigned char)*o2) || *o2 == '_') return NULL;
  while (o2 < c1 && isspace((unsigned char)*o2)) o2++;
  if (o2 >= c1 || *o2 != '(') return NULL;
  const char *c2 = close_of(o2);
  if (!c2 || c2 >= c1) return NULL;
  /* then nothing, or one more argument: the priority */
  const char *r = c2 + 1;
  while (r < c1 && isspace((unsigned char)*r)) r++;
  if (r < c1 && (*r != ',' || count_args(r + 1, c1) != 1)) return NULL;
  sk_buf_puts(b, "sk__respawn_all");
  sk_buf_add(b, p, (size_t)(o1 - p));
  sk_buf_puts(b, "(");
  sk_buf_add(b, o1 + 1, (size_t)(w - o1 - 1));
  sk_buf_puts(b, "((future[])");
  sk_buf_add(b, w + 8, (size_t)(o2 - w - 8));
  sk_buf_puts(b, "{");
  rewrite(b, fx, n, f, o2 + 1, c2, mode);
  sk_buf_puts(b, "})");
  return c2 + 1;
}

/* The body with 'self.v(' of each view field 'v' made 'sk__self_v(' (a
 * macro of the element access), for a C++ target (RW_CXX) the spawns'
 * fields as above, for host code (RW_JOIN) a respawn on a when_all in one
 * call (respawn_all); comments, strings and character literals are
 * copied as they are. */
static void rewrite(sk_buf *b, const sk_tfunctor *fx, int n, const sk_tfunctor *f,
                    const char *p, const char *end, int mode) {
  const int cxx = mode & RW_CXX;
  while (p < end) {
    if (p[0] == '/' && p[1] == '/') {
      const char *e = strchr(p, '\n');
      size_t m = e && e < end ? (size_t)(e - p) : (size_t)(end - p);
      sk_buf_add(b, p, m);
      p += m;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      size_t m = e && e + 2 <= end ? (size_t)(e + 2 - p) : (size_t)(end - p);
      sk_buf_add(b, p, m);
      p += m;
    } else if (*p == '"' || *p == '\'') {
      char q = *p;
      const char *e = p + 1;
      while (e < end && *e != q && *e != '\n') e += (*e == '\\' && e + 1 < end) ? 2 : 1;
      if (e < end && *e == q) e++;
      sk_buf_add(b, p, (size_t)(e - p));
      p = e;
    } else if (isalpha((unsigned char)*p) || *p == '_') {
      const char *e = p;
      while (e < end && (isalnum((unsigned char)*e) || *e == '_')) e++;
      if (e - p == 4 && memcmp(p, "self", 4) == 0) {
        const char *q = e;
        while (q < end && (*q == ' ' || *q == '\t')) q++;
        if (q < end && *q == '.') {
          q++;
          while (q < end && (*q == ' ' || *q == '\t')) q++;
          const char *n0 = q;
          while (q < end && (isalnum((unsigned char)*q) || *q == '_')) q++;
          const char *r = q;
          while (r < end && (*r == ' ' || *r == '\t')) r++;
          if (q > n0 && r < end && *r == '(' && view_field(f, n0, (size_t)(q - n0))) {
            sk_buf_puts(b, "sk__self_");
            sk_buf_add(b, n0, (size_t)(q - n0));
            p = q;
            continue;
          }
        }
      }
      if ((mode & RW_JOIN) && e - p == 12 && memcmp(p, "task_respawn", 12) == 0) {
        const char *after = respawn_all(b, fx, n, f, e, end, mode);
        if (after) {
          p = after;
          continue;
        }
      }
      sk_buf_add(b, p, (size_t)(e - p));
      int spawn = (e - p == 10 && memcmp(p, "task_spawn", 10) == 0) ||
                  (e - p == 15 && memcmp(p, "task_spawn_team", 15) == 0);
      p = e;
      if (cxx && spawn) {
        const char *q = p;
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q < end && *q == '(') {
          sk_buf_add(b, p, (size_t)(q + 1 - p));
          p = spawn_fields(b, fx, n, f, q + 1, end);
        }
      }
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

static void gen_body(sk_buf *b, const sk_tfunctor *fx, int n, const sk_tfunctor *f,
                     int mode) {
  const char *l = f->label;
  sk_buf_printf(b,
                "SK__TBODY void sk__tb_%s(const sk_task_env *sk__env, void *sk__selfv, "
                "void *sk__res) {\n"
                "  sk__tf_%s *sk__self = (sk__tf_%s *)sk__selfv;\n"
                "  SK__TASK_TEAM;\n"
                "  (void)team; (void)sk__res; (void)sk__self;\n"
                "#define self (*sk__self)\n",
                l, l, l);
  if (f->ret >= 0)
    sk_buf_printf(b,
                  "#define task_return(v) do { *(%s *)sk__res = (%s)(v); "
                  "return; } while (0)\n",
                  sk_dtypes[f->ret].ctype, sk_dtypes[f->ret].ctype);
  else sk_buf_puts(b, "#define task_return(...) return\n");
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
  rewrite(b, fx, n, f, f->body, f->body + strlen(f->body), mode);
  int lines = 1;
  for (const char *p = f->body; *p && p[1]; p++) lines += *p == '\n';
  sk_buf_printf(b,
                "\n#line %d \"%s\"\n}\n#line 1 \"generated\"\n"
                "#undef self\n#undef task_return\n",
                lines, l);
  for (int k = 0; k < f->nfields; k++)
    if (f->fields[k].kind == SK_TF_VIEW)
      sk_buf_printf(b, "#undef sk__self_%s\n", f->fields[k].name);
}

char *sk_task_codegen(const sk_tfunctor *fx, int n, const char *target, char *err,
                      size_t errlen) {
  const sk_jit_target *t = sk_jit_target_find(target);
  if (!t) {
    sk_err(err, errlen, SK_E_JIT_NO_CODE, target);
    return NULL;
  }
  sk_buf b;
  sk_buf_init(&b);
  sk_buf_puts(&b, "/* speck task functors:");
  for (int f = 0; f < n; f++) sk_buf_printf(&b, " %s", fx[f].label);
  sk_buf_puts(&b, " */\n");
  /* the task dialect, its generated-code part selected */
  sk_buf_puts(&b, t->task_mode);
  sk_cg_header(&b, t->task_dialect);
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
    if (t->cxx) { /* the fields come as a struct (spawn_fields), the priority after */
      sk_buf_printf(&b,
                    "SK__TFN future sk__spawn1_%s(const sk_task_env *e, int team, "
                    "sk__tf_%s fl, int prio = 0) {\n"
                    "  return SK__T_SPAWN(e, %d, &fl, prio, team);\n}\n"
                    "#define sk__spawn_%s(team, ...) sk__spawn1_%s(sk__env, team, "
                    "__VA_ARGS__)\n",
                    l, l, f, l, l);
      continue;
    }
    /* the fields and an optional priority initialise one struct: a
     * priority left out is 0 (regular), and the helper inlines */
    sk_buf_printf(&b,
                  "typedef struct { sk__tf_%s f; int prio; } sk__sa_%s;\n"
                  "SK__TFN future sk__spawn1_%s(const sk_task_env *e, int team, "
                  "sk__sa_%s a) {\n"
                  "  return SK__T_SPAWN(e, %d, &a.f, a.prio, team);\n}\n"
                  "#define sk__spawn_%s(team, ...) sk__spawn1_%s(sk__env, team, "
                  "(sk__sa_%s){(sk__tf_%s)__VA_ARGS__})\n",
                  l, l, l, l, f, l, l, l, l);
  }
  int ct = common_ret(fx, n);
  sk_buf_printf(&b, "#define future_get(f) ((%s)SK__T_GET_%s(sk__env, (f)))\n",
                sk_dtypes[ct].ctype, sk_dtypes[ct].is_float ? "F64" : "I64");
  int mode = t->cxx ? RW_CXX : t->image ? 0 : RW_JOIN;
  for (int f = 0; f < n; f++) gen_body(&b, fx, n, &fx[f], mode);
  if (t->image) { /* the dispatch and the results the device runtime reads */
    sk_buf_puts(&b, "SK_DEV void sk__task_call(int f, const sk_task_env *e, void *self, "
                    "void *res) {\n  switch (f) {\n");
    for (int f = 0; f < n; f++)
      sk_buf_printf(&b, "  case %d: sk__tb_%s(e, self, res); break;\n", f, fx[f].label);
    sk_buf_puts(&b, "  }\n}\n");
    for (int as_f = 0; as_f < 2; as_f++) {
      sk_buf_printf(
        &b, "SK_DEV %s sk__gt_res_%s(const sk_gtask *t) {\n  switch (t->functor) {\n",
        as_f ? "double" : "sk_i64", as_f ? "f64" : "i64");
      for (int f = 0; f < n; f++)
        if (fx[f].ret >= 0)
          sk_buf_printf(&b, "  case %d: return (%s)*(const %s *)&t->result;\n", f,
                        as_f ? "double" : "sk_i64", sk_dtypes[fx[f].ret].ctype);
      sk_buf_puts(&b, "  }\n  return 0;\n}\n");
    }
    char *src = sk_buf_take(&b);
    if (!src) sk_err(err, errlen, SK_E_OUT_MEMORY_GENERATING_FUNCTORS);
    return src;
  }
  sk_buf_printf(&b, "static void sk__task_fill(sk_task_table *t) {\n  t->n = %d;\n", n);
  for (int f = 0; f < n; f++) {
    const char *l = fx[f].label;
    sk_buf_printf(
      &b, "  t->fn[%d] = sk__tb_%s;\n  t->size[%d] = (sk_i64)sizeof(sk__tf_%s);\n", f, l,
      f, l);
    for (int k = 0; k < fx[f].nfields; k++)
      sk_buf_printf(
        &b, "  t->off[%d][%d] = (sk_i64)((char *)&((sk__tf_%s *)0)->%s - (char *)0);\n",
        f, k, l, fx[f].fields[k].name);
  }
  sk_buf_puts(&b, "}\n");
  char *src = sk_buf_take(&b);
  if (!src) sk_err(err, errlen, SK_E_OUT_MEMORY_GENERATING_FUNCTORS);
  return src;
}

/* "fib:3: error: x" (libtcc, gcc) -> "functor 'fib' line 3: error: x" */
void sk_task_compile_message(const sk_tfunctor *fx, int n, const char *msg, char *err,
                             size_t errlen) {
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
  sk_err(err, errlen, SK_E_MSG, s ? s : msg);
  free(s);
}
