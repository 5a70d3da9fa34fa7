# zlinalg2_oracle.py: NumPy's / SciPy's answers for tests/zlinalg2_spec.lua
# (complex getrs gesv trtri trmm syrk herk; batched lu getrf gesv trmm
# trtri). usage: zlinalg2_oracle.py JOB OUT IN... ; every file is a .npy
# written by speck (IN) or for it (OUT, complex128, 1-D, flattened
# row-major). Jobs:
#   solve:trans A B: op(A)^-1 B (op N, T, C)
#   trtri:uplo:diag A: the inverse of the triangle (unit diagonal for U)
#   trmm:ar:ai A BL BR: for side L then R, uplo L U, trans N T C, diag N U
#       (that order), alpha op(T) B (L) or alpha B op(T) (R), concatenated
#   syrk:trans:ar:ai:br:bi A C: alpha op(A) op(A)^T + beta C
#   herk:trans:a:b A C: alpha op(A) op(A)^H + beta C (diag of C read real)
#   blu A: each matrix's LU without pivoting (L unit, below the diagonal)
#   bgetrf A: [each lu of scipy.linalg.lu_factor..., each piv...]
#   bgesv A B: each A_b^-1 B_b
#   btrtri:uplo:diag A: each triangle's inverse
#   btrmm:side:uplo:trans:diag:ar:ai A B: each alpha op(T_b) B_b or
#       alpha B_b op(T_b)
import sys
import numpy as np
import scipy.linalg as sl


def op(M, t):
    return M if t == "N" else (M.T if t == "T" else np.conj(M).T)


def tri(A, uplo, diag):
    T = np.tril(A) if uplo == "L" else np.triu(A)
    if diag == "U":
        np.fill_diagonal(T, 1)
    return T


def lu_nopiv(A):
    A = A.copy()
    n = A.shape[0]
    for k in range(min(A.shape)):
        for r in range(k + 1, A.shape[0]):
            A[r, k] /= A[k, k]
            A[r, k + 1:] -= A[r, k] * A[k, k + 1:]
    return A


def run(job, out, ins):
    p = job.split(":")
    a = [np.load(f).astype(np.complex128) if np.load(f).dtype.kind == "c" else np.load(f)
         for f in ins]
    cz = lambda i: float(p[i]) + 1j * float(p[i + 1])
    if p[0] == "solve":
        r = np.linalg.solve(op(a[0], p[1]), a[1])
    elif p[0] == "trtri":
        r = np.linalg.inv(tri(a[0], p[1], p[2]))
    elif p[0] == "trmm":
        al = cz(1)
        A, BL, BR = a
        res = []
        for side, B in (("L", BL), ("R", BR)):
            for uplo in "LU":
                for t in "NTC":
                    for diag in "NU":
                        M = op(tri(A, uplo, diag), t)
                        res.append((al * (M @ B if side == "L" else B @ M)).ravel())
        r = np.concatenate(res)
    elif p[0] == "syrk":
        A, C = a
        M = op(A, p[1])
        r = cz(2) * M @ M.T + cz(4) * C
    elif p[0] == "herk":
        A, C = a
        C = C.copy()
        np.fill_diagonal(C, np.diag(C).real)
        M = op(A, p[1])
        r = float(p[2]) * M @ np.conj(M).T + float(p[3]) * C
    elif p[0] == "blu":
        r = np.stack([lu_nopiv(M) for M in a[0]])
    elif p[0] == "bgetrf":
        f = [sl.lu_factor(M) for M in a[0]]
        r = np.concatenate([np.stack([x[0] for x in f]).ravel(),
                            np.stack([x[1] for x in f]).ravel().astype(np.complex128)])
    elif p[0] == "bgesv":
        r = np.stack([np.linalg.solve(M, B) for M, B in zip(a[0], a[1])])
    elif p[0] == "btrtri":
        r = np.stack([np.linalg.inv(tri(M, p[1], p[2])) for M in a[0]])
    elif p[0] == "btrmm":
        side, uplo, t, diag = p[1:5]
        al = cz(5)
        r = np.stack([al * (op(tri(M, uplo, diag), t) @ B if side == "L"
                            else B @ op(tri(M, uplo, diag), t)) for M, B in zip(a[0], a[1])])
    else:
        raise SystemExit("unknown job " + job)
    np.save(out, np.asarray(r, dtype=np.complex128).ravel())


from oracle_serve import main  # noqa: E402


main(run)
