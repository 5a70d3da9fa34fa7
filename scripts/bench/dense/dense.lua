-- dense.lua: speck's side of scripts/bench/dense/run.
--   speck dense.lua batched N BATCH REPS   batched.gemm (mode auto) on BATCH N x N matrices
--   speck dense.lua batched32 N BATCH REPS the same in float32 (no packed form)
--   speck dense.lua large N REPS           blas.gemm native and vendor (OpenBLAS)
--   speck dense.lua cross REPS             blas.gemm native and vendor at n = 16 .. 512
-- Prints "R\t<impl>\t<n>\t<seconds per call>\t<checksum>" lines.
local speck = require "speck"
local blas = require "speck.blas"
local batched = require "speck.batched"

local what, n = arg[1], tonumber(arg[2])
local INNER = 10

-- the peer's data: x[i] from the same LCG (peer.c's fill)
local function fill(v, seed)
  local flat = speck.View("flat", "float64", v:size())
  speck.parallel_for("bench_fill", 1, {x = flat, s0 = seed}, [[
    uint32_t s = (uint32_t)s0;
    for (sk_i64 q = 0; q < x.extent[0]; q++) {
      s = s * 1103515245u + 12345u;
      x(q) = (double)(s >> 8) / 16777216.0 - 0.5;
    }]])
  speck.parallel_for("bench_copy", speck.MDRangePolicy({0, 0, 0}, v:extents()), {v = v, f = flat},
    "v(i, j, k) = f((i * v.extent[1] + j) * v.extent[2] + k);")
end

local function sum(v)
  return speck.parallel_reduce("bench_sum", speck.MDRangePolicy({0, 0, 0}, v:extents()), {v = v},
                               "acc += v(i, j, k);")
end

if what == "batched" then
  local nb, reps = tonumber(arg[3]), tonumber(arg[4])
  local A = speck.View("A", "float64", {nb, n, n})
  local B = speck.View("B", "float64", {nb, n, n})
  local C = speck.View("C", "float64", {nb, n, n})
  fill(A, 1); fill(B, 2)
  -- the same matrices SIMD-packed (batched.pack: 8 per group, lanes innermost)
  local Ap, Bp, Cp = batched.pack(A), batched.pack(B), batched.pack(C)
  local U = speck.View("U", "float64", {nb, n, n})
  for _ = 1, reps do
    batched.gemm("N", "N", 1.0, A, B, 0.0, C)   -- warm
    local t = speck.now()
    for _ = 1, INNER do batched.gemm("N", "N", 1.0, A, B, 0.0, C) end
    t = (speck.now() - t) / INNER
    print(("R\tspeck\t%d\t%.6f\t%.6e"):format(n, t, sum(C)))
    batched.gemm("N", "N", 1.0, Ap, Bp, 0.0, Cp)
    t = speck.now()
    for _ = 1, INNER do batched.gemm("N", "N", 1.0, Ap, Bp, 0.0, Cp) end
    t = (speck.now() - t) / INNER
    batched.unpack(Cp, U)
    print(("R\tspeck-packed\t%d\t%.6f\t%.6e"):format(n, t, sum(U)))
    io.stdout:flush()
  end
elseif what == "batched32" then
  -- float32: the same values rounded (peer.c's batchedf), speck only
  local nb, reps = tonumber(arg[3]), tonumber(arg[4])
  local A = speck.View("A", "float32", {nb, n, n})
  local B = speck.View("B", "float32", {nb, n, n})
  local C = speck.View("C", "float32", {nb, n, n})
  fill(A, 1); fill(B, 2)
  for _ = 1, reps do
    batched.gemm("N", "N", 1.0, A, B, 0.0, C)   -- warm
    local t = speck.now()
    for _ = 1, INNER do batched.gemm("N", "N", 1.0, A, B, 0.0, C) end
    t = (speck.now() - t) / INNER
    print(("R\tspeck32\t%d\t%.6f\t%.6e"):format(n, t, sum(C)))
    io.stdout:flush()
  end
elseif what == "cross" then
  local rounds = tonumber(arg[2])
  for _, m in ipairs({16, 32, 64, 128, 192, 256, 384, 512}) do
    local A = speck.View("A", "float64", {m, m}):fill(1.0)
    local B = speck.View("B", "float64", {m, m}):fill(0.5)
    local C = speck.View("C", "float64", {m, m})
    local reps = math.max(1, math.floor(1e8 / m ^ 3))
    for _ = 1, rounds do
      for _, impl in ipairs({"native", "vendor"}) do
        blas.gemm("N", "N", 1.0, A, B, 0.0, C, {impl = impl})
        local t = speck.now()
        for _ = 1, reps do blas.gemm("N", "N", 1.0, A, B, 0.0, C, {impl = impl}) end
        t = (speck.now() - t) / reps
        print(("X\t%s\t%d\t%.6f"):format(impl, m, t))
      end
    end
  end
else
  local reps = tonumber(arg[3])
  local A = speck.View("A", "float64", {n, n})
  local B = speck.View("B", "float64", {n, n})
  local C = speck.View("C", "float64", {n, n})
  A:fill(0.5); B:fill(0.25)
  for _ = 1, reps do
    for _, impl in ipairs({"native", "vendor"}) do
      local t = speck.now()
      blas.gemm("N", "N", 1.0, A, B, 0.0, C, {impl = impl})
      t = speck.now() - t
      print(("R\tspeck-%s\t%d\t%.6f\t%.6e"):format(impl, n, t, C(1, 2)))
      io.stdout:flush()
    end
  end
end
