-- luajit.lua: speck from LuaJIT through its FFI (speck.ffi): a LuaJIT
-- program keeps its own arrays (ffi.new), hands them to speck's kernels
-- without copying, and calls a library kernel by name.
--
--   LUA_PATH='build/share/lua/5.4/?.lua;;' luajit examples/luajit.lua
--   (installed: luajit finds speck.ffi in <prefix>/share/lua/5.1)
local ffi = require "ffi"
local sf = require "speck.ffi"

local rt = sf.open()   -- SPECK_SPACE (serial | openmp) or the default
print(("speck %s on %s, from %s"):format(sf.version, rt:space(), jit.version))

-- a 1D heat equation u_t = u_xx on n points, explicit Euler, in the
-- program's own memory
local n, steps = 1000, 2000
local u = ffi.new("double[?]", n)
local w = ffi.new("double[?]", n)
for i = 0, n - 1 do u[i] = math.abs(i - n / 2) < 20 and 1.0 or 0.0 end
local Uh = rt:wrap("u", "float64", n, u)   -- zero-copy views of u and w
local Wh = rt:wrap("w", "float64", n, w)
-- host back ends run on them as they are; a GPU gets device copies
local gpu = rt:space() == "cuda"
local U, W = Uh, Wh
if gpu then
  U, W = rt:view("u_dev", "float64", n), rt:view("w_dev", "float64", n)
  rt:deep_copy(U, Uh)
end

local before = rt:call("blas.asum", {x = U})
local step = [[
  if (i == 0 || i == n - 1) { w(i) = 0; }
  else { w(i) = u(i) + r * (u(i - 1) - 2 * u(i) + u(i + 1)); }
]]
for s = 1, steps do
  -- the same compiled kernel every step; the views swap roles
  local a, b = (s % 2 == 1) and U or W, (s % 2 == 1) and W or U
  rt:parallel_for("heat", n, {u = a, w = b, r = 0.25, n = ffi.new("int64_t", n)}, step)
end
if gpu then rt:deep_copy(Uh, U); rt:deep_copy(Wh, W) end
rt:fence()
local final = steps % 2 == 1 and w or u   -- read straight from FFI memory
local after = rt:call("blas.asum", {x = steps % 2 == 1 and W or U})
local peak = rt:parallel_reduce("peak", n, {u = steps % 2 == 1 and W or U},
                                "if (u(i) > acc) acc = u(i);", "max")
print(("heat: %d steps, heat %.6f -> %.6f (kept), peak 1 -> %.4f = u[n/2] %.4f")
      :format(steps, before, after, peak, final[n / 2]))
assert(math.abs(after - before) < 1e-9 and peak < 0.9 and peak == final[n / 2])
print("OK")
