-- scaling.lua: the speck side of scripts/bench/scaling: time against
-- problem size for SpMV, CG, BFS, PageRank and batched gemm on the
-- default space (SPECK_SPACE), so that a cliff (a cache edge, an
-- occupancy drop) shows as a bend in the curve. Prints one line a point:
--   POINT <kernel> <size> <unit size> <seconds> <rate> <rate unit>
-- seconds: the median of the repetitions after a warm-up; the rate is the
-- kernel's throughput at that size (GB/s for SpMV and CG; for BFS and
-- PageRank Garcs/s, the graph's arcs -- both directions of every edge --
-- a second, twice the GTEPS of Graph500 and GAP, which count edges;
-- GFLOP/s for batched gemm).
--
--   speck scripts/bench/scaling/scaling.lua [quick]
local speck = require "speck"
local sparse = require "speck.sparse"
local graph = require "speck.graph"
local batched = require "speck.batched"
local csr = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/csr.lua")

local QUICK = arg[1] == "quick"
local DEVICE = speck.info().default_space == "cuda"

-- median seconds of f() over reps calls, after one untimed call
local function median(reps, f)
  f()
  speck.fence()
  local t = {}
  for k = 1, reps do
    local t0 = speck.now()
    f()
    speck.fence()
    t[k] = speck.now() - t0
  end
  table.sort(t)
  return t[(reps + 1) // 2]
end

local function point(kernel, size, what, s, rate, unit)
  print(("POINT %s %d %s %.6e %.4f %s"):format(kernel, size, what, s, rate, unit))
  io.stdout:flush()
end

-- SpMV and CG on the 2D 5-point matrix, g x g grids: bytes as the sparse
-- benchmark counts them (12 an entry, 8 a row pointer, 16 a row)
local grids = QUICK and {64, 256} or {64, 128, 256, 512, 724, 1024, 1448, 2048, 2896}
for _, g in ipairs(grids) do
  local A = csr.m5(g)
  local n, nnz = A:nrows(), A:nnz()
  local x = speck.View("x", "float64", n)
  local y = speck.View("y", "float64", n)
  speck.deep_copy(x, 1.0)
  local bytes = 12 * nnz + 8 * (n + 1) + 16 * n
  local reps = math.max(5, math.min(200, 4e8 // bytes))
  local s = median(reps, function() sparse.spmv("N", 1.0, A, x, 0.0, y) end)
  point("spmv5", n, "rows", s, bytes / s / 1e9, "GB/s")
  -- 20 CG iterations (tol 0: no early exit), a second an iteration; its
  -- streams: the SpMV's and 6 vectors
  local it = 20
  local sc = median(math.max(3, reps // 20), function()
    sparse.cg(A, x, {tol = 0, maxiter = it})
  end) / it
  point("cg5", n, "rows", sc, (bytes + 6 * 8 * n) / sc / 1e9, "GB/s")
end

-- BFS and PageRank on Kronecker graphs (edge factor 16)
local scales = QUICK and {10, 12} or (DEVICE and {14, 16, 18, 20, 21, 22, 23, 24} or {12, 14, 16, 17, 18, 19, 20, 21})
for _, sc in ipairs(scales) do
  local g = graph.kronecker(sc, 16)
  local arcs, nv = g.colidx:extent(0), g:num_vertices()
  -- sources: 8 vertices with arcs, spread over the ids
  local rp = speck.create_mirror(g.rowptr) -- a host copy (the graph may live on a GPU)
  speck.deep_copy(rp, g.rowptr)
  local srcs, v = {}, 0
  while #srcs < 8 and v < nv do
    if rp[v + 1] > rp[v] then srcs[#srcs + 1] = v end
    v = v + nv // 16 + 1
  end
  local k = 0
  local s = median(#srcs * 2 + 1, function()
    k = k % #srcs + 1
    graph.bfs(g, srcs[k])
  end)
  point("bfs", nv, "vertices", s, arcs / s / 1e9, "Garcs/s")
  -- 20 iterations (a tolerance nothing reaches), a second an iteration
  local iters
  local sp = median(3, function()
    iters = select(2, graph.pagerank(g, {tol = 1e-300, maxiter = 20}))
  end) / iters
  point("pagerank", nv, "vertices", sp, arcs / sp / 1e9, "Garcs/s")
end

-- batched gemm, 2^16 matrices of n x n (float64), n from 2 to 32
local NB = QUICK and 1024 or 65536
for _, n in ipairs(QUICK and {4, 8} or {2, 3, 4, 6, 8, 9, 10, 12, 14, 15, 16, 20, 24, 32}) do
  local A = speck.View("A", "float64", {NB, n, n})
  local B = speck.View("B", "float64", {NB, n, n})
  local C = speck.View("C", "float64", {NB, n, n})
  speck.deep_copy(A, 1.0)
  speck.deep_copy(B, 0.5)
  local flops = 2.0 * NB * n * n * n
  local s = median(math.max(5, math.min(100, 2e9 // flops)), function()
    batched.gemm("N", "N", 1.0, A, B, 0.0, C)
  end)
  point("gemm", n, "n", s, flops / s / 1e9, "GFLOP/s")
end
