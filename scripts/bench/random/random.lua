-- random.lua: speck's side of scripts/bench/random/run (host) and
-- gpu_run: speck.random.fill of N float64 uniform in [0, 1) (a
-- xorshift64* pool), and a histogram of N keys into B bins through a
-- ScatterView (the back end's automatic choice: copies per host thread,
-- atomics on a GPU) beside the same histogram with plain atomic_add,
-- and a finite-element style assembly: each of the N = NX x NX quads of a
-- structured mesh (its corner nodes in a connectivity view, as FE codes
-- keep them) adds a quarter of its weight to its four nodes, through a
-- ScatterView and through plain atomic_add.
-- Prints "speck <kernel> <N> <seconds>" (median of BENCH_REPS runs after
-- a warm-up).
--   speck random.lua fill N | hist N B | hist_atomic N B | fe NX | fe_atomic NX
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
elseif what == "fe" or what == "fe_atomic" then
  local nx = n
  local ne, nn = nx * nx, (nx + 1) * (nx + 1)
  local conn = speck.View("conn", "int32", {ne, 4})
  local w = speck.View("w", "float64", ne)
  speck.parallel_for("fe_mesh", ne, {conn = conn, w = w, NX = nx}, [[
    const int64_t ex = i % NX, ey = i / NX, n0 = ey * (NX + 1) + ex;
    conn(i, 0) = (int)n0; conn(i, 1) = (int)(n0 + 1);
    conn(i, 2) = (int)(n0 + NX + 1); conn(i, 3) = (int)(n0 + NX + 2);
    w(i) = 0.25 * (1.0 + 1e-3 * (double)((ex * 7 + ey * 13) % 17));]])
  local f = speck.View("f", "float64", nn)
  local t
  if what == "fe" then
    local sv = speck.ScatterView(f)
    t = median(function()
      speck.parallel_for("fe_sv", ne, {s = sv, conn = conn, w = w}, [[
        auto a = s.access();
        const double q = w(i);
        a(conn(i, 0)) += q; a(conn(i, 1)) += q; a(conn(i, 2)) += q; a(conn(i, 3)) += q;]])
      speck.contribute(f, sv)
    end)
  else
    t = median(function()
      speck.parallel_for("fe_at", ne, {f = f, conn = conn, w = w}, [[
        const double q = w(i);
        atomic_add(&f(conn(i, 0)), q); atomic_add(&f(conn(i, 1)), q);
        atomic_add(&f(conn(i, 2)), q); atomic_add(&f(conn(i, 3)), q);]])
    end)
  end
  print(("speck %s %d %.6g"):format(what, ne, t))
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
