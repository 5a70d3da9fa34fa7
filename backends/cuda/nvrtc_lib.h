/* nvrtc_lib.h: the slice of NVRTC that the GPU tier uses, declared here
 * (no CUDA header at build time) and reached through a table of function
 * pointers that nvrtc_lib.c fills with dlopen/dlsym on first use.
 *
 * Internal to jit/ (nvrtc.c). NVRTC is a compiler: no device, driver or
 * back end is involved, so this works on any machine with libnvrtc.
 */
#ifndef SK_NVRTC_LIB_H
#define SK_NVRTC_LIB_H

#include <stddef.h>

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

#define SK_NVRTC_FUNCS(X) \
  X(nvrtcVersion, nvrtcResult, (int *, int *)) \
  X(nvrtcGetErrorString, const char *, (nvrtcResult)) \
  X(nvrtcCreateProgram, nvrtcResult, \
    (nvrtcProgram *, const char *, const char *, int, const char *const *, \
     const char *const *)) \
  X(nvrtcDestroyProgram, nvrtcResult, (nvrtcProgram *)) \
  X(nvrtcCompileProgram, nvrtcResult, (nvrtcProgram, int, const char *const *)) \
  X(nvrtcGetProgramLogSize, nvrtcResult, (nvrtcProgram, size_t *)) \
  X(nvrtcGetProgramLog, nvrtcResult, (nvrtcProgram, char *)) \
  X(nvrtcGetPTXSize, nvrtcResult, (nvrtcProgram, size_t *)) \
  X(nvrtcGetPTX, nvrtcResult, (nvrtcProgram, char *)) \
  X(nvrtcGetCUBINSize, nvrtcResult, (nvrtcProgram, size_t *)) \
  X(nvrtcGetCUBIN, nvrtcResult, (nvrtcProgram, char *)) \
  X(nvrtcGetNumSupportedArchs, nvrtcResult, (int *)) \
  X(nvrtcGetSupportedArchs, nvrtcResult, (int *))

#define SK__NV_PTR(name, ret, args) ret(*name) args;
typedef struct sk_nvrtc_api {
  SK_NVRTC_FUNCS(SK__NV_PTR)
} sk_nvrtc_api;
#undef SK__NV_PTR

/* The NVRTC table, or NULL with the reason in 'why' (which libraries were
 * tried). Loads once; later calls return the same answer. Search order:
 * $SPECK_NVRTC_LIB, $CUDA_HOME/lib64, /usr/local/cuda/lib64, then
 * libnvrtc.so.13 / .so.12 / .so on the loader path. */
const sk_nvrtc_api *sk_nvrtc_load(char *why, size_t n);
/* where it came from ("" if not loaded) */
const char *sk_nvrtc_libpath(void);
/* 1000 * major + 10 * minor, 0 when not loaded */
int sk_nvrtc_version(void);
/* 1 if NVRTC can emit a cubin for sm_'cc' (cc = 10 * major + minor) */
int sk_nvrtc_supports(int cc);
/* the newest architecture NVRTC knows that is not newer than 'cc' (0 if
 * none) */
int sk_nvrtc_best_below(int cc);

#endif
