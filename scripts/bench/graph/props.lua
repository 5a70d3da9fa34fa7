-- props.lua: the speck side of scripts/bench/graph/props-run: graph
-- properties and similarity on a Graph500 Kronecker graph.
--
-- Usage: speck props.lua SCALE [EDGEFILE]
-- Builds graph.kronecker(SCALE, 16) (seed 1, as bench.lua) and times,
-- after one untimed warm-up call each: local clustering coefficients
-- (graph.clustering, triangles included), transitivity, Jaccard and
-- overlap of every arc (both directions of each edge: 2m pairs). With
-- EDGEFILE the graph is also written there (SNAP, with an empty sources
-- file beside it, as snap.h reads) for the igraph and NetworkX peers.
-- Records: "R<TAB>op<TAB>speck<TAB>seconds<TAB>extra".
local graph = require "speck.graph"

local SCALE = tonumber(arg[1]) or 20
local timer = speck.Timer()

local function record(op, t, extra)
  print(("R\t%s\tspeck\t%.6e\t%s"):format(op, t, extra or ""))
  io.stdout:flush()
end

timer:reset()
local g = graph.kronecker(SCALE, 16, {seed = 1})
record("generate", timer:seconds(), tostring(g))

local function timed(f)
  f()
  collectgarbage()
  timer:reset()
  local a, b = f()
  speck.fence()
  return timer:seconds(), a, b
end

local t, x
t = timed(function() return graph.clustering(g) end)
record("clustering", t)
t, x = timed(function() return graph.transitivity(g) end)
record("transitivity", t, ("%.6f"):format(x))
t = timed(function() return graph.jaccard(g) end)
record("jaccard_arcs", t, g:num_arcs() .. " pairs")
t = timed(function() return graph.overlap(g) end)
record("overlap_arcs", t, g:num_arcs() .. " pairs")

if arg[2] then
  graph.write(arg[2], g)
  local f = assert(io.open(arg[2] .. ".sources", "w"))
  f:close()
end
