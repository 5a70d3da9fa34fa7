/* mesh.c: the node graph of a finite element mesh (seed 002, "thread
 * scalable construction of sparse matrix graph from finite element
 * mesh"), through the dialect's lock-free unordered map:
 *   1. every element inserts each pair {u, v} (u < v) of its nodes into
 *      the map (key u * nv + v); a successful insert counts the edge in
 *      both rows. Inserts that find the map full are counted: the driver
 *      moves the entries into a map twice as large and runs the inserts
 *      again (a pair already in is not counted twice);
 *   2. a scan of the counts gives the row offsets;
 *   3. every entry of the map writes its two arcs;
 *   4. every row is sorted.
 * The result is an undirected graph without self-loops (a node is not its
 * own neighbour), the same on every back end.
 */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "graph.h"
#include "kbodies.h"

/* the map's four views as captures "m_keys" ... (names as the dialect's
 * umap_* words spell them for a map capture 'm') */
typedef struct umap {
  sk_view keys, vals, flags, meta;
} umap;

static void umap_release(umap *m) {
  sk_view_release(&m->keys);
  sk_view_release(&m->vals);
  sk_view_release(&m->flags);
  sk_view_release(&m->meta);
}

static int umap_make(umap *m, int64_t cap, int space, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (sk_sp_view(&m->keys, "mesh pairs", SK_I64, cap, space, 0, err, errlen) < 0 ||
      sk_sp_view(&m->vals, "mesh pair values", SK_I32, 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&m->flags, "mesh pair flags", SK_I32, cap, space, 1, err, errlen) < 0 ||
      sk_sp_view(&m->meta, "mesh map counts", SK_I64, 2, space, 1, err, errlen) < 0) {
    umap_release(m);
    return -1;
  }
  return 0;
}

/* the map capture 'p' ("m" / "o" / "n") of 'm' at a[*n] */
static void umap_args(const umap *m, const char *p, char names[4][16], sk_arg *a,
                      int *n) {
  static const char *const sfx[] = {"_keys", "_vals", "_flags", "_meta"};
  const sk_view *v[] = {&m->keys, &m->vals, &m->flags, &m->meta};
  for (int k = 0; k < 4; k++) {
    snprintf(names[k], 16, "%s%s", p, sfx[k]);
    a[(*n)++] = sk_arg_view(names[k], v[k]);
  }
}

#define MAPSIG(p) \
  R1(p "_keys", "int64") \
  R1(p "_vals", "int32") R1(p "_flags", "int32") R1(p "_meta", "int64")

/* the smallest and largest node id */
static const char *const sig_ids[] = {"mdrange2 e=int64[2]", NULL};
static const sk_kbody k_ids = {.label = "graph.mesh_ids",
                               .body = sk_body_graph_mesh_ids,
                               .pattern = SK_REDUCE,
                               .sigs = sig_ids,
                               .reds = "min:int64 max:int64"};

/* the first bad entry (row-major position) and its id */
static const sk_kbody k_firstbad = {.label = "graph.mesh_first_bad",
                                    .body = sk_body_graph_mesh_first_bad,
                                    .pattern = SK_REDUCE,
                                    .reds = "min:int64"};
static const sk_kbody k_entry = {.label = "graph.mesh_entry",
                                 .body = sk_body_graph_mesh_entry,
                                 .pattern = SK_REDUCE,
                                 .reds = "max:int64"};

static const char *const sig_insert[] = {
  "range e=int64[2]" MAPSIG("m") R1("cnt", "int64") " nv=int64", NULL};
static const sk_kbody k_insert = {.label = "graph.mesh_insert",
                                  .body = sk_body_graph_mesh_insert,
                                  .pattern = SK_FOR,
                                  .sigs = sig_insert};

static const char *const sig_rehash[] = {"range" MAPSIG("o") MAPSIG("n"), NULL};
static const sk_kbody k_rehash = {.label = "graph.mesh_rehash",
                                  .body = sk_body_graph_mesh_rehash,
                                  .pattern = SK_FOR,
                                  .sigs = sig_rehash};

static const char *const sig_fill[] = {"range" MAPSIG("m") R1("rowptr", "int64")
                                         R1("fill", "int64")
                                           R1("colidx", "int32") " nv=int64",
                                       NULL};
static const sk_kbody k_fill = {.label = "graph.mesh_fill",
                                .body = sk_body_graph_mesh_fill,
                                .pattern = SK_FOR,
                                .sigs = sig_fill};

static const char *const sig_sortrows[] = {
  "range" R1("rowptr", "int64") R1("colidx", "int32"), NULL};
static const sk_kbody k_sortrows = {.label = "graph.mesh_sort_rows",
                                    .body = sk_body_graph_mesh_sort_rows,
                                    .pattern = SK_FOR,
                                    .sigs = sig_sortrows,
                                    .prelude = sk_body_sparse_prelude};

static int64_t pow2_at_least(int64_t n) {
  int64_t p = 16;
  while (p < n) p <<= 1;
  return p;
}

/* graph.from_mesh: elems (rank 2: elements x nodes per element, int64 or
 * int32) [, nodes (the node count; default the largest id + 1), capacity
 * (the map's first capacity)] -> G_rowptr, G_colidx, nv, rehashes */
static int from_mesh(const sk_arg *args, int nargs, sk_kvalue *out, char *err,
                     size_t errlen) {
  static const char *const known[] = {"elems", "nodes", "capacity", NULL};
  const sk_view *e;
  if (sk_karg_known(args, nargs, known, err, errlen) < 0 ||
      !(e = sk_karg_view(args, nargs, "elems", -1, err, errlen)))
    return -1;
  if (e->rank != 2 || e->agg || (e->dtype != SK_I64 && e->dtype != SK_I32)) {
    sk_err(err, errlen, SK_E_ELEMS_VIEW_MUST, e->label, sk_dtypes[e->dtype].name,
           e->rank);
    return -1;
  }
  int64_t nel = e->extent[0], npe = e->extent[1], nv = -1, cap0 = 0;
  if (sk_karg_find(args, nargs, "nodes") &&
      sk_karg_i64(args, nargs, "nodes", 0, 0, &nv, err, errlen) < 0)
    return -1;
  if (sk_karg_find(args, nargs, "capacity") &&
      sk_karg_i64(args, nargs, "capacity", 0, 0, &cap0, err, errlen) < 0)
    return -1;
  if (sk_karg_find(args, nargs, "nodes") && nv < 0) {
    sk_err(err, errlen, SK_E_NODES_MUST_LEAST, (long long)nv);
    return -1;
  }
  if (sk_karg_find(args, nargs, "capacity") && cap0 < 1) {
    sk_err(err, errlen, SK_E_CAPACITY_MUST_LEAST, (long long)cap0);
    return -1;
  }
  sk_policy md;
  sk_policy_init(&md, SK_POL_MDRANGE);
  md.md_rank = 2;
  md.md_lo[0] = md.md_lo[1] = 0;
  md.md_hi[0] = nel;
  md.md_hi[1] = npe;
  int64_t lo = 0, hi = -1;
  if (nel > 0 && npe > 0) {
    sk_arg a[] = {sk_arg_view("e", e)};
    sk_result r;
    if (sk_kbody_launch(&k_ids, &md, a, 1, &r, err, errlen) < 0) return -1;
    lo = sk_result_i64(&r, 0);
    hi = sk_result_i64(&r, 1);
  }
  if (nv < 0) nv = hi + 1;
  if (lo < 0 || hi >= nv) {
    sk_arg a[] = {sk_arg_view("e", e), sk_arg_i64("nv", nv)};
    sk_result r;
    int64_t p, x;
    if (sk_kbody_launch(&k_firstbad, &md, a, 2, &r, err, errlen) < 0) return -1;
    p = sk_result_i64(&r, 0);
    sk_arg c[] = {sk_arg_view("e", e), sk_arg_i64("p", p)};
    if (sk_kbody_launch(&k_entry, &md, c, 2, &r, err, errlen) < 0) return -1;
    x = sk_result_i64(&r, 0);
    if (x < 0)
      sk_err(err, errlen, SK_E_ELEMENT_NODE_NODE, (long long)(p / npe),
             (long long)(p % npe), (long long)x);
    else
      sk_err(err, errlen, SK_E_ELEMENT_NODE_MESH, (long long)(p / npe),
             (long long)(p % npe), (long long)x, (long long)nv, (long long)nv - 1);
    return -1;
  }
  if (nv > INT32_MAX || (nv > 0 && nv > INT64_MAX / nv)) {
    sk_err(err, errlen, SK_E_NODES_NODE_IDS, (long long)nv);
    return -1;
  }
  int space = e->space, rc = -1;
  int64_t pairs = nel * (npe * (npe - 1) / 2);
  int64_t cap = pow2_at_least(cap0 > 0 ? cap0 : pairs / 2 + 16);
  umap m, n2;
  sk_view ev, cnt, rowptr, fill, colidx;
  sk_view *all[] = {&ev, &cnt, &rowptr, &fill, &colidx};
  for (int t = 0; t < NELEM(all); t++) memset(all[t], 0, sizeof *all[t]);
  memset(&n2, 0, sizeof n2);
  if (umap_make(&m, cap, space, err, errlen) < 0) return -1;
  const sk_view *el = e;
  if (e->dtype != SK_I64) {
    /* the precompiled insert takes int64 ids: widen once */
    int64_t ext[2] = {nel, npe};
    sk_arg a[] = {sk_arg_view("d", &ev), sk_arg_view("s", e)};
    static const sk_kbody k_widen = {
      .label = "graph.mesh_widen", .body = sk_body_graph_mesh_widen, .pattern = SK_FOR};
    if (sk_view_create(&ev, "mesh elements", SK_I64, 2, ext,
                       sk_space_default_layout(space), space, 0, NULL, err, errlen) < 0 ||
        (nel > 0 && npe > 0 &&
         sk_kbody_launch(&k_widen, &md, a, 2, NULL, err, errlen) < 0))
      goto done;
    el = &ev;
  }
  if (sk_sp_view(&cnt, "row counts", SK_I64, nv + 1, space, 1, err, errlen) < 0 ||
      sk_sp_view(&rowptr, "G_rowptr", SK_I64, nv + 1, space, 0, err, errlen) < 0 ||
      sk_sp_view(&fill, "row fill", SK_I64, nv > 0 ? nv : 1, space, 1, err, errlen) < 0)
    goto done;
  int64_t rehashes = 0;
  for (;;) {
    char names[4][16];
    sk_arg a[8];
    int na = 0;
    a[na++] = sk_arg_view("e", el);
    umap_args(&m, "m", names, a, &na);
    a[na++] = sk_arg_view("cnt", &cnt);
    a[na++] = sk_arg_i64("nv", nv);
    int64_t failed;
    if (sk_sp_range(&k_insert, nel, a, na, NULL, err, errlen) < 0 ||
        sk_sp_get_i64(&m.meta, 1, &failed, err, errlen) < 0)
      goto done;
    if (failed == 0) break;
    /* full: every entry into a map twice as large, then the inserts again */
    char on[4][16], nn[4][16];
    sk_arg b[8];
    int nb = 0;
    if (umap_make(&n2, 2 * cap, space, err, errlen) < 0) goto done;
    umap_args(&m, "o", on, b, &nb);
    umap_args(&n2, "n", nn, b, &nb);
    if (sk_sp_range(&k_rehash, cap, b, nb, NULL, err, errlen) < 0) goto done;
    umap_release(&m);
    m = n2;
    memset(&n2, 0, sizeof n2);
    cap *= 2;
    rehashes++;
  }
  int64_t narcs = 0;
  if (sk_sp_scan(&cnt, &rowptr, nv, &narcs, err, errlen) < 0 ||
      sk_sp_view(&colidx, "G_colidx", SK_I32, narcs, space, 0, err, errlen) < 0)
    goto done;
  {
    char names[4][16];
    sk_arg a[8];
    int na = 0;
    umap_args(&m, "m", names, a, &na);
    a[na++] = sk_arg_view("rowptr", &rowptr);
    a[na++] = sk_arg_view("fill", &fill);
    a[na++] = sk_arg_view("colidx", &colidx);
    a[na++] = sk_arg_i64("nv", nv);
    sk_arg s[] = {sk_arg_view("rowptr", &rowptr), sk_arg_view("colidx", &colidx)};
    if (sk_sp_range(&k_fill, cap, a, na, NULL, err, errlen) < 0 ||
        sk_sp_range(&k_sortrows, nv, s, 2, NULL, err, errlen) < 0)
      goto done;
  }
  if (sk_kout_num(out, "nv", (double)nv, err, errlen) < 0 ||
      sk_kout_num(out, "rehashes", (double)rehashes, err, errlen) < 0 ||
      sk_kout_view(out, "G_rowptr", &rowptr, err, errlen) < 0 ||
      sk_kout_view(out, "G_colidx", &colidx, err, errlen) < 0)
    goto done;
  rc = 0;
done:
  umap_release(&m);
  umap_release(&n2);
  for (int t = 0; t < NELEM(all); t++) sk_view_release(all[t]);
  return rc;
}

static const sk_kentry e_mesh = {"graph.from_mesh", "elems [, nodes, capacity]",
                                 SK_KRES_NONE, from_mesh};

const sk_kentry *const sk_gmesh_entries[] = {&e_mesh, NULL};
const sk_kbody *const sk_gmesh_bodies[] = {&k_insert, &k_rehash, &k_fill, &k_sortrows,
                                           NULL};
