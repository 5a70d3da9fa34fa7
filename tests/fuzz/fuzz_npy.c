/* fuzz_npy.c: libFuzzer harness of the .npy reader (io/npy.c).
 *
 * The input is the file. It is loaded twice -- in the file's own layout
 * and in the other one (the reorder path through a host view and a
 * deep_copy) -- and must either fail with a message or give a view whose
 * extents need exactly the data the file holds after its header. A view
 * that loaded is saved again and reloaded: the same dtype, extents and
 * bytes must come back. (The reader must also refuse, before allocating,
 * a shape the file has no data for: a harness run under ASan with its
 * default allocation cap would report a large allocation otherwise.)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../io/io.h"

static char path[256], path2[300];

static void fail(const char *what) {
  fprintf(stderr, "fuzz_npy: %s\n", what);
  abort();
}

static void cleanup(void) {
  unlink(path);
  unlink(path2);
}

static void setup(void) {
  const char *d = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/speck-fuzz-npy-%d.npy", d, (int)getpid());
  snprintf(path2, sizeof path2, "%s.again.npy", path);
  atexit(cleanup);
}

static int same_view(const sk_view *a, const sk_view *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return 0;
  for (int d = 0; d < a->rank; d++)
    if (a->extent[d] != b->extent[d]) return 0;
  int64_t n = sk_view_size(a);
  size_t es = sk_dtypes[a->dtype].size;
  if (a->layout == b->layout && sk_view_contiguous(a) && sk_view_contiguous(b))
    return n == 0 || memcmp(a->data, b->data, (size_t)n * es) == 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  if (!ready) {
    setup();
    ready = 1;
  }
  FILE *f = fopen(path, "wb");
  if (!f) fail("cannot write the input file");
  if (size && fwrite(data, 1, size, f) != size) fail("short write");
  fclose(f);
  for (int pass = 0; pass < 2; pass++) {
    sk_view v;
    char err[1024];
    memset(&v, 0, sizeof v);
    err[0] = '\0';
    int layout = pass == 0 ? -1 : -2;
    if (pass == 1) {
      /* the layout the file does not have: learn it from pass 0's view */
      sk_view probe;
      memset(&probe, 0, sizeof probe);
      if (sk_npy_load(&probe, path, SK_SPACE_HOST, -1, "probe", err, sizeof err) < 0)
        break;
      layout = probe.layout == SK_LEFT ? SK_RIGHT : SK_LEFT;
      sk_view_release(&probe);
    }
    int rc = sk_npy_load(&v, path, SK_SPACE_HOST, layout, "fz", err, sizeof err);
    if (rc < 0) {
      if (!err[0] || !memchr(err, '\0', sizeof err)) fail("refused without a message");
      if (v.alloc || v.data) fail("a failed load left a view");
      continue;
    }
    /* the data the view holds came from the file */
    int64_t n = sk_view_size(&v);
    size_t bytes = (size_t)n * sk_dtypes[v.dtype].size;
    if (n < 0 || bytes > size) fail("a view larger than the file");
    /* save and load again: the same view */
    if (sk_npy_save(path2, &v, err, sizeof err) < 0) fail(err);
    sk_view w;
    memset(&w, 0, sizeof w);
    if (sk_npy_load(&w, path2, SK_SPACE_HOST, v.layout, "fz2", err, sizeof err) < 0)
      fail(err);
    if (!same_view(&v, &w)) fail("save and load changed the view");
    sk_view_release(&w);
    sk_view_release(&v);
  }
  return 0;
}
