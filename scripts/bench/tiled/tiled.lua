-- tiled.lua: scripts/bench/tiled (run by ./run): a 2D transpose
-- B(j, i) = A(i, j) of an N x N float64 matrix, row-major (layout right)
-- against the tiled layout (seed 004 Fig. 5), at the cc tier, with
-- BENCH_THREADS threads. Each variant: the kernel launched twice untimed,
-- then REPS timed launches (speck.Timer around launch and speck.fence);
-- the median is reported, with the bandwidth counting one read and one
-- write of the matrix. Prints a Markdown table (ratio = row-major time /
-- variant time; > 1: faster than the row-major transpose).
--
-- Usage: speck tiled.lua N
local speck = require "speck"

local N = tonumber(arg[1]) or 4096
local REPS = 9
local CC = {jit = "cc"}

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local timer = speck.Timer()
local function time_median(f)
  f() f() speck.fence()
  local t = {}
  for r = 1, REPS do
    timer:reset()
    f()
    speck.fence()
    t[r] = timer:seconds()
  end
  return median(t)
end

local function layout(tile)
  return tile and {tile = {tile, tile}, order = "right"} or "right"
end

-- variant: name, tile of the views (nil: row-major), MDRange tile
local VARIANTS = {
  {"row-major A and B, MDRange default tiles", nil, nil},
  {"row-major A and B, MDRange 32x32 tiles", nil, 32},
  {"tiled 8x8 A and B, MDRange 8x8 tiles", 8, 8},
  {"tiled 32x32 A and B, MDRange 32x32 tiles", 32, 32},
  {"tiled 64x64 A and B, MDRange 64x64 tiles", 64, 64},
}

local rows, base = {}, nil
for _, v in ipairs(VARIANTS) do
  local name, tile, mt = v[1], v[2], v[3]
  local A = speck.View("A", "float64", {N, N}, {layout = layout(tile)})
  local B = speck.View("B", "float64", {N, N}, {layout = layout(tile)})
  speck.parallel_for("tr_init", speck.MDRangePolicy({0, 0}, {N, N}), {A = A},
                     "A(i, j) = (double)(i * 3 + j);", CC)
  local pol = speck.MDRangePolicy({0, 0}, {N, N}, mt and {tile = {mt, mt}} or nil)
  local t = time_median(function()
    speck.parallel_for("tr", pol, {A = A, B = B}, "B(j, i) = A(i, j);", CC)
  end)
  -- check: B is the transpose (a reduction compares every element)
  local bad = speck.parallel_reduce("tr_check", speck.MDRangePolicy({0, 0}, {N, N}),
                                    {A = A, B = B}, "acc += B(j, i) != A(i, j);",
                                    {op = "sum", dtype = "int64"}, CC)
  assert(bad == 0, name .. ": the transpose is wrong")
  base = base or t
  rows[#rows + 1] = string.format("| %s | %d^2 | %.2f ms | %.1f GB/s | %.2f |", name, N,
                                  t * 1e3, 2 * 8 * N * N / t / 1e9, base / t)
  A, B = nil, nil
  collectgarbage()
end
print("| transpose B(j, i) = A(i, j), float64 | size | speck | bandwidth | ratio |")
print("| --- | --- | --- | --- | --- |")
for _, r in ipairs(rows) do print(r) end
