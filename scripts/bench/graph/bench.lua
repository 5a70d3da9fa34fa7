-- bench.lua: the speck side of scripts/bench/graph (run by ./run).
--
-- Usage: speck bench.lua SCALE [EDGEFILE | --traversal]
-- Builds graph.kronecker(SCALE, 16) (Graph500 parameters, seed 1) and
-- times, after one untimed warm-up call each: BFS (mean over 16 sources of
-- the largest component, GTEPS = edges of the reached component / time),
-- connected components (Afforest), PageRank (20 iterations), triangle
-- counting (the total) and distance-1 coloring (VB largest first, VB in id
-- order: record color_natural, then EB). With EDGEFILE the
-- graph is also written there (SNAP) for the NetworkX peer, with the
-- sources. Records: "R<TAB>op<TAB>speck<TAB>seconds<TAB>extra".
-- On a GPU the same BFS and components also run out of core (seed 003
-- 4.7) on a copy whose edges are in cuda_pinned host memory
-- (g:to(space, {edges = "cuda_pinned"})): records bfs_ooc (direction-
-- optimising), bfs_ooc_td (top-down only), cc_ooc. --traversal: BFS and
-- components only, on the graph as built (under SPECK_CUDA_MEMORY_MAX
-- below the edge array the builder puts the edges in cuda_pinned; the
-- generate record says where), records with the suffix _built.
local graph = require "speck.graph"

local SCALE = tonumber(arg[1]) or 20
local TRAVERSAL = arg[2] == "--traversal"
local timer = speck.Timer()

local function record(op, t, extra)
  print(("R\t%s\tspeck\t%.6e\t%s"):format(op, t, extra or ""))
  io.stdout:flush()
end

timer:reset()
local g = graph.kronecker(SCALE, 16, {seed = 1})
record("generate", timer:seconds(), tostring(g))   -- says where the edges are when not in g:space()

local function timed(f)
  f()
  collectgarbage()
  timer:reset()
  local a, b = f()
  speck.fence()
  return timer:seconds(), a, b
end

-- 16 sources: vertices of the largest component with edges, by a fixed walk
-- (host copies: on the GPU the views live in device memory)
local function host_table(v)
  local m = speck.create_mirror_view(v)
  speck.deep_copy(m, v)
  return m:totable()
end
local labels = host_table(graph.connected_components(g))
local size = {}
for _, l in ipairs(labels) do size[l] = (size[l] or 0) + 1 end
local giant, best = 0, 0
for l, s in pairs(size) do if s > best then giant, best = l, s end end
local sources, v = {}, 12345
local rp = host_table(g.rowptr)
while #sources < 16 do
  v = (v * 1103515245 + 12345) % g:num_vertices()
  if labels[v + 1] == giant and rp[v + 2] > rp[v + 1] then sources[#sources + 1] = v end
end
local arcs = 0
for u = 0, g:num_vertices() - 1 do
  if labels[u + 1] == giant then arcs = arcs + rp[u + 2] - rp[u + 1] end
end
local edges = arcs // 2

-- BFS (mean over the sources) and components of graph 'h', as 'op'..suffix
local function traverse(h, suffix, opts)
  local tb = 0
  graph.bfs(h, sources[1], opts)
  for _, s in ipairs(sources) do
    -- the last call's level and parent views go back first (a view's
    -- memory is freed when Lua collects it; device memory then returns to
    -- speck's pool and the next call's views come from there)
    collectgarbage()
    timer:reset()
    graph.bfs(h, s, opts)
    speck.fence()
    tb = tb + timer:seconds()
  end
  tb = tb / #sources
  record("bfs" .. suffix, tb, ("%.3f GTEPS"):format(edges / tb / 1e9))
  if opts then return end
  local t, _, nc = timed(function() return graph.connected_components(h) end)
  record("cc" .. suffix, t, nc .. " components")
end

if TRAVERSAL then
  traverse(g, "_built")
  return
end
traverse(g, "")
if g:space() ~= "host" then
  -- out of core: the same graph with its edges in pinned host memory
  timer:reset()
  local p = g:to(g:space(), {edges = "cuda_pinned"})
  record("to_pinned", timer:seconds(), tostring(p))
  traverse(p, "_ooc")
  traverse(p, "_ooc_td", {direction_optimizing = false})
end
collectgarbage()
local t, _
t = timed(function() return graph.pagerank(g, {maxiter = 20, tol = 1e-300}) end)
record("pagerank20", t)
local ntri
t, ntri = timed(function() return graph.triangles(g, {per_vertex = false}) end)
record("triangles", t, ntri .. " triangles")
local ncol
t, _, ncol = timed(function() return graph.color(g) end)
record("color", t, ncol .. " colors")
t, _, ncol = timed(function() return graph.color(g, {order = "natural"}) end)
record("color_natural", t, ncol .. " colors")
t, _, ncol = timed(function() return graph.color(g, {algorithm = "eb"}) end)
record("color_eb", t, ncol .. " colors")

if arg[2] then
  graph.write(arg[2], g)
  local f = assert(io.open(arg[2] .. ".sources", "w"))
  f:write(table.concat(sources, " "), "\n")
  f:close()
end
