local speck = require "speck"
local graph = require "speck.graph"
-- graph_props_spec.lua: speck.graph's properties and similarity against
-- NetworkX and igraph (/usr/bin/python3, tests/graph_props_oracle.py, run
-- once per spec run on graphs written here): local clustering and
-- transitivity, Jaccard and overlap of given pairs and of every arc
-- (within 1e-12), personalized PageRank and HITS (within 1e-10 of
-- NetworkX's own iterations run to the same tolerance; HITS within 1e-7
-- of networkx.hits' SVD), degree histograms and statistics (exact;
-- stddev within 1e-12 relative), multi-source BFS distances (exact,
-- networkx.multi_source_dijkstra_path_length with unit lengths); random,
-- generated, skewed (Kronecker), directed, weighted, self-loop, empty and
-- isolated-vertex graphs; every bad input with its message. tests/run.sh
-- runs it once per back end; on a GPU back end it checks through
-- speck.jit.stats() that each algorithm launched device kernels.

local PY = os.getenv("SPECK_PYTHON") or "/usr/bin/python3"
local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local ORACLE = HERE .. "/graph_props_oracle.py"
local SPACE = speck.info().default_space
local ON_HOST = SPACE ~= "cuda"
local DIR = os.tmpname()
os.remove(DIR)
os.execute("mkdir -p " .. DIR)
teardown(function() os.execute("rm -rf '" .. DIR .. "'") end)

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1", "r"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end
local HAVE_NX = select(2, sh(PY .. " -c 'import networkx, igraph, numpy, scipy'"))

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok)
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

local seed = 2626
local function rint(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

local function random_edges(nv, ne, weighted)
  local s, d, w = {}, {}, {}
  for i = 1, ne do
    s[i], d[i] = rint(nv), rint(nv)
    w[i] = (rint(1000) + 1) / 100
  end
  return s, d, weighted and w or nil
end

-- -- the graphs ---------------------------------------------------------------
local CASES = {}
local function case(name, g) CASES[#CASES + 1] = {name = name, g = g} end
do
  case("erdos-renyi", graph.erdos_renyi(300, 900, {seed = 3}))
  case("dense random", graph.erdos_renyi(40, 400, {seed = 5}))
  case("kronecker scale 9", graph.kronecker(9, 8, {seed = 2}))
  case("grid 7x5", graph.grid2d(7, 5))
  local s, d = random_edges(150, 500)
  case("directed random", graph.from_edges(150, s, d, {directed = true}))
  local s2, d2, w2 = random_edges(90, 300, true)
  case("weighted", graph.from_edges(90, s2, d2, {weights = w2}))
  local s3, d3, w3 = random_edges(60, 200, true)
  case("weighted directed", graph.from_edges(60, s3, d3, {weights = w3, directed = true}))
  local s4, d4 = random_edges(50, 160)
  for v = 0, 9 do s4[#s4 + 1], d4[#d4 + 1] = v * 3, v * 3 end
  case("self-loops", graph.from_edges(50, s4, d4, {self_loops = true}))
  case("self-loops directed", graph.from_edges(50, s4, d4, {self_loops = true, directed = true}))
  case("isolated vertices", graph.from_edges(12, {3, 4, 5, 9}, {4, 5, 3, 10}))
  case("no edges", graph.from_edges(5, {}, {}))
  case("empty", graph.from_edges(0, {}, {}))
end

-- pairs (random, equal ends, the ends of arcs), a personalization (some
-- zeros) and BFS sources (a repeat) per graph
for _, c in ipairs(CASES) do
  local n = c.g:num_vertices()
  c.us, c.vs, c.pers, c.src = {}, {}, {}, {}
  if n > 0 then
    local rp, ci = c.g.rowptr:totable(), c.g.colidx:totable()
    for k = 1, 60 do
      local u = rint(n)
      c.us[k], c.vs[k] = u, k % 7 == 0 and u or rint(n)
      if k % 3 == 0 and rp[u + 2] > rp[u + 1] then
        c.vs[k] = ci[rp[u + 1] + 1 + rint(rp[u + 2] - rp[u + 1])]
      end
    end
    for v = 1, n do c.pers[v] = v % 4 == 0 and 0 or (rint(100) + 1) / 10 end
    c.src = {0, n // 2, n - 1, n // 2}
  end
end

local ORACLE_OUT = {}
if HAVE_NX then
  local jobs = {}
  for i, c in ipairs(CASES) do
    local gp = DIR .. "/case" .. i .. ".snap"
    graph.write(gp, c.g)
    local pairs = {}
    for k = 1, #c.us do pairs[#pairs + 1] = c.us[k] .. " " .. c.vs[k] end
    local pp = DIR .. "/case" .. i .. ".params"
    local f = assert(io.open(pp, "w"))
    f:write("pairs ", table.concat(pairs, " "), "\n")
    local pw = {}
    for v = 1, #c.pers do pw[v] = ("%.17g"):format(c.pers[v]) end
    f:write("pers ", table.concat(pw, " "), "\n")
    f:write("src ", table.concat(c.src, " "), "\n")
    f:close()
    c.out = DIR .. "/case" .. i .. ".out"
    jobs[#jobs + 1] = ("%s %d %s %s"):format(gp, c.g:is_directed() and 1 or 0, c.out, pp)
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
      for x in rest:gmatch("%S+") do t[#t + 1] = tonumber(x) end
      r[key] = t
    end
    ORACLE_OUT[c] = r
  end
end

local function oracle(c)
  if not HAVE_NX then pending("python3-networkx, igraph, numpy or scipy is missing") return nil end
  return ORACLE_OUT[c]
end

-- |got - want| <= tol at every entry (relative where 'rel')
local function near(want, got, tol, what, rel)
  assert.equal(#want, #got, what .. ": lengths")
  for k = 1, #want do
    local scale = rel and math.max(1, math.abs(want[k])) or 1
    assert.is_true(math.abs(got[k] - want[k]) <= tol * scale,
                   ("%s [%d]: %.17g vs NetworkX %.17g"):format(what, k - 1, got[k], want[k]))
  end
end

local function sum(t)
  local s = 0
  for _, x in ipairs(t) do s = s + x end
  return s
end

-- -- against the oracles -----------------------------------------------------------
describe("speck.graph properties against NetworkX on " .. SPACE, function()
  for _, c in ipairs(CASES) do
    local g = c.g
    local n = g:num_vertices()
    if g:is_directed() then
      it("directed clustering within 1e-12; transitivity refuses a directed graph: " .. c.name, function()
        assert.equal("speck.graph.transitivity: the graph is directed: transitivity is computed on undirected graphs (NetworkX's definition)",
                     err_of(graph.transitivity, g))
        local r = oracle(c)
        if not r then return end
        local cl = graph.clustering(g)
        assert.equal("float64", cl:dtype())
        near(r.clu, cl:totable(), 1e-12, "directed clustering")
      end)
    else
      it("clustering and transitivity within 1e-12: " .. c.name, function()
        local r = oracle(c)
        if not r then return end
        local cl = graph.clustering(g)
        assert.equal("float64", cl:dtype())
        near(r.clu, cl:totable(), 1e-12, "clustering")
        local t = graph.transitivity(g)
        assert.equal("number", type(t))
        assert.is_true(math.abs(t - r.trans[1]) <= 1e-12, ("%.17g vs %.17g"):format(t, r.trans[1]))
      end)
    end

    it("Jaccard and overlap of pairs and of every arc within 1e-12: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      near(r.jac, graph.jaccard(g, c.us, c.vs):totable(), 1e-12, "jaccard")
      near(r.ovl, graph.overlap(g, c.us, c.vs):totable(), 1e-12, "overlap")
      -- views of either integer type
      local u32, v64 = speck.View("us", "int32", #c.us), speck.View("vs", "int64", #c.vs)
      for k = 1, #c.us do u32[k - 1], v64[k - 1] = c.us[k], c.vs[k] end
      near(r.jac, graph.jaccard(g, u32, v64):totable(), 1e-12, "jaccard (int32, int64 views)")
      local ja, oa = graph.jaccard(g), graph.overlap(g)
      assert.equal(g:num_arcs(), ja:extent(0))
      near(r.jacarcs, ja:totable(), 1e-12, "jaccard of every arc")
      near(r.ovlarcs, oa:totable(), 1e-12, "overlap of every arc")
    end)

    it("personalized PageRank within 1e-10: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local rank, iters = graph.pagerank(g, {personalization = c.pers, tol = 1e-14, maxiter = 10000})
      local t = rank:totable()
      assert.equal(n, #t)
      if n == 0 then return end
      near(r.ppr, t, 1e-10, "personalized PageRank")
      assert.is_true(math.abs(sum(t) - 1) < 1e-9)
      assert.is_true(iters >= 1 and iters < 10000)
      -- a view gives the same ranks; the scale of the weights does not matter
      local pv = speck.View("p", "float64", n)
      for v = 1, n do pv[v - 1] = c.pers[v] * 8 end
      near(t, graph.pagerank(g, {personalization = pv, tol = 1e-14, maxiter = 10000}):totable(),
           1e-13, "personalization as a view")
      -- float32 ranks: about 7 digits (150 iterations, no tolerance)
      local r32, it32 = graph.pagerank(g, {personalization = c.pers, dtype = "float32",
                                           tol = 1e-300, maxiter = 150})
      assert.equal("float32", r32:dtype())
      assert.equal(150, it32)
      near(r.ppr, r32:totable(), 1e-6, "personalized PageRank in float32")
      -- uniform personalization: PageRank itself
      local ones = {}
      for v = 1, n do ones[v] = 1 end
      near(graph.pagerank(g, {tol = 1e-14, maxiter = 10000}):totable(),
           graph.pagerank(g, {personalization = ones, tol = 1e-14, maxiter = 10000}):totable(),
           1e-10, "uniform personalization")
    end)

    it("HITS within 1e-10 of NetworkX's iteration: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local hubs, auth, iters = graph.hits(g, {tol = 1e-13, maxiter = 100000})
      local h, a = hubs:totable(), auth:totable()
      assert.equal(n, #h)
      assert.equal(n, #a)
      if n == 0 then assert.equal(0, iters) return end
      if not r.hubs then
        -- no arcs: 1/n each
        for v = 1, n do assert.equal(1 / n, h[v]) assert.equal(1 / n, a[v]) end
        return
      end
      near(r.hubs, h, 1e-10, "hubs")
      near(r.auth, a, 1e-10, "authorities")
      -- (where the largest singular value is simple: not a bipartite graph's)
      if r.hubsvd then
        near(r.hubsvd, h, 1e-7, "hubs against the SVD")
        near(r.authsvd, a, 1e-7, "authorities against the SVD")
      end
      assert.is_true(math.abs(sum(h) - 1) < 1e-12)
      assert.is_true(math.abs(sum(a) - 1) < 1e-12)
      local _, _, it1 = graph.hits(g, {maxiter = 1})
      assert.equal(1, it1)
    end)

    it("degree histogram and statistics, exact: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      local hist = graph.degree_histogram(g)
      assert.equal("int64", hist:dtype())
      local st = graph.degree_stats(g)
      if n == 0 then
        assert.equal(0, hist:extent(0))
        assert.same({n = 0}, st)
        return
      end
      local function check(h, s, want_h, want_s, what)
        assert.same(want_h, h:totable(), what)
        assert.equal(want_s[1], s.n)
        assert.equal(want_s[2], s.min)
        assert.equal(want_s[3], s.max)
        assert.equal(want_s[4], s.mean)
        assert.is_true(math.abs(s.stddev - want_s[5]) <= 1e-12 * math.max(1, want_s[5]),
                       ("%s stddev %.17g vs %.17g"):format(what, s.stddev, want_s[5]))
        assert.equal(want_s[6], s.median)
      end
      check(hist, st, r.hist, r.stats, "total")
      if g:is_directed() then
        for _, m in ipairs{"in", "out"} do
          check(graph.degree_histogram(g, {mode = m}), graph.degree_stats(g, {mode = m}),
                r["h" .. m], r["s" .. m], m)
        end
        check(graph.degree_histogram(g, {mode = "total"}), graph.degree_stats(g, {mode = "total"}),
              r.hist, r.stats, "total")
      else
        -- an undirected graph: every mode is the degree
        assert.same(r.hist, graph.degree_histogram(g, {mode = "in"}):totable())
      end
    end)

    it("multi-source BFS distances: " .. c.name, function()
      local r = oracle(c)
      if not r then return end
      if n == 0 then
        assert.equal("speck.graph.bfs: source 0 is not a vertex (the graph has 0: 0..-1)",
                     err_of(graph.bfs, g, {0}))
        return
      end
      local srcv = speck.View.from(c.src, "int64")
      for _, dopt in ipairs{true, false} do
        for _, s in ipairs{c.src, srcv} do
          local level, parent = graph.bfs(g, s, {direction_optimizing = dopt})
          local lt, pt = level:totable(), parent:totable()
          assert.same(r.bfs, lt)
          for v = 0, n - 1 do
            local p = pt[v + 1]
            if lt[v + 1] == 0 then assert.equal(v, p)
            elseif lt[v + 1] < 0 then assert.equal(-1, p)
            else assert.equal(lt[v + 1] - 1, lt[p + 1]) end
          end
        end
      end
    end)
  end
end)

-- -- small cases by hand ----------------------------------------------------------------
describe("speck.graph properties by hand on " .. SPACE, function()
  it("a triangle with a tail", function()
    -- 0-1-2 a triangle, 2-3, 3-4
    local g = graph.from_edges(5, {0, 0, 1, 2, 3}, {1, 2, 2, 3, 4})
    assert.same({1, 1, 1 / 3, 0, 0}, graph.clustering(g):totable())
    -- directed: the cycle 0 -> 1 -> 2 -> 0 and a mutual pair 2 <-> 3: vertex
    -- 0 has T = 2 (through j = 1 and j = 2: the triangle seen from each),
    -- dt = 2, db = 0: c = 2 / (2 * 2) = 0.5; vertex 2: dt = 4, db = 1,
    -- c = 2 / (2 * (12 - 2)) = 0.1; a self-loop and a repeated arc change
    -- nothing
    local d = graph.from_edges(4, {0, 1, 2, 2, 3, 1}, {1, 2, 0, 3, 2, 1},
                               {directed = true, self_loops = true})
    assert.same({0.5, 0.5, 0.1, 0}, graph.clustering(d):totable())
    assert.equal(0.5, graph.transitivity(g))   -- 3 * 1 triangle / 6 connected triples
    -- N(0) = {1, 2}, N(1) = {0, 2}, N(3) = {2, 4}, N(4) = {3}
    assert.same({1 / 3, 1 / 3, 0}, graph.jaccard(g, {0, 0, 0}, {1, 3, 4}):totable())
    assert.same({1 / 2, 1 / 2, 0}, graph.overlap(g, {0, 0, 0}, {1, 3, 4}):totable())
    assert.same({0, 1, 3, 1}, graph.degree_histogram(g):totable())
    assert.same({n = 5, min = 1, max = 3, mean = 2, stddev = math.sqrt(0.4), median = 2},
                graph.degree_stats(g))
  end)
  it("empty pairs give an empty view", function()
    local g = graph.grid2d(3, 3)
    assert.equal(0, graph.jaccard(g, {}, {}):extent(0))
    assert.equal(0, graph.overlap(g, speck.View("u", "int64", 0), speck.View("v", "int64", 0)):extent(0))
  end)
  it("a repeated arc counts once in a neighbourhood", function()
    local g = graph.from_edges(4, {0, 0, 0, 1, 1}, {2, 2, 3, 2, 3}, {dedupe = false, directed = true})
    assert.same({1, 1}, graph.jaccard(g, {0, 1}, {1, 0}):totable())
    -- undirected: every arc's score (the repeats too) as the pairs give it
    local u = graph.from_edges(6, {0, 0, 0, 1, 1, 2, 4, 4}, {2, 2, 3, 2, 3, 3, 5, 1},
                               {dedupe = false})
    local rp, ci = u.rowptr:totable(), u.colidx:totable()
    local us, vs = {}, {}
    for a = 0, 5 do
      for k = rp[a + 1], rp[a + 2] - 1 do us[#us + 1], vs[#vs + 1] = a, ci[k + 1] end
    end
    assert.is_true(#us > u:num_edges() * 2 - 1)
    for _, f in ipairs{graph.jaccard, graph.overlap} do
      assert.same(f(u, us, vs):totable(), f(u):totable())
    end
  end)
  it("HITS of a directed star: the centre is the only hub", function()
    local g = graph.from_edges(4, {0, 0, 0}, {1, 2, 3}, {directed = true})
    local h, a = graph.hits(g)
    assert.same({1, 0, 0, 0}, h:totable())
    assert.same({0, 1 / 3, 1 / 3, 1 / 3}, a:totable())
  end)
  it("personalized PageRank of one vertex without arcs keeps its rank there", function()
    local g = graph.from_edges(3, {}, {})
    local r = graph.pagerank(g, {personalization = {0, 2, 0}}):totable()
    assert.equal(0, r[1])
    assert.is_true(math.abs(r[2] - 1) < 1e-15)
    assert.equal(0, r[3])
  end)
end)

-- -- bad input ----------------------------------------------------------------------------
describe("speck.graph properties refuse bad input on " .. SPACE, function()
  local g = graph.grid2d(3, 3)
  it("by name", function()
    assert.equal("speck.graph.clustering: g must be a Graph, got table", err_of(graph.clustering, {}))
    assert.equal("speck.graph.transitivity: g must be a Graph, got nil", err_of(graph.transitivity))
    assert.equal("speck.graph.jaccard: us has 2 vertices and vs 1: the pairs need one of each",
                 err_of(graph.jaccard, g, {0, 1}, {1}))
    assert.equal("speck.graph.overlap: us has 0 vertices and vs 1: the pairs need one of each",
                 err_of(graph.overlap, g, {}, {1}))
    assert.equal("speck.graph.jaccard: pair 1 (from 0) is (1, 9): 9 is not a vertex (the graph has 9: 0..8)",
                 err_of(graph.jaccard, g, {0, 1}, {1, 9}))
    assert.equal("speck.graph.overlap: pair 2 (from 0) is (-1, 3): -1 is not a vertex (the graph has 9: 0..8)",
                 err_of(graph.overlap, g, {0, 1, -1}, {1, 2, 3}))
    assert.equal("speck.graph.jaccard: give both us and vs (the pairs), or neither (every arc)",
                 err_of(graph.jaccard, g, {0}))
    assert.equal("speck.graph.jaccard: us[2] must be an integer, got 1.5",
                 err_of(graph.jaccard, g, {0, 1.5}, {1, 2}))
    assert.equal("speck.graph.jaccard: vs must be a view or a Lua array of vertices, got string",
                 err_of(graph.jaccard, g, {0}, "1"))
    assert.equal("speck.graph.jaccard: vs must be an int64 or int32 view, got float64",
                 err_of(graph.jaccard, g, {0}, speck.View("v", "float64", 1)))
    assert.equal("speck.graph.pagerank: personalization has 4 entries, the graph has 9 vertices",
                 err_of(graph.pagerank, g, {personalization = {1, 1, 1, 1}}))
    assert.equal("speck.graph.pagerank: personalization is all zero: at least one vertex needs a positive weight",
                 err_of(graph.pagerank, g, {personalization = {0, 0, 0, 0, 0, 0, 0, 0, 0}}))
    assert.equal("speck.graph.pagerank: personalization of vertex 2 is -1: weights must be finite and non-negative",
                 err_of(graph.pagerank, g, {personalization = {1, 0, -1, 0, 0, 0, 0, 0, 0}}))
    assert.equal("speck.graph.pagerank: personalization of vertex 0 is nan: weights must be finite and non-negative",
                 err_of(graph.pagerank, g, {personalization = {0 / 0, 0, 1, 0, 0, 0, 0, 0, 0}}):gsub("%-nan", "nan"))
    assert.equal("speck.graph.pagerank: personalization of vertex 8 is inf: weights must be finite and non-negative",
                 err_of(graph.pagerank, g, {personalization = {0, 0, 1, 0, 0, 0, 0, 0, math.huge}}))
    assert.equal("speck.graph.pagerank: personalization sums to inf: the weights overflow",
                 err_of(graph.pagerank, g, {personalization = {1e308, 1e308, 1, 0, 0, 0, 0, 0, 0}}))
    assert.equal("speck.graph.pagerank: personalization[3] must be a number, got string",
                 err_of(graph.pagerank, g, {personalization = {1, 0, "x"}}))
    assert.equal("speck.graph.pagerank: option personalization must be a view or a Lua array of numbers, got number",
                 err_of(graph.pagerank, g, {personalization = 1}))
    assert.equal("speck.graph.pagerank: personalization must be a float64 view or a Lua array of numbers, got a int64 view",
                 err_of(graph.pagerank, g, {personalization = speck.View("p", "int64", 9)}))
    assert.equal("speck.graph.hits: unknown option 'damping' (valid: maxiter, tol)",
                 err_of(graph.hits, g, {damping = 0.8}))
    assert.equal("speck.graph.hits: tol is 0, must be positive", err_of(graph.hits, g, {tol = 0}))
    assert.equal("speck.graph.hits: maxiter is 0, must be at least 1", err_of(graph.hits, g, {maxiter = 0}))
    assert.equal("speck.graph.hits: option maxiter must be an integer, got 1.5",
                 err_of(graph.hits, g, {maxiter = 1.5}))
    assert.equal("speck.graph.degree_stats: mode must be \"in\", \"out\" or \"total\", got \"both\"",
                 err_of(graph.degree_stats, g, {mode = "both"}))
    assert.equal("speck.graph.degree_histogram: option mode must be a string, got number",
                 err_of(graph.degree_histogram, g, {mode = 1}))
    assert.equal("speck.graph.degree_histogram: unknown option 'directed' (valid: mode)",
                 err_of(graph.degree_histogram, g, {directed = true}))
    assert.equal("speck.graph.bfs: sources must not be empty", err_of(graph.bfs, g, {}))
    assert.equal("speck.graph.bfs: sources must not be empty",
                 err_of(graph.bfs, g, speck.View("s", "int64", 0)))
    assert.equal("speck.graph.bfs: source 9 is not a vertex (the graph has 9: 0..8)",
                 err_of(graph.bfs, g, {0, 9}))
    -- the VM stays usable
    assert.equal(9, graph.clustering(g):extent(0))
  end)
end)

-- -- the GPU target: every body compiles with NVRTC (compile only) --------------------------
describe("speck.graph properties' bodies for the GPU target", function()
  local info = speck.info()
  local nv = info.compilers.nvrtc
  it("compile with NVRTC", function()
    if not (nv and nv.available) then
      pending("NVRTC unavailable: " .. tostring(nv and nv.reason))
      return
    end
    local function bodies(path)
      local t, cur = {}, nil
      local fh = io.open(path)
      if not fh then return nil end
      fh:close()
      for line in io.lines(path) do
        local name = line:match("^//: (%S+)")
        if name then cur = name; t[cur] = {}
        elseif cur and not line:match("^//|") then table.insert(t[cur], line) end
      end
      for k, v in pairs(t) do t[k] = table.concat(v, "\n") end
      return t
    end
    local P = bodies(HERE .. "/../kernels/graph/props.sk")
    local R = bodies(HERE .. "/../kernels/graph/pagerank.sk")
    if not (P and R) then pending("kernels/graph/*.sk are not beside the tests") return end
    local V = function(dt, n) return speck.View("v", dt, n or 4) end
    local function with(t)
      local r = {rowptr = V("int64", 5), colidx = V("int32", 8)}
      for k, v in pairs(t) do r[k] = v end
      return r
    end
    local I64 = function(op) return {op = op, dtype = "int64"} end
    local function red(...) return {pattern = "reduce", reducer = {...}} end
    local F = V("float64")
    local jobs = {
      {"clustering", "range", with{tri = V("int64"), c = F}, red(I64"sum", I64"sum")},
      {"pairs_first_bad", "range", {us = V("int64"), vs = V("int64"), n = {"int64", 4}},
       red(I64"min")},
      {"distinct_degree", "range", with{dd = V("int64")}, red(I64"sum")},
      {"similarity", "range", with{dd = V("int64"), us = V("int32"), vs = V("int32"), s = F,
                                   overlap = {"int64", 0}}, {}},
      {"degrees", "range", with{deg = V("int64"), directed = {"int64", 1}, mode = {"int64", 2}},
       {}},
      {"degree_range", "range", {deg = V("int64")}, red(I64"min", I64"max", I64"sum")},
      {"degree_count", "range", {deg = V("int64"), hist = V("int64")}, {}},
      {"hits_pull", "range", with{x = F, y = V("float64")}, red("max")},
      {"hits_pull_w", "range", with{x = F, y = V("float64"), w = V("float64", 8)}, red("max")},
      {"hits_scale", "range", {hn = F, h = V("float64"), a = V("float64"), sh = 1.0, sa = 1.0},
       red("sum")},
      {"hits_norm", "range", {h = F, a = V("float64"), sh = 1.0, sa = 1.0}, {}},
      {"hits_sums", "range", {h = F, a = V("float64")}, red("sum", "sum")},
      {"ppr_check", "range", {p = F}, red(I64"min", "sum")},
      {"ppr_scale", "range", {p = F, q = V("float64"), sc = 1.0}, {}},
    }
    local function pr(t)
      local r = with{c = F, x = V("float64"), xn = V("float64"), outw = V("float64"),
                     cn = V("float64"), d = 0.85, base = 0.1, p = V("float64")}
      for k, v in pairs(t) do r[k] = v end
      return r
    end
    local rjobs = {
      {"ppr_pull", "range", pr{}, red("sum", "sum")},
      {"ppr_pull_w", "range", pr{w = V("float64", 8)}, red("sum", "sum")},
      {"ppr_pull_team", "team", pr{n = {"int64", 4}}, red("sum", "sum")},
      {"ppr_pull_w_team", "team", pr{n = {"int64", 4}, w = V("float64", 8)}, red("sum", "sum")},
    }
    jobs[#jobs + 1] = {"hits_pull_team", "team", with{x = F, y = V("float64"), n = {"int64", 4}},
                       red("max")}
    jobs[#jobs + 1] = {"hits_pull_w_team", "team", with{x = F, y = V("float64"),
                       n = {"int64", 4}, w = V("float64", 8)}, red("max")}
    -- each body with a closing comment, so the key is new: under the cuda
    -- space the same body and captures, compiled by a driver earlier in
    -- this process, would be one kernel with the driver's label (the
    -- in-memory cache's aliasing) and this check would not see it
    local n, want = 0, {}
    for _, list in ipairs{{P, jobs}, {R, rjobs}} do
      for _, j in ipairs(list[2]) do
        assert.is_string(list[1][j[1]], j[1])
        local o = j[4]
        o.target = "cuda"
        speck.kernel("gpu_" .. j[1], j[2], j[3], list[1][j[1]] .. "\n/* the NVRTC check */\n", o)
        want[#want + 1] = "gpu_" .. j[1]
        n = n + 1
      end
    end
    local seen = {}
    for _, k in ipairs(speck.jit.stats().per_kernel) do
      if k.label:match("^gpu_") then
        assert.equal("nvrtc", k.tier, k.label)
        seen[k.label] = true
      end
    end
    assert.equal(20, n)
    for _, l in ipairs(want) do assert.is_true(seen[l], l) end
  end)
end)

-- -- device launches ---------------------------------------------------------------------
describe("speck.graph properties run their kernels on " .. SPACE, function()
  it("each algorithm launched its kernels" .. (ON_HOST and "" or " on the device"), function()
    local g = graph.kronecker(8, 8, {seed = 4})
    local d = graph.from_edges(6, {0, 1, 2, 3, 4}, {1, 2, 0, 4, 5}, {directed = true})
    local function launches(label)
      local s = 0
      for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
        if k.label == label and (ON_HOST or k.tier ~= "precompiled") then s = s + k.launches end
      end
      return s
    end
    local calls = {
      {"graph.clustering", function() graph.clustering(g) end},
      {"graph.clustering_directed", function() graph.clustering(d) end},
      {"graph.triangles_" .. (ON_HOST and "bitmap" or "arcs") .. "_per_vertex",
       function() graph.transitivity(g) end},
      {ON_HOST and "graph.similarity_arcs_bitmap" or "graph.similarity",
       function() graph.jaccard(g) end},
      {"graph.similarity", function() graph.jaccard(g, {0, 1, 2}, {3, 4, 5}) end},
      {"graph.distinct_degree", function() graph.overlap(g) end},
      {"graph.pairs_first_bad", function() graph.overlap(g, {0, 1}, {2, 3}) end},
      {"graph.degrees", function() graph.degree_stats(d, {mode = "in"}) end},
      {"graph.degree_count", function() graph.degree_histogram(g) end},
      {ON_HOST and "graph.hits_pull" or "graph.hits_pull_team", function() graph.hits(d) end},
      {"graph.hits_scale", function() graph.hits(g) end},
      {"graph.ppr_check", function()
        local p = {}
        for v = 1, g:num_vertices() do p[v] = v % 2 end
        graph.pagerank(g, {personalization = p})
      end},
      {ON_HOST and "graph.ppr_pull" or "graph.ppr_pull_team",
       function() graph.pagerank(d, {personalization = {1, 0, 0, 0, 0, 1}}) end},
      {ON_HOST and "graph.bfs_seed" or "graph.bfs_device_seed",
       function() graph.bfs(g, {0, 5, 9}) end},
    }
    for _, c in ipairs(calls) do
      local before = launches(c[1])
      c[2]()
      assert.is_true(launches(c[1]) > before, c[1] .. " did not launch")
    end
  end)
end)
