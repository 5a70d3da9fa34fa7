/* lu_match.c: the maximum-product matching and scaling of a sparse square
 * matrix (MC64's job 5, Duff and Koster 2001), the first step of
 * speck.solve's LU with static pivoting (lu.c).
 *
 * Column j's entries get the cost c_ij = log(max_i |a_ij|) - log |a_ij|
 * (>= 0); a perfect matching of least total cost maximizes the product of
 * the matched |a_ij|. Shortest augmenting paths (Dijkstra on the reduced
 * costs c_ij - u_i - v_j, a binary heap over the rows) from each column
 * left unmatched by a greedy start; after each augmentation the duals u, v
 * are updated so the reduced costs stay >= 0 and vanish on the matching.
 * The optimal duals give the scaling: dr_i = exp(u_i), dc_j = exp(v_j) /
 * max_i |a_ij| make every |dr_i a_ij dc_j| <= 1 and the matched ones 1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lu.h"

/* -- a binary min-heap of (key, row), stale entries skipped by the caller -- */
typedef struct {
  double *key;
  int32_t *row;
  int64_t n, cap;
} heap;

static int heap_push(heap *h, double k, int32_t r) {
  if (h->n == h->cap) {
    int64_t c = h->cap ? 2 * h->cap : 64;
    double *nk = realloc(h->key, (size_t)c * sizeof *nk);
    if (!nk) return -1;
    h->key = nk;
    int32_t *nr = realloc(h->row, (size_t)c * sizeof *nr);
    if (!nr) return -1;
    h->row = nr;
    h->cap = c;
  }
  int64_t i = h->n++;
  while (i > 0) {
    int64_t p = (i - 1) / 2;
    if (h->key[p] <= k) break;
    h->key[i] = h->key[p];
    h->row[i] = h->row[p];
    i = p;
  }
  h->key[i] = k;
  h->row[i] = r;
  return 0;
}

static void heap_pop(heap *h, double *k, int32_t *r) {
  *k = h->key[0];
  *r = h->row[0];
  double lk = h->key[--h->n];
  int32_t lr = h->row[h->n];
  int64_t i = 0;
  for (;;) {
    int64_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->key[c + 1] < h->key[c]) c++;
    if (h->key[c] >= lk) break;
    h->key[i] = h->key[c];
    h->row[i] = h->row[c];
    i = c;
  }
  h->key[i] = lk;
  h->row[i] = lr;
}

int sk_lu_match(int64_t n, const int64_t *cp, const int32_t *ci, const double *cx,
                int32_t *colmatch, double *dr, double *dc, int64_t *bad_row,
                int64_t *bad_col) {
  *bad_row = *bad_col = -1;
  int rc = -1;
  double *cmax = calloc((size_t)n + 1, sizeof *cmax);
  double *cost = malloc(((size_t)cp[n] + 1) * sizeof *cost);
  double *u = calloc((size_t)n + 1, sizeof *u), *v = calloc((size_t)n + 1, sizeof *v);
  double *dist = malloc(((size_t)n + 1) * sizeof *dist);
  int32_t *rowmatch = malloc(((size_t)n + 1) * sizeof *rowmatch);
  int32_t *pred = malloc(((size_t)n + 1) * sizeof *pred);
  int32_t *touched = malloc(((size_t)n + 1) * sizeof *touched);
  char *done = calloc((size_t)n + 1, 1);
  heap h = {0};
  if (!cmax || !cost || !u || !v || !dist || !rowmatch || !pred || !touched || !done)
    goto out;
  for (int64_t j = 0; j < n; j++) {
    for (int64_t p = cp[j]; p < cp[j + 1]; p++)
      if (fabs(cx[p]) > cmax[j]) cmax[j] = fabs(cx[p]);
    for (int64_t p = cp[j]; p < cp[j + 1]; p++)
      cost[p] = cx[p] != 0 ? log(cmax[j]) - log(fabs(cx[p])) : INFINITY;
  }
  for (int64_t i = 0; i < n; i++) {
    rowmatch[i] = -1;
    dist[i] = INFINITY;
  }
  /* greedy start: each column takes a free row at cost 0 (its largest) */
  for (int64_t j = 0; j < n; j++) {
    colmatch[j] = -1;
    for (int64_t p = cp[j]; p < cp[j + 1]; p++)
      if (cost[p] == 0 && rowmatch[ci[p]] < 0) {
        colmatch[j] = ci[p];
        rowmatch[ci[p]] = (int32_t)j;
        break;
      }
  }
  for (int64_t j0 = 0; j0 < n; j0++) {
    if (colmatch[j0] >= 0) continue;
    int64_t nt = 0;
    h.n = 0;
    int32_t jcur = (int32_t)j0, iend = -1;
    double dcur = 0, lsap = INFINITY;
    for (;;) {
      /* relax the edges of column jcur (reached at distance dcur) */
      for (int64_t p = cp[jcur]; p < cp[jcur + 1]; p++) {
        int32_t i = ci[p];
        if (done[i] || !isfinite(cost[p])) continue;
        double d = dcur + cost[p] - u[i] - v[jcur];
        if (d < dist[i]) {
          if (dist[i] == INFINITY) touched[nt++] = i;
          dist[i] = d;
          pred[i] = jcur;
          if (heap_push(&h, d, i) < 0) goto out;
        }
      }
      /* the nearest row not yet final */
      int32_t i = -1;
      double d = 0;
      while (h.n > 0) {
        heap_pop(&h, &d, &i);
        if (!done[i] && d == dist[i]) break;
        i = -1;
      }
      if (i < 0) break; /* no augmenting path: column j0 cannot be matched */
      done[i] = 1;
      if (rowmatch[i] < 0) {
        iend = i;
        lsap = d;
        break;
      }
      jcur = rowmatch[i];
      dcur = d;
    }
    if (iend < 0) {
      if (*bad_col < 0) *bad_col = j0;
      for (int64_t t = 0; t < nt; t++) {
        dist[touched[t]] = INFINITY;
        done[touched[t]] = 0;
      }
      continue;
    }
    /* dual update: final rows (distance <= lsap) and the columns they and
     * the root reach keep reduced costs >= 0 and the path tight */
    v[j0] += lsap;
    for (int64_t t = 0; t < nt; t++) {
      int32_t i = touched[t];
      if (done[i] && i != iend) {
        u[i] += dist[i] - lsap;
        v[rowmatch[i]] += lsap - dist[i];
      }
    }
    /* augment along pred */
    for (int32_t i = iend;;) {
      int32_t j = pred[i], inext = colmatch[j];
      colmatch[j] = i;
      rowmatch[i] = j;
      if (j == (int32_t)j0) break;
      i = inext;
    }
    for (int64_t t = 0; t < nt; t++) {
      dist[touched[t]] = INFINITY;
      done[touched[t]] = 0;
    }
  }
  if (*bad_col >= 0) {
    for (int64_t i = 0; i < n; i++)
      if (rowmatch[i] < 0) {
        *bad_row = i;
        break;
      }
    rc = 1;
    goto out;
  }
  for (int64_t i = 0; i < n; i++) dr[i] = exp(u[i]);
  for (int64_t j = 0; j < n; j++) dc[j] = exp(v[j]) / cmax[j];
  rc = 0;
out:
  free(cmax);
  free(cost);
  free(u);
  free(v);
  free(dist);
  free(rowmatch);
  free(pred);
  free(touched);
  free(done);
  free(h.key);
  free(h.row);
  return rc;
}
