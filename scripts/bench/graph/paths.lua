-- paths.lua: the speck side of scripts/bench/graph's SSSP and betweenness
-- (run by ./run; on a GPU by ./gpu-run's caller the same way).
--
-- Usage: speck paths.lua SCALE [NSOURCES]
-- Builds graph.kronecker(SCALE, 16) (Graph500 parameters, seed 1) with
-- GAP's SSSP weights: uniform integers 1..255, one per edge (both arcs of
-- an undirected edge weigh the same, as GAP's builder symmetrises a
-- weighted edge list), int32, so distances are int64. Sources: NSOURCES
-- (default 8) vertices with arcs, by a fixed walk (GAP picks random
-- vertices with arcs). Times, after one untimed warm-up call each:
--   sssp      delta-stepping with the automatic delta (mean over the sources;
--             GTEPS = edges / time, GAP's count)
--   sssp_d2   delta = 2, what GAP's benchmark runs on Kronecker graphs
--   bc4       betweenness from 4 sources a trial, as GAP's benchmark runs
--             it (bc -i 4), not normalized; the mean over NSOURCES / 4 trials
-- Records: "R<TAB>op<TAB>speck<TAB>seconds<TAB>extra".
local graph = require "speck.graph"
local weighted = dofile((arg[0]:match("^(.*)/[^/]*$") or ".") .. "/gap_weights.lua")

local SCALE = tonumber(arg[1]) or 20
local NS = math.max(4, tonumber(arg[2]) or 8)
local timer = speck.Timer()

local function record(op, t, extra)
  print(("R\t%s\tspeck\t%.6e\t%s"):format(op, t, extra or ""))
  io.stdout:flush()
end

timer:reset()
local u = graph.kronecker(SCALE, 16, {seed = 1})
local nv = u:num_vertices()
-- the weights of gap_weights.lua
local g = weighted(u)
record("generate_weighted", timer:seconds(), tostring(g))
local edges = g:num_edges()

-- sources: vertices with arcs, by a fixed walk (host copy of rowptr)
local m = speck.create_mirror_view(g.rowptr)
speck.deep_copy(m, g.rowptr)
local rp = m:totable()
local sources, v = {}, 12345
while #sources < NS do
  v = (v * 1103515245 + 12345) % nv
  if rp[v + 2] > rp[v + 1] then sources[#sources + 1] = v end
end

local function mean_over_sources(f)
  f(sources[1])
  local t = 0
  for _, s in ipairs(sources) do
    collectgarbage()
    timer:reset()
    f(s)
    speck.fence()
    t = t + timer:seconds()
  end
  return t / #sources
end

local t = mean_over_sources(function(s) return graph.sssp(g, s) end)
record("sssp", t, ("%.3f GTEPS"):format(edges / t / 1e9))
t = mean_over_sources(function(s) return graph.sssp(g, s, {delta = 2}) end)
record("sssp_d2", t, ("%.3f GTEPS"):format(edges / t / 1e9))

-- betweenness: trials of 4 sources each
local trials = {}
for k = 1, #sources - 3, 4 do trials[#trials + 1] = {table.unpack(sources, k, k + 3)} end
graph.betweenness(u, {sources = trials[1], normalized = false})
t = 0
for _, srcs in ipairs(trials) do
  collectgarbage()
  timer:reset()
  graph.betweenness(u, {sources = srcs, normalized = false})
  speck.fence()
  t = t + timer:seconds()
end
t = t / #trials
record("bc4", t, ("%.3f GTEPS"):format(4 * edges / t / 1e9))
