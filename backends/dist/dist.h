/* dist.h: the MPI side of speck.dist -- row maps, halo plans (a
 * communication plan built once from a matrix's column indices and
 * replayed by MPI_Ineighbor_alltoallv over a dist-graph communicator),
 * agreement checks before collectives, and the few collectives the
 * distributed objects need (allgather(v), alltoallv, a first-failure
 * consensus). Every other part of speck.dist (stdlib/speck/dist.lua) calls
 * MPI only through here. Functions return 0 or -1 with 'err' filled;
 * nothing here knows Lua. Runs on the ranks speck.remote started.
 */
#ifndef SK_DIST_H
#define SK_DIST_H

#include <stddef.h>
#include <stdint.h>

/* a row map: contiguous blocks ('off' of nranks + 1 entries, rank r owns
 * [off[r], off[r+1])) or a partition vector ('part': the owner of every
 * global index, int32 or int64, held by the caller) with this rank's
 * sorted global ids 'ids' (nloc of them, held by the caller) */
typedef struct sk_dist_map {
  int64_t n, nloc;
  int nranks, me;
  int64_t *off;        /* contiguous: owned here; else NULL */
  const void *part;    /* partition: the caller's vector */
  int part64;          /* part is int64 (else int32) */
  const int64_t *ids;  /* partition: this rank's global ids, sorted */
} sk_dist_map;

int sk_dist_owner(const sk_dist_map *m, int64_t g);
/* the local index of global 'g' on this rank, or -1 if another owns it */
int64_t sk_dist_lid(const sk_dist_map *m, int64_t g);

/* a halo plan: which entries this rank receives (the halo, in the order
 * of 'halo_ids': by owner, then id) and which local entries it sends */
typedef struct sk_dist_plan {
  int nsrc, ndst;          /* neighbours: ranks received from / sent to */
  int *src, *dst;          /* their ranks */
  int *rcount, *rdispl;    /* per source: elements and offset in the halo */
  int *scount, *sdispl;    /* per destination: elements and offset in 'slid' */
  int64_t nhalo, nsend;
  int64_t *slid;           /* local indices to send, by destination */
  uint64_t *sbuf;          /* packed send buffer (nsend) */
  void *comm;              /* the dist-graph communicator (MPI_Comm *) */
  void *rcomm;             /* the reverse graph, for exports (MPI_Comm *) */
  void *req;               /* the exchange in flight (MPI_Request *) */
  int busy;
  double build_s;          /* build time, seconds */
} sk_dist_plan;

/* Collective: the plan receiving 'halo_ids' (nhalo global ids this rank
 * needs and does not own, sorted by owner then id) over 'm'. */
int sk_dist_plan_build(sk_dist_plan *p, const sk_dist_map *m, const int64_t *halo_ids,
                       int64_t nhalo, char *err, size_t errlen);
/* start the exchange of 8-byte elements: owners send xloc[slid], 'halo'
 * receives (nhalo); finish with sk_dist_plan_wait */
int sk_dist_plan_start(sk_dist_plan *p, const void *xloc, void *halo, char *err,
                       size_t errlen);
int sk_dist_plan_wait(sk_dist_plan *p, char *err, size_t errlen);
/* Moves a started exchange on (MPI_Test: MPI progresses a nonblocking
 * collective only inside its calls), between pieces of the work it
 * overlaps; completed, the wait returns at once. */
int sk_dist_plan_progress(sk_dist_plan *p, char *err, size_t errlen);
/* the same exchange from a send buffer the caller packed ('sbuf': nsend
 * elements, the values of local entries slid[k], kept untouched until
 * sk_dist_plan_wait) */
int sk_dist_plan_start_packed(sk_dist_plan *p, const void *sbuf, void *halo, char *err,
                              size_t errlen);
/* Reverse: 'halo' values (nhalo) summed (float64 when 'isf64', else
 * int64) into their owners' 'xloc' -- an export with ADD */
int sk_dist_plan_export_add(sk_dist_plan *p, const void *halo, void *xloc, int isf64,
                            char *err, size_t errlen);
/* Collective: for each element this rank sends (nsend), the rank it goes
 * to (pe) and its place in that rank's halo (off) -- where a one-sided put
 * of the packed value lands in the receiver's halo buffer */
int sk_dist_plan_put_targets(sk_dist_plan *p, int64_t *pe, int64_t *off, char *err,
                             size_t errlen);
void sk_dist_plan_free(sk_dist_plan *p);

/* Split a local CRS (nloc rows, global column ids 'col' int32 or int64)
 * over map 'm': columns this rank owns become interior entries (their
 * local index), the rest halo entries. Pass 1 (out NULL): counts *nint,
 * *nbnd and the sorted halo ids into a new array *halo (malloc'd) of
 * *nhalo. Pass 2: fills ip/ic/iv (interior) and bp/bc/bv (boundary,
 * columns = positions in the halo). Returns -1 for a column id outside
 * [0, ncols) (err names row and column). */
int sk_dist_split(const sk_dist_map *m, int64_t ncols, int64_t nloc, const int64_t *rowptr,
                  const void *col, int col64, const double *val, int64_t *nint,
                  int64_t *nbnd, int64_t **halo, int64_t *nhalo, int64_t *ip, int32_t *ic,
                  double *iv, int64_t *bp, int32_t *bc, double *bv, char *err,
                  size_t errlen);

/* Collective agreement before a collective call: every rank passes the
 * call's name and n integers describing it (sizes, map ids, ...); if any
 * rank differs (at most 15 fields count), every rank gets the same message naming the call (or the
 * two calls) and the first field that differs, with its smallest and
 * largest values and a rank holding each. 1: disagreement (msg filled),
 * 0: agreed, -1: MPI failure (msg filled). */
int sk_dist_agree(const char *call, const int64_t *desc, const char *const *names, int n,
                  char *msg, size_t msglen);
/* Collective: 'failed' ranks pass their message; every rank gets the
 * message of the lowest failing rank (returns 1), or 0 if none failed */
int sk_dist_consensus(int failed, const char *mine, char *msg, size_t msglen);
/* Collective: out[r] = x of rank r */
int sk_dist_allgather_i64(int64_t x, int64_t *out, char *err, size_t errlen);
/* Collective: rank r's 'counts[r]' elements of 'esize' bytes, in rank
 * order, into 'out' on every rank */
int sk_dist_allgatherv(const void *mine, int64_t nmine, const int64_t *counts, int esize,
                       void *out, char *err, size_t errlen);
/* Collective: the same into 'out' on rank 'root' only ('out' unused
 * elsewhere) */
int sk_dist_gatherv(const void *mine, int64_t nmine, const int64_t *counts, int esize,
                    void *out, int root, char *err, size_t errlen);
/* Collective: 'scount[r]' elements of 'esize' bytes (in rank order in
 * 'sbuf') to rank r; *rbuf (malloc'd) receives rcount[r] from each */
int sk_dist_alltoallv(const void *sbuf, const int64_t *scount, int esize, void **rbuf,
                      int64_t *rcount, char *err, size_t errlen);
/* Collective: x[0..n) of int64 reduced in place (op 0 sum, 1 min, 2 max) */
int sk_dist_allreduce_i64(int64_t *x, int n, int op, char *err, size_t errlen);
/* Collective: x[0..n) of float64 summed in place (one MPI_Allreduce) */
int sk_dist_allreduce_sum_f64(double *x, int n, char *err, size_t errlen);
/* Collective: t[0..n) summed over the ranks with each rank's 'failed'
 * flag beside them in t[n] (t holds n + 1); 0, or -1 on every rank when one failed (err: the
 * lowest failing rank's message, as sk_dist_consensus gives it) */
int sk_dist_allsum_or_fail_i64(int64_t *t, int n, int failed, char *err, size_t errlen);
int sk_dist_allsum_or_fail_f64(double *t, int n, int failed, char *err, size_t errlen);
/* Collective: the most ranks any one node holds (MPI_COMM_TYPE_SHARED) */
int sk_dist_node_ranks(int *most, char *err, size_t errlen);
double sk_dist_wtime(void);
#endif
