-- ad.lua: the speck side of scripts/bench/ad (run by ./run): y = exp(x) *
-- sqrt(x + 1) * x on a view of fad(8) (value and 8 derivatives, the
-- components of an element contiguous), at the cc tier; the kernel
-- launched twice untimed, then 9 timed launches (speck.Timer around the
-- launch and speck.fence), the median printed as
-- 'R ad-f <impl> <median s> <checksum>'. The data are those of ref.c.
--
-- Usage: speck ad.lua N
local speck = require "speck"
local N = tonumber(arg[1]) or 1000000
local F = speck.dtype.fad(8)
local X = speck.View("X", F, N)
local Y = speck.View("Y", F, N)
local CC = {jit = "cc"}
speck.parallel_for("ad_init", N, {X = X},
                   "X(i) = fad8_var(0.5 + (double)(i % 1000) * 1e-3, i % 8);", CC)
local function run()
  speck.parallel_for("ad_f", N, {X = X, Y = Y}, [[
    fad8 x = X(i);
    Y(i) = fad_mul(fad_mul(fad_exp(x), fad_sqrt(fad_shift(x, 1.0))), x);
  ]], CC)
end
run() run() speck.fence()
local t, timer = {}, speck.Timer()
for r = 1, 9 do
  timer:reset()
  run()
  speck.fence()
  t[r] = timer:seconds()
end
table.sort(t)
local s = speck.parallel_reduce("ad_check", N, {Y = Y}, "acc = fad_add(acc, Y(i));",
                                {op = "sum", dtype = F}, CC)
local check = 0
for _, c in ipairs(s) do check = check + c end
print(string.format("R\tad-f\tspeck-fad8\t%.9e\t%.17g", t[5], check))
