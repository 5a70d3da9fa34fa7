/* pack.c: element-wise copies and fills of views on the device.
 *
 * deep_copy between views whose index maps differ (layouts, subviews)
 * runs a pack/unpack kernel instead of walking device memory from the
 * host: one thread per element, the fastest thread index along the
 * destination's smallest stride, so the writes coalesce. The kernels are
 * two small fixed functions (pack.cu), carried as PTX (pack_ptx.h) and
 * loaded on first use; they work on every memory the device can address
 * (cuda, cuda_uvm, cuda_pinned).
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

#include "pack_ptx.h"

static CUmodule mod;
static CUfunction f_copy, f_fill;
static int mod_ready;

/* The two kernels into the context, once: PTX made at build time from
 * pack.cu (the back end compiles nothing); the driver finishes it for the
 * device and keeps the result in its own cache. */
static int load_module(char *err, size_t errlen) {
  if (__atomic_load_n(&mod_ready, __ATOMIC_ACQUIRE)) return 0;
  pthread_mutex_lock(&sk_cuda_lock);
  int rc = 0;
  if (!mod_ready) {
    CUmodule m;
    CUresult r = sk_cu->cuModuleLoadData(&m, sk_pack_ptx);
    if (!r) r = sk_cu->cuModuleGetFunction(&f_copy, m, "sk_pack_copy");
    if (!r) r = sk_cu->cuModuleGetFunction(&f_fill, m, "sk_pack_fill");
    if (r) {
      rc = sk_cuda_fail(r, "loading the deep_copy kernels", NULL, err, errlen);
    } else {
      mod = m;
      __atomic_store_n(&mod_ready, 1, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&sk_cuda_lock);
  return rc;
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
  if (d->es == 16) { /* complex128: each part as an 8-byte element (halves) */
    d->es = 8;
    for (int k = 0; k < d->rank; k++) d->ds[k] *= 2, d->ss[k] *= 2;
  }
}

static int run(CUfunction f, void **params, int64_t n, char *err, size_t errlen) {
  int block = 256;
  int64_t g = (n + block - 1) / block, cap = (int64_t)sk_cuda.sms * 16;
  if (g > cap) g = cap;
  if (g < 1) g = 1;
  sk_cuda_inst_drain(); /* deep_copy follows every instance's work */
  pthread_mutex_lock(&sk_cuda_launch_lock);
  CUresult rc = sk_cu->cuLaunchKernel(f, (unsigned)g, 1, 1, (unsigned)block, 1, 1, 0,
                                      sk_cuda.stream, params, NULL);
  if (!rc) sk_cuda_set_last("deep_copy");
  pthread_mutex_unlock(&sk_cuda_launch_lock);
  if (rc) return sk_cuda_fail(rc, "deep_copy kernel", "deep_copy", err, errlen);
  return sk_cuda_sync("deep_copy", err, errlen);
}

int sk_cuda_copy_view(const sk_view *dst, const sk_view *src, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0 || load_module(err, errlen) < 0) return -1;
  pack_desc d;
  describe(&d, dst, src);
  if (d.n == 0) return 0;
  void *dp = dst->data;
  const void *sp = src->data;
  void *params[] = {&dp, &sp, &d};
  int halves = sk_dtypes[dst->dtype].size == 16 ? 2 : 1;
  for (int h = 0; h < halves; h++) {
    dp = (char *)dst->data + 8 * h;
    sp = (const char *)src->data + 8 * h;
    if (run(f_copy, params, d.n, err, errlen) < 0) return -1;
  }
  return 0;
}

int sk_cuda_fill_view(const sk_view *v, const void *cell, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0 || load_module(err, errlen) < 0) return -1;
  pack_desc d;
  describe(&d, v, NULL);
  if (d.n == 0) return 0;
  unsigned long long c = 0;
  void *dp = v->data;
  void *params[] = {&dp, &d, &c};
  int halves = sk_dtypes[v->dtype].size == 16 ? 2 : 1;
  for (int h = 0; h < halves; h++) { /* complex128: the real, then the imaginary parts */
    memcpy(&c, (const char *)cell + 8 * h, (size_t)d.es);
    dp = (char *)v->data + 8 * h;
    if (run(f_fill, params, d.n, err, errlen) < 0) return -1;
  }
  return 0;
}
