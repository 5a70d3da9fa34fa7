-- cg.lua: distributed CG per iteration on the 7-point Poisson matrix of an
-- n^3 grid (the 27-point one with stencil 27, the 5-point one of n^2 with
-- stencil 5), speck.dist on the
-- ranks of the job -- the speck side of issue 28's host benchmark (the
-- peer: PETSc's MatMPIAIJ + KSPCG, same matrix, same tolerance, not built
-- here). Each rank builds its rows in a kernel (no rank holds the whole
-- matrix), then CG with Jacobi runs to tol = 1e-8 (or maxiter), after a
-- warm-up solve of 2 iterations. Prints on
-- rank 0: ranks, n, rows, iterations, seconds per iteration (wall, and
-- rank 0's CPU time: what waiting for a core on a loaded machine does not
-- stretch), the plan's build time and halo size.
--
-- A fourth argument names another preconditioner (dist.cg's precond:
-- "jacobi", the default, "chebyshev", "none", "block_jacobi"; then a
-- fifth its local solver, dist.cg's block: "cholesky", "ic0", "ilu0", "gs";
-- or "amg": dist.amg(A), its setup timed apart as pc_setup_s).
--
--   mpirun -np 2 speck scripts/bench/dist/cg.lua [n = 128] [stencil = 7] [maxiter = 200] [precond [block]]
--   (one rank with BENCH_LIBRARY_CG=1: also speck.sparse.cg, unpreconditioned, on the same matrix)
--   SPECK_SPACE=<a GPU back end> speck scripts/bench/dist/cg.lua 128 27   (GPU ranks: the
--   matrix and vectors in device memory; the transport is printed)
local speck = require "speck"
local dist = require "speck.dist"
local sparse = require "speck.sparse"
local n = tonumber(arg and arg[1]) or 128
local stencil = tonumber(arg and arg[2]) or 7
local maxiter = tonumber(arg and arg[3]) or 200
local pcopts = {precond = arg and arg[4] or "jacobi", block = arg and arg[5]}
local me, np = dist.rank(), dist.size()
local nz = stencil == 5 and 1 or n
local N = n * n * nz
local m = dist.map(N)
local b, e = m:local_range()
local nloc = e - b
local caps = {b = b, n = n, nz = nz, nloc = nloc, s27 = stencil == 27 and 1 or 0}
local BODY = [[
  int64_t g = b + i, x = g % n, y = (g / n) % n, z = g / (n * n);
  if (s27) {
    c = 0;
    for (int64_t dz = -1; dz <= 1; dz++) for (int64_t dy = -1; dy <= 1; dy++) for (int64_t dx = -1; dx <= 1; dx++)
      if (z + dz >= 0 && z + dz < nz && y + dy >= 0 && y + dy < n && x + dx >= 0 && x + dx < n) c++;
  } else {
    c = 1 + (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1);
    if (nz > 1) c += (z > 0) + (z < nz - 1);
  }
]]
local rowptr = speck.View("rowptr", "int64", nloc + 1)
caps.rp = rowptr
-- (the scan's total is the entry count: no element read from Lua, so the
-- rows may live in a device's memory)
local nnz = math.tointeger(speck.parallel_scan("dist_bench_count", nloc + 1, caps, [[
  int64_t c = 0;
  if (i < nloc) {
]] .. BODY .. [[
  }
  if (final) rp(i) = acc;
  acc += c;
]], {dtype = "int64"}))
local colidx, values = speck.View("colidx", "int32", nnz), speck.View("values", "float64", nnz)
caps.ci, caps.va = colidx, values
speck.parallel_for("dist_bench_fill", nloc, caps, [[
  int64_t g = b + i, x = g % n, y = (g / n) % n, z = g / (n * n), k = rp(i);
  if (s27) {
    for (int64_t dz = -1; dz <= 1; dz++) for (int64_t dy = -1; dy <= 1; dy++) for (int64_t dx = -1; dx <= 1; dx++)
      if (z + dz >= 0 && z + dz < nz && y + dy >= 0 && y + dy < n && x + dx >= 0 && x + dx < n) {
        ci(k) = (int32_t)(g + dz * n * n + dy * n + dx);
        va(k) = (dz == 0 && dy == 0 && dx == 0) ? 26.0 : -1.0;
        k++;
      }
  } else {
    double d = nz > 1 ? 6.0 : 4.0;
    if (nz > 1 && z > 0) { ci(k) = (int32_t)(g - n * n); va(k) = -1.0; k++; }
    if (y > 0) { ci(k) = (int32_t)(g - n); va(k) = -1.0; k++; }
    if (x > 0) { ci(k) = (int32_t)(g - 1); va(k) = -1.0; k++; }
    ci(k) = (int32_t)g; va(k) = d; k++;
    if (x < n - 1) { ci(k) = (int32_t)(g + 1); va(k) = -1.0; k++; }
    if (y < n - 1) { ci(k) = (int32_t)(g + n); va(k) = -1.0; k++; }
    if (nz > 1 && z < nz - 1) { ci(k) = (int32_t)(g + n * n); va(k) = -1.0; k++; }
  }
]])
local t0 = speck.Timer()
local crs = sparse.CrsMatrix{nrows = nloc, ncols = N, rowptr = rowptr, colidx = colidx, values = values}
local A = dist.from_local(N, N, b, crs)
local setup = t0:seconds()
local rhs = dist.vector(A, 1.0)
-- a warm-up solve of 2 iterations first (as petsc_cg.c's): the timed one
-- then finds the process's memory and the kernels as a second solve
-- on the same matrix does
dist.cg(A, rhs, {tol = 1e-8, maxiter = 2, precond = pcopts.precond == "amg" and dist.amg(A) or pcopts.precond,
                 block = pcopts.block})
dist.barrier()
local pc_setup = 0
if pcopts.precond == "amg" then
  local ts = speck.Timer()
  pcopts.precond = dist.amg(A)
  pc_setup = ts:seconds()
end
local t, c0 = speck.Timer(), os.clock()
local _, info = dist.cg(A, rhs, {tol = 1e-8, maxiter = maxiter, precond = pcopts.precond,
                                 block = pcopts.block})
local s, cpu = t:seconds(), os.clock() - c0
local pi = A:plan_info()
local halo = require("speck.remote").allreduce(pi.halo, "max")
local total_nnz = A:nnz()   -- collective: every rank
if me == 0 then
  print(("dist_cg ranks=%d stencil=%d n=%d rows=%d nnz=%d precond=%s%s iters=%d reason=%s resid=%.3e "
         .. "pc_setup_s=%.3f solve_s=%.3f ms_per_iter=%.3f cpu_ms_per_iter=%.3f setup_s=%.3f plan_build_s=%.4f max_halo=%d threads=%s space=%s transport=%s"):format(
    np, stencil, n, N, total_nnz, arg[4] or "jacobi", pcopts.block and "/" .. pcopts.block or "",
    info.iters, info.reason, info.resid, pc_setup, s,
    1e3 * s / math.max(info.iters, 1), 1e3 * cpu / math.max(info.iters, 1), setup, pi.build_seconds, halo, os.getenv("SPECK_THREADS") or "default",
    pi.space, pi.transport))
end
-- with BENCH_PHASES=1: each rank's ms an iteration in each phase of the
-- fused sweeps (dist.cg's info.phases; Jacobi or no preconditioner)
if os.getenv("BENCH_PHASES") == "1" and info.phases then
  local ph, line = info.phases, {}
  for _, k in ipairs{"pack", "interior", "wait", "boundary", "allreduce"} do
    line[#line + 1] = ("%s=%.3f"):format(k, 1e3 * ph[k] / math.max(ph.sweeps, 1))
  end
  for q = 0, np - 1 do
    if q == me then
      print(("phases rank=%d dia=%d ms_per_sweep: %s"):format(me, ph.dia, table.concat(line, " ")))
    end
    dist.barrier()
  end
end
-- one rank: the library's one-node CG (unpreconditioned) on the same matrix, for scale
if np == 1 and os.getenv("BENCH_LIBRARY_CG") == "1" then
  sparse.cg(crs, rhs:local_view(), {tol = 1e-8, maxiter = 2})
  local t2 = speck.Timer()
  local _, iters, resid, reason = sparse.cg(crs, rhs:local_view(), {tol = 1e-8, maxiter = maxiter})
  local s2 = t2:seconds()
  print(("library_cg stencil=%d n=%d iters=%d reason=%s resid=%.3e ms_per_iter=%.3f"):format(
    stencil, n, iters, reason, resid, 1e3 * s2 / math.max(iters, 1)))
end
