-- graph_analytics.lua: the script a graph user writes first. Reads a SNAP
-- edge list (written from a Kronecker generator on the first run, since no
-- data set can be downloaded here), takes the largest connected component,
-- ranks its vertices by PageRank, counts triangles per vertex, colors it,
-- and writes a CSV of the top vertices.
--
--   speck examples/graph_analytics.lua [edges.txt [top.csv]]
local graph = require "speck.graph"

local path = arg[1] or "kron12.snap"
local out = arg[2] or "top_vertices.csv"
if not io.open(path, "r") then
  graph.write(path, graph.kronecker(12, 16, {seed = 1}))
  print("wrote " .. path .. " (Kronecker scale 12, edge factor 16)")
end

local g = graph.read(path)
print("read", g)

-- the largest component, renumbered 0..n-1
local labels, ncomp = graph.connected_components(g)
local lab = labels:totable()
local size, giant = {}, nil
for _, l in ipairs(lab) do
  size[l] = (size[l] or 0) + 1
  if not giant or size[l] > size[giant] then giant = l end
end
local new, old = {}, {}
for v, l in ipairs(lab) do
  if l == giant then old[#old + 1] = v - 1; new[v - 1] = #old - 1 end
end
local rp, ci = g.rowptr:totable(), g.colidx:totable()
local src, dst = {}, {}
for _, u in ipairs(old) do
  for k = rp[u + 1], rp[u + 2] - 1 do
    local v = ci[k + 1]
    if u < v then src[#src + 1], dst[#dst + 1] = new[u], new[v] end
  end
end
local h = graph.from_edges(#old, src, dst)
print(("%d components; the largest:"):format(ncomp), h)

local rank, iters = graph.pagerank(h)
local total, tri = graph.triangles(h)
local colors, ncolors = graph.color(h)
print(("pagerank: %d iterations; %d triangles; %d colors"):format(iters, total, ncolors))

local order = {}
for v = 0, h:num_vertices() - 1 do order[#order + 1] = v end
table.sort(order, function(a, b) return rank(a) > rank(b) end)
local f = assert(io.open(out, "w"))
f:write("vertex,pagerank,degree,triangles,color\n")
for i = 1, math.min(20, #order) do
  local v = order[i]
  f:write(("%d,%.9g,%d,%d,%d\n"):format(old[v + 1], rank(v), h:degree(v), tri(v), colors(v)))
end
f:close()
print("wrote " .. out .. " (the top 20 vertices by PageRank)")
