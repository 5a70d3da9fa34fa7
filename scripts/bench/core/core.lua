-- core.lua: the speck side of scripts/bench/core (run by ./run).
--
-- Usage: speck core.lua KERNEL [log2n [stencil_n [grid_n [launches]]]]
--   KERNEL: empty | axpy | dot | stencil | spmv
-- Every kernel runs once per JIT tier (opts.jit = "tcc", then "cc"): WARM
-- untimed launches, then the median of REPS timed ones (speck.Timer around
-- the launch and speck.fence). axpy and spmv also time the first launch of
-- a body never seen before (compile + one run). Output: tab-separated
-- records, the format ref.c and numba_peer.py print, read by table.lua:
--
--   I <impl> <key> <value>                                 facts
--   R <kernel> <impl> <median s> <bytes moved> <checksum>  results
--
-- The kernel cache is keyed by the body, not the label or the tier, and an
-- entry keeps the best tier it reached; so each tier's body carries its own
-- comment ('/* tier cc */'), or the tcc rows would run code cc compiled.
-- Data and the matrix match ref.c exactly, so checksums compare.

local KERNEL = arg[1] or ""
local log2n = tonumber(arg[2]) or 25
local SN = tonumber(arg[3]) or 4096        -- stencil: SN x SN, interior updated
local GN = tonumber(arg[4]) or 2048        -- SpMV: Laplacian of a GN x GN grid
local LAUNCHES = tonumber(arg[5]) or 20000 -- empty-launch samples
local TIERS = {"tcc", "cc"}
local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")
local median, time_median = records.median, records.time_median
local record, info = records.record, records.info

-- the body as launched at 'tier' (see the header comment)
local function tiered(body, tier)
  return string.format("%s\n/* tier %s */", body, tier)
end

-- a body no earlier launch (nor the on-disk cc cache) has seen
math.randomseed(os.time())
local nonce_n = 0
local function unique(body, tier)
  nonce_n = nonce_n + 1
  return string.format("%s\n/* first launch, tier %s, %d-%d-%d */", body,
                       tier, os.time(), math.random(1, 1 << 30), nonce_n)
end

local timer = speck.Timer()

-- time of one launch f() that must compile a new kernel
local function time_first(f)
  local before = speck.jit.stats().compiles
  timer:reset()
  f()
  speck.fence()
  local t = timer:seconds()
  local st = speck.jit.stats()
  assert(st.compiles > before or st.tierups > 0, "the first launch did not compile")
  return t
end

-- the tier the kernel with this label runs at now (speck.jit.stats)
local function tier_of(label)
  for _, k in ipairs(speck.jit.stats().per_kernel or {}) do
    if k.label == label then return k.tier end
  end
  return "?"
end

-- run one kernel at both tiers: launch(tier, label) is timed and may return
-- the checksum; else check(), untimed, computes it after the last launch
local function both_tiers(kernel, bytes, launch, check)
  for _, tier in ipairs(TIERS) do
    local label = "bench_" .. kernel .. "_" .. tier
    local t, s = time_median(function() return launch(tier, label) end)
    if check then s = check() end
    record(kernel, "speck-" .. tier, t, bytes, s)
    info("speck-" .. tier, "tier_" .. kernel, tier_of(label))
  end
end

local bench = {}

-- -- empty launch ------------------------------------------------------------
-- Timed one launch at a time (the timer's own cost, reset + seconds with
-- nothing between, is reported beside it); also through a prepared
-- speck.kernel handle, which skips the key lookup.
function bench.empty()
  local E, t = {}, {}
  info("speck", "timer_overhead_us", records.timer_overhead(LAUNCHES))
  for _, tier in ipairs(TIERS) do
    local label, body, o = "bench_empty_" .. tier, tiered("", tier), {jit = tier}
    for _ = 1, 1000 do speck.parallel_for(label, 1024, E, body, o) end
    for r = 1, LAUNCHES do
      timer:reset()
      speck.parallel_for(label, 1024, E, body, o)
      speck.fence()
      t[r] = timer:seconds()
    end
    record("empty", "speck-" .. tier, median(t))
    info("speck-" .. tier, "tier_empty", tier_of(label))
    local k = speck.kernel(label .. "_k", "range", E, body, o)
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

-- -- axpy, dot ----------------------------------------------------------------
local function xy(n)
  local x = speck.View("x", "float64", n, {init = false})
  local y = speck.View("y", "float64", n, {init = false})
  local caps = {x = x, y = y, a = 0.5}
  speck.parallel_for("bench_init_xy", n, caps, [[
    x(i) = 1.0 + (double)(i % 1000003) * 1e-6;
    y(i) = 2.0 - (double)(i % 999983) * 1e-6;]])
  return caps
end

function bench.axpy()
  local n = 1 << log2n
  local caps = xy(n)
  local axpy = "y(i) = a * x(i) + y(i);"
  for _, tier in ipairs(TIERS) do
    local t = time_first(function()
      speck.parallel_for("bench_axpy_first_" .. tier, n, caps,
                         unique(axpy, tier), {jit = tier})
    end)
    record("axpy-first", "speck-" .. tier, t, 24 * n)
  end
  both_tiers("axpy", 24 * n, function(tier, label)
    speck.parallel_for(label, n, caps, tiered(axpy, tier), {jit = tier})
  end)
end

function bench.dot()
  local n = 1 << log2n
  local caps = xy(n)
  both_tiers("dot", 16 * n, function(tier, label)
    return speck.parallel_reduce(label, n, caps,
                                 tiered("acc += x(i) * y(i);", tier), {jit = tier})
  end)
end

-- -- 2D 5-point stencil, MDRangePolicy (default tiles: whole rows) -----------
function bench.stencil()
  local vin = speck.View("in", "float64", {SN, SN}, {init = false})
  local vout = speck.View("out", "float64", {SN, SN})
  local caps = {vin = vin, vout = vout}
  local all = speck.MDRangePolicy({0, 0}, {SN, SN})
  speck.parallel_for("bench_init_stencil", all, caps,
                     "vin(i, j) = (double)((i * 3 + j * 7) % 1009) * 1e-3;")
  local interior = speck.MDRangePolicy({1, 1}, {SN - 1, SN - 1})
  local body = [[
    vout(i, j) = 0.25 * (vin(i - 1, j) + vin(i + 1, j) + vin(i, j - 1) + vin(i, j + 1))
                 - vin(i, j);]]
  both_tiers("stencil", 16 * (SN - 2) * (SN - 2), function(tier, label)
    speck.parallel_for(label, interior, caps, tiered(body, tier), {jit = tier})
  end, function()
    return speck.parallel_reduce("bench_stencil_check", all, caps,
                                 "acc += vout(i, j) * vout(i, j);")
  end)
end

-- -- CSR SpMV of the 2D 5-point Laplacian ---------------------------------------
-- Row r = gi*GN + gj; columns ascending: r-GN, r-1, r, r+1, r+GN; 4 on the
-- diagonal, -1 off it. rowptr by an exclusive scan of the row counts, then
-- one kernel fills colidx, values and x.
function bench.spmv()
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
    x(i) = 1.0 + (double)(i % 1000003) * 1e-6;]])
  local caps = {rowptr = rowptr, colidx = colidx, values = values, x = x, y = y}
  local spmv = [[
    double s = 0.0;
    for (int64_t p = rowptr(i); p < rowptr(i + 1); p++) s += values(p) * x(colidx(p));
    y(i) = s;]]
  local bytes = 12 * nnz + 8 * (n + 1) + 16 * n
  for _, tier in ipairs(TIERS) do
    local t = time_first(function()
      speck.parallel_for("bench_spmv_first_" .. tier, n, caps,
                         unique(spmv, tier), {jit = tier})
    end)
    record("spmv-first", "speck-" .. tier, t, bytes)
  end
  both_tiers("spmv", bytes, function(tier, label)
    speck.parallel_for(label, n, caps, tiered(spmv, tier), {jit = tier})
  end, function()
    return speck.parallel_reduce("bench_spmv_check", n, caps,
                                 "acc += y(i) * (double)(1 + i % 3);")
  end)
end

if not bench[KERNEL] then
  io.stderr:write("usage: speck core.lua empty|axpy|dot|stencil|spmv",
                  " [log2n [stencil_n [grid_n [launches]]]]\n")
  os.exit(2)
end
local inf = speck.info()
info("speck", "threads", inf.threads)
info("speck", "cc_available", inf.compilers and inf.compilers.cc
                              and inf.compilers.cc.available and "yes" or "no")
bench[KERNEL]()
