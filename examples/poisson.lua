-- poisson.lua: the 3D Poisson problem -Laplace(u) = 1 on the unit cube, u = 0
-- on the boundary, the 7-point finite-difference matrix on an n^3 grid,
-- solved with smoothed-aggregation AMG (speck.solve.amg) -- as the
-- preconditioner of CG where speck.solve.cg exists, else as a stationary
-- iteration x += P(b - A x).
--
--   speck examples/poisson.lua [n]          (default n = 32)
--
-- Prints the AMG hierarchy (rows and entries per level, the operator
-- complexity), the setup and solve times, the iterations to
-- ||b - A x|| <= 1e-8 ||b|| and the value at the centre node (the
-- continuous problem's is 0.05623; n = 32 gives 0.0560).
local speck = require "speck"
local sparse = require "speck.sparse"
local precond = require "speck.precond_ml"
local ok_solve, solve = pcall(require, "speck.solve")
if not ok_solve then solve = {} end
for k, f in pairs(precond) do if solve[k] == nil then solve[k] = f end end

local n = math.tointeger(tonumber(arg and arg[1] or 32)) or 32
local h = 1 / (n + 1)

-- the matrix, scaled by 1/h^2, from COO triplets
local function poisson(m)
  local r, c, v = {}, {}, {}
  local s = 1 / (h * h)
  local function id(x, y, z) return x + m * (y + m * z) end
  for z = 0, m - 1 do for y = 0, m - 1 do for x = 0, m - 1 do
    local i = id(x, y, z)
    r[#r + 1], c[#c + 1], v[#v + 1] = i, i, 6 * s
    if x > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - 1, -s end
    if x < m - 1 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i + 1, -s end
    if y > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - m, -s end
    if y < m - 1 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i + m, -s end
    if z > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - m * m, -s end
    if z < m - 1 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i + m * m, -s end
  end end end
  return sparse.from_coo(m * m * m, m * m * m, r, c, v)
end

local A = poisson(n)
local N = A:nrows()
local b = speck.View("b", "float64", N)
speck.deep_copy(b, 1.0)

local t0 = speck.Timer()
local P = solve.amg(A)
local setup = t0:seconds()
local info = P:info()
print(("3D Poisson %d^3: %d rows, %d entries on %s"):format(n, N, A:nnz(), speck.info().default_space))
for l, lv in ipairs(info.levels) do print(("  level %d: %8d rows %10d entries"):format(l, lv.rows, lv.nnz)) end
print(("  operator complexity %.3f"):format(info.operator_complexity))

local t1 = speck.Timer()
local x, info = solve.cg(A, b, {precond = P, tol = 1e-8, maxiter = 200})
local iters, resid, how = info.iters, info.resid, "AMG-PCG"
local t = t1:seconds()
local c = (n // 2) + n * ((n // 2) + n * (n // 2))
local xh = x:space() == "host" and x or speck.create_mirror_view_and_copy("host", x)
print(("%s: %d iterations, relative residual %.2e, setup %.3f s, solve %.3f s"):format(
  how, iters, resid, setup, t))
print(("u at the centre: %.5f"):format(xh(c)))
