local speck = require "speck"
-- speck_help_spec.lua: the terminal REPL's help covers the library
-- (speck.graph, speck.sparse, speck.task, speck.plot: every public
-- function has an entry and help() lists it), history keeps "= expr" as
-- typed, and speck.jupyter's rich display (the notebook kernel's Lua
-- half) gives each kind of value its MIME bundle -- the kernel itself is
-- tested end to end by tests/notebook_test.py.
local repl = require "speck.repl"
local jupyter = require "speck.jupyter"

local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

describe("help", function()
  it("has one entry a name (a second one would silently replace the first)", function()
    local f = assert(io.open("stdlib/speck/help.lua"))
    local seen, twice = {}, {}
    for line in f:lines() do
      local k = line:match('^%s*%["([^"]+)"%]%s*=')
      if k then
        if seen[k] then twice[#twice + 1] = k end
        seen[k] = true
      end
    end
    f:close()
    assert.are.same({}, twice)
  end)

  it("has an entry for every public function of graph, sparse, task and plot", function()
    local missing = {}
    for _, m in ipairs {"graph", "sparse", "task", "plot"} do
      for k, x in pairs(require("speck." .. m)) do
        if type(x) == "function" and not k:match("^_") and repl.doc(x):find("^help: no entry") then
          missing[#missing + 1] = "speck." .. m .. "." .. k
        end
      end
    end
    table.sort(missing)
    assert.are.same({}, missing)
    local graph = require "speck.graph"
    assert.truthy(repl.doc(graph.bfs):find("^graph%.bfs%(g, source"))
    local all = repl.doc()
    for _, name in ipairs {"speck.graph.bfs", "speck.sparse.cg", "speck.task.Scheduler",
                           "speck.plot.line"} do
      assert.truthy(all:find(name, 1, true), name)
    end
  end)

  it("keeps '= expr' in the history as typed (readline in a pseudo-terminal)", function()
    local py = "/usr/bin/python3"
    local probe = io.popen(py .. " -c 'import pty; print(1)' 2>/dev/null")
    local okpy = probe:read("a") == "1\n"
    probe:close()
    assert.is_true(okpy, "/usr/bin/python3 with pty is needed (Debian's python3)")
    local home = os.tmpname()
    os.remove(home)
    os.execute("mkdir -p " .. quote(home))
    local p = assert(io.popen(("timeout -k 10 300 %s tests/pty_drive.py %s %s %s %s %s %s %s %s 2>&1")
      :format(py, quote(SPECK), quote(home), quote("= 1 +\\n"), quote(">> "), quote("2\\n"), quote("3"),
              quote("= 40 + 2\\n"), quote("42"))))
    local drive = p:read("a")
    local ok = p:close()
    assert.is_true(ok, drive)
    local h = io.open(home .. "/.speck_history")
    local out = h and h:read("a")
    if h then h:close() end
    os.execute("rm -rf " .. quote(home))
    assert.are.equal("= 1 +\n2\n= 40 + 2\n", out)
  end)
end)

describe("speck.jupyter's rich display", function()
  it("writes JSON and base64", function()
    assert.are.equal('{"a":[1,2.5,"x\\n\\"y\\""],"b":true}', jupyter.json({a = {1, 2.5, 'x\n"y"'}, b = true}))
    assert.are.equal("TWFu", jupyter.base64("Man"))
    assert.are.equal("TWE=", jupyter.base64("Ma"))
    assert.are.equal("TQ==", jupyter.base64("M"))
  end)

  it("shows a view as an HTML table with its dtype, layout and space, elided", function()
    local v = speck.View("v", "float64", {3, 2})
    local b = jupyter.bundle(v)
    assert.are.equal(repl.format(v), b["text/plain"])
    local html = b["text/html"]
    assert.truthy(html:find("<b>View 'v'</b> float64[3][2], layout " .. v:layout() .. ", space "
                            .. v:space(), 1, true))
    local _, rows = html:gsub("<tr>", "")
    assert.are.equal(4, rows)   -- the header and three rows
    local long = jupyter.bundle(speck.View("long", "int32", {100, 100}))["text/html"]
    _, rows = long:gsub("<tr>", "")
    assert.are.equal(1 + 21, rows)   -- 10 + the ellipsis + 10
    assert.truthy(long:find("&#8230;", 1, true))
  end)

  it("shows a matrix as a spy, a graph drawn under 300 vertices, a plot as SVG, a table as HTML", function()
    local sparse, graph = require "speck.sparse", require "speck.graph"
    local A = sparse.from_coo(3, 3, {0, 1, 2}, {0, 1, 2}, {1, 2, 3})
    local b = jupyter.bundle(A)
    assert.truthy(b["image/svg+xml"]:find('data-kind="spy"', 1, true))
    assert.truthy(b["text/html"]:find("nnz", 1, true))
    b = jupyter.bundle(graph.grid2d(4, 4))
    assert.truthy(b["image/svg+xml"]:find('data-kind="graph"', 1, true))
    b = jupyter.bundle(graph.grid2d(20, 20))
    assert.is_nil(b["image/svg+xml"])
    assert.truthy(b["text/html"]:find("400", 1, true))
    b = jupyter.bundle(require("speck.plot").line({1, 2}, {2, 1}))
    assert.truthy(b["image/svg+xml"]:find("^<svg"))
    b = jupyter.bundle(speck.jit.stats())
    assert.truthy(b["text/html"]:find("<table", 1, true))
    assert.are.equal("42", jupyter.bundle(42)["text/plain"])
  end)
  it("shows a cell's last line when it is an expression, and names the cell in errors", function()
    local reg = debug.getregistry()
    local old, got = reg["speck.output"], {}
    reg["speck.output"] = function(stream, m) got[#got + 1] = {stream, m} end
    local function run(code)
      got = {}
      jupyter.run(code, 7)
      return got[1] and got[1][2]
    end
    local ok, e = pcall(function()
      assert.are.equal('{"data":{"text/plain":"4"},"type":"result"}', run("yy = 5\n- 1\nyy"))
      assert.is_nil(run("yy = 5\n- 1"))      -- "- 1" continues the line before
      assert.are.equal(4, yy)
      assert.is_nil(run("for i = 1, 2 do\n  yy = yy + i\nend"))   -- not "return end"
      assert.are.equal(7, yy)
      assert.are.equal('{"data":{"text/plain":"8"},"type":"result"}', run("= yy + 1"))
      assert.are.equal('{"ename":"Error","evalue":"cell 7:2: boom","traceback":["cell 7:2: boom","\\tcell 7:2: in main chunk"],"type":"error"}',
                       run("local a = 1\nerror('boom')"))
      assert.truthy(run("x = = 1"):find('"ename":"SyntaxError","evalue":"cell 7:1:', 1, true))
    end)
    reg["speck.output"] = old
    yy = nil
    assert.is_true(ok, e)
  end)
end)
