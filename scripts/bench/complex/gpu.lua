-- gpu.lua: speck's side of scripts/bench/complex/gpu_run, on the GPU
-- (SPECK_SPACE=cuda): complex128 gemm C = A B^H through the back end's
-- vendor BLAS (impl "auto") and the library's own kernel (impl
-- "native"), and complex SpMV on the 5-point pattern of an NX x NX grid
-- (4+i on the diagonal, the matrix built on the device). Prints
-- "speck <kernel> <size> <seconds>" records (median of BENCH_REPS runs
-- after a warm-up).
--   speck gpu.lua gemm N | gemm_native N | spmv NX
local blas = require "speck.blas"
local sparse = require "speck.sparse"
local what, n = arg[1], tonumber(arg[2])
local reps = tonumber(os.getenv("BENCH_REPS") or "7")

local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")
local function median(f)
  f()
  speck.fence()
  return (records.time_median(f, reps, 1))
end

if what == "gemm" or what == "gemm_native" then
  local A = speck.View("A", "complex128", {n, n}, {layout = "left"})
  local B = speck.View("B", "complex128", {n, n}, {layout = "left"})
  local C = speck.View("C", "complex128", {n, n}, {layout = "left"})
  speck.parallel_for("init", speck.MDRangePolicy({0, 0}, {n, n}), {A = A, B = B},
    "A(i, j) = cmplx((double)((i * 7 + j) % 13) / 13, (double)((i + 3 * j) % 5) / 5); B(i, j) = conj(A(j, i));")
  local impl = what == "gemm" and "auto" or "native"
  print(("speck %s %d %.6g"):format(what, n,
    median(function() blas.gemm("N", "C", 1, A, B, 0, C, {impl = impl}) end)))
elseif what == "spmv" then
  local N = n * n
  local rowptr = speck.View("rowptr", "int64", N + 1)
  local colidx = speck.View("colidx", "int32", 5 * N)
  local vals = speck.View("vals", "complex128", 5 * N)
  -- row r's entries at 5 r .. 5 r + 4 (missing neighbours at the border
  -- become explicit zeros on the diagonal's column, as a padded stencil)
  speck.parallel_for("rp", N + 1, {rowptr = rowptr}, "rowptr(i) = 5 * i;")
  speck.parallel_for("fill", N, {colidx = colidx, vals = vals, n = n}, [[
    long y = i / n, x = i % n, p = 5 * i;
    colidx(p) = (int)(y > 0 ? i - n : i);     vals(p) = y > 0 ? cmplx(-1, 0.5) : cmplx(0, 0);
    colidx(p + 1) = (int)(x > 0 ? i - 1 : i); vals(p + 1) = x > 0 ? cmplx(-1, -0.5) : cmplx(0, 0);
    colidx(p + 2) = (int)i;                   vals(p + 2) = cmplx(4, 1);
    colidx(p + 3) = (int)(x < n - 1 ? i + 1 : i); vals(p + 3) = x < n - 1 ? cmplx(-1, 0.5) : cmplx(0, 0);
    colidx(p + 4) = (int)(y < n - 1 ? i + n : i); vals(p + 4) = y < n - 1 ? cmplx(-1, -0.5) : cmplx(0, 0);]])
  local A = sparse.CrsMatrix{nrows = N, ncols = N, rowptr = rowptr, colidx = colidx, values = vals}
  local x = speck.View("x", "complex128", N)
  local y = speck.View("y", "complex128", N)
  x:fill({1, -1})
  print(("speck spmv %d %.6g"):format(n, median(function() sparse.spmv("N", 1, A, x, 0, y) end)))
end
