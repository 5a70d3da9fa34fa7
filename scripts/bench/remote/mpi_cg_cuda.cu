/* mpi_cg_cuda.cu: the MPI+CUDA CG that examples/remote_cg.lua on the cuda
 * back end (speck.remote over NVSHMEM) is measured against: mpi_cg.c's
 * algorithm with the vectors and the matrix on each rank's GPU (one GPU
 * per rank, by local rank), a staged halo exchange (the boundary grid rows
 * of p copied to the host, MPI_Sendrecv, copied back into the
 * [halo | local | halo] device vector), the SpMV and dot products as CUDA
 * kernels (block sums, one atomicAdd per block), the dots' sums through
 * MPI_Allreduce.
 *
 *   nvcc -O3 -arch=sm_90 mpi_cg_cuda.cu $(mpicc --showme:compile) \
 *        $(mpicc --showme:link) -o mpi_cg_cuda
 *   mpirun -np 2 mpi_cg_cuda n iterations   -> "ms_per_iteration resid"
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "lap_block.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

__device__ double block_sum(double v) {
  __shared__ double s[32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x >> 5) ? s[threadIdx.x] : 0.0;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void spmv_dot(long nloc, const long *rp, const long *ci, const double *va,
                         const double *xf, const double *p, double *ap, double *out) {
  double acc = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nloc;
       i += (long)gridDim.x * blockDim.x) {
    double s = 0;
    for (long q = rp[i]; q < rp[i + 1]; q++) s += va[q] * xf[ci[q]];
    ap[i] = s;
    acc += p[i] * s;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) atomicAdd(out, acc);
}

__global__ void update(long nloc, double a, double *x, double *r, const double *p,
                       const double *ap, double *out) {
  double acc = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nloc;
       i += (long)gridDim.x * blockDim.x) {
    x[i] += a * p[i];
    double ri = r[i] - a * ap[i];
    r[i] = ri;
    acc += ri * ri;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) atomicAdd(out, acc);
}

__global__ void pupdate(long nloc, double beta, double *p, const double *r) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nloc;
       i += (long)gridDim.x * blockDim.x)
    p[i] = r[i] + beta * p[i];
}

static double dev_sum(double *d) {   /* read and clear a device scalar */
  double h;
  CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaMemset(d, 0, sizeof h));
  return h;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np, ndev = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  CK(cudaGetDeviceCount(&ndev));
  CK(cudaSetDevice((lr ? atoi(lr) : me) % ndev));
  long n = argc > 1 ? atol(argv[1]) : 256, iters = argc > 2 ? atol(argv[2]) : 100;
  lap_block A = lap_block_new(n, me, np);
  long b = A.b, nloc = A.nloc, k = A.nnz, *rp = A.rp, *ci = A.ci;
  double *va = A.va;
  double *h0 = (double *)malloc(nloc * sizeof *h0), bb = 0;
  for (long i = 0; i < nloc; i++) {
    h0[i] = 1.0 + (double)((b + i) % 7) * 0.125;
    bb += h0[i] * h0[i];
  }
  long *drp, *dci;
  double *dva, *xf, *x, *r, *ap, *sum;
  CK(cudaMalloc(&drp, (nloc + 1) * sizeof *drp));
  CK(cudaMalloc(&dci, k * sizeof *dci));
  CK(cudaMalloc(&dva, k * sizeof *dva));
  CK(cudaMalloc(&xf, (nloc + 2 * n) * sizeof *xf));
  CK(cudaMalloc(&x, nloc * sizeof *x));
  CK(cudaMalloc(&r, nloc * sizeof *r));
  CK(cudaMalloc(&ap, nloc * sizeof *ap));
  CK(cudaMalloc(&sum, sizeof *sum));
  double *p = xf + n;
  CK(cudaMemcpy(drp, rp, (nloc + 1) * sizeof *rp, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dci, ci, k * sizeof *ci, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dva, va, k * sizeof *va, cudaMemcpyHostToDevice));
  CK(cudaMemset(xf, 0, (nloc + 2 * n) * sizeof *xf));
  CK(cudaMemset(x, 0, nloc * sizeof *x));
  CK(cudaMemset(sum, 0, sizeof *sum));
  CK(cudaMemcpy(r, h0, nloc * sizeof *h0, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p, h0, nloc * sizeof *h0, cudaMemcpyHostToDevice));
  double *sb, *rb;   /* pinned staging: send lo, send hi, recv lo, recv hi */
  CK(cudaMallocHost(&sb, 2 * n * sizeof *sb));
  CK(cudaMallocHost(&rb, 2 * n * sizeof *rb));
  MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double rr = bb;
  int lo = me > 0 ? me - 1 : MPI_PROC_NULL, hi = me < np - 1 ? me + 1 : MPI_PROC_NULL;
  int blocks = 132 * 8, th = 256;
  CK(cudaDeviceSynchronize());
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long it = 0; it < iters; it++) {
    CK(cudaMemcpy(sb, p, n * sizeof *sb, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sb + n, p + nloc - n, n * sizeof *sb, cudaMemcpyDeviceToHost));
    MPI_Sendrecv(sb, (int)n, MPI_DOUBLE, lo, 0, rb + n, (int)n, MPI_DOUBLE, hi, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(sb + n, (int)n, MPI_DOUBLE, hi, 1, rb, (int)n, MPI_DOUBLE, lo, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (lo != MPI_PROC_NULL) CK(cudaMemcpy(xf, rb, n * sizeof *rb, cudaMemcpyHostToDevice));
    if (hi != MPI_PROC_NULL)
      CK(cudaMemcpy(p + nloc, rb + n, n * sizeof *rb, cudaMemcpyHostToDevice));
    spmv_dot<<<blocks, th>>>(nloc, drp, dci, dva, xf, p, ap, sum);
    double pap = dev_sum(sum);
    MPI_Allreduce(MPI_IN_PLACE, &pap, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double a = rr / pap;
    update<<<blocks, th>>>(nloc, a, x, r, p, ap, sum);
    double rr1 = dev_sum(sum);
    MPI_Allreduce(MPI_IN_PLACE, &rr1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    pupdate<<<blocks, th>>>(nloc, rr1 / rr, p, r);
    rr = rr1;
  }
  CK(cudaDeviceSynchronize());
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) printf("%.4f %.4e\n", 1e3 * t / iters, sqrt(rr));
  MPI_Finalize();
  return 0;
}
