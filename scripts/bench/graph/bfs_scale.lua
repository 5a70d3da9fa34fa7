-- bfs_scale.lua: graph.bfs against the scale of Kronecker graphs (edge
-- factor 16, seed 1), with its fixed cost on its own (issue 31: a search's
-- time is a fixed cost plus a part per edge).
--
-- Usage: speck bfs_scale.lua [SCALE ...]   (default 20 22 24), on
-- SPECK_SPACE (a GPU: SPECK_SPACE=cuda). For each scale, after a warm-up
-- search: the median of 3 rounds over 8 sources of the largest component
-- (each search timed to a fence, the last search's views collected first,
-- as scripts/bench/graph/bench.lua does) and a search from a vertex
-- without arcs (one level: what a search costs whatever its size -- the
-- allocations, the initialisation, the launches of the first round and
-- its wait). Records "R<TAB>op<TAB>scale<TAB>seconds<TAB>extra": bfs (with
-- GTEPS as Graph500 and GAP count them, the reached component's edges,
-- and the arcs a second of all the graph's arcs, as scripts/bench/scaling
-- counts them) and bfs_fixed.
local graph = require "speck.graph"

local scales = {}
for k = 1, #arg do scales[#scales + 1] = tonumber(arg[k]) end
if #scales == 0 then scales = {20, 22, 24} end
local timer = speck.Timer()

local function host_table(v)
  local m = speck.create_mirror_view(v)
  speck.deep_copy(m, v)
  return m:totable()
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function search(g, s)
  collectgarbage()
  speck.fence()
  timer:reset()
  local _, _, nl = graph.bfs(g, s)
  speck.fence()
  return timer:seconds(), nl
end

for _, sc in ipairs(scales) do
  local g = graph.kronecker(sc, 16, {seed = 1})
  local nv, arcs = g:num_vertices(), g.colidx:extent(0)
  local labels = host_table(graph.connected_components(g))
  local rp = host_table(g.rowptr)
  local size = {}
  for _, l in ipairs(labels) do size[l] = (size[l] or 0) + 1 end
  local giant, best = 0, 0
  for l, s in pairs(size) do if s > best then giant, best = l, s end end
  local sources, lonely, v = {}, nil, 12345
  while #sources < 8 do
    v = (v * 1103515245 + 12345) % nv
    if labels[v + 1] == giant and rp[v + 2] > rp[v + 1] then sources[#sources + 1] = v end
  end
  for u = 0, nv - 1 do
    if rp[u + 2] == rp[u + 1] then lonely = u break end
  end
  local carcs = 0
  for u = 0, nv - 1 do
    if labels[u + 1] == giant then carcs = carcs + rp[u + 2] - rp[u + 1] end
  end
  search(g, sources[1])
  local rounds, nls = {}, {}
  for _ = 1, 3 do
    local t = 0
    for _, s in ipairs(sources) do
      local dt, nl = search(g, s)
      t = t + dt
      nls[nl] = (nls[nl] or 0) + 1
    end
    rounds[#rounds + 1] = t / #sources
  end
  local tb = median(rounds)
  local levels = {}
  for nl, c in pairs(nls) do levels[#levels + 1] = ("%d levels x%d"):format(nl, c // 3) end
  table.sort(levels)
  print(("R\tbfs\t%d\t%.6e\t%.1f GTEPS, %.1f Garcs/s, %s"):format(sc, tb,
    carcs / 2 / tb / 1e9, arcs / tb / 1e9, table.concat(levels, ", ")))
  if lonely then
    search(g, lonely)
    local fx = {}
    for r = 1, 9 do fx[r] = search(g, lonely) end
    print(("R\tbfs_fixed\t%d\t%.6e\ta search from vertex %d (no arcs)"):format(sc,
      median(fx), lonely))
  end
  io.stdout:flush()
  g = nil
  collectgarbage()
end
