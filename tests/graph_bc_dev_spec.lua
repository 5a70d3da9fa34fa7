local speck = require "speck"
local graph = require "speck.graph"
-- graph_bc_dev_spec.lua: graph.betweenness's device levels with heavy
-- vertices (kernels/graph/bc.c: a vertex of more than heavy_degree arcs,
-- 2048 by default, cut into pieces a team each, forward and backward)
-- give the host's values within 1e-12 relative: a skewed (Kronecker)
-- graph, thresholds that make few, most and all vertices heavy, normalized
-- or not, directed too. On the host the device's bodies run with
-- device_bodies; under cuda the same calls take them by themselves, and
-- the heavy kernels must have launched on the device.

local core = require "speck.core"
local SPACE = speck.info().default_space

local function host(v) return speck.create_mirror_view_and_copy("host", v):totable() end

local function call(g, extra)
  local args = {G_rowptr = g.rowptr, G_colidx = g.colidx, directed = g:is_directed() or nil,
                sources = speck.View.from({0, 3, 17, 100}, "int64"), by_source = 0}
  for k, x in pairs(extra or {}) do args[k] = x end
  local _, outs = core.call("graph.betweenness", args)
  return host(outs.bc)
end

local function close(want, got, what)
  assert.equal(#want, #got)
  for i = 1, #want do
    local e = math.abs(got[i] - want[i]) / math.max(1e-300, math.abs(want[i]))
    if want[i] == 0 then e = math.abs(got[i]) end
    if e > 1e-12 then
      error(("%s: bc(%d) = %.17g, the host's %.17g"):format(what, i - 1, got[i], want[i]))
    end
  end
end

describe("graph.betweenness: the device's heavy vertices", function()
  local k = graph.kronecker(10, 8, {seed = 5})
  local rows, cols = {}, {}
  do
    local rp, ci = host(k.rowptr), host(k.colidx)
    for u = 0, #rp - 2 do
      for e = rp[u + 1], rp[u + 2] - 1 do
        if (u + ci[e + 1]) % 3 ~= 0 then rows[#rows + 1], cols[#cols + 1] = u, ci[e + 1] end
      end
    end
  end
  local kd = graph.from_edges(k:num_vertices(), rows, cols, {directed = true})

  for _, c in ipairs{{"undirected", k}, {"directed", kd}} do
    it("gives the host's values, " .. c[1], function()
      for _, norm in ipairs{false, true} do
        local want = call(c[2], {normalized = norm})
        for _, hd in ipairs{2048, 16, 3, 1} do
          close(want, call(c[2], {normalized = norm, device_bodies = true, heavy_degree = hd}),
                c[1] .. " heavy_degree " .. hd)
        end
      end
    end)
  end

  it("launches the heavy kernels on a GPU space", function()
    if SPACE ~= "cuda" then
      pending("the device check runs under SPECK_SPACES=cuda")
      return
    end
    call(k, {heavy_degree = 4})
    local seen = {}
    for _, kk in ipairs(speck.jit.stats().per_kernel or {}) do
      if kk.tier == "nvrtc" and kk.launches > 0 then seen[kk.label] = true end
    end
    for _, l in ipairs{"graph.bc_forward_dev", "graph.bc_forward_heavy", "graph.bc_backward_dev",
                       "graph.bc_backward_heavy", "graph.bc_backward_heavy_end"} do
      assert.is_true(seen[l] == true, l .. " did not run as a device kernel")
    end
  end)
end)
