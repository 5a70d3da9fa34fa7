"""pty_drive.py: drive speck's REPL in a pseudo-terminal (readline on), for
the specs that test what only a terminal shows (Tab completion, history).

    pty_drive.py SPECK HOME SEND EXPECT [SEND EXPECT ...]

starts SPECK with HOME set, waits for its first prompt, then for each pair
writes SEND (Python escapes: \\t, \\n, \\x04) and waits until EXPECT has
appeared in what the REPL printed since. At the end it sends Ctrl-D at
the next prompt (again every 5 s) and waits for the REPL to leave; one
still running after 30 s is killed, so a lost keystroke cannot hang the
suite. Prints what the REPL wrote (all of it) on
stdout; exit status 0, or 3 when a wait timed out (its mark on stderr).
Waits are long (a sanitized build on a loaded machine starts slowly): 120 s
for the prompt, 60 s a mark.
"""
import os
import pty
import select
import signal
import sys
import time


def main():
    speck, home, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["HOME"] = home
        os.execv(speck, [speck])
    seen = [b""]

    def read_until(mark, t):
        start, end = len(seen[0]), time.time() + t
        while time.time() < end and mark not in seen[0][start:]:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    seen[0] += os.read(fd, 4096)
                except OSError:
                    break
        return mark in seen[0][start:]

    status = 0
    if not read_until(b"> ", 120.0):
        sys.stderr.write("pty_drive: no prompt in 120 s\n")
        status = 3
    for i in range(0, len(steps) - 1, 2):
        if status:
            break
        send = steps[i].encode().decode("unicode_escape").encode("latin-1")
        mark = steps[i + 1].encode()
        os.write(fd, send)
        if not read_until(mark, 60.0):
            sys.stderr.write("pty_drive: no %r after %r in 60 s\n" % (mark, send))
            status = 3
    # Ctrl-D at the next prompt (one typed before readline has the
    # terminal again can be flushed), again every 5 s until the REPL
    # leaves (a second one at an empty prompt does no harm)
    end, again = time.time() + 30.0, 0.0
    while time.time() < end:
        if time.time() >= again:
            if not seen[0].rstrip(b" ").endswith(b">"):
                read_until(b"> ", 5.0)
            os.write(fd, b"\x04")
            again = time.time() + 5.0
        read_until(b"\x00", 0.1)
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            break
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.stderr.write("pty_drive: the REPL did not leave after Ctrl-D; killed\n")
        status = 3
    sys.stdout.write(seen[0].decode("utf-8", "replace"))
    sys.exit(status)


main()
