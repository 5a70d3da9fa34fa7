#!/usr/bin/python3
# scipy_peer.py: SciPy's conjugate gradients (Debian's python3-scipy) as
# the peer of scripts/bench/solve: time to ||b - A x|| <= 1e-8 ||b||.
#
#   scipy_peer.py DIR KIND KEY   the matrix DIR/KIND_{rowptr,colidx,values}.npy
#                                and DIR/KIND_b.npy (bench.lua writes them)
#
# scipy.sparse.linalg.cg unpreconditioned and with Jacobi (M = D^-1 as a
# diagonal matrix). Records as bench.lua prints them.
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def main():
    d, kind, key = sys.argv[1:4]
    rp = np.load("%s/%s_rowptr.npy" % (d, kind))
    ci = np.load("%s/%s_colidx.npy" % (d, kind))
    va = np.load("%s/%s_values.npy" % (d, kind))
    b = np.load("%s/%s_b.npy" % (d, kind))
    n = len(rp) - 1
    A = sp.csr_matrix((va, ci, rp), shape=(n, n))
    for name in ("cg", "jacobi-pcg"):
        it = [0]

        def count(_):
            it[0] += 1

        t0 = time.perf_counter()
        M = sp.diags(1.0 / A.diagonal()) if name == "jacobi-pcg" else None
        setup = time.perf_counter() - t0
        x, info = spla.cg(A, b, tol=1e-8, atol=0.0, maxiter=5000, M=M, callback=count)
        total = time.perf_counter() - t0
        r = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        if info != 0 or r > 1.01e-8:
            raise SystemExit("scipy %s: info %d, residual %g" % (name, info, r))
        print("R\t%s-%s\tscipy\t%.6e\t%d\t%.6e" % (name, key, total, it[0], setup))
        sys.stdout.flush()


main()
