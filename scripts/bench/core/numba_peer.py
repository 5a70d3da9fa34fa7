"""numba_peer.py: the Numba peer of scripts/bench/core (run by ./run).

Usage: /usr/bin/python3 numba_peer.py axpy|spmv [log2n [grid_n]]
with NUMBA_NUM_THREADS=2. Kernels are @njit(parallel=True) with prange,
the same arithmetic, data and matrix as core.lua and ref.c. Prints
tab-separated records, the format core.lua and ref.c print:

  I <impl> <key> <value>
  R <kernel> <impl> <seconds> <bytes moved> <checksum>

'<kernel>-first' is the first call: Numba compiles on it (no on-disk
cache: cache=False), so it is compile + one run, the counterpart of
speck's first launch of a new body. The rest: WARM calls, then the median
of REPS timed ones.
"""
import sys
import time

import numpy as np
import numba
from numba import njit, prange

REPS, WARM = 9, 2


def record(kernel, t, nbytes, check=0.0):
    print("R\t%s\tnumba\t%.9e\t%.0f\t%.17g" % (kernel, t, nbytes, check), flush=True)


def steady(f, *args):
    for _ in range(WARM):
        f(*args)
    ts = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        f(*args)
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


@njit(parallel=True, cache=False)
def axpy(a, x, y):
    for i in prange(x.shape[0]):
        y[i] = a * x[i] + y[i]


@njit(parallel=True, cache=False)
def spmv(rowptr, colidx, values, x, y):
    for i in prange(y.shape[0]):
        s = 0.0
        for p in range(rowptr[i], rowptr[i + 1]):
            s += values[p] * x[colidx[p]]
        y[i] = s


def bench_axpy(log2n):
    n = 1 << log2n
    i = np.arange(n, dtype=np.int64)
    x = 1.0 + (i % 1000003).astype(np.float64) * 1e-6
    y = 2.0 - (i % 999983).astype(np.float64) * 1e-6
    del i
    t0 = time.perf_counter()
    axpy(0.5, x, y)
    record("axpy-first", time.perf_counter() - t0, 24 * n)
    record("axpy", steady(axpy, 0.5, x, y), 24 * n)


def laplacian(nx, ny):
    """CSR of the 2D 5-point Laplacian, rows r = gi*ny + gj, columns
    ascending (r-ny, r-1, r, r+1, r+ny), 4 on the diagonal, -1 off it."""
    n = nx * ny
    r = np.arange(n, dtype=np.int64)
    gi, gj = r // ny, r % ny
    nbrs = [(gi > 0, r - ny, -1.0), (gj > 0, r - 1, -1.0),
            (np.ones(n, dtype=bool), r, 4.0),
            (gj < ny - 1, r + 1, -1.0), (gi < nx - 1, r + ny, -1.0)]
    counts = sum(m.astype(np.int64) for m, _, _ in nbrs)
    rowptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=rowptr[1:])
    nnz = int(rowptr[n])
    colidx = np.empty(nnz, dtype=np.int32)
    values = np.empty(nnz, dtype=np.float64)
    pos = rowptr[:-1].copy()
    for m, c, v in nbrs:
        at = pos[m]
        colidx[at] = c[m]
        values[at] = v
        pos[m] += 1
    x = 1.0 + (r % 1000003).astype(np.float64) * 1e-6
    return rowptr, colidx, values, x


def bench_spmv(gn):
    rowptr, colidx, values, x = laplacian(gn, gn)
    n, nnz = x.shape[0], colidx.shape[0]
    y = np.zeros(n)
    nbytes = 12 * nnz + 8 * (n + 1) + 16 * n
    t0 = time.perf_counter()
    spmv(rowptr, colidx, values, x, y)
    record("spmv-first", time.perf_counter() - t0, nbytes)
    t = steady(spmv, rowptr, colidx, values, x, y)
    w = 1.0 + (np.arange(n) % 3)
    record("spmv", t, nbytes, float(np.dot(y, w)))


def main():
    kernel = sys.argv[1] if len(sys.argv) > 1 else ""
    log2n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    gn = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
    print("I\tnumba\tversion\t%s" % numba.__version__)
    print("I\tnumba\tthreads\t%d" % numba.config.NUMBA_NUM_THREADS)
    if kernel == "axpy":
        bench_axpy(log2n)
    elif kernel == "spmv":
        bench_spmv(gn)
    else:
        sys.stderr.write("usage: numba_peer.py axpy|spmv [log2n [grid_n]]\n")
        sys.exit(2)
    print("I\tnumba\tthreading_layer\t%s" % numba.threading_layer())


if __name__ == "__main__":
    main()
