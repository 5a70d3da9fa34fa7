-- cg.lua: the miniFE-style problem of seed 004 section 6.1 -- steady 3D
-- heat diffusion on the unit cube, trilinear (hex8) finite elements on an
-- n x n x n box of elements, the temperature held at 0 on the boundary, a
-- unit heat source -- solved with speck.sparse.cg.
--
--   speck examples/cg.lua [n [iterations]]
--
-- The matrix is assembled with speck kernels straight into CRS: every
-- interior node couples to its 27 neighbours (the element stiffness of
-- the unit brick: 1/3 on the diagonal, 0 along an edge, -1/12 across a
-- face or the body diagonal; times h, summed over the 8 elements around
-- the node), couplings to boundary nodes are kept as explicit zeros so
-- the structure stays the 27-point stencil, and a boundary node's row is
-- the identity. With 'iterations' given, CG runs exactly that many
-- iterations (miniFE runs 200); otherwise it runs to ||r|| <= 1e-8 ||b||,
-- which takes about 1.4 n iterations (n = 16: 22, n = 32: 45, n = 64: 91)
-- on every back end. Prints the iterations, the time per iteration, the
-- residual and the centre temperature (0.05623 for n = 64; the continuous
-- problem's is 0.05621). Then the same problem with speck.solve's PCG and
-- each preconditioner there is (Jacobi, l1-Jacobi, symmetric Gauss-Seidel
-- in row order and multicolor; IC(0), ILU(0) and AMG when speck.solve has
-- them), to 1e-8: the iterations and the time of each.
local sparse = require "speck.sparse"
local solve = require "speck.solve"

local n = tonumber(arg and arg[1]) or 64
local fixed = tonumber(arg and arg[2])
local np = n + 1                 -- nodes per side
local N = np * np * np
local h = 1.0 / n

local t0 = speck.Timer()
local counts = speck.View("counts", "int64", N + 1)
local rowptr = speck.View("rowptr", "int64", N + 1)
local interior = [[
  const int64_t ix = i % np, iy = (i / np) % np, iz = i / (np * np);
  const int in = ix > 0 && ix < np - 1 && iy > 0 && iy < np - 1 && iz > 0 && iz < np - 1;
]]
speck.parallel_for("cg.count", N, {counts = counts, np = np}, interior .. [[
  counts(i) = in ? 27 : 1;
]])
local nnz = speck.parallel_scan("cg.rowptr", N + 1, {counts = counts, rowptr = rowptr, N = N},
  [[ const int64_t c = i < N ? counts(i) : 0; if (final) rowptr(i) = acc; acc += c; ]],
  {dtype = "int64"})
nnz = math.tointeger(nnz) or nnz
local colidx = speck.View("colidx", "int32", nnz)
local values = speck.View("values", "float64", nnz)
speck.parallel_for("cg.assemble", N,
  {rowptr = rowptr, colidx = colidx, values = values, np = np, h = h}, interior .. [[
  int64_t p = rowptr(i);
  if (!in) { colidx(p) = (int32_t)i; values(p) = 1.0; }
  else {
    for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        const int64_t jx = ix + dx, jy = iy + dy, jz = iz + dz;
        const int64_t j = jx + np * (jy + np * jz);
        const int nz = (dx != 0) + (dy != 0) + (dz != 0);
        const int jb = jx == 0 || jx == np - 1 || jy == 0 || jy == np - 1 ||
                       jz == 0 || jz == np - 1;
        /* summed over the elements sharing the two nodes */
        double v = nz == 0 ? 8.0 / 3.0 : nz == 1 ? 0.0 : nz == 2 ? -2.0 / 12.0 : -1.0 / 12.0;
        colidx(p) = (int32_t)j;
        values(p) = jb ? 0.0 : v * h;
        p++;
      }
  }
]])
local A = sparse.CrsMatrix{nrows = N, ncols = N, rowptr = rowptr, colidx = colidx,
                           values = values}
local b = speck.View("b", "float64", N)
speck.parallel_for("cg.rhs", N, {b = b, np = np, h = h}, interior .. [[
  b(i) = in ? h * h * h : 0.0;
]])
speck.fence()
local t_asm = t0:seconds()

local opts = fixed and {tol = 0.0, maxiter = fixed} or {tol = 1e-8, maxiter = 10 * n}
-- warm-up (compiles and tiers up the kernels), then the timed solve
sparse.cg(A, b, {tol = 0.0, maxiter = 10})
local t = speck.Timer()
local x, iters, resid = sparse.cg(A, b, opts)
speck.fence()
local secs = t:seconds()

local centre = (n // 2) * (1 + np + np * np)
local xm = speck.create_mirror_view_and_copy("host", x)
print(("speck cg: %d^3 elements, %d rows, %d entries, space %s"):format(n, N, A:nnz(),
      speck.info().default_space))
print(("  assembly %.3f s; CG %d iterations in %.3f s: %.3f ms per iteration"):format(
      t_asm, iters, secs, 1e3 * secs / math.max(iters, 1)))
print(("  ||r|| = %.3e, centre temperature %.8f"):format(resid, xm(centre)))

-- -- preconditioned CG (speck.solve) --------------------------------------------
local pcs = {
  {"none", function() return nil end},
  {"jacobi", function() return solve.jacobi(A) end},
  {"l1-jacobi", function() return solve.jacobi(A, {l1 = true}) end},
  {"sym. gauss-seidel, multicolor", function()
    return solve.gauss_seidel(A, {symmetric = true, multicolor = true})
  end},
}
if A:space() == "host" then
  table.insert(pcs, 4, {"sym. gauss-seidel, row order", function()
    return solve.gauss_seidel(A, {symmetric = true, multicolor = false})
  end})
end
pcs[#pcs + 1] = {"chebyshev", function() return solve.chebyshev(A) end}
pcs[#pcs + 1] = {"ic0", function() return solve.ic0(A) end}
pcs[#pcs + 1] = {"ilu0", function() return solve.ilu(A, {k = 0}) end}
pcs[#pcs + 1] = {"amg", function() return solve.amg(A) end}
print("  speck.solve.cg to 1e-8:")
for _, pc in ipairs(pcs) do
  local ts = speck.Timer()
  local P = pc[2]()
  speck.fence()
  local setup = ts:seconds()
  solve.cg(A, b, {tol = 0.0, maxiter = 2, precond = P})   -- warm-up
  local tp = speck.Timer()
  local _, info = solve.cg(A, b, {tol = 1e-8, maxiter = 10 * n, precond = P})
  speck.fence()
  print(("    %-32s %4d iterations  setup %.3f s  solve %.3f s  %s"):format(
        pc[1], info.iters, setup, tp:seconds(), info.reason))
end
