/* test_gvalues.c: graphs as values from C, with no Lua state (the C
 * kernel API, speck.h): on a 4x3 grid "graph.subgraph" of a mask (the
 * first row: a path of 4 vertices, original ids 0..3), "graph.filter_edges"
 * with a predicate (the horizontal edges only), "graph.combine" (the
 * grid's arcs reversed as a directed graph: the same arcs),
 * "graph.largest_mask" over the components' labels, and a mask of the
 * wrong length refused with its message. Runs on the space of
 * SPECK_SPACE. Last line: 'N passed, M failed'.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/speck.h"

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

/* a view in the default space holding 'n' values of 'h' */
static speck_view *device_copy(speck_runtime *rt, const char *dtype, int64_t n, void *h) {
  char err[512];
  speck_view *w = speck_view_wrap(rt, "h", dtype, 1, &n, h, err, sizeof err);
  speck_view *d = speck_view_new(rt, "d", dtype, 1, &n, NULL, err, sizeof err);
  if (!w || !d || speck_deep_copy(d, w, err, sizeof err)) {
    printf("device_copy: %s\n", err);
    exit(1);
  }
  speck_view_release(w);
  return d;
}

static void release(speck_out *o, int n) {
  for (int i = 0; i < n; i++)
    if (o[i].view) speck_view_release(o[i].view);
}

enum { NX = 4, NY = 3, NV = NX * NY };

int main(void) {
  char err[1024];
  speck_runtime *rt = speck_runtime_open(NULL, 0, err, sizeof err);
  CHECK(rt != NULL, "%s", err);
  if (!rt) return 1;
  speck_out o[8], b[8];
  int no = 0, nb = 0;
  speck_arg ga[] = {speck_arg_i64("nx", NX), speck_arg_i64("ny", NY), speck_arg_i64("nz", 1)};
  int rc = speck_call_out(rt, "graph.grid", ga, 3, NULL, o, 8, &no, err, sizeof err);
  CHECK(rc == 0, "graph.grid: %s", err);
  if (rc) return 1;
  speck_view *rp = find_out(o, no, "G_rowptr")->view;
  speck_view *ci = find_out(o, no, "G_colidx")->view;

  /* the first row as a mask: a path 0 - 1 - 2 - 3 */
  int32_t mask[NV] = {1, 1, 1, 1};
  speck_view *m = device_copy(rt, "int32", NV, mask);
  speck_arg sa[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_view("vertices", m)};
  rc = speck_call_out(rt, "graph.subgraph", sa, 3, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0, "graph.subgraph: %s", err);
  if (rc == 0) {
    int64_t hrp[NX + 1], orig[NX];
    int32_t hci[6];
    CHECK(find_out(b, nb, "nv")->value == NX, "nv %g", find_out(b, nb, "nv")->value);
    host_copy(rt, find_out(b, nb, "G_rowptr")->view, "int64", NX + 1, hrp);
    host_copy(rt, find_out(b, nb, "orig")->view, "int64", NX, orig);
    CHECK(hrp[NX] == 6, "a path of 4 vertices has 6 arcs, got %lld", (long long)hrp[NX]);
    host_copy(rt, find_out(b, nb, "G_colidx")->view, "int32", 6, hci);
    int32_t want[6] = {1, 0, 2, 1, 3, 2};
    CHECK(memcmp(hci, want, sizeof want) == 0, "the path's arcs");
    CHECK(orig[0] == 0 && orig[3] == 3, "original ids");
    release(b, nb);
  }

  /* horizontal edges: |u - v| == 1 (grid ids x + NX y) */
  speck_arg fa[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_str("pred", "v - u == 1")};
  rc = speck_call_out(rt, "graph.filter_edges", fa, 3, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0, "graph.filter_edges: %s", err);
  if (rc == 0) {
    int64_t frp[NV + 1];
    host_copy(rt, find_out(b, nb, "G_rowptr")->view, "int64", NV + 1, frp);
    CHECK(frp[NV] == 2 * (NX - 1) * NY, "horizontal arcs: %lld", (long long)frp[NV]);
    release(b, nb);
  }
  speck_arg bad[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                     speck_arg_str("pred", "v -")};
  rc = speck_call_out(rt, "graph.filter_edges", bad, 3, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc != 0 && strstr(err, "the predicate does not compile:\npredicate line 1: ") != NULL,
        "a bad predicate: %s", err);

  /* reversed as a directed graph: an undirected grid's arcs again */
  speck_arg ca[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_i64("nv", NV), speck_arg_i64("g_rev", 1),
                    speck_arg_i64("directed", 1), speck_arg_i64("dedupe", 0)};
  rc = speck_call_out(rt, "graph.combine", ca, 6, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0, "graph.combine: %s", err);
  if (rc == 0) {
    int64_t a[NV + 1], r[NV + 1];
    host_copy(rt, rp, "int64", NV + 1, a);
    host_copy(rt, find_out(b, nb, "G_rowptr")->view, "int64", NV + 1, r);
    CHECK(memcmp(a, r, sizeof a) == 0, "the reversed grid's rows");
    release(b, nb);
  }

  /* the largest component of two: labels {0, 0, 0, 3, 3} */
  int64_t lab[5] = {0, 0, 0, 3, 3};
  speck_view *lv = device_copy(rt, "int64", 5, lab);
  speck_arg la[] = {speck_arg_view("labels", lv)};
  rc = speck_call_out(rt, "graph.largest_mask", la, 1, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc == 0 && find_out(b, nb, "size")->value == 3, "graph.largest_mask: %s", err);
  if (rc == 0) {
    int32_t k[5];
    host_copy(rt, find_out(b, nb, "keep")->view, "int32", 5, k);
    CHECK(k[0] == 1 && k[2] == 1 && k[3] == 0 && k[4] == 0, "the mask");
    release(b, nb);
  }

  /* a mask of the wrong length */
  speck_view *m5 = device_copy(rt, "int32", 5, mask);
  speck_arg sb[] = {speck_arg_view("G_rowptr", rp), speck_arg_view("G_colidx", ci),
                    speck_arg_view("vertices", m5)};
  rc = speck_call_out(rt, "graph.subgraph", sb, 3, NULL, b, 8, &nb, err, sizeof err);
  CHECK(rc != 0 && strcmp(err, "speck_call graph.subgraph: the mask (view 'd') has 5 "
                               "entries, the graph 12 vertices (an int32 view is a mask "
                               "of length nv)") == 0,
        "a short mask: %s", err);
  speck_view_release(m5);
  speck_view_release(lv);
  speck_view_release(m);
  release(o, no);
  speck_runtime_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
