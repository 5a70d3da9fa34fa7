/* test_graph.c: the graph library from C, with no Lua state.
 *
 * 1. The C kernel API (speck.h): a 6x5 grid made by "graph.grid"
 *    (speck_call_out hands its views back), "graph.bfs" levels (the
 *    Manhattan distance), "graph.connected_components" (one), and
 *    "graph.pagerank" (ranks sum to 1), "graph.triangles" (none), a BFS
 *    from a vertex that does not exist (a message, never a crash).
 * 2. Where libnvrtc loads: every graph body compiles for the CUDA back
 *    end (its first precompiled signature), so the GPU forms are checked
 *    on machines without a GPU.
 * Runs on the space of SPECK_SPACE. Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "api/speck.h"
#include "backends/cuda/nvrtc.h"
#include "host_only.h"

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

static speck_out *find_out(speck_out *o, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(o[i].name, name) == 0) return &o[i];
  return NULL;
}

/* host copy of 'n' values of 'v' */
static void host_copy(speck_runtime *rt, speck_view *v, const char *dtype, int64_t n,
                      void *h) {
  char err[512];
  speck_view *w = speck_view_wrap(rt, "h", dtype, 1, &n, h, err, sizeof err);
  if (!w || speck_deep_copy(w, v, err, sizeof err)) {
    printf("host_copy: %s\n", err);
    exit(1);
  }
  speck_view_release(w);
}

enum { NX = 6, NY = 5, NV = NX * NY };

/* graph.bfs with 'na' arguments 'a' fails with exactly 'want' */
static void bfs_refused(speck_runtime *rt, speck_arg *a, int na, const char *want,
                        const char *what) {
  char err[512];
  speck_out b[8];
  int nb = 0;
  int rc = speck_call_out(rt, "graph.bfs", a, na, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, want) == 0, "%s: %s", what, rc ? err : "no error");
}

static void api_tests(void) {
  char err[1024];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return;
  speck_out o[8], b[8];
  int no = 0, nb = 0;
  speck_arg ga[] = {speck_arg_i64("nx", NX), speck_arg_i64("ny", NY)};
  int rc = speck_call_out(rt, "graph.grid", ga, 2, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0, "graph.grid: %s", err);
  if (rc) return;
  speck_view *rp = find_out(o, no, "G_rowptr")->view;
  speck_view *ci = find_out(o, no, "G_colidx")->view;
  int64_t n1 = 1, src0 = 0;
  speck_view *sw = speck_view_wrap(rt, "s", "int64", 1, &n1, &src0, err, sizeof err);
  speck_view *src = speck_view_new(rt, "sources", "int64", 1, &n1, NULL, err, sizeof err);
  CHECK(sw && src && speck_deep_copy(src, sw, err, sizeof err) == 0, "%s", err);
  speck_arg ba[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_view("sources", src)};
  rc = speck_call_out(rt, "graph.bfs", ba, 3, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0 && nb == 3, "graph.bfs: %s", err);
  if (rc == 0) {
    int64_t lev[NV];
    host_copy(rt, find_out(b, nb, "level")->view, "int64", NV, lev);
    int ok = 1;
    for (int v = 0; v < NV; v++) ok &= lev[v] == v % NX + v / NX;
    CHECK(ok, "BFS levels are not the Manhattan distances");
    CHECK(find_out(b, nb, "nlevels")->value == NX + NY - 1, "nlevels %g",
          find_out(b, nb, "nlevels")->value);
    for (int i = 0; i < nb; i++) speck_view_release(b[i].view);
  }
  /* one source as a number: the same levels; a number and a view together refused */
  speck_arg b1[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_i64("source", NX - 1)};
  rc = speck_call_out(rt, "graph.bfs", b1, 3, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0 && nb == 3, "graph.bfs, source %d: %s", NX - 1, err);
  if (rc == 0) {
    int64_t lev[NV], par[NV];
    host_copy(rt, find_out(b, nb, "level")->view, "int64", NV, lev);
    host_copy(rt, find_out(b, nb, "parent")->view, "int64", NV, par);
    int ok = par[NX - 1] == NX - 1;
    for (int v = 0; v < NV; v++) ok &= lev[v] == (NX - 1 - v % NX) + v / NX;
    CHECK(ok, "BFS levels from source %d are not the Manhattan distances", NX - 1);
    CHECK(find_out(b, nb, "nlevels")->value == NX + NY - 1, "nlevels %g",
          find_out(b, nb, "nlevels")->value);
    for (int i = 0; i < nb; i++) speck_view_release(b[i].view);
  }
  speck_arg b2[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_i64("source", 0), speck_arg_view("sources", src)};
  bfs_refused(rt, b2, 4,
              "speck_call graph.bfs: give 'source' (a vertex) or 'sources' (a view), not both",
              "source and sources");
  speck_arg b3[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_i64("source", -1)};
  bfs_refused(rt, b3, 3,
              "speck_call graph.bfs: source -1 is not a vertex (the graph has 30: 0..29)",
              "bad source number");
  speck_arg ca[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci)};
  rc = speck_call_out(rt, "graph.connected_components", ca, 2, NULL, b, 8, &nb, err,
                      sizeof err);
  CHECK(rc == 0 && find_out(b, nb, "ncomp")->value == 1, "components: %s", err);
  for (int i = 0; rc == 0 && i < nb; i++) speck_view_release(b[i].view);
  rc = speck_call_out(rt, "graph.pagerank", ca, 2, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0, "pagerank: %s", err);
  if (rc == 0) {
    double r[NV], s = 0;
    host_copy(rt, find_out(b, nb, "rank")->view, "float64", NV, r);
    for (int v = 0; v < NV; v++) s += r[v];
    CHECK(fabs(s - 1) < 1e-12, "ranks sum to %.17g", s);
    for (int i = 0; i < nb; i++) speck_view_release(b[i].view);
  }
  rc = speck_call_out(rt, "graph.triangles", ca, 2, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0 && find_out(b, nb, "total")->value == 0, "triangles: %s", err);
  for (int i = 0; rc == 0 && i < nb; i++) speck_view_release(b[i].view);
  src0 = NV;
  CHECK(speck_deep_copy(src, sw, err, sizeof err) == 0, "%s", err);
  bfs_refused(rt, ba, 3,
              "speck_call graph.bfs: source 30 is not a vertex (the graph has 30: 0..29)",
              "bad source");
  speck_view_release(sw);
  speck_view_release(src);
  for (int i = 0; i < no; i++) speck_view_release(o[i].view);
  speck_runtime_close(rt);
}

/* -- NVRTC compile checks ----------------------------------------------------- */
static void nvrtc_tests(void) {
  char why[256], err[8192];
  const sk_backend *cu = sk_backend_find("cuda");
  if (!cu || !sk_nvrtc_status(why, sizeof why)) {
    printf("nvrtc compile checks skipped: %s\n", cu ? why : "no cuda back end");
    return;
  }
  int n = 0, nhost = 0;
  for (int i = 0;; i++) {
    const sk_kbody *kb = sk_kbody_at(i);
    if (!kb) break;
    if ((strncmp(kb->label, "graph.", 6) != 0 && strncmp(kb->label, "sort.", 5) != 0) ||
        !kb->sigs)
      continue;
    int rc = sk_kbody_compile(kb, 0, cu, err, sizeof err);
    if (kb->host_only) { /* the host SSSP's rounds: refused for a device */
      CHECK(refused_host_only(rc, err, cu), "%s: %s", kb->label, rc < 0 ? err : "compiled");
      nhost++;
      continue;
    }
    CHECK(rc == 0, "NVRTC: %s: %s", kb->label, err);
    n++;
  }
  CHECK(nhost == 5, "%d host fast paths (graph.sssp_relax_host_*, _split_host_*)", nhost);
  printf("nvrtc: %d graph and sort bodies compiled for cuda\n", n);
}

int main(void) {
  api_tests();
  nvrtc_tests();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
