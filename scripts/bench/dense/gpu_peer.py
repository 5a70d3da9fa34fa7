"""gpu_peer.py: cuBLAS strided batched dgemm through CuPy (cupy.matmul on
(batch, n, n) arrays), the GPU peer of scripts/bench/dense/gpu.lua."""
import sys
import time

import cupy as cp

nb = int(sys.argv[1]) if len(sys.argv) > 1 else 163840
for n in (3, 5, 9, 12, 15, 16):
    a = cp.random.rand(nb, n, n)
    b = cp.random.rand(nb, n, n)
    c = cp.matmul(a, b)
    cp.cuda.Device().synchronize()
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        cp.matmul(a, b, out=c)
    cp.cuda.Device().synchronize()
    t = (time.perf_counter() - t) / reps
    print("R\tcupy-cublas\t%d\t%.6f\t%.6e\t%.1f GFLOP/s" % (n, t, float(c.sum()), 2 * n**3 * nb / t * 1e-9))
