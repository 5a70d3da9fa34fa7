-- csr16_build.lua: the compact index's build cost against an SpMV
-- (kernels/sparse/csr16.c), 5-point 2048^2 on the default space: calls
-- 1-2 run plain CSR, call 3 builds the index (sparse.csr16_make) and runs
-- the compact kernel, calls 4.. compact; plain again on a copy whose
-- arrays are exposed (view:data(): no compact index for them). Prints
-- the medians, the build (call 3 minus a compact call) in plain SpMVs and
-- after how many SpMVs it pays back.
--   speck scripts/bench/sparse/csr16_build.lua
local sparse = require "speck.sparse"
local LIB = (arg[0]:match("^(.*)/") or ".") .. "/../lib/"
local csr = dofile(LIB .. "csr.lua")
local A = csr.m5(2048)
local n = A:nrows()
local x = speck.View("x", "float64", n)
x:fill(1)
local y = speck.View("y", "float64", n)
local T = speck.Timer()
local function timed(M)
  speck.fence()
  T:reset()
  sparse.spmv("N", 1.0, M, x, 0.0, y)
  speck.fence()
  return T:seconds()
end
local plain, comp = {timed(A), timed(A)}, {}
local third = timed(A)
for k = 1, 9 do comp[k] = timed(A) end
local B = A:to(A:space())
B.colidx:data()
for _ = 1, 9 do plain[#plain + 1] = timed(B) end
table.sort(plain)
table.sort(comp)
local mp, mc = plain[#plain // 2 + 1], comp[5]
print(("plain %.2f ms, compact %.2f ms, call 3 (build + compact) %.2f ms: the build %.2f ms"
       .. " = %.2f plain SpMVs, paid back after %.1f SpMVs"):format(
  mp * 1e3, mc * 1e3, third * 1e3, (third - mc) * 1e3, (third - mc) / mp,
  (third - mc) / (mp - mc)))
