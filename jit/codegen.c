/* codegen.c: the code-generation core both generators stand on
 * (codegen_host.c: host C; the GPU's: C++), each filling its
 * code target's table (target.h).
 *
 * What they share: the reserved names, the reducers' types, identities
 * and joins (the accumulator), the view element access (signature ->
 * stride locals, offset terms, tiled offset functions), the view struct
 * types, a remote view's locals and macros, the body block with its
 * '#line' directives, index aliases, the title line and the dialect
 * headers. The target's spellings (target.h) pick what differs: helper
 * qualifiers, the accumulator's C functions or C++ reducer type.
 *
 * Names that start with 'sk_' are the generator's; users cannot capture
 * them (sk_codegen_reserved).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "codegen.h"
#include "strbuf.h"
#include "target.h"

/* -- reserved words ---------------------------------------------------- */
static const char *const reserved[] = {
  /* C */
  "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
  "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
  "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
  "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "_Generic",
  "_Alignof", "_Alignas", "_Static_assert", "_Noreturn", "_Thread_local",
  /* dialect */
  "i", "j", "k", "acc", "final", "team", "bool", "true", "false", "NULL", "int8_t",
  "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
  "size_t", "INFINITY", "NAN", "SPECK_FN", "TEAM_FOR", "VECTOR_FOR", "TEAM_VECTOR_FOR",
  "TEAM_REDUCE", "VECTOR_REDUCE", "TEAM_VECTOR_REDUCE", "TEAM_SCAN", "VECTOR_SCAN",
  "team_barrier", "SINGLE_TEAM", "SINGLE_THREAD", "TEAM_BROADCAST", "team_scratch",
  "thread_scratch", "TEAM_SORT", "TEAM_SORT_KV", "umap_insert", "umap_find",
  "umap_exists", "umap_capacity", "umap_valid_at", "umap_key", "umap_value",
  "umap_inserted", "umap_existing", "umap_failed", "umap_slot", "atomic_add",
  "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
  "atomic_exchange", "atomic_cas", "atomic_fetch_add", "atomic_fetch_add_combined",
  "atomic_fetch_sub", "atomic_fetch_min", "atomic_fetch_max", "atomic_fetch_and",
  "atomic_fetch_or", "atomic_fetch_xor", "sqrt", "exp", "log", "pow", "fabs", "fmin",
  "fmax", "floor", "ceil", "sin", "cos", "tan", "atan2", "tanh", "asin", "acos", "atan",
  "sinh", "cosh", "log2", "log10", "exp2", "cbrt", "round", "trunc", "erf", "fmod",
  "hypot",
  /* the task dialect (dialect/task.h) */
  "future", "self", "task_spawn", "task_spawn_team", "task_respawn", "when_all",
  "future_get", "future_is_null", "task_return", "pool_alloc", "pool_free", "TASK_HIGH",
  "TASK_REGULAR", "TASK_LOW",
  /* names the dialect headers define or declare for their own use */
  "typeof", "malloc", "free", "sched_yield",
  /* C++ (a GPU's compiler reads the same body) and its built-ins */
  "alignas", "alignof", "and", "and_eq", "asm", "bitand", "bitor", "catch", "char16_t",
  "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept",
  "const_cast", "consteval", "constexpr", "constinit", "decltype", "delete",
  "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new",
  "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private",
  "protected", "public", "reinterpret_cast", "requires", "static_assert", "static_cast",
  "template", "this", "thread_local", "throw", "try", "typeid", "typename", "using",
  "virtual", "wchar_t", "xor", "xor_eq", "threadIdx", "blockIdx", "blockDim", "gridDim",
  "warpSize", NULL};

int sk_codegen_reserved(const char *name) {
  for (int t = 0; reserved[t]; t++)
    if (strcmp(name, reserved[t]) == 0) return 1;
  /* the generator's and the dialect's prefixes; C reserves __x and _X */
  if (strncmp(name, "sk_", 3) == 0 || strncmp(name, "SK_", 3) == 0) return 1;
  if (name[0] == '_' && (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z'))) return 1;
  /* the aggregate types' names: fad8, ens16, fad_add, ens_mul, ... */
  if (strncmp(name, "fad_", 4) == 0 || strncmp(name, "ens_", 4) == 0) return 1;
  if ((strncmp(name, "fad", 3) == 0 || strncmp(name, "ens", 3) == 0) && name[3] >= '0' &&
      name[3] <= '9')
    return 1;
  /* i0..i5, acc0..acc99 */
  if (name[0] == 'i' && name[1] >= '0' && name[1] <= '9' && !name[2]) return 1;
  if (strncmp(name, "acc", 3) == 0 && name[3] >= '0' && name[3] <= '9') {
    const char *p = name + 3;
    while (*p >= '0' && *p <= '9') p++;
    if (!*p) return 1;
  }
  return 0;
}

/* -- reducers ---------------------------------------------------------- */
static const char *const int_max[SK_NDTYPE] = {[SK_I64] = "9223372036854775807L",
                                               [SK_I32] = "2147483647",
                                               [SK_I16] = "32767",
                                               [SK_I8] = "127",
                                               [SK_U64] = "18446744073709551615UL",
                                               [SK_U32] = "4294967295U",
                                               [SK_U8] = "255",
                                               [SK_BOOL] = "1"};
static const char *const int_min[SK_NDTYPE] = {[SK_I64] = "(-9223372036854775807L - 1)",
                                               [SK_I32] = "(-2147483647 - 1)",
                                               [SK_I16] = "(-32768)",
                                               [SK_I8] = "(-128)",
                                               [SK_U64] = "0",
                                               [SK_U32] = "0",
                                               [SK_U8] = "0",
                                               [SK_BOOL] = "0"};

/* identity of min / max for 'dtype' */
static const char *id_min(int dt) {
  return sk_dtypes[dt].is_float ? "INFINITY" : int_max[dt];
}
static const char *id_max(int dt) {
  return sk_dtypes[dt].is_float ? "(-INFINITY)" : int_min[dt];
}

/* The C type of reducer 'r' as the body sees 'acc'. */
static void red_type(sk_buf *b, const sk_reducer *r) {
  const char *t = sk_dtypes[r->dtype].ctype;
  if (r->agg) {
    char at[32];
    sk_buf_puts(b, sk_cg_agg_type(r->agg, r->agg_n, at, sizeof at));
    return;
  }
  switch (r->op) {
  case SK_RED_MINLOC:
  case SK_RED_MAXLOC: sk_buf_printf(b, "struct { %s val; int64_t loc; }", t); break;
  case SK_RED_MINMAX: sk_buf_printf(b, "struct { %s min_val; %s max_val; }", t, t); break;
  default: sk_buf_puts(b, t);
  }
}

/* statements setting 'D' (an lvalue of reducer r's type) to the identity */
/* complex sum / prod, part by part (the same text for every target: C99
 * _Complex, the libtcc pair, the GPU's class): part k of D */
#define CX_PART "((%s *)&(%s))[%d]"
static void red_init_cx(sk_buf *b, const sk_reducer *r, const char *d) {
  const char *pt = r->dtype == SK_C128 ? "double" : "float";
  sk_buf_printf(b, CX_PART " = %d; " CX_PART " = 0;", pt, d, 0,
                r->op == SK_RED_PROD ? 1 : 0, pt, d, 1);
}
static void red_join_cx(sk_buf *b, const sk_reducer *r, const char *d, const char *s) {
  const char *pt = r->dtype == SK_C128 ? "double" : "float";
  if (r->op == SK_RED_PROD) {
    sk_buf_printf(b,
                  "{ %s sk__a = " CX_PART ", sk__b = " CX_PART ", sk__c = ((const %s *)&(%s))[0], "
                  "sk__e = ((const %s *)&(%s))[1]; " CX_PART " = sk__a * sk__c - sk__b * sk__e; "
                  CX_PART " = sk__a * sk__e + sk__b * sk__c; }",
                  pt, pt, d, 0, pt, d, 1, pt, s, pt, s, pt, d, 0, pt, d, 1);
    return;
  }
  for (int k = 0; k < 2; k++)
    sk_buf_printf(b, CX_PART " += ((const %s *)&(%s))[%d]; ", pt, d, k, pt, s, k);
}

static void red_init(sk_buf *b, const sk_reducer *r, const char *d) {
  int dt = r->dtype;
  if (sk_dtypes[dt].is_complex && !r->agg && r->op != SK_RED_CUSTOM) {
    red_init_cx(b, r, d);
    return;
  }
  if (r->agg) { /* sum: every component 0 */
    sk_buf_printf(
      b, "for (int sk__c = 0; sk__c < %d; sk__c++) ((double *)&(%s))[sk__c] = 0;",
      sk_agg_width(r->agg, r->agg_n), d);
    return;
  }
  switch (r->op) {
  case SK_RED_SUM: sk_buf_printf(b, "%s = 0;", d); break;
  case SK_RED_PROD: sk_buf_printf(b, "%s = 1;", d); break;
  case SK_RED_MIN: sk_buf_printf(b, "%s = %s;", d, id_min(dt)); break;
  case SK_RED_MAX: sk_buf_printf(b, "%s = %s;", d, id_max(dt)); break;
  case SK_RED_LAND: sk_buf_printf(b, "%s = 1;", d); break;
  case SK_RED_LOR: sk_buf_printf(b, "%s = 0;", d); break;
  case SK_RED_BAND: sk_buf_printf(b, "%s = %s;", d, dt == SK_BOOL ? "1" : "~0"); break;
  case SK_RED_BOR: sk_buf_printf(b, "%s = 0;", d); break;
  case SK_RED_MINLOC:
    sk_buf_printf(b, "%s.val = %s; %s.loc = 9223372036854775807L;", d, id_min(dt), d);
    break;
  case SK_RED_MAXLOC:
    sk_buf_printf(b, "%s.val = %s; %s.loc = 9223372036854775807L;", d, id_max(dt), d);
    break;
  case SK_RED_MINMAX:
    sk_buf_printf(b, "%s.min_val = %s; %s.max_val = %s;", d, id_min(dt), d, id_max(dt));
    break;
  case SK_RED_CUSTOM:
    sk_buf_printf(b, "{ ");
    red_type(b, r);
    sk_buf_printf(b, " acc = 0;\n#line 1 \"init\"\n%s\n; %s = acc; }", r->init, d);
    break;
  }
}

/* statements joining 'S' into 'D' (lvalues of reducer r's type) */
static void red_join(sk_buf *b, const sk_reducer *r, const char *d, const char *s) {
  if (sk_dtypes[r->dtype].is_complex && !r->agg && r->op != SK_RED_CUSTOM) {
    red_join_cx(b, r, d, s);
    return;
  }
  if (r->agg) { /* sum: component by component */
    sk_buf_printf(b,
                  "for (int sk__c = 0; sk__c < %d; sk__c++) ((double *)&(%s))[sk__c] += "
                  "((const double *)&(%s))[sk__c];",
                  sk_agg_width(r->agg, r->agg_n), d, s);
    return;
  }
  switch (r->op) {
  case SK_RED_SUM: sk_buf_printf(b, "%s += %s;", d, s); break;
  case SK_RED_PROD: sk_buf_printf(b, "%s *= %s;", d, s); break;
  case SK_RED_MIN: sk_buf_printf(b, "if (%s < %s) %s = %s;", s, d, d, s); break;
  case SK_RED_MAX: sk_buf_printf(b, "if (%s > %s) %s = %s;", s, d, d, s); break;
  case SK_RED_LAND: sk_buf_printf(b, "%s = %s && %s;", d, d, s); break;
  case SK_RED_LOR: sk_buf_printf(b, "%s = %s || %s;", d, d, s); break;
  case SK_RED_BAND: sk_buf_printf(b, "%s &= %s;", d, s); break;
  case SK_RED_BOR: sk_buf_printf(b, "%s |= %s;", d, s); break;
  case SK_RED_MINLOC:
  case SK_RED_MAXLOC: {
    const char *op = r->op == SK_RED_MINLOC ? "<" : ">";
    sk_buf_printf(b,
                  "if (%s.val %s %s.val || (%s.val == %s.val && %s.loc < "
                  "%s.loc)) %s = %s;",
                  s, op, d, s, d, s, d, d, s);
    break;
  }
  case SK_RED_MINMAX:
    sk_buf_printf(b,
                  "if (%s.min_val < %s.min_val) %s.min_val = %s.min_val; "
                  "if (%s.max_val > %s.max_val) %s.max_val = %s.max_val;",
                  s, d, d, s, s, d, d, s);
    break;
  case SK_RED_CUSTOM:
    sk_buf_printf(b, "{ ");
    red_type(b, r);
    sk_buf_printf(b, " dst = %s; ", d);
    red_type(b, r);
    sk_buf_printf(b, " src = %s;\n#line 1 \"join\"\n%s\n; %s = dst; }", s, r->join, d);
    break;
  }
}

/* The accumulator struct, sk__init, sk__join and sk__layout; for a
 * target with a reducer type (its 'acc_qual') the same types and a type
 * 'sk__R' whose static members init/join have those qualifiers (the
 * device dialect's contract). The host text is also what an image
 * target's reductions compile with libtcc, so that push_results reads
 * the device's accumulator with the same layout. */
void sk_codegen_acc(sk_buf *b, const sk_kspec *s, const sk_jit_target *t) {
  const char *rq = t->acc_qual;
  sk_buf_puts(b, "\n/* -- accumulator -- */\n");
  for (int r = 0; r < s->nred; r++) {
    sk_buf_puts(b, "typedef ");
    red_type(b, &s->reds[r]);
    sk_buf_printf(b, " sk__r%d_t;\n", r);
  }
  sk_buf_puts(b, "typedef struct sk__acc_t {");
  for (int r = 0; r < s->nred; r++) sk_buf_printf(b, " sk__r%d_t v%d;", r, r);
  sk_buf_puts(b, " } sk__acc_t;\n");
  if (rq)
    sk_buf_printf(b,
                  "struct sk__R {\n  typedef sk__acc_t T;\n"
                  "  %s void init(sk__acc_t *sk__a) {\n",
                  rq);
  else sk_buf_puts(b, "void sk__init(void *sk__p) {\n  sk__acc_t *sk__a = sk__p;\n");
  char d[32], sv[32];
  for (int r = 0; r < s->nred; r++) {
    snprintf(d, sizeof d, "sk__a->v%d", r);
    sk_buf_puts(b, "  ");
    red_init(b, &s->reds[r], d);
    sk_buf_puts(b, "\n");
  }
  if (rq)
    sk_buf_printf(b,
                  "  }\n  %s void join(sk__acc_t *sk__d, "
                  "const sk__acc_t *sk__s) {\n",
                  rq);
  else
    sk_buf_puts(b, "}\nvoid sk__join(void *sk__dp, const void *sk__sp) {\n"
                   "  sk__acc_t *sk__d = sk__dp;\n"
                   "  const sk__acc_t *sk__s = sk__sp;\n");
  for (int r = 0; r < s->nred; r++) {
    snprintf(d, sizeof d, "sk__d->v%d", r);
    snprintf(sv, sizeof sv, "sk__s->v%d", r);
    sk_buf_puts(b, "  ");
    red_join(b, &s->reds[r], d, sv);
    sk_buf_puts(b, "\n");
  }
  if (rq) {
    sk_buf_puts(b, "  }\n};\n");
    return;
  }
  sk_buf_puts(b, "}\nlong sk__layout(long *sk__off) {\n");
  for (int r = 0; r < s->nred; r++)
    sk_buf_printf(b, "  sk__off[%d] = (long)(char *)&((sk__acc_t *)0)->v%d;\n", r, r);
  sk_buf_puts(b, "  return (long)sizeof(sk__acc_t);\n}\n");
}

/* -- captures ---------------------------------------------------------- */
const char *sk_cg_slot(int dt) {
  switch (dt) {
  case SK_F64: return "f64";
  case SK_F32: return "f32";
  case SK_I64: return "i64";
  case SK_I32: return "i32";
  case SK_I16: return "i16";
  case SK_I8: return "i8";
  case SK_U64: return "u64";
  case SK_U32: return "u32";
  case SK_C128: return "c128";
  case SK_C64: return "c64";
  default: return "u8"; /* uint8, bool */
  }
}

/* -- view element access ---------------------------------------------- */
static int unit_dim(const sk_capture *k, int d) {
  if (k->agg) return 0; /* the components are the unit-stride dimension */
  return (k->layout == SK_RIGHT && d == k->rank - 1) || (k->layout == SK_LEFT && d == 0);
}

/* Tiled views: the offset function of capture 'k', at file scope, with the
 * tile shifts and masks of the signature as constants: the tile index
 * times the tile strides (runtime), plus the in-tile offset. 'qual' is
 * the function's qualifiers ("static inline", "__device__ ..."). */
void sk_cg_tile_fn(sk_buf *b, const sk_capture *k, const char *qual) {
  if (k->kind != SK_CAP_VIEW || !sk_layout_tiled(k->layout)) return;
  int r = k->rank, right = k->layout == SK_TILED_RIGHT;
  sk_buf_printf(b, "%s sk_i64 sk__%s_at(", qual, k->name);
  for (int d = 0; d < r; d++) sk_buf_printf(b, "sk_i64 a%d, ", d);
  for (int d = 0; d < r; d++) sk_buf_printf(b, "sk_i64 s%d%s", d, d + 1 < r ? ", " : "");
  sk_buf_puts(b, ") {\n  return ");
  for (int d = 0; d < r; d++)
    sk_buf_printf(b, "(a%d >> %d) * s%d + ", d, k->tile_log2[d], d);
  sk_buf_puts(b, "(");
  for (int d = 0; d < r; d++) {
    int sh = 0;
    for (int e = 0; e < r; e++)
      if (right ? e > d : e < d) sh += k->tile_log2[e];
    sk_buf_printf(b, "%s((a%d & %ldL) << %d)", d ? " | " : "", d,
                  (1L << k->tile_log2[d]) - 1, sh);
  }
  sk_buf_puts(b, ");\n}\n");
}

/* Stride locals of view capture 'k' named 'n' (a unit stride is the
 * constant 1; a tiled view's are its tile strides). */
void sk_cg_strides(sk_buf *b, const sk_capture *k) {
  for (int d = 0; d < k->rank; d++)
    if (!unit_dim(k, d))
      sk_buf_printf(b, "  const sk_i64 sk__%s_s%d = %s.stride[%d];\n", k->name, d,
                    k->name, d);
}

/* The element offset of the access macro's arguments sk__a0.. as terms
 * " + ..." after a leading 0; bounds checks when 'oob' (the last
 * argument of sk__bc) is not NULL. 'c' is the capture's index. */
void sk_cg_offset(sk_buf *b, const sk_capture *k, int c, const char *oob) {
  const char *n = k->name;
  int r = k->rank, tiled = sk_layout_tiled(k->layout);
  char idx[SK_MAXRANK][128];
  for (int d = 0; d < r; d++) {
    if (oob)
      snprintf(idx[d], sizeof idx[d],
               "sk__bc((sk_i64)(sk__a%d), %s.extent[%d], %d, %d, %s)", d, n, d, c, d,
               oob);
    else snprintf(idx[d], sizeof idx[d], "(sk_i64)(sk__a%d)", d);
  }
  if (tiled) {
    sk_buf_printf(b, " + sk__%s_at(", n);
    for (int d = 0; d < r; d++) sk_buf_printf(b, "%s, ", idx[d]);
    for (int d = 0; d < r; d++)
      sk_buf_printf(b, "sk__%s_s%d%s", n, d, d + 1 < r ? ", " : ")");
    return;
  }
  for (int d = 0; d < r; d++) {
    if (unit_dim(k, d)) sk_buf_printf(b, " + %s", idx[d]);
    else sk_buf_printf(b, " + %s * sk__%s_s%d", idx[d], n, d);
  }
}

/* The view struct types used (one per dtype) and the offset functions
 * of tiled views, with 'qual' the functions' qualifiers; the unpacking
 * happens inside the kernel (each generator's gen_unpack). */
void sk_cg_view_types(sk_buf *b, const sk_kspec *s, const char *qual) {
  int seen[SK_NDTYPE] = {0};
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    if (k->kind != SK_CAP_VIEW || seen[k->dtype]) continue;
    seen[k->dtype] = 1;
    sk_buf_printf(b,
                  "typedef struct { %s *data; sk_i64 extent[%d]; "
                  "sk_i64 stride[%d]; sk_i64 rank; } sk__view_%s;\n",
                  sk_dtypes[k->dtype].ctype, SK_MAXRANK, SK_MAXRANK,
                  sk_dtypes[k->dtype].tag);
  }
  for (int c = 0; c < s->ncap; c++) sk_cg_tile_fn(b, &s->caps[c], qual);
}

/* The rest of a remote view's compound update 'upd' (whose first lines
 * each generator writes: its parameters w, l, lo, n, g, op, v and the
 * last one 'ctx', and x = the element's value): apply 'op' ('+' ... '>'
 * for '>>='; bit operations for integers only) and put x back. */
void sk_cg_remote_upd(sk_buf *b, const sk_capture *k, const char *ctx) {
  sk_buf_puts(b, "  switch (op) {\n"
                 "  case '+': x = x + v; break;\n  case '-': x = x - v; break;\n"
                 "  case '*': x = x * v; break;\n  case '/': x = x / v; break;\n");
  if (!sk_dtypes[k->dtype].is_float)
    sk_buf_puts(b, "  case '%': x = x % v; break;\n  case '&': x = x & v; break;\n"
                   "  case '|': x = x | v; break;\n  case '^': x = x ^ v; break;\n"
                   "  case '<': x = x << v; break;\n  case '>': x = x >> v; break;\n");
  sk_buf_printf(
    b, "  default: break;\n  }\n  return sk__%s_put(w, l, lo, n, g, x, %s);\n}\n",
    k->name, ctx);
}

/* A remote view's locals (its window, local part and range, the global
 * index of its element 0) and its macros: x(..) reads, sk__x_at(..) is
 * the global index, P / U / F / C the rewritten writes (check.c). 'ctx'
 * is the last argument of the helpers (the host's launch context, the
 * device kernel's bounds record), which both generators define with the
 * same parameters: get(w, l, lo, n, g, ctx), put(.., g, v, ctx),
 * upd(.., g, op, v, ctx), fop(w, g, op, a, e, ctx). */
void sk_cg_remote_unpack(sk_buf *b, const sk_kspec *s, const sk_capture *k, int c,
                         const char *ctx) {
  const char *n = k->name, *T = sk_dtypes[k->dtype].ctype;
  int r = k->rank;
  sk_buf_printf(
    b,
    "  const sk_rwin *sk__%s_w = (const sk_rwin *)sk__args[%d].v.handle;\n"
    "  %s *sk__%s_l = (%s *)sk__%s_w->local;\n"
    "  const sk_i64 sk__%s_lo = sk__%s_w->lo, sk__%s_n = sk__%s_w->nloc;\n"
    "  const sk_i64 sk__%s_g0 = ((const char *)%s.data - sk__%s_w->vbase) / sk__%s_w->esize;\n",
    n, c, T, n, T, n, n, n, n, n, n, n, n, n);
  sk_cg_strides(b, k);
  sk_buf_printf(b, "  (void)%s; (void)sk__%s_l; (void)sk__%s_lo; (void)sk__%s_n;\n", n, n,
                n, n);
  sk_buf_printf(b, "#define sk__%s_at(", n);
  for (int d = 0; d < r; d++) sk_buf_printf(b, "%ssk__a%d", d ? ", " : "", d);
  sk_buf_printf(b, ") (sk__%s_g0", n);
  sk_cg_offset(b, k, c, s->bounds ? ctx : NULL);
  sk_buf_puts(b, ")\n");
  sk_buf_printf(b,
                "#define %s(...) sk__%s_get(sk__%s_w, sk__%s_l, sk__%s_lo, "
                "sk__%s_n, sk__%s_at(__VA_ARGS__), %s)\n",
                n, n, n, n, n, n, n, ctx);
  sk_buf_printf(b,
                "#define sk__%s_P(g, v) sk__%s_put(sk__%s_w, sk__%s_l, sk__%s_lo, "
                "sk__%s_n, g, v, %s)\n",
                n, n, n, n, n, n, ctx);
  sk_buf_printf(b,
                "#define sk__%s_U(g, o, v) sk__%s_upd(sk__%s_w, sk__%s_l, "
                "sk__%s_lo, sk__%s_n, g, o, v, %s)\n",
                n, n, n, n, n, n, ctx);
  sk_buf_printf(b, "#define sk__%s_F(g, o, v) sk__%s_fop(sk__%s_w, g, o, v, 0, %s)\n", n,
                n, n, ctx);
  sk_buf_printf(b,
                "#define sk__%s_C(g, e, d) sk__%s_fop(sk__%s_w, g, SK_ROP_CAS, e, d, "
                "%s)\n",
                n, n, n, ctx);
}

/* -- the kernel's pieces ------------------------------------------------ */
static const char *const md_default[3] = {"i", "j", "k"};

/* The body in its own block, 'return' meaning "done with this work
 * item" (a jump to 'label'), '#line' directives so messages name body
 * lines, the closing brace on the body's last line (a missing ';' there is
 * reported on that line). 'atomic': rewrite updates of atomic views. */
void sk_cg_body(sk_buf *b, const sk_kspec *s, const char *indent, const char *label,
                int atomic) {
  sk_buf_printf(b, "%s{\n#define return goto %s;\n#line 1 \"body\"\n", indent, label);
  char *rewritten = atomic ? sk_body_atomic(s, atomic == 2) : NULL;
  char *remote = sk_body_remote(s, rewritten ? rewritten : s->body,
                                rewritten ? strlen(rewritten) : s->body_len);
  if (remote) {
    free(rewritten);
    rewritten = remote;
  }
  /* a user's loops poll the stop word (the library's own loops end) */
  char *polled = s->library ? NULL
                            : sk_body_polls(rewritten ? rewritten : s->body,
                                            rewritten ? strlen(rewritten) : s->body_len);
  if (polled) {
    free(rewritten);
    rewritten = polled;
  }
  if (rewritten) {
    sk_buf_puts(b, rewritten);
    free(rewritten);
  } else {
    sk_buf_add(b, s->body, s->body_len);
  }
  int lines = 1;
  for (size_t q = 0; q + 1 < s->body_len; q++) lines += s->body[q] == '\n';
  sk_buf_printf(b,
                "\n#undef return\n#line %d \"body\"\n%s}\n#line 1 \"generated\"\n"
                "%s%s:;\n",
                lines, indent, indent, label);
}

void sk_cg_index_alias(sk_buf *b, const sk_kspec *s, int d, const char *var,
                       const char *indent) {
  const char *name = s->index[d];
  if (!name && s->policy_kind == SK_POL_RANGE && d == 0) name = "i";
  if (!name && s->policy_kind == SK_POL_MDRANGE && s->md_rank <= 3) name = md_default[d];
  if (name && strcmp(name, var) != 0)
    sk_buf_printf(b, "%sconst sk_i64 %s = %s; (void)%s;\n", indent, name, var, name);
}

/* The first line of a generated source: a comment naming the kernel.
 * The label is the user's: only printable ASCII goes in, '*' and '\\'
 * become '_' (no "*" "/" can end the comment early, no splice can join
 * the next line to it), and at most 200 characters. */
void sk_cg_title(sk_buf *b, const char *what, const sk_kspec *s) {
  sk_buf_printf(b, "/* speck %s '", what);
  const char *l = s->label ? s->label : "";
  size_t n = 0;
  for (; l[n] && n < 200; n++) {
    char c = l[n];
    char o = c >= 0x20 && c <= 0x7e && c != '*' && c != '\\' ? c : '_';
    sk_buf_add(b, &o, 1);
  }
  sk_buf_printf(b, "%s' (%s) */\n", l[n] ? "..." : "",
                s->pattern == SK_FOR      ? "parallel_for"
                : s->pattern == SK_REDUCE ? "parallel_reduce"
                                          : "parallel_scan");
}

/* Dialect text without its #include lines (everything is inlined). */
void sk_cg_header(sk_buf *b, const char *text) {
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
    if (strncmp(p, "#include", 8) != 0) sk_buf_add(b, p, n);
    p += n;
  }
}

/* The target's dialect headers, in order. */
void sk_cg_dialect(sk_buf *b, const sk_jit_target *t) {
  for (int h = 0; t->dialect[h]; h++) sk_cg_header(b, t->dialect[h]);
}

/* The prelude (when there is one) under its own '#line', then the
 * generated code's '#line'. */
void sk_cg_prelude(sk_buf *b, const sk_kspec *s) {
  if (s->prelude && *s->prelude)
    sk_buf_printf(b, "\n#line 1 \"prelude\"\n%s\n", s->prelude);
  sk_buf_puts(b, "\n#line 1 \"generated\"\n");
}

/* The finished source (malloc'd), or NULL with the message. */
char *sk_cg_take(sk_buf *b, char *err, size_t errlen) {
  char *src = sk_buf_take(b);
  if (!src) sk_err(err, errlen, SK_E_OUT_MEMORY_GENERATING);
  return src;
}
