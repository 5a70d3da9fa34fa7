/* nvrtc_lib.c: find and open libnvrtc at run time (the GPU tier's
 * compiler), and what it can compile for.
 *
 * speck does not link against NVRTC: it is opened with dlopen on first
 * use and its entry points are copied into one table (nvrtc_lib.h). A
 * missing or too old library is a sentence for speck --info and for the
 * error of a CUDA compile, never a crash. The architectures NVRTC knows
 * are asked once and kept.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "backends/cuda/nvrtc_lib.h"

#define MAX_ARCHS 128

static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static sk_nvrtc_api nv;
static int nv_ok, nv_ver, narchs;
static int archs[MAX_ARCHS];
static char nv_why[1600], nv_path[1024];

/* dlopen 'name'; on success record the file it came from */
static void *open_lib(const char *name) {
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) return NULL;
  Dl_info di;
  void *any = dlsym(h, "nvrtcVersion");
  if (any && dladdr(any, &di) && di.dli_fname)
    snprintf(nv_path, sizeof nv_path, "%s", di.dli_fname);
  else snprintf(nv_path, sizeof nv_path, "%s", name);
  return h;
}

/* Copy every symbol; returns the first missing name or NULL. */
#define SK__LOAD(name, ret, args) \
  if (!(t->name = (ret(*) args)dlsym(h, #name))) return #name;
static const char *fill(void *h, sk_nvrtc_api *t) {
  SK_NVRTC_FUNCS(SK__LOAD)
  return NULL;
}
#undef SK__LOAD

/* The candidates in order; the first that opens is used. An explicit
 * SPECK_NVRTC_LIB that does not open is an error of its own (no silent
 * fallback to another NVRTC). */
static void load_once(void) {
  char tried[1200] = "", home_lib[1024];
  size_t used = 0;
  const char *cands[8];
  int nc = 0;
  const char *env = getenv("SPECK_NVRTC_LIB");
  if (env && *env) cands[nc++] = env;
  const char *home = getenv("CUDA_HOME");
  if (home && *home) {
    snprintf(home_lib, sizeof home_lib, "%s/lib64/libnvrtc.so", home);
    cands[nc++] = home_lib;
  }
  cands[nc++] = "/usr/local/cuda/lib64/libnvrtc.so";
  cands[nc++] = "libnvrtc.so.13";
  cands[nc++] = "libnvrtc.so.12";
  cands[nc++] = "libnvrtc.so";
  void *h = NULL;
  for (int i = 0; i < nc && !h; i++) {
    h = open_lib(cands[i]);
    if (h) break;
    if (env && *env && i == 0) {
      sk_err(nv_why, sizeof nv_why, SK_E_SPECK_NVRTC_LIB, env, dlerror());
      return;
    }
    int w =
      snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", cands[i]);
    if (w > 0 && (size_t)w < sizeof tried - used) used += (size_t)w;
  }
  if (!h) {
    sk_err(nv_why, sizeof nv_why, SK_E_LIBNVRTC_NOT_FOUND, tried);
    return;
  }
  const char *miss = fill(h, &nv);
  if (miss) {
    sk_err(nv_why, sizeof nv_why, SK_E_LACKS_NVRTC_LATER, nv_path, miss);
    return;
  }
  int ma = 0, mi = 0;
  nv.nvrtcVersion(&ma, &mi);
  nv_ver = 1000 * ma + 10 * mi;
  int na = 0;
  if (nv.nvrtcGetNumSupportedArchs(&na) == 0 && na > 0 && na <= MAX_ARCHS &&
      nv.nvrtcGetSupportedArchs(archs) == 0)
    narchs = na;
  nv_ok = 1;
}

const sk_nvrtc_api *sk_nvrtc_load(char *why, size_t n) {
  pthread_once(&nv_once, load_once);
  if (!nv_ok && why) snprintf(why, n, "%s", nv_why);
  return nv_ok ? &nv : NULL;
}

const char *sk_nvrtc_libpath(void) {
  pthread_once(&nv_once, load_once);
  return nv_ok ? nv_path : "";
}

int sk_nvrtc_version(void) {
  pthread_once(&nv_once, load_once);
  return nv_ver;
}

int sk_nvrtc_supports(int cc) {
  pthread_once(&nv_once, load_once);
  for (int i = 0; i < narchs; i++)
    if (archs[i] == cc) return 1;
  return 0;
}

int sk_nvrtc_best_below(int cc) {
  pthread_once(&nv_once, load_once);
  int best = 0;
  for (int i = 0; i < narchs; i++)
    if (archs[i] <= cc && archs[i] > best) best = archs[i];
  return best;
}
