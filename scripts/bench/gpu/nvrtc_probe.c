/* nvrtc_probe.c: NVRTC alone, without speck: the time to compile one CUDA
 * source file, so that speck's numbers (nvrtc_time.lua) can be set
 * against NVRTC's own floor on the same machine (an empty kernel) and
 * option changes can be tried on a dumped kernel (SPECK_JIT_DUMP).
 *
 *   cc -O2 -o nvrtc_probe nvrtc_probe.c -ldl
 *   ./nvrtc_probe FILE REPS [NVRTC options...]
 *
 * Each rep compiles FILE with a distinct trailing comment (so nothing can
 * be memoised) and prints the first compile, the fastest of the rest and
 * their median, wall and process CPU time, in milliseconds. libnvrtc: $SPECK_NVRTC_LIB,
 * else /usr/local/cuda/lib64/libnvrtc.so, else libnvrtc.so.
 * PROBE_CUDA=1: first make a CUDA context current (and, =2, allocate some
 * managed memory), as a speck process on a GPU has, to see what that does
 * to NVRTC.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct prog_st *prog;
static int (*create)(prog *, const char *, const char *, int, const char *const *,
                     const char *const *);
static int (*compile)(prog, int, const char *const *);
static int (*destroy)(prog *);
static int (*logsize)(prog, size_t *);
static int (*getlog)(prog, char *);

static double clock_ms(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s FILE REPS [NVRTC options...]\n", argv[0]);
    return 2;
  }
  const char *lib = getenv("SPECK_NVRTC_LIB");
  void *h = dlopen(lib && *lib ? lib : "/usr/local/cuda/lib64/libnvrtc.so", RTLD_NOW);
  if (!h) h = dlopen("libnvrtc.so", RTLD_NOW);
  if (!h) {
    fprintf(stderr, "libnvrtc not found: %s\n", dlerror());
    return 1;
  }
  create = (int (*)(prog *, const char *, const char *, int, const char *const *,
                    const char *const *))dlsym(h, "nvrtcCreateProgram");
  compile = (int (*)(prog, int, const char *const *))dlsym(h, "nvrtcCompileProgram");
  destroy = (int (*)(prog *))dlsym(h, "nvrtcDestroyProgram");
  logsize = (int (*)(prog, size_t *))dlsym(h, "nvrtcGetProgramLogSize");
  getlog = (int (*)(prog, char *))dlsym(h, "nvrtcGetProgramLog");
  char *src = slurp(argv[1]);
  if (!src || !create || !compile || !destroy || !logsize || !getlog) {
    fprintf(stderr, "cannot read %s or NVRTC lacks a symbol\n", argv[1]);
    return 1;
  }
  const char *pc = getenv("PROBE_CUDA");
  if (pc && *pc && *pc != '0') {
    void *cu = dlopen("libcuda.so.1", RTLD_NOW);
    int (*init)(unsigned) = cu ? (int (*)(unsigned))dlsym(cu, "cuInit") : NULL;
    int (*get)(int *, int) = cu ? (int (*)(int *, int))dlsym(cu, "cuDeviceGet") : NULL;
    int (*retain)(void **, int) =
      cu ? (int (*)(void **, int))dlsym(cu, "cuDevicePrimaryCtxRetain") : NULL;
    int (*current)(void *) = cu ? (int (*)(void *))dlsym(cu, "cuCtxSetCurrent") : NULL;
    int (*managed)(unsigned long long *, size_t, unsigned) =
      cu ? (int (*)(unsigned long long *, size_t, unsigned))dlsym(cu, "cuMemAllocManaged")
         : NULL;
    int dev = 0;
    void *ctx = NULL;
    unsigned long long p = 0;
    if (!init || !get || !retain || !current || !managed || init(0) || get(&dev, 0) ||
        retain(&ctx, dev) || current(ctx) || (*pc == '2' && managed(&p, 1 << 20, 1))) {
      fprintf(stderr, "PROBE_CUDA: no CUDA context\n");
      return 1;
    }
  }
  int reps = atoi(argv[2]);
  if (reps < 1) reps = 1;
  double first_w = 0, first_c = 0, best_w = 0, best_c = 0;
  double *rw = calloc((size_t)reps, sizeof *rw), *rc_ = calloc((size_t)reps, sizeof *rc_);
  if (!rw || !rc_) return 1;
  for (int r = 0; r < reps; r++) {
    size_t n = strlen(src) + 64;
    char *s = malloc(n);
    snprintf(s, n, "%s\n// rep %d %ld\n", src, r, (long)time(NULL));
    double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    prog p;
    int rc = create(&p, s, "probe.cu", 0, NULL, NULL);
    if (rc == 0) rc = compile(p, argc - 3, (const char *const *)argv + 3);
    double w = clock_ms(CLOCK_MONOTONIC) - w0,
           c = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc != 0) {
      size_t ls = 0;
      logsize(p, &ls);
      char *log = malloc(ls + 1);
      if (log && getlog(p, log) == 0) fprintf(stderr, "%s\n", log);
      free(log);
      fprintf(stderr, "compile failed (%d)\n", rc);
      return 1;
    }
    destroy(&p);
    free(s);
    if (r > 0) {
      rw[r - 1] = w;
      rc_[r - 1] = c;
    }
    if (r == 0) {
      first_w = w;
      first_c = c;
    } else if (r == 1 || w < best_w) {
      best_w = w;
      best_c = c;
    }
  }
  qsort(rw, (size_t)(reps - 1), sizeof *rw, cmp_double);
  qsort(rc_, (size_t)(reps - 1), sizeof *rc_, cmp_double);
  int m = (reps - 2) / 2;
  printf("%s: first %.1f ms (cpu %.1f), best of %d more %.1f ms (cpu %.1f), median %.1f ms "
         "(cpu %.1f)\n",
         argv[1], first_w, first_c, reps - 1, best_w, best_c, reps > 1 ? rw[m] : 0.0,
         reps > 1 ? rc_[m] : 0.0);
  free(rw);
  free(rc_);
  free(src);
  return 0;
}
