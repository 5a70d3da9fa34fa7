-- graph_analytics.lua: the script a graph user writes first. Reads a SNAP
-- edge list (written from a Kronecker generator on the first run, since no
-- data set can be downloaded here), takes the largest connected component,
-- ranks its vertices by PageRank, counts triangles per vertex, colors it,
-- and writes a CSV of the top vertices -- every step a library call over
-- the whole graph, no Lua loop over its vertices.
--
--   speck examples/graph_analytics.lua [edges.txt[.gz] [top.csv]]
local speck = require "speck"
local graph = require "speck.graph"

local path = arg[1] or "kron12.snap"
local out = arg[2] or "top_vertices.csv"
if not io.open(path, "r") then
  graph.write(path, graph.kronecker(12, 16, {seed = 1}))
  print("wrote " .. path .. " (Kronecker scale 12, edge factor 16)")
end

local g = graph.read(path)
print("read", g)
if g.note then print(g.note) end

-- the largest component, renumbered 0..n-1 (h:original_ids() the ids of the file)
local _, ncomp = graph.connected_components(g)
local h = graph.largest_component(g)
print(("%d components; the largest:"):format(ncomp), h)

local rank, iters = graph.pagerank(h)
local total, tri = graph.triangles(h)
local colors, ncolors = graph.color(h)
local degree = speck.View("degree", "int64", h:num_vertices())
graph.forall_vertices(h, {degree = degree}, "degree(v) = rowptr(v + 1) - rowptr(v);")
print(("pagerank: %d iterations; %d triangles; %d colors"):format(iters, total, ncolors))

-- the results as vertex properties: they follow the subgraph of the top 20
h:set_vertex_property("pagerank", rank)
h:set_vertex_property("triangles", tri)
h:set_vertex_property("color", colors)
h:set_vertex_property("degree", degree)
h:set_vertex_property("vertex", h:original_ids())

-- the 20 vertices of highest rank: sort (rank, vertex) pairs by rank, keep the first 20
local keys = speck.View("keys", "float64", h:num_vertices())
speck.deep_copy(keys, rank)
local ids = speck.View("ids", "int64", h:num_vertices())
speck.parallel_for("iota", h:num_vertices(), {ids = ids}, "ids(i) = i;")
speck.sort_by_key(keys, ids, {descending = true})
local top = h:subgraph(speck.subview(ids, {0, math.min(20, h:num_vertices())}))

local cols = {}
for _, k in ipairs(top:vertex_properties()) do cols[k] = top:vertex_property(k) end
graph.write_csv(out, cols, {order = {"vertex", "pagerank", "degree", "triangles", "color"}, id = false})
print("wrote " .. out .. " (the top 20 vertices by PageRank, by vertex id)")
