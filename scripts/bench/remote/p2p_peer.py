"""p2p_peer.py: the raw peer of gpu_read.lua -- a CUDA kernel on GPU 0
copying GPU 1's memory into GPU 0's element by element through a plain
pointer (peer access over NVLink, what nvshmem_ptr hands out), CuPy
RawKernel, best of REPS after a warm-up; and the same kernel on GPU 0's
own memory. Prints GB/s like gpu_read.lua.

    python p2p_peer.py [MiB]
"""
import os
import sys

import cupy as cp

mib = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
reps = int(os.environ.get("BENCH_REPS", "10"))
m = mib * 1024 * 1024 // 8
src_code = r'''
extern "C" __global__ void rd(const double *__restrict__ s, double *d, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    d[i] = s[i];
}'''
with cp.cuda.Device(1):
    far = cp.arange(m, dtype=cp.float64)
with cp.cuda.Device(0):
    cp.cuda.runtime.deviceEnablePeerAccess(1)
    near = cp.arange(m, dtype=cp.float64)
    dst = cp.empty(m, dtype=cp.float64)
    k = cp.RawKernel(src_code, "rd")
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]

    def rate(src):
        best = 1e30
        for r in range(reps + 1):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            k((sms * 8,), (256,), (src, dst, cp.int64(m)))
            b.record()
            b.synchronize()
            t = cp.cuda.get_elapsed_time(a, b) / 1e3
            if r > 0:
                best = min(best, t)
        assert bool((dst == src).all())
        return m * 8 / best / 1e9

    print("p2p_peer: %d MiB: remote %.1f GB/s, local %.1f GB/s" % (mib, rate(far), rate(near)))
