-- zlinalg.lua: speck's side of scripts/bench/dense/zlinalg_run: complex
-- trsm, potrf, getrf, gesv, trtri, trmm and herk (impl "auto": OpenBLAS on
-- the host, and "native": the dialect kernels) and complex batched gemm
-- and gesv. Prints one
-- record a line, "speck <kernel> <size> <seconds>" (the best of
-- BENCH_REPS runs after a warm-up that compiles; in-place inputs restored
-- before each run, untimed).
--   speck zlinalg.lua trsm|potrf|getrf|gesv|trtri|trmm|herk N [impl]
--   speck zlinalg.lua bgemm|bgesv N BATCH
local blas = require "speck.blas"
local batched = require "speck.batched"
local what, n, third = arg[1], tonumber(arg[2]), arg[3]
local reps = tonumber(os.getenv("BENCH_REPS") or "5")
local dt = os.getenv("BENCH_DTYPE") or "complex128"

local function best(setup, f)
  setup()
  f()
  speck.fence()
  local t = speck.Timer()
  local b = math.huge
  for _ = 1, reps do
    setup()
    speck.fence()
    t:reset()
    f()
    speck.fence()
    b = math.min(b, t:seconds())
  end
  return b
end

-- the problems of zlinalg_peer.py: A(i, j) a fixed pattern, off-diagonal
-- entries small (well conditioned), the diagonal n + 1
local INIT = [[
double re = (double)((i * 7 + j * 3) % 11) / 11 - 0.5, im = (double)((i + 5 * j) % 7) / 7 - 0.5;
if (i == j) A(i, j) = cmplx(n + 1.0, 0); else A(i, j) = cmplx(re / n, im / n);]]

if what == "bgesv" then
  -- diagonally dominant matrices, one right-hand side each (mode auto)
  local nb = tonumber(third)
  local A0 = speck.View("A0", dt, {nb, n, n})
  local A = speck.View("A", dt, {nb, n, n})
  local B0 = speck.View("B0", dt, {nb, n, 1})
  local B = speck.View("B", dt, {nb, n, 1})
  speck.parallel_for("init", speck.MDRangePolicy({0, 0, 0}, {nb, n, n}), {A = A0, B = B0, n = {"int64", n}},
    "A(i, j, k) = j == k ? cmplx(n + 1.0, 0) : cmplx((double)((i + j * 7 + k) % 13) / 13 - 0.5, 0.25); if (k == 0) B(i, j, 0) = cmplx(j, 1);")
  print(("speck bgesv %dx%d/%d %.6g"):format(n, n, nb,
        best(function() speck.deep_copy(A, A0); speck.deep_copy(B, B0) end,
             function() batched.gesv(A, B) end)))
  return
end

if what == "bgemm" then
  local nb = tonumber(third)
  local A = speck.View("A", dt, {nb, n, n})
  local B = speck.View("B", dt, {nb, n, n})
  local C = speck.View("C", dt, {nb, n, n})
  speck.parallel_for("init", speck.MDRangePolicy({0, 0, 0}, {nb, n, n}), {A = A, B = B},
    "A(i, j, k) = cmplx((double)((i + j * 7 + k) % 13) / 13, (double)((j + 3 * k) % 5) / 5); B(i, j, k) = conj(A(i, k, j));")
  print(("speck bgemm %dx%d/%d %.6g"):format(n, n, nb,
        best(function() end, function() batched.gemm("N", "N", 1, A, B, 0, C) end)))
  return
end

local impl = third or "auto"
local A0 = speck.View("A0", dt, {n, n}, {layout = "left"})
speck.parallel_for("init", speck.MDRangePolicy({0, 0}, {n, n}), {A = A0, n = {"int64", n}}, INIT)
local A = speck.View("A", dt, {n, n}, {layout = "left"})
local label = ("%s-%s"):format(what, impl)
if what == "trsm" then
  local B0 = speck.View("B0", dt, {n, n}, {layout = "left"})
  speck.deep_copy(B0, A0)
  local B = speck.View("B", dt, {n, n}, {layout = "left"})
  speck.deep_copy(A, A0)
  print(("speck %s %d %.6g"):format(label, n, best(function() speck.deep_copy(B, B0) end,
    function() blas.trsm("L", "L", "C", "N", 1, A, B, {impl = impl}) end)))
elseif what == "potrf" then
  -- H = A + A^H: Hermitian, diagonally dominant
  local H0 = speck.View("H0", dt, {n, n}, {layout = "left"})
  speck.parallel_for("herm", speck.MDRangePolicy({0, 0}, {n, n}), {A = A0, H = H0},
                     "H(i, j) = A(i, j) + conj(A(j, i));")
  print(("speck %s %d %.6g"):format(label, n, best(function() speck.deep_copy(A, H0) end,
    function() blas.potrf("L", A, {impl = impl}) end)))
elseif what == "gesv" or what == "trmm" then
  local B0 = speck.View("B0", dt, {n, n}, {layout = "left"})
  speck.deep_copy(B0, A0)
  local B = speck.View("B", dt, {n, n}, {layout = "left"})
  speck.deep_copy(A, A0)
  local f = what == "gesv" and function() blas.gesv(A, B, {impl = impl}) end
            or function() blas.trmm("L", "L", "C", "N", 1, A, B, {impl = impl}) end
  print(("speck %s %d %.6g"):format(label, n, best(function()
    speck.deep_copy(B, B0)
    if what == "gesv" then speck.deep_copy(A, A0) end
  end, f)))
elseif what == "trtri" then
  print(("speck %s %d %.6g"):format(label, n, best(function() speck.deep_copy(A, A0) end,
    function() blas.trtri("U", "N", A, {impl = impl}) end)))
elseif what == "herk" then
  local C = speck.View("C", dt, {n, n}, {layout = "left"})
  speck.deep_copy(A, A0)
  print(("speck %s %d %.6g"):format(label, n, best(function() end,
    function() blas.herk("L", "N", 1, A, 0, C, {impl = impl}) end)))
elseif what == "getrf" then
  local p = speck.View("p", "int32", n)
  print(("speck %s %d %.6g"):format(label, n, best(function() speck.deep_copy(A, A0) end,
    function() blas.getrf(A, p, {impl = impl}) end)))
end
