/* agg.c: the aggregate scalar types of kernel bodies (seed 004 §3.3):
 * fadN (forward-mode AD: value and N derivatives) and ensN (an ensemble of
 * N values), their arithmetic as dialect functions, and the access of an
 * aggregate view's element (an lvalue of the struct type). Part of the
 * code-generation core.
 *
 * A C target (host): the functions are sk_fadN_add, ... and 'fad_add(a,
 * b)' is a _Generic macro over the types the kernel uses; a C++ target
 * (its table's 'cxx'): 'fad_add' is a set of overloads. Every type and
 * function is generated per kernel for the N it uses (dialect/README.md,
 * "Aggregate scalar types"), with the target's helper qualifiers.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "strbuf.h"
#include "target.h"

typedef struct agg_use {
  int n;
  int kind[SK_MAXCAP + SK_MAXRED], N[SK_MAXCAP + SK_MAXRED];
} agg_use;

static void add_use(agg_use *u, int kind, int n) {
  if (!kind) return;
  for (int i = 0; i < u->n; i++)
    if (u->kind[i] == kind && u->N[i] == n) return;
  u->kind[u->n] = kind;
  u->N[u->n++] = n;
}

static void collect(agg_use *u, const sk_kspec *s) {
  u->n = 0;
  for (int c = 0; c < s->ncap; c++)
    if (s->caps[c].kind == SK_CAP_VIEW) add_use(u, s->caps[c].agg, s->caps[c].agg_n);
  for (int r = 0; r < s->nred; r++) add_use(u, s->reds[r].agg, s->reds[r].agg_n);
}

const char *sk_cg_agg_type(int kind, int n, char *buf, size_t len) {
  snprintf(buf, len, "%s%d", kind == SK_AGG_FAD ? "fad" : "ens", n);
  return buf;
}

/* The operations: name, arity (1: f(a); 2: f(a, b) of the type; 3: f(a,
 * double s)), for fad the value's statements and derivative k's
 * expression, for an ensemble member k's expression. */
typedef struct op {
  const char *name;
  int arity;
  const char *fad_val, *fad_dx, *ens;
} op;

static const op OPS[] = {
  {"add", 2, "r.val = a.val + b.val;", "a.dx[k] + b.dx[k]", "a.v[k] + b.v[k]"},
  {"sub", 2, "r.val = a.val - b.val;", "a.dx[k] - b.dx[k]", "a.v[k] - b.v[k]"},
  {"mul", 2, "r.val = a.val * b.val;", "a.dx[k] * b.val + a.val * b.dx[k]",
   "a.v[k] * b.v[k]"},
  {"div", 2, "double q = 1.0 / b.val; r.val = a.val * q;",
   "(a.dx[k] - r.val * b.dx[k]) * q", "a.v[k] / b.v[k]"},
  {"neg", 1, "r.val = -a.val;", "-a.dx[k]", "-a.v[k]"},
  {"scale", 3, "r.val = a.val * s;", "a.dx[k] * s", "a.v[k] * s"},
  {"shift", 3, "r.val = a.val + s;", "a.dx[k]", "a.v[k] + s"},
  {"pow", 3, "r.val = pow(a.val, s); double d = s * pow(a.val, s - 1);", "a.dx[k] * d",
   "pow(a.v[k], s)"},
  {"sqrt", 1, "r.val = sqrt(a.val); double d = 0.5 / r.val;", "a.dx[k] * d",
   "sqrt(a.v[k])"},
  {"exp", 1, "r.val = exp(a.val);", "a.dx[k] * r.val", "exp(a.v[k])"},
  {"log", 1, "r.val = log(a.val); double d = 1.0 / a.val;", "a.dx[k] * d", "log(a.v[k])"},
  {"sin", 1, "r.val = sin(a.val); double d = cos(a.val);", "a.dx[k] * d", "sin(a.v[k])"},
  {"cos", 1, "r.val = cos(a.val); double d = -sin(a.val);", "a.dx[k] * d", "cos(a.v[k])"},
  {"tanh", 1, "r.val = tanh(a.val); double d = 1.0 - r.val * r.val;", "a.dx[k] * d",
   "tanh(a.v[k])"},
  {NULL, 0, NULL, NULL, NULL}};

/* One type's struct, constructors and operations. 'q' the qualifiers,
 * 'pre' the operations' name prefix (C "sk_fad8_", C++ "fad_"). */
static void gen_type(sk_buf *b, int kind, int n, const sk_jit_target *tg) {
  char t[32];
  sk_cg_agg_type(kind, n, t, sizeof t);
  const char *q = tg->fn_qual;
  int fad = kind == SK_AGG_FAD, cxx = tg->cxx;
  const char *fam = fad ? "fad" : "ens";
  char pre[48];
  if (cxx) snprintf(pre, sizeof pre, "%s_", fam);
  else snprintf(pre, sizeof pre, "sk_%s_", t);
  if (fad) sk_buf_printf(b, "typedef struct { double val; double dx[%d]; } %s;\n", n, t);
  else sk_buf_printf(b, "typedef struct { double v[%d]; } %s;\n", n, t);
  /* constructors: fadN_const(x), fadN_var(x, k); ensN_const(x) */
  if (fad) {
    sk_buf_printf(b,
                  "%s %s %s_const(double x) { %s r; r.val = x; "
                  "for (int k = 0; k < %d; k++) r.dx[k] = 0; return r; }\n",
                  q, t, t, t, n);
    sk_buf_printf(b,
                  "%s %s %s_var(double x, sk_i64 i) { %s r = %s_const(x); "
                  "if (i >= 0 && i < %d) r.dx[i] = 1; return r; }\n",
                  q, t, t, t, t, n);
  } else {
    sk_buf_printf(b,
                  "%s %s %s_const(double x) { %s r; "
                  "for (int k = 0; k < %d; k++) r.v[k] = x; return r; }\n",
                  q, t, t, t, n);
  }
  for (const op *o = OPS; o->name; o++) {
    const char *args = o->arity == 1   ? "%s a"
                       : o->arity == 2 ? "%s a, %s b"
                                       : "%s a, double s";
    char a[96];
    snprintf(a, sizeof a, args, t, t);
    sk_buf_printf(b, "%s %s %s%s(%s) { %s r; ", q, t, pre, o->name, a, t);
    if (fad)
      sk_buf_printf(b, "%s for (int k = 0; k < %d; k++) r.dx[k] = %s; ", o->fad_val, n,
                    o->fad_dx);
    else sk_buf_printf(b, "for (int k = 0; k < %d; k++) r.v[k] = %s; ", n, o->ens);
    sk_buf_puts(b, "return r; }\n");
  }
  if (fad && cxx) {
    sk_buf_printf(b, "%s double fad_val(%s a) { return a.val; }\n", q, t);
    sk_buf_printf(b, "%s double fad_dx(%s a, sk_i64 k) { return a.dx[k]; }\n", q, t);
  } else if (fad) {
    sk_buf_printf(b, "%s double sk_%s_val(%s a) { return a.val; }\n", q, t, t);
    sk_buf_printf(b, "%s double sk_%s_dx(%s a, sk_i64 k) { return a.dx[k]; }\n", q, t, t);
  }
}

/* C: fad_add(a, ...) -> _Generic((a), fad8: sk_fad8_add, ...)(a, ...) */
static void gen_generic(sk_buf *b, const agg_use *u, int kind, const char *name,
                        int unary) {
  int any = 0;
  for (int i = 0; i < u->n; i++) any |= u->kind[i] == kind;
  if (!any) return;
  const char *fam = kind == SK_AGG_FAD ? "fad" : "ens";
  if (unary) sk_buf_printf(b, "#define %s_%s(sk__x) _Generic((sk__x)", fam, name);
  else sk_buf_printf(b, "#define %s_%s(sk__x, ...) _Generic((sk__x)", fam, name);
  for (int i = 0; i < u->n; i++) {
    if (u->kind[i] != kind) continue;
    char t[32];
    sk_cg_agg_type(kind, u->N[i], t, sizeof t);
    sk_buf_printf(b, ", %s: sk_%s_%s", t, t, name);
  }
  sk_buf_puts(b, unary ? ")(sk__x)\n" : ")((sk__x), __VA_ARGS__)\n");
}

void sk_cg_agg(sk_buf *b, const sk_kspec *s, const sk_jit_target *t) {
  agg_use u;
  collect(&u, s);
  if (!u.n) return;
  sk_buf_puts(b, "/* -- aggregate scalar types -- */\n");
  for (int i = 0; i < u.n; i++) gen_type(b, u.kind[i], u.N[i], t);
  if (t->cxx) return; /* overloads: no _Generic macros */
  for (int kind = SK_AGG_FAD; kind <= SK_AGG_ENS; kind++)
    for (const op *o = OPS; o->name; o++)
      gen_generic(b, &u, kind, o->name, o->arity == 1);
  gen_generic(b, &u, SK_AGG_FAD, "val", 1);
  gen_generic(b, &u, SK_AGG_FAD, "dx", 0);
}
