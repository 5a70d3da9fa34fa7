"""bench.py: start-up and round-trip time of the speck kernel and of
IPython's, the same client code for both (jupyter_client). Prints the
records 'R <what> <kernel> <seconds>' and a table of medians."""
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.environ.get("BUILD") or os.path.join(ROOT, "build")
os.environ["JUPYTER_PATH"] = os.path.join(BUILD, "share", "jupyter")
from jupyter_client.manager import start_new_kernel  # noqa: E402

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
CELLS = {"speck": ("1 + 1", "2"), "python3": ("1 + 1", "2")}


def first_result(kc, code):
    out = {}

    def hook(m):
        if m["msg_type"] == "execute_result":
            out.update(m["content"]["data"])

    kc.execute_interactive(code, timeout=60, output_hook=hook)
    return out.get("text/plain")


def one_start(name, starts, trips):
    code, want = CELLS[name]
    t = time.perf_counter()
    km, kc = start_new_kernel(kernel_name=name, startup_timeout=60)
    got = first_result(kc, code)
    starts.append(time.perf_counter() - t)
    assert got == want, (name, got)
    for _ in range(50):
        t = time.perf_counter()
        first_result(kc, code)
        trips.append(time.perf_counter() - t)
    kc.stop_channels()
    km.shutdown_kernel(now=True)


# the two kernels alternate, so a loaded machine slows both alike
res = {name: ([], []) for name in ("speck", "python3")}
for _ in range(ROUNDS):
    for name in ("speck", "python3"):
        one_start(name, *res[name])
med = {}
for name, (starts, trips) in res.items():
    for s in starts:
        print("R\tstart\t%s\t%.6f" % (name, s))
    print("R\tround_trip\t%s\t%.6f" % (name, statistics.median(trips)))
    med[name] = (statistics.median(starts), statistics.median(trips))
speck, ipy = med["speck"], med["python3"]
print()
print("| what | speck | IPython | ratio | target |")
print("| --- | --- | --- | --- | --- |")
print("| start to the first cell's result | %.3f s | %.3f s | %.2f | <= 1.0 |"
      % (speck[0], ipy[0], speck[0] / ipy[0]))
print("| round trip of a trivial cell | %.2f ms | %.2f ms | %.2f | <= 1.0 |"
      % (speck[1] * 1e3, ipy[1] * 1e3, speck[1] / ipy[1]))
