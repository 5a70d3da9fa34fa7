# py_serve.py: a spec file's Python commands (its oracles) run in one
# process (tests/py_serve.lua is the spec side): py_serve.py JOBS DONE reads
# from the FIFO JOBS a line 'CMD OUT' at a time -- CMD a file holding the
# command line after the interpreter ('script.py args...' or "-c 'code'
# args...", quoted as for sh) -- runs it as Python would run it, its stdout
# and stderr to the file OUT, and answers its exit status a line on the
# FIFO DONE. The modules a command imports (NumPy, SciPy, NetworkX) are
# imported once for the file, not once a command.
import os
import runpy
import shlex
import sys
import traceback


def run(argv):
    if argv[0] == "-c":
        sys.argv = ["-c"] + argv[2:]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        return
    sys.argv = argv
    here = os.path.dirname(os.path.abspath(argv[0]))
    if here not in sys.path:
        sys.path.insert(0, here)
    runpy.run_path(argv[0], run_name="__main__")


def one(cmd, out):
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    saved = os.dup(1), os.dup(2)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    status = 0
    try:
        with open(cmd) as f:
            run(shlex.split(f.read()))
    except SystemExit as e:
        if isinstance(e.code, int):
            status = e.code
        elif e.code is not None:
            print(e.code, file=sys.stderr)
            status = 1
    except BaseException:  # the command's failure, reported to the spec; the server goes on
        traceback.print_exc()
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for d in (fd,) + saved:
            os.close(d)
    return status


def main():
    with open(sys.argv[1]) as jobs, open(sys.argv[2], "w") as done:
        for line in jobs:
            cmd, out = line.split()
            done.write("%d\n" % one(cmd, out))
            done.flush()


main()
