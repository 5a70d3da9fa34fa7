# complex_oracle.py: NumPy's / SciPy's answers for tests/complex_spec.lua.
# usage: complex_oracle.py JOB OUT IN... ; every file is a .npy, written by
# speck (IN) or for it (OUT), but a .mtx; or complex_oracle.py --serve IN
# OUT, every job a line of the FIFO IN (tests/oracle_serve.py,
# tests/npy_oracle.lua). Jobs:
#   words x w: rows of x+w, x-w, x*w, x/w, conj(x), cabs(x), cexp(x),
#              csqrt(x), real(x), imag(x), cmplx(imag(x), real(x)), -x,
#              2.5*x + 1, x*w/(w+x) - conj(w)  (the body's order)
#   reduce x:  [sum(x), prod(x)]
#   blas1 x y a: [dotu(x, y), dotc(x, y), nrm2(x), a*x + y, a*x]
#   gemv A x: [A x] when the shapes fit, else [A^T x, A^H x]
#   gemm A B: [A^T B, A^H B] (A is k x m, B k x n); gemm_nc A B: [A B^H]
#   spmv A.mtx x: [A x, conj(A) x, A^T x, A^H x] (scipy.io.mmread)
#   mmread A.mtx: the dense matrix of a Matrix Market file
#   solve A.mtx b: [x] with A x = b (numpy.linalg.solve)
#   save_be x: x saved big-endian (OUT), for speck's reader
import numpy as np


def run(job, out, ins):
    if job == "mmread" or job == "spmv" or job == "solve":
        import scipy.io
        A = scipy.io.mmread(ins[0])
        A = A.toarray() if hasattr(A, "toarray") else np.asarray(A)
        if job == "mmread":
            np.save(out, A.astype(np.complex128))
            return
        x = np.load(ins[1])
        if job == "solve":
            np.save(out, np.stack([np.linalg.solve(A, x)]).astype(np.complex128))
            return
        r = np.stack([A @ x, np.conj(A) @ x, A.T @ x, np.conj(A).T @ x])
        np.save(out, r.astype(np.complex128))
        return
    a = [np.load(p) for p in ins]
    if job == "words":
        x, w = a
        with np.errstate(all="ignore"):
            rows = [x + w, x - w, x * w, x / w, np.conj(x), np.abs(x), np.exp(x),
                    np.sqrt(x), x.real, x.imag, x.imag + 1j * x.real, -x,
                    2.5 * x + 1, x * w / (w + x) - np.conj(w)]
        np.save(out, np.stack([np.asarray(r, dtype=np.complex128) for r in rows]))
    elif job == "reduce":
        x = a[0].astype(np.complex128)
        np.save(out, np.array([x.sum(), x.prod()]))
    elif job == "blas1":
        x, y, s = (v.astype(np.complex128) for v in a)
        s = s[0]
        r = np.array([np.dot(x, y), np.vdot(x, y), np.linalg.norm(x)], dtype=np.complex128)
        np.save(out, np.concatenate([r, s * x + y, s * x]))
    elif job == "gemv":
        A, x = (v.astype(np.complex128) for v in a)
        if A.shape[1] == x.shape[0]:
            np.save(out, np.stack([A @ x]))
        else:
            np.save(out, np.stack([A.T @ x, np.conj(A).T @ x]))
    elif job == "gemm":
        A, B = (v.astype(np.complex128) for v in a)
        np.save(out, np.stack([A.T @ B, np.conj(A).T @ B]))
    elif job == "gemm_nc":
        A, B = (v.astype(np.complex128) for v in a)
        np.save(out, np.stack([A @ np.conj(B).T]))
    elif job == "save_be":
        x = a[0]
        np.save(out, x.astype(x.dtype.newbyteorder(">")))
    else:
        raise SystemExit("complex_oracle.py: unknown job " + job)


from oracle_serve import main  # noqa: E402


main(run)
