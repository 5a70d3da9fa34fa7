"""speck_kernel.py: speck's Jupyter kernel.

Debian's ipykernel does the wire protocol (the wrapper-kernel pattern:
a Kernel subclass with do_execute, do_complete, do_inspect); the cells run
in one speck VM of this process, reached through libspeck's C embedding
API (api/speck.h) with ctypes:

  speck_vm_new / speck_vm_dostring   one VM a kernel: globals persist
  speck_vm_set_output                print and io.write, progress bars and
                                     the rich results (JSON on stream 16,
                                     written by stdlib/speck/jupyter.lua)
  speck_vm_interrupt                 Jupyter's interrupt (SIGINT): host
                                     kernels stop at their next chunk,
                                     Lua code at its next instruction

The VM runs on one thread of its own (every call, from its creation on),
so the main thread stays free to take SIGINT while a cell runs: a handler
of the kernel's asks the VM to stop.

Run as `python3 speck_kernel.py -f <connection file>`; the library is
$SPECK_LIBSPECK, else libspeck.so of the build tree or installation this
file lies in (../build/lib, ../../../lib).
"""
import ctypes
import json
import os
import queue
import signal
import sys
import threading

OUTPUT_STDOUT, OUTPUT_STDERR, OUTPUT_PROGRESS, OUTPUT_HOST = 1, 2, 3, 16
OUT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int,
                          ctypes.POINTER(ctypes.c_char), ctypes.c_size_t)


def find_library():
    env = os.environ.get("SPECK_LIBSPECK")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../build/lib/libspeck.so", "../../../lib/libspeck.so"):
        path = os.path.normpath(os.path.join(here, rel))
        if os.path.exists(path):
            return path
    return "libspeck.so"


def lua_string(text):
    """text as a Lua string literal: printable ASCII as is, every other
    byte (and the quote and backslash) as a three-digit escape"""
    out = ['"']
    for c in text.encode("utf-8"):
        out.append(chr(c) if 32 <= c < 127 and c not in (34, 92) else "\\%03d" % c)
    out.append('"')
    return "".join(out)


class VM:
    """One speck VM and the thread that runs it."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        lib = self.lib
        lib.speck_vm_new.restype = ctypes.c_void_p
        lib.speck_vm_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.speck_vm_dostring.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                          ctypes.c_char_p, ctypes.c_size_t]
        lib.speck_vm_set_output.argtypes = [ctypes.c_void_p, OUT_FN, ctypes.c_void_p]
        lib.speck_vm_interrupt.argtypes = [ctypes.c_void_p]
        lib.speck_vm_interrupt_clear.argtypes = [ctypes.c_void_p]
        lib.speck_vm_free.argtypes = [ctypes.c_void_p]
        self.events = queue.Queue()
        self._out = OUT_FN(self._on_output)  # kept: C holds the pointer
        self._jobs = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="speck-vm", daemon=True)
        self._thread.start()
        self.vm = None
        self.open_error = None
        # the VM starts while ipykernel sets itself up; the first cell
        # queues behind it
        self.submit(self._open)

    def _on_output(self, _ud, stream, data, n):
        self.events.put((stream, ctypes.string_at(data, n)))

    def _loop(self):
        while True:
            fn, box, done = self._jobs.get()
            try:
                box["value"] = fn()
            except BaseException as e:  # handed to the waiting thread
                box["error"] = e
            done.set()

    def submit(self, fn):
        box, done = {}, threading.Event()
        self._jobs.put((fn, box, done))
        return box, done

    @staticmethod
    def wait(job):
        box, done = job
        done.wait()
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def _open(self):
        err = ctypes.create_string_buffer(8192)
        vm = self.lib.speck_vm_new(None, err, len(err))
        if not vm:
            self.open_error = "cannot create a VM: " + err.value.decode(errors="replace")
            return None
        self.lib.speck_vm_set_output(vm, self._out, None)
        self.vm = vm
        st, msg = self._dostring('jupyter = require "speck.jupyter"\n'
                                 'display = jupyter.display\nhelp = speck.help\n'
                                 'plot = require "speck.plot"')
        if st != 0:
            self.open_error = msg
            self.vm = None
        return self.vm

    def _dostring(self, code):
        if self.vm is None:
            return -5, "speck: the VM did not start: %s" % self.open_error
        self.lib.speck_vm_interrupt_clear(self.vm)
        err = ctypes.create_string_buffer(16384)
        st = self.lib.speck_vm_dostring(self.vm, code.encode("utf-8"), err, len(err))
        return st, err.value.decode("utf-8", errors="replace")

    def run(self, code):
        """start 'code' on the VM's thread; wait() on what this returns"""
        return self.submit(lambda: self._dostring(code))

    def interrupt(self):
        if self.vm is not None:
            self.lib.speck_vm_interrupt(self.vm)


# Started as a program, the VM starts now, on its thread, while Python
# imports ipykernel (and IPython under it): the C start-up and the imports
# overlap (ctypes calls release the GIL).
_EARLY_VM = VM(find_library()) if __name__ == "__main__" else None

# Cells complete and inspect through speck's own REPL, and there is no
# Python to debug: IPython's completer (jedi) and ipykernel's debugger
# (debugpy) are kept out -- a module set to None in sys.modules is one that
# is not installed, which IPython and ipykernel handle -- and with them a
# third of the imports' time (docs/bench-library.md, notebook start-up).
if __name__ == "__main__":
    for _unused in ("jedi", "debugpy"):
        sys.modules.setdefault(_unused, None)

from ipykernel.kernelbase import Kernel  # noqa: E402 (after the early VM)


class SpeckKernel(Kernel):
    implementation = "speck"
    implementation_version = "0.1.0"
    language = "lua"
    language_version = "5.4"
    language_info = {
        "name": "lua",
        "mimetype": "text/x-lua",
        "file_extension": ".lua",
        "codemirror_mode": "lua",
        "pygments_lexer": "lua",
    }
    banner = "speck: Lua 5.4 with parallel kernels (help() lists the library)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.speck = _EARLY_VM or VM(find_library())
        self._progress = {}
        self._seq = 0

    # -- output --------------------------------------------------------------
    def _progress_bundle(self, text):
        done, total, elapsed, finished, what = text.split(" ", 4)
        done, total, elapsed = float(done), float(total), float(elapsed)
        frac = min(max(done / total if total > 0 else 1.0, 0.0), 1.0)
        if finished == "1":
            tail = "done in %.1fs" % elapsed
        elif frac > 0:
            tail = "ETA %.0fs" % (elapsed * (1 - frac) / frac)
        else:
            tail = "ETA ?"
        bar = "#" * int(frac * 30) + "." * (30 - int(frac * 30))
        plain = "%s [%s] %3d%%  %s" % (what, bar, int(frac * 100), tail)
        html = ('<div style="font-family: monospace"><progress value="%d" max="100" '
                'style="width: 20em"></progress> %s %d%% %s</div>'
                % (int(frac * 100), _html(what), int(frac * 100), tail))
        return what, finished == "1", {"text/plain": plain, "text/html": html}

    def _drain(self, silent, into):
        while True:
            try:
                stream, data = self.speck.events.get_nowait()
            except queue.Empty:
                return
            if stream == OUTPUT_HOST:
                msg = json.loads(data.decode("utf-8", errors="replace"))
                kind = msg.get("type")
                if kind == "display" and not silent:
                    self.send_response(self.iopub_socket, "display_data",
                                       {"data": msg["data"], "metadata": {}})
                else:
                    into.append(msg)
            elif stream == OUTPUT_PROGRESS:
                if silent:
                    continue
                what, finished, bundle = self._progress_bundle(data.decode(errors="replace"))
                if what not in self._progress:
                    self._seq += 1
                    self._progress[what] = "speck-progress-%d-%d" % (os.getpid(), self._seq)
                    self.send_response(self.iopub_socket, "display_data",
                                       {"data": bundle, "metadata": {},
                                        "transient": {"display_id": self._progress[what]}})
                else:
                    self.send_response(self.iopub_socket, "update_display_data",
                                       {"data": bundle, "metadata": {},
                                        "transient": {"display_id": self._progress[what]}})
                if finished:
                    del self._progress[what]
            elif not silent:
                name = "stderr" if stream == OUTPUT_STDERR else "stdout"
                self.send_response(self.iopub_socket, "stream",
                                   {"name": name, "text": data.decode("utf-8", errors="replace")})

    def _call(self, code, silent=False):
        """run 'code' on the VM, forwarding its output as it comes; SIGINT
        (Jupyter's interrupt) asks the VM to stop. Returns (status, error
        text, the JSON messages of stream 16).

        While the cell runs, SIGINT has a handler of ours that only asks
        the VM to stop: ipykernel's (KeyboardInterrupt) could land in the
        middle of sending a message and leave it half-sent."""
        job = self.speck.run(code)
        msgs = []
        _box, done = job

        def on_sigint(_sig, _frame):
            if not done.is_set():
                self.speck.interrupt()

        previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            while not done.wait(0.02):
                self._drain(silent, msgs)
        finally:
            signal.signal(signal.SIGINT, previous)
        st, err = VM.wait(job)
        self._drain(silent, msgs)
        return st, err, msgs

    # -- requests -------------------------------------------------------------
    def do_execute(self, code, silent, store_history=True, user_expressions=None,
                   allow_stdin=False):
        n = self.execution_count
        st, err, msgs = self._call("jupyter.run(%s, %d)" % (lua_string(code), n), silent)
        error = None
        if st != 0:
            error = {"ename": "Interrupted" if "interrupted" in err else "Error",
                     "evalue": err, "traceback": err.splitlines()}
        for m in msgs:
            if m.get("type") == "result" and not silent:
                self.send_response(self.iopub_socket, "execute_result",
                                   {"execution_count": n, "data": m["data"], "metadata": {}})
            elif m.get("type") == "error":
                error = {"ename": m["ename"], "evalue": m["evalue"],
                         "traceback": m.get("traceback") or [m["evalue"]]}
        if error is not None:
            if not silent:
                self.send_response(self.iopub_socket, "error", error)
            return dict(status="error", execution_count=n, **error)
        return {"status": "ok", "execution_count": n, "payload": [],
                "user_expressions": {}}

    def _reply(self, code, kind):
        _st, _err, msgs = self._call(code, silent=True)
        for m in msgs:
            if m.get("type") == kind:
                return m
        return None

    def do_complete(self, code, cursor_pos):
        raw = code.encode("utf-8")
        pos = len(code[:cursor_pos].encode("utf-8"))
        m = self._reply("jupyter.complete(%s, %d)" % (lua_string(code), pos), "complete")

        def chars(b):
            return len(raw[:b].decode("utf-8", errors="ignore"))

        if m is None:
            return {"status": "ok", "matches": [], "cursor_start": cursor_pos,
                    "cursor_end": cursor_pos, "metadata": {}}
        return {"status": "ok", "matches": m["matches"],
                "cursor_start": chars(m["cursor_start"]), "cursor_end": chars(m["cursor_end"]),
                "metadata": {}}

    def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        pos = len(code[:cursor_pos].encode("utf-8"))
        m = self._reply("jupyter.inspect(%s, %d)" % (lua_string(code), pos), "inspect")
        found = bool(m and m.get("found"))
        return {"status": "ok", "found": found,
                "data": {"text/plain": m["text"]} if found else {}, "metadata": {}}

    def do_is_complete(self, code):
        m = self._reply("jupyter.is_complete(%s)" % lua_string(code), "is_complete")
        status = m["status"] if m else "unknown"
        reply = {"status": status}
        if status == "incomplete":
            reply["indent"] = ""
        return reply


def _html(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(kernel_class=SpeckKernel)
