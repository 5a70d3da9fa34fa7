local speck = require "speck"
local graph = require "speck.graph"
-- graph_sssp_dev_spec.lua: graph.sssp's device loop (kernels/graph/
-- sssp.c's dev_loop: the bucket and round control kept on the device in
-- a control view, steps queued in batches and read back once a batch;
-- vertices of many arcs relaxed by every work item) gives the host's
-- distances exactly: integer (int32, int64) and float weights, none,
-- Bellman-Ford, piles that overflow (made again from the distances), a
-- heavy-vertex threshold so low that most vertices are heavy, and a
-- skewed (Kronecker) graph whose hubs pass any threshold. On the host
-- the device's bodies run with device_bodies; under cuda the same calls
-- take the device loop by themselves, and its kernels must have launched
-- on the device.

local core = require "speck.core"
local SPACE = speck.info().default_space

local function host(v) return speck.create_mirror_view_and_copy("host", v):totable() end

-- GAP's weights (1..255 from a hash of the edge, the same both ways) on
-- g's own arcs, as dtype 'dt' (a weight view of g's arcs, g unchanged:
-- graph.from_edges would keep float64 weights)
local function gap(g, dt)
  local w = speck.View("w", dt, g:num_arcs())
  speck.parallel_for("sssp_dev_spec.w", g:num_vertices(), {rowptr = g.rowptr,
                                                          colidx = g.colidx, w = w}, [[
    for (int64_t k = rowptr(i); k < rowptr(i + 1); k++) {
      const int64_t v = colidx(k), a = i < v ? i : v, b = i < v ? v : i;
      uint64_t z = (uint64_t)a * 0x9E3779B97F4A7C15ull + (uint64_t)b + 0x2545F4914F6CDD1Dull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      w(k) = z % 255 + 1;
    }]])
  return w
end

local function call(g, w, s, extra)
  local args = {G_rowptr = g.rowptr, G_colidx = g.colidx, G_weights = w, source = s}
  for k, x in pairs(extra or {}) do args[k] = x end
  local _, outs = core.call("graph.sssp", args)
  return host(outs.dist)
end

describe("graph.sssp: the device loop", function()
  local k = graph.kronecker(10, 8, {seed = 7})
  local wi, wl, wf = gap(k, "int32"), gap(k, "int64"), gap(k, "float64")
  local cases = {{"int32", k, wi}, {"int64", k, wl}, {"float64", k, wf}, {"none", k, nil}}
  local extras = {{}, {heavy_degree = 4}, {heavy_degree = 0}, {pile_capacity = 3},
                  {heavy_degree = 2, pile_capacity = 5, delta = 2},
                  {algorithm = "bellman_ford"}, {algorithm = "bellman_ford", heavy_degree = 3}}

  for _, c in ipairs(cases) do
    it("gives the host's distances, " .. c[1] .. " weights", function()
      local g, w = c[2], c[3]
      for _, s in ipairs{0, 5, 77} do
        local want = call(g, w, s, {algorithm = "bellman_ford"})
        for _, ex in ipairs(extras) do
          local e = {device_bodies = true}
          for kk, x in pairs(ex) do e[kk] = x end
          assert.same(want, call(g, w, s, e), c[1] .. " source " .. s)
        end
      end
    end)
  end

  it("refuses a negative cycle the same way", function()
    local g = graph.from_edges(4, {0, 1, 2}, {1, 2, 3}, {weights = {1, -2.5, 3}})
    local ok, e = pcall(call, g, g.weights, 0, {algorithm = "bellman_ford", device_bodies = true})
    assert.is_false(ok)
    assert.matches("a negative cycle is reachable from source 0", e, 1, true)
  end)

  it("launches the device loop's kernels on a GPU space", function()
    if SPACE ~= "cuda" then
      pending("the device check runs under SPECK_SPACES=cuda")
      return
    end
    call(k, wi, 0, {heavy_degree = 4})
    call(k, wf, 0, {heavy_degree = 4})
    local seen = {}
    for _, kk in ipairs(speck.jit.stats().per_kernel or {}) do
      if kk.tier == "nvrtc" and kk.launches > 0 then seen[kk.label] = true end
    end
    for _, l in ipairs{"graph.sssp_dl_relax_i", "graph.sssp_dl_heavy_i", "graph.sssp_dl_split_i",
                       "graph.sssp_dl_round_end", "graph.sssp_dl_relax_f",
                       "graph.sssp_dl_heavy_f", "graph.sssp_dl_split_f"} do
      assert.is_true(seen[l] == true, l .. " did not run as a device kernel")
    end
  end)
end)
