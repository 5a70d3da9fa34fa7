-- complex.lua: speck's side of scripts/bench/complex/run. Prints one
-- record per line: "speck <kernel> <size> <seconds>" (the best of 'reps'
-- runs, after one warm-up that compiles).
--   speck complex.lua gemm N | spmv NX
local blas = require "speck.blas"
local sparse = require "speck.sparse"
local what, n = arg[1], tonumber(arg[2])
local reps = tonumber(os.getenv("BENCH_REPS") or "5")

local function best(f)
  f()
  speck.fence()
  local t = speck.Timer()
  local b = math.huge
  for _ = 1, reps do
    t:reset()
    f()
    speck.fence()
    b = math.min(b, t:seconds())
  end
  return b
end

if what == "gemm" then
  local A = speck.View("A", "complex128", {n, n})
  local B = speck.View("B", "complex128", {n, n})
  local C = speck.View("C", "complex128", {n, n})
  speck.parallel_for("init", speck.MDRangePolicy({0, 0}, {n, n}), {A = A, B = B},
    "A(i, j) = cmplx((double)((i * 7 + j) % 13) / 13, (double)((i + 3 * j) % 5) / 5); B(i, j) = conj(A(j, i));")
  print(("speck gemm %d %.6g"):format(n, best(function() blas.gemm("N", "C", 1, A, B, 0, C) end)))
elseif what == "spmv" then
  -- the 5-point Laplacian on an n x n grid with complex values (4+i on the diagonal)
  local N = n * n
  local rows, cols, vals = {}, {}, {}
  local k = 0
  local function add(r, c, re, im)
    k = k + 1
    rows[k], cols[k], vals[k] = r, c, {re, im}
  end
  for y = 0, n - 1 do
    for x = 0, n - 1 do
      local r = y * n + x
      if y > 0 then add(r, r - n, -1, 0.5) end
      if x > 0 then add(r, r - 1, -1, -0.5) end
      add(r, r, 4, 1)
      if x < n - 1 then add(r, r + 1, -1, 0.5) end
      if y < n - 1 then add(r, r + n, -1, -0.5) end
    end
  end
  local A = sparse.from_coo(N, N, speck.View.from(rows, "int64"), speck.View.from(cols, "int64"),
                            speck.View.from(vals, "complex128"))
  local x = speck.View("x", "complex128", N)
  local y = speck.View("y", "complex128", N)
  x:fill({1, -1})
  print(("speck spmv %d %.6g"):format(n, best(function() sparse.spmv("N", 1, A, x, 0, y) end)))
end
