#!/usr/bin/python3
# scipy_peer.py: SciPy (Debian's python3-scipy, single-threaded sparse
# kernels) as a peer of scripts/bench/sparse.
#
#   scipy_peer.py spmv FILE KERNEL     y = A @ x
#   scipy_peer.py spgemm FILE KERNEL   A @ A
#   scipy_peer.py sptrsv FILE KERNEL   spsolve_triangular(tril(A), b)
#   scipy_peer.py cg FILE KERNEL       scipy.sparse.linalg.cg, 50 iterations
#
# FILE is a matrix ref.c's 'gen' wrote (for sptrsv: its leading 1024^2
# block, the 5-point Laplacian of 1024^2 when FILE is m5). Records as
# ref.c prints them.
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

REPS, WARM = 9, 2


def load(path):
    with open(path, "rb") as f:
        n, nnz = np.fromfile(f, dtype=np.int64, count=2)
        rp = np.fromfile(f, dtype=np.int64, count=n + 1)
        ci = np.fromfile(f, dtype=np.int32, count=nnz)
        va = np.fromfile(f, dtype=np.float64, count=nnz)
    return sp.csr_matrix((va, ci, rp), shape=(n, n))


def timed(f, reps=REPS, warm=WARM):
    for _ in range(warm):
        f()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = f()
        t.append(time.perf_counter() - t0)
    return float(np.median(t)), r


def record(kernel, t, nbytes, check):
    print("R\t%s\tscipy\t%.9e\t%.0f\t%.17g" % (kernel, t, nbytes, check), flush=True)


def weights(n):
    return 1.0 + (np.arange(n) % 3)


def lap5(g):
    t = sp.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(g, g))
    e = sp.diags([-1.0, -1.0], [-1, 1], shape=(g, g))
    return (sp.kron(sp.identity(g), t) + sp.kron(e, sp.identity(g))).tocsr()


def main():
    op, path, kernel = sys.argv[1], sys.argv[2], sys.argv[3]
    if op == "sptrsv":
        L = sp.tril(lap5(1024)).tocsr()
        n = L.shape[0]
        b = 1.0 + (np.arange(n) % 1000003) * 1e-6
        t, x = timed(lambda: spla.spsolve_triangular(L, b, lower=True), 3, 0)
        record(kernel, t, 12.0 * L.nnz + 8.0 * (n + 1) + 24.0 * n, float(x @ weights(n)))
        return
    A = load(path)
    n = A.shape[0]
    x = 1.0 + (np.arange(n) % 1000003) * 1e-6
    if op == "spmv":
        t, y = timed(lambda: A @ x)
        record(kernel, t, 12.0 * A.nnz + 8.0 * (n + 1) + 16.0 * n, float(y @ weights(n)))
    elif op == "spgemm":
        t, C = timed(lambda: A @ A, 3, 1)
        C.sort_indices()
        record(kernel, t, 0, float(C.data @ weights(C.shape[1])[C.indices]))
        print("I\tscipy\tnnz-%s\t%d" % (kernel, C.nnz))
    elif op == "cg":
        its = 50
        t, _ = timed(lambda: spla.cg(A, x, maxiter=its, tol=0, atol=0), 1, 0)
        record(kernel, t / its, 0, 0)
    else:
        raise SystemExit("scipy_peer: unknown op " + op)


if __name__ == "__main__":
    main()
