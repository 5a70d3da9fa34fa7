#!/usr/bin/python3
# cholesky_gpu_oracle.py: SciPy's checks for tests/cholesky_gpu_spec.lua.
#
#   /usr/bin/python3 tests/cholesky_gpu_oracle.py factor A.mtx perm.txt L.mtx
#       the dense Cholesky (numpy) of P A P^T beside speck's L: prints the
#       largest difference over the largest entry of L (the entries speck
#       does not store must be zero in the dense factor too)
#   /usr/bin/python3 tests/cholesky_gpu_oracle.py solve A.mtx b.txt x.txt
#       x = A^-1 b by scipy.sparse.linalg.spsolve (SuperLU), full precision
import sys

import numpy as np
import scipy.io as sio
import scipy.sparse.linalg as spla

if sys.argv[1] == "factor":
    A = sio.mmread(sys.argv[2]).toarray()
    perm = np.loadtxt(sys.argv[3], dtype=np.int64, ndmin=1)
    L = sio.mmread(sys.argv[4]).toarray()
    want = np.linalg.cholesky(A[np.ix_(perm, perm)])
    print("%.17g" % (np.abs(want - L).max() / np.abs(want).max()))
else:
    A = sio.mmread(sys.argv[2]).tocsc()
    b = np.loadtxt(sys.argv[3], ndmin=1)
    x = spla.spsolve(A, b)
    np.savetxt(sys.argv[4], x, fmt="%.17g")
