#!/usr/bin/python3
# precond_oracle.py: the reference incomplete factorizations for
# tests/precond_spec.lua, written from the textbook definitions (Saad,
# Iterative Methods, alg. 10.4 and 10.5; IC(0) right-looking) on dense
# NumPy arrays. Usage:
#   precond_oracle.py ilu MATRIX.mtx K   -> "L i j v" (strictly lower) and
#                                           "U i j v" lines (ILU(K))
#   precond_oracle.py ic0 MATRIX.mtx     -> "L i j v" lines of the IC(0)
#                                           factor (lower, with diagonal)
import sys

import numpy as np
import scipy.io


def ilu(A, K):
    n = A.shape[0]
    INF = 1 << 30
    lev = np.where(A != 0, 0, INF)
    np.fill_diagonal(lev, 0)
    W = A.copy()
    for i in range(n):
        for k in range(i):
            if lev[i, k] > K:
                continue
            W[i, k] /= W[k, k]
            for j in range(k + 1, n):
                if lev[k, j] > K:
                    continue
                lev[i, j] = min(lev[i, j], lev[i, k] + lev[k, j] + 1)
                W[i, j] -= W[i, k] * W[k, j]
        for j in range(n):
            if lev[i, j] > K:
                W[i, j] = 0.0
    return W, lev <= K


def ic0(A):
    n = A.shape[0]
    pat = np.tril(A != 0) | np.eye(n, dtype=bool)
    L = np.tril(A).copy()
    for k in range(n):
        L[k, k] = np.sqrt(L[k, k])
        for i in range(k + 1, n):
            if pat[i, k]:
                L[i, k] /= L[k, k]
        for j in range(k + 1, n):
            for i in range(j, n):
                if pat[i, j] and pat[i, k] and pat[j, k]:
                    L[i, j] -= L[i, k] * L[j, k]
    return L, pat


def main():
    what, path = sys.argv[1], sys.argv[2]
    A = scipy.io.mmread(path).toarray().astype(float)
    out = []
    if what == "ilu":
        W, keep = ilu(A, int(sys.argv[3]))
        n = A.shape[0]
        for i in range(n):
            for j in range(n):
                if keep[i, j]:
                    out.append("%s %d %d %.17g" % ("L" if j < i else "U", i, j, W[i, j]))
    else:
        L, pat = ic0(A)
        for i, j in zip(*np.nonzero(pat)):
            out.append("L %d %d %.17g" % (i, j, L[i, j]))
    print("\n".join(out))


if __name__ == "__main__":
    main()
