/* test_chol.c: the sparse Cholesky's level-set bodies (kernels/task/
 * chol_ls.sk) compile for every back end: the host's code target, and,
 * where libnvrtc loads, the GPU back end (each body's signature).
 * Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "backends/cuda/nvrtc.h"

static int passed, failed;

#define CHECK(c, ...) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)

static int compile_all(const sk_backend *b) {
  char err[8192];
  int n = 0;
  for (int i = 0;; i++) {
    const sk_kbody *kb = sk_kbody_at(i);
    if (!kb) break;
    if (strncmp(kb->label, "task.chol_ls", 12) != 0 || !kb->sigs) continue;
    int rc = sk_kbody_compile(kb, 0, b, err, sizeof err);
    CHECK(rc == 0, "%s: %s: %s", b->name, kb->label, err);
    n++;
  }
  return n;
}

int main(void) {
  const sk_backend *host = sk_backend_find("serial");
  CHECK(host != NULL, "no serial back end");
  if (host) {
    int n = compile_all(host);
    CHECK(n == 13, "%d level-set bodies found, 13 expected", n);
    printf("serial: %d chol bodies compiled\n", n);
  }
  char why[256];
  const sk_backend *dev = sk_backend_find("cuda");
  if (!dev || !sk_nvrtc_status(why, sizeof why))
    printf("device compile checks skipped: %s\n", dev ? why : "no device back end");
  else printf("device: %d chol bodies compiled\n", compile_all(dev));
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
