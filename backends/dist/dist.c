/* dist.c: the MPI side of speck.dist (see dist.h): row maps, halo plans
 * over MPI_Dist_graph_create_adjacent + MPI_Ineighbor_alltoallv, the split
 * of a local CRS into interior and boundary columns, agreement checks
 * and the collectives speck.dist needs. Built with MPI when make finds it
 * (SK_HAVE_MPI); without it every collective fails with the reason.
 */
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"

int sk_dist_owner(const sk_dist_map *m, int64_t g) {
  if (m->off) {
    int lo = 0, hi = m->nranks - 1; /* the last r with off[r] <= g */
    while (lo < hi) {
      int mid = (lo + hi + 1) / 2;
      if (m->off[mid] <= g) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  return m->part64 ? (int)((const int64_t *)m->part)[g] : ((const int32_t *)m->part)[g];
}

int64_t sk_dist_lid(const sk_dist_map *m, int64_t g) {
  if (m->off) {
    int64_t b = m->off[m->me], e = m->off[m->me + 1];
    return g >= b && g < e ? g - b : -1;
  }
  int64_t lo = 0, hi = m->nloc;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (m->ids[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->nloc && m->ids[lo] == g ? lo : -1;
}

/* -- the split of a local CRS ------------------------------------------- */
static const sk_dist_map *sort_map;
static int by_owner(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  int ox = sk_dist_owner(sort_map, x), oy = sk_dist_owner(sort_map, y);
  if (ox != oy) return ox < oy ? -1 : 1;
  return x < y ? -1 : x > y;
}

static int64_t halo_pos(const int64_t *halo, int64_t nhalo, const sk_dist_map *m, int64_t g) {
  int og = sk_dist_owner(m, g);
  int64_t lo = 0, hi = nhalo;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int om = sk_dist_owner(m, halo[mid]);
    if (om < og || (om == og && halo[mid] < g)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int sk_dist_split(const sk_dist_map *m, int64_t ncols, int64_t nloc, const int64_t *rowptr,
                  const void *col, int col64, const double *val, int64_t *nint,
                  int64_t *nbnd, int64_t **halo, int64_t *nhalo, int64_t *ip, int32_t *ic,
                  double *iv, int64_t *bp, int32_t *bc, double *bv, char *err,
                  size_t errlen) {
#define COL(k) (col64 ? ((const int64_t *)col)[k] : (int64_t)((const int32_t *)col)[k])
  if (!ip) { /* pass 1 */
    int64_t ni = 0, nb = 0;
    for (int64_t r = 0; r < nloc; r++)
      for (int64_t k = rowptr[r]; k < rowptr[r + 1]; k++) {
        int64_t c = COL(k);
        if (c < 0 || c >= ncols) {
          sk_err(err, errlen, SK_E_DIST_COLUMN, (long long)r, (long long)c, (long long)ncols);
          return -1;
        }
        if (sk_dist_lid(m, c) >= 0) ni++;
        else nb++;
      }
    int64_t *h = malloc((size_t)(nb ? nb : 1) * sizeof *h), nh = 0;
    if (!h) {
      sk_err(err, errlen, SK_E_DIST_NOMEM, (long long)nb);
      return -1;
    }
    for (int64_t k = 0; k < rowptr[nloc]; k++)
      if (sk_dist_lid(m, COL(k)) < 0) h[nh++] = COL(k);
    sort_map = m;
    qsort(h, (size_t)nh, sizeof *h, by_owner);
    int64_t u = 0;
    for (int64_t k = 0; k < nh; k++)
      if (u == 0 || h[k] != h[u - 1]) h[u++] = h[k];
    *nint = ni;
    *nbnd = nb;
    *halo = h;
    *nhalo = u;
    return 0;
  }
  int64_t ni = 0, nb = 0;
  ip[0] = bp[0] = 0;
  for (int64_t r = 0; r < nloc; r++) {
    for (int64_t k = rowptr[r]; k < rowptr[r + 1]; k++) {
      int64_t c = COL(k), l = sk_dist_lid(m, c);
      if (l >= 0) {
        ic[ni] = (int32_t)l;
        iv[ni++] = val ? val[k] : 1.0;
      } else {
        bc[nb] = (int32_t)halo_pos(*halo, *nhalo, m, c);
        bv[nb++] = val ? val[k] : 1.0;
      }
    }
    ip[r + 1] = ni;
    bp[r + 1] = nb;
  }
  return 0;
#undef COL
}

double sk_dist_wtime(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#ifdef SK_HAVE_MPI
#include <mpi.h>

static int mpi_fail(char *err, size_t errlen, const char *what, int rc) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", rc);
  sk_err(err, errlen, SK_E_FAILED, what, s);
  return -1;
}
#define MPI_TRY(call, what)                                                  \
  do {                                                                       \
    int rc_ = (call);                                                        \
    if (rc_ != MPI_SUCCESS) return mpi_fail(err, errlen, what, rc_);         \
  } while (0)

static int nomem(char *err, size_t errlen, int64_t n) {
  sk_err(err, errlen, SK_E_DIST_NOMEM, (long long)n);
  return -1;
}

int sk_dist_allreduce_i64(int64_t *x, int n, int op, char *err, size_t errlen) {
  MPI_Op o = op == 1 ? MPI_MIN : op == 2 ? MPI_MAX : MPI_SUM;
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_INT64_T, o, MPI_COMM_WORLD), "MPI_Allreduce");
  return 0;
}

int sk_dist_allreduce_sum_f64(double *x, int n, char *err, size_t errlen) {
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
          "MPI_Allreduce");
  return 0;
}

int sk_dist_allgather_i64(int64_t x, int64_t *out, char *err, size_t errlen) {
  MPI_TRY(MPI_Allgather(&x, 1, MPI_INT64_T, out, 1, MPI_INT64_T, MPI_COMM_WORLD),
          "MPI_Allgather");
  return 0;
}

/* counts and displacements in units of 'esize'-byte contiguous types */
static int counts_of(const int64_t *c, int np, int *cnt, int *dis, char *err, size_t errlen) {
  int64_t s = 0;
  for (int r = 0; r < np; r++) {
    if (c[r] > 2147483647 || s > 2147483647) {
      sk_err(err, errlen, SK_E_DIST_COUNT, (long long)c[r], r);
      return -1;
    }
    cnt[r] = (int)c[r];
    dis[r] = (int)s;
    s += c[r];
  }
  return 0;
}

int sk_dist_allgatherv(const void *mine, int64_t nmine, const int64_t *counts, int esize,
                       void *out, char *err, size_t errlen) {
  int np;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int *cnt = malloc(2 * (size_t)np * sizeof *cnt);
  if (!cnt) return nomem(err, errlen, np);
  int rc = counts_of(counts, np, cnt, cnt + np, err, errlen);
  MPI_Datatype t;
  if (rc == 0) {
    MPI_Type_contiguous(esize, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int m = MPI_Allgatherv(mine, (int)nmine, t, out, cnt, cnt + np, t, MPI_COMM_WORLD);
    MPI_Type_free(&t);
    if (m != MPI_SUCCESS) rc = mpi_fail(err, errlen, "MPI_Allgatherv", m);
  }
  free(cnt);
  return rc;
}

int sk_dist_gatherv(const void *mine, int64_t nmine, const int64_t *counts, int esize,
                    void *out, int root, char *err, size_t errlen) {
  int np;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int *cnt = malloc(2 * (size_t)np * sizeof *cnt);
  if (!cnt) return nomem(err, errlen, np);
  int rc = counts_of(counts, np, cnt, cnt + np, err, errlen);
  if (rc == 0) {
    MPI_Datatype t;
    MPI_Type_contiguous(esize, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int m = MPI_Gatherv(mine, (int)nmine, t, out, cnt, cnt + np, t, root, MPI_COMM_WORLD);
    MPI_Type_free(&t);
    if (m != MPI_SUCCESS) rc = mpi_fail(err, errlen, "MPI_Gatherv", m);
  }
  free(cnt);
  return rc;
}

int sk_dist_alltoallv(const void *sbuf, const int64_t *scount, int esize, void **rbuf,
                      int64_t *rcount, char *err, size_t errlen) {
  int np;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_TRY(MPI_Alltoall(scount, 1, MPI_INT64_T, rcount, 1, MPI_INT64_T, MPI_COMM_WORLD),
          "MPI_Alltoall");
  int *c = malloc(4 * (size_t)np * sizeof *c);
  if (!c) return nomem(err, errlen, np);
  int rc = counts_of(scount, np, c, c + np, err, errlen);
  if (rc == 0) rc = counts_of(rcount, np, c + 2 * np, c + 3 * np, err, errlen);
  int64_t nr = 0;
  for (int r = 0; r < np; r++) nr += rcount[r];
  *rbuf = rc == 0 ? malloc((size_t)(nr ? nr : 1) * (size_t)esize) : NULL;
  if (rc == 0 && !*rbuf) rc = nomem(err, errlen, nr);
  if (rc == 0) {
    MPI_Datatype t;
    MPI_Type_contiguous(esize, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    int m = MPI_Alltoallv(sbuf, c, c + np, t, *rbuf, c + 2 * np, c + 3 * np, t,
                          MPI_COMM_WORLD);
    MPI_Type_free(&t);
    if (m != MPI_SUCCESS) rc = mpi_fail(err, errlen, "MPI_Alltoallv", m);
  }
  if (rc < 0) {
    free(*rbuf);
    *rbuf = NULL;
  }
  free(c);
  return rc;
}

int sk_dist_consensus(int failed, const char *mine, char *msg, size_t msglen) {
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int who = failed ? me : np;
  char *err = msg;
  size_t errlen = msglen;
  MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
          "MPI_Allreduce");
  if (who == np) return 0;
  char buf[1024];
  if (me == who) snprintf(buf, sizeof buf, "%s", mine ? mine : "");
  MPI_TRY(MPI_Bcast(buf, sizeof buf, MPI_CHAR, who, MPI_COMM_WORLD), "MPI_Bcast");
  buf[sizeof buf - 1] = 0;
  snprintf(msg, msglen, "%s", buf);
  return 1;
}

#define NAME_HASH_MAX 64
#define SK_DIST_DESC 16
static int64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (int64_t)(h >> 1);
}

int sk_dist_agree(const char *call, const int64_t *desc, const char *const *names, int n,
                  char *msg, size_t msglen) {
  char *err = msg;
  size_t errlen = msglen;
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  /* SK_DIST_DESC fields on every rank whatever the call (the call first,
   * unused ones 0), each as (min, -max) in one MPI_MIN */
  if (n > SK_DIST_DESC - 1) n = SK_DIST_DESC - 1;
  int64_t *d = malloc(4 * (size_t)SK_DIST_DESC * sizeof *d);
  if (!d) return nomem(err, errlen, n);
  int64_t *mine = d + 2 * SK_DIST_DESC;
  memset(mine, 0, (size_t)SK_DIST_DESC * sizeof *mine);
  mine[0] = name_hash(call);
  for (int i = 0; i < n; i++) mine[i + 1] = desc[i];
  for (int i = 0; i < SK_DIST_DESC; i++) {
    d[2 * i] = mine[i];
    d[2 * i + 1] = -mine[i];
  }
  int rc = MPI_Allreduce(MPI_IN_PLACE, d, 2 * SK_DIST_DESC, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS) {
    free(d);
    return mpi_fail(err, errlen, "MPI_Allreduce", rc);
  }
  int bad = -1;
  for (int i = 0; i < SK_DIST_DESC && bad < 0; i++)
    if (d[2 * i] != -d[2 * i + 1]) bad = i;
  if (bad < 0) {
    free(d);
    return 0;
  }
  /* who holds the smallest and the largest value of the field */
  int who[2] = {mine[bad] == d[2 * bad] ? me : 1 << 30,
                mine[bad] == -d[2 * bad + 1] ? me : 1 << 30};
  MPI_Allreduce(MPI_IN_PLACE, who, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (bad == 0) { /* different calls: each side's name */
    char nm[2][NAME_HASH_MAX] = {{0}, {0}};
    for (int k = 0; k < 2; k++) {
      if (me == who[k]) snprintf(nm[k], sizeof nm[k], "%s", call);
      MPI_Bcast(nm[k], NAME_HASH_MAX, MPI_CHAR, who[k], MPI_COMM_WORLD);
      nm[k][NAME_HASH_MAX - 1] = 0;
    }
    int lo = who[0] < who[1] ? 0 : 1; /* the lower rank first */
    sk_err(msg, msglen, SK_E_DIST_DISAGREE_CALL, who[lo], nm[lo], who[1 - lo], nm[1 - lo]);
  } else {
    sk_err(msg, msglen, SK_E_DIST_DISAGREE, call, bad - 1 < n ? names[bad - 1] : "?", who[0],
           (long long)d[2 * bad], who[1], (long long)-d[2 * bad + 1]);
  }
  free(d);
  return 1;
}

/* -- halo plans --------------------------------------------------------- */
int sk_dist_plan_build(sk_dist_plan *p, const sk_dist_map *m, const int64_t *halo_ids,
                       int64_t nhalo, char *err, size_t errlen) {
  double t0 = MPI_Wtime();
  memset(p, 0, sizeof *p);
  int np = m->nranks;
  int64_t *rc = calloc(2 * (size_t)np, sizeof *rc), *sc = rc + np;
  if (!rc) return nomem(err, errlen, np);
  for (int64_t k = 0; k < nhalo; k++) rc[sk_dist_owner(m, halo_ids[k])]++;
  void *req = NULL;
  /* ask each owner for its entries: the ids go out, the send lists come in */
  if (sk_dist_alltoallv(halo_ids, rc, 8, &req, sc, err, errlen) < 0) {
    free(rc);
    return -1;
  }
  int64_t *want = req, nsend = 0;
  for (int r = 0; r < np; r++) nsend += sc[r];
  p->nhalo = nhalo;
  p->nsend = nsend;
  p->slid = malloc((size_t)(nsend ? nsend : 1) * sizeof *p->slid);
  p->sbuf = malloc((size_t)(nsend ? nsend : 1) * sizeof *p->sbuf);
  p->src = malloc(2 * (size_t)np * sizeof(int));
  p->rcount = malloc(4 * (size_t)np * sizeof(int));
  p->comm = malloc(sizeof(MPI_Comm));
  p->req = malloc(sizeof(MPI_Request));
  if (!p->slid || !p->sbuf || !p->src || !p->rcount || !p->comm || !p->req) {
    free(want);
    free(rc);
    sk_dist_plan_free(p);
    return nomem(err, errlen, nsend);
  }
  p->dst = p->src + np;
  p->rdispl = p->rcount + np;
  p->scount = p->rcount + 2 * np;
  p->sdispl = p->rcount + 3 * np;
  int64_t off = 0, soff = 0;
  for (int r = 0; r < np; r++) {
    if (rc[r]) {
      p->src[p->nsrc] = r;
      p->rcount[p->nsrc] = (int)rc[r];
      p->rdispl[p->nsrc++] = (int)off;
    }
    off += rc[r];
    if (sc[r]) {
      p->dst[p->ndst] = r;
      p->scount[p->ndst] = (int)sc[r];
      p->sdispl[p->ndst++] = (int)soff;
    }
    soff += sc[r];
  }
  int bad = 0;
  for (int64_t k = 0; k < nsend; k++) {
    p->slid[k] = sk_dist_lid(m, want[k]);
    if (p->slid[k] < 0) bad = 1;
  }
  free(want);
  free(rc);
  /* a rank asked for what another does not own: the maps differ; every
   * rank learns it before the collective graph creation */
  if (MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
    bad = 1;
  if (bad) {
    sk_dist_plan_free(p);
    sk_err(err, errlen, SK_E_DIST_PLAN_OWNER);
    return -1;
  }
  /* weights: the elements each edge carries */
  int mr = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, p->nsrc, p->src, p->rcount,
                                          p->ndst, p->dst, p->scount, MPI_INFO_NULL, 0,
                                          (MPI_Comm *)p->comm);
  if (mr != MPI_SUCCESS) {
    free(p->comm);
    p->comm = NULL;
    sk_dist_plan_free(p);
    return mpi_fail(err, errlen, "MPI_Dist_graph_create_adjacent", mr);
  }
  /* the reverse graph: halo entries back to their owners (exports) */
  p->rcomm = malloc(sizeof(MPI_Comm));
  mr = p->rcomm ? MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, p->ndst, p->dst, p->scount,
                                                 p->nsrc, p->src, p->rcount, MPI_INFO_NULL, 0,
                                                 (MPI_Comm *)p->rcomm)
                : MPI_ERR_NO_MEM;
  if (mr != MPI_SUCCESS) {
    free(p->rcomm);
    p->rcomm = NULL;
    sk_dist_plan_free(p);
    return mpi_fail(err, errlen, "MPI_Dist_graph_create_adjacent", mr);
  }
  p->build_s = MPI_Wtime() - t0;
  return 0;
}

int sk_dist_plan_start(sk_dist_plan *p, const void *xloc, void *halo, char *err,
                       size_t errlen) {
  const uint64_t *x = xloc;
  for (int64_t k = 0; k < p->nsend; k++) p->sbuf[k] = x[p->slid[k]];
  return sk_dist_plan_start_packed(p, p->sbuf, halo, err, errlen);
}

int sk_dist_plan_start_packed(sk_dist_plan *p, const void *sbuf, void *halo, char *err,
                              size_t errlen) {
  MPI_TRY(MPI_Ineighbor_alltoallv(sbuf, p->scount, p->sdispl, MPI_UINT64_T, halo,
                                  p->rcount, p->rdispl, MPI_UINT64_T, *(MPI_Comm *)p->comm,
                                  (MPI_Request *)p->req),
          "MPI_Ineighbor_alltoallv");
  p->busy = 1;
  return 0;
}

int sk_dist_plan_wait(sk_dist_plan *p, char *err, size_t errlen) {
  if (!p->busy) return 0;
  p->busy = 0;
  MPI_TRY(MPI_Wait((MPI_Request *)p->req, MPI_STATUS_IGNORE), "MPI_Wait");
  return 0;
}

int sk_dist_plan_progress(sk_dist_plan *p, char *err, size_t errlen) {
  if (!p->busy) return 0;
  int done = 0;
  MPI_TRY(MPI_Test((MPI_Request *)p->req, &done, MPI_STATUS_IGNORE), "MPI_Test");
  if (done) p->busy = 0;
  return 0;
}

/* the receivers tell each sender where its entries start in their halo
 * (over the reverse graph: one int64 to each original source) */
int sk_dist_plan_put_targets(sk_dist_plan *p, int64_t *pe, int64_t *off, char *err,
                             size_t errlen) {
  int np = p->nsrc > p->ndst ? p->nsrc : p->ndst;
  int64_t *mine = malloc(2 * (size_t)(np ? np : 1) * sizeof *mine), *theirs = mine + np;
  if (!mine) return nomem(err, errlen, np);
  for (int i = 0; i < p->nsrc; i++) mine[i] = p->rdispl[i];
  int mr = MPI_Neighbor_alltoall(mine, 1, MPI_INT64_T, theirs, 1, MPI_INT64_T,
                                 *(MPI_Comm *)p->rcomm);
  if (mr != MPI_SUCCESS) {
    free(mine);
    return mpi_fail(err, errlen, "MPI_Neighbor_alltoall", mr);
  }
  for (int j = 0; j < p->ndst; j++)
    for (int k = 0; k < p->scount[j]; k++) {
      pe[p->sdispl[j] + k] = p->dst[j];
      off[p->sdispl[j] + k] = theirs[j] + k;
    }
  free(mine);
  return 0;
}

int sk_dist_node_ranks(int *most, char *err, size_t errlen) {
  MPI_Comm node;
  MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
  int n = 0;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  MPI_TRY(MPI_Allreduce(&n, most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return 0;
}

int sk_dist_plan_export_add(sk_dist_plan *p, const void *halo, void *xloc, int isf64,
                            char *err, size_t errlen) {
  /* over the reverse graph: halo entries go back to their owners */
  MPI_TRY(MPI_Neighbor_alltoallv(halo, p->rcount, p->rdispl, MPI_UINT64_T, p->sbuf,
                                 p->scount, p->sdispl, MPI_UINT64_T, *(MPI_Comm *)p->rcomm),
          "MPI_Neighbor_alltoallv");
  for (int64_t k = 0; k < p->nsend; k++) {
    if (isf64) {
      double v;
      memcpy(&v, &p->sbuf[k], 8);
      ((double *)xloc)[p->slid[k]] += v;
    } else {
      ((int64_t *)xloc)[p->slid[k]] += (int64_t)p->sbuf[k];
    }
  }
  return 0;
}

void sk_dist_plan_free(sk_dist_plan *p) {
  if (p->comm) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free((MPI_Comm *)p->comm);
    free(p->comm);
  }
  if (p->rcomm) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free((MPI_Comm *)p->rcomm);
    free(p->rcomm);
  }
  free(p->slid);
  free(p->sbuf);
  free(p->src);
  free(p->rcount);
  free(p->req);
  memset(p, 0, sizeof *p);
}

#else /* no MPI */
static int no_mpi(char *err, size_t errlen) {
  sk_err(err, errlen, SK_E_DIST_NO_MPI);
  return -1;
}
int sk_dist_allreduce_i64(int64_t *x, int n, int op, char *err, size_t errlen) {
  (void)x, (void)n, (void)op;
  return no_mpi(err, errlen);
}
int sk_dist_plan_put_targets(sk_dist_plan *p, int64_t *pe, int64_t *off, char *err,
                             size_t errlen) {
  (void)p, (void)pe, (void)off;
  return no_mpi(err, errlen);
}
int sk_dist_node_ranks(int *most, char *err, size_t errlen) {
  (void)most;
  return no_mpi(err, errlen);
}
int sk_dist_allgather_i64(int64_t x, int64_t *out, char *err, size_t errlen) {
  (void)x, (void)out;
  return no_mpi(err, errlen);
}
int sk_dist_allgatherv(const void *mine, int64_t nmine, const int64_t *counts, int esize,
                       void *out, char *err, size_t errlen) {
  (void)mine, (void)nmine, (void)counts, (void)esize, (void)out;
  return no_mpi(err, errlen);
}
int sk_dist_gatherv(const void *mine, int64_t nmine, const int64_t *counts, int esize,
                    void *out, int root, char *err, size_t errlen) {
  (void)mine, (void)nmine, (void)counts, (void)esize, (void)out, (void)root;
  return no_mpi(err, errlen);
}
int sk_dist_alltoallv(const void *sbuf, const int64_t *scount, int esize, void **rbuf,
                      int64_t *rcount, char *err, size_t errlen) {
  (void)sbuf, (void)scount, (void)esize, (void)rbuf, (void)rcount;
  return no_mpi(err, errlen);
}
int sk_dist_consensus(int failed, const char *mine, char *msg, size_t msglen) {
  (void)failed, (void)mine;
  no_mpi(msg, msglen);
  return -1;
}
int sk_dist_agree(const char *call, const int64_t *desc, const char *const *names, int n,
                  char *msg, size_t msglen) {
  (void)call, (void)desc, (void)names, (void)n;
  return no_mpi(msg, msglen);
}
int sk_dist_plan_build(sk_dist_plan *p, const sk_dist_map *m, const int64_t *halo_ids,
                       int64_t nhalo, char *err, size_t errlen) {
  (void)m, (void)halo_ids, (void)nhalo;
  memset(p, 0, sizeof *p);
  return no_mpi(err, errlen);
}
int sk_dist_plan_start(sk_dist_plan *p, const void *xloc, void *halo, char *err,
                       size_t errlen) {
  (void)p, (void)xloc, (void)halo;
  return no_mpi(err, errlen);
}
int sk_dist_plan_wait(sk_dist_plan *p, char *err, size_t errlen) {
  (void)p;
  return no_mpi(err, errlen);
}
int sk_dist_plan_start_packed(sk_dist_plan *p, const void *sbuf, void *halo, char *err,
                              size_t errlen) {
  (void)p, (void)sbuf, (void)halo;
  return no_mpi(err, errlen);
}
int sk_dist_plan_progress(sk_dist_plan *p, char *err, size_t errlen) {
  (void)p, (void)err, (void)errlen; /* never started without MPI */
  return 0;
}
int sk_dist_allreduce_sum_f64(double *x, int n, char *err, size_t errlen) {
  (void)x, (void)n;
  return no_mpi(err, errlen);
}
int sk_dist_plan_export_add(sk_dist_plan *p, const void *halo, void *xloc, int isf64,
                            char *err, size_t errlen) {
  (void)p, (void)halo, (void)xloc, (void)isf64;
  return no_mpi(err, errlen);
}
void sk_dist_plan_free(sk_dist_plan *p) { memset(p, 0, sizeof *p); }
#endif

/* -- a sum that carries the ranks' failures (both builds) ----------------- */
/* the failing ranks' consensus after a reduction whose last slot summed
 * the failure flags (err: the lowest failing rank's message) */
static int or_fail(int any, int failed, char *err, size_t errlen) {
  if (!any) return 0;
  char msg[1024];
  if (sk_dist_consensus(failed, failed ? err : NULL, msg, sizeof msg) != 0)
    snprintf(err, errlen, "%s", msg);
  return -1;
}

/* t has n + 1 slots: the flag goes into t[n] (a failed rank's own message
 * stays in err while the reduction's error, if any, goes aside) */
int sk_dist_allsum_or_fail_i64(int64_t *t, int n, int failed, char *err, size_t errlen) {
  char e2[512];
  t[n] = failed;
  if (sk_dist_allreduce_i64(t, n + 1, 0, failed ? e2 : err, failed ? sizeof e2 : errlen) < 0)
    return -1;
  return or_fail(t[n] > 0, failed, err, errlen);
}

int sk_dist_allsum_or_fail_f64(double *t, int n, int failed, char *err, size_t errlen) {
  char e2[512];
  t[n] = failed;
  if (sk_dist_allreduce_sum_f64(t, n + 1, failed ? e2 : err, failed ? sizeof e2 : errlen) < 0)
    return -1;
  return or_fail(t[n] != 0, failed, err, errlen);
}
