"""p2p_peer.py: the raw peer of gpu_read.lua -- a CUDA kernel copying the
other GPU's memory into this GPU's element by element through a plain
pointer (peer access over NVLink, what nvshmem_ptr hands out), CuPy
RawKernel, best of REPS after a warm-up:
  remote      GPU 0 reads GPU 1's memory (one way);
  both ways   GPU 0 reads GPU 1's and GPU 1 reads GPU 0's at the same
              time (the slower GPU's time);
  local       the same kernel on GPU 0's own memory.
Prints GB/s like gpu_read.lua.

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
own, dst, kern = {}, {}, {}
for dev in (0, 1):
    with cp.cuda.Device(dev):
        cp.cuda.runtime.deviceEnablePeerAccess(1 - dev)
        own[dev] = cp.arange(m, dtype=cp.float64)
        dst[dev] = cp.empty(m, dtype=cp.float64)
        kern[dev] = cp.RawModule(code=src_code).get_function("rd")
sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]


def rate(pairs):
    """pairs: (device, source array) copied at the same time; GB/s of the slowest"""
    best = 1e30
    for r in range(reps + 1):
        ev = []
        for dev, src in pairs:
            with cp.cuda.Device(dev):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                kern[dev]((sms * 8,), (256,), (src, dst[dev], cp.int64(m)))
                b.record()
                ev.append((dev, a, b))
        t = 0.0
        for dev, a, b in ev:
            with cp.cuda.Device(dev):
                b.synchronize()
                t = max(t, cp.cuda.get_elapsed_time(a, b) / 1e3)
        if r > 0:
            best = min(best, t)
    for dev, src in pairs:
        with cp.cuda.Device(dev):
            assert bool((dst[dev] == own[0]).all())
    return m * 8 / best / 1e9


one = rate([(0, own[1])])
both = rate([(0, own[1]), (1, own[0])])
loc = rate([(0, own[0])])
print("p2p_peer: %d MiB: remote %.1f GB/s, both ways %.1f GB/s, local %.1f GB/s" % (mib, one, both, loc))
