/* test_cuda_threads.c: the boundary between the JIT and the CUDA back end,
 * and launches from two threads.
 *
 * Everywhere libnvrtc loads: a CUDA kernel spec becomes an image (no host
 * entry, PTX for the default architecture when none is given, a cubin
 * for an architecture NVRTC knows, the launch facts) without any device,
 * and the back end's 'load' / 'unload' copy and free it, also without a
 * device. With a device: the kernels run through the back-end table
 * alone (alloc, load, launch), and two threads launch reductions at once,
 * each checking every result exactly (the kept scratch and the pinned
 * result buffer are shared by all launches: a race shows as a wrong sum).
 * Prints 'N passed, M failed' last; without NVRTC nothing is counted.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "backends/cuda/cuda_int.h" /* its spaces' ids */

extern const sk_backend sk_backend_cuda;
#include "backends/cuda/nvrtc.h"

static int passed, failed;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

#define CHECK(c) \
  do { \
    pthread_mutex_lock(&count_lock); \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
    pthread_mutex_unlock(&count_lock); \
  } while (0)

static const sk_backend *cuda = &sk_backend_cuda;
static sk_capture xcap;
static sk_reducer sum64;

/* a range kernel spec over view 'x' (int64, rank 1, cuda memory) */
static sk_kspec spec(const char *label, const char *body, int pattern, const char *arch) {
  sk_kspec s;
  memset(&s, 0, sizeof s);
  s.label = label;
  s.body = body;
  s.body_len = strlen(body);
  s.pattern = pattern;
  s.policy_kind = SK_POL_RANGE;
  s.ncap = 1;
  s.caps = &xcap;
  if (pattern == SK_REDUCE) {
    s.nred = 1;
    s.reds = &sum64;
  }
  s.target = "cuda";
  s.gen = sk_jit_target_find("cuda");
  s.arch = arch;
  return s;
}

/* -- images: no device needed ------------------------------------------- */
static void test_images(void) {
  char err[4096];
  sk_kernel *k = NULL;
  sk_kspec s = spec("img_for", "x(i) = 3 * i;", SK_FOR, NULL);
  CHECK(sk_jit_get(&s, &k, err, sizeof err) == 0);
  if (!k) {
    printf("%s\n", err);
    return;
  }
  CHECK(k->image != NULL && k->fn == NULL && k->tier == SK_TIER_IMAGE);
  CHECK(k->image->size > 0 && !k->image->is_binary);
  CHECK(strncmp(k->image->arch, "compute_", 8) == 0);
  CHECK(k->image->data[k->image->size - 1] == '\0'); /* PTX ends in NUL */
  CHECK(k->image->pattern == SK_FOR && k->image->nargs == 1);
  CHECK(!k->image->host_visible);
  /* the same spec for an architecture: another kernel, a cubin */
  sk_kernel *k2 = NULL;
  s = spec("img_for", "x(i) = 3 * i;", SK_FOR, "sm_80");
  CHECK(sk_jit_get(&s, &k2, err, sizeof err) == 0);
  CHECK(k2 && k2 != k && k2->image && k2->image->is_binary &&
        strcmp(k2->image->arch, "sm_80") == 0);
  /* an architecture NVRTC does not know: PTX for the newest below it */
  sk_kernel *k3 = NULL;
  s = spec("img_for", "x(i) = 3 * i;", SK_FOR, "sm_999");
  CHECK(sk_jit_get(&s, &k3, err, sizeof err) == 0);
  CHECK(k3 && k3->image && !k3->image->is_binary &&
        strncmp(k3->image->arch, "compute_", 8) == 0);
  /* a reduction: the host half of the accumulator comes with it */
  sk_kernel *kr = NULL;
  s = spec("img_sum", "acc += x(i);", SK_REDUCE, NULL);
  CHECK(sk_jit_get(&s, &kr, err, sizeof err) == 0);
  CHECK(kr && kr->image && kr->init && kr->join && kr->acc_size == 8);
  /* a compile error names the body's line */
  sk_kernel *kb = NULL;
  s = spec("img_bad", "x(i) = nope;", SK_FOR, NULL);
  CHECK(sk_jit_get(&s, &kb, err, sizeof err) < 0);
  CHECK(strstr(err, "body line 1") != NULL);
  /* load copies the image (no device touched), unload frees the copy */
  void *d = cuda->load(k->image, "img_for", err, sizeof err);
  CHECK(d != NULL);
  cuda->unload(d);
}

/* -- launches from two threads (a device) ------------------------------- */
typedef struct worker {
  sk_kernel *k;
  void *dev;
  int64_t *x;
  int64_t n0;
  int reps;
} worker;

static int reduce(worker *w, int64_t n, int64_t *out, char *err, size_t errlen) {
  sk_slot a;
  memset(&a, 0, sizeof a);
  a.v.data = w->x;
  a.v.extent[0] = n;
  a.v.stride[0] = 1;
  a.v.rank = 1;
  sk_policy p;
  memset(&p, 0, sizeof p);
  p.kind = SK_POL_RANGE;
  p.end = n;
  sk_launch l;
  memset(&l, 0, sizeof l);
  _Alignas(64) char result[64];
  l.label = "sum";
  l.pattern = SK_REDUCE;
  l.policy = &p;
  l.fn = w->dev;
  l.init = w->k->init;
  l.join = w->k->join;
  l.acc_size = w->k->acc_size;
  l.args = &a;
  l.nargs = 1;
  l.result = result;
  if (sk_policy_launch(cuda, &l, err, errlen) < 0) return -1;
  memcpy(out, result, sizeof *out);
  return 0;
}

static void *work(void *arg) {
  worker *w = arg;
  char err[1024];
  int bad = 0;
  for (int r = 0; r < w->reps; r++) {
    int64_t n = w->n0 + 977 * r, got = -1;
    if (reduce(w, n, &got, err, sizeof err) < 0) {
      printf("launch failed: %s\n", err);
      bad++;
      break;
    }
    if (got != n * (n - 1) / 2) bad++;
  }
  CHECK(bad == 0);
  return NULL;
}

static void test_threads(void) {
  char err[1024], arch[24];
  if (cuda->init(0, 0, err, sizeof err) < 0) {
    printf("cuda init: %s\n", err);
    CHECK(0);
    return;
  }
  CHECK(cuda->arch(arch, sizeof arch) && strncmp(arch, "sm_", 3) == 0);
  const int64_t N = 1 << 22;
  int64_t *x = cuda->alloc(N * sizeof *x, SK_SPACE_CUDA, err, sizeof err);
  CHECK(x != NULL);
  if (!x) return;
  sk_kernel *kf = NULL, *ks = NULL;
  sk_kspec s = spec("iota", "x(i) = i;", SK_FOR, arch);
  CHECK(sk_jit_get(&s, &kf, err, sizeof err) == 0);
  s = spec("sum", "acc += x(i);", SK_REDUCE, arch);
  CHECK(sk_jit_get(&s, &ks, err, sizeof err) == 0);
  if (!kf || !ks) return;
  CHECK(kf->image->is_binary); /* a cubin for the device when NVRTC knows it */
  void *df = cuda->load(kf->image, "iota", err, sizeof err);
  void *ds = cuda->load(ks->image, "sum", err, sizeof err);
  CHECK(df && ds);
  /* fill x through the table */
  sk_slot a;
  memset(&a, 0, sizeof a);
  a.v.data = x;
  a.v.extent[0] = N;
  a.v.stride[0] = 1;
  a.v.rank = 1;
  sk_policy p;
  memset(&p, 0, sizeof p);
  p.kind = SK_POL_RANGE;
  p.end = N;
  sk_launch l;
  memset(&l, 0, sizeof l);
  l.label = "iota";
  l.pattern = SK_FOR;
  l.policy = &p;
  l.fn = df;
  l.args = &a;
  l.nargs = 1;
  CHECK(sk_policy_launch(cuda, &l, err, sizeof err) == 0);
  CHECK(cuda->fence(err, sizeof err) == 0);
  /* two threads, reductions of different lengths, interleaved */
  worker w[2] = {{ks, ds, x, 1000, 200}, {ks, ds, x, 3000000, 200}};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, work, &w[0]) == 0);
  work(&w[1]);
  pthread_join(t, NULL);
  cuda->unload(df);
  cuda->unload(ds);
  cuda->free(x, SK_SPACE_CUDA);
}

int main(void) {
  const char *dir = getenv("SPECK_TCC_LIBDIR");
  sk_tcc_set_libdir(dir ? dir : "build/lib/speck/tcc");
  memset(&xcap, 0, sizeof xcap);
  xcap.name = "x";
  xcap.kind = SK_CAP_VIEW;
  xcap.dtype = SK_I64;
  xcap.rank = 1;
  xcap.layout = SK_LEFT;
  xcap.space = SK_SPACE_CUDA;
  memset(&sum64, 0, sizeof sum64);
  sum64.op = SK_RED_SUM;
  sum64.dtype = SK_I64;
  char why[1600];
  if (!sk_nvrtc_status(why, sizeof why)) {
    printf("skipped: %s\n0 passed, 0 failed\n", why);
    return 0;
  }
  test_images();
  if (cuda->available(why, sizeof why)) test_threads();
  else printf("no device (%s): launches skipped\n", why);
  sk_cache_clear();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
