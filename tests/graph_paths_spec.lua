local speck = require "speck"
local graph = require "speck.graph"
-- graph_paths_spec.lua: graph.sssp and graph.betweenness against NetworkX
-- (Debian's python3-networkx, run once per spec run with /usr/bin/python3
-- on graphs written here; see tests/graph_paths_oracle.py): distances
-- exactly for integer weights and within 1e-12 for float weights, from
-- several sources, with the automatic and given bucket widths; valid
-- predecessors; Bellman-Ford equal to delta-stepping, and with negative
-- weights against NetworkX's Bellman-Ford; betweenness within 1e-9
-- (relative) over all sources and over a subset, normalized or not; on
-- random, generated (grid, Kronecker) and skewed graphs, directed and
-- undirected; every bad input with its exact message, the VM usable
-- after. tests/run.sh runs it once per back end; under cuda it checks
-- through speck.jit.stats() that the searches ran as device kernels.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/graph_paths_oracle.py"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local SPACE = speck.info().default_space

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end
local HAVE_NX = select(2, sh(PY .. " -c 'import networkx'"))

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

-- the VM still works after an error
local function vm_ok()
  local g = graph.grid2d(3, 2)
  assert.same({0, 1, 2, 1, 2, 3}, graph.sssp(g, 0):totable())
end

local seed = 777
local function rint(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

-- the edges of unweighted graph 'g' (undirected: each once, u < v) with
-- weights from 'wgen', as a graph of those weights (int32 views for
-- integer weights, float64 Lua numbers else)
local function weighted(g, wgen, int)
  local rp, ci = g.rowptr:totable(), g.colidx:totable()
  local s, d, w = {}, {}, {}
  for u = 0, g:num_vertices() - 1 do
    for k = rp[u + 1], rp[u + 2] - 1 do
      local v = ci[k + 1]
      if g:is_directed() or u < v then
        s[#s + 1], d[#d + 1], w[#w + 1] = u, v, wgen()
      end
    end
  end
  local wv = int and speck.View.from(w, "int32") or w
  return graph.from_edges(g:num_vertices(), s, d, {weights = wv, directed = g:is_directed()})
end

local function gap_w() return rint(255) + 1 end          -- GAP's weights 1..255
local function zero_w() return rint(20) end              -- 0..19: zero weights too
local function float_w() return 0.01 + rint(100000) / 7919 end

local function random_directed(nv, ne)
  local s, d = {}, {}
  for i = 1, ne do s[i], d[i] = rint(nv), rint(nv) end
  return graph.from_edges(nv, s, d, {directed = true})
end

-- hubs joined to many random leaves, and a sparse graph of the leaves
local function skewed(nv, directed)
  local s, d = {}, {}
  local deg = {40, 80, 160, 30}
  for h = 0, #deg - 1 do
    for j = h + 1, #deg - 1 do s[#s + 1], d[#d + 1] = h, j end
    for _ = 1, deg[h + 1] do s[#s + 1], d[#d + 1] = h, #deg + rint(nv - #deg) end
  end
  for _ = 1, nv // 2 do s[#s + 1], d[#d + 1] = #deg + rint(nv - #deg), #deg + rint(nv - #deg) end
  if directed then
    for _ = 1, 60 do s[#s + 1], d[#d + 1] = #deg + rint(nv - #deg), rint(#deg) end
  end
  return graph.from_edges(nv, s, d, {directed = directed})
end

local CASES = {}
local function case(name, g, kind, sources, subset)
  CASES[#CASES + 1] = {name = name, g = g, kind = kind, sources = sources, subset = subset}
end
do
  local er = graph.erdos_renyi(200, 500, {seed = 5})
  case("erdos-renyi unweighted", er, "u", {0, 17}, {0, 3, 99})
  case("erdos-renyi GAP weights", weighted(er, gap_w, true), "i", {0, 17}, {5, 6})
  case("erdos-renyi float weights", weighted(er, float_w), "f", {0, 150}, {1, 2, 3})
  local grid = graph.grid2d(9, 7)
  case("grid 9x7 unweighted", grid, "u", {0, 31}, {0, 62})
  case("grid 9x7 weights 0..19", weighted(grid, zero_w, true), "i", {0, 31}, {10})
  case("grid 9x7 float weights", weighted(grid, float_w), "f", {4}, {4, 40})
  local kr = graph.kronecker(8, 8, {seed = 2})
  case("kronecker scale 8 unweighted", kr, "u", {0, 1}, {0, 1, 2, 3})
  case("kronecker scale 8 GAP weights", weighted(kr, gap_w, true), "i", {0, 1, 77},
       {0, 1, 2, 3})
  case("kronecker scale 8 float weights", weighted(kr, float_w), "f", {0, 2}, {9, 10, 11, 12})
  local sk = skewed(400, false)
  case("skewed unweighted", sk, "u", {0, 200}, {0, 1, 2})
  case("skewed GAP weights", weighted(sk, gap_w, true), "i", {0, 200}, {0, 300})
  local dr = random_directed(150, 420)
  case("directed random unweighted", dr, "u", {0, 9}, {0, 9, 20})
  case("directed random GAP weights", weighted(dr, gap_w, true), "i", {0, 9}, {3, 4})
  case("directed random float weights", weighted(dr, float_w), "f", {0, 9}, {1})
  local dsk = skewed(300, true)
  case("directed skewed GAP weights", weighted(dsk, gap_w, true), "i", {0, 150}, {0, 1, 2, 3})
  case("directed skewed float weights", weighted(dsk, float_w), "f", {1}, {0, 5})
  case("isolated vertices", graph.from_edges(12, {3, 4, 5, 9}, {4, 5, 3, 9}), "u", {3, 0}, {3})
  case("two vertices", graph.from_edges(2, {0}, {1}), "u", {0}, {1})
end

-- the graphs' files and one run of the oracle
local ORACLE_OUT = {}
if HAVE_NX then
  local jobs = {}
  for i, c in ipairs(CASES) do
    local g = c.g
    local rp, ci = g.rowptr:totable(), g.colidx:totable()
    local w = g.weights and g.weights:totable()
    local lines = {("%d %d %s"):format(g:num_vertices(), g:is_directed() and 1 or 0, c.kind),
                   "sources " .. table.concat(c.sources, " "),
                   "subset " .. table.concat(c.subset, " ")}
    for u = 0, g:num_vertices() - 1 do
      for k = rp[u + 1], rp[u + 2] - 1 do
        local v = ci[k + 1]
        if g:is_directed() or u <= v then
          lines[#lines + 1] = w and ("%d %d %s"):format(u, v, c.kind == "i"
            and ("%d"):format(w[k + 1]) or ("%.17g"):format(w[k + 1])) or (u .. " " .. v)
        end
      end
    end
    local gp = DIR .. "/case" .. i .. ".txt"
    local f = assert(io.open(gp, "w"))
    f:write(table.concat(lines, "\n"), "\n")
    f:close()
    c.out = DIR .. "/case" .. i .. ".out"
    jobs[#jobs + 1] = gp .. " " .. c.out
  end
  local jp = DIR .. "/jobs.txt"
  local f = assert(io.open(jp, "w"))
  f:write(table.concat(jobs, "\n"), "\n")
  f:close()
  local out, ok = sh(PY .. " " .. ORACLE .. " " .. jp)
  assert(ok, "the NetworkX oracle failed: " .. out)
  for _, c in ipairs(CASES) do
    local r = {}
    for line in io.lines(c.out) do
      local key, rest = line:match("^(%S+)%s*(.*)$")
      local t = {}
      for x in rest:gmatch("%S+") do
        t[#t + 1] = x == "inf" and "inf" or (math.tointeger(tonumber(x)) and c.kind ~= "f"
          and key:match("^sssp") and math.tointeger(tonumber(x)) or tonumber(x))
      end
      r[key] = t
    end
    ORACLE_OUT[c] = r
  end
end

local function oracle(c)
  if not HAVE_NX then pending("python3-networkx is not installed") return nil end
  return ORACLE_OUT[c]
end

-- arc weights by "u v" (1 when unweighted)
local function arc_weights(g)
  local rp, ci = g.rowptr:totable(), g.colidx:totable()
  local w = g.weights and g.weights:totable()
  local t = {}
  for u = 0, g:num_vertices() - 1 do
    for k = rp[u + 1], rp[u + 2] - 1 do
      local key = u .. " " .. ci[k + 1]
      local x = w and w[k + 1] or 1
      if g._int_weights then x = math.tointeger(x) end
      if t[key] == nil or x < t[key] then t[key] = x end
    end
  end
  return t
end

local function check_dist(c, got, want)
  assert.equal(#want, #got)
  local unreached = c.kind == "f" and math.huge or math.maxinteger
  for v = 1, #want do
    if want[v] == "inf" then
      assert.equal(unreached, got[v], ("vertex %d"):format(v - 1))
    elseif c.kind == "f" then
      assert.is_true(math.abs(got[v] - want[v]) <= 1e-12 * math.max(1, math.abs(want[v])),
        ("vertex %d: %.17g vs %.17g"):format(v - 1, got[v], want[v]))
    else
      assert.is_true(math.type(got[v]) == "integer" and got[v] == want[v],
        ("vertex %d: %s vs %s"):format(v - 1, tostring(got[v]), tostring(want[v])))
    end
  end
end

local function check_pred(c, s, dist, pred, aw)
  local unreached = c.kind == "f" and math.huge or math.maxinteger
  for v = 0, #dist - 1 do
    local p = pred[v + 1]
    if v == s or dist[v + 1] == unreached then
      assert.equal(-1, p, ("vertex %d"):format(v))
    else
      local w = aw[p .. " " .. v]
      assert.is_true(w ~= nil, ("pred(%d) = %d is not a neighbour"):format(v, p))
      -- the arc on a shortest path (parallel arcs: the lightest one is)
      assert.equal(dist[v + 1], dist[p + 1] + w, ("vertex %d from %d"):format(v, p))
    end
  end
end

local function check_bc(got, want)
  assert.equal(#want, #got)
  for v = 1, #want do
    assert.is_true(math.abs(got[v] - want[v]) <= 1e-9 * math.abs(want[v]) + 1e-15,
      ("vertex %d: %.17g vs %.17g"):format(v - 1, got[v], want[v]))
  end
end

describe("graph.sssp and graph.betweenness against NetworkX on " .. SPACE, function()
  for _, c in ipairs(CASES) do
    local g = c.g
    it("sssp distances and predecessors: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local aw = arc_weights(g)
      for _, s in ipairs(c.sources) do
        local want = r["sssp" .. s]
        local dist, pred = graph.sssp(g, s, {predecessors = true})
        assert.equal(c.kind == "f" and "float64" or "int64", dist:dtype())
        assert.equal("int64", pred:dtype())
        local dt = dist:totable()
        check_dist(c, dt, want)
        check_pred(c, s, dt, pred:totable(), aw)
        -- without predecessors: the distances alone
        assert.same(dt, graph.sssp(g, s):totable())
        -- bucket widths given: the same distances
        for _, delta in ipairs(c.kind == "f" and {0.05, 1.5, 1e6} or {1, 3, 1000}) do
          assert.same(dt, graph.sssp(g, s, {delta = delta}):totable())
        end
        -- Bellman-Ford: the same distances and valid predecessors
        local bd, bp = graph.sssp(g, s, {algorithm = "bellman_ford", predecessors = true})
        assert.same(dt, bd:totable())
        check_pred(c, s, bd:totable(), bp:totable(), aw)
      end
    end)
    it("betweenness over every source: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      check_bc(graph.betweenness(g):totable(), r.bc1)
      check_bc(graph.betweenness(g, {normalized = true}):totable(), r.bc1)
      check_bc(graph.betweenness(g, {normalized = false}):totable(), r.bc0)
    end)
    it("betweenness over a subset of sources: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      check_bc(graph.betweenness(g, {sources = c.subset}):totable(), r.bcs1)
      local sv = speck.View.from(c.subset, "int64")
      check_bc(graph.betweenness(g, {sources = sv, normalized = false}):totable(), r.bcs0)
    end)
  end

  it("Bellman-Ford with negative weights (a DAG) against NetworkX", function()
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local nv, s, d, w = 120, {}, {}, {}
    for _ = 1, 400 do
      local a, b = rint(nv), rint(nv)
      if a ~= b then
        s[#s + 1], d[#d + 1] = math.min(a, b), math.max(a, b)
        w[#w + 1] = rint(300) - 100
      end
    end
    for _, int in ipairs{true, false} do
      local ws = {}
      for i = 1, #w do ws[i] = int and w[i] or w[i] + 0.25 end
      local g = graph.from_edges(nv, s, d, {directed = true,
        weights = int and speck.View.from(ws, "int64") or ws})
      local c = {kind = int and "i" or "f"}
      local lines = {("%d 1 %s"):format(nv, c.kind), "sources 0 3", "subset"}
      local rp, ci, gw = g.rowptr:totable(), g.colidx:totable(), g.weights:totable()
      for u = 0, nv - 1 do
        for k = rp[u + 1], rp[u + 2] - 1 do
          lines[#lines + 1] = ("%d %d %s"):format(u, ci[k + 1], int
            and ("%d"):format(gw[k + 1]) or ("%.17g"):format(gw[k + 1]))
        end
      end
      local gp, op = DIR .. "/neg.txt", DIR .. "/neg.out"
      local f = assert(io.open(gp, "w"))
      f:write(table.concat(lines, "\n"), "\n")
      f:close()
      f = assert(io.open(DIR .. "/negjobs.txt", "w"))
      f:write(gp, " ", op, "\n")
      f:close()
      local out, ok = sh(PY .. " " .. ORACLE .. " " .. DIR .. "/negjobs.txt")
      assert(ok, out)
      local r = {}
      for line in io.lines(op) do
        local key, rest = line:match("^(%S+)%s*(.*)$")
        local t = {}
        for x in rest:gmatch("%S+") do
          t[#t + 1] = x == "inf" and "inf" or (int and math.tointeger(tonumber(x)) or tonumber(x))
        end
        r[key] = t
      end
      local aw = arc_weights(g)
      for _, src in ipairs{0, 3} do
        local dist, pred = graph.sssp(g, src, {algorithm = "bellman_ford", predecessors = true})
        check_dist(c, dist:totable(), r["sssp" .. src])
        check_pred(c, src, dist:totable(), pred:totable(), aw)
      end
    end
  end)

  it("the device's bodies and a pile that overflows give the same distances", function()
    -- (on the host: the device's relax and split bodies run on any back end
    -- with device_bodies; a pile of 3 entries overflows and is made again
    -- from the distances, round after round)
    local core = require "speck.core"
    for _, c in ipairs(CASES) do
      local g = c.g
      if c.kind ~= "u" or not g:is_weighted() then
        local w = g.weights
        if c.kind == "i" then
          local wi = {}
          for i, x in ipairs(g.weights:totable()) do wi[i] = math.tointeger(x) end
          w = speck.View.from(wi, "int64")
        end
        for _, s in ipairs(c.sources) do
          local want = graph.sssp(g, s):totable()
          for _, extra in ipairs{{device_bodies = true}, {pile_capacity = 3},
                                 {device_bodies = true, pile_capacity = 3},
                                 {pile_capacity = 1, delta = 1}} do
            local args = {G_rowptr = g.rowptr, G_colidx = g.colidx, G_weights = w, source = s}
            for k, x in pairs(extra) do args[k] = x end
            local _, outs = core.call("graph.sssp", args)
            if extra.delta then
              assert.same(graph.sssp(g, s, {delta = 1}):totable(), outs.dist:totable())
            else
              assert.same(want, outs.dist:totable(), c.name)
            end
          end
        end
      end
    end
  end)

  it("betweenness level by level, a source a slot, and with the device's bodies", function()
    -- (many sources on the host run one search a slot, on a device (or
    -- with device_bodies) many searches level by level together; by_source
    -- = 0 forces one level-synchronous search a source, device_bodies the
    -- device's bodies)
    if not HAVE_NX then pending("python3-networkx is not installed") return end
    local core = require "speck.core"
    for _, c in ipairs(CASES) do
      local g, r = c.g, ORACLE_OUT[c]
      for _, norm in ipairs{true, false} do
        local extras = {{by_source = 1}, {device_bodies = true},
                        {by_source = 1, sources = c.subset}}
        if SPACE ~= "cuda" then
          extras[#extras + 1] = {by_source = 0}
          extras[#extras + 1] = {device_bodies = true, by_source = 0}
          extras[#extras + 1] = {device_bodies = true, sources = c.subset}
        else
          -- a device's search a source at a time: a subset of the sources
          -- (every source, one after another, is what the many-source form
          -- replaces; the host spaces run it over all of them above)
          extras[#extras + 1] = {by_source = 0, sources = c.subset}
        end
        -- many searches together, a few at a time (the last batch short)
        extras[#extras + 1] = {device_bodies = true, by_source = 1, batch = 24}
        extras[#extras + 1] = {device_bodies = true, batch = 2, sources = c.subset}
        for _, extra in ipairs(extras) do
          local args = {G_rowptr = g.rowptr, G_colidx = g.colidx, directed = g:is_directed(),
                        normalized = norm}
          for k, x in pairs(extra) do args[k] = x end
          if args.sources then args.sources = speck.View.from(args.sources, "int64") end
          local _, outs = core.call("graph.betweenness", args)
          check_bc(outs.bc:totable(), r[(extra.sources and "bcs" or "bc") .. (norm and 1 or 0)])
        end
      end
    end
  end)

  it("the automatic delta: the largest weight over the mean degree (a quarter of it for the host's bucket lists)", function()
    -- GAP weights on a graph of mean degree 8 (ring of 4 neighbours each side)
    local nv, s, d, w = 64, {}, {}, {}
    for u = 0, nv - 1 do
      for j = 1, 4 do s[#s + 1], d[#d + 1], w[#w + 1] = u, (u + j) % nv, 250 end
    end
    w[1] = 255
    local g = graph.from_edges(nv, s, d, {weights = speck.View.from(w, "int32")})
    local wi = {}
    for i, x in ipairs(g.weights:totable()) do wi[i] = math.tointeger(x) end
    local _, outs = require("speck.core").call("graph.sssp",
      {G_rowptr = g.rowptr, G_colidx = g.colidx, G_weights = speck.View.from(wi, "int32"),
       source = 0})
    -- ceil(255 / 8) for the piles (the device's); the host's bucket lists
    -- (integer kinds) a quarter: round(255 / 32)
    assert.equal(SPACE == "cuda" and 32 or 8, outs.delta)
    _, outs = require("speck.core").call("graph.sssp",
      {G_rowptr = g.rowptr, G_colidx = g.colidx, G_weights = speck.View.from(wi, "int32"),
       source = 0, device_bodies = true})
    assert.equal(32, outs.delta)
    local gf = graph.from_edges(nv, s, d, {weights = w})
    _, outs = require("speck.core").call("graph.sssp",
      {G_rowptr = gf.rowptr, G_colidx = gf.colidx, G_weights = gf.weights, source = 0})
    assert.equal(255 / 8, outs.delta)
  end)

  it("reads integer weights from a file as integers (int64 distances), real ones as float64",
     function()
    local pi, pf = DIR .. "/w_int.wel", DIR .. "/w_real.wel"
    local f = assert(io.open(pi, "w"))
    f:write("0 1 5\n1 2 7\n0 2 20\n2 3 1\n")
    f:close()
    f = assert(io.open(pf, "w"))
    f:write("0 1 5\n1 2 7.5\n0 2 20\n2 3 1\n")
    f:close()
    local di = graph.sssp(graph.read(pi, {format = "edges", directed = true}), 0)
    assert.equal("int64", di:dtype())
    assert.same({0, 5, 12, 13}, speck.create_mirror_view_and_copy("host", di):totable())
    local df = graph.sssp(graph.read(pf, {format = "edges", directed = true}), 0)
    assert.equal("float64", df:dtype())
    assert.same({0, 5, 12.5, 13.5}, speck.create_mirror_view_and_copy("host", df):totable())
  end)

  it("launches device kernels on a GPU space", function()
    if SPACE ~= "cuda" then
      pending("the device check runs under SPECK_SPACES=cuda")
      return
    end
    local g = weighted(graph.kronecker(8, 8, {seed = 3}), gap_w, true)
    graph.sssp(g, 0)
    graph.sssp(g, 0, {algorithm = "bellman_ford"})
    graph.betweenness(g, {sources = {0, 1}})
    require("speck.core").call("graph.betweenness", {G_rowptr = g.rowptr, G_colidx = g.colidx,
                                                     sources = speck.View.from({0, 1}, "int64"),
                                                     by_source = 0})
    local seen = {}
    for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
      if k.tier == "nvrtc" and k.launches > 0 then seen[k.label] = true end
    end
    for _, l in ipairs{"graph.sssp_dl_relax_i", "graph.sssp_dl_split_i", "graph.bc_forward_dev",
                       "graph.bc_backward_dev", "graph.bc_multi_forward",
                       "graph.bc_multi_backward", "graph.bc_multi_add"} do
      assert.is_true(seen[l] == true, l .. " did not run as a device kernel")
    end
  end)
end)

describe("graph.sssp and graph.betweenness: bad input", function()
  local g = graph.from_edges(4, {0, 1, 2}, {1, 2, 3}, {weights = {1, -2.5, 3}})
  local gi = graph.from_edges(4, {0, 1, 2}, {1, 2, 3},
                              {weights = speck.View.from({1, 2, -7}, "int64"), directed = true})
  local gu = graph.grid2d(3, 2)
  local cases = {
    {"speck.graph.sssp: edge (1, 2) has weight -2.5: delta-stepping needs weights >= 0 " ..
     "(algorithm = \"bellman_ford\" takes negative ones)", graph.sssp, g, 0},
    {"speck.graph.sssp: edge (2, 3) has weight -7: delta-stepping needs weights >= 0 " ..
     "(algorithm = \"bellman_ford\" takes negative ones)", graph.sssp, gi, 0},
    {"speck.graph.sssp: a negative cycle is reachable from source 0", graph.sssp, g, 0,
     {algorithm = "bellman_ford"}},
    {"speck.graph.sssp: source 4 is not a vertex (the graph has 4: 0..3)", graph.sssp, g, 4},
    {"speck.graph.sssp: source -1 is not a vertex (the graph has 6: 0..5)", graph.sssp, gu, -1},
    {"speck.graph.sssp: source must be a vertex (an integer), got the float 1.5", graph.sssp,
     gu, 1.5},
    {"speck.graph.sssp: source must be a vertex (an integer), got nil", graph.sssp, gu},
    {"speck.graph.sssp: g must be a Graph, got table", graph.sssp, {}, 0},
    {"speck.graph.sssp: algorithm must be \"delta\" or \"bellman_ford\", got dijkstra",
     graph.sssp, gu, 0, {algorithm = "dijkstra"}},
    {"speck.graph.sssp: delta must be an integer >= 1 (the weights are integers), got 0.5",
     graph.sssp, gu, 0, {delta = 0.5}},
    {"speck.graph.sssp: delta must be an integer >= 1 (the weights are integers), got 0",
     graph.sssp, gi, 0, {delta = 0}},
    {"speck.graph.sssp: delta must be a positive finite number, got -1",
     graph.sssp, graph.from_edges(2, {0}, {1}, {weights = {0.5}}), 0, {delta = -1}},
    {"speck.graph.sssp: delta must be a positive finite number, got inf",
     graph.sssp, graph.from_edges(2, {0}, {1}, {weights = {0.5}}), 0, {delta = math.huge}},
    {"speck.graph.sssp: option delta must be a number, got string", graph.sssp, gu, 0,
     {delta = "2"}},
    {"speck.graph.sssp: option delta is for algorithm \"delta\" (Bellman-Ford has no buckets)",
     graph.sssp, gu, 0, {delta = 2, algorithm = "bellman_ford"}},
    {"speck.graph.sssp: option predecessors must be a boolean, got number", graph.sssp, gu, 0,
     {predecessors = 1}},
    {"speck.graph.sssp: unknown option 'pred' (valid: algorithm, delta, predecessors)",
     graph.sssp, gu, 0, {pred = true}},
    {"speck.graph.betweenness: sources is empty (leave it out for every vertex)",
     graph.betweenness, gu, {sources = {}}},
    {"speck.graph.betweenness: sources is empty (leave it out for every vertex)",
     graph.betweenness, gu, {sources = speck.View("s", "int64", 0)}},
    {"speck.graph.betweenness: source 6 is not a vertex (the graph has 6: 0..5)",
     graph.betweenness, gu, {sources = {0, 6}}},
    {"speck.graph.betweenness: source -2 is not a vertex (the graph has 6: 0..5)",
     graph.betweenness, gu, {sources = speck.View.from({-2}, "int64")}},
    {"speck.graph.betweenness: source 1 appears twice in sources",
     graph.betweenness, gu, {sources = {1, 0, 1}}},
    {"speck.graph.betweenness: sources must be int64, got int32",
     graph.betweenness, gu, {sources = speck.View.from({1}, "int32")}},
    {"speck.graph.betweenness: sources[2] must be an integer, got 1.5",
     graph.betweenness, gu, {sources = {1, 1.5}}},
    {"speck.graph.betweenness: option normalized must be a boolean, got string",
     graph.betweenness, gu, {normalized = "yes"}},
    {"speck.graph.betweenness: unknown option 'k' (valid: normalized, sources)",
     graph.betweenness, gu, {k = 4}},
  }
  for _, t in ipairs(cases) do
    it(t[1], function()
      assert.equal(t[1], err_of(table.unpack(t, 2)))
      vm_ok()
    end)
  end
end)
