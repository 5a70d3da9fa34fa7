/* peer.c: raw CUDA driver API peers for scripts/bench/gpu: an empty
 * kernel launched with cuLaunchKernel, and the nvcc-built 3D stencil
 * (stencil.cubin). Prints "RESULT name value" lines (seconds).
 *   peer empty LAUNCHES CUBIN     peer stencil N REPS CUBIN */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef void *CUctx, *CUmod, *CUfn, *CUev;
typedef unsigned long long CUdp;
#define F(name, ...) static CUresult (*name)(__VA_ARGS__)
F(cuInit, unsigned);
F(cuDeviceGet, int *, int);
F(cuDevicePrimaryCtxRetain, CUctx *, int);
F(cuCtxSetCurrent, CUctx);
F(cuModuleLoad, CUmod *, const char *);
F(cuModuleGetFunction, CUfn *, CUmod, const char *);
F(cuLaunchKernel, CUfn, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
  unsigned, void *, void **, void **);
F(cuCtxSynchronize, void);
F(cuMemAlloc_v2, CUdp *, size_t);
F(cuMemsetD8_v2, CUdp, unsigned char, size_t);
F(cuEventCreate, CUev *, unsigned);
F(cuEventRecord, CUev, void *);
F(cuEventSynchronize, CUev);
F(cuEventElapsedTime, float *, CUev, CUev);

#define CK(x) \
  do { \
    CUresult r_ = (x); \
    if (r_) { \
      fprintf(stderr, "%s: %d\n", #x, r_); \
      exit(1); \
    } \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) {
    fprintf(stderr, "no libcuda\n");
    return 1;
  }
#define L(name) *(void **)&name = dlsym(h, #name)
  L(cuInit);
  L(cuDeviceGet);
  L(cuDevicePrimaryCtxRetain);
  L(cuCtxSetCurrent);
  L(cuModuleLoad);
  L(cuModuleGetFunction);
  L(cuLaunchKernel);
  L(cuCtxSynchronize);
  L(cuMemAlloc_v2);
  L(cuMemsetD8_v2);
  L(cuEventCreate);
  L(cuEventRecord);
  L(cuEventSynchronize);
  L(cuEventElapsedTime);
  int dev;
  CUctx ctx;
  CUmod mod;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoad(&mod, argv[argc - 1]));
  if (strcmp(argv[1], "empty") == 0) {
    int n = atoi(argv[2]);
    CUfn f;
    CK(cuModuleGetFunction(&f, mod, "empty"));
    for (int i = 0; i < 100; i++)
      CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, NULL, NULL));
    CK(cuCtxSynchronize());
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
      double t0 = now();
      for (int i = 0; i < n; i++)
        CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, NULL, NULL));
      CK(cuCtxSynchronize());
      double t = (now() - t0) / n;
      if (t < best) best = t;
    }
    printf("RESULT raw_empty %.9g\n", best);
  } else {
    long n = atol(argv[2]);
    int reps = atoi(argv[3]);
    CUfn f;
    CK(cuModuleGetFunction(&f, mod, "stencil7"));
    CUdp in, out;
    size_t bytes = (size_t)n * n * n * 8;
    CK(cuMemAlloc_v2(&in, bytes));
    CK(cuMemAlloc_v2(&out, bytes));
    CK(cuMemsetD8_v2(in, 1, bytes));
    void *args[] = {&in, &out, &n};
    unsigned bx = 32, by = 8, bz = 1;
    unsigned gx = (n - 2 + bx - 1) / bx, gy = (n - 2 + by - 1) / by,
             gz = (n - 2 + bz - 1) / bz;
    CUev e0, e1;
    CK(cuEventCreate(&e0, 0));
    CK(cuEventCreate(&e1, 0));
    double ts[64];
    for (int r = -2; r < reps; r++) {
      CK(cuEventRecord(e0, 0));
      CK(cuLaunchKernel(f, gx, gy, gz, bx, by, bz, 0, 0, args, NULL));
      CK(cuEventRecord(e1, 0));
      CK(cuEventSynchronize(e1));
      float ms;
      CK(cuEventElapsedTime(&ms, e0, e1));
      if (r >= 0) ts[r] = ms * 1e-3;
    }
    qsort(ts, reps, sizeof ts[0], cmp);
    printf("RESULT nvcc_stencil %.9g\n", ts[reps / 2]);
  }
  return 0;
}
