#!/usr/bin/python3
# sparse_oracle.py: SciPy's answers for tests/sparse_spec.lua.
#
#   /usr/bin/python3 tests/sparse_oracle.py DIR
#
# DIR/jobs holds one job per line, "op out arg...", the files it names
# relative to DIR. Matrices are COO text ("nrows ncols nnz" then "i j v",
# 0-based, duplicates summed by SciPy), vectors and multivectors dense
# text (one row per line). Results: dense text for vectors, COO text of
# the canonical (sorted, summed) matrix for matrices.
#   spmv OUT MODE ALPHA BETA A X Y      y = beta*y + alpha*op(A)*x
#   spgemm OUT A B                      A*B
#   jacobi OUT OMEGA A P                (I - omega*D^-1*A)*P
#   spadd OUT ALPHA A BETA B            alpha*A + beta*B
#   sptrsv OUT UPLO DIAG A B            x with op(tri(A)) x = b
#   dense OUT A                         A as a dense matrix
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


def read_coo(path):
    with open(path) as f:
        m, n, nnz = (int(t) for t in f.readline().split())
        data = np.loadtxt(f, ndmin=2) if nnz > 0 else np.zeros((0, 3))
    i = data[:, 0].astype(np.int64)
    j = data[:, 1].astype(np.int64)
    return sp.coo_matrix((data[:, 2], (i, j)), shape=(m, n)).tocsr()


def read_dense(path):
    with open(path) as f:
        m, n = (int(t) for t in f.readline().split())
        a = np.loadtxt(f, ndmin=2) if m * n > 0 else np.zeros((m, n))
    return a.reshape(m, n)


def write_dense(path, a):
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    if a.shape[0] == 1 and a.ndim == 2:
        pass
    with open(path, "w") as f:
        f.write("%d %d\n" % a.shape)
        for row in a:
            f.write(" ".join("%.17g" % v for v in row) + "\n")


def write_coo(path, a):
    a = sp.csr_matrix(a)
    a.sum_duplicates()
    a.sort_indices()
    c = a.tocoo()
    with open(path, "w") as f:
        f.write("%d %d %d\n" % (a.shape[0], a.shape[1], c.nnz))
        for i, j, v in zip(c.row, c.col, c.data):
            f.write("%d %d %.17g\n" % (i, j, v))


def main(d):
    with open(d + "/jobs") as f:
        jobs = [ln.split() for ln in f if ln.strip()]
    for job in jobs:
        op, out, args = job[0], d + "/" + job[1], job[2:]
        if op == "spmv":
            mode, alpha, beta = args[0], float(args[1]), float(args[2])
            A = read_coo(d + "/" + args[3])
            x = read_dense(d + "/" + args[4])
            y = read_dense(d + "/" + args[5])
            opA = A.T if mode in ("T", "H") else A
            r = alpha * (opA @ x)
            if beta != 0:
                r = r + beta * y
            write_dense(out, r)
        elif op == "spgemm":
            write_coo(out, read_coo(d + "/" + args[0]) @ read_coo(d + "/" + args[1]))
        elif op == "jacobi":
            omega = float(args[0])
            A = read_coo(d + "/" + args[1])
            P = read_coo(d + "/" + args[2])
            dinv = sp.diags(1.0 / A.diagonal())
            I = sp.identity(A.shape[0])
            write_coo(out, (I - omega * dinv @ A) @ P)
        elif op == "spadd":
            alpha, beta = float(args[0]), float(args[2])
            A = read_coo(d + "/" + args[1])
            B = read_coo(d + "/" + args[3])
            write_coo(out, alpha * A + beta * B)
        elif op == "sptrsv":
            uplo, diag = args[0], args[1]
            A = read_coo(d + "/" + args[2])
            b = read_dense(d + "/" + args[3])[:, 0]
            T = sp.tril(A) if uplo == "L" else sp.triu(A)
            if diag == "U":
                T = T - sp.diags(T.diagonal()) + sp.identity(A.shape[0])
            x = spla.spsolve_triangular(sp.csr_matrix(T), b, lower=(uplo == "L"))
            write_dense(out, x.reshape(-1, 1))
        elif op == "dense":
            write_dense(out, read_coo(d + "/" + args[0]).toarray())
        else:
            raise SystemExit("sparse_oracle: unknown op " + op)


if __name__ == "__main__":
    main(sys.argv[1])
