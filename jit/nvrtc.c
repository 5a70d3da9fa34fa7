/* nvrtc.c: the GPU tier: NVRTC compiles the CUDA source of a kernel
 * (codegen_cuda.c) to a cubin for the device's architecture, or to PTX
 * when no device can be used (compile-only checks) or the device is newer
 * than this NVRTC knows (the driver then finishes the PTX).
 *
 * Images go through the disk cache (diskcache.c) with the cc tier's
 * rules, keyed by the source, NVRTC's version, the target architecture,
 * the flags and speck's JIT version; suffix ".cubin" or ".ptx".
 * Settable at run time: SPECK_NVRTC_ARCH (sm_XX cubin or compute_XX
 * PTX), SPECK_NVRTC_FLAGS (extra options, space separated). The default
 * options keep floating point as on the host (--fmad=false: no FMA
 * contraction, as the cc tier's -ffp-contract=off).
 *
 * A reducing kernel also needs its accumulator on the host (identity,
 * join, layout for the VM's result): that part is compiled with libtcc
 * from codegen.c's host text, so both sides share one struct layout.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../backends/cuda/cu.h"
#include "../backends/cuda/cuda_api.h"
#include "jit.h"
#include "strbuf.h"

#define DEFAULT_ARCH "compute_90"
#define BASE_FLAGS "-std=c++17 --fmad=false"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int sk_nvrtc_status(char *buf, size_t n) {
  char why[1024];
  if (!sk_nvrtc_load(why, sizeof why)) {
    snprintf(buf, n, "%s", why);
    return 0;
  }
  int v = sk_nvrtc_version();
  snprintf(buf, n, "NVRTC %d.%d (%s)", v / 1000, v % 1000 / 10,
           sk_nvrtc_libpath());
  return 1;
}

/* The architecture option: a cubin for the device when NVRTC supports
 * it, else PTX for the newest virtual architecture it knows below. */
static void pick_arch(const sk_nvrtc_api *nv, char *arch, size_t n,
                      int *cubin) {
  const char *env = getenv("SPECK_NVRTC_ARCH");
  if (env && *env) {
    snprintf(arch, n, "%s", env);
    *cubin = strncmp(env, "sm_", 3) == 0;
    return;
  }
  int ma, mi;
  if (!sk_cuda_target_arch(&ma, &mi)) {
    snprintf(arch, n, "%s", DEFAULT_ARCH);
    *cubin = 0;
    return;
  }
  int want = 10 * ma + mi, best = 0, na = 0;
  int archs[128];
  if (nv->nvrtcGetNumSupportedArchs(&na) == 0 && na > 0 && na <= 128 &&
      nv->nvrtcGetSupportedArchs(archs) == 0) {
    for (int i = 0; i < na; i++) {
      if (archs[i] == want) {
        snprintf(arch, n, "sm_%d", want);
        *cubin = 1;
        return;
      }
      if (archs[i] < want && archs[i] > best) best = archs[i];
    }
  }
  snprintf(arch, n, "compute_%d", best ? best : want);
  *cubin = 0;
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
  if (b.n)
    snprintf(err, errlen, "%s", b.s);
  else
    snprintf(err, errlen, "NVRTC failed: %s", log);
  sk_buf_free(&b);
}

/* Compile 'source' to an image (malloc'd). */
static int compile(const sk_nvrtc_api *nv, const char *source, const char *arch,
                   int cubin, const char *flags, char **img, size_t *len,
                   char *err, size_t errlen) {
  nvrtcProgram prog;
  int rc = nv->nvrtcCreateProgram(&prog, source, "speck_kernel.cu", 0, NULL, NULL);
  if (rc != 0) {
    snprintf(err, errlen, "nvrtcCreateProgram: %s", nv->nvrtcGetErrorString(rc));
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
      snprintf(err, errlen, "NVRTC: %s", nv->nvrtcGetErrorString(rc));
    }
    free(log);
    nv->nvrtcDestroyProgram(&prog);
    return -1;
  }
  size_t n = 0;
  rc = cubin ? nv->nvrtcGetCUBINSize(prog, &n) : nv->nvrtcGetPTXSize(prog, &n);
  char *out = rc == 0 ? malloc(n + 1) : NULL;
  if (out)
    rc = cubin ? nv->nvrtcGetCUBIN(prog, out) : nv->nvrtcGetPTX(prog, out);
  nv->nvrtcDestroyProgram(&prog);
  if (rc != 0 || !out) {
    free(out);
    snprintf(err, errlen, "NVRTC: cannot read the compiled %s",
             cubin ? "cubin" : "PTX");
    return -1;
  }
  out[n] = '\0';
  *img = out;
  *len = n;
  return 0;
}

void sk_nvrtc_free(void *gpu) { sk_cuda_code_free(gpu); }

int sk_nvrtc_compile(sk_kernel *k, const sk_kspec *s, const char *source,
                     char *err, size_t errlen) {
  char why[1600];
  const sk_nvrtc_api *nv = sk_nvrtc_load(why, sizeof why);
  if (!nv) {
    snprintf(err, errlen, "cannot compile for CUDA: %s", why);
    return -1;
  }
  double t0 = now();
  char arch[24], flags[1024];
  int cubin;
  pick_arch(nv, arch, sizeof arch, &cubin);
  const char *extra = getenv("SPECK_NVRTC_FLAGS");
  snprintf(flags, sizeof flags, "%s%s%s", BASE_FLAGS, extra && *extra ? " " : "",
           extra ? extra : "");
  char ver[32];
  snprintf(ver, sizeof ver, "nvrtc-%d", sk_nvrtc_version());
  uint64_t key = sk_hash(source, strlen(source), 0xc0da);
  key = sk_hash(ver, strlen(ver), key);
  key = sk_hash(arch, strlen(arch), key);
  key = sk_hash(flags, strlen(flags), key);
  key = sk_hash(SK_JIT_VERSION, strlen(SK_JIT_VERSION), key);
  const char *suffix = cubin ? ".cubin" : ".ptx";
  size_t len = 0;
  char *img = sk_disk_read(key, suffix, &len);
  int from_disk = img != NULL;
  if (img && !cubin) {   /* PTX must end in NUL for the driver */
    char *g = realloc(img, len + 1);
    if (!g) {
      free(img);
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    img = g;
    img[len] = '\0';
  }
  if (!img) {
    if (compile(nv, source, arch, cubin, flags, &img, &len, err, errlen) < 0)
      return -1;
    sk_disk_write(key, suffix, img, len);
  }
  sk_cuda_code *c = calloc(1, sizeof *c);
  if (!c) {
    free(img);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  c->image = img;
  c->size = cubin ? len : len + 1;
  c->is_cubin = cubin;
  snprintf(c->arch, sizeof c->arch, "%s", arch);
  c->pattern = s->pattern;
  c->policy_kind = s->policy_kind;
  c->md_rank = s->md_rank;
  sk_codegen_cuda_perm(s, c->md_perm);
  c->nargs = s->ncap;
  c->bounds = s->bounds;
  for (int i = 0; i < s->ncap; i++)
    if (s->caps[i].kind == SK_CAP_VIEW && s->caps[i].space != SK_SPACE_CUDA)
      c->host_visible = 1;
  /* the host half: the accumulator for the VM */
  if (s->pattern != SK_FOR) {
    char *hsrc = sk_codegen_host_acc(s, err, errlen);
    int rc = hsrc ? sk_tcc_compile(k, hsrc, err, errlen) : -1;
    free(hsrc);
    if (rc < 0) {
      sk_cuda_code_free(c);
      return -1;
    }
  }
  k->gpu = c;
  sk_jit_install(k, c, k->init, k->join, NULL, SK_TIER_NVRTC);
  if (from_disk)
    k->disk_hits++;
  else
    k->compiles[SK_TIER_NVRTC]++;
  k->compile_seconds += now() - t0;
  return 0;
}
