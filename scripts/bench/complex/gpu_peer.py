# gpu_peer.py: CuPy's side of scripts/bench/complex/gpu_run (cuBLAS zgemm
# through cupy.matmul, cuSPARSE's CSR SpMV through cupyx.scipy.sparse),
# the problems of gpu.lua; prints "cupy <kernel> <size> <seconds>"
# (median of BENCH_REPS runs after a warm-up, CUDA events).
#   python3 gpu_peer.py gemm N | spmv NX
import os
import sys

import cupy as cp
import cupyx.scipy.sparse as csp

what, n = sys.argv[1], int(sys.argv[2])
reps = int(os.environ.get("BENCH_REPS", "7"))


def median(f):
    f()
    cp.cuda.Device().synchronize()
    s = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        f()
        b.record()
        b.synchronize()
        s.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
    s.sort()
    return s[(reps - 1) // 2]


if what == "gemm":
    i, j = cp.meshgrid(cp.arange(n), cp.arange(n), indexing="ij")
    A = cp.asfortranarray(((i * 7 + j) % 13) / 13 + 1j * (((i + 3 * j) % 5) / 5))
    B = cp.asfortranarray(cp.conj(A.T))
    C = cp.empty((n, n), dtype=cp.complex128, order="F")
    print("cupy gemm %d %.6g" % (n, median(lambda: cp.matmul(A, cp.conj(B).T, out=C))))
elif what == "spmv":
    N = n * n
    r = cp.arange(N)
    y, x = r // n, r % n
    cols = cp.stack([cp.where(y > 0, r - n, r), cp.where(x > 0, r - 1, r), r,
                     cp.where(x < n - 1, r + 1, r), cp.where(y < n - 1, r + n, r)], axis=1)
    vals = cp.stack([cp.where(y > 0, -1 + 0.5j, 0), cp.where(x > 0, -1 - 0.5j, 0),
                     cp.full(N, 4 + 1j), cp.where(x < n - 1, -1 + 0.5j, 0),
                     cp.where(y < n - 1, -1 - 0.5j, 0)], axis=1).astype(cp.complex128)
    A = csp.csr_matrix((vals.ravel(), cols.ravel().astype(cp.int32), cp.arange(0, 5 * N + 1, 5)),
                       shape=(N, N))
    v = cp.full(N, 1 - 1j, dtype=cp.complex128)
    print("cupy spmv %d %.6g" % (n, median(lambda: A @ v)))
