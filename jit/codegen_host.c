/* codegen_host.c: the host generator (host C: the tcc and cc tiers),
 * on the code-generation core (codegen.c), and the host C code target.
 *
 * Input: a kernel spec (body, captures, pattern, policy kind, reducers).
 * Output: one self-contained C translation unit: the dialect headers
 * (embedded strings, no #include), the prelude, the accumulator type with
 * its identity/join functions, and the chunk function 'sk__kernel'
 * (see abi.h for its contract). The body is preceded by '#line 1 "body"'
 * so compiler messages point at the body's own lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect/dialect_src.h"
#include "codegen.h"
#include "strbuf.h"
#include "target.h"

/* -- captures ---------------------------------------------------------- */
/* Remote views (backends/remote): the element helpers of capture 'k'
 * (index 'c') at file scope. The local part is a load or store in line,
 * and so is every element when the ranks share one node's memory (the
 * window's 'shared' block: the cached remote pointers of seed 001); the
 * rest calls the window's functions; an index outside the global
 * range is reported as the launch's bad index (dim -1). U applies a
 * compound assignment ('+' ... '>' for '>>='), F an atomic. */
static void remote_fns(sk_buf *b, const sk_capture *k, int c) {
  if (k->kind != SK_CAP_VIEW || !sk_space_remote(k->space)) return;
  const char *n = k->name, *T = sk_dtypes[k->dtype].ctype;
  const char *W = "const sk_rwin *w", *ctx = "const sk_ctx *ctx";
  sk_buf_printf(
    b,
    "static inline %s sk__%s_get(%s, const %s *l, sk_i64 lo, sk_i64 n, sk_i64 g, %s) {\n"
    "  sk_i64 k = g - lo;\n"
    "  if ((sk_u64)k < (sk_u64)n) return l[k];\n"
    "  if (w->shared && (sk_u64)g < (sk_u64)w->total) return ((const %s *)w->shared)[g];\n"
    "  %s t = 0;\n"
    "  if (w->get(w, g, &t) < 0) sk_oob_report(ctx, %d, -1, g, w->total);\n"
    "  return t;\n}\n",
    T, n, W, T, ctx, T, T, c);
  sk_buf_printf(
    b,
    "static inline %s sk__%s_put(%s, %s *l, sk_i64 lo, sk_i64 n, sk_i64 g, %s v, %s) {\n"
    "  sk_i64 k = g - lo;\n"
    "  if ((sk_u64)k < (sk_u64)n) { l[k] = v; return v; }\n"
    "  if (w->shared && (sk_u64)g < (sk_u64)w->total) { ((%s *)w->shared)[g] = v; return v; }\n"
    "  if (w->put(w, g, &v) < 0) sk_oob_report(ctx, %d, -1, g, w->total);\n"
    "  return v;\n}\n",
    T, n, W, T, T, ctx, T, c);
  sk_buf_printf(
    b,
    "static inline %s sk__%s_upd(%s, %s *l, sk_i64 lo, sk_i64 n, sk_i64 g, int op, %s v, %s) {\n"
    "  %s x = sk__%s_get(w, l, lo, n, g, ctx);\n",
    T, n, W, T, T, ctx, T, n);
  sk_cg_remote_upd(b, k, "ctx");
  sk_buf_printf(
    b,
    "static inline %s sk__%s_fop(%s, sk_i64 g, int op, %s a, %s e, %s) {\n"
    "  %s in[2]; %s old = 0;\n"
    "  if (op == SK_ROP_CAS) { in[0] = a; in[1] = e; } else { in[0] = a; in[1] = 0; }\n"
    "  if (w->fop(w, g, op, in, &old) < 0) sk_oob_report(ctx, %d, -1, g, w->total);\n"
    "  return old;\n}\n",
    T, n, W, T, T, ctx, T, T, c);
}

/* The view struct types used and the helpers of tiled and remote views,
 * then nothing else: the unpacking happens inside the chunk function
 * (gen_unpack). */
static void gen_view_types(sk_buf *b, const sk_kspec *s) {
  sk_cg_view_types(b, s, sk_jit_target_host.fn_qual);
  for (int c = 0; c < s->ncap; c++) remote_fns(b, &s->caps[c], c);
}

/* Locals for each capture and the element-access macro of each view. */
static void gen_unpack(sk_buf *b, const sk_kspec *s) {
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    const sk_dtype_info *t = &sk_dtypes[k->dtype];
    const char *n = k->name;
    if (k->kind == SK_CAP_SCALAR && t->is_complex) { /* the slot's {re, im} */
      sk_buf_printf(b, "  const %s %s = *(const %s *)sk__args[%d].%s;\n", t->ctype, n,
                    t->ctype, c, sk_cg_slot(k->dtype));
      continue;
    }
    if (k->kind == SK_CAP_SCALAR) {
      sk_buf_printf(b, "  const %s %s = (%s)sk__args[%d].%s;\n", t->ctype, n, t->ctype, c,
                    sk_cg_slot(k->dtype));
      continue;
    }
    int r = k->rank;
    int restrict_ok = !k->alias;
    sk_buf_printf(b, "  const sk__view_%s %s = *(const sk__view_%s *)&sk__args[%d].v;\n",
                  t->tag, n, t->tag, c);
    if (sk_space_remote(k->space)) {
      sk_cg_remote_unpack(b, s, k, c, "sk__ctx");
      continue;
    }
    sk_buf_printf(b, "  %s *%s sk__%s_d = %s.data;\n", t->ctype,
                  restrict_ok ? "SK_RESTRICT" : "", n, n);
    sk_cg_strides(b, k);
    sk_buf_printf(b, "  (void)%s; (void)sk__%s_d;\n", n, n);
    /* the access macro */
    sk_buf_printf(b, "#define %s(", n);
    for (int d = 0; d < r; d++) sk_buf_printf(b, "%ssk__a%d", d ? ", " : "", d);
    if (k->agg) { /* the element: an lvalue of its struct type */
      char at[32];
      sk_buf_printf(b, ") (*(%s *)&sk__%s_d[0",
                    sk_cg_agg_type(k->agg, k->agg_n, at, sizeof at), n);
    } else {
      sk_buf_printf(b, ") (sk__%s_d[0", n);
    }
    sk_cg_offset(b, k, c, s->bounds ? "sk__ctx" : NULL);
    sk_buf_puts(b, "])\n");
  }
}

/* -- chunk function ---------------------------------------------------- */
static void gen_acc_locals(sk_buf *b, const sk_kspec *s) {
  if (s->pattern == SK_FOR) return;
  sk_buf_puts(b, "  sk__acc_t *sk__accp = (sk__acc_t *)sk__accv;\n");
  if (s->nred == 1) {
    sk_buf_puts(b, "  sk__r0_t acc = sk__accp->v0;\n");
  } else {
    for (int r = 0; r < s->nred; r++)
      sk_buf_printf(b, "  sk__r%d_t acc%d = sk__accp->v%d;\n", r, r, r);
  }
  if (s->pattern == SK_SCAN)
    sk_buf_puts(b, "  const bool final = (bool)sk__ctx->final;\n");
}

static void gen_acc_store(sk_buf *b, const sk_kspec *s) {
  if (s->pattern == SK_FOR) return;
  if (s->nred == 1) {
    sk_buf_puts(b, "  sk__accp->v0 = acc;\n");
  } else {
    for (int r = 0; r < s->nred; r++)
      sk_buf_printf(b, "  sk__accp->v%d = acc%d;\n", r, r);
  }
}

static void gen_body(sk_buf *b, const sk_kspec *s, const char *indent) {
  sk_cg_body(b, s, indent, "sk__next", 1);
}

static void gen_range(sk_buf *b, const sk_kspec *s) {
  sk_buf_puts(b, "  for (sk_i64 i0 = sk__b; i0 < sk__e; ++i0) {\n");
  sk_cg_index_alias(b, s, 0, "i0", "    ");
  gen_body(b, s, "    ");
  sk_buf_puts(b, "  }\n");
}

/* MDRange: work items are tiles, dimension md_rank-1 fastest. */
static void gen_mdrange(sk_buf *b, const sk_kspec *s) {
  int R = s->md_rank;
  sk_buf_puts(b, "  for (sk_i64 sk__t = sk__b; sk__t < sk__e; ++sk__t) {\n"
                 "    sk_i64 sk__r = sk__t;\n");
  for (int d = R - 1; d >= 0; d--) {
    sk_buf_printf(b,
                  "    const sk_i64 sk__lo%d = sk__ctx->md_lo[%d] + (sk__r %% "
                  "sk__ctx->md_ntile[%d]) * sk__ctx->md_tile[%d];\n"
                  "    sk__r /= sk__ctx->md_ntile[%d];\n"
                  "    const sk_i64 sk__hi%d = sk__lo%d + sk__ctx->md_tile[%d] < "
                  "sk__ctx->md_hi[%d] ? sk__lo%d + sk__ctx->md_tile[%d] : "
                  "sk__ctx->md_hi[%d];\n",
                  d, d, d, d, d, d, d, d, d, d, d, d);
  }
  char ind[64];
  for (int d = 0; d < R; d++) {
    memset(ind, ' ', sizeof ind);
    ind[4 + 2 * d] = '\0';
    sk_buf_printf(b, "%sfor (sk_i64 i%d = sk__lo%d; i%d < sk__hi%d; ++i%d) {\n", ind, d,
                  d, d, d, d);
  }
  memset(ind, ' ', sizeof ind);
  ind[4 + 2 * R] = '\0';
  for (int d = 0; d < R; d++) {
    char var[16];
    snprintf(var, sizeof var, "i%d", d);
    sk_cg_index_alias(b, s, d, var, ind);
  }
  gen_body(b, s, ind);
  for (int d = R - 1; d >= 0; d--) {
    memset(ind, ' ', sizeof ind);
    ind[4 + 2 * d] = '\0';
    sk_buf_printf(b, "%s}\n", ind);
  }
  sk_buf_puts(b, "  }\n");
}

/* TeamPolicy: work items are league ranks; every member of a team runs
 * the same sequence of them. */
static void gen_team(sk_buf *b, const sk_kspec *s) {
  sk_buf_puts(b, "  sk_team_ctx *sk__tc = sk__ctx->team;\n"
                 "  for (sk_i64 sk__lr = sk__b; sk__lr < sk__e; ++sk__lr) {\n"
                 "    const sk__team_t team = {sk__lr, sk__tc->league_size, "
                 "sk__tc->team_rank, sk__tc->team_size, sk__tc->vector_length, "
                 "sk__tc};\n"
                 "    sk__tc->team_off[0] = sk__tc->team_off[1] = 0;\n"
                 "    sk__tc->thread_off[0] = sk__tc->thread_off[1] = 0;\n"
                 "    (void)team;\n");
  gen_body(b, s, "    ");
  /* as Kokkos: a team barrier between league ranks, so no member starts
   * reusing team scratch while another still reads it (only needed when
   * the body uses team scratch: the nested collectives end in a barrier) */
  int uses_scratch = 0;
  for (size_t t = 0; t + 12 <= s->body_len && !uses_scratch; t++)
    uses_scratch = memcmp(s->body + t, "team_scratch", 12) == 0;
  sk_buf_puts(b, uses_scratch ? "    sk_team_barrier(sk__tc);\n  }\n" : "  }\n");
}

char *sk_codegen_host(const sk_kspec *s, char *err, size_t errlen) {
  sk_buf b;
  sk_buf_init(&b);
  sk_cg_title(&b, "kernel", s);
  sk_cg_dialect(&b, &sk_jit_target_host);
  sk_cg_agg(&b, s, &sk_jit_target_host);
  sk_cg_prelude(&b, s);
  gen_view_types(&b, s);
  if (s->pattern != SK_FOR) sk_codegen_acc(&b, s, &sk_jit_target_host);
  sk_buf_puts(&b, "\nvoid sk__kernel(const sk_slot *sk__args, sk_i64 sk__b, "
                  "sk_i64 sk__e, void *sk__accv, const sk_ctx *sk__ctx) {\n"
                  "  (void)sk__ctx; (void)sk__accv;\n"
                  /* the stop word the body's loops poll (SK__GO) */
                  "  static const int sk__nostop = 0;\n"
                  "  const volatile int *const sk__stop =\n"
                  "    sk__ctx->stop ? sk__ctx->stop : &sk__nostop;\n"
                  "  (void)sk__stop;\n");
  gen_unpack(&b, s);
  gen_acc_locals(&b, s);
  switch (s->policy_kind) {
  case SK_POL_RANGE: gen_range(&b, s); break;
  case SK_POL_MDRANGE: gen_mdrange(&b, s); break;
  default: gen_team(&b, s); break;
  }
  gen_acc_store(&b, s);
  sk_buf_puts(&b, "}\n");
  return sk_cg_take(&b, err, errlen);
}

/* The host half of an image target's kernel: only the accumulator (type, sk__init,
 * sk__join, sk__layout) and an empty sk__kernel, compiled with libtcc so
 * that the VM can initialise and read the device's result. */
char *sk_codegen_host_acc(const sk_kspec *s, char *err, size_t errlen) {
  sk_buf b;
  sk_buf_init(&b);
  sk_cg_title(&b, "kernel (host accumulator)", s);
  sk_cg_header(&b, sk_dialect_abi_h);
  sk_cg_header(&b, sk_dialect_host_h);
  sk_cg_header(&b, sk_dialect_blocks_h);
  sk_cg_agg(&b, s, &sk_jit_target_host);
  sk_cg_prelude(&b, s);
  if (s->pattern != SK_FOR) sk_codegen_acc(&b, s, &sk_jit_target_host);
  sk_buf_puts(&b, "\nvoid sk__kernel(void) {}\n");
  return sk_cg_take(&b, err, errlen);
}

/* -- the host C code target ------------------------------------------- */
static const char *const host_dialect[] = {sk_dialect_abi_h,    sk_dialect_host_h,
                                           sk_dialect_blocks_h, sk_dialect_linalg_h,
                                           sk_dialect_task_h,   NULL};

const sk_jit_target sk_jit_target_host = {
  .name = "host",
  .image = 0, /* tcc tier, then cc tier (jit.c) */
  .codegen = sk_codegen_host,
  .dialect = host_dialect,
  .fn_qual = "static inline",
  .acc_qual = NULL,
  .cxx = 0,
  .task_dialect = sk_dialect_task_h,
  .task_mode = "#define SK_TASK_BODY\n",
};
