/* cuda.c: the CUDA back end. libcuda and libnvrtc are opened with dlopen
 * on first use, so speck builds and runs without them; when they are
 * missing the back end reports why and every entry fails cleanly. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../backend.h"

static int cuda_available(char *why, size_t n) {
  void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    snprintf(why, n, "libcuda.so.1 not found (no NVIDIA driver)");
    return 0;
  }
  dlclose(h);
  snprintf(why, n, "the CUDA back end is not built into this speck");
  return 0;
}

static int cuda_init(int threads, int device, char *err, size_t errlen) {
  (void)threads;
  (void)device;
  cuda_available(err, errlen);
  return -1;
}

static void cuda_finalize(void) {}
static int cuda_concurrency(void) { return 1; }

static void *cuda_alloc(size_t bytes, int space, char *err, size_t errlen) {
  (void)bytes;
  snprintf(err, errlen, "space '%s' is not available", sk_space_name(space));
  return NULL;
}

static void cuda_free(void *p, int space) {
  (void)p;
  (void)space;
}

static int cuda_copy(void *dst, int dspace, const void *src, int sspace,
                     size_t bytes, char *err, size_t errlen) {
  (void)dst; (void)src; (void)bytes;
  snprintf(err, errlen, "cannot copy %s -> %s: cuda is not available",
           sk_space_name(sspace), sk_space_name(dspace));
  return -1;
}

static void cuda_first_touch(void *p, size_t bytes) {
  (void)p;
  (void)bytes;
}

static int cuda_fence(char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  return 0;
}

static int cuda_launch(const sk_launch *l, char *err, size_t errlen) {
  (void)l;
  cuda_available(err, errlen);
  return -1;
}

static void cuda_info(char *buf, size_t n) {
  char why[256];
  cuda_available(why, sizeof why);
  snprintf(buf, n, "cuda: not available (%s)", why);
}

static void cuda_team_limits(sk_team_limits *lim) {
  lim->team_size_max = 1024;
  lim->team_size_recommended = 128;
  lim->vector_length_max = 32;
  lim->scratch_max[0] = 48 << 10;
  lim->scratch_max[1] = 1LL << 30;
}

const sk_backend sk_backend_cuda = {
  .name = "cuda",
  .space = SK_SPACE_CUDA,
  .init = cuda_init,
  .finalize = cuda_finalize,
  .available = cuda_available,
  .concurrency = cuda_concurrency,
  .alloc = cuda_alloc,
  .free = cuda_free,
  .copy = cuda_copy,
  .first_touch = cuda_first_touch,
  .fence = cuda_fence,
  .launch_range = cuda_launch,
  .launch_mdrange = cuda_launch,
  .launch_team = cuda_launch,
  .launch_reduce = cuda_launch,
  .launch_scan = cuda_launch,
  .info = cuda_info,
  .team_limits = cuda_team_limits,
};
