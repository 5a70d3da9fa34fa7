/* ref.c: the hand-written C reference of scripts/bench/core.
 *
 * Usage: ref KERNEL [log2n [stencil_n [grid_n [launches]]]]
 *   KERNEL: empty | axpy | dot | stencil | spmv
 * Built by ./run with gcc -O3 -march=native -fopenmp; OpenMP 'parallel for'
 * and 'reduction' on OMP_NUM_THREADS threads (./run sets 2). Each kernel is
 * warmed up, then timed REPS times with omp_get_wtime; the median goes out
 * as one tab-separated record, the format core.lua and numba_peer.py print:
 *
 *   R <kernel> <impl> <median seconds> <bytes moved> <checksum>
 *
 * Data, sizes and the matrix match core.lua exactly, so checksums compare.
 * The data are not periodic within a page (prime periods), so no page
 * deduplication or compression can make the arrays smaller than they look.
 */
#define BENCH_IMPL "ref"
#include "../lib/bench.h"

/* -- 2D 5-point stencil ---------------------------------------------------- */
typedef struct stencil {
  int64_t n;
  const double *in;
  double *out;
} stencil;

static void stencil_call(void *arg) {
  const stencil *st = arg;
  const int64_t n = st->n;
  const double *in = st->in;
  double *out = st->out;
#pragma omp parallel for schedule(static)
  for (int64_t i = 1; i < n - 1; i++)
    for (int64_t j = 1; j < n - 1; j++)
      out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                               in[i * n + j - 1] + in[i * n + j + 1]) -
                       in[i * n + j];
}

static void bench_stencil(int64_t n) {
  double *in = xmalloc((size_t)(n * n) * sizeof *in);
  double *out = xmalloc((size_t)(n * n) * sizeof *out);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      in[i * n + j] = (double)((i * 3 + j * 7) % 1009) * 1e-3;
      out[i * n + j] = 0;
    }
  stencil st = {n, in, out};
  double t = time_reps(stencil_call, &st);
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t k = 0; k < n * n; k++) s += out[k] * out[k];
  record("stencil", t, 16.0 * (double)((n - 2) * (n - 2)), s);
  free(in);
  free(out);
}

/* -- CSR SpMV of the 2D 5-point Laplacian ---------------------------------- */
static void bench_spmv(int64_t nx, int64_t ny) {
  int64_t *rowptr;
  int32_t *col;
  double *val, s;
  const int64_t n = laplacian_csr(nx, ny, &rowptr, &col, &val), nnz = rowptr[n];
  double t = spmv_time(n, rowptr, col, val, &s);
  double bytes = 12.0 * (double)nnz + 8.0 * (double)(n + 1) + 16.0 * (double)n;
  record("spmv", t, bytes, s);
  free(rowptr);
  free(col);
  free(val);
}

/* -- empty parallel region ------------------------------------------------- */
/* One 'parallel for' region over 1024 empty iterations per call; the empty
 * asm keeps the loop without adding work. */
static void empty_call(void *arg) {
  (void)arg;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < 1024; i++) __asm__ volatile("");
}

int main(int argc, char **argv) {
  const char *k = argc > 1 ? argv[1] : "";
  int log2n = argc > 2 ? atoi(argv[2]) : 25;
  int64_t sn = argc > 3 ? atoll(argv[3]) : 4096;
  int64_t gn = argc > 4 ? atoll(argv[4]) : 2048;
  int launches = argc > 5 ? atoi(argv[5]) : 20000;
  printf("I\tref\tthreads\t%d\n", omp_get_max_threads());
  if (strcmp(k, "empty") == 0)
    record("empty", per_launch(empty_call, NULL, launches, 0), 0, 0);
  else if (strcmp(k, "axpy") == 0)
    bench_xy_run("axpy", (int64_t)1 << log2n, loop_axpy, 0);
  else if (strcmp(k, "dot") == 0) bench_xy_run("dot", (int64_t)1 << log2n, loop_dot, 0);
  else if (strcmp(k, "stencil") == 0) bench_stencil(sn);
  else if (strcmp(k, "spmv") == 0) bench_spmv(gn, gn);
  else {
    fprintf(
      stderr,
      "usage: ref empty|axpy|dot|stencil|spmv [log2n [stencil_n [grid_n [launches]]]]\n");
    return 2;
  }
  return 0;
}
