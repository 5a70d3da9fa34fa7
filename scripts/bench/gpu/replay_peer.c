/* replay_peer.c: the raw driver-API peers of scripts/bench/gpu/replay.lua:
 * a sequence of K empty kernels launched with cuLaunchKernel in a loop,
 * and the same K launches captured once into a graph and replayed with
 * cuGraphLaunch, both on a non-blocking stream as speck's. The kernel is
 * PTX text (no nvcc needed); libcuda is opened at run time, as speck does.
 * Prints "RESULT name seconds-per-kernel" lines (best of 5 rounds).
 *   replay_peer K ROUNDS_PER_MEASURE */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int CUresult;
typedef void *CUctx, *CUmod, *CUfn, *CUstream, *CUgraph, *CUgraphExec;
#define F(name, ...) static CUresult (*name)(__VA_ARGS__)
F(cuInit, unsigned);
F(cuDeviceGet, int *, int);
F(cuDevicePrimaryCtxRetain, CUctx *, int);
F(cuCtxSetCurrent, CUctx);
F(cuModuleLoadData, CUmod *, const void *);
F(cuModuleGetFunction, CUfn *, CUmod, const char *);
F(cuStreamCreate, CUstream *, unsigned);
F(cuStreamSynchronize, CUstream);
F(cuLaunchKernel, CUfn, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
  unsigned, CUstream, void **, void **);
F(cuStreamBeginCapture_v2, CUstream, int);
F(cuStreamEndCapture, CUstream, CUgraph *);
F(cuGraphInstantiateWithFlags, CUgraphExec *, CUgraph, unsigned long long);
F(cuGraphLaunch, CUgraphExec, CUstream);

#define CK(x) \
  do { \
    CUresult r_ = (x); \
    if (r_) { \
      fprintf(stderr, "%s: %d\n", #x, r_); \
      exit(1); \
    } \
  } while (0)

static const char ptx[] = ".version 7.0\n.target sm_52\n.address_size 64\n"
                          ".visible .entry empty()\n{\n ret;\n}\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  int K = argc > 1 ? atoi(argv[1]) : 100, R = argc > 2 ? atoi(argv[2]) : 200;
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
  L(cuModuleLoadData);
  L(cuModuleGetFunction);
  L(cuStreamCreate);
  L(cuStreamSynchronize);
  L(cuLaunchKernel);
  L(cuStreamBeginCapture_v2);
  L(cuStreamEndCapture);
  L(cuGraphInstantiateWithFlags);
  L(cuGraphLaunch);
  int dev;
  CUctx ctx;
  CUmod mod;
  CUfn f;
  CUstream s;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&mod, ptx));
  CK(cuModuleGetFunction(&f, mod, "empty"));
  CK(cuStreamCreate(&s, 1));
  /* the raw loop: K launches, R times, then waited for */
  double best = 1e9;
  for (int round = 0; round < 6; round++) {
    double t0 = now();
    for (int r = 0; r < R; r++)
      for (int i = 0; i < K; i++) CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
    CK(cuStreamSynchronize(s));
    double t = (now() - t0) / ((double)R * K);
    if (round > 0 && t < best) best = t; /* round 0 warms up */
  }
  printf("RESULT raw_launch_loop %.9g\n", best);
  /* the same K launches as one graph, replayed R times */
  CUgraph g;
  CUgraphExec x;
  CK(cuStreamBeginCapture_v2(s, 2));
  for (int i = 0; i < K; i++) CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
  CK(cuStreamEndCapture(s, &g));
  CK(cuGraphInstantiateWithFlags(&x, g, 0));
  best = 1e9;
  for (int round = 0; round < 6; round++) {
    double t0 = now();
    for (int r = 0; r < R; r++) CK(cuGraphLaunch(x, s));
    CK(cuStreamSynchronize(s));
    double t = (now() - t0) / ((double)R * K);
    if (round > 0 && t < best) best = t;
  }
  printf("RESULT raw_graph_replay %.9g\n", best);
  return 0;
}
