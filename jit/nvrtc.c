/* nvrtc.c: the GPU tier: NVRTC compiles the CUDA source of a kernel
 * (codegen_cuda.c) into an image (core/backend.h's sk_image): a cubin
 * for the architecture the spec names, or PTX when none is named (compile
 * only: no device) or NVRTC does not know that architecture (the driver
 * then finishes the PTX). The image carries the launch facts the
 * generator decided; the back end that runs it loads it ('load' of its
 * table). No device, driver or back end is involved here.
 *
 * Images go through the disk cache (diskcache.c) with the cc tier's
 * rules, keyed by the source, NVRTC's version, the target architecture,
 * the options and speck's JIT version; suffix ".cubin" or ".ptx".
 * Settable at run time: SPECK_NVRTC_ARCH (sm_XX cubin or compute_XX
 * PTX, over the spec's), SPECK_NVRTC_FLAGS (extra options, space
 * separated). The default options keep floating point as on the host
 * (--fmad=false: no FMA contraction, as the cc tier's -ffp-contract=off)
 * and are chosen for compile time (docs/bench.md, "NVRTC compile time"):
 * no warnings are produced (-w: they are never shown) and, from NVRTC
 * 12.4, -minimal leaves out the CUDA runtime API declarations that the
 * dialect does not use.
 *
 * A reducing kernel also needs its accumulator on the host (identity,
 * join, layout for the result): that part is compiled with libtcc from
 * codegen_host.c's host text, so both sides share one struct layout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "codegen_cuda.h"
#include "jit.h"
#include "nvrtc.h"
#include "nvrtc_lib.h"
#include "strbuf.h"

/* compile only (no architecture given): PTX for this virtual one */
#define DEFAULT_ARCH "compute_90"
#define BASE_FLAGS   "-std=c++17 --fmad=false -w"
#define MINIMAL_FROM 12040 /* NVRTC version that knows -minimal */

int sk_nvrtc_status(char *buf, size_t n) {
  char why[1600];
  if (!sk_nvrtc_load(why, sizeof why)) {
    snprintf(buf, n, "%s", why);
    return 0;
  }
  int v = sk_nvrtc_version();
  snprintf(buf, n, "NVRTC %d.%d (%s)", v / 1000, v % 1000 / 10, sk_nvrtc_libpath());
  return 1;
}

/* The architecture option for 'want' (the spec's "sm_90"; NULL or "":
 * compile only), SPECK_NVRTC_ARCH over both: a cubin when NVRTC knows the
 * architecture, else PTX for the newest virtual architecture it knows
 * that is not newer (the driver compiles PTX for its device). */
static void pick_arch(const char *want, char *arch, size_t n, int *cubin) {
  const char *env = getenv("SPECK_NVRTC_ARCH");
  if (env && *env) {
    snprintf(arch, n, "%s", env);
    *cubin = strncmp(env, "sm_", 3) == 0;
    return;
  }
  int cc = 0;
  if (want && strncmp(want, "sm_", 3) == 0) cc = atoi(want + 3);
  else if (want && strncmp(want, "compute_", 8) == 0) cc = -atoi(want + 8);
  if (cc == 0) {
    snprintf(arch, n, "%s", DEFAULT_ARCH);
    *cubin = 0;
  } else if (cc > 0 && sk_nvrtc_supports(cc)) {
    snprintf(arch, n, "sm_%d", cc);
    *cubin = 1;
  } else {
    int c = cc > 0 ? cc : -cc, best = sk_nvrtc_best_below(c);
    snprintf(arch, n, "compute_%d", best ? best : c);
    *cubin = 0;
  }
}

/* NVRTC's log -> "body line N: error: ..." lines (errors only; the source
 * echo and caret lines are dropped). */
static void map_log(const char *log, char *err, size_t errlen) {
  sk_buf b;
  sk_buf_init(&b);
  static const char *const files[] = {"body", "prelude", "init", "join", NULL};
  for (const char *p = log; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    const char *paren = memchr(p, '(', len);
    if (paren && len > 0 && p[0] != ' ' && memmem(p, len, "error", 5)) {
      size_t fl = (size_t)(paren - p);
      int known = 0;
      for (int f = 0; files[f]; f++)
        if (strlen(files[f]) == fl && memcmp(p, files[f], fl) == 0) known = 1;
      const char *close = memchr(paren, ')', len - fl);
      if (b.n) sk_buf_puts(&b, "\n");
      if (known && close && close[1] == ':') {
        sk_buf_add(&b, p, fl);
        sk_buf_puts(&b, " line ");
        sk_buf_add(&b, paren + 1, (size_t)(close - paren - 1));
        /* NVRTC's 'identifier "x" is undefined' in the host tiers' words */
        const char *msg = close + 1, *mend = p + len;
        const char *id = memmem(msg, (size_t)(mend - msg), "identifier \"", 12);
        const char *q2 = id ? memchr(id + 12, '"', (size_t)(mend - id - 12)) : NULL;
        if (id && q2 && (size_t)(mend - q2) >= 14 &&
            memcmp(q2, "\" is undefined", 14) == 0) {
          sk_buf_add(&b, msg, (size_t)(id - msg));
          sk_buf_puts(&b, "'");
          sk_buf_add(&b, id + 12, (size_t)(q2 - id - 12));
          sk_buf_puts(&b, "' undeclared");
          sk_buf_add(&b, q2 + 14, (size_t)(mend - q2 - 14));
        } else {
          sk_buf_add(&b, msg, (size_t)(mend - msg));
        }
      } else {
        sk_buf_add(&b, p, len);
      }
    }
    p += len + (nl ? 1 : 0);
  }
  if (b.n) sk_jit_diag(err, errlen, b.s);
  else sk_err(err, errlen, SK_E_NVRTC_FAILED, log);
  sk_buf_free(&b);
}

/* Compile 'source' to an image (malloc'd). */
static int compile(const sk_nvrtc_api *nv, const char *source, const char *arch,
                   int cubin, const char *flags, char **img, size_t *len, char *err,
                   size_t errlen) {
  nvrtcProgram prog;
  int rc = nv->nvrtcCreateProgram(&prog, source, "speck_kernel.cu", 0, NULL, NULL);
  if (rc != 0) {
    sk_err(err, errlen, SK_E_NVRTCCREATEPROGRAM, nv->nvrtcGetErrorString(rc));
    return -1;
  }
  char archopt[64], fl[1024];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
  snprintf(fl, sizeof fl, "%s", flags);
  const char *opts[64];
  int no = 0;
  opts[no++] = archopt;
  for (char *save = NULL, *t = strtok_r(fl, " \t", &save); t && no < 63;
       t = strtok_r(NULL, " \t", &save))
    opts[no++] = t;
  rc = nv->nvrtcCompileProgram(prog, no, opts);
  if (rc != 0) {
    size_t ls = 0;
    nv->nvrtcGetProgramLogSize(prog, &ls);
    char *log = malloc(ls + 1);
    if (log && nv->nvrtcGetProgramLog(prog, log) == 0) {
      log[ls] = '\0';
      map_log(log, err, errlen);
    } else {
      sk_err(err, errlen, SK_E_NVRTC, nv->nvrtcGetErrorString(rc));
    }
    free(log);
    nv->nvrtcDestroyProgram(&prog);
    return -1;
  }
  size_t n = 0;
  rc = cubin ? nv->nvrtcGetCUBINSize(prog, &n) : nv->nvrtcGetPTXSize(prog, &n);
  char *out = rc == 0 ? malloc(n + 1) : NULL;
  if (out) rc = cubin ? nv->nvrtcGetCUBIN(prog, out) : nv->nvrtcGetPTX(prog, out);
  nv->nvrtcDestroyProgram(&prog);
  if (rc != 0 || !out) {
    free(out);
    sk_err(err, errlen, SK_E_NVRTC_CANNOT_READ, cubin ? "cubin" : "PTX");
    return -1;
  }
  out[n] = '\0';
  *img = out;
  *len = n;
  return 0;
}

/* The options: the base set, -minimal where NVRTC knows it, then
 * SPECK_NVRTC_FLAGS. */
static void nvrtc_flags(char *flags, size_t n) {
  const char *extra = getenv("SPECK_NVRTC_FLAGS");
  snprintf(flags, n, "%s%s%s%s", BASE_FLAGS,
           sk_nvrtc_version() >= MINIMAL_FROM ? " -minimal" : "",
           extra && *extra ? " " : "", extra && *extra ? extra : "");
}

/* -- warm-up ------------------------------------------------------------- */
/* NVRTC's first compile in a process pays a one-time set-up (its builtin
 * headers and ptxas, paged in and initialised): 10-25 ms over a warm
 * compile. sk_nvrtc_warm pays it on a thread of its own while the caller
 * goes on (exec/ calls it when a back end with a CUDA code target starts,
 * as device set-up takes longer). The process waits for that thread at
 * exit, so NVRTC is never torn down under it. */
static pthread_once_t warm_once = PTHREAD_ONCE_INIT;
static pthread_t warm_thread;

static void *warm_main(void *arg) {
  (void)arg;
  const sk_nvrtc_api *nv = sk_nvrtc_load(NULL, 0);
  int cc = sk_nvrtc_best_below(1 << 20);
  if (!nv || !cc) return NULL;
  char arch[24], flags[1024], err[256], *data = NULL;
  size_t len;
  snprintf(arch, sizeof arch, "sm_%d", cc);
  nvrtc_flags(flags, sizeof flags);
  if (compile(nv, "extern \"C\" __global__ void sk__warm() {}\n", arch, 1, flags, &data,
              &len, err, sizeof err) == 0)
    free(data);
  return NULL;
}

static void warm_join(void) { pthread_join(warm_thread, NULL); }

static void warm_start(void) {
  if (!sk_nvrtc_load(NULL, 0)) return;
  if (pthread_create(&warm_thread, NULL, warm_main, NULL) != 0) return;
  if (atexit(warm_join) != 0) pthread_detach(warm_thread);
}

void sk_nvrtc_warm(void) { pthread_once(&warm_once, warm_start); }

int sk_nvrtc_build(const sk_kspec *s, const char *source, sk_image **out,
                   int *from_disk_out, char *err, size_t errlen) {
  char why[1600];
  const sk_nvrtc_api *nv = sk_nvrtc_load(why, sizeof why);
  if (!nv) {
    sk_err(err, errlen, SK_E_CANNOT_COMPILE_CUDA, why);
    return -1;
  }
  char arch[24], flags[1024];
  int cubin;
  pick_arch(s->arch, arch, sizeof arch, &cubin);
  nvrtc_flags(flags, sizeof flags);
  char ver[32];
  snprintf(ver, sizeof ver, "nvrtc-%d", sk_nvrtc_version());
  uint64_t key = sk_hash(source, strlen(source), 0xc0da);
  key = sk_hash(ver, strlen(ver), key);
  key = sk_hash(arch, strlen(arch), key);
  key = sk_hash(flags, strlen(flags), key);
  key = sk_hash(SK_JIT_VERSION, strlen(SK_JIT_VERSION), key);
  const char *suffix = cubin ? ".cubin" : ".ptx";
  size_t len = 0;
  char *data = sk_disk_read(key, suffix, &len);
  int from_disk = data != NULL;
  if (data && !cubin) { /* PTX must end in NUL for the driver */
    char *g = realloc(data, len + 1);
    if (!g) {
      free(data);
      sk_err(err, errlen, SK_E_NOMEM);
      return -1;
    }
    data = g;
    data[len] = '\0';
  }
  if (!data) {
    if (compile(nv, source, arch, cubin, flags, &data, &len, err, errlen) < 0) return -1;
    sk_disk_write(key, suffix, data, len);
  }
  sk_image *img = calloc(1, sizeof *img);
  if (!img) {
    free(data);
    sk_err(err, errlen, SK_E_NOMEM);
    return -1;
  }
  img->data = data;
  img->size = cubin ? len : len + 1;
  img->is_binary = cubin;
  snprintf(img->arch, sizeof img->arch, "%s", arch);
  img->pattern = s->pattern;
  img->policy_kind = s->policy_kind;
  img->md_rank = s->md_rank;
  sk_codegen_cuda_perm(s, img->md_perm);
  img->nargs = s->ncap;
  img->bounds = s->bounds;
  /* only team_scratch / thread_scratch can set a team launch's flag */
  img->scratch = memmem(s->body, s->body_len, "_scratch", 8) != NULL;
  for (int i = 0; i < s->ncap; i++) {
    if (s->caps[i].kind == SK_CAP_VIEW && sk_space_host_accessible(s->caps[i].space))
      img->host_visible = 1;
    /* a remote view's global index beyond its extent is reported through
     * the bounds record, bounds-check mode or not */
    if (s->caps[i].kind == SK_CAP_VIEW && sk_space_remote(s->caps[i].space))
      img->bounds = 1;
  }
  *out = img;
  *from_disk_out = from_disk;
  return 0;
}
