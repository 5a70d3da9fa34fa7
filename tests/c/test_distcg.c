/* test_distcg.c: speck.dist's fused CG bodies (kernels/dist/cg.sk, run by
 * kernels/dist/cg.c) compile for the GPU back end where libnvrtc loads
 * (each body's first signature), so the one text serves every back end;
 * the CG itself runs under mpirun in tests/dist/dist_test.lua.
 * Last line: 'N passed, M failed'.
 */
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "backends/cuda/nvrtc.h"

static int passed, failed;

int main(void) {
  char why[256], err[8192];
  const sk_backend *cu = sk_backend_find("cuda");
  if (!cu || !sk_nvrtc_status(why, sizeof why)) {
    printf("nvrtc compile checks skipped: %s\n", cu ? why : "no cuda back end");
    printf("%d passed, %d failed\n", passed, failed);
    return 0;
  }
  int n = 0;
  for (int i = 0;; i++) {
    const sk_kbody *kb = sk_kbody_at(i);
    if (!kb) break;
    if (strncmp(kb->label, "dist.", 5) != 0 || !kb->sigs) continue;
    if (sk_kbody_compile(kb, 0, cu, err, sizeof err) == 0) {
      passed++;
    } else {
      failed++;
      printf("FAIL NVRTC: %s: %s\n", kb->label, err);
    }
    n++;
  }
  /* (the compact index's reach and build are kernels/sparse/csr16.c's) */
  if (n < 13) {
    failed++;
    printf("FAIL: %d dist bodies found, expected the 9 of kernels/dist/cg.c and the 4 of bfs.c\n", n);
  }
  printf("nvrtc: %d dist bodies compiled for the GPU back end\n", n);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
