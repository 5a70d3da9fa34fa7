/* launch.c: running generated kernels (codegen.c) on the device.
 *
 * A kernel's module is loaded into the context on its first launch; the
 * occupancy API then gives its block size and how many blocks fill the
 * device once ('grid1'). Grids:
 *   range for      min(ceil(n / block), waves x grid1), grid-stride loops
 *   range reduce   min(ceil(n / block), grid1) partials, joined on device
 *   range scan     two launches over contiguous block chunks (see codegen)
 *   mdrange        blockDim from the policy's tile (x, y on the two fastest
 *                  dimensions, z on the rest) or 32 x 8 / 32 x 4 x 2
 *   team           (vector_length, team_size, teams per block)
 * Policy overrides: RangePolicy chunk (a multiple of 32 up to the block
 * limit) is the block size; MDRange tile is the block shape; TeamPolicy
 * team_size / vector_length are the block's y / x.
 *
 * Kernels run asynchronously on the space's stream, or on the stream of
 * the policy's instance (speck.Instance: instance.c orders it after the
 * space's stream); reduce and scan wait for their result on that
 * stream, a parallel_for waits only when a capture is host visible
 * (cuda_pinned, cuda_uvm), a team body asks for scratch (its overflow
 * flag comes back) or SPECK_CUDA_SYNC=1 (then a fault is pinned on the
 * kernel that caused it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "dialect.h"
#include "cuda_int.h"

/* the result area: counter at 0, scratch flag at 8, bounds record
 * (sk_oob) at 16, the reduction's value at 64 */
#define RESULT_OFF 64
#define OOB_OFF    16

static int sync_always = -1;
static int waves = -1;
/* the stream of the launch in progress (under sk_cuda_launch_lock): the
 * space's stream, or the policy's instance's (instance.c) */
static CUstream run_on;

static int64_t up64(int64_t v) { return (v + 63) & ~(int64_t)63; }

/* -- kernels: the table's load / unload, the module on first launch ------ */
void *sk_cuda_load(const sk_image *img, const char *label, char *err, size_t errlen) {
  if (!img || !img->data || img->size == 0) {
    sk_err(err, errlen, SK_E_KERNEL_NO_CUDA, label);
    return NULL;
  }
  sk_cuda_kernel *c = calloc(1, sizeof *c);
  char *data = malloc(img->size + 1);
  if (!c || !data) {
    free(c);
    free(data);
    sk_err(err, errlen, SK_E_OUT_MEMORY_LOADING, label);
    return NULL;
  }
  memcpy(data, img->data, img->size);
  data[img->size] = '\0';
  c->image = data;
  c->is_binary = img->is_binary;
  snprintf(c->arch, sizeof c->arch, "%s", img->arch);
  c->pattern = img->pattern;
  c->policy_kind = img->policy_kind;
  c->md_rank = img->md_rank;
  memcpy(c->md_perm, img->md_perm, sizeof c->md_perm);
  c->nargs = img->nargs;
  c->host_visible = img->host_visible;
  c->bounds = img->bounds;
  c->scratch = img->scratch;
  return c;
}

void sk_cuda_unload(void *kernel) {
  sk_cuda_kernel *c = kernel;
  if (!c) return;
  if (c->mod && sk_cuda_ready() && !sk_cuda_dead()) {
    char err[64];
    if (sk_cuda_ensure(err, sizeof err) == 0) sk_cu->cuModuleUnload((CUmodule)c->mod);
  }
  free(c->image);
  free(c);
}

/* The module into the context, once (the first launch); the occupancy
 * API then gives the block size and the blocks of one wave. */
static int load_module(sk_cuda_kernel *c, const sk_launch *l, char *err, size_t errlen) {
  if (__atomic_load_n(&c->loaded, __ATOMIC_ACQUIRE)) return 0;
  pthread_mutex_lock(&sk_cuda_lock);
  if (c->loaded) {
    pthread_mutex_unlock(&sk_cuda_lock);
    return 0;
  }
  CUmodule m;
  CUresult rc = sk_cu->cuModuleLoadData(&m, c->image);
  if (rc) {
    pthread_mutex_unlock(&sk_cuda_lock);
    char e[256];
    sk_cu_errstr(rc, e, sizeof e);
    int dv = sk_cu_driver_version();
    if (rc == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || rc == CUDA_ERROR_INVALID_PTX ||
        rc == CUDA_ERROR_NO_BINARY_FOR_GPU) {
      sk_err(err, errlen, SK_E_CANNOT_LOAD_KERNEL, c->is_binary ? "cubin" : "PTX",
             c->arch, e, dv / 1000, dv % 1000 / 10);
      return -1;
    }
    return sk_cuda_fail(rc, "cannot load the kernel", l->label, err, errlen);
  }
  CUfunction f;
  rc = sk_cu->cuModuleGetFunction(&f, m, "sk__kernel");
  if (rc) {
    sk_cu->cuModuleUnload(m);
    pthread_mutex_unlock(&sk_cuda_lock);
    return sk_cuda_fail(rc, "cuModuleGetFunction", l->label, err, errlen);
  }
  if (c->pattern != SK_FOR) {
    CUdeviceptr gp;
    size_t bytes = 0;
    if (sk_cu->cuModuleGetGlobal_v2(&gp, &bytes, m, "sk__acc_probe") != 0 ||
        bytes != l->acc_size) {
      sk_cu->cuModuleUnload(m);
      pthread_mutex_unlock(&sk_cuda_lock);
      sk_err(err, errlen, SK_E_ACCUMULATOR_LAYOUT_DIFFERS, l->acc_size, bytes);
      return -1;
    }
  }
  int mingrid = 0, block = 0, maxt = 0;
  sk_cu->cuOccupancyMaxPotentialBlockSize(&mingrid, &block, f, NULL, 0, 0);
  sk_cu->cuFuncGetAttribute(&maxt, CU_FUNC_ATTR_MAX_THREADS_PER_BLOCK, f);
  sk_cu->cuFuncGetAttribute(&c->regs, CU_FUNC_ATTR_NUM_REGS, f);
  c->block = block > 0 ? block : 128;
  c->grid1 = mingrid > 0 ? mingrid : sk_cuda.sms;
  c->maxthreads = maxt > 0 ? maxt : 1024;
  c->mod = m;
  c->fn = f;
  __atomic_store_n(&c->loaded, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&sk_cuda_lock);
  return 0;
}

static int finish(const sk_launch *l, const sk_cuda_kernel *c, char *res, int check_flag,
                  char *err, size_t errlen) {
  int oob = c->bounds && l->oob;
  if (sk_cuda_recording()) {
    /* recorded, not run (graph.c): nothing comes back; the warm run
     * before the recording checked the team's scratch request, and a
     * replay that reaches host-accessible memory is waited for */
    if (c->host_visible) sk_cuda_record_host_visible();
    return 0;
  }
  if (oob) check_flag = 1; /* the bounds record comes back with the flag */
  int need = l->pattern != SK_FOR || check_flag || c->host_visible;
  if (sync_always < 0) {
    const char *e = getenv("SPECK_CUDA_SYNC");
    sync_always = e && *e && strcmp(e, "0") != 0;
  }
  if (!need && !sync_always) return 0;
  char *pin = NULL;
  if (l->pattern != SK_FOR) {
    pin = sk_cuda_pinned_result(RESULT_OFF + l->acc_size, err, errlen);
    if (!pin) return -1;
  } else if (check_flag) {
    pin = sk_cuda_pinned_result(RESULT_OFF, err, errlen);
    if (!pin) return -1;
  }
  if (pin) {
    CUresult rc = sk_cu->cuMemcpyAsync(
      (CUdeviceptr)(uintptr_t)pin, (CUdeviceptr)(uintptr_t)res,
      RESULT_OFF + (l->pattern != SK_FOR ? l->acc_size : 0), run_on);
    if (rc) return sk_cuda_fail(rc, "reading the result", l->label, err, errlen);
  }
  /* waiting for the device counts as a running launch: Ctrl-C stops
   * the kernel's loops (sk_interrupt_request) */
  sk_interruptible_enter();
  CUresult rc = sk_cu->cuStreamSynchronize(run_on);
  sk_interruptible_leave();
  if (rc) return sk_cuda_fail(rc, "kernel", l->label, err, errlen);
  /* interrupted while it ran: its loops ended early, its result is not
   * the body's (reported once, as on the host) */
  if (sk_cuda.stop_word && (__atomic_load_n(sk_cuda.stop_word, __ATOMIC_RELAXED) & 1)) {
    sk_interrupt_reported();
    sk_err(err, errlen, SK_E_INTERRUPTED);
    return -1;
  }
  if (oob) memcpy(l->oob, pin + OOB_OFF, sizeof *l->oob);
  if (check_flag && l->policy->kind == SK_POL_TEAM) {
    int64_t bad;
    memcpy(&bad, pin + 8, sizeof bad);
    if (bad) {
      const sk_policy *p = l->policy;
      sk_err(err, errlen, SK_E_SCRATCH_REQUEST_BYTES, (long long)bad,
             (long long)p->scratch_team[0], (long long)p->scratch_team[1],
             (long long)p->scratch_thread[0], (long long)p->scratch_thread[1]);
      return -1;
    }
  }
  if (l->pattern != SK_FOR) memcpy(l->result, pin + RESULT_OFF, l->acc_size);
  return 0;
}

static int go(const sk_launch *l, sk_cuda_kernel *c, unsigned gx, unsigned gy,
              unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
              sk_cuctx *C, char *err, size_t errlen) {
  static sk_slot none;
  if (c->bounds && l->oob && !C->oob) { /* bounds-check mode: a zeroed record */
    char *res = sk_cuda_scratch(SK_SCR_RESULT, RESULT_OFF + 1024, err, errlen);
    if (!res) return -1;
    C->oob = (sk_oob *)(res + OOB_OFF);
    CUresult rc = sk_cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)C->oob, 0,
                                         sizeof(sk_oob), run_on);
    if (rc) return sk_cuda_fail(rc, "bounds record", l->label, err, errlen);
  }
  C->stop = sk_cuda.stop_word; /* the loops' interrupt polls (backends/cuda/dialect.h) */
  void *args = l->nargs > 0 ? (void *)l->args : (void *)&none;
  void *params[] = {args, C};
  CUresult rc = sk_cu->cuLaunchKernel((CUfunction)c->fn, gx, gy, gz, bx, by, bz, smem,
                                      run_on, params, NULL);
  if (rc) {
    char what[256];
    sk_err(what, sizeof what, SK_E_CANNOT_LAUNCH_GRID, gx, gy, gz, bx, by, bz, smem);
    return sk_cuda_fail(rc, what, l->label, err, errlen);
  }
  sk_cuda_set_last(l->label);
  return 0;
}

/* reduction buffers: partials for 'nblk' blocks and the result area */
static int reduce_bufs(const sk_launch *l, sk_cuctx *C, int64_t nblk, char **res,
                       char *err, size_t errlen) {
  *res = sk_cuda_scratch(SK_SCR_RESULT, RESULT_OFF + 1024, err, errlen);
  if (!*res) return -1;
  C->counter = (unsigned *)*res;
  C->flag = (sk_i64 *)(*res + 8);
  C->result = *res + RESULT_OFF;
  if (l->pattern != SK_FOR) {
    C->partial =
      sk_cuda_scratch(SK_SCR_PARTIAL, (size_t)nblk * l->acc_size + 64, err, errlen);
    if (!C->partial) return -1;
  }
  return 0;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int empty_result(const sk_launch *l) {
  if (l->pattern != SK_FOR) l->init(l->result);
  return 0;
}

/* -- range ------------------------------------------------------------------- */
static int launch_range(const sk_launch *l, sk_cuda_kernel *c, char *err, size_t errlen) {
  const sk_policy *p = l->policy;
  int64_t n = p->end - p->begin;
  if (n <= 0) return empty_result(l);
  sk_cuctx C;
  memset(&C, 0, sizeof C);
  C.b = p->begin;
  C.e = p->end;
  int block = c->block;
  if (p->chunk >= 32 && p->chunk <= c->maxthreads && p->chunk % 32 == 0)
    block = (int)p->chunk;
  else if (n < block) /* small ranges: whole warps, no idle block */
    block = (int)((n + 31) / 32 * 32);
  if (waves < 0) {
    const char *e = getenv("SPECK_CUDA_WAVES");
    waves = e && atoi(e) > 0 ? atoi(e) : 4;
  }
  int64_t g = cdiv(n, block);
  char *res = NULL;
  if (l->pattern == SK_FOR) {
    if (g > (int64_t)waves * c->grid1) g = (int64_t)waves * c->grid1;
    if (go(l, c, (unsigned)g, 1, 1, (unsigned)block, 1, 1, 0, &C, err, errlen) < 0)
      return -1;
    return finish(l, c, C.oob ? (char *)C.oob - OOB_OFF : NULL, 0, err, errlen);
  }
  if (l->pattern == SK_REDUCE) {
    if (g > c->grid1) g = c->grid1;
    if (reduce_bufs(l, &C, g, &res, err, errlen) < 0) return -1;
    if (go(l, c, (unsigned)g, 1, 1, (unsigned)block, 1, 1, 0, &C, err, errlen) < 0)
      return -1;
    return finish(l, c, res, 0, err, errlen);
  }
  /* scan: chunks of whole rounds, one partial per block */
  if (block > 512) block = 512;
  if (g > c->grid1) g = c->grid1;
  C.chunk = cdiv(cdiv(n, g), block) * block;
  g = cdiv(n, C.chunk);
  if (reduce_bufs(l, &C, g, &res, err, errlen) < 0) return -1;
  C.pass = 0;
  if (go(l, c, (unsigned)g, 1, 1, (unsigned)block, 1, 1, 0, &C, err, errlen) < 0)
    return -1;
  C.pass = 1;
  if (go(l, c, (unsigned)g, 1, 1, (unsigned)block, 1, 1, 0, &C, err, errlen) < 0)
    return -1;
  return finish(l, c, res, 0, err, errlen);
}

/* -- mdrange ------------------------------------------------------------------ */
static int64_t pow2_at_least(int64_t v, int64_t cap) {
  int64_t p = 1;
  while (p < v && p < cap) p <<= 1;
  return p;
}

static int launch_mdrange(const sk_launch *l, sk_cuda_kernel *c, char *err,
                          size_t errlen) {
  const sk_policy *p = l->policy;
  int R = p->md_rank;
  const int *pm = c->md_perm;
  int64_t ext[SK_MAXMD] = {1, 1, 1, 1, 1, 1};
  for (int d = 0; d < R; d++) {
    ext[d] = p->md_hi[d] - p->md_lo[d];
    if (ext[d] <= 0) return empty_result(l);
  }
  int64_t nx = ext[pm[0]], ny = ext[pm[1]], nz = 1;
  for (int q = 2; q < R; q++) nz *= ext[pm[q]];
  sk_cuctx C;
  memset(&C, 0, sizeof C);
  for (int d = 0; d < R; d++) {
    C.md_lo[d] = p->md_lo[d];
    C.md_hi[d] = p->md_hi[d];
  }
  int64_t bx = 0, by = 0, bz = 0;
  if (p->md_tile[0] > 0) {
    bx = p->md_tile[pm[0]];
    by = p->md_tile[pm[1]];
    bz = 1;
    for (int q = 2; q < R; q++) bz *= p->md_tile[pm[q]];
    if (bx * by * bz > c->maxthreads || bz > 64) bx = 0; /* use the default */
  }
  if (bx == 0) {
    bx = pow2_at_least(nx, 32);
    by = pow2_at_least(ny, 256 / bx);
    bz = pow2_at_least(nz, 256 / (bx * by) < 64 ? 256 / (bx * by) : 64);
    if (bz < 1) bz = 1;
    while (bx * by * bz > c->maxthreads) {
      if (bz > 1) bz >>= 1;
      else if (by > 1) by >>= 1;
      else bx >>= 1;
    }
  }
  int64_t gx = cdiv(nx, bx), gy = cdiv(ny, by), gz = cdiv(nz, bz);
  if (gx > 0x7fffffff) {
    sk_err(err, errlen, SK_E_MDRANGE_EXTENT_TOO, (long long)nx);
    return -1;
  }
  if (l->pattern == SK_FOR) {
    /* one thread per index: slabs of at most the grid's y/z limits */
    int64_t my = sk_cuda.grid_y, mz = sk_cuda.grid_z;
    for (int64_t oz = 0; oz < gz; oz += mz)
      for (int64_t oy = 0; oy < gy; oy += my) {
        C.md_oy = oy * by;
        C.md_oz = oz * bz;
        if (go(l, c, (unsigned)gx, (unsigned)(gy - oy < my ? gy - oy : my),
               (unsigned)(gz - oz < mz ? gz - oz : mz), (unsigned)bx, (unsigned)by,
               (unsigned)bz, 0, &C, err, errlen) < 0)
          return -1;
      }
    return finish(l, c, C.oob ? (char *)C.oob - OOB_OFF : NULL, 0, err, errlen);
  }
  if (gy > sk_cuda.grid_y) gy = sk_cuda.grid_y;
  if (gz > sk_cuda.grid_z) gz = sk_cuda.grid_z;
  char *res = NULL;
  int64_t cap = (int64_t)sk_cuda.sms * (sk_cuda.max_threads_sm / (bx * by * bz) > 0
                                          ? sk_cuda.max_threads_sm / (bx * by * bz)
                                          : 1);
  while (gx * gy * gz > cap) {
    if (gz > 1) gz = cdiv(gz, 2);
    else if (gy > 1) gy = cdiv(gy, 2);
    else gx = cdiv(gx, 2);
  }
  if (reduce_bufs(l, &C, gx * gy * gz, &res, err, errlen) < 0) return -1;
  if (go(l, c, (unsigned)gx, (unsigned)gy, (unsigned)gz, (unsigned)bx, (unsigned)by,
         (unsigned)bz, 0, &C, err, errlen) < 0)
    return -1;
  return finish(l, c, res, 0, err, errlen);
}

/* -- teams -------------------------------------------------------------------- */
void sk_cuda_team_limits(sk_team_limits *lim) {
  char err[256];
  int optin = 48 << 10, sms = 0;
  if (sk_cuda_ensure(err, sizeof err) == 0) optin = sk_cuda.smem_optin, sms = sk_cuda.sms;
  lim->processors = sms;
  lim->team_size_max = 32;
  lim->team_size_recommended = 32;
  lim->vector_length_max = 32;
  lim->warp = 32;
  /* the team's reduction slots come out of the same shared memory */
  lim->scratch_max[0] = optin - 32 * 32 * 16;
  lim->scratch_max[1] = 1LL << 30;
}

static int launch_team(const sk_launch *l, sk_cuda_kernel *c, char *err, size_t errlen) {
  const sk_policy *p = l->policy;
  /* exec/ checked the policy against team_limits and resolved "auto" */
  int T = p->team_size, V = p->vector_length;
  if ((int64_t)T * V > c->maxthreads) {
    sk_err(err, errlen, SK_E_TEAM_SIZE_EXCEEDS, T, c->maxthreads / V);
    return -1;
  }
  int64_t L = p->league_size;
  if (L <= 0) return empty_result(l);
  int tsz = T * V;
  /* teams that divide a warp share blocks (at most 64: blockDim.z) */
  int tpb = tsz <= 32 && 32 % tsz == 0 ? (128 / tsz < 64 ? 128 / tsz : 64) : 1;
  /* ... as many as their shared memory lets share a block: a team's
   * scratch that fits the device alone must not fail for its company */
  int64_t team_smem = up64((int64_t)tsz * 16) + up64(p->scratch_team[0]) +
                      (int64_t)T * up64(p->scratch_thread[0]);
  while (tpb > 1 && team_smem * tpb > sk_cuda.smem_block) tpb /= 2;
  sk_cuctx C;
  memset(&C, 0, sizeof C);
  C.b = 0;
  C.e = L;
  C.team_size = T;
  C.vector_length = V;
  C.teams_per_block = tpb;
  for (int lv = 0; lv < 2; lv++) {
    C.scratch_team[lv] = p->scratch_team[lv];
    C.scratch_thread[lv] = p->scratch_thread[lv];
  }
  C.smem_team_bytes = team_smem;
  C.l1_team_bytes = up64(p->scratch_team[1]) + (int64_t)T * up64(p->scratch_thread[1]);
  int64_t smem = C.smem_team_bytes * tpb;
  if (smem > sk_cuda.smem_optin) {
    sk_err(err, errlen, SK_E_TEAMS_NEED_BYTES, (long long)smem, sk_cuda.smem_optin);
    return -1;
  }
  if (smem > sk_cuda.smem_block) {
    CUresult rc = sk_cu->cuFuncSetAttribute(
      (CUfunction)c->fn, CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
    if (rc) return sk_cuda_fail(rc, "shared memory request", l->label, err, errlen);
  }
  int per_sm = 0;
  if (c->occ_threads == tsz * tpb && c->occ_smem == (size_t)smem) {
    per_sm = c->occ_per_sm; /* the same block as last time */
  } else {
    sk_cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (CUfunction)c->fn,
                                                       tsz * tpb, (size_t)smem);
    c->occ_threads = tsz * tpb;
    c->occ_smem = (size_t)smem;
    c->occ_per_sm = per_sm;
  }
  if (per_sm < 1) {
    sk_err(err, errlen, SK_E_BLOCK_X_X, V, T, tpb, (long long)smem);
    return -1;
  }
  int64_t g = cdiv(L, tpb), cap = (int64_t)per_sm * sk_cuda.sms;
  if (g > cap) g = cap;
  char *res = NULL;
  if (reduce_bufs(l, &C, g, &res, err, errlen) < 0) return -1;
  if (C.l1_team_bytes > 0) {
    C.l1_pool =
      sk_cuda_scratch(SK_SCR_L1, (size_t)(g * tpb * C.l1_team_bytes), err, errlen);
    if (!C.l1_pool) return -1;
  }
  /* a body without team_scratch / thread_scratch cannot set the scratch
   * flag: its launch stays asynchronous (a parallel_for is not waited for) */
  if (c->scratch) {
    CUresult rc =
      sk_cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)(res + 8), 0, 8, run_on);
    if (rc) return sk_cuda_fail(rc, "team launch", l->label, err, errlen);
  }
  if (go(l, c, (unsigned)g, 1, 1, (unsigned)V, (unsigned)T, (unsigned)tpb, (unsigned)smem,
         &C, err, errlen) < 0)
    return -1;
  return finish(l, c, res, c->scratch, err, errlen);
}

/* Every launch holds sk_cuda_launch_lock from its first use of kept
 * scratch to its end (queued, or waited for and its result read): the
 * buffers are shared, and the stream keeps the kernels of all threads in
 * one order anyway. Uncontended, the lock costs tens of nanoseconds. */
int sk_cuda_launch(const sk_launch *l, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  sk_cuda_kernel *c = l->fn;
  if (!c) {
    sk_err(err, errlen, SK_E_NO_COMPILED_CUDA);
    return -1;
  }
  if (c->nargs != l->nargs) {
    sk_err(err, errlen, SK_E_KERNEL_COMPILED_CAPTURES, c->nargs, l->nargs);
    return -1;
  }
  if (sk_cuda_recording() && c->bounds && l->oob) {
    char what[300];
    sk_err(what, sizeof what, SK_E_CAPTURE_WHAT_BOUNDS, l->label);
    return sk_err(err, errlen, SK_E_CAPTURE_NEEDS_HOST, what,
                  "its bounds record comes back to the host");
  }
  if (load_module(c, l, err, errlen) < 0) return -1;
  pthread_mutex_lock(&sk_cuda_launch_lock);
  int rc;
  if (!l->instance) {
    run_on = sk_cuda.stream;
  } else if (sk_cuda_inst_stream(l->instance, &run_on, l->label, err, errlen) < 0) {
    pthread_mutex_unlock(&sk_cuda_launch_lock);
    return -1;
  }
  switch (l->policy->kind) {
  case SK_POL_MDRANGE: rc = launch_mdrange(l, c, err, errlen); break;
  case SK_POL_TEAM: rc = launch_team(l, c, err, errlen); break;
  default: rc = launch_range(l, c, err, errlen); break;
  }
  pthread_mutex_unlock(&sk_cuda_launch_lock);
  return rc;
}
