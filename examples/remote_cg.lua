-- remote_cg.lua: distributed CG over remote views (seed 001's test case).
-- The 5-point Laplacian of an n x n grid (Dirichlet boundary), rows spread
-- in blocks over the ranks of an MPI job. Each rank keeps its rows in CRS
-- with global column indices; the search direction p is a remote view, so
-- the SpMV kernel reads the halo (the neighbouring ranks' rows of p)
-- straight from the kernel body, as if local. Dot products are local
-- reductions summed over the ranks (remote.allreduce).
--
--   mpirun -np 2 speck examples/remote_cg.lua [n [iterations]]
--
-- Without 'iterations' CG runs to ||r|| <= 1e-8 ||b||; with it, exactly
-- that many iterations (the benchmark). Prints the iterations, the time
-- per iteration and ||r||. Also a module: build(n, b, e, dtype) and
-- solve(n, opts) are what tests/remote/remote_test.lua checks against
-- speck.sparse.cg.
local speck = require "speck"
local remote = require "speck.remote"

local M = {}

-- rows [b, e) of the matrix: rowptr (e - b + 1), colidx (global), values
function M.build(n, b, e, cdtype)
  local nloc = e - b
  local counts = speck.View("rcg.counts", "int64", nloc)
  local rowptr = speck.View("rcg.rowptr", "int64", nloc + 1)
  speck.parallel_for("rcg.count", nloc, {counts = counts, b = b, n = n}, [[
    const int64_t g = b + i, ix = g % n, iy = g / n;
    counts(i) = 1 + (ix > 0) + (ix < n - 1) + (iy > 0) + (iy < n - 1);
  ]])
  local nnz = speck.parallel_scan("rcg.rowptr", nloc + 1,
    {counts = counts, rowptr = rowptr, nloc = nloc},
    [[ const int64_t c = i < nloc ? counts(i) : 0; if (final) rowptr(i) = acc; acc += c; ]],
    {dtype = "int64"})
  nnz = math.tointeger(nnz)
  local colidx = speck.View("rcg.colidx", cdtype or "int64", nnz)
  local values = speck.View("rcg.values", "float64", nnz)
  speck.parallel_for("rcg.fill", nloc,
    {rowptr = rowptr, colidx = colidx, values = values, b = b, n = n}, [[
    const int64_t g = b + i, ix = g % n, iy = g / n;
    int64_t k = rowptr(i);
    if (iy > 0)     { colidx(k) = g - n; values(k) = -1.0; k++; }
    if (ix > 0)     { colidx(k) = g - 1; values(k) = -1.0; k++; }
    colidx(k) = g; values(k) = 4.0; k++;
    if (ix < n - 1) { colidx(k) = g + 1; values(k) = -1.0; k++; }
    if (iy < n - 1) { colidx(k) = g + n; values(k) = -1.0; k++; }
  ]])
  return rowptr, colidx, values, nnz
end

-- the right-hand side's rows [b, e)
function M.rhs(n, b, e)
  local v = speck.View("rcg.b", "float64", e - b)
  speck.parallel_for("rcg.rhs", e - b, {v = v, b = b}, [[
    v(i) = 1.0 + (double)((b + i) % 7) * 0.125;
  ]])
  return v
end

-- CG on the distributed matrix: returns x (this rank's rows, a host view),
-- the iterations, ||r|| and the seconds spent in the iterations.
-- opts: tol (1e-8), maxiter (10 n), fixed (run exactly maxiter iterations)
function M.solve(n, opts)
  opts = opts or {}
  local N = n * n
  local p = remote.View("rcg.p", "float64", N)
  local b, e = p:local_range()
  local nloc = e - b
  local rowptr, colidx, values = M.build(n, b, e)
  local rhs = M.rhs(n, b, e)
  local pl = p:local_view()
  local x = speck.View("rcg.x", "float64", nloc)
  local r = speck.View("rcg.r", "float64", nloc)
  local ap = speck.View("rcg.Ap", "float64", nloc)
  local tol = opts.tol or 1e-8
  local maxiter = opts.maxiter or 10 * n
  local dot = [[ acc += v(i) * v(i); ]]
  speck.deep_copy(r, rhs)
  speck.deep_copy(pl, rhs)
  local bb = remote.allreduce(speck.parallel_reduce("rcg.bb", nloc, {v = rhs}, dot))
  local rr = bb
  local stop = opts.fixed and -1 or tol * math.sqrt(bb)
  local spmv = {rp = rowptr, ci = colidx, va = values, p = p, pl = pl, ap = ap}
  local upd = {x = x, r = r, pl = pl, ap = ap, a = 0.0}
  local pupd = {pl = pl, r = r, beta = 0.0}
  remote.fence()
  local t = speck.Timer()
  local it = 0
  while it < maxiter and math.sqrt(rr) > stop do
    -- Ap = A p (the halo of p read from the neighbours) and p.Ap
    local pap = remote.allreduce(speck.parallel_reduce("rcg.spmv", nloc, spmv, [[
      double s = 0.0;
      for (int64_t k = rp(i); k < rp(i + 1); k++) s += va(k) * p(ci(k));
      ap(i) = s;
      acc += pl(i) * s;
    ]]))
    if not (pap > 0) then error(("remote_cg: p'Ap = %g at iteration %d"):format(pap, it + 1)) end
    upd.a = rr / pap
    local rr1 = remote.allreduce(speck.parallel_reduce("rcg.update", nloc, upd, [[
      x(i) += a * pl(i);
      const double ri = r(i) - a * ap(i);
      r(i) = ri;
      acc += ri * ri;
    ]]))
    it = it + 1
    if math.sqrt(rr1) <= stop or it >= maxiter then rr = rr1; break end
    -- (no barrier needed before p changes: every rank's SpMV ended before
    -- it joined the allreduce of p.Ap, which has returned)
    pupd.beta = rr1 / rr
    speck.parallel_for("rcg.p", nloc, pupd, [[ pl(i) = r(i) + beta * pl(i); ]])
    rr = rr1
    -- p complete everywhere before the next SpMV reads the halo
    remote.fence()
  end
  speck.fence()
  local secs = t:seconds()
  return x, it, math.sqrt(rr), secs
end

local function main()
  local n = tonumber(arg[1]) or 256
  local fixed = tonumber(arg[2])
  -- warm-up: compiles and tiers up the kernels
  M.solve(n, {maxiter = 3, fixed = true})
  speck.jit.wait()
  local _, it, resid, secs = M.solve(n, fixed and {maxiter = fixed, fixed = true} or nil)
  local worst = remote.allreduce(secs, "max")
  if remote.rank() == 0 then
    print(("remote_cg: %d^2 grid, %d ranks, %d iterations in %.3f s: %.3f ms per iteration, ||r|| = %.3e"):format(
      n, remote.size(), it, worst, 1e3 * worst / math.max(it, 1), resid))
  end
end

if arg and arg[0] and arg[0]:match("remote_cg%.lua$") then main() end
return M
