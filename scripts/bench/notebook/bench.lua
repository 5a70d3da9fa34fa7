-- bench.lua: speck.plot's large pictures: a line of 10^6 points and the
-- spy of a 10^6-row matrix (a 1000x1000 grid graph's adjacency), from
-- the call to the SVG string, median of 5. Target: under a second each.
local plot = require "speck.plot"
local graph = require "speck.graph"
local function median(t) table.sort(t) return t[(#t + 1) // 2] end
local n = 1000000
local x, y = speck.View("x", "float64", n), speck.View("y", "float64", n)
speck.parallel_for("fill", n, {x = x, y = y}, "x(i) = i; y(i) = sin(i * 1e-4);")
local A = graph.grid2d(1000, 1000):matrix()
local function time(f)
  local ts = {}
  for _ = 1, 5 do
    local t = speck.Timer()
    f()
    ts[#ts + 1] = t:seconds()
  end
  return median(ts)
end
local tl = time(function() return plot.line(x, y):svg() end)
local ts = time(function() return plot.spy(A):svg() end)
print(("R\tplot_line_1e6\tspeck\t%.6f"):format(tl))
print(("R\tplot_spy_1e6_rows\tspeck\t%.6f"):format(ts))
print()
print("| picture | seconds | target |")
print("| --- | --- | --- |")
print(("| plot.line, 10^6 points | %.3f | < 1 |"):format(tl))
print(("| plot.spy, 10^6 rows, 4x10^6 entries | %.3f | < 1 |"):format(ts))
