-- graph_workflow.lua: a graph workflow on a real-looking file -- a
-- gzipped CSV edge list whose vertices are names and whose edges carry
-- weights (examples/data/stations.csv.gz: stations of four lines, trips
-- between them), read directly; weak edges filtered out by a predicate
-- compiled into the kernel; the largest component taken; communities
-- (Louvain) and central vertices (betweenness, PageRank) found; and one
-- CSV written with a line per station. No Lua loop over the vertices.
--
--   speck examples/graph_workflow.lua [edges.csv.gz [stations.csv]]
local speck = require "speck"
local graph = require "speck.graph"

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local path = arg[1] or (here .. "/data/stations.csv.gz")
local out = arg[2] or "stations.csv"

-- names = true: the stations' names become vertices 0..n-1 (in order of
-- first appearance); the columns are chosen by the header
local g = graph.read(path, {names = true, source = "from", target = "to", weight = "trips"})
print("read", g, "e.g. vertex 0 is " .. g:name(0))

-- keep the edges of at least 3 trips (u, v, w and e are the arc's ends,
-- weight and index), then the largest connected component
local busy = g:filter_edges("w >= 3.0")
local h = graph.largest_component(busy)
print(("kept %d of %d edges; the largest component:"):format(busy:num_edges(), g:num_edges()), h)

-- communities and centrality (weights count in Louvain and PageRank)
local community, q = graph.louvain(h, {seed = 1})
local between = graph.betweenness(h)
local rank = graph.pagerank(h)
local _, hub = speck.parallel_reduce("most_central", h:num_vertices(), {bc = between},
  "if (bc(i) > acc.val) { acc.val = bc(i); acc.loc = i; }", "maxloc")
print(("Louvain: modularity %.4f; the most central station: %s"):format(q, h:name(hub)))

graph.write_csv(out, {community = community, betweenness = between, pagerank = rank},
                {graph = h, order = {"community", "betweenness", "pagerank"}})
print(("wrote %s (%d stations: id, name, community, betweenness, pagerank)"):format(
  out, h:num_vertices()))
