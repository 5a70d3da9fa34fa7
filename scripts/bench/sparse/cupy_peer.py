"""cupy_peer.py: cuSPARSE through CuPy, the GPU peer of scripts/bench/sparse
(run by gpu-run on the GPU machine, beside bench.lua under SPECK_SPACE=cuda).

Usage: python3 cupy_peer.py OP MATRIX
  spmv m5|m27|m27v  y = A @ x (cuSPARSE SpMV, CSR; m27v is m27)
  spgemm m5       C = A @ A (cuSPARSE SpGEMM)
  cg m5|m27|m27v    cupyx.scipy.sparse.linalg.cg, time per iteration (50)
  parts m27       SpMV and CG per iteration as cg_parts.lua prints them
                  (its lines to set beside speck's, by diagonals or not)
The matrices and x are bench.lua's (same entries, same order); records
'R kernel peer seconds bytes checksum' as bench.lua does; the median of 9
timed calls after 2 untimed ones, each closed by a device synchronise.
"""
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cspl


def stencil(g, dims):
    """the 5-point (dims 2) or 27-point (dims 3) matrix of bench.lua"""
    n = g ** dims
    i = cp.arange(n, dtype=cp.int64)
    coords = [(i // g ** d) % g for d in range(dims)]
    rows, cols, vals = [], [], []
    if dims == 2:
        offs = [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)]  # (di, dj): gi = i // g
        gi, gj = coords[1], coords[0]
        for di, dj in offs:
            ok = (gi + di >= 0) & (gi + di < g) & (gj + dj >= 0) & (gj + dj < g)
            rows.append(i[ok])
            cols.append((i + di * g + dj)[ok])
            vals.append(cp.full(int(ok.sum()), 4.0 if di == 0 and dj == 0 else -1.0))
    else:
        x, y, z = coords
        for dz in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dx in (-1, 0, 1):
                    ok = ((x + dx >= 0) & (x + dx < g) & (y + dy >= 0) & (y + dy < g)
                          & (z + dz >= 0) & (z + dz < g))
                    rows.append(i[ok])
                    cols.append((i + dx + g * (dy + g * dz))[ok])
                    centre = dx == 0 and dy == 0 and dz == 0
                    vals.append(cp.full(int(ok.sum()), 26.0 if centre else -1.0))
    A = csp.coo_matrix((cp.concatenate(vals), (cp.concatenate(rows), cp.concatenate(cols))),
                       shape=(n, n)).tocsr()
    A.sort_indices()
    return A


def timed(f, reps=9, warm=2):
    for _ in range(warm):
        f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2]


def record(kernel, t, nbytes, check):
    print("R\t%s\tcusparse\t%.9e\t%.0f\t%.17g" % (kernel, t, nbytes, check), flush=True)


def main():
    op, m = sys.argv[1], sys.argv[2]
    A = stencil(2048, 2) if m == "m5" else stencil(128, 3)  # m27 and m27v alike
    n = A.shape[0]
    i = cp.arange(n, dtype=cp.int64)
    x = 1.0 + (i % 1000003).astype(cp.float64) * 1e-6
    w = (1 + i % 3).astype(cp.float64)
    if op == "spmv":
        out = {}
        t = timed(lambda: out.__setitem__("y", A @ x))
        nbytes = 12.0 * A.nnz + 8.0 * (n + 1) + 16.0 * n
        record("spmv-" + m, t, nbytes, float(cp.dot(out["y"], w)))
    elif op == "spgemm":
        out = {}
        t = timed(lambda: out.__setitem__("C", A @ A), reps=3, warm=1)
        C = out["C"]
        C.sort_indices()
        check = float(cp.sum(C.data * (1 + C.indices % 3)))
        record("spgemm-" + m, t, 0, check)
        print("I\tcusparse\tnnz-spgemm-%s\t%d" % (m, C.nnz))
    elif op == "cg":
        its = 50
        try:  # CuPy 13 names the tolerance rtol, older ones tol
            cspl.cg(A, x, rtol=0.0, atol=0.0, maxiter=5)
            kw = {"rtol": 0.0, "atol": 0.0}
        except TypeError:
            kw = {"tol": 0.0, "atol": 0.0}
        t = timed(lambda: cspl.cg(A, x, maxiter=its, **kw), reps=3, warm=0)
        record("cg-" + m, t / its, 0, 0)
    elif op == "parts":
        out = {}
        t = timed(lambda: out.__setitem__("y", A @ x), reps=15)
        nbytes = 12.0 * A.nnz + 8.0 * (n + 1) + 16.0 * n
        print("%-44s %9.1f us  %6.0f GB/s" % ("cuSPARSE SpMV (CuPy)", t * 1e6, nbytes / t / 1e9))
        its = 50
        try:
            cspl.cg(A, x, rtol=0.0, atol=0.0, maxiter=5)
            kw = {"rtol": 0.0, "atol": 0.0}
        except TypeError:
            kw = {"tol": 0.0, "atol": 0.0}
        t = timed(lambda: cspl.cg(A, x, maxiter=its, **kw), reps=15, warm=1)
        print("%-44s %9.1f us" % ("cuSPARSE CG per iteration (CuPy)", t / its * 1e6))
    else:
        sys.exit("usage: cupy_peer.py spmv|spgemm|cg|parts MATRIX")


main()
