-- records.lua: what the Lua scripts of scripts/bench share about their
-- records, on both sides: the speck side prints them (record, info) and
-- times what it prints (time_median, timer_overhead); the
-- table.lua scripts read them (read), take medians and check the
-- checksums against the reference's (check_ref, print_checks). The
-- records are tab-separated lines, the format every program of a
-- benchmark prints (the C peers through lib/bench.h):
--
--   I <impl> <key> <value>                                 facts
--   R <kernel> <impl> <seconds> <bytes moved> <checksum>   results
--
-- A script (run by bin/speck, a Lua 5.4 with 'speck') loads it beside
-- itself:
--   local records = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lib/records.lua")

local M = {}

M.REPS, M.WARM = 9, 2   -- timed and untimed calls of time_median

-- the median of t (sorts t)
function M.median(t)
  table.sort(t)
  local n = #t
  return n % 2 == 1 and t[(n + 1) // 2] or 0.5 * (t[n // 2] + t[n // 2 + 1])
end

-- -- the speck side ------------------------------------------------------------
function M.record(kernel, impl, t, bytes, check)
  print(string.format("R\t%s\t%s\t%.9e\t%.0f\t%.17g", kernel, impl, t, bytes or 0,
                      check or 0))
  io.stdout:flush()
end

function M.info(impl, key, value)
  print(string.format("I\t%s\t%s\t%s", impl, key, tostring(value)))
end

local timer
local function the_timer()
  timer = timer or speck.Timer()
  return timer
end

-- the median time of f() over 'reps' calls (REPS) after 'warm' untimed ones
-- (WARM), each timed by speck.Timer around the call and speck.fence();
-- 'gc': a full collection before each timed call (outside the timing).
-- Returns the median and the value of the last f().
function M.time_median(f, reps, warm, gc)
  local tm, last = the_timer(), nil
  for _ = 1, warm or M.WARM do last = f() end
  local t = {}
  for r = 1, reps or M.REPS do
    if gc then collectgarbage() end
    tm:reset()
    last = f()
    speck.fence()
    t[r] = tm:seconds()
  end
  return M.median(t), last
end

-- the cost of the timer itself, reset + seconds with nothing between: the
-- median of n, in microseconds, as the "%.3f" the I records carry
function M.timer_overhead(n)
  local tm, t = the_timer(), {}
  for r = 1, n do
    tm:reset()
    t[r] = tm:seconds()
  end
  return string.format("%.3f", M.median(t) * 1e6)
end

-- -- the table side ------------------------------------------------------------
-- The records of the file 'path': res[kernel][impl] = {t =, ts =, bytes =,
-- checks =}, where a kernel run in several rounds has several records: ts
-- holds every round's time and t is their median, checks every round's
-- checksum; facts["impl.key"] = value (the last one); rounds: the most
-- records of one kernel and implementation. on_fact(impl, key, value), if
-- given, sees every I record.
function M.read(path, on_fact)
  local res, facts = {}, {}
  for line in io.lines(path) do
    local f = {}
    for w in line:gmatch("[^\t]+") do f[#f + 1] = w end
    if f[1] == "R" and #f >= 6 then
      res[f[2]] = res[f[2]] or {}
      local r = res[f[2]][f[3]] or {ts = {}, checks = {}}
      res[f[2]][f[3]] = r
      r.ts[#r.ts + 1] = tonumber(f[4])
      r.checks[#r.checks + 1] = tonumber(f[6])
      r.bytes = tonumber(f[5])
    elseif f[1] == "I" and #f >= 4 then
      facts[f[2] .. "." .. f[3]] = f[4]
      if on_fact then on_fact(f[2], f[3], f[4]) end
    end
  end
  local rounds = 0
  for _, impls in pairs(res) do
    for _, r in pairs(impls) do
      r.t = M.median(r.ts)
      rounds = math.max(rounds, #r.ts)
    end
  end
  return res, facts, rounds
end

function M.fmt_time(t)
  if not t then return "-" end
  if t < 1e-3 then return string.format("%.2f us", t * 1e6) end
  if t < 1 then return string.format("%.2f ms", t * 1e3) end
  return string.format("%.2f s", t)
end

-- a result's bandwidth, GB/s
function M.gbs(r)
  if not r or not r.bytes or r.bytes == 0 or not r.t then return "-" end
  return string.format("%.1f", r.bytes / r.t / 1e9)
end

-- every implementation's checksums of a kernel, every round's, against the
-- reference's ('ref') first, where that is not 0 (relative 1e-9): the
-- mismatches (lines) and how many were checked
function M.check_ref(res)
  local bad, checked = {}, 0
  for kernel, impls in pairs(res) do
    local want = impls.ref and impls.ref.checks[1]
    if want and want ~= 0 then
      for impl, r in pairs(impls) do
        for _, got in ipairs(r.checks) do
          checked = checked + 1
          if math.abs(got - want) > 1e-9 * math.abs(want) then
            bad[#bad + 1] = string.format("%s %s: %.17g, reference %.17g", kernel, impl,
                                          got, want)
          end
        end
      end
    end
  end
  return bad, checked
end

-- the 'results:' line after a table; 'what': which checksums ("dot, spmv")
function M.print_checks(bad, checked, what)
  print()
  if #bad == 0 then
    print(string.format("results: %d checksums (%s; every implementation, every round) agree with the reference's first (rel. err <= 1e-9)", checked, what))
  else
    print("results: MISMATCH\n  " .. table.concat(bad, "\n  "))
  end
end

return M
