/* cuda_int.h: state and helpers shared by the files of the CUDA back end
 * (loader.c, device.c, memory.c, pack.c, launch.c, cuda.c). */
#ifndef SK_CUDA_INT_H
#define SK_CUDA_INT_H

#include <pthread.h>

#include "core/backend.h"
#include "cu.h"
#include "cuda_api.h"

/* The ids of the spaces this back end brings (cuda.c's table describes
 * them; fixed so the const table can name them): device memory,
 * page-locked host memory mapped into the device, managed memory, and
 * the remote space over device memory (backends/remote with NVSHMEM). */
enum {
  SK_SPACE_CUDA = 1,
  SK_SPACE_CUDA_PINNED = 2,
  SK_SPACE_CUDA_UVM = 3,
  SK_SPACE_REMOTE_CUDA = 5
};

/* cuBLAS (blas.c), the table's vendor BLAS */
extern const sk_vendor_blas sk_cuda_blas;

/* The device in use: its primary context and the space's stream (the
 * default instance; instance.c adds a stream per speck.Instance). Filled
 * by sk_cuda_ensure (lazily: the first allocation or launch, or
 * speck.initialize{space = "cuda", device = d}). */
typedef struct sk_cuda_dev {
  int ready;
  int index;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  int major, minor, sms, warp, max_threads, max_threads_sm;
  int smem_block, smem_optin;
  int grid_y, grid_z;
  size_t total;
  char name[256];
  char arch[16]; /* "sm_90" */
  /* a kernel faulted: the context is unusable from then on ('dead' is
   * set once, after 'dead_msg', with release order) */
  int dead;
  char dead_msg[512];
  /* the interrupt word kernels poll (sk_cuctx.stop): page-locked host
   * memory mapped into the device, a mirror of the runtime's interrupt
   * bit (sk_body_flag_mirror); NULL when it could not be had */
  int *stop_word;
} sk_cuda_dev;

extern sk_cuda_dev sk_cuda;
/* 'ready' and 'dead' are read without a lock: set once, release order */
static inline int sk_cuda_ready(void) {
  return __atomic_load_n(&sk_cuda.ready, __ATOMIC_ACQUIRE);
}
static inline int sk_cuda_dead(void) {
  return __atomic_load_n(&sk_cuda.dead, __ATOMIC_ACQUIRE);
}
extern const sk_cu_api *sk_cu;
/* device set-up and module loads */
extern pthread_mutex_t sk_cuda_lock;
/* Launches: held from taking the kept scratch and the pinned result
 * buffer (memory.c) until the launch is queued or, when it waits, its
 * result is read back, so launches from several threads never share or
 * free each other's buffers. Taken before sk_cuda_lock, never after. */
extern pthread_mutex_t sk_cuda_launch_lock;

/* A kernel as this back end runs it (the table's 'load' makes one from
 * the JIT's sk_image; it is sk_launch.fn): a copy of the image and its
 * launch facts, and the module, loaded into the context on first launch. */
typedef struct sk_cuda_kernel {
  char *image; /* cubin or NUL-terminated PTX (owned) */
  int is_binary;
  char arch[24];
  int pattern, policy_kind, md_rank;
  int md_perm[SK_MAXMD];
  int nargs, host_visible, bounds, scratch;
  /* set on first launch (under sk_cuda_lock; 'loaded' last) */
  void *mod, *fn;
  int loaded, block, grid1; /* occupancy: block size, blocks for 1 wave */
  int maxthreads, regs;
  /* the last team launch's occupancy query (under sk_cuda_launch_lock):
   * block threads, shared bytes -> blocks per SM */
  int occ_threads, occ_per_sm;
  size_t occ_smem;
} sk_cuda_kernel;

/* the table's 'arch', 'load' and 'unload' (launch.c) */
int sk_cuda_arch(char *buf, size_t n);
void *sk_cuda_load(const sk_image *img, const char *label, char *err, size_t errlen);
void sk_cuda_unload(void *kernel);

/* Make the device usable on this thread (load, context, stream). The
 * device index is the one given to init, else $SPECK_CUDA_DEVICE, else
 * the rank's place on its node in an MPI job (mpirun's local rank, modulo
 * the devices), else 0.
 * Returns 0 or -1 with a message. */
int sk_cuda_ensure(char *err, size_t errlen);
/* select the device for the next sk_cuda_ensure (init's 'device') */
int sk_cuda_select(int device, char *err, size_t errlen);

/* A driver call failed: fill 'err' with "what: CUDA_ERROR_X (text)"
 * and, for a fault, mark the context dead (naming 'label'). -1. */
int sk_cuda_fail(CUresult rc, const char *what, const char *label, char *err,
                 size_t errlen);
/* the label of the latest launch (for faults found at a later sync);
 * callers hold sk_cuda_launch_lock */
void sk_cuda_set_last(const char *label);
/* the stream synchronised, errors mapped (fence) */
int sk_cuda_sync(const char *what, char *err, size_t errlen);

/* -- memory.c ------------------------------------------------------------ */
void *sk_cuda_alloc(size_t bytes, int space, char *err, size_t errlen);
void sk_cuda_free(void *p, int space);
int sk_cuda_copy(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                 char *err, size_t errlen);
void sk_cuda_first_touch(void *p, size_t bytes);
/* device scratch that grows and is kept (reduction partials, level-1
 * scratch pools): slot 'which' of a few. Callers hold
 * sk_cuda_launch_lock while they use what they got. */
enum { SK_SCR_PARTIAL, SK_SCR_RESULT, SK_SCR_L1, SK_SCR_PACK, SK_NSCR };
/* the memory pool's kept blocks back to the driver, after the stream's frees */
void sk_cuda_pool_trim(void);
void *sk_cuda_scratch(int which, size_t bytes, char *err, size_t errlen);
/* pinned host bytes for results (under sk_cuda_launch_lock, likewise) */
void *sk_cuda_pinned_result(size_t bytes, char *err, size_t errlen);
int64_t sk_cuda_room(int space);

/* -- pack.c: device-side strided copies and fills --------------------------- */
int sk_cuda_copy_view(const sk_view *dst, const sk_view *src, char *err, size_t errlen);
int sk_cuda_fill_view(const sk_view *v, const void *cell, char *err, size_t errlen);

/* -- instance.c: execution-space instances (a stream each) ---------------- */
/* the table's instance_create / instance_destroy / instance_fence / copy_async */
void *sk_cuda_inst_create(char *err, size_t errlen);
void sk_cuda_inst_destroy(void *inst);
int sk_cuda_inst_fence(void *inst, char *err, size_t errlen);
int sk_cuda_copy_async(void *dst, int dspace, const void *src, int sspace, size_t bytes,
                       void *inst, char *err, size_t errlen);
/* the stream for work on 'inst' (NULL: the default stream), ordered after
 * what the default stream holds now; 0 or -1 (a message naming 'label') */
int sk_cuda_inst_stream(void *inst, CUstream *s, const char *label, char *err,
                        size_t errlen);
/* 1 while an instance exists (one atomic load) */
int sk_cuda_inst_any(void);
/* the default stream waits for every instance's work queued so far
 * (before it frees memory or packs views); nothing without instances */
void sk_cuda_inst_drain(void);
/* every instance's stream synchronised (not the default one); 'err' NULL:
 * errors ignored */
int sk_cuda_inst_sync_all(const char *what, char *err, size_t errlen);

/* -- graph.c: speck.graph_capture (stream capture into a graph) ------------ */
/* the table's capture_begin / capture_end / replay / replay_free */
int sk_cuda_capture_begin(char *err, size_t errlen);
void *sk_cuda_capture_end(int abandon, int64_t *nodes, char *err, size_t errlen);
int sk_cuda_replay(void *seq, int64_t n, char *err, size_t errlen);
void sk_cuda_replay_free(void *seq);
/* 1 while the default stream records: nothing may wait for it (sync and
 * fence return at once, frees are held back until the recording ends) */
int sk_cuda_recording(void);
/* a recorded kernel reaches host-accessible memory: its replays are waited for */
void sk_cuda_record_host_visible(void);
/* 1 while a recorded graph exists: kept scratch it uses is not freed */
int sk_cuda_graphs_live(void);
/* memory.c: the frees held back during a recording, done now; the kept
 * scratch the graphs held, given back once none is left */
void sk_cuda_free_held(void);
void sk_cuda_scratch_unpark(void);

/* -- launch.c ------------------------------------------------------------ */
int sk_cuda_launch(const sk_launch *l, char *err, size_t errlen);
void sk_cuda_team_limits(sk_team_limits *lim);
/* speck.task's scheduler on the device (tasks.c): the table's 'tasks' */
extern const struct sk_task_ops sk_cuda_tasks;

#endif
