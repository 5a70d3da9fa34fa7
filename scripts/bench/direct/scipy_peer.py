#!/usr/bin/python3
# scipy_peer.py: SciPy's side of scripts/bench/direct (Debian's
# python3-scipy): scipy.sparse.linalg.spsolve (SuperLU, COLAMD) on the
# convection-diffusion matrices and scipy.sparse.linalg.lobpcg (4
# smallest, Jacobi-preconditioned, tol 1e-6) on the 2D Poisson matrix that
# direct.lua wrote to DIR. Records as direct.lua prints them.
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def main():
    d = sys.argv[1]
    for name in ("convdiff2d", "convdiff3d"):
        A = sp.csc_matrix(scipy.io.mmread("%s/%s.mtx" % (d, name)))
        b = np.ones(A.shape[0])
        t0 = time.perf_counter()
        x = spla.spsolve(A, b)
        t = time.perf_counter() - t0
        r = np.abs(b - A @ x).max() / (abs(A).sum(axis=1).max() * np.abs(x).max() + 1)
        print("R\tspsolve-%s\tscipy\t%.6e\tberr %.1e" % (name, t, r))
    P = sp.csr_matrix(scipy.io.mmread("%s/poisson2d.mtx" % d))
    n = P.shape[0]
    X = np.random.default_rng(1).uniform(-1, 1, (n, 4))
    M = sp.diags(1.0 / P.diagonal())
    t0 = time.perf_counter()
    w, _, hist = spla.lobpcg(P, X, M=M, tol=1e-6 * 8, maxiter=2000, largest=False,
                             retResidualNormsHistory=True)
    t = time.perf_counter() - t0
    print("R\tlobpcg-poisson2d\tscipy\t%.6e\t%d iterations" % (t, len(hist)))


main()
