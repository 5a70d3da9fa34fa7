-- bench.lua: the speck side of scripts/bench/sort (run by ./run).
-- Usage: speck bench.lua N DTYPE ROUNDS
-- The keys of stdsort.cc and np_peer.py (splitmix64 of the index), sorted
-- by speck.sort with algorithm "auto" (the host's merge path) and
-- "bitonic" (the GPU algorithm, run on the host), after one untimed
-- warm-up each; sort_by_key with int64 values (auto). Records:
-- "R<TAB>op<TAB>impl<TAB>seconds".
local N = math.tointeger(tonumber(arg[1])) or (1 << 20)
local DT = arg[2] or "float64"
local ROUNDS = math.tointeger(tonumber(arg[3])) or 3
local GEN = [[
  uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z = z ^ (z >> 31);
]] .. (DT == "float64" and "v(i) = (double)(z >> 11) * 0x1p-53;" or "v(i) = (int32_t)(uint32_t)(z >> 32);")
local v = speck.View("v", DT, N)
local u = speck.View("u", "int64", N)
local t = speck.Timer()
local function fill()
  speck.parallel_for("bench_sort_fill", N, {v = v, u = u}, GEN .. " u(i) = i;")
  speck.fence()
end
local function check()
  local ok = speck.parallel_reduce("bench_sort_check", N - 1, {v = v},
    "acc += v(i) > v(i + 1);", {op = "sum", dtype = "int64"})
  assert(ok == 0, "not sorted")
end
for _, alg in ipairs{"auto", "bitonic"} do
  fill(); speck.sort(v, {algorithm = alg})
  for _ = 1, ROUNDS do
    fill()
    t:reset()
    speck.sort(v, {algorithm = alg})
    speck.fence()
    print(("R\tsort %s %d\tspeck %s\t%.6e"):format(DT, N, alg, t:seconds()))
    check()
    io.stdout:flush()
  end
end
fill(); speck.sort_by_key(v, u)
for _ = 1, ROUNDS do
  fill()
  t:reset()
  speck.sort_by_key(v, u)
  speck.fence()
  print(("R\tsort_by_key %s %d\tspeck auto\t%.6e"):format(DT, N, t:seconds()))
  check()
end
