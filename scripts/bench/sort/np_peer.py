# np_peer.py: the NumPy peer of scripts/bench/sort: the keys of bench.lua
# (splitmix64 of the index), np.sort (its default, introsort/SIMD) and
# np.argsort(kind="stable") + gather as sort_by_key.
# Usage: np_peer.py N DTYPE ROUNDS
import sys
import time
import numpy as np

n, dt, rounds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
with np.errstate(over="ignore"):
    z = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
if dt == "float64":
    src = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
else:
    src = (z >> np.uint64(32)).astype(np.uint32).view(np.int32)
vals = np.arange(n, dtype=np.int64)
for _ in range(rounds):
    v = src.copy()
    t = time.perf_counter()
    v.sort()
    print("R\tsort %s %d\tnumpy\t%.6e" % (dt, n, time.perf_counter() - t))
    v = src.copy()
    t = time.perf_counter()
    p = np.argsort(v, kind="stable")
    v, w = v[p], vals[p]
    print("R\tsort_by_key %s %d\tnumpy stable\t%.6e" % (dt, n, time.perf_counter() - t))
    sys.stdout.flush()
