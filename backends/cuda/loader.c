/* loader.c: find and open libcuda (the driver) at run time.
 *
 * speck does not link against it: it is opened with dlopen on first use
 * and its entry points are copied into one table (cu.h). Search order:
 * $SPECK_CUDA_LIB, then "libcuda.so.1" on the loader path (the driver
 * installs it there; the toolkit's stubs/libcuda.so is refused: it only
 * answers CUDA_ERROR_STUB_LIBRARY). Every failure is kept as a sentence
 * for speck --info. (NVRTC, the compiler, is the JIT's: backends/cuda/nvrtc_lib.c.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "cu.h"

static pthread_once_t cu_once = PTHREAD_ONCE_INIT;
static sk_cu_api cu;
static int cu_ok, cu_ver;
static char cu_why[1024], cu_path[1024];

/* dlopen 'name'; on success record where it came from */
static void *open_lib(const char *name, char *path, size_t n) {
  void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h) return NULL;
  Dl_info di;
  void *any = dlsym(h, "cuInit");
  if (any && dladdr(any, &di) && di.dli_fname) snprintf(path, n, "%s", di.dli_fname);
  else snprintf(path, n, "%s", name);
  return h;
}

/* Copy every symbol of a table; returns the first missing name or NULL. */
#define SK__LOAD(name, ret, args) \
  if (!(t->name = (ret(*) args)dlsym(h, #name))) return #name;
static const char *fill_cu(void *h, sk_cu_api *t) {
  SK_CU_FUNCS(SK__LOAD)
  return NULL;
}
#undef SK__LOAD

const char *sk_cu_errstr(CUresult rc, char *buf, size_t n) {
  const char *name = NULL, *str = NULL;
  if (cu.cuGetErrorName) cu.cuGetErrorName(rc, &name);
  if (cu.cuGetErrorString) cu.cuGetErrorString(rc, &str);
  if (name && str) snprintf(buf, n, "%s (%s)", name, str);
  else sk_err(buf, n, SK_E_CUDA_ERROR, rc);
  return buf;
}

int sk_cu_sticky(CUresult rc) {
  return rc == CUDA_ERROR_ILLEGAL_ADDRESS || rc == CUDA_ERROR_LAUNCH_FAILED ||
         rc == CUDA_ERROR_HARDWARE_STACK_ERROR || rc == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
         rc == CUDA_ERROR_MISALIGNED_ADDRESS || rc == CUDA_ERROR_INVALID_ADDRESS_SPACE ||
         rc == CUDA_ERROR_INVALID_PC || rc == CUDA_ERROR_LAUNCH_TIMEOUT;
}

static void cu_load_once(void) {
  const char *env = getenv("SPECK_CUDA_LIB");
  void *h = NULL;
  if (env && *env) {
    h = open_lib(env, cu_path, sizeof cu_path);
    if (!h) {
      sk_err(cu_why, sizeof cu_why, SK_E_SPECK_CUDA_LIB, env, dlerror());
      return;
    }
  } else {
    h = open_lib("libcuda.so.1", cu_path, sizeof cu_path);
    if (!h) {
      sk_err(cu_why, sizeof cu_why, SK_E_LIBCUDA_SO_NOT);
      return;
    }
  }
  const char *miss = fill_cu(h, &cu);
  if (miss) {
    sk_err(cu_why, sizeof cu_why, SK_E_LACKS_DRIVER_TOO, cu_path, miss);
    return;
  }
  CUresult rc = cu.cuInit(0);
  char e[256];
  if (rc == CUDA_ERROR_STUB_LIBRARY) {
    sk_err(cu_why, sizeof cu_why, SK_E_TOOLKIT_STUB_LIBRARY, cu_path);
    return;
  }
  if (rc == CUDA_ERROR_NO_DEVICE) {
    sk_err(cu_why, sizeof cu_why, SK_E_NO_CUDA_DEVICE, sk_cu_errstr(rc, e, sizeof e));
    return;
  }
  if (rc != CUDA_SUCCESS) {
    sk_err(cu_why, sizeof cu_why, SK_E_CUINIT_FAILED, sk_cu_errstr(rc, e, sizeof e));
    return;
  }
  cu.cuDriverGetVersion(&cu_ver);
  int count = 0;
  rc = cu.cuDeviceGetCount(&count);
  if (rc != CUDA_SUCCESS || count < 1) {
    sk_err(cu_why, sizeof cu_why, SK_E_NO_CUDA_DEVICE_DRIVER, cu_ver / 1000,
           cu_ver % 1000 / 10, rc ? ": " : "", rc ? sk_cu_errstr(rc, e, sizeof e) : "");
    return;
  }
  cu_ok = 1;
}

const sk_cu_api *sk_cu_load(char *why, size_t n) {
  pthread_once(&cu_once, cu_load_once);
  if (!cu_ok && why) snprintf(why, n, "%s", cu_why);
  return cu_ok ? &cu : NULL;
}

const char *sk_cu_libpath(void) { return cu_ok ? cu_path : ""; }
int sk_cu_driver_version(void) { return cu_ver; }
