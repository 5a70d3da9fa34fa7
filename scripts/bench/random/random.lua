-- random.lua: speck's side of scripts/bench/random/run (host) and
-- gpu_run: speck.random.fill of N float64 uniform in [0, 1) (a
-- xorshift64* pool), and a histogram of N keys into B bins through a
-- ScatterView (the back end's automatic choice: copies per host thread,
-- atomics on a GPU) beside the same histogram with plain atomic_add.
-- Prints "speck <kernel> <N> <seconds>" (median of BENCH_REPS runs after
-- a warm-up).
--   speck random.lua fill N | hist N B | hist_atomic N B
local what, n, bins = arg[1], tonumber(arg[2]), tonumber(arg[3] or "256")
local reps = tonumber(os.getenv("BENCH_REPS") or "7")

local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")
-- warm-up: launched often enough for the cc tier, which the background
-- compiler is then waited for (the steady state a repeated call reaches)
local function median(f)
  for _ = 1, 10 do f() end
  speck.jit.wait()
  speck.fence()
  return (records.time_median(f, reps, 1))
end

if what == "fill" then
  local v = speck.View("v", "float64", n)
  local pool = speck.random.Pool(12345)
  print(("speck fill %d %.6g"):format(n, median(function() speck.random.fill(v, pool, 0, 1) end)))
else
  -- keys spread by a multiplicative hash, so bins are hit in no order
  local keys = speck.View("keys", "int32", n)
  speck.parallel_for("hkeys", n, {keys = keys, B = bins},
    "keys(i) = (int)(((uint64_t)i * 2654435761u) % (uint64_t)B);")
  local h = speck.View("h", "int64", bins)
  if what == "hist" then
    local sv = speck.ScatterView(h)
    print(("speck hist %d %.6g"):format(n, median(function()
      speck.parallel_for("hist_sv", n, {s = sv, keys = keys}, "auto a = s.access(); a(keys(i)) += 1;")
      speck.contribute(h, sv)
    end)))
  else
    print(("speck hist_atomic %d %.6g"):format(n, median(function()
      speck.parallel_for("hist_at", n, {h = h, keys = keys}, "atomic_add(&h(keys(i)), (int64_t)1);")
    end)))
  end
end
