-- gunrock-bench.lua: the speck side of gunrock-run (speck's GPU graph
-- kernels beside Gunrock's on the same Kronecker graph).
--
-- Usage: speck gunrock-bench.lua SCALE DIR [--write]
-- Builds graph.kronecker(SCALE, 16) (Graph500 parameters, seed 1) and its
-- copy with GAP's SSSP weights (gap_weights.lua: integers 1..255, the same
-- both ways of an edge; the same arcs), and picks 16 sources: vertices of
-- the largest component with arcs, by bench.lua's fixed walk.
-- --write: saves the weighted graph for the peer -- DIR/rowptr.npy (int64),
-- DIR/colidx.npy (int32), DIR/weights.npy (int32) -- and DIR/sources.txt
-- (the 16 sources, one line), then stops.
-- Otherwise times, after one untimed warm-up call each (the peer's driver
-- does the same):
--   bfs         graph.bfs from each of the 16 sources (mean)
--   sssp        graph.sssp with the automatic delta from the first 8 (mean)
--   bc4         graph.betweenness, 4 trials of 4 sources (GAP's bc -i 4),
--               not normalized (mean per trial)
--   pagerank20  20 iterations (tol = 1e-300), float64 and float32
--   triangles   the total
-- Records: "R<TAB>op<TAB>speck<TAB>seconds<TAB>check", where check is a
-- figure the peer prints too (vertices reached by the last BFS, largest
-- distance of the last SSSP, the triangle count); and "E<TAB>edges<TAB>n"
-- (undirected edges, for GTEPS).
local graph = require "speck.graph"
local dir = (arg[0]:match("^(.*)/[^/]*$") or ".")
local weighted = dofile(dir .. "/gap_weights.lua")

local SCALE = tonumber(arg[1]) or 22
local OUT = arg[2] or "."
local WRITE = arg[3] == "--write"
local timer = speck.Timer()

local function record(op, t, check)
  print(("R\t%s\tspeck\t%.6e\t%s"):format(op, t, check or ""))
  io.stdout:flush()
end

local u = graph.kronecker(SCALE, 16, {seed = 1})
local g = weighted(u)
local nv = u:num_vertices()
print(("E\tedges\t%d"):format(u:num_edges()))

-- sources: bench.lua's walk over the vertices of the largest component
-- with arcs (host mirrors read element by element, no Lua tables of n)
local function host(v)
  local m = speck.create_mirror_view(v)
  speck.deep_copy(m, v)
  return m
end
local dlabels = graph.connected_components(u)
-- the largest component: the label held by most vertices (a histogram in
-- the graph's space, then the smallest label of the largest count)
local hist = speck.View("hist", "int64", nv)
speck.parallel_for("bench.label_hist", nv, {l = dlabels, h = hist},
                   "atomic_add(&h(l(i)), (int64_t)1);")
local giant = speck.parallel_reduce("bench.giant", nv, {h = hist},
  "if (h(i) > acc) acc = h(i);", {op = "max", dtype = "int64"})
local giant_label = speck.parallel_reduce("bench.giant_label", nv, {h = hist, g = {"int64", giant}},
  "if (h(i) == g && i < acc) acc = i;", {op = "min", dtype = "int64"})
local labels = host(dlabels)
hist, dlabels = nil, nil
local rp = host(u.rowptr)
local sources, v = {}, 12345
while #sources < 16 do
  v = (v * 1103515245 + 12345) % nv
  if labels(v) == giant_label and rp(v + 1) > rp(v) then sources[#sources + 1] = v end
end

if WRITE then
  speck.io.save_npy(OUT .. "/rowptr.npy", g.rowptr)
  speck.io.save_npy(OUT .. "/colidx.npy", g.colidx)
  speck.io.save_npy(OUT .. "/weights.npy", g.weights)
  local f = assert(io.open(OUT .. "/sources.txt", "w"))
  f:write(table.concat(sources, ","), "\n")
  f:close()
  print(("wrote %s: %d vertices, %d arcs, giant component %d vertices"):format(
    OUT, nv, g:num_arcs(), giant))
  return
end

local function mean_over(list, f)
  f(list[1])
  local t, r = 0, nil
  for _, s in ipairs(list) do
    collectgarbage()
    timer:reset()
    r = f(s)
    speck.fence()
    t = t + timer:seconds()
  end
  return t / #list, r
end

local t, lv = mean_over(sources, function(s) return (graph.bfs(u, s)) end)
local reached = speck.parallel_reduce("bench.reached", nv, {l = lv},
  "acc += l(i) >= 0 ? 1 : 0;", {op = "sum", dtype = "int64"})
record("bfs", t, reached)
lv = nil

local eight = {table.unpack(sources, 1, 8)}
local d
t, d = mean_over(eight, function(s) return (graph.sssp(g, s)) end)
local far = speck.parallel_reduce("bench.farthest", nv, {d = d},
  "if (d(i) < 4611686018427387904 && d(i) > acc) acc = d(i);", {op = "max", dtype = "int64"})
record("sssp", t, far)
d = nil

local trials = {}
for k = 1, 13, 4 do trials[#trials + 1] = {table.unpack(sources, k, k + 3)} end
t = mean_over(trials, function(srcs) return graph.betweenness(u, {sources = srcs, normalized = false}) end)
record("bc4", t)

collectgarbage()
t = mean_over({1}, function() return graph.pagerank(u, {maxiter = 20, tol = 1e-300}) end)
record("pagerank20", t)
t = mean_over({1}, function() return graph.pagerank(u, {maxiter = 20, tol = 1e-300, dtype = "float32"}) end)
record("pagerank20_f32", t)
local ntri
t, ntri = mean_over({1}, function() return graph.triangles(u, {per_vertex = false}) end)
record("triangles", t, ntri)
