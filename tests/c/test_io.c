/* test_io.c: io/ without Lua: the progress rate limit (no report before
 * the delay, at most one per interval, a last one only when one was made)
 * and .npy files written and read back through sk_npy_* (header bytes,
 * alignment, every dtype, C and Fortran order, errors without a leak).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

/* -- progress ------------------------------------------------------------- */
static int reports, finals;
static double last_done, last_total;

static void hook(const char *what, double done, double total, double elapsed,
                 int finished) {
  (void)what;
  (void)elapsed;
  reports++;
  finals += finished;
  last_done = done;
  last_total = total;
}

static void test_progress(void) {
  sk_progress p;
  sk_progress_set_hook(hook);
  /* the default delay (0.5 s): a quick operation never reports */
  sk_progress_begin(&p, "quick", 100);
  for (int i = 0; i < 1000; i++) sk_progress_step(&p, i);
  sk_progress_end(&p);
  CHECK(reports == 0 && finals == 0);
  /* no delay, a long interval: one report, then the final one */
  sk_progress_set_timing(0, 60);
  sk_progress_begin(&p, "slow", 100);
  for (int i = 1; i <= 1000; i++) sk_progress_step(&p, i / 10.0);
  CHECK(reports == 1 && finals == 0);
  sk_progress_end(&p);
  CHECK(reports == 2 && finals == 1 && last_done == 100 && last_total == 100);
  /* no interval: every step reports */
  reports = finals = 0;
  sk_progress_set_timing(-1, 0); /* negative: keep the delay */
  double d, iv;
  sk_progress_get_timing(&d, &iv);
  CHECK(d == 0 && iv == 0);
  sk_progress_begin(&p, "every", 10);
  for (int i = 1; i <= 10; i++) sk_progress_step(&p, i);
  sk_progress_end(&p);
  CHECK(reports == 11 && finals == 1);
  /* no hook: nothing */
  sk_progress_set_hook(NULL);
  reports = 0;
  sk_progress_begin(&p, "none", 10);
  sk_progress_step(&p, 5);
  sk_progress_end(&p);
  CHECK(reports == 0);
  sk_progress_set_timing(0.5, 0.1);
}

/* -- npy ---------------------------------------------------------------------- */
static void test_npy(void) {
  char path[] = "/tmp/speck-test-io-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  char err[512];
  double a[12];
  for (int i = 0; i < 12; i++) a[i] = i * 0.5;
  int64_t ext[2] = {3, 4};
  for (int layout = SK_RIGHT; layout <= SK_LEFT; layout++) {
    sk_view v, w;
    memset(&w, 0, sizeof w);
    CHECK(sk_view_create(&v, "a", SK_F64, 2, ext, layout, SK_SPACE_HOST, 0, a, err,
                         sizeof err) == 0);
    CHECK(sk_npy_save(path, &v, err, sizeof err) == 0);
    FILE *f = fopen(path, "rb");
    char head[128];
    size_t n = fread(head, 1, sizeof head, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    CHECK(n == 128 && size == 128 + 96 && memcmp(head, "\x93NUMPY\x01\x00", 8) == 0);
    CHECK(head[8] == 118 && head[9] == 0 && head[127] == '\n');
    const char *want = layout == SK_RIGHT
                         ? "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }"
                         : "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }";
    CHECK(memcmp(head + 10, want, strlen(want)) == 0);
    CHECK(sk_npy_load(&w, path, SK_SPACE_HOST, -1, NULL, err, sizeof err) == 0);
    CHECK(w.layout == layout && w.rank == 2 && w.extent[0] == 3 && w.extent[1] == 4);
    CHECK(strcmp(w.label, path) == 0);
    CHECK(memcmp(w.data, a, sizeof a) == 0);
    sk_view_release(&w);
    sk_view_release(&v);
  }
  /* every dtype round trips */
  unsigned char bytes[64];
  for (int i = 0; i < 64; i++) bytes[i] = (unsigned char)(i * 37 % 2 ? 1 : 0);
  for (int t = 0; t < SK_NDTYPE; t++) {
    int64_t e = 64 / (int64_t)sk_dtypes[t].size;
    sk_view v, w;
    memset(&w, 0, sizeof w);
    CHECK(sk_view_create(&v, "b", t, 1, &e, SK_RIGHT, SK_SPACE_HOST, 0, bytes, err,
                         sizeof err) == 0);
    CHECK(sk_npy_save(path, &v, err, sizeof err) == 0);
    CHECK(sk_npy_load(&w, path, SK_SPACE_HOST, -1, "b", err, sizeof err) == 0);
    CHECK(w.dtype == t && w.extent[0] == e && memcmp(w.data, bytes, 64) == 0);
    sk_view_release(&w);
    sk_view_release(&v);
  }
  /* a truncated file: an error, and 'out' stays empty */
  FILE *f = fopen(path, "r+b");
  CHECK(f && ftruncate(fileno(f), 100) == 0);
  fclose(f);
  sk_view w;
  memset(&w, 0, sizeof w);
  CHECK(sk_npy_load(&w, path, SK_SPACE_HOST, -1, NULL, err, sizeof err) < 0);
  CHECK(w.alloc == NULL && w.data == NULL);
  CHECK(strstr(err, "truncated") != NULL);
  remove(path);
  CHECK(sk_npy_load(&w, path, SK_SPACE_HOST, -1, NULL, err, sizeof err) < 0);
  CHECK(strcmp(err, "cannot open: No such file or directory") == 0);
}

int main(void) {
  test_progress();
  test_npy();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
