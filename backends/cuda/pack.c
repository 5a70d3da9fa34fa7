/* pack.c: element-wise copies and fills of views on the device.
 *
 * deep_copy between views whose index maps differ (layouts, subviews)
 * runs a pack/unpack kernel instead of walking device memory from the
 * host: one thread per element, the fastest thread index along the
 * destination's smallest stride, so the writes coalesce. The kernels are
 * two small fixed functions compiled with NVRTC on first use (once per
 * process); they work on every memory the device can address (cuda,
 * cuda_uvm, cuda_pinned).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_int.h"

typedef struct pack_desc {
  sk_i64 n;
  int rank, es;
  sk_i64 ext[SK_MAXRANK], ds[SK_MAXRANK], ss[SK_MAXRANK];
} pack_desc;

static const char pack_src[] =
  "typedef long sk_i64;\n"
  "struct pack_desc { sk_i64 n; int rank, es; sk_i64 ext[8], ds[8], ss[8]; };\n"
  "template <class T> __device__ void mv(char *d, const char *s) {\n"
  "  *(T *)d = *(const T *)s; }\n"
  "extern \"C\" __global__ void sk_pack_copy(char *dst, const char *src,\n"
  "    const __grid_constant__ pack_desc d) {\n"
  "  for (sk_i64 t = (sk_i64)blockIdx.x * blockDim.x + threadIdx.x; t < d.n;\n"
  "       t += (sk_i64)gridDim.x * blockDim.x) {\n"
  "    sk_i64 r = t, od = 0, os = 0;\n"
  "    for (int k = 0; k < d.rank; k++) {\n"
  "      sk_i64 q = r % d.ext[k]; r /= d.ext[k];\n"
  "      od += q * d.ds[k]; os += q * d.ss[k]; }\n"
  "    switch (d.es) {\n"
  "    case 8: mv<unsigned long long>(dst + od * 8, src + os * 8); break;\n"
  "    case 4: mv<unsigned>(dst + od * 4, src + os * 4); break;\n"
  "    case 2: mv<unsigned short>(dst + od * 2, src + os * 2); break;\n"
  "    default: dst[od] = src[os]; break; }\n"
  "  }\n"
  "}\n"
  "extern \"C\" __global__ void sk_pack_fill(char *dst,\n"
  "    const __grid_constant__ pack_desc d, unsigned long long cell) {\n"
  "  for (sk_i64 t = (sk_i64)blockIdx.x * blockDim.x + threadIdx.x; t < d.n;\n"
  "       t += (sk_i64)gridDim.x * blockDim.x) {\n"
  "    sk_i64 r = t, od = 0;\n"
  "    for (int k = 0; k < d.rank; k++) {\n"
  "      sk_i64 q = r % d.ext[k]; r /= d.ext[k]; od += q * d.ds[k]; }\n"
  "    const char *s = (const char *)&cell;\n"
  "    switch (d.es) {\n"
  "    case 8: mv<unsigned long long>(dst + od * 8, s); break;\n"
  "    case 4: mv<unsigned>(dst + od * 4, s); break;\n"
  "    case 2: mv<unsigned short>(dst + od * 2, s); break;\n"
  "    default: dst[od] = s[0]; break; }\n"
  "  }\n"
  "}\n";

static CUmodule mod;
static CUfunction f_copy, f_fill;

static int load_module(char *err, size_t errlen) {
  if (mod) return 0;
  char why[1600];
  const sk_nvrtc_api *nv = sk_nvrtc_load(why, sizeof why);
  if (!nv) {
    snprintf(err, errlen, "device-side copy needs NVRTC: %s", why);
    return -1;
  }
  int want = 10 * sk_cuda.major + sk_cuda.minor, na = 0, archs[128], best = 0,
      cubin = 0;
  if (nv->nvrtcGetNumSupportedArchs(&na) == 0 && na > 0 && na <= 128 &&
      nv->nvrtcGetSupportedArchs(archs) == 0)
    for (int i = 0; i < na; i++) {
      if (archs[i] == want) cubin = 1;
      if (archs[i] <= want && archs[i] > best) best = archs[i];
    }
  char opt[64];
  snprintf(opt, sizeof opt, "--gpu-architecture=%s_%d", cubin ? "sm" : "compute",
           cubin ? want : (best ? best : want));
  const char *opts[] = {opt, "-std=c++17"};
  nvrtcProgram prog;
  if (nv->nvrtcCreateProgram(&prog, pack_src, "speck_pack.cu", 0, NULL, NULL)) {
    snprintf(err, errlen, "NVRTC cannot create the pack program");
    return -1;
  }
  int rc = nv->nvrtcCompileProgram(prog, 2, opts);
  size_t n = 0;
  char *img = NULL;
  if (rc == 0) rc = cubin ? nv->nvrtcGetCUBINSize(prog, &n) : nv->nvrtcGetPTXSize(prog, &n);
  if (rc == 0 && (img = malloc(n + 1)))
    rc = cubin ? nv->nvrtcGetCUBIN(prog, img) : nv->nvrtcGetPTX(prog, img);
  nv->nvrtcDestroyProgram(&prog);
  if (rc != 0 || !img) {
    free(img);
    snprintf(err, errlen, "NVRTC failed to compile the pack kernels (%s)",
             nv->nvrtcGetErrorString(rc));
    return -1;
  }
  CUresult r = sk_cu->cuModuleLoadData(&mod, img);
  free(img);
  if (r) return sk_cuda_fail(r, "loading the pack kernels", NULL, err, errlen);
  sk_cu->cuModuleGetFunction(&f_copy, mod, "sk_pack_copy");
  sk_cu->cuModuleGetFunction(&f_fill, mod, "sk_pack_fill");
  return 0;
}

/* dimensions of extent > 1, ordered by ascending destination stride */
static void describe(pack_desc *d, const sk_view *dst, const sk_view *src) {
  memset(d, 0, sizeof *d);
  d->n = sk_view_size(dst);
  d->es = (int)sk_dtypes[dst->dtype].size;
  for (int k = 0; k < dst->rank; k++) {
    if (dst->extent[k] == 1) continue;
    int j = d->rank++;
    int64_t a = dst->stride[k] < 0 ? -dst->stride[k] : dst->stride[k];
    while (j > 0 && (d->ds[j - 1] < 0 ? -d->ds[j - 1] : d->ds[j - 1]) > a) {
      d->ext[j] = d->ext[j - 1];
      d->ds[j] = d->ds[j - 1];
      d->ss[j] = d->ss[j - 1];
      j--;
    }
    d->ext[j] = dst->extent[k];
    d->ds[j] = dst->stride[k];
    d->ss[j] = src ? src->stride[k] : 0;
  }
}

static int run(CUfunction f, void **params, int64_t n, char *err, size_t errlen) {
  int block = 256;
  int64_t g = (n + block - 1) / block, cap = (int64_t)sk_cuda.sms * 16;
  if (g > cap) g = cap;
  if (g < 1) g = 1;
  CUresult rc = sk_cu->cuLaunchKernel(f, (unsigned)g, 1, 1, (unsigned)block, 1,
                                      1, 0, sk_cuda.stream, params, NULL);
  if (rc) return sk_cuda_fail(rc, "deep_copy kernel", "deep_copy", err, errlen);
  sk_cuda_set_last("deep_copy");
  return sk_cuda_sync("deep_copy", err, errlen);
}

int sk_cuda_copy_view(const sk_view *dst, const sk_view *src, char *err,
                      size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0 || load_module(err, errlen) < 0) return -1;
  pack_desc d;
  describe(&d, dst, src);
  if (d.n == 0) return 0;
  void *dp = dst->data;
  const void *sp = src->data;
  void *params[] = {&dp, &sp, &d};
  return run(f_copy, params, d.n, err, errlen);
}

int sk_cuda_fill_view(const sk_view *v, const void *cell, char *err,
                      size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0 || load_module(err, errlen) < 0) return -1;
  pack_desc d;
  describe(&d, v, NULL);
  if (d.n == 0) return 0;
  unsigned long long c = 0;
  memcpy(&c, cell, (size_t)d.es);
  void *dp = v->data;
  void *params[] = {&dp, &d, &c};
  return run(f_fill, params, d.n, err, errlen);
}
