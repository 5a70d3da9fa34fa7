#!/usr/bin/python3
# cholesky_oracle.py: SciPy's solution for tests/cholesky_spec.lua.
#
#   /usr/bin/python3 tests/cholesky_oracle.py A.mtx b.txt x.txt
#
# x = A^-1 b by scipy.sparse.linalg.spsolve (SuperLU), written one value a
# line with full precision.
import sys

import numpy as np
import scipy.io as sio
import scipy.sparse.linalg as spla

A = sio.mmread(sys.argv[1]).tocsc()
b = np.loadtxt(sys.argv[2], ndmin=1)
x = spla.spsolve(A, b)
np.savetxt(sys.argv[3], x, fmt="%.17g")
