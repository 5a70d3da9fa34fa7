// raw_axpy.cu: the raw CUDA axpy that CuPy's RawModule compiles in the
// GPU peer of a new kernel's first compile (nvrtc_host.lua compiles it
// with plain NVRTC, -arch=sm_90, as RawModule does for the device).
extern "C" __global__ void axpy(const double a, const double *x, double *y, const long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
