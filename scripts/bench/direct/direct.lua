-- direct.lua: speck's side of scripts/bench/direct: speck.solve.spsolve
-- (factor + solve with refinement) on a 2D and a 3D convection-diffusion
-- matrix and speck.solve.lobpcg (4 smallest, Jacobi-preconditioned) on
-- the 2D Poisson matrix; writes the matrices as .mtx for the SciPy peer.
--   speck direct.lua DIR M2 M3   (grids M2^2 and M3^3)
-- One record a line: "R <case> speck <seconds> <extra>".
local speck = require "speck"
local sparse = require "speck.sparse"
local solve = require "speck.solve"

local dir, m2, m3 = arg[1], tonumber(arg[2]), tonumber(arg[3])

local function coo()
  local t = {r = {}, c = {}, v = {}}
  function t.add(i, j, x) t.r[#t.r + 1], t.c[#t.c + 1], t.v[#t.v + 1] = i, j, x end
  return t
end

-- upwind convection-diffusion, d = 2 or 3, m points a side
local function convdiff(d, m)
  local t, n = coo(), m ^ d
  local strides = {1, m, m * m}
  for i = 0, math.tointeger(n) - 1 do
    t.add(i, i, 2 * d + 0.5)
    for k = 1, d do
      local s = strides[k]
      local x = (i // s) % m
      if x > 0 then t.add(i, i - s, -1 - 0.3 * k) end
      if x < m - 1 then t.add(i, i + s, -1 + 0.2 * k) end
    end
  end
  return sparse.from_coo(math.tointeger(n), math.tointeger(n), t.r, t.c, t.v)
end

local function poisson2d(m)
  local t = coo()
  for y = 0, m - 1 do
    for x = 0, m - 1 do
      local i = y * m + x
      t.add(i, i, 4)
      if x > 0 then t.add(i, i - 1, -1) end
      if x < m - 1 then t.add(i, i + 1, -1) end
      if y > 0 then t.add(i, i - m, -1) end
      if y < m - 1 then t.add(i, i + m, -1) end
    end
  end
  return sparse.from_coo(m * m, m * m, t.r, t.c, t.v)
end

for _, c in ipairs({{"convdiff2d", 2, m2}, {"convdiff3d", 3, m3}}) do
  local A = convdiff(c[2], c[3])
  sparse.write_mm(("%s/%s.mtx"):format(dir, c[1]), A)
  local b = speck.View("b", "float64", A:nrows())
  speck.deep_copy(b, 1.0)
  local t = speck.Timer()
  local _, info = solve.spsolve(A, b)
  speck.fence()
  t = t:seconds()
  print(("R\tspsolve-%s\tspeck\t%.6e\tnnz(L+U) %d, berr %.1e"):format(c[1], t, info.nnz_L + info.nnz_U,
                                                                      info.berr))
end

local P = poisson2d(m2)
sparse.write_mm(("%s/poisson2d.mtx"):format(dir), P)
solve.lobpcg(P, 4, {maxiter = 3})   -- a warm-up (compiles the kernels)
local t = speck.Timer()
local _, _, info = solve.lobpcg(P, 4, {precond = solve.jacobi(P), tol = 1e-6, maxiter = 2000})
speck.fence()
print(("R\tlobpcg-poisson2d\tspeck\t%.6e\t%d iterations%s"):format(t:seconds(), info.iters,
                                                                   info.converged and "" or " (not converged)"))
