-- latency.lua: JIT latencies of speck (run by ./run).
--   mode "new":   first launch of new kernels (fresh bodies) at libtcc and
--                 at cc (cold compile, empty disk cache), median of N
--   mode "load":  a second process launching kernels the first compiled
--                 at cc: the time to load each from the disk cache
-- Prints 'key value' lines for ./run to tabulate.
local mode, tag = arg[1], arg[2] or "x"
local N = 9
local x = speck.View("x", "float64", 1000)
local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end
local function body(kind, k)
  return ("x(i) = x(i) * %d.0 + %d; /* %s %s */"):format(k, k, kind, tag)
end

if mode == "new" then
  for _, tier in ipairs{"tcc", "cc"} do
    local t = {}
    for k = 1, N do
      local timer = speck.Timer()
      speck.parallel_for("lat", 1000, {x = x}, body(tier, k), {jit = tier})
      t[#t + 1] = timer:seconds()
    end
    print(("first_launch_%s %.6f"):format(tier, median(t)))
  end
  -- the same bodies again: a cache hit in this process
  local t = {}
  for k = 1, N do
    local timer = speck.Timer()
    speck.parallel_for("lat", 1000, {x = x}, body("cc", k), {jit = "cc"})
    t[#t + 1] = timer:seconds()
  end
  print(("relaunch %.6f"):format(median(t)))
elseif mode == "load" then
  local t = {}
  for k = 1, N do
    local timer = speck.Timer()
    speck.parallel_for("lat", 1000, {x = x}, body("cc", k), {jit = "cc"})
    t[#t + 1] = timer:seconds()
  end
  local loads, compiles = {}, 0
  for _, s in ipairs(speck.jit.stats().per_kernel) do
    if s.label == "lat" then
      loads[#loads + 1] = s.compile_seconds
      compiles = compiles + s.compiles.cc + s.compiles.tcc
    end
  end
  print(("first_launch_cached %.6f"):format(median(t)))
  print(("load_from_cache %.6f"):format(median(loads)))
  print(("compiles_in_second_process %d"):format(compiles))
end
