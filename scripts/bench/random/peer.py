# peer.py: the peers of scripts/bench/random: NumPy's generator (host,
# numpy.random.default_rng().random(out=...): PCG64) or CuPy's (GPU,
# cupy.random: cuRAND XORWOW) filling N float64 uniform in [0, 1), and
# the histogram of the same keys (numpy.bincount / cupy.bincount).
# Prints "<numpy|cupy> <kernel> <N> <seconds>" (median of BENCH_REPS).
#   python3 peer.py numpy|cupy fill N | hist N B | fe NX
# fe: the FE-style assembly of random.lua (NX x NX quads, a quarter of
# each quad's weight to its four nodes) as bincount with weights over the
# connectivity (the scatter-add NumPy and CuPy offer).
import os
import sys
import time

lib, what, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
bins = int(sys.argv[4]) if len(sys.argv) > 4 else 256
reps = int(os.environ.get("BENCH_REPS", "7"))
if lib == "cupy":
    import cupy as xp
    sync = xp.cuda.Device().synchronize
else:
    import numpy as xp
    sync = lambda: None


def median(f):
    f()
    sync()
    s = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        sync()
        s.append(time.perf_counter() - t)
    s.sort()
    return s[(reps - 1) // 2]


if what == "fill":
    v = xp.empty(n, dtype=xp.float64)
    if lib == "cupy":
        g = xp.random.default_rng(12345)
        f = lambda: g.random(out=v) if hasattr(g, "random") else None
        try:
            f()
        except TypeError:
            rs = xp.random.RandomState(12345)
            f = lambda: rs.random_sample(n, dtype=xp.float64)
    else:
        g = xp.random.default_rng(12345)
        f = lambda: g.random(out=v)
    print("%s fill %d %.6g" % (lib, n, median(f)))
elif what == "fe":
    nx = n
    e = xp.arange(nx * nx, dtype=xp.int64)
    ex, ey = e % nx, e // nx
    n0 = ey * (nx + 1) + ex
    conn = xp.stack([n0, n0 + 1, n0 + nx + 1, n0 + nx + 2], axis=1).astype(xp.int32).ravel()
    w = 0.25 * (1.0 + 1e-3 * ((ex * 7 + ey * 13) % 17).astype(xp.float64))
    w4 = xp.repeat(w, 4)
    nn = (nx + 1) * (nx + 1)
    print("%s fe %d %.6g" % (lib, nx * nx, median(lambda: xp.bincount(conn, weights=w4, minlength=nn))))
else:
    i = xp.arange(n, dtype=xp.uint64)
    keys = ((i * xp.uint64(2654435761)) % xp.uint64(bins)).astype(xp.int32)
    print("%s hist %d %.6g" % (lib, n, median(lambda: xp.bincount(keys, minlength=bins))))
