/* ref.c: the C reference of scripts/bench/teams (run by ./run).
 *
 * Usage: ref KERNEL [args]
 *   lap GN          CSR SpMV of the 2D 5-point Laplacian on a GN x GN grid
 *   kron SCALE EF   CSR SpMV of a Kronecker (R-MAT, Graph500 A/B/C/D =
 *                   0.57/0.19/0.19/0.05) graph's adjacency matrix
 *   barrier N       N '#pragma omp barrier' in a region of 2 threads
 *   tensor C D E P  V(c,d,e) = sum_p A(c,p,d) B(c,p,e) over C cells
 * Built by ./run with gcc -O3 -march=native -fopenmp; OpenMP 'parallel for'
 * on OMP_NUM_THREADS threads. Each kernel is warmed up, then timed REPS
 * times with omp_get_wtime; the median goes out as one tab-separated
 * record, the format teams.lua prints:
 *
 *   R <kernel> <impl> <median seconds> <checksum>
 *
 * Matrices and data are generated exactly as teams.lua generates them
 * (same hash, same serial fill order), so the checksums compare.
 */
#define BENCH_IMPL "ref"
#include "../lib/bench.h"

/* -- CSR SpMV ---------------------------------------------------------------- */
static void spmv_run(const char *kernel, int64_t n, const int64_t *rowptr,
                     const int32_t *col, const double *val) {
  double s;
  double t = spmv_time(n, rowptr, col, val, &s);
  record_check(kernel, t, s);
}

static void bench_lap(int64_t g) {
  int64_t *rowptr;
  int32_t *col;
  double *val;
  const int64_t n = laplacian_csr(g, g, &rowptr, &col, &val);
  spmv_run("lap", n, rowptr, col, val);
  free(rowptr);
  free(col);
  free(val);
}

/* splitmix64's finaliser: the generator's only source of randomness */
static inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15UL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
  return x ^ (x >> 31);
}

/* Edge e of a Kronecker graph of 2^scale vertices: one hash per level
 * picks the quadrant by 53-bit integer thresholds (A, A+B, A+B+C = 0.57,
 * 0.76, 0.95 of 2^53), then the labels are scrambled by an odd multiplier
 * (a bijection mod 2^scale) so that high degrees do not cluster at 0. */
#define KRON_TA 5134103575202365UL
#define KRON_TB 6845471433603153UL
#define KRON_TC 8556839292003942UL
static void kron_edge(uint64_t e, int scale, int32_t *u, int32_t *v) {
  uint64_t st = mix64(e * 2 + 1), a = 0, b = 0;
  for (int l = 0; l < scale; l++) {
    uint64_t q = mix64(st + (uint64_t)l) >> 11;
    int ub = q >= KRON_TB, vb = (q >= KRON_TA && q < KRON_TB) || q >= KRON_TC;
    a = (a << 1) | (uint64_t)ub;
    b = (b << 1) | (uint64_t)vb;
  }
  uint64_t m = ((uint64_t)1 << scale) - 1;
  *u = (int32_t)((a * 2654435761UL + 12345) & m);
  *v = (int32_t)((b * 2654435761UL + 12345) & m);
}

/* symmetric adjacency, self loops dropped, duplicates kept (a multigraph:
 * the value of a repeated entry counts it again); rows filled in edge
 * order by one serial pass, so the column order is reproducible */
static void bench_kron(int scale, int ef) {
  const int64_t n = (int64_t)1 << scale, m = n * ef;
  int32_t *src = xmalloc((size_t)m * sizeof *src),
          *dst = xmalloc((size_t)m * sizeof *dst);
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < m; e++) kron_edge((uint64_t)e, scale, &src[e], &dst[e]);
  int64_t *rowptr = xmalloc((size_t)(n + 1) * sizeof *rowptr);
  memset(rowptr, 0, (size_t)(n + 1) * sizeof *rowptr);
  for (int64_t e = 0; e < m; e++)
    if (src[e] != dst[e]) {
      rowptr[src[e] + 1]++;
      rowptr[dst[e] + 1]++;
    }
  for (int64_t r = 0; r < n; r++) rowptr[r + 1] += rowptr[r];
  const int64_t nnz = rowptr[n];
  int32_t *col = xmalloc((size_t)nnz * sizeof *col);
  double *val = xmalloc((size_t)nnz * sizeof *val);
  int64_t *cur = xmalloc((size_t)n * sizeof *cur);
  memcpy(cur, rowptr, (size_t)n * sizeof *cur);
  for (int64_t e = 0; e < m; e++)
    if (src[e] != dst[e]) {
      col[cur[src[e]]++] = dst[e];
      col[cur[dst[e]]++] = src[e];
    }
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < nnz; p++) val[p] = 1.0 + (double)(p % 7) * 0.125;
  int64_t maxdeg = 0;
  for (int64_t r = 0; r < n; r++)
    if (rowptr[r + 1] - rowptr[r] > maxdeg) maxdeg = rowptr[r + 1] - rowptr[r];
  printf("I\tref\tkron_nnz\t%lld\nI\tref\tkron_maxdeg\t%lld\n", (long long)nnz,
         (long long)maxdeg);
  spmv_run("kron", n, rowptr, col, val);
  free(src);
  free(dst);
  free(rowptr);
  free(col);
  free(val);
  free(cur);
}

/* -- barrier ------------------------------------------------------------------ */
static void bench_barrier(int64_t nb) {
  double t[REPS];
  for (int rep = -WARM; rep < REPS; rep++) {
    double t0 = 0, dt = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
#pragma omp single
      t0 = omp_get_wtime();
      for (int64_t k = 0; k < nb; k++) {
#pragma omp barrier
      }
#pragma omp single
      dt = omp_get_wtime() - t0;
    }
    if (rep >= 0) t[rep] = dt / (double)nb;
  }
  record_check("barrier", median(t, REPS), (double)nb);
}

/* -- tensor contraction ----------------------------------------------------- */
typedef struct tensor {
  int64_t C, D, E, P;
  const double *A, *B;
  double *V;
} tensor;

static void tensor_call(void *arg) {
  const tensor *tc = arg;
  const int64_t C = tc->C, D = tc->D, E = tc->E, P = tc->P;
  const double *A = tc->A, *B = tc->B;
  double *V = tc->V;
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < C; c++)
    for (int64_t d = 0; d < D; d++)
      for (int64_t e = 0; e < E; e++) {
        double s = 0;
        for (int64_t p = 0; p < P; p++)
          s += A[(c * P + p) * D + d] * B[(c * P + p) * E + e];
        V[(c * D + d) * E + e] = s;
      }
}

static void bench_tensor(int64_t C, int64_t D, int64_t E, int64_t P) {
  double *A = xmalloc((size_t)(C * P * D) * sizeof *A);
  double *B = xmalloc((size_t)(C * P * E) * sizeof *B);
  double *V = xmalloc((size_t)(C * D * E) * sizeof *V);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < C; c++) {
    for (int64_t p = 0; p < P; p++) {
      for (int64_t d = 0; d < D; d++) {
        int64_t q = (c * P + p) * D + d;
        A[q] = 1.0 + (double)(q % 1009) * 1e-3;
      }
      for (int64_t e = 0; e < E; e++) {
        int64_t q = (c * P + p) * E + e;
        B[q] = 0.5 - (double)(q % 997) * 1e-3;
      }
    }
  }
  tensor tc = {C, D, E, P, A, B, V};
  double t = time_reps(tensor_call, &tc);
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t q = 0; q < C * D * E; q++) s += V[q] * (double)(1 + q % 3);
  char name[64];
  snprintf(name, sizeof name, "tensor_%lldx%lldx%lld", (long long)D, (long long)E,
           (long long)P);
  record_check(name, t, s);
  free(A);
  free(B);
  free(V);
}

int main(int argc, char **argv) {
  const char *k = argc > 1 ? argv[1] : "";
  if (strcmp(k, "lap") == 0 && argc > 2) {
    bench_lap(atoll(argv[2]));
  } else if (strcmp(k, "kron") == 0 && argc > 3) {
    bench_kron(atoi(argv[2]), atoi(argv[3]));
  } else if (strcmp(k, "barrier") == 0 && argc > 2) {
    bench_barrier(atoll(argv[2]));
  } else if (strcmp(k, "tensor") == 0 && argc > 5) {
    bench_tensor(atoll(argv[2]), atoll(argv[3]), atoll(argv[4]), atoll(argv[5]));
  } else {
    fprintf(stderr, "usage: ref lap GN | kron SCALE EF | barrier N | tensor C D E P\n");
    return 2;
  }
  return 0;
}
