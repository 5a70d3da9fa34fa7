-- blas1.lua: the Lua side of scripts/bench/blas1 (run by ./run with
-- bin/speck): speck.blas from Lua.
--
-- Usage: speck blas1.lua KERNEL [log2n [launches]]
--   dot, axpy  blas.dot(x, y) / blas.axpy(0.5, x, y) on 2^log2n float64
--              elements: WARM untimed calls, then the median of REPS, each
--              timed by speck.Timer around the call and speck.fence()
--   scal2      blas.scal(1.0, x) on a view of 2 elements (one per thread:
--              the pool runs), one call at a time, median of 'launches'
--   scal1      the same on 1 element: a range of one index runs on the
--              calling thread, no thread is woken
-- Records (impl "speck-lua") as ref.c prints them; data and checksums
-- (dot's value, axpy's sum of y after WARM + REPS updates) match ref.c.
-- Also records which tier ran each library kernel (speck.jit.stats).

local blas = require "speck.blas"

local KERNEL = arg[1] or ""
local log2n = tonumber(arg[2]) or 25
local LAUNCHES = tonumber(arg[3]) or 20000
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")
local median, time_median = records.median, records.time_median

local function record(kernel, t, bytes, check)
  records.record(kernel, "speck-lua", t, bytes, check)
end

local function info(key, value) records.info("speck-lua", key, value) end

-- the tiers that ran the kernels labelled 'label' (launches > 0)
local function tiers_of(label)
  local seen = {}
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label and k.launches > 0 then seen[#seen + 1] = k.tier end
  end
  return #seen > 0 and table.concat(seen, "+") or "?"
end

local timer = speck.Timer()
local bench = {}

local function xy(n)
  local x = speck.View("x", "float64", n, {init = false})
  local y = speck.View("y", "float64", n, {init = false})
  -- at tier tcc only: "auto" would start a cc compile in the background
  -- that runs during the timed calls
  speck.parallel_for("bench_init_xy", n, {x = x, y = y}, [[
    x(i) = 1.0 + (double)(i % 1000003) * 1e-6;
    y(i) = 2.0 - (double)(i % 999983) * 1e-6;]], {jit = "tcc"})
  return x, y
end

function bench.dot()
  local n = 1 << log2n
  local x, y = xy(n)
  local t, s = time_median(function() return blas.dot(x, y) end)
  record("dot", t, 16 * n, s)
  info("tier_dot", tiers_of("blas.dot"))
end

function bench.axpy()
  local n = 1 << log2n
  local x, y = xy(n)
  local t = time_median(function() blas.axpy(0.5, x, y) end)
  record("axpy", t, 24 * n, blas.asum(y))   -- y > 0: asum is its sum
  info("tier_axpy", tiers_of("blas.axpy"))
end

-- one call at a time after 1000 untimed ones
local function per_call(kernel, n)
  local x = speck.View("x", "float64", n)
  for _ = 1, 1000 do blas.scal(1.0, x) end
  local t = {}
  for r = 1, LAUNCHES do
    timer:reset()
    blas.scal(1.0, x)
    speck.fence()
    t[r] = timer:seconds()
  end
  record(kernel, median(t))
  info("tier_" .. kernel, tiers_of("blas.scal"))
end

function bench.scal2() per_call("scal2", 2) end
function bench.scal1() per_call("scal1", 1) end

if not bench[KERNEL] then
  io.stderr:write("usage: speck blas1.lua dot|axpy|scal2|scal1 [log2n [launches]]\n")
  os.exit(2)
end
local inf = speck.info()
info("threads", inf.threads)
info("space", inf.default_space)
-- the cost of the timer itself: reset + seconds with nothing between
info("timer_overhead_us", records.timer_overhead(10000))
bench[KERNEL]()
