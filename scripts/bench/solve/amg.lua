-- amg.lua: one measurement of scripts/bench/solve/amg: smoothed-aggregation
-- AMG (speck.solve.amg) on the 3D 7-point Poisson matrix of n^3 rows:
-- the setup time, the time of one V-cycle (the median of 'reps'), and the
-- iterations of the AMG stationary iteration to 1e-8; prints one record
--   R <tab> n <tab> setup_s <tab> apply_s <tab> iterations <tab> complexity <tab> levels
--   speck amg.lua n [reps [degree]]
local speck = require "speck"
local sparse = require "speck.sparse"
local blas = require "speck.blas"
local precond = require "speck.precond_ml"

local n = math.tointeger(tonumber(arg[1] or 32))
local reps = math.tointeger(tonumber(arg[2] or 10))
local degree = math.tointeger(tonumber(arg[3] or 3))

local r, c, v = {}, {}, {}
local function id(x, y, z) return x + n * (y + n * z) end
for z = 0, n - 1 do for y = 0, n - 1 do for x = 0, n - 1 do
  local i = id(x, y, z)
  r[#r + 1], c[#c + 1], v[#v + 1] = i, i, 6.0
  if x > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - 1, -1.0 end
  if x < n - 1 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i + 1, -1.0 end
  if y > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - n, -1.0 end
  if y < n - 1 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i + n, -1.0 end
  if z > 0 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i - n * n, -1.0 end
  if z < n - 1 then r[#r + 1], c[#c + 1], v[#v + 1] = i, i + n * n, -1.0 end
end end end
local N = n * n * n
local A = sparse.from_coo(N, N, r, c, v)
r, c, v = nil, nil, nil
collectgarbage()

precond.amg(A, {degree = degree})   -- compiles every kernel once
speck.fence()
local t = speck.Timer()
local P = precond.amg(A, {degree = degree})
speck.fence()
local setup = t:seconds()

local b = speck.View("b", "float64", N)
speck.deep_copy(b, 1.0)
local x, res, z = speck.View("x", "float64", N), speck.View("r", "float64", N),
                  speck.View("z", "float64", N)
local times = {}
for k = 1, reps do
  local tk = speck.Timer()
  P:apply(b, z)
  speck.fence()
  times[k] = tk:seconds()
end
table.sort(times)
local apply = times[(reps + 1) // 2]

local nb, it = blas.nrm2(b), 0
while true do
  speck.deep_copy(res, b)
  sparse.spmv("N", -1.0, A, x, 1.0, res)
  if blas.nrm2(res) <= 1e-8 * nb or it >= 500 then break end
  P:apply(res, z)
  blas.axpy(1.0, z, x)
  it = it + 1
end
local info = P:info()
print(("R\t%d\t%.6f\t%.6f\t%d\t%.4f\t%d"):format(n, setup, apply, it, info.operator_complexity,
                                                #info.levels))
