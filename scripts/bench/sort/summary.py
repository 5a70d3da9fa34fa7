# summary.py: medians of the records "R<TAB>op<TAB>impl<TAB>seconds" of
# scripts/bench/sort/run, and each peer's median over speck auto's.
import statistics
import sys
from collections import defaultdict

t = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) >= 4 and f[0] == "R":
        t[(f[1], f[2])].append(float(f[3]))
ops = sorted({op for op, _ in t})
print("| operation | implementation | median s | rounds | / speck auto |")
print("| --- | --- | --- | --- | --- |")
for op in ops:
    base = t.get((op, "speck auto"))
    b = statistics.median(base) if base else None
    for (o, impl), xs in sorted(t.items()):
        if o != op:
            continue
        m = statistics.median(xs)
        print("| %s | %s | %.4f | %d | %s |" % (op, impl, m, len(xs), "%.2f" % (m / b) if b else "-"))
