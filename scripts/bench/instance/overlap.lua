-- overlap.lua: copy and compute on two execution-space instances
-- (speck.Instance): a deep_copy of MiB megabytes from page-locked host
-- memory to the device on instance A, a compute-bound kernel sized to take
-- about as long on instance B, each alone and both at once (the median of
-- REPS runs). On a GPU back end "both" approaches max(copy, kernel); on
-- the host back ends instances are the default one and "both" is the sum.
--
--   build/bin/speck scripts/bench/instance/overlap.lua [MiB]   (SPECK_SPACE=cuda)
--
-- Prints the records of scripts/bench/lib/records.lua: R overlap <impl>
-- <seconds> <bytes> <checksum> for impl copy, kernel, both, and I facts.
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")

local MIB = tonumber(arg[1]) or 1024
local n = MIB * (1 << 20) // 8
local info = speck.info()
local gpu = info.default_space == "cuda"
local pin = speck.View("pin", "float64", n, {space = gpu and "cuda_pinned" or "host"})
local dev = speck.View("dev", "float64", n)
speck.parallel_for("ov_fill", n, {p = pin}, "p(i) = (double)(i % 1000);")
local m = gpu and 1 << 20 or 1 << 12   -- host: a short kernel, no sizing
local out = speck.View("out", "float64", m)
local A, B = speck.Instance(), speck.Instance()

local function copy() speck.deep_copy(dev, pin, {instance = A}) end
local K = 1024
local function kernel()
  speck.parallel_for("ov_spin", m, {out = out, K = K}, [[
    double x = (double)i * 1e-9;
    for (int64_t k = 0; k < K; k++) x = x * 0.999999 + 1e-7;
    out(i) = x;
  ]], {instance = B})
end
local function both() copy(); kernel() end

local function median(f)
  collectgarbage("stop") -- a free would order the default stream after B
  local t = records.time_median(f)
  collectgarbage("restart")
  return t
end

local tc = median(copy)
local tk = median(kernel)
while gpu and tk < tc and K < (1 << 26) do
  K = K * 2
  tk = median(kernel)
end
local tb = median(both)
local sum = speck.parallel_reduce("ov_sum", n, {d = dev}, "acc += d(i);")
records.info("speck", "space", info.default_space)
records.info("speck", "MiB", MIB)
records.info("speck", "K", K)
records.record("overlap", "copy", tc, 8 * n, sum)
records.record("overlap", "kernel", tk, 0, K)
records.record("overlap", "both", tb, 8 * n, sum)
print(("# copy %.2f ms (%.1f GB/s), kernel %.2f ms, both %.2f ms = %.0f%% of the sum")
  :format(tc * 1e3, 8 * n / tc / 1e9, tk * 1e3, tb * 1e3, 100 * tb / (tc + tk)))
