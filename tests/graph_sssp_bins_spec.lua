local speck = require "speck"
local graph = require "speck.graph"
-- graph_sssp_bins_spec.lua: graph.sssp's bucket lists (kernels/graph/
-- sssp.c's bins: the host's delta-stepping for integer weights and
-- unweighted graphs, a round a bucket, lanes with blocks of their own)
-- give Bellman-Ford's distances exactly and valid predecessors: int32
-- distances (every path fits) and int64 ones (weights up to 4e9), no
-- weights, given and automatic deltas, directed and undirected, and a
-- pool of blocks that runs out (pile_capacity: the lists made again from
-- the distances). tests/run.sh runs it once per back end (under cuda the
-- same calls run the device's piles: the distances must agree all the
-- same). The bodies compile for the GPU target (NVRTC, compile only).

local core = require "speck.core"
local SPACE = speck.info().default_space

-- arc u -> v of 'g' weighted by a hash of (min, max) mod 'm' (+ 1 when
-- 'one'), as 'dt' (int32 or int64); a directed graph keeps its arcs
local function hashed(g, m, one, dt, directed)
  local nv, narcs = g:num_vertices(), g:num_arcs()
  local rows = speck.View("rows", "int32", narcs)
  local w = speck.View("w", dt, narcs)
  speck.parallel_for("bins_spec.w", nv, {rowptr = g.rowptr, colidx = g.colidx, rows = rows,
                                         w = w, m = m, one = one and 1 or 0}, [[
    for (int64_t k = rowptr(i); k < rowptr(i + 1); k++) {
      const int64_t v = colidx(k), a = i < v ? i : v, b = i < v ? v : i;
      uint64_t z = (uint64_t)a * 0x9E3779B97F4A7C15ull + (uint64_t)b + 0x2545F4914F6CDD1Dull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      rows(k) = (int32_t)i;
      w(k) = z % (uint64_t)m + (uint64_t)one;
    }]])
  return graph.from_edges(nv, rows, g.colidx, {weights = w, directed = directed})
end

local function host(v) return speck.create_mirror_view_and_copy("host", v):totable() end

-- the call through the kernel's arguments (int weights kept as their dtype)
local function call(g, w, s, extra)
  local args = {G_rowptr = g.rowptr, G_colidx = g.colidx, G_weights = w, source = s,
                directed = g:is_directed() or nil}
  for k, x in pairs(extra or {}) do args[k] = x end
  local _, outs = core.call("graph.sssp", args)
  return outs
end

-- pred: -1 for the source and unreached, else an arc u -> v with
-- dist(u) + w(u, v) = dist(v)
local function check_pred(g, w, s, dist, pred)
  local rp, ci = host(g.rowptr), host(g.colidx)
  local wt = w and host(w)
  for v = 0, #dist - 1 do
    local p = pred[v + 1]
    if v == s or dist[v + 1] == math.maxinteger then
      assert.equal(-1, p)
    else
      local ok = false
      for k = rp[p + 1], rp[p + 2] - 1 do
        if ci[k + 1] == v and dist[p + 1] + (wt and wt[k + 1] or 1) == dist[v + 1] then
          ok = true
        end
      end
      assert.is_true(ok, ("pred(%d) = %d is no shortest-path arc"):format(v, p))
    end
  end
end

describe("graph.sssp's bucket lists on " .. SPACE, function()
  local u = graph.kronecker(10, 8, {seed = 5})
  local d = graph.from_edges(200, (function()
    local t = {}
    for i = 0, 799 do t[#t + 1] = (i * 37) % 200 end
    return t
  end)(), (function()
    local t = {}
    for i = 0, 799 do t[#t + 1] = (i * 91 + 13) % 200 end
    return t
  end)(), {directed = true})
  local cases = {
    {"Kronecker, weights 1..255 (int32 distances)", hashed(u, 255, true, "int32")},
    {"Kronecker, weights 0..4e9 (int64 distances)", hashed(u, 4000000000, false, "int64")},
    {"directed, weights 1..9", hashed(d, 9, true, "int32", true)},
    {"Kronecker, no weights", u},
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": Bellman-Ford's distances, valid predecessors", function()
      local g = c[2]
      local w = g:is_weighted() and (g._iweights or g.weights) or nil
      if w and w:dtype() == "float64" then
        -- (from_edges keeps integer weights as float64 and the int view aside)
        graph.sssp(g, 0)
        w = g._iweights
      end
      assert.is_truthy(not g:is_weighted() or w:dtype() ~= "float64")
      local big = w and w:dtype() == "int64"
      local n = 0
      for _, s in ipairs{0, 1, g:num_vertices() - 1} do
        local want = host(call(g, w, s, {algorithm = "bellman_ford"}).dist)
        for _, extra in ipairs{{}, {delta = 1}, {delta = 2}, {delta = 50},
                               {pile_capacity = 1}, {pile_capacity = 1, delta = 3}} do
          -- (weights to 4e9: deltas a million times wider, a ring of a
          -- few thousand buckets)
          local x = {predecessors = true, pile_capacity = extra.pile_capacity,
                     delta = extra.delta and (big and extra.delta * 1000000 or extra.delta)}
          local o = call(g, w, s, x)
          local dist = host(o.dist)
          assert.same(want, dist)
          check_pred(g, w, s, dist, host(o.pred))
          n = n + 1
        end
      end
      assert.equal(18, n)
    end)
  end

  it("reports the delta it used: a quarter of the piles' on the host", function()
    local g = cases[1][2]
    graph.sssp(g, 0)
    local o = call(g, g._iweights, 0)
    local deg = g:num_arcs() / g:num_vertices()
    if SPACE == "cuda" then
      assert.equal(math.ceil(255 / deg), o.delta)
    else
      assert.equal(math.max(1, math.floor(255 / (4 * deg) + 0.5)), o.delta)
    end
    assert.equal(7, call(g, g._iweights, 0, {delta = 7}).delta)
  end)
end)

describe("graph.sssp's bucket-list bodies for the GPU target", function()
  it("compile with NVRTC", function()
    local nv = speck.info().compilers.nvrtc
    if not (nv and nv.available) then
      pending("NVRTC unavailable: " .. tostring(nv and nv.reason))
      return
    end
    local V = function(dt, n) return speck.View("v", dt, n or 4) end
    local I = function(x) return {"int64", x} end
    local red = {pattern = "reduce", reducer = {{op = "min", dtype = "int64"},
                                                {op = "max", dtype = "int64"}}}
    local lists = {pool = V("int32"), bm = V("int32"), bnx = V("int32"), lo = V("int32"),
                   gs = V("int64"), delta = I(2), b = I(0), nr = I(4), ls = I(16), bs = I(256),
                   nb = I(4)}
    local function with(t)
      local r = {}
      for k, x in pairs(lists) do r[k] = x end
      for k, x in pairs(t) do r[k] = x end
      return r
    end
    local G = {rowptr = V("int64", 5), colidx = V("int32", 8)}
    local function g3(t)
      local r = with(t)
      for k, x in pairs(G) do r[k] = x end
      return r
    end
    local fill = {inf = I(1), nv = I(4), nl = I(1)}
    local function plus(a, b)
      local r = {}
      for k, x in pairs(a) do r[k] = x end
      for k, x in pairs(b) do r[k] = x end
      return r
    end
    local jobs = {
      {"sssp_bins_round_i", g3{w = V("int32", 8), dp = V("int64", 8)}, red},
      {"sssp_bins_round_j", g3{w = V("int32", 8), dq = V("int32", 8)}, red},
      {"sssp_bins_round_v", g3{dq = V("int32", 8)}, red},
      {"sssp_bins_fill_i", with(plus(fill, {dp = V("int64", 8)})), red},
      {"sssp_bins_fill_j", with(plus(fill, {dq = V("int32", 8)})), red},
      {"sssp_bins_reset", {lo = V("int32"), gs = V("int64"), nlo = I(4), ngs = I(4)}, {}},
      {"sssp_bins_init", {dp = V("int64", 8), inf = I(1)}, {}},
      {"sssp_bins_init_j", {dq = V("int32", 8), inf = I(1)}, {}},
      {"sssp_bins_seed", {dp = V("int64", 8), lo = V("int32"), pool = V("int32"),
                          bm = V("int32"), gs = V("int64"), s = I(0)}, {}},
      {"sssp_bins_seed_j", {dq = V("int32", 8), lo = V("int32"), pool = V("int32"),
                            bm = V("int32"), gs = V("int64"), s = I(0)}, {}},
      {"sssp_bins_dist_out_j", {dist = V("int64"), dq = V("int32", 8)}, {}},
    }
    for _, j in ipairs(jobs) do
      local text = speck.kernel_text("graph_" .. j[1])
      local o = {target = "cuda"}
      for k, x in pairs(j[3]) do o[k] = x end
      speck.kernel("gpu_" .. j[1], "range", j[2], text, o)
    end
    local seen = 0
    for _, k in ipairs(speck.jit.stats().per_kernel) do
      if k.label:match("^gpu_sssp_bins") then
        assert.equal("nvrtc", k.tier, k.label)
        seen = seen + 1
      end
    end
    assert.is_true(seen >= #jobs)
  end)
end)
