-- quickstart.lua: a short tour of speck. Run it with
--
--   build/bin/speck examples/quickstart.lua        (or: make demo)
--
-- Views are arrays with a layout and a memory space; kernel bodies are C
-- statements compiled at run time; the same script runs on every back end
-- (SPECK_SPACE=serial|openmp|cuda).

local speck = speck or require "speck"

local n = 1000000
local info = speck.info()
print(("speck %s on %s (%d threads)"):format(speck.version, info.default_space,
                                             info.threads))

-- Views: x = 0, 1, 2, ... and y = 1, filled by kernels.
local x = speck.View("x", "float64", n)
local y = speck.View("y", "float64", n)
speck.parallel_for("iota", n, {x = x, y = y}, [[
  x(i) = (double)i;
  y(i) = 1.0;
]])
print(x, "x(0..3) =", x(0), x(1), x(2), x(3))

-- axpy: y = a*x + y. Captured Lua numbers become C constants.
local t = speck.Timer()
speck.parallel_for("axpy", n, {x = x, y = y, a = 2.0}, [[
  y(i) = a * x(i) + y(i);
]])
speck.fence()
print(("axpy: y(10) = %g (%.2f ms)"):format(y(10), t:seconds() * 1e3))

-- A reduction: the body adds into 'acc'.
local dot = speck.parallel_reduce("dot", n, {x = x, y = y}, [[
  acc += x(i) * y(i);
]])
print(("dot(x, y) = %.6g"):format(dot))

-- Other reducers: the largest element, and where it is.
local biggest = speck.parallel_reduce("max", n, {y = y}, [[
  if (y(i) > acc) acc = y(i);
]], "max")
local val, loc = speck.parallel_reduce("argmin", n, {x = x}, [[
  double d = fabs(x(i) - 123.4);
  if (d < acc.val) { acc.val = d; acc.loc = i; }
]], "minloc")
print(("max(y) = %g; x is nearest 123.4 at %d (distance %g)"):format(
  biggest, loc, val))

-- A scan: exclusive prefix sums of 1, 2, 3, ... into 'sums'.
local m = 10
local sums = speck.View("sums", "int64", m)
local total = speck.parallel_scan("prefix", m, {sums = sums}, [[
  if (final) sums(i) = acc;
  acc += i + 1;
]])
local parts = {}
for i = 0, m - 1 do parts[#parts + 1] = tostring(sums(i)) end
print(("prefix sums: %s (total %d)"):format(table.concat(parts, " "), total))

-- A 2-D iteration space: an MDRange fills a matrix with i*10 + j.
local A = speck.View("A", "float64", {3, 4})
speck.parallel_for("fill", speck.MDRangePolicy({0, 0}, {3, 4}), {A = A}, [[
  A(i, j) = i * 10 + j;
]])
for i = 0, 2 do
  local row = {}
  for j = 0, 3 do row[#row + 1] = ("%3g"):format(A(i, j)) end
  print("A[" .. i .. "] = " .. table.concat(row, " "))
end

local stats = speck.jit.stats()
print(("jit: %s kernels compiled in %.1f ms"):format(
  tostring(stats.compiles), (stats.compile_seconds or 0) * 1e3))
