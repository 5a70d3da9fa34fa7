#!/usr/bin/env python3
"""suite_cpu.py: where a test suite's CPU goes (docs/bench-suite.md).

Samples every process's user and system time from /proc each 0.2 s until
it gets SIGTERM, then writes to OUT the machine's shares (/proc/stat over
the same time: user, system, idle ...) and the CPU seconds of each
command name, the largest first. With --threads NAME it samples each
thread of the processes called NAME instead (each 0.05 s) and sums by
thread name, a process's first thread as "main:NAME".

    python3 suite_cpu.py cpu.txt & pid=$!
    ./run-tests.sh; kill $pid; wait $pid; cat cpu.txt

Processes already running at the first sample count from there. A
process that ends between two samples loses its last fraction of a
sample; short-lived ones (under one interval) may be missed.
"""
import os
import signal
import sys
import time

TCK = os.sysconf("SC_CLK_TCK")
NAMES = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
stop = False


def on_term(*_):
    global stop
    stop = True


def machine():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def stat(path):
    """(comm, utime, stime, starttime) of a /proc/.../stat file"""
    with open(path) as f:
        s = f.read()
    r = s.rfind(")")
    fl = s[r + 2:].split()
    return s[s.find("(") + 1:r], int(fl[11]), int(fl[12]), fl[19]


def sample(seen, threads_of):
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if threads_of is None:
                comm, ut, st, start = stat("/proc/%s/stat" % p)
                seen[(p, start)] = (comm, ut, st)
                continue
            with open("/proc/%s/comm" % p) as f:
                if f.read().strip() != threads_of:
                    continue
            for t in os.listdir("/proc/%s/task" % p):
                comm, ut, st, start = stat("/proc/%s/task/%s/stat" % (p, t))
                seen[(p, t, start)] = ("main:" + comm if p == t else comm, ut, st)
        except OSError:
            continue


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--threads"):
        sys.exit("usage: suite_cpu.py OUT [--threads NAME]")
    out = sys.argv[1]
    threads_of = sys.argv[3] if len(sys.argv) == 4 else None
    signal.signal(signal.SIGTERM, on_term)
    seen = {}
    m0, w0 = machine(), time.time()
    sample(seen, threads_of)
    base = {k: (ut, st) for k, (_, ut, st) in seen.items()}
    while not stop:
        sample(seen, threads_of)
        time.sleep(0.05 if threads_of else 0.2)
    m1, w1 = machine(), time.time()
    agg = {}
    for k, (comm, ut, st) in seen.items():
        b = base.get(k, (0, 0))
        if (ut, st) == b and k in base:
            continue
        a = agg.setdefault(comm, [0, 0, 0])
        a[0] += ut - b[0]
        a[1] += st - b[1]
        a[2] += 1
    d = [b - a for a, b in zip(m0, m1)]
    tot = sum(d) or 1
    with open(out, "w") as f:
        f.write("wall %.1f s; machine: %s\n" % (w1 - w0, ", ".join(
            "%s %.0f%%" % (n, 100.0 * x / tot) for n, x in zip(NAMES, d))))
        f.write("machine cpu-seconds: user %.0f sys %.0f idle %.0f\n" %
                (d[0] / TCK, d[2] / TCK, d[3] / TCK))
        what = "threads" if threads_of else "procs"
        for comm, (u, s, n) in sorted(agg.items(), key=lambda x: -(x[1][0] + x[1][1]))[:25]:
            f.write("%-24s user %7.2f s  sys %7.2f s  %s %d\n" % (comm, u / TCK, s / TCK, what, n))


if __name__ == "__main__":
    main()
