# oracle_serve.py: the command line of the .npy oracles of the specs
# (zlinalg_oracle.py, zlinalg2_oracle.py; tests/npy_oracle.lua is the
# spec side): main(run) does one job given as arguments -- 'job out
# in...' -- or, with '--serve IN OUT', every job read a line at a time
# from the FIFO IN, answering "ok" or "error: ..." a line on the FIFO OUT
# (one process for a spec file: NumPy and SciPy imported once).
import sys


def main(run):
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        with open(sys.argv[2]) as r, open(sys.argv[3], "w") as w:
            for line in r:
                t = line.split()
                try:
                    run(t[0], t[1], t[2:])
                    w.write("ok\n")
                except BaseException as e:  # reported to the spec; the server goes on
                    w.write("error: %s\n" % str(e).replace("\n", " "))
                w.flush()
        return
    run(sys.argv[1], sys.argv[2], sys.argv[3:])
