-- values.lua: graphs as values and real files, timed (speck's side only;
-- no peer is run here -- NetworkX's subgraph / read_edgelist are pure
-- Python and orders of magnitude slower, igraph's induced_subgraph is the
-- one to put beside it).
--
-- Usage: speck values.lua SCALE [DIR]
-- Builds graph.kronecker(SCALE, 16) (seed 1), writes it to DIR (default
-- a temporary folder) as a SNAP file and a gzipped copy (gzip -1 from the
-- PATH), and times, after one untimed warm-up each: graph.read of the
-- plain and the gzipped file, graph.read with names = true (the gzipped
-- file), graph.largest_component, g:subgraph of a mask of every other
-- vertex, g:filter_edges of about half the edges (a predicate on the
-- ends), and a directed copy's reverse and symmetrize. Records:
-- "R<TAB>op<TAB>speck<TAB>seconds<TAB>extra", as scripts/bench/graph/bench.lua.
local speck = require "speck"
local graph = require "speck.graph"

local SCALE = tonumber(arg[1]) or 18
local DIR = arg[2]
if not DIR then
  DIR = os.tmpname()
  os.remove(DIR)
  os.execute("mkdir -p '" .. DIR .. "'")
end
local timer = speck.Timer()

local function record(op, t, extra)
  print(("R\t%s\tspeck\t%.6e\t%s"):format(op, t, extra or ""))
  io.stdout:flush()
end

local function timed(f)
  f()
  collectgarbage()
  timer:reset()
  local a = f()
  speck.fence()
  return timer:seconds(), a
end

local g = graph.kronecker(SCALE, 16, {seed = 1})
local path = DIR .. "/kron" .. SCALE .. ".txt"
graph.write(path, g)
assert(os.execute(("gzip -1 -k -f '%s'"):format(path)), "gzip failed")

local t, h = timed(function() return graph.read(path) end)
record("read_snap", t, tostring(h))
t, h = timed(function() return graph.read(path .. ".gz") end)
record("read_snap_gz", t, tostring(h))
t, h = timed(function() return graph.read(path .. ".gz", {names = true}) end)
record("read_names_gz", t, tostring(h))

t, h = timed(function() return graph.largest_component(g) end)
record("largest_component", t, tostring(h))
local mask = speck.View("mask", "int32", g:num_vertices())
speck.parallel_for("mask", g:num_vertices(), {m = mask}, "m(i) = (int32_t)(i % 2);")
t, h = timed(function() return g:subgraph(mask) end)
record("subgraph_half", t, tostring(h))
t, h = timed(function() return g:filter_edges("(u ^ v) % 2 == 0") end)
record("filter_edges_half", t, tostring(h))

-- a directed graph without the arcs leaving every third vertex: asymmetric
local d = graph.from_matrix(g:matrix(), {directed = true}):filter_edges("u % 3 != 0")
t, h = timed(function() return d:reverse() end)
record("reverse", t, tostring(h))
t, h = timed(function() return d:symmetrize() end)
record("symmetrize", t, tostring(h))
if not arg[2] then os.execute("rm -rf '" .. DIR .. "'") end
