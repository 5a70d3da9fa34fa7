# zlinalg_peer.py: SciPy's (LAPACK/OpenBLAS ztrsm, zpotrf, zgetrf, zgesv,
# ztrtri, ztrmm, zherk) and NumPy's (matmul, linalg.solve) side of
# scripts/bench/dense/zlinalg_run, the problems of zlinalg.lua; prints
# "numpy <kernel> <size> <seconds>" (best of BENCH_REPS runs after a
# warm-up).
#   /usr/bin/python3 zlinalg_peer.py trsm|potrf|getrf|gesv|trtri|trmm|herk N
#   /usr/bin/python3 zlinalg_peer.py bgemm|bgesv N BATCH
import os
import sys
import time

import numpy as np
import scipy.linalg as sl
import scipy.linalg.blas as sb
import scipy.linalg.lapack as la

what, n = sys.argv[1], int(sys.argv[2])
reps = int(os.environ.get("BENCH_REPS", "5"))
dt = np.complex64 if os.environ.get("BENCH_DTYPE") == "complex64" else np.complex128


def best(setup, f):
    setup()
    f()
    b = float("inf")
    for _ in range(reps):
        setup()
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b


if what == "bgesv":
    nb = int(sys.argv[3])
    b, j, k = np.meshgrid(np.arange(nb), np.arange(n), np.arange(n), indexing="ij")
    A = ((((b + j * 7 + k) % 13) / 13 - 0.5) + 0.25j).astype(dt)
    A[:, np.arange(n), np.arange(n)] = n + 1.0
    B = (np.arange(n)[None, :, None] + 1j + np.zeros((nb, 1, 1))).astype(dt)
    print("numpy bgesv %dx%d/%d %.6g" % (n, n, nb, best(lambda: None, lambda: np.linalg.solve(A, B))))
    sys.exit(0)

if what == "bgemm":
    nb = int(sys.argv[3])
    b, j, k = np.meshgrid(np.arange(nb), np.arange(n), np.arange(n), indexing="ij")
    A = (((b + j * 7 + k) % 13) / 13 + 1j * (((j + 3 * k) % 5) / 5)).astype(dt)
    B = np.conj(np.swapaxes(A, 1, 2)).copy()
    C = np.empty_like(A)
    print("numpy bgemm %dx%d/%d %.6g" % (n, n, nb, best(lambda: None, lambda: np.matmul(A, B, out=C))))
    sys.exit(0)

i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
A0 = ((((i * 7 + j * 3) % 11) / 11 - 0.5) / n + 1j * ((((i + 5 * j) % 7) / 7 - 0.5) / n)).astype(dt)
np.fill_diagonal(A0, n + 1.0)
A0 = np.asfortranarray(A0)
W = np.empty_like(A0, order="F")


def restore(src):
    def f():
        W[...] = src
    return f


trsm = sb.ztrsm if dt == np.complex128 else sb.ctrsm
potrf = la.zpotrf if dt == np.complex128 else la.cpotrf
getrf = la.zgetrf if dt == np.complex128 else la.cgetrf
if what == "trsm":
    print("numpy trsm %d %.6g" % (n, best(restore(A0), lambda: trsm(1.0, A0, W, side=0, lower=1,
                                                                     trans_a=2, overwrite_b=1))))
elif what == "potrf":
    H = np.asfortranarray(A0 + np.conj(A0.T))
    print("numpy potrf %d %.6g" % (n, best(restore(H), lambda: potrf(W, lower=1, overwrite_a=1))))
elif what == "getrf":
    print("numpy getrf %d %.6g" % (n, best(restore(A0), lambda: getrf(W, overwrite_a=1))))
elif what in ("gesv", "trmm"):
    W2 = np.empty_like(A0, order="F")
    gesv = la.zgesv if dt == np.complex128 else la.cgesv
    trmm = sb.ztrmm if dt == np.complex128 else sb.ctrmm

    def both():
        W[...] = A0
        W2[...] = A0
    if what == "gesv":
        print("numpy gesv %d %.6g" % (n, best(both, lambda: gesv(W, W2, overwrite_a=1, overwrite_b=1))))
    else:
        print("numpy trmm %d %.6g" % (n, best(both, lambda: trmm(1.0, A0, W2, side=0, lower=1,
                                                                 trans_a=2, overwrite_b=1))))
elif what == "trtri":
    trtri = la.ztrtri if dt == np.complex128 else la.ctrtri
    print("numpy trtri %d %.6g" % (n, best(restore(A0), lambda: trtri(W, lower=0, overwrite_c=1))))
elif what == "herk":
    herk = sb.zherk if dt == np.complex128 else sb.cherk
    print("numpy herk %d %.6g" % (n, best(lambda: None, lambda: herk(1.0, A0, lower=1))))
