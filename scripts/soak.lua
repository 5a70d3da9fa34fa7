-- soak.lua: a REPL-like loop for a long time, with resident memory
-- sampled ('make soak'; bin/speck scripts/soak.lua).
--
-- Each round does what a session at the prompt does: new views of random
-- shapes and dtypes (filled, copied, sliced, mirrored, dropped), kernels
-- from a bounded set of bodies (for, reduce, scan; range, MDRange, team;
-- captured scalars change every round, bodies cycle through a few hundred
-- variants, so the kernel cache fills and then only hits), prepared
-- kernels, library calls, and bad input of every kind caught with pcall
-- (the error paths must not leak either). Every few seconds the resident
-- set size (/proc/self/statm) is printed with the Lua heap (KiB), the
-- counts so far and the JIT's kernels and tier-ups (each cc-tier shared
-- object loaded in the background adds its mapping); at the
-- end a summary compares the second half of the run with the first.
--
-- SPECK_SOAK_SECONDS (default 600): how long; SPECK_SOAK_SAMPLE (default
-- 10): seconds between samples; SPECK_SOAK_VARIANTS (default 300): how
-- many distinct kernel bodies. Exit status 1 when memory kept growing
-- (the last quarter's mean more than 10% and 8 MiB over the second
-- quarter's).
local speck = speck or require "speck"
local blas = require "speck.blas"

local DURATION = tonumber(os.getenv("SPECK_SOAK_SECONDS") or "") or 600
local SAMPLE = tonumber(os.getenv("SPECK_SOAK_SAMPLE") or "") or 10
local VARIANTS = tonumber(os.getenv("SPECK_SOAK_VARIANTS") or "") or 300

local PAGE = 4096
local function rss_kb()
  local f = io.open("/proc/self/statm")
  if not f then return 0 end
  local _, res = f:read("l"):match("(%d+)%s+(%d+)")
  f:close()
  return tonumber(res) * PAGE // 1024
end

local rng = 12345
local function rand(n)   -- 0 .. n-1, reproducible
  rng = (rng * 1103515245 + 12345) % 2147483648
  return (rng >> 8) % n   -- (the low bits of this generator cycle fast)
end

local DTYPES = {"float64", "float32", "int64", "int32"}
local counts = {rounds = 0, views = 0, launches = 0, errors = 0}

-- one round of work; every view it makes is dropped at its end
local function round()
  local n = 1 + rand(50000)
  local dt = DTYPES[1 + rand(#DTYPES)]
  local v = rand(VARIANTS)
  local x = speck.View("x" .. v, dt, n)
  local y = speck.View("y", dt, n)
  counts.views = counts.views + 2
  x:fill(1)
  speck.deep_copy(y, x)
  -- a for, a reduce and a scan over a body variant (v picks the constant
  -- baked into the text: a distinct kernel per variant)
  speck.parallel_for("soak_for", n, {x = x, y = y, a = rand(7)},
                     ("y(i) = x(i) * a + %d;"):format(v))
  local s = speck.parallel_reduce("soak_sum", n, {y = y}, ("acc += y(i) - %d;"):format(v))
  assert(s == s)
  speck.parallel_scan("soak_scan", n, {x = x, y = y},
                      ("if (final) y(i) = acc; acc += x(i) * %d;"):format(v % 13))
  counts.launches = counts.launches + 3
  -- a 2-d view, an MDRange and a team launch, a subview, a mirror
  local r, c = 1 + rand(300), 1 + rand(300)
  local A = speck.View("A", "float64", {r, c}, {layout = rand(2) == 0 and "right" or "left"})
  counts.views = counts.views + 1
  speck.parallel_for("soak_md", speck.MDRangePolicy({0, 0}, {r, c}), {A = A},
                     ("A(i, j) = i + j * %d;"):format(v % 17))
  speck.parallel_for("soak_team", speck.TeamPolicy(r, 1), {A = A},
                     "TEAM_FOR(j, 0, A.extent[1]) { A(team.league_rank, j) *= 2; }")
  counts.launches = counts.launches + 2
  local row = speck.subview(A, rand(r), speck.ALL)
  local m = speck.create_mirror(row)
  speck.deep_copy(m, row)
  counts.views = counts.views + 2
  -- the library
  if dt == "float64" or dt == "float32" then
    blas.axpy(2.0, x, y)
    local d = blas.dot(x, y)
    assert(d == d)
    counts.launches = counts.launches + 2
  end
  -- a prepared kernel, launched twice with new data
  local k = speck.kernel("soak_k", "range", {x = x}, ("x(i) += %d;"):format(v % 5))
  k(n, {x = x})
  k(n // 2, {x = x})
  counts.launches = counts.launches + 2
  -- bad input: each must raise, none may leak
  local bad = {
    function() speck.parallel_for("bad", n, {x = x}, "x(i, i) = 1;") end,
    function() speck.parallel_for("bad", n, {x = x}, "x(i) = nosuch;") end,
    function() speck.parallel_for("bad", -1, {x = x}, "x(i) = 1;") end,
    function() speck.parallel_for("bad", n, {x = x}, "x(i) = 1; }") end,
    function() speck.View("bad", "float128", 3) end,
    function() speck.View("bad", "float64", -3) end,
    function() speck.deep_copy(x, A) end,
    function() speck.subview(A, r + 5, speck.ALL) end,
    function() return x(n + 10) end,
    function() speck.parallel_reduce("bad", n, {x = x}, "acc += x(i);", "median") end,
    function() k(n, {x = A}) end,
    function() blas.dot(x, A) end,
    function() speck.parallel_for("bad", speck.TeamPolicy(4, 100000), {}, "(void)team;") end,
  }
  for _, f in ipairs(bad) do
    local ok = pcall(f)
    assert(not ok, "bad input was accepted")
    counts.errors = counts.errors + 1
  end
  counts.rounds = counts.rounds + 1
end

-- -- the loop ---------------------------------------------------------------
local t = speck.Timer()
local samples = {}
local next_sample = 0
print(("soak: %g s, a sample every %g s, %d kernel variants"):format(DURATION, SAMPLE, VARIANTS))
print("seconds\trss_kb\tlua_kb\trounds\tviews\tlaunches\terrors\tkernels\ttierups")
while true do
  local now = t:seconds()
  if now >= next_sample then
    local st = speck.jit.stats()
    local s = {t = now, rss = rss_kb(), kernels = st.kernels}
    samples[#samples + 1] = s
    print(("%.0f\t%d\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d"):format(now, s.rss, collectgarbage("count"),
          counts.rounds, counts.views, counts.launches, counts.errors, st.kernels, st.tierups))
    io.stdout:flush()
    next_sample = next_sample + SAMPLE
  end
  if now >= DURATION then break end
  round()
end

-- -- summary ---------------------------------------------------------------------
local function mean(from, to)
  local sum, k = 0, 0
  for _, s in ipairs(samples) do
    if s.t >= from and s.t < to then sum, k = sum + s.rss, k + 1 end
  end
  return k > 0 and sum / k or 0
end
local q2 = mean(DURATION / 4, DURATION / 2)
local q4 = mean(DURATION * 3 / 4, DURATION + 1)
local peak = 0
for _, s in ipairs(samples) do if s.rss > peak then peak = s.rss end end
local grew = q4 > q2 * 1.10 and q4 - q2 > 8 * 1024
print(("summary: start %d KiB, peak %d KiB, end %d KiB; mean of the 2nd quarter %.0f KiB, " ..
       "of the last %.0f KiB (%+.1f%%): %s"):format(samples[1].rss, peak, samples[#samples].rss,
       q2, q4, q2 > 0 and (q4 / q2 - 1) * 100 or 0, grew and "GROWING" or "bounded"))
os.exit(grew and 1 or 0)
