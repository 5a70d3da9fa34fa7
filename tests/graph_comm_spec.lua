local speck = require "speck"
local graph = require "speck.graph"
-- graph_comm_spec.lua: graph.kcore, graph.scc, graph.wcc, graph.louvain and
-- graph.label_propagation against NetworkX and igraph (tests/graph_comm_oracle.py,
-- run with /usr/bin/python3 on graphs written here): core numbers equal;
-- SCC and WCC equal as partitions (canonical labels equal) on random
-- directed graphs, many small SCCs and one giant; Louvain's modularity
-- within 2 % of networkx's louvain_communities on planted partitions, its
-- q equal to networkx's modularity of the partition it returns (1e-9),
-- at resolutions 1, 0.5 and 2; label propagation's defining property (every
-- vertex's label among the most frequent of its neighbours'); the same
-- seed, the same result (serial and openmp with 2 and 3 threads, in child
-- processes); every bad input's message. tests/run.sh runs it
-- once per back end; under cuda each algorithm must have launched device
-- kernels (speck.jit.stats(), tier "nvrtc").

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/graph_comm_oracle.py"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)
local ON_CUDA = speck.info().default_space == "cuda"

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end
local HAVE_NX = select(2, sh(PY .. " -c 'import networkx'"))
-- the oracle's commands: one Python process for the file (tests/py_serve.lua)
local py
if HAVE_NX then
  local close
  py, close = dofile(HERE .. "/py_serve.lua")(PY, DIR, HERE)
  teardown(close)
end

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 2718
local function rint(n)   -- the generator's high bits (its low bits repeat)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return (seed >> 12) % n
end

-- launches at the device tier (the image tier, named by its compiler) of
-- the kernels whose label starts with 'prefix'
local DEVICE_TIER = {nvrtc = true, image = true}
local function device_launches(prefix)
  local s = 0
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label:sub(1, #prefix) == prefix and DEVICE_TIER[k.tier] then s = s + k.launches end
  end
  return s
end
-- run f(g, ...); under cuda it must launch device kernels labelled
-- 'prefix'... (a graph without vertices launches none)
local function on_device(prefix, f, g, ...)
  local before = device_launches(prefix)
  local r = table.pack(f(g, ...))
  if ON_CUDA and g:num_vertices() > 0 then
    assert.is_true(device_launches(prefix) > before, prefix .. " launched no device kernel")
  end
  return table.unpack(r, 1, r.n)
end

-- g's edges into an edge file of the oracle (an undirected graph's once)
local function write_graph(g, path)
  local f = assert(io.open(path, "w"))
  local rp, ci = g.rowptr:totable(), g.colidx:totable()
  local w = g.weights and g.weights:totable()
  f:write("n ", g:num_vertices(), "\n")
  for u = 0, g:num_vertices() - 1 do
    for k = rp[u + 1], rp[u + 2] - 1 do
      local v = ci[k + 1]
      if g:is_directed() or u <= v then
        if w then f:write(u, " ", v, " ", ("%.17g"):format(w[k + 1]), "\n")
        else f:write(u, " ", v, "\n") end
      end
    end
  end
  f:close()
  return path
end

local function read_edges(path)
  local f = assert(io.open(path))
  local nv = math.tointeger(tonumber(f:read("l"):match("^n (%d+)")))
  local s, d, w = {}, {}, {}
  for line in f:lines() do
    local a, b, c = line:match("^(%d+) (%d+) ?(%S*)")
    if a then
      s[#s + 1], d[#d + 1] = math.tointeger(tonumber(a)), math.tointeger(tonumber(b))
      w[#w + 1] = tonumber(c) or 1.0
    end
  end
  f:close()
  return nv, s, d, w
end

-- -- the graphs ------------------------------------------------------------------
local CASES = {}
local function case(name, g) CASES[#CASES + 1] = {name = name, g = g} end
local function random_arcs(nv, na, lo)
  local s, d = {}, {}
  for i = 1, na do s[i], d[i] = (lo or 0) + rint(nv), (lo or 0) + rint(nv) end
  return s, d
end
do
  case("erdos-renyi", graph.erdos_renyi(300, 700, {seed = 3}))
  case("kronecker scale 8", graph.kronecker(8, 8, {seed = 2}))
  case("grid 7x5", graph.grid2d(7, 5))
  local s, d = random_arcs(60, 150)
  for v = 0, 59, 7 do s[#s + 1], d[#d + 1] = v, v end
  case("self-loops", graph.from_edges(60, s, d, {self_loops = true}))
  case("isolated vertices", graph.from_edges(12, {3, 4, 5, 9}, {4, 5, 3, 9}))
  case("no edges", graph.from_edges(5, {}, {}))
  case("empty", graph.from_edges(0, {}, {}))
  -- directed: sparse random (many small SCCs and trivial ones)
  s, d = random_arcs(300, 380)
  case("directed sparse random", graph.from_edges(300, s, d, {directed = true}))
  -- one giant SCC (the cycle v -> v + 1 through 0..249, and chords) and many small ones
  -- (2- and 3-cycles among 250..399) joined one way to it and to each
  -- other, a chain (a DAG), self-loops, reciprocal arcs
  do
    local gs, gd = {}, {}
    local function arc(u, v) gs[#gs + 1], gd[#gd + 1] = u, v end
    for v = 0, 249 do arc(v, (v * 37 + 11) % 250) end
    for v = 0, 249 do arc(v, (v + 1) % 250) end
    for _ = 1, 200 do arc(rint(250), rint(250)) end
    local v = 250
    while v + 3 <= 400 do
      if rint(2) == 0 then arc(v, v + 1) arc(v + 1, v) v = v + 2
      else arc(v, v + 1) arc(v + 1, v + 2) arc(v + 2, v) v = v + 3 end
    end
    for _ = 1, 120 do
      local a, b = 250 + rint(150), 250 + rint(150)
      if a < b then arc(a, b) end       -- forward only: no new cycles
      arc(rint(250), 250 + rint(150))   -- giant -> small
    end
    for u = 400, 448 do arc(u, u + 1) end     -- a chain
    arc(449, 0) arc(5, 5) arc(260, 260)
    case("directed giant SCC", graph.from_edges(450, gs, gd, {directed = true, self_loops = true}))
  end
  s, d = random_arcs(150, 900)
  case("directed dense random", graph.from_edges(150, s, d, {directed = true}))
  do -- a Kronecker graph's edges oriented by a hash
    local k = graph.kronecker(8, 4, {seed = 5})
    local rp, ci = k.rowptr:totable(), k.colidx:totable()
    local ks, kd = {}, {}
    for u = 0, k:num_vertices() - 1 do
      for j = rp[u + 1], rp[u + 2] - 1 do
        local v = ci[j + 1]
        if u < v then
          if (u * 31 + v * 17) % 3 == 0 then ks[#ks + 1], kd[#kd + 1] = v, u
          else ks[#ks + 1], kd[#kd + 1] = u, v end
          if (u + v) % 5 == 0 then ks[#ks + 1], kd[#kd + 1] = v, u end
        end
      end
    end
    case("directed kronecker", graph.from_edges(k:num_vertices(), ks, kd, {directed = true}))
  end
  case("directed empty", graph.from_edges(0, {}, {}, {directed = true}))
end

local ORACLE_OUT = {}
if HAVE_NX then
  local jobs = {}
  for i, c in ipairs(CASES) do
    c.path = write_graph(c.g, DIR .. "/case" .. i .. ".txt")
    c.out = DIR .. "/case" .. i .. ".out"
    jobs[#jobs + 1] = ("%s %d %s"):format(c.path, c.g:is_directed() and 1 or 0, c.out)
  end
  local jp = DIR .. "/jobs.txt"
  local f = assert(io.open(jp, "w"))
  f:write(table.concat(jobs, "\n"), "\n")
  f:close()
  local out, ok = py(ORACLE .. " struct " .. jp)
  assert(ok, "the NetworkX oracle failed: " .. out)
  for _, c in ipairs(CASES) do
    local r = {}
    for line in io.lines(c.out) do
      local key, rest = line:match("^(%S+)%s*(.*)$")
      local t = {}
      for x in rest:gmatch("%S+") do t[#t + 1] = math.tointeger(tonumber(x)) end
      r[key] = t
    end
    ORACLE_OUT[c] = r
  end
end
local function oracle(c)
  if not HAVE_NX then pending("python3-networkx is not installed") return nil end
  return ORACLE_OUT[c]
end

-- labels canonical: 0..n-1, each new label the next one in vertex order
local function assert_canonical(t, n)
  local next_label = 0
  for v = 1, #t do
    assert.is_true(t[v] >= 0 and t[v] <= next_label, "label " .. t[v] .. " of vertex " .. (v - 1))
    if t[v] == next_label then next_label = next_label + 1 end
  end
  assert.equal(n, next_label)
end

-- -- k-core, SCC, WCC ------------------------------------------------------------
describe("graph.kcore, graph.scc, graph.wcc against NetworkX and igraph", function()
  for _, c in ipairs(CASES) do
    local g = c.g
    it("core numbers: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local core = on_device("graph.kcore", graph.kcore, g)
      assert.equal("int32", core:dtype())
      assert.same(r.core, core:totable())
    end)
    it("strongly connected components: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local labels, n = on_device(g:is_directed() and "graph.scc" or "graph.c", graph.scc, g)
      local t = labels:totable()
      assert.same(r.scc, t)
      assert_canonical(t, n)
    end)
    it("weakly connected components: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local labels, n = on_device("graph.c", graph.wcc, g)
      local t = labels:totable()
      assert.same(r.wcc, t)
      assert_canonical(t, n)
      if not g:is_directed() then
        local _, ncc = graph.connected_components(g)
        assert.equal(ncc, n)
      end
    end)
  end
  it("a giant SCC is found as one component beside the small ones", function()
    local r
    for _, c in ipairs(CASES) do
      if c.name == "directed giant SCC" then r = c end
    end
    local labels, n = graph.scc(r.g)
    local size = {}
    for _, l in ipairs(labels:totable()) do size[l] = (size[l] or 0) + 1 end
    assert.equal(250, size[0])
    assert.is_true(n > 100)
  end)
end)

-- -- Louvain ---------------------------------------------------------------------------
local function labels_file(view, name)
  local path = DIR .. "/" .. name .. ".lab"
  local f = assert(io.open(path, "w"))
  for _, x in ipairs(view:totable()) do f:write(x, "\n") end
  f:close()
  return path
end
local function nx_modularity(gpath, view, res)
  local out, ok = py(("%s modularity %s %s %s"):format(ORACLE, gpath,
                                                    labels_file(view, "mod"), res))
  assert(ok, "the oracle refused the partition: " .. out)
  return tonumber(out)
end
local function nx_louvain(gpath, res)
  local out, ok = py(("%s louvain %s 7 %s"):format(ORACLE, gpath, res))
  assert(ok, "the oracle failed: " .. out)
  return tonumber(out:match("^q (%S+)")), tonumber(out:match("igraph (%S+)"))
end

local PLANTED = {
  {"8 groups of 40, p_in 0.3, p_out 0.01", 8, 40, 0.3, 0.01, 11, 0},
  {"6 groups of 50, weighted 1..10", 6, 50, 0.25, 0.02, 12, 1},
  {"20 groups of 25, p_in 0.4, p_out 0.005", 20, 25, 0.4, 0.005, 13, 0},
  {"4 groups of 100, p_in 0.1, p_out 0.02", 4, 100, 0.1, 0.02, 14, 0},
}

describe("graph.louvain", function()
  for i, p in ipairs(PLANTED) do
    it("planted partition " .. p[1] .. ": q within 2 % of networkx, = modularity", function()
      if not HAVE_NX then pending("python3-networkx is not installed") return end
      local path = DIR .. "/planted" .. i .. ".txt"
      local out, ok = py(("%s planted %s %d %d %g %g %d %d"):format(ORACLE, path,
                                                         p[2], p[3], p[4], p[5], p[6], p[7]))
      assert(ok, out)
      local nv, s, d, w = read_edges(path)
      local g = graph.from_edges(nv, s, d, p[7] == 1 and {weights = w} or nil)
      local comm, q = on_device("graph.louvain", graph.louvain, g)
      assert.equal("int32", comm:dtype())
      local t = comm:totable()
      local k = 0
      for _, x in ipairs(t) do if x + 1 > k then k = x + 1 end end
      assert_canonical(t, k)
      local qnx = nx_louvain(path, 1.0)
      assert.is_true(q >= qnx - 0.02 * math.abs(qnx), ("q %.6f, networkx %.6f"):format(q, qnx))
      assert.is_true(math.abs(q - nx_modularity(path, comm, 1.0)) < 1e-9)
      -- the same seed, the same partition; a planted partition is found
      local comm2, q2 = graph.louvain(g, {seed = 1})
      assert.same(t, comm2:totable())
      assert.equal(q, q2)
      assert.is_true(k <= 2 * p[2])
    end)
  end
  for _, c in ipairs(CASES) do
    if not c.g:is_directed() then
      it("q is networkx's modularity of the partition: " .. c.name, function()
        if not HAVE_NX then pending("python3-networkx is not installed") return end
        local g = c.g
        local comm, q = graph.louvain(g, {seed = 3})
        local t = comm:totable()
        assert.equal(g:num_vertices(), #t)
        if g:num_edges() == 0 then
          -- no edges: every vertex its own community, q = 0
          for v = 1, #t do assert.equal(v - 1, t[v]) end
          assert.equal(0, q)
          return
        end
        assert.is_true(math.abs(q - nx_modularity(c.path, comm, 1.0)) < 1e-9)
        local qnx = nx_louvain(c.path, 1.0)
        assert.is_true(q >= qnx - 0.05 * math.abs(qnx), ("q %.6f, networkx %.6f"):format(q, qnx))
      end)
    end
  end
  it("resolution 0.5 and 2: q is networkx's modularity at that resolution", function()
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local c = CASES[2]
    for _, res in ipairs{0.5, 2.0} do
      local comm, q = graph.louvain(c.g, {resolution = res})
      assert.is_true(math.abs(q - nx_modularity(c.path, comm, res)) < 1e-9)
      local qnx = nx_louvain(c.path, res)
      assert.is_true(q >= qnx - 0.05 * math.abs(qnx), ("res %g: q %.6f, networkx %.6f"):format(res, q, qnx))
    end
  end)
  it("weights and self-loops count as networkx counts them", function()
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local s, d, w = {}, {}, {}
    for i = 1, 300 do
      s[i], d[i] = rint(80), rint(80)
      w[i] = (rint(1000) + 1) / 64
    end
    local g = graph.from_edges(80, s, d, {weights = w, self_loops = true})
    local path = write_graph(g, DIR .. "/wloops.txt")
    local comm, q = graph.louvain(g)
    assert.is_true(math.abs(q - nx_modularity(path, comm, 1.0)) < 1e-9)
  end)
  it("the seed changes only ties: another seed gives a valid partition", function()
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local c = CASES[1]
    local a, qa = graph.louvain(c.g, {seed = 99})
    local b, qb = graph.louvain(c.g, {seed = 99})
    assert.same(a:totable(), b:totable())
    assert.equal(qa, qb)
    assert.is_true(math.abs(qa - nx_modularity(c.path, a, 1.0)) < 1e-9)
  end)
end)

-- -- label propagation -------------------------------------------------------------------
-- every vertex's label is among the most frequent of its neighbours'
-- (self-loops left out); a vertex without neighbours keeps a label of its own
local function assert_lpa_valid(g, t)
  local rp, ci = g.rowptr:totable(), g.colidx:totable()
  for u = 0, g:num_vertices() - 1 do
    local freq, best = {}, 0
    for k = rp[u + 1], rp[u + 2] - 1 do
      local v = ci[k + 1]
      if v ~= u then
        local l = t[v + 1]
        freq[l] = (freq[l] or 0) + 1
        if freq[l] > best then best = freq[l] end
      end
    end
    if best > 0 then
      assert.equal(best, freq[t[u + 1]] or 0, "vertex " .. u .. ": its label is not among the most frequent")
    end
  end
end

describe("graph.label_propagation", function()
  for _, c in ipairs(CASES) do
    if not c.g:is_directed() then
      it("every label among its neighbours' most frequent: " .. c.name, function()
        local labels, n = on_device("graph.lpa", graph.label_propagation, c.g)
        local t = labels:totable()
        assert.equal(c.g:num_vertices(), #t)
        assert_canonical(t, n)
        assert_lpa_valid(c.g, t)
        local l2, n2 = graph.label_propagation(c.g, {seed = 1})
        assert.same(t, l2:totable())
        assert.equal(n, n2)
        local l3 = graph.label_propagation(c.g, {seed = 12345})
        assert_lpa_valid(c.g, l3:totable())
      end)
    end
  end
  it("finds planted communities", function()
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local path = DIR .. "/lpa_planted.txt"
    local out, ok = py(("%s planted %s 5 40 0.5 0.002 21 0"):format(ORACLE, path))
    assert(ok, out)
    local nv, s, d = read_edges(path)
    local g = graph.from_edges(nv, s, d)
    local labels, n = graph.label_propagation(g, {seed = 4})
    assert_lpa_valid(g, labels:totable())
    assert.is_true(n >= 5 and n <= 10, "communities: " .. n)
  end)
end)

-- -- the same result on every thread count ----------------------------------------------
describe("deterministic for a seed", function()
  local SPECK = os.getenv("SPECK_BIN") or "build/bin/speck"
  local CODE = [[
local graph = require "speck.graph"
local g = graph.kronecker(9, 8, {seed = 7})
local s, d, w = {}, {}, {}
local x = 5
for i = 1, 3000 do
  x = (x * 1103515245 + 12345) % 2147483648
  s[i], d[i] = x % 400, (x // 400) % 400
  w[i] = 1 + (x // 160000) % 9 + 0.25
end
local wg = graph.from_edges(400, s, d, {weights = w})
local out = {}
for _, h in ipairs{g, wg} do
  local c, q = graph.louvain(h, {seed = 3})
  local l, n = graph.label_propagation(h, {seed = 3})
  out[#out + 1] = table.concat(c:totable(), ",") .. ("|%.12f|"):format(q)
    .. table.concat(l:totable(), ",") .. "|" .. n
end
io.write(table.concat(out, "\n"))
]]
  local function run(envs)
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(CODE)
    f:close()
    local p = assert(io.popen(("env %s %s %s 2>&1"):format(envs, SPECK, path)))
    local out = p:read("a")
    p:close()
    os.remove(path)
    return out
  end
  it("louvain and label_propagation: serial, openmp with 2 and 3 threads agree", function()
    local ref = run("SPECK_SPACE=serial")
    assert.truthy(ref:match("^[%d,]+|"), ref)
    assert.equal(ref, run("SPECK_SPACE=openmp SPECK_THREADS=2"))
    assert.equal(ref, run("SPECK_SPACE=openmp SPECK_THREADS=3"))
  end)
end)

-- -- bad input ---------------------------------------------------------------------------
describe("bad input", function()
  local g = graph.erdos_renyi(30, 60, {seed = 1})
  local dg = graph.from_edges(3, {0, 1}, {1, 2}, {directed = true})
  it("a non-graph", function()
    assert.equal("speck.graph.kcore: g must be a Graph, got number", err_of(graph.kcore, 5))
    assert.equal("speck.graph.scc: g must be a Graph, got nil", err_of(graph.scc, nil))
    assert.equal("speck.graph.wcc: g must be a Graph, got table", err_of(graph.wcc, {}))
    assert.equal("speck.graph.louvain: g must be a Graph, got string", err_of(graph.louvain, "g"))
    assert.equal("speck.graph.label_propagation: g must be a Graph, got table",
                 err_of(graph.label_propagation, g:matrix()))
  end)
  it("a directed graph for Louvain and label propagation", function()
    assert.equal("speck.graph.louvain: Louvain needs an undirected graph and g is directed "
                 .. "(build it with directed = false: each arc then counts both ways)",
                 err_of(graph.louvain, dg))
    assert.equal("speck.graph.label_propagation: label propagation needs an undirected graph "
                 .. "and g is directed (build it with directed = false: each arc then counts "
                 .. "both ways)", err_of(graph.label_propagation, dg))
  end)
  it("options", function()
    assert.equal("speck.graph.louvain: option seed must be an integer, got 1.5",
                 err_of(graph.louvain, g, {seed = 1.5}))
    assert.equal("speck.graph.louvain: option resolution must be a positive finite number, got -1",
                 err_of(graph.louvain, g, {resolution = -1}))
    assert.equal("speck.graph.louvain: option resolution must be a positive finite number, got 0",
                 err_of(graph.louvain, g, {resolution = 0}))
    assert.equal("speck.graph.louvain: option resolution must be a positive finite number, got nan",
                 err_of(graph.louvain, g, {resolution = 0 / 0}))
    assert.equal("speck.graph.louvain: option resolution must be a positive finite number, got inf",
                 err_of(graph.louvain, g, {resolution = math.huge}))
    assert.equal("speck.graph.louvain: option resolution must be a number, got string",
                 err_of(graph.louvain, g, {resolution = "x"}))
    assert.equal("speck.graph.louvain: unknown option 'bogus' (valid: resolution, seed)",
                 err_of(graph.louvain, g, {bogus = 1}))
    assert.equal("speck.graph.louvain: options must be a table, got number",
                 err_of(graph.louvain, g, 7))
    assert.equal("speck.graph.label_propagation: option seed must be an integer, got a",
                 err_of(graph.label_propagation, g, {seed = "a"}))
    assert.equal("speck.graph.label_propagation: unknown option 'resolution' (valid: seed)",
                 err_of(graph.label_propagation, g, {resolution = 1}))
  end)
  it("negative, infinite and NaN weights for Louvain, naming the arc", function()
    local function wg(x)
      return graph.from_edges(4, {0, 1, 2}, {1, 2, 3}, {weights = {1.0, x, 1.0}})
    end
    assert.equal("speck.graph.louvain: the weight -2.5 of arc 1 -> 2 is negative or not finite "
                 .. "(modularity needs weights >= 0)", err_of(graph.louvain, wg(-2.5)))
    assert.equal("speck.graph.louvain: the weight inf of arc 1 -> 2 is negative or not finite "
                 .. "(modularity needs weights >= 0)", err_of(graph.louvain, wg(math.huge)))
    assert.equal("speck.graph.louvain: the weight of arc 1 -> 2 is NaN "
                 .. "(modularity needs weights >= 0)", err_of(graph.louvain, wg(0 / 0)))
    -- the VM is still usable
    local comm, q = graph.louvain(wg(2.0))
    assert.equal(4, comm:extent(0))
    assert.is_true(q > -1 and q < 1)
  end)
end)
