"""notebook_test.py: speck's Jupyter kernel end to end, run by tests/run.sh
with Debian's Python (/usr/bin/python3: ipykernel, jupyter_client,
nbclient, nbformat).

  1. every examples/notebooks/*.ipynb executed headless with the speck
     kernel of the build tree (nbclient, what `jupyter nbconvert --execute`
     runs), each code cell's outputs checked against its metadata "speck":
     expect_text (strings in its text), expect_mime (MIME types among its
     outputs); a cell without expect_error must not fail;
  2. the protocol, through jupyter_client: state across cells, print and
     io.write as streams, an error cell's message and line, a syntax error
     and a kernel body that does not compile (the kernel alive after
     each), an interrupt of a long Lua loop and of a long kernel followed
     by working cells, rich results (a view as an HTML table, a matrix's
     spy, a graph's drawing or its summary past 300 vertices, a plot as
     SVG and PNG, jit.stats() as a table, display() in a cell), a progress
     bar updated in place, completion, inspection and is_complete replies;
  3. the kernelspec: `jupyter kernelspec list` shows 'speck';
  4. the graph notebook's HTML export (nbconvert) in headless Chromium:
     its SVG and PNG pictures drawn at their size, a screenshot not blank
     (SPECK_SKIP_SCREENSHOT=1 skips it).

The last line is 'N passed, M failed'. BUILD (default <root>/build) names
the build tree; SPECK_SPACE picks the kernel's back end.
"""
import atexit
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD") or os.path.join(ROOT, "build")
if not os.path.isabs(BUILD):
    BUILD = os.path.join(ROOT, BUILD)
BUILD_SPEC = os.path.join(BUILD, "share", "jupyter", "kernels", "speck", "kernel.json")
# the kernelspec the tests use: this tree's kernel over this build's
# library (the build tree's own kernel.json names the paths of the tree it
# was built in, which a GPU bundle moves)
SPEC_DIR = tempfile.mkdtemp(prefix="speck-kernelspec.")
os.makedirs(os.path.join(SPEC_DIR, "kernels", "speck"))
with open(os.path.join(SPEC_DIR, "kernels", "speck", "kernel.json"), "w") as f:
    json.dump({"argv": [sys.executable, "-Xfrozen_modules=off",
                        os.path.join(ROOT, "jupyter", "speck_kernel.py"),
                        "-f", "{connection_file}"],
               "display_name": "speck", "language": "lua", "interrupt_mode": "signal",
               "env": {"SPECK_LIBSPECK": os.path.join(BUILD, "lib", "libspeck.so"),
                       "PYDEVD_DISABLE_FILE_VALIDATION": "1"}}, f)
atexit.register(shutil.rmtree, SPEC_DIR, True)
os.environ["JUPYTER_PATH"] = SPEC_DIR

import nbformat  # noqa: E402
from jupyter_client.manager import start_new_kernel  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

passed = failed = 0
EXECUTED = {}  # the example notebooks as run, for the screenshot test


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s %s" % (name, detail))


# -- 1. the example notebooks ----------------------------------------------------
def cell_text(cell):
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        parts.append(o.get("data", {}).get("text/plain", ""))
        if o.get("output_type") == "error":
            parts.append(o.get("evalue", ""))
    return "".join(parts)


def run_notebooks():
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "notebooks", "*.ipynb"))):
        name = os.path.basename(path)
        nb = nbformat.read(path, as_version=4)
        t = time.time()
        try:
            NotebookClient(nb, timeout=300, kernel_name="speck",
                           allow_errors=True).execute()
        except Exception as e:  # the kernel died or a cell timed out
            check("notebook %s runs" % name, False, str(e)[-2000:])
            continue
        EXECUTED[name] = nb
        ncells = 0
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            ncells += 1
            want = cell.metadata.get("speck", {})
            errors = [o for o in cell.outputs if o.get("output_type") == "error"]
            where = "%s cell %d" % (name, i)
            if "expect_error" in want:
                check(where + " fails as expected",
                      errors and want["expect_error"] in errors[0].get("evalue", ""),
                      repr([e.get("evalue") for e in errors]))
            else:
                check(where + " runs", not errors,
                      repr([e.get("evalue") for e in errors]))
            text = cell_text(cell)
            for s in want.get("expect_text", []):
                check(where + " shows %r" % s, s in text, repr(text[:500]))
            mimes = set()
            for o in cell.outputs:
                mimes.update(o.get("data", {}).keys())
            for m in want.get("expect_mime", []):
                check(where + " has %s" % m, m in mimes, repr(sorted(mimes)))
        print("notebook %s: %d code cells in %.1f s" % (name, ncells, time.time() - t))


# -- 2. the protocol ------------------------------------------------------------------
class Session:
    def __init__(self):
        t = time.time()
        self.km, self.kc = start_new_kernel(kernel_name="speck", startup_timeout=60)
        self.start_seconds = time.time() - t

    def run(self, code, interrupt_after=None, timeout=120):
        outs = []
        timer = None
        if interrupt_after is not None:
            timer = threading.Timer(interrupt_after, self.km.interrupt_kernel)
            timer.start()
        # stop_on_error=False: these cells are independent (with True the
        # kernel aborts a request that comes right after an error reply)
        reply = self.kc.execute_interactive(
            code, timeout=timeout, stop_on_error=False,
            output_hook=lambda m: outs.append((m["msg_type"], m["content"])))
        if timer:
            timer.cancel()
        outs = [(t, c) for t, c in outs if t not in ("status", "execute_input")]
        return reply["content"], outs

    def close(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


def result(outs, kind="execute_result"):
    for t, c in outs:
        if t == kind:
            return c.get("data", {})
    return {}


def stream(outs):
    return "".join(c.get("text", "") for t, c in outs if t == "stream")


def error_of(reply, outs):
    for t, c in outs:
        if t == "error":
            return c
    return {}


def protocol():
    s = Session()
    print("kernel started in %.2f s" % s.start_seconds)
    try:
        r, o = s.run("a = 20")
        check("a statement runs", r["status"] == "ok" and not result(o), repr(o))
        r, o = s.run("a * 2 + 2")
        check("state persists; the value is shown", result(o).get("text/plain") == "42", repr(o))
        r, o = s.run("print('hi', 1)\nio.write('w', 2.5, 3, '\\n')")
        check("print and io.write are the cell's stream", stream(o) == "hi\t1\nw2.53\n",
              repr(stream(o)))
        r, o = s.run("local t = nil\nlocal u = t.x")
        e = error_of(r, o)
        cell = r["execution_count"]
        want = "cell %d:2: attempt to index a nil value (local 't')" % cell
        check("an error names the cell and line", r["status"] == "error" and e.get("evalue") == want,
              repr((r.get("evalue"), e)))
        check("the error's traceback", e.get("traceback", [""])[0] == want, repr(e))
        r, o = s.run("x = = 1")
        e = error_of(r, o)
        check("a syntax error names the cell and line",
              e.get("ename") == "SyntaxError" and
              e.get("evalue", "").startswith("cell %d:1:" % r["execution_count"]), repr(e))
        r, o = s.run("v = speck.View('v', 'float64', 10)\n"
                     "speck.parallel_for('bad', 10, {v = v}, 'v(i) = undefined_thing(i);')")
        e = error_of(r, o)
        check("a kernel that does not compile: message with the cell line",
              r["status"] == "error" and
              e.get("evalue", "").startswith("cell %d:2: speck.parallel_for 'bad'" % r["execution_count"]),
              repr(e))
        r, o = s.run("a + 1")
        check("the kernel is alive after errors", result(o).get("text/plain") == "21", repr(o))

        t = time.time()
        r, o = s.run("local k = 0\nwhile true do\n  k = k + 1\nend", interrupt_after=1.0)
        e = error_of(r, o)
        check("an interrupt stops a Lua loop",
              r["status"] == "error" and e.get("ename") == "Interrupted" and
              e.get("evalue", "").startswith("cell %d:" % r["execution_count"]) and
              e.get("evalue", "").endswith("interrupted") and time.time() - t < 30,
              repr((e, time.time() - t)))
        r, o = s.run("a + 2")
        check("a working cell after the interrupt", result(o).get("text/plain") == "22", repr((r, o)))
        # launches in a loop, each waited for (on a GPU: the interrupt lands
        # while the host waits, and the loop stops at its next instruction)
        t = time.time()
        r, o = s.run("lv = speck.View('lv', 'float64', 1000000)\nwhile true do\n"
                     "  speck.parallel_for('spin', 1000000, {v = lv}, 'v(i) = v(i) + 1;')\n"
                     "  speck.fence()\nend", interrupt_after=1.0)
        e = error_of(r, o)
        check("an interrupt stops a loop of kernel launches",
              r["status"] == "error" and "interrupted" in e.get("evalue", "") and
              time.time() - t < 30, repr((e, time.time() - t)))
        if os.environ.get("SPECK_SPACE") != "cuda":
            # a host kernel stops at its next chunk (a GPU kernel runs to its
            # end: the loop above covers the GPU wait)
            t = time.time()
            r, o = s.run("big = speck.View('big', 'float64', 200000000)\n"
                         "speck.parallel_for('slow', 200000000, {v = big},\n"
                         "  'double s = 0; for (int k = 0; k < 400; k++) s += k * 1e-9; v(i) = s;')",
                         interrupt_after=1.5)
            e = error_of(r, o)
            check("an interrupt stops a long host kernel",
                  r["status"] == "error" and "interrupted" in e.get("evalue", "") and
                  time.time() - t < 60, repr((r, o, time.time() - t)))
        r, o = s.run("big = nil collectgarbage()\nspeck.parallel_reduce('ok', 100, {}, 'acc += 1;')")
        check("kernels run after the interrupt", result(o).get("text/plain") in ("100", "100.0"),
              repr(o))

        r, o = s.run("w = speck.View('w', 'float64', {3, 4})\nw")
        d = result(o)
        check("a view: an HTML table with dtype, layout and space",
              "<table" in d.get("text/html", "") and "float64[3][4], layout right, space" in
              d.get("text/html", "") and d.get("text/plain", "").startswith("View<float64[3][4]"),
              repr(d))
        r, o = s.run("speck.View('long', 'int32', 1000)")
        d = result(o)
        check("a long view is elided", d.get("text/html", "").count("<tr>") == 22 and
              "&#8942;" in d.get("text/html", ""), repr(d.get("text/html", "")[:300]))
        r, o = s.run("sparse = require 'speck.sparse'\n"
                     "sparse.from_coo(4, 4, {0, 1, 2, 3}, {0, 1, 2, 3}, {1, 2, 3, 4})")
        d = result(o)
        check("a CrsMatrix: its spy and a summary",
              'data-kind="spy"' in d.get("image/svg+xml", "") and "nnz" in d.get("text/html", ""),
              repr(sorted(d)))
        r, o = s.run("graph = require 'speck.graph'\ngraph.grid2d(5, 5)")
        d = result(o)
        check("a small Graph: a drawing and a summary",
              'data-kind="graph"' in d.get("image/svg+xml", "") and
              "vertices" in d.get("text/html", ""), repr(sorted(d)))
        r, o = s.run("graph.grid2d(40, 40)")
        d = result(o)
        check("a Graph past 300 vertices: the summary only",
              "image/svg+xml" not in d and "1600" in d.get("text/html", ""), repr(sorted(d)))
        r, o = s.run("plot.line({1, 2, 3}, {1, 4, 9}, {title = 'squares'})")
        d = result(o)
        check("a plot: SVG and PNG",
              "<text class=\"title\"" in d.get("image/svg+xml", "") and
              d.get("image/png", "").startswith("iVBORw0KGgo"), repr(sorted(d)))
        r, o = s.run("speck.jit.stats()")
        d = result(o)
        check("jit.stats(): a table", "<table" in d.get("text/html", "") and
              "per_kernel" in d.get("text/html", ""), repr(d.get("text/html", "")[:200]))
        r, o = s.run("display(plot.bar({'a', 'b'}, {1, 2}))\nprint('after')\n42")
        kinds = [t for t, _ in o]
        check("display() shows mid-cell, before the cell's result",
              kinds == ["display_data", "stream", "execute_result"] and
              "image/svg+xml" in result(o, "display_data"), repr(kinds))

        r, o = s.run("speck.progress{mode = 'auto', delay = 0, interval = 0.01}\n"
                     "local g = graph.grid2d(600, 600)\nlocal p = os.tmpname()\n"
                     "graph.write(p, g)\nlocal h = graph.read(p)\nos.remove(p)\n"
                     "speck.progress{delay = 0.5, interval = 0.1}\nreturn h:num_vertices()")
        ids = [c.get("transient", {}).get("display_id") for t, c in o
               if t in ("display_data", "update_display_data")]
        check("a progress bar in the cell, updated in place",
              len(ids) >= 2 and len(set(ids)) == 1 and
              any(t == "update_display_data" for t, _ in o) and
              result(o).get("text/plain") == "360000", repr([t for t, _ in o][:6]))

        c = s.kc.complete("x = speck.parallel_f", 20, reply=True, timeout=30)["content"]
        check("completion", c["status"] == "ok" and "speck.parallel_for" in c["matches"] and
              c["cursor_start"] == 4 and c["cursor_end"] == 20, repr(c))
        c = s.kc.complete("w:ext", 5, reply=True, timeout=30)["content"]
        check("completion of a view's methods", "w:extent" in c["matches"] and
              "w:extents" in c["matches"], repr(c))
        c = s.kc.inspect("speck.parallel_for(", 10, reply=True, timeout=30)["content"]
        check("inspection shows help", c["found"] and
              "speck.parallel_for(label, policy" in c["data"].get("text/plain", ""), repr(c))
        c = s.kc.inspect("graph.bfs", 9, reply=True, timeout=30)["content"]
        check("inspection of a library function", c["found"] and
              "graph.bfs(" in c["data"].get("text/plain", ""), repr(c))
        c = s.kc.inspect("nothing_here", 5, reply=True, timeout=30)["content"]
        check("inspection of an unknown name", c["status"] == "ok" and not c["found"], repr(c))
        s.kc.is_complete("for i = 1, 3 do")
        c = s.kc.get_shell_msg(timeout=30)["content"]
        check("is_complete: incomplete", c["status"] == "incomplete", repr(c))
        s.kc.is_complete("x = 1")
        c = s.kc.get_shell_msg(timeout=30)["content"]
        check("is_complete: complete", c["status"] == "complete", repr(c))
        r, o = s.run("a")
        check("the kernel is alive at the end", result(o).get("text/plain") == "20", repr(o))
    finally:
        s.close()


# -- 3. the kernelspec ---------------------------------------------------------------
def kernelspec():
    out = subprocess.run([sys.executable, "-m", "jupyter_client.kernelspecapp", "list"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        out = subprocess.run(["jupyter", "kernelspec", "list"], capture_output=True, text=True)
    check("jupyter kernelspec list shows speck",
          any(line.split()[:1] == ["speck"] for line in out.stdout.splitlines()),
          out.stdout + out.stderr)
    # the build tree's kernelspec (make writes it: JUPYTER_PATH=build/share/jupyter)
    try:
        with open(BUILD_SPEC) as f:
            spec = json.load(f)
        ok = (spec["argv"][-2:] == ["-f", "{connection_file}"] and
              spec["argv"][-3].endswith("speck_kernel.py") and
              spec["env"]["SPECK_LIBSPECK"].endswith("libspeck.so") and
              spec["display_name"] == "speck")
    except (OSError, ValueError, KeyError, IndexError) as e:
        ok, spec = False, e
    check("the build tree's kernelspec", ok, repr(spec))


def register_without_jupyter():
    """make install's registration where Jupyter is missing: a message
    saying so and how to register later, exit status 0"""
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "speck-nojupyter-%d" % os.getpid())
    os.makedirs(os.path.join(tmp, "bin"), exist_ok=True)
    for tool in ("sh", "sed", "grep", "printf", "cat", "mkdir"):
        path = subprocess.run(["sh", "-c", "command -v " + tool], capture_output=True,
                              text=True).stdout.strip()
        if path.startswith("/") and not os.path.exists(os.path.join(tmp, "bin", tool)):
            os.symlink(path, os.path.join(tmp, "bin", tool))
    out = subprocess.run([os.path.join(ROOT, "scripts", "kernelspec.sh"), "register",
                          os.path.join(tmp, "spec")], capture_output=True, text=True,
                         env={"PATH": os.path.join(tmp, "bin")})
    subprocess.run(["rm", "-rf", tmp])
    check("registering without Jupyter: a clear message, status 0",
          out.returncode == 0 and "Jupyter is not installed" in out.stdout and
          "jupyter kernelspec install --user --name speck" in out.stdout,
          repr((out.returncode, out.stdout, out.stderr)))


# -- 4. the pictures in a browser -------------------------------------------------------
REPORT = """<script>
window.addEventListener("load", function () {
  var r = [];
  document.querySelectorAll("svg.speck-plot").forEach(function (s) {
    var b = s.getBoundingClientRect();
    r.push(["svg", Math.round(b.width), Math.round(b.height), s.querySelectorAll("g.series").length]);
  });
  document.querySelectorAll("img").forEach(function (i) {
    r.push(["img", i.naturalWidth, i.naturalHeight, i.complete ? 1 : 0]);
  });
  var p = document.createElement("pre");
  p.id = "speck-report";
  p.textContent = JSON.stringify(r);
  document.body.appendChild(p);
});
</script>"""


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


PNG_FIRST = ["text/html", "text/markdown", "image/png", "image/svg+xml", "text/plain"]


def browse(chromium, nb, tmp, tag):
    """export 'nb' to HTML, load it in headless Chromium: the pictures it
    measured, and a screenshot's path. tag "svg": the SVG inline (nbconvert
    6.5's clean_html filter, which drops inline SVG, left out); "png": the
    PNG first (the export a user makes with
    --NbConvertBase.display_data_priority, docs/guide.md)"""
    from nbconvert import HTMLExporter
    from traitlets.config import Config
    if tag == "svg":
        exporter = HTMLExporter(filters={"clean_html": lambda text: text})
    else:
        exporter = HTMLExporter(config=Config({"NbConvertBase": {"display_data_priority": PNG_FIRST}}))
    html, _ = exporter.from_notebook_node(nb)
    html = html.replace("</body>", REPORT + "</body>")
    page = os.path.join(tmp, tag + ".html")
    with open(page, "w") as f:
        f.write(html)
    base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--virtual-time-budget=15000", "--user-data-dir=" + os.path.join(tmp, "profile")]
    dom = subprocess.run(base + ["--dump-dom", "file://" + page], capture_output=True,
                         text=True, timeout=120).stdout
    i, j = dom.find('<pre id="speck-report">'), dom.find("</pre>", dom.find('<pre id="speck-report">'))
    report = json.loads(dom[i + len('<pre id="speck-report">'):j]) if i >= 0 else None
    shot = os.path.join(tmp, tag + ".png")
    subprocess.run(base + ["--window-size=1000,2000", "--screenshot=" + shot, "file://" + page],
                   capture_output=True, timeout=120)
    return report, shot


def screenshot():
    """the graph notebook's HTML export in headless Chromium: every picture
    is drawn at its size (inline SVG; PNG), and a screenshot of the page is
    an image of the window's size that is not blank"""
    if os.environ.get("SPECK_SKIP_SCREENSHOT") == "1":
        print("screenshot: skipped (SPECK_SKIP_SCREENSHOT=1)")
        return
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    check("chromium is installed (make deps)", chromium)
    nb = EXECUTED.get("graph_workflow.ipynb")
    check("the graph notebook ran", nb is not None)
    if not chromium or nb is None:
        return
    tmp = tempfile.mkdtemp(prefix="speck-shot.")
    try:
        # as exported: HTML before SVG before PNG
        svgs = sum(1 for c in nb.cells for o in c.get("outputs", [])
                   if "image/svg+xml" in o.get("data", {}) and "text/html" not in o.get("data", {}))
        report, shot = browse(chromium, nb, tmp, "svg")
        got = [r for r in (report or []) if r[0] == "svg"]
        check("Chromium draws every SVG picture at 640x420 with its series",
              report is not None and len(got) == svgs and svgs >= 4 and
              all(r[1] == 640 and r[2] == 420 and r[3] >= 1 for r in got), repr((svgs, report)))
        size = png_size(shot) if os.path.exists(shot) else None
        check("a screenshot of the page: 1000x2000, not blank",
              size == (1000, 2000) and os.path.getsize(shot) > 40000,
              repr((size, os.path.exists(shot) and os.path.getsize(shot))))
        # the PNGs, exported before the SVGs
        pngs = sum(1 for c in nb.cells for o in c.get("outputs", [])
                   if "image/png" in o.get("data", {}) and "text/html" not in o.get("data", {}))
        report, _ = browse(chromium, nb, tmp, "png")
        got = [r for r in (report or []) if r[0] == "img"]
        check("Chromium decodes every PNG picture at 640x420",
              report is not None and len(got) == pngs and pngs >= 4 and
              all(r[1] == 640 and r[2] == 420 and r[3] == 1 for r in got), repr((pngs, report)))
    finally:
        shutil.rmtree(tmp, True)


for part in (kernelspec, register_without_jupyter, protocol, run_notebooks, screenshot):
    try:
        part()
    except Exception:
        check(part.__name__, False, traceback.format_exc())
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
