/* graph.c: speck.graph_capture on the device -- the default stream's work
 * recorded into a CUDA graph by stream capture, instantiated once and
 * replayed with cuGraphLaunch.
 *
 * Between capture_begin and capture_end the space's stream records
 * (cuStreamBeginCapture, relaxed mode: this thread may still load modules
 * and ask occupancy): launches, cuMemcpyAsync and the pack kernels of
 * copy_view / fill_view become the graph's nodes, with their arguments as
 * they were (a kernel's captures and its sk_cuctx are copied into the
 * node: what changes per replay must be in device memory). Nothing may
 * wait for the stream meanwhile: sk_cuda_sync and the fence return at
 * once (the stream's order is the wait; the layers above refused what
 * needs the host), frees are held back until the end (memory.c), kept
 * scratch cannot grow, and a launch does not read anything back
 * (launch.c's finish). A kernel that reaches host-accessible memory makes
 * its graph's replays wait, as its launch would.
 *
 * Graphs keep the addresses of the kept scratch their team kernels use:
 * while one exists, a grown-out scratch buffer is parked, not freed
 * (memory.c), until the last graph goes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "cuda_int.h"

typedef struct sk_cuda_graph {
  CUgraph graph;
  CUgraphExec exec; /* NULL: nothing was recorded (replays do nothing) */
  int host_visible;
} sk_cuda_graph;

static int recording;
static int rec_host_visible;
static int live;
static int sync_always = -1;

int sk_cuda_recording(void) { return __atomic_load_n(&recording, __ATOMIC_ACQUIRE); }
void sk_cuda_record_host_visible(void) { rec_host_visible = 1; }
int sk_cuda_graphs_live(void) { return __atomic_load_n(&live, __ATOMIC_ACQUIRE) > 0; }

int sk_cuda_capture_begin(char *err, size_t errlen) {
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  if (sk_cuda_dead()) return sk_err(err, errlen, SK_E_MSG, sk_cuda.dead_msg);
  /* what was queued before is done first, on every instance: a recording
   * cannot wait for work outside it */
  if (sk_cuda_sync("graph capture", err, errlen) < 0 ||
      sk_cuda_inst_sync_all("graph capture", err, errlen) < 0)
    return -1;
  CUresult rc =
    sk_cu->cuStreamBeginCapture_v2(sk_cuda.stream, CU_STREAM_CAPTURE_MODE_RELAXED);
  if (rc) return sk_cuda_fail(rc, "cuStreamBeginCapture", "graph_capture", err, errlen);
  rec_host_visible = 0;
  __atomic_store_n(&recording, 1, __ATOMIC_RELEASE);
  return 0;
}

void *sk_cuda_capture_end(int abandon, int64_t *nodes, char *err, size_t errlen) {
  CUgraph g = NULL;
  /* the stream leaves capture mode whatever happened during it */
  CUresult rc = sk_cu->cuStreamEndCapture(sk_cuda.stream, &g);
  __atomic_store_n(&recording, 0, __ATOMIC_RELEASE);
  sk_cuda_free_held();
  *nodes = 0;
  if (abandon || rc) {
    if (g) sk_cu->cuGraphDestroy(g);
    if (!abandon) sk_cuda_fail(rc, "cuStreamEndCapture", "graph_capture", err, errlen);
    return NULL;
  }
  size_t n = 0;
  rc = sk_cu->cuGraphGetNodes(g, NULL, &n);
  sk_cuda_graph *s = calloc(1, sizeof *s);
  if (rc || !s) {
    sk_cu->cuGraphDestroy(g);
    free(s);
    if (rc) sk_cuda_fail(rc, "cuGraphGetNodes", "graph_capture", err, errlen);
    else sk_err(err, errlen, SK_E_NOMEM);
    return NULL;
  }
  s->graph = g;
  s->host_visible = rec_host_visible;
  if (n > 0) {
    rc = sk_cu->cuGraphInstantiateWithFlags(&s->exec, g, 0);
    if (rc) {
      sk_cu->cuGraphDestroy(g);
      free(s);
      sk_cuda_fail(rc, "cuGraphInstantiate", "graph_capture", err, errlen);
      return NULL;
    }
  }
  *nodes = (int64_t)n;
  __atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
  return s;
}

int sk_cuda_replay(void *seq, int64_t n, char *err, size_t errlen) {
  sk_cuda_graph *s = seq;
  if (sk_cuda_ensure(err, errlen) < 0) return -1;
  if (sk_cuda_dead()) return sk_err(err, errlen, SK_E_MSG, sk_cuda.dead_msg);
  if (!s->exec || n <= 0) return 0;
  CUresult rc = CUDA_SUCCESS;
  pthread_mutex_lock(&sk_cuda_launch_lock);
  for (int64_t i = 0; i < n && rc == CUDA_SUCCESS; i++)
    rc = sk_cu->cuGraphLaunch(s->exec, sk_cuda.stream);
  sk_cuda_set_last("graph replay");
  pthread_mutex_unlock(&sk_cuda_launch_lock);
  if (rc) return sk_cuda_fail(rc, "cuGraphLaunch", "graph replay", err, errlen);
  if (sync_always < 0) {
    const char *e = getenv("SPECK_CUDA_SYNC");
    sync_always = e && *e && strcmp(e, "0") != 0;
  }
  if (s->host_visible || sync_always) return sk_cuda_sync("graph replay", err, errlen);
  return 0;
}

void sk_cuda_replay_free(void *seq) {
  sk_cuda_graph *s = seq;
  if (!s) return;
  if (sk_cuda_ready() && !sk_cuda_dead()) {
    if (s->exec) sk_cu->cuGraphExecDestroy(s->exec);
    sk_cu->cuGraphDestroy(s->graph);
  }
  free(s);
  if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) == 0) sk_cuda_scratch_unpark();
}
