/* comm.h: what the structural and community algorithms (kcore.c, scc.c,
 * lpa.c, louvain.c) share; internal.
 */
#ifndef SK_GRAPH_COMM_H
#define SK_GRAPH_COMM_H

#include "algo.h"

/* Canonical labels: 'lab' (int64 or int32, nv entries, each a vertex id
 * naming its class) into 'out' (int64 or int32, nv entries): the classes
 * numbered 0..n-1 in the order of their first (smallest) vertex; *n the
 * number of classes. */
int sk_gcomm_canon(const sk_view *lab, int64_t nv, const sk_view *out, int64_t *n,
                   char *err, size_t errlen);

/* Independent classes of the vertices of rowptr/colidx (Jones-Plassmann:
 * round r takes each vertex without a class whose priority, splitmix64 of
 * 'seed' and its id, beats its classless neighbours'): class r's vertices
 * at q[off[r] .. off[r + 1]) ('off' holds nv + 1), *nclass classes; 'col'
 * (int64, nv) gets each vertex's class, 'cnt' (int64, 1) is a counter */
int sk_gcomm_classes(const sk_view *rowptr, const sk_view *colidx, int64_t nv, int64_t seed,
                     const sk_view *col, const sk_view *q, const sk_view *cnt, int64_t *off,
                     int64_t *nclass, char *err, size_t errlen);

/* the transpose of 'g' (the in-arcs of a directed graph) into new views
 * 'trp' (int64, nv + 1) and 'tci' (int32, narcs) */
int sk_gcomm_transpose(const sk_graph *g, sk_view *trp, sk_view *tci, char *err,
                       size_t errlen);

extern const sk_kentry sk_gcomm_kcore, sk_gcomm_scc, sk_gcomm_wcc, sk_gcomm_lpa,
  sk_gcomm_louvain;
extern const sk_kbody *const sk_gkcore_bodies[];
extern const sk_kbody *const sk_gscc_bodies[];
extern const sk_kbody *const sk_glpa_bodies[];
extern const sk_kbody *const sk_glouvain_bodies[];

/* the entries of the four files (louvain.c lists them; graph.c lists
 * the entries and each file's bodies) */
extern const sk_kentry *const sk_gcomm_entries[];

#endif
