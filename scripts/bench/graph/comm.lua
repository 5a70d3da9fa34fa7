-- comm.lua: the speck side of scripts/bench/graph/run-comm: k-core, SCC
-- and Louvain (and WCC, label propagation) on a Graph500 Kronecker graph.
--
-- Usage: speck comm.lua SCALE [PREFIX]
-- Builds graph.kronecker(SCALE, 16) (seed 1) and a directed graph from it
-- (each edge {u, v} one arc, its direction drawn by a hash of the pair,
-- one edge in 8 both ways: SCCs from a few vertices to a giant one); times,
-- after one untimed warm-up call each: kcore (undirected), scc and wcc
-- (directed), louvain and label_propagation (undirected). With PREFIX the
-- graphs are written to PREFIX.snap and PREFIX.dir.snap (SNAP) for the
-- peers (comm_peer.py). Records: "R<TAB>op<TAB>speck<TAB>seconds<TAB>extra",
-- as bench.lua's.
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

-- the directed graph: arc k of row i keeps its edge's arc from the pair's
-- hash, else becomes the self-loop i -> i (dropped by from_edges)
timer:reset()
local nv = g:num_vertices()
local src = speck.View("src", "int64", g:num_arcs())
local dst = speck.View("dst", "int64", g:num_arcs())
speck.parallel_for("bench.orient", nv, {rowptr = g.rowptr, colidx = g.colidx, s = src, d = dst}, [[
  for (int64_t k = rowptr(i); k < rowptr(i + 1); k++) {
    const int64_t v = colidx(k), lo = i < v ? i : v, hi = i < v ? v : i;
    const uint64_t h = ((uint64_t)lo * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)hi * 0xD1B54A32D192ED03ull);
    const int keep = (h >> 40) % 8 == 0 ? 1 : ((i < v) == (int)((h >> 20) & 1));
    s(k) = i;
    d(k) = keep ? v : i;
  }
]])
local dg = graph.from_edges(nv, src, dst, {directed = true})
src, dst = nil, nil
collectgarbage()
record("generate_directed", timer:seconds(), tostring(dg))

local function timed(f)
  f()
  collectgarbage()
  timer:reset()
  local a, b = f()
  speck.fence()
  return timer:seconds(), a, b
end

local function kmax(core)
  local m = speck.create_mirror_view(core)
  speck.deep_copy(m, core)
  local k = 0
  for i = 0, m:extent(0) - 1 do if m(i) > k then k = m(i) end end
  return k
end

local t, a, b = timed(function() return graph.kcore(g) end)
record("kcore", t, ("max core %d"):format(kmax(a)))
t, a, b = timed(function() return graph.scc(dg) end)
record("scc", t, ("%d components"):format(b))
t, a, b = timed(function() return graph.wcc(dg) end)
record("wcc", t, ("%d components"):format(b))
t, a, b = timed(function() return graph.louvain(g) end)
record("louvain", t, ("modularity %.6f"):format(b))
t, a, b = timed(function() return graph.label_propagation(g) end)
record("label_propagation", t, ("%d communities"):format(b))

if arg[2] then
  graph.write(arg[2] .. ".snap", g)
  graph.write(arg[2] .. ".dir.snap", dg)
end
