#!/usr/bin/python3
# dense_oracle.py: NumPy's and SciPy's answers for tests/dense_spec.lua.
#
#   /usr/bin/python3 tests/dense_oracle.py DIR
#
# DIR/jobs holds one job per line, "op out arg...": .npy files relative to
# DIR, chars, numbers. A rank-3 input is a batch: the op runs on each
# matrix. Every output is written as float64 .npy (pivots: int64).
#   gemm OUT TA TB ALPHA BETA A B C     alpha op(A) op(B) + beta C (beta 0: C ignored)
#   gemv OUT TA ALPHA BETA A X Y
#   syrk OUT UPLO TRANS ALPHA BETA A C  triangle UPLO of C updated, the other kept
#   trsm OUT SIDE UPLO TRANS DIAG ALPHA A B
#   trmm OUT SIDE UPLO TRANS DIAG ALPHA A B
#   potrf OUT UPLO A                    factor in triangle UPLO, the other kept
#   getrf OUT OUTPIV A                  LAPACK's packed LU and 0-based pivots
#   lunp OUT A                          LU without pivoting (packed)
#   gesv OUT A B                        A^-1 B
#   trtri OUT UPLO DIAG A               inverse in triangle UPLO, the rest kept
import os
import sys

import numpy as np
import scipy.linalg as la


def op(a, t):
    return a if t == "N" else a.T


def tri(a, uplo, diag):
    t = np.tril(a) if uplo == "L" else np.triu(a)
    if diag == "U":
        np.fill_diagonal(t, 1.0)
    return t


def keep_other(new, old, uplo, diag_new=True):
    """new in triangle uplo (diagonal included when diag_new), old elsewhere"""
    n = old.shape[0]
    mask = np.tril(np.ones((n, n), bool)) if uplo == "L" else np.triu(np.ones((n, n), bool))
    if not diag_new:
        np.fill_diagonal(mask, False)
    out = old.copy()
    out[mask] = new[mask]
    return out


def one(name, args, arrs):
    if name == "gemm":
        ta, tb, al, be = args[0], args[1], float(args[2]), float(args[3])
        a, b, c = arrs
        r = al * (op(a, ta) @ op(b, tb))
        return r if be == 0 else r + be * c
    if name == "gemv":
        ta, al, be = args[0], float(args[1]), float(args[2])
        a, x, y = arrs
        r = al * (op(a, ta) @ x)
        return r if be == 0 else r + be * y
    if name == "syrk":
        uplo, tr, al, be = args[0], args[1], float(args[2]), float(args[3])
        a, c = arrs
        r = al * (op(a, tr) @ op(a, tr).T)
        if be != 0:
            r = r + be * c
        return keep_other(r, c, uplo)
    if name in ("trsm", "trmm"):
        side, uplo, tr, diag, al = args[0], args[1], args[2], args[3], float(args[4])
        a, b = arrs
        t = op(tri(a, uplo, diag), tr)
        if name == "trmm":
            return al * (t @ b) if side == "L" else al * (b @ t)
        if side == "L":
            return al * np.linalg.solve(t, b) if b.size else b
        return al * np.linalg.solve(t.T, b.T).T if b.size else b
    if name == "potrf":
        (a,) = arrs
        if a.size == 0:
            return a
        l = np.linalg.cholesky(a)
        return keep_other(l if args[0] == "L" else l.T, a, args[0])
    if name == "lunp":
        a = arrs[0].copy()
        n = min(a.shape)
        for k in range(n):
            a[k + 1:, k] /= a[k, k]
            a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
        return a
    if name == "gesv":
        a, b = arrs
        return np.linalg.solve(a, b) if a.size else b
    if name == "trtri":
        uplo, diag = args[0], args[1]
        (a,) = arrs
        if a.size == 0:
            return a
        inv = np.linalg.inv(tri(a, uplo, diag))
        return keep_other(inv, a, uplo, diag == "N")
    raise ValueError(name)


def main(d):
    with open(os.path.join(d, "jobs")) as f:
        jobs = [l.split() for l in f if l.strip()]
    for job in jobs:
        name, out, rest = job[0], job[1], job[2:]
        if name == "getrf":
            piv_out, a = rest[0], np.load(os.path.join(d, rest[1])).astype(np.float64)
            batch = a.ndim == 3
            a3 = a if batch else a[None]
            lus, pivs = [], []
            for m in a3:
                if m.size == 0:
                    lus.append(m)
                    pivs.append(np.zeros(0, np.int64))
                    continue
                lu, piv = la.lu_factor(m)
                lus.append(lu)
                pivs.append(piv.astype(np.int64))
            np.save(os.path.join(d, out), np.array(lus) if batch else lus[0])
            np.save(os.path.join(d, piv_out), np.array(pivs) if batch else pivs[0])
            continue
        args = [t for t in rest if not t.endswith(".npy")]
        arrs = [np.load(os.path.join(d, t)).astype(np.float64) for t in rest if t.endswith(".npy")]
        if arrs and arrs[0].ndim == 3:
            res = np.array([one(name, args, list(ms)) for ms in zip(*arrs)])
            if res.size == 0:
                res = np.zeros(arrs[-1].shape)
        else:
            res = one(name, args, arrs)
        np.save(os.path.join(d, out), np.asarray(res, dtype=np.float64))
    print("OK", len(jobs))


if __name__ == "__main__":
    main(sys.argv[1])
