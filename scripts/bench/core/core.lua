-- core.lua: the speck side of scripts/bench/core (run by ./run).
--
-- Usage: speck core.lua [log2n [stencil_n [grid_n [launches]]]]
-- Every kernel runs once per JIT tier (opts.jit = "tcc", then "cc"): WARM
-- untimed launches, then the median of REPS timed ones (speck.Timer around
-- the launch and speck.fence). Output: tab-separated records, the same
-- format ref.c and numba_peer.py print, read by table.lua:
--
--   I <impl> <key> <value>                               facts
--   R <kernel> <impl> <median s> <bytes moved> <checksum>  results
--
-- The data and the matrix match ref.c exactly, so checksums can be compared.

local log2n = tonumber(arg[1]) or 25
local SN = tonumber(arg[2]) or 4096        -- stencil: SN x SN, interior updated
local GN = tonumber(arg[3]) or 2048        -- SpMV: Laplacian of a GN x GN grid
local LAUNCHES = tonumber(arg[4]) or 20000 -- empty-launch samples
local REPS, WARM = 9, 2
local TIERS = {"tcc", "cc"}

local function median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end

local function record(kernel, impl, t, bytes, check)
  print(string.format("R\t%s\t%s\t%.9e\t%.0f\t%.17g", kernel, impl, t,
                      bytes or 0, check or 0))
  io.stdout:flush()
end

local function info(impl, key, value)
  print(string.format("I\t%s\t%s\t%s", impl, key, tostring(value)))
end

-- median time of f() over REPS runs after WARM runs; returns it and the
-- last value f returned
local timer = speck.Timer()
local function time_median(f)
  local last
  for _ = 1, WARM do last = f() end
  local t = {}
  for r = 1, REPS do
    timer:reset()
    last = f()
    speck.fence()
    t[r] = timer:seconds()
  end
  return median(t), last
end

-- the tier the kernel with this label last compiled for (speck.jit.stats)
local function tier_of(label)
  local found
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label then found = k.tier end
  end
  return found or "?"
end

-- a body no earlier launch used, so the first launch must compile it
math.randomseed(os.time())
local nonce_n = 0
local function unique(body)
  nonce_n = nonce_n + 1
  return string.format("%s\n/* first-launch %d-%d-%d */", body, os.time(),
                       math.random(1, 1 << 30), nonce_n)
end

local threads = speck.info().threads
info("speck", "threads", threads)
info("speck", "cc_available",
     speck.info().compilers and speck.info().compilers.cc and "yes" or "no")

-- -- empty launch ---------------------------------------------------------
-- Timed one launch at a time; the timer's own cost (reset + seconds with
-- nothing between) is reported beside it.
do
  local E = {}
  local t = {}
  for r = 1, LAUNCHES do
    timer:reset()
    t[r] = timer:seconds()
  end
  info("speck", "timer_overhead_us", string.format("%.3f", median(t) * 1e6))
  for _, tier in ipairs(TIERS) do
    local label, o = "bench_empty_" .. tier, {jit = tier}
    for _ = 1, 1000 do speck.parallel_for(label, 1024, E, "", o) end
    for r = 1, LAUNCHES do
      timer:reset()
      speck.parallel_for(label, 1024, E, "", o)
      speck.fence()
      t[r] = timer:seconds()
    end
    record("empty", "speck-" .. tier, median(t))
    info("speck-" .. tier, "tier_empty", tier_of(label))
    -- the same launch through a prepared speck.kernel handle
    local k = speck.kernel(label .. "_k", "range", E, "", o)
    for _ = 1, 1000 do k(1024, E) end
    for r = 1, LAUNCHES do
      timer:reset()
      k(1024, E)
      speck.fence()
      t[r] = timer:seconds()
    end
    record("empty-kernel", "speck-" .. tier, median(t))
  end
end

-- -- dot, axpy -------------------------------------------------------------
do
  local n = 1 << log2n
  local x = speck.View("x", "float64", n, {init = false})
  local y = speck.View("y", "float64", n, {init = false})
  local caps = {x = x, y = y, a = 0.5}
  speck.parallel_for("bench_init_xy", n, caps, [[
    x(i) = 1.0 + (double)(i % 7) * 0.25;
    y(i) = 2.0 - (double)(i % 5) * 0.125;]])

  -- dot first, while x and y hold their initial values (checksum)
  for _, tier in ipairs(TIERS) do
    local label, o = "bench_dot_" .. tier, {jit = tier}
    local t, s = time_median(function()
      return speck.parallel_reduce(label, n, caps, "acc += x(i) * y(i);", o)
    end)
    record("dot", "speck-" .. tier, t, 16 * n, s)
    info("speck-" .. tier, "tier_dot", tier_of(label))
  end

  local axpy = "y(i) = a * x(i) + y(i);"
  for _, tier in ipairs(TIERS) do
    local label, o = "bench_axpy_" .. tier, {jit = tier}
    local t = time_median(function()
      speck.parallel_for(label, n, caps, axpy, o)
    end)
    record("axpy", "speck-" .. tier, t, 24 * n)
    info("speck-" .. tier, "tier_axpy", tier_of(label))
  end

  -- first launch of a kernel never seen before: compile + one run
  for _, tier in ipairs(TIERS) do
    local label = "bench_axpy_first_" .. tier
    local before = speck.jit.stats().compiles
    timer:reset()
    speck.parallel_for(label, n, caps, unique(axpy), {jit = tier})
    speck.fence()
    local t = timer:seconds()
    assert(speck.jit.stats().compiles > before, "first launch did not compile")
    record("axpy-first", "speck-" .. tier, t, 24 * n)
  end
  x, y, caps = nil, nil, nil
  collectgarbage()
end

-- -- 2D 5-point stencil, MDRangePolicy --------------------------------------
do
  local vin = speck.View("in", "float64", {SN, SN}, {init = false})
  local vout = speck.View("out", "float64", {SN, SN})
  local caps = {vin = vin, vout = vout}
  speck.parallel_for("bench_init_stencil",
    speck.MDRangePolicy({0, 0}, {SN, SN}), caps,
    "vin(i, j) = (double)((i * 3 + j * 7) % 11) * 0.5;")
  local interior = speck.MDRangePolicy({1, 1}, {SN - 1, SN - 1})
  local body = [[
    vout(i, j) = 0.25 * (vin(i - 1, j) + vin(i + 1, j) + vin(i, j - 1) + vin(i, j + 1))
                 - vin(i, j);]]
  for _, tier in ipairs(TIERS) do
    local label, o = "bench_stencil_" .. tier, {jit = tier}
    local t = time_median(function()
      speck.parallel_for(label, interior, caps, body, o)
    end)
    local s = speck.parallel_reduce("bench_sum2d",
      speck.MDRangePolicy({0, 0}, {SN, SN}), caps, "acc += vout(i, j);")
    record("stencil", "speck-" .. tier, t, 16 * (SN - 2) * (SN - 2), s)
    info("speck-" .. tier, "tier_stencil", tier_of(label))
  end
  vin, vout, caps = nil, nil, nil
  collectgarbage()
end

-- -- CSR SpMV of the 2D 5-point Laplacian ------------------------------------
-- Row r = gi*GN + gj; columns ascending: r-GN, r-1, r, r+1, r+GN; 4 on the
-- diagonal, -1 off it. rowptr by an exclusive scan of the row counts, then
-- one kernel fills colidx and values.
do
  local n = GN * GN
  local rowptr = speck.View("rowptr", "int64", n + 1)
  local build = {rowptr = rowptr, nx = GN, ny = GN}
  local nnz = speck.parallel_scan("bench_csr_count", n, build, [[
    const int64_t gi = i / ny, gj = i % ny;
    const int64_t c = 1 + (gi > 0) + (gi < nx - 1) + (gj > 0) + (gj < ny - 1);
    if (final) rowptr(i) = acc;
    acc += c;]], {dtype = "int64"})
  rowptr[n] = nnz
  local colidx = speck.View("colidx", "int32", nnz, {init = false})
  local values = speck.View("values", "float64", nnz, {init = false})
  local x = speck.View("x", "float64", n, {init = false})
  local y = speck.View("y", "float64", n)
  build.colidx, build.values, build.x = colidx, values, x
  speck.parallel_for("bench_csr_fill", n, build, [[
    const int64_t gi = i / ny, gj = i % ny;
    int64_t p = rowptr(i);
    if (gi > 0)      { colidx(p) = (int32_t)(i - ny); values(p++) = -1.0; }
    if (gj > 0)      { colidx(p) = (int32_t)(i - 1);  values(p++) = -1.0; }
    colidx(p) = (int32_t)i; values(p++) = 4.0;
    if (gj < ny - 1) { colidx(p) = (int32_t)(i + 1);  values(p++) = -1.0; }
    if (gi < nx - 1) { colidx(p) = (int32_t)(i + ny); values(p++) = -1.0; }
    x(i) = 1.0 + (double)(i % 7) * 0.5;]])
  local caps = {rowptr = rowptr, colidx = colidx, values = values, x = x, y = y}
  local spmv = [[
    double s = 0.0;
    for (int64_t p = rowptr(i); p < rowptr(i + 1); p++) s += values(p) * x(colidx(p));
    y(i) = s;]]
  local bytes = 12 * nnz + 8 * (n + 1) + 16 * n
  for _, tier in ipairs(TIERS) do
    local label, o = "bench_spmv_" .. tier, {jit = tier}
    local t = time_median(function()
      speck.parallel_for(label, n, caps, spmv, o)
    end)
    local s = speck.parallel_reduce("bench_wsum", n, caps,
                                    "acc += y(i) * (double)(1 + i % 3);")
    record("spmv", "speck-" .. tier, t, bytes, s)
    info("speck-" .. tier, "tier_spmv", tier_of(label))
  end
  for _, tier in ipairs(TIERS) do
    local label = "bench_spmv_first_" .. tier
    timer:reset()
    speck.parallel_for(label, n, caps, unique(spmv), {jit = tier})
    speck.fence()
    record("spmv-first", "speck-" .. tier, timer:seconds(), bytes)
  end
end

local st = speck.jit.stats()
info("speck", "compiles", st.compiles)
info("speck", "compile_seconds", string.format("%.4f", st.compile_seconds))
