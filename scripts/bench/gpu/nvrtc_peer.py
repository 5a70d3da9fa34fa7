# nvrtc_peer.py: CuPy's peer of nvrtc_time.lua: what a new elementwise
# kernel (y = a * x + y with a constant no cache has seen), a new
# RawModule of the raw CUDA axpy (raw_axpy.cu with such a constant) and a
# new reduction kernel cost on their first call (NVRTC compile, module
# load, launch, synchronise) minus a second call, in a fresh kernel cache.
#   python3 nvrtc_peer.py [N] [ew]     (ew: elementwise kernels only; a
#   new ReductionKernel took 5 s per first call on the H100 host)
# Prints "RESULT name milliseconds" (median of N new kernels of each kind)
# and "RESULT cupy_first_in_process_ms" (the first kernel of the process).
import os
import sys
import tempfile
import time

os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-cache-")
import cupy as cp  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
seed = int(time.time()) % 100000
x = cp.empty(1024, dtype=cp.float64)   # no kernel runs before the first timed one
y = cp.empty(1024, dtype=cp.float64)
cp.cuda.Device().synchronize()


def first_call(make, run, lazy=False):
    # lazy: make() itself compiles and loads (RawModule.get_function), so
    # it is timed with the first call
    t0 = time.perf_counter()
    k = make()
    if not lazy:
        t0 = time.perf_counter()
    run(k)
    cp.cuda.Device().synchronize()
    t1 = time.perf_counter()
    run(k)
    cp.cuda.Device().synchronize()
    t2 = time.perf_counter()
    return ((t1 - t0) - (t2 - t1)) * 1e3


def ew(r):
    return cp.ElementwiseKernel(
        "float64 x", "float64 y", "y = %d.0 * x + y + %d" % (seed, r),
        "speck_peer_axpy_%d_%d" % (seed, r))


def red(r):
    return cp.ReductionKernel(
        "float64 x", "float64 y", "x * %d.0" % (seed + r), "a + b", "y = a",
        "0", "speck_peer_sum_%d_%d" % (seed, r))


RAW = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw_axpy.cu")).read()


def raw(r):
    # the same axpy, one constant changed so that no cache has seen it
    src = RAW.replace("a * x[i] + y[i]", "a * x[i] + y[i] + %d.0" % (seed * 100 + r))
    return cp.RawModule(code=src).get_function("axpy")


def raw_run(k):
    k((4,), (256,), (cp.float64(2.0), x, y, cp.int64(1024)))


first = first_call(lambda: ew(0), lambda k: k(x, y))
raws = sorted(first_call(lambda r=r: raw(r), raw_run, True) for r in range(1, n + 1))
ews = sorted(first_call(lambda r=r: ew(r), lambda k: k(x, y)) for r in range(1, n + 1))
only_ew = len(sys.argv) > 2 and sys.argv[2] == "ew"
reds = [] if only_ew else sorted(
    first_call(lambda r=r: red(r), lambda k: k(x)) for r in range(1, n + 1))
print("RESULT cupy_first_in_process_ms %.3f" % first)
print("RESULT cupy_elementwise_ms %.3f" % ews[len(ews) // 2])
print("RESULT cupy_rawmodule_ms %.3f" % raws[len(raws) // 2])
if reds:
    print("RESULT cupy_reduction_ms %.3f" % reds[len(reds) // 2])
