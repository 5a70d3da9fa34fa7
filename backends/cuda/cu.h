/* cu.h: the slice of the CUDA driver API that speck uses, declared here
 * (no CUDA header at build time) and reached through function pointers
 * filled by loader.c with dlopen/dlsym.
 *
 * Internal to backends/cuda. The back end runs code; it compiles none
 * (NVRTC belongs to the JIT: backends/cuda/nvrtc_lib.h).
 */
#ifndef SK_CUDA_CU_H
#define SK_CUDA_CU_H

#include <stddef.h>

/* -- driver types (ABI of libcuda.so.1) -------------------------------- */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef size_t (*CUoccupancyB2DSize)(int block);
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
};

/* device attributes */
enum {
  CU_DEV_ATTR_MAX_THREADS_PER_BLOCK = 1,
  CU_DEV_ATTR_MAX_GRID_DIM_X = 5,
  CU_DEV_ATTR_MAX_GRID_DIM_Y = 6,
  CU_DEV_ATTR_MAX_GRID_DIM_Z = 7,
  CU_DEV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEV_ATTR_WARP_SIZE = 10,
  CU_DEV_ATTR_MULTIPROCESSOR_COUNT = 16,
  CU_DEV_ATTR_UNIFIED_ADDRESSING = 41,
  CU_DEV_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEV_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEV_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEV_ATTR_MANAGED_MEMORY = 83,
  CU_DEV_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEV_ATTR_MEMORY_POOLS_SUPPORTED = 115,
};
enum { CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4 };

enum {
  CU_FUNC_ATTR_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTR_NUM_REGS = 4,
  CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};
enum { CU_MEMHOSTALLOC_PORTABLE = 1, CU_MEMHOSTALLOC_DEVICEMAP = 2 };
enum { CU_MEM_ATTACH_GLOBAL = 1 };
enum { CU_STREAM_NON_BLOCKING = 1 };
/* how a thread waits for the device (the primary context's flags) */
enum { CU_CTX_SCHED_SPIN = 1, CU_CTX_SCHED_YIELD = 2, CU_CTX_SCHED_BLOCKING_SYNC = 4 };
enum { CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_LIMIT_STACK_SIZE = 0 };
/* stream capture (graph.c): RELAXED lets this thread load modules and ask
 * occupancy while the stream records */
enum { CU_STREAM_CAPTURE_MODE_RELAXED = 2 };

/* -- the function table -------------------------------------------------- */
#define SK_CU_FUNCS(X) \
  X(cuInit, CUresult, (unsigned)) \
  X(cuDriverGetVersion, CUresult, (int *)) \
  X(cuGetErrorName, CUresult, (CUresult, const char **)) \
  X(cuGetErrorString, CUresult, (CUresult, const char **)) \
  X(cuDeviceGetCount, CUresult, (int *)) \
  X(cuDeviceGet, CUresult, (CUdevice *, int)) \
  X(cuDeviceGetName, CUresult, (char *, int, CUdevice)) \
  X(cuDeviceGetAttribute, CUresult, (int *, int, CUdevice)) \
  X(cuDeviceTotalMem_v2, CUresult, (size_t *, CUdevice)) \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice)) \
  X(cuDevicePrimaryCtxSetFlags_v2, CUresult, (CUdevice, unsigned)) \
  X(cuCtxSetCurrent, CUresult, (CUcontext)) \
  X(cuCtxSynchronize, CUresult, (void)) \
  X(cuCtxGetLimit, CUresult, (size_t *, int)) \
  X(cuCtxSetLimit, CUresult, (int, size_t)) \
  X(cuStreamCreate, CUresult, (CUstream *, unsigned)) \
  X(cuStreamSynchronize, CUresult, (CUstream)) \
  X(cuStreamDestroy_v2, CUresult, (CUstream)) \
  X(cuStreamWaitEvent, CUresult, (CUstream, CUevent, unsigned)) \
  X(cuEventCreate, CUresult, (CUevent *, unsigned)) \
  X(cuEventDestroy_v2, CUresult, (CUevent)) \
  X(cuEventRecord, CUresult, (CUevent, CUstream)) \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr *, size_t)) \
  X(cuMemFree_v2, CUresult, (CUdeviceptr)) \
  X(cuMemAllocAsync, CUresult, (CUdeviceptr *, size_t, CUstream)) \
  X(cuMemFreeAsync, CUresult, (CUdeviceptr, CUstream)) \
  X(cuDeviceGetDefaultMemPool, CUresult, (CUmemoryPool *, CUdevice)) \
  X(cuMemPoolSetAttribute, CUresult, (CUmemoryPool, int, void *)) \
  X(cuMemPoolTrimTo, CUresult, (CUmemoryPool, size_t)) \
  X(cuMemHostAlloc, CUresult, (void **, size_t, unsigned)) \
  X(cuMemFreeHost, CUresult, (void *)) \
  X(cuMemAllocManaged, CUresult, (CUdeviceptr *, size_t, unsigned)) \
  X(cuMemGetInfo_v2, CUresult, (size_t *, size_t *)) \
  X(cuMemcpyAsync, CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream)) \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr, unsigned char, size_t, CUstream)) \
  X(cuModuleLoadData, CUresult, (CUmodule *, const void *)) \
  X(cuModuleUnload, CUresult, (CUmodule)) \
  X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *)) \
  X(cuModuleGetGlobal_v2, CUresult, (CUdeviceptr *, size_t *, CUmodule, const char *)) \
  X(cuFuncGetAttribute, CUresult, (int *, int, CUfunction)) \
  X(cuFuncSetAttribute, CUresult, (CUfunction, int, int)) \
  X(cuLaunchKernel, CUresult, \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, \
     CUstream, void **, void **)) \
  X(cuOccupancyMaxPotentialBlockSize, CUresult, \
    (int *, int *, CUfunction, CUoccupancyB2DSize, size_t, int)) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, CUresult, \
    (int *, CUfunction, int, size_t)) \
  X(cuStreamBeginCapture_v2, CUresult, (CUstream, int)) \
  X(cuStreamEndCapture, CUresult, (CUstream, CUgraph *)) \
  X(cuGraphGetNodes, CUresult, (CUgraph, CUgraphNode *, size_t *)) \
  X(cuGraphInstantiateWithFlags, CUresult, (CUgraphExec *, CUgraph, unsigned long long)) \
  X(cuGraphLaunch, CUresult, (CUgraphExec, CUstream)) \
  X(cuGraphExecDestroy, CUresult, (CUgraphExec)) \
  X(cuGraphDestroy, CUresult, (CUgraph))

#define SK__CU_PTR(name, ret, args) ret(*name) args;
typedef struct sk_cu_api {
  SK_CU_FUNCS(SK__CU_PTR)
} sk_cu_api;
#undef SK__CU_PTR

/* -- loader.c ------------------------------------------------------------ */
/* The driver table after a successful load and cuInit, or NULL with the
 * reason in 'why' (library missing, stub library, cuInit failure, no
 * device). Loads once; later calls return the same answer. */
const sk_cu_api *sk_cu_load(char *why, size_t n);
/* where libcuda came from ("" if not loaded) */
const char *sk_cu_libpath(void);
/* the driver's CUDA version as 1000 * major + 10 * minor (0 when unknown) */
int sk_cu_driver_version(void);
/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for 'rc' */
const char *sk_cu_errstr(CUresult rc, char *buf, size_t n);
/* 1 when 'rc' leaves the context unusable (a kernel faulted) */
int sk_cu_sticky(CUresult rc);

#endif
