# solve_oracle.py: SciPy's answers for tests/solve_spec.lua.
# usage: solve_oracle.py DIR NAME...: for each NAME reads DIR/NAME.mtx
# (speck's Matrix Market output), takes b_i = 1 + (i mod 7) / 7 and writes
# DIR/NAME.x: the solution of A x = b by scipy.sparse.linalg.spsolve, one
# value a line (%.17g), then a last line "resid R" (||b - A x|| / ||b||).
import sys

import numpy as np
import scipy.io
import scipy.sparse.linalg


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


main()
