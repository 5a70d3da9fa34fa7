/* codegen.c: kernel source generation for the CUDA back end, on
 * the code-generation core (codegen.c), and the CUDA C code target.
 *
 * Input: the same kernel spec as codegen_host.c. Output: one CUDA C++
 * translation unit for NVRTC: the dialect (abi.h + cuda.h + the shared
 * headers, embedded), the prelude, the view types, the accumulator with its reducer type sk__R,
 * and one kernel 'sk__kernel' (extern "C") taking two by-value parameters:
 * the capture slots (sk__args_t) and the launch context (sk_cuctx). The
 * back end (backends/cuda/launch.c) picks the grid; the kernel covers
 * whatever it gets with grid-stride loops (those of parallel_for, teams
 * and scans kept rolled: SK__ROLLED in backends/cuda/dialect.h, a third less NVRTC
 * time than unrolled ones):
 *
 *   range    i = b + global thread id, striding by the grid
 *   mdrange  threadIdx.x/y on the two fastest dimensions (md_perm), z on
 *            the product of the rest; each strides by its grid dimension
 *   team     one team per block (or per warp slice: threadIdx.z), league
 *            ranks striding by the teams of the grid
 *   reduce   per-thread accumulators, warp shuffles, block partials, the
 *            last block joins the partials (sk__reduce_finish)
 *   scan     two launches: pass 0 reduces each block's contiguous chunk
 *            to a partial; pass 1 rescans the chunk in rounds of one item
 *            per thread (body with final = false for the item's value, a
 *            block exclusive scan, body with final = true)
 *
 * The body is preceded by '#line 1 "body"', as on the host, so NVRTC's
 * messages name the body's lines.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "dialect/dialect_src.h"
#include "backends/cuda/codegen.h"
#include "backends/cuda/nvrtc.h"
#include "jit/codegen.h"
#include "jit/strbuf.h"
#include "jit/target.h"

/* the CUDA dialect (build/gen/dialect.c, as dialect_src.h's headers) */
extern const char sk_dialect_cuda_h[];      /* backends/cuda/dialect.h */
extern const char sk_dialect_task_cuda_h[]; /* backends/cuda/dialect_task.h (after cuda.h) */
extern const sk_jit_target sk_jit_target_cuda;

/* MDRange thread order: dimension 0 fastest (coalesced for layout left,
 * the GPU default) unless the captured views of rank >= 2 are mostly
 * layout right, then the last dimension fastest (as on the host). */
void sk_codegen_cuda_perm(const sk_kspec *s, int *perm) {
  int left = 0, right = 0, R = s->md_rank > 0 ? s->md_rank : 1;
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    if (k->kind != SK_CAP_VIEW || k->rank < 2) continue;
    if (sk_layout_order(k->layout) == SK_LEFT) left++;
    else if (sk_layout_order(k->layout) == SK_RIGHT) right++;
  }
  for (int d = 0; d < SK_MAXMD; d++) perm[d] = d;
  if (right > left)
    for (int d = 0; d < R; d++) perm[d] = R - 1 - d;
}

/* Remote views in GPU memory (backends/remote over NVSHMEM): the element
 * helpers of capture 'k' (index 'c'), with the host's parameters
 * (sk_cg_remote_unpack's macros call them), the bounds record last.
 * Element g of the global range is this rank's part at 'l' when g - lo <
 * n, else rank g / chunk's part through the window's peer pointer
 * (nvshmem_ptr: a load or store over NVLink, the cached remote pointers
 * of seed 001) -- out of line, so the local loop keeps its registers; an
 * index outside the global range is recorded as the launch's bad index
 * (dim -1) and reads 0. Atomics are the dialect's on those addresses. */
static void remote_fns(sk_buf *b, const sk_capture *k, int c) {
  if (k->kind != SK_CAP_VIEW || !sk_space_remote(k->space)) return;
  const char *n = k->name, *T = sk_dtypes[k->dtype].ctype;
  const char *F = "static __device__ __forceinline__";
  char args[160];
  snprintf(args, sizeof args, "const sk_rwin *w, %s *l, sk_i64 lo, sk_i64 n, sk_i64 g",
           T);
  sk_buf_printf(
    b,
    "static __device__ __noinline__ %s *sk__%s_far(const sk_rwin *w, sk_i64 g, sk_oob *o) {\n"
    "  if ((sk_u64)g >= (sk_u64)w->total) { sk__bc(g, w->total, %d, -1, o); return 0; }\n"
    "  const sk_i64 r = g / w->chunk;\n"
    "  return (%s *)w->peer[r] + (g - r * w->chunk);\n}\n",
    T, n, c, T);
  sk_buf_printf(b,
                "%s %s sk__%s_get(%s, sk_oob *o) {\n"
                "  const sk_i64 k = g - lo;\n"
                "  if ((sk_u64)k < (sk_u64)n) return l[k];\n"
                "  const %s *p = sk__%s_far(w, g, o);\n  return p ? *p : (%s)0;\n}\n",
                F, T, n, args, T, n, T);
  sk_buf_printf(b,
                "%s %s sk__%s_put(%s, %s v, sk_oob *o) {\n"
                "  const sk_i64 k = g - lo;\n"
                "  if ((sk_u64)k < (sk_u64)n) { l[k] = v; return v; }\n"
                "  %s *p = sk__%s_far(w, g, o);\n  if (p) *p = v;\n  return v;\n}\n",
                F, T, n, args, T, T, n);
  int fl = sk_dtypes[k->dtype].is_float;
  sk_buf_printf(b,
                "%s %s sk__%s_upd(%s, int op, %s v, sk_oob *o) {\n"
                "  %s x = sk__%s_get(w, l, lo, n, g, o);\n",
                F, T, n, args, T, T, n);
  sk_cg_remote_upd(b, k, "o");
  sk_buf_printf(
    b,
    "%s %s sk__%s_fop(const sk_rwin *w, sk_i64 g, int op, %s a, %s e, sk_oob *o) {\n"
    "  const sk_i64 k = g - w->lo;\n"
    "  %s *p = (sk_u64)k < (sk_u64)w->nloc ? (%s *)w->local + k : sk__%s_far(w, g, o);\n"
    "  if (!p) return (%s)0;\n"
    "  switch (op) {\n"
    "  case SK_ROP_ADD: return atomic_fetch_add(p, a);\n"
    "  case SK_ROP_SUB: return atomic_fetch_sub(p, a);\n"
    "  case SK_ROP_MIN: return atomic_fetch_min(p, a);\n"
    "  case SK_ROP_MAX: return atomic_fetch_max(p, a);\n"
    "  case SK_ROP_XCHG: return atomic_exchange(p, a);\n"
    "  case SK_ROP_CAS: return atomic_cas(p, a, e);\n",
    F, T, n, T, T, T, T, n, T);
  if (!fl)
    sk_buf_puts(b, "  case SK_ROP_AND: return atomic_fetch_and(p, a);\n"
                   "  case SK_ROP_OR: return atomic_fetch_or(p, a);\n"
                   "  case SK_ROP_XOR: return atomic_fetch_xor(p, a);\n");
  sk_buf_printf(b, "  default: return (%s)0;\n  }\n}\n", T);
}

static void gen_view_types(sk_buf *b, const sk_kspec *s) {
  sk_cg_view_types(b, s, sk_jit_target_cuda.fn_qual);
  for (int c = 0; c < s->ncap; c++) remote_fns(b, &s->caps[c], c);
}

/* 1 if the body never writes view 'n': no 'n(...)' followed by an
 * assignment or ++/--, no '&n(' or '++n(' before it, no 'n.data'. Such a
 * view is read through a const __restrict__ pointer, which lets the
 * compiler use the read-only data path. A wrong guess cannot corrupt
 * data: a store through the const pointer does not compile. */
static int read_only(const sk_kspec *s, const char *n) {
  const char *p = s->body, *end = s->body + s->body_len;
  size_t len = strlen(n);
  for (const char *q = p; q + len <= end; q++) {
    if (memcmp(q, n, len) != 0) continue;
    char before = q > p ? q[-1] : ' ';
    char after = q + len < end ? q[len] : ' ';
    if ((before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') ||
        (before >= '0' && before <= '9') || before == '_' || before == '.' ||
        (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
        (after >= '0' && after <= '9') || after == '_')
      continue;
    const char *r = q + len;
    while (r < end && (*r == ' ' || *r == '\t' || *r == '\n')) r++;
    if (r < end && *r == '.') {
      const char *m = r + 1;
      while (m < end && (*m == ' ' || *m == '\t')) m++;
      if (end - m >= 4 && memcmp(m, "data", 4) == 0) return 0;
      continue;
    }
    if (r >= end || *r != '(') continue;
    /* before: & (not &&), ++, -- */
    const char *b = q - 1;
    while (b >= p && (*b == ' ' || *b == '\t' || *b == '\n')) b--;
    if (b >= p && *b == '&' && !(b > p && b[-1] == '&')) return 0;
    if (b > p && ((*b == '+' && b[-1] == '+') || (*b == '-' && b[-1] == '-'))) return 0;
    int depth = 0;
    for (; r < end; r++) {
      if (*r == '(') depth++;
      else if (*r == ')' && --depth == 0) break;
    }
    if (r >= end) return 0;
    r++;
    while (r < end && (*r == ' ' || *r == '\t' || *r == '\n')) r++;
    if (r >= end) continue;
    if (r[0] == '=' && (r + 1 >= end || r[1] != '=')) return 0;
    if (r + 1 < end && r[1] == '=' && strchr("+-*/%&|^", r[0])) return 0;
    if (r + 2 < end && r[2] == '=' &&
        ((r[0] == '<' && r[1] == '<') || (r[0] == '>' && r[1] == '>')))
      return 0;
    if (r + 1 < end && ((r[0] == '+' && r[1] == '+') || (r[0] == '-' && r[1] == '-')))
      return 0;
  }
  return 1;
}

/* Locals and access macros; traits pick the access path:
 * random_access -> const __restrict__ pointer read with __ldg,
 * atomic -> an sk__aref proxy (every store an atomic update). */
static void gen_unpack(sk_buf *b, const sk_kspec *s) {
  for (int c = 0; c < s->ncap; c++) {
    const sk_capture *k = &s->caps[c];
    const sk_dtype_info *t = &sk_dtypes[k->dtype];
    const char *n = k->name;
    if (k->kind == SK_CAP_SCALAR && t->is_complex) { /* the slot's {re, im} */
      sk_buf_printf(b, "  const %s %s = *(const %s *)sk__args[%d].%s; (void)%s;\n",
                    t->ctype, n, t->ctype, c, sk_cg_slot(k->dtype), n);
      continue;
    }
    if (k->kind == SK_CAP_SCALAR) {
      sk_buf_printf(b, "  const %s %s = (%s)sk__args[%d].%s; (void)%s;\n", t->ctype, n,
                    t->ctype, c, sk_cg_slot(k->dtype), n);
      continue;
    }
    int r = k->rank;
    int atomic = (k->traits & SK_TRAIT_ATOMIC) != 0;
    int ro = !atomic && (k->traits & SK_TRAIT_RANDOM) != 0;
    int cst = ro || (!atomic && !k->alias && read_only(s, n));
    if (k->agg) atomic = ro = cst = 0; /* element structs: plain access */
    if (t->is_complex) atomic = ro = 0; /* the class: plain loads and stores */
    const char *rs = k->alias ? "" : "__restrict__ ";
    sk_buf_printf(b, "  const sk__view_%s %s = *(const sk__view_%s *)&sk__args[%d].v;\n",
                  t->tag, n, t->tag, c);
    if (sk_space_remote(k->space)) {
      sk_cg_remote_unpack(b, s, k, c, "sk__C.oob");
      continue;
    }
    sk_buf_printf(b, "  %s%s *%ssk__%s_d = %s.data;\n", cst ? "const " : "", t->ctype, rs,
                  n, n);
    sk_cg_strides(b, k);
    sk_buf_printf(b, "  (void)%s; (void)sk__%s_d;\n", n, n);
    sk_buf_printf(b, "#define %s(", n);
    for (int d = 0; d < r; d++) sk_buf_printf(b, "%ssk__a%d", d ? ", " : "", d);
    if (k->agg) {
      char at[32];
      sk_buf_printf(b, ") (*(%s *)&sk__%s_d[0",
                    sk_cg_agg_type(k->agg, k->agg_n, at, sizeof at), n);
      sk_cg_offset(b, k, c, s->bounds ? "sk__C.oob" : NULL);
      sk_buf_puts(b, "])\n");
      continue;
    }
    if (atomic) sk_buf_printf(b, ") (sk__aref<%s>{&sk__%s_d[0", t->ctype, n);
    else if (ro) sk_buf_printf(b, ") (sk__ldg(&sk__%s_d[0", n);
    else sk_buf_printf(b, ") (sk__%s_d[0", n);
    sk_cg_offset(b, k, c, s->bounds ? "sk__C.oob" : NULL);
    sk_buf_puts(b, atomic ? "]})\n" : ro ? "]))\n" : "])\n");
  }
}

/* -- the pieces of the kernel -------------------------------------------- */
static void gen_body_l(sk_buf *b, const sk_kspec *s, const char *indent,
                       const char *label) {
  /* atomic views are sk__aref proxies; a remote one's updates become its
   * helpers' atomics (a peer's element has no proxy) */
  sk_cg_body(b, s, indent, label, 2);
}

static void gen_body(sk_buf *b, const sk_kspec *s, const char *indent) {
  gen_body_l(b, s, indent, "sk__next");
}

/* acc / acc0.. as locals of the reducer types, from sk__acc */
static void gen_acc_locals(sk_buf *b, const sk_kspec *s, const char *ind) {
  if (s->nred == 1) {
    sk_buf_printf(b, "%ssk__r0_t acc = sk__acc.v0;\n", ind);
  } else {
    for (int r = 0; r < s->nred; r++)
      sk_buf_printf(b, "%ssk__r%d_t acc%d = sk__acc.v%d;\n", ind, r, r, r);
  }
}

static void gen_acc_store(sk_buf *b, const sk_kspec *s, const char *ind) {
  if (s->nred == 1) {
    sk_buf_printf(b, "%ssk__acc.v0 = acc;\n", ind);
  } else {
    for (int r = 0; r < s->nred; r++)
      sk_buf_printf(b, "%ssk__acc.v%d = acc%d;\n", ind, r, r);
  }
}

/* Grid-stride loops of parallel_for are kept rolled (see the file's
 * head); a reduction's stay unrolled: with one load stream per thread,
 * the unrolled copies keep enough loads in flight to reach the memory
 * bandwidth (a rolled sum of 2^28 doubles ran 4% slower on the H100). */
static const char *rolled(const sk_kspec *s) {
  return s->pattern == SK_FOR ? "SK__ROLLED " : "";
}

static void gen_range(sk_buf *b, const sk_kspec *s) {
  sk_buf_printf(b,
                "  const sk_i64 sk__step = (sk_i64)gridDim.x * blockDim.x;\n"
                "  %sfor (sk_i64 i0 = sk__C.b + (sk_i64)blockIdx.x * "
                "blockDim.x + threadIdx.x; i0 < sk__C.e; i0 += sk__step) {\n",
                rolled(s));
  sk_cg_index_alias(b, s, 0, "i0", "    ");
  gen_body(b, s, "    ");
  sk_buf_puts(b, "  }\n");
}

/* MDRange: x on perm[0], y on perm[1], z on the product of the rest
 * (perm[2] fastest within it) */
static void gen_mdrange(sk_buf *b, const sk_kspec *s) {
  int R = s->md_rank, p[SK_MAXMD];
  sk_codegen_cuda_perm(s, p);
  sk_buf_printf(b,
                "  const sk_i64 sk__nx = sk__C.md_hi[%d] - sk__C.md_lo[%d];\n"
                "  const sk_i64 sk__ny = sk__C.md_hi[%d] - sk__C.md_lo[%d];\n"
                "  sk_i64 sk__nz = 1;\n",
                p[0], p[0], p[1], p[1]);
  for (int q = 2; q < R; q++)
    sk_buf_printf(b, "  sk__nz *= sk__C.md_hi[%d] - sk__C.md_lo[%d];\n", p[q], p[q]);
  /* parallel_for: one thread per index (fewer registers than the loops;
   * the back end launches more than once past the grid's y/z limits) */
  int once = s->pattern == SK_FOR;
  if (once)
    sk_buf_puts(b,
                "  const sk_i64 sk__x = (sk_i64)blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  const sk_i64 sk__y = sk__C.md_oy + (sk_i64)blockIdx.y * blockDim.y + "
                "threadIdx.y;\n"
                "  const sk_i64 sk__z = sk__C.md_oz + (sk_i64)blockIdx.z * blockDim.z + "
                "threadIdx.z;\n"
                "  if (sk__x < sk__nx && sk__y < sk__ny && sk__z < sk__nz) {\n");
  else
    sk_buf_puts(b, "  for (sk_i64 sk__z = (sk_i64)blockIdx.z * blockDim.z + "
                   "threadIdx.z; sk__z < sk__nz; sk__z += (sk_i64)gridDim.z * "
                   "blockDim.z) {\n");
  if (R > 2) sk_buf_puts(b, "    sk_i64 sk__r = sk__z;\n");
  for (int q = 2; q < R; q++) {
    int d = p[q];
    if (q < R - 1)
      sk_buf_printf(b,
                    "    const sk_i64 i%d = sk__C.md_lo[%d] + sk__r %% "
                    "(sk__C.md_hi[%d] - sk__C.md_lo[%d]);\n"
                    "    sk__r /= sk__C.md_hi[%d] - sk__C.md_lo[%d];\n",
                    d, d, d, d, d, d);
    else sk_buf_printf(b, "    const sk_i64 i%d = sk__C.md_lo[%d] + sk__r;\n", d, d);
  }
  if (once)
    sk_buf_printf(b,
                  "    {\n      const sk_i64 i%d = sk__C.md_lo[%d] + sk__y;\n"
                  "      {\n        const sk_i64 i%d = sk__C.md_lo[%d] + sk__x;\n",
                  p[1], p[1], p[0], p[0]);
  else
    sk_buf_printf(b,
                  "    for (sk_i64 sk__y = (sk_i64)blockIdx.y * blockDim.y + "
                  "threadIdx.y; sk__y < sk__ny; sk__y += (sk_i64)gridDim.y * "
                  "blockDim.y) {\n"
                  "      const sk_i64 i%d = sk__C.md_lo[%d] + sk__y;\n"
                  "      for (sk_i64 sk__x = (sk_i64)blockIdx.x * blockDim.x + "
                  "threadIdx.x; sk__x < sk__nx; sk__x += (sk_i64)gridDim.x * "
                  "blockDim.x) {\n"
                  "        const sk_i64 i%d = sk__C.md_lo[%d] + sk__x;\n",
                  p[1], p[1], p[0], p[0]);
  for (int d = 0; d < R; d++) {
    char var[16];
    snprintf(var, sizeof var, "i%d", d);
    sk_cg_index_alias(b, s, d, var, "        ");
  }
  for (int d = 0; d < R; d++) sk_buf_printf(b, "        (void)i%d;\n", d);
  gen_body(b, s, "        ");
  sk_buf_puts(b, "      }\n    }\n  }\n");
}

/* TeamPolicy: see cuda.h for the mapping. */
static void gen_team(sk_buf *b, const sk_kspec *s) {
  sk_buf_puts(
    b,
    "  extern __shared__ __align__(64) char sk__smem[];\n"
    "  const int sk__tpb = sk__C.teams_per_block;\n"
    "  const int sk__tz = (int)threadIdx.z;\n"
    "  const int sk__tsz = (int)(blockDim.x * blockDim.y);\n"
    "  sk__team_t team;\n"
    "  team.league_size = sk__C.e;\n"
    "  team.team_rank = (int)threadIdx.y;\n"
    "  team.team_size = (int)blockDim.y;\n"
    "  team.vector_length = (int)blockDim.x;\n"
    "  team.lane = (int)threadIdx.x;\n"
    "  team.mask = sk__tpb == 1 ? 0u : sk__tsz >= 32 ? 0xffffffffu : "
    "((1u << sk__tsz) - 1u) << ((sk__tsz * sk__tz) & 31);\n"
    "  {\n"
    "    char *sk__t0 = sk__smem + sk__tz * sk__C.smem_team_bytes;\n"
    "    const sk_i64 sk__sh = ((sk_i64)sk__tsz * SK__SLOT + 63) & ~63L;\n"
    "    const sk_i64 sk__u0 = (sk__C.scratch_team[0] + 63) & ~63L;\n"
    "    const sk_i64 sk__h0 = (sk__C.scratch_thread[0] + 63) & ~63L;\n"
    "    const sk_i64 sk__u1 = (sk__C.scratch_team[1] + 63) & ~63L;\n"
    "    const sk_i64 sk__h1 = (sk__C.scratch_thread[1] + 63) & ~63L;\n"
    "    char *sk__t1 = sk__C.l1_pool ? sk__C.l1_pool + ((sk_i64)blockIdx.x "
    "* sk__tpb + sk__tz) * sk__C.l1_team_bytes : (char *)0;\n"
    "    team.shared = sk__t0;\n"
    "    team.scr[0] = sk__t0 + sk__sh;\n"
    "    team.tscr[0] = sk__t0 + sk__sh + sk__u0 + team.team_rank * sk__h0;\n"
    "    team.scr[1] = sk__t1;\n"
    "    team.tscr[1] = sk__t1 ? sk__t1 + sk__u1 + team.team_rank * sk__h1 "
    ": (char *)0;\n"
    "    for (int sk__l = 0; sk__l < 2; sk__l++) {\n"
    "      team.scr_bytes[sk__l] = sk__C.scratch_team[sk__l];\n"
    "      team.tscr_bytes[sk__l] = sk__C.scratch_thread[sk__l];\n"
    "    }\n"
    "    team.flag = sk__C.flag;\n"
    "  }\n"
    "  SK__ROLLED for (sk_i64 sk__lr = (sk_i64)blockIdx.x * sk__tpb + sk__tz; sk__lr < "
    "sk__C.e; sk__lr += (sk_i64)gridDim.x * sk__tpb) {\n"
    "    team.league_rank = sk__lr;\n"
    "    team.off[0] = team.off[1] = team.toff[0] = team.toff[1] = 0;\n");
  gen_body(b, s, "    ");
  /* members do not lap one another between league ranks when the body
   * uses scratch (the next rank's loads would overwrite this one's) */
  if (memmem(s->body, s->body_len, "_scratch", 8))
    sk_buf_puts(b, "    sk__team_barrier(team);\n");
  sk_buf_puts(b, "  }\n");
}

/* Range scan, both passes in one kernel (sk__C.pass). */
static void gen_scan(sk_buf *b, const sk_kspec *s) {
  sk_buf_puts(b, "  __shared__ sk__acc_t sk__ws[32];\n"
                 "  const int sk__t = sk__tid(), sk__nt = sk__nthreads();\n"
                 "  const sk_i64 sk__cb = sk__C.b + (sk_i64)blockIdx.x * sk__C.chunk;\n"
                 "  const sk_i64 sk__ce = sk__cb + sk__C.chunk < sk__C.e ? sk__cb + "
                 "sk__C.chunk : sk__C.e;\n"
                 "  sk__acc_t sk__acc;\n"
                 "  if (sk__C.pass == 0) {\n"
                 "    sk__R::init(&sk__acc);\n");
  gen_acc_locals(b, s, "    ");
  sk_buf_puts(
    b, "    const bool final = false; (void)final;\n"
       "    SK__ROLLED for (sk_i64 i0 = sk__cb + sk__t; i0 < sk__ce; i0 += sk__nt) "
       "{\n");
  sk_cg_index_alias(b, s, 0, "i0", "      ");
  gen_body(b, s, "      ");
  sk_buf_puts(b, "    }\n");
  gen_acc_store(b, s, "    ");
  sk_buf_puts(
    b, "    sk__block_reduce<sk__R>(sk__acc, sk__ws);\n"
       "    if (sk__t == 0) ((sk__acc_t *)sk__C.partial)[blockIdx.x] = sk__acc;\n"
       "    return;\n"
       "  }\n"
       "  sk__acc_t sk__run = sk__block_prefix<sk__R>(sk__C, blockIdx.x, sk__ws);\n"
       "  SK__ROLLED for (sk_i64 sk__base = sk__cb; sk__base < sk__ce; sk__base += "
       "sk__nt) {\n"
       "    const sk_i64 i0 = sk__base + sk__t;\n"
       "    sk__acc_t sk__own, sk__tot;\n"
       "    for (int sk__ph = 0; sk__ph < 2; ++sk__ph) {\n"
       "      if (sk__ph == 0) {\n"
       "        sk__R::init(&sk__acc);\n"
       "      } else {\n"
       "        sk__acc_t sk__ex = sk__block_exscan<sk__R>(sk__own, sk__tot, "
       "sk__ws);\n"
       "        sk__acc = sk__run;\n"
       "        sk__R::join(&sk__acc, &sk__ex);\n"
       "      }\n"
       "      if (i0 < sk__ce) {\n"
       "        const bool final = sk__ph == 1; (void)final;\n");
  gen_acc_locals(b, s, "        ");
  sk_cg_index_alias(b, s, 0, "i0", "        ");
  gen_body_l(b, s, "        ", "sk__next2");
  gen_acc_store(b, s, "        ");
  sk_buf_puts(b, "      }\n"
                 "      if (sk__ph == 0) sk__own = sk__acc;\n"
                 "    }\n"
                 "    sk__R::join(&sk__run, &sk__tot);\n"
                 "  }\n"
                 "  if (blockIdx.x == gridDim.x - 1 && sk__t == 0) *(sk__acc_t "
                 "*)sk__C.result = sk__run;\n");
}

char *sk_codegen_cuda(const sk_kspec *s, char *err, size_t errlen) {
  /* scans over teams or MDRanges never get here: exec/ refuses them
   * (sk_policy_check, the back end's SK_FEAT_MDRANGE_SCAN) */
  (void)err;
  (void)errlen;
  sk_buf b;
  sk_buf_init(&b);
  sk_cg_title(&b, "CUDA kernel", s);
  sk_cg_dialect(&b, &sk_jit_target_cuda);
  /* a kernel using a task.MemoryPool (pool_alloc(mp, n)): the GPU pool */
  if (strstr(s->body, "pool_") || (s->prelude && strstr(s->prelude, "pool_")))
    sk_cg_header(&b, sk_dialect_task_cuda_h);
  sk_cg_agg(&b, s, &sk_jit_target_cuda);
  sk_cg_prelude(&b, s);
  gen_view_types(&b, s);
  if (s->pattern != SK_FOR) {
    sk_codegen_acc(&b, s, &sk_jit_target_cuda);
    /* the device's view of the accumulator's size, checked at load */
    sk_buf_puts(&b, "__device__ sk__acc_t sk__acc_probe;\n");
  }
  sk_buf_printf(&b,
                "typedef struct { sk_slot a[%d]; } sk__args_t;\n"
                "extern \"C\" __global__ void sk__kernel(const __grid_constant__ "
                "sk__args_t sk__A, const __grid_constant__ sk_cuctx sk__C) {\n"
                "  const sk_slot *sk__args = sk__A.a; (void)sk__args;\n"
                /* the counter of the body's loop polls (SK__GO) */
                "  unsigned sk__polls = 0; (void)sk__polls;\n",
                s->ncap > 0 ? s->ncap : 1);
  gen_unpack(&b, s);
  if (s->pattern == SK_SCAN) {
    gen_scan(&b, s);
  } else {
    if (s->pattern == SK_REDUCE) {
      sk_buf_puts(&b, "  sk__acc_t sk__acc;\n  sk__R::init(&sk__acc);\n  {\n");
      gen_acc_locals(&b, s, "  ");
    }
    switch (s->policy_kind) {
    case SK_POL_RANGE: gen_range(&b, s); break;
    case SK_POL_MDRANGE: gen_mdrange(&b, s); break;
    default: gen_team(&b, s); break;
    }
    if (s->pattern == SK_REDUCE) {
      gen_acc_store(&b, s, "  ");
      sk_buf_puts(&b, "  }\n");
      /* a team's vector lanes are one member: lane 0 contributes */
      if (s->policy_kind == SK_POL_TEAM)
        sk_buf_puts(&b, "  if (threadIdx.x != 0) sk__R::init(&sk__acc);\n");
      sk_buf_puts(&b, "  sk__reduce_finish<sk__R>(sk__acc, sk__C);\n");
    }
  }
  sk_buf_puts(&b, "}\n");
  return sk_cg_take(&b, err, errlen);
}

/* -- the CUDA C code target ------------------------------------------------
 * codegen.c's source, compiled by NVRTC (nvrtc.c) into an image the
 * cuda back end loads; reductions' host half is host C (jit.c). */
static const char *const cuda_dialect[] = {
  sk_dialect_abi_h, sk_dialect_cuda_h, sk_dialect_blocks_h, sk_dialect_linalg_h, NULL};

/* The dialect text that sk_codegen_cuda pastes after a source's title
 * line (sk_cg_dialect over cuda_dialect), in three parts: 0 the headers
 * before blocks.h, 1 blocks.h, 2 linalg.h (the last). Built once, kept. */
static char *dialect_part[3];
static pthread_once_t dialect_once = PTHREAD_ONCE_INIT;

static void dialect_build(void) {
  sk_buf b;
  sk_buf_init(&b);
  int p = 0, ok = 1;
  for (int h = 0; cuda_dialect[h]; h++) {
    if ((cuda_dialect[h] == sk_dialect_blocks_h || cuda_dialect[h] == sk_dialect_linalg_h) &&
        p < 2)
      ok &= (dialect_part[p++] = sk_buf_take(&b)) != NULL;
    sk_cg_header(&b, cuda_dialect[h]);
  }
  ok &= p == 2 && (dialect_part[2] = sk_buf_take(&b)) != NULL;
  if (!ok)
    for (p = 0; p < 3; p++) {
      free(dialect_part[p]);
      dialect_part[p] = NULL;
    }
}

const char *sk_codegen_cuda_dialect(int part) {
  pthread_once(&dialect_once, dialect_build);
  return part >= 0 && part < 3 ? dialect_part[part] : NULL;
}

const sk_jit_target sk_jit_target_cuda = {
  .name = "cuda",
  .image = 1,
  .codegen = sk_codegen_cuda,
  .build = sk_nvrtc_build,
  .warm = sk_nvrtc_warm,
  .quiesce = sk_nvrtc_quiesce,
  .compiler = "nvrtc",
  .status = sk_nvrtc_status,
  .dialect = cuda_dialect,
  .fn_qual = "static __device__ __forceinline__",
  .acc_qual = "static __device__",
  .cxx = 1,
  .task_dialect = sk_dialect_task_cuda_h,
  .task_mode = "#define SK_TASK_GPU\n",
};
