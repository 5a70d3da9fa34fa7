-- gpu.lua: the speck side of scripts/bench/gpu (run on a CUDA device).
--   speck gpu.lua main LOG2N REPS LAUNCHES STENCIL_N
--   speck gpu.lua compile        (one new kernel: NVRTC or disk cache)
-- Prints "RESULT name value" lines: seconds per operation (median of
-- REPS, each fenced), and checks every result against a reference.
speck.initialize{space = "cuda"}
local mode = arg[1]

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function time(reps, fn)
  fn(); fn()
  speck.fence()
  local ts = {}
  for r = 1, reps do
    local t = speck.Timer()
    fn()
    speck.fence()
    ts[r] = t:seconds()
  end
  return median(ts)
end

local function result(name, v) print(("RESULT %s %.9g"):format(name, v)) end

if mode == "compile" then
  -- a kernel no cache has seen: its body carries this process's clock
  local x = speck.View("x", "float64", 1024)
  local t = speck.Timer()
  speck.parallel_for("compile_probe", 1024, {x = x},
                     ("x(i) = %d.0 + i;"):format(os.time()))
  speck.fence()
  local k = speck.jit.stats().per_kernel[1]
  result("first_launch", t:seconds())
  result(k.cache_hits > 0 and "cache_load" or "nvrtc_compile", k.compile_seconds)
  return
end

local log2n, reps = tonumber(arg[2]), tonumber(arg[3])
local launches, sn = tonumber(arg[4]), tonumber(arg[5])
local n = 1 << log2n
local x = speck.View("x", "float64", n)
local y = speck.View("y", "float64", n)
local z = speck.View("z", "float64", n)
speck.parallel_for("init", n, {x = x, y = y},
                   "x(i) = (double)(i % 1000) * 1e-3; y(i) = 1.0 + (double)(i % 7);")

-- device-to-device copy (cuMemcpyAsync through deep_copy)
result("speck_copy", time(reps, function() speck.deep_copy(z, x) end))
-- axpy: reads x, y, writes y
result("axpy", time(reps, function()
  speck.parallel_for("axpy", n, {x = x, y = y, a = 1e-9}, "y(i) = a * x(i) + y(i);")
end))
-- dot and sum
local dot
result("dot", time(reps, function()
  dot = speck.parallel_reduce("dot", n, {x = x, y = z}, "acc += x(i) * y(i);")
end))
-- the library's BLAS-1 (speck.blas: the same dialect bodies, NVRTC here)
local blas = require "speck.blas"
local bdot
result("blas_dot", time(reps, function() bdot = blas.dot(x, z) end))
assert(math.abs(bdot - dot) <= 1e-9 * math.abs(dot), "blas.dot " .. bdot .. " vs " .. dot)
result("blas_axpy", time(reps, function() blas.axpy(1e-9, x, y) end))
local s
result("sum", time(reps, function()
  s = speck.parallel_reduce("sum", n, {x = x}, "acc += x(i);")
end))
-- reference for the sum: x(i) = (i % 1000) * 1e-3 exactly summed per period
local per = 0
for i = 0, 999 do per = per + i * 1e-3 end
local want = per * (n // 1000)
for i = 0, n % 1000 - 1 do want = want + i * 1e-3 end
assert(math.abs(s - want) <= 1e-9 * want, ("sum %.17g, expected %.17g"):format(s, want))
result("sum_value", s)

-- empty launch: a compiled kernel handle, one work item
local empty = speck.kernel("empty", "range", {}, "")
for _ = 1, 100 do empty(1, {}) end
speck.fence()
local best = math.huge
for _ = 1, 5 do
  local t = speck.Timer()
  for _ = 1, launches do empty(1, {}) end
  speck.fence()
  best = math.min(best, t:seconds() / launches)
end
result("empty", best)
best = math.huge
for _ = 1, 5 do
  local t = speck.Timer()
  for _ = 1, launches do speck.parallel_for("empty_pf", 1, {}, "") end
  speck.fence()
  best = math.min(best, t:seconds() / launches)
end
result("empty_parallel_for", best)
x, y, z = nil, nil, nil
collectgarbage()

-- 3D 7-point stencil over the interior of sn^3 (layout left)
local A = speck.View("A", "float64", {sn, sn, sn}, {layout = "left"})
local B = speck.View("B", "float64", {sn, sn, sn}, {layout = "left"})
speck.deep_copy(A, 1.0)
local pol = speck.MDRangePolicy({1, 1, 1}, {sn - 1, sn - 1, sn - 1})
result("stencil", time(reps, function()
  speck.parallel_for("stencil7", pol, {A = A, B = B}, [[
    B(i, j, k) = 0.4 * A(i, j, k) + 0.1 * (A(i - 1, j, k) + A(i + 1, j, k) +
                 A(i, j - 1, k) + A(i, j + 1, k) + A(i, j, k - 1) + A(i, j, k + 1));]])
end))
local chk = speck.parallel_reduce("stencil_check", pol, {B = B}, "acc += B(i, j, k);")
assert(math.abs(chk - (sn - 2) ^ 3) <= 1e-9 * (sn - 2) ^ 3, "stencil result " .. chk)
