-- bfs_scale.lua: graph.bfs against the scale of Kronecker graphs (edge
-- factor 16, seed 1), with its fixed cost on its own (issue 31: a search's
-- time is a fixed cost plus a part per edge).
--
-- Usage: speck bfs_scale.lua [SCALE ...]   (default 20 22 24), on
-- SPECK_SPACE (a GPU: SPECK_SPACE=cuda). For each scale, after a warm-up
-- search: the median of 3 rounds over 8 sources of the largest component
-- (the walk of scripts/bench/graph/bench.lua; each search timed to a
-- fence, the last search's views collected first) and a search from a vertex
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

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- the graph's facts by reductions where it lives (no host copies of its
-- arrays: at scale 25 they took longer than the searches)
local I64 = {op = "sum", dtype = "int64"}
local function at(v, k)
  return speck.parallel_reduce("at", 1, {v = v, at = k}, "acc += v(at);", I64)
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
  local labels = graph.connected_components(g)
  local rp = g.rowptr
  -- the largest component: the one of the vertex of most arcs
  local _, hub = speck.parallel_reduce("hub", nv, {rp = rp},
    "if (rp(i + 1) - rp(i) > acc.val) { acc.val = rp(i + 1) - rp(i); acc.loc = i; }", "maxloc")
  local giant = at(labels, hub)
  local sources, v = {}, 12345
  while #sources < 8 do
    v = (v * 1103515245 + 12345) % nv
    if at(labels, v) == giant and at(rp, v + 1) > at(rp, v) then sources[#sources + 1] = v end
  end
  local lonely = speck.parallel_reduce("lonely", nv, {rp = rp},
    "if (rp(i + 1) == rp(i) && i < acc) acc = i;", {op = "min", dtype = "int64"})
  if lonely >= nv then lonely = nil end
  local carcs = speck.parallel_reduce("carcs", nv, {rp = rp, l = labels, c = giant},
    "if (l(i) == c) acc += rp(i + 1) - rp(i);", I64)
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
  g, labels = nil, nil
  collectgarbage()
end
