# numpy_peer.py: NumPy's (OpenBLAS zgemm) and SciPy's side of
# scripts/bench/complex/run, the same problems as complex.lua; prints
# "numpy <kernel> <size> <seconds>" (the best of BENCH_REPS runs).
#   /usr/bin/python3 numpy_peer.py gemm N | spmv NX
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

what, n = sys.argv[1], int(sys.argv[2])
reps = int(os.environ.get("BENCH_REPS", "5"))


def best(f):
    f()
    b = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b


if what == "gemm":
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    A = ((i * 7 + j) % 13) / 13 + 1j * (((i + 3 * j) % 5) / 5)
    B = np.conj(A.T).copy()
    print("numpy gemm %d %.6g" % (n, best(lambda: A @ np.conj(B).T)))
elif what == "spmv":
    e = np.ones(n)
    T = sp.diags([-e[1:], 4 * e, -e[1:]], [-1, 0, 1])
    L = (sp.kron(sp.eye(n), T) + sp.kron(sp.diags([-e[1:], -e[1:]], [-1, 1]), sp.eye(n))).tocsr()
    A = L.astype(np.complex128)
    A.setdiag(4 + 1j)
    x = np.full(n * n, 1 - 1j)
    print("numpy spmv %d %.6g" % (n, best(lambda: A @ x)))
