-- cholesky.lua: a sparse Cholesky factorisation (seed 003 ch. 5, Tacho)
-- of the 2D 5-point Laplacian on a g x g grid, then a solve and its
-- residual. The factorisation runs by supernodes as a task DAG on
-- speck.task's scheduler (AMD ordering, elimination tree, supernodes,
-- dense blocks by OpenBLAS).
--   speck examples/cholesky.lua [g]
local speck = require "speck"
local sparse = require "speck.sparse"

local g = tonumber(arg and arg[1]) or 200
local n = g * g
local rows, cols, vals = {}, {}, {}
local function add(i, j, v) rows[#rows + 1], cols[#cols + 1], vals[#vals + 1] = i, j, v end
for a = 0, g - 1 do
  for b = 0, g - 1 do
    local p = a * g + b
    add(p, p, 4.0)
    if a > 0 then add(p, p - g, -1.0) end
    if a < g - 1 then add(p, p + g, -1.0) end
    if b > 0 then add(p, p - 1, -1.0) end
    if b < g - 1 then add(p, p + 1, -1.0) end
  end
end
local A = sparse.from_coo(n, n, rows, cols, vals)

local t0 = speck.now()
local F = sparse.cholesky(A)
local t1 = speck.now()
local info = F:info()
print(("factor of %s: %.3f s (symbolic %.3f, numeric %.3f), %d supernodes, %d entries in L's blocks")
      :format(tostring(A), t1 - t0, info.symbolic_seconds, info.numeric_seconds,
              info.supernodes, info.nnz_l))

local b = speck.View("b", "float64", n)
speck.parallel_for("rhs", n, {b = b}, [[ b(i) = 1.0; ]])
local x = F:solve(b)
local r = speck.View("r", "float64", n)
speck.deep_copy(r, b)
sparse.spmv("N", -1.0, A, x, 1.0, r)                  -- r = b - A x
local rr = speck.parallel_reduce("rr", n, {r = r}, [[ acc += r(i) * r(i); ]])
print(("solve: x(center) = %.6f, relative residual %.2e"):format(x(n // 2 + g // 2), math.sqrt(rr / n)))
