# peer.py: CuPy peers for scripts/bench/gpu: a device-to-device copy of
# 2^LOG2N doubles (bytes read + written) and cupy.sum (CUB) of 2^LOG2N
# doubles. Prints "RESULT name seconds" (median of REPS, CUDA events).
import sys
import cupy as cp

log2n, reps = int(sys.argv[1]), int(sys.argv[2])
n = 1 << log2n
x = cp.random.random(n)
y = cp.empty_like(x)

def med(fn):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
    ts.sort()
    return ts[len(ts) // 2]

print("RESULT cupy_copy %.9g" % med(lambda: y.__setitem__(Ellipsis, x)))
r = cp.sum(x)
print("RESULT cupy_sum %.9g" % med(lambda: cp.sum(x, out=r)))
print("RESULT cupy_sum_value %.17g" % float(r))
