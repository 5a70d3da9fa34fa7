-- bench.lua: the speck side of scripts/bench/sptrsv (run by ./run).
--
-- Usage: speck bench.lua ALGO MATRIX
--   ALGO    levelset | supernodal   (sparse.sptrsv_symbolic's algorithm)
--   MATRIX  m27 (27-point 40^3) | m5 (5-point 1024^2)
-- The matrix is built with speck kernels and factored by
-- speck.sparse.cholesky (AMD, supernodes); L (sparse.cholesky_lower) is
-- the triangle both algorithms solve with: L y = b, symbolic phase
-- outside the timing. WARM untimed solves, then the median of REPS timed
-- ones. Prints "R <kernel> <impl> <seconds> <checksum>" records and
-- "I" lines (factor facts, symbolic seconds).
local sparse = require "speck.sparse"

local ALGO, M = arg[1] or "", arg[2] or "m27"
local REPS, WARM = tonumber(os.getenv("BENCH_REPS") or 15), 3

local LIB = (arg[0]:match("^(.*)/") or ".") .. "/../lib/"
local records, csr = dofile(LIB .. "records.lua"), dofile(LIB .. "csr.lua")
local timer = speck.Timer()

local A = M == "m5" and csr.m5(tonumber(os.getenv("BENCH_G5") or 1024))
  or csr.m27(tonumber(os.getenv("BENCH_G27") or 40), "26.5")
timer:reset()
local F = sparse.cholesky(A)
local tf = timer:seconds()
local L = sparse.cholesky_lower(F)
local n = L:nrows()
print(("I\tfactor\t%s\tn=%d nnz(L)=%d supernodes=%d factor_s=%.3f"):format(M, n, L:nnz(),
      F:info().supernodes, tf))
timer:reset()
local h = sparse.sptrsv_symbolic(L, {algorithm = ALGO})
local ts = timer:seconds()
print(("I\tsymbolic\t%s\t%s\t%.4f\tlevels=%d supernodes=%s"):format(M, ALGO, ts, h.nlevels,
      tostring(h.nsupernodes)))
local b = speck.View("b", "float64", n, {init = false})
speck.parallel_for("bench.b", n, {b = b}, "b(i) = 1.0 + (double)(i % 1000003) * 1e-6;")
local x = speck.View("x", "float64", n)
local function run(trans)
  local t = records.time_median(function() sparse.sptrsv_solve(h, L, b, x, {trans = trans}) end,
                                REPS, WARM)
  local check = speck.parallel_reduce("bench.check", n, {y = x},
                                      "acc += y(i) * (double)(1 + i % 3);")
  return t, check
end
local t, c = run("N")
print(("R\tL-%s\t%s\t%.9e\t%.17g"):format(M, ALGO, t, c))
if ALGO == "supernodal" then
  t, c = run("T")
  print(("R\tLT-%s\t%s\t%.9e\t%.17g"):format(M, ALGO, t, c))
end
