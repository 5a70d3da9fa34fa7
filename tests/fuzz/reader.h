/* reader.h: what the file-reader harnesses share (fuzz_mm.c, fuzz_edges.c):
 * the input written to a scratch file, the library's entry called on it
 * through the registry as speck.sparse / speck.graph do, an empty
 * precompiled table for the build without one (build-fuzz links the
 * library without its precompiled kernels; the replay test's library has
 * the real table, which these weak ones then stand in for). */
#ifndef FUZZ_READER_H
#define FUZZ_READER_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kernels/kernels.h"

__attribute__((weak)) const sk_kpre sk_kpre_table[1];
__attribute__((weak)) const int sk_kpre_count = 0;
__attribute__((weak)) int sk_kpre_cpu_ok(void) { return 0; }

static char reader_path[256];

static void reader_fail(const char *what) {
  fprintf(stderr, "fuzz reader: %s\n", what);
  abort();
}

static void reader_cleanup(void) { unlink(reader_path); }

/* write the input to the scratch file (serial back end, once) */
static void reader_input(const char *name, const uint8_t *data, size_t size) {
  if (!reader_path[0]) {
    const char *d = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(reader_path, sizeof reader_path, "%s/speck-fuzz-%s-%d", d, name,
             (int)getpid());
    atexit(reader_cleanup);
    setenv("SPECK_SPACE", "serial", 1);
  }
  FILE *f = fopen(reader_path, "wb");
  if (!f) reader_fail("cannot write the input file");
  if (size && fwrite(data, 1, size, f) != size) reader_fail("short write");
  fclose(f);
}

/* the output view called 'name', NULL when absent */
static const sk_view *reader_out(const sk_kvalue *v, const char *name) {
  for (int i = 0; i < v->nout; i++)
    if (v->out[i].is_view && strcmp(v->out[i].name, name) == 0) return &v->out[i].view;
  return NULL;
}

static double reader_num(const sk_kvalue *v, const char *name) {
  for (int i = 0; i < v->nout; i++)
    if (!v->out[i].is_view && strcmp(v->out[i].name, name) == 0) return v->out[i].num;
  reader_fail("a number output is missing");
  return 0;
}

/* CSR rowptr/colidx of 'n' rows over 'ncols' columns: rowptr starts at 0,
 * never decreases, ends at colidx's length; every column in range */
static void reader_check_csr(const sk_view *rp, const sk_view *ci, int64_t n,
                             int64_t ncols) {
  if (!rp || !ci) reader_fail("a CSR output is missing");
  if (rp->rank != 1 || rp->extent[0] != n + 1) reader_fail("rowptr has the wrong length");
  int64_t nnz = ci->extent[0];
  int64_t prev = 0;
  for (int64_t i = 0; i <= n; i++) {
    int64_t r = rp->dtype == SK_I64 ? ((const int64_t *)rp->data)[i]
                                    : ((const int32_t *)rp->data)[i];
    if ((i == 0 && r != 0) || r < prev) reader_fail("rowptr decreases");
    prev = r;
  }
  if (prev != nnz) reader_fail("rowptr does not end at the entry count");
  for (int64_t k = 0; k < nnz; k++) {
    int64_t c = ci->dtype == SK_I64 ? ((const int64_t *)ci->data)[k]
                                    : ((const int32_t *)ci->data)[k];
    if (c < 0 || c >= ncols) reader_fail("a column index out of range");
  }
}

#endif
