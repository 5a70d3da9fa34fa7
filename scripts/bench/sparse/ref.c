/* ref.c: the hand-written peers of scripts/bench/sparse (gcc -O3
 * -march=native -fopenmp), and the generator of the matrices every peer
 * reads.
 *
 *   ref triad                  STREAM triad a = b + s*c, 2^25 float64
 *   ref spmv MATRIX            y = A*x, the plain OpenMP CSR loop
 *   ref gen DIR                write DIR/m5.bin, m27.bin, kron.bin
 *
 * MATRIX: m5 (2D 5-point Laplacian 2048^2, row gi*2048 + gj), m27 (3D
 * 27-point stencil 128^3, row x + 128*(y + 128*z), 26 on the diagonal, -1
 * elsewhere), kron (the symmetric adjacency, self-loops kept, duplicates
 * merged, of a Graph500-style Kronecker (R-MAT 0.57/0.19/0.19) graph of
 * scale 20, edge factor 16, drawn from splitmix64 of (edge << 6 | level),
 * no vertex relabelling). Rows sorted. bench.lua builds the same matrices
 * with speck kernels; checksums compare. Binary format: int64 n, int64
 * nnz, rowptr (n+1 int64), colidx (nnz int32), values (nnz float64).
 * Output: records 'R <kernel> ref <median s> <bytes> <checksum>'.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 9
#define WARM 2

typedef struct csr {
  int64_t n, nnz;
  int64_t *rowptr;
  int32_t *col;
  double *val;
} csr;

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "ref: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static void record(const char *k, double t, double bytes, double check) {
  printf("R\t%s\tref\t%.9e\t%.0f\t%.17g\n", k, t, bytes, check);
  fflush(stdout);
}

/* -- matrices ------------------------------------------------------------- */
static csr m5(void) {
  const int64_t g = 2048, n = g * g;
  csr A = {n, 0, xmalloc((size_t)(n + 1) * 8), NULL, NULL};
  A.rowptr[0] = 0;
  for (int64_t r = 0; r < n; r++) {
    int64_t gi = r / g, gj = r % g;
    A.rowptr[r + 1] = A.rowptr[r] + 1 + (gi > 0) + (gi < g - 1) + (gj > 0) + (gj < g - 1);
  }
  A.nnz = A.rowptr[n];
  A.col = xmalloc((size_t)A.nnz * 4);
  A.val = xmalloc((size_t)A.nnz * 8);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; r++) {
    int64_t gi = r / g, gj = r % g, p = A.rowptr[r];
    if (gi > 0) {
      A.col[p] = (int32_t)(r - g);
      A.val[p++] = -1.0;
    }
    if (gj > 0) {
      A.col[p] = (int32_t)(r - 1);
      A.val[p++] = -1.0;
    }
    A.col[p] = (int32_t)r;
    A.val[p++] = 4.0;
    if (gj < g - 1) {
      A.col[p] = (int32_t)(r + 1);
      A.val[p++] = -1.0;
    }
    if (gi < g - 1) {
      A.col[p] = (int32_t)(r + g);
      A.val[p++] = -1.0;
    }
  }
  return A;
}

static csr m27(void) {
  const int64_t g = 128, n = g * g * g;
  csr A = {n, 0, xmalloc((size_t)(n + 1) * 8), NULL, NULL};
  A.rowptr[0] = 0;
  for (int64_t r = 0; r < n; r++) {
    int64_t x = r % g, y = (r / g) % g, z = r / (g * g);
    int64_t cx = 1 + (x > 0) + (x < g - 1), cy = 1 + (y > 0) + (y < g - 1),
            cz = 1 + (z > 0) + (z < g - 1);
    A.rowptr[r + 1] = A.rowptr[r] + cx * cy * cz;
  }
  A.nnz = A.rowptr[n];
  A.col = xmalloc((size_t)A.nnz * 4);
  A.val = xmalloc((size_t)A.nnz * 8);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; r++) {
    int64_t x = r % g, y = (r / g) % g, z = r / (g * g), p = A.rowptr[r];
    for (int dz = -1; dz <= 1; dz++)
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
          int64_t jx = x + dx, jy = y + dy, jz = z + dz;
          if (jx < 0 || jx >= g || jy < 0 || jy >= g || jz < 0 || jz >= g) continue;
          A.col[p] = (int32_t)(jx + g * (jy + g * jz));
          A.val[p++] = dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0;
        }
  }
  return A;
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* edge e of the R-MAT graph of 'scale' */
static void rmat(int64_t e, int scale, int64_t *s, int64_t *d) {
  int64_t u = 0, v = 0;
  for (int l = 0; l < scale; l++) {
    double p = (double)(splitmix64(((uint64_t)e << 6) | (uint64_t)l) >> 11) * 0x1.0p-53;
    if (p >= 0.57 + 0.19 + 0.19) {
      u |= (int64_t)1 << l;
      v |= (int64_t)1 << l;
    } else if (p >= 0.57 + 0.19) u |= (int64_t)1 << l;
    else if (p >= 0.57) v |= (int64_t)1 << l;
  }
  *s = u;
  *d = v;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

static csr kron(void) {
  const int scale = 20;
  const int64_t n = (int64_t)1 << scale, m = 16 * n;
  int64_t *cnt = calloc((size_t)n + 1, 8), *cur = xmalloc((size_t)(n + 1) * 8);
  if (!cnt) exit(1);
  for (int64_t e = 0; e < m; e++) {
    int64_t s, d;
    rmat(e, scale, &s, &d);
    cnt[s + 1]++;
    cnt[d + 1]++;
  }
  for (int64_t i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  int32_t *all = xmalloc((size_t)(2 * m) * 4);
  memcpy(cur, cnt, (size_t)(n + 1) * 8);
  for (int64_t e = 0; e < m; e++) {
    int64_t s, d;
    rmat(e, scale, &s, &d);
    all[cur[s]++] = (int32_t)d;
    all[cur[d]++] = (int32_t)s;
  }
  csr A = {n, 0, xmalloc((size_t)(n + 1) * 8), NULL, NULL};
  A.rowptr[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t *row = all + cnt[i];
    int64_t k = cnt[i + 1] - cnt[i], u = 0;
    qsort(row, (size_t)k, 4, cmp_i32);
    for (int64_t j = 0; j < k; j++)
      if (j == 0 || row[j] != row[j - 1]) row[u++] = row[j];
    cur[i] = u;
    A.rowptr[i + 1] = A.rowptr[i] + u;
  }
  A.nnz = A.rowptr[n];
  A.col = xmalloc((size_t)A.nnz * 4);
  A.val = xmalloc((size_t)A.nnz * 8);
  for (int64_t i = 0; i < n; i++) {
    memcpy(A.col + A.rowptr[i], all + cnt[i], (size_t)cur[i] * 4);
    for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) A.val[k] = 1.0;
  }
  free(all);
  free(cnt);
  free(cur);
  return A;
}

static csr make(const char *name) {
  if (strcmp(name, "m5") == 0) return m5();
  if (strcmp(name, "m27") == 0) return m27();
  if (strcmp(name, "kron") == 0) return kron();
  fprintf(stderr, "ref: unknown matrix '%s' (m5, m27, kron)\n", name);
  exit(2);
}

static void drop(csr *A) {
  free(A->rowptr);
  free(A->col);
  free(A->val);
}

/* -- kernels ---------------------------------------------------------------- */
static void triad(void) {
  const int64_t n = (int64_t)1 << 25;
  double *a = xmalloc((size_t)n * 8), *b = xmalloc((size_t)n * 8),
         *c = xmalloc((size_t)n * 8);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) {
    a[i] = 0;
    b[i] = 1.0 + (double)(i % 7);
    c[i] = 2.0;
  }
  double t[REPS];
  for (int rep = -WARM; rep < REPS; rep++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    double dt = omp_get_wtime() - t0;
    if (rep >= 0) t[rep] = dt;
  }
  double s = 0;
  for (int64_t i = 0; i < n; i += 4096) s += a[i];
  record("triad", median(t, REPS), 24.0 * (double)n, s);
  free(a);
  free(b);
  free(c);
}

static void spmv(const char *name) {
  csr A = make(name);
  int64_t n = A.n;
  double *x = xmalloc((size_t)n * 8), *y = xmalloc((size_t)n * 8);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < n; r++) {
    x[r] = 1.0 + (double)(r % 1000003) * 1e-6;
    y[r] = 0;
  }
  double t[REPS];
  for (int rep = -WARM; rep < REPS; rep++) {
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < n; r++) {
      double s = 0;
      for (int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; p++) s += A.val[p] * x[A.col[p]];
      y[r] = s;
    }
    double dt = omp_get_wtime() - t0;
    if (rep >= 0) t[rep] = dt;
  }
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t r = 0; r < n; r++) s += y[r] * (double)(1 + r % 3);
  char k[64];
  snprintf(k, sizeof k, "spmv-%s", name);
  record(k, median(t, REPS),
         12.0 * (double)A.nnz + 8.0 * (double)(n + 1) + 16.0 * (double)n, s);
  printf("I\tref\tnnz-%s\t%lld\n", name, (long long)A.nnz);
  free(x);
  free(y);
  drop(&A);
}

static void gen(const char *dir) {
  const char *names[] = {"m5", "m27", "kron"};
  for (int i = 0; i < 3; i++) {
    csr A = make(names[i]);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, names[i]);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(&A.n, 8, 1, f) != 1 || fwrite(&A.nnz, 8, 1, f) != 1 ||
        fwrite(A.rowptr, 8, (size_t)A.n + 1, f) != (size_t)A.n + 1 ||
        fwrite(A.col, 4, (size_t)A.nnz, f) != (size_t)A.nnz ||
        fwrite(A.val, 8, (size_t)A.nnz, f) != (size_t)A.nnz || fclose(f) != 0) {
      fprintf(stderr, "ref: cannot write %s\n", path);
      exit(1);
    }
    drop(&A);
  }
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "triad") == 0) triad();
  else if (argc >= 3 && strcmp(argv[1], "spmv") == 0) spmv(argv[2]);
  else if (argc >= 3 && strcmp(argv[1], "gen") == 0) gen(argv[2]);
  else {
    fprintf(stderr, "usage: ref triad | spmv m5|m27|kron | gen DIR\n");
    return 2;
  }
  return 0;
}
