/* nvshmem.c: NVSHMEM's symmetric heap for remote views in GPU memory
 * (backends/remote: the 'remote_cuda' space; seed 001's GPU half).
 *
 * NVSHMEM is opened at run time, like the driver: libnvshmem_host.so.3
 * (or $SPECK_NVSHMEM_LIB), found through the loader's path -- with pip's
 * wheel, <site-packages>/nvidia/nvshmem/lib on LD_LIBRARY_PATH. Only its
 * host library is used: speck's kernels are NVRTC-compiled and reach a
 * peer's part through the address nvshmem_ptr gives (a load or store over
 * NVLink or PCIe peer access), so no device library has to be linked
 * into them. Initialisation is the unique-ID bootstrap: rank 0's
 * nvshmemx_get_uniqueid broadcast by the remote back end's MPI, then
 * nvshmemx_hostlib_init_attr on every rank with the CUDA context of this
 * rank's device current. NVLink multicast is never used (NVSHMEM's
 * NVSHMEM_DISABLE_NVLS defaults to 1 here), nor a network transport
 * (NVSHMEM_REMOTE_TRANSPORT defaults to none: the peers are one node's
 * GPUs, reached by loads and stores).
 *
 * NVSHMEM's headers are not needed to build speck: the few types the
 * calls take are opaque here (the unique ID is 128 bytes, the init
 * attributes are filled by nvshmemx_set_attr_uniqueid_args).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "cuda_api.h"
#include "cuda_int.h"

#define NVS_UID_BYTES          128  /* sizeof(nvshmemx_uniqueid_t) */
#define NVS_ATTR_BYTES         1024 /* more than sizeof(nvshmemx_init_attr_t), 144 */
#define NVS_INIT_WITH_UNIQUEID (1u << 3)

static struct {
  void *h;
  int (*get_uniqueid)(void *uid);
  int (*set_attr_uniqueid_args)(int me, int n, const void *uid, void *attr);
  int (*hostlib_init_attr)(unsigned flags, void *attr);
  void (*hostlib_finalize)(void);
  void *(*malloc_)(size_t);
  void (*free_)(void *);
  void *(*ptr)(const void *, int);
  void (*barrier_all)(void);
  void (*quiet)(void);
  int (*my_pe)(void);
  int (*n_pes)(void);
  void (*version)(int *, int *, int *);
} nv;

static int loaded = -1, started;
static char load_why[1024], lib_name[256];

static int load(void) {
  if (loaded >= 0) return loaded;
  const char *e = getenv("SPECK_NVSHMEM_LIB");
  snprintf(lib_name, sizeof lib_name, "%.250s", e && *e ? e : "libnvshmem_host.so.3");
  nv.h = dlopen(lib_name, RTLD_NOW | RTLD_GLOBAL);
  if (!nv.h) {
    const char *d = dlerror();
    sk_err(load_why, sizeof load_why, SK_E_NVSHMEM_HOST_LIBRARY, lib_name,
           d ? d : sk_err_text(SK_E_NOT_FOUND));
    return loaded = 0;
  }
  struct {
    const char *name;
    void **fn;
  } syms[] = {
    {"nvshmemx_get_uniqueid", (void **)&nv.get_uniqueid},
    {"nvshmemx_set_attr_uniqueid_args", (void **)&nv.set_attr_uniqueid_args},
    {"nvshmemx_hostlib_init_attr", (void **)&nv.hostlib_init_attr},
    {"nvshmemx_hostlib_finalize", (void **)&nv.hostlib_finalize},
    {"nvshmem_malloc", (void **)&nv.malloc_},
    {"nvshmem_free", (void **)&nv.free_},
    {"nvshmem_ptr", (void **)&nv.ptr},
    {"nvshmem_barrier_all", (void **)&nv.barrier_all},
    {"nvshmem_quiet", (void **)&nv.quiet},
    {"nvshmem_my_pe", (void **)&nv.my_pe},
    {"nvshmem_n_pes", (void **)&nv.n_pes},
  };
  for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
    *syms[i].fn = dlsym(nv.h, syms[i].name);
    if (!*syms[i].fn) {
      sk_err(load_why, sizeof load_why, SK_E_LACKS_SPECK_NEEDS, lib_name, syms[i].name);
      dlclose(nv.h);
      nv.h = NULL;
      return loaded = 0;
    }
  }
  *(void **)&nv.version = dlsym(nv.h, "nvshmemx_vendor_get_version_info");
  return loaded = 1;
}

int sk_nvshmem_available(char *why, size_t n) {
  if (load()) return 1;
  snprintf(why, n, "%s", load_why);
  return 0;
}

int sk_nvshmem_started(void) { return started; }

int sk_nvshmem_start(int me, int nranks, int (*bcast)(void *buf, int bytes), char *err,
                     size_t errlen) {
  if (started) return 0;
  if (!load()) {
    sk_err(err, errlen, SK_E_MSG, load_why);
    return -1;
  }
  /* the context of this rank's device current on this thread: NVSHMEM
   * takes the runtime's current device */
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  setenv("NVSHMEM_DISABLE_NVLS", "1", 0);
  /* every peer must be reachable by loads and stores (one node's GPUs):
   * no network transport, so no proxy thread polling beside the rank's
   * own on its core */
  setenv("NVSHMEM_REMOTE_TRANSPORT", "none", 0);
  static unsigned char uid[NVS_UID_BYTES] __attribute__((aligned(16)));
  static unsigned char attr[NVS_ATTR_BYTES] __attribute__((aligned(16)));
  memset(uid, 0, sizeof uid);
  memset(attr, 0, sizeof attr);
  if (me == 0 && nv.get_uniqueid(uid) != 0) {
    sk_err(err, errlen, SK_E_NVSHMEM_NVSHMEMX_GET);
    /* the others still wait for the broadcast: send them the zeros */
  }
  if (bcast(uid, (int)sizeof uid) < 0) {
    sk_err(err, errlen, SK_E_NVSHMEM_BROADCASTING_UNIQUE);
    return -1;
  }
  if (nv.set_attr_uniqueid_args(me, nranks, uid, attr) != 0) {
    sk_err(err, errlen, SK_E_NVSHMEM_NVSHMEMX_SET);
    return -1;
  }
  sk_cuda_pool_trim(); /* the symmetric heap may need what the pool keeps */
  int rc = nv.hostlib_init_attr(NVS_INIT_WITH_UNIQUEID, attr);
  if (rc != 0) {
    sk_err(err, errlen, SK_E_NVSHMEM_NVSHMEMX_HOSTLIB, rc);
    return -1;
  }
  if (nv.my_pe() != me || nv.n_pes() != nranks) {
    sk_err(err, errlen, SK_E_NVSHMEM_PE_DOES, nv.my_pe(), nv.n_pes(), me, nranks);
    return -1;
  }
  started = 1;
  return 0;
}

void *sk_nvshmem_malloc(size_t bytes, char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return NULL;
  void *p = nv.malloc_(bytes);
  if (!p) {
    sk_err(err, errlen, SK_E_NVSHMEM_SYMMETRIC_HEAP, bytes);
    return NULL;
  }
  CUresult rc =
    sk_cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)p, 0, bytes, sk_cuda.stream);
  if (!rc) rc = sk_cu->cuStreamSynchronize(sk_cuda.stream);
  if (rc) {
    sk_cuda_fail(rc, "zeroing NVSHMEM memory", NULL, err, errlen);
    return NULL;
  }
  return p;
}

void sk_nvshmem_free(void *p) {
  if (started) nv.free_(p);
}

void *sk_nvshmem_ptr(void *p, int pe) { return started ? nv.ptr(p, pe) : NULL; }

void sk_nvshmem_quiet(void) {
  if (started) nv.quiet();
}

void sk_nvshmem_barrier(void) {
  if (started) nv.barrier_all();
}

void sk_nvshmem_stop(void) {
  if (!started) return;
  nv.hostlib_finalize();
  started = 0;
}

void sk_nvshmem_info(char *buf, size_t n) {
  if (!load()) {
    snprintf(buf, n, "NVSHMEM not available: %s", load_why);
    return;
  }
  int a = 0, b = 0, c = 0;
  if (nv.version) nv.version(&a, &b, &c);
  if (a)
    snprintf(buf, n, "NVSHMEM %d.%d.%d (%s)%s", a, b, c, lib_name,
             started ? ", started" : "");
  else snprintf(buf, n, "NVSHMEM (%s)%s", lib_name, started ? ", started" : "");
}
