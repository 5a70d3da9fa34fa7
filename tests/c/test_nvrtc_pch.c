/* test_nvrtc_pch.c: the GPU tier hands NVRTC the dialect as in-memory
 * headers with automatic PCH (backends/cuda/nvrtc.c, "the dialect as a precompiled
 * header"): the code it makes must be the code NVRTC makes from the whole
 * generated text with the same options, for every kind of kernel and
 * every form (lean: range and MDRange for; full: reduce, team, an atomic
 * word in a for; linalg), after the warm-up made the PCH, with PCH off
 * (SPECK_NVRTC_PCH=0) and after the process's PCH folder was removed
 * under it; the state goes to a folder of the process's own, and what a
 * dead process left is swept; a body's errors read as before; a process
 * that exits while the warm-up compiles ends cleanly; processes that need
 * the same new kernel at once compile it once. The PTX is compared byte for
 * byte, less the declarations of NVRTC's own atomic helpers' dummy
 * globals (__nv_atomic_triv_cp_helper<T>::__val, one byte each, never
 * used), which a lean kernel has fewer of: the dialect's atomics, left
 * out, are what instantiates them. Needs libnvrtc only (no device);
 * without it the test says so.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/view.h"
#include "backends/cuda/codegen.h"
#include "backends/cuda/nvrtc.h"
#include "backends/cuda/nvrtc_lib.h"
#include "jit/target.h"

static int passed, failed;

#define CHECK(c) \
  do { \
    if (c) passed++; \
    else { \
      failed++; \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    } \
  } while (0)

static sk_capture caps[3];
static sk_reducer sum = {SK_RED_SUM, SK_F64, NULL, NULL, 0, 0};

static sk_capture view(const char *name, int dtype, int rank) {
  return (sk_capture){name, SK_CAP_VIEW, dtype, rank, SK_LEFT, sk_space_parse("cuda"), 0, 0,
                      {0, 0, 0}, 0, 0};
}

/* kind 0 range for, 1 range reduce, 2 team for, 3 linalg.h (serial), 4
 * an undeclared name, 5 MDRange for, 6 an atomic word in a range for */
static sk_kspec make_spec(int kind, const char *label) {
  static const char *const bodies[] = {
    "y(i) = a * x(i) + y(i);",
    "acc += a * x(i);",
    "TEAM_FOR(j, 0, 4) { y(team.league_rank * 4 + j) = a * x(j); }",
    "sk_mat m = matrix(A, i); sk_matf f = matrix(F, i);\n"
    "serial_gemm('N', 'T', 1.0, m, m, 0.0, m);\n"
    "P(i, 0) = serial_lu(f) + serial_getrf(m, &P(i, 0), 1);",
    "y(i) = nope;",
    "y(i + j) = a * x(i);",
    "atomic_add(&y(0), a * x(i));",
  };
  sk_kspec s;
  memset(&s, 0, sizeof s);
  if (kind == 3) {
    caps[0] = view("A", SK_F64, 3);
    caps[1] = view("F", SK_F32, 3);
    caps[2] = view("P", SK_I64, 2);
  } else {
    caps[0] = (sk_capture){"a", SK_CAP_SCALAR, SK_F64, 0, 0, 0, 0, 0, {0, 0, 0}, 0, 0};
    caps[1] = view("x", SK_F64, 1);
    caps[2] = view("y", SK_F64, 1);
  }
  s.label = label;
  s.body = bodies[kind];
  s.body_len = strlen(s.body);
  s.pattern = kind == 1 ? SK_REDUCE : SK_FOR;
  s.policy_kind = kind == 2 ? SK_POL_TEAM : kind == 5 ? SK_POL_MDRANGE : SK_POL_RANGE;
  s.md_rank = kind == 5 ? 2 : 0;
  s.ncap = kind == 1 ? 2 : 3;
  s.caps = caps;
  s.nred = kind == 1 ? 1 : 0;
  s.reds = kind == 1 ? &sum : NULL;
  s.target = "test";
  s.gen = sk_jit_target_find("cuda");
  s.arch = "compute_90";
  return s;
}

/* the PTX NVRTC makes of the whole text with the GPU tier's options
 * (nvrtc.c's BASE_FLAGS and -minimal; kept in step by hand) */
static char *whole(const sk_nvrtc_api *nv, const char *src) {
  nvrtcProgram p;
  if (nv->nvrtcCreateProgram(&p, src, "speck_kernel.cu", 0, NULL, NULL)) return NULL;
  const char *o[] = {"--gpu-architecture=compute_90", "-std=c++17", "--fmad=false", "-w",
                     "-minimal"};
  char *out = NULL;
  size_t n = 0;
  if (nv->nvrtcCompileProgram(p, sk_nvrtc_version() >= 12040 ? 5 : 4, o) == 0 &&
      nv->nvrtcGetPTXSize(p, &n) == 0 && (out = malloc(n)) && nv->nvrtcGetPTX(p, out)) {
    free(out);
    out = NULL;
  }
  nv->nvrtcDestroyProgram(&p);
  return out;
}

/* 'ptx' less its lines that declare the atomic helpers' dummies, in place */
static char *code_of(char *ptx) {
  char *w = ptx;
  for (char *r = ptx; *r;) {
    char *nl = strchr(r, '\n');
    size_t n = nl ? (size_t)(nl - r + 1) : strlen(r);
    int dummy = strncmp(r, ".global .align 1 .u8 ", 21) == 0 &&
                memmem(r, n, "__nv_atomic_triv_cp_helper", 26);
    if (!dummy) {
      memmove(w, r, n);
      w += n;
    }
    r += n;
  }
  *w = '\0';
  return ptx;
}

/* build kernel 'kind' as 'label' through the tier; 1 if its image is the
 * whole text's */
static int same_as_whole(const sk_nvrtc_api *nv, int kind, const char *label) {
  char err[2048];
  sk_kspec s = make_spec(kind, label);
  char *src = sk_codegen_cuda(&s, err, sizeof err);
  sk_image *img = NULL;
  int from_disk = -1, ok = 0;
  if (src && sk_nvrtc_build(&s, src, &img, &from_disk, err, sizeof err) == 0) {
    char *ref = whole(nv, src);
    ok = ref && !img->is_binary && from_disk == 0 &&
         strcmp(code_of(img->data), code_of(ref)) == 0 &&
         strstr(ref, ".entry sk__kernel");
    free(ref);
    sk_image_free(img);
  } else {
    printf("  %s: %s\n", label, src ? err : "no source");
  }
  free(src);
  return ok;
}

/* the process's PCH folder under 'base' (SPECK_NVRTC_PCH_DIR) */
static void pch_folder(const char *base, char *out, size_t n) {
  snprintf(out, n, "%s/%d", base, (int)getpid());
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

int main(void) {
  char why[512];
  const sk_nvrtc_api *nv = sk_nvrtc_load(why, sizeof why);
  if (!nv) {
    printf("nvrtc not available here: %s\n0 passed, 0 failed\n", why);
    return 0;
  }
  /* a process that exits while the warm-up compiles (never closing a
   * runtime: plain exit) ends cleanly, whenever it exits: NVRTC's own exit
   * handlers, registered during its first compile, once tore it down
   * under the thread */
  for (int ms = 0; ms <= 150; ms += 15) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      sk_nvrtc_warm("compute_90");
      usleep((useconds_t)ms * 1000);
      exit(0);
    }
    int st = -1;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }

  /* four processes that need the same new kernel at once compile it once
   * (the others wait for its entry: diskcache.c, compiles in flight) */
  char race[] = "/tmp/speck-nvrtc-race-XXXXXX";
  if (!mkdtemp(race)) return 1;
  setenv("SPECK_CACHE_DIR", race, 1);
  pid_t kids[4];
  for (int k = 0; k < 4; k++) {
    fflush(stdout);
    if ((kids[k] = fork()) == 0) {
      char err[2048];
      sk_kspec s = make_spec(0, "pch_race");
      char *src = sk_codegen_cuda(&s, err, sizeof err);
      sk_image *img = NULL;
      int from_disk = -1;
      int rc = src && sk_nvrtc_build(&s, src, &img, &from_disk, err, sizeof err) == 0;
      _exit(!rc ? 2 : from_disk ? 1 : 0);
    }
  }
  int compiled = 0, loaded = 0;
  for (int k = 0; k < 4; k++) {
    int st = -1;
    if (kids[k] > 0 && waitpid(kids[k], &st, 0) == kids[k] && WIFEXITED(st)) {
      compiled += WEXITSTATUS(st) == 0;
      loaded += WEXITSTATUS(st) == 1;
    }
  }
  CHECK(compiled == 1 && loaded == 3);
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", race);
  if (system(rm) != 0) printf("could not remove %s\n", race);

  char dir[] = "/tmp/speck-nvrtc-pch-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  setenv("SPECK_CACHE_DIR", dir, 1);
  /* the PCH state in a folder of the test's: a folder a dead process
   * left there (no process has id 2^30) is swept at the first compile */
  char base[128], mine[160], dead[160], cmd[512];
  snprintf(base, sizeof base, "%s/pch", dir);
  snprintf(dead, sizeof dead, "%s/1073741824", base);
  snprintf(cmd, sizeof cmd, "mkdir -p %s && touch %s/speck_kernel_0.pch", dead, dead);
  if (system(cmd) != 0) printf("could not run: %s\n", cmd);
  CHECK(exists(dead));
  setenv("SPECK_NVRTC_PCH_DIR", base, 1);
  pch_folder(base, mine, sizeof mine);
  unsetenv("SPECK_NVRTC_ARCH");
  unsetenv("SPECK_NVRTC_FLAGS");
  unsetenv("SPECK_NVRTC_PCH");

  /* the warm-up makes the PCH for compute_90 (a kernel built meanwhile does
   * without); every kind, twice, so that later ones use it */
  sk_nvrtc_warm("compute_90");
  const char *kinds[] = {"for", "reduce", "team", "linalg", "error", "md", "atomic"};
  const int nk[] = {0, 1, 2, 3, 5, 6};
  char label[64];
  for (int round = 0; round < 2; round++)
    for (int q = 0; q < 6; q++) {
      snprintf(label, sizeof label, "pch_%s_%d", kinds[nk[q]], round);
      CHECK(same_as_whole(nv, nk[q], label));
    }

  /* errors name the body's line, as from the whole text */
  char err[2048];
  sk_kspec s = make_spec(4, "pch_error");
  char *src = sk_codegen_cuda(&s, err, sizeof err);
  sk_image *img = NULL;
  int from_disk;
  CHECK(src && sk_nvrtc_build(&s, src, &img, &from_disk, err, sizeof err) == -1 &&
        strstr(err, "body line 1: error: 'nope' undeclared") != NULL);
  free(src);

  /* the state is in the process's own folder; the dead one's is gone */
  char state[200];
  snprintf(state, sizeof state, "%s/speck_kernel_0.pch", mine);
  CHECK(exists(state));
  CHECK(!exists(dead));

  /* the PCH folder removed under the process: kernels still compile, to
   * the same images */
  snprintf(cmd, sizeof cmd, "rm -rf %s", mine);
  if (system(cmd) != 0) printf("could not run: %s\n", cmd);
  for (int q = 0; q < 6; q++) {
    snprintf(label, sizeof label, "pch_%s_gone", kinds[nk[q]]);
    CHECK(same_as_whole(nv, nk[q], label));
  }

  /* PCH off */
  setenv("SPECK_NVRTC_PCH", "0", 1);
  for (int q = 0; q < 6; q++) {
    snprintf(label, sizeof label, "pch_%s_off", kinds[nk[q]]);
    CHECK(same_as_whole(nv, nk[q], label));
  }

  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("could not remove %s\n", dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
