/* test_tiers.c: each compiler tier alone, with no kernel, cache or back
 * end: codegen turns a spec into source, and tcc, cc and NVRTC each turn
 * that source into a code object this test runs (host) or inspects
 * (a CUDA image). Only the jit/ headers of those are included. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/codegen.h"
#include "backends/cuda/codegen.h"
#include "backends/cuda/nvrtc.h"
#include "jit/target.h"
#include "jit/tier.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* a reduce spec: acc += x(i) * a over a rank-1 float64 view */
static sk_capture caps[2];
static sk_reducer sum = {SK_RED_SUM, SK_F64, NULL, NULL, 0, 0};

static sk_kspec make_spec(const char *target) {
  caps[0] = (sk_capture){"a", SK_CAP_SCALAR, SK_F64, 0, 0, 0, 0, 0, {0, 0, 0}, 0, 0};
  caps[1] = (sk_capture){"x", SK_CAP_VIEW, SK_F64,    1, SK_RIGHT, SK_SPACE_HOST,
                         0,   0,           {0, 0, 0}, 0, 0};
  sk_kspec s;
  memset(&s, 0, sizeof s);
  s.label = "tier";
  s.body = "acc += a * x(i);";
  s.body_len = strlen(s.body);
  s.pattern = SK_REDUCE;
  s.policy_kind = SK_POL_RANGE;
  s.ncap = 2;
  s.caps = caps;
  s.nred = 1;
  s.reds = &sum;
  s.target = "test";
  s.gen = sk_jit_target_find(target);
  return s;
}

/* run host code 'c' of the spec over x[0..n) with a = 2 */
static double run(const sk_ccode *c) {
  enum { N = 100 };
  static double x[N];
  for (int i = 0; i < N; i++) x[i] = i;
  sk_slot args[2];
  memset(args, 0, sizeof args);
  args[0].f64 = 2.0;
  args[1].v.data = x;
  args[1].v.rank = 1;
  args[1].v.extent[0] = N;
  args[1].v.stride[0] = 1;
  long off[SK_MAXRED];
  long size = ((long (*)(long *))c->layout)(off);
  _Alignas(64) char acc[64];
  if (size > (long)sizeof acc) return -1;
  ((sk_init_fn)c->init)(acc);
  sk_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ((sk_chunk_fn)c->fn)(args, 0, N, acc, &ctx);
  double r;
  memcpy(&r, acc + off[0], sizeof r);
  return r;
}

int main(void) {
  char err[4096];
  sk_kspec s = make_spec(NULL);
  char *src = sk_codegen_host(&s, err, sizeof err);
  CHECK(src != NULL);
  if (!src) {
    printf("%s\n%d passed, %d failed\n", err, passed, failed);
    return 1;
  }

  /* tcc: in memory */
  sk_ccode t;
  CHECK(sk_tcc_build(src, 0, &t, err, sizeof err) == 0);
  CHECK(t.fn && t.init && t.join && t.layout && t.dl);
  if (t.fn) CHECK(run(&t) == 2.0 * 4950);
  sk_tcc_free(t.dl);
  /* a compile error names the body line */
  sk_kspec bad = s;
  bad.body = "acc += nope;";
  bad.body_len = strlen(bad.body);
  char *bsrc = sk_codegen_host(&bad, err, sizeof err);
  CHECK(bsrc && sk_tcc_build(bsrc, 0, &t, err, sizeof err) < 0 &&
        strstr(err, "body line 1") != NULL);
  free(bsrc);

  /* cc: a shared object through the disk cache (private folder) */
  char dir[] = "/tmp/speck-tiers-XXXXXX";
  if (mkdtemp(dir)) setenv("SPECK_CACHE_DIR", dir, 1);
  if (sk_cc_available()) {
    sk_ccode c;
    int rc = sk_cc_build(src, &c, err, sizeof err);
    if (rc) printf("  cc: %s\n", err);
    CHECK(rc == 0 && c.fn && run(&c) == 2.0 * 4950);
    sk_ccode again;
    CHECK(sk_cc_lookup(src, &again) == 1 && again.from_disk);
  } else {
    printf("cc tier not available here: %s\n", sk_cc_why());
  }
  free(src);

  /* nvrtc: a PTX image with its launch facts, no device needed */
  char why[512];
  if (sk_nvrtc_status(why, sizeof why)) {
    sk_kspec g = make_spec("cuda");
    caps[1].space = sk_space_parse("cuda");
    char *csrc = sk_codegen_cuda(&g, err, sizeof err);
    CHECK(csrc != NULL);
    sk_image *img = NULL;
    int from_disk = -1;
    int rc = csrc ? sk_nvrtc_build(&g, csrc, &img, &from_disk, err, sizeof err) : -1;
    if (rc) printf("  nvrtc: %s\n", err);
    CHECK(rc == 0 && img && img->size > 0 && !img->is_binary);
    if (img) {
      CHECK(strstr(img->data, ".entry") != NULL);
      CHECK(img->pattern == SK_REDUCE && img->nargs == 2 && !img->host_visible);
      CHECK(from_disk == 0);
      sk_image_free(img);
    }
    /* the second build comes from the disk cache */
    img = NULL;
    CHECK(csrc && sk_nvrtc_build(&g, csrc, &img, &from_disk, err, sizeof err) == 0 &&
          from_disk == 1);
    sk_image_free(img);
    free(csrc);
  } else {
    printf("nvrtc tier not available here: %s\n", why);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("could not remove %s\n", dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
