local speck = require "speck"
local graph = require "speck.graph"
-- graph_gpr_spec.lua: the host's PageRank over the segmented copy
-- (kernels/graph/pagerank.c's prs_*: sources in segments of 65536, int16
-- ids, kept with the graph as a memo of its column indices' allocation)
-- and the host's Afforest with a first pass of plain stores
-- (kernels/graph/cc.c's k_cc_link_plain). PageRank: graphs of several
-- segments against the plain pulls over the graph as it is (a uniform
-- personalization takes them: the same ranks), the memo's calls bit for
-- bit against a graph whose arrays are exposed (no memo: the copy made
-- for the call), and a graph whose column indices are rewritten in place
-- (the memo stale: the new graph's ranks). Components: Afforest's labels
-- equal Shiloach-Vishkin's. tests/run.sh runs it once per back end; under
-- cuda the same calls run the device's pulls and links (checked through
-- speck.jit.stats()). The bodies compile for the GPU target (NVRTC,
-- compile only).

local SPACE = speck.info().default_space
local HOST = SPACE == "serial" or SPACE == "openmp" or SPACE == "host"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "tests"
local launches = dofile(HERE .. "/csr_fixtures.lua").launches

local function host(v) return speck.create_mirror_view_and_copy("host", v):totable() end

local function uniform(n)
  local p = speck.View("p", "float64", n)
  p:fill(1.0)
  return p
end

local function max_rel(a, b)
  assert.equal(#a, #b)
  local m = 0
  for i = 1, #a do
    local d = math.abs(a[i] - b[i]) / math.max(math.abs(b[i]), 1e-300)
    if d > m then m = d end
  end
  return m
end

local function same(a, b)
  assert.equal(#a, #b)
  for i = 1, #a do
    if a[i] ~= b[i] then
      error(("element %d: %.17g against %.17g"):format(i - 1, a[i], b[i]), 2)
    end
  end
end

-- a copy of g whose arrays are exposed (no memo is kept for them)
local function exposed(g)
  local n, rp, ci = g:num_vertices(), host(g.rowptr), host(g.colidx)
  local src, dst = speck.View("s", "int32", #ci), speck.View("d", "int32", #ci)
  for v = 0, n - 1 do
    for k = rp[v + 1], rp[v + 2] - 1 do
      src[k], dst[k] = v, ci[k + 1]
    end
  end
  local h = graph.from_edges(n, src, dst)
  h.rowptr:data()
  h.colidx:data()
  return h
end

describe("PageRank over the segmented copy", function()
  -- Kronecker scale 17 and 18: 2 and 4 segments of sources with arcs
  for _, sc in ipairs({17, 18}) do
    it("equals the plain pulls on a graph of several segments: scale " .. sc, function()
      local g = graph.kronecker(sc, 8, {seed = 3})
      local n = g:num_vertices()
      local before = launches("graph.pr_seg_last")
      local before_dev = launches("graph.pr_pull_undirected")
      local r, it = graph.pagerank(g, {tol = 1e-10, maxiter = 200})
      local q, iq = graph.pagerank(g, {tol = 1e-10, maxiter = 200, personalization = uniform(n)})
      assert.equal(iq, it)
      local a, b = host(r), host(q)
      assert.is_true(max_rel(a, b) < 1e-12)
      local s = 0
      for i = 1, #a do s = s + a[i] end
      assert.is_true(math.abs(s - 1) < 1e-9)
      -- float32 ranks: about 7 digits
      local r32 = graph.pagerank(g, {tol = 1e-10, maxiter = 200, dtype = "float32"})
      assert.is_true(max_rel(host(r32), b) < 1e-5)
      if HOST then
        assert.is_true(launches("graph.pr_seg_last") >= before + it)
      else
        assert.is_true(launches("graph.pr_pull_undirected") >= before_dev + it)
      end
    end)
  end

  -- the host's copy sums in a fixed order: the same bits whether kept or
  -- made for the call; a GPU's pulls (no copy) agree to rounding
  it("gives the same bits from the memo and from a copy made for the call", function()
    local g = graph.kronecker(17, 8, {seed = 5})
    local h = exposed(g)
    local a1 = host(graph.pagerank(g, {maxiter = 30, tol = 1e-300}))
    local a2 = host(graph.pagerank(g, {maxiter = 30, tol = 1e-300}))
    local b = host(graph.pagerank(h, {maxiter = 30, tol = 1e-300}))
    local f1 = host(graph.pagerank(g, {maxiter = 30, tol = 1e-300, dtype = "float32"}))
    local f2 = host(graph.pagerank(h, {maxiter = 30, tol = 1e-300, dtype = "float32"}))
    if HOST then
      same(a1, a2)
      same(a1, b)
      same(f1, f2)
    else
      assert.is_true(max_rel(a1, a2) < 1e-12)
      assert.is_true(max_rel(a1, b) < 1e-12)
      assert.is_true(max_rel(f1, f2) < 1e-5)
    end
  end)

  it("sees column indices rewritten in place (the memo made again)", function()
    -- the same degrees, other arcs: a path 2-0-1-3 and an arc 4-5,
    -- then two paths 2-0-3 and 4-1-5
    local function edges(t)
      local s, d = speck.View("s", "int32", #t), speck.View("d", "int32", #t)
      for k, e in ipairs(t) do s[k - 1], d[k - 1] = e[1], e[2] end
      return s, d
    end
    local ga = graph.from_edges(6, edges({{0, 2}, {0, 1}, {1, 3}, {4, 5}}))
    local gb = graph.from_edges(6, edges({{0, 2}, {0, 3}, {1, 4}, {1, 5}}))
    assert.are.same(host(ga.rowptr), host(gb.rowptr))
    local ra = host(graph.pagerank(ga, {tol = 1e-12, maxiter = 1000}))
    local rb = host(graph.pagerank(gb, {tol = 1e-12, maxiter = 1000}))
    assert.is_true(math.abs(ra[1] - rb[1]) > 1e-3)
    local cb = host(gb.colidx)
    for k = 1, #cb do ga.colidx[k - 1] = cb[k] end
    same(host(graph.pagerank(ga, {tol = 1e-12, maxiter = 1000})), rb)
  end)
end)

describe("Afforest's components", function()
  it("equal Shiloach-Vishkin's", function()
    local before = launches(HOST and "graph.cc_link_plain" or "graph.cc_link")
    local cases = {
      graph.kronecker(12, 16, {seed = 1}),
      graph.kronecker(16, 4, {seed = 2}),
      graph.erdos_renyi(5000, 3000, {seed = 4}),
      graph.erdos_renyi(3000, 30000, {seed = 6}),
    }
    for _, g in ipairs(cases) do
      local a, na = graph.connected_components(g)
      local b, nb = graph.connected_components(g, {algorithm = "sv"})
      assert.equal(nb, na)
      same(host(a), host(b))
    end
    assert.is_true(launches(HOST and "graph.cc_link_plain" or "graph.cc_link") >= before + #cases)
  end)
end)

describe("the segmented PageRank's and the plain link's bodies", function()
  it("compile with NVRTC (as the GPU back end compiles them)", function()
    local info = speck.info()
    if not HOST then
      pending("a GPU back end: the GPU's own paths ran above")
      return
    end
    local nv = info.compilers.nvrtc
    if not (nv and nv.available) then
      pending("NVRTC unavailable: " .. tostring(nv and nv.reason))
      return
    end
    local function V(dt, n) return speck.View("v", dt, n or 8) end
    local function I(x) return {"int64", x} end
    local sums = {pattern = "reduce", reducer = {{op = "sum", dtype = "float64"},
                                                 {op = "sum", dtype = "float64"}}}
    local jobs = {
      {"pr_seg_count", {rp2 = V("int64", 5), ci2 = V("int32"), acnt = V("int64"),
                        pcnt = V("int64"), last = V("int64"), nz = I(4), cs = I(4), nch = I(1)}, {}},
      {"pr_seg_place", {rp2 = V("int64", 5), ci2 = V("int32"), aoff = V("int64"),
                        poff = V("int64"), last = V("int64"), rows = V("int32"),
                        off = V("int64"), c16 = V("int16"), nz = I(4), cs = I(4), nch = I(1),
                        np = I(4), na = I(8)}, {}},
      {"pr_seg_bounds", {off = V("int64"), bnd = V("int64"), p0 = I(0), p1 = I(4),
                         nb = I(2), o = I(0), w = I(4)}, {}},
      {"pr_seg_pull", {bnd = V("int64"), off = V("int64"), rows = V("int32"),
                       c16 = V("int16"), c = V("float64"), ps = V("float64"), o = I(0),
                       cb = I(0), nz = I(4)}, {}},
      {"pr_seg_last", {bnd = V("int64"), off = V("int64"), c16 = V("int16"),
                       c = V("float64"), ps = V("float64"), x = V("float64"),
                       cn = V("float64"), rp2 = V("int64"), d = 0.85, base = 0.1}, sums},
      {"pr_seg_last", {bnd = V("int64"), off = V("int64"), c16 = V("int16"),
                       c = V("float32"), ps = V("float64"), x = V("float32"),
                       cn = V("float32"), rp2 = V("int64"), d = 0.85, base = 0.1}, sums},
      {"cc_link_plain", {rowptr = V("int64", 5), colidx = V("int32"), lab = V("int32"),
                         lo = I(0), hi = I(1), skip = I(-1)}, {}},
    }
    for q, j in ipairs(jobs) do
      local o = {target = "cuda"}
      for k, x in pairs(j[3]) do o[k] = x end
      speck.kernel("gpr_gpu" .. q .. "_" .. j[1], "range", j[2],
                   speck.kernel_text("graph_" .. j[1]), o)
    end
    local seen = 0
    for _, k in ipairs(speck.jit.stats().per_kernel) do
      if k.label:match("^gpr_gpu") then
        assert.equal("nvrtc", k.tier, k.label)
        seen = seen + 1
      end
    end
    assert.equal(#jobs, seen)
  end)
end)
