# solve_oracle.py: SciPy's answers for tests/solve_spec.lua.
# usage: solve_oracle.py DIR NAME...: for each NAME reads DIR/NAME.mtx
# (speck's Matrix Market output), takes b_i = 1 + (i mod 7) / 7 and writes
# DIR/NAME.x: the solution of A x = b by scipy.sparse.linalg.spsolve, one
# value a line (%.17g), then "resid R" (||b - A x|| / ||b||) and, for a
# symmetric A, "cg N J": the iterations of scipy.sparse.linalg.cg to
# ||b - A x|| <= 1e-8 ||b|| without and with Jacobi (M = D^-1).
import inspect
import sys

import numpy as np
import scipy.io
import scipy.sparse.linalg


# cg's relative tolerance: 'rtol' from SciPy 1.12 ('tol' gone in 1.14; a GPU
# host's image has a newer SciPy than Debian's 1.10)
cg = scipy.sparse.linalg.cg
RTOL = "rtol" if "rtol" in inspect.signature(cg).parameters else "tol"


def main():
    d = sys.argv[1]
    for name in sys.argv[2:]:
        A = scipy.sparse.csr_matrix(scipy.io.mmread("%s/%s.mtx" % (d, name)))
        n = A.shape[0]
        b = 1.0 + (np.arange(n) % 7) / 7.0
        x = scipy.sparse.linalg.spsolve(A.tocsc(), b)
        r = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
        with open("%s/%s.x" % (d, name), "w") as f:
            for v in x:
                f.write("%.17g\n" % v)
            f.write("resid %.17g\n" % r)
            if abs(A - A.T).max() == 0:
                its = []
                for M in (None, scipy.sparse.diags(1.0 / A.diagonal())):
                    k = [0]

                    def count(_):
                        k[0] += 1

                    cg(A, b, atol=0.0, maxiter=10000, M=M, callback=count, **{RTOL: 1e-8})
                    its.append(k[0])
                f.write("cg %d %d\n" % tuple(its))


main()
