# zlinalg_oracle.py: NumPy's / SciPy's answers for tests/zlinalg_spec.lua
# (complex trsm, potrf, getrf, batched gemm, SpTRSV). usage:
# zlinalg_oracle.py JOB OUT IN... ; every file is a .npy written by speck
# (IN) or for it (OUT, complex128, 1-D unless said). Jobs:
#   trsm:ar:ai A BL BR: for side L then R, uplo L U, trans N T C, diag N U
#       (that order), X = alpha op(T)^-1 B (L) or alpha B op(T)^-1 (R), T
#       the triangle of A (unit diagonal for diag U); the X's flattened
#       row-major and concatenated
#   potrf:U A: scipy.linalg.cholesky's factor (lower for L, upper for U)
#   getrf A: [lu (flattened), piv] of scipy.linalg.lu_factor
#   lucheck A LU piv: [||P A - L U||_max / ||A||_max]
#   bgemm:ta:tb:ar:ai:br:bi A B C: alpha op(A_b) op(B_b) + beta C_b
#   btrsm:side:uplo:trans:diag:ar:ai A B: X_b = alpha op(T_b)^-1 B_b (L)
#       or alpha B_b op(T_b)^-1 (R), flattened
#   sptrsv:uplo:diag:trans T b: x with op(tri(T)) x = b (T dense)
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


def run(job, out, ins):
    parts = job.split(":")
    a = [np.load(p) for p in ins]
    if parts[0] == "trsm":
        alpha = float(parts[1]) + 1j * float(parts[2])
        A, BL, BR = (v.astype(np.complex128) for v in a)
        res = []
        for side, B in (("L", BL), ("R", BR)):
            for uplo in "LU":
                for t in "NTC":
                    for diag in "NU":
                        M = op(tri(A, uplo, diag), t)
                        if side == "L":
                            X = alpha * np.linalg.solve(M, B)
                        else:
                            X = alpha * np.linalg.solve(M.T, B.T).T
                        res.append(X.ravel())
        np.save(out, np.concatenate(res))
    elif parts[0] == "potrf":
        A = a[0].astype(np.complex128)
        np.save(out, sl.cholesky(A, lower=parts[1] == "L").ravel())
    elif parts[0] == "getrf":
        A = a[0].astype(np.complex128)
        lu, piv = sl.lu_factor(A)
        np.save(out, np.concatenate([lu.ravel(), piv.astype(np.complex128)]))
    elif parts[0] == "lucheck":
        A, LU, piv = a[0].astype(np.complex128), a[1].astype(np.complex128), a[2]
        n = A.shape[0]
        L = np.tril(LU, -1) + np.eye(n)
        U = np.triu(LU)
        PA = A.copy()
        for k, p in enumerate(piv):
            PA[[k, int(p)]] = PA[[int(p), k]]
        r = np.abs(PA - L @ U).max() / max(np.abs(A).max(), 1e-300)
        np.save(out, np.array([r], dtype=np.complex128))
    elif parts[0] == "bgemm":
        ta, tb = parts[1], parts[2]
        al = float(parts[3]) + 1j * float(parts[4])
        be = float(parts[5]) + 1j * float(parts[6])
        A, B, C = (v.astype(np.complex128) for v in a)
        R = np.stack([al * op(A[b], ta) @ op(B[b], tb) + be * C[b] for b in range(C.shape[0])])
        np.save(out, R.ravel())
    elif parts[0] == "btrsm":
        side, uplo, t, diag = parts[1:5]
        alpha = float(parts[5]) + 1j * float(parts[6])
        A, B = (v.astype(np.complex128) for v in a)
        res = []
        for b in range(B.shape[0]):
            M = op(tri(A[b], uplo, diag), t)
            if side == "L":
                res.append(alpha * np.linalg.solve(M, B[b]))
            else:
                res.append(alpha * np.linalg.solve(M.T, B[b].T).T)
        np.save(out, np.stack(res).ravel())
    elif parts[0] == "sptrsv":
        T, b = a[0].astype(np.complex128), a[1].astype(np.complex128)
        t = parts[3] if len(parts) > 3 else "N"
        np.save(out, np.linalg.solve(op(tri(T, parts[1], parts[2]), t), b))
    else:
        raise SystemExit("unknown job " + job)


from oracle_serve import main  # noqa: E402


main(run)
