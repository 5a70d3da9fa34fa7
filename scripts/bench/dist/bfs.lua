-- bfs.lua: distributed BFS on the host ranks of an MPI job (speck.dist),
-- the speck side of issue 28's comparison with the Graph500 reference MPI
-- BFS (graph500/graph500's src/graph500_reference_bfs, built by hand, never
-- committed; docs/bench-solvers.md, "dist", says how it was run). The
-- graph: graph.kronecker(SCALE, 16, {seed = 1}) (Graph500's R-MAT
-- parameters), built on every rank and handed to dist.from_edges as each
-- rank's share of its edges (the arcs u < v of its vertex block: each edge
-- once), so the distributed graph holds each rank's vertices and halo
-- only. Then ROOTS searches from vertices of nonzero degree (a fixed
-- pseudo-random pick, the same on every rank), each timed after a barrier.
-- TEPS as Graph500 counts them: the input edges of the reached component
-- over the search's time. Prints on rank 0: the median time (wall, and
-- the CPU time of the slowest rank's median search), the harmonic
-- mean of the TEPS (Graph500's figure), and the directions taken; then
-- dist.connected_components on the same graph (CC_RUNS timed runs, 3;
-- 0: none) and dist.pagerank (PR_RUNS, 3; tol 1e-10, at most 50
-- iterations), their median wall and CPU times.
--
--   mpirun -np 2 speck scripts/bench/dist/bfs.lua [scale = 20] [roots = 16]
local speck = require "speck"
local dist = require "speck.dist"
local graph = require "speck.graph"
local remote = require "speck.remote"
local scale = math.tointeger(tonumber(arg and arg[1]) or 20)
local nroots = math.tointeger(tonumber(arg and arg[2]) or 16)
local me, np = dist.rank(), dist.size()

local G = graph.kronecker(scale, 16, {seed = 1})
local nv = G:num_vertices()
local b, e = (me * nv) // np, ((me + 1) * nv) // np
local caps = {rp = G.rowptr, ci = G.colidx, b = b}
local nmine = speck.parallel_reduce("bfs_bench_count", e - b, caps, [[
  int64_t u = b + i;
  for (int64_t p = rp(u); p < rp(u + 1); p++) if (ci(p) > u) acc += 1;
]], {dtype = "int64"})
local off = speck.View("off", "int64", e - b + 1)
speck.parallel_scan("bfs_bench_off", e - b + 1, {rp = G.rowptr, ci = G.colidx, b = b, o = off, n = e - b}, [[
  int64_t c = 0;
  if (i < n) { int64_t u = b + i; for (int64_t p = rp(u); p < rp(u + 1); p++) if (ci(p) > u) c += 1; }
  if (final) o(i) = acc;
  acc += c;
]])
local src, dst = speck.View("src", "int64", nmine), speck.View("dst", "int64", nmine)
speck.parallel_for("bfs_bench_edges", e - b, {rp = G.rowptr, ci = G.colidx, b = b, o = off, s = src, d = dst}, [[
  int64_t u = b + i, k = o(i);
  for (int64_t p = rp(u); p < rp(u + 1); p++) if (ci(p) > u) { s(k) = u; d(k) = ci(p); k++; }
]])
local deg = speck.View("deg", "int64", nv)
speck.parallel_for("bfs_bench_deg", nv, {rp = G.rowptr, d = deg}, "d(i) = rp(i + 1) - rp(i);")
local t0 = speck.Timer()
local g = dist.from_edges(nv, src, dst)
local build = t0:seconds()
src, dst = nil, nil
collectgarbage()

-- the roots: vertices of nonzero degree, a fixed pseudo-random pick (the
-- degrees read on the host: a device's views are not)
local hdeg = speck.create_mirror_view_and_copy("host", deg)
local roots, seed = {}, 12345
while #roots < nroots do
  seed = (seed * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  local v = (seed >> 20) % nv
  if hdeg(v) > 0 then roots[#roots + 1] = v end
end
dist.bfs(g, roots[1])  -- warm-up: compiles
local times, cpus, teps, dirs = {}, {}, {}, {}
for k, r in ipairs(roots) do
  dist.barrier()
  local t, c0 = speck.Timer(), os.clock()
  local lev = dist.bfs(g, r)
  cpus[k] = os.clock() - c0
  dist.barrier()
  times[k] = t:seconds()
  dirs[k] = lev.directions
  -- the reached component's input edges: half its vertices' degrees
  local lv, lb = lev:local_view(), lev:local_range()
  local mine = speck.parallel_reduce("bfs_bench_reached", lv:extent(0), {l = lv, d = deg, b = lb},
    "if (l(i) >= 0) acc += d(b + i);", {dtype = "int64"})
  local edges = remote.allreduce(mine, "sum") / 2
  teps[k] = edges / times[k]
end
table.sort(times)
table.sort(cpus)
-- this rank's CPU time a search (the machine may be loaded: the wall time
-- then counts the other work too); the largest over the ranks
local cpu = remote.allreduce(cpus[(#cpus + 1) // 2], "max")
local hm = 0
for _, x in ipairs(teps) do hm = hm + 1 / x end
hm = #teps / hm
if me == 0 then
  print(("dist_bfs ranks=%d scale=%d roots=%d build_s=%.3f median_s=%.4f median_cpu_s=%.4f harmonic_mean_TEPS=%.4g directions=%s threads=%s"):format(
    np, scale, nroots, build, times[(#times + 1) // 2], cpu, hm, dirs[1], os.getenv("SPECK_THREADS") or "default"))
end

-- then connected components (speck.dist's min-label propagation), a
-- warm-up and CC_RUNS timed runs: the median wall and CPU time
local cc_runs = math.tointeger(tonumber(os.getenv("CC_RUNS") or "3"))
if cc_runs > 0 then
  dist.connected_components(g)
  local ct, cc, ncomp = {}, {}, 0
  for k = 1, cc_runs do
    dist.barrier()
    local t, c0 = speck.Timer(), os.clock()
    local _, n = dist.connected_components(g)
    cc[k] = os.clock() - c0
    dist.barrier()
    ct[k], ncomp = t:seconds(), n
  end
  table.sort(ct)
  table.sort(cc)
  local ccpu = remote.allreduce(cc[(#cc + 1) // 2], "max")
  if me == 0 then
    print(("dist_cc ranks=%d scale=%d runs=%d median_s=%.4f median_cpu_s=%.4f components=%d"):format(
      np, scale, cc_runs, ct[(#ct + 1) // 2], ccpu, ncomp))
  end
end

-- and PageRank (tol 1e-10, at most 50 iterations), PR_RUNS timed runs (3)
local pr_runs = math.tointeger(tonumber(os.getenv("PR_RUNS") or "3"))
if pr_runs > 0 then
  local o = {tol = 1e-10, maxiter = 50}
  dist.pagerank(g, o)
  local pt, pc, iters = {}, {}, 0
  for k = 1, pr_runs do
    dist.barrier()
    local t, c0 = speck.Timer(), os.clock()
    local _, it = dist.pagerank(g, o)
    pc[k] = os.clock() - c0
    dist.barrier()
    pt[k], iters = t:seconds(), it
  end
  table.sort(pt)
  table.sort(pc)
  local pcpu = remote.allreduce(pc[(#pc + 1) // 2], "max")
  if me == 0 then
    print(("dist_pagerank ranks=%d scale=%d runs=%d iters=%d median_s=%.4f median_cpu_s=%.4f"):format(
      np, scale, pr_runs, iters, pt[(#pt + 1) // 2], pcpu))
  end
end
